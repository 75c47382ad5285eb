// Z3 queries for what the explicit search cannot cover: the kernel's
// parameters over their whole declared range or set (`param N = 4 in 1..64`).
//
//  - tx balance: in each straight-line block, the bytes an mbarrier is told
//    to expect (arrive_expect_tx / expect_tx) equal the bytes of the TMA loads
//    that complete on it in the same block;
//  - named-barrier counts: every use of one barrier id gives the same thread
//    count, and that count is a multiple of the warp size.
//
// Each claim is proved by asserting its negation and finding it unsat; a
// model of the negation is a counterexample: parameter values under which
// the explicit search (`--param NAME=VALUE`) shows the failure.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "checker/ir.hpp"

namespace pc::smt {

enum class Status : std::uint8_t { proven, counterexample, unknown };

struct Finding {
  Status status = Status::proven;
  std::string check;    // "tx_balance" or "named_count"
  std::string claim;    // the claim in words
  ir::Loc loc;
  std::vector<std::pair<std::string, std::int64_t>> witness;  // parameter values of a counterexample
};

// All symbolic claims of the kernel, each proven, refuted or unknown.
[[nodiscard]] std::vector<Finding> check_symbolic(const ir::Kernel& k);

[[nodiscard]] constexpr const char* status_name(Status s) {
  switch (s) {
    case Status::proven: return "proven";
    case Status::counterexample: return "counterexample";
    case Status::unknown: return "unknown";
  }
  return "?";
}

}  // namespace pc::smt
