// Tensor memory (docs/spec.md, "Tensor memory"; spec/tmem.hpp): the rules of
// spec::tmem, and for each misuse the explorer reports, the minimal kernel
// that shows it next to the corrected form, with and without reductions; the
// declaration and operand errors are located, exit 2.
#include <doctest/doctest.h>

#include <string>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "spec/tmem.hpp"
#include "tests/cli_support.hpp"
#include "tests/kernel_text.hpp"
#include "tests/located_errors.hpp"

using namespace pc;

namespace {

check::Result run(const std::string& text, bool reduction) {
  const dsl::Parsed p = dsl::parse(text, "tm.bk");
  const std::string first = p.errors.empty() ? std::string() : p.errors[0].message + " at line " + std::to_string(p.errors[0].loc.line);
  CAPTURE(first);
  REQUIRE(p.ok());
  check::Options o;
  o.reduction = reduction;
  return check::check(p.kernel, o);
}

std::string with(std::string text, const std::string& marker, const std::string& by) {
  REQUIRE(text.find(marker) != std::string::npos);
  text.replace(text.find(marker), marker.size(), by);
  return text;
}

// `bug` gets `kind`; `fixed` verifies with no warning; both with and without reductions.
void pair(const std::string& bug, const char* kind, const std::string& fixed) {
  for (bool reduction : {true, false}) {
    CAPTURE(reduction);
    CAPTURE(bug);
    CHECK(check::outcome_name(run(bug, reduction)) == kind);
    CAPTURE(fixed);
    const check::Result f = run(fixed, reduction);
    CHECK(check::outcome_name(f) == "verified");
    CHECK(f.warnings.empty());
  }
}

// An MMA warp and an epilogue warp over one accumulator for TILES tiles: the
// docs/dsl.md example, with markers for the variations below.
const std::string epilogue =
    "kernel t\nparam TILES = 2\nsmem A bytes 16384\ntmem ACC cols 128\n"
    "mbarrier acc_full count 1\nmbarrier acc_empty count 1\n"
    "role mma warp:\n"
    "  tcgen05_alloc ACC\n"
    "  tcgen05_relinquish_alloc_permit\n"
    "  bar_sync 1, 64\n"
    "  for t in 0 .. TILES:\n"
    "    wait acc_empty parity (t + 1) % 2\n"
    "    tcgen05_fence_after_thread_sync\n"
    "    tcgen05_mma read A into ACC\n"
    "    tcgen05_commit acc_full\n"
    "  bar_sync 2, 64\n"
    "  tcgen05_fence_after_thread_sync\n"
    "  tcgen05_dealloc ACC\n"
    "role epilogue warp:\n"
    "  bar_sync 1, 64\n"
    "  for t in 0 .. TILES:\n"
    "    wait acc_full parity t % 2\n"
    "    tcgen05_fence_after_thread_sync\n"
    "    tcgen05_ld ACC\n"
    "    tcgen05_wait_ld\n"
    "    tcgen05_fence_before_thread_sync\n"
    "    one: arrive acc_empty\n"
    "  bar_sync 2, 64\n";

}  // namespace

TEST_CASE("spec::tmem: the ordering rules of the asynchronous tcgen05 operations") {
  namespace tm = spec::tmem;
  // Pipelined pairs: an MMA after the thread's MMAs and copies; nothing else.
  CHECK(tm::after_own_unit(tm::Async::mma));
  CHECK_FALSE(tm::after_own_unit(tm::Async::cp));
  CHECK_FALSE(tm::after_own_unit(tm::Async::shift));
  CHECK_FALSE(tm::after_own_unit(tm::Async::ld));
  CHECK_FALSE(tm::after_own_unit(tm::Async::st));
  // fence::before_thread_sync orders the loads and stores; commits order the rest.
  CHECK(tm::before_thread_sync_orders(tm::Async::ld));
  CHECK(tm::before_thread_sync_orders(tm::Async::st));
  CHECK_FALSE(tm::before_thread_sync_orders(tm::Async::mma));
  CHECK_FALSE(tm::before_thread_sync_orders(tm::Async::cp));
  CHECK_FALSE(tm::before_thread_sync_orders(tm::Async::shift));
  // A conflict with a lane's write is with the alloc.
  CHECK(tm::conflict(true) == spec::Violation::tmem_unallocated);
  CHECK(tm::conflict(false) == spec::Violation::none);
}

TEST_CASE("spec::tmem: columns, blocking alloc, relinquish, dealloc, exit") {
  using spec::Violation;
  namespace tm = spec::tmem;
  CHECK(tm::valid_alloc_columns(32));
  CHECK(tm::valid_alloc_columns(512));
  CHECK_FALSE(tm::valid_alloc_columns(16));
  CHECK_FALSE(tm::valid_alloc_columns(96));
  CHECK_FALSE(tm::valid_alloc_columns(1024));
  tm::Cta c;
  tm::Result r = tm::alloc(c, 0, 256);
  REQUIRE(r.out.ok());
  c = r.next;
  CHECK(c.used == 256);
  CHECK(tm::use(c, 0) == Violation::none);
  CHECK(tm::use(c, 1) == Violation::tmem_unallocated);
  CHECK(tm::alloc(c, 0, 256).out.violation == Violation::tmem_misuse);  // allocated twice
  // PTX ISA tcgen05.alloc: "The number of columns allocated should not
  // increase between any two allocations in the execution order within the CTA."
  CHECK(tm::grows(c, 512));
  CHECK(tm::alloc(c, 1, 512).out.violation == Violation::tmem_misuse);
  CHECK_FALSE(tm::grows(c, 256));
  r = tm::alloc(c, 1, 256);
  REQUIRE(r.out.ok());
  CHECK(r.next.last_cols == 256);
  CHECK_FALSE(tm::alloc(r.next, 2, 32).out.enabled);  // blocks: no column free
  CHECK(tm::alloc(r.next, 2, 32).out.violation == Violation::none);
  CHECK(tm::cta_exit(r.next) == Violation::tmem_not_deallocated);
  c = tm::dealloc(r.next, 0, 256).next;
  CHECK(c.used == 256);
  CHECK(tm::dealloc(c, 0, 256).out.violation == Violation::tmem_misuse);  // not allocated
  c = tm::dealloc(c, 1, 256).next;
  CHECK(tm::cta_exit(c) == Violation::none);
  CHECK(tm::alloc(tm::relinquish(c), 0, 32).out.violation == Violation::tmem_misuse);
}

TEST_CASE("the epilogue waits for its tcgen05.ld before handing the columns back") {
  // Arriving before the wait: the next MMA overwrites columns the load may still read.
  const std::string early = with(epilogue, "    tcgen05_wait_ld\n    tcgen05_fence_before_thread_sync\n    one: arrive acc_empty\n",
                                 "    one: arrive acc_empty\n    tcgen05_wait_ld\n");
  pair(early, "data_race", epilogue);
  // The wait alone, or the fence alone (the ISA's letter), orders the load before the arrive.
  pair(early, "data_race", with(epilogue, "    tcgen05_fence_before_thread_sync\n", ""));
  pair(early, "data_race", with(epilogue, "    tcgen05_wait_ld\n", ""));
  // A load before the accumulator is full races with the MMA's write.
  pair(with(epilogue, "    wait acc_full parity t % 2\n", ""), "data_race", epilogue);
}

TEST_CASE("a tcgen05.ld then an MMA into the same columns by one thread needs tcgen05.wait::ld") {
  const std::string k = "kernel t\nsmem A bytes 16384\ntmem ACC cols 32\nmbarrier done count 1\n"
                        "role w warp:\n  tcgen05_alloc ACC\n  tcgen05_ld ACC\nWAIT"
                        "  tcgen05_mma read A into ACC\n  tcgen05_commit done\n  wait done parity 0\n"
                        "  tcgen05_fence_after_thread_sync\n  tcgen05_dealloc ACC\n";
  // The freshly allocated columns are read (garbage, but no race: the alloc is ordered before).
  pair(with(k, "WAIT", ""), "data_race", with(k, "WAIT", "  tcgen05_wait_ld\n"));
}

TEST_CASE("an accumulating chain of MMAs and a tcgen05.cp before them are ordered (pipelined pairs)") {
  const std::string k = "kernel t\nsmem A bytes 16384\nsmem S bytes 4096\ntmem ACC[2] cols 64\nmbarrier done count 1\n"
                        "role w warp:\n  tcgen05_alloc ACC\n  tcgen05_cp S -> ACC[1]\n"
                        "  tcgen05_mma read ACC[1], A into ACC[0]\n  tcgen05_mma read ACC[1], A into ACC[0]\n"
                        "LATE"
                        "  tcgen05_commit done\nWAIT"
                        "  tcgen05_dealloc ACC\n";
  const std::string fixed = with(with(k, "LATE", ""), "WAIT", "  wait done parity 0\n");
  // The commit's arrival has not been waited for: the MMAs may still run.
  pair(with(with(k, "LATE", ""), "WAIT", ""), "tmem_dealloc_in_use", fixed);
  // A copy after an MMA that reads its destination is not a pipelined pair.
  pair(with(with(k, "LATE", "  tcgen05_cp S -> ACC[1]\n"), "WAIT", "  wait done parity 0\n"), "data_race", fixed);
}

// "tcgen05.mma.cta_group::N -> tcgen05.mma.cta_group::N (same N and
// accumulator and shape)": two MMAs of one thread on different accumulators
// are no pipelined pair. One that reads as its A operand what the other
// wrote as its accumulator, or accumulates into what the other read as its
// A operand, with no completion of the first waited for between, is the
// mma_not_pipelined warning (docs/spec.md, "Stances": FlashAttention-4's
// forward writes S into the tensor memory of P right after the MMA that
// reads P), an error under --strict. Until issue 62 both verified with no
// warning (an MMA was ordered after every earlier access of its unit).
TEST_CASE("MMAs on different accumulators are no pipelined pair: the mma_not_pipelined warning") {
  const std::string k = "kernel t\nsmem A bytes 16384\ntmem ACC[2] cols 64\nmbarrier done[2] count 1\n"
                        "role w warp:\n  tcgen05_alloc ACC\n  tcgen05_relinquish_alloc_permit\n  FIRST\nWAIT  SECOND\n"
                        "  tcgen05_commit done[1]\n  wait done[1] parity 0\n  tcgen05_fence_after_thread_sync\n  tcgen05_dealloc ACC\n";
  const std::string wait = "  tcgen05_commit done[0]\n  wait done[0] parity 0\n  tcgen05_fence_after_thread_sync\n";
  auto kernel = [&](const std::string& first, const std::string& second, bool waited) {
    return with(with(with(k, "FIRST", first), "SECOND", second), "WAIT", waited ? wait : "");
  };
  auto strict = [](const std::string& text) {
    const dsl::Parsed p = dsl::parse(text, "tm.bk");
    REQUIRE(p.ok());
    check::Options o;
    o.strict = true;
    return check::outcome_name(check::check(p.kernel, o));
  };
  const std::pair<const char*, const char*> cases[] = {
      // RAW: the second reads as A the accumulator the first writes.
      {"tcgen05_mma read A into ACC[0]", "tcgen05_mma read ACC[0], A into ACC[1]"},
      // WAR: the second accumulates into what the first read as A.
      {"tcgen05_mma read ACC[1], A into ACC[0]", "tcgen05_mma read A into ACC[1]"},
  };
  for (const auto& [first, second] : cases) {
    CAPTURE(first);
    for (bool reduction : {true, false}) {
      const check::Result r = run(kernel(first, second, false), reduction);
      CHECK(check::outcome_name(r) == "verified");
      REQUIRE(r.warnings.size() == 1);
      CHECK(r.warnings[0].kind == spec::Violation::mma_not_pipelined);
      CHECK(r.warnings[0].loc.line == 9);
      const check::Result f = run(kernel(first, second, true), reduction);
      CHECK(check::outcome_name(f) == "verified");
      CHECK(f.warnings.empty());
    }
    CHECK(strict(kernel(first, second, false)) == "mma_not_pipelined");
    CHECK(strict(kernel(first, second, true)) == "verified");
  }
  // The chain of one accumulator stays pipelined.
  const check::Result chain = run(kernel("tcgen05_mma read A into ACC[0]", "tcgen05_mma read A into ACC[0]", false), true);
  CHECK(check::outcome_name(chain) == "verified");
  CHECK(chain.warnings.empty());
}

TEST_CASE("tcgen05.shift rewrites tensor memory in the MMA unit: ordered by its commit, before an MMA after it") {
  const std::string k = "kernel t\nsmem A bytes 16384\ntmem ACC[2] cols 64\nmbarrier done count 1\n"
                        "role w warp:\n  tcgen05_alloc ACC\n  tcgen05_shift ACC[1]\n"
                        "  tcgen05_mma read ACC[1], A into ACC[0]\n"
                        "  tcgen05_commit done\nWAIT"
                        "LD"
                        "  tcgen05_dealloc ACC\n";
  const std::string fixed = with(with(k, "WAIT", "  wait done parity 0\n  tcgen05_fence_after_thread_sync\n"), "LD",
                                 "  tcgen05_ld ACC[1]\n  tcgen05_wait_ld\n");
  // An MMA reading the shifted rows after the shift is a pipelined pair (it
  // verifies); a load of them before the commit's arrival is waited for races.
  pair(with(with(k, "WAIT", ""), "LD", "  tcgen05_ld ACC[1]\n  tcgen05_wait_ld\n"), "data_race", fixed);
  // Its commit not waited for: the shift may still run at the dealloc.
  pair(with(with(k, "WAIT", ""), "LD", ""), "tmem_dealloc_in_use", fixed);
  // A shift of the MMA's accumulator right after the MMA: the ISA pipelines
  // mma -> shift, the model does not tell it from cp -> shift and reports it
  // (docs/spec.md, "Tensor memory").
  const std::string after_mma = "kernel t\nsmem A bytes 16384\ntmem ACC cols 64\nmbarrier done count 1\n"
                                "role w warp:\n  tcgen05_alloc ACC\n  tcgen05_mma read A into ACC\n  tcgen05_shift ACC\n"
                                "  tcgen05_commit done\n  wait done parity 0\n  tcgen05_fence_after_thread_sync\n"
                                "  tcgen05_dealloc ACC\n";
  CHECK(check::outcome_name(run(after_mma, true)) == "data_race");
}

TEST_CASE("dealloc: in use, twice, never; alloc: after relinquish, twice, blocking") {
  // The MMA warp deallocates with no barrier after the epilogue's loads.
  pair(with(with(epilogue, "  bar_sync 2, 64\n  tcgen05_fence_after_thread_sync\n  tcgen05_dealloc", "  tcgen05_dealloc"),
            "    one: arrive acc_empty\n  bar_sync 2, 64\n", "    one: arrive acc_empty\n"),
       "tmem_dealloc_in_use", epilogue);
  pair(with(epilogue, "  tcgen05_dealloc ACC\n", ""), "tmem_not_deallocated", epilogue);
  pair(with(epilogue, "  tcgen05_dealloc ACC\n", "  tcgen05_dealloc ACC\n  tcgen05_dealloc ACC\n"), "tmem_misuse", epilogue);
  pair(with(epilogue, "  tcgen05_relinquish_alloc_permit\n", "  tcgen05_relinquish_alloc_permit\n  tcgen05_alloc ACC\n"),
       "tmem_misuse", epilogue);
  // A second allocation larger than the first: tmem_misuse; the largest first verifies.
  const std::string grow = "kernel t\ntmem X cols 64\ntmem Y cols 128\nrole w warp:\n  tcgen05_alloc FIRST\n"
                           "  tcgen05_alloc SECOND\n  tcgen05_dealloc X\n  tcgen05_dealloc Y\n";
  pair(with(with(grow, "FIRST", "X"), "SECOND", "Y"), "tmem_misuse", with(with(grow, "FIRST", "Y"), "SECOND", "X"));
  {  // the message says which allocations and cites the ISA
    const check::Result g = run(with(with(grow, "FIRST", "X"), "SECOND", "Y"), true);
    CHECK(g.message.find("allocates 128 columns for Y after its CTA allocated 64") != std::string::npos);
  }
  // Two allocations that do not fit at once: the second waits for the first's dealloc.
  const std::string two = "kernel t\ntmem X cols 512\ntmem Y cols 256\nrole w warp:\n  tcgen05_alloc X\nFIRST"
                          "  tcgen05_alloc Y\n  tcgen05_dealloc Y\nLAST";
  pair(with(with(two, "FIRST", ""), "LAST", "  tcgen05_dealloc X\n"), "deadlock",
       with(with(two, "FIRST", "  tcgen05_dealloc X\n"), "LAST", ""));
}

TEST_CASE("tensor memory used before its alloc, or not ordered after it") {
  const std::string k = "kernel t\ntmem ACC cols 32\nrole a warp:\n  tcgen05_alloc ACC\nSYNC"
                        "  bar_sync 2, 64\n  tcgen05_dealloc ACC\n"
                        "role b warp:\nSYNC2  tcgen05_st ACC\n  tcgen05_wait_st\n  bar_sync 2, 64\n";
  const std::string fixed = with(with(k, "SYNC2", "  bar_sync 1, 64\n  tcgen05_fence_after_thread_sync\n"), "SYNC", "  bar_sync 1, 64\n");
  pair(with(with(k, "SYNC2", ""), "SYNC", ""), "tmem_unallocated", fixed);
}

TEST_CASE("tensor memory without the fence after a barrier is the tcgen05_unfenced warning") {
  const check::Result r = run(with(epilogue, "    wait acc_full parity t % 2\n    tcgen05_fence_after_thread_sync\n",
                                   "    wait acc_full parity t % 2\n"),
                              true);
  CHECK(check::outcome_name(r) == "verified");
  REQUIRE_FALSE(r.warnings.empty());
  CHECK(r.warnings[0].kind == spec::Violation::tcgen05_unfenced);
}

TEST_CASE("tensor-memory declarations and operands: located errors, exit 2") {
  const std::string head = "kernel t\nsmem S bytes 4096\ntmem T[2] cols 64\n";
  testing::check_located_errors({
      {"columns not a power of 2", "kernel t\ntmem T[3] cols 32\n", 2, 16, "a power of 2 in 32..512"},
      {"too few columns", "kernel t\ntmem T cols 16\n", 2, 13, "a power of 2 in 32..512"},
      {"too many columns", "kernel t\ntmem T[2] cols 512\n", 2, 16, "1024 columns"},
      {"shared access of tensor memory", head + "role w warp:\n  all: read T[0]\n", 5, 13, "'T' is tensor memory"},
      {"tcgen05_ld of shared memory", head + "role w warp:\n  tcgen05_ld S\n", 5, 14, "'S' is shared memory"},
      {"into shared memory", head + "role w warp:\n  tcgen05_mma read S into S\n", 5, 27, "needs a tensor-memory buffer"},
      {"cp into shared memory", head + "role w warp:\n  tcgen05_cp S -> S\n", 5, 19, "needs a tensor-memory buffer"},
      {"alloc with an index", head + "role w warp:\n  tcgen05_alloc T[0]\n", 5, 18, "drop the index"},
      {"alloc of an unknown buffer", head + "role w warp:\n  tcgen05_alloc U\n", 5, 17, "unknown tensor-memory buffer 'U'"},
      {"alloc by a warp group", head + "role w warpgroup:\n  tcgen05_alloc T\n", 5, 3, "performed by one warp"},
      {"tensor memory @ CTA", "kernel t\ncluster 2\ntmem T cols 32\nrole w warp:\n  tcgen05_ld T @ 1\n", 5, 16,
       "expected end of line"},
      {"index out of range", head + "role w warp:\n  tcgen05_st T[2]\n", 5, 16, "index 2 is outside T[2]"},
      {"cta_group 2 without a pair", head + "role w warp:\n  tcgen05_alloc T cta_group 2\n", 5, 29, "declare 'cluster N' with N even"},
      {"cta_group 2 in an odd cluster", "kernel t\ncluster 3\ntmem T cols 32\nrole w warp:\n  tcgen05_relinquish_alloc_permit cta_group 2\n",
       5, 45, "this kernel's cluster has 3 CTAs"},
      {"accessed, never allocated", head + "role w warp:\n  all: read S\n  tcgen05_ld T[1]\n", 6, 14,
       "tensor memory 'T' is accessed but never allocated"},
      {"cta_group 3", "kernel t\ncluster 2\ntmem T cols 32\nrole w warp:\n  tcgen05_dealloc T cta_group 3\n", 5, 31, "must be in 1..2"},
  });
  const std::string f = cli_support::temp_file("tmem", "bad_cols.bk", "kernel t\ntmem T[3] cols 32\nrole w warp:\n  exit\n");
  const cli_support::Run r = cli_support::run("tmem", f);
  CHECK(r.status == 2);
  CHECK(r.err.find("bad_cols.bk:2:16: error:") != std::string::npos);
}

// ---- .cta_group::2: the CTA pair (spec/tmem.hpp, "CTA pair") ----

TEST_CASE("spec::tmem: a cta_group 2 collective is performed by the first warp to issue it, with no rendezvous") {
  namespace tm = spec::tmem;
  using spec::Violation;
  CHECK(tm::peer(0) == 1);
  CHECK(tm::peer(3) == 2);
  tm::Cta a, b;
  // The first warp performs it in both CTAs and goes on.
  tm::PairResult r = tm::pair_issue(a, b, false, tm::PairOp::alloc, 0, 128);
  REQUIRE(r.out.enabled);
  CHECK(r.first);
  CHECK(r.mine.allocated == 1);
  CHECK(r.peer.allocated == 1);
  CHECK(r.peer.used == 128);
  CHECK(r.mine.pair == tm::PairOp::alloc);
  a = r.mine;
  b = r.peer;
  // The peer CTA exiting now: its warps never join.
  CHECK(tm::pair_exit(a) == Violation::tmem_misuse);
  // The same CTA's next alloc or relinquish waits until the peer has
  // joined; a dealloc then is misuse (NVIDIA/cutlass#3435).
  CHECK_FALSE(tm::pair_issue(a, b, false, tm::PairOp::relinquish, 0, 0).out.enabled);
  CHECK(tm::pair_issue(a, b, false, tm::PairOp::relinquish, 0, 0).out.violation == Violation::none);
  CHECK(tm::pair_issue(a, b, false, tm::PairOp::dealloc, 0, 128).out.violation == Violation::tmem_misuse);
  // Joined by a different operation, or on another allocation: misuse.
  CHECK(tm::pair_issue(b, a, false, tm::PairOp::relinquish, 0, 0).out.violation == Violation::tmem_misuse);
  CHECK(tm::pair_issue(b, a, false, tm::PairOp::alloc, 1, 32).out.violation == Violation::tmem_misuse);
  // The peer's warp joins: nothing changes but the collective is matched.
  r = tm::pair_issue(b, a, false, tm::PairOp::alloc, 0, 128);
  REQUIRE(r.out.enabled);
  CHECK_FALSE(r.first);
  CHECK(r.mine.allocated == 1);
  CHECK(r.mine.used == 128);
  CHECK(r.peer.pair == tm::PairOp::none);
  b = r.mine;
  a = r.peer;
  CHECK(tm::pair_exit(a) == Violation::none);
  CHECK(tm::use(a, 0) == Violation::none);
  CHECK(tm::use(b, 0) == Violation::none);
  // The first dealloc frees both halves; the second joins it.
  r = tm::pair_issue(b, a, false, tm::PairOp::dealloc, 0, 128);
  REQUIRE(r.out.enabled);
  CHECK(r.first);
  CHECK(r.mine.allocated == 0);
  CHECK(r.peer.allocated == 0);
  CHECK(r.peer.used == 0);
  r = tm::pair_issue(r.peer, r.mine, false, tm::PairOp::dealloc, 0, 128);
  REQUIRE(r.out.enabled);
  CHECK(r.out.violation == Violation::none);
  CHECK(tm::pair_exit(r.peer) == Violation::none);
  // A dealloc of an allocation a CTA of the pair does not hold.
  CHECK(tm::pair_issue(tm::alloc(tm::Cta{}, 0, 128).next, tm::Cta{}, false, tm::PairOp::dealloc, 0, 128).out.violation ==
        Violation::tmem_misuse);
  // The first half of a collective whose peer CTA has exited: it never joins.
  CHECK(tm::pair_issue(tm::Cta{}, tm::Cta{}, true, tm::PairOp::alloc, 0, 32).out.violation == Violation::tmem_misuse);
  // Columns lacking in either CTA: the first warp blocks.
  const tm::Cta full = tm::alloc(tm::Cta{}, 1, 512).next;
  CHECK_FALSE(tm::pair_issue(full, tm::Cta{}, false, tm::PairOp::alloc, 0, 32).out.enabled);
  CHECK_FALSE(tm::pair_issue(tm::Cta{}, full, false, tm::PairOp::alloc, 0, 32).out.enabled);
  // Relinquish acts in both CTAs: a later alloc in either is misuse.
  r = tm::pair_issue(tm::Cta{}, tm::Cta{}, false, tm::PairOp::relinquish, 0, 0);
  CHECK(tm::alloc(r.mine, 0, 32).out.violation == Violation::tmem_misuse);
  CHECK(tm::alloc(r.peer, 0, 32).out.violation == Violation::tmem_misuse);
}

namespace {

// A 2-CTA MMA (cta_group 2): both CTAs' MMA warps allocate the accumulator
// together; CTA 0's warp issues the pair's MMA over both CTAs' operands, its
// commit multicast to both CTAs' `done`; each CTA's epilogue warp group reads
// its half; after a cluster barrier each MMA warp deallocates together.
// CTA 0's wait on `full` acquires at .cluster scope: CTA 1's TMA load
// completes on it (a .cluster release from another CTA, PTX ISA
// cp.async.bulk; at .cta the stance's scope_cta_acquire warning).
const std::string pair_kernel = pc::testing::started(
    "kernel pair\ncluster 2\nsmem a bytes 16384\ntmem acc cols 128\nmbarrier full count 1\nmbarrier done count 1\n"
    "role mma warp:\n"
    "  tcgen05_alloc acc cta_group 2\n"
    "  bar_sync 1, 160\n"
    "  tcgen05_fence_after_thread_sync\n"
    "  if cta == 0:\n"
    "    wait full parity 0 acquire cluster\n"
    "    tcgen05_fence_after_thread_sync\n"
    "    tcgen05_mma read a, a @ 1 into acc cta_group 2\n"
    "    tcgen05_commit done multicast 3 cta_group 2\n"
    "  SYNC2bar_sync 2, 160\n"
    "  cluster_sync\n"
    "  DEALLOC\n"
    "role load warp:\n"
    "  if cta == 0:\n"
    "    one: arrive_expect_tx full bytes 32768\n"
    "  one: tma_load a -> full @ 0\n"
    "role epi warpgroup:\n"
    "  bar_sync 1, 160\n"
    "  tcgen05_fence_after_thread_sync\n"
    "  WAITwait done parity 0\n"
    "  tcgen05_fence_after_thread_sync\n"
    "  tcgen05_ld acc\n"
    "  tcgen05_wait_ld\n"
    "  tcgen05_fence_before_thread_sync\n"
    "  SYNC2bar_sync 2, 160\n");

// The kernel with its markers taken out (SYNC2: the epilogue done before
// the MMA warp's cluster barrier; WAIT: the epilogue waits for the commit).
std::string unmark(std::string k, const std::string& sync2, const std::string& wait) {
  k = with(with(k, "SYNC2", sync2), "SYNC2", sync2);
  return with(with(k, "WAIT", wait), "DEALLOC", "tcgen05_dealloc acc cta_group 2");
}

std::string pair_fixed() { return unmark(pair_kernel, "", ""); }

}  // namespace

TEST_CASE("cta_group 2: the pair's accumulator in both CTAs, ordered by the multicast commit") {
  const std::string fixed = pair_fixed();
  // The epilogue of either CTA reading its half before the commit's arrival.
  pair(unmark(pair_kernel, "", "# "), "data_race", fixed);
  // A warp deallocating while an epilogue's tcgen05.ld is not ordered before.
  pair(unmark(pair_kernel, "# ", ""), "tmem_dealloc_in_use", fixed);
  // No cluster barrier before the dealloc: CTA 1's warp can deallocate
  // before CTA 0's warp joined the alloc (NVIDIA/cutlass#3435; was
  // verified: the first warp waited for the second).
  pair(with(fixed, "  cluster_sync\n  tcgen05_dealloc", "  tcgen05_dealloc"), "tmem_misuse", fixed);
  // One CTA's warp never joins the collective: the peer's warps must
  // eventually participate (was a deadlock: the first warp waited).
  pair(with(fixed, "  tcgen05_alloc acc cta_group 2\n", "  if cta == 0:\n    tcgen05_alloc acc cta_group 2\n"), "tmem_misuse", fixed);
  // The two warps issue different collectives.
  pair(with(fixed, "  tcgen05_alloc acc cta_group 2\n",
            "  if cta == 0:\n    tcgen05_alloc acc cta_group 2\n  else:\n    tcgen05_dealloc acc cta_group 2\n"),
       "tmem_misuse", fixed);
  // cta_group 1 allocations under a pair MMA: the kernel mixes .cta_group
  // values (tmem_misuse, before any schedule; until issue 62 the search found
  // tmem_unallocated: CTA 1's half is its own warp's, not known to CTA 0's MMA).
  pair(with(with(fixed, "tcgen05_alloc acc cta_group 2", "tcgen05_alloc acc"), "tcgen05_dealloc acc cta_group 2", "tcgen05_dealloc acc"),
       "tmem_misuse", fixed);
  // Without the dealloc: each CTA exits with its half allocated.
  pair(with(fixed, "tcgen05_dealloc acc cta_group 2", ""), "tmem_not_deallocated", fixed);
}

// NVIDIA/cutlass#3435: on sm_103a a CTA's tcgen05.dealloc.cta_group::2
// issued before its peer's tcgen05.alloc.cta_group::2 completed failed every
// time (25 of 25), and a barrier.cluster anywhere between the alloc and the
// dealloc fixed it (0 of 25). With the rendezvous the model took before,
// the dealloc waited and the kernel verified.
TEST_CASE("cta_group 2: a dealloc before the peer CTA's warp joined the alloc is misuse (NVIDIA/cutlass#3435)") {
  const std::string k = pc::testing::started("kernel t\ncluster 2\ntmem acc cols 128\nrole w warp:\n  tcgen05_alloc acc cta_group 2\n"
                                             "SYNC  tcgen05_dealloc acc cta_group 2\n");
  pair(with(k, "SYNC", ""), "tmem_misuse", with(k, "SYNC", "  cluster_sync\n"));
  const check::Result r = run(with(k, "SYNC", ""), false);
  CHECK_MESSAGE(r.message.find("still waits for CTA") != std::string::npos, r.message);
}

// The first warp to deallocate frees both CTAs' halves: every access of
// either must be ordered before it. Each CTA's warp reads its half, then
// deallocates with no cluster barrier in between: the first dealloc frees
// the other CTA's half before its read (the shortest path) or while its
// read is not ordered before (was verified: the first warp waited for the
// second, which checked each access against either warp).
TEST_CASE("cta_group 2: the first dealloc of the pair frees both halves") {
  const std::string k = pc::testing::started(
      "kernel t\ncluster 2\ntmem acc cols 128\nrole w warp:\n  tcgen05_alloc acc cta_group 2\n  cluster_sync\n"
      "  tcgen05_fence_after_thread_sync\n  tcgen05_ld acc\n  tcgen05_wait_ld\n  tcgen05_fence_before_thread_sync\n"
      "SYNC  tcgen05_dealloc acc cta_group 2\n");
  pair(with(k, "SYNC", ""), "tmem_unallocated", with(k, "SYNC", "  cluster_sync\n  tcgen05_fence_after_thread_sync\n"));
}

// Issue 62: "All tcgen05 instructions within a kernel must specify the same
// value for the .cta_group qualifier" (PTX ISA tcgen05.alloc). The pair's
// kernel with its commit as tcgen05.commit.cta_group::1 after the
// .cta_group::2 MMA was verified (the qualifier changed nothing): now
// tmem_misuse, a violation of the checker (exit 1), at the commit's line.
TEST_CASE("cta_group: every tcgen05 instruction of a kernel gives the same value") {
  const std::string fixed = pair_fixed();
  const std::string mixed = with(fixed, "tcgen05_commit done multicast 3 cta_group 2", "tcgen05_commit done multicast 3");
  pair(mixed, "tmem_misuse", fixed);  // was verified
  const dsl::Parsed p = dsl::parse(mixed, "mixed.bk");
  REQUIRE(p.ok());
  const check::Result r = check::check(p.kernel, check::Options{});
  CHECK(r.loc.line == 16);
  CHECK_MESSAGE(r.message.find("tcgen05_commit gives cta_group 1, and tcgen05_alloc at line 9 gives cta_group 2") != std::string::npos,
                r.message);
}

// CTA 0's warp issues a second collective before CTA 1's warp has issued
// its half of the first, and CTA 1's warp waits for CTA 0's arrival after
// it: the second waits (a CTA runs at most one collective ahead: the ISA's
// "could block"), and neither moves again.
TEST_CASE("cta_group 2: a deadlock report names the collective the warp waits in") {
  const std::string k =
      "kernel t\ncluster 2\ntmem acc cols 32\nmbarrier go count 1\n"
      "role w warp:\n"
      "  if cta == 0:\n    tcgen05_alloc acc cta_group 2\n    tcgen05_relinquish_alloc_permit cta_group 2\n    one: arrive go @ 1 release cluster\n"
      "  else:\n    wait go parity 0 acquire cluster\n    tcgen05_alloc acc cta_group 2\n    tcgen05_relinquish_alloc_permit cta_group 2\n"
      "  cluster_sync\n  tcgen05_dealloc acc cta_group 2\n";
  const check::Result r = run(pc::testing::started(k), false);
  REQUIRE(check::outcome_name(r) == "deadlock");
  CHECK_MESSAGE(r.message.find("tcgen05_relinquish_alloc_permit cta_group 2 (CTA 0's last collective waits for CTA 1's half") != std::string::npos,
                r.message);
}

// PTX ISA tcgen05.commit: the mbarrier tracks "the completion of all the
// prior asynchronous tcgen05 operations ... initiated by the executing
// thread. Upon the completion of the tracked asynchronous tcgen05
// operations, the signal ... is triggered by the system on the mbarrier
// object": the arrive-on signals the MMAs' completion; it is no release of
// the committing thread's own accesses (as cp.async.mbarrier.arrive's, which
// the Memory Consistency Model orders with the copies "but not to those of
// any other instruction issued by the thread"). What the MMAs were ordered
// after from other threads stays released with them.
TEST_CASE("tcgen05.commit's arrival releases the MMAs and what they were ordered after, not the thread's own accesses") {
  const std::string k = "kernel t\nsmem A bytes 16384\nsmem B bytes 256\ntmem ACC cols 32\n"
                        "mbarrier ready count 1\nmbarrier done count 1\n"
                        "role loader warp:\nLOADER"
                        "  one: arrive ready\n"
                        "role mma warp:\n"
                        "  tcgen05_alloc ACC\n  tcgen05_relinquish_alloc_permit\n"
                        "  one: wait ready parity 0\n  tcgen05_fence_after_thread_sync\nMMA"
                        "  tcgen05_mma read A into ACC\n  tcgen05_commit done\n"
                        "  wait done parity 0\n  tcgen05_fence_after_thread_sync\n  tcgen05_dealloc ACC\n"
                        "role reader warp:\n"
                        "  one: wait done parity 0\n  one: read B\n";
  // The MMA warp's own store, covered only by the commit: verified before
  // the commit released only the MMA unit's knowledge less the thread's own
  // accesses (a missed race), data_race now. A store by another thread that
  // the MMA warp acquired before its MMA is released with the MMA.
  pair(with(with(k, "LOADER", ""), "MMA", "  one: write B\n"), "data_race", with(with(k, "LOADER", "  one: write B\n"), "MMA", ""));
}

// PTX ISA, "Memory Consistency Model for 5th generation of TensorCore
// operations": tcgen05.fence::before_thread_sync and ::after_thread_sync
// "compose with execution ordering instructions" (tcgen05.fence: "across a
// thread scope"), .relaxed mbarrier arrives and waits included, as in the
// canonical synchronization patterns. Until the model carried this tcgen05
// ordering, each fixed kernel below was data_race (a false alarm).
TEST_CASE("tcgen05 fences compose with relaxed barriers: the ISA's canonical patterns verify") {
  // "Non-pipelined instructions, different thread", example 1: tcgen05.ld,
  // wait::ld, before_thread_sync, mbarrier.arrive.relaxed; then
  // try_wait.relaxed, after_thread_sync, tcgen05.mma into the columns read.
  const std::string ld_mma = "kernel t\nsmem A bytes 16384\ntmem ACC cols 32\nmbarrier freed count 1\nmbarrier done count 1\n"
                             "role mma warp:\n  tcgen05_alloc ACC\n  tcgen05_relinquish_alloc_permit\n  bar_sync 1, 64\n"
                             "WAIT  tcgen05_fence_after_thread_sync\n"
                             "  tcgen05_mma read A into ACC\n  tcgen05_commit done\n  wait done parity 0\n"
                             "  tcgen05_fence_after_thread_sync\n  tcgen05_dealloc ACC\n"
                             "role epilogue warp:\n  bar_sync 1, 64\n  tcgen05_fence_after_thread_sync\n"
                             "  tcgen05_ld ACC\n  tcgen05_wait_ld\nFENCEARRIVE";
  const std::string relaxed = with(with(ld_mma, "WAIT", "  wait freed parity 0 relaxed\n"), "ARRIVE", "  one: arrive freed relaxed\n");
  // Without the before_thread_sync the relaxed arrive orders nothing.
  pair(with(relaxed, "FENCE", ""), "data_race", with(relaxed, "FENCE", "  tcgen05_fence_before_thread_sync\n"));
  // The same through barrier.cluster.arrive.relaxed and barrier.cluster.wait.
  const std::string cluster = with(with(ld_mma, "WAIT", "  cluster_arrive relaxed\n  cluster_wait\n"), "ARRIVE",
                                   "  cluster_arrive relaxed\n  cluster_wait\n");
  pair(with(cluster, "FENCE", ""), "data_race", with(cluster, "FENCE", "  tcgen05_fence_before_thread_sync\n"));

  // Example 2: tcgen05.mma, tcgen05.commit; try_wait.relaxed,
  // after_thread_sync, tcgen05.ld ("No explicit
  // tcgen05.fence::before_thread_sync is needed as this is implicitly
  // performed by tcgen05.commit"). Its broken twin signals with the fence
  // and a relaxed arrive instead of the commit: the fence orders the MMA,
  // it does not wait for it, and a tcgen05.ld is no pipelined consumer.
  const std::string mma_ld = "kernel t\nsmem A bytes 16384\ntmem ACC cols 32\nmbarrier done count 1\nmbarrier fin count 1\n"
                             "role mma warp:\n  tcgen05_alloc ACC\n  tcgen05_relinquish_alloc_permit\n  bar_sync 1, 64\n"
                             "  tcgen05_fence_after_thread_sync\n  tcgen05_mma read A into ACC\nSIGNAL"
                             "  tcgen05_commit fin\n  wait fin parity 0\n  bar_sync 2, 64\n  tcgen05_fence_after_thread_sync\n"
                             "  tcgen05_dealloc ACC\n"
                             "role epilogue warp:\n  bar_sync 1, 64\n  tcgen05_fence_after_thread_sync\n"
                             "  wait done parity 0 relaxed\n  tcgen05_fence_after_thread_sync\n"
                             "  tcgen05_ld ACC\n  tcgen05_wait_ld\n  tcgen05_fence_before_thread_sync\n  bar_sync 2, 64\n";
  pair(with(mma_ld, "SIGNAL", "  tcgen05_fence_before_thread_sync\n  one: arrive done relaxed\n"), "data_race",
       with(mma_ld, "SIGNAL", "  tcgen05_commit done\n"));
}

// "Pipelined instructions, different thread": "In this pattern, no explicit
// waiting mechanism is needed but proper synchronization between threads is
// needed": tcgen05.cp, before_thread_sync, mbarrier.arrive.relaxed.cluster;
// try_wait.relaxed.cluster, after_thread_sync, tcgen05.mma. The MMA is
// ordered after the copy it reads (a pipelined pair), a tcgen05.ld is not
// (it needs the copy's completion).
TEST_CASE("tcgen05.cp then another thread's MMA, fenced with a sync between, needs no wait (pipelined pair)") {
  const std::string k = "kernel t\nsmem A bytes 16384\nsmem S bytes 4096\ntmem ACC[2] cols 64\n"
                        "mbarrier ready count 1\nmbarrier cpdone count 1\nmbarrier done count 1\n"
                        "role copier warp:\n  tcgen05_alloc ACC\n  tcgen05_relinquish_alloc_permit\n  bar_sync 1, 64\n"
                        "  tcgen05_fence_after_thread_sync\n  tcgen05_cp S -> ACC[1]\nFENCE  one: arrive ready relaxed cluster\n"
                        "  tcgen05_commit cpdone\n  wait cpdone parity 0\n"
                        "  bar_sync 2, 64\n  tcgen05_fence_after_thread_sync\n  tcgen05_dealloc ACC\n"
                        "role mma warp:\n  bar_sync 1, 64\n  tcgen05_fence_after_thread_sync\n"
                        "  wait ready parity 0 relaxed cluster\n  tcgen05_fence_after_thread_sync\nUSE"
                        "  tcgen05_fence_before_thread_sync\n  bar_sync 2, 64\n";
  const std::string mma = "  tcgen05_mma read ACC[1], A into ACC[0]\n  tcgen05_commit done\n  wait done parity 0\n"
                          "  tcgen05_fence_after_thread_sync\n";
  const std::string fixed = with(with(k, "FENCE", "  tcgen05_fence_before_thread_sync\n"), "USE", mma);
  // data_race until the model carried the tcgen05 ordering (docs/spec.md
  // named it a false alarm); without the copier's fence, still a race.
  pair(with(with(k, "FENCE", ""), "USE", mma), "data_race", fixed);
  // The same with a bar.sync (release and acquire) between: the fence is
  // still what orders the copy, which the copier does not know complete.
  const std::string bar = with(with(fixed, "  one: arrive ready relaxed cluster\n", "  bar_sync 3, 64\n"),
                               "  wait ready parity 0 relaxed cluster\n", "  bar_sync 3, 64\n");
  pair(with(bar, "  tcgen05_cp S -> ACC[1]\n  tcgen05_fence_before_thread_sync\n", "  tcgen05_cp S -> ACC[1]\n"), "data_race", bar);
  // A tcgen05.ld of the copy's destination is no pipelined consumer: a race.
  CHECK(check::outcome_name(run(with(with(k, "FENCE", "  tcgen05_fence_before_thread_sync\n"), "USE",
                                     "  tcgen05_ld ACC[1]\n  tcgen05_wait_ld\n"),
                                true)) == "data_race");
}
