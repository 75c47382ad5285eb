#include "checker/reduce/symmetry.hpp"

#include <algorithm>
#include <numeric>
#include <tuple>

namespace pc::check {
namespace {

bool reads_var(const std::vector<ir::Expr>& ex, ir::ExprId e, int var) {
  if (e == ir::no_expr) return false;
  const ir::Expr& x = ex[static_cast<std::size_t>(e)];
  if (x.kind == ir::ExprKind::var) return x.var == var;
  return reads_var(ex, x.a, var) || reads_var(ex, x.b, var);
}

bool op_reads_var(const std::vector<ir::Expr>& ex, const ir::Op& op, int var) {
  for (ir::ExprId e : {op.bar.index, op.bar.cta, op.count, op.bytes, op.parity, op.id, op.n, op.multicast, op.value, op.mask, op.quarter})
    if (reads_var(ex, e, var)) return true;
  for (const ir::Ref& r : op.bufs)
    if (reads_var(ex, r.index, var) || reads_var(ex, r.cta, var)) return true;
  for (const ir::Ref* r : {&op.tmem, &op.global, &op.tmap})
    if (reads_var(ex, r->index, var) || reads_var(ex, r->cta, var)) return true;
  return false;
}

bool code_reads_var(const Program& p, int role, int var) {
  for (const Instr& in : p.code[static_cast<std::size_t>(role)]) {
    if (reads_var(p.exprs, in.expr, var)) return true;
    if (in.op && op_reads_var(p.exprs, *in.op, var)) return true;
  }
  return false;
}

// Agents of one role have the same threads (AgentThreads of the same size):
// a permutation of agents moves each agent's block of thread bits.
spec::hb::Threads permute_bits(const Program& p, spec::hb::Threads t, const std::vector<int>& to) {
  // A thread of no agent (the host's: Program::host_thread) stays.
  spec::hb::Threads out = p.host_thread >= 0 ? t & spec::hb::bit(static_cast<std::uint8_t>(p.host_thread)) : 0;
  for (std::size_t a = 0; a < to.size(); ++a) {
    const spec::hb::AgentThreads& from = p.agents[a].hb;
    const spec::hb::Threads block = (spec::hb::Threads{1} << from.count()) - 1;
    const spec::hb::Threads bits = (t >> from.base) & block;
    out |= bits << p.agents[static_cast<std::size_t>(to[a])].hb.base;
  }
  return out;
}

// The sync objects of agents' release fences and async-arrival slots move
// with their agents.
int permute_sync(const Program& p, int sync, const std::vector<int>& to) {
  for (std::size_t a = 0; a < to.size(); ++a) {
    const auto b = static_cast<std::size_t>(to[a]);
    const Program::Fences &fa = p.fences[a], &fb = p.fences[b];
    if (sync == fa.release_cluster) return fb.release_cluster;
    if (sync == fa.release_cta) return fb.release_cta;
    if (sync == fa.seen_cta) return fb.seen_cta;
    if (sync == fa.seen_cluster) return fb.seen_cluster;
    const int first = p.arrive_slot_first[a];
    if (sync >= first && sync < first + p.arrive_slot_count[a]) return p.arrive_slot_first[b] + (sync - first);
  }
  return sync;
}

spec::hb::Syncs permute_syncs(const Program& p, spec::hb::Syncs s, const std::vector<int>& to) {
  spec::hb::Syncs out = 0;
  for (int i = 0; s != 0; ++i, s >>= 1)
    if (s & 1) out |= spec::hb::Syncs{1} << permute_sync(p, i, to);
  return out;
}

std::uint8_t permute_thread(const Program& p, std::uint8_t t, const std::vector<int>& to) {
  for (std::size_t a = 0; a < to.size(); ++a)
    if (p.agents[a].hb.owns(t))
      return static_cast<std::uint8_t>(p.agents[static_cast<std::size_t>(to[a])].hb.base + (t - p.agents[a].hb.base));
  return t;
}

}  // namespace

Symmetry::Symmetry(const Program& p) : p_(p) {
  for (std::size_t r = 0; r < p.code.size(); ++r) {
    if (code_reads_var(p, static_cast<int>(r), ir::var_instance)) continue;
    // A role split per warp (ir::Role::per_warp) is left alone: its instances
    // are blocks of agents whose `all:` parts are named by their warp 0
    // (AgentInfo::parts), which a permutation of single agents would tear apart.
    if (p.kernel->roles[r].per_warp) continue;
    for (int cta = 0; cta < p.ctas; ++cta) {
      std::vector<int> g;
      for (std::size_t a = 0; a < p.agents.size(); ++a)
        if (p.agents[a].role == static_cast<int>(r) && p.agents[a].cta == cta) g.push_back(static_cast<int>(a));
      if (g.size() > 1) groups_.push_back(Group{std::move(g), static_cast<int>(p.kernel->roles[r].vars.size())});
    }
  }
  active_ = !groups_.empty();
}

State Symmetry::canonical(const State& s) const {
  const std::size_t nm = s.agents.empty() ? 0 : s.last_seen.size() / s.agents.size();
  auto vars_of = [&](int a) { return s.vars.begin() + p_.var_base[static_cast<std::size_t>(a)]; };
  auto seen_of = [&](int a) { return s.last_seen.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(a) * nm); };
  // to[a]: the new index of agent a.
  std::vector<int> to(s.agents.size());
  std::iota(to.begin(), to.end(), 0);
  bool moved = false;
  for (const Group& g : groups_) {
    std::vector<int> order = g.agents;
    auto less = [&](int x, int y) {
      const AgentState& a = s.agents[static_cast<std::size_t>(x)];
      const AgentState& b = s.agents[static_cast<std::size_t>(y)];
      if (auto c = a <=> b; c != 0) return c < 0;
      // The instance variable is never read by this role, nor `warp` (0):
      // leave the builtins out of the order.
      if (auto c = std::lexicographical_compare_three_way(vars_of(x) + ir::num_builtin_vars, vars_of(x) + g.nvars,
                                                          vars_of(y) + ir::num_builtin_vars, vars_of(y) + g.nvars);
          c != 0)
        return c < 0;
      return std::lexicographical_compare(seen_of(x), seen_of(x) + static_cast<std::ptrdiff_t>(nm), seen_of(y),
                                          seen_of(y) + static_cast<std::ptrdiff_t>(nm));
    };
    // A stable insertion sort: the agents of a state's group are mostly in
    // order already, and std::stable_sort takes a buffer from the heap.
    for (std::size_t i = 1; i < order.size(); ++i) {
      const int x = order[i];
      std::size_t j = i;
      for (; j > 0 && less(x, order[j - 1]); --j) order[j] = order[j - 1];
      order[j] = x;
    }
    for (std::size_t i = 0; i < g.agents.size(); ++i) {
      to[static_cast<std::size_t>(order[i])] = g.agents[i];
      moved |= order[i] != g.agents[i];
    }
  }
  if (!moved) return s;
  State c = s;
  for (std::size_t a = 0; a < s.agents.size(); ++a) {
    const int b = to[a];
    if (b == static_cast<int>(a)) continue;
    c.agents[static_cast<std::size_t>(b)] = s.agents[a];
    // Variables move with the agent, except `instance`, which belongs to the
    // position (`warp` is 0 in every agent of the group).
    const std::size_t n = p_.kernel->roles[static_cast<std::size_t>(p_.agents[a].role)].vars.size();
    for (std::size_t v = 0; v < n; ++v)
      if (v != static_cast<std::size_t>(ir::var_instance))
        c.vars[static_cast<std::size_t>(p_.var_base[static_cast<std::size_t>(b)]) + v] =
            s.vars[static_cast<std::size_t>(p_.var_base[a]) + v];
    std::copy(seen_of(static_cast<int>(a)), seen_of(static_cast<int>(a)) + static_cast<std::ptrdiff_t>(nm),
              c.last_seen.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(b) * nm));
  }
  for (Pending& pe : c.pending) {
    pe.agent = static_cast<std::uint8_t>(to[pe.agent]);
    if (pe.kind == PendingKind::tcgen05_arrive || pe.kind == PendingKind::cp_async_arrive || pe.kind == PendingKind::st_async)
      pe.slot = static_cast<std::uint8_t>(permute_sync(p_, pe.slot, to));
  }
  std::sort(c.pending.begin(), c.pending.end());
  for (spec::hb::Event& e : c.mem.events) {
    e.thread = permute_thread(p_, e.thread, to);
    e.after = permute_bits(p_, e.after, to);
    e.after_async = permute_bits(p_, e.after_async, to);
    e.after_weak = permute_bits(p_, e.after_weak, to);
    for (spec::hb::Syncs* m : {&e.released, &e.released_async, &e.visible, &e.visible_async, &e.released_weak, &e.visible_weak}) *m = permute_syncs(p_, *m, to);
    if (e.spread != 0) e.spread = static_cast<std::uint8_t>(to[static_cast<std::size_t>(e.spread - 1)] + 1);
  }
  std::sort(c.mem.events.begin(), c.mem.events.end(), [](const spec::hb::Event& x, const spec::hb::Event& y) {
    return std::tie(x.buf, x.write, x.atomic, x.thread) < std::tie(y.buf, y.write, y.atomic, y.thread);
  });
  return c;
}

}  // namespace pc::check
