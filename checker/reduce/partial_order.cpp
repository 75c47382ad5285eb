#include "checker/reduce/partial_order.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "checker/reduce/local.hpp"

namespace pc::check {

std::uint64_t PartialOrder::keep(const State& s, std::uint64_t depth, Coverage* coverage) const {
  std::uint64_t seeds = 0;
  // The agents and pending events (an agent's second way goes with it: the
  // search keeps both where it keeps the agent).
  const int total = m_.agents() + static_cast<int>(s.pending.size());
  for (int a = 0; a < total && a < 64; ++a)
    if (m_.may_move(s, a)) seeds |= std::uint64_t{1} << a;
  const std::uint64_t keep = m_.dependencies().persistent(s, seeds);
  if (keep != 0 && check_) check_commute(s, keep, depth, coverage);
  return keep;
}

void PartialOrder::check_commute(const State& s, std::uint64_t keep, std::uint64_t depth, Coverage* coverage) const {
  const int total = m_.agents() + static_cast<int>(s.pending.size());
  // The kept processes of s: agents by index, pending events by value, and
  // the kept agents' second ways (Model::mover).
  std::vector<int> kept_agents;
  std::vector<Pending> kept_events;
  for (int a = 0; a < total && a < 64; ++a) {
    if (!(keep >> a & 1)) continue;
    if (a < m_.agents()) kept_agents.push_back(a);
    else kept_events.push_back(s.pending[static_cast<std::size_t>(a - m_.agents())]);
  }
  const bool choices = m_.program().has_choice;
  // A pending event is named by its value, which a landing of its agent's
  // may renumber (after_landing): the kept events as named at each state.
  using Events = std::vector<Pending>;
  // The event that action x of u lands, if it is one.
  auto landing = [&](const State& u, int x) -> const Pending* {
    if (x < m_.agents() || m_.mover(u, x) >= 0 || x - m_.agents() >= static_cast<int>(u.pending.size())) return nullptr;
    return &u.pending[static_cast<std::size_t>(x - m_.agents())];
  };
  // The events as named after action x of u.
  auto after = [&](Events evs, const State& u, int x) {
    if (const Pending* l = landing(u, x))
      for (Pending& e : evs) e = after_landing(e, *l);
    return evs;
  };
  auto is_kept = [&](const State& u, const Events& events, int x) {
    if (x >= m_.agents() && m_.mover(u, x) >= 0) x = m_.mover(u, x);  // a second way: its agent's
    if (x < m_.agents()) return std::find(kept_agents.begin(), kept_agents.end(), x) != kept_agents.end();
    return std::find(events.begin(), events.end(), u.pending[static_cast<std::size_t>(x - m_.agents())]) != events.end();
  };
  // One step of action x, taken from t; false when not enabled.
  auto take = [&](State& t, int x, StepInfo& info) {
    if (x < 0 || !m_.may_move(t, x)) return false;
    const int b = m_.mover(t, x);
    if (!m_.apply(t, static_cast<Action>(x), info)) return false;
    if (b >= 0 && info.violation == spec::Violation::none) run_local_steps(m_.stepper(), t, true, b, coverage);
    return true;
  };
  // The kept processes as actions of state u (-1: gone).
  auto kept_actions = [&](const State& u, const Events& events) {
    std::vector<int> xs = kept_agents;
    for (const Pending& pe : events) {
      const auto it = std::find(u.pending.begin(), u.pending.end(), pe);
      xs.push_back(it == u.pending.end() ? -1 : m_.agents() + static_cast<int>(it - u.pending.begin()));
    }
    if (choices)
      for (const int a : kept_agents) xs.push_back(m_.alternatives(u) + a);
    return xs;
  };
  auto fail = [&](const State& u, int p, int q, const std::string& why) {
    throw InternalError("partial-order reduction check failed in " + m_.program().kernel->name + " at depth " +
                        std::to_string(depth) + ": the step of " + m_.process_name(u, p) +
                        " (kept) and the step of " + m_.process_name(u, q) + " (left out) " + why);
  };
  // Which kept processes have an enabled step at s: they must stay enabled
  // along every path of left-out steps (Godefroid, LNCS 1032, persistent sets).
  std::vector<bool> enabled_at_s;
  for (int x : kept_actions(s, kept_events)) {
    State t = s;
    StepInfo i;
    enabled_at_s.push_back(take(t, x, i));
  }
  // Paths of left-out steps from s, breadth-first, a few steps deep: at each
  // state on them, every left-out step commutes with every kept step.
  constexpr int max_path = 2, max_states = 16;
  std::vector<std::pair<State, Events>> frontier{{s, kept_events}}, next;
  int seen = 0;
  for (int len = 0; len <= max_path && !frontier.empty(); ++len) {
    next.clear();
    for (const auto& node : frontier) {
      const State& u = node.first;  // (named, not a structured binding: the lambdas below capture it)
      const Events& events = node.second;
      const std::vector<int> kx = kept_actions(u, events);
      for (std::size_t k = 0; k < kx.size(); ++k) {
        if (!enabled_at_s[k]) continue;
        State t = u;
        StepInfo i;
        if (!take(t, kx[k], i))
          throw InternalError("partial-order reduction check failed in " + m_.program().kernel->name + " at depth " +
                              std::to_string(depth) + ": a path of " + std::to_string(len) +
                              " left-out steps disables a kept step" +
                              (kx[k] >= 0 ? " (" + m_.process_name(u, kx[k]) + ")" : std::string()));
      }
      const int n = m_.processes(u);
      for (int q = 0; q < n; ++q) {
        if (is_kept(u, events, q)) continue;
        State uq = u;
        StepInfo iq;
        if (!take(uq, q, iq)) continue;
        for (std::size_t k = 0; k < kx.size(); ++k) {
          if (!enabled_at_s[k]) continue;
          const int p = kx[k];
          State up = u;
          StepInfo ip;
          (void)take(up, p, ip);
          if (ip.violation != spec::Violation::none || iq.violation != spec::Violation::none) continue;
          State upq = up, uqp = uq;
          StepInfo ipq, iqp;
          const int q_after_p = q < m_.agents() ? q : m_.mover(u, q) >= 0 ? m_.alternatives(up) + m_.mover(u, q) : [&] {
            const Events named = after({u.pending[static_cast<std::size_t>(q - m_.agents())]}, u, p);
            const auto it = std::find(up.pending.begin(), up.pending.end(), named[0]);
            return it == up.pending.end() ? -1 : m_.agents() + static_cast<int>(it - up.pending.begin());
          }();
          const int p_after_q = kept_actions(uq, after(events, u, q))[k];
          if (!take(upq, q_after_p, ipq)) fail(u, p, q, "do not commute: the kept step disables the left-out one");
          if (!take(uqp, p_after_q, iqp)) fail(u, p, q, "do not commute: the left-out step disables the kept one");
          if (ipq.violation != iqp.violation)
            fail(u, p, q, "do not commute: " + std::string(spec::violation_name(ipq.violation)) + " in one order, " +
                              std::string(spec::violation_name(iqp.violation)) + " in the other");
          if (ipq.violation != spec::Violation::none) continue;
          if (!(upq == uqp)) fail(u, p, q, "do not commute: the two orders reach different states");
        }
        if (iq.violation == spec::Violation::none && ++seen <= max_states) next.emplace_back(std::move(uq), after(events, u, q));
      }
    }
    frontier.swap(next);
  }
}

}  // namespace pc::check
