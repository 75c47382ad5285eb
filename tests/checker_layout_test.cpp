// Memory as it is laid out (docs/dsl.md "Memory layout", docs/spec.md
// "Overlapping buffers"; checker/layout.hpp): a buffer declared with
// `aliases` lies over bytes of another declaration, accesses conflict where
// byte ranges overlap and a race names both ranges, an mbarrier's 8 bytes are
// data only while the object is not live (spec::mbarrier::data_use), and a
// layout that does not fit is a located error.
#include <doctest/doctest.h>

#include <map>
#include <random>
#include <string>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/layout.hpp"
#include "spec/mbarrier.hpp"
#include "tests/kernel_generators.hpp"
#include "tests/kernel_text.hpp"
#include "tests/located_errors.hpp"

using namespace pc;

namespace {

check::Result run(const std::string& text, bool reduction = true) {
  const dsl::Parsed p = dsl::parse(text, "layout.bk");
  const std::string first = p.errors.empty() ? std::string() : p.errors[0].message;
  CAPTURE(first);
  REQUIRE(p.ok());
  check::Options o;
  o.reduction = reduction;
  check::Result r = check::check(p.kernel, o);
  // The plain search agrees on whether there is a violation.
  if (reduction) {
    o.reduction = false;
    CHECK(check::check(p.kernel, o).verdict == r.verdict);
  }
  return r;
}

std::string outcome(const std::string& text) { return check::outcome_name(run(text)); }

using testing::with;

// Two stages of 1024 bytes; `out` lies over bytes 256..1792 of them (or, with
// a smaller size, only over stage 0); the producer writes stage 1, the
// consumer reads `out`.
std::string stages(const std::string& out_bytes, const std::string& order) {
  return "kernel t\nsmem stage[2] bytes 1024\nsmem out bytes " + out_bytes +
         " aliases stage[0] offset 256\nmbarrier full count 1\n"
         "role producer warp:\n  one: write stage[1]\n" +
         (order.empty() ? "" : "  one: arrive full\n") +
         "role consumer warp:\n" + (order.empty() ? "" : "  one: wait full parity 0\n") + "  one: read out\n";
}

const std::string reuse_head =
    "kernel t\nmbarrier bars[2]\nmbarrier land count 1\nsmem scratch bytes 16 aliases bars[0]\n"
    "role w warp:\n  one: init bars[0] count 1\n  one: init bars[1] count 1\n  one: arrive bars[0]\n"
    "  one: wait bars[0] parity 0\n";

}  // namespace

TEST_CASE("layout: byte ranges through aliases of aliases, and which ranges overlap") {
  const dsl::Parsed p = dsl::parse(
      "kernel t\nsmem v[4] bytes 4096\nsmem o[2] bytes 5120 aliases v[1] offset 1024\n"
      "smem head bytes 64 aliases o[1] offset 32\nmbarrier bars[3]\nsmem b bytes 8 aliases bars[2]\n"
      "role w warp:\n  one: read v[0]\n",
      "t.bk");
  REQUIRE(p.ok());
  using check::layout::buffer_range;
  const check::layout::Range o1 = buffer_range(p.kernel, 1, 1);
  CHECK(o1.root.decl == 0);
  CHECK(o1.lo == 4096 + 1024 + 5120);
  CHECK(o1.hi == 4096 + 1024 + 2 * 5120);
  const check::layout::Range head = buffer_range(p.kernel, 2, 0);
  CHECK(head.lo == o1.lo + 32);
  CHECK(head.hi == o1.lo + 96);
  CHECK(head.overlaps(o1));
  CHECK_FALSE(head.overlaps(buffer_range(p.kernel, 1, 0)));
  CHECK(head.overlaps(buffer_range(p.kernel, 0, 2)));  // v[2] is 8192..12288
  CHECK_FALSE(head.overlaps(buffer_range(p.kernel, 0, 3)));
  CHECK_FALSE(buffer_range(p.kernel, 0, 0).overlaps(buffer_range(p.kernel, 1, 0)));  // o[0] starts at 5120, v[0] ends at 4096
  const check::layout::Range b = buffer_range(p.kernel, 3, 0);
  CHECK(b.root.mbar);
  CHECK(b.lo == 16);
  CHECK(b.overlaps(check::layout::mbar_range(p.kernel, 0, 2)));
  CHECK_FALSE(b.overlaps(check::layout::mbar_range(p.kernel, 0, 1)));
  CHECK(check::layout::describe(p.kernel, head) == "v bytes [10272, 10336)");
}

TEST_CASE("layout: accesses conflict where byte ranges overlap, and a race names both ranges") {
  CHECK(outcome(stages("512", "")) == "verified");  // 256..768 of stage 0 only
  const check::Result r = run(stages("1536", ""));
  REQUIRE(check::outcome_name(r) == "data_race");
  CHECK_MESSAGE(r.message.find("out[0] (stage bytes [256, 1792))") != std::string::npos, r.message);
  CHECK_MESSAGE(r.message.find("write of stage[1] (stage bytes [1024, 2048))") != std::string::npos, r.message);
  CHECK(r.earlier.step == 1);  // the producer's write of stage[1], found through the alias
  CHECK(outcome(stages("1536", "ordered")) == "verified");
}

TEST_CASE("layout: the lanes of an all-lane access own their parts within one buffer only") {
  const std::string k =
      "kernel t\nsmem o bytes 4096\nsmem v bytes 4096 aliases o\n"
      "role w warp:\n  all: write o\n  SYNC\n  all: read v\n";
  CHECK(outcome(with(k, "  SYNC\n", "")) == "data_race");  // another lane's part of o may be this lane's part of v
  CHECK(outcome(with(k, "  SYNC\n", "  syncwarp\n")) == "verified");
}

TEST_CASE("layout: an mbarrier's memory is data only while the object is not live") {
  using spec::mbarrier::data_use;
  spec::mbarrier::State s;
  CHECK(data_use(s) == spec::Violation::none);
  s = spec::mbarrier::init(s, 1).next;
  CHECK(data_use(s) == spec::Violation::barrier_memory_reuse);
  s = spec::mbarrier::inval(s).next;
  CHECK(data_use(s) == spec::Violation::none);

  // Both barriers invalidated: the 16 bytes are the thread's to use.
  CHECK(outcome(reuse_head + "  one: inval bars[0]\n  one: inval bars[1]\n  one: write scratch\n  one: read scratch\n") ==
        "verified");
  // bars[1] still live under the second half of scratch.
  const check::Result live = run(reuse_head + "  one: inval bars[0]\n  one: write scratch\n");
  REQUIRE(check::outcome_name(live) == "barrier_memory_reuse");
  CHECK_MESSAGE(live.message.find("bars[1] (bars bytes [8, 16))") != std::string::npos, live.message);
  // A TMA destination over the invalidated barriers: the inval is a generic
  // write, so the async proxy needs fence.proxy.async (docs/spec.md).
  const std::string tma = reuse_head +
                          "  one: inval bars[0]\n  one: inval bars[1]\n  FENCE"
                          "  one: arrive_expect_tx land bytes 16\n  one: tma_load scratch -> land\n  one: wait land parity 0\n";
  CHECK(outcome(with(tma, "  FENCE", "")) == "proxy_race");
  CHECK(outcome(with(tma, "  FENCE", "  one: fence_proxy_async\n")) == "verified");
  // Without inval the TMA lands on a live barrier.
  CHECK(outcome("kernel t\nmbarrier bars[2] count 1\nmbarrier land count 1\nsmem scratch bytes 16 aliases bars[0]\n"
                "role w warp:\n  one: arrive_expect_tx land bytes 16\n  one: tma_load scratch -> land\n"
                "  one: wait land parity 0\n") == "barrier_memory_reuse");
}

TEST_CASE("layout: reuse of barrier memory by another agent is ordered after the inval, and before a new init") {
  // a invalidates `bar` and hands its 8 bytes to b, which writes them; with
  // INIT a re-initialises the barrier after b signals on `back` (a release,
  // or a relaxed arrive that orders nothing).
  const std::string k =
      "kernel t\nmbarrier bar\nmbarrier done count 1\nmbarrier back count 1\nsmem scratch bytes 8 aliases bar\n"
      "role a warp:\n  one: init bar count 1\n  one: inval bar\n  one: arrive done\nINIT"
      "role b warp:\nWAIT  one: write scratch\nBACK";
  auto make = [&](bool ordered, const std::string& back) {
    std::string t = with(k, "WAIT", ordered ? "  one: wait done parity 0\n" : "");
    t = with(t, "BACK", back.empty() ? "" : "  one: arrive back" + back + "\n");
    return with(t, "INIT", back.empty() ? "" : "  one: wait back parity 0\n  one: init bar count 1\n");
  };
  CHECK(outcome(make(true, "")) == "verified");
  // Before the init the write races with it, between init and inval the
  // barrier is live, after the inval the write is not ordered after it.
  const std::string unordered = outcome(make(false, ""));
  CHECK((unordered == "barrier_memory_reuse" || unordered == "data_race"));
  CHECK(outcome(make(true, " release")) == "verified");
  const check::Result init = run(make(true, " relaxed"));
  REQUIRE(check::outcome_name(init) == "data_race");
  CHECK_MESSAGE(init.message.find("mbarrier.init of bar[0] (bar bytes [0, 8))") != std::string::npos, init.message);
  CHECK_MESSAGE(init.message.find("write of scratch[0] (bar bytes [0, 8)) by b") != std::string::npos, init.message);
}

TEST_CASE("layout: an mbarrier placed over another's bytes is initialised only after that one's inval") {
  // The allocator gives b the bytes of a once a is dead (facebookexperimental/
  // triton#462: without an inval, the second init is undefined).
  const std::string k =
      "kernel t\nmbarrier a\nmbarrier b aliases a\nsmem tile bytes 64\nmbarrier c aliases tile offset 8\n"
      "role w warp:\n  one: init a count 1\n  one: arrive a\n  one: wait a parity 0\nINVAL"
      "  one: init b count 1\n  one: arrive b\n  one: wait b parity 0\n  USE\n";
  const check::Result r = run(with(with(k, "INVAL", ""), "  USE\n", ""));
  REQUIRE(check::outcome_name(r) == "reinit_live_barrier");
  CHECK_MESSAGE(r.message.find("its bytes hold a[0] (a bytes [0, 8))") != std::string::npos, r.message);
  const std::string fixed = with(k, "INVAL", "  one: inval a\n");
  CHECK(outcome(with(fixed, "  USE\n", "")) == "verified");
  CHECK(outcome(with(fixed, "  USE\n", "  one: arrive a\n")) == "invalidated_barrier");
  // An mbarrier over data: the data is not touched while it is live.
  CHECK(outcome(with(fixed, "  USE\n", "  one: init c count 1\n  one: write tile\n")) == "barrier_memory_reuse");
  CHECK(outcome(with(fixed, "  USE\n", "  one: write tile\n  one: init c count 1\n  one: inval c\n  one: read tile\n")) ==
        "verified");
}

// Issue 61, item 5: a write of every byte of an alias retires the earlier
// accesses kept under the alias, as it does its own buffer's. A filler warp
// zero-fills `view` and hands over to the producer, whose TMA load then
// overwrites `tile` (the same bytes); the consumer arms the barrier and reads
// `view` once the load lands. The landing releases the copy alone, so only
// the overwrite orders the fill before the read: until this rule the read
// raced with the fill (data_race), and the same kernel with one name verified.
TEST_CASE("layout: a write of every byte of an alias retires the accesses kept under the alias") {
  const std::string k =
      "kernel al\nsmem FIRST\nsmem SECOND\nmbarrier go count 1\nmbarrier full count 1\n"
      "role filler warp:\n  one: write FILL\n  one: arrive go\n"
      "role producer warp:\n  wait go parity 0\n  one: fence_proxy_async\n  one: tma_load tile -> full\n"
      "role consumer warp:\n  one: arrive_expect_tx full bytes 4096\n  wait full parity 0\n  one: read READ\n";
  auto make = [&](const std::string& first, const std::string& second, const std::string& fill, const std::string& read) {
    return testing::with(testing::with(testing::with(testing::with(k, "FIRST", first), "SECOND", second), "FILL", fill), "READ", read);
  };
  const std::string tile = "tile bytes 4096";
  for (bool reduction : {true, false}) {
    CAPTURE(reduction);
    CHECK(check::outcome_name(run(make(tile, "view bytes 4096 aliases tile", "view", "view"), reduction)) == "verified");  // was data_race
    CHECK(check::outcome_name(run(make(tile, "view bytes 4096 aliases tile", "tile", "tile"), reduction)) == "verified");
    // A view of half the tile: covered too.
    CHECK(check::outcome_name(run(make(tile, "view bytes 2048 aliases tile offset 2048", "view", "view"), reduction)) == "verified");
    // Without the overwrite's order the fill still races: the read before the wait.
    CHECK(check::outcome_name(run(testing::with(make(tile, "view bytes 4096 aliases tile", "view", "view"), "  wait full parity 0\n  one: read view\n",
                                                "  one: read view\n  wait full parity 0\n"),
                                  reduction)) == "data_race");
  }
  // The tile over a larger buffer's first half: the load does not cover it,
  // and the read of the whole buffer races with the fill of its other half.
  // A read of the tile alone meets the fill too: a buffer's accesses are not
  // split by bytes (docs/spec.md, on the side of a report).
  CHECK(check::outcome_name(run(make("big bytes 8192", "tile bytes 4096 aliases big", "big", "big"))) == "data_race");
  CHECK(check::outcome_name(run(make("big bytes 8192", "tile bytes 4096 aliases big", "big", "tile"))) == "data_race");
}

TEST_CASE("layout: an alias that does not fit is a located error") {
  const std::string head = "kernel t\nsmem stage[2] bytes 1024\ntmem acc cols 32\nmbarrier bars[2]\n";
  const std::string tail = "role w warp:\n  one: read stage[0]\n";
  testing::check_located_errors({
      {"past the end", head + "smem out bytes 1536 aliases stage[1] offset 256\n" + tail, 5, 29,
       "ends at byte 2816, past the 2048 bytes of the allocation it aliases (stage bytes [0, 2048))"},
      {"base index", head + "smem out bytes 16 aliases stage[2]\n" + tail, 5, 27, "index 2 is outside stage[2]"},
      {"tensor memory", head + "smem t bytes 16 aliases acc\n" + tail, 5, 25, "only shared memory is laid out by aliases"},
      {"unknown", head + "smem u bytes 16 aliases stagee\n" + tail, 5, 25, "did you mean 'stage'"},
      {"later", head + "smem u bytes 16 aliases u\n" + tail, 5, 25, "is not a buffer or mbarrier declared before 'u'"},
      {"mbarrier", head + "smem u bytes 24 aliases bars[0]\n" + tail, 5, 25, "past the 16 bytes"},
      {"offset", head + "smem u bytes 8 aliases stage offset -8\n" + tail, 5, 37, "a byte offset"},
      {"counted mbarrier", head + "mbarrier m count 1 aliases stage\n" + tail, 5, 28, "drop the count"},
      {"unaligned mbarrier", head + "mbarrier m aliases stage offset 4\n" + tail, 5, 20, "aligned to 8 bytes"},
      {"mbarrier past the end", head + "mbarrier m[3] aliases bars[0]\n" + tail, 5, 23, "past the 16 bytes"},
  });
}

TEST_CASE("layout: generated kernels with aliases reach each outcome the layout brings") {
  // tests/checker_por_test.cpp checks the reduction against the plain search
  // on these; here, that they exercise what they are for.
  std::mt19937 rng(20261124);
  std::map<std::string, int> kinds;
  for (int i = 0; i < 150; ++i) {
    const dsl::Parsed p = dsl::parse(testgen::layout_kernel(rng), "gen.bk");
    if (!p.ok()) continue;
    ++kinds[check::outcome_name(check::check(p.kernel, check::Options{}))];
  }
  std::string seen;
  for (const auto& [k, n] : kinds) seen += " " + k + ":" + std::to_string(n);
  MESSAGE("outcomes:" << seen);
  CHECK(kinds["verified"] > 0);
  CHECK(kinds["data_race"] > 0);
  CHECK(kinds["barrier_memory_reuse"] > 0);
}
