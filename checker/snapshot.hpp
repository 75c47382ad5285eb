// A global state in words, for stepping through a schedule
// (check-kernel --replay TOKEN --steps N): where each agent is, the state of
// each barrier, and the async operations in flight.
#pragma once

#include "checker/program.hpp"
#include "checker/result.hpp"
#include "checker/state.hpp"
#include "checker/step.hpp"

namespace pc::check {

[[nodiscard]] Snapshot snapshot(const Stepper& st, const State& s, std::size_t step);

}  // namespace pc::check
