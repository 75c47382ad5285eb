// CTA end (issue 61, item 5; docs/spec.md, "CTA end"): a CTA's shared memory
// goes with its last thread, so an operation of another CTA on it (a remote
// arrive, expect_tx or complete_tx, a distributed shared memory access) must
// be ordered before some thread of it by then. An exit orders nothing, and
// barrier.cluster waits only for non-exited threads: on the H200 a CTA that
// passed its cluster barrier after its peer arrived remotely and exited found
// the arrive still in flight in 1,084,182 of 50,001,600 clusters, and in
// 8,643,206 of 40,001,280 when the peer ended with a .relaxed cluster arrive
// (harness test remote_arrive_exit, docs/conformance/
// h200-2026-12-03-remote-arrive-exit.md). Each kernel: the old verdict in its
// comment; both searches and the bounded SMT search agree.
#include <doctest/doctest.h>

#include <string>

#include "checker/dsl/parser.hpp"
#include "checker/smt/bmc.hpp"
#include "spec/rules.hpp"
#include "spec/sync_order.hpp"
#include "tests/agreed_check.hpp"
#include "tests/kernel_text.hpp"

using namespace pc;
using testing::with;

namespace {

// The explicit searches (with and without reductions) and the bounded SMT
// search must agree; the explicit search's outcome.
std::string outcome(const std::string& text) {
  const std::string o = testing::agreed_outcome(text);
  const dsl::Parsed p = dsl::parse(text, "test.bk");
  const smt::BmcResult b = smt::bounded_search(p.kernel);
  CAPTURE(text);
  CAPTURE(b.reason);
  REQUIRE(b.verdict != smt::BmcResult::Verdict::not_covered);
  CHECK((b.verdict == smt::BmcResult::Verdict::verified ? std::string("verified") : std::string(spec::violation_name(b.kind))) == o);
  return o;
}

// CTA 1 arrives on CTA 0's barrier (SEM) and then does TAIL; CTA 0 passes
// a cluster barrier (or WAIT) and exits.
const std::string arrive_exit =
    "kernel e\ncluster 2\nmbarrier bar count 1\n"
    "role a warp on cta 0:\n  cluster_sync\nWAIT"
    "role b warp on cta 1:\n  cluster_sync\n  one: arrive bar @ 0 SEM\nTAIL";

std::string make(const std::string& sem, const std::string& tail, const std::string& wait = "  cluster_sync\n") {
  return with(with(with(arrive_exit, "SEM", sem), "TAIL", tail), "WAIT", wait);
}

}  // namespace

TEST_CASE("spec: another CTA's operation is ordered before a CTA's end only through a release or an observed landing") {
  spec::hb::Memory m;
  m.buffers = 1;
  const spec::hb::Threads cta0 = spec::hb::bit(0) | spec::hb::bit(1), peer = spec::hb::bit(2);
  // The peer's arrive, seen through sync object 0 (its own landing).
  spec::sync_order::remote_operation(m, 0, peer, 0);
  CHECK_FALSE(spec::sync_order::cta_end_ordered(m, 0, cta0));
  // An execution ordering of the peer (a .relaxed cluster arrive) orders no memory.
  const std::uint8_t none[] = {0};
  spec::hb::tc_release(m, peer, 1, none);
  spec::hb::complete(m, 1);
  spec::hb::tc_acquire(m, spec::hb::bit(1), spec::hb::Syncs{1} << 1, none);
  CHECK_FALSE(spec::sync_order::cta_end_ordered(m, 0, cta0));
  // A wait that observed the phase the arrive counted in: ordered.
  spec::hb::complete(m, 0);
  spec::hb::acquire(m, spec::hb::bit(1), spec::hb::Syncs{1});
  CHECK(spec::sync_order::cta_end_ordered(m, 0, cta0));
  // An access (no channel of its own): only a release of the peer orders it.
  spec::sync_order::remote_operation(m, 0, spec::hb::bit(3), -1);
  CHECK_FALSE(spec::sync_order::cta_end_ordered(m, 0, cta0));
  spec::hb::release(m, spec::hb::bit(3), 2);
  spec::hb::complete(m, 2);
  spec::hb::acquire(m, spec::hb::bit(0), spec::hb::Syncs{1} << 2);
  CHECK(spec::sync_order::cta_end_ordered(m, 0, cta0));
  CHECK(spec::rules::cta_exit(spec::rules::CtaExit{false, false, false, false, true}) == spec::Violation::exit_with_pending);
}

TEST_CASE("CTA end: a remote arrive and the issuer's exit, then the target passes its cluster barrier and exits") {
  // Was verified: the arrive landed when it was issued.
  CHECK(outcome(make("release cluster", "")) == "exit_with_pending");
  // A .relaxed cluster arrive orders no memory operation (the H200: in flight after it).
  CHECK(outcome(make("release cluster", "  cluster_arrive relaxed\n")) == "exit_with_pending");
  CHECK(outcome(make("relaxed cluster", "  cluster_arrive relaxed\n  cluster_wait\n")) == "exit_with_pending");
  // A release after it, acquired by CTA 0 (the control of the harness test: 0 in flight).
  CHECK(outcome(make("release cluster", "  cluster_sync\n")) == "verified");
  CHECK(outcome(make("relaxed cluster", "  cluster_sync\n")) == "verified");
  // CTA 0 waits for the phase the arrive counts in (CUTLASS's producer_tail),
  // whatever the arrive's semantics and scope.
  for (const char* sem : {"release cluster", "relaxed cluster", "release cta"}) {
    CAPTURE(sem);
    CHECK(outcome(make(sem, "", "  wait bar parity 0 acquire cluster\n")) == "verified");
  }
  // The report names the CTA, the peer's agent and the fix.
  const check::Result r = testing::agreed_check(make("release cluster", ""));
  CHECK_MESSAGE(r.message.find("CTA 0 exits while an operation of b@cta1") != std::string::npos, r.message);
  CHECK_MESSAGE(r.message.find("producer_tail") != std::string::npos, r.message);
  // Located at the remote arrive (docs/cli.md, "Findings at their cause"), the exit a note.
  CHECK(r.loc.line == 9);
  REQUIRE(r.related.size() == 1);
  CHECK_MESSAGE(r.related[0].message.find("CTA 0 exits here") != std::string::npos, r.related[0].message);
}

TEST_CASE("CTA end: a remote expect_tx and complete_tx, and a distributed shared memory write") {
  const std::string tx =
      "kernel t\ncluster 2\nmbarrier bar count 1\n"
      "role a warp on cta 0:\n  cluster_sync\n  END\n"
      "role b warp on cta 1:\n  cluster_sync\n  one: expect_tx bar @ 0 bytes 16\n  one: complete_tx bar @ 0 bytes 16\nTAIL";
  // Was verified.
  CHECK(outcome(with(with(tx, "END", "cluster_sync"), "TAIL", "")) == "exit_with_pending");
  CHECK(outcome(with(with(tx, "END", "cluster_sync"), "TAIL", "  cluster_sync\n")) == "verified");
  // The explicit search only: the bounded search declines an access of another CTA's buffer.
  const std::string dsmem =
      "kernel w\ncluster 2\nsmem inbox bytes 64\n"
      "role a warp on cta 0:\n  cluster_sync\n  cluster_sync\n"
      "role b warp on cta 1:\n  cluster_sync\n  one: write inbox @ 0\nTAIL";
  // Was verified (the H200 lost its context when CTA 0 exited with such stores in flight: remote_arrive_exit/nodrain).
  CHECK(testing::agreed_outcome(with(dsmem, "TAIL", "")) == "exit_with_pending");
  CHECK(testing::agreed_outcome(with(dsmem, "TAIL", "  cluster_sync\n")) == "verified");
}
