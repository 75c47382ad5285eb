// The explorer on small kernels built with the IR builder: one correct use and
// one misuse per property.
#include <doctest/doctest.h>

#include "checker/builder.hpp"
#include "checker/explore.hpp"

using namespace pc;
using namespace pc::ir;
using check::Verdict;
using spec::Violation;

namespace {

check::Result run(const Kernel& k, bool reduction = true) {
  check::Options o;
  o.reduction = reduction;
  return check::check(k, o);
}

// A producer writes `data` and arrives on `full`; a consumer waits on `full`
// with `parity` and reads. `producer_lanes_all`: every lane writes.
Kernel handoff(std::int64_t parity, bool all_lanes_write, bool syncwarp, bool relaxed = false) {
  KernelBuilder kb("handoff");
  const int data = kb.buffer("data", 1, 128);
  const int full = kb.mbarrier("full", 1, 1);
  {
    Role& p = kb.role("producer", Granularity::warp);
    OpBuilder w = KernelBuilder::op(OpCode::write).buf(data);
    if (!all_lanes_write) w.one();
    p.body.push_back(w);
    if (syncwarp) p.body.push_back(KernelBuilder::op(OpCode::syncwarp));
    OpBuilder a = KernelBuilder::op(OpCode::mbar_arrive).bar(full).one();
    if (relaxed) a.sem(Sem::relaxed);
    p.body.push_back(a);
  }
  const ExprId par = kb.c(parity);
  Role& c = kb.role("consumer", Granularity::warp);
  c.body.push_back(KernelBuilder::op(OpCode::mbar_wait).bar(full).parity(par));
  c.body.push_back(KernelBuilder::op(OpCode::read).buf(data));
  return kb.build();
}

}  // namespace

TEST_CASE("message passing through an mbarrier verifies") {
  for (bool red : {true, false}) {
    check::Result r = run(handoff(0, false, false), red);
    CHECK(r.verdict == Verdict::verified);
    CHECK(r.states > 1);
  }
}

TEST_CASE("wrong initial parity: the consumer passes at once and races") {
  check::Result r = run(handoff(1, false, false));
  REQUIRE(r.verdict == Verdict::violation);
  CHECK(r.violation == Violation::data_race);
  CHECK_FALSE(r.replay.empty());
}

TEST_CASE("all lanes write, only the leader arrives: a race unless __syncwarp comes first") {
  CHECK(run(handoff(0, true, false)).violation == Violation::data_race);
  CHECK(run(handoff(0, true, true)).verdict == Verdict::verified);
}

TEST_CASE("a relaxed arrive orders nothing") {
  CHECK(run(handoff(0, false, false, true)).violation == Violation::data_race);
}

TEST_CASE("a count larger than the arrivals deadlocks") {
  KernelBuilder kb("short");
  const int bar = kb.mbarrier("bar", 1, 2);
  Role& p = kb.role("producer", Granularity::warp);
  p.body.push_back(KernelBuilder::op(OpCode::mbar_arrive).bar(bar).one());
  Role& c = kb.role("consumer", Granularity::warp);
  c.body.push_back(KernelBuilder::op(OpCode::mbar_wait).bar(bar).parity(kb.c(0)));
  check::Result r = run(kb.build());
  REQUIRE(r.verdict == Verdict::violation);
  CHECK(r.violation == Violation::deadlock);
  CHECK(r.message.find("consumer") != std::string::npos);
}

TEST_CASE("replay token reproduces the violation") {
  check::Result r = run(handoff(1, false, false));
  REQUIRE(r.verdict == Verdict::violation);
  check::Options o;
  o.replay = r.replay;
  check::Result again = check::check(handoff(1, false, false), o);
  CHECK(again.verdict == Verdict::violation);
  CHECK(again.violation == r.violation);
  CHECK(again.trace.size() == r.trace.size());
}
