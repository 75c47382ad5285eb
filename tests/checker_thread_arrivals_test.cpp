// Per-thread arrivals (docs/spec.md, "Per-thread arrivals"): an arrive by
// several threads is each thread's arrive-on, so a phase may complete with
// part of them and the others arrive on the next phase, in a later step.
// The compact rule (spec::mbarrier::arrive_threads, hb::Quorum) against the
// per-thread reference: the same kernel with the arriving role split per
// warp, whose warps' threads arrive in their own steps, in every order.
#include <doctest/doctest.h>

#include <random>
#include <string>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/smt/bmc.hpp"
#include "spec/mbarrier.hpp"
#include "spec/named_barrier.hpp"
#include "tests/agreed_check.hpp"
#include "tests/kernel_generators.hpp"
#include "tests/tier.hpp"

using namespace pc;
namespace mb = spec::mbarrier;

namespace {

std::string outcome(const std::string& text) { return testing::agreed_outcome(text); }

// An MMA warp's arrivals and an epilogue warp group's on one 160-count
// barrier (FORM: the epilogue's threads between their write and arrive).
std::string mma_epilogue(const std::string& form) {
  return "kernel split\nsmem acc[1] bytes 1024\nmbarrier empty[1] count 160\n"
         "role mma warp:\n  all: arrive empty[0]\n  all: arrive empty[0]\n  wait empty[0] parity 0\n  one: read acc[0]\n"
         "role epi warpgroup:\n  all: write acc[0]\n" +
         form + "  all: arrive empty[0]\n";
}

// One generated kernel in its compact form (`group`) and with the
// arriving role split per warp (`per_warp`): a violation in one exactly
// when in the other (which of several a search reports first depends on
// its order, as for the reductions). Counts the kernels compared, the
// verified ones, and those whose reported trace has a step with `part`.
struct PerWarpTally {
  int compared = 0, verified = 0, parts = 0;
  void compare(const std::string& group, const std::string& per_warp, const char* part) {
    const dsl::Parsed pg = dsl::parse(group, "group.bk"), pw = dsl::parse(per_warp, "per_warp.bk");
    CAPTURE(group);
    CAPTURE(pg.errors.empty() ? std::string() : pg.errors[0].message);
    REQUIRE(pg.ok());
    REQUIRE(pw.ok());
    const check::Result rg = check::check(pg.kernel, check::Options{});
    const check::Result rw = check::check(pw.kernel, check::Options{});
    CAPTURE(check::outcome_name(rg));
    CAPTURE(check::outcome_name(rw));
    REQUIRE(rg.verdict != check::Verdict::inconclusive);
    CHECK(rg.verdict == rw.verdict);
    ++compared;
    if (rg.verdict == check::Verdict::verified) ++verified;
    for (const auto& st : rg.trace)
      if (st.text.find(part) != std::string::npos) {
        ++parts;
        break;
      }
  }
  [[nodiscard]] std::string text() const {
    return std::to_string(compared) + " compared, " + std::to_string(verified) + " verified, " + std::to_string(parts) +
           " traces with a part";
  }
};

}  // namespace

TEST_CASE("spec: a group's arrive-ons complete a phase with part of the units") {
  mb::State s = mb::init(mb::State{}, 160).next;
  s = mb::arrive(s, mb::ArriveArgs{64}).next;  // pending 96
  // Four warps of 32 threads: three complete the phase, one arrives on the next.
  const mb::ThreadsResult r = mb::arrive_units(s, mb::ArriveArgs{32}, 4);
  CHECK(r.out.violation == spec::Violation::none);
  CHECK(r.out.phase_completed);
  CHECK(r.arrived == 3);
  CHECK(r.next.phase == 1);
  CHECK(r.next.pending == 160);
  const mb::ThreadsResult rest = mb::arrive_units(r.next, mb::ArriveArgs{32}, 1);
  CHECK(rest.arrived == 1);
  CHECK(rest.next.pending == 128);
  CHECK_FALSE(rest.out.phase_completed);
  // Fewer arrivals than pending: one arrive of their total.
  const mb::ThreadsResult some = mb::arrive_units(r.next, mb::ArriveArgs{}, 100);
  CHECK(some.arrived == 100);
  CHECK(some.next.pending == 60);
  // A unit's count larger than what is pending (a warp's 32 on 16): that unit over-arrives.
  CHECK(mb::arrive_units(mb::arrive(s, mb::ArriveArgs{80}).next, mb::ArriveArgs{32}, 2).out.violation ==
        spec::Violation::arrival_underflow);
  // The phase waits for bytes when the pending count reaches zero: the next unit over-arrives.
  const mb::State t = mb::expect_tx(mb::init(mb::State{}, 2).next, 64).next;
  CHECK(mb::arrive_units(t, mb::ArriveArgs{}, 3).out.violation == spec::Violation::arrival_underflow);
  // .noComplete: the unit that would complete the phase may not.
  mb::ArriveArgs nc;
  nc.no_complete = true;
  CHECK(mb::arrive_units(mb::init(mb::State{}, 2).next, nc, 3).out.violation == spec::Violation::nocomplete_would_complete);
  // Each unit's expect-tx operand is in range, their sum need not be.
  mb::ArriveArgs tx;
  tx.expect_tx = 600000;
  CHECK(mb::arrive_units(mb::init(mb::State{}, 4).next, tx, 2).out.violation == spec::Violation::tx_out_of_range);
  tx.expect_tx = 400000;
  CHECK(mb::arrive_units(mb::init(mb::State{}, 4).next, tx, 2).out.violation == spec::Violation::none);
  // Stopping short: the part ends where one unit's count is pending.
  const mb::ThreadsResult shortp = mb::arrive_units(mb::init(mb::State{}, 3).next, mb::ArriveArgs{}, 5, true);
  CHECK(shortp.arrived == 2);
  CHECK(shortp.stopped);
  CHECK(shortp.next.pending == 1);
  CHECK_FALSE(shortp.out.phase_completed);
}

TEST_CASE("per-thread arrivals: a phase completed by part of a warp group's threads") {
  // Before: arrival_underflow (the warp group's 128 arrivals were one, over
  // the 96 pending after the MMA warp's two arrives).
  // The MMA warp reads what the epilogue wrote after phase 0: one of the
  // epilogue's warps may arrive only on phase 1, its writes unordered.
  CHECK(outcome(mma_epilogue("")) == "data_race");
  // A named barrier among the epilogue's threads first: each arriving
  // warp knows every write, so phase 0 releases them all.
  CHECK(outcome(mma_epilogue("  bar_sync 1, 128\n")) == "verified");
  // syncwarp orders the lanes of each warp only: the part of three warps
  // leaves one out.
  CHECK(outcome(mma_epilogue("  syncwarp\n")) == "data_race");
  // Without the read, the counts alone: three warps complete phase 0, one
  // arrives on phase 1.
  CHECK(outcome("kernel counts\nmbarrier empty[1] count 160\nrole mma warp:\n  all: arrive empty[0]\n  all: arrive empty[0]\n"
                "role epi warpgroup:\n  all: arrive empty[0]\n  wait empty[0] parity 0\n") == "verified");
  // A warp's arrivals are one (the H200 faults where a warp's threads would
  // complete a phase in the middle: harness test group_arrive_past_pending):
  // 32 on 16 pending over-arrives, whichever comes first.
  CHECK(outcome("kernel warp\nmbarrier b[1] count 48\nrole a warp:\n  one: arrive b[0] count 32\nrole w warp:\n  all: arrive b[0]\n") ==
        "arrival_underflow");
  // A warp group on 64 pending: two warps complete the phase, two arrive on the next.
  // A warp group and another warp's two arrives on a count of 96: three
  // warps complete phase 0 and one arrives on phase 1, or one or two do.
  CHECK(outcome("kernel wg\nmbarrier b[1] count 96\nrole a warp:\n  all: arrive b[0]\n  all: arrive b[0]\n"
                "role g warpgroup:\n  all: arrive b[0]\n") == "verified");
  // ... but one thread's arrive of 64 may come where two warps of the group
  // arrived and 32 are pending.
  CHECK(outcome("kernel wg\nmbarrier b[1] count 96\nrole a warp:\n  one: arrive b[0] count 64\n"
                "role g warpgroup:\n  all: arrive b[0]\n") == "arrival_underflow");
  // AMD's software mbarrier takes each lane's arrive on its own: a wave's 64
  // lanes on a count of 48 complete a phase with 48 (or with as many as are
  // pending after the other wave's).
  CHECK(outcome("kernel lanes\ntarget amd gfx942\nmbarrier b[1] count 48\nrole a warp:\n  all: arrive b[0]\n"
                "role w warp:\n  all: arrive b[0]\n") == "verified");
  // Before the change: arrival_underflow for both.
}

// An epilogue warp group's tcgen05.ld: each warp loads its own lane quarter
// and tcgen05.wait::ld waits for the executing thread's own loads, but the
// model's one tensor-memory unit per agent makes them one access that the
// all-lane wait orders before every warp. A part of the warps that completes
// the MMA warp's phase must not release it: a warp left out may not have
// issued its load yet, and the next MMA overwrites the accumulator. Until
// this rule the part released it (verified, a missed race); the reference,
// the role split per warp, finds the race.
TEST_CASE("per-thread arrivals: a part does not release the warps' own tensor-memory loads") {
  const std::string epi = "  bar_sync 1, 160\n  tcgen05_fence_after_thread_sync\n  tcgen05_ld acc\n  tcgen05_wait_ld\n"
                          "  tcgen05_fence_before_thread_sync\n  all: arrive empty\n  bar_sync 2, 160\n";
  const std::string head = "kernel part_ld\nsmem a bytes 1024\ntmem acc cols 128\nmbarrier empty count COUNT\nmbarrier done count 1\n"
                           "role mma warp:\n  tcgen05_alloc acc\n  bar_sync 1, 160\n  all: arrive empty\n  all: arrive empty\n"
                           "  wait empty parity 0\n  tcgen05_fence_after_thread_sync\n  tcgen05_mma read a into acc\n"
                           "  tcgen05_commit done\n  wait done parity 0\n  bar_sync 2, 160\n  tcgen05_dealloc acc\n";
  auto kernel = [&](const std::string& count, bool split) {
    std::string k = head;
    k.replace(k.find("COUNT"), 5, count);
    if (!split) return k + "role epi warpgroup:\n" + epi;
    std::string body;
    for (std::size_t at = 0; at < epi.size();) {
      const std::size_t end = epi.find('\n', at);
      body += "  " + epi.substr(at, end - at + 1);
      at = end + 1;
    }
    return k + "role epi warpgroup:\n  if warp >= 0:\n" + body;
  };
  // 160: three warps of the epilogue complete phase 0 with the MMA warp's two arrives.
  CHECK(outcome(kernel("160", false)) == "data_race");
  CHECK(outcome(kernel("160", true)) == "data_race");
  // 192: the whole warp group completes it: ordered.
  CHECK(outcome(kernel("192", false)) == "verified");
  CHECK(outcome(kernel("192", true)) == "verified");
}

TEST_CASE("per-thread arrivals: the trace shows the threads of each part") {
  const dsl::Parsed p = dsl::parse(mma_epilogue(""), "split.bk");
  REQUIRE(p.ok());
  const check::Result r = check::check(p.kernel, check::Options{});
  REQUIRE(check::outcome_name(r) == "data_race");
  std::string steps;
  for (const auto& st : r.trace) steps += st.text + "\n";
  CAPTURE(steps);
  CHECK(steps.find("warps 1..3 of 4") != std::string::npos);
  CHECK(steps.find("the other 1 warp arrives on the next phase") != std::string::npos);
}

TEST_CASE("per-thread arrivals: the bounded SMT search declines a group's arrive that completes a phase in part") {
  const dsl::Parsed p = dsl::parse(mma_epilogue("  bar_sync 1, 128\n"), "split.bk");
  REQUIRE(p.ok());
  const smt::BmcResult r = smt::bounded_search(p.kernel, smt::BmcOptions{});
  CHECK(r.verdict == smt::BmcResult::Verdict::not_covered);
  CHECK(r.reason.find("part of its threads") != std::string::npos);
}

TEST_CASE("per-thread arrivals: generated kernels, the compact rule against each warp's threads in their own steps") {
  std::mt19937 rng(61);
  PerWarpTally t;
  const tier::Sample& sample = tier::sample();
  for (int i = 0; i < 1200; ++i) {
    const std::uint32_t seed = static_cast<std::uint32_t>(rng());
    std::mt19937 a(seed), b(seed);
    // Each generator for about half the kernels of any sample (a choice by the seed, not by i: a
    // sample of an even stride would hold one generator's only).
    const auto gen = (seed >> 11) & 1 ? testgen::group_arrive_kernel : testgen::group_arrive_balanced;
    const std::string group = gen(a, false), per_warp = gen(b, true);
    if (sample.take(i)) t.compare(group, per_warp, "on the next phase");
  }
  MESSAGE(tier::sample_text() << ": " << t.text());
  // Of the 1,200 kernels 110 verify and 117 traces show a part; every
  // sample of a stride of 16 (the sanitized CI tier) holds at least 2 and 4
  // of them, of 8 at least 8 and 10.
  CHECK(t.verified > sample.scaled(40));
  CHECK(t.parts > sample.scaled(20));
}

// Per-warp named-barrier arrivals (docs/spec.md, "Per-warp named-barrier
// arrivals"): a warp group's bar.sync on a barrier of fewer threads.
TEST_CASE("spec: a group's warps complete a named-barrier instance with part of them") {
  namespace nb = spec::named;
  nb::ArriveArgs a;
  a.id = 1;
  a.count = 64;
  a.threads = 128;
  a.cta_threads = 128;
  const nb::WarpsResult r = nb::arrive_warps(nb::State{}, a, 4);
  CHECK(r.out.violation == spec::Violation::none);
  CHECK(r.out.phase_completed);
  CHECK(r.warps == 2);
  CHECK(r.next.generation == 1);
  a.threads = 64;
  const nb::WarpsResult rest = nb::arrive_warps(r.next, a, 2);
  CHECK(rest.warps == 2);
  CHECK(rest.next.generation == 2);
  // Fitting in the instance: one arrive of their total.
  a.count = 256;
  a.threads = 128;
  const nb::WarpsResult fits = nb::arrive_warps(nb::State{}, a, 4);
  CHECK(fits.warps == 4);
  CHECK(fits.next.arrived == 128);
  CHECK_FALSE(fits.out.phase_completed);
  // Another count in progress: the arrive fails, whatever fits.
  a.count = 64;
  CHECK(nb::arrive_warps(fits.next, a, 4).out.violation == spec::Violation::named_count_mismatch);
  // bar.red is one arrive of the agent (its result is the instance's): more threads than counted fail.
  a.red = nb::Red::popc;
  CHECK(nb::arrive_warps(nb::State{}, a, 4).out.violation == spec::Violation::named_count_mismatch);
}

TEST_CASE("per-thread arrivals: a warp group's bar.sync on fewer threads completes an instance per pair of warps") {
  // Before the rule: named_count_mismatch (128 threads on a 64-thread barrier).
  const std::string pairs = "kernel pairs\nsmem x bytes 256\nrole g warpgroup:\n  one: write x\n  bar_sync 1, 64\n";
  CHECK(outcome(pairs + "  bar_sync 2, 128\n  all: read x\n") == "verified");
  // Which two warps pass one instance is the hardware's choice: warp 0's
  // write is not surely ordered before the other pair's reads.
  CHECK(outcome(pairs + "  all: read x\n") == "data_race");
  // Another warp's write, before its arrival on the barrier: ordered before
  // the warps of g in its instance only.
  const std::string mixed = "kernel mixed\nsmem x bytes 256\nrole p warp x 2:\n  if instance == 0:\n    one: write x\n  bar_sync 1, 96\n"
                            "role g warpgroup:\n  bar_sync 1, 96\n";
  CHECK(outcome(mixed + "  one: read x\n") == "data_race");
  CHECK(outcome(mixed + "  bar_sync 2, 128\n") == "verified");
  // Threads left over: the last instance never completes.
  CHECK(outcome("kernel short\nrole p warp:\n  bar_sync 1, 96\nrole g warpgroup:\n  bar_sync 1, 96\n") == "deadlock");
}

TEST_CASE("per-thread arrivals: the bounded SMT search declines a group's named barrier that completes in part") {
  const dsl::Parsed p = dsl::parse("kernel pairs\nrole g warpgroup:\n  bar_sync 1, 64\n", "pairs.bk");
  REQUIRE(p.ok());
  const smt::BmcResult r = smt::bounded_search(p.kernel, smt::BmcOptions{});
  CHECK(r.verdict == smt::BmcResult::Verdict::not_covered);
}

TEST_CASE("per-thread arrivals: generated named barriers, the compact rule against each warp's arrival in its own step") {
  std::mt19937 rng(6101);
  PerWarpTally t;
  const tier::Sample& sample = tier::sample();
  for (int i = 0; i < 600; ++i) {
    const std::uint32_t seed = static_cast<std::uint32_t>(rng());
    std::mt19937 a(seed), b(seed);
    const std::string group = testgen::group_named_kernel(a, false), per_warp = testgen::group_named_kernel(b, true);
    if (sample.take(i)) t.compare(group, per_warp, "arrive on the next instance");
  }
  MESSAGE(tier::sample_text() << ": " << t.text());
  // Of the 600 kernels 82 verify and 46 show a part.
  CHECK(t.verified > sample.scaled(40));
  CHECK(t.parts > sample.scaled(20));
}

// A warp group's wgmma as one step of its four warps (docs/spec.md, "Beyond
// the sentence": wgmma .sync makes each thread wait for its own warp only)
// against the role split per warp, where each warp runs on its own around
// the wgmma its four warps join: the same verdict. (The kind may differ
// where a kernel has two bugs, a proxy_race and a data_race say: the
// searches meet them in another order.)
TEST_CASE("wgmma: a warp group in step against its warps each on their own, on generated kernels") {
  std::mt19937 rng(66);
  PerWarpTally t;
  const tier::Sample& sample = tier::sample();
  for (int i = 0; i < 400; ++i) {
    const std::uint32_t seed = static_cast<std::uint32_t>(rng());
    std::mt19937 a(seed), b(seed);
    const std::string group = testgen::wgmma_group_kernel(a, false), per_warp = testgen::wgmma_group_kernel(b, true);
    if (sample.take(i)) t.compare(group, per_warp, "wgmma");
  }
  MESSAGE(tier::sample_text() << ": " << t.text());
  // Of the 400 kernels 151 verify and 249 do not; every sample of a stride
  // of 16 holds at least 2 of each.
  CHECK(t.verified > sample.scaled(40));
  CHECK(t.compared - t.verified > sample.scaled(40));
}
