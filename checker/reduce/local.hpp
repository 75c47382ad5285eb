// Reductions that keep verdicts. Each is a function of the stepper and a
// state; the search applies them when Options::reduction is set.
#pragma once

#include "checker/coverage.hpp"
#include "checker/state.hpp"
#include "checker/step.hpp"

namespace pc::check {

// Local steps. An agent's assignments and control flow read and write only
// its own variables: they are merged into the agent's next operation, always
// (as SPIN merges local statements), so a transition is "control flow, then
// one operation". With `private_ops` (the partial-order reduction, on unless
// --no-reduction) the agent's fences and async-group bookkeeping run at once
// too: they touch only what is the agent's own, are always enabled, never
// fail and commute with every other step (Stepper::next_is_local says which;
// Peled, "All from one, one for all", CAV 1993; Godefroid, LNCS 1032). The
// kernels' state graphs are acyclic (every loop is a counted `for`), so no
// cycle proviso is needed. `on_step` sees each operation run this way, for traces.
// `only` >= 0 limits it to that agent: after a step of agent `only`, the
// others are already at an operation that is not local. `coverage`, if
// given, is told each instruction run.
template <class OnStep>
void run_local_steps(const Stepper& st, State& s, bool private_ops, OnStep&& on_step, int only = -1,
                     Coverage* coverage = nullptr) {
  constexpr int limit = 1 << 22;  // a loop with no operation in it must not spin for ever
  const int first = only >= 0 ? only : 0;
  const int end = only >= 0 ? only + 1 : static_cast<int>(s.agents.size());
  for (int a = first; a < end; ++a) {
    for (int n = 0;; ++n) {
      const Instr* in = st.next_local(s, a, private_ops);
      if (in == nullptr) break;
      if (n == limit) throw KernelError("a loop runs more than 4 million steps without an operation", st.loc_of(s, a));
      if (coverage) coverage->mark(a, s.agents[static_cast<std::size_t>(a)].pc);
      // Control flow is not described (a trace shows operations): it runs
      // without a StepInfo.
      if (is_control(in->kind)) {
        st.control_step(s, a, *in);
        continue;
      }
      on_step(a, st.agent_step(s, a));
    }
  }
}

inline void run_local_steps(const Stepper& st, State& s, bool private_ops, int only = -1, Coverage* coverage = nullptr) {
  run_local_steps(st, s, private_ops, [](int, const StepInfo&) {}, only, coverage);
}

}  // namespace pc::check
