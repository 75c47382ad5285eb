#include "checker/reduce/trips.hpp"

#include <algorithm>
#include <array>
#include <climits>

namespace pc::check {

namespace {

// The async units whose accesses carry an agent's groups of a kind (bulk,
// mma, cp.async): a bulk group's are its bulk copies' and the tensor-map
// reads of its TMA loads (spec::sync_order::bulk_wait retires both).
using GroupUnits = std::array<std::uint8_t, 2>;
GroupUnits group_units(const spec::hb::AgentThreads& th, int kind) {
  using spec::hb::Unit;
  if (kind == 0) return {th.unit(Unit::bulk), th.unit(Unit::tma)};
  const std::uint8_t u = th.unit(kind == 1 ? Unit::mma : Unit::cp_async);
  return {u, u};
}

}  // namespace

void trip_key(const TripPlan& plan, const Program& p, State& s) {
  // Trip counters: shifted once every agent that runs a trip loop is in it
  // or past it, by d * scale with d a multiple of P that keeps each counter
  // at or above T and N at or above its least value (a counter k of scale c
  // bounds N by floor(k / c) + 1, or is c * N past the loop: k >= c * least
  // keeps it).
  const std::int64_t P = plan.shift.period;
  const bool nested = plan.shift.nested;
  // Nested loops: the agents of the lowest pass an agent is in move; those
  // ahead of them, in a later pass with its own N, do not.
  int low = -1;
  if (nested)
    for (std::size_t a = 0; a < plan.counter.size(); ++a)
      if (const int q = trip_pass(plan, p, s, a); q >= 0 && (low < 0 || q < low)) low = q;
  auto member = [&](std::size_t a) { return plan.counter[a] >= 0 && (!nested || (low >= 0 && trip_pass(plan, p, s, a) == low)); };
  std::int64_t d = LLONG_MAX;
  bool inside = true;  // every agent that runs a trip loop is inside its body
  bool runners = false, live_counters = false;
  int first = -1;      // a member: its N is the shifted pass's
  for (std::size_t a = 0; a < plan.counter.size(); ++a) {
    if (!member(a)) continue;
    runners = true;
    if (first < 0) first = static_cast<int>(a);
    if (s.agents[a].pc < plan.loop[a].first && !s.agents[a].exited) {
      d = -1;
      break;
    }
    inside = inside && !s.agents[a].exited && s.agents[a].pc > plan.loop[a].first && s.agents[a].pc < plan.loop[a].second;
    // A counter read by nothing any more (past the loop) bounds nothing: the
    // key sets it to 0 below.
    if (!trip_live(plan, p, s, a, plan.counter[a] - p.var_base[a])) continue;
    live_counters = true;
    const std::int64_t c = plan.scale[a];
    const std::int64_t floor_k = std::max(plan.shift.threshold, c * plan.shift.least);
    const std::int64_t k = s.vars[static_cast<std::size_t>(plan.counter[a])];
    d = std::min(d, k < floor_k ? 0 : (k - floor_k) / (c * P) * P);
  }
  // N, decided, stays at or above its least value (a counter reassigned
  // past the loop, `k = K_TILES + c`, does not keep it, and a counter read by
  // nothing bounds nothing). Where every agent that runs a trip loop is past
  // it, its counter read by nothing, the live shifted variables bound the
  // shift too, each at or above 0.
  const std::size_t na = static_cast<std::size_t>(nested ? std::max(first, 0) : 0);
  const std::int64_t n = s.vars[static_cast<std::size_t>(p.var_base[na] + trip_var)];
  if (d >= 0 && runners && !trip_is_undecided(n)) {
    d = std::min(d, n < plan.shift.least ? 0 : (n - plan.shift.least) / P * P);
    if (!live_counters)
      for (std::size_t a = 0; a < plan.shifted.size(); ++a)
        for (const auto& [v, c] : plan.shifted[a])
          if (c > 0 && member(a) && trip_live(plan, p, s, a, v - p.var_base[a])) {
            const std::int64_t x = s.vars[static_cast<std::size_t>(v)];
            d = std::min(d, x < 0 ? 0 : x / (c * P) * P);
          }
  }
  if (d == LLONG_MAX) d = -1;
  for (std::size_t a = 0; a < plan.shifted.size(); ++a) {
    const bool moves = d > 0 && (!nested || member(a));
    for (const auto& [v, c] : plan.shifted[a]) {
      std::int64_t& x = s.vars[static_cast<std::size_t>(v)];
      // A variable not read before it is assigned again (a producer tail's
      // `t = N + j` while the agent is still in its loop): its value is read
      // by nothing; 0.
      if (!trip_live(plan, p, s, a, v - p.var_base[a])) {
        x = 0;
        continue;
      }
      if (!moves) continue;
      x -= c * d;
      // The proof covers shifted variables that are not negative
      // (checker/smt/trips.cpp); the key state's are no larger than the state's.
      if (x < 0) throw NotProved("a variable that moves with the trip counter is negative in a shifted state");
    }
    // N, or its lower bound L while undecided.
    if (moves) s.vars[static_cast<std::size_t>(p.var_base[a] + trip_var)] -= d;
    if (nested && a == 0 && d > 0 && low >= 0 && low < plan.shift.passes && trip_pass_n(p, s, low) >= 0) trip_pass_n(p, s, low) -= d;
    // A modular variable's value is the real run's less a multiple of P at
    // or above 0, which the proof takes as at or above 0.
    if (nested)
      for (const int v : plan.modular[a])
        if (s.vars[static_cast<std::size_t>(v)] < 0 && trip_live(plan, p, s, a, v - p.var_base[a]))
          throw NotProved("a variable computed from the trip count's class is negative");
  }
  // While N is undecided and every agent that runs a trip loop is inside it,
  // a lower bound L at or below the least of their bounds (floor(k / c) + 1)
  // is read by nothing (trip_gate_open and the oracle take the larger): it
  // becomes that least bound.
  const std::int64_t n0 = s.vars[static_cast<std::size_t>(p.var_base[na] + trip_var)];
  if (d >= 0 && inside && runners && trip_is_undecided(n0)) {
    std::int64_t least = LLONG_MAX;
    for (std::size_t a = 0; a < plan.counter.size(); ++a)
      if (std::int64_t b = 0; member(a) && trip_entered(plan, s, a, b)) least = std::min(least, b);
    if (least != LLONG_MAX && n0 - trip_undecided < least) {
      for (std::size_t a = 0; a < s.agents.size(); ++a)
        if (!nested || member(a)) s.vars[static_cast<std::size_t>(p.var_base[a] + trip_var)] = trip_undecided + least;
      if (nested) trip_pass_n(p, s, low) = trip_undecided + least;
    }
  }
  // Nested: the passes before the lowest an agent is in are read by
  // nothing, nor is the N of an agent in no pass (past its loops) that
  // nothing reads there.
  if (nested) {
    for (int q = 0; q < plan.shift.passes && (low < 0 || q < low); ++q) trip_pass_n(p, s, q) = -1;
    for (std::size_t a = 0; a < s.agents.size(); ++a)
      if (trip_pass(plan, p, s, a) < 0 && !trip_live(plan, p, s, a, trip_var)) s.vars[static_cast<std::size_t>(p.var_base[a] + trip_var)] = 0;
  }
  // mbarrier phases by parity: spec/mbarrier.cpp reads a phase only as
  // `phase & 1` (test_wait_parity, and tokens by parity); last_seen is written
  // only when a trace is described.
  for (spec::mbarrier::State& m : s.mbars) m.phase &= 1u;
  // Async groups per agent and kind. An access's group is read only by
  // comparisons with a group a later step names (spec/hb.cpp: release_unit,
  // retire, tc_fence_unit): a wait's (at least `retired`, which it raises:
  // spec::async_group::wait) or a tcgen05.commit's (committed + 1 on). With
  // L the least such group, the accesses of groups up to L compare alike:
  // their group becomes L (a tensor-memory accumulator's last write of an
  // earlier tile, which no later access of that kind replaces). Then the
  // numbers are relative to the least non-zero one among the counts and the
  // groups of its accesses and commits in flight (0 stays 0: none).
  for (std::size_t a = 0; a < s.agents.size(); ++a) {
    const spec::hb::AgentThreads& th = p.agents[a].hb;
    AgentState& ag = s.agents[a];
    Groups* gs[3] = {&ag.bulk, &ag.mma, &ag.cp};
    for (int kind = 0; kind < 3; ++kind) {
      Groups& g = *gs[kind];
      if (g.committed == 0 && g.issued == 0 && g.retired == 0) continue;  // not in use
      const GroupUnits units = group_units(th, kind);
      auto ours = [&](const spec::hb::Event& e) { return e.group > 0 && (e.thread == units[0] || e.thread == units[1]); };
      auto commit_of = [&](const Pending& pe) { return kind == 1 && pe.kind == PendingKind::tcgen05_arrive && pe.agent == a && pe.group > 0; };
      const bool waits = plan.group_waits[static_cast<std::size_t>(p.agents[a].role)][static_cast<std::size_t>(kind)] != 0;
      const std::int64_t L = waits ? g.retired : std::int64_t{g.committed} + 1;
      if (L > 0)
        for (spec::hb::Event& e : s.mem.events)
          if (ours(e) && e.group < L) e.group = static_cast<std::uint16_t>(L);
      std::int64_t m = LLONG_MAX;
      for (const std::int64_t v : {std::int64_t{g.committed}, std::int64_t{g.retired}, std::int64_t{g.issued}})
        if (v > 0) m = std::min(m, v);
      for (const spec::hb::Event& e : s.mem.events)
        if (ours(e)) m = std::min<std::int64_t>(m, e.group);
      for (const Pending& pe : s.pending)
        if (commit_of(pe)) m = std::min<std::int64_t>(m, pe.group);
      if (m == LLONG_MAX || m <= 1) continue;
      const auto d = static_cast<std::uint16_t>(m - 1);
      for (std::uint16_t* v : {&g.committed, &g.retired, &g.issued})
        if (*v > 0) *v = static_cast<std::uint16_t>(*v - d);
      for (spec::hb::Event& e : s.mem.events)
        if (ours(e)) e.group = static_cast<std::uint16_t>(e.group - d);
      for (Pending& pe : s.pending)
        if (commit_of(pe)) pe.group = static_cast<std::uint16_t>(pe.group - d);
    }
  }
  std::sort(s.pending.begin(), s.pending.end());
  // Named barriers: an agent's ticket matters only while it waits (stage 1),
  // and then only as the instance in progress or a completed one
  // (spec/named_barrier.hpp, wait: generation > joined).
  for (std::size_t a = 0; a < s.agents.size(); ++a) {
    AgentState& ag = s.agents[a];
    const std::vector<Instr>& code = p.code[static_cast<std::size_t>(p.agents[a].role)];
    const Instr* in = ag.pc < code.size() ? &code[ag.pc] : nullptr;
    const bool named = in && in->kind == InstrKind::op && ir::op_has(in->op->code, ir::opf::named_wait);
    if (ag.stage != 1) ag.ticket = 0;
    if (ag.stage != 1 || !named) continue;
    const int id = in->op->code == ir::OpCode::syncthreads ? 0 : static_cast<int>(eval(p, in->op->id, s.vars.data() + p.var_base[a]));
    const int slot = p.named_slot[static_cast<std::size_t>(id)];
    const std::uint32_t gen = s.named[static_cast<std::size_t>(p.agents[a].cta * p.named_used + slot)].generation;
    if (gen > 0) ag.ticket = ag.ticket >= gen ? 1u : 0u;
  }
  for (spec::named::State& nb : s.named)
    if (nb.generation > 0) nb.generation = 1;
}

}  // namespace pc::check
