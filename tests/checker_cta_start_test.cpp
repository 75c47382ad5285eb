// CTA start (issue 61, item 4; docs/spec.md, "CTA start"): the CTAs of a
// cluster are co-scheduled but each starts at a time of its own, so an
// operation on another CTA needs the issuing threads to know that CTA has
// started (CUDA C++ Programming Guide, "Distributed Shared Memory": "Accessing
// data in distributed shared memory requires all the thread blocks to
// exist"). Each case: the minimal kernel with the operation first (the old
// verdict in its comment), and the same after a synchronisation that shows
// the start, with and without reductions (agreed_check).
#include <doctest/doctest.h>

#include <string>

#include "checker/explore.hpp"
#include "spec/rules.hpp"
#include "spec/sync_order.hpp"
#include "tests/agreed_check.hpp"
#include "tests/kernel_text.hpp"

using namespace pc;
using testing::with;

namespace {

std::string outcome(const std::string& text) { return testing::agreed_outcome(text); }

// CTA 0 writes into CTA 1's buffer and arrives on CTA 1's barrier; CTA 1
// waits and reads. START is what each role does first; the final cluster
// barrier keeps CTA 1 alive while CTA 0 may still target it.
const std::string handoff =
    "kernel h\ncluster 2\nsmem inbox bytes 1024\nmbarrier ready count 1\n"
    "role sender warp on cta 0:\nSTART  all: write inbox @ 1\n  syncwarp\n  one: arrive ready @ 1 release cluster\n  cluster_sync\n"
    "role receiver warp on cta 1:\nSTART  wait ready parity 0 acquire cluster\n  all: read inbox\n  cluster_sync\n";

std::string both(const std::string& text, const std::string& start) { return with(with(text, "START", start), "START", start); }

}  // namespace

TEST_CASE("spec: a CTA's start is known to its own threads, and through any synchronisation that observed it") {
  spec::hb::Memory m;
  m.buffers = 2;
  const spec::hb::Threads cta0 = spec::hb::bit(0) | spec::hb::bit(1), cta1 = spec::hb::bit(2) | spec::hb::bit(3);
  spec::sync_order::cta_starts(m, 0, 0, cta0);
  spec::sync_order::cta_starts(m, 1, 2, cta1);
  CHECK(spec::sync_order::cta_start_known(m, 0, cta0));
  CHECK_FALSE(spec::sync_order::cta_start_known(m, 1, spec::hb::bit(0)));
  CHECK(spec::rules::target_started(false) == spec::Violation::peer_not_started);
  CHECK(spec::rules::target_started(true) == spec::Violation::none);
  // A relaxed arrive by CTA 1 (an execution ordering) into sync object 0,
  // completed and observed by a relaxed wait of CTA 0's thread 1.
  const std::uint8_t starts[] = {1, 1};
  spec::hb::tc_release(m, spec::hb::bit(2), 0, starts);
  spec::hb::complete(m, 0);
  spec::hb::tc_acquire(m, spec::hb::bit(1), spec::hb::Syncs{1}, starts);
  CHECK(spec::sync_order::cta_start_known(m, 1, spec::hb::bit(1)));
  CHECK_FALSE(spec::sync_order::cta_start_known(m, 1, spec::hb::bit(0)));  // not the other thread
}

TEST_CASE("CTA start: distributed shared memory and a remote arrive need the peer's start ordered before them") {
  // Was verified: every CTA existed from step 0.
  CHECK(outcome(both(handoff, "")) == "peer_not_started");
  CHECK(outcome(both(handoff, "  cluster_sync\n")) == "verified");
  // The CUTLASS prologue: a relaxed cluster arrive orders no memory, but an
  // observed arrive was made, so its CTA has started.
  CHECK(outcome(both(handoff, "  cluster_arrive relaxed\n  cluster_wait\n")) == "verified");
  // Only the sender needs to know: the receiver's operations are its own CTA's.
  CHECK(outcome(with(with(handoff, "START", "  cluster_arrive relaxed\n  cluster_wait\n"), "START", "  cluster_arrive\n  cluster_wait\n")) ==
        "verified");
  // The report names the CTA and the fix.
  const check::Result r = testing::agreed_check(both(handoff, ""));
  CHECK(r.loc.line == 6);
  CHECK_MESSAGE(r.message.find("targets CTA 1, which may not have started") != std::string::npos, r.message);
  CHECK_MESSAGE(r.message.find("cluster_sync") != std::string::npos, r.message);
}

TEST_CASE("CTA start: a handshake through the peer's own arrive shows its start, at any scope and semantics") {
  // CTA 0 learns CTA 1 started at a cluster barrier that CTA 1 only arrives
  // on (split: it waits much later), then arrives on CTA 1's `ready`; CTA 1
  // learns CTA 0 started by waiting for that arrive, and only then writes
  // into CTA 0 and arrives on its `back`.
  const std::string k =
      "kernel hs\ncluster 2\nsmem inbox bytes 64\nmbarrier ready count 1\nmbarrier back count 1\n"
      "role a warp on cta 0:\n  cluster_arrive relaxed\n  cluster_wait\n  one: arrive ready @ 1 SEM\n"
      "  wait back parity 0 acquire cluster\n  one: read inbox\n  cluster_sync\n"
      "role b warp on cta 1:\n  cluster_arrive relaxed\nBEFORE  wait ready parity 0 WAIT\nAFTER"
      "  one: arrive back @ 0 release cluster\n  cluster_wait\n  cluster_sync\n";
  auto make = [&](const std::string& sem, const std::string& wait, bool write_first) {
    const std::string w = "  one: write inbox @ 0\n";
    return with(with(with(with(k, "SEM", sem), "WAIT", wait), "BEFORE", write_first ? w : ""), "AFTER", write_first ? "" : w);
  };
  for (const char* sem : {"release cluster", "relaxed cluster", "release cta"})
    for (const char* wait : {"acquire cluster", "relaxed cluster", "acquire cta"}) {
      CAPTURE(sem);
      CAPTURE(wait);
      // A .relaxed wait observes only the channels its scope reaches
      // (docs/spec.md, "CTA start"): not another CTA's .cta release.
      const bool unseen = std::string(sem) == "release cta" && std::string(wait) == "relaxed cluster";
      CHECK(outcome(make(sem, wait, false)) == (unseen ? "peer_not_started" : "verified"));
      // Was verified: the write into CTA 0 before anything showed CTA 1 that CTA 0 started.
      CHECK(outcome(make(sem, wait, true)) == "peer_not_started");
    }
}

TEST_CASE("CTA start: a multicast TMA load and a TMA load completing on another CTA's barrier") {
  const std::string k =
      "kernel mc\ncluster 2\nsmem b bytes 4096\nmbarrier full count 1\n"
      "role producer warp on cta 0:\nSTART  one: arrive_expect_tx full bytes 4096\n  one: tma_load b -> full multicast 3\n"
      "  wait full parity 0\n  cluster_sync\n"
      "role consumer warp on cta 1:\nSTART  one: arrive_expect_tx full bytes 4096\n  wait full parity 0 acquire cluster\n  all: read b\n"
      "  cluster_sync\n";
  CHECK(outcome(both(k, "")) == "peer_not_started");
  CHECK(outcome(both(k, "  cluster_sync\n")) == "verified");
  // 2-CTA TMA: CTA 1 loads into its own buffer and completes on CTA 0's barrier.
  const std::string pair =
      "kernel p2\ncluster 2\nsmem b bytes 4096\nmbarrier full count 1\n"
      "role leader warp on cta 0:\nSTART  one: arrive_expect_tx full bytes 4096\n  wait full parity 0 acquire cluster\n  cluster_sync\n"
      "role peer warp on cta 1:\nSTART  one: tma_load b -> full @ 0\n  cluster_sync\n";
  CHECK(outcome(both(pair, "")) == "peer_not_started");
  CHECK(outcome(both(pair, "  cluster_sync\n")) == "verified");
}

TEST_CASE("CTA start: an init not ordered before a remote use stays unsynchronized_init") {
  // The peer initialises the barrier it is sent to: the use is judged by the
  // init first (an init known implies the start known).
  const std::string k =
      "kernel ini\ncluster 2\nmbarrier bar\n"
      "role w warp:\n  one: init bar count 1\n  FENCE\n  one: arrive bar @ (cta + 1) % 2 release cluster\n  wait bar parity 0\n"
      "  cluster_sync\n";
  CHECK(outcome(with(k, "FENCE", "syncwarp")) == "unsynchronized_init");
  CHECK(outcome(with(k, "FENCE", "one: fence_mbarrier_init\n  cluster_arrive relaxed\n  cluster_wait")) == "verified");
}
