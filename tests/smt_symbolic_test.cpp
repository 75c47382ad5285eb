// Symbolic checks over parameter ranges (checker/smt), and their agreement
// with the explicit search at the counterexample's parameter values.
#include <doctest/doctest.h>

#include "checker/builder.hpp"
#include "checker/explore.hpp"
#include "checker/smt/symbolic.hpp"

using namespace pc;
using namespace pc::ir;

namespace {

// A producer expects BM*BK*2 bytes on full and loads A (BM*BK*2 bytes) and B
// (BN*BK*2 bytes): balanced only when BN == 0... so `extra` adds B.
Kernel gemm_stage(std::int64_t bm, bool with_b, bool expect_both) {
  KernelBuilder kb("stage");
  const int BM = kb.param("BM", bm, {64, 128, 256});
  const int BK = kb.param("BK", 64, {32, 64});
  const int BN = kb.param("BN", 128, {64, 128, 256});
  const ExprId a_bytes = kb.bin(BinOp::mul, kb.bin(BinOp::mul, kb.p(BM), kb.p(BK)), kb.c(2));
  const ExprId b_bytes = kb.bin(BinOp::mul, kb.bin(BinOp::mul, kb.p(BN), kb.p(BK)), kb.c(2));
  const int a = kb.buffer("A", 1, bm * 64 * 2, {}, a_bytes);
  const int b = kb.buffer("B", 1, 128 * 64 * 2, {}, b_bytes);
  const int full = kb.mbarrier("full", 1, 1);
  const ExprId expect = expect_both ? kb.bin(BinOp::add, a_bytes, b_bytes) : a_bytes;
  Role& p = kb.role("producer", Granularity::warp);
  p.body.push_back(KernelBuilder::op(OpCode::mbar_arrive_expect_tx).bar(full).bytes(expect).one());
  p.body.push_back(KernelBuilder::op(OpCode::tma_load).buf(a).bar(full));
  if (with_b) p.body.push_back(KernelBuilder::op(OpCode::tma_load).buf(b).bar(full));
  Role& c = kb.role("consumer", Granularity::warp);
  c.body.push_back(KernelBuilder::op(OpCode::mbar_wait).bar(full).parity(kb.c(0)));
  return kb.build();
}

}  // namespace

TEST_CASE("tx balance is proven for every tile size when the expect counts both loads") {
  auto f = smt::check_symbolic(gemm_stage(128, true, true));
  REQUIRE(f.size() == 1);
  CHECK(f[0].status == smt::Status::proven);
  CHECK(f[0].check == "tx_balance");
}

TEST_CASE("tx balance: a missing operand gives a counterexample the explicit search confirms") {
  auto f = smt::check_symbolic(gemm_stage(128, true, false));
  REQUIRE(f.size() == 1);
  REQUIRE(f[0].status == smt::Status::counterexample);
  CHECK_FALSE(f[0].witness.empty());
  // The explicit search at the same parameters fails too: the phase completes
  // when A lands, the consumer leaves, and the CTA exits with B in flight.
  check::Result r = check::check(gemm_stage(128, true, false), check::Options{});
  CHECK(r.verdict == check::Verdict::violation);
  CHECK(r.violation == spec::Violation::exit_with_pending);
}

TEST_CASE("named-barrier counts: equal across roles and warp multiples, for all parameter values") {
  auto make = [](bool same) {
    KernelBuilder kb("pingpong");
    const int W = kb.param("WARPS", 4, {2, 4, 8});
    const ExprId n = kb.bin(BinOp::mul, kb.bin(BinOp::mul, kb.p(W), kb.c(32)), kb.c(2));
    const ExprId m = same ? n : kb.bin(BinOp::add, n, kb.c(32));
    Role& a = kb.role("a", Granularity::warpgroup);
    a.body.push_back(KernelBuilder::op(OpCode::bar_sync).id(kb.c(9)).count(n));
    Role& b = kb.role("b", Granularity::warpgroup);
    b.body.push_back(KernelBuilder::op(OpCode::bar_arrive).id(kb.c(9)).count(m));
    return kb.build();
  };
  for (const smt::Finding& f : smt::check_symbolic(make(true))) CHECK(f.status == smt::Status::proven);
  bool refuted = false;
  for (const smt::Finding& f : smt::check_symbolic(make(false))) refuted |= f.status == smt::Status::counterexample;
  CHECK(refuted);
}
