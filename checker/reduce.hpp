// Reductions that keep verdicts. Each is a function of the stepper and a
// state; the search applies them when Options::reduction is set.
#pragma once

#include "checker/state.hpp"
#include "checker/step.hpp"

namespace pc::check {

// Local-step reduction (a special case of partial-order reduction: Peled,
// "All from one, one for all", CAV 1993; Godefroid, LNCS 1032): an agent's
// assignments and control flow read and write only its own variables, are
// always enabled and commute with every other step, so they are executed at
// once instead of being interleaved.
inline void run_local_steps(const Stepper& st, State& s) {
  constexpr int limit = 1 << 22;  // a loop with no operation in it must not spin for ever
  for (int a = 0; a < static_cast<int>(s.agents.size()); ++a) {
    for (int n = 0; st.next_is_local(s, a); ++n) {
      if (n == limit) throw KernelError("a loop runs more than 4 million steps without an operation", st.loc_of(s, a));
      StepInfo ignored = st.agent_step(s, a);
      (void)ignored;
    }
  }
}

}  // namespace pc::check
