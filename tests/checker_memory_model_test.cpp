// The memory model at the granularity the PTX ISA orders it (docs/spec.md,
// "Happens-before and proxies", "Stances"): for each point, the minimal kernel
// that shows it gets its verdict and the corrected form verifies, with and
// without reductions.
#include <doctest/doctest.h>

#include <string>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "tests/kernel_text.hpp"

using namespace pc;
using pc::testing::started;

namespace {

check::Result run(const std::string& text, bool reduction, bool strict = false) {
  const dsl::Parsed p = dsl::parse(text, "mm.bk");
  REQUIRE(p.ok());
  check::Options o;
  o.reduction = reduction;
  o.strict = strict;
  return check::check(p.kernel, o);
}

// `text` with `marker` replaced by `by`.
std::string with(std::string text, const std::string& marker, const std::string& by) {
  text.replace(text.find(marker), marker.size(), by);
  return text;
}

// `bug` gets violation `kind`; `fixed` verifies with no warning.
void pair(const std::string& bug, const char* kind, const std::string& fixed) {
  for (bool reduction : {true, false}) {
    CAPTURE(reduction);
    const check::Result b = run(bug, reduction);
    CAPTURE(bug);
    CHECK(check::outcome_name(b) == kind);
    const check::Result f = run(fixed, reduction);
    CAPTURE(fixed);
    CHECK(check::outcome_name(f) == "verified");
    CHECK(f.warnings.empty());
  }
}

}  // namespace

TEST_CASE("syncwarp orders the lanes of one warp, not a warp group; each: arrives once per warp") {
  const std::string head = "kernel wg\nsmem out[1] bytes 16384\nmbarrier done[1] count C\nrole producer warpgroup:\n  all: write out[0]\n";
  const std::string tail = "role consumer warp:\n  wait done[0] parity 0\n  all: read out[0]\n";
  auto k = [&](const std::string& count, const std::string& sync) { return with(head, " C\n", " " + count + "\n") + sync + tail; };
  pair(k("1", "  syncwarp\n  one: arrive done[0]\n"), "data_race", k("1", "  bar_sync 1, 128\n  one: arrive done[0]\n"));
  pair(k("4", "  each: arrive done[0]\n"), "data_race", k("4", "  syncwarp\n  each: arrive done[0]\n"));
}

TEST_CASE("a leader's wait_group_read orders the TMA store's reads before the leader only") {
  const std::string k = "kernel st\nsmem stage[1] bytes 4096\nrole epilogue warp:\n  all: write stage[0]\n"
                        "  all: fence_proxy_async\n  syncwarp\n  one: tma_store stage[0]\n  commit_group\n"
                        "  wait_group_read 0\n";
  pair(k + "  all: write stage[0]\n", "data_race", k + "  syncwarp\n  all: write stage[0]\n");
}

TEST_CASE("two cp.async of one agent into one buffer conflict until a wait orders them") {
  const std::string k = "kernel cp\nsmem buf[1] bytes 4096\nmbarrier done[1] count 32\nrole loader warp:\n"
                        "  all: cp_async buf[0]\n";
  pair(k + "  all: cp_async buf[0]\n  all: cp_async_arrive done[0] noinc\n  wait done[0] parity 0\n", "data_race",
       k + "  all: cp_async_arrive done[0] noinc\n  wait done[0] parity 0\n  all: cp_async buf[0]\n"
           "  all: cp_async_arrive done[0] noinc\n  wait done[0] parity 1\n  all: read buf[0]\n");
}

TEST_CASE("scopes: a .cta acquire does not synchronise with another CTA's release") {
  auto k = [](const std::string& arrive, const std::string& wait) {
    return started("kernel sc\ncluster 2\nsmem inbox[1] bytes 1024\nmbarrier ready[1] count 1\nrole sender warp on cta 0:\n"
                   "  all: write inbox[0] @ 1\n  syncwarp\n  one: arrive ready[0] @ 1 " + arrive + "\n"
                   "role receiver warp on cta 1:\n  wait ready[0] parity 0" + wait + "\n  all: read inbox[0]\n");
  };
  pair(k("release cta", " acquire cluster"), "scope_race", k("release cluster", " acquire cluster"));
  pair(k("release cta", ""), "scope_race", k("release cluster", " acquire cluster"));
  const check::Result r = run(k("release cta", ""), true);
  CHECK(r.message.find(".acquire.cluster") != std::string::npos);  // the report names the fix
  // Another CTA's .release.cluster with a .cta acquire: not morally strong by
  // the ISA's letter, ordered by the stance of docs/spec.md ("Stances"): the
  // warning scope_cta_acquire at the wait, an error under --strict.
  for (bool reduction : {true, false}) {
    const check::Result w = run(k("release cluster", ""), reduction);
    CHECK(check::outcome_name(w) == "verified");
    REQUIRE(w.warnings.size() == 1);
    CHECK(w.warnings[0].kind == spec::Violation::scope_cta_acquire);
    CHECK(w.warnings[0].loc.line == 12);  // the wait
    CHECK(w.warnings[0].message.find("wait with .acquire.cluster") != std::string::npos);
    CHECK(check::outcome_name(run(k("release cluster", ""), reduction, true)) == "scope_cta_acquire");
  }
  // A wait that acquires nothing from another CTA is not warned about.
  CHECK(run(with(k("release cluster", ""), "  all: write inbox[0] @ 1\n  syncwarp\n", ""), true).warnings.empty());
}

// Issue 61, one stance per edge: a .cta release from another CTA is the same
// edge wherever it lies in a chain. x (CTA 1) accesses q and arrives on
// CTA 0's b0 at .release.cta; y (CTA 0) passes it and releases to w in its
// own CTA; w arrives on CTA 1's b2 at .release.cluster; z (CTA 1) passes it
// and accesses q. Until this rule only the direct case was the scope's:
// the chain was a data_race.
TEST_CASE("scopes: a chain through another CTA's .cta release gets the direct edge's verdict") {
  auto k = [](const std::string& first, const std::string& scope, const std::string& last) {
    return started("kernel chain\ncluster 2\nsmem q bytes 64\nmbarrier b0 count 1\nmbarrier b1 count 1\nmbarrier b2 count 1\n"
                   "role x warp on cta 1:\n  one: " + first + " q\n  one: arrive b0 @ 0 " + scope + "\n"
                   "role y warp on cta 0:\n  wait b0 parity 0 acquire cluster\n  one: arrive b1\n"
                   "role w warp on cta 0:\n  wait b1 parity 0\n  one: arrive b2 @ 1 release cluster\n"
                   "role z warp on cta 1:\n  wait b2 parity 0 acquire cluster\n  one: " + last + " q\n");
  };
  for (bool reduction : {true, false}) {
    CAPTURE(reduction);
    // An overwrite: the scope_war warning, an error under --strict.
    const check::Result war = run(k("read", "release cta", "write"), reduction);
    CHECK(check::outcome_name(war) == "verified");
    REQUIRE(war.warnings.size() == 1);
    CHECK(war.warnings[0].kind == spec::Violation::scope_war);
    CHECK(war.warnings[0].loc.line == 22);  // z's write
    CHECK(check::outcome_name(run(k("read", "release cta", "write"), reduction, true)) == "scope_war");
    // A read of the first write: scope_race, with the fix named.
    const check::Result raw = run(k("write", "release cta", "read"), reduction);
    CHECK(check::outcome_name(raw) == "scope_race");
    CHECK(raw.message.find(".release.cluster") != std::string::npos);
    // With the first edge at .cluster scope both are ordered.
    CHECK(run(k("read", "release cluster", "write"), reduction).warnings.empty());
    CHECK(check::outcome_name(run(k("write", "release cluster", "read"), reduction)) == "verified");
  }
  // A second path that orders the access wins over the chain: x also
  // releases into a barrier of its own CTA that z acquires.
  std::string both = with(k("write", "release cta", "read"), "mbarrier b2 count 1\n", "mbarrier b2 count 1\nmbarrier b3 count 1\n");
  both = with(both, "  one: arrive b0 @ 0 release cta\n", "  one: arrive b0 @ 0 release cta\n  one: arrive b3\n");
  both = with(both, "  one: read q\n", "  wait b3 parity 0\n  one: read q\n");
  for (bool reduction : {true, false}) {
    const check::Result r = run(both, reduction);
    CHECK(check::outcome_name(r) == "verified");
    CHECK(r.warnings.empty());
  }
}

// Issue 61: a TMA load's complete-tx "has .release semantics at the .cluster
// scope" (PTX ISA cp.async.bulk). Into another CTA's barrier (multicast, or
// `@`), a .cta wait there is not morally strong with it: ordered under the
// stance scope_cta_acquire, a warning, as st.async's complete-tx is. Until
// this rule the landing was taken as a release from the barrier's own CTA.
TEST_CASE("scopes: a TMA load into another CTA's barrier releases at .cluster scope") {
  auto k = [](const std::string& wait) {
    return started("kernel mc\ncluster 2\nsmem b bytes 4096\nmbarrier full count 1\n"
                   "role producer warp on cta 0:\n  one: arrive_expect_tx full bytes 4096\n  one: tma_load b -> full multicast 2\n"
                   "role other warp on cta 1:\n  one: arrive_expect_tx full bytes 4096\n"
                   "role consumer warp on cta 1:\n  wait full parity 0" + wait + "\n  all: read b\n");
  };
  for (bool reduction : {true, false}) {
    CAPTURE(reduction);
    const check::Result w = run(k(""), reduction);
    CHECK(check::outcome_name(w) == "verified");
    REQUIRE(w.warnings.size() == 1);
    CHECK(w.warnings[0].kind == spec::Violation::scope_cta_acquire);
    CHECK(w.warnings[0].message.find("TMA load") != std::string::npos);
    CHECK(check::outcome_name(run(k(""), reduction, true)) == "scope_cta_acquire");
    CHECK(run(k(" acquire cluster"), reduction).warnings.empty());
  }
  // Into the issuer's own CTA a .cta wait synchronises.
  const std::string own = "kernel own\ncluster 2\nsmem b bytes 4096\nmbarrier full count 1\n"
                          "role producer warp on cta 0:\n  one: arrive_expect_tx full bytes 4096\n  one: tma_load b -> full multicast 1\n"
                          "role consumer warp on cta 0:\n  wait full parity 0\n  all: read b\n";
  CHECK(run(own, true).warnings.empty());
  CHECK(check::outcome_name(run(own, true)) == "verified");
}

TEST_CASE("a thread's own generic write needs fence.proxy.async before its own async-proxy access") {
  const std::string k = "kernel own\nsmem out[1] bytes 4096\nrole epilogue warp:\n  one: write out[0]\n";
  const std::string store = "  one: tma_store out[0]\n  commit_group\n  wait_group_read 0\n";
  pair(k + store, "proxy_race", k + "  one: fence_proxy_async\n" + store);
}

// fence.proxy.async{.global|.shared::cta|.shared::cluster} (PTX ISA
// membar/fence, ".proxykind = { .alias, .async, .async.global,
// .async.shared::{cta, cluster} }"): a fence restricted to a state space
// orders only the accesses to it. Before issue 62 `.bk` had the unrestricted
// fence only.
TEST_CASE("a proxy fence restricted to a state space orders only that space's accesses") {
  const std::string k = "kernel own\nsmem out[1] bytes 4096\nrole epilogue warp:\n  one: write out[0]\n";
  const std::string store = "  one: tma_store out[0]\n  commit_group\n  wait_group_read 0\n";
  pair(k + "  one: fence_proxy_async global\n" + store, "proxy_race", k + "  one: fence_proxy_async shared_cta\n" + store);
  pair(k + "  one: fence_proxy_async global\n" + store, "proxy_race", k + "  one: fence_proxy_async shared_cluster\n" + store);
  // A generic write into the peer CTA's shared memory, read there by a TMA
  // store: the writer's .shared::cta fence does not reach the peer's memory.
  const std::string dsm = started("kernel dsm\ncluster 2\nsmem out[1] bytes 4096\nrole w warp:\n"
                          "  if cta == 0:\n    one: write out[0] @ 1\n    one: fence_proxy_async SPACE\n"
                          "  cluster_sync\n  if cta == 1:\n    one: tma_store out[0]\n    commit_group\n    wait_group_read 0\n"
                          "  cluster_sync\n");
  pair(with(dsm, "SPACE", "shared_cta"), "proxy_race", with(dsm, "SPACE", "shared_cluster"));
  pair(with(dsm, "SPACE", "global"), "proxy_race", with(dsm, "SPACE", ""));
}

// Global memory (`gmem`): fence.proxy.async.global orders its generic and
// async-proxy accesses, the shared-memory forms do not (PTX ISA membar/fence:
// ".async.global" and ".async.shared::{cta, cluster}" restrict the fence to
// that state space). Until issue 62 `.global` ordered nothing (the model's
// buffers were all shared when it was written: a false alarm) and
// `.shared::cta` in CTA 0 ordered global memory (its instances lie in CTA 0's
// range: a miss).
TEST_CASE("fence.proxy.async.global orders global memory, and only it") {
  const std::string k = "kernel g\ngmem g bytes 4096\nsmem s bytes 4096\nmbarrier full count 1\nrole w warp:\n"
                        "  all: write g\n  all: fence_proxy_async SPACE\n  syncwarp\n"
                        "  one: arrive_expect_tx full bytes 4096\n  one: tma_load s -> full from g\n"
                        "  wait full parity 0\n  all: read s\n";
  pair(with(k, "SPACE", "shared_cta"), "proxy_race", with(k, "SPACE", "global"));
  pair(with(k, "SPACE", "shared_cluster"), "proxy_race", with(k, "SPACE", ""));
  // A shared buffer is not reached by the .global form.
  const std::string own = "kernel own\nsmem out[1] bytes 4096\ngmem g bytes 64\nrole epilogue warp:\n  one: write out[0]\n";
  const std::string store = "  one: tma_store out[0]\n  commit_group\n  wait_group_read 0\n";
  pair(own + "  one: fence_proxy_async global\n" + store, "proxy_race", own + "  one: fence_proxy_async shared_cta\n" + store);
  // The message names the state space.
  const std::string bad = with(k, "SPACE", "shared_cta");
  const dsl::Parsed p = dsl::parse(bad, "mm.bk");
  REQUIRE(p.ok());
  CHECK(check::check(p.kernel, check::Options{}).message.find("reaches global memory") != std::string::npos);
}

// fence.release.sync_restrict::shared::cta "only applies to operations
// performed on objects in .shared::cta state space": a write of global memory
// before it is not released (until issue 62 it was, in CTA 0).
TEST_CASE("fence.release restricted to shared::cta does not release global memory") {
  const std::string k = "kernel r\nSPACE d bytes 64\nmbarrier ready count 1\nrole writer warp:\n  one: write d\n"
                        "  one: fence_release cluster shared_cta\n  one: arrive ready relaxed cluster\n"
                        "role reader warp:\n  wait ready parity 0 relaxed cluster\n  fence_acquire cluster\n  one: read d\n";
  pair(with(k, "SPACE", "gmem"), "data_race", with(k, "SPACE", "smem"));
}

// The one-way generic-to-async proxy fences (PTX ISA membar/fence,
// "fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster;
// fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster"):
// "A uni-directional proxy ordering from the from-proxykind to the
// to-proxykind establishes ordering between a prior memory access performed
// via the from-proxykind and a subsequent memory access performed via the
// to-proxykind", each restricted to its state space. Before issue 62 `.bk`
// could not write them.
TEST_CASE("the one-way proxy fences order generic accesses before async ones, each in its state space") {
  const std::string k = "kernel own\nsmem out[1] bytes 4096\nrole epilogue warp:\n  one: write out[0]\n";
  const std::string store = "  one: tma_store out[0]\n  commit_group\n  wait_group_read 0\n";
  pair(k + store, "proxy_race", k + "  one: fence_proxy_async release\n" + store);
  pair(k + store, "proxy_race", k + "  one: fence_proxy_async acquire\n" + store);
  // The release form reaches only the CTA's own shared memory (.shared::cta).
  const std::string dsm = started("kernel dsm\ncluster 2\nsmem out[1] bytes 4096\nrole w warp:\n"
                          "  if cta == 0:\n    one: write out[0] @ 1\n    one: fence_proxy_async SEM\n"
                          "  cluster_sync\n  if cta == 1:\n    one: tma_store out[0]\n    commit_group\n    wait_group_read 0\n"
                          "  cluster_sync\n");
  pair(with(dsm, "SEM", "release"), "proxy_race", with(dsm, "SEM", "acquire"));
  // The PTX ISA's own pattern ("Acquire remote barrier state via async
  // proxy"): another thread's generic write, acquired through the cluster
  // barrier, then the acquire proxy fence, then the async-proxy read.
  const std::string remote = started("kernel acq\ncluster 2\nsmem out[1] bytes 4096\n"
                             "role w warp on cta 0:\n  one: write out[0] @ 1\n  cluster_sync\n  cluster_sync\n"
                             "role r warp on cta 1:\n  cluster_sync\nFENCE  one: tma_store out[0]\n  commit_group\n"
                             "  wait_group_read 0\n  cluster_sync\n");
  pair(with(remote, "FENCE", ""), "proxy_race",
       with(remote, "FENCE", "  one: fence_proxy_async acquire\n"));
}

// fence.release and fence.acquire (PTX ISA membar/fence, PTX ISA 8.6): each
// half of fence.acq_rel alone, with the release and acquire patterns of the
// Memory Consistency Model; the .sync_restrict forms ("the effect of the
// fence only applies to operations performed on objects in .shared::cta
// [.shared::cluster] state space"). Before issue 62 `.bk` could not write them.
TEST_CASE("fence.release and fence.acquire form the release and the acquire pattern, each alone") {
  const std::string release = "kernel rel\nsmem d[1] bytes 64\nmbarrier m[1] count 1\nrole p warp:\n  one: write d[0]\n"
                              "FENCE  one: arrive m[0] relaxed\nrole c warp:\n  wait m[0] parity 0\n  one: read d[0]\n";
  pair(with(release, "FENCE", "  one: fence_acquire cta\n"), "data_race", with(release, "FENCE", "  one: fence_release cta\n"));
  pair(with(release, "FENCE", ""), "data_race", with(release, "FENCE", "  one: fence_release cluster shared_cta\n"));
  const std::string acquire = "kernel acq\nsmem d[1] bytes 64\nmbarrier m[1] count 1\nrole p warp:\n  one: write d[0]\n"
                              "  one: arrive m[0]\nrole c warp:\n  wait m[0] parity 0 relaxed\nFENCE  one: read d[0]\n";
  pair(with(acquire, "FENCE", "  fence_release cta\n"), "data_race", with(acquire, "FENCE", "  fence_acquire cta\n"));
  pair(with(acquire, "FENCE", ""), "data_race", with(acquire, "FENCE", "  fence_acquire cluster shared_cluster\n"));
  // The PTX ISA's pattern "Release local shared memory via generic proxy":
  // fence.release.sync_restrict::shared::cta.cluster, then a relaxed remote
  // arrive. It releases the CTA's own shared memory only: a write into the
  // peer's memory is not released by it, but is by the unrestricted fence.
  const std::string remote = started("kernel rr\ncluster 2\nsmem d[1] bytes 64\nmbarrier m[1] count 1\n"
                             "role p warp on cta 0:\n  one: write d[0] @ WHERE\n  one: fence_release cluster FENCE\n"
                             "  one: arrive m[0] @ 1 relaxed cluster\n  cluster_sync\n"
                             "role c warp on cta 1:\n  wait m[0] parity 0 acquire cluster\n  one: read d[0] @ READ\n  cluster_sync\n");
  auto at = [&](const char* cta, const char* fence) { return with(with(with(remote, "WHERE", cta), "READ", cta), "FENCE", fence); };
  CHECK(check::outcome_name(run(at("0", "shared_cta"), true)) == "verified");
  pair(at("1", "shared_cta"), "data_race", at("1", ""));
}

// The bar_sync_acquire stance (docs/spec.md, "Stances"): a .relaxed
// mbarrier wait, then bar.sync, as the acquire of what the wait observed
// (CCCL's for_each_canceled_block; the H200, harness test
// relaxed_wait_barsync: no stale read in 1.15e12 instances behind a TMA
// load). Before the stance: data_race.
TEST_CASE("bar.sync after a .relaxed wait acquires what it observed, with the bar_sync_acquire warning") {
  const std::string k = "kernel bs\nsmem d bytes 64\nmbarrier m count 1\nrole p warp:\n  one: write d\n  one: arrive m\n"
                        "role c warpgroup:\n  one: wait m parity 0 WAIT\nBAR  all: read d\n";
  auto make = [&](const std::string& wait, const std::string& bar) { return with(with(k, "WAIT", wait), "BAR", bar); };
  for (bool reduction : {true, false}) {
    CAPTURE(reduction);
    const check::Result r = run(make("relaxed", "  syncthreads\n"), reduction);
    CHECK(r.verdict == check::Verdict::verified);
    REQUIRE(r.warnings.size() == 1);
    CHECK(spec::violation_name(r.warnings[0].kind) == "bar_sync_acquire");
    CHECK(check::outcome_name(run(make("relaxed", "  syncthreads\n"), reduction, true)) == "bar_sync_acquire");
    CHECK(check::outcome_name(run(make("relaxed", "  bar_sync 1, 128\n"), reduction)) == "verified");
    // No bar.sync: the other lanes, and the leader itself, are not ordered.
    CHECK(check::outcome_name(run(make("relaxed", ""), reduction)) == "data_race");
    // bar.arrive has no wait: "no new memory access ... before the barrier
    // completes" is bar.sync's and bar.red's only.
    CHECK(check::outcome_name(run(make("relaxed", "  bar_arrive 1, 160\n"), reduction)) == "data_race");
    // An acquire wait (the default) needs no stance: no warning.
    const check::Result a = run(make("", "  syncthreads\n"), reduction);
    CHECK(a.verdict == check::Verdict::verified);
    CHECK(a.warnings.empty());
    // The ISA's own acquire pattern: a fence after the relaxed wait.
    const check::Result f = run(make("relaxed\n  one: fence_acquire cta", "  syncthreads\n"), reduction);
    CHECK(f.verdict == check::Verdict::verified);
    CHECK(f.warnings.empty());
  }
}

TEST_CASE("fence_release and fence_acquire take the .sync_restrict forms PTX has, at .cluster scope only") {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"fence_release", "needs a scope"},
      {"fence_acquire shared_cluster", "needs the scope cluster"},
      {"fence_release cta shared_cta", "needs the scope cluster"},
      {"fence_release cluster shared_cluster", "cannot be restricted to shared_cluster"},
      {"fence_acquire cluster shared_cta", "cannot be restricted to shared_cta"},
      {"fence_acquire cluster release", "unexpected 'release'"},
  };
  for (const auto& [stmt, message] : bad) {
    CAPTURE(stmt);
    const dsl::Parsed p = dsl::parse("kernel f\nrole r warp:\n  " + stmt + "\n", "f.bk");
    REQUIRE_FALSE(p.ok());
    CHECK(p.errors[0].message.find(message) != std::string::npos);
    CHECK(p.errors[0].loc.line == 3);
  }
  CHECK(dsl::parse("kernel f\nrole r warp:\n  fence_release shared_cta cluster\n  fence_acquire cluster shared_cluster\n", "f.bk").ok());
}

TEST_CASE("a CTA must not exit while its own TMA store or wgmma may still read its shared memory") {
  const std::string st = "kernel ex\nsmem out[1] bytes 4096\nrole epilogue warp:\n  one: write out[0]\n"
                         "  one: fence_proxy_async\n  one: tma_store out[0]\n  commit_group\n";
  pair(st, "exit_with_pending", st + "  wait_group_read 0\n");
  const std::string mma = "kernel exm\nsmem a[1] bytes 4096\nrole math warpgroup:\n  wgmma_fence\n  wgmma read a[0]\n"
                          "  wgmma_commit\n";
  pair(mma, "exit_with_pending", mma + "  wgmma_wait 0\n");
}

TEST_CASE("fence.mbarrier_init releases the inits at cluster scope: the cluster init idiom verifies") {
  auto k = [](const std::string& fence) {
    return "kernel ci\ncluster 2\nsmem tile[1] bytes 1024\nmbarrier full[1]\nrole producer warp:\n"
           "  one: init full[0] count 1\n" + fence + "  cluster_arrive relaxed\n  cluster_wait\n"
           "  one: arrive_expect_tx full[0] bytes 1024\n  one: tma_load tile[0] -> full[0]\n"
           "  cluster_sync\n"
           "role consumer warp:\n  cluster_arrive relaxed\n  cluster_wait\n  wait full[0] parity 0\n  all: read tile[0]\n"
           "  cluster_sync\n";
  };
  pair(k(""), "unsynchronized_init", k("  one: fence_mbarrier_init\n"));
}

TEST_CASE("barriers without a thread count wait for the non-exited threads only") {
  const std::string k = "kernel ew\nrole early warp:\n  exit\nrole main warp x 2:\n";
  pair(k + "  bar_sync 1, 96\n", "deadlock", k + "  syncthreads\n");
}

TEST_CASE("wait_group N with any number of groups in flight retires exactly the older ones") {
  const std::string k = "kernel g3\nsmem out[3] bytes 4096\nrole epilogue warp:\n  for i in 0 .. 3:\n"
                        "    one: write out[i]\n    one: fence_proxy_async\n    one: tma_store out[i]\n    commit_group\n";
  pair(k + "  wait_group_read 3\n  one: write out[0]\n  wait_group_read 0\n", "data_race",
       k + "  wait_group_read 2\n  one: write out[0]\n  wait_group_read 0\n");
}

TEST_CASE("a thread's tcgen05.commit arrivals come in order: waiting for the last covers the earlier") {
  const std::string k = "kernel tc\nsmem a[2] bytes 4096\nmbarrier done[2] count 1\nrole mma warp:\n"
                        "  tcgen05_mma read a[0]\n  tcgen05_commit done[0]\n  tcgen05_mma read a[1]\n"
                        "  tcgen05_commit done[1]\n";
  pair(k + "  wait done[0] parity 0\n", "exit_with_pending", k + "  wait done[1] parity 0\n");
}

TEST_CASE("warning kinds: the search goes on, the verdict says so, --strict makes them errors") {
  const std::string war = "kernel w\nsmem tile[1] bytes 4096\nmbarrier full[1] count 1\nmbarrier empty[1] count 1\n"
                          "role producer warp:\n  one: arrive_expect_tx full[0] bytes 4096\n  one: tma_load tile[0] -> full[0]\n"
                          "  wait empty[0] parity 0\n  one: arrive_expect_tx full[0] bytes 4096\n"
                          "  one: tma_load tile[0] -> full[0]\n"
                          "role consumer warp:\n  wait full[0] parity 0\n  all: read tile[0]\nFENCE  syncwarp\n"
                          "  one: arrive empty[0]\n  wait full[0] parity 1\n";
  auto k = [&](const std::string& fence) { return with(war, "FENCE", fence); };
  const std::string init = "kernel i\nsmem tile[1] bytes 4096\nmbarrier full[1]\nrole loader warp:\n"
                           "  one: init full[0] count 1\nFENCE  syncwarp\n  one: arrive_expect_tx full[0] bytes 4096\n"
                           "  one: tma_load tile[0] -> full[0]\n  wait full[0] parity 0\n  all: read tile[0]\n";
  auto ki = [&](const std::string& fence) { return with(init, "FENCE", fence); };
  // Another warp's TMA after a barrier that orders the init before it
  // (Triton's prologue), with no proxy fence: the same warning; without the
  // barrier the init is not ordered before the use at all.
  const std::string other = "kernel o\nsmem tile[1] bytes 4096\nmbarrier full[1]\nrole init warp:\n  one: init full[0] count 1\n"
                            "FENCE  syncthreads\nrole loader warp:\n  syncthreads\n  one: arrive_expect_tx full[0] bytes 4096\n"
                            "  one: tma_load tile[0] -> full[0]\n  wait full[0] parity 0\n  all: read tile[0]\n";
  auto ko = [&](const std::string& fence) { return with(other, "FENCE", fence); };
  CHECK(check::outcome_name(run(with(ko(""), "  syncthreads\n  one: arrive_expect_tx", "  one: arrive_expect_tx"), true)) ==
        "unsynchronized_init");
  // tcgen05.mma after a wait with no tcgen05.fence::after_thread_sync: the
  // letter of the tcgen05 memory consistency model; a fence before the wait
  // does not count, one after it does.
  const std::string tc = "kernel t\nsmem a[1] bytes 4096\nmbarrier full[1] count 1\nmbarrier done[1] count 1\n"
                         "role load warp:\n  one: arrive_expect_tx full[0] bytes 4096\n  one: tma_load a[0] -> full[0]\n"
                         "role mma warp:\nBEFORE  wait full[0] parity 0\nAFTER  tcgen05_mma read a[0]\n"
                         "  tcgen05_commit done[0]\n  wait done[0] parity 0\n";
  auto kt = [&](const std::string& before, const std::string& after) {
    return with(with(tc, "BEFORE", before), "AFTER", after);
  };
  // Generic writes, a barrier, then another warp's TMA load over them with
  // no proxy fence (Triton's reuse of the word tcgen05.alloc wrote): the
  // cross_proxy_waw warning. Without the barrier the two writes race.
  const std::string waw = "kernel v\nsmem tile[1] bytes 4096\nmbarrier full[1] count 1\nrole writer warp:\n  all: write tile[0]\n"
                          "FENCE  syncthreads\nrole loader warp:\n  syncthreads\n  one: arrive_expect_tx full[0] bytes 4096\n"
                          "  one: tma_load tile[0] -> full[0]\n  wait full[0] parity 0\n  all: read tile[0]\n";
  auto kv = [&](const std::string& fence) { return with(waw, "FENCE", fence); };
  CHECK(check::outcome_name(run(with(kv(""), "  syncthreads\n  one: arrive_expect_tx", "  one: arrive_expect_tx"), true)) ==
        "data_race");
  // The async proxy reading such a write (a TMA store of it) stays proxy_race.
  CHECK(check::outcome_name(run("kernel s\ngmem out bytes 4096\nsmem tile[1] bytes 4096\nrole w warp:\n  all: write tile[0]\n"
                                "  syncthreads\nrole l warp:\n  syncthreads\n  one: tma_store tile[0] to out\n  commit_group\n"
                                "  wait_group 0\n",
                                true)) == "proxy_race");
  // Generic reads then a TMA overwrite with no proxy fence: an error (the
  // H100 returns the new data to reads in flight at the release).
  pair(k(""), "cross_proxy_war", k("  all: fence_proxy_async\n"));
  struct Case {
    std::string warned, clean;
    const char* kind;
  } cases[] = {{ki(""), ki("  one: fence_mbarrier_init\n"), "async_init_unfenced"},
               {ko(""), ko("  one: fence_mbarrier_init\n"), "async_init_unfenced"},
               {kv(""), kv("  all: fence_proxy_async\n"), "cross_proxy_waw"},
               {kt("", ""), kt("", "  tcgen05_fence_after_thread_sync\n"), "tcgen05_unfenced"},
               {kt("  tcgen05_fence_after_thread_sync\n", "  tcgen05_fence_before_thread_sync\n"),
                kt("  tcgen05_fence_before_thread_sync\n", "  one: tcgen05_fence_after_thread_sync\n"), "tcgen05_unfenced"}};
  for (const Case& c : cases) {
    CAPTURE(c.kind);
    for (bool reduction : {true, false}) {
      const check::Result r = run(c.warned, reduction);
      CHECK(r.verdict == check::Verdict::verified);
      REQUIRE(r.warnings.size() == 1);
      CHECK(spec::violation_name(r.warnings[0].kind) == c.kind);
      const check::Result s = run(c.warned, reduction, true);
      CHECK(check::outcome_name(s) == c.kind);
      CHECK_FALSE(s.trace.empty());
      const check::Result f = run(c.clean, reduction, true);
      CHECK(f.verdict == check::Verdict::verified);
      CHECK(f.warnings.empty());
    }
  }
}

TEST_CASE("fence.acq_rel / fence.sc with relaxed barrier operations form release and acquire patterns, at the narrower scope") {
  // Release pattern: data, fence, relaxed arrive. Acquire pattern: relaxed
  // wait, fence, read. Without the fence the relaxed operation orders nothing.
  const std::string release = "kernel rel\nsmem d[1] bytes 64\nmbarrier m[1] count 1\nrole p warp:\n  one: write d[0]\n"
                              "FENCE  one: arrive m[0] relaxed\nrole c warp:\n  wait m[0] parity 0\n  one: read d[0]\n";
  pair(with(release, "FENCE", ""), "data_race", with(release, "FENCE", "  one: fence_acq_rel cta\n"));
  pair(with(release, "FENCE", ""), "data_race", with(release, "FENCE", "  one: fence_sc cluster\n"));
  const std::string acquire = "kernel acq\nsmem d[1] bytes 64\nmbarrier m[1] count 1\nrole p warp:\n  one: write d[0]\n"
                              "  one: arrive m[0]\nrole c warp:\n  wait m[0] parity 0 relaxed\nFENCE  one: read d[0]\n";
  pair(with(acquire, "FENCE", ""), "data_race", with(acquire, "FENCE", "  fence_acq_rel cta\n"));
  // A fence after the read is no acquire for it.
  CHECK(check::outcome_name(run(with(acquire, "FENCE  one: read d[0]\n", "  one: read d[0]\n  fence_acq_rel cta\n"), true)) ==
        "data_race");
  // Across CTAs: a .cta fence with a .cluster relaxed arrive into the peer's
  // barrier is not morally strong with the peer's .cluster acquire.
  const std::string remote = started("kernel rr\ncluster 2\nsmem d[1] bytes 64\nmbarrier m[1] count 1\n"
                             "role p warp on cta 0:\n  one: write d[0] @ 1\n  one: fence_acq_rel SCOPE\n"
                             "  one: arrive m[0] @ 1 relaxed cluster\n"
                             "role c warp on cta 1:\n  wait m[0] parity 0 acquire cluster\n  one: read d[0]\n");
  pair(with(remote, "SCOPE", "cta"), "scope_race", with(remote, "SCOPE", "cluster"));
}

// PTX ISA, Memory Consistency Model, "Release and acquire patterns": a
// release fence followed by a strong write (barrier.cluster.arrive.relaxed)
// is a release pattern; at .cta scope it synchronises with the acquires of
// its own CTA (barrier.cluster.wait: ".acquire" by default).
TEST_CASE("fence.acq_rel then barrier.cluster.arrive.relaxed releases to the waiters of its scope") {
  const std::string k = "kernel cl\ncluster 2\nsmem d[1] bytes 64\n"
                        "role p warp on cta 0:\n  one: write d[0]\nFENCE  cluster_arrive relaxed\n  cluster_wait\n  cluster_sync\n"
                        "role c warp on cta 0:\n  cluster_arrive relaxed\n  cluster_wait\n  one: read d[0]\n  cluster_sync\n"
                        "role q warp on cta 1:\n  cluster_arrive relaxed\n  cluster_wait\nREMOTE  cluster_sync\n";
  // (The last cluster_sync keeps CTA 0 alive for CTA 1's remote read.)
  // Same CTA: data_race before the cluster barrier carried a .cta fence's
  // release pattern, verified now; without the fence, still a race.
  pair(with(with(k, "FENCE", ""), "REMOTE", ""), "data_race", with(with(k, "FENCE", "  one: fence_acq_rel cta\n"), "REMOTE", ""));
  // .cluster fence: already carried to every CTA.
  pair(with(with(k, "FENCE", ""), "REMOTE", "  one: read d[0] @ 0\n"), "data_race",
       with(with(k, "FENCE", "  one: fence_acq_rel cluster\n"), "REMOTE", "  one: read d[0] @ 0\n"));
  // A reader in the other CTA after a .cta fence: a scope too narrow.
  pair(with(with(k, "FENCE", "  one: fence_acq_rel cta\n"), "REMOTE", "  one: read d[0] @ 0\n"), "scope_race",
       with(with(k, "FENCE", "  one: fence_acq_rel cluster\n"), "REMOTE", "  one: read d[0] @ 0\n"));
}

TEST_CASE("fence_acq_rel needs a scope, as in PTX") {
  const dsl::Parsed p = dsl::parse("kernel f\nrole r warp:\n  fence_acq_rel\n", "f.bk");
  REQUIRE_FALSE(p.ok());
  CHECK(p.errors[0].message.find("needs a scope") != std::string::npos);
}

TEST_CASE("pending_count reads only the state of a .noComplete arrive (PTX ISA mbarrier.pending_count)") {
  const std::string k = "kernel pc\nmbarrier m[1] count 2\nrole r warp:\n  t = one: arrive m[0]OPT\n  n = pending_count t\n"
                        "  one: arrive m[0]\n  wait m[0] parity 0\n";
  pair(with(k, "OPT", ""), "pending_count_undefined", with(k, "OPT", " nocomplete"));
}

TEST_CASE("bar.red and bar.sync on one named-barrier instance are unpredictable (PTX ISA bar)") {
  const std::string k = "kernel red\nrole a warp:\n  p = bar_red popc 1, 64, 1\nrole b warp:\n  OTHER\n";
  pair(with(k, "OTHER", "bar_sync 1, 64"), "named_red_mixed", with(k, "OTHER", "q = bar_red popc 1, 64, 0"));
  // One after the other, on two instances, is fine.
  const std::string seq = "kernel red2\nrole a warp:\n  p = bar_red popc 1, 64, 1\n  bar_sync 1, 64\n"
                          "role b warp:\n  q = bar_red popc 1, 64, 0\n  bar_sync 1, 64\n";
  CHECK(check::outcome_name(run(seq, true)) == "verified");
}

TEST_CASE("operands the ISA bounds are checked where a loop variable makes them: bulk copy size, tx operand") {
  // A bulk copy moves a multiple of 16 bytes, at most 1048560 (PTX ISA
  // cp.async.bulk): a size computed in a loop is checked when it is used.
  const std::string copy = "kernel c\nsmem a[1] bytes 8192\nmbarrier full[1] count 1\nrole load warp:\n  for i in 0..2:\n"
                           "    one: arrive_expect_tx full[0] bytes SIZE\n    one: tma_load a[0] -> full[0] bytes SIZE\n"
                           "    wait full[0] parity i % 2\n";
  auto kc = [&](const std::string& size) { return with(with(copy, "SIZE", size), "SIZE", size); };
  pair(kc("16 * i + 8"), "bad_copy_size", kc("16 * i + 16"));
  // The tx operand is 0..2^20-1 even where the tx-count would stay in range
  // (a complete_tx first took it to -16).
  const std::string tx = "kernel t\nmbarrier full[1] count 1\nrole w warp:\n  for i in 1..2:\n"
                         "    one: complete_tx full[0] bytes 16\n    one: expect_tx full[0] bytes BYTES\n"
                         "    one: complete_tx full[0] bytes BYTES - 16\n    one: arrive full[0]\n    wait full[0] parity (i - 1) % 2\n";
  auto kt = [&](const std::string& bytes) { return with(with(tx, "BYTES", bytes), "BYTES", bytes); };
  pair(kt("1048560 + 16 * i"), "tx_out_of_range", kt("1048560 + 0 * i"));
}

TEST_CASE("per-thread mbarrier operations: all: init and inval are every thread's, one: wait is the leader's") {
  // mbarrier.init by every thread of a warp: the second re-initialises a live barrier.
  const std::string init = "kernel i\nmbarrier b[1]\nrole w warp:\n  INIT b[0] count 1\n  fence_mbarrier_init\n  one: arrive b[0]\n";
  pair(with(init, "INIT", "all: init"), "reinit_live_barrier", with(init, "INIT", "init"));
  pair(with(init, "INIT", "each: init"), "verified", with(init, "INIT", "one: init"));  // one warp: one leader
  const std::string wg = "kernel i\nmbarrier b[1]\nrole w warpgroup:\n  INIT b[0] count 1\n";
  pair(with(wg, "INIT", "each: init"), "reinit_live_barrier", with(wg, "INIT", "one: init"));
  // mbarrier.inval by every thread: the second finds it invalid.
  const std::string inval = "kernel v\nmbarrier b[1] count 1\nrole w warp:\n  one: arrive b[0]\n  wait b[0] parity 0\n  INVAL b[0]\n";
  pair(with(inval, "INVAL", "all: inval"), "invalidated_barrier", with(inval, "INVAL", "inval"));
  // A wait by one thread orders that thread only; a syncwarp passes it on.
  const std::string wait = "kernel r\nsmem t[1] bytes 4096\nmbarrier full[1] count 1\n"
                           "role producer warp:\n  all: write t[0]\n  syncwarp\n  one: arrive full[0]\n"
                           "role consumer warp:\n  WAIT  all: read t[0]\n";
  pair(with(wait, "WAIT", "one: wait full[0] parity 0\n"), "data_race",
       with(wait, "WAIT", "one: wait full[0] parity 0\n  syncwarp\n"));
  pair(with(wait, "WAIT", "one: wait full[0] parity 0\n"), "data_race", with(wait, "WAIT", "wait full[0] parity 0\n"));
}
