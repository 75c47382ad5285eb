// check-kernel --place-barriers: from a kernel whose shared-memory accesses
// carry no barriers to the same kernel with the fewest barriers that order
// them, verified by the explicit search (docs/placement.md).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "checker/diagnostic.hpp"
#include "checker/result.hpp"

namespace pc::place {

// automatic: split where the target has it (gfx12); with several roles on
// NVIDIA, producer/consumer pairs where one verifies. monolithic: s_barrier,
// bar_sync (a named barrier per group of roles). pair: producer/consumer
// pairs, an error where no group takes one.
enum class Family : std::uint8_t { automatic, monolithic, split, pair };

struct Request {
  std::string target;  // "" (the kernel's own), nvidia, sm_90a, sm_100a, amd, gfx90a, gfx940, gfx942, gfx1100, gfx1101, gfx1102, gfx1200, gfx1201
  Family family = Family::automatic;
  check::Options check;               // for the verification (params included)
};

struct Barrier {
  int line = 0;          // the line of the placed kernel it is on (its wait, for split)
  int signal_line = 0;   // split: its signal's line
  std::string hazards;   // what it orders, in words
};

struct Outcome {
  std::vector<Diagnostic> errors;   // bad input (exit 2), located
  std::string usage_error;          // bad request (exit 2), not located
  std::string target;               // as placed: "gfx942", "sm_90a"...
  std::string family;               // "s_barrier", "split", "bar_sync"; several roles: also "mbarrier", "bar_sync+mbarrier"
  std::size_t hazards = 0;          // distinct windows
  std::size_t greedy = 0;           // barriers the seed's greedy places
  bool greedy_applies = true;       // the greedy sweep takes kernels of one role
  std::vector<std::string> groups;  // several roles: each named barrier's id, count and roles ("1, 256: producer consumer")
  std::vector<std::string> choices; // several roles: per group, a named barrier or a producer/consumer pair, and why
  std::vector<Barrier> barriers;    // the placement (the minimum)
  bool minimal = false;             // proved by Z3
  std::string minimal_detail;
  std::vector<int> input_barriers;  // lines of the barriers the input had (taken out)
  std::vector<std::string> points;  // other parameter values whose hazards were taken too ("ITERS=1")
  std::vector<std::string> skipped; // parameter values left out, with why
  std::vector<std::string> unverified;  // of `points`, those whose search stopped at a limit
  std::string text, diff;           // the placed kernel
  check::Result verification;       // the explicit search on it (at the given values; states: at every point)
  bool defect = false;              // the placement did not verify: a defect of the placer (exit 4)
  // Seconds spent: the hazards (every parameter point), the greedy sweep, the
  // Z3 minimum and its proof, the explicit search.
  double t_hazards = 0, t_greedy = 0, t_minimum = 0, t_verify = 0;
};

[[nodiscard]] Outcome place(const std::string& source, const std::string& file, const Request& req);

}  // namespace pc::place
