// Generic reads whose values are consumed before the release (docs/spec.md,
// `cross_proxy_war` and "Stances"; spec::hb::consume): the H100 never
// returned a TMA overwrite's new data to a load whose value was used before
// the barrier (harness test generic_read_then_tma_overwrite), so a consumed
// read is complete at a later release; a read not known to be consumed is
// still `cross_proxy_war`. Both searches, with and without the reductions,
// and the bounded SMT search agree on each kernel.
#include <doctest/doctest.h>

#include <string>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/ops.hpp"
#include "checker/smt/bmc.hpp"
#include "spec/hb.hpp"
#include "tests/agreed_check.hpp"

using namespace pc;
namespace hb = pc::spec::hb;

namespace {

std::string with(std::string text, const std::string& marker, const std::string& by) {
  REQUIRE(text.find(marker) != std::string::npos);
  text.replace(text.find(marker), marker.size(), by);
  return text;
}

// The outcome of the explicit search with and without reductions (they must
// agree) and of the bounded SMT search (it must agree as well); the result
// is the reduced search's.
check::Result checked(const std::string& text) {
  CAPTURE(text);
  const check::Result r = testing::agreed_check(text);
  const dsl::Parsed p = dsl::parse(text, "consumed.bk");
  const smt::BmcResult b = smt::bounded_search(p.kernel);
  CAPTURE(b.reason);
  REQUIRE(b.verdict != smt::BmcResult::Verdict::not_covered);
  CHECK(b.verdict != smt::BmcResult::Verdict::bounded);
  if (r.verdict == check::Verdict::violation) {
    CHECK(b.verdict == smt::BmcResult::Verdict::violation);
    CHECK(b.kind == r.violation);
  } else {
    CHECK(b.verdict == smt::BmcResult::Verdict::verified);
  }
  return r;
}

std::string outcome(const std::string& text) { return check::outcome_name(checked(text)); }

// The CUTLASS ring of a consumer warp that loads each stage with ldmatrix and
// feeds the fragments to mma.sync, then releases the stage to the producer's
// next TMA load (three trips over two stages: the third overwrites stage 0).
// USE: what comes between the reads and the release; AFTER: after it.
const std::string ring =
    "kernel ring\nparam K = 3\nsmem A[2] bytes 4096\nmbarrier full[2] count 1\nmbarrier empty[2] count 1\n"
    "role producer warp:\n"
    "  for k in 0 .. K:\n"
    "    wait empty[k % 2] parity (k / 2 + 1) % 2\n"
    "    one: arrive_expect_tx full[k % 2] bytes 4096\n"
    "    one: tma_load A[k % 2] -> full[k % 2]\n"
    "role consumer warp:\n"
    "  for k in 0 .. K:\n"
    "    wait full[k % 2] parity (k / 2) % 2\n"
    "    all: read A[k % 2]\n"
    "USE"
    "    syncwarp\n"
    "    one: arrive empty[k % 2]\n"
    "AFTER";

std::string ring_with(const std::string& use, const std::string& after = "") { return with(with(ring, "USE", use), "AFTER", after); }

}  // namespace

TEST_CASE("consumed reads: the CUTLASS ring whose reads are consumed before the release verifies") {
  CHECK(outcome(ring_with("    all: consume A[k % 2]\n")) == "verified");
  // Consumed by the lanes, then the proxy fence as well: still verified.
  CHECK(outcome(ring_with("    all: consume A[k % 2]\n    fence_proxy_async\n")) == "verified");
}

TEST_CASE("consumed reads: plain reads not known to be consumed are still cross_proxy_war, and a proxy fence fixes them") {
  const check::Result plain = checked(ring_with(""));
  CHECK(check::outcome_name(plain) == "cross_proxy_war");
  // The message says which case it is, cites the H100 test and names both fixes.
  CAPTURE(plain.message);
  CHECK(plain.message.find("not known to be consumed") != std::string::npos);
  CHECK(plain.message.find("generic_read_then_tma_overwrite") != std::string::npos);
  CHECK(plain.message.find("fence_proxy_async after the reads") != std::string::npos);
  CHECK(plain.message.find("`consume` their values before releasing") != std::string::npos);
  CHECK(outcome(ring_with("    all: fence_proxy_async\n")) == "verified");
}

TEST_CASE("consumed reads: a release before the consume carries the reads in flight") {
  // The values are used only after the arrive: the release saw the loads
  // still queued (the DeepGEMM scale reads of kernels/field).
  CHECK(outcome(ring_with("", "    all: consume A[k % 2]\n")) == "cross_proxy_war");
  // Consumed after the syncwarp: the other lanes' use is not ordered before
  // the leader's release (their reads reached the leader, unused, through
  // the syncwarp).
  CHECK(outcome(with(ring_with(""), "    one: arrive", "    all: consume A[k % 2]\n    one: arrive")) == "cross_proxy_war");
  // Only the leader consumes: the other lanes' reads are not known used.
  CHECK(outcome(ring_with("    one: consume A[k % 2]\n")) == "cross_proxy_war");
  // A consume of another buffer says nothing of these reads.
  CHECK(outcome(with(ring_with("    all: consume B[0]\n"), "smem A[2] bytes 4096\n", "smem A[2] bytes 4096\nsmem B[1] bytes 16\n")) ==
        "cross_proxy_war");
  // A read after the consume is a new read, not consumed.
  CHECK(outcome(ring_with("    all: consume A[k % 2]\n    all: read A[k % 2]\n")) == "cross_proxy_war");
}

TEST_CASE("consumed reads: consume is a private op of the memory family that accesses nothing") {
  CHECK(ir::op_family(ir::OpCode::consume) == ir::OpFamily::memory);
  CHECK(ir::op_private(ir::OpCode::consume));
  CHECK(ir::op_access(ir::OpCode::consume) == ir::Access::none);
  CHECK_FALSE(ir::op_has(ir::OpCode::consume, ir::opf::no_bmc));
}

TEST_CASE("consumed reads: spec::hb::consume marks the consuming thread's own generic reads of the buffer") {
  hb::Memory m;
  m.buffers = 2;
  const hb::AgentThreads me{0, 1};
  hb::Access r;
  r.buf = 0;
  r.issuers = hb::bit(me.leader()) | hb::bit(me.cell(0, 1));
  REQUIRE(hb::access(m, r).violation == spec::Violation::none);
  hb::Access w;
  w.buf = 1;
  w.kind = hb::Kind::write;
  w.issuers = hb::bit(me.leader());
  REQUIRE(hb::access(m, w).violation == spec::Violation::none);
  const hb::Memory before = m;
  hb::consume(m, 0, hb::bit(me.cell(0, 1)) | hb::bit(me.unit(hb::Unit::tma)));  // not the leader
  hb::consume(m, 1, hb::bit(me.leader()));                                  // a write: nothing
  int consumed = 0;
  for (const hb::Event& e : m.events) {
    const bool mine = e.buf == 0 && e.thread == me.cell(0, 1);
    CHECK(e.after_async == (mine ? hb::bit(me.cell(0, 1)) : 0));
    consumed += mine;
  }
  CHECK(consumed == 1);
  CHECK(m != before);
  // Consuming again changes nothing; a fresh read by that thread is not consumed.
  const hb::Memory once = m;
  hb::consume(m, 0, hb::bit(me.cell(0, 1)));
  CHECK(m == once);
  hb::Access again = r;
  again.issuers = hb::bit(me.cell(0, 1));
  REQUIRE(hb::access(m, again).violation == spec::Violation::none);
  for (const hb::Event& e : m.events) CHECK(e.after_async == 0);
}
