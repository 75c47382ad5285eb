// The warps of a role (docs/dsl.md, "Warps of a role"): a role whose body
// reads `warp` is split into one agent per warp, whose warps interleave and
// branch apart; its one-lane operations outside a condition on `warp` are
// warp 0's lane 0; `if lane == 0:` is the elected lane of each warp; a
// warp-group instruction needs whole warp groups and no condition on `warp`,
// and a wgmma in a split role is one operation its four warps join.
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

dsl::Parsed parsed(const std::string& text) {
  dsl::Parsed p = dsl::parse(text, "warps.bk");
  const std::string first = p.errors.empty() ? std::string() : p.errors[0].message;
  CAPTURE(first);
  REQUIRE(p.ok());
  return p;
}

std::string outcome(const std::string& text) { return testing::agreed_outcome(text); }

using testing::with;

// FlashAttention-3's epilogue (hopper/epilogue_fwd.hpp, CollectiveEpilogueFwd::store):
// every epilogue thread writes its part of O, fences and arrives on the
// epilogue barrier counted for them plus one warp; the last warp also syncs
// on it, then its elected lane stores O with TMA and signals the producer.
const std::string epilogue =
    "kernel epi\n"
    "smem o[2] bytes 8192\n"
    "mbarrier done[1] count 1\n"
    "role mma warpgroup x 2:\n"
    "  all: write o[instance]\n"
    "  FENCE\n"
    "  bar_arrive 1, 288\n"
    "  if instance == 1 && warp == 3:\n"
    "    SYNC\n"
    "    if lane == 0:\n"
    "      tma_store o[0]\n"
    "      tma_store o[1]\n"
    "      commit_group\n"
    "      wait_group_read 0\n"
    "      arrive done[0]\n"
    "role producer warp:\n"
    "  wait done[0] parity 0\n"
    "  one: write o[0], o[1]\n";

std::string epi(const std::string& fence, const std::string& sync) {
  return with(with(epilogue, "FENCE", fence), "SYNC", sync);
}

}  // namespace

TEST_CASE("warps: a role that reads `warp` is one agent per warp, named and numbered by it") {
  const dsl::Parsed p = parsed(epi("fence_proxy_async", "bar_sync 1, 288"));
  CHECK(p.kernel.roles[0].per_warp);
  CHECK_FALSE(p.kernel.roles[1].per_warp);
  const check::Program prog = check::instantiate(p.kernel);
  REQUIRE(prog.agents.size() == 9);
  for (int a = 0; a < 8; ++a) {
    CAPTURE(a);
    CHECK(prog.agents[a].warps == 1);
    CHECK(prog.agents[a].threads == 32);
    CHECK(prog.agents[a].instance == a / 4);
    CHECK(prog.agents[a].warp == a % 4);
    CHECK(prog.agents[a].parts == a / 4 * 4);  // the instance's lanes own their parts together
    CHECK(prog.agents[a].name == "mma#" + std::to_string(a / 4) + ".warp" + std::to_string(a % 4));
  }
  CHECK(prog.cta_threads[0] == 288);
  // A role that does not read `warp` stays one agent of its warps.
  const dsl::Parsed q = parsed(with(with(epi("fence_proxy_async", "bar_sync 1, 288"), "instance == 1 && warp == 3", "instance == 1"),
                                    "if lane == 0:", "if instance == 1:"));
  CHECK_FALSE(q.kernel.roles[0].per_warp);
  CHECK(check::instantiate(q.kernel).agents.size() == 3);
}

TEST_CASE("warps: the FlashAttention-3 epilogue verifies; without the last warp's sync or the fence it races") {
  CHECK(outcome(epi("fence_proxy_async", "bar_sync 1, 288")) == "verified");
  // Any warp of the last instance may be the one that stores.
  CHECK(outcome(with(epi("fence_proxy_async", "bar_sync 1, 288"), "warp == 3", "warp == 0")) == "verified");
  // The storing warp only arrived: the other warps' writes may still be under way.
  CHECK(outcome(epi("fence_proxy_async", "syncwarp")) == "data_race");
  CHECK(outcome(epi("syncwarp", "bar_sync 1, 288")) == "proxy_race");
  // Counted without the extra warp: the last warp's sync may fill the count
  // before another warp has written its part.
  CHECK(outcome(with(with(epi("fence_proxy_async", "bar_sync 1, 288"), "bar_arrive 1, 288", "bar_arrive 1, 256"),
                     "bar_sync 1, 288", "bar_sync 1, 256")) == "data_race");
}

TEST_CASE("warps: outside a condition on `warp`, a one-lane operation is warp 0's; `if lane == 0:` is every warp's lane 0") {
  const std::string k =
      "kernel lanes\n"
      "mbarrier m[1] count COUNT\n"
      "role w warpgroup:\n"
      "  if warp == 1:\n"
      "    syncwarp\n"
      "  ARRIVE\n"
      "role c warp:\n"
      "  wait m[0] parity 0\n";
  auto kernel = [&](const std::string& count, const std::string& arrive) { return with(with(k, "COUNT", count), "ARRIVE", arrive); };
  // One arrival (lane 0 of warp 0), not one per warp.
  CHECK(outcome(kernel("1", "one: arrive m[0]")) == "verified");
  CHECK(outcome(kernel("2", "one: arrive m[0]")) == "deadlock");
  CHECK(outcome(kernel("4", "if lane == 0:\n    arrive m[0]")) == "verified");
  CHECK(outcome(kernel("4", "each: arrive m[0]")) == "verified");
  CHECK(outcome(kernel("128", "all: arrive m[0]")) == "verified");
  // The same in a role that is not split (no `warp`): the agent's leader.
  const std::string plain = with(kernel("2", "one: arrive m[0]"), "  if warp == 1:\n    syncwarp\n", "");
  CHECK(outcome(plain) == "deadlock");
  // In a warp's own branch, its own lane 0.
  CHECK(outcome(kernel("2", "if warp >= 2:\n    one: arrive m[0]")) == "verified");
  // `if lane == 0:` in a role of one warp is `one:`.
  const dsl::Parsed one = parsed("kernel l\nmbarrier m[1] count 1\nrole w warp:\n  if lane == 0:\n    arrive m[0]\n    init m[0] count 1\n");
  CHECK(one.kernel.roles[0].body.size() == 2);
  CHECK(one.kernel.roles[0].body[0].op.lanes == ir::Lanes::one);
  CHECK(one.kernel.roles[0].body[1].op.lanes == ir::Lanes::one);
}

TEST_CASE("warps: the warps of a split role interleave, so a schedule that needs them in step is caught") {
  // Warp 1 waits for a barrier that warp 0 arrives on after its own wait for
  // the consumer: fine for split warps, a deadlock if the warps ran in step.
  const std::string k =
      "kernel skew\n"
      "mbarrier a[1] count 1\n"
      "mbarrier b[1] count 1\n"
      "role w warps 2:\n"
      "  if warp == 0:\n"
      "    one: arrive a[0]\n"
      "    wait b[0] parity 0\n"
      "  else:\n"
      "    wait a[0] parity 0\n"
      "    one: arrive b[0]\n";
  CHECK(outcome(k) == "verified");
  // Each warp's tcgen05.alloc is its own: one warp of four allocates.
  CHECK(outcome("kernel alloc\ntmem acc[1] cols 32\nrole w warpgroup:\n  if warp == 2:\n    tcgen05_alloc acc\n"
                "    tcgen05_relinquish_alloc_permit\n    tcgen05_dealloc acc\n") == "verified");
}

TEST_CASE("warps: symmetry leaves split roles alone and still reduces plain ones") {
  const std::string k =
      "kernel sym\n"
      "smem a[2] bytes 64\n"
      "role w warps 2 x 3:\n"
      "  all: write a[0]\n";
  CHECK(outcome(k) == "data_race");
  CHECK(outcome(with(k, "all: write a[0]", "if warp == 0:\n    one: read a[1]\n  else:\n    all: read a[1]")) == "verified");
}

TEST_CASE("warps: bad input is a located error") {
  const std::string k = "kernel e\nsmem a[1] bytes 64\nmbarrier m[1] count 1\ntmem t[1] cols 32\n";
  testing::check_located_errors({
      {"wgmma in a warp role", k + "role r warp:\n  wgmma_fence\n", 6, 3, "'wgmma_fence' is a warp-group instruction"},
      {"wgmma in 6 warps", k + "role r warps 6:\n  wgmma read a[0]\n", 6, 3, "role 'r' has 6 warps"},
      {"wgmma under warp", k + "role r warpgroup:\n  if warp == 0:\n    wgmma_commit\n", 7, 5, "cannot be under a condition on 'warp'"},
      {"wgmma under a value of warp", k + "role r warpgroup:\n  w = warp * 2\n  for i in 0 .. w:\n    wgmma_wait 0\n", 8, 5,
       "cannot be under a condition on 'warp'"},
      {"alloc by four warps", k + "role r warpgroup:\n  if warp == 0:\n    syncwarp\n  tcgen05_alloc t\n", 8, 3,
       "'tcgen05_alloc' is performed by one warp"},
      {"result of warp 0", k + "role r warps 2:\n  if warp == 0:\n    syncwarp\n  x = one: arrive m[0]\n", 8, 3, "runs in warp 0 only"},
      {"lane in an expression", k + "role r warp:\n  x = lane + 1\n", 6, 7, "'lane' can only be tested as 'if lane == 0:'"},
      {"lane other than 0", k + "role r warp:\n  if lane == 1:\n    syncwarp\n", 6, 6, "'lane' can only be tested"},
      {"else after lane", k + "role r warp:\n  if lane == 0:\n    arrive m[0]\n  else:\n    syncwarp\n", 8, 3, "has no 'else'"},
      {"assignment under lane", k + "role r warp:\n  if lane == 0:\n    x = 1\n", 7, 5, "an assignment under 'if lane == 0:'"},
      {"aligned under lane", k + "role r warp:\n  if lane == 0:\n    bar_sync 1, 32\n", 7, 5, "cannot be under 'if lane == 0:'"},
      {"prefix under lane", k + "role r warp:\n  if lane == 0:\n    all: arrive m[0]\n", 7, 5, "remove the prefix"},
      {"tma under lane in 4 warps", k + "role r warpgroup:\n  if lane == 0:\n    tma_store a[0]\n", 7, 5, "issued by lane 0 of each of the 4 warps"},
      {"warp assigned", k + "role r warp:\n  warp = 1\n", 6, 3, "'warp' is a builtin"},
      {"lane as loop variable", k + "role r warp:\n  for lane in 0 .. 2:\n    syncwarp\n", 6, 7, "'lane' is a builtin"},
  });
  // Under `if warp == K:` a leader's operation and an allocation are that warp's.
  CHECK(dsl::parse(k + "role r warpgroup:\n  if warp == 3:\n    if lane == 0:\n      tma_store a[0]\n    tcgen05_alloc t\n", "t.bk").ok());
}

namespace {

// An MMA warp group split per warp (its last warp does one more step, as
// FlashAttention-3's epilogue does): every warp waits for the stage, joins
// the warp group's wgmma and waits for it; warp 0 alone releases the stage
// to the producer, which refills it.
const std::string wgmma_split =
    "kernel wg\nparam K = 4\nsmem kv[2] bytes 8192\nsmem o bytes 4096\nmbarrier full[2] count 1\nmbarrier empty[2] count 1\n"
    "role producer warp:\n"
    "  for k in 0 .. K:\n"
    "    s = k % 2\n"
    "    wait empty[s] parity (k / 2 + 1) % 2\n"
    "    one: arrive_expect_tx full[s] bytes 8192\n"
    "    one: tma_load kv[s] -> full[s]\n"
    "role mma warpgroup:\n"
    "  wgmma_fence\n"
    "  for k in 0 .. K:\n"
    "    s = k % 2\n"
    "    wait full[s] parity (k / 2) % 2\n"
    "    wgmma read kv[s]\n"
    "    wgmma_commit\n"
    "    WAITwgmma_wait 0\n"
    "    if warp == 0:\n"
    "      one: arrive empty[s]\n"
    "  all: write o\n"
    "  if warp == 3:\n"
    "    bar_sync 1, 128\n"
    "  else:\n"
    "    bar_arrive 1, 128\n";

}  // namespace

TEST_CASE("warps: a wgmma in a split role is one operation of the warp group's four warps") {
  const std::string fixed = with(wgmma_split, "WAIT", "");
  // Warp 0's wait covers the whole operation, whose reads come after all
  // four warps joined: its release of the stage orders the refill after them.
  const check::Result r = testing::agreed_check(fixed);
  CHECK(check::outcome_name(r) == "verified");
  CHECK(r.warnings.empty());
  // Released before the wait: the refill races with the warp group's reads.
  CHECK(outcome(with(wgmma_split, "WAIT", "# ")) == "data_race");
  // A warp that leaves before joining: the others wait for it forever.
  const check::Result d = testing::agreed_check(with(fixed, "  wgmma_fence\n", "  if warp == 1:\n    exit\n  wgmma_fence\n"));
  REQUIRE(check::outcome_name(d) == "deadlock");
  CHECK_MESSAGE(d.message.find("waits at wgmma (joined; waits for the other warps of its warp group)") != std::string::npos, d.message);
  // An operand the warps wrote themselves: as in a warp group that is not
  // split, every thread fences its part for the async proxy and a barrier
  // of the four warps comes before the operation that reads them all.
  const std::string own = with(with(fixed, "  wgmma_fence\n", "  all: write o\n  FENCE\n  SYNC\n  wgmma_fence\n"), "wgmma read kv[s]",
                               "wgmma read kv[s], o");
  CHECK(outcome(with(with(own, "FENCE", "fence_proxy_async"), "SYNC", "bar_sync 2, 128")) == "verified");
  CHECK(outcome(with(with(own, "FENCE", ""), "SYNC", "bar_sync 2, 128")) == "proxy_race");
  CHECK(outcome(with(with(own, "FENCE", "fence_proxy_async"), "SYNC", "")) == "data_race");
}
