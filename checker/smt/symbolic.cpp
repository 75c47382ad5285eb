#include "checker/smt/symbolic.hpp"

#include <z3++.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "checker/expr.hpp"
#include "checker/smt/encode.hpp"
#include "checker/smt/symbolic_sym.hpp"

namespace pc::smt {
namespace sym {

// ---- constant evaluation (the values the explicit search uses: checker/expr.hpp) ----
std::optional<std::int64_t> eval_const(const ir::Kernel& k, ExprId id) { return ir::fold_constant(k.exprs, id).value; }

// ---- the ops each claim counts (checker/ops.hpp) ----
bool is_blocking(OpCode c) { return ir::op_has(c, ir::opf::barrier_wait); }
bool contributes(OpCode c) { return ir::op_phase(c) != ir::PhaseTerm::none; }
bool is_named(OpCode c) { return ir::op_is_named_barrier(c); }

bool body_blocks(const std::vector<ir::Stmt>& body) {
  for (const ir::Stmt& s : body) {
    if (s.kind == ir::StmtKind::op && is_blocking(s.op.code)) return true;
    if (body_blocks(s.body) || body_blocks(s.else_body)) return true;
  }
  return false;
}

void assigned_vars(const std::vector<ir::Stmt>& body, std::set<int>& out) {
  for (const ir::Stmt& s : body) {
    if (s.kind == ir::StmtKind::assign || s.kind == ir::StmtKind::for_loop) out.insert(s.var);
    if (s.kind == ir::StmtKind::op && s.op.dest_var >= 0) out.insert(s.op.dest_var);
    assigned_vars(s.body, out);
    assigned_vars(s.else_body, out);
  }
}

std::vector<Finding> Sym::run() {
  std::vector<Finding> out;
  recover_declarations();
  for (std::size_t p = 0; p < k_.params.size(); ++p) P_.push_back(c_.int_const(k_.params[p].name.c_str()));
  for (std::size_t p = 0; p < k_.params.size(); ++p) domain_ = domain_ && param_domain(static_cast<int>(p));
  for (std::size_t r = 0; r < k_.roles.size(); ++r) {
    role_cta_.push_back(c_.int_const(("cta!" + std::to_string(r)).c_str()));
    role_inst_.push_back(c_.int_const(("instance!" + std::to_string(r)).c_str()));
  }
  occs_.resize(k_.roles.size());
  for (std::size_t r = 0; r < k_.roles.size(); ++r) {
    std::vector<std::optional<z3::expr>> env(k_.roles[r].vars.size());
    env[ir::var_cta] = role_cta_[r];
    env[ir::var_instance] = role_inst_[r];
    std::vector<Loop> loops;
    int seq = 0;
    walk(static_cast<int>(r), k_.roles[r].body, env, loops, c_.bool_val(true), seq);
  }
  for (std::size_t b = 0; b < k_.mbarriers.size(); ++b) barrier_claims(static_cast<int>(b), out);
  for (const auto& role_occs : occs_)
    for (const Occ& o : role_occs) ring_phase_claim(o, out);
  named_claims(out);
  smem_claim(out);
  return out;
}

void Sym::recover_declarations() {
  const std::size_t n = k_.exprs.size();
  std::vector<char> ref(n, 0);
  auto mark = [&](ExprId e) {
    if (e >= 0 && static_cast<std::size_t>(e) < n) ref[static_cast<std::size_t>(e)] = 1;
  };
  for (const ir::Expr& x : k_.exprs) {
    mark(x.a);
    mark(x.b);
  }
  for (const ir::BufferDecl& b : k_.buffers) mark(b.bytes_expr);
  std::function<void(const std::vector<ir::Stmt>&)> stmts = [&](const std::vector<ir::Stmt>& body) {
    for (const ir::Stmt& s : body) {
      for (ExprId e : {s.expr, s.lo, s.hi, s.op.bar.index, s.op.bar.cta, s.op.count, s.op.bytes, s.op.parity, s.op.id,
                       s.op.n, s.op.multicast})
        mark(e);
      mark(s.op.value);
      mark(s.op.mask);
      mark(s.op.quarter);
      for (const ir::Ref* r : {&s.op.tmem, &s.op.global, &s.op.tmap}) {
        mark(r->index);
        mark(r->cta);
      }
      for (const ir::Ref& r : s.op.bufs) {
        mark(r.index);
        mark(r.cta);
      }
      stmts(s.body);
      stmts(s.else_body);
    }
  };
  for (const ir::Role& r : k_.roles) stmts(r.body);
  std::map<int, std::vector<ExprId>> roots;  // by line, in arena order
  for (std::size_t i = 0; i < n; ++i)
    if (!ref[i] && k_.exprs[i].loc.line > 0) roots[k_.exprs[i].loc.line].push_back(static_cast<ExprId>(i));
  std::set<int> attributed;
  auto take = [&](int line) -> std::vector<ExprId> {
    attributed.insert(line);
    auto it = roots.find(line);
    return it == roots.end() ? std::vector<ExprId>{} : it->second;
  };
  auto matches = [&](ExprId e, std::int64_t v) { return eval_const(k_, e) == v; };
  param_def_.assign(k_.params.size(), std::nullopt);
  for (std::size_t p = 0; p < k_.params.size(); ++p) {
    const auto r = take(k_.params[p].loc.line);
    if (!r.empty() && matches(r[0], k_.params[p].value)) param_def_[p] = r[0];
  }
  buf_size_.assign(k_.buffers.size(), std::nullopt);
  for (std::size_t b = 0; b < k_.buffers.size(); ++b) {
    const auto r = take(k_.buffers[b].loc.line);
    if (k_.buffers[b].alias.of >= 0) continue;  // laid over another: not in the shared-memory claim
    if (k_.buffers[b].space == ir::Space::tensor) {  // [size] cols C: not in the shared-memory claim
      if (!r.empty() && matches(r[0], k_.buffers[b].size)) buf_size_[b] = r[0];
      continue;
    }
    if (r.size() == 1 && matches(r[0], k_.buffers[b].size)) buf_size_[b] = r[0];
    else if (!r.empty() || (k_.buffers[b].size != 1 && k_.buffers[b].loc.line > 0))
      decl_problem_ = "the size of buffer " + k_.buffers[b].name + " is not in the IR as an expression";
  }
  mbar_size_.assign(k_.mbarriers.size(), std::nullopt);
  mbar_count_.assign(k_.mbarriers.size(), std::nullopt);
  for (std::size_t m = 0; m < k_.mbarriers.size(); ++m) {
    const ir::MbarrierDecl& d = k_.mbarriers[m];
    auto r = take(d.loc.line);
    if (d.alias.of >= 0) continue;  // placed over other memory: not in the shared-memory claim
    if (d.count > 0 && !r.empty()) {
      if (matches(r.back(), d.count)) mbar_count_[m] = r.back();
      else decl_problem_ = "the count of mbarrier " + d.name + " is not in the IR as an expression";
      r.pop_back();
    }
    if (r.size() == 1 && matches(r[0], d.size)) mbar_size_[m] = r[0];
    else if (r.size() > 1 || (d.size != 1 && d.loc.line > 0 && r.empty()))
      decl_problem_ = "the size of mbarrier " + d.name + " is not in the IR as an expression";
  }
  role_count_.assign(k_.roles.size(), std::nullopt);
  for (std::size_t i = 0; i < k_.roles.size(); ++i) {
    const ir::Role& ro = k_.roles[i];
    // The line's expressions: `warps N`, the count, `on cta K[..M]` and `at
    // warp W`, in the order written. Those with no parameter are what the IR
    // keeps; one with a parameter must be the count.
    auto r = take(ro.loc.line);
    r.erase(std::remove_if(r.begin(), r.end(), [&](ExprId e) { return !mentions_param(e); }), r.end());
    if (r.size() == 1 && matches(r[0], ro.count)) role_count_[i] = r[0];
    else if (!r.empty())
      decl_problem_ = "role " + ro.name + "'s line has a parameter outside its instance count (its warps, CTA or first warp), which the IR keeps only as a value";
  }
  // What is left: `cluster`, `cta threads` and role placements. The IR keeps
  // their values only; a parameter in them cannot be followed.
  for (const auto& [line, es] : roots) {
    if (attributed.count(line)) continue;
    for (ExprId e : es)
      if (mentions_param(e))
        decl_problem_ = "a declaration on line " + std::to_string(line) +
                        " (cluster size, CTA threads or a role's CTA) depends on a parameter, and the IR keeps only its value";
  }
}

bool Sym::mentions_param(ExprId e) const {
  if (e < 0) return false;
  const ir::Expr& x = k_.exprs[static_cast<std::size_t>(e)];
  if (x.kind == ir::ExprKind::constant) return x.param >= 0;
  return mentions_param(x.a) || mentions_param(x.b);
}

z3::expr Sym::param_domain(int p) {
  const ir::Param& par = k_.params[static_cast<std::size_t>(p)];
  const z3::expr& e = P_[static_cast<std::size_t>(p)];
  if (par.lo <= par.hi) return e >= c_.int_val(static_cast<int64_t>(par.lo)) && e <= c_.int_val(static_cast<int64_t>(par.hi));
  if (!par.candidates.empty()) {
    z3::expr any = c_.bool_val(false);
    for (std::int64_t v : par.candidates) any = any || e == c_.int_val(static_cast<int64_t>(v));
    return any;
  }
  const auto& def = param_def_[static_cast<std::size_t>(p)];
  if (def) return e == expr(*def, {});
  return e == c_.int_val(static_cast<int64_t>(par.value));
}

bool Sym::free_param(int p) const {
  const ir::Param& par = k_.params[static_cast<std::size_t>(p)];
  return par.lo <= par.hi || !par.candidates.empty();
}

z3::expr Sym::expr(ExprId id, const std::vector<std::optional<z3::expr>>& env) {
  return encode(
      c_, k_.exprs, id,
      [&](const ir::Expr& x) -> z3::expr {
        if (x.kind == ir::ExprKind::constant)
          return x.param >= 0 ? P_.at(static_cast<std::size_t>(x.param)) : c_.int_val(static_cast<int64_t>(x.value));
        const auto v = static_cast<std::size_t>(x.var);
        if (v < env.size() && env[v]) return *env[v];
        return unknown();
      },
      [&](const z3::expr& r, const z3::expr& a, const z3::expr& b) { mods_.emplace(r.id(), std::make_pair(a, b)); });
}

void Sym::consts(const z3::expr& e, std::set<std::string>& out, std::set<unsigned>& seen) const {
  if (!seen.insert(e.id()).second) return;
  if (e.is_app()) {
    if (e.num_args() == 0 && e.decl().decl_kind() == Z3_OP_UNINTERPRETED) out.insert(e.decl().name().str());
    for (unsigned i = 0; i < e.num_args(); ++i) consts(e.arg(i), out, seen);
  }
}

std::set<std::string> Sym::consts(std::initializer_list<z3::expr> es) const {
  std::set<std::string> out;
  std::set<unsigned> seen;
  for (const z3::expr& e : es) consts(e, out, seen);
  return out;
}

bool Sym::has_unknown(const std::set<std::string>& s) const {
  return std::any_of(s.begin(), s.end(), [](const std::string& n) { return !n.empty() && n[0] == '?'; });
}

z3::expr Sym::subst(z3::expr e, const Subst& m) {
  if (m.empty()) return e;
  z3::expr_vector from(c_), to(c_);
  for (const auto& [a, b] : m) {
    from.push_back(a);
    to.push_back(b);
  }
  // Values may mention variables substituted in the same map (an inner
  // loop's bound names an outer variable): repeat until it settles.
  for (std::size_t i = 0; i <= m.size(); ++i) e = e.substitute(from, to);
  return e;
}

void Sym::walk(int r, const std::vector<ir::Stmt>& body, std::vector<std::optional<z3::expr>>& env, std::vector<Loop>& loops,
               const z3::expr& guard, int& seq) {
  for (const ir::Stmt& s : body) {
    switch (s.kind) {
      case ir::StmtKind::op: {
        const ir::Op& op = s.op;
        Occ o(c_);
        o.role = r;
        o.op = &op;
        o.seq = seq++;
        o.loops = loops;
        o.guard = guard;
        if (op.bar.object >= 0 && op.bar.index != ir::no_expr) o.idx = expr(op.bar.index, env);
        if (op.bar.cta != ir::no_expr) {
          o.has_cta = true;
          o.cta = expr(op.bar.cta, env);
        }
        if (op.count != ir::no_expr) {
          o.has_count = true;
          o.count = expr(op.count, env);
        }
        if (op.bytes != ir::no_expr) {
          o.has_bytes = true;
          o.bytes = expr(op.bytes, env);
        }
        if (op.multicast != ir::no_expr) {
          o.has_mask = true;
          o.mask = expr(op.multicast, env);
        }
        if (op.id != ir::no_expr) o.id = expr(op.id, env);
        if (op.parity != ir::no_expr) {
          o.has_parity = true;
          o.parity = expr(op.parity, env);
        }
        occs_[static_cast<std::size_t>(r)].push_back(o);
        if (op.dest_var >= 0) env[static_cast<std::size_t>(op.dest_var)] = unknown();
        break;
      }
      case ir::StmtKind::assign: env[static_cast<std::size_t>(s.var)] = expr(s.expr, env); break;
      case ir::StmtKind::assert_true: break;
      case ir::StmtKind::for_loop: {
        z3::expr lo = expr(s.lo, env), hi = expr(s.hi, env);
        z3::expr v = c_.int_const(("L!" + std::to_string(loops_++)).c_str());
        std::set<int> touched;
        assigned_vars(s.body, touched);
        std::vector<std::optional<z3::expr>> inner = env;
        for (int t : touched) inner[static_cast<std::size_t>(t)] = unknown();  // loop-carried values are not followed
        inner[static_cast<std::size_t>(s.var)] = v;
        loops.push_back(Loop{v, lo, hi, body_blocks(s.body)});
        walk(r, s.body, inner, loops, guard, seq);
        loops.pop_back();
        touched.insert(s.var);
        for (int t : touched) env[static_cast<std::size_t>(t)] = unknown();
        break;
      }
      case ir::StmtKind::either:
      case ir::StmtKind::if_else: {
        // An either's way is not the kernel's to decide: an unknown condition.
        const z3::expr cond = s.kind == ir::StmtKind::either ? unknown() != 0 : expr(s.expr, env) != 0;
        std::vector<std::optional<z3::expr>> a = env, b = env;
        walk(r, s.body, a, loops, guard && cond, seq);
        walk(r, s.else_body, b, loops, guard && !cond, seq);
        for (std::size_t v = 0; v < env.size(); ++v) {
          if (a[v] && b[v]) {
            if (a[v]->id() != b[v]->id()) env[v] = z3::ite(cond, *a[v], *b[v]);
            else env[v] = a[v];
          } else if (a[v] || b[v]) {
            env[v] = unknown();
          }
        }
        break;
      }
    }
  }
}

z3::params Sym::timeout() {
  z3::params p(c_);
  p.set("timeout", query_ms);
  return p;
}

namespace {
// Whether a term has a quantifier (a named-barrier use in some trip:
// symbolic_named.cpp, participants). Z3's optimizer does not take those.
bool quantified(const z3::expr& e, std::set<unsigned>& seen) {
  if (!seen.insert(e.id()).second) return false;
  if (e.is_quantifier()) return true;
  if (!e.is_app()) return false;
  for (unsigned i = 0; i < e.num_args(); ++i)
    if (quantified(e.arg(i), seen)) return true;
  return false;
}
}  // namespace

Sym::Solved Sym::solve(const z3::expr& negation) {
  Solved out;
  z3::solver s(c_);
  s.set(timeout());
  s.add(domain_);
  s.add(negation);
  switch (s.check()) {
    case z3::unsat: out.status = Status::proven; return out;
    case z3::unknown:
      out.status = Status::unknown;
      out.reason = "the solver gave up: " + s.reason_unknown();
      return out;
    case z3::sat: break;
  }
  out.status = Status::counterexample;
  out.model = s.get_model();
  // A witness as close to the declared values as the solver finds: the
  // explicit search at those values stays as small as the kernel's own.
  std::set<unsigned> seen;
  if (quantified(negation, seen)) return out;
  z3::optimize o(c_);
  o.set(timeout());
  o.add(domain_);
  o.add(negation);
  for (std::size_t p = 0; p < P_.size(); ++p)
    if (free_param(static_cast<int>(p)))
      o.add_soft(P_[p] == c_.int_val(static_cast<int64_t>(k_.params[p].value)), 1);
  if (o.check() == z3::sat) out.model = o.get_model();
  return out;
}

std::int64_t Sym::value(const z3::model& m, const z3::expr& e) {
  std::int64_t v = 0;
  z3::expr r = m.eval(e, true);
  if (!r.is_numeral_i64(v)) return 0;
  return v;
}

std::optional<std::int64_t> Sym::bound(const z3::expr& e) {
  std::int64_t v = 0;
  if (e.simplify().is_numeral_i64(v)) return std::max<std::int64_t>(v, 0);
  for (std::int64_t b = 1; b <= max_unroll; b *= 2)
    if (valid(e <= c_.int_val(static_cast<int64_t>(b)))) return b;
  return std::nullopt;
}

void Sym::finish(Finding f, const Solved& s, std::vector<Finding>& out, const std::function<std::string(const z3::model&)>& detail) {
  f.status = s.status;
  if (s.status == Status::unknown) f.reason = s.reason;
  if (s.status == Status::counterexample && s.model) {
    for (std::size_t p = 0; p < P_.size(); ++p)
      if (free_param(static_cast<int>(p))) f.witness.emplace_back(k_.params[p].name, value(*s.model, P_[p]));
    if (detail) f.detail = detail(*s.model);
  }
  out.push_back(std::move(f));
}

Finding Sym::not_checked(const std::string& check, const std::string& claim, ir::Loc loc, const std::string& reason) {
  Finding f;
  f.status = Status::not_checked;
  f.check = check;
  f.claim = claim;
  f.loc = loc;
  f.reason = reason;
  return f;
}

z3::expr Sym::role_count(int r) {
  const auto& e = role_count_[static_cast<std::size_t>(r)];
  if (e) return expr(*e, {});
  return c_.int_val(k_.roles[static_cast<std::size_t>(r)].count);
}

std::vector<int> Sym::ctas_of(int r) const {
  const ir::Role& ro = k_.roles[static_cast<std::size_t>(r)];
  std::vector<int> v;
  // Every CTA of every grid (`grids 2`: CTA a is grid a's one CTA, rank 0).
  for (int a = 0; a < k_.cluster_ctas * k_.grids; ++a)
    if (ro.placed_on(a % k_.cluster_ctas)) v.push_back(a);
  return v;
}

int Sym::lanes(const Occ& o) const {
  const int t = threads(o.role);
  if (o.op->warp >= 0)  // `warp K:` (check::lanes_of): its elected lane or its lanes
    return ir::op_lanes(o.op->code) == ir::LanePolicy::leader || o.op->lanes == ir::Lanes::one ? 1
           : o.op->lanes == ir::Lanes::mask ? __builtin_popcountll(o.op->lane_mask)
                                            : static_cast<int>(ir::warp_size(k_));
  switch (ir::op_lanes(o.op->code)) {
    case ir::LanePolicy::leader: return 1;
    case ir::LanePolicy::aligned: return t;
    case ir::LanePolicy::any:
    case ir::LanePolicy::single:
    case ir::LanePolicy::agent: break;
  }
  if (o.op->lanes == ir::Lanes::one) return 1;
  if (o.op->lanes == ir::Lanes::each) return t / ir::warp_size(k_);
  if (o.op->lanes == ir::Lanes::rest) return t - t / ir::warp_size(k_);
  if (o.op->lanes == ir::Lanes::mask) return __builtin_popcountll(o.op->lane_mask) * (t / ir::warp_size(k_));
  return t;
}

std::vector<Sym::Copy> Sym::copies(int r, bool by_instance) {
  auto it = copies_.find({r, by_instance});
  if (it != copies_.end()) return it->second;
  std::vector<Copy> out = make_copies(r, by_instance);
  copies_.emplace(std::make_pair(r, by_instance), out);
  return out;
}

std::vector<Sym::Copy> Sym::make_copies(int r, bool by_instance) {
  std::vector<Copy> out;
  const z3::expr n = role_count(r);
  std::int64_t max_n = k_.roles[static_cast<std::size_t>(r)].count;
  if (role_count_[static_cast<std::size_t>(r)]) {
    auto b = bound(n);
    if (!b) throw NotChecked{"role " + k_.roles[static_cast<std::size_t>(r)].name + " may have more than 64 instances"};
    max_n = *b;
  }
  for (int a : ctas_of(r)) {
    if (!by_instance) {
      out.push_back(Copy{a, role_inst_[static_cast<std::size_t>(r)], c_.bool_val(true), n});
      continue;
    }
    for (std::int64_t i = 0; i < max_n; ++i)
      out.push_back(Copy{a, c_.int_val(static_cast<int64_t>(i)), c_.int_val(static_cast<int64_t>(i)) < n, c_.int_val(1)});
  }
  return out;
}

}  // namespace sym

std::vector<Finding> check_symbolic(const ir::Kernel& k) {
  sym::Sym s(k);
  try {
    return s.run();
  } catch (const z3::exception& e) {
    Finding f;
    f.status = Status::unknown;
    f.check = "symbolic";
    f.claim = "the symbolic claims of the kernel";
    f.reason = std::string("the solver failed: ") + e.msg();
    f.loc = k.loc;
    return {f};
  }
}

std::string reproduce_command(const Finding& f, const std::string& file) {
  std::string cmd = "check-kernel";
  for (const auto& [n, v] : f.witness) cmd += " --param " + n + "=" + std::to_string(v);
  return cmd + " " + file;
}

}  // namespace pc::smt
