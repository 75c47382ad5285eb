#include "checker/smt/symbolic.hpp"

#include <z3++.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "checker/smt/encode.hpp"
#include "spec/clc.hpp"
#include "spec/mbarrier.hpp"
#include "spec/named_barrier.hpp"

namespace pc::smt {
namespace {

using ir::ExprId;
using ir::OpCode;
namespace mb = spec::mbarrier;

constexpr unsigned query_ms = 20000;    // per solver query; past it the claim is `unknown`
constexpr std::int64_t max_unroll = 64;  // instances, CTAs and loop trips summed one by one

// A claim the encoding cannot express: becomes a not_checked finding.
struct NotChecked {
  std::string reason;
};

// ---- constant evaluation (the values the explicit search uses) ----
std::optional<std::int64_t> eval_const(const ir::Kernel& k, ExprId id) {
  if (id < 0 || static_cast<std::size_t>(id) >= k.exprs.size()) return std::nullopt;
  const ir::Expr& x = k.exprs[static_cast<std::size_t>(id)];
  switch (x.kind) {
    case ir::ExprKind::constant: return x.value;
    case ir::ExprKind::var: return std::nullopt;
    case ir::ExprKind::unary: {
      auto a = eval_const(k, x.a);
      if (!a) return std::nullopt;
      return x.un == ir::UnOp::neg ? -*a : (*a == 0 ? 1 : 0);
    }
    case ir::ExprKind::binary: {
      auto a = eval_const(k, x.a), b = eval_const(k, x.b);
      if (!a || !b) return std::nullopt;
      switch (x.bin) {
        case ir::BinOp::add: return *a + *b;
        case ir::BinOp::sub: return *a - *b;
        case ir::BinOp::mul: return *a * *b;
        case ir::BinOp::div: return *b == 0 ? std::nullopt : std::optional<std::int64_t>(*a / *b);
        case ir::BinOp::mod: return *b == 0 ? std::nullopt : std::optional<std::int64_t>(*a % *b);
        case ir::BinOp::shl:
        case ir::BinOp::shr:
          if (*b < 0 || *b > 62) return std::nullopt;
          return x.bin == ir::BinOp::shl ? *a * (std::int64_t{1} << *b) : *a >> *b;
        case ir::BinOp::bxor: return *a ^ *b;
        case ir::BinOp::band: return *a & *b;
        case ir::BinOp::bor: return *a | *b;
        case ir::BinOp::lt: return *a < *b;
        case ir::BinOp::le: return *a <= *b;
        case ir::BinOp::gt: return *a > *b;
        case ir::BinOp::ge: return *a >= *b;
        case ir::BinOp::eq: return *a == *b;
        case ir::BinOp::ne: return *a != *b;
        case ir::BinOp::land: return *a && *b;
        case ir::BinOp::lor: return *a || *b;
      }
    }
  }
  return std::nullopt;
}

bool is_blocking(OpCode c) {
  switch (c) {
    case OpCode::mbar_wait:
    case OpCode::bar_sync:
    case OpCode::bar_red:
    case OpCode::syncthreads:
    case OpCode::cluster_wait:
    case OpCode::cluster_sync:
    case OpCode::s_barrier:
    case OpCode::s_barrier_wait: return true;
    default: return false;
  }
}

bool contributes(OpCode c) {
  switch (c) {
    case OpCode::mbar_arrive:
    case OpCode::mbar_arrive_drop:
    case OpCode::mbar_arrive_expect_tx:
    case OpCode::mbar_expect_tx:
    case OpCode::mbar_complete_tx:
    case OpCode::tma_load:
    case OpCode::clc_try_cancel:
    case OpCode::tcgen05_commit:
    case OpCode::cp_async_mbarrier_arrive:
    case OpCode::st_async:
    case OpCode::red_async: return true;
    default: return false;
  }
}

bool is_named(OpCode c) {
  return c == OpCode::bar_sync || c == OpCode::bar_arrive || c == OpCode::bar_red || c == OpCode::syncthreads;
}

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

// A loop around an operation: its variable and bounds as Z3 terms.
struct Loop {
  z3::expr var, lo, hi;
  bool blocks;  // its body has a blocking operation (a wait, a barrier)
};

// One operation in a role's code, with everything it depends on as Z3 terms
// over the parameters, the role's `cta` and `instance`, its loop variables
// and, for values the encoding does not follow, unknowns.
struct Occ {
  int role = -1;
  const ir::Op* op = nullptr;
  int seq = 0;  // program order in the role
  std::vector<Loop> loops;  // outermost first
  z3::expr guard, idx, cta, count, bytes, mask, id, parity;
  bool has_cta = false, has_count = false, has_bytes = false, has_mask = false, has_parity = false;
  explicit Occ(z3::context& c)
      : guard(c.bool_val(true)), idx(c.int_val(0)), cta(c.int_val(0)), count(c.int_val(1)), bytes(c.int_val(0)),
        mask(c.int_val(0)), id(c.int_val(0)), parity(c.int_val(0)) {}
};

using Subst = std::vector<std::pair<z3::expr, z3::expr>>;

class Sym {
 public:
  explicit Sym(const ir::Kernel& k) : k_(k), domain_(c_.bool_val(true)) {}

  std::vector<Finding> run() {
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

 private:
  // ---- declarations the IR keeps only as values ----
  // The front end parses every declaration's expression into the arena and
  // keeps the value; the expression stays there, referenced by nothing. It is
  // recovered by the declaration's line and used only when it evaluates to
  // the value the IR holds. A parameter-dependent declaration that cannot be
  // attributed so makes every claim not checked.
  void recover_declarations() {
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
      auto r = take(ro.loc.line);
      if (ro.cta >= 0 && !r.empty()) r.pop_back();
      if (ro.cta >= 0 && ro.cta_end != ro.cta + 1 && !r.empty()) r.pop_back();  // `on cta K..M`
      if (r.size() == 1 && matches(r[0], ro.count)) role_count_[i] = r[0];
      else if (r.size() > 1) decl_problem_ = "the instance count of role " + ro.name + " is not in the IR as an expression";
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

  bool mentions_param(ExprId e) const {
    if (e < 0) return false;
    const ir::Expr& x = k_.exprs[static_cast<std::size_t>(e)];
    if (x.kind == ir::ExprKind::constant) return x.param >= 0;
    return mentions_param(x.a) || mentions_param(x.b);
  }

  z3::expr param_domain(int p) {
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

  bool free_param(int p) const {
    const ir::Param& par = k_.params[static_cast<std::size_t>(p)];
    return par.lo <= par.hi || !par.candidates.empty();
  }

  // ---- expressions ----
  z3::expr unknown() { return c_.int_const(("?" + std::to_string(unknowns_++)).c_str()); }

  z3::expr expr(ExprId id, const std::vector<std::optional<z3::expr>>& env) {
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

  // The uninterpreted constants of a term, by name.
  void consts(const z3::expr& e, std::set<std::string>& out, std::set<unsigned>& seen) const {
    if (!seen.insert(e.id()).second) return;
    if (e.is_app()) {
      if (e.num_args() == 0 && e.decl().decl_kind() == Z3_OP_UNINTERPRETED) out.insert(e.decl().name().str());
      for (unsigned i = 0; i < e.num_args(); ++i) consts(e.arg(i), out, seen);
    }
  }
  std::set<std::string> consts(std::initializer_list<z3::expr> es) const {
    std::set<std::string> out;
    std::set<unsigned> seen;
    for (const z3::expr& e : es) consts(e, out, seen);
    return out;
  }
  static bool has(const std::set<std::string>& s, const z3::expr& c) { return s.count(c.decl().name().str()) != 0; }
  bool has_unknown(const std::set<std::string>& s) const {
    return std::any_of(s.begin(), s.end(), [](const std::string& n) { return !n.empty() && n[0] == '?'; });
  }

  z3::expr subst(z3::expr e, const Subst& m) {
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

  // ---- the roles' code ----
  void walk(int r, const std::vector<ir::Stmt>& body, std::vector<std::optional<z3::expr>>& env, std::vector<Loop>& loops,
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
        case ir::StmtKind::if_else: {
          const z3::expr cond = expr(s.expr, env) != 0;
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

  // ---- solving ----
  struct Solved {
    Status status = Status::proven;
    std::optional<z3::model> model;
    std::string reason;
  };

  z3::params timeout() {
    z3::params p(c_);
    p.set("timeout", query_ms);
    return p;
  }

  Solved solve(const z3::expr& negation) {
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

  bool valid(const z3::expr& claim) { return solve(!claim).status == Status::proven; }

  std::int64_t value(const z3::model& m, const z3::expr& e) {
    std::int64_t v = 0;
    z3::expr r = m.eval(e, true);
    if (!r.is_numeral_i64(v)) return 0;
    return v;
  }

  // The least power of two (up to max_unroll) that bounds e over the domain.
  std::optional<std::int64_t> bound(const z3::expr& e) {
    std::int64_t v = 0;
    if (e.simplify().is_numeral_i64(v)) return std::max<std::int64_t>(v, 0);
    for (std::int64_t b = 1; b <= max_unroll; b *= 2)
      if (valid(e <= c_.int_val(static_cast<int64_t>(b)))) return b;
    return std::nullopt;
  }

  void finish(Finding f, const Solved& s, std::vector<Finding>& out, const std::function<std::string(const z3::model&)>& detail) {
    f.status = s.status;
    if (s.status == Status::unknown) f.reason = s.reason;
    if (s.status == Status::counterexample && s.model) {
      for (std::size_t p = 0; p < P_.size(); ++p)
        if (free_param(static_cast<int>(p))) f.witness.emplace_back(k_.params[p].name, value(*s.model, P_[p]));
      if (detail) f.detail = detail(*s.model);
    }
    out.push_back(std::move(f));
  }

  static Finding not_checked(const std::string& check, const std::string& claim, ir::Loc loc, const std::string& reason) {
    Finding f;
    f.status = Status::not_checked;
    f.check = check;
    f.claim = claim;
    f.loc = loc;
    f.reason = reason;
    return f;
  }

  // ---- agents ----
  z3::expr role_count(int r) {
    const auto& e = role_count_[static_cast<std::size_t>(r)];
    if (e) return expr(*e, {});
    return c_.int_val(k_.roles[static_cast<std::size_t>(r)].count);
  }
  std::vector<int> ctas_of(int r) const {
    const ir::Role& ro = k_.roles[static_cast<std::size_t>(r)];
    std::vector<int> v;
    for (int a = 0; a < k_.cluster_ctas; ++a)
      if (ro.placed_on(a)) v.push_back(a);
    return v;
  }
  int threads(int r) const { return ir::role_warps(k_.roles[static_cast<std::size_t>(r)]) * ir::warp_size(k_); }

  // Threads of the agent that execute the operation (checker/step.cpp lanes_of).
  int lanes(const Occ& o) const {
    const int t = threads(o.role);
    switch (ir::op_lanes(o.op->code)) {
      case ir::LanePolicy::leader: return 1;
      case ir::LanePolicy::aligned: return t;
      case ir::LanePolicy::any:
      case ir::LanePolicy::single:
      case ir::LanePolicy::agent: break;
    }
    if (o.op->lanes == ir::Lanes::one) return 1;
    if (o.op->lanes == ir::Lanes::each) return t / ir::warp_size(k_);
    return t;
  }

  // The instances of an agent's role to sum one by one (`instance` matters),
  // or one copy weighted by the instance count.
  struct Copy {
    int cta;
    z3::expr inst;     // the instance, or the role's instance constant when not unrolled
    z3::expr present;  // this instance exists
    z3::expr weight;   // how many agents the copy stands for
  };
  std::vector<Copy> copies(int r, bool by_instance) {
    auto it = copies_.find({r, by_instance});
    if (it != copies_.end()) return it->second;
    std::vector<Copy> out = make_copies(r, by_instance);
    copies_.emplace(std::make_pair(r, by_instance), out);
    return out;
  }
  std::map<std::pair<int, bool>, std::vector<Copy>> copies_;
  std::vector<Copy> make_copies(int r, bool by_instance) {
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

  // ---- mbarrier claims ----
  struct Term {
    z3::expr exists;  // this contribution feeds the probed phase
    z3::expr arrivals, expected, delivered;
    z3::expr count_ok, tx_ok;  // its count and byte operands are in the ISA ranges
  };

  // The ring shape of an index: OFF + X % S (or X % S).
  struct Ring {
    z3::expr off, x, s;
  };
  std::optional<Ring> ring(const z3::expr& idx) {
    auto as_mod = [&](const z3::expr& e) -> std::optional<std::pair<z3::expr, z3::expr>> {
      auto it = mods_.find(e.id());
      if (it == mods_.end()) return std::nullopt;
      return it->second;
    };
    if (auto m = as_mod(idx)) return Ring{c_.int_val(0), m->first, m->second};
    if (idx.is_app() && idx.decl().decl_kind() == Z3_OP_ADD && idx.num_args() == 2) {
      if (auto m = as_mod(idx.arg(1))) return Ring{idx.arg(0), m->first, m->second};
      if (auto m = as_mod(idx.arg(0))) return Ring{idx.arg(1), m->first, m->second};
    }
    return std::nullopt;
  }

  // ---- ring_phase: a wait in a loop is an instance of the ring-buffer
  // phase theorem (proofs/ring_buffer_phase.cpp, proofs/README.md (b)) ----
  // Its use count u is the trips before it of some of its loops (one loop,
  // or several linearized, outer first: `i = 2 * j + t`); the claim is that
  // its barrier is stage u % S of a ring of S (OFF + X % S with X = u mod S,
  // or a single barrier, S = 1) and its parity is (u / S + c) % 2 for c in
  // {0, 1} (c = 1: one phase ahead, a producer's wait on a free slot). Then
  // b2/b3 say the wait passes exactly when use u's phase has completed, for
  // every trip count and parameter value, given that every use completes one
  // phase (arrival_count, tx_balance). A wait the theorem does not cover is
  // named, not refuted: it may still be correct (the explicit search judges
  // it at the values it runs).
  static bool has_unknown(const z3::expr& e) {
    if (e.is_const()) return e.decl().name().str().rfind('?', 0) == 0;
    if (!e.is_app()) return false;
    for (unsigned i = 0; i < e.num_args(); ++i)
      if (has_unknown(e.arg(i))) return true;
    return false;
  }

  void ring_phase_claim(const Occ& o, std::vector<Finding>& out) {
    const OpCode code = o.op->code;
    if (!o.has_parity || o.loops.empty() ||
        (code != OpCode::mbar_wait && code != OpCode::mbar_test_wait && code != OpCode::mbar_try_wait))
      return;
    const ir::MbarrierDecl& d = k_.mbarriers[static_cast<std::size_t>(o.op->bar.object)];
    const std::string claim = "the wait on " + d.name + " is use u of a ring of S barriers: stage u % S, parity (u / S + c) % 2 "
                              "(proofs/README.md (b)), for every trip count and parameter value";
    const std::string where = "line " + std::to_string(o.op->loc.line);
    if (has_unknown(o.parity) || has_unknown(o.idx)) {
      out.push_back(not_checked("ring_phase", claim, o.op->loc,
                                "its parity or barrier index depends on a value the encoding does not follow (one carried "
                                "across trips, or read from the hardware)"));
      return;
    }
    z3::expr in_loops = o.guard;
    for (const Loop& l : o.loops) in_loops = in_loops && l.lo <= l.var && l.var < l.hi;
    for (const Loop& l : o.loops)
      if (has_unknown(l.lo) || has_unknown(l.hi)) {
        out.push_back(not_checked("ring_phase", claim, o.op->loc,
                                  "a loop around it has trip counts that depend on a value the encoding does not follow"));
        return;
      }
    const std::optional<Ring> rg = ring(o.idx);
    const bool single = !rg && d.size == 1;
    if (!rg && !single) {
      out.push_back(not_checked("ring_phase", claim, o.op->loc,
                                "its barrier index is not a ring position (OFF + X % S) and its barrier is not a single one"));
      return;
    }
    // Candidate use counts: each non-empty set of its loops (at most the
    // innermost three), linearized.
    const std::size_t n = std::min<std::size_t>(o.loops.size(), 3), first = o.loops.size() - n;
    for (unsigned mask = 1; mask < (1u << n); ++mask) {
      z3::expr u = c_.int_val(0);
      for (std::size_t i = 0; i < n; ++i) {
        if (!(mask & (1u << i))) continue;
        const Loop& l = o.loops[first + i];
        u = u * (l.hi - l.lo) + (l.var - l.lo);
      }
      const z3::expr S = single ? c_.int_val(1) : rg->s;
      const z3::expr stage_ok = single ? c_.bool_val(true) : z3::mod(rg->x, S) == z3::mod(u, S);
      for (int c = 0; c < 2; ++c) {
        const z3::expr phase_ok = z3::mod(o.parity, 2) == z3::mod(u / S + c, 2);
        const Solved r = solve(in_loops && S >= 1 && !(stage_ok && phase_ok));
        if (r.status != Status::proven) continue;
        Finding f;
        f.status = Status::proven;
        f.check = "ring_phase";
        f.claim = "the wait on " + d.name + " (" + where + ") is use u of a ring of " + (single ? std::string("1") : rg->s.to_string()) +
                  " barrier" + (single ? "" : "s") + ": stage u % S, parity (u / S + " + std::to_string(c) + ") % 2, " +
                  (c ? "passing at once on each stage's first use, then waiting for the phase of use u - S (proofs/README.md (b), b3)"
                     : "waiting for the phase of use u (proofs/README.md (b), b2)") +
                  ", for every trip count and parameter value";
        f.loc = o.op->loc;
        out.push_back(std::move(f));
        return;
      }
    }
    out.push_back(not_checked("ring_phase", claim, o.op->loc,
                              "no count of its loops' trips gives its stage and parity as the theorem's (a ring used across "
                              "several loops, or a parity of another form)"));
  }

  void barrier_claims(int b, std::vector<Finding>& out) {
    const ir::MbarrierDecl& d = k_.mbarriers[static_cast<std::size_t>(b)];
    std::vector<const Occ*> contrib, inits, waits;
    for (const auto& role_occs : occs_)
      for (const Occ& o : role_occs) {
        if (o.op->bar.object != b) continue;
        if (contributes(o.op->code)) {
          contrib.push_back(&o);
        } else if (o.op->code == OpCode::mbar_init) {
          inits.push_back(&o);
        } else if (o.op->code == OpCode::mbar_wait || o.op->code == OpCode::mbar_test_wait || o.op->code == OpCode::mbar_try_wait) {
          waits.push_back(&o);
        }
      }
    bool any_arrival = false, any_tx = false, any_drop = false;
    for (const Occ* o : contrib) {
      switch (o->op->code) {
        case OpCode::mbar_expect_tx:
        case OpCode::mbar_complete_tx:
        case OpCode::clc_try_cancel:
        case OpCode::tma_load: any_tx = true; break;
        case OpCode::mbar_arrive_expect_tx: any_tx = any_arrival = true; break;
        case OpCode::mbar_arrive_drop:
          any_drop = any_arrival = true;
          any_tx |= o->has_bytes;
          break;
        default: any_arrival = true;
      }
    }
    const std::string name = d.name;
    const std::string arrival_claim = "every phase of " + name + " (each element, each CTA) gets as many arrivals as its count";
    const std::string tx_claim = "in every phase of " + name + " (each element, each CTA) the bytes expected equal the bytes its copies deliver";
    const std::string count_claim = "the count of " + name + " and the arrive counts on it are in 1..2^20-1";
    const std::string range_claim = "the tx-count of every phase of " + name + " stays within -(2^20-1)..2^20-1";
    if (contrib.empty()) {
      if (!waits.empty())
        out.push_back(not_checked("arrival_count", arrival_claim, d.loc, "no operation arrives on it or completes bytes on it"));
      return;
    }
    auto all_not_checked = [&](const std::string& reason) {
      if (any_arrival) out.push_back(not_checked("arrival_count", arrival_claim, d.loc, reason));
      if (any_arrival) out.push_back(not_checked("count_range", count_claim, d.loc, reason));
      if (any_tx) out.push_back(not_checked("tx_balance", tx_claim, d.loc, reason));
      if (any_tx) out.push_back(not_checked("tx_range", range_claim, d.loc, reason));
    };
    if (!decl_problem_.empty()) return all_not_checked(decl_problem_);
    try {
      // The count each phase needs.
      std::optional<z3::expr> need;
      std::string need_problem;
      if (d.count > 0) {
        need = mbar_count_[static_cast<std::size_t>(b)] ? expr(*mbar_count_[static_cast<std::size_t>(b)], {})
                                                        : c_.int_val(static_cast<int64_t>(d.count));
        if (!inits.empty()) need_problem = "it is declared with a count and initialised again by `init`";
      } else if (inits.empty()) {
        need_problem = "no `init` gives it a count";
      } else {
        for (const Occ* i : inits) {
          const auto cs = consts({i->count});
          for (const std::string& n : cs)
            if (n.find('!') != std::string::npos || n[0] == '?') need_problem = "its `init` count depends on the role's variables";
          if (!need) need = i->count;
          else if (!valid(*need == i->count)) need_problem = "its `init` operations give different counts";
        }
      }
      // The phases: the ring shape (index OFF + X % S, phase X / S) or one
      // phase per iteration of the innermost blocking loop (index constant in it).
      std::vector<std::optional<Ring>> rings;
      bool all_ring = true, none_ring = true;
      for (const Occ* o : contrib) {
        rings.push_back(ring(o->idx));
        all_ring &= rings.back().has_value();
        none_ring &= !rings.back().has_value();
      }
      if (!all_ring && !none_ring)
        throw NotChecked{"some operations index it as a ring (X % S) and some do not: the phases cannot be matched"};
      if (all_ring) {
        for (std::size_t i = 1; i < rings.size(); ++i)
          if (!valid(rings[i]->s == rings[0]->s)) throw NotChecked{"its ring operations use different moduli"};
        if (!valid(rings[0]->s > 0)) throw NotChecked{"the ring modulus may be 0 or negative"};
      } else {
        // Per role, all contributions in one scope (one loop nest level), and
        // no wait on it between two of them in one iteration.
        std::map<int, const Loop*> scope;
        for (const Occ* o : contrib) {
          const Loop* t = ticket_loop(*o);
          auto [it, fresh] = scope.emplace(o->role, t);
          if (!fresh && (it->second == nullptr) != (t == nullptr))
            throw NotChecked{"role " + k_.roles[static_cast<std::size_t>(o->role)].name +
                             " contributes to it both inside and outside its loop: the phases cannot be numbered"};
          if (!fresh && t && it->second->var.id() != t->var.id())
            throw NotChecked{"role " + k_.roles[static_cast<std::size_t>(o->role)].name + " contributes to it from two loops"};
        }
        for (const Occ* w : waits) {
          int lo = 1 << 30, hi = -1;
          for (const Occ* o : contrib)
            if (o->role == w->role && same_scope(*o, *w)) {
              lo = std::min(lo, o->seq);
              hi = std::max(hi, o->seq);
            }
          if (w->seq > lo && w->seq < hi)
            throw NotChecked{"role " + k_.roles[static_cast<std::size_t>(w->role)].name +
                             " waits on it between two of its contributions: they feed different phases"};
        }
      }
      if (any_drop) {
        bool single_phase = none_ring;
        for (const Occ* o : contrib) single_phase &= ticket_loop(*o) == nullptr && !any_spread_blocking(*o);
        if (!single_phase) need_problem = "arrive_drop lowers the count of later phases: only a barrier used for one phase is encoded";
      }
      // The probe: element E, phase Q, CTA C.
      const z3::expr E = c_.int_const("E!"), Q = c_.int_const("Q!"), C = c_.int_const("C!");
      z3::expr probe = Q >= 0 && C >= 0 && C < k_.cluster_ctas;
      std::vector<Term> terms;
      for (std::size_t i = 0; i < contrib.size(); ++i) add_terms(*contrib[i], rings[i], E, Q, C, terms);
      z3::expr exists = c_.bool_val(false), A = c_.int_val(0), X = c_.int_val(0), D = c_.int_val(0),
               counts_ok = c_.bool_val(true), txs_ok = c_.bool_val(true);
      for (const Term& t : terms) {
        exists = exists || t.exists;
        A = A + z3::ite(t.exists, t.arrivals, c_.int_val(0));
        X = X + z3::ite(t.exists, t.expected, c_.int_val(0));
        D = D + z3::ite(t.exists, t.delivered, c_.int_val(0));
        counts_ok = counts_ok && z3::implies(t.exists, t.count_ok);
        txs_ok = txs_ok && z3::implies(t.exists, t.tx_ok);
      }
      auto where = [&, this](const z3::model& m) {
        std::ostringstream o;
        o << name << "[" << value(m, E) << "] in CTA " << value(m, C) << ", phase " << value(m, Q);
        return o.str();
      };
      if (any_arrival) {
        if (!need_problem.empty()) {
          out.push_back(not_checked("arrival_count", arrival_claim, d.loc, need_problem));
          out.push_back(not_checked("count_range", count_claim, d.loc, need_problem));
        } else {
          Finding f;
          f.check = "arrival_count";
          f.claim = arrival_claim;
          f.loc = d.loc;
          finish(f, solve(probe && exists && A != *need), out, [&, this](const z3::model& m) {
            return where(m) + ": " + std::to_string(value(m, A)) + " arrivals, count " + std::to_string(value(m, *need));
          });
          Finding g;
          g.check = "count_range";
          g.claim = count_claim;
          g.loc = d.loc;
          const std::int64_t mc = mb::max_count;
          finish(g, solve((*need < 1 || *need > c_.int_val(static_cast<int64_t>(mc))) || (probe && !counts_ok)), out,
                 [&, this](const z3::model& m) { return "count " + std::to_string(value(m, *need)) + " at " + where(m); });
        }
      }
      if (any_tx) {
        Finding f;
        f.check = "tx_balance";
        f.claim = tx_claim;
        f.loc = first_tx_loc(contrib);
        finish(f, solve(probe && exists && X != D), out, [&, this](const z3::model& m) {
          return where(m) + ": " + std::to_string(value(m, X)) + " bytes expected, " + std::to_string(value(m, D)) + " delivered";
        });
        Finding g;
        g.check = "tx_range";
        g.claim = range_claim;
        g.loc = f.loc;
        const z3::expr mt = c_.int_val(static_cast<int64_t>(mb::max_tx));
        finish(g, solve(probe && exists && (X > mt || D > mt || !txs_ok)), out, [&, this](const z3::model& m) {
          return where(m) + ": " + std::to_string(value(m, X)) + " bytes expected, " + std::to_string(value(m, D)) + " delivered";
        });
      }
    } catch (const NotChecked& n) {
      all_not_checked(n.reason);
    }
  }

  ir::Loc first_tx_loc(const std::vector<const Occ*>& contrib) const {
    for (const Occ* o : contrib)
      if (o->op->code == OpCode::mbar_arrive_expect_tx || o->op->code == OpCode::mbar_expect_tx) return o->op->loc;
    return contrib.front()->op->loc;
  }

  // The innermost blocking loop around an operation: its iterations are the
  // phases of a barrier indexed by a constant. More than one: not numbered.
  const Loop* ticket_loop(const Occ& o) const {
    const Loop* t = nullptr;
    for (const Loop& l : o.loops)
      if (l.blocks) {
        if (t) throw NotChecked{"an operation on it sits in two nested blocking loops: its phases are not numbered"};
        t = &l;
      }
    return t;
  }
  bool any_spread_blocking(const Occ& o) const {
    return std::any_of(o.loops.begin(), o.loops.end(), [](const Loop& l) { return l.blocks; });
  }
  static bool same_scope(const Occ& a, const Occ& b) {
    const Loop* ta = nullptr;
    const Loop* tb = nullptr;
    for (const Loop& l : a.loops)
      if (l.blocks) ta = &l;
    for (const Loop& l : b.loops)
      if (l.blocks) tb = &l;
    if (!ta || !tb) return !ta && !tb;
    return ta->var.id() == tb->var.id();
  }

  // Every way the operation feeds the probed phase (E, Q, C): per CTA and
  // instance of its role, per unrolled loop iteration, per destination CTA.
  void add_terms(const Occ& o, const std::optional<Ring>& rg, const z3::expr& E, const z3::expr& Q, const z3::expr& C,
                 std::vector<Term>& terms) {
    const int r = o.role;
    const z3::expr cta_c = role_cta_[static_cast<std::size_t>(r)], inst_c = role_inst_[static_cast<std::size_t>(r)];
    const ir::Op& op = *o.op;
    z3::expr bytes = o.bytes;
    if (op.code == OpCode::tma_load && !o.has_bytes) {
      const ir::BufferDecl& bd = k_.buffers.at(static_cast<std::size_t>(op.bufs.at(0).object));
      bytes = bd.bytes_expr != ir::no_expr ? expr(bd.bytes_expr, {}) : c_.int_val(static_cast<int64_t>(bd.bytes));
    }
    std::vector<z3::expr> rel = {o.guard, o.idx, o.cta, o.count, bytes, o.mask};
    for (const Loop& l : o.loops) {
      rel.push_back(l.lo);
      rel.push_back(l.hi);
    }
    std::set<std::string> used;
    {
      std::set<unsigned> seen;
      for (const z3::expr& e : rel) consts(e, used, seen);
    }
    if (has_unknown(used))
      throw NotChecked{"line " + std::to_string(op.loc.line) + " depends on a value the encoding does not follow (set in a loop or a branch, read from a barrier, or the warp of a role split per warp)"};
    const bool by_instance = has(used, inst_c);
    for (const Copy& cp : copies(r, by_instance)) {
      Subst base = {{cta_c, c_.int_val(cp.cta)}};
      if (by_instance) base.emplace_back(inst_c, cp.inst);
      // Which loops number the phases (tickets) and which are summed (spread).
      std::optional<z3::expr> x;
      std::vector<const Loop*> tickets;
      if (rg) {
        x = subst(rg->x, base);
        const auto xs = consts({*x});
        for (const Loop& l : o.loops)
          if (has(xs, l.var)) tickets.push_back(&l);
      } else if (const Loop* t = ticket_loop(o)) {
        tickets.push_back(t);
      }
      // The ticket loops' variables as functions of the probe.
      Subst tick;
      z3::expr ok = c_.bool_val(true);
      if (rg) {
        const z3::expr s = subst(rg->s, base), off = subst(rg->off, base);
        const auto os = consts({off});
        for (const Loop* t : tickets)
          if (has(os, t->var)) throw NotChecked{"the ring offset of line " + std::to_string(op.loc.line) + " moves with the phase"};
        ok = ok && E - off >= 0 && E - off < s;
        const z3::expr xstar = Q * s + (E - off);
        invert(*x, xstar, tickets, tick, ok, op.loc);
      } else {
        if (!tickets.empty() && has(used, tickets[0]->var) && has(consts({o.idx}), tickets[0]->var))
          throw NotChecked{"line " + std::to_string(op.loc.line) + " indexes it by its loop variable without a ring (X % S)"};
        ok = ok && subst(o.idx, base) == E;
        if (tickets.empty()) ok = ok && Q == 0;
        else {
          tick.emplace_back(tickets[0]->var, tickets[0]->lo + Q);
        }
      }
      // The other loops: summed by unrolling when the operation depends on
      // their variable, else counted by their trip count.
      std::vector<std::pair<const Loop*, bool>> spread;  // loop, unrolled
      for (const Loop& l : o.loops) {
        if (std::any_of(tickets.begin(), tickets.end(), [&](const Loop* t) { return t == &l; })) continue;
        bool dep = has(used, l.var);
        spread.emplace_back(&l, dep);
      }
      // Enumerate the unrolled loops' iterations.
      std::vector<Subst> its = {{}};
      std::vector<z3::expr> its_ok = {c_.bool_val(true)};
      for (const auto& [l, unroll] : spread) {
        if (!unroll) continue;
        const z3::expr trips = subst(l->hi - l->lo, base);
        const auto ts = consts({trips});
        bool loopdep = false;
        for (const Loop& m : o.loops) loopdep |= has(ts, m.var);
        if (loopdep) throw NotChecked{"the trip count of a loop around line " + std::to_string(op.loc.line) + " moves with an outer loop"};
        const auto nmax = bound(trips);
        if (!nmax) throw NotChecked{"a loop around line " + std::to_string(op.loc.line) + " may run more than 64 times and the operation depends on its variable"};
        std::vector<Subst> next;
        std::vector<z3::expr> next_ok;
        for (std::size_t i = 0; i < its.size(); ++i)
          for (std::int64_t j = 0; j < *nmax; ++j) {
            Subst s = its[i];
            s.emplace_back(l->var, l->lo + c_.int_val(static_cast<int64_t>(j)));
            next.push_back(s);
            next_ok.push_back(its_ok[i] && c_.int_val(static_cast<int64_t>(j)) < l->hi - l->lo);
          }
        its = std::move(next);
        its_ok = std::move(next_ok);
      }
      for (std::size_t i = 0; i < its.size(); ++i) {
        Subst all = base;
        all.insert(all.end(), tick.begin(), tick.end());
        all.insert(all.end(), its[i].begin(), its[i].end());
        auto S = [&](const z3::expr& e) { return subst(e, all); };
        z3::expr mult = cp.weight;
        for (const auto& [l, unroll] : spread)
          if (!unroll) mult = mult * z3::ite(S(l->hi) > S(l->lo), S(l->hi) - S(l->lo), c_.int_val(0));
        z3::expr ex = cp.present && S(ok) && S(its_ok[i]) && S(o.guard);
        for (const Loop* t : tickets) ex = ex && S(t->lo) <= S(t->var) && S(t->var) < S(t->hi);
        for (const auto& [l, unroll] : spread)
          if (unroll) ex = ex && S(l->lo) <= S(l->var) && S(l->var) < S(l->hi);
        const z3::expr lanes_e = c_.int_val(lanes(o));
        const z3::expr zero = c_.int_val(0);
        const z3::expr mc = c_.int_val(static_cast<int64_t>(mb::max_count)), mt = c_.int_val(static_cast<int64_t>(mb::max_tx));
        const z3::expr own = c_.int_val(cp.cta);
        const z3::expr target = o.has_cta ? S(o.cta) : own;
        const z3::expr yes = c_.bool_val(true);
        auto push = [&](const z3::expr& hit, const z3::expr& arr, const z3::expr& exp, const z3::expr& del, const z3::expr& cok,
                        const z3::expr& tok) { terms.push_back(Term{ex && hit, arr * mult, exp * mult, del * mult, cok, tok});
        };
        switch (op.code) {
          case OpCode::mbar_arrive:
          case OpCode::mbar_arrive_drop: {
            const z3::expr n = o.has_count ? S(o.count) : c_.int_val(1);
            const z3::expr tx = o.has_bytes ? S(o.bytes) : zero;
            push(target == C, n * lanes_e, tx * lanes_e, zero, n >= 1 && n <= mc, tx >= 0 && tx <= mt);
            break;
          }
          case OpCode::mbar_arrive_expect_tx:
            push(target == C, lanes_e, S(o.bytes) * lanes_e, zero, yes, S(o.bytes) >= 0 && S(o.bytes) <= mt);
            break;
          case OpCode::mbar_expect_tx:
            push(target == C, zero, S(o.bytes) * lanes_e, zero, yes, S(o.bytes) >= 0 && S(o.bytes) <= mt);
            break;
          case OpCode::mbar_complete_tx:
          case OpCode::st_async:   // each executing thread's store completes its bytes (PTX ISA st.async)
          case OpCode::red_async:  // and each reduction (red.async)
            push(target == C, zero, zero, S(o.bytes) * lanes_e, yes, S(o.bytes) >= 0 && S(o.bytes) <= mt);
            break;
          case OpCode::cp_async_mbarrier_arrive:
            // Without .noinc it raises the pending count by the arrivals it
            // brings (PTX ISA cp.async.mbarrier.arrive): zero net.
            push(own == C, op.noinc ? lanes_e : zero, zero, zero, yes, yes);
            break;
          case OpCode::tma_load:
          case OpCode::clc_try_cancel:  // a 16-byte response per destination (spec/clc.hpp)
          case OpCode::tcgen05_commit: {
            const z3::expr b_ = op.code == OpCode::tma_load          ? S(bytes)
                                : op.code == OpCode::clc_try_cancel ? c_.int_val(int64_t{spec::clc::response_bytes})
                                                                     : zero;
            const z3::expr arr = op.code == OpCode::tcgen05_commit ? c_.int_val(1) : zero;
            for (int dst = 0; dst < k_.cluster_ctas; ++dst) {
              const z3::expr sel = o.has_mask ? z3::mod(truncating_div(S(o.mask), c_.int_val(int64_t(1) << dst)), 2) == 1
                                              : c_.bool_val(dst == cp.cta);
              // The barrier a copy signals: the destination's, or the one named
              // with `@` (spec/rules.hpp signalled_cta); a commit's: the destination's.
              const z3::expr bar_cta = op.code == OpCode::tma_load && o.has_cta ? target : c_.int_val(dst);
              push(sel && bar_cta == C, arr, zero, b_, yes, b_ >= 0 && b_ <= mt);
            }
            break;
          }
          default: break;
        }
      }
    }
  }

  // Solves X(tickets) = xstar for the ticket loops' variables: one variable
  // with a constant or parameter step, or two nested ones (outer step equal
  // to at least the inner trip count, inner step 1: the linearised ticket of
  // a tile loop around a k-loop).
  void invert(const z3::expr& x, const z3::expr& xstar, const std::vector<const Loop*>& tickets, Subst& tick, z3::expr& ok,
              ir::Loc loc) {
    const std::string at = "line " + std::to_string(loc.line);
    const auto xs = consts({x});
    for (const std::string& n : xs)
      if (n.rfind("L!", 0) == 0 &&
          std::none_of(tickets.begin(), tickets.end(), [&](const Loop* t) { return t->var.decl().name().str() == n; }))
        throw NotChecked{"the ring ticket of " + at + " names a loop variable of another scope"};
    auto at_values = [&](std::vector<std::int64_t> vals) {
      Subst s;
      for (std::size_t i = 0; i < tickets.size(); ++i) s.emplace_back(tickets[i]->var, c_.int_val(static_cast<int64_t>(vals[i])));
      return subst(x, s).simplify();
    };
    if (tickets.empty()) {
      ok = ok && x == xstar;
      return;
    }
    if (tickets.size() == 1) {
      const Loop& l = *tickets[0];
      const z3::expr beta = at_values({0});
      const z3::expr alpha = (at_values({1}) - beta).simplify();
      if (!valid(x == alpha * l.var + beta)) throw NotChecked{"the ring ticket of " + at + " is not linear in its loop variable"};
      if (!valid(alpha != 0)) throw NotChecked{"the ring ticket of " + at + " may not move with its loop"};
      ok = ok && z3::mod(xstar - beta, alpha) == 0;
      tick.emplace_back(l.var, (xstar - beta) / alpha);
      return;
    }
    if (tickets.size() == 2) {
      const Loop& u = *tickets[0];
      const Loop& v = *tickets[1];
      const z3::expr beta = at_values({0, 0});
      const z3::expr au = (at_values({1, 0}) - beta).simplify(), av = (at_values({0, 1}) - beta).simplify();
      std::int64_t one = 0;
      if (!av.is_numeral_i64(one) || one != 1)
        throw NotChecked{"the ring ticket of " + at + " does not step by 1 in its inner loop"};
      if (!valid(x == au * u.var + v.var + beta)) throw NotChecked{"the ring ticket of " + at + " is not linear in its loops"};
      const auto vb = consts({v.lo, v.hi});
      if (has(vb, u.var)) throw NotChecked{"the inner loop of " + at + " has bounds that move with the outer loop"};
      if (!valid(au > 0 && v.hi - v.lo <= au))
        throw NotChecked{"the ring ticket of " + at + " is not one-to-one over its two loops"};
      const z3::expr dd = xstar - beta - v.lo;
      tick.emplace_back(u.var, dd / au);
      tick.emplace_back(v.var, v.lo + z3::mod(dd, au));
      return;
    }
    throw NotChecked{"the ring ticket of " + at + " runs over more than two loops"};
  }

  // ---- named barriers ----
  void named_claims(std::vector<Finding>& out) {
    struct Use {
      const Occ* o;
      int role;
    };
    std::vector<Use> uses;
    for (std::size_t r = 0; r < occs_.size(); ++r)
      for (const Occ& o : occs_[r])
        if (is_named(o.op->code)) uses.push_back({&o, static_cast<int>(r)});
    if (uses.empty()) return;
    const std::string count_claim = "every named-barrier thread count is a warp multiple in 32..1024 and every id is in 0..15";
    const std::string id_claim = "no two uses of one named-barrier id in a CTA give different thread counts";
    auto participants_claim = [&](const Occ& o) {
      return "the thread count of " + std::string(ir::op_keyword(o.op->code)) + " at line " + std::to_string(o.op->loc.line) +
             " equals the threads of the agents that use its id";
    };
    auto all_not_checked = [&](const std::string& reason) {
      out.push_back(not_checked("named_count", count_claim, uses[0].o->op->loc, reason));
      for (const Use& u : uses) out.push_back(not_checked("named_participants", participants_claim(*u.o), u.o->op->loc, reason));
      out.push_back(not_checked("named_id", id_claim, uses[0].o->op->loc, reason));
    };
    if (!decl_problem_.empty()) return all_not_checked(decl_problem_);
    try {
      // One agent's use: whether it happens, its id, its count.
      struct AgentUse {
        const Occ* o;
        int role, cta;
        z3::expr present, used, id, count;
        bool explicit_count;
      };
      std::vector<AgentUse> au;
      std::map<int, z3::expr> whole;  // the threads of each CTA
      for (int a = 0; a < k_.cluster_ctas; ++a) {
        z3::expr t = c_.int_val(0);
        for (std::size_t r = 0; r < k_.roles.size(); ++r) {
          const auto cs = ctas_of(static_cast<int>(r));
          if (std::find(cs.begin(), cs.end(), a) != cs.end()) t = t + role_count(static_cast<int>(r)) * threads(static_cast<int>(r));
        }
        whole.emplace(a, k_.cta_threads > 0 ? c_.int_val(k_.cta_threads) : t);
      }
      for (const Use& u : uses) {
        const Occ& o = *u.o;
        std::vector<z3::expr> rel = {o.guard, o.id, o.count};
        for (const Loop& l : o.loops) {
          rel.push_back(l.lo);
          rel.push_back(l.hi);
        }
        std::set<std::string> cs;
        std::set<unsigned> seen;
        for (const z3::expr& e : rel) consts(e, cs, seen);
        for (const std::string& n : cs)
          if (n[0] == '?' || n.rfind("L!", 0) == 0)
            throw NotChecked{"whether line " + std::to_string(o.op->loc.line) +
                             " runs, or its id or count, depends on a loop variable or a value the encoding does not follow (such as `warp`)"};
        for (const Copy& cp : copies(u.role, true)) {
          Subst s = {{role_cta_[static_cast<std::size_t>(u.role)], c_.int_val(cp.cta)},
                     {role_inst_[static_cast<std::size_t>(u.role)], cp.inst}};
          z3::expr used = cp.present && subst(o.guard, s);
          for (const Loop& l : o.loops) used = used && subst(l.lo, s) < subst(l.hi, s);
          const bool sync0 = o.op->code == OpCode::syncthreads;
          const bool expl = !sync0 && o.has_count;
          au.push_back(AgentUse{&o, u.role, cp.cta, cp.present, used, sync0 ? c_.int_val(0) : subst(o.id, s),
                                expl ? subst(o.count, s) : whole.at(cp.cta), expl});
        }
      }
      // Threads of the agents of CTA a that use id I.
      auto participants = [&](int a, const z3::expr& I) {
        z3::expr sum = c_.int_val(0);
        for (std::size_t r = 0; r < k_.roles.size(); ++r) {
          for (const Copy& cp : copies(static_cast<int>(r), true)) {
            if (cp.cta != a) continue;
            // The agent (role r, this instance) uses id I somewhere.
            z3::expr any = c_.bool_val(false);
            for (const Use& u : uses) {
              if (u.role != static_cast<int>(r)) continue;
              const Occ& o = *u.o;
              Subst s = {{role_cta_[r], c_.int_val(a)}, {role_inst_[r], cp.inst}};
              z3::expr used = subst(o.guard, s);
              for (const Loop& l : o.loops) used = used && subst(l.lo, s) < subst(l.hi, s);
              const z3::expr id = o.op->code == OpCode::syncthreads ? c_.int_val(0) : subst(o.id, s);
              any = any || (used && id == I);
            }
            sum = sum + z3::ite(cp.present && any, c_.int_val(threads(static_cast<int>(r))), c_.int_val(0));
          }
        }
        return sum;
      };
      // named_count
      {
        z3::expr bad = c_.bool_val(false);
        for (const AgentUse& x : au) {
          z3::expr wrong = x.id < 0 || x.id >= spec::named::num_ids;
          if (x.explicit_count)
            wrong = wrong || x.count < spec::named::warp_size || x.count > 1024 || z3::mod(x.count, spec::named::warp_size) != 0;
          bad = bad || (x.used && wrong);
        }
        Finding f;
        f.check = "named_count";
        f.claim = count_claim;
        f.loc = uses[0].o->op->loc;
        const Solved s = solve(bad);
        if (s.model)
          for (const AgentUse& x : au)
            if (value(*s.model, z3::ite(x.used, c_.int_val(1), c_.int_val(0))) == 1) {
              const std::int64_t id = value(*s.model, x.id), n = value(*s.model, x.count);
              if (id < 0 || id >= spec::named::num_ids || (x.explicit_count && (n < 32 || n > 1024 || n % 32 != 0))) {
                f.loc = x.o->op->loc;
                break;
              }
            }
        finish(f, s, out, [&, this](const z3::model& m) {
          for (const AgentUse& x : au)
            if (value(m, z3::ite(x.used, c_.int_val(1), c_.int_val(0))) == 1 && x.o->op->loc.line == f.loc.line)
              return "line " + std::to_string(x.o->op->loc.line) + ": id " + std::to_string(value(m, x.id)) + ", " +
                     std::to_string(value(m, x.count)) + " threads";
          return std::string();
        });
      }
      // named_participants, per operation. A barrier instance that no thread
      // waits for (only bar_arrive uses of the id run) blocks nobody: the
      // claim is about ids that some agent of the CTA waits on.
      auto waited = [&](int a, const z3::expr& I) {
        z3::expr any = c_.bool_val(false);
        for (const AgentUse& y : au)
          if (y.cta == a && y.o->op->code != OpCode::bar_arrive) any = any || (y.used && y.id == I);
        return any;
      };
      for (const Use& u : uses) {
        z3::expr bad = c_.bool_val(false);
        std::vector<std::pair<const AgentUse*, z3::expr>> parts;
        for (const AgentUse& x : au) {
          if (x.o != u.o) continue;
          const z3::expr p = participants(x.cta, x.id);
          parts.emplace_back(&x, p);
          bad = bad || (x.used && x.count != p && waited(x.cta, x.id));
        }
        Finding f;
        f.check = "named_participants";
        f.claim = participants_claim(*u.o);
        f.loc = u.o->op->loc;
        finish(f, solve(bad), out, [&, this](const z3::model& m) {
          for (const auto& [x, p] : parts)
            if (value(m, z3::ite(x->used && x->count != p && waited(x->cta, x->id), c_.int_val(1), c_.int_val(0))) == 1)
              return "CTA " + std::to_string(x->cta) + ", id " + std::to_string(value(m, x->id)) + ": count " +
                     std::to_string(value(m, x->count)) + ", " + std::to_string(value(m, p)) + " threads use it";
          return std::string();
        });
      }
      // named_id
      {
        z3::expr bad = c_.bool_val(false);
        std::vector<std::tuple<const AgentUse*, const AgentUse*, z3::expr>> pairs;
        for (std::size_t i = 0; i < au.size(); ++i)
          for (std::size_t j = i + 1; j < au.size(); ++j) {
            if (au[i].cta != au[j].cta) continue;
            const z3::expr clash = au[i].used && au[j].used && au[i].id == au[j].id && au[i].count != au[j].count;
            pairs.emplace_back(&au[i], &au[j], clash);
            bad = bad || clash;
          }
        Finding f;
        f.check = "named_id";
        f.claim = id_claim;
        f.loc = uses[0].o->op->loc;
        const Solved s = solve(bad);
        std::string det;
        if (s.model)
          for (const auto& [a, b, clash] : pairs)
            if (value(*s.model, z3::ite(clash, c_.int_val(1), c_.int_val(0))) == 1) {
              f.loc = b->o->op->loc;
              det = "id " + std::to_string(value(*s.model, a->id)) + " in CTA " + std::to_string(a->cta) + ": " +
                    std::to_string(value(*s.model, a->count)) + " threads at line " + std::to_string(a->o->op->loc.line) + ", " +
                    std::to_string(value(*s.model, b->count)) + " at line " + std::to_string(b->o->op->loc.line);
              break;
            }
        finish(f, s, out, [&](const z3::model&) { return det; });
      }
    } catch (const NotChecked& n) {
      all_not_checked(n.reason);
    }
  }

  // ---- shared memory ----
  void smem_claim(std::vector<Finding>& out) {
    if (k_.buffers.empty() && k_.mbarriers.empty()) return;
    const std::string claim = "the shared memory of a CTA (buffers, 8 bytes per mbarrier) fits in " +
                              std::to_string(smem_limit_sm90) + " bytes (227 KiB, sm_90a)";
    if (k_.target != ir::Target::nvidia) {
      out.push_back(not_checked("smem_footprint", claim, k_.loc, "the limit of an AMD target is not encoded"));
      return;
    }
    if (!decl_problem_.empty()) {
      out.push_back(not_checked("smem_footprint", claim, k_.loc, decl_problem_));
      return;
    }
    z3::expr total = c_.int_val(0);
    for (std::size_t b = 0; b < k_.buffers.size(); ++b) {
      const ir::BufferDecl& d = k_.buffers[b];
      if (d.space != ir::Space::shared) continue;  // tensor memory is not shared memory
      if (d.alias.of >= 0) continue;                // laid over memory counted with its allocation
      const z3::expr n = buf_size_[b] ? expr(*buf_size_[b], {}) : c_.int_val(d.size);
      const z3::expr bytes = d.bytes_expr != ir::no_expr ? expr(d.bytes_expr, {}) : c_.int_val(static_cast<int64_t>(d.bytes));
      total = total + n * bytes;
    }
    for (std::size_t m = 0; m < k_.mbarriers.size(); ++m) {
      if (k_.mbarriers[m].alias.of >= 0) continue;  // placed in memory counted with its allocation
      const z3::expr n = mbar_size_[m] ? expr(*mbar_size_[m], {}) : c_.int_val(k_.mbarriers[m].size);
      total = total + n * c_.int_val(static_cast<int64_t>(mbarrier_bytes));
    }
    Finding f;
    f.check = "smem_footprint";
    f.claim = claim;
    f.loc = k_.loc;
    finish(f, solve(total > c_.int_val(static_cast<int64_t>(smem_limit_sm90))), out,
           [&, this](const z3::model& m) { return std::to_string(value(m, total)) + " bytes per CTA"; });
  }

  z3::context c_;
  const ir::Kernel& k_;
  z3::expr domain_;
  std::vector<z3::expr> P_;
  std::vector<std::optional<ExprId>> param_def_, buf_size_, mbar_size_, mbar_count_, role_count_;
  std::string decl_problem_;
  std::map<unsigned, std::pair<z3::expr, z3::expr>> mods_;
  std::vector<z3::expr> role_cta_, role_inst_;
  std::vector<std::vector<Occ>> occs_;
  int unknowns_ = 0, loops_ = 0;
};

}  // namespace

std::vector<Finding> check_symbolic(const ir::Kernel& k) {
  Sym s(k);
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
