// Each violation kind the explorer reports, reached by a minimal kernel, with
// the corrected kernel beside it verifying.
#include <doctest/doctest.h>

#include <string>

#include "checker/builder.hpp"
#include "checker/explore.hpp"
#include "tests/agreed_check.hpp"
#include "tests/kernel_text.hpp"

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

Stmt op(OpBuilder b) { return b; }
OpBuilder O(OpCode c) { return KernelBuilder::op(c); }

// A generic write read by a TMA store: needs fence.proxy.async in the writer.
Kernel tma_store_after_generic_write(bool fence) {
  KernelBuilder kb("tma_store");
  const int out = kb.buffer("out", 1, 256);
  Role& w = kb.role("epilogue", Granularity::warp);
  w.body.push_back(O(OpCode::write).buf(out));
  if (fence) w.body.push_back(O(OpCode::fence_proxy_async));
  w.body.push_back(O(OpCode::syncwarp));
  w.body.push_back(O(OpCode::tma_store).buf(out));
  w.body.push_back(O(OpCode::bulk_commit_group));
  w.body.push_back(O(OpCode::bulk_wait_group_read).n(kb.c(0)));
  return kb.build();
}

// A TMA load into `buf` completing on `full`; a consumer waits and reads.
Kernel tma_pipeline(std::int64_t expect_bytes, std::int64_t parity) {
  KernelBuilder kb("tma");
  const int a = kb.buffer("A", 1, 1024);
  const int full = kb.mbarrier("full", 1, 1);
  Role& p = kb.role("producer", Granularity::warp);
  p.body.push_back(O(OpCode::mbar_arrive_expect_tx).bar(full).bytes(kb.c(expect_bytes)).one());
  p.body.push_back(O(OpCode::tma_load).buf(a).bar(full));
  Role& c = kb.role("consumer", Granularity::warpgroup);
  c.body.push_back(O(OpCode::mbar_wait).bar(full).parity(kb.c(parity)));
  c.body.push_back(O(OpCode::read).buf(a));
  return kb.build();
}

}  // namespace

TEST_CASE("proxy_race: generic write then TMA store without fence.proxy.async") {
  check::Result bad = run(tma_store_after_generic_write(false));
  REQUIRE(bad.verdict == Verdict::violation);
  CHECK(bad.violation == Violation::proxy_race);
  CHECK(run(tma_store_after_generic_write(true)).verdict == Verdict::verified);
}

TEST_CASE("TMA load observed through the barrier; expect_tx bytes must match") {
  CHECK(run(tma_pipeline(1024, 0)).verdict == Verdict::verified);
  // Too few bytes expected: the copy drives the tx-count below zero and it
  // never returns to zero, so the phase never completes.
  check::Result few = run(tma_pipeline(512, 0));
  REQUIRE(few.verdict == Verdict::violation);
  CHECK(few.violation == Violation::deadlock);
  CHECK(few.message.find("tx -512") != std::string::npos);
  // Too many: the phase never completes.
  check::Result many = run(tma_pipeline(2048, 0));
  REQUIRE(many.verdict == Verdict::violation);
  CHECK(many.violation == Violation::deadlock);
}

TEST_CASE("exit_with_pending: a CTA exits while its TMA load is in flight") {
  KernelBuilder kb("exit");
  const int a = kb.buffer("A", 1, 64);
  const int full = kb.mbarrier("full", 1, 1);
  Role& p = kb.role("producer", Granularity::warp);
  p.body.push_back(O(OpCode::mbar_arrive_expect_tx).bar(full).bytes(kb.c(64)).one());
  p.body.push_back(O(OpCode::tma_load).buf(a).bar(full));
  Kernel k = kb.build();
  check::Result r = run(k);
  REQUIRE(r.verdict == Verdict::violation);
  CHECK(r.violation == Violation::exit_with_pending);
  // Waiting for the copy first is fine.
  k.roles[0].body.push_back(O(OpCode::mbar_wait).bar(full).parity(kb.c(0)));
  k.exprs = kb.kernel().exprs;
  CHECK(run(k).verdict == Verdict::verified);
}

TEST_CASE("named barrier: producer bar.arrive, consumer bar.sync; count mismatch and misuse") {
  auto make = [](std::int64_t prod_count, std::int64_t cons_count, std::int64_t id) {
    KernelBuilder kb("named");
    kb.cta_threads(256);  // two more warps elsewhere in the CTA: id 0 would need all 256
    const int d = kb.buffer("d", 1, 64);
    Role& p = kb.role("producer", Granularity::warp);
    p.body.push_back(O(OpCode::write).buf(d));
    p.body.push_back(O(OpCode::bar_arrive).id(kb.c(id)).count(kb.c(prod_count)));
    Role& c = kb.role("consumer", Granularity::warp);
    c.body.push_back(O(OpCode::bar_sync).id(kb.c(id)).count(kb.c(cons_count)));
    c.body.push_back(O(OpCode::read).buf(d));
    return kb.build();
  };
  CHECK(run(make(64, 64, 1)).verdict == Verdict::verified);
  CHECK(run(make(64, 96, 1)).violation == Violation::named_count_mismatch);
  CHECK(run(make(96, 96, 1)).violation == Violation::deadlock);
  CHECK(run(make(48, 48, 1)).violation == Violation::named_count_not_warp_multiple);
  CHECK(run(make(64, 64, 16)).violation == Violation::named_id_out_of_range);
  // Barrier 0 with a partial count is legal PTX; it clashes only with a
  // __syncthreads of the same kernel (kernels/bugs/user_barrier_id0.bk).
  CHECK(run(make(64, 64, 0)).verdict == Verdict::verified);
}

// An id out of range in a role of several warps is the violation too, and
// not a read past the barrier slots (a fuzzer input: the per-warp arrive of
// a multi-warp agent took the barrier's state before checking the id).
TEST_CASE("named barrier: an id out of range in a warp-group role is named_id_out_of_range") {
  for (const std::int64_t id : {16, 20, -1}) {
    KernelBuilder kb("named_id_warps");
    Role& r = kb.role("group", Granularity::warpgroup);
    r.body.push_back(O(OpCode::bar_sync).id(kb.c(id)).count(kb.c(128)));
    CAPTURE(id);
    CHECK(run(kb.build()).violation == Violation::named_id_out_of_range);
  }
}

// PTX ISA bar/barrier: "If no thread count is specified, all threads in the
// CTA participate in the barrier. When specifying a thread count, the value
// must be a multiple of the warp size. Note that a non-zero thread count is
// required for barrier{.cta}.arrive." Until issue 62 the model checked the
// CTA's size where no count is given (a CTA of 80 threads with bar.sync 1 was
// named_count_not_warp_multiple), and took a count of 0 for no count. Then a
// given 0 was named_count_not_warp_multiple for every form; since the H200
// run of barrier_letter (Q2: bar.sync 1, 0 waits for every warp of the block,
// bar.arrive 1, 0 faults) a bar.sync's 0 is the whole CTA and a bar.arrive's
// stays the violation.
TEST_CASE("named barrier: no count checks no warp multiple; a count of 0 is the whole CTA for bar.sync, a violation for bar.arrive") {
  auto make = [](int cta_threads, std::int64_t count, OpCode first = OpCode::bar_sync) {
    KernelBuilder kb("named_counts");
    kb.cta_threads(cta_threads);
    const int d = kb.buffer("d", 1, 64);
    Role& p = kb.role("producer", Granularity::warp);
    p.body.push_back(O(OpCode::write).buf(d));
    ir::OpBuilder arrive = O(first).id(kb.c(1));
    if (count >= 0) arrive.count(kb.c(count));
    p.body.push_back(arrive);
    Role& c = kb.role("consumer", Granularity::warp);
    ir::OpBuilder sync = O(OpCode::bar_sync).id(kb.c(1));
    if (count >= 0) sync.count(kb.c(count));
    c.body.push_back(sync);
    c.body.push_back(O(OpCode::read).buf(d));
    return kb.build();
  };
  // 80 threads, not a multiple of 32: the roles' 64 and 16 that exit at once.
  CHECK(run(make(80, -1)).verdict == Verdict::verified);
  CHECK(run(make(80, 64)).verdict == Verdict::verified);
  CHECK(run(make(80, 0)).verdict == Verdict::verified);
  CHECK(run(make(80, 0, OpCode::bar_arrive)).violation == Violation::named_count_not_warp_multiple);
  CHECK(run(make(80, 64, OpCode::bar_arrive)).verdict == Verdict::verified);
  // A count of 0 held in a variable, with a warp that exits before the
  // barrier (it no longer holds up the whole-CTA instance): the same with and
  // without the reductions, whose footprints let an exit complete it.
  const std::string zero = "kernel z\nsmem d bytes 64\nrole p warp:\n  t = 0\n  one: write d\n  bar_sync 1, t\n"
                           "role q warp:\n  exit\nrole c warp:\n  bar_sync 1, 0\n  all: read d\n";
  CHECK(pc::testing::agreed_outcome(zero) == "verified");
  CHECK(pc::testing::agreed_outcome(pc::testing::with(zero, "  bar_sync 1, t\n", "  bar_arrive 1, t\n")) ==
        "named_count_not_warp_multiple");
}

TEST_CASE("lapping is judged by its effects: no parity_alias without a deadlock or a race") {
  // The producer completes two phases, then meets the consumer at a named
  // barrier; the consumer then waits for the second phase by parity 1, which
  // passes with the barrier two phases past anything it observed. A correct
  // kernel that waits ahead (the old heuristic called it parity_alias).
  KernelBuilder kb("wait_ahead");
  const int bar = kb.mbarrier("full", 1, 1);
  Role& p = kb.role("producer", Granularity::warp);
  p.body.push_back(O(OpCode::mbar_arrive).bar(bar).one());
  p.body.push_back(O(OpCode::mbar_arrive).bar(bar).one());
  p.body.push_back(O(OpCode::bar_sync).id(kb.c(1)).count(kb.c(64)));
  Role& c = kb.role("consumer", Granularity::warp);
  c.body.push_back(O(OpCode::bar_sync).id(kb.c(1)).count(kb.c(64)));
  c.body.push_back(O(OpCode::mbar_wait).bar(bar).parity(kb.c(1)));
  CHECK(run(kb.build()).verdict == Verdict::verified);
  CHECK(run(kb.build(), false).verdict == Verdict::verified);

  // A producer that laps the consumer three rounds ahead with no empty
  // barrier: the consumer's second wait never passes. The deadlock is
  // reported, and the trace marks the wait that passed on a lapped phase.
  KernelBuilder kb2("lap_deadlock");
  const int bar2 = kb2.mbarrier("ready", 1, 1);
  Role& p2 = kb2.role("producer", Granularity::warp);
  for (int i = 0; i < 3; ++i) p2.body.push_back(O(OpCode::mbar_arrive).bar(bar2).one());
  Role& c2 = kb2.role("consumer", Granularity::warp);
  c2.body.push_back(O(OpCode::mbar_wait).bar(bar2).parity(kb2.c(0)));
  c2.body.push_back(O(OpCode::mbar_wait).bar(bar2).parity(kb2.c(1)));
  check::Result r = run(kb2.build());
  REQUIRE(r.verdict == Verdict::violation);
  CHECK(r.violation == Violation::deadlock);
  bool lapped = false;
  for (const check::TraceStep& t : r.trace) lapped |= t.text.find("[lapped:") != std::string::npos;
  CHECK(lapped);
}

TEST_CASE("trace text: an arrive that completes a phase or an instance says so") {
  // Two warps meet at named barrier 1, then the consumer waits for a phase
  // of `full` that the producer's second arrive completes, then for the next
  // one, which never completes: a deadlock whose trace shows both arrives.
  KernelBuilder kb("completes");
  const int bar = kb.mbarrier("full", 1, 1);
  Role& p = kb.role("producer", Granularity::warp);
  p.body.push_back(O(OpCode::bar_sync).id(kb.c(1)).count(kb.c(64)));
  p.body.push_back(O(OpCode::mbar_arrive).bar(bar).one());
  Role& c = kb.role("consumer", Granularity::warp);
  c.body.push_back(O(OpCode::bar_sync).id(kb.c(1)).count(kb.c(64)));
  c.body.push_back(O(OpCode::mbar_wait).bar(bar).parity(kb.c(0)));
  c.body.push_back(O(OpCode::mbar_wait).bar(bar).parity(kb.c(1)));
  const check::Result r = run(kb.build());
  REQUIRE(r.violation == Violation::deadlock);
  std::string trace;
  for (const check::TraceStep& t : r.trace) trace += t.text + "\n";
  CAPTURE(trace);
  CHECK(trace.find("bar_sync 1, 64 (32 arrived)") != std::string::npos);
  CHECK(trace.find("bar_sync 1, 64 (completes: 64 of 64 arrived)") != std::string::npos);
  CHECK(trace.find("(0 arrived)") == std::string::npos);
  CHECK(trace.find("count 1 (pending 1 -> 0, phase 0 completes)") != std::string::npos);
  CHECK(trace.find("pending 1 -> 1") == std::string::npos);
}

TEST_CASE("remote_wait and the cluster barrier") {
  KernelBuilder kb("cluster");
  kb.cluster(2);
  const int d = kb.buffer("d", 1, 64);
  const int bar = kb.mbarrier("bar", 1, 1);
  Role& w = kb.role("worker", Granularity::warp);
  // Both CTAs have started; CTA 0 writes into CTA 1's buffer, then everyone
  // meets at the cluster barrier.
  const ExprId is0 = kb.bin(BinOp::eq, kb.v(var_cta), kb.c(0));
  w.body.push_back(O(OpCode::cluster_sync));
  w.body.push_back(KernelBuilder::if_else(is0, {op(O(OpCode::write).buf(d, no_expr, kb.c(1)))}));
  w.body.push_back(O(OpCode::cluster_sync));
  w.body.push_back(KernelBuilder::if_else(kb.un(UnOp::lnot, is0), {op(O(OpCode::read).buf(d))}));
  Kernel good = kb.build();
  CHECK(run(good).verdict == Verdict::verified);
  // The same with a relaxed arrive: no order, a race.
  Kernel relaxed = good;
  relaxed.roles[0].body[2] = op(O(OpCode::cluster_arrive).sem(Sem::relaxed));
  relaxed.roles[0].body.insert(relaxed.roles[0].body.begin() + 3, op(O(OpCode::cluster_wait)));
  CHECK(run(relaxed).violation == Violation::data_race);
  // Waiting on the peer's mbarrier is not allowed.
  Kernel remote = good;
  remote.roles[0].body.push_back(op(O(OpCode::mbar_wait).bar(bar, no_expr, kb.c(1)).parity(kb.c(1))));
  remote.exprs = kb.kernel().exprs;
  CHECK(run(remote).violation == Violation::remote_wait);
}

TEST_CASE("unsynchronized_init: init by one warp, used by another without a barrier") {
  auto make = [](bool sync) {
    KernelBuilder kb("init");
    const int bar = kb.mbarrier("bar", 1, 0);
    Role& a = kb.role("initializer", Granularity::warp);
    a.body.push_back(O(OpCode::mbar_init).bar(bar).count(kb.c(2)));
    if (sync) a.body.push_back(O(OpCode::syncthreads));
    a.body.push_back(O(OpCode::mbar_arrive).bar(bar).one());
    Role& b = kb.role("user", Granularity::warp);
    if (sync) b.body.push_back(O(OpCode::syncthreads));
    b.body.push_back(O(OpCode::mbar_arrive).bar(bar).one());
    b.body.push_back(O(OpCode::mbar_wait).bar(bar).parity(kb.c(0)));
    return kb.build();
  };
  CHECK(run(make(false)).violation == Violation::unsynchronized_init);
  CHECK(run(make(true)).verdict == Verdict::verified);
}

TEST_CASE("AMD: s_barrier needs s_waitcnt lgkmcnt(0) after LDS writes") {
  auto make = [](bool waitcnt) {
    KernelBuilder kb("amd");
    kb.target(Target::amd);
    const int lds = kb.buffer("lds", 1, 256);
    Role& w = kb.role("wave", Granularity::warp, 2);
    w.body.push_back(KernelBuilder::if_else(kb.bin(BinOp::eq, kb.v(var_instance), kb.c(0)),
                                            {op(O(OpCode::write).buf(lds))}));
    if (waitcnt) w.body.push_back(O(OpCode::s_waitcnt).count(kb.c(0)));
    w.body.push_back(O(OpCode::s_barrier));
    w.body.push_back(O(OpCode::read).buf(lds));
    return kb.build();
  };
  CHECK(run(make(false)).violation == Violation::amd_missing_waitcnt);
  CHECK(run(make(true)).verdict == Verdict::verified);
}

TEST_CASE("reduction and no reduction agree on these kernels") {
  for (const Kernel& k : {tma_pipeline(1024, 0), tma_pipeline(512, 0), tma_pipeline(2048, 0),
                          tma_store_after_generic_write(false), tma_store_after_generic_write(true)}) {
    check::Result a = run(k, true), b = run(k, false);
    CHECK(a.verdict == b.verdict);
    CHECK(a.violation == b.violation);
    CHECK(a.states <= b.states);
  }
}

TEST_CASE("AMD gfx12 split barrier: signal after the LDS write, wait before the read") {
  auto make = [](bool signal) {
    KernelBuilder kb("split");
    kb.target(Target::amd).gfx(pc::spec::amd::Gfx::gfx1200);
    const int lds = kb.buffer("lds", 1, 256);
    Role& w = kb.role("wave", Granularity::warp, 2);
    const ExprId first = kb.bin(BinOp::eq, kb.v(var_instance), kb.c(0));
    w.body.push_back(KernelBuilder::if_else(first, {op(O(OpCode::write).buf(lds))}));
    w.body.push_back(O(OpCode::s_waitcnt).count(kb.c(0)));
    if (signal) w.body.push_back(O(OpCode::s_barrier_signal));
    w.body.push_back(O(OpCode::s_barrier_wait));
    w.body.push_back(KernelBuilder::if_else(kb.un(UnOp::lnot, first), {op(O(OpCode::read).buf(lds))}));
    return kb.build();
  };
  CHECK(run(make(true)).verdict == Verdict::verified);
  CHECK(run(make(false)).violation == Violation::split_barrier_misuse);
}
