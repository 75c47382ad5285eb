// What one rule application tells its caller.
#pragma once

#include <cstdint>

#include "spec/violation.hpp"

namespace pc::spec {

struct Outcome {
  bool enabled = true;            // false: the operation cannot take effect now (the agent blocks)
  Violation violation = Violation::none;
  std::int64_t observed = 0;      // what the operation returned: a parity test, a token, a count
  bool phase_completed = false;   // the operation completed a phase of its barrier

  [[nodiscard]] static constexpr Outcome blocked() { return Outcome{false, Violation::none, 0, false}; }
  [[nodiscard]] static constexpr Outcome fail(Violation v) { return Outcome{true, v, 0, false}; }
  [[nodiscard]] constexpr bool ok() const { return enabled && violation == Violation::none; }
};

}  // namespace pc::spec
