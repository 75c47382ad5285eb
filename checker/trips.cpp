#include "checker/trips.hpp"

#include <algorithm>
#include <cstdlib>
#include <optional>

namespace pc::check {
namespace {

void shift_vars(std::vector<ir::Stmt>& body) {
  for (ir::Stmt& s : body) {
    if (s.var >= trip_var) ++s.var;
    if (s.op.token_var >= trip_var) ++s.op.token_var;
    if (s.op.dest_var >= trip_var) ++s.op.dest_var;
    shift_vars(s.body);
    shift_vars(s.else_body);
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

// Some agent waits at a gate that its lower bound does not open.
bool any_gate_closed(const TripPlan& plan, const Program& p, const State& s) {
  for (std::size_t a = 0; a < s.agents.size(); ++a)
    if (!trip_gate_open(plan, p, s, static_cast<int>(a))) return true;
  return false;
}

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

ir::Kernel trip_kernel(const ir::Kernel& k, int param) {
  ir::Kernel t = k;
  for (ir::Expr& x : t.exprs) {
    if (x.kind == ir::ExprKind::var && x.var >= trip_var) ++x.var;
    if (x.kind == ir::ExprKind::constant && x.param == param) {
      x.kind = ir::ExprKind::var;  // keeps `param`: it names N
      x.var = trip_var;
    }
  }
  for (ir::Role& r : t.roles) {
    r.vars.insert(r.vars.begin() + trip_var, k.params[static_cast<std::size_t>(param)].name);
    shift_vars(r.body);
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
  for (std::size_t a = 0; a < n; ++a) {
    const auto role = static_cast<std::size_t>(p.agents[a].role);
    const int counter = shift->counter[role];
    if (counter < 0 || loops[role].first < 0) continue;
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
  }
  return plan;
}

void trip_start(const TripPlan& plan, const Program& p, State& s) {
  if (plan.active) set_n(p, s, trip_undecided + plan.shift.least);
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

std::int64_t trip_least(const TripPlan& plan, const Program& p, const State& s) {
  const std::int64_t n = s.vars[static_cast<std::size_t>(p.var_base[0] + trip_var)];
  if (!trip_is_undecided(n)) return n;
  std::int64_t low = n - trip_undecided;
  for (std::size_t a = 0; a < plan.counter.size(); ++a)
    if (std::int64_t b = 0; trip_entered(plan, s, a, b)) low = std::max(low, b);
  return low;
}

bool trip_decide(const TripPlan& plan, const Program& p, State& s) {
  if (!trip_is_undecided(s.vars[static_cast<std::size_t>(p.var_base[0] + trip_var)])) return false;
  // Deciding waits until it matters: an agent has entered the least N's last
  // trip (it may leave the loop next), or one waits at a gate.
  std::int64_t highest = plan.shift.least - 1;
  for (std::size_t a = 0; a < plan.counter.size(); ++a)
    if (std::int64_t b = 0; trip_entered(plan, s, a, b)) highest = std::max(highest, b);
  if (highest < plan.shift.least && !any_gate_closed(plan, p, s)) return false;
  set_n(p, s, trip_least(plan, p, s));
  return true;
}

bool trip_raise(const TripPlan& plan, const Program& p, State& s) {
  if (!trip_is_undecided(s.vars[static_cast<std::size_t>(p.var_base[0] + trip_var)]) || !any_gate_closed(plan, p, s)) return false;
  set_n(p, s, trip_undecided + trip_least(plan, p, s) + 1);
  return true;
}

}  // namespace pc::check
