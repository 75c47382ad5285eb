// Reductions that keep verdicts. Each is a function of the stepper and a
// state; the search applies them when Options::reduction is set.
#pragma once

#include "checker/state.hpp"
#include "checker/step.hpp"

namespace pc::check {

// Local-step reduction (a special case of partial-order reduction: Peled,
// "All from one, one for all", CAV 1993; Godefroid, LNCS 1032): an agent's
// assignments, control flow, fences and async-group bookkeeping touch only
// what is its own, are always enabled, never fail and commute with every other
// step (Stepper::next_is_local says which), so they are executed at once
// instead of being interleaved. The kernels' state graphs are acyclic (every
// loop is a counted `for`), so no cycle proviso is needed. `on_step` sees each
// operation executed this way (not assignments or jumps), for traces.
template <class OnStep>
void run_local_steps(const Stepper& st, State& s, OnStep&& on_step) {
  constexpr int limit = 1 << 22;  // a loop with no operation in it must not spin for ever
  for (int a = 0; a < static_cast<int>(s.agents.size()); ++a) {
    for (int n = 0; st.next_is_local(s, a); ++n) {
      if (n == limit) throw KernelError("a loop runs more than 4 million steps without an operation", st.loc_of(s, a));
      const bool control = st.next_is_control(s, a);
      StepInfo info = st.agent_step(s, a);
      if (!control) on_step(a, info);
    }
  }
}

inline void run_local_steps(const Stepper& st, State& s) {
  run_local_steps(st, s, [](int, const StepInfo&) {});
}

}  // namespace pc::check
