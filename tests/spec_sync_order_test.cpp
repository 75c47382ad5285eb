// The happens-before choreography of the synchronizing operations
// (spec/sync_order.hpp) and the per-agent protocol state (spec/agent.hpp),
// each on its own; the kernels that show them in a search are in
// tests/checker_*_test.cpp.
#include <doctest/doctest.h>

#include "spec/agent.hpp"
#include "spec/rules.hpp"
#include "spec/sync_order.hpp"

using namespace pc::spec;
namespace so = sync_order;
using ordering::Scope;
using ordering::Sem;

namespace {

// An mbarrier that receives releases from other CTAs: its own channel 0,
// another CTA's .cluster releases 1, its .cta releases 2.
constexpr so::MbarSyncs remote_bar{0, 1, 2};
constexpr hb::Syncs bit(int s) { return hb::Syncs{1} << s; }

// Thread 0 writes buffer 0; thread 1 reads it: whether the read is ordered.
hb::Memory written() {
  hb::Memory m;
  m.buffers = 1;
  hb::Access w;
  w.buf = 0;
  w.kind = hb::Kind::write;
  w.issuers = hb::bit(0);
  REQUIRE(hb::access(m, w).violation == Violation::none);
  return m;
}
Violation read_by_1(const hb::Memory& m) {
  hb::Access r;
  r.buf = 0;
  r.issuers = hb::bit(1);
  return hb::check_only(m, r).violation;
}

}  // namespace

TEST_CASE("sync_order: an arrive releases into the channel of its scope and its CTA") {
  CHECK(so::mbar_release_sync(remote_bar, Scope::cta, false) == 0);
  CHECK(so::mbar_release_sync(remote_bar, Scope::cluster, false) == 0);
  CHECK(so::mbar_release_sync(remote_bar, Scope::cluster, true) == 1);
  CHECK(so::mbar_release_sync(remote_bar, Scope::cta, true) == 2);
  CHECK(so::mbar_release_sync(remote_bar, Scope::standard, true) == 2);
  CHECK(so::mbar_release_sync(so::MbarSyncs{3}, Scope::cta, true) == -1);
}

TEST_CASE("sync_order: a .cluster wait acquires both strong channels, a .cta wait the remote one by the stance") {
  const so::MbarAcquire cl = so::mbar_wait(remote_bar, Sem::acquire, Scope::cluster);
  CHECK(cl.acquires);
  CHECK(cl.strong == (bit(0) | bit(1)));
  CHECK(cl.trusted == 0);
  CHECK(cl.weak == bit(2));
  for (const Scope s : {Scope::cta, Scope::standard}) {
    const so::MbarAcquire cta = so::mbar_wait(remote_bar, Sem::standard, s);
    CHECK(cta.acquires);
    CHECK(cta.strong == (bit(0) | bit(1)));
    CHECK(cta.trusted == bit(1));
    CHECK(cta.weak == bit(2));
  }
  // A barrier only its own CTA releases into: one channel, nothing trusted.
  const so::MbarAcquire local = so::mbar_wait(so::MbarSyncs{4}, Sem::acquire, Scope::cta);
  CHECK(local.strong == bit(4));
  CHECK(local.trusted == 0);
  CHECK(local.weak == 0);
}

TEST_CASE("sync_order: a relaxed wait acquires nothing and observes for the fences at the narrower scope") {
  const so::MbarAcquire cta = so::mbar_wait(remote_bar, Sem::relaxed, Scope::cta);
  CHECK_FALSE(cta.acquires);
  CHECK(cta.strong == 0);
  CHECK(cta.seen_cta == bit(0));
  CHECK(cta.seen_cluster == bit(0));
  const so::MbarAcquire cl = so::mbar_wait(remote_bar, Sem::relaxed, Scope::cluster);
  CHECK(cl.seen_cta == bit(0));
  CHECK(cl.seen_cluster == (bit(0) | bit(1)));
}

TEST_CASE("sync_order: the scope_cta_acquire warning applies where the stance orders something") {
  hb::Memory m = written();
  // Another CTA's .cluster release of the write (channel 1), completed.
  so::mbar_arrive(m, hb::bit(0), remote_bar, Sem::release, Scope::cluster, true, {});
  so::phase_completes(m, bit(0) | bit(1) | bit(2));
  const so::MbarAcquire cta = so::mbar_wait(remote_bar, Sem::acquire, Scope::cta);
  CHECK(so::mbar_wait_stance(m, hb::bit(1), cta) == Violation::scope_cta_acquire);
  CHECK(so::mbar_wait_stance(m, hb::bit(1), so::mbar_wait(remote_bar, Sem::acquire, Scope::cluster)) == Violation::none);
  CHECK(read_by_1(m) == Violation::data_race);
  so::mbar_wait_passes(m, hb::bit(1), cta, {});
  CHECK(read_by_1(m) == Violation::none);
  // Acquired once, the stance orders nothing more: no warning.
  CHECK(so::mbar_wait_stance(m, hb::bit(1), cta) == Violation::none);
}

TEST_CASE("sync_order: a .cta release from another CTA orders nothing for any wait") {
  hb::Memory m = written();
  so::mbar_arrive(m, hb::bit(0), remote_bar, Sem::release, Scope::cta, true, {});
  so::phase_completes(m, bit(0) | bit(1) | bit(2));
  so::mbar_wait_passes(m, hb::bit(1), so::mbar_wait(remote_bar, Sem::acquire, Scope::cluster), {});
  CHECK(read_by_1(m) == Violation::scope_race);
}

TEST_CASE("sync_order: a relaxed arrive releases only through the thread's release fence") {
  so::Fences f;
  f.release_cta = 5;
  for (const bool fenced : {false, true}) {
    CAPTURE(fenced);
    hb::Memory m = written();
    if (fenced) hb::release(m, hb::bit(0), f.release_cta);
    so::mbar_arrive(m, hb::bit(0), so::MbarSyncs{0}, Sem::relaxed, Scope::cta, false, fenced ? f : so::Fences{});
    so::phase_completes(m, bit(0));
    so::mbar_wait_passes(m, hb::bit(1), so::mbar_wait(so::MbarSyncs{0}, Sem::acquire, Scope::cta), {});
    CHECK(read_by_1(m) == (fenced ? Violation::none : Violation::data_race));
  }
}

TEST_CASE("sync_order: a relaxed wait then fence.acq_rel acquires, the wait alone does not") {
  const so::Fences f{4, 5, 6, 7};
  hb::Memory m = written();
  so::mbar_arrive(m, hb::bit(0), so::MbarSyncs{0}, Sem::release, Scope::cta, false, {});
  so::phase_completes(m, bit(0));
  so::mbar_wait_passes(m, hb::bit(1), so::mbar_wait(so::MbarSyncs{0}, Sem::relaxed, Scope::cta), f);
  CHECK(read_by_1(m) == Violation::data_race);
  so::fence_acq_rel(m, hb::bit(1), Scope::cta, f);
  CHECK(read_by_1(m) == Violation::none);
}

TEST_CASE("sync_order: a relaxed cluster arrive carries a .cluster fence to every CTA, a .cta fence to its own CTA only") {
  // The cluster barrier 0, with the .cta-pattern channels 8 (CTA 0, the
  // arriving thread's) and 9 (CTA 1).
  const so::ClusterSyncs arriver{0, 8, bit(8) | bit(9)};
  const so::ClusterSyncs same_cta = arriver, other_cta{0, 9, bit(8) | bit(9)};
  so::Fences f;
  f.release_cta = 5;
  // PTX ISA, Memory Consistency Model: a release fence followed by a strong
  // write (the arrive) is a release pattern, at the fence's scope.
  hb::Memory m = written();
  hb::release(m, hb::bit(0), f.release_cta);
  so::cluster_arrive(m, hb::bit(0), arriver, Sem::relaxed, true, f);
  hb::Memory other = m;
  so::cluster_pass(m, hb::bit(1), same_cta);
  CHECK(read_by_1(m) == Violation::none);  // data_race before the .cta pattern reached the cluster barrier
  so::cluster_pass(other, hb::bit(1), other_cta);
  CHECK(read_by_1(other) == Violation::scope_race);
  // No fence: the relaxed arrive releases nothing.
  hb::Memory none = written();
  so::cluster_arrive(none, hb::bit(0), arriver, Sem::relaxed, true, f);
  so::cluster_pass(none, hb::bit(1), same_cta);
  CHECK(read_by_1(none) == Violation::data_race);
  f.release_cluster = 6;
  hb::Memory n = written();
  hb::release(n, hb::bit(0), f.release_cluster);
  so::cluster_arrive(n, hb::bit(0), arriver, Sem::relaxed, true, f);
  so::cluster_pass(n, hb::bit(1), other_cta);
  CHECK(read_by_1(n) == Violation::none);
}

TEST_CASE("agent: an instruction that arrives then waits moves ready, waiting, ready") {
  CHECK(agent::arrives_now(agent::ready, true));
  CHECK_FALSE(agent::arrives_now(agent::waiting, true));
  CHECK_FALSE(agent::arrives_now(agent::ready, false));
  CHECK(agent::after_arrive(true) == agent::waiting);
  CHECK(agent::after_arrive(false) == agent::ready);
  CHECK(agent::after_pass() == agent::ready);
  CHECK(agent::ticket_after_arrive(7) == 7u);
}

TEST_CASE("agent: a thread synchronization needs tcgen05.fence::after_thread_sync before the next tcgen05 operation") {
  bool synced = false;
  CHECK(rules::tcgen05_issue(synced) == Violation::none);
  synced = agent::synced_after_thread_sync(synced, true);
  CHECK(rules::tcgen05_issue(synced) == Violation::tcgen05_unfenced);
  synced = agent::synced_after_fence();
  CHECK(rules::tcgen05_issue(synced) == Violation::none);
  // Not followed where the kernel has no asynchronous tcgen05 operation.
  CHECK_FALSE(agent::synced_after_thread_sync(false, false));
  CHECK(agent::synced_after_thread_sync(true, false));
}

TEST_CASE("agent: wgmma.fence before the first wgmma") {
  bool fenced = false;
  CHECK(rules::wgmma_issue(fenced) == Violation::async_group_misuse);
  fenced = agent::wgmma_fenced_after_fence();
  CHECK(rules::wgmma_issue(fenced) == Violation::none);
}
