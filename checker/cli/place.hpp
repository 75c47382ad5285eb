// check-kernel --place-barriers FILE: prints the kernel with the fewest
// barriers that order its shared-memory accesses (docs/placement.md).
#pragma once

#include <string>

#include "checker/place/place.hpp"

namespace pc::cli {

enum class PlaceOutput { kernel, diff, json };

// Returns the exit status: 0 placed and verified, 2 bad input or request,
// 3 the verification stopped at a limit, 4 the placement failed its
// verification (a defect of the placer).
[[nodiscard]] int place_barriers(const std::string& path, const place::Request& req, PlaceOutput out, bool quiet);

}  // namespace pc::cli
