// The explicit-state explorer: every interleaving of the agents of a kernel and
// of its pending async events, using spec/ transitions only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "checker/ir.hpp"
#include "checker/result.hpp"

namespace pc::check {

// Checks one kernel. Throws KernelError for an IR the explorer cannot
// instantiate or a kernel error found while running it (bad input, exit 2),
// and InternalError for a defect of the checker (exit 4).
[[nodiscard]] Result check(const ir::Kernel& k, const Options& opt);

// The parameter values a replay token carries (Options::params of the run
// that made it): none, or NAME=VALUE pairs. std::nullopt: not a token.
[[nodiscard]] std::optional<std::vector<std::pair<std::string, std::int64_t>>> token_params(const std::string& token);

}  // namespace pc::check
