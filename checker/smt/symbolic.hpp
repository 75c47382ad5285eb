// Z3 claims over the kernel's parameters (`param N = 4 in 1..64`, or a set)
// and over every loop trip count, encoded from the IR itself (docs/checker.md,
// "Symbolic claims"):
//
//  - arrival_count: per mbarrier element, per CTA, per phase, the arrivals
//    equal the barrier's count;
//  - tx_balance: per mbarrier element, per CTA, per phase, the bytes expected
//    (arrive_expect_tx, expect_tx, arrive_drop with bytes) equal the bytes
//    delivered (TMA loads, per destination CTA of a multicast, complete_tx);
//  - count_range, tx_range: counts in 1..2^20-1, tx-counts within +-(2^20-1)
//    (spec/mbarrier.hpp);
//  - named_count, named_participants, named_id: named-barrier thread counts
//    are warp multiples in 32..1024 with ids in 0..15, equal the threads of the
//    agents that use the id, and two uses of one id in a CTA give one count;
//  - smem_footprint: buffers plus 8 bytes per mbarrier fit the target's
//    shared memory per CTA.
//
// Each claim is proved by asserting its negation and finding it unsat; a
// model of the negation is a counterexample, with the parameter values under
// which the explicit search (`check-kernel --param NAME=VALUE`) shows the
// failure. What the encoding cannot express is a finding of its own,
// `not_checked`, with the reason: nothing is skipped silently.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "checker/ir.hpp"
#include "spec/rules.hpp"

namespace pc::smt {

enum class Status : std::uint8_t { proven, counterexample, unknown, not_checked };

struct Finding {
  Status status = Status::proven;
  std::string check;   // arrival_count, tx_balance, count_range, tx_range, named_count, named_participants,
                       // named_id, smem_footprint
  std::string claim;   // the claim in words
  std::string reason;  // not_checked and unknown: why the claim was not decided
  std::string detail;  // counterexample: what fails at the witness (element, CTA, phase, the two sides)
  ir::Loc loc;
  // A counterexample's parameter values: every parameter with a declared range
  // or set, as the Z3 model gives it (chosen as close to the declared values
  // as the solver finds, so that the explicit search stays small).
  std::vector<std::pair<std::string, std::int64_t>> witness;
};

// All symbolic claims of the kernel, each proven, refuted, unknown (the
// solver gave up) or not checked.
[[nodiscard]] std::vector<Finding> check_symbolic(const ir::Kernel& k);

// The command that reproduces a counterexample in the explicit search:
// "check-kernel --param NAME=VALUE ... FILE" (no --param for a finding
// without witness).
[[nodiscard]] std::string reproduce_command(const Finding& f, const std::string& file);

// Shared memory per CTA the smem_footprint claim allows on an NVIDIA target:
// 227 KiB, the opt-in maximum of compute capability 9.0 (sm_90a; CUDA C++
// Programming Guide, "Technical Specifications per Compute Capability":
// maximum amount of shared memory per thread block 227 KB).
using spec::rules::smem_limit_sm90;
// What one mbarrier object takes (PTX ISA, mbarrier: "an opaque object in
// shared memory with .b64 type", 8 bytes, 8-byte aligned).
using spec::rules::mbarrier_bytes;

[[nodiscard]] constexpr const char* status_name(Status s) {
  switch (s) {
    case Status::proven: return "proven";
    case Status::counterexample: return "counterexample";
    case Status::unknown: return "unknown";
    case Status::not_checked: return "not_checked";
  }
  return "?";
}

}  // namespace pc::smt
