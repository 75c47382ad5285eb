#include "checker/trips.hpp"

#include <algorithm>

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

}  // namespace

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
  plan.shifted.assign(n, {});
  plan.loop.assign(n, {0, 0});
  for (std::size_t a = 0; a < n; ++a) {
    const auto role = static_cast<std::size_t>(p.agents[a].role);
    const int counter = shift->counter[role];
    if (counter < 0) continue;
    const int base = p.var_base[a];
    plan.counter[a] = base + counter;
    for (const auto& [v, c] : shift->shifted[role]) plan.shifted[a].emplace_back(base + v, c);
    // The trip loop's branch: the branch_false on `counter < N` (program.cpp).
    const std::vector<Instr>& code = p.code[role];
    for (std::size_t pc = 0; pc < code.size(); ++pc) {
      const Instr& in = code[pc];
      if (in.kind != InstrKind::branch_false) continue;
      const ir::Expr& cond = p.exprs[static_cast<std::size_t>(in.expr)];
      if (cond.kind != ir::ExprKind::binary || cond.bin != ir::BinOp::lt) continue;
      const ir::Expr& lhs = p.exprs[static_cast<std::size_t>(cond.a)];
      const ir::Expr& rhs = p.exprs[static_cast<std::size_t>(cond.b)];
      if (lhs.kind == ir::ExprKind::var && lhs.var == counter && rhs.kind == ir::ExprKind::var && rhs.var == trip_var)
        plan.loop[a] = {static_cast<int>(pc), in.target};
    }
  }
  return plan;
}

void trip_start(const TripPlan& plan, const Program& p, State& s) {
  if (!plan.active) return;
  for (std::size_t a = 0; a < p.agents.size(); ++a) s.vars[static_cast<std::size_t>(p.var_base[a] + trip_var)] = trip_undecided;
}

bool trip_decide(const TripPlan& plan, const Program& p, State& s) {
  std::int64_t m = -1;
  for (std::size_t a = 0; a < plan.counter.size(); ++a) {
    if (s.vars[static_cast<std::size_t>(p.var_base[a] + trip_var)] != trip_undecided) return false;
    if (plan.counter[a] < 0) continue;
    const int pc = s.agents[a].pc;
    // Inside its loop's body: it has entered trip `counter` (local steps run
    // the branch at once, so no agent rests on it).
    if (pc > plan.loop[a].first && pc < plan.loop[a].second) m = std::max(m, s.vars[static_cast<std::size_t>(plan.counter[a])]);
  }
  if (m + 1 < plan.shift.least) return false;
  for (std::size_t a = 0; a < plan.counter.size(); ++a) s.vars[static_cast<std::size_t>(p.var_base[a] + trip_var)] = m + 1;
  return true;
}

}  // namespace pc::check
