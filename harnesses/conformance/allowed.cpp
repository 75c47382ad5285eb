#include "harnesses/conformance/allowed.hpp"

#include "checker/builder.hpp"
#include "checker/explore.hpp"

namespace pc::conformance {

using namespace ir;

const char* litmus_name(Litmus l) {
  switch (l) {
    case Litmus::mp_mbarrier_release: return "mp_mbarrier_release";
    case Litmus::mp_mbarrier_relaxed: return "mp_mbarrier_relaxed";
    case Litmus::mp_named_barrier: return "mp_named_barrier";
    case Litmus::tma_load_mbarrier: return "tma_load_mbarrier";
    case Litmus::tma_store_fenced: return "tma_store_fenced";
    case Litmus::tma_store_unfenced: return "tma_store_unfenced";
    case Litmus::tma_reduce_fenced: return "tma_reduce_fenced";
    case Litmus::cluster_release: return "cluster_release";
    case Litmus::cluster_relaxed: return "cluster_relaxed";
    case Litmus::mp_sw_mbarrier: return "mp_sw_mbarrier";
    case Litmus::arrive_drop_progress: return "arrive_drop_progress";
    case Litmus::hang_short_count: return "hang_short_count";
    case Litmus::finish_full_count: return "finish_full_count";
    case Litmus::st_async_cluster: return "st_async_cluster";
    case Litmus::red_async_cluster: return "red_async_cluster";
    case Litmus::st_async_cta_wait: return "st_async_cta_wait";
    case Litmus::cp_async_wait_group: return "cp_async_wait_group";
    case Litmus::cp_async_wait_pending: return "cp_async_wait_pending";
  }
  return "?";
}

Kernel litmus_kernel(Litmus l) {
  KernelBuilder kb(litmus_name(l));
  auto op = [](OpCode c) { return KernelBuilder::op(c); };
  switch (l) {
    case Litmus::mp_mbarrier_release:
    case Litmus::mp_mbarrier_relaxed:
    case Litmus::mp_sw_mbarrier: {
      // The software mbarrier's arrive is a release and its poll an acquire
      // (spec/primitives.hpp), so its litmus kernel is the release one.
      const int data = kb.buffer("data", 1, 4);
      const int full = kb.mbarrier("full", 1, 1);
      Role& p = kb.role("producer", Granularity::warp);
      p.body.push_back(op(OpCode::write).buf(data).one());
      OpBuilder a = op(OpCode::mbar_arrive).bar(full).one();
      if (l == Litmus::mp_mbarrier_relaxed) a.sem(Sem::relaxed);
      p.body.push_back(a);
      Role& c = kb.role("consumer", Granularity::warp);
      c.body.push_back(op(OpCode::mbar_wait).bar(full).parity(kb.c(0)));
      c.body.push_back(op(OpCode::read).buf(data).one());
      break;
    }
    case Litmus::mp_named_barrier: {
      const int data = kb.buffer("data", 1, 4);
      Role& p = kb.role("producer", Granularity::warp);
      p.body.push_back(op(OpCode::write).buf(data).one());
      p.body.push_back(op(OpCode::bar_arrive).id(kb.c(1)).count(kb.c(64)));
      Role& c = kb.role("consumer", Granularity::warp);
      c.body.push_back(op(OpCode::bar_sync).id(kb.c(1)).count(kb.c(64)));
      c.body.push_back(op(OpCode::read).buf(data).one());
      break;
    }
    case Litmus::tma_load_mbarrier: {
      const int data = kb.buffer("data", 1, 16);
      const int full = kb.mbarrier("full", 1, 1);
      Role& c = kb.role("consumer", Granularity::warp);
      c.body.push_back(op(OpCode::mbar_arrive_expect_tx).bar(full).bytes(kb.c(16)).one());
      c.body.push_back(op(OpCode::tma_load).buf(data).bar(full));
      c.body.push_back(op(OpCode::mbar_wait).bar(full).parity(kb.c(0)));
      c.body.push_back(op(OpCode::read).buf(data).one());
      break;
    }
    case Litmus::tma_store_fenced:
    case Litmus::tma_store_unfenced:
    case Litmus::tma_reduce_fenced: {
      const int data = kb.buffer("data", 1, 16);
      Role& w = kb.role("writer", Granularity::warp);
      w.body.push_back(op(OpCode::write).buf(data));
      if (l != Litmus::tma_store_unfenced) w.body.push_back(op(OpCode::fence_proxy_async));
      w.body.push_back(op(OpCode::syncwarp));
      w.body.push_back(op(l == Litmus::tma_reduce_fenced ? OpCode::tma_reduce : OpCode::tma_store).buf(data));
      w.body.push_back(op(OpCode::bulk_commit_group));
      w.body.push_back(op(OpCode::bulk_wait_group).n(kb.c(0)));
      break;
    }
    case Litmus::cluster_release:
    case Litmus::cluster_relaxed: {
      kb.cluster(2);
      const int data = kb.buffer("data", 1, 4);
      Role& w = kb.role("worker", Granularity::warp);
      const ExprId is0 = kb.bin(BinOp::eq, kb.v(var_cta), kb.c(0));
      w.body.push_back(KernelBuilder::if_else(is0, {Stmt(op(OpCode::write).buf(data, no_expr, kb.c(1)).one())}));
      OpBuilder a = op(OpCode::cluster_arrive);
      if (l == Litmus::cluster_relaxed) a.sem(Sem::relaxed);
      w.body.push_back(a);
      w.body.push_back(op(OpCode::cluster_wait));
      w.body.push_back(KernelBuilder::if_else(kb.un(UnOp::lnot, is0), {Stmt(op(OpCode::read).buf(data).one())}));
      break;
    }
    case Litmus::st_async_cluster:
    case Litmus::st_async_cta_wait:
    case Litmus::red_async_cluster: {
      // CTA 0 writes `note` into CTA 1, then st.async's `data` there with
      // complete_tx on CTA 1's barrier; CTA 1 expects the 4 bytes, waits
      // with .acquire.cluster and reads both (its release carries the note).
      kb.cluster(2);
      const int data = kb.buffer("data", 1, 4);
      const int note = kb.buffer("note", 1, 4);
      const int full = kb.mbarrier("full", 1, 1);
      Role& p = kb.role("producer", Granularity::warp);
      p.cta = 0;
      p.body.push_back(op(OpCode::write).buf(note, no_expr, kb.c(1)).one());
      const OpCode store = l == Litmus::red_async_cluster ? OpCode::red_async : OpCode::st_async;
      p.body.push_back(op(store).buf(data, no_expr, kb.c(1)).bar(full, no_expr, kb.c(1)).bytes(kb.c(4)).one());
      Role& c = kb.role("consumer", Granularity::warp);
      c.cta = 1;
      c.body.push_back(op(OpCode::mbar_arrive_expect_tx).bar(full).bytes(kb.c(4)).one());
      OpBuilder w = op(OpCode::mbar_wait).bar(full).parity(kb.c(0)).one();
      if (l != Litmus::st_async_cta_wait) w.scope(Scope::cluster);
      c.body.push_back(w);
      c.body.push_back(op(OpCode::read).buf(data).one());
      c.body.push_back(op(OpCode::read).buf(note).one());
      break;
    }
    case Litmus::cp_async_wait_group:
    case Litmus::cp_async_wait_pending: {
      // One thread: cp.async into d0, commit, cp.async into d1, commit,
      // wait_group 1, read d0 (or d1).
      const int d0 = kb.buffer("d0", 1, 4);
      const int d1 = kb.buffer("d1", 1, 4);
      Role& w = kb.role("copier", Granularity::warp);
      w.body.push_back(op(OpCode::cp_async).buf(d0).one());
      w.body.push_back(op(OpCode::cp_async_commit).one());
      w.body.push_back(op(OpCode::cp_async).buf(d1).one());
      w.body.push_back(op(OpCode::cp_async_commit).one());
      w.body.push_back(op(OpCode::cp_async_wait).n(kb.c(1)).one());
      w.body.push_back(op(OpCode::read).buf(l == Litmus::cp_async_wait_group ? d0 : d1).one());
      w.body.push_back(op(OpCode::cp_async_wait_all).one());
      break;
    }
    case Litmus::arrive_drop_progress: {
      const int bar = kb.mbarrier("bar", 1, 2);
      Role& a = kb.role("stays", Granularity::warp);
      a.body.push_back(op(OpCode::mbar_arrive).bar(bar).one());
      a.body.push_back(op(OpCode::mbar_wait).bar(bar).parity(kb.c(0)));
      a.body.push_back(op(OpCode::mbar_arrive).bar(bar).one());
      a.body.push_back(op(OpCode::mbar_wait).bar(bar).parity(kb.c(1)));
      Role& b = kb.role("leaves", Granularity::warp);
      b.body.push_back(op(OpCode::mbar_arrive_drop).bar(bar).one());
      break;
    }
    case Litmus::hang_short_count:
    case Litmus::finish_full_count: {
      const int bar = kb.mbarrier("bar", 1, 2);
      Role& a = kb.role("arriver", Granularity::warp);
      a.body.push_back(op(OpCode::mbar_arrive).bar(bar).one());
      if (l == Litmus::finish_full_count) a.body.push_back(op(OpCode::mbar_arrive).bar(bar).one());
      Role& w = kb.role("waiter", Granularity::warp);
      w.body.push_back(op(OpCode::mbar_wait).bar(bar).parity(kb.c(0)));
      break;
    }
  }
  return kb.build();
}

Allowed allowed(Litmus l) {
  const check::Result r = check::check(litmus_kernel(l), check::Options{});
  Allowed a;
  switch (r.verdict) {
    case check::Verdict::verified: a.verdict = "verified"; break;
    case check::Verdict::inconclusive: a.verdict = "inconclusive"; break;
    case check::Verdict::violation: a.verdict = spec::violation_name(r.violation); break;
  }
  a.stale = r.violation == spec::Violation::data_race || r.violation == spec::Violation::proxy_race ||
            r.violation == spec::Violation::scope_race;
  a.may_hang = r.violation == spec::Violation::deadlock;
  return a;
}

}  // namespace pc::conformance
