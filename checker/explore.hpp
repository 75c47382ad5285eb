// The explicit-state explorer: every interleaving of the agents of a kernel and
// of its pending async events, using spec/ transitions only.
#pragma once

#include "checker/ir.hpp"
#include "checker/result.hpp"

namespace pc::check {

// Checks one kernel. Throws std::invalid_argument for an IR the explorer cannot
// instantiate (the front end reports that as bad input, exit 2).
[[nodiscard]] Result check(const ir::Kernel& k, const Options& opt);

}  // namespace pc::check
