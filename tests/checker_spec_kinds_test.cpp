// Violations that spec/ rules report, reached through the explorer: one
// kernel per kind, each with the correct use beside it.
#include <doctest/doctest.h>

#include <functional>

#include "checker/builder.hpp"
#include "checker/explore.hpp"

using namespace pc;
using namespace pc::ir;
using spec::Violation;

namespace {

OpBuilder O(OpCode c) { return KernelBuilder::op(c); }

// One warp runs `body` on a kernel with one mbarrier `bar` (count `count`, 0: not initialised).
check::Result one_warp(std::int64_t count, const std::function<void(KernelBuilder&, Role&, int)>& body) {
  KernelBuilder kb("k");
  const int bar = kb.mbarrier("bar", 1, count);
  Role& r = kb.role("w", Granularity::warp);
  body(kb, r, bar);
  return check::check(kb.build(), check::Options{});
}

}  // namespace

TEST_CASE("mbarrier misuse through the explorer") {
  CHECK(one_warp(0, [](KernelBuilder&, Role& r, int bar) { r.body.push_back(O(OpCode::mbar_arrive).bar(bar).one()); })
            .violation == Violation::uninitialized_barrier);
  CHECK(one_warp(1, [](KernelBuilder& kb, Role& r, int bar) {
          r.body.push_back(O(OpCode::mbar_inval).bar(bar));
          r.body.push_back(O(OpCode::mbar_arrive).bar(bar).one());
          (void)kb;
        }).violation == Violation::invalidated_barrier);
  CHECK(one_warp(1, [](KernelBuilder& kb, Role& r, int bar) {
          r.body.push_back(O(OpCode::mbar_inval).bar(bar));
          r.body.push_back(O(OpCode::mbar_init).bar(bar).count(kb.c(1)));
          r.body.push_back(O(OpCode::mbar_arrive).bar(bar).one());
        }).verdict == check::Verdict::verified);
  CHECK(one_warp(1, [](KernelBuilder& kb, Role& r, int bar) { r.body.push_back(O(OpCode::mbar_init).bar(bar).count(kb.c(1))); })
            .violation == Violation::reinit_live_barrier);
  CHECK(one_warp(0, [](KernelBuilder& kb, Role& r, int bar) { r.body.push_back(O(OpCode::mbar_init).bar(bar).count(kb.c(0))); })
            .violation == Violation::bad_init_count);
  CHECK(one_warp(1, [](KernelBuilder& kb, Role& r, int bar) {
          r.body.push_back(O(OpCode::mbar_expect_tx).bar(bar).bytes(kb.c(1 << 20)).one());
        }).violation == Violation::tx_out_of_range);
  CHECK(one_warp(1, [](KernelBuilder&, Role& r, int bar) { r.body.push_back(O(OpCode::mbar_arrive).bar(bar).one().no_complete()); })
            .violation == Violation::nocomplete_would_complete);
  CHECK(one_warp(2, [](KernelBuilder&, Role& r, int bar) {
          r.body.push_back(O(OpCode::mbar_arrive).bar(bar).one().no_complete());
          r.body.push_back(O(OpCode::mbar_arrive).bar(bar).one());
        }).verdict == check::Verdict::verified);
  // 32 lanes arrive on a barrier expecting 1.
  CHECK(one_warp(1, [](KernelBuilder&, Role& r, int bar) { r.body.push_back(O(OpCode::mbar_arrive).bar(bar)); }).violation ==
        Violation::arrival_underflow);
  CHECK(one_warp(32, [](KernelBuilder&, Role& r, int bar) { r.body.push_back(O(OpCode::mbar_arrive).bar(bar)); }).verdict ==
        check::Verdict::verified);
  CHECK(one_warp(1, [](KernelBuilder& kb, Role& r, int bar) {
          r.body.push_back(O(OpCode::mbar_arrive).bar(bar).one().count(kb.c(0)));
        }).violation == Violation::bad_arrive_count);
}

TEST_CASE("async-group, cluster and assertion misuse through the explorer") {
  // PTX ISA wgmma.fence: required before the first wgmma.mma_async of the
  // warp group; a second commit group needs none (no register is touched).
  auto wg = [](bool fence, int groups) {
    KernelBuilder kb("wgmma");
    const int a = kb.buffer("A", 1, 1024);
    Role& r = kb.role("mma", Granularity::warpgroup);
    if (fence) r.body.push_back(O(OpCode::wgmma_fence));
    for (int g = 0; g < groups; ++g) {
      r.body.push_back(O(OpCode::wgmma).buf(a));
      r.body.push_back(O(OpCode::wgmma_commit));
    }
    r.body.push_back(O(OpCode::wgmma_wait).n(kb.c(0)));
    return check::check(kb.build(), check::Options{});
  };
  CHECK(wg(false, 1).violation == Violation::async_group_misuse);
  CHECK(wg(true, 1).verdict == check::Verdict::verified);
  CHECK(wg(true, 2).verdict == check::Verdict::verified);

  KernelBuilder kb("cl");
  kb.cluster(2);
  Role& r = kb.role("w", Granularity::warp);
  r.body.push_back(O(OpCode::cluster_wait));
  CHECK(check::check(kb.build(), check::Options{}).violation == Violation::cluster_barrier_misuse);

  KernelBuilder ka("assert");
  Role& q = ka.role("w", Granularity::warp);
  const int x = KernelBuilder::var(q, "x");
  q.body.push_back(KernelBuilder::assign(x, ka.c(3)));
  q.body.push_back(KernelBuilder::assert_true(ka.bin(BinOp::eq, ka.v(x), ka.c(4))));
  CHECK(check::check(ka.build(), check::Options{}).violation == Violation::assertion_failed);
}

TEST_CASE("limits end in inconclusive, never verified") {
  KernelBuilder kb("big");
  const int bar = kb.mbarrier("bar", 1, 4);
  Role& r = kb.role("w", Granularity::warp, 4);
  const int k = KernelBuilder::var(r, "k");
  r.body.push_back(KernelBuilder::for_loop(
      k, kb.c(0), kb.c(50),
      {O(OpCode::mbar_arrive).bar(bar).one(), O(OpCode::mbar_wait).bar(bar).parity(kb.bin(BinOp::mod, kb.v(k), kb.c(2)))}));
  check::Options o;
  o.reduction = false;
  o.max_states = 2000;
  check::Result res = check::check(kb.build(), o);
  CHECK(res.verdict == check::Verdict::inconclusive);
  CHECK(res.inconclusive_reason == "max-states");
}
