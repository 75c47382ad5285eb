// Which operations order memory, and how far. The memory-ordering qualifiers
// and their defaults: PTX ISA, mbarrier.arrive ("If the .sem qualifier is
// absent, .release is assumed by default."; "If the .scope qualifier is not
// specified then it defaults to .cta."), mbarrier.test_wait/try_wait ("If the
// .sem qualifier is absent, .acquire is assumed by default."), barrier.cluster
// ("If the optional .sem qualifier is absent for barrier.cluster.arrive,
// .release is assumed by default. If the optional .acquire qualifier is absent
// for barrier.cluster.wait, .acquire is assumed by default."), "bar, barrier"
// ("The barrier{.cta}.sync or barrier{.cta}.red or barrier{.cta}.arrive
// instruction guarantees that when the barrier completes, prior memory accesses
// requested by this thread are performed relative to all threads participating
// in the barrier."), and the Memory Consistency Model ("Scope", "Morally strong
// operations").
#pragma once

#include <cstdint>

namespace pc::spec::ordering {

enum class Sem : std::uint8_t { standard, release, relaxed, acquire };
enum class Scope : std::uint8_t { standard, cta, cluster };

// The state space of a proxy fence: PTX ISA membar/fence, fence.proxy.proxykind
// with ".proxykind = { .alias, .async, .async.global, .async.shared::{cta, cluster} }":
// .async alone orders the two proxies' accesses in every state space; with a
// state space, only the accesses to that space ("The memory ordering is limited
// only to operations performed on objects in the state space specified. If no
// state space is specified, then the memory ordering applies on all state
// spaces."). The model's memory is shared
// memory: .async.global orders none of it, .async.shared::cta the executing
// thread's own CTA's, .async.shared::cluster all of the cluster's
// (spec::sync_order::proxy_fence).
enum class ProxySpace : std::uint8_t { all, global, shared_cta, shared_cluster };

// An mbarrier arrive (any variant) releases unless it is .relaxed (PTX ISA
// mbarrier.arrive: "The .relaxed qualifier does not provide any memory ordering
// semantics and visibility guarantees.").
[[nodiscard]] constexpr bool arrive_releases(Sem s) { return s != Sem::relaxed; }
// test_wait/try_wait acquire unless .relaxed (PTX ISA mbarrier.test_wait/try_wait:
// "The .relaxed qualifier does not provide any memory ordering semantics and
// visibility guarantees.").
[[nodiscard]] constexpr bool wait_acquires(Sem s) { return s != Sem::relaxed; }
// barrier.cluster.arrive releases unless .relaxed; barrier.cluster.wait always
// acquires (PTX ISA barrier.cluster: "The optional .relaxed qualifier on
// barrier.cluster.arrive specifies that there are no memory ordering and
// visibility guarantees provided for the memory accesses performed prior to
// barrier.cluster.arrive."; the wait's only .sem is .acquire).
[[nodiscard]] constexpr bool cluster_arrive_releases(Sem s) { return s != Sem::relaxed; }

// A release reaches the threads of the scope it names: .cta only the
// releasing thread's CTA (the default), .cluster every CTA of the cluster (PTX
// ISA, "Scope": .cta is "The set of all threads executing in the same CTA as
// the current thread.", .cluster "The set of all threads executing in the same
// cluster as the current thread."). A release into a barrier of another CTA
// with .cta scope orders nothing for that CTA's threads: the two are not
// morally strong ("each operation is strong and specifies a scope that
// includes the thread executing the other operation", "Morally strong
// operations").
[[nodiscard]] constexpr bool release_reaches(Scope s, bool same_cta) {
  return same_cta || s == Scope::cluster;
}

// Which acquires a release into an mbarrier synchronises with: a release and
// an acquire are morally strong only when each one's scope includes the other
// thread (PTX ISA, "Morally strong operations": "The operations are related in
// program order (i.e, they are both executed by the same thread), or each
// operation is strong and specifies a scope that includes the thread executing
// the other operation."). From the barrier's own CTA any acquire
// does; from another CTA at .cluster scope only a .cluster acquire; from
// another CTA at .cta scope none (NVIDIA/cutlass#3324 and #3643 are 2-CTA
// kernels that read stale data this way).
enum class Channel : std::uint8_t { any_scope, cluster_scope, too_narrow };
[[nodiscard]] constexpr Channel release_channel(Scope s, bool remote) {
  if (!remote) return Channel::any_scope;
  return s == Scope::cluster ? Channel::cluster_scope : Channel::too_narrow;
}

// st.async with .mbarrier::complete_tx::bytes (the weak form, into the
// shared memory of a CTA of the cluster): "The store operation is treated as
// a weak memory operation. The complete-tx operation on the mbarrier has
// .release semantics at .cluster scope" (PTX ISA st.async). Its release
// carries the store and what the issuing thread knew when it issued it; into
// another CTA's barrier only a .cluster acquire synchronises with it
// (release_channel). red.async the same: "The reduce operation is a relaxed
// memory operation. The complete-tx operation on the mbarrier has .release
// semantics at .cluster scope" (PTX ISA red.async); its reduction is an atomic
// read-modify-write (spec/hb.hpp, Access::atomic).
inline constexpr Scope st_async_release_scope = Scope::cluster;

// cp.async.bulk[.tensor] with .mbarrier::complete_tx::bytes (a TMA load,
// multicast or not): "The copy operation in cp.async.bulk is treated as a
// weak memory operation and the complete-tx operation on the mbarrier has
// .release semantics at the .cluster scope" (PTX ISA cp.async.bulk,
// cp.async.bulk.tensor). Into a barrier of the issuer's CTA every acquire
// synchronises with it; into another CTA's (a multicast destination, or a
// barrier named with `@`) only a .cluster acquire does (release_channel),
// and a .cta one orders under the stance scope_cta_acquire, a warning, as
// for st.async (docs/spec.md, "Stances").
inline constexpr Scope copy_release_scope = Scope::cluster;

// A fence and a relaxed barrier operation of the same thread form a release
// pattern (fence.acq_rel / fence.sc / fence.mbarrier_init.release.cluster,
// then a relaxed arrive) or an acquire pattern (a relaxed wait that observes
// a completion, then fence.acq_rel / fence.sc): PTX ISA, Memory Consistency
// Model, "Release and acquire patterns". The pattern synchronises only as far
// as both of its operations' scopes reach (each must be morally strong with
// the other side: "A release pattern X synchronizes with an acquire pattern Y,
// if a write operation in X precedes a read operation in Y in observation
// order, and the first operation in X and the last operation in Y are morally
// strong.", "Memory synchronization"; observation order asks "R and W are
// morally strong"), so its scope is the narrower of the two.
[[nodiscard]] constexpr Scope pattern_scope(Scope fence, Scope op) {
  return fence == Scope::cluster && op == Scope::cluster ? Scope::cluster : Scope::cta;
}

}  // namespace pc::spec::ordering
