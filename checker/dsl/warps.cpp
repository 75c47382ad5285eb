#include "checker/dsl/warps.hpp"

#include <set>
#include <utility>
#include <vector>

namespace pc::dsl {
namespace {

using ir::OpCode;

bool reads_any(const std::vector<ir::Expr>& ex, ir::ExprId e, const std::set<int>& vars) {
  if (e == ir::no_expr) return false;
  const ir::Expr& x = ex[static_cast<std::size_t>(e)];
  if (x.kind == ir::ExprKind::var) return vars.count(x.var) > 0;
  return reads_any(ex, x.a, vars) || reads_any(ex, x.b, vars);
}

bool op_reads_any(const std::vector<ir::Expr>& ex, const ir::Op& op, const std::set<int>& vars) {
  for (ir::ExprId e : {op.bar.index, op.bar.cta, op.count, op.bytes, op.parity, op.id, op.n, op.multicast, op.tmem.index,
                       op.tmem.cta})
    if (reads_any(ex, e, vars)) return true;
  for (const ir::Ref& r : op.bufs)
    if (reads_any(ex, r.index, vars) || reads_any(ex, r.cta, vars)) return true;
  return op.token_var >= 0 && vars.count(op.token_var) > 0;
}

// The variables whose value may differ between the warps of an instance:
// `warp`, what is computed from it, and what is assigned under a condition
// on it (a fixpoint: a loop may carry a value back to an earlier statement).
class Taint {
 public:
  explicit Taint(const ir::Kernel& k) : k_(k) { vars.insert(ir::var_warp); }
  std::set<int> vars;
  void run(const std::vector<ir::Stmt>& body) {
    std::size_t before = 0;
    do {
      before = vars.size();
      walk(body, false);
    } while (vars.size() != before);
  }
  [[nodiscard]] bool reads(ir::ExprId e) const { return reads_any(k_.exprs, e, vars); }

 private:
  const ir::Kernel& k_;
  void walk(const std::vector<ir::Stmt>& body, bool region) {
    for (const ir::Stmt& s : body) switch (s.kind) {
        case ir::StmtKind::op:
          if (s.op.dest_var >= 0 && (region || op_reads_any(k_.exprs, s.op, vars))) vars.insert(s.op.dest_var);
          break;
        case ir::StmtKind::assign:
          if (region || reads(s.expr)) vars.insert(s.var);
          break;
        case ir::StmtKind::for_loop: {
          const bool r = region || reads(s.lo) || reads(s.hi);
          if (r) vars.insert(s.var);
          walk(s.body, r);
          break;
        }
        case ir::StmtKind::if_else: {
          const bool r = region || reads(s.expr);
          walk(s.body, r);
          walk(s.else_body, r);
          break;
        }
        case ir::StmtKind::either:
          walk(s.body, region);
          walk(s.else_body, region);
          break;
        case ir::StmtKind::assert_true: break;
      }
  }
};

bool reads_warp(const ir::Kernel& k, const std::vector<ir::Stmt>& body) {
  const std::set<int> warp{ir::var_warp};
  for (const ir::Stmt& s : body) {
    for (ir::ExprId e : {s.expr, s.lo, s.hi})
      if (reads_any(k.exprs, e, warp)) return true;
    if (s.kind == ir::StmtKind::op && op_reads_any(k.exprs, s.op, warp)) return true;
    if (reads_warp(k, s.body) || reads_warp(k, s.else_body)) return true;
  }
  return false;
}

bool is_wgmma(OpCode c) {
  return ir::op_family(c) == ir::OpFamily::wgmma;
}

// Executed by one thread of the agent (checker/step.cpp, lanes_of).
bool one_lane(const ir::Op& op) {
  switch (ir::op_lanes(op.code)) {
    case ir::LanePolicy::leader: return true;
    case ir::LanePolicy::aligned: return false;
    case ir::LanePolicy::any:
    case ir::LanePolicy::single:
    case ir::LanePolicy::agent: break;
  }
  return op.lanes == ir::Lanes::one;
}

class Place {
 public:
  Place(ir::Kernel& k, ir::Role& r, const Taint& t, const std::function<ir::ExprId()>& warp_is_0, const WarpError& error)
      : k_(k), r_(r), t_(t), warp_is_0_(warp_is_0), error_(error) {}

  void walk(std::vector<ir::Stmt>& body, bool region) {
    for (ir::Stmt& s : body) switch (s.kind) {
        case ir::StmtKind::op: op(s, region); break;
        case ir::StmtKind::assign:
        case ir::StmtKind::assert_true: break;
        case ir::StmtKind::for_loop: walk(s.body, region || t_.reads(s.lo) || t_.reads(s.hi)); break;
        case ir::StmtKind::if_else: {
          const bool r = region || t_.reads(s.expr);
          walk(s.body, r);
          walk(s.else_body, r);
          break;
        }
        case ir::StmtKind::either:
          walk(s.body, region);
          walk(s.else_body, region);
          break;
      }
  }

 private:
  ir::Kernel& k_;
  ir::Role& r_;
  const Taint& t_;
  const std::function<ir::ExprId()>& warp_is_0_;
  const WarpError& error_;

  void op(ir::Stmt& s, bool region) {
    const ir::Op& o = s.op;
    const std::string kw(ir::op_keyword(o.code));
    const int warps = ir::role_warps(r_);
    // wgmma.*: ".aligned: all threads in the warpgroup must execute the same
    // wgmma.mma_async instruction. In conditionally executed code, [it] should
    // only be used if it is known that all threads in the warpgroup evaluate
    // the condition identically" (PTX ISA, wgmma.mma_async). `.sync` waits for
    // the warp only, so each warp of a split role issues its own.
    if (is_wgmma(o.code) && warps % 4 != 0)
      return error_(s.loc, "'" + kw + "' is a warp-group instruction (all four warps of a warp group execute it), and role '" +
                               r_.name + "' has " + std::to_string(warps) + (warps == 1 ? " warp" : " warps"));
    if (is_wgmma(o.code) && region)
      return error_(s.loc, "'" + kw + "' is executed by all four warps of a warp group together (.aligned): it cannot be under a condition on 'warp'");
    // tcgen05.alloc / dealloc / relinquish_alloc_permit with .cta_group::1:
    // "one warp from the CTA must perform the allocation and de-allocation"
    // (PTX ISA tcgen05.alloc).
    const bool one_warp = ir::op_footprint(o.code) == ir::Footprint::tmem_alloc || ir::op_footprint(o.code) == ir::Footprint::tmem_relinquish;
    // `warp K:` in a role split per warp: each agent is one warp already.
    if (o.warp >= 0 && r_.per_warp)
      return error_(s.loc, "'warp " + std::to_string(o.warp) + ":' in role '" + r_.name +
                               "', which reads 'warp' and so runs each warp as its own agent: write it under 'if warp == " +
                               std::to_string(o.warp) + ":'");
    if (one_warp && warps != 1 && !(r_.per_warp && region) && o.warp < 0)
      return error_(s.loc, "'" + kw + "' is performed by one warp, and role '" + r_.name + "' has " + std::to_string(warps) +
                               " warps: write 'warp K: " + kw + "', give the allocating warp a role of its own, or write it under 'if warp == K:'");
    // A leader's operation under `if lane == 0:` is issued by lane 0 of
    // every warp that reaches it: one issue needs one warp.
    if (o.lane0 && ir::op_lanes(o.code) == ir::LanePolicy::leader && warps > 1 && !(r_.per_warp && region))
      return error_(s.loc, "'" + kw + "' under 'if lane == 0:' is issued by lane 0 of each of the " + std::to_string(warps) +
                               " warps of role '" + r_.name + "': write it under 'if warp == K:' too, or without 'if lane == 0:' (one lane of the role)");
    if (!r_.per_warp || region || warps == 1 || !one_lane(o)) return;
    // The instance's one thread is lane 0 of warp 0.
    if (o.dest_var >= 0)
      return error_(s.loc, "in role '" + r_.name + "', which reads 'warp', a one-lane '" + kw +
                               "' runs in warp 0 only, so its result would differ between warps: write it under 'if warp == K:'");
    ir::Stmt wrapped;
    wrapped.kind = ir::StmtKind::if_else;
    wrapped.loc = s.loc;
    wrapped.expr = warp_is_0_();
    wrapped.body.push_back(std::move(s));
    s = std::move(wrapped);
  }
};

}  // namespace

void place_warps(ir::Kernel& k, ir::Role& role, const std::function<ir::ExprId()>& warp_is_0, const WarpError& error) {
  role.per_warp = reads_warp(k, role.body);
  Taint t(k);
  if (role.per_warp) t.run(role.body);
  Place(k, role, t, warp_is_0, error).walk(role.body, false);
}

}  // namespace pc::dsl
