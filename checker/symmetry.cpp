#include "checker/symmetry.hpp"

#include <algorithm>
#include <numeric>

namespace pc::check {
namespace {

bool reads_var(const std::vector<ir::Expr>& ex, ir::ExprId e, int var) {
  if (e == ir::no_expr) return false;
  const ir::Expr& x = ex[static_cast<std::size_t>(e)];
  if (x.kind == ir::ExprKind::var) return x.var == var;
  return reads_var(ex, x.a, var) || reads_var(ex, x.b, var);
}

bool op_reads_var(const std::vector<ir::Expr>& ex, const ir::Op& op, int var) {
  for (ir::ExprId e : {op.bar.index, op.bar.cta, op.count, op.bytes, op.parity, op.id, op.n, op.multicast})
    if (reads_var(ex, e, var)) return true;
  for (const ir::Ref& r : op.bufs)
    if (reads_var(ex, r.index, var) || reads_var(ex, r.cta, var)) return true;
  return false;
}

bool code_reads_var(const Program& p, int role, int var) {
  for (const Instr& in : p.code[static_cast<std::size_t>(role)]) {
    if (reads_var(p.exprs, in.expr, var)) return true;
    if (in.op && op_reads_var(p.exprs, *in.op, var)) return true;
  }
  return false;
}

spec::hb::Threads permute_bits(spec::hb::Threads t, const std::vector<int>& to) {
  using spec::hb::lanes_per_agent;
  spec::hb::Threads out = 0;
  const spec::hb::Threads block = (spec::hb::Threads{1} << lanes_per_agent) - 1;
  for (std::size_t a = 0; a < to.size(); ++a) {
    const spec::hb::Threads bits = (t >> (a * lanes_per_agent)) & block;
    out |= bits << (static_cast<std::size_t>(to[a]) * lanes_per_agent);
  }
  return out;
}

std::uint8_t permute_thread(std::uint8_t t, const std::vector<int>& to) {
  using spec::hb::lanes_per_agent;
  return static_cast<std::uint8_t>(to[t / lanes_per_agent] * lanes_per_agent + t % lanes_per_agent);
}

}  // namespace

Symmetry::Symmetry(const Program& p) {
  for (std::size_t r = 0; r < p.code.size(); ++r) {
    if (code_reads_var(p, static_cast<int>(r), ir::var_instance)) continue;
    for (int cta = 0; cta < p.ctas; ++cta) {
      std::vector<int> g;
      for (std::size_t a = 0; a < p.agents.size(); ++a)
        if (p.agents[a].role == static_cast<int>(r) && p.agents[a].cta == cta) g.push_back(static_cast<int>(a));
      if (g.size() > 1) groups_.push_back(std::move(g));
    }
  }
  active_ = !groups_.empty();
}

State Symmetry::canonical(const State& s) const {
  // to[a]: the new index of agent a.
  std::vector<int> to(s.agents.size());
  std::iota(to.begin(), to.end(), 0);
  for (const std::vector<int>& g : groups_) {
    std::vector<int> order = g;
    std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
      const AgentState& a = s.agents[static_cast<std::size_t>(x)];
      const AgentState& b = s.agents[static_cast<std::size_t>(y)];
      // The instance variable is never read by this role: leave it out of the order.
      if (auto c = a.pc <=> b.pc; c != 0) return c < 0;
      if (auto c = a.stage <=> b.stage; c != 0) return c < 0;
      if (auto c = a.exited <=> b.exited; c != 0) return c < 0;
      if (auto c = a.ticket <=> b.ticket; c != 0) return c < 0;
      if (auto c = a.cluster_ticket <=> b.cluster_ticket; c != 0) return c < 0;
      if (auto c = a.bulk <=> b.bulk; c != 0) return c < 0;
      if (auto c = a.mma <=> b.mma; c != 0) return c < 0;
      if (auto c = std::lexicographical_compare_three_way(a.vars.begin() + ir::num_builtin_vars, a.vars.end(),
                                                          b.vars.begin() + ir::num_builtin_vars, b.vars.end());
          c != 0)
        return c < 0;
      return a.last_seen < b.last_seen;
    });
    for (std::size_t i = 0; i < g.size(); ++i) to[static_cast<std::size_t>(order[i])] = g[i];
  }
  State c = s;
  for (std::size_t a = 0; a < s.agents.size(); ++a) {
    c.agents[static_cast<std::size_t>(to[a])] = s.agents[a];
    c.agents[static_cast<std::size_t>(to[a])].vars[ir::var_instance] = s.agents[static_cast<std::size_t>(to[a])].vars[ir::var_instance];
  }
  for (Pending& pe : c.pending) pe.agent = static_cast<std::uint8_t>(to[pe.agent]);
  std::sort(c.pending.begin(), c.pending.end());
  for (spec::hb::Buffer& b : c.mem.buffers) {
    for (std::vector<spec::hb::Event>* v : {&b.writes, &b.reads}) {
      for (spec::hb::Event& e : *v) {
        e.thread = permute_thread(e.thread, to);
        e.after = permute_bits(e.after, to);
        e.after_async = permute_bits(e.after_async, to);
      }
      std::sort(v->begin(), v->end(), [](const spec::hb::Event& x, const spec::hb::Event& y) { return x.thread < y.thread; });
    }
  }
  return c;
}

}  // namespace pc::check
