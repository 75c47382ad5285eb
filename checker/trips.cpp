#include "checker/trips.hpp"

#include <algorithm>
#include <cstdlib>
#include <climits>
#include <optional>

namespace pc::check {
namespace {

void shift_vars(std::vector<ir::Stmt>& body, int by) {
  for (ir::Stmt& s : body) {
    if (s.var >= trip_var) s.var += by;
    if (s.op.token_var >= trip_var) s.op.token_var += by;
    if (s.op.dest_var >= trip_var) s.op.dest_var += by;
    shift_vars(s.body, by);
    shift_vars(s.else_body, by);
  }
}

bool is_comparison(ir::BinOp b) {
  return b == ir::BinOp::lt || b == ir::BinOp::le || b == ir::BinOp::gt || b == ir::BinOp::ge || b == ir::BinOp::eq ||
         b == ir::BinOp::ne;
}

// The coefficient of N in e if e is a * N + R with R reading no N (a may be
// 0 or negative); none otherwise.
std::optional<std::int64_t> n_coef(const std::vector<ir::Expr>& ex, ir::ExprId e) {
  if (!trip_reads(ex, e)) return 0;
  const ir::Expr& x = ex[static_cast<std::size_t>(e)];
  if (x.kind == ir::ExprKind::var) return 1;  // N: it reads N
  if (x.kind == ir::ExprKind::unary && x.un == ir::UnOp::neg) {
    const auto a = n_coef(ex, x.a);
    return a ? std::optional<std::int64_t>(-*a) : std::nullopt;
  }
  if (x.kind != ir::ExprKind::binary) return std::nullopt;
  const auto a = n_coef(ex, x.a), b = n_coef(ex, x.b);
  if (!a || !b) return std::nullopt;
  if (x.bin == ir::BinOp::add) return *a + *b;
  if (x.bin == ir::BinOp::sub) return *a - *b;
  if (x.bin == ir::BinOp::mul) {
    const ir::Expr& xa = ex[static_cast<std::size_t>(x.a)];
    const ir::Expr& xb = ex[static_cast<std::size_t>(x.b)];
    if (xa.kind == ir::ExprKind::constant && std::llabs(xa.value) <= 1024) return xa.value * *b;
    if (xb.kind == ir::ExprKind::constant && std::llabs(xb.value) <= 1024) return xb.value * *a;
  }
  return std::nullopt;
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

// e with every read of N (trip_var) reading trip_class instead; nodes are
// copied, not changed (another expression may share them).
ir::ExprId to_class(std::vector<ir::Expr>& ex, ir::ExprId e) {
  if (!trip_reads(ex, e)) return e;
  ir::Expr x = ex[static_cast<std::size_t>(e)];
  if (x.kind == ir::ExprKind::var) {
    x.var = trip_class;
  } else {
    x.a = to_class(ex, x.a);
    x.b = to_class(ex, x.b);
  }
  ex.push_back(x);
  return static_cast<ir::ExprId>(ex.size() - 1);
}

// e with N read as trip_class except in the comparisons trip_thresholds takes.
ir::ExprId split_reads(std::vector<ir::Expr>& ex, ir::ExprId e) {
  if (!trip_reads(ex, e)) return e;
  ir::Expr x = ex[static_cast<std::size_t>(e)];
  if (x.kind == ir::ExprKind::binary && is_comparison(x.bin)) {
    const bool ra = trip_reads(ex, x.a), rb = trip_reads(ex, x.b);
    const auto a = ra != rb ? n_coef(ex, ra ? x.a : x.b) : std::nullopt;
    if (a && *a >= 1) return e;
  }
  if (x.kind == ir::ExprKind::var) return to_class(ex, e);
  x.a = split_reads(ex, x.a);
  x.b = split_reads(ex, x.b);
  ex.push_back(x);
  return static_cast<ir::ExprId>(ex.size() - 1);
}

void split_body(std::vector<ir::Expr>& ex, std::vector<ir::Stmt>& body) {
  for (ir::Stmt& s : body) {
    s.expr = split_reads(ex, s.expr);
    // A loop's bound reads N itself (the pass's trip count): the proof
    // takes a loop over N or C * N as the trip loop, and refuses another.
    if (s.kind != ir::StmtKind::for_loop) s.hi = split_reads(ex, s.hi);
    s.lo = split_reads(ex, s.lo);
    ir::Op& op = s.op;
    for (ir::Ref* r : {&op.bar, &op.tmem, &op.global, &op.tmap}) {
      r->index = split_reads(ex, r->index);
      r->cta = split_reads(ex, r->cta);
    }
    for (ir::Ref& r : op.bufs) {
      r.index = split_reads(ex, r.index);
      r.cta = split_reads(ex, r.cta);
    }
    for (ir::ExprId* e : {&op.count, &op.bytes, &op.parity, &op.id, &op.n, &op.multicast, &op.mask, &op.quarter, &op.value})
      *e = split_reads(ex, *e);
    split_body(ex, s.body);
    split_body(ex, s.else_body);
  }
}

bool assigns(const std::vector<ir::Stmt>& body, int v) {
  for (const ir::Stmt& s : body) {
    if ((s.kind == ir::StmtKind::assign || s.kind == ir::StmtKind::for_loop) && s.var == v) return true;
    if (s.kind == ir::StmtKind::op && (s.op.dest_var == v || s.op.token_var == v)) return true;
    if (assigns(s.body, v) || assigns(s.else_body, v)) return true;
  }
  return false;
}

ir::ExprId add_expr(std::vector<ir::Expr>& ex, ir::Expr x) {
  ex.push_back(x);
  return static_cast<ir::ExprId>(ex.size() - 1);
}

ir::Stmt for_stmt(const ir::Loc& loc, int var, ir::ExprId lo, ir::ExprId hi) {
  ir::Stmt f{};
  f.kind = ir::StmtKind::for_loop;
  f.loc = loc;
  f.var = var;
  f.lo = lo;
  f.hi = hi;
  return f;
}

// Nested loops: a loop `for g in 0 .. C * N` at the top of a role (or in its
// `if`s) becomes `for t in 0 .. C: for k in 0 .. N: g = t * N + k; body`,
// then `g = C * N`: the same run at every N, its passes those of the
// other roles' tile loops (CUTLASS's producer runs every tile's k blocks in
// one loop). Its g reads N's class then.
void unflatten(ir::Kernel& t, ir::Role& r, std::vector<ir::Stmt>& body) {
  std::vector<ir::Expr>& ex = t.exprs;
  for (std::size_t i = 0; i < body.size(); ++i) {
    ir::Stmt& s = body[i];
    if (s.kind == ir::StmtKind::if_else) {
      unflatten(t, r, s.body);
      unflatten(t, r, s.else_body);
      continue;
    }
    if (s.kind != ir::StmtKind::for_loop) continue;
    const ir::Expr lo = ex[static_cast<std::size_t>(s.lo)], hi = ex[static_cast<std::size_t>(s.hi)];
    if (lo.kind != ir::ExprKind::constant || lo.value != 0 || hi.kind != ir::ExprKind::binary || hi.bin != ir::BinOp::mul) continue;
    const ir::Expr ha = ex[static_cast<std::size_t>(hi.a)], hb = ex[static_cast<std::size_t>(hi.b)];
    const bool a_n = ha.kind == ir::ExprKind::var && ha.var == trip_var, b_n = hb.kind == ir::ExprKind::var && hb.var == trip_var;
    const ir::ExprId c = a_n ? hi.b : b_n ? hi.a : ir::no_expr;
    if (c == ir::no_expr || ex[static_cast<std::size_t>(c)].kind != ir::ExprKind::constant || ex[static_cast<std::size_t>(c)].value < 1 ||
        assigns(s.body, s.var))
      continue;
    const ir::ExprId n_id = a_n ? hi.a : hi.b;
    const int tv = static_cast<int>(r.vars.size()), kv = tv + 1;
    r.vars.push_back(r.vars[static_cast<std::size_t>(s.var)] + " (tile)");
    r.vars.push_back(r.vars[static_cast<std::size_t>(s.var)] + " (in tile)");
    ir::Expr v{};
    v.kind = ir::ExprKind::var;
    v.loc = s.loc;
    v.var = tv;
    const ir::ExprId t_id = add_expr(ex, v);
    v.var = kv;
    const ir::ExprId k_id = add_expr(ex, v);
    ir::Expr b{};
    b.kind = ir::ExprKind::binary;
    b.loc = s.loc;
    b.bin = ir::BinOp::mul;
    b.a = t_id;
    b.b = n_id;
    const ir::ExprId tn = add_expr(ex, b);
    b.bin = ir::BinOp::add;
    b.a = tn;
    b.b = k_id;
    const ir::ExprId g = add_expr(ex, b);
    ir::Stmt set_g{};
    set_g.kind = ir::StmtKind::assign;
    set_g.loc = s.loc;
    set_g.var = s.var;
    set_g.expr = g;
    ir::Stmt inner = for_stmt(s.loc, kv, s.lo, n_id);
    inner.body.push_back(set_g);
    for (ir::Stmt& x : s.body) inner.body.push_back(std::move(x));
    ir::Stmt outer = for_stmt(s.loc, tv, s.lo, c);
    outer.body.push_back(std::move(inner));
    ir::Stmt last = set_g;
    last.expr = s.hi;
    s = std::move(outer);
    body.insert(body.begin() + static_cast<std::ptrdiff_t>(i) + 1, std::move(last));
    ++i;
  }
}

}  // namespace

bool trip_entered(const TripPlan& plan, const State& s, std::size_t a, std::int64_t& bound) {
  if (plan.counter[a] < 0 || s.agents[a].exited) return false;
  const int pc = s.agents[a].pc;
  // Local steps run the loop's branch at once, so no agent rests on it.
  if (pc <= plan.loop[a].first || pc >= plan.loop[a].second) return false;
  bound = floor_div(s.vars[static_cast<std::size_t>(plan.counter[a])], plan.scale[a]) + 1;
  return true;
}

namespace {

std::int64_t& n_of(const Program& p, State& s, std::size_t a) { return s.vars[static_cast<std::size_t>(p.var_base[a] + trip_var)]; }

void set_n(const Program& p, State& s, std::int64_t v) {
  for (std::size_t a = 0; a < s.agents.size(); ++a) n_of(p, s, a) = v;
}

// The variables e reads, into bits.
void expr_vars(const std::vector<ir::Expr>& ex, ir::ExprId e, std::vector<std::uint64_t>& bits) {
  if (e == ir::no_expr) return;
  const ir::Expr& x = ex[static_cast<std::size_t>(e)];
  if (x.kind == ir::ExprKind::var) bits[static_cast<std::size_t>(x.var) / 64] |= std::uint64_t{1} << (x.var % 64);
  expr_vars(ex, x.a, bits);
  expr_vars(ex, x.b, bits);
}

// Per instruction of a role's code (and one past its end): the variables
// that may be read before they are assigned from there. An operation reads
// every variable its operands name, and its result and token variables
// too (an over-approximation: liveness may only be too large); only an
// assignment kills.
std::vector<std::vector<std::uint64_t>> liveness(const Program& p, const std::vector<Instr>& code, int nvars) {
  const std::size_t words = static_cast<std::size_t>(nvars + 63) / 64;
  std::vector<std::vector<std::uint64_t>> live(code.size() + 1, std::vector<std::uint64_t>(words, 0));
  std::vector<std::vector<std::uint64_t>> uses(code.size(), std::vector<std::uint64_t>(words, 0));
  auto mark = [&](std::vector<std::uint64_t>& bits, int v) {
    if (v >= 0) bits[static_cast<std::size_t>(v) / 64] |= std::uint64_t{1} << (v % 64);
  };
  for (std::size_t pc = 0; pc < code.size(); ++pc) {
    const Instr& in = code[pc];
    expr_vars(p.exprs, in.expr, uses[pc]);
    if (in.kind != InstrKind::op) continue;
    const ir::Op& op = *in.op;
    for (const ir::Ref* r : {&op.bar, &op.tmem, &op.global, &op.tmap}) {
      expr_vars(p.exprs, r->index, uses[pc]);
      expr_vars(p.exprs, r->cta, uses[pc]);
    }
    for (const ir::Ref& r : op.bufs) {
      expr_vars(p.exprs, r.index, uses[pc]);
      expr_vars(p.exprs, r.cta, uses[pc]);
    }
    for (const ir::ExprId e : {op.count, op.bytes, op.parity, op.id, op.n, op.multicast, op.value, op.mask, op.quarter})
      expr_vars(p.exprs, e, uses[pc]);
    mark(uses[pc], op.token_var);
    mark(uses[pc], op.dest_var);
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t i = code.size(); i-- > 0;) {
      const Instr& in = code[i];
      std::vector<std::uint64_t> out(words, 0);
      auto join = [&](std::size_t to) {
        for (std::size_t w = 0; w < words; ++w) out[w] |= live[std::min(to, code.size())][w];
      };
      if (in.kind == InstrKind::jump) {
        join(static_cast<std::size_t>(in.target));
      } else {
        join(i + 1);
        if (in.kind == InstrKind::branch_false || in.kind == InstrKind::choose) join(static_cast<std::size_t>(in.target));
      }
      if (in.kind == InstrKind::assign) out[static_cast<std::size_t>(in.var) / 64] &= ~(std::uint64_t{1} << (in.var % 64));
      for (std::size_t w = 0; w < words; ++w) out[w] |= uses[i][w];
      if (out != live[i]) {
        live[i] = std::move(out);
        changed = true;
      }
    }
  }
  return live;
}

}  // namespace

bool trip_live(const TripPlan& plan, const Program& p, const State& s, std::size_t a, int v) {
  const auto role = static_cast<std::size_t>(p.agents[a].role);
  if (s.agents[a].exited) return false;
  const std::vector<std::vector<std::uint64_t>>& live = plan.live[role];
  const std::size_t pc = std::min<std::size_t>(s.agents[a].pc, live.size() - 1);
  // An agent in the middle of a multi-stage operation (an arrive done, its
  // wait to come) reads that operation's operands again: they are live at
  // its pc.
  return (live[pc][static_cast<std::size_t>(v) / 64] >> (v % 64) & 1) != 0;
}

bool trip_reads(const std::vector<ir::Expr>& ex, ir::ExprId e) {
  if (e == ir::no_expr) return false;
  const ir::Expr& x = ex[static_cast<std::size_t>(e)];
  if (x.kind == ir::ExprKind::var) return x.var == trip_var;
  return trip_reads(ex, x.a) || trip_reads(ex, x.b);
}

bool trip_thresholds(const std::vector<ir::Expr>& ex, ir::ExprId e, std::vector<TripThreshold>& out) {
  if (!trip_reads(ex, e)) return true;
  const ir::Expr& x = ex[static_cast<std::size_t>(e)];
  if (x.kind == ir::ExprKind::binary && is_comparison(x.bin)) {
    const bool ra = trip_reads(ex, x.a), rb = trip_reads(ex, x.b);
    if (ra && rb) return false;
    const ir::ExprId side = ra ? x.a : x.b, other = ra ? x.b : x.a;
    const auto a = n_coef(ex, side);
    if (!a || *a < 1) return false;
    out.push_back(TripThreshold{other, side, *a});
    return true;
  }
  if (x.kind == ir::ExprKind::var) return false;  // N itself, outside a comparison
  return trip_thresholds(ex, x.a, out) && trip_thresholds(ex, x.b, out);
}

ir::Kernel trip_kernel(const ir::Kernel& k, int param, int passes) {
  ir::Kernel t = k;
  const bool nested = passes > 0;
  const int added = nested ? 2 + passes : 1;
  for (ir::Expr& x : t.exprs) {
    if (x.kind == ir::ExprKind::var && x.var >= trip_var) x.var += added;
    if (x.kind == ir::ExprKind::constant && x.param == param) {
      x.kind = ir::ExprKind::var;  // keeps `param`: it names N
      x.var = trip_var;
    }
  }
  const std::string& name = k.params[static_cast<std::size_t>(param)].name;
  for (ir::Role& r : t.roles) {
    r.vars.insert(r.vars.begin() + trip_var, name);
    if (nested) {
      r.vars.insert(r.vars.begin() + trip_class, name + " (its class)");
      for (int q = 0; q < passes; ++q) r.vars.insert(r.vars.begin() + trip_table + q, name + " (pass " + std::to_string(q) + ")");
    }
    shift_vars(r.body, added);
    if (nested) {
      unflatten(t, r, r.body);
      split_body(t.exprs, r.body);
    }
  }
  return t;
}

TripPlan make_trip_plan(const Program& p, const std::shared_ptr<const TripShift>& shift) {
  TripPlan plan;
  if (!shift) return plan;
  plan.active = true;
  plan.shift = *shift;
  const std::size_t n = p.agents.size();
  plan.counter.assign(n, -1);
  plan.scale.assign(n, 1);
  plan.shifted.assign(n, {});
  plan.loop.assign(n, {0, 0});
  plan.gates.resize(p.code.size());
  plan.live.resize(p.code.size());
  for (std::size_t r = 0; r < p.code.size(); ++r)
    plan.live[r] = liveness(p, p.code[r], static_cast<int>(p.kernel->roles[r].vars.size()));
  // The operations that retire groups (spec::async_group::wait, called from
  // checker/step: on_bulk_wait_group, on_cp_async_wait, on_wgmma_wait).
  plan.group_waits.assign(p.code.size(), {0, 0, 0});
  for (std::size_t r = 0; r < p.code.size(); ++r)
    for (const Instr& in : p.code[r]) {
      if (in.kind != InstrKind::op) continue;
      const ir::OpCode c = in.op->code;
      if (c == ir::OpCode::bulk_wait_group || c == ir::OpCode::bulk_wait_group_read) plan.group_waits[r][0] = 1;
      if (c == ir::OpCode::wgmma_wait) plan.group_waits[r][1] = 1;
      if (c == ir::OpCode::cp_async_wait || c == ir::OpCode::cp_async_wait_all) plan.group_waits[r][2] = 1;
    }
  // Per role: the trip loop's branch, the branch_false on `counter < bound`
  // with a bound that reads N that closes a loop (program.cpp), and the gates.
  std::vector<std::pair<int, int>> loops(p.code.size(), {-1, -1});
  for (std::size_t r = 0; r < p.code.size(); ++r) {
    const std::vector<Instr>& code = p.code[r];
    const int counter = r < shift->counter.size() ? shift->counter[r] : -1;
    plan.gates[r].resize(code.size());
    for (std::size_t pc = 0; pc < code.size(); ++pc) {
      const Instr& in = code[pc];
      if (counter >= 0 && in.kind == InstrKind::branch_false) {
        const ir::Expr& cond = p.exprs[static_cast<std::size_t>(in.expr)];
        if (cond.kind == ir::ExprKind::binary && cond.bin == ir::BinOp::lt) {
          const ir::Expr& lhs = p.exprs[static_cast<std::size_t>(cond.a)];
          // A loop's branch: the instruction before its target jumps back to it
          // (an `if k < N` is not one).
          const bool back = in.target > 0 && code[static_cast<std::size_t>(in.target - 1)].kind == InstrKind::jump &&
                            code[static_cast<std::size_t>(in.target - 1)].target == static_cast<int>(pc);
          if (back && lhs.kind == ir::ExprKind::var && lhs.var == counter && trip_reads(p.exprs, cond.b)) {
            loops[r] = {static_cast<int>(pc), in.target};
            continue;
          }
        }
      }
      if (in.kind == InstrKind::op || in.expr == ir::no_expr || !trip_reads(p.exprs, in.expr)) continue;
      std::vector<TripThreshold>& g = plan.gates[r][pc];
      // Not of the form: no lower bound settles it (checker/smt/trips.cpp
      // lets none be reached while N is undecided).
      if (!trip_thresholds(p.exprs, in.expr, g)) g.assign(1, TripThreshold{});
    }
  }
  // Nested: per role, the outer loop's branch (the first branch_false on
  // `outer < bound` whose target follows a jump back to it, before the trip
  // loop's) and the assignments to its counter.
  std::vector<std::pair<int, int>> outers(p.code.size(), {-1, -1});
  plan.pass_hook.resize(p.code.size());
  for (std::size_t r = 0; r < p.code.size() && shift->nested; ++r) {
    const std::vector<Instr>& code = p.code[r];
    plan.pass_hook[r].assign(code.size(), 0);
    const int outer = r < shift->outer.size() ? shift->outer[r] : -1;
    if (outer < 0 || loops[r].first < 0) continue;
    for (std::size_t pc = 0; pc < code.size(); ++pc) {
      const Instr& in = code[pc];
      if (in.kind != InstrKind::branch_false || static_cast<int>(pc) >= loops[r].first || in.target <= loops[r].second) continue;
      const ir::Expr& cond = p.exprs[static_cast<std::size_t>(in.expr)];
      const ir::Expr& lhs = p.exprs[static_cast<std::size_t>(cond.a)];
      const bool back = code[static_cast<std::size_t>(in.target - 1)].kind == InstrKind::jump &&
                        code[static_cast<std::size_t>(in.target - 1)].target == static_cast<int>(pc);
      if (back && cond.kind == ir::ExprKind::binary && cond.bin == ir::BinOp::lt && lhs.kind == ir::ExprKind::var && lhs.var == outer)
        outers[r] = {static_cast<int>(pc), in.target};
    }
    // The outer loop's own assignments: its first value (just before its
    // branch) and its step (before the jump back); not one after the loop.
    for (int pc = outers[r].first - 1; outers[r].first >= 0 && pc < outers[r].second; ++pc)
      if (pc >= 0 && code[static_cast<std::size_t>(pc)].kind == InstrKind::assign && code[static_cast<std::size_t>(pc)].var == outer)
        plan.pass_hook[r][static_cast<std::size_t>(pc)] = 1;
  }
  plan.outer.assign(n, -1);
  plan.outer_loop.assign(n, {0, 0});
  plan.modular.assign(n, {});
  for (std::size_t a = 0; a < n; ++a) {
    const auto role = static_cast<std::size_t>(p.agents[a].role);
    const int counter = shift->counter[role];
    if (counter < 0 || loops[role].first < 0) continue;
    if (shift->nested && outers[role].first < 0) continue;
    // An agent whose CTA, instance or warp fails a guard does not run the loop.
    std::vector<std::int64_t> vars(p.kernel->roles[role].vars.size(), 0);
    vars[ir::var_cta] = p.agents[a].cta;
    vars[ir::var_instance] = p.agents[a].instance;
    vars[ir::var_warp] = p.agents[a].warp;
    bool runs = true;
    for (const auto& [cond, taken] : shift->guards[role]) runs = runs && ((eval(p, cond, vars.data()) != 0) == taken);
    if (!runs) continue;
    const int base = p.var_base[a];
    plan.counter[a] = base + counter;
    plan.scale[a] = shift->scale[role];
    for (const auto& [v, c] : shift->shifted[role]) plan.shifted[a].emplace_back(base + v, c);
    plan.loop[a] = loops[role];
    if (shift->nested) {
      plan.outer[a] = base + shift->outer[role];
      plan.outer_loop[a] = outers[role];
      for (const int v : shift->modular[role]) plan.modular[a].push_back(base + v);
    }
  }
  return plan;
}

void trip_start(const TripPlan& plan, const Program& p, State& s) {
  if (!plan.active) return;
  set_n(p, s, trip_undecided + plan.shift.least);
  // N's class, read only where pass 0's reads do not depend on it
  // (checker/smt/trips.cpp), until pass 0 decides it.
  if (!plan.shift.nested) return;
  for (std::size_t a = 0; a < s.agents.size(); ++a) s.vars[static_cast<std::size_t>(p.var_base[a] + trip_class)] = plan.shift.least;
  for (int q = 0; q < plan.shift.passes; ++q) trip_pass_n(p, s, q) = q == 0 ? trip_undecided + plan.shift.least : -1;
}

int trip_pass(const TripPlan& plan, const Program& p, const State& s, std::size_t a) {
  (void)p;
  if (plan.counter[a] < 0 || s.agents[a].exited) return -1;
  if (!plan.shift.nested) return 0;
  const int pc = s.agents[a].pc;
  if (pc <= plan.outer_loop[a].first) return 0;
  if (pc >= plan.outer_loop[a].second) return -1;
  const auto role = static_cast<std::size_t>(p.agents[a].role);
  return static_cast<int>(s.vars[static_cast<std::size_t>(plan.outer[a])] - plan.shift.outer_lo[role]);
}

bool trip_gate_open(const TripPlan& plan, const Program& p, const State& s, int a) {
  if (!plan.active) return true;
  const auto ai = static_cast<std::size_t>(a);
  const AgentState& ag = s.agents[ai];
  const auto role = static_cast<std::size_t>(p.agents[ai].role);
  const std::vector<std::vector<TripThreshold>>& g = plan.gates[role];
  if (ag.exited || ag.pc >= g.size() || g[ag.pc].empty()) return true;
  const std::int64_t* vars = s.vars.data() + p.var_base[ai];
  if (!trip_is_undecided(vars[trip_var])) return true;
  std::int64_t low = vars[trip_var] - trip_undecided, own = 0;
  if (trip_entered(plan, s, ai, own)) low = std::max(low, own);
  std::vector<std::int64_t> at_zero(vars, vars + p.kernel->roles[role].vars.size());
  at_zero[trip_var] = 0;
  for (const TripThreshold& t : g[ag.pc]) {
    if (t.other == ir::no_expr)
      throw NotProved("line " + std::to_string(p.code[role][ag.pc].loc.line) + ": the trip count is read, undecided, other than by a comparison");
    std::int64_t threshold = 0;
    try {
      threshold = floor_div(eval(p, t.other, vars) - eval(p, t.side, at_zero.data()), t.scale) + 1;
    } catch (const KernelError&) {
      return true;  // for the step to report
    }
    if (low < threshold) return false;
  }
  return true;
}

namespace {

// The agents of pass q: their N is the pass's.
bool in_pass(const TripPlan& plan, const Program& p, const State& s, std::size_t a, int q) {
  return trip_pass(plan, p, s, a) == q;
}

// An agent of pass q (-1: none).
int agent_of(const TripPlan& plan, const Program& p, const State& s, int q) {
  for (std::size_t a = 0; a < s.agents.size(); ++a)
    if (in_pass(plan, p, s, a, q)) return static_cast<int>(a);
  return -1;
}

// The least value at or above v that pass q's N may take: of N's class
// (trip_class) after pass 0 (nested loops), any value in pass 0.
std::int64_t in_class(const TripPlan& plan, const Program& p, const State& s, int q, std::int64_t v) {
  if (!plan.shift.nested || q == 0) return v;
  const std::int64_t c = s.vars[static_cast<std::size_t>(p.var_base[0] + trip_class)], P = plan.shift.period;
  return v <= c ? c : c + (v - c + P - 1) / P * P;
}

// Pass q's N: the table's (nested loops), or the first agent's.
std::int64_t pass_n(const TripPlan& plan, const Program& p, const State& s, int q) {
  if (plan.shift.nested) {
    const std::int64_t n = q >= 0 && q < plan.shift.passes ? trip_pass_n(p, s, q) : -1;
    return n < 0 ? trip_undecided + in_class(plan, p, s, q, plan.shift.least) : n;
  }
  return s.vars[static_cast<std::size_t>(p.var_base[0] + trip_var)];
}

}  // namespace

std::int64_t trip_least_of(const TripPlan& plan, const Program& p, const State& s, int q) {
  const std::int64_t n = pass_n(plan, p, s, q);
  if (!trip_is_undecided(n)) return n;
  std::int64_t low = n - trip_undecided;
  for (std::size_t a = 0; a < plan.counter.size(); ++a)
    if (std::int64_t b = 0; in_pass(plan, p, s, a, q) && trip_entered(plan, s, a, b)) low = std::max(low, b);
  return in_class(plan, p, s, q, low);
}

namespace {

// Pass q's N is undecided, and its decision matters: an agent has entered
// the least N's last trip (it may leave the loop next), or one waits at a gate.
bool pass_wants(const TripPlan& plan, const Program& p, const State& s, int q, bool decide) {
  if (agent_of(plan, p, s, q) < 0 || !trip_is_undecided(pass_n(plan, p, s, q))) return false;
  bool gate = false;
  std::int64_t highest = LLONG_MIN;
  for (std::size_t a = 0; a < s.agents.size(); ++a) {
    if (!in_pass(plan, p, s, a, q)) continue;
    gate = gate || !trip_gate_open(plan, p, s, static_cast<int>(a));
    if (std::int64_t b = 0; trip_entered(plan, s, a, b)) highest = std::max(highest, b);
  }
  if (gate) return true;
  // (N's least, not its class's least value: the key keeps counters at or
  // above the first only; the value decided is of the class either way.)
  return decide && highest >= plan.shift.least;
}

void set_pass_n(const TripPlan& plan, const Program& p, State& s, int q, std::int64_t v) {
  for (std::size_t a = 0; a < s.agents.size(); ++a)
    if (!plan.shift.nested || in_pass(plan, p, s, a, q)) n_of(p, s, a) = v;
  if (plan.shift.nested) trip_pass_n(p, s, q) = v;
}

}  // namespace

int trip_oracle_pass(const TripPlan& plan, const Program& p, const State& s, bool decide) {
  for (int q = 0; q < plan.shift.passes; ++q)
    if (pass_wants(plan, p, s, q, decide)) return q;
  return -1;
}

std::int64_t trip_least(const TripPlan& plan, const Program& p, const State& s) {
  int low = -1;
  for (std::size_t a = 0; a < s.agents.size(); ++a)
    if (const int q = trip_pass(plan, p, s, a); q >= 0 && (low < 0 || q < low)) low = q;
  if (low >= 0) return trip_least_of(plan, p, s, low);
  // Every runner is past its loops: the N the first agent holds.
  const std::int64_t n = s.vars[static_cast<std::size_t>(p.var_base[0] + trip_var)];
  return trip_is_undecided(n) ? n - trip_undecided : n;
}

bool trip_decide(const TripPlan& plan, const Program& p, State& s) {
  const int q = trip_oracle_pass(plan, p, s, true);
  if (q < 0) return false;
  const std::int64_t v = trip_least_of(plan, p, s, q);
  set_pass_n(plan, p, s, q, v);
  // Pass 0 decides N's class: the least value of v's residue at or above N's least.
  if (plan.shift.nested && q == 0) {
    const std::int64_t c = plan.shift.least + (v - plan.shift.least) % plan.shift.period;
    for (std::size_t a = 0; a < s.agents.size(); ++a) s.vars[static_cast<std::size_t>(p.var_base[a] + trip_class)] = c;
  }
  return true;
}

bool trip_raise(const TripPlan& plan, const Program& p, State& s) {
  const int q = trip_oracle_pass(plan, p, s, false);
  if (q < 0) return false;
  set_pass_n(plan, p, s, q, trip_undecided + in_class(plan, p, s, q, trip_least_of(plan, p, s, q) + 1));
  return true;
}

void trip_pass_begins(const TripPlan& plan, const Program& p, State& s, std::size_t a, std::size_t pc) {
  const auto role = static_cast<std::size_t>(p.agents[a].role);
  if (plan.pass_hook[role].empty() || !plan.pass_hook[role][pc] || plan.outer[a] < 0) return;
  const std::int64_t t = s.vars[static_cast<std::size_t>(plan.outer[a])];
  const int q = static_cast<int>(t - plan.shift.outer_lo[role]);
  if (q <= 0 || t >= plan.shift.outer_hi[role] || q >= plan.shift.passes) return;
  std::int64_t& n = trip_pass_n(p, s, q);
  if (n < 0) n = trip_undecided + in_class(plan, p, s, q, plan.shift.least);
  n_of(p, s, a) = n;
}

}  // namespace pc::check
