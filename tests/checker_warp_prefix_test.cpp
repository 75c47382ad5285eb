// Operations of one warp of a multi-warp role (`warp K:`, docs/dsl.md
// "Lanes"): warp K's lanes, or its elected lane, execute the operation
// while the role stays one agent. Its reference is the same kernel with
// the role run per warp (`if warp == K:`), as for the per-thread arrivals.
#include <doctest/doctest.h>

#include <random>
#include <string>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/program.hpp"
#include "checker/smt/bmc.hpp"
#include "tests/agreed_check.hpp"
#include "tests/kernel_generators.hpp"
#include "tests/kernel_text.hpp"
#include "tests/tier.hpp"

using namespace pc;
using pc::testing::with;

namespace {

std::string outcome(const std::string& text) {
  const dsl::Parsed p = dsl::parse(text, "warp.bk");
  REQUIRE_MESSAGE(p.ok(), (p.errors.empty() ? std::string() : p.errors[0].message));
  return check::outcome_name(check::check(p.kernel, check::Options{}));
}

std::string first_error(const std::string& text) {
  const dsl::Parsed p = dsl::parse(text, "warp.bk");
  return p.errors.empty() ? std::string() : std::to_string(p.errors[0].loc.line) + ":" + std::to_string(p.errors[0].loc.col) + " " + p.errors[0].message;
}

// A warp-group epilogue whose warp 0 allocates the accumulator and whose
// warp 3 frees it (PTX ISA tcgen05.alloc: "one warp from the CTA must
// perform the allocation and de-allocation"), with the MMA warp between.
const std::string epilogue =
    "kernel warp_alloc\nsmem a bytes 4096\ntmem acc cols 64\nmbarrier full count 1\n"
    "role epi warpgroup:\n"
    "  warp 0: tcgen05_alloc acc\n"
    "  SYNC1bar_sync 1, 160\n"
    "  wait full parity 0\n"
    "  tcgen05_fence_after_thread_sync\n"
    "  tcgen05_ld acc\n"
    "  tcgen05_wait_ld\n"
    "  tcgen05_fence_before_thread_sync\n"
    "  bar_sync 2, 128\n"
    "  tcgen05_fence_after_thread_sync\n"
    "  warp 3: tcgen05_dealloc acc\n"
    "role mma warp:\n"
    "  SYNC1bar_sync 1, 160\n"
    "  tcgen05_fence_after_thread_sync\n"
    "  tcgen05_mma read a into acc\n"
    "  tcgen05_commit full\n";

}  // namespace

TEST_CASE("warp K: one warp of a warp group allocates and another frees tensor memory, without splitting the role") {
  const std::string ok = with(with(epilogue, "SYNC1", ""), "SYNC1", "");
  CHECK(outcome(ok) == "verified");
  // Without the barrier after the alloc, the MMA and the other warps' loads
  // are not ordered after it (was a parse error: "performed by one warp").
  CHECK(outcome(with(with(epilogue, "SYNC1", "# "), "SYNC1", "# ")) == "tmem_unallocated");
  // Warp 3 frees it while the warps' loads are not waited for.
  CHECK(outcome(with(ok, "  tcgen05_wait_ld\n  tcgen05_fence_before_thread_sync\n  bar_sync 2, 128\n", "")) == "tmem_dealloc_in_use");
  // Each warp's wait covers its own loads only: without the barrier of the
  // warps, the other warps' loads are not ordered before warp 3's dealloc
  // (was verified: the wait of the role ordered them before every lane;
  // the role split per warp gives tmem_dealloc_in_use; triton-lang/triton#7994
  // added the bar.sync before the dealloc).
  CHECK(outcome(with(ok, "  bar_sync 2, 128\n", "")) == "tmem_dealloc_in_use");
  // Traces and messages name the warp.
  const dsl::Parsed p = dsl::parse(ok, "warp.bk");
  REQUIRE(p.ok());
  CHECK(check::lanes_prefix(p.kernel.roles[0].body[0].op) == "warp 0: ");
  CHECK(check::lanes_prefix(p.kernel.roles[0].body.back().op) == "warp 3: ");
}

TEST_CASE("warp K: the elected lane of one warp arrives; the warp's own lanes are ordered, not the others'") {
  const std::string k = "kernel warp_arrive\nsmem x[2] bytes 256\nmbarrier m count 1\n"
                        "role g warps 2:\n  warp 1: one: write x[0]\n  warp 1: one: arrive m\n"
                        "role o warp:\n  wait m parity 0\n  one: read x[0]\n";
  CHECK(outcome(k) == "verified");
  // Written by warp 1's other lanes: not ordered before its elected lane's arrive.
  CHECK(outcome(with(k, "warp 1: one: write", "warp 1: write")) == "data_race");
  // Warp 0's write: warp 1's arrive does not release it.
  CHECK(outcome(with(k, "warp 1: one: write", "warp 0: one: write")) == "data_race");
  // The role's own later read by warp 0's elected lane is not ordered after
  // warp 1's elected lane's write (a `one:` access is of the buffer as a
  // whole; an `all:` one is each lane's own part, and warp 0's lanes' parts
  // are not warp 1's).
  CHECK(outcome(k + "role g2 warps 2:\n  warp 1: one: write x[1]\n  warp 0: one: read x[1]\n") == "data_race");
  CHECK(outcome(k + "role g2 warps 2:\n  warp 1: one: write x[1]\n  bar_sync 1, 64\n  warp 0: one: read x[1]\n") == "verified");
  CHECK(outcome(k + "role g2 warps 2:\n  warp 1: write x[1]\n  warp 0: read x[1]\n") == "verified");
}

TEST_CASE("warp K: bad uses are located errors") {
  const std::string head = "kernel t\nsmem x bytes 64\ntmem acc cols 32\nmbarrier m count 1\n";
  struct Case {
    std::string text, where, says;
  };
  const Case cases[] = {
      {head + "role g warps 2:\n  warp 2: write x\n", "6:8", "which has 2 warps"},
      {head + "role g warp:\n  warp 0: write x\n", "6:3", "has one warp"},
      {head + "role g warps 2:\n  warp 0: wait m parity 0\n", "6:3", "cannot be one warp's of a multi-warp agent"},
      {head + "role g warpgroup:\n  warp 0: wgmma_fence\n", "6:3", "cannot be one warp's of a multi-warp agent"},
      {head + "role g warps 2:\n  warp 1: cp_async x\n", "6:3", "async units"},
      {head + "role g warps 2:\n  warp 1: tma_store x\n  commit_group\n", "7:3", "bulk async-groups are per thread and the role's are warp 1's"},
      {head + "role g warps 2:\n  warp 0: each: arrive m\n", "6:11", "'each:' is every warp's elected lane"},
      {head + "role g warps 2:\n  if lane == 0:\n    warp 1: write x\n", "7:5", "under 'if lane == 0:'"},
      {head + "role g warps 2:\n  if warp == 0:\n    write x\n  warp 1: write x\n", "8:3", "write it under 'if warp == 1:'"},
      {head + "role g warps 2:\n  warp 0: all: tma_load x -> m\n", "6:16", "one elected lane"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    const std::string e = first_error(c.text);
    CHECK_MESSAGE(e.rfind(c.where + " ", 0) == 0, e);
    CHECK_MESSAGE(e.find(c.says) != std::string::npos, e);
  }
}

TEST_CASE("warp K: the elected lane of one warp issues the role's TMA stores and waits for their reads") {
  // A FlashAttention-3-style epilogue: the warp group writes the staging
  // buffer, then the elected lane of its last warp stores it; the buffer is
  // written again after a second barrier. Was a parse error ("async units").
  const std::string one =
      "kernel warp_store\nsmem o bytes 8192\nrole epi warpgroup:\n  for t in 0 .. 2:\n    all: write o\n    fence_proxy_async\n"
      "    bar_sync 1, 128\n    warp 3: one: tma_store o\n    warp 3: one: commit_group\n    warp 3: one: wait_group_read 0\n"
      "SYNC";
  const std::string split =
      "kernel warp_store\nsmem o bytes 8192\nrole epi warpgroup:\n  for t in 0 .. 2:\n    all: write o\n    fence_proxy_async\n"
      "    bar_sync 1, 128\n    if warp == 3:\n      one: tma_store o\n      one: commit_group\n      one: wait_group_read 0\n"
      "SYNC";
  CHECK(outcome(with(one, "SYNC", "    bar_sync 1, 128\n")) == "verified");
  CHECK(outcome(with(split, "SYNC", "    bar_sync 1, 128\n")) == "verified");
  // Without the second barrier only warp 3's elected lane knows the store
  // read the buffer: the other lanes write it again (split per warp: the same).
  CHECK(outcome(with(one, "SYNC", "")) == "data_race");
  CHECK(outcome(with(split, "SYNC", "")) == "data_race");
}

// The compact form against the per-warp reference on generated kernels:
// a violation in one exactly when in the other.
TEST_CASE("warp K: the role as one agent agrees with the role run per warp on generated kernels") {
  std::mt19937 rng(20261203);
  int compared = 0, verified = 0, differ = 0, stores = 0;
  const int n = 600;
  for (int i = 0; i < n; ++i) {
    const std::uint32_t seed = rng();
    std::mt19937 a(seed), b(seed);
    const std::string compact = testgen::warp_prefix_kernel(a, false);
    const std::string per_warp = testgen::warp_prefix_kernel(b, true);
    if (!tier::sample().take(i)) continue;
    const dsl::Parsed pc_ = dsl::parse(compact, "compact.bk"), pw = dsl::parse(per_warp, "per_warp.bk");
    CAPTURE(compact);
    CAPTURE(per_warp);
    REQUIRE_MESSAGE(pc_.ok(), (pc_.errors.empty() ? std::string() : pc_.errors[0].message));
    REQUIRE_MESSAGE(pw.ok(), (pw.errors.empty() ? std::string() : pw.errors[0].message));
    const check::Result rc = check::check(pc_.kernel, check::Options{});
    const check::Result rw = check::check(pw.kernel, check::Options{});
    CAPTURE(check::outcome_name(rc));
    CAPTURE(check::outcome_name(rw));
    CHECK(rc.verdict == rw.verdict);
    differ += rc.verdict != rw.verdict;
    ++compared;
    verified += rc.verdict == check::Verdict::verified;
    stores += compact.find("tma_store") != std::string::npos;
  }
  MESSAGE(compared << " compared, " << verified << " verified, " << stores << " with one warp's TMA stores, " << differ << " differ");
  CHECK(stores >= compared / 8);
  CHECK(compared >= tier::sample().scaled(n));
  CHECK(verified >= compared / 10);
}

// A warp group loads the accumulator, waits and fences, and one thread of
// warp 0 releases it to the MMA warp with no barrier among the four warps:
// the other warps' loads may not even be issued (PTX ISA tcgen05.wait::ld
// waits for the executing thread's loads only). It verified: the wait
// ordered the agent's tensor-memory unit, which the warps share in the
// model, before every lane, so warp 0's elected lane released the other
// warps' loads. An arrive by some of a multi-warp agent's warps does not
// release the units that are each warp's own (hb::Quorum::per_warp_units).
TEST_CASE("a multi-warp agent's one-lane arrive after its tcgen05.ld releases only its own warp's loads") {
  const std::string k =
      "kernel epi_one_arrive\nsmem a bytes 4096\ntmem acc cols 64\nmbarrier full count 1\nmbarrier empty count COUNT\n"
      "role mma warp:\n  tcgen05_alloc acc\n  bar_sync 1, 160\n  tcgen05_fence_after_thread_sync\n"
      "  tcgen05_mma read a into acc\n  tcgen05_commit full\n  wait empty parity 0\n  tcgen05_fence_after_thread_sync\n"
      "  tcgen05_mma read a into acc\n  tcgen05_commit full\n  wait full parity 1\n  tcgen05_fence_after_thread_sync\n"
      "  tcgen05_dealloc acc\n"
      "role epi warpgroup:\n  bar_sync 1, 160\n  wait full parity 0\n  tcgen05_fence_after_thread_sync\n  tcgen05_ld acc\n"
      "  tcgen05_wait_ld\n  tcgen05_fence_before_thread_sync\nSYNC  ARRIVE\n";
  auto form = [&](const std::string& count, const std::string& sync, const std::string& arrive) {
    return with(with(with(k, "COUNT", count), "SYNC", sync), "ARRIVE", arrive);
  };
  CHECK(outcome(form("1", "", "one: arrive empty")) == "data_race");             // was verified
  CHECK(outcome(form("1", "", "warp 2: one: arrive empty")) == "data_race");
  CHECK(outcome(form("1", "  bar_sync 2, 128\n", "one: arrive empty")) == "verified");
  CHECK(outcome(form("128", "", "all: arrive empty")) == "verified");
  CHECK(outcome(form("4", "", "each: arrive empty")) == "verified");
}
