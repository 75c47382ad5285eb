// Composition rules: how the objects of spec/ (mbarrier, named and cluster
// barriers, async groups, happens-before) combine in one step of a kernel.
// Each is a pure function of what checker/step.cpp resolved (operands, the
// objects' states, what the hb check found); the explorer only resolves
// operands, calls these, and writes trace text. docs/spec.md states each rule.
#pragma once

#include <cstdint>

#include "spec/agent.hpp"
#include "spec/hb.hpp"
#include "spec/ordering.hpp"
#include "spec/violation.hpp"

namespace pc::spec::rules {

// --- Initialisation --------------------------------------------------------

// A use that finds its mbarrier uninitialised. PTX ISA mbarrier.inval: "Performing any
// mbarrier operation except mbarrier.init on a memory location that does not contain a valid
// mbarrier object, results in undefined behaviour." When the kernel does initialise that barrier somewhere, the use
// merely came first: the init is not ordered before it (`unsynchronized_init`,
// the fix is a barrier between init and use, not a missing init).
[[nodiscard]] constexpr Violation uninitialized_use(Violation v, bool kernel_inits_it) {
  return v == Violation::uninitialized_barrier && kernel_inits_it ? Violation::unsynchronized_init : v;
}

// Whether a barrier's initialisation is visible to a use, from the hb check
// of the use (by `proxy`) against the init, a generic write of the barrier's
// memory (PTX ISA mbarrier.init; fence.mbarrier_init / fence.proxy.async make
// it visible to the async proxy, "Proxies"). The async proxy's use of a
// barrier whose init happens before it (the same thread, or another thread
// ordered by a barrier or a release and acquire: proxy_race comes only where
// the generic order holds) with no proxy fence between is the
// `async_init_unfenced` stance (docs/spec.md, "Stances"): a warning. The
// H100, harness tests `init_then_own_tma_no_fence` and
// `init_then_other_tma_no_fence`; Triton's lowering (init, a CTA barrier,
// another warp's TMA) relies on the second.
enum class InitUse : std::uint8_t { visible, unfenced_own_init, unfenced_init, unordered };
[[nodiscard]] constexpr InitUse init_use(const hb::Check& c) {
  if (c.violation == Violation::proxy_race) return c.other_thread == c.issuer ? InitUse::unfenced_own_init : InitUse::unfenced_init;
  return c.violation == Violation::none ? InitUse::visible : InitUse::unordered;
}

// --- Arrivals by several threads ---------------------------------------------

// An mbarrier operation executed by `threads` threads acts once per thread
// (PTX ISA mbarrier.arrive, expect_tx, complete_tx: "the executing thread"
// performs the operation): `all:` on an agent of T threads with count N
// arrives N x T times and expects N x T bytes.
[[nodiscard]] constexpr std::int64_t per_thread_total(std::int64_t per_thread, int threads) {
  return per_thread * threads;
}

// st.async stores one value per executing thread: .b32, .b64, .v2.b32,
// .v4.b32, .v2.b64, .b128 (PTX ISA st.async, .type and .vec: "v2 is supported
// with .b32 ... .b64 ..., .v4 ... with .b32"): 4, 8 or 16 bytes, and its
// complete-tx counts "the amount of data stored in bytes".
[[nodiscard]] constexpr bool st_async_bytes_valid(std::int64_t bytes) { return bytes == 4 || bytes == 8 || bytes == 16; }
// red.async reduces one value per executing thread: .u32, .s32, .b32, or
// .u64 for .add (PTX ISA red.async, .type): 4 or 8 bytes.
[[nodiscard]] constexpr bool red_async_bytes_valid(std::int64_t bytes) { return bytes == 4 || bytes == 8; }
// red.async "The CTA to which they belong is different from the CTA of the
// executing thread, but must be within the same cluster. Otherwise, the
// behavior is undefined."
[[nodiscard]] constexpr bool red_async_target_valid(int target_cta, int own_cta) { return target_cta != own_cta; }

// --- Where an operation may point ----------------------------------------------

// mbarrier.test_wait / try_wait take only a .shared::cta address (PTX ISA
// mbarrier.test_wait/try_wait: "If the address specified by addr does not fall within the address
// window of .shared::cta state space then the behavior is undefined."): a wait on a barrier of
// another CTA is `remote_wait`.
[[nodiscard]] constexpr Violation wait_target(bool other_cta) {
  return other_cta ? Violation::remote_wait : Violation::none;
}

// Whether a multicast mask (PTX ISA cp.async.bulk.tensor .multicast::cluster,
// tcgen05.commit .multicast::cluster: "ctaMask ... each bit position
// corresponds to the %cluster_ctarank") selects CTA `cta`.
[[nodiscard]] constexpr bool selects(std::int64_t mask, int cta) { return ((mask >> cta) & 1) != 0; }

// The CTA whose mbarrier a multicast TMA load's copy into CTA `dest` signals:
// each destination's own barrier at the same offset (PTX ISA
// cp.async.bulk.tensor: "the mbarrier object ... in the destination CTA"),
// or, for a pair-CTA load (.cta_group::2, written `-> BAR[i] @ c`), the named
// CTA's barrier (PTX ISA: "the mbarrier ... in either CTA of the CTA-pair").
[[nodiscard]] constexpr int signalled_cta(int dest, int named_cta) { return named_cta < 0 ? dest : named_cta; }

// The size of a bulk copy (PTX ISA cp.async.bulk: "size must be a multiple of 16. If the value
// is not a multiple of 16, then the behavior is undefined."; ptxas for sm_90a accepts 0..1048560 as an immediate):
// checked where the size is computed, since a parameter may make it anything.
inline constexpr std::int64_t max_bulk_copy_bytes = 1048560;
[[nodiscard]] constexpr Violation bulk_copy_size(std::int64_t bytes) {
  return bytes < 0 || bytes > max_bulk_copy_bytes || bytes % 16 != 0 ? Violation::bad_copy_size : Violation::none;
}

// Shared memory per CTA: an mbarrier object is 8 bytes (PTX ISA "Size and alignment of mbarrier
// object": "an opaque object with the following type and alignment requirements": type .b64,
// alignment 8 bytes); a block of compute capability 9.0
// gets at most 227 KiB (CUDA C++ Programming Guide, "Technical Specifications
// per Compute Capability": maximum shared memory per thread block).
inline constexpr std::int64_t mbarrier_bytes = 8;
inline constexpr std::int64_t smem_limit_sm90 = 227 * 1024;
[[nodiscard]] constexpr Violation smem_footprint(std::int64_t bytes_per_cta) {
  return bytes_per_cta > smem_limit_sm90 ? Violation::smem_overflow : Violation::none;
}

// A CTA's exit with its shared memory still in use (PTX ISA, "the shared
// memory of a CTA is ... deallocated when it exits"; cp.async.bulk.wait_group
// .read for the TMA store's reads, wgmma.wait_group for wgmma's reads): a TMA
// store or wgmma not waited for, a committed cp.async-group not waited for
// (its writes into the CTA's shared memory may still land), any async
// operation or arrival that still targets the CTA's barriers or buffers, or
// an operation of another CTA on them (a remote arrive, expect_tx or
// complete_tx, a distributed shared memory access) that nothing orders
// before the exit (sync_order::cta_end_ordered: the CUDA C++ Programming
// Guide, "Distributed Shared Memory", asks that a block's distributed shared
// memory operations complete before it exits), is `exit_with_pending`.
struct CtaExit {
  bool store_reads_in_flight = false;  // a TMA store group not retired
  bool mma_reads_in_flight = false;    // a wgmma / tcgen05 group not retired
  bool copy_writes_in_flight = false;  // a committed cp.async-group not waited for (cp.async.wait_group)
  bool async_targets = false;          // a pending completion targets the CTA
  bool remote_unordered = false;       // another CTA's operation on it not ordered before the exit
};
[[nodiscard]] constexpr Violation cta_exit(const CtaExit& e) {
  return e.store_reads_in_flight || e.mma_reads_in_flight || e.copy_writes_in_flight || e.async_targets || e.remote_unordered
             ? Violation::exit_with_pending
             : Violation::none;
}
// An operation that targets a CTA that has exited (a remote arrive, a
// multicast, a completion landing there).
[[nodiscard]] constexpr Violation target_alive(bool exited) {
  return exited ? Violation::exit_with_pending : Violation::none;
}
// An operation that targets another CTA of the cluster whose start is not
// known to the issuing threads to have happened (sync_order::
// cta_start_known): CUDA C++ Programming Guide, "Distributed Shared
// Memory": "Accessing data in distributed shared memory requires all the
// thread blocks to exist."
[[nodiscard]] constexpr Violation target_started(bool known) {
  return known ? Violation::none : Violation::peer_not_started;
}

// --- Launch limits ----------------------------------------------------------------

// Threads per CTA: at most 1024 (PTX ISA, "Special Registers: %ntid": the
// CTA's dimensions, "%ntid.x * %ntid.y * %ntid.z <= 1024" for sm_20 and
// later; CUDA C++ Programming Guide, "Technical Specifications": maximum
// threads per block; AMD: per workgroup). A named barrier counts at most
// these (PTX ISA bar, barrier: "the number of threads participating").
inline constexpr int max_cta_threads = 1024;

// --- Tensor-core fences -------------------------------------------------------

// wgmma.fence "must be issued by all warps of the warpgroup at the following
// locations: Before the first wgmma.mma_async operation in a warpgroup.
// Between a register access by a thread in the warpgroup and any
// wgmma.mma_async instruction that accesses the same registers, either as
// accumulator or input register containing fragments of matrix A ...
// Otherwise, the behavior is undefined" (PTX ISA wgmma.fence). `fenced_before`:
// a wgmma.fence before the agent's first wgmma; `unfenced`: the registers its
// threads accessed since its last wgmma.fence (spec::agent::regs_after_access);
// `uses`: the registers this wgmma accesses (spec::agent::wgmma_uses).
[[nodiscard]] constexpr Violation wgmma_issue(bool fenced_before, std::uint8_t unfenced = 0, std::uint8_t uses = 0) {
  return fenced_before && (unfenced & uses) == 0 ? Violation::none : Violation::async_group_misuse;
}

// A thread access of the registers of a tcgen05.ld not yet waited for
// (spec::agent::regs_tmem_ld): the load may still write them.
[[nodiscard]] constexpr Violation tmem_regs_access(std::uint8_t regs) {
  return (regs & spec::agent::regs_tmem_ld) != 0 ? Violation::async_group_misuse : Violation::none;
}

// tcgen05.fence::after_thread_sync orders the thread's later asynchronous
// tcgen05 operations after its prior thread synchronization (PTX ISA,
// "Memory Consistency Model for 5th generation of TensorCore operations",
// "Specialized inter-thread synchronization"): an MMA issued after a wait with
// no such fence between is not ordered after what the wait saw, by the
// letter. CUTLASS's sm100 collective issues its MMAs right after the
// pipeline's wait with no fence, DeepGEMM puts one there; no failure is known:
// the `tcgen05_unfenced` stance, a warning (docs/spec.md, "Stances").
[[nodiscard]] constexpr Violation tcgen05_issue(bool synced_since_fence) {
  return synced_since_fence ? Violation::tcgen05_unfenced : Violation::none;
}

// A thread's tcgen05.commit arrivals land in the order of the commits: each
// "tracks the completion of all prior async tcgen05 operations initiated by
// the executing thread" (PTX ISA tcgen05.commit), so a later commit's arrival
// implies the earlier groups are done. The arrival of the commit closing
// `group` may land once no earlier commit of the same thread is pending.
[[nodiscard]] constexpr bool commit_may_land(std::uint16_t group, std::uint16_t earliest_pending_group) {
  return earliest_pending_group == 0 || group <= earliest_pending_group;
}

// --- Warps ---------------------------------------------------------------------

// __syncwarp orders the lanes of each warp that execute it among themselves,
// never two warps (PTX ISA bar.warp.sync: "the executing thread waits until
// all threads in membermask", a mask of one warp's lanes, which must be the
// executing lanes: warp_mask). `executing`: the lane classes (hb cells) that
// execute it; the cells of one warp that execute it are ordered both ways,
// so one cell alone (the elected lane under `one:`, mask 0x1, or the other
// lanes under `rest:`, 0xfffffffe) orders nothing between the classes.
inline void syncwarp(hb::Memory& m, const hb::AgentThreads& a, hb::Threads executing) {
  for (int w = 0; w < a.warps; ++w) {
    const hb::Threads here = executing & a.warp_lanes(w);
    if ((here & (here - 1)) == 0) continue;  // at most one cell
    for (int c = 0; c < a.cells; ++c)
      if (here & hb::bit(a.cell(w, c))) hb::order(m, a.cell(w, c), here & ~hb::bit(a.cell(w, c)));
  }
}

// The member mask of bar.warp.sync (__syncwarp) and elect.sync: "The
// behavior of bar.warp.sync is undefined if the executing thread is not in
// the membermask", and it "will cause executing thread to wait until all
// threads corresponding to membermask have executed a bar.warp.sync with the
// same membermask value"; elect.sync: "The behavior is undefined if the
// executing thread is not in membermask", and ".sync ... causes the
// executing thread to wait until all threads in the membermask execute the
// elect instruction" (PTX ISA bar.warp.sync, elect.sync). `executing`: the
// lanes of one warp that execute it (bit i: lane i). A lane of a `.bk` warp
// that does not execute this statement never executes it (the lanes of an
// agent run one statement sequence; `one:` is lane 0 alone), so the mask
// must be exactly the executing lanes.
[[nodiscard]] constexpr Violation warp_mask(std::uint64_t mask, std::uint64_t executing) {
  return mask == executing ? Violation::none : Violation::warp_mask_misuse;
}

// --- Acquire channels -------------------------------------------------------------

// Which release channels of an mbarrier (ordering::release_channel) a wait of
// scope `s` synchronises with (morally strong: "Morally strong operations")
// and which it observes without synchronising (`after_weak`, reported as a
// scope race). A .cta acquire synchronises only with releases from its own
// CTA; a .cluster acquire also with .cluster releases from other CTAs; a
// .cta-scoped release from another CTA synchronises with no acquire.
// The stance of docs/spec.md ("Stances", scope_cta_acquire): a .cta acquire
// of another CTA's .cluster release orders all the same, as the field relies
// on it and the H100 never broke it (harness tests scope_cluster_remote_arrive
// with .acquire.cta, st_async_cta_wait); the checker warns where it orders
// something.
struct AcquireChannels {
  bool cluster_scope_strong = false;
  bool cluster_release_trusted = false;  // the stance: a .cta acquire orders after a .cluster release, with a warning
};
[[nodiscard]] constexpr AcquireChannels acquire_channels(ordering::Scope s) {
  return AcquireChannels{s == ordering::Scope::cluster, s != ordering::Scope::cluster};
}

}  // namespace pc::spec::rules
