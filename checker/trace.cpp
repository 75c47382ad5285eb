#include "checker/trace.hpp"

#include <optional>
#include <algorithm>
#include <string>
#include <utility>

#include "checker/cause.hpp"
#include "checker/reduce/local.hpp"
#include "checker/snapshot.hpp"

namespace pc::check {
namespace {

// The earlier access of the race `race` reports, found among the trace's accesses.
EarlierAccess earlier_access(const Program& prog, const std::vector<std::pair<std::size_t, AccessNote>>& accesses,
                             const StepInfo& race) {
  EarlierAccess e;
  spec::hb::Threads by = 0;
  for (auto it = accesses.rbegin(); it != accesses.rend(); ++it) {
    const AccessNote& n = it->second;
    if (n.buf != race.race_buf || !(n.threads & spec::hb::bit(race.race_other)) || n.write != race.race_other_write) continue;
    e.step = it->first;
    by = n.threads;
    break;
  }
  e.write = race.race_other_write;
  e.proxy = race.race_other_proxy == spec::hb::Proxy::async ? "async" : "generic";
  for (std::size_t a = 0; a < prog.agents.size(); ++a)
    if (prog.agents[a].hb.owns(race.race_other)) e.agent = static_cast<int>(a);
  // An access by every lane of the agent (`all:`) is the agent's, not the
  // one lane class the race met first.
  e.thread = prog.access_name(race.race_other,
                              e.agent >= 0 && by != 0 && by == prog.agents[static_cast<std::size_t>(e.agent)].all_lanes);
  return e;
}

}  // namespace

void describe(const Model& m, const Options& opt, const std::vector<Action>& path, bool deadlock, Result& r,
              long long snap_at) {
  const Stepper st(m.program(), true, opt.strict, &m.trips());
  const int agents = m.agents();
  const State* current = nullptr;
  auto snap = [&](const State& x) {
    if (snap_at >= 0 && !r.snapshot.taken && r.trace.size() == static_cast<std::size_t>(snap_at))
      r.snapshot = snapshot(st, x, r.trace.size());
  };
  // --trace-html: the state after each step so far (Result::step_states).
  auto keep = [&](const State& x) {
    if (!opt.record_states) return;
    while (r.step_states.size() < r.trace.size() + 1) r.step_states.push_back(snapshot(st, x, r.step_states.size()));
  };
  // Every access of the trace, with its step, so that a race names the step
  // of its earlier access.
  std::vector<std::pair<std::size_t, AccessNote>> accesses;
  auto note = [&](const StepInfo& info) {
    for (const AccessNote& n : info.accesses) accesses.emplace_back(r.trace.size(), n);
  };
  // Operations the reduction runs without interleaving still belong in the trace.
  std::optional<Causes> causes;
  auto record = [&](int agent, const StepInfo& info) {
    TraceStep t;
    t.agent = agent;
    t.text = info.text;
    t.loc = info.loc;
    r.trace.push_back(t);
    note(info);
    if (causes && current) causes->observe(r.trace.size(), agent, info.loc, *current);
    if (current) snap(*current);
  };
  // The state after a step includes the control flow that follows it; when
  // operations the reduction runs at once follow too, those are steps of
  // their own, so the state is taken before them.
  auto normalize_described = [&](State& x) {
    const bool due = snap_at >= 0 && !r.snapshot.taken && r.trace.size() == static_cast<std::size_t>(snap_at);
    State control = due ? x : State{};
    if (due) run_local_steps(st, control, false);
    current = &x;
    run_local_steps(st, x, opt.merges_private(), record);
    current = nullptr;
    if (due && !r.snapshot.taken) r.snapshot = snapshot(st, control, static_cast<std::size_t>(snap_at));
  };
  State s = m.initial(st);  // the model's, as st shapes it: with --prove, the trip count undecided
  if (opt.record_states) r.step_states.push_back(snapshot(st, s, 0));
  causes.emplace(m.program(), s);
  normalize_described(s);
  keep(s);
  State before;
  for (std::size_t i = 0; i < path.size(); ++i) {
    StepInfo info;
    const Action a = path[i];
    const int agent = std::max(m.mover(s, a), -1);  // an agent's step or second way; else none
    before = s;
    m.apply(st, s, a, info);
    TraceStep t;
    t.agent = agent;
    t.text = info.text.empty() && info.violation != spec::Violation::none
                 ? "-> " + std::string(spec::violation_name(info.violation))
                 : info.text;
    t.loc = info.loc;
    t.phase_completed = !info.completed.empty();
    t.object = info.completed;
    t.acquired = info.acquired;
    r.trace.push_back(t);
    // The state in which a violating step fails: the step did not complete.
    if (info.violation != spec::Violation::none) snap(before);
    if (info.violation != spec::Violation::none) keep(before);
    if (info.violation != spec::Violation::none) {
      r.violation = info.violation;
      r.message = info.message;
      r.loc = info.loc;
      r.agent = agent;
      if (info.race_buf >= 0) {
        r.earlier = earlier_access(m.program(), accesses, info);
        if (r.earlier.step > 0) r.earlier.loc = r.trace[r.earlier.step - 1].loc;
      }
      causes->exit_pending(before, agent, r);
      return;
    }
    note(info);
    causes->observe(r.trace.size(), agent, info.loc, s);
    normalize_described(s);
    keep(s);
  }
  if (deadlock) {
    r.violation = spec::Violation::deadlock;
    std::string msg = "deadlock: ";
    bool first = true;
    for (int a = 0; a < agents; ++a) {
      if (s.agents[static_cast<std::size_t>(a)].exited) continue;
      TraceStep t;
      t.agent = a;
      t.blocked = true;
      t.loc = st.loc_of(s, a);
      t.text = "blocked: " + st.describe_blocked(s, a);
      r.trace.push_back(t);
      msg += (first ? "" : "; ") + st.describe_blocked(s, a);
      if (first) {
        r.loc = t.loc;
        r.agent = a;
      }
      first = false;
    }
    r.message = msg;
    causes->deadlock(st, s, r);
    keep(s);
  }
}

}  // namespace pc::check
