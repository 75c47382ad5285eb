// What each synchronizing operation does to happens-before: which sync object
// its release enters, which its acquire reads, what an async operation's
// completion releases. Each function is the choreography of one kind of
// operation over the primitives of spec/hb.hpp, next to the PTX ISA (or AMD
// ISA) sentence it follows; the explorer (checker/step/) resolves the
// operands and calls these, and decides nothing of its own.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <stdexcept>
#include <utility>

#include "spec/hb.hpp"
#include "spec/ordering.hpp"
#include "spec/rules.hpp"
#include "spec/violation.hpp"

namespace pc::spec::sync_order {

// --- Barriers whose arrive and wait are one object ------------------------------

// An arrive at a barrier whose instance the waiters then pass: a named
// barrier (PTX ISA bar/barrier: "memory accesses requested by the threads
// prior to the barrier are performed relative to all threads participating
// in the barrier"), AMD's workgroup barrier (the LDS operations a wave
// completed before signalling are visible to the waves past the wait: AMD
// ISA, S_BARRIER), the cluster barrier's arrive unless .relaxed (PTX ISA
// barrier.cluster: "arrive ... has .release semantics by default"). The
// arriving lanes release into the barrier's sync object; the last arrival
// completes the instance.
// `pattern`: the sync object of the thread's release fence, whose release the
// arrive carries as a release pattern (PTX ISA, Memory Consistency Model: a
// release fence followed by a strong write), or -1.
inline void barrier_arrive(hb::Memory& m, hb::Threads lanes, int sync, bool releases, bool completes, int pattern = -1) {
  if (releases) hb::release(m, lanes, sync);
  if (pattern >= 0) hb::forward(m, pattern, sync);
  if (completes) hb::complete(m, sync);
}

// A part of a multi-warp agent's named-barrier arrival (spec::named::
// arrive_warps): which of its warps arrive is the hardware's choice, so the
// instance holds what any `q` of them surely knows (hb::Quorum).
inline void barrier_arrive_part(hb::Memory& m, const hb::Quorum& q, int sync, bool completes) {
  hb::release(m, q, sync);
  if (completes) hb::complete(m, sync);
}

// Passing the barrier's wait acquires what its completed instance released
// (bar.sync and barrier.cluster.wait: ".acquire" by default; s_barrier).
inline void barrier_pass(hb::Memory& m, hb::Threads lanes, int sync) { hb::acquire(m, lanes, hb::Syncs{1} << sync); }

// The pass of a multi-warp agent whose warps arrived on a named barrier's
// instance each on their own (docs/spec.md, "Per-warp named-barrier
// arrivals"): where they split over two instances (`split`), no instance
// holds all of its warps and which warps passed which is the hardware's
// choice, so no lane of the agent is surely ordered after another agent's
// arrival: the pass acquires nothing. Else it is barrier_pass, and the
// accesses of the agent's per-warp units that a warp knew become known to
// every warp.
inline void barrier_pass_warps(hb::Memory& m, hb::Threads lanes, int sync, bool split, hb::Threads per_warp_units) {
  if (split) return;
  barrier_pass(m, lanes, sync);
  // All its warps passed one instance: each warp's own accesses of the
  // per-warp units it knew are every warp's now (hb::share_warp_local).
  hb::share_warp_local(m, per_warp_units, lanes);
}

// An exit that completes a barrier's instance: a named barrier without a
// thread count, the cluster barrier and s_barrier wait for the non-exited
// threads only (PTX ISA bar/barrier and barrier.cluster: "all non-exited
// threads"; AMD ISA, S_BARRIER: "this waits on only the surviving waves").
// The instance completes, making visible what its arrivals released; the
// exiting threads release nothing.
inline void barrier_exit(hb::Memory& m, int sync, bool completes) {
  if (completes) hb::complete(m, sync);
}

// --- Fences -----------------------------------------------------------------------

// The sync objects of an agent's fences (-1 where it has none of that kind):
// what its release fences released at .cluster scope (fence.mbarrier_init,
// fence.acq_rel/sc.cluster) and at .cta scope, which its later arrives
// forward (a release pattern); and what its relaxed waits observed through
// the channels a .cta or a .cluster acquire reaches, which a later
// fence.acq_rel/sc acquires (an acquire pattern). PTX ISA, Memory Consistency
// Model, "Release and acquire patterns".
struct Fences {
  int release_cluster = -1, release_cta = -1, seen_cta = -1, seen_cluster = -1;
};

// fence.acq_rel / fence.sc of `scope` (PTX ISA membar/fence; fence.sc is also
// acq_rel, its total order over fences orders no barrier operation of the
// model): a release fence, whose release the thread's later arrives carry
// (what the lanes know enters the fence object of its scope), and an acquire
// fence for what the thread's earlier relaxed waits observed through the
// channels its scope reaches.
inline void fence_acq_rel(hb::Memory& m, hb::Threads lanes, ordering::Scope scope, const Fences& f) {
  const bool cluster = scope == ordering::Scope::cluster;
  hb::release(m, lanes, cluster ? f.release_cluster : f.release_cta);
  hb::acquire(m, lanes, hb::Syncs{1} << (cluster ? f.seen_cluster : f.seen_cta));
}

// fence.proxy.async{.space} by `lanes` of CTA `cta` (ordering::ProxySpace):
// what the lanes know of the generic proxy's accesses in the fence's state
// space, the async proxy knows through them. `own` gives the CTA's data
// buffers and mbarrier objects (their pseudo-buffers) as index ranges;
// `globals`, the instances of global memory (per buffer, 1 for one; they
// lie in CTA 0's range), which only .global and the unrestricted fence
// reach; `tensormaps`, the tensor maps (global too), which no
// fence.proxy.async reaches: theirs is the tensormap proxy,
// "fence.proxy.tensormap::generic" (PTX ISA membar/fence; tensormap_release
// below). Until issue 62 `.global` reached nothing and `.shared::cta` in CTA
// 0 reached global memory.
struct CtaMemory {
  int first_buf, end_buf, first_mbar, end_mbar;
  std::span<const std::uint8_t> tensormaps = {};
  std::span<const std::uint8_t> globals = {};
};
inline void proxy_fence(hb::Memory& m, hb::Threads lanes, ordering::ProxySpace space, const CtaMemory& own) {
  switch (space) {
    case ordering::ProxySpace::all: hb::proxy_fence(m, lanes, 0, -1, own.tensormaps); return;
    case ordering::ProxySpace::shared_cluster: hb::proxy_fence(m, lanes, 0, -1, own.globals); return;
    case ordering::ProxySpace::shared_cta:
      hb::proxy_fence(m, lanes, own.first_buf, own.end_buf, own.globals);
      hb::proxy_fence(m, lanes, own.first_mbar, own.end_mbar);
      return;
    case ordering::ProxySpace::global:
      for (std::size_t i = 0; i < own.globals.size(); ++i)
        if (own.globals[i] && !(i < own.tensormaps.size() && own.tensormaps[i]))
          hb::proxy_fence(m, lanes, static_cast<int>(i), static_cast<int>(i) + 1);
      return;
  }
}

// --- Tensor maps: the tensormap proxy ---------------------------------------------

// A tensor map in global memory (128 bytes) is read by cp.async.bulk.tensor
// through the tensormap proxy (PTX ISA, "Proxies"). Its writes reach that
// proxy through a release and an acquire proxy fence, the uni-directional
// fence.proxy.tensormap::generic (membar/fence: "A .release proxy fence can
// form a release sequence that synchronizes with an acquire sequence that
// contains a .acquire proxy fence"); the host's, before the launch, through
// an acquire alone: the CUDA API's synchronization takes part in
// proxy-preserved base causality order "except for the tensormap-proxy which
// is not acquired from generic-proxy at CUDA Kernel start and must therefore
// be acquired explicitly using fence.proxy.tensormap::generic.acquire when
// needed" (Memory Consistency Model, "Synchronizes-with"). The host's writes
// are an event of thread `host` whose release has happened (Stepper::initial).
// fence.proxy.tensormap::generic.release by `lanes`, and the fence of
// tensormap.cp_fenceproxy after its copy (its qualifiers
// `.tensormap::generic.release.scope`, "fence_qualifiers", are this fence:
// PTX ISA tensormap.cp_fenceproxy): every tensor map's accesses they know are
// released to the tensormap proxy.
inline void tensormap_release(hb::Memory& m, hb::Threads lanes, std::span<const std::uint8_t> tensormaps, std::uint8_t host) {
  hb::tensormap_release(m, lanes, tensormaps, host);
}
// The host's writes of the tensor maps before the launch: known to every
// thread of the kernel, `lanes`, in the generic proxy (the launch
// synchronizes with the kernel's start), released and not acquired by the
// tensormap proxy.
inline void tensormaps_at_launch(hb::Memory& m, std::span<const std::uint8_t> tensormaps, std::uint8_t host, hb::Threads lanes) {
  for (std::size_t b = 0; b < tensormaps.size(); ++b)
    if (tensormaps[b]) hb::overwrite(m, static_cast<int>(b), host, lanes);
  hb::tensormap_release(m, hb::bit(host), tensormaps, host);
}
// fence.proxy.tensormap::generic.acquire [map], 128 by `lanes`: what was
// released of tensor map `buf` and they know is ordered before their later
// tensormap-proxy reads (of that map only: "The address operand addr and the
// operand size together specify the memory range").
inline void tensormap_acquire(hb::Memory& m, hb::Threads lanes, int buf, std::uint8_t host) {
  hb::tensormap_acquire(m, lanes, buf, host);
}

// --- Programmatic dependent launch ---------------------------------------------

// griddepcontrol (PTX ISA griddepcontrol). ".launch_dependents modifier
// signals that specific dependents the runtime system designated to react to
// this instruction can be scheduled as soon as all other CTAs in the grid
// issue the same instruction or have completed"; "The dependent may launch
// before the completion of the current grid. There is no guarantee that the
// dependent will launch before the completion of the current grid." The
// launch orders no memory (CUDA's cudaTriggerProgrammaticLaunchCompletion:
// "It provides no memory visibility guarantee itself"), so the model lets
// the dependent grid run from the start: a race of the dependent with the
// primary is one of happens-before, which the launch's timing does not
// change (docs/spec.md, "Two grids"). ".wait modifier causes the executing
// thread to wait until all prerequisite grids in flight have completed and
// all the memory operations from the prerequisite grids are performed and
// made visible to the current grid": enabled once every CTA of the primary
// grid exited (`primary_done`; in the primary itself, which has no
// prerequisite grid, at once), then every access of the primary's threads
// and their async units (`primary`) is ordered before the waiting lanes.
[[nodiscard]] constexpr bool grid_wait_enabled(bool is_primary, bool primary_done) { return is_primary || primary_done; }
inline void grid_wait(hb::Memory& m, hb::Threads primary, hb::Threads lanes) { hb::order_accesses_of(m, primary, lanes); }

// bar.sync / bar.red after a .relaxed mbarrier wait of the same thread, as
// the acquire of what the wait observed (docs/spec.md, "Stances"): CCCL's
// for_each_canceled_block relies on it ("this syncthreads provides the
// .acquire.cta fence"), and the PTX ISA gives bar.sync a fence's two halves
// for its participants ("prior memory accesses requested by this thread are
// performed relative to all threads participating in the barrier"; "no new
// memory access is requested by this thread before the barrier completes",
// PTX ISA bar/barrier) but lists no barrier among the acquire patterns'
// fences (Memory Consistency Model, "Release and acquire patterns"). On the
// H200 no reader saw stale data this way (harness test relaxed_wait_barsync,
// 0 of 1.15e12 instances behind a TMA load). `seen_cta`: what the lanes'
// relaxed waits observed through the channels a .cta acquire reaches (the
// agent's Fences). Returns whether the acquire orders a write that no lane
// of the agent is ordered after yet (the bar_sync_acquire warning: a lane
// that acquired it, by a fence, carries it to the others through the barrier
// itself; the reads it orders, and tensor memory, which the tcgen05 fences
// order, are left out of the warning), and performs it.
inline bool bar_sync_acquire(hb::Memory& m, hb::Threads lanes, int seen_cta, std::span<const std::uint8_t> tmem) {
  if (seen_cta < 0) return false;
  const hb::Syncs seen = hb::Syncs{1} << seen_cta;
  const bool orders = hb::acquire_orders_write(m, lanes, seen, tmem);
  hb::acquire(m, lanes, seen);
  return orders;
}

// fence.release.scope and fence.acquire.scope (PTX ISA membar/fence, PTX ISA
// 8.6, sm_90): each half of fence.acq_rel alone. The .sync_restrict forms
// (`restricted`): "When .sync_restrict is .sync_restrict::shared::cta, .sem
// must be .release, and the effect of the fence only applies to operations
// performed on objects in .shared::cta state space. Likewise, when
// .sync_restrict is .sync_restrict::shared::cluster, .sem must be .acquire,
// and the effect of the fence only applies to operations performed on
// objects in .shared::cluster state space. When either ... is present, the
// .scope must be specified as .cluster." A restricted release releases what
// the lanes know of their own CTA's shared memory (`own`: its data buffers
// and mbarriers), a restricted acquire orders the shared memory of every CTA
// of the cluster; neither reaches what lies outside shared memory
// (`outside_shared`: global memory, and tensor memory, whose marks also cover
// the CTAs' start pseudo-buffers: a restricted acquire does not learn that a
// peer CTA started, on the side of a report). Until issue 62 they reached
// global memory.
inline void fence_release(hb::Memory& m, hb::Threads lanes, ordering::Scope scope, const Fences& f, const CtaMemory* restricted,
                          std::span<const std::uint8_t> outside_shared) {
  const int sync = scope == ordering::Scope::cluster ? f.release_cluster : f.release_cta;
  if (restricted == nullptr) {
    hb::release(m, lanes, sync);
    return;
  }
  hb::release_range(m, lanes, sync, restricted->first_buf, restricted->end_buf, outside_shared);
  hb::release_range(m, lanes, sync, restricted->first_mbar, restricted->end_mbar);
}
inline void fence_acquire(hb::Memory& m, hb::Threads lanes, ordering::Scope scope, const Fences& f, bool restricted,
                          std::span<const std::uint8_t> outside_shared) {
  const hb::Syncs seen = hb::Syncs{1} << (scope == ordering::Scope::cluster ? f.seen_cluster : f.seen_cta);
  if (restricted) hb::acquire_except(m, lanes, seen, outside_shared);
  else hb::acquire(m, lanes, seen);
}

// fence.mbarrier_init.release.cluster: "a light-weight fence ... with .release
// semantics at .cluster scope" for the thread's prior mbarrier.init
// operations (PTX ISA membar/fence): the inits (the barriers'
// pseudo-buffers first_buf..end_buf-1) become visible to the async proxy,
// and are released, and only they, into the .cluster fence object, which
// the thread's later arrives forward, .relaxed ones included.
inline void fence_mbarrier_init(hb::Memory& m, hb::Threads lanes, int first_buf, int end_buf, const Fences& f) {
  hb::proxy_fence(m, lanes, first_buf, end_buf);
  hb::release_range(m, lanes, f.release_cluster, first_buf, end_buf);
}

// The sync objects of the cluster barrier: `barrier`, into which its
// arrives' releases and .cluster release patterns go, which every waiter
// acquires; and, where some thread of the kernel has a .cta release fence,
// one more per CTA (`cta_channels`, -1 / 0 where none), into which a thread
// of that CTA forwards its .cta fence's release (`own_cta`: the channel of
// the arriving or waiting thread's CTA). A release pattern at .cta scope
// synchronises with the acquires of its own CTA only (PTX ISA, Memory
// Consistency Model, "Morally strong operations": each operation's scope
// includes the other's thread), so only that CTA's waiters acquire it; the
// other CTAs' waiters observe it at a scope too narrow (hb after_weak:
// scope_race for a reader).
struct ClusterSyncs {
  int barrier = 0;
  int own_cta = -1;
  hb::Syncs cta_channels = 0;
  [[nodiscard]] constexpr hb::Syncs all() const { return (hb::Syncs{1} << barrier) | cta_channels; }
};

// barrier.cluster.arrive: a release unless .relaxed (PTX ISA barrier.cluster:
// "arrive ... has .release semantics by default"; ordering::
// cluster_arrive_releases), with the release pattern of the thread's fences,
// .relaxed arrives included (PTX ISA, Memory Consistency Model, "Release and
// acquire patterns": a release fence followed by a strong write, the arrive):
// a .cluster fence's into `barrier`, a .cta fence's into the channel of the
// thread's own CTA (ClusterSyncs). The last arrival completes them all.
// A .relaxed arrive is an execution ordering operation all the same: it
// carries the tcgen05 ordering of the thread's tcgen05.fence::
// before_thread_sync (tcgen05_fence_before; `tmem`: the tensor-memory buffers).
inline void cluster_arrive(hb::Memory& m, hb::Threads lanes, const ClusterSyncs& c, ordering::Sem sem, bool completes,
                           const Fences& f, std::span<const std::uint8_t> tmem = {}) {
  const bool releases = ordering::cluster_arrive_releases(sem);
  barrier_arrive(m, lanes, c.barrier, releases, false, f.release_cluster);
  if (!releases) hb::tc_release(m, lanes, c.barrier, tmem);
  if (f.release_cta >= 0 && c.own_cta >= 0) hb::forward(m, f.release_cta, c.own_cta);
  if (completes) hb::complete_all(m, c.all());
}

// barrier.cluster.wait (".acquire" by default): acquires the barrier's
// releases and the .cta patterns of the waiter's own CTA; the other CTAs'
// .cta patterns are observed at a scope too narrow (ClusterSyncs).
inline void cluster_pass(hb::Memory& m, hb::Threads lanes, const ClusterSyncs& c) {
  const hb::Syncs own = c.own_cta >= 0 ? hb::Syncs{1} << c.own_cta : 0;
  hb::acquire(m, lanes, (hb::Syncs{1} << c.barrier) | own, c.cta_channels & ~own);
}

// An exit that completes the cluster barrier's instance (barrier_exit).
inline void cluster_exit(hb::Memory& m, const ClusterSyncs& c, bool completes) {
  if (completes) hb::complete_all(m, c.all());
}

// --- mbarrier: the channel an arrive releases into, the ones a wait acquires -----

// The sync objects of one mbarrier instance, one per release channel
// (ordering::release_channel): `any_scope`, which every acquire
// synchronises with; and, for a barrier that receives releases from other
// CTAs, `cluster_scope` (their .cluster releases) and `too_narrow` (their
// .cta releases), -1 where it has none. A phase completion completes them
// all (phase_completes).
struct MbarSyncs {
  int any_scope = 0;
  int cluster_scope = -1;
  int too_narrow = -1;
};

// The sync object into which a release of `scope` from the barrier's own CTA
// or (`remote`) from another goes: the one of its channel
// (ordering::release_channel); -1 where the barrier has none.
[[nodiscard]] constexpr int mbar_release_sync(const MbarSyncs& b, ordering::Scope scope, bool remote) {
  switch (ordering::release_channel(scope, remote)) {
    case ordering::Channel::any_scope: return b.any_scope;
    case ordering::Channel::cluster_scope: return b.cluster_scope;
    case ordering::Channel::too_narrow: break;
  }
  return b.too_narrow;
}

// mbarrier.arrive, every form, remote ones included: the arriving lanes
// release into the channel of the arrive's scope unless it is .relaxed (PTX
// ISA mbarrier.arrive: ".release" and ".cta" by default;
// ordering::arrive_releases), and each release fence of the thread forms a
// release pattern with the arrive, .relaxed included, at the narrower of the
// two scopes (PTX ISA, Memory Consistency Model, "Release and acquire
// patterns"; ordering::pattern_scope): what the fence released enters that
// scope's channel too. A phase the arrive completes follows
// (phase_completes).
// A .relaxed arrive, an execution ordering operation, carries the tcgen05
// ordering of the thread's tcgen05.fence::before_thread_sync into the same
// channel (tcgen05_fence_before; `tmem`: the tensor-memory buffers).
// `lanes`: the arriving lane classes (hb::Threads), or the part of them that
// arrives on this phase before the others (hb::Quorum).
template <class Lanes>
inline void mbar_arrive(hb::Memory& m, const Lanes& lanes, const MbarSyncs& b, ordering::Sem sem, ordering::Scope scope,
                        bool remote, const Fences& f, std::span<const std::uint8_t> tmem = {}) {
  if (const int sync = mbar_release_sync(b, scope, remote); sync >= 0) {
    if (ordering::arrive_releases(sem)) hb::release(m, lanes, sync);
    else hb::tc_release(m, lanes, sync, tmem);
  }
  for (const auto& [from, fence_scope] :
       {std::pair{f.release_cluster, ordering::Scope::cluster}, std::pair{f.release_cta, ordering::Scope::cta}}) {
    if (from < 0) continue;
    if (const int to = mbar_release_sync(b, ordering::pattern_scope(fence_scope, scope), remote); to >= 0) hb::forward(m, from, to);
  }
}

// The channels of `b` that an acquire synchronises with (morally strong:
// PTX ISA, Memory Consistency Model, "Morally strong operations"): the
// barrier's own, and other CTAs' .cluster releases when `cluster_strong`
// (rules::acquire_channels).
[[nodiscard]] constexpr hb::Syncs mbar_strong_channels(const MbarSyncs& b, bool cluster_strong) {
  hb::Syncs s = hb::Syncs{1} << b.any_scope;
  if (b.cluster_scope >= 0 && cluster_strong) s |= hb::Syncs{1} << b.cluster_scope;
  return s;
}

// What an mbarrier wait (test_wait, try_wait) that observed a completed phase
// does to happens-before. Unless .relaxed (PTX ISA mbarrier.test_wait/
// try_wait: ".acquire" by default; ordering::wait_acquires) it acquires:
// `strong`, the channels its scope synchronises with, and, by the stance
// scope_cta_acquire (docs/spec.md, "Stances"; rules::acquire_channels,
// cluster_release_trusted), another CTA's .cluster releases at .cta scope
// (`trusted`, a part of `strong`); `weak`, other CTAs' .cta releases,
// observed without order (hb `after_weak`: scope_race, scope_war). A
// .relaxed wait acquires nothing; what it observed is recorded for a later
// fence.acq_rel/sc of the thread (an acquire pattern, PTX ISA, Memory
// Consistency Model, "Release and acquire patterns") at the narrower of the
// fence's and the wait's scopes (ordering::pattern_scope): `seen_cta` for a
// .cta fence, `seen_cluster` for a .cluster one.
// A .relaxed wait is an execution ordering operation all the same: `tc`,
// the channels its scope reaches, whose tcgen05 ordering it observes
// (tcgen05_fence_before, hb::tc_acquire).
struct MbarAcquire {
  bool acquires = false;
  hb::Syncs strong = 0, weak = 0, trusted = 0;
  hb::Syncs seen_cta = 0, seen_cluster = 0;
  hb::Syncs tc = 0;
};
[[nodiscard]] constexpr MbarAcquire mbar_wait(const MbarSyncs& b, ordering::Sem sem, ordering::Scope scope) {
  MbarAcquire a;
  if (!ordering::wait_acquires(sem)) {
    a.tc = mbar_strong_channels(b, rules::acquire_channels(scope).cluster_scope_strong);
    auto seen = [&](ordering::Scope fence) {
      return mbar_strong_channels(b, rules::acquire_channels(ordering::pattern_scope(fence, scope)).cluster_scope_strong);
    };
    a.seen_cta = seen(ordering::Scope::cta);
    a.seen_cluster = seen(ordering::Scope::cluster);
    return a;
  }
  const rules::AcquireChannels ch = rules::acquire_channels(scope);
  a.acquires = true;
  a.strong = mbar_strong_channels(b, ch.cluster_scope_strong);
  if (b.cluster_scope >= 0 && !ch.cluster_scope_strong && ch.cluster_release_trusted) a.trusted = hb::Syncs{1} << b.cluster_scope;
  a.strong |= a.trusted;
  if (b.too_narrow >= 0) a.weak = hb::Syncs{1} << b.too_narrow;
  return a;
}

// The stance scope_cta_acquire (docs/spec.md, "Stances"): a warning where the
// wait's lanes are ordered after something only through the channels it
// acquires by the stance; none where acquiring them orders nothing new.
// `ends`: the first CTA-end pseudo-buffer (remote_operation; -1: none),
// from which on nothing counts: that the wait saw another CTA's arrive
// land is no matter of scope.
[[nodiscard]] inline Violation mbar_wait_stance(const hb::Memory& m, hb::Threads lanes, const MbarAcquire& a, int ends = -1) {
  return a.trusted != 0 && hb::acquire_orders(m, lanes, a.trusted, ends) ? Violation::scope_cta_acquire : Violation::none;
}

// The wait's effect (mbar_wait): the acquire, or, for a .relaxed wait of a
// thread with acquire fences, what its fence objects observe.
inline void mbar_wait_passes(hb::Memory& m, hb::Threads lanes, const MbarAcquire& a, const Fences& f,
                             std::span<const std::uint8_t> tmem = {}) {
  if (a.acquires) {
    hb::acquire(m, lanes, a.strong, a.weak);
    return;
  }
  hb::tc_acquire(m, lanes, a.tc, tmem);
  if (f.seen_cta >= 0) {
    hb::observe(m, a.seen_cta, f.seen_cta);
    hb::observe(m, a.seen_cluster, f.seen_cluster);
  }
}

// --- Async arrivals: released at the issue, landing later -----------------------

// cp.async.mbarrier.arrive: "the arrive-on operation ... is triggered ... after
// the completion of all prior cp.async operations initiated by the executing
// thread" (PTX ISA cp.async.mbarrier.arrive), and it "is ordered with respect
// to the memory operations performed by all prior cp.async operations
// initiated by the same thread, but not to those of any other instruction
// issued by the thread" (PTX ISA, Memory Consistency Model, on asynchronous
// operations). The cp.async unit's copies, and what they were ordered after
// from other threads, are released now into the arrival's own sync object
// `slot`, moved to the mbarrier when it lands (arrival_lands); the arriving
// lanes' own accesses are not: it is no release of theirs.
inline void cp_async_arrive_issue(hb::Memory& m, std::uint8_t cp_async_unit, hb::Threads lanes, int slot) {
  hb::release_unit(m, cp_async_unit, 0, slot, lanes);
}

// tcgen05.commit: it makes the mbarrier "track the completion of all the prior
// asynchronous tcgen05 operations ... initiated by the executing thread. Upon
// the completion of the tracked asynchronous tcgen05 operations, the signal
// specified by the .completion_mechanism is triggered by the system on the
// mbarrier object" (PTX ISA tcgen05.commit): the MMA unit's groups up to the
// one this commit closes, and what they were ordered after from other
// threads. The arrive-on is the system's, signalling those operations'
// completion, not a release by the thread: the committing thread's own
// accesses are not released by it (as for cp.async.mbarrier.arrive).
// It also "implicitly" performs tcgen05.fence::before_thread_sync for the
// tracked operations (PTX ISA, tcgen05 "Canonical synchronization patterns",
// "Non-pipelined instructions, same thread": "No explicit
// tcgen05.fence::before_thread_sync is needed as this is implicitly performed
// by tcgen05.commit"): their tensor-memory accesses reach a later relaxed
// wait's tcgen05 ordering (hb::tc_fence_unit; `tmem`: the tensor-memory
// buffers).
inline void tcgen05_commit_issue(hb::Memory& m, std::uint8_t mma_unit, hb::Threads lanes, std::uint16_t group, int slot,
                                 std::span<const std::uint8_t> tmem) {
  hb::tc_fence_unit(m, mma_unit, group, tmem);
  hb::release_unit(m, mma_unit, group, slot, lanes);
}

// tcgen05.fence::before_thread_sync by the lanes (after their tcgen05.ld /
// tcgen05.st are ordered before them, spec::tmem::before_thread_sync_orders):
// "orders all the prior asynchronous tcgen05 operations with respect to the
// subsequent tcgen05 and the execution ordering operations", and the
// tcgen05.fence instructions "compose with execution ordering instructions
// across a thread scope and provide ordering between tcgen05 instructions
// across the same scope" (PTX ISA tcgen05.fence): what tensor memory the
// lanes know, and the accesses of the agent's MMA unit, are carried by their
// later arrives and barriers, .relaxed ones included (hb::tc_fence,
// tc_release), to the tcgen05 operations after a tcgen05.fence::
// after_thread_sync of the threads that observed them (tc_acquire): in full
// for what the lanes knew complete, for a pipelined MMA only for the MMA
// unit's operations still running ("Pipelined instructions, different
// thread": "no explicit waiting mechanism is needed").
inline void tcgen05_fence_before(hb::Memory& m, hb::Threads lanes, std::uint8_t mma_unit, std::span<const std::uint8_t> tmem) {
  hb::tc_fence(m, lanes, mma_unit, tmem);
}

// st.async / red.async: the store is a write of the agent's TMA unit in
// flight, and its complete-tx "has .release semantics at .cluster scope" (PTX
// ISA st.async, red.async): what the issuers know and the write itself are
// held in `slot` until it lands (spec/ordering.hpp, st_async_release_scope).
inline void st_async_issue(hb::Memory& m, hb::Threads issuers, int buf, std::uint8_t tma_unit, int slot) {
  hb::release(m, issuers, slot);
  hb::release_write(m, buf, tma_unit, slot);
}

// An async arrival (or st.async's complete-tx) lands on its mbarrier: what
// was held in `slot` enters the barrier's sync object `channel`.
inline void arrival_lands(hb::Memory& m, int slot, int channel) { hb::move(m, slot, channel); }

// st.async / red.async's complete-tx lands on the barrier `b` of the
// destination CTA: its release is at .cluster scope (PTX ISA st.async,
// red.async; ordering::st_async_release_scope), into the channel of that
// scope from the issuer's CTA (`remote`: another one than the barrier's).
inline void st_async_lands(hb::Memory& m, int slot, const MbarSyncs& b, bool remote) {
  arrival_lands(m, slot, mbar_release_sync(b, ordering::st_async_release_scope, remote));
}

// A TMA load (or a launch-control response) lands: its complete-tx releases
// that copy's write and nothing else (PTX ISA cp.async.bulk: the mbarrier
// "complete-tx" of the bytes copied; the issuing thread's other accesses are
// not released by it), into `sync`.
inline void copy_lands(hb::Memory& m, int buf, std::uint8_t tma_unit, int sync) { hb::release_write(m, buf, tma_unit, sync); }

// A TMA load's complete-tx lands on the barrier `b` of its destination CTA:
// its release is at .cluster scope (ordering::copy_release_scope), into the
// channel of that scope from the issuer's CTA (`remote`: another one than
// the barrier's).
// `map` (-1: none): the tensor map the copy read, whose read completes with
// the copy and is released with its write, unless another copy of the same
// unit that reads that map is still in flight (`map_read_by_another`: the
// unit's reads of one map are one event of Memory, which completes with the
// last of them). A copy reads its map while it is in flight, not at its
// issue: on the H200 a rewrite of the map right after the issue reached 6.6%
// of the copies, none after the copy's mbarrier wait (0 of 2.0e9;
// harnesses/conformance/tensormap_reread.cu, docs/conformance).
inline void tma_load_lands(hb::Memory& m, int buf, std::uint8_t tma_unit, const MbarSyncs& b, bool remote, int map = -1,
                           bool map_read_by_another = false) {
  const int sync = mbar_release_sync(b, ordering::copy_release_scope, remote);
  if (sync < 0) throw std::logic_error("sync_order: a TMA load from another CTA into a barrier without the channels of other scopes");
  copy_lands(m, buf, tma_unit, sync);
  if (map >= 0 && !map_read_by_another) hb::release_read(m, map, tma_unit, sync);
}

// cp.async.bulk.wait_group[.read] N by `waiter` (the lanes that execute it),
// once the issuer's bulk groups up to `upto` are retired
// (spec::async_group::wait): the retired groups' accesses are ordered before
// the waiter only ("cause the executing thread to wait"); with .read, only
// their reads of shared memory (their writes of global memory, a TMA store's
// destination, stay in flight). The tensor-map reads of the thread's TMA
// loads issued before the groups waited for were committed (the TMA unit's
// reads with a group: only theirs) and are complete too. The ISA puts no TMA
// load with an mbarrier in a bulk async-group; on the H200 a map rewritten
// after commit_group and wait_group.read 0 reached none of the loads (0 of
// 2.0e9, harnesses/conformance/tensormap_reread.cu), which CUTLASS's grouped
// GEMMs rely on (docs/spec.md, "Open points").
inline void bulk_wait(hb::Memory& m, std::uint8_t bulk_unit, std::uint8_t tma_unit, std::uint16_t upto, hb::Threads waiter,
                      bool read_only) {
  hb::retire(m, bulk_unit, upto, waiter, read_only);
  hb::retire(m, tma_unit, upto, waiter, true);
}

// An mbarrier phase completed: every sync object of the barrier (its scopes'
// channels) makes visible what was released into it (PTX ISA mbarrier:
// "phase completion").
inline void phase_completes(hb::Memory& m, hb::Syncs syncs) { hb::complete_all(m, syncs); }

// --- CTA start ----------------------------------------------------------------------

// A cluster's CTAs are co-scheduled (they will all start), but each starts
// at a time of its own, and another CTA may use its shared memory (a
// distributed shared memory access, a remote arrive, a multicast, a pair
// MMA, st.async) only once it exists: CUDA C++ Programming Guide,
// "Distributed Shared Memory": "Accessing data in distributed shared memory
// requires all the thread blocks to exist. A user can guarantee that all
// thread blocks have started executing using cluster.sync()". The model
// writes each CTA's start as an event of its own pseudo-buffer (Program::
// start_buffer), made by the CTA's first agent's leader and known from the
// beginning to every thread of the CTA (`threads`), to no other.
inline void cta_starts(hb::Memory& m, int buf, std::uint8_t first, hb::Threads threads) {
  hb::overwrite(m, buf, first, threads);
  hb::proxy_fence(m, threads, buf, buf + 1);  // and in `after_async`, which the execution ordering carries
}

// Whether the threads `by` know that the CTA whose start pseudo-buffer is
// `buf` has started (rules::target_started). Any synchronisation that
// observed an operation of that CTA shows it, whatever its semantics or
// scope: an arrive that was observed was made, so its CTA had started (an
// execution ordering, as barrier.cluster.arrive.relaxed then wait is the
// ISA's own way to wait for the cluster's CTAs). So the start rides on
// `after_async` as the tcgen05 ordering does (Event), which .relaxed
// arrives and waits carry (tc_release, tc_acquire: Program marks the start
// pseudo-buffers with the tensor-memory ones), and a release whose scope is
// too narrow for the data (`after_weak`) carries it too. A CTA with no agent
// in the model has no event: nothing to check.
[[nodiscard]] inline bool cta_start_known(const hb::Memory& m, int buf, hb::Threads by) {
  for (const hb::Event& e : m.events)
    if (e.buf == buf && e.write) return ((e.after | e.after_async | e.after_weak | hb::bit(e.thread)) & by) == by;
  return true;
}

// --- CTA end ------------------------------------------------------------------------

// The mirror of the start: a CTA's shared memory goes when its last thread
// exits, so an operation of another CTA on it must be done by then (CUDA C++
// Programming Guide, "Distributed Shared Memory": its example ends with a
// cluster.sync() so that no block exits while another still accesses its
// shared memory; CUTLASS's PipelineTmaAsync::producer_tail, "Prevents early
// exit of producer blocks in Cluster", waits for every consumer's release,
// remote ones included). PTX ISA barrier.cluster waits only for
// "non-exited threads", and an exit orders nothing, so a CTA may pass its
// cluster barrier while a remote arrive of an exited peer is still in
// flight (harness test remote_arrive_exit). The model writes each synchronous
// operation of threads `by` on another CTA (a remote mbarrier arrive,
// expect_tx or complete_tx, a distributed shared memory read or write) as
// their atomic write of that CTA's end pseudo-buffer `buf` (Program::
// end_buffer; atomic: two of them never conflict). An mbarrier operation's
// own landing is seen by a wait that observes the phase it counted in, so
// it is also released into `sync` (the channel of its scope; -1 for an
// access), whatever its semantics. The async operations (TMA, st.async,
// commits, multicast) are pending events until they land, and a CTA that
// exits while one targets it is reported as such (rules::CtaExit).
inline void remote_operation(hb::Memory& m, int buf, hb::Threads by, int sync) {
  hb::Access a;
  a.buf = buf;
  a.kind = hb::Kind::write;
  a.atomic = true;
  a.issuers = by;
  (void)hb::access(m, a);  // only atomics of the pseudo-buffer: never a conflict
  if (sync >= 0) hb::release_writes(m, buf, by, sync);
}

// Whether each operation of another CTA recorded in the end pseudo-buffer
// `buf` is ordered before some thread of the CTA (`cta_threads`): through a
// release the thread acquired, or an acquire that observed it, at any scope
// (`after_weak`: a release too narrow for the data still shows the
// operation was performed). Execution ordering alone (a `.relaxed` cluster
// arrive, the tcgen05 ordering) does not: it orders no memory operation.
[[nodiscard]] inline bool cta_end_ordered(const hb::Memory& m, int buf, hb::Threads cta_threads) {
  for (const hb::Event& e : m.events)
    if (e.buf == buf && ((e.after | e.after_weak) & cta_threads) == 0) return false;
  return true;
}

}  // namespace pc::spec::sync_order
