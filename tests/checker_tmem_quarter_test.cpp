// The lane quarter of tensor memory a warp's tcgen05.ld / tcgen05.st may
// address (issue 62: "each warp of a warp group reaches only its own 32-lane
// quarter"; docs/spec.md, spec::tmem::lane_quarter) and where a role's warps
// are (`at warp W`). Before issue 62 `.bk` could not say either: `lanes` and
// `at warp` were parse errors, and every access was its warp's own quarter.
#include <doctest/doctest.h>

#include <string>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/smt/bmc.hpp"
#include "tests/agreed_check.hpp"
#include "tests/kernel_text.hpp"

using namespace pc;
using testing::agreed_check;
using testing::agreed_outcome;
using testing::first_error;
using testing::with;

namespace {

// CUTLASS's sm100 epilogue shape: four one-warp instances that each load
// their quarter of the accumulator. AT: the epilogue's placement; Q: the
// quarter instance i addresses.
const std::string epilogue =
    "kernel q\ncta threads = 256\ntmem acc cols 128\nmbarrier done count 4\n"
    "role alloc warp at warp 0:\n  tcgen05_alloc acc\n  bar_sync 1, 160\n  wait done parity 0\n  tcgen05_dealloc acc\n"
    "role epi warp x 4 at warp AT:\n  bar_sync 1, 160\n  tcgen05_fence_after_thread_sync\n  tcgen05_ld acc lanes Q\n"
    "  tcgen05_wait_ld\n  one: arrive done\n";

}  // namespace

// PTX ISA, tcgen05, "Access restrictions": "The Tensor Memory of a CTA is
// divided into 4 equal chunks such that each warp of a warpgroup in the CTA
// can access a chunk of the Tensor Memory. A lane of the Tensor Memory can be
// accessed by a single warp in the warpgroup."
TEST_CASE("tensor-memory quarters: a warp's tcgen05.ld reaches the lanes of its rank % 4 only") {
  CHECK(agreed_outcome(with(with(epilogue, "AT", "4"), "Q", "instance")) == "verified");
  CHECK(agreed_outcome(with(with(epilogue, "AT", "8"), "Q", "instance")) == "verified");
  // Placed one warp off: warp 5 addresses lanes 0-31, its quarter is 32-63.
  const check::Result off = agreed_check(with(with(epilogue, "AT", "5"), "Q", "instance"));
  CHECK(check::outcome_name(off) == "tmem_lane_quarter");
  CHECK(off.message.find("whose warp rank % 4 is") != std::string::npos);
  // The rank, not the instance: at warp 5 the quarter is (instance + 1) % 4.
  CHECK(agreed_outcome(with(with(epilogue, "AT", "5"), "Q", "(instance + 1) % 4")) == "verified");
  // Every warp the same quarter.
  CHECK(agreed_outcome(with(with(epilogue, "AT", "4"), "Q", "0")) == "tmem_lane_quarter");
  // A tcgen05.st the same.
  CHECK(agreed_outcome(with(with(with(epilogue, "AT", "4"), "Q", "3"), "tcgen05_ld acc lanes 3\n  tcgen05_wait_ld",
                            "tcgen05_st acc lanes 3\n  tcgen05_wait_st")) == "tmem_lane_quarter");
}

TEST_CASE("tensor-memory quarters: a warp group's warps are aligned; without 'lanes' each warp takes its own") {
  const std::string k =
      "kernel wg\ntmem acc cols 128\nmbarrier done count 1\n"
      "role alloc warp:\n  tcgen05_alloc acc\n  bar_sync 1, 160\n  wait done parity 0\n  tcgen05_dealloc acc\n"
      "role epi warpgroup:\n  bar_sync 1, 160\n  tcgen05_fence_after_thread_sync\nLOAD  tcgen05_wait_ld\n  syncwarp\n"
      "  bar_sync 2, 128\n  one: arrive done\n";
  CHECK(agreed_outcome(with(k, "LOAD", "  tcgen05_ld acc\n")) == "verified");
  // A split warp group: warp 2 addresses quarter 2, or (wrongly) quarter 1.
  CHECK(agreed_outcome(with(k, "LOAD", "  if warp == 2:\n    tcgen05_ld acc lanes 2\n")) == "verified");
  CHECK(agreed_outcome(with(k, "LOAD", "  if warp == 2:\n    tcgen05_ld acc lanes 1\n")) == "tmem_lane_quarter");
  // The four warps together cannot all address one quarter.
  CHECK(agreed_outcome(with(k, "LOAD", "  tcgen05_ld acc lanes 0\n")) == "tmem_lane_quarter");
}

TEST_CASE("tensor-memory quarters: placement errors are located") {
  int line = 0, col = 0;
  // A warp role with no placement: its rank is not known.
  const std::string unplaced = with(with(epilogue, " at warp AT", ""), "Q", "instance");
  CHECK(first_error(unplaced, &line, &col).find("declare where the role is, 'role epi ... at warp W'") != std::string::npos);
  CHECK(line == 13);
  CHECK(col == 18);
  // A warp group not aligned.
  CHECK(first_error("kernel e\nrole w warpgroup at warp 2:\n  syncwarp\n").find("multiple of 4") != std::string::npos);
  // Past the CTA's 32 warps.
  CHECK(first_error("kernel e\nrole w warp x 4 at warp 30:\n  syncwarp\n").find("at most 32") != std::string::npos);
  // Two roles on one warp.
  CHECK(first_error(with(with(epilogue, "AT", "0"), "Q", "instance")).find("shares warps with role 'alloc'") != std::string::npos);
  // Placed on different CTAs: no clash.
  CHECK(first_error("kernel e\ncluster 2\nrole a warp on cta 0 at warp 0:\n  syncwarp\nrole b warp at warp 0 on cta 1:\n  syncwarp\n") == "");
  // A quarter out of 0..3.
  CHECK(first_error(with(with(epilogue, "AT", "4"), "Q", "4")).find("lane quarter") != std::string::npos);
}

TEST_CASE("tensor-memory quarters: the bounded engine refuses 'lanes' with the reason") {
  const dsl::Parsed p = dsl::parse(with(with(epilogue, "AT", "4"), "Q", "instance"), "t.bk");
  REQUIRE(p.ok());
  const smt::BmcResult b = smt::bounded_search(p.kernel);
  CHECK(b.verdict == smt::BmcResult::Verdict::not_covered);
  CHECK(b.reason.find("lane quarter") != std::string::npos);
}
