// The language module of the search, in the shape of LTSmin's PINS
// interface (Kant et al., "LTSmin: High-Performance Language-Independent
// Model Checking", TACAS 2015): a kernel's initial state, the transition of
// each process from a state, and what each transition may touch. The
// processes of a state are its agents (0..n-1), then its pending async
// events. The transitions are step.cpp's (spec/ rules only); what they touch
// is footprint.cpp's. The reductions wrap this interface (checker/reduce/,
// composed in successors.hpp); the search back ends (checker/search/) see the
// wrapped one; state storage (state.cpp, visited.hpp, frontier.cpp) is apart.
// docs/checker.md, "Layers", draws them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "checker/footprint.hpp"
#include "checker/ir.hpp"
#include "checker/program.hpp"
#include "checker/trips.hpp"
#include "checker/state.hpp"
#include "checker/step.hpp"

namespace pc::check {

// A transition's process: an agent index, or the number of agents plus an
// index into the state's pending events. Replay tokens spell schedules in it.
using Action = std::uint16_t;

class Model {
 public:
  // Instantiates the kernel (program.cpp); `strict` makes warning kinds violations.
  // `trips` (--prove): k is trip_kernel's, and N is decided by the trip oracle.
  Model(const ir::Kernel& k, bool strict, const std::shared_ptr<const TripShift>& trips = nullptr)
      : prog_(instantiate(k)), plan_(make_trip_plan(prog_, trips)), step_(prog_, false, strict, &plan_), deps_(prog_) {}
  [[nodiscard]] const TripPlan& trips() const { return plan_; }
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  [[nodiscard]] const Program& program() const { return prog_; }
  [[nodiscard]] const Stepper& stepper() const { return step_; }
  // Which steps may interfere (the partial-order reduction's dependencies).
  [[nodiscard]] const Footprints& dependencies() const { return deps_; }

  [[nodiscard]] int agents() const { return static_cast<int>(prog_.agents.size()); }
  // With --prove, the trip oracle's two processes follow the pending
  // events: decide, raise. In a kernel with an `either`, each agent's
  // alternative comes last: agent a's second way at a choose instruction
  // (its own process takes the first).
  [[nodiscard]] int processes(const State& s) const {
    return alternatives(s) + (prog_.has_choice ? agents() : 0);
  }
  // The first alternative's process (agent 0's second way).
  [[nodiscard]] int alternatives(const State& s) const {
    return agents() + static_cast<int>(s.pending.size()) + (plan_.active ? 2 : 0);
  }
  // The agent whose part process a's step writes: a itself, or the agent of
  // an alternative; -1 for a pending event, -2 for the trip oracle (every
  // agent's trip count).
  [[nodiscard]] int mover(const State& s, int a) const {
    if (a < agents()) return a;
    const int alt = alternatives(s);
    if (a >= alt) return a - alt;
    return a - agents() < static_cast<int>(s.pending.size()) ? -1 : -2;
  }
  [[nodiscard]] State initial() const { return initial(step_); }
  // The initial state in the shape of `st`'s states (a describing stepper
  // keeps the phases seen: Stepper::initial).
  [[nodiscard]] State initial(const Stepper& st) const {
    State s = st.initial();
    trip_start(plan_, prog_, s);
    return s;
  }

  // Process `a` takes one step from s, in place; false if it is not enabled
  // (s is then to be discarded). `st` is this model's stepper or one that
  // describes (traces).
  bool apply(const Stepper& st, State& s, Action a, StepInfo& info) const {
    if (a < agents()) {
      if (s.agents[a].exited) return false;
      st.agent_step(s, a, info);
    } else if (prog_.has_choice && a >= alternatives(s)) {
      st.second_way(s, a - alternatives(s), info);
    } else {
      const int i = a - agents();
      if (plan_.active && i >= static_cast<int>(s.pending.size())) {
        const bool decide = i == static_cast<int>(s.pending.size());
        info = StepInfo{};
        const int q = &st != &step_ ? trip_oracle_pass(plan_, prog_, s, decide) : -1;
        info.enabled = decide ? trip_decide(plan_, prog_, s) : trip_raise(plan_, prog_, s);
        if (info.enabled && &st != &step_) {  // describing a trace
          const std::string& name = prog_.kernel->params[static_cast<std::size_t>(plan_.shift.param)].name;
          const std::int64_t n = trip_least_of(plan_, prog_, s, q);
          info.text = decide ? name + " decided: " + std::to_string(n) : name + " is at least " + std::to_string(n);
          if (plan_.shift.nested) info.text += " (pass " + std::to_string(q) + " of the outer loop)";
        }
        return info.enabled;
      }
      if (i >= static_cast<int>(s.pending.size())) return false;
      info = st.pending_step(s, i);
    }
    return info.enabled;
  }
  bool apply(State& s, Action a, StepInfo& info) const { return apply(step_, s, a, info); }
  // False only when process `a` certainly has no enabled step (it waits on a
  // phase or instance that has not completed): the search skips it without copying s.
  [[nodiscard]] bool may_move(const State& s, int a) const {
    if (a < agents()) return !step_.surely_blocked(s, a);
    if (prog_.has_choice && a >= alternatives(s)) return step_.at_choice(s, a - alternatives(s));
    return true;
  }
  // Some agent has not exited: a state without an enabled step is then a deadlock.
  [[nodiscard]] bool live(const State& s) const {
    for (const AgentState& a : s.agents)
      if (!a.exited) return true;
    return false;
  }
  // "agent at line N" or "the async event of agent from line N" (messages).
  [[nodiscard]] std::string process_name(const State& s, int a) const {
    if (a < agents()) {
      const ir::Loc l = step_.loc_of(s, a);
      return prog_.agents[static_cast<std::size_t>(a)].name + " at line " + std::to_string(l.line);
    }
    if (prog_.has_choice && a >= alternatives(s)) {
      const int b = a - alternatives(s);
      return prog_.agents[static_cast<std::size_t>(b)].name + " at line " + std::to_string(step_.loc_of(s, b).line) +
             " (its second way)";
    }
    if (a - agents() >= static_cast<int>(s.pending.size()))
      return "the trip oracle (" + prog_.kernel->params[static_cast<std::size_t>(plan_.shift.param)].name +
             (a - agents() == static_cast<int>(s.pending.size()) ? " decided)" : " raised)");
    const Pending& pe = s.pending[static_cast<std::size_t>(a - agents())];
    const ir::Loc l = prog_.code[static_cast<std::size_t>(prog_.agents[pe.agent].role)][pe.pc].loc;
    return "the async event of " + prog_.agents[pe.agent].name + " from line " + std::to_string(l.line);
  }

 private:
  Program prog_;
  TripPlan plan_;  // before step_, which reads it
  Stepper step_;
  Footprints deps_;
};

}  // namespace pc::check
