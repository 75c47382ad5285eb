#include "checker/smt/trips.hpp"

#include <z3++.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "checker/expr.hpp"
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
  // Nested loops: after the outer loop, where the key no longer moves the
  // agent's variables with the trip counter.
  bool past = false;
  // What holds where it is evaluated, in its loop's body: the `if`s around
  // it (condition, branch taken) and the assignments before it in its
  // iteration whose variable and reads nothing assigns in between
  // (variable, expression): `g = base + k` before `if k > 0: ... (g - 1) % S`.
  std::vector<std::pair<ExprId, bool>> conds{};
  std::vector<std::pair<int, ExprId>> defs{};
};

using Within = std::vector<std::pair<int, std::int64_t>>;

// Where sites are: the loops around them, the `if`s and the assignments
// that hold there.
struct Context {
  Within within;
  std::vector<std::pair<ExprId, bool>> conds;
  std::vector<std::pair<int, ExprId>> defs;
};

Site site_at(ExprId e, int target, const ir::Loc& loc, bool op, const Context& cx) {
  Site s{e, target, loc, op, cx.within};
  s.conds = cx.conds;
  s.defs = cx.defs;
  return s;
}

bool reads_var(const std::vector<ir::Expr>& ex, ExprId e, int var);

// The variables a statement may assign (loops, assignments, operations' results).
void assigned_by(const ir::Stmt& s, std::vector<int>& out) {
  if (s.kind == ir::StmtKind::assign || s.kind == ir::StmtKind::for_loop) out.push_back(s.var);
  if (s.kind == ir::StmtKind::op) {
    if (s.op.dest_var >= 0) out.push_back(s.op.dest_var);
    if (s.op.token_var >= 0) out.push_back(s.op.token_var);
  }
  for (const ir::Stmt& b : s.body) assigned_by(b, out);
  for (const ir::Stmt& b : s.else_body) assigned_by(b, out);
}

// The context less what the statement's assignments make false.
void forget(const std::vector<ir::Expr>& ex, const ir::Stmt& s, Context& cx) {
  std::vector<int> vs;
  assigned_by(s, vs);
  for (const int v : vs) {
    std::erase_if(cx.defs, [&](const std::pair<int, ExprId>& d) { return d.first == v || reads_var(ex, d.second, v); });
    std::erase_if(cx.conds, [&](const std::pair<ExprId, bool>& c) { return reads_var(ex, c.first, v); });
  }
}

// What holds after `s` runs: the context less what it assigns, and its
// assignment as a definition when it does not read its own variable.
void after_step(const std::vector<ir::Expr>& ex, const ir::Stmt& s, Context& cx) {
  forget(ex, s, cx);
  if (s.kind == ir::StmtKind::assign && !reads_var(ex, s.expr, s.var)) cx.defs.emplace_back(s.var, s.expr);
}

void op_sites(const ir::Stmt& s, std::vector<Site>& out, const Context& cx) {
  const ir::Op& op = s.op;
  auto add = [&](ExprId e) {
    if (e != ir::no_expr) out.push_back(site_at(e, -1, s.loc, true, cx));
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
// note the loops whose first value is a constant, and what holds at each.
void sites_in(const std::vector<ir::Stmt>& body, std::vector<Site>& out, const std::vector<ir::Expr>* exprs, Context cx) {
  for (const ir::Stmt& s : body) {
    switch (s.kind) {
      case ir::StmtKind::op: op_sites(s, out, cx); break;
      case ir::StmtKind::assign: out.push_back(site_at(s.expr, s.var, s.loc, false, cx)); break;
      case ir::StmtKind::for_loop: {
        out.push_back(site_at(s.lo, s.var, s.loc, false, cx));
        out.push_back(site_at(s.hi, -1, s.loc, false, cx));
        Context in = cx;
        if (exprs) forget(*exprs, s, in);  // what the body assigns, on an earlier trip
        if (exprs && (*exprs)[static_cast<std::size_t>(s.lo)].kind == ir::ExprKind::constant)
          in.within.emplace_back(s.var, (*exprs)[static_cast<std::size_t>(s.lo)].value);
        sites_in(s.body, out, exprs, in);
        break;
      }
      case ir::StmtKind::if_else: {
        out.push_back(site_at(s.expr, -1, s.loc, false, cx));
        Context yes = cx, no = cx;
        if (exprs) {
          yes.conds.emplace_back(s.expr, true);
          no.conds.emplace_back(s.expr, false);
        }
        sites_in(s.body, out, exprs, yes);
        sites_in(s.else_body, out, exprs, no);
        break;
      }
      case ir::StmtKind::assert_true: out.push_back(site_at(s.expr, -1, s.loc, false, cx)); break;
      case ir::StmtKind::either:
        sites_in(s.body, out, exprs, cx);
        sites_in(s.else_body, out, exprs, cx);
        break;
    }
    if (exprs) after_step(*exprs, s, cx);
  }
}

// What holds after the statements of `body` run from cx (the `if`s around
// them no longer).
Context after_run(const std::vector<ir::Expr>& ex, const std::vector<ir::Stmt>& body, Context cx) {
  for (const ir::Stmt& s : body) after_step(ex, s, cx);
  return cx;
}

void sites(const std::vector<ir::Stmt>& body, std::vector<Site>& out, const std::vector<ir::Expr>* exprs = nullptr,
           const Within& within = {}) {
  Context cx;
  cx.within = within;
  sites_in(body, out, exprs, cx);
}

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
  std::vector<int> nonneg;                           // variables never negative (nonneg_vars)
  std::vector<int> by_loops;                         // of them, those set by `for` loops only
  // Nested: the outer loop's counter, first value and bound, and the sites
  // a pass runs (before, in and after the trip loop), of which pass 0's
  // must not read N's class, not yet known there.
  int outer = -1;
  std::int64_t outer_lo = 0, outer_hi = 0;
  std::vector<Site> in_pass;
  std::vector<Site> early;   // in pass 0, before it leaves the trip loop (its N may be undecided there)
  std::vector<std::pair<Site, bool>> first_pass;  // the per-pass `if`s around the trip loop in pass 0, the branch to the loop
  std::vector<int> modular;  // found by first_moving
};

// Whether e is a constant at or above 0, or v plus such a constant (either order).
bool counts_up(const std::vector<ir::Expr>& ex, ExprId e, int v) {
  const ir::Expr& x = ex[static_cast<std::size_t>(e)];
  auto nonneg_constant = [&](ExprId i) {
    const ir::Expr& c = ex[static_cast<std::size_t>(i)];
    return c.kind == ir::ExprKind::constant && c.value >= 0;
  };
  auto is_v = [&](ExprId i) {
    const ir::Expr& y = ex[static_cast<std::size_t>(i)];
    return y.kind == ir::ExprKind::var && y.var == v;
  };
  if (nonneg_constant(e)) return true;
  return x.kind == ir::ExprKind::binary && x.bin == ir::BinOp::add &&
         ((is_v(x.a) && nonneg_constant(x.b)) || (is_v(x.b) && nonneg_constant(x.a)));
}

// The variables of a role that are never negative (every variable starts
// at 0): set only by `for` loops from a constant at or above 0 (each step
// adds 1) and by assignments of a constant at or above 0 or of itself plus
// such a constant (a running tile count `n = n + 1`), written by no
// operation. With loops_only, those set by `for` loops only.
std::vector<int> nonneg_vars(const ir::Kernel& t, const ir::Role& r, bool loops_only = false) {
  std::vector<char> up(r.vars.size(), 0), other(r.vars.size(), 0);
  std::function<void(const std::vector<ir::Stmt>&)> walk = [&](const std::vector<ir::Stmt>& b) {
    for (const ir::Stmt& s : b) {
      if (s.kind == ir::StmtKind::for_loop) {
        const ir::Expr& lo = t.exprs[static_cast<std::size_t>(s.lo)];
        (lo.kind == ir::ExprKind::constant && lo.value >= 0 ? up : other)[static_cast<std::size_t>(s.var)] = 1;
      } else if (s.kind == ir::StmtKind::assign) {
        (!loops_only && counts_up(t.exprs, s.expr, s.var) ? up : other)[static_cast<std::size_t>(s.var)] = 1;
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
    if (up[v] && !other[v]) out.push_back(static_cast<int>(v));
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
std::string plan_role(const ir::Kernel& t, const ir::Role& r, RolePlan& rp, bool nested) {
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
      if (reads_var(ex, s.e, trip_var) || (nested && reads_var(ex, s.e, check::trip_class)))
        return at(s.loc) + ": role " + r.name + " reads the trip count and runs no loop over it";
    return "";
  }
  const Place& pl = loops[0];
  const ir::Stmt& loop = *pl.loop;
  // The ifs outside the outer loop (or around a loop in no other) decide
  // per agent whether it runs the loop; those inside it, per pass (CUTLASS's
  // tile scheduler: `if valid == 1:`, valid the last response).
  const ir::Stmt* outer = nullptr;
  bool guarded = false;
  std::vector<std::size_t> per_pass;  // indices in pl.around
  for (std::size_t i = 0; i < pl.around.size(); ++i) {
    const ir::Stmt* s = pl.around[i];
    if (s->kind != ir::StmtKind::for_loop) {
      if (outer) per_pass.push_back(i);
      else guarded = true;
      continue;
    }
    if (outer)
      return at(loop.loc) + ": the loop over the trip count is inside the loop at " + at(s->loc) + " and the loop at " +
             at(outer->loc) + " (nested loops: the trip loop must be in the body of one loop, over a constant count, or in `if`s there)";
    outer = s;
  }
  if (nested && !outer)
    return at(loop.loc) + ": role " + r.name +
           "'s loop over the trip count is in no other loop, where another role's is (nested loops: every trip loop must be)";
  if (outer) {
    const std::optional<std::int64_t> lo = ir::fold_constant(ex, outer->lo).value, hi = ir::fold_constant(ex, outer->hi).value;
    if (!lo || !hi || *hi <= *lo || *lo < 0)
      return at(outer->loc) + ": the loop around the trip loop does not run from a constant at or above 0 to a larger constant";
    rp.outer = outer->var;
    rp.outer_lo = *lo;
    rp.outer_hi = *hi;
  }
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
  // The ifs outside the outer loop decide, per agent, whether it runs the loop.
  std::vector<Site> before, skipped, shared, body, after, pre, past;
  const std::vector<ir::Stmt>* block = &r.body;
  Context first_cx;  // what holds where the outer loop begins its first pass
  auto prefix = [](const std::vector<ir::Stmt>& b, const ir::Stmt* s) {
    return std::vector<ir::Stmt>(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(index_in(b, s)));
  };
  for (std::size_t i = 0; i < pl.around.size(); ++i) {
    const ir::Stmt& s = *pl.around[i];
    first_cx = after_run(ex, prefix(*block, &s), first_cx);
    if (&s == outer) {
      // Before the outer loop; after it, in every runner.
      split_sites(*block, index_in(*block, &s), before, past);
      before.push_back(Site{s.lo, -1, s.loc, false, {}});
      before.push_back(Site{s.hi, -1, s.loc, false, {}});
      block = &s.body;
      break;
    }
    if (!reads_only_builtins(ex, s.expr))
      return at(loop.loc) + ": the loop over the trip count is inside the `if` at " + at(s.loc) +
             ", whose condition reads variables other than cta, instance and warp";
    rp.guards.emplace_back(s.expr, pl.in_body[i]);
    first_cx.conds.emplace_back(s.expr, pl.in_body[i]);
    split_sites(*block, index_in(*block, &s), before, shared);
    sites(pl.in_body[i] ? s.else_body : s.body, skipped);
    before.push_back(Site{s.expr, -1, s.loc, false, {}});
    block = pl.in_body[i] ? &s.body : &s.else_body;
  }
  // A pass's statements before and after its trip loop, with what holds
  // there (what the statements before the loop assign, unless the loop
  // assigns it: `base = t * N` before `g = base + k`). Per-pass `if`s
  // between the outer loop and the trip loop: their conditions are sites
  // before the trip loop; their other branches and the statements after
  // them run in a pass whose trip loop the agent may skip (`pass_other`).
  std::vector<Site> pass_other, early_pre, early_body;
  Context pre_cx, post_cx;
  Within in_loop;
  if (outer) in_loop.emplace_back(outer->var, rp.outer_lo);
  if (ex[static_cast<std::size_t>(loop.lo)].kind == ir::ExprKind::constant) in_loop.emplace_back(loop.var, ex[static_cast<std::size_t>(loop.lo)].value);
  if (outer) {
    // From cx at the top of the outer loop's body to the trip loop: the sites
    // before it (and the others, where asked); the context at the loop.
    auto walk = [&](Context cx, std::vector<Site>& before_loop, std::vector<Site>* other, std::vector<std::pair<Site, bool>>* takes) {
      const std::vector<ir::Stmt>* b = &outer->body;
      for (const std::size_t i : per_pass) {
        const ir::Stmt& g = *pl.around[i];
        const std::vector<ir::Stmt> head = prefix(*b, &g);
        sites_in(head, before_loop, &ex, cx);
        cx = after_run(ex, head, cx);
        before_loop.push_back(site_at(g.expr, -1, g.loc, false, cx));
        if (takes) takes->emplace_back(site_at(g.expr, -1, g.loc, false, cx), pl.in_body[i]);
        if (other) {
          Context no = cx, past_if = cx;
          no.conds.emplace_back(g.expr, !pl.in_body[i]);
          sites_in(pl.in_body[i] ? g.else_body : g.body, *other, &ex, no);
          after_step(ex, g, past_if);
          const std::vector<ir::Stmt> tail(b->begin() + static_cast<std::ptrdiff_t>(index_in(*b, &g)) + 1, b->end());
          sites_in(tail, *other, &ex, past_if);
        }
        cx.conds.emplace_back(g.expr, pl.in_body[i]);
        b = pl.in_body[i] ? &g.body : &g.else_body;
      }
      const std::vector<ir::Stmt> head = prefix(*b, &loop);
      sites_in(head, before_loop, &ex, cx);
      cx = after_run(ex, head, cx);
      block = b;
      return cx;
    };
    pre_cx.within = {{outer->var, rp.outer_lo}};
    pre_cx = walk(pre_cx, pre, &pass_other, nullptr);
    // The first pass, from what the statements before the outer loop
    // assign: pass 0's reads of N's class, and its `if`s, which must take
    // the trip loop (pass 0 decides the class).
    first_cx.within = pre_cx.within;
    Context early_cx = walk(first_cx, early_pre, nullptr, &rp.first_pass);
    const std::vector<ir::Stmt> last(block->begin() + static_cast<std::ptrdiff_t>(index_in(*block, &loop)) + 1, block->end());
    forget(ex, loop, pre_cx);
    post_cx = pre_cx;
    sites_in(last, after, &ex, post_cx);
    early_cx.within = in_loop;
    sites_in(loop.body, early_body, &ex, early_cx);
  } else {
    split_sites(*block, index_in(*block, &loop), before, after);
  }
  rp.counter = loop.var;
  // Nested: in a pass, before its trip loop, N is read by comparisons (a
  // gate, as in the loop) and its class by anything else; before the outer
  // loop, its class is not read (pass 0 has not decided it).

  for (const std::vector<Site>* list : {&before, &skipped, &shared})
    for (const Site& s : *list)
      if (nested && reads_var(ex, s.e, check::trip_class))
        return at(s.loc) + ": role " + r.name + " reads the trip count other than by a comparison before its loops, where it is not yet decided";
  if (reads_var(ex, loop.lo, trip_var)) return at(loop.loc) + ": the trip loop's first value reads the trip count";
  // Before the loop, N is read only by comparisons (a gate: the search
  // decides N, or raises its lower bound, until the comparison is settled),
  // and only where every agent of the role runs the loop (an agent that does
  // not may still read it after the key has shifted N).
  for (const Site& s : before) {
    if (!reads_var(ex, s.e, trip_var)) continue;
    std::vector<check::TripThreshold> th;
    if (guarded || s.op || !check::trip_thresholds(ex, s.e, th))
      return at(s.loc) + ": role " + r.name + " reads the trip count before its loop over it, where it is not yet decided" +
             (!guarded ? " (other than by a comparison in an `if` or an assignment)" : " (and not every agent of the role runs the loop)");
  }
  for (const std::vector<Site>* list : {&skipped, &shared})
    for (const Site& s : *list)
      if (reads_var(ex, s.e, trip_var))
        return at(s.loc) + ": role " + r.name + " reads the trip count where an agent that does not run its loop (" + at(loop.loc) +
               ") may be, before it is decided";
  // In a pass whose trip loop an agent skips, its N stays undecided; after
  // the outer loop too, then.
  for (const Site& s : pass_other)
    if (reads_var(ex, s.e, trip_var))
      return at(s.loc) + ": role " + r.name + " reads the trip count where an agent that skips its loop (" + at(loop.loc) +
             ") in a pass may be, where it is not decided";
  if (!per_pass.empty())
    for (const Site& s : past)
      if (reads_var(ex, s.e, trip_var))
        return at(s.loc) + ": role " + r.name + " reads the trip count after the loop at " + at(outer->loc) +
               ", where an agent that skipped its loop over it in the last passes has not decided it";
  Context cx = pre_cx;
  cx.within = in_loop;
  sites_in(loop.body, body, &ex, cx);
  std::vector<Site> gated = body;
  gated.insert(gated.end(), pre.begin(), pre.end());
  for (const Site& s : gated) {
    if (!reads_var(ex, s.e, trip_var)) continue;
    if (s.op || !check::trip_thresholds(ex, s.e, rp.thresholds))
      return at(s.loc) + ": the trip count is read inside its loop (role " + r.name +
             "), before it is decided, other than by a comparison `x < a * N + c` (a >= 1; or <=, >, >=, ==, !=) in an `if` or an assignment";
  }
  rp.nonneg = nonneg_vars(t, r);
  rp.by_loops = nonneg_vars(t, r, true);
  rp.checked = body;
  rp.checked.insert(rp.checked.end(), after.begin(), after.end());
  rp.checked.insert(rp.checked.end(), shared.begin(), shared.end());
  if (outer) {
    rp.early = early_body;
    rp.early.insert(rp.early.end(), early_pre.begin(), early_pre.end());
    rp.checked.insert(rp.checked.end(), pre.begin(), pre.end());
    rp.checked.insert(rp.checked.end(), pass_other.begin(), pass_other.end());
    rp.in_pass = rp.checked;
    for (Site& x : past) x.past = true;
    rp.checked.insert(rp.checked.end(), past.begin(), past.end());
    // The outer counter counts the passes: nothing in the loop assigns it
    // (after it, CUTLASS's accumulator tail `t = TILES + c` may).
    std::vector<std::pair<int, ir::Loc>> by_ops;
    written_by_ops(outer->body, by_ops);
    for (const auto& [v, loc] : by_ops)
      if (v == rp.outer) return at(loc) + ": an operation writes the counter " + r.vars[static_cast<std::size_t>(v)] + " of the loop around the trip loop";
    for (const Site& s : rp.in_pass) {
      if (s.target == rp.outer)
        return at(s.loc) + ": the counter " + r.vars[static_cast<std::size_t>(rp.outer)] + " of the loop around the trip loop is assigned in it";
      if (s.target == rp.counter)
        return at(s.loc) + ": the trip counter " + r.vars[static_cast<std::size_t>(rp.counter)] + " is assigned outside its loop";
    }
  }
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
      if (s.target < 0 || s.past) continue;
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
// Nested loops: N's class (trip_class) is the least value of N's residue
// at or above N's least, so the real N is it plus P * m (m >= 0); a
// variable whose assignment moves by such a multiple where it is not
// unchanged is modular (rp.modular): it too is the real run's less P * m
// (m >= 0), at or above 0 (the key checks that), and so on. In a pass's
// code, a read of the class must give one value for every class where the
// outer counter is at its first value (pass 0 decides the class).
std::optional<Site> first_moving(const ir::Kernel& t, const ir::Role& r, RolePlan& rp, std::int64_t P, std::int64_t T,
                                 std::int64_t least, std::string& why) {
  z3::context c;
  std::vector<z3::expr> x, m;
  const z3::expr j = c.int_const("j");
  const z3::expr d = c.int_val(static_cast<int64_t>(P)) * j;
  const z3::expr Pv = c.int_val(static_cast<int64_t>(P));
  z3::solver s(c);
  s.add(j >= 1);
  auto coef_of = [&](int v) {
    const auto it = rp.coef.find(v);
    return it == rp.coef.end() ? std::int64_t{0} : it->second;
  };
  for (std::size_t v = 0; v < r.vars.size(); ++v) {
    x.push_back(c.int_const(("v" + std::to_string(v)).c_str()));
    m.push_back(c.int_const(("m" + std::to_string(v)).c_str()));
    if (coef_of(static_cast<int>(v)) > 0) s.add(x.back() >= 0);
  }
  s.add(x[static_cast<std::size_t>(rp.counter)] >= c.int_val(static_cast<int64_t>(T)));
  for (const int v : rp.nonneg) s.add(x[static_cast<std::size_t>(v)] >= 0);
  s.add(x[trip_var] >= c.int_val(static_cast<int64_t>(least)));
  const bool nested = rp.outer >= 0;
  std::vector<int> modular;
  auto make_modular = [&](int v) {
    modular.push_back(v);
    s.add(x[static_cast<std::size_t>(v)] >= 0);
    s.add(m[static_cast<std::size_t>(v)] >= 0);
  };
  if (nested) {
    s.add(x[check::trip_class] < c.int_val(static_cast<int64_t>(least + P)));
    s.add(x[check::trip_class] >= c.int_val(static_cast<int64_t>(least)));
    make_modular(check::trip_class);
  }
  auto term = [&](ExprId e, const std::vector<z3::expr>& env) {
    return encode(c, t.exprs, e, [&](const ir::Expr& n) -> z3::expr {
      if (n.kind == ir::ExprKind::constant) return c.int_val(static_cast<int64_t>(n.value));
      return env.at(static_cast<std::size_t>(n.var));
    });
  };
  auto is_modular = [&](int v) { return std::find(modular.begin(), modular.end(), v) != modular.end(); };
  std::vector<z3::expr> xs;
  // What holds where the site is evaluated, in the state and (moved) in the
  // real run's.
  auto within = [&](const Site& site, bool moved = false) {
    // Inside a loop over a variable set only by loops from constants at or
    // above 0 (never negative), it is at least that loop's first value.
    for (const auto& [v, lo] : site.within)
      if (std::find(rp.by_loops.begin(), rp.by_loops.end(), v) != rp.by_loops.end())
        s.add(x[static_cast<std::size_t>(v)] >= c.int_val(static_cast<int64_t>(lo)));
    // In a pass, the outer counter is in its range.
    if (nested && !site.past) {
      const z3::expr& o = x[static_cast<std::size_t>(rp.outer)];
      s.add(o >= c.int_val(static_cast<int64_t>(rp.outer_lo)) && o < c.int_val(static_cast<int64_t>(rp.outer_hi)));
    }
    for (const auto& [e, taken] : site.conds) s.add((term(e, x) != 0) == c.bool_val(taken));
    for (const auto& [v, e] : site.defs) {
      s.add(x[static_cast<std::size_t>(v)] == term(e, x));
      if (moved) s.add(xs[static_cast<std::size_t>(v)] == term(e, xs));
    }
  };
  auto unsat = [&](const z3::expr& claim_fails) {
    s.add(claim_fails);
    const z3::check_result res = s.check();
    s.pop();
    return res == z3::unsat;
  };
  // Pass 0 takes its trip loop in every agent that runs it: its `if`s take
  // the branch to it where the outer counter is at its first value (pass 0
  // decides N's class, which later passes read).
  if (nested)
    for (const auto& [site, taken] : rp.first_pass) {
      s.push();
      within(site);
      s.add(x[static_cast<std::size_t>(rp.outer)] == c.int_val(static_cast<int64_t>(rp.outer_lo)));
      if (unsat((term(site.e, x) != 0) != c.bool_val(taken))) continue;
      why = ": the `if` there may skip the loop over the trip count in the first pass of the loop around it (which decides the trip count's class)";
      return site;
    }
  // Pass 0's reads of the class before its N is decided (before an agent
  // leaves the trip loop of pass 0: pass 0's decision sets the class).
  if (nested)
    for (const Site& site : rp.early) {
      if (!reads_var(t.exprs, site.e, check::trip_class)) continue;
      std::vector<z3::expr> other = x;
      other[check::trip_class] = c.int_const("other_class");
      s.push();
      within(site);
      s.add(other[check::trip_class] >= c.int_val(static_cast<int64_t>(least)));
      s.add(x[static_cast<std::size_t>(rp.outer)] == c.int_val(static_cast<int64_t>(rp.outer_lo)));
      if (!unsat(term(site.e, x) != term(site.e, other))) return site;
    }
  auto shifted = [&] {
    xs.clear();
    for (std::size_t v = 0; v < x.size(); ++v)
      xs.push_back(x[v] + c.int_val(static_cast<int64_t>(coef_of(static_cast<int>(v)))) * d +
                   (is_modular(static_cast<int>(v)) ? Pv * m[v] : c.int_val(0)));
  };
  // A gate's threshold moves with N (by d), so that a shifted state's gates
  // open where the state's do: other - (side at N = 0) moves by a * d.
  auto gates_move = [&]() -> std::optional<Site> {
    std::vector<z3::expr> x0 = x, xs0 = xs;
    x0[trip_var] = c.int_val(0);
    xs0[trip_var] = c.int_val(0);
    for (const check::TripThreshold& th : rp.thresholds) {
      const z3::expr moved = term(th.other, xs) - term(th.side, xs0), here = term(th.other, x) - term(th.side, x0);
      s.push();
      if (!unsat(moved != here + c.int_val(static_cast<int64_t>(th.scale)) * d))
        return Site{th.other, -1, t.exprs[static_cast<std::size_t>(th.other)].loc, false, {}};
    }
    return std::nullopt;
  };
  shifted();
  if (!nested)
    if (auto th = gates_move()) return th;
  // Sites are taken again while a variable becomes modular (a site may
  // read one that a later site makes so); the first that fails then.
  for (bool again = true; again;) {
    again = false;
    shifted();
    std::optional<Site> bad;
    for (const Site& site : rp.checked) {
      const z3::expr moved = term(site.e, xs);
      z3::expr here = term(site.e, x);
      if (site.target >= 0 && !site.past) here = here + c.int_val(static_cast<int64_t>(coef_of(site.target))) * d;
      const z3::expr diff = moved - here;
      const bool mod = site.target >= 0 && is_modular(site.target);
      s.push();
      within(site, true);
      if (unsat(mod ? !(diff >= 0 && z3::mod(diff, Pv) == 0) : diff != 0)) continue;
      if (nested && site.target >= 0 && !mod) {
        s.push();
        within(site, true);
        if (unsat(!(diff >= 0 && z3::mod(diff, Pv) == 0))) {
          make_modular(site.target);
          again = true;
          break;
        }
      }
      if (!bad) bad = site;
    }
    if (!again && bad) return bad;
  }
  if (nested)
    if (auto th = gates_move()) return th;
  rp.modular.clear();
  for (const int v : modular)
    if (v != check::trip_class) rp.modular.push_back(v);
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

  // Nested loops: a trip loop inside a `for`.
  bool nested = false;
  int passes = 1;
  {
    const ir::Kernel t1 = check::trip_kernel(k, param);
    for (const ir::Role& r : t1.roles) {
      std::vector<Place> loops;
      Place top;
      find_trip_loops(t1, r.body, top, loops);
      for (const Place& pl : loops)
        for (const ir::Stmt* s : pl.around)
          if (s->kind == ir::StmtKind::for_loop) {
            nested = true;
            const std::optional<std::int64_t> lo = ir::fold_constant(t1.exprs, s->lo).value, hi = ir::fold_constant(t1.exprs, s->hi).value;
            if (lo && hi && *hi - *lo > passes) {
              if (*hi - *lo > 64) {
                out.reason = at(s->loc) + ": the loop around the trip loop runs more than 64 times";
                return out;
              }
              passes = static_cast<int>(*hi - *lo);
            }
          }
    }
    // A loop over C * N beside nested ones runs as C passes (trip_kernel).
    for (const ir::Role& r : t1.roles) {
      std::vector<Place> loops;
      Place top;
      find_trip_loops(t1, r.body, top, loops);
      for (const Place& pl : loops) {
        const ir::Expr& hi = t1.exprs[static_cast<std::size_t>(pl.loop->hi)];
        if (!nested || hi.kind != ir::ExprKind::binary || hi.bin != ir::BinOp::mul) continue;
        for (const ExprId side : {hi.a, hi.b}) {
          const ir::Expr& c = t1.exprs[static_cast<std::size_t>(side)];
          if (c.kind == ir::ExprKind::constant && c.value > passes && c.value <= 64) passes = static_cast<int>(c.value);
        }
      }
    }
  }
  const ir::Kernel t = check::trip_kernel(k, param, nested ? passes : 0);
  std::vector<RolePlan> plans(t.roles.size());
  bool any = false;
  for (std::size_t r = 0; r < t.roles.size(); ++r) {
    if (std::string why = plan_role(t, t.roles[r], plans[r], nested); !why.empty()) {
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
  std::string why;  // the failure's, where it is not a site that moves
  for (const std::int64_t P : {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64}) {
    for (std::int64_t T = least; T <= least + 2; ++T) {
      failed.reset();
      why.clear();
      for (std::size_t r = 0; r < t.roles.size() && !failed; ++r)
        if (plans[r].counter >= 0) failed = first_moving(t, t.roles[r], plans[r], P, T, least, why);
      if (failed) continue;
      auto sh = std::make_shared<check::TripShift>();
      sh->param = param;
      sh->period = P;
      sh->threshold = T;
      sh->least = least;
      sh->nested = nested;
      sh->passes = passes;
      for (const RolePlan& rp : plans) {
        sh->outer.push_back(rp.outer);
        sh->outer_lo.push_back(rp.outer_lo);
        sh->outer_hi.push_back(rp.outer_hi);
        sh->modular.push_back(rp.modular);
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
  out.reason = at(failed->loc) + (why.empty() ? ": an expression there is not periodic in the trip counter with any period up to 64" : why);
  return out;
}

}  // namespace pc::smt
