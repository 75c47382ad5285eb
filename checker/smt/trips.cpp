#include "checker/smt/trips.hpp"

#include <z3++.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "checker/smt/encode.hpp"

namespace pc::smt {
namespace {

using ir::ExprId;
using check::trip_var;

// An expression a role evaluates, and the variable it assigns (-1: none).
struct Site {
  ExprId e = ir::no_expr;
  int target = -1;
  ir::Loc loc;
  bool op = false;  // an operation's operand
  // The `for` loops around it whose first value is a constant: (variable, it).
  std::vector<std::pair<int, std::int64_t>> within;
};

using Within = std::vector<std::pair<int, std::int64_t>>;

void op_sites(const ir::Stmt& s, std::vector<Site>& out, const Within& within) {
  const ir::Op& op = s.op;
  auto add = [&](ExprId e) {
    if (e != ir::no_expr) out.push_back(Site{e, -1, s.loc, true, within});
  };
  auto ref = [&](const ir::Ref& r) {
    add(r.index);
    add(r.cta);
  };
  ref(op.bar);
  for (const ir::Ref& r : op.bufs) ref(r);
  ref(op.tmem);
  ref(op.global);
  ref(op.tmap);
  for (ExprId e : {op.count, op.bytes, op.parity, op.id, op.n, op.multicast, op.mask, op.quarter, op.value}) add(e);
}

// The sites of `body`; `exprs` (with `within`, the loops around body) to
// note the loops whose first value is a constant.
void sites(const std::vector<ir::Stmt>& body, std::vector<Site>& out, const std::vector<ir::Expr>* exprs = nullptr,
           const Within& within = {}) {
  for (const ir::Stmt& s : body) {
    switch (s.kind) {
      case ir::StmtKind::op: op_sites(s, out, within); break;
      case ir::StmtKind::assign: out.push_back(Site{s.expr, s.var, s.loc, false, within}); break;
      case ir::StmtKind::for_loop: {
        out.push_back(Site{s.lo, s.var, s.loc, false, within});
        out.push_back(Site{s.hi, -1, s.loc, false, within});
        Within in = within;
        if (exprs && (*exprs)[static_cast<std::size_t>(s.lo)].kind == ir::ExprKind::constant)
          in.emplace_back(s.var, (*exprs)[static_cast<std::size_t>(s.lo)].value);
        sites(s.body, out, exprs, in);
        break;
      }
      case ir::StmtKind::if_else:
        out.push_back(Site{s.expr, -1, s.loc, false, within});
        sites(s.body, out, exprs, within);
        sites(s.else_body, out, exprs, within);
        break;
      case ir::StmtKind::assert_true: out.push_back(Site{s.expr, -1, s.loc, false, within}); break;
      case ir::StmtKind::either:
        sites(s.body, out, exprs, within);
        sites(s.else_body, out, exprs, within);
        break;
    }
  }
}

// Variables an operation writes (test_wait results, tokens, bar_red).
void written_by_ops(const std::vector<ir::Stmt>& body, std::vector<std::pair<int, ir::Loc>>& out) {
  for (const ir::Stmt& s : body) {
    if (s.kind == ir::StmtKind::op) {
      if (s.op.dest_var >= 0) out.emplace_back(s.op.dest_var, s.loc);
      if (s.op.token_var >= 0) out.emplace_back(s.op.token_var, s.loc);
    }
    written_by_ops(s.body, out);
    written_by_ops(s.else_body, out);
  }
}

bool reads_var(const std::vector<ir::Expr>& ex, ExprId e, int var) {
  if (e == ir::no_expr) return false;
  const ir::Expr& x = ex[static_cast<std::size_t>(e)];
  if (x.kind == ir::ExprKind::var) return x.var == var;
  return reads_var(ex, x.a, var) || reads_var(ex, x.b, var);
}

bool mentions_param(const std::vector<ir::Expr>& ex, ExprId e, int param) {
  if (e == ir::no_expr) return false;
  const ir::Expr& x = ex[static_cast<std::size_t>(e)];
  if (x.kind == ir::ExprKind::constant) return x.param == param;
  return mentions_param(ex, x.a, param) || mentions_param(ex, x.b, param);
}

// The coefficient of the shift in e when e is affine in the shifted
// variables (a candidate, which the solver then checks); nullopt otherwise.
std::optional<std::int64_t> linear(const std::vector<ir::Expr>& ex, ExprId e, const std::map<int, std::int64_t>& coef) {
  const ir::Expr& x = ex[static_cast<std::size_t>(e)];
  switch (x.kind) {
    case ir::ExprKind::constant: return 0;
    case ir::ExprKind::var: {
      const auto it = coef.find(x.var);
      return it == coef.end() ? 0 : it->second;
    }
    case ir::ExprKind::unary: {
      const auto a = linear(ex, x.a, coef);
      if (!a) return std::nullopt;
      if (x.un == ir::UnOp::neg) return -*a;
      return *a == 0 ? std::optional<std::int64_t>(0) : std::nullopt;
    }
    case ir::ExprKind::binary: {
      const auto a = linear(ex, x.a, coef), b = linear(ex, x.b, coef);
      if (!a || !b) return std::nullopt;
      if (x.bin == ir::BinOp::add) return *a + *b;
      if (x.bin == ir::BinOp::sub) return *a - *b;
      if (x.bin == ir::BinOp::mul) {
        const ir::Expr& xa = ex[static_cast<std::size_t>(x.a)];
        const ir::Expr& xb = ex[static_cast<std::size_t>(x.b)];
        if (xa.kind == ir::ExprKind::constant) return xa.value * *b;
        if (xb.kind == ir::ExprKind::constant) return xb.value * *a;
      }
      // Anything else must be periodic (coefficient 0), if it reads the shift at all.
      return 0;
    }
  }
  return 0;
}

struct RolePlan {
  int counter = -1;
  std::int64_t scale = 1;                            // the loop's bound is scale * N
  std::vector<std::pair<ExprId, bool>> guards;       // the ifs around the loop, and the branch taken
  std::map<int, std::int64_t> coef;                  // shifted variables (the counter and N included)
  std::vector<Site> checked;                         // the sites in and after the trip loop
  std::vector<check::TripThreshold> thresholds;      // the comparisons that read N inside the loop
  std::vector<int> nonneg;                           // variables never negative: loop variables from a constant >= 0
};

// The variables of a role that are never negative: set only by `for`
// loops from a constant at or above 0 (each step adds 1; every variable
// starts at 0), assigned nowhere else and written by no operation.
std::vector<int> nonneg_vars(const ir::Kernel& t, const ir::Role& r) {
  std::vector<char> loop(r.vars.size(), 0), other(r.vars.size(), 0);
  std::function<void(const std::vector<ir::Stmt>&)> walk = [&](const std::vector<ir::Stmt>& b) {
    for (const ir::Stmt& s : b) {
      if (s.kind == ir::StmtKind::for_loop) {
        const ir::Expr& lo = t.exprs[static_cast<std::size_t>(s.lo)];
        (lo.kind == ir::ExprKind::constant && lo.value >= 0 ? loop : other)[static_cast<std::size_t>(s.var)] = 1;
      } else if (s.kind == ir::StmtKind::assign) {
        other[static_cast<std::size_t>(s.var)] = 1;
      } else if (s.kind == ir::StmtKind::op) {
        if (s.op.dest_var >= 0) other[static_cast<std::size_t>(s.op.dest_var)] = 1;
        if (s.op.token_var >= 0) other[static_cast<std::size_t>(s.op.token_var)] = 1;
      }
      walk(s.body);
      walk(s.else_body);
    }
  };
  walk(r.body);
  std::vector<int> out;
  for (std::size_t v = ir::num_builtin_vars; v < r.vars.size(); ++v)
    if (loop[v] && !other[v]) out.push_back(static_cast<int>(v));
  return out;
}

std::string at(const ir::Loc& l) { return "line " + std::to_string(l.line); }

bool reads_only_builtins(const std::vector<ir::Expr>& ex, ExprId e) {
  if (e == ir::no_expr) return true;
  const ir::Expr& x = ex[static_cast<std::size_t>(e)];
  if (x.kind == ir::ExprKind::var) return x.var < ir::num_builtin_vars;
  return reads_only_builtins(ex, x.a) && reads_only_builtins(ex, x.b);
}

// Where a role's trip loop sits: the statements around it, outermost first.
struct Place {
  const ir::Stmt* loop = nullptr;
  std::vector<const ir::Stmt*> around;  // the ifs and loops that hold it
  std::vector<bool> in_body;            // per `around`: in its body (else its else-body)
};

void find_trip_loops(const ir::Kernel& t, const std::vector<ir::Stmt>& body, Place& at_now, std::vector<Place>& out) {
  for (const ir::Stmt& s : body) {
    if (s.kind == ir::StmtKind::for_loop && reads_var(t.exprs, s.hi, trip_var)) {
      Place p = at_now;
      p.loop = &s;
      out.push_back(p);
    }
    if (s.kind != ir::StmtKind::for_loop && s.kind != ir::StmtKind::if_else) continue;
    at_now.around.push_back(&s);
    at_now.in_body.push_back(true);
    find_trip_loops(t, s.body, at_now, out);
    at_now.in_body.back() = false;
    find_trip_loops(t, s.else_body, at_now, out);
    at_now.around.pop_back();
    at_now.in_body.pop_back();
  }
}

// The sites of the statements of `block` before and after element `i`.
void split_sites(const std::vector<ir::Stmt>& block, std::size_t i, std::vector<Site>& before, std::vector<Site>& after) {
  for (std::size_t j = 0; j < block.size(); ++j)
    if (j != i) sites({block[j]}, j < i ? before : after);
}

std::size_t index_in(const std::vector<ir::Stmt>& block, const ir::Stmt* s) {
  return static_cast<std::size_t>(s - block.data());
}

// Plans one role: its trip loop, the sites to check, the coefficients.
// Returns the reason it cannot be covered, or "".
std::string plan_role(const ir::Kernel& t, const ir::Role& r, RolePlan& rp) {
  const std::vector<ir::Expr>& ex = t.exprs;
  std::vector<Place> loops;
  Place top;
  find_trip_loops(t, r.body, top, loops);
  if (loops.size() > 1)
    return "role " + r.name + " has two loops over the trip count (" + at(loops[0].loop->loc) + ", " + at(loops[1].loop->loc) + ")";
  if (loops.empty()) {
    std::vector<Site> all;
    sites(r.body, all);
    for (const Site& s : all)
      if (reads_var(ex, s.e, trip_var)) return at(s.loc) + ": role " + r.name + " reads the trip count and runs no loop over it";
    return "";
  }
  const Place& pl = loops[0];
  const ir::Stmt& loop = *pl.loop;
  for (const ir::Stmt* s : pl.around)
    if (s->kind == ir::StmtKind::for_loop)
      return at(loop.loc) + ": the loop over the trip count is inside the loop at " + at(s->loc) +
             " (nested loops: every trip of the outer loop runs the trip count's trips, which no shift of the counters follows)";
  // The bound: N, or a constant times N (a loop flattened over TILES * N).
  const ir::Expr& hi = ex[static_cast<std::size_t>(loop.hi)];
  if (hi.kind == ir::ExprKind::binary && hi.bin == ir::BinOp::mul) {
    const ir::Expr& a = ex[static_cast<std::size_t>(hi.a)];
    const ir::Expr& b = ex[static_cast<std::size_t>(hi.b)];
    const ir::Expr* c = a.kind == ir::ExprKind::constant ? &a : b.kind == ir::ExprKind::constant ? &b : nullptr;
    const ir::Expr* v = c == &a ? &b : &a;
    if (c && v->kind == ir::ExprKind::var && v->var == trip_var && c->value >= 1 && c->value <= 1024) rp.scale = c->value;
    else return at(loop.loc) + ": the loop's bound is neither the trip count nor a constant (1 to 1024) times it";
  } else if (hi.kind != ir::ExprKind::var || hi.var != trip_var) {
    return at(loop.loc) + ": the loop's bound is neither the trip count nor a constant (1 to 1024) times it";
  }
  // The ifs around it decide, per agent, whether it runs the loop.
  std::vector<Site> before, skipped, shared, body, after;
  const std::vector<ir::Stmt>* block = &r.body;
  for (std::size_t i = 0; i < pl.around.size(); ++i) {
    const ir::Stmt& s = *pl.around[i];
    if (!reads_only_builtins(ex, s.expr))
      return at(loop.loc) + ": the loop over the trip count is inside the `if` at " + at(s.loc) +
             ", whose condition reads variables other than cta, instance and warp";
    rp.guards.emplace_back(s.expr, pl.in_body[i]);
    split_sites(*block, index_in(*block, &s), before, shared);
    sites(pl.in_body[i] ? s.else_body : s.body, skipped);
    before.push_back(Site{s.expr, -1, s.loc, false, {}});
    block = pl.in_body[i] ? &s.body : &s.else_body;
  }
  split_sites(*block, index_in(*block, &loop), before, after);
  rp.counter = loop.var;
  if (reads_var(ex, loop.lo, trip_var)) return at(loop.loc) + ": the trip loop's first value reads the trip count";
  // Before the loop, N is read only by comparisons (a gate: the search
  // decides N, or raises its lower bound, until the comparison is settled),
  // and only where every agent of the role runs the loop (an agent that does
  // not may still read it after the key has shifted N).
  for (const Site& s : before) {
    if (!reads_var(ex, s.e, trip_var)) continue;
    std::vector<check::TripThreshold> th;
    if (!pl.around.empty() || s.op || !check::trip_thresholds(ex, s.e, th))
      return at(s.loc) + ": role " + r.name + " reads the trip count before its loop over it, where it is not yet decided" +
             (pl.around.empty() ? " (other than by a comparison in an `if` or an assignment)" : " (and not every agent of the role runs the loop)");
  }
  for (const std::vector<Site>* list : {&skipped, &shared})
    for (const Site& s : *list)
      if (reads_var(ex, s.e, trip_var))
        return at(s.loc) + ": role " + r.name + " reads the trip count where an agent that does not run its loop (" + at(loop.loc) +
               ") may be, before it is decided";
  Within in_loop;
  if (ex[static_cast<std::size_t>(loop.lo)].kind == ir::ExprKind::constant) in_loop.emplace_back(loop.var, ex[static_cast<std::size_t>(loop.lo)].value);
  sites(loop.body, body, &ex, in_loop);
  for (const Site& s : body) {
    if (!reads_var(ex, s.e, trip_var)) continue;
    if (s.op || !check::trip_thresholds(ex, s.e, rp.thresholds))
      return at(s.loc) + ": the trip count is read inside its loop (role " + r.name +
             "), before it is decided, other than by a comparison `x < a * N + c` (a >= 1; or <=, >, >=, ==, !=) in an `if` or an assignment";
  }
  rp.nonneg = nonneg_vars(t, r);
  rp.checked = body;
  rp.checked.insert(rp.checked.end(), after.begin(), after.end());
  rp.checked.insert(rp.checked.end(), shared.begin(), shared.end());
  // Coefficients, to a fixpoint: a variable assigned an affine expression of
  // shifted ones moves with them.
  rp.coef = {{rp.counter, rp.scale}, {trip_var, 1}};
  // Inside the loop the counter must count the trips entered (the oracle
  // reads it); after it, a new value that moves with N is checked as any
  // assignment (CUTLASS's producer tail: `k = K_TILES + c`).
  for (std::size_t i = 0; i < body.size(); ++i)
    if (body[i].target == rp.counter)
      return at(body[i].loc) + ": the trip counter " + r.vars[static_cast<std::size_t>(rp.counter)] +
             " is assigned inside its loop";
  for (int round = 0; round < 8; ++round) {
    bool changed = false;
    for (const Site& s : rp.checked) {
      if (s.target < 0) continue;
      const std::int64_t c = linear(ex, s.e, rp.coef).value_or(0);
      const auto it = rp.coef.find(s.target);
      const std::int64_t now = it == rp.coef.end() ? 0 : it->second;
      if (c == now) continue;
      if (now != 0) return at(s.loc) + ": variable " + r.vars[static_cast<std::size_t>(s.target)] +
                           " is assigned values that move differently with the trip counter";
      rp.coef[s.target] = c;
      changed = true;
    }
    if (!changed) break;
  }
  for (const auto& [v, c] : rp.coef)
    if (c < 0) return "variable " + r.vars[static_cast<std::size_t>(v)] + " moves against the trip counter";
  // An inner loop's condition compares its variable with its bound, which
  // the check takes one by one: the variable must not move.
  std::function<std::string(const std::vector<ir::Stmt>&)> inner = [&](const std::vector<ir::Stmt>& b) -> std::string {
    for (const ir::Stmt& s : b) {
      if (s.kind == ir::StmtKind::for_loop && rp.coef.count(s.var) && rp.coef.at(s.var) != 0)
        return at(s.loc) + ": the loop over " + r.vars[static_cast<std::size_t>(s.var)] + " moves with the trip counter";
      if (std::string why = inner(s.body); !why.empty()) return why;
      if (std::string why = inner(s.else_body); !why.empty()) return why;
    }
    return "";
  };
  // The statements a runner takes after the loop: in its block, then in
  // each block around it.
  std::vector<ir::Stmt> later;
  {
    const std::vector<ir::Stmt>* b = &r.body;
    std::vector<const std::vector<ir::Stmt>*> blocks{b};
    for (std::size_t i = 0; i < pl.around.size(); ++i) {
      b = pl.in_body[i] ? &pl.around[i]->body : &pl.around[i]->else_body;
      blocks.push_back(b);
    }
    std::vector<const ir::Stmt*> path(pl.around.begin(), pl.around.end());
    path.push_back(&loop);
    for (std::size_t i = 0; i < blocks.size(); ++i)
      for (std::size_t j = index_in(*blocks[i], path[i]) + 1; j < blocks[i]->size(); ++j) later.push_back((*blocks[i])[j]);
  }
  if (std::string why = inner(loop.body); !why.empty()) return why;
  if (std::string why = inner(later); !why.empty()) return why;
  std::vector<std::pair<int, ir::Loc>> written;
  written_by_ops(loop.body, written);
  written_by_ops(later, written);
  for (const auto& [v, loc] : written)
    if (rp.coef.count(v) && rp.coef.at(v) != 0)
      return at(loc) + ": an operation writes variable " + r.vars[static_cast<std::size_t>(v)] + ", which moves with the trip counter";
  return "";
}

// Whether every checked site of the role is unchanged by a shift of P * j
// (j >= 1) from counters >= T; on failure, the first site that is not.
std::optional<Site> first_moving(const ir::Kernel& t, const ir::Role& r, const RolePlan& rp, std::int64_t P, std::int64_t T,
                                 std::int64_t least) {
  z3::context c;
  std::vector<z3::expr> x, xs;
  const z3::expr j = c.int_const("j");
  const z3::expr d = c.int_val(static_cast<int64_t>(P)) * j;
  z3::solver s(c);
  s.add(j >= 1);
  for (std::size_t v = 0; v < r.vars.size(); ++v) {
    x.push_back(c.int_const(("v" + std::to_string(v)).c_str()));
    const auto it = rp.coef.find(static_cast<int>(v));
    const std::int64_t k = it == rp.coef.end() ? 0 : it->second;
    xs.push_back(x.back() + c.int_val(static_cast<int64_t>(k)) * d);
    if (k > 0) s.add(x.back() >= 0);
  }
  s.add(x[static_cast<std::size_t>(rp.counter)] >= c.int_val(static_cast<int64_t>(T)));
  for (const int v : rp.nonneg) s.add(x[static_cast<std::size_t>(v)] >= 0);
  s.add(x[trip_var] >= c.int_val(static_cast<int64_t>(least)));
  auto term = [&](ExprId e, const std::vector<z3::expr>& env) {
    return encode(c, t.exprs, e, [&](const ir::Expr& n) -> z3::expr {
      if (n.kind == ir::ExprKind::constant) return c.int_val(static_cast<int64_t>(n.value));
      return env.at(static_cast<std::size_t>(n.var));
    });
  };
  // A gate's threshold moves with N (by d), so that a shifted state's gates
  // open where the state's do: other - (side at N = 0) moves by a * d.
  std::vector<z3::expr> x0 = x, xs0 = xs;
  x0[trip_var] = c.int_val(0);
  xs0[trip_var] = c.int_val(0);
  for (const check::TripThreshold& th : rp.thresholds) {
    const z3::expr moved = term(th.other, xs) - term(th.side, xs0), here = term(th.other, x) - term(th.side, x0);
    s.push();
    s.add(moved != here + c.int_val(static_cast<int64_t>(th.scale)) * d);
    const z3::check_result res = s.check();
    s.pop();
    if (res != z3::unsat) return Site{th.other, -1, t.exprs[static_cast<std::size_t>(th.other)].loc, false, {}};
  }
  for (const Site& site : rp.checked) {
    z3::expr moved = term(site.e, xs), here = term(site.e, x);
    if (site.target >= 0) {
      const auto it = rp.coef.find(site.target);
      if (it != rp.coef.end()) here = here + c.int_val(static_cast<int64_t>(it->second)) * d;
    }
    s.push();
    // Inside a loop over a variable set only by loops from constants at or
    // above 0 (never negative), it is at least that loop's first value.
    for (const auto& [v, lo] : site.within)
      if (std::find(rp.nonneg.begin(), rp.nonneg.end(), v) != rp.nonneg.end())
        s.add(x[static_cast<std::size_t>(v)] >= c.int_val(static_cast<int64_t>(lo)));
    s.add(moved != here);
    const z3::check_result res = s.check();
    s.pop();
    if (res != z3::unsat) return site;
  }
  return std::nullopt;
}

}  // namespace

TripProof prove_trips(const ir::Kernel& k, const std::string& name) {
  TripProof out;
  int param = -1;
  for (std::size_t p = 0; p < k.params.size(); ++p)
    if (k.params[p].name == name) param = static_cast<int>(p);
  if (param < 0) {
    out.reason = "the kernel has no parameter " + name;
    return out;
  }
  if (k.target != ir::Target::nvidia) {
    out.reason = "--prove covers NVIDIA kernels: the AMD waves' counters are not in its key";
    return out;
  }
  // The warps of a role split per warp retire each other's warp-group
  // groups (step.cpp, wgmma_wait): the key, which takes each agent's group
  // numbers relative to its own least, does not follow that.
  for (const ir::Role& r : k.roles)
    if (r.per_warp) {
      out.reason = at(r.loc) + ": role " + r.name +
                   " is split per warp, whose warps' async groups the key does not follow across agents";
      return out;
    }
  const ir::Param& par = k.params[static_cast<std::size_t>(param)];
  std::int64_t least = 1;
  if (par.lo <= par.hi) least = par.lo;
  if (least < 0) least = 0;
  // A declaration that reads N (a buffer size, another parameter's
  // definition, a count): the explicit search keeps its value, which would
  // not follow N. The front end leaves a declaration's expression in the
  // arena, referenced by no statement.
  std::vector<char> used(k.exprs.size(), 0);
  std::function<void(ExprId)> use = [&](ExprId e) {
    if (e == ir::no_expr || used[static_cast<std::size_t>(e)]) return;
    used[static_cast<std::size_t>(e)] = 1;
    use(k.exprs[static_cast<std::size_t>(e)].a);
    use(k.exprs[static_cast<std::size_t>(e)].b);
  };
  for (const ir::Role& r : k.roles) {
    std::vector<Site> all;
    sites(r.body, all);
    for (const Site& s : all) use(s.e);
  }
  for (std::size_t e = 0; e < k.exprs.size(); ++e)
    if (!used[e] && mentions_param(k.exprs, static_cast<ExprId>(e), param)) {
      out.reason = at(k.exprs[e].loc) + ": a declaration depends on " + name + ", whose value the search does not follow";
      return out;
    }
  for (const ir::BufferDecl& b : k.buffers)
    if (mentions_param(k.exprs, b.bytes_expr, param)) {
      out.reason = at(b.loc) + ": the size of " + b.name + " depends on " + name;
      return out;
    }

  const ir::Kernel t = check::trip_kernel(k, param);
  std::vector<RolePlan> plans(t.roles.size());
  bool any = false;
  for (std::size_t r = 0; r < t.roles.size(); ++r) {
    if (std::string why = plan_role(t, t.roles[r], plans[r]); !why.empty()) {
      out.reason = why;
      return out;
    }
    any |= plans[r].counter >= 0;
  }
  if (!any) {
    out.reason = "no role has a loop `for ... in lo .. " + name + "`";
    return out;
  }
  std::optional<Site> failed;
  for (const std::int64_t P : {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64}) {
    for (std::int64_t T = least; T <= least + 2; ++T) {
      failed.reset();
      for (std::size_t r = 0; r < t.roles.size() && !failed; ++r)
        if (plans[r].counter >= 0) failed = first_moving(t, t.roles[r], plans[r], P, T, least);
      if (failed) continue;
      auto sh = std::make_shared<check::TripShift>();
      sh->param = param;
      sh->period = P;
      sh->threshold = T;
      sh->least = least;
      for (const RolePlan& rp : plans) {
        sh->counter.push_back(rp.counter);
        sh->scale.push_back(rp.scale);
        sh->guards.push_back(rp.guards);
        std::vector<std::pair<int, std::int64_t>> moved;
        for (const auto& [v, c] : rp.coef)
          if (c != 0 && v != trip_var) moved.emplace_back(v, c);
        sh->shifted.push_back(std::move(moved));
      }
      out.shift = std::move(sh);
      return out;
    }
  }
  out.reason = at(failed->loc) + ": an expression there is not periodic in the trip counter with any period up to 64";
  return out;
}

}  // namespace pc::smt
