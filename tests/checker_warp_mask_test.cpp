// Member masks of bar.warp.sync (__syncwarp) and elect.sync (issue 62;
// docs/spec.md, "Named barriers", member masks): "The behavior of
// bar.warp.sync is undefined if the executing thread is not in the
// membermask", and it waits "until all threads corresponding to membermask
// have executed a bar.warp.sync with the same membermask value"; elect.sync
// likewise ("The behavior is undefined if the executing thread is not in
// membermask"; ".sync ... wait until all threads in the membermask execute
// the elect instruction"). Before issue 62 `.bk` had no mask (every
// syncwarp was __syncwarp() with the full mask) and no elect.sync: each
// kernel below was a parse error.
#include <doctest/doctest.h>

#include <string>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "tests/agreed_check.hpp"
#include "tests/kernel_text.hpp"

using namespace pc;
using testing::agreed_check;
using testing::agreed_outcome;
using testing::with;

namespace {

const std::string role = "kernel m\nsmem s bytes 4096\nrole r warp:\nBODY";

std::string body(const std::string& b) { return with(role, "BODY", b); }

}  // namespace

TEST_CASE("elect.sync: the member mask names exactly the lanes that execute it") {
  // CCCL's for_each_canceled_block: elect.sync(__activemask()) inside the
  // leader's branch, where only lane 0 is active.
  CHECK(agreed_outcome(body("  one: elect_sync mask 1\n")) == "verified");
  CHECK(agreed_outcome(body("  elect_sync\n")) == "verified");  // the whole warp, the full mask
  CHECK(agreed_outcome(body("  elect_sync mask 0xffffffff\n")) == "verified");
  // The full mask in a one-lane branch (cute::elect_one_sync() there):
  // lanes 1..31 never reach it.
  const check::Result r = agreed_check(body("  one: elect_sync\n"));
  CHECK(check::outcome_name(r) == "warp_mask_misuse");
  CHECK(r.message.find("a lane of the mask never executes it") != std::string::npos);
  // The whole warp with a mask of lane 0: lanes 1..31 are not in it.
  const check::Result o = agreed_check(body("  elect_sync mask 1\n"));
  CHECK(check::outcome_name(o) == "warp_mask_misuse");
  CHECK(o.message.find("an executing lane is not in the mask") != std::string::npos);
  // Every warp's leader of a warp group, each with its own lane 0.
  CHECK(agreed_outcome("kernel m\nrole r warpgroup:\n  each: elect_sync mask 1\n") == "verified");
  CHECK(agreed_outcome("kernel m\nrole r warpgroup:\n  each: elect_sync mask 3\n") == "warp_mask_misuse");
}

TEST_CASE("__syncwarp(mask): a mask missing an executing lane is undefined; the full mask orders the warp's lanes") {
  CHECK(agreed_outcome(body("  syncwarp mask 0xffffffff\n")) == "verified");
  CHECK(agreed_outcome(body("  syncwarp mask 0xffff\n")) == "warp_mask_misuse");
  // A mask computed from a parameter, too short by one lane (kokkos#1958's
  // shape: a sub-warp mask that does not contain the executing lanes).
  CHECK(agreed_outcome("kernel m\nparam W = 31\nrole r warp:\n  syncwarp mask (1 << W) - 1\n") == "warp_mask_misuse");
  CHECK(agreed_outcome("kernel m\nparam W = 32\nrole r warp:\n  syncwarp mask (1 << W) - 1\n") == "verified");
  // Ordering: the leader's write, then the lanes' reads.
  CHECK(agreed_outcome(body("  one: write s\n  all: read s\n")) == "data_race");
  CHECK(agreed_outcome(body("  one: write s\n  syncwarp mask 0xffffffff\n  all: read s\n")) == "verified");
  // elect.sync orders no memory (the ISA states none).
  CHECK(agreed_outcome(body("  one: write s\n  elect_sync\n  all: read s\n")) == "data_race");
}

TEST_CASE("member masks: a constant outside 32 bits is a located error") {
  const dsl::Parsed p = dsl::parse(body("  syncwarp mask 0x100000000\n"), "m.bk");
  REQUIRE_FALSE(p.ok());
  CHECK(p.errors[0].message.find("member mask") != std::string::npos);
  CHECK(p.errors[0].loc.line == 4);
  // A one-lane __syncwarp(1) (`one:`, since the lane classes; before, bad
  // input) orders nothing: lane 0 waits for no other lane.
  CHECK(agreed_outcome(body("  one: write s\n  one: syncwarp mask 1\n  all: read s\n")) == "data_race");
  CHECK(agreed_outcome(body("  one: write s\n  one: syncwarp mask 1\n  one: read s\n")) == "verified");
}
