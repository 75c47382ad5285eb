// Non-bulk cp.async-groups (PTX ISA cp.async.commit_group, cp.async.wait_group,
// cp.async.wait_all; docs/spec.md "cp.async-groups"): the copies of one lane
// join its open group, commit closes it, and wait_group N makes the writes
// of every group older than the N most recent visible to the waiting lane.
// Other lanes see them through a barrier after the wait. A committed group
// not waited for at the CTA's exit is exit_with_pending.
#include <doctest/doctest.h>

#include <string>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/program.hpp"
#include "tests/agreed_check.hpp"
#include "tests/kernel_text.hpp"
#include "tests/located_errors.hpp"

using namespace pc;

namespace {

std::string outcome(const std::string& text) { return testing::agreed_outcome(text); }

using testing::with;

// The SM80 multistage main loop (CUTLASS MmaMultistage, FlashAttention-2):
// STAGES - 1 tiles in flight; each iteration waits until at most STAGES - 2
// groups are pending, syncs the CTA, reads the oldest stage and refills the
// stage read one iteration before. One lane stands for the copying threads.
const std::string multistage =
    "kernel sm80\n"
    "param K = 5\n"
    "param STAGES = 3\n"
    "smem a[STAGES] bytes 4096\n"
    "role cta warpgroup:\n"
    "  for s in 0 .. STAGES - 1:\n"
    "    one: cp_async a[s]\n"
    "    one: cp_async_commit\n"
    "  for k in 0 .. K:\n"
    "    one: cp_async_wait WAIT\n"
    "    SYNC\n"
    "    all: read a[k % STAGES]\n"
    "    if k + STAGES - 1 < K:\n"
    "      one: cp_async a[(k + STAGES - 1) % STAGES]\n"
    "    one: cp_async_commit\n";

std::string loop(const std::string& wait, const std::string& sync) { return with(with(multistage, "WAIT", wait), "SYNC", sync); }

}  // namespace

TEST_CASE("cp.async-groups: the multistage loop verifies; a wait one group short, or no barrier after it, races") {
  CHECK(outcome(loop("STAGES - 2", "bar_sync 1, 128")) == "verified");
  CHECK(outcome(loop("STAGES - 2", "syncthreads")) == "verified");
  CHECK(outcome(loop("0", "bar_sync 1, 128")) == "verified");
  // One group too many left pending: the oldest stage may not have landed.
  CHECK(outcome(loop("STAGES - 1", "bar_sync 1, 128")) == "data_race");
  // Only the waiting lane sees the copy; the other lanes need the barrier.
  CHECK(outcome(loop("STAGES - 2", "syncwarp")) == "data_race");
  // cp.async.wait_all is commit_group + wait_group 0.
  CHECK(outcome(with(loop("0", "bar_sync 1, 128"), "one: cp_async_wait 0", "one: cp_async_wait_all")) == "verified");
  // The refill before the barrier overwrites a stage other lanes still read.
  const std::string early = with(with(loop("STAGES - 2", "bar_sync 1, 128"),
                                      "    if k + STAGES - 1 < K:\n      one: cp_async a[(k + STAGES - 1) % STAGES]\n", ""),
                                 "    bar_sync 1, 128\n",
                                 "    if k + STAGES - 1 < K:\n      one: cp_async a[(k + STAGES - 1) % STAGES]\n    bar_sync 1, 128\n");
  CHECK(outcome(early) == "data_race");
}

TEST_CASE("cp.async-groups: a committed group not waited for at exit is exit_with_pending; an empty one is complete") {
  const std::string k = "kernel tail\nsmem a[1] bytes 256\nrole w warp:\n  one: cp_async a[0]\n  one: cp_async_commit\nTAIL";
  CHECK(outcome(with(k, "TAIL", "")) == "exit_with_pending");
  CHECK(outcome(with(k, "TAIL", "  one: cp_async_wait 0\n")) == "verified");
  CHECK(outcome(with(k, "TAIL", "  one: cp_async_wait 0\n  one: cp_async_commit\n  one: cp_async_commit\n")) == "verified");
  // Copies tracked by an mbarrier instead of groups (never committed) are the barrier's.
  CHECK(outcome("kernel arr\nsmem a[1] bytes 256\nmbarrier m[1] count 1\nrole w warp:\n  one: cp_async a[0]\n"
                "  one: cp_async_arrive m[0] noinc\n  wait m[0] parity 0\n  all: read a[0]\n") == "verified");
}

TEST_CASE("cp.async-groups: bad input is a located error") {
  const std::string k = "kernel e\nsmem a[1] bytes 64\n";
  testing::check_located_errors({
      {"all lanes", k + "role r warp:\n  cp_async a[0]\n  one: cp_async_commit\n", 4, 3, "cp.async-groups are per thread"},
      {"commit by all", k + "role r warp:\n  one: cp_async a[0]\n  cp_async_commit\n", 5, 3, "write 'one: cp_async_commit'"},
      {"negative wait", k + "role r warp:\n  one: cp_async_wait -1\n", 4, 22, "the number of pending groups"},
      {"on AMD", "kernel e\ntarget amd\nrole r warp:\n  one: cp_async_wait_all\n", 4, 8, "AMD has no TMA, bulk copies, cp.async"},
  });
}

// Each agent with async arrivals (tcgen05.commit, cp.async.mbarrier.arrive,
// st.async) holds what each arrival in flight releases in a sync object of its
// own: the objects left after the kernel's barriers are shared evenly among
// those agents (checker/program.cpp), and an agent that has more arrivals in
// flight than its share is a located error, never a wrong verdict.
TEST_CASE("async arrivals in flight: an agent has its even share of the sync objects; past it, a located error") {
  // One MMA warp with 12 commits in flight (the attention kernels' MMA warp
  // has 10 at two KV iterations): more than the 8 the model once held.
  const std::string one =
      "kernel inflight\nparam N = 12\ntmem ACC cols 32\nsmem A bytes 4096\nmbarrier done count N\n"
      "role mma warp:\n"
      "  tcgen05_alloc ACC\n  tcgen05_relinquish_alloc_permit\n"
      "  for i in 0 .. N:\n    tcgen05_mma read A into ACC\n    tcgen05_commit done\n"
      "  wait done parity 0\n  tcgen05_fence_after_thread_sync\n  tcgen05_dealloc ACC\n";
  CHECK(outcome(one) == "verified");
  // Sixteen warps share what is left of 64: three each, and a fourth in flight is refused.
  const std::string many = "kernel inflight\nmbarrier done count 1\nrole w warp x 16:\n  for i in 0 .. 5:\n    one: cp_async_arrive done\n";
  testing::check_run_error(many, 5, 10, "has more than 3 tcgen05.commit / cp.async.mbarrier.arrive arrivals in flight");
}

// PTX ISA, Memory Consistency Model: "The asynchronous mbarrier arrive-on
// operation performed by a cp.async.mbarrier.arrive instruction is ordered
// with respect to the memory operations performed by all prior cp.async
// operations initiated by the same thread, but not to those of any other
// instruction issued by the thread." (docs/spec.md, "cp.async-groups").
TEST_CASE("cp.async.mbarrier.arrive releases the copies, not the arriving thread's other accesses") {
  const std::string k =
      "kernel handoff\nsmem a[1] bytes 256\nsmem b[1] bytes 256\nmbarrier m[1] count 1\n"
      "role producer warp:\n"
      "  one: write b[0]\n"
      "  one: cp_async a[0]\n"
      "  one: cp_async_arrive m[0] noinc\n"
      "role consumer warp:\n"
      "  one: wait m[0] parity 0\n"
      "  one: read a[0]\n"
      "READ_B";
  // The copy is released: its reader after the wait is ordered.
  CHECK(outcome(with(k, "READ_B", "")) == "verified");
  // The plain store, covered only by the async arrive, is not: the model
  // released everything the thread knew at the arrive (verified, a missed
  // race) before the arrive released only the copies.
  CHECK(outcome(with(k, "READ_B", "  one: read b[0]\n")) == "data_race");
  // Its own release arrive, on the same barrier, does order it.
  const std::string released = with(with(with(k, "count 1", "count 2"), "READ_B", "  one: read b[0]\n"),
                                    "  one: cp_async_arrive m[0] noinc\n",
                                    "  one: cp_async_arrive m[0] noinc\n  one: arrive m[0]\n");
  CHECK(outcome(released) == "verified");
}
