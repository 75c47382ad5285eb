// The violation kinds of the model: undefined behaviour, misuse and the
// properties the checker reports. The names are a stable contract: they are
// the vocabulary of --json, --sarif and `# expect:` lines. Only ever append.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace pc::spec {

// X(enumerator, stable name, one-line meaning)
#define PC_VIOLATIONS(X)                                                                    \
  X(deadlock, "deadlock", "every live agent is blocked and no async event is pending")     \
  X(data_race, "data_race", "two accesses to one buffer, one a write, not ordered by happens-before") \
  X(proxy_race, "proxy_race",                                                               \
    "a generic-proxy write reached by an async-proxy access with no fence.proxy.async between") \
  X(uninitialized_barrier, "uninitialized_barrier", "use of an mbarrier that was never initialized") \
  X(invalidated_barrier, "invalidated_barrier", "use of an mbarrier after mbarrier.inval")   \
  X(reinit_live_barrier, "reinit_live_barrier", "mbarrier.init on a barrier that is live (not invalidated)") \
  X(bad_init_count, "bad_init_count", "mbarrier.init count outside 1..2^20-1")               \
  X(arrival_underflow, "arrival_underflow", "an arrive would take the pending arrival count below zero") \
  X(bad_arrive_count, "bad_arrive_count", "an arrive count outside 1..2^20-1")               \
  X(tx_out_of_range, "tx_out_of_range", "the tx-count left the range -(2^20-1)..2^20-1, or a tx operand is outside 0..2^20-1")     \
  X(nocomplete_would_complete, "nocomplete_would_complete",                                 \
    "an arrive with .noComplete would have completed the current phase")                    \
  X(pending_count_undefined, "pending_count_undefined",                                     \
    "mbarrier.pending_count on the state of an arrive without .noComplete (undefined in the PTX ISA)") \
  X(unsynchronized_init, "unsynchronized_init",                                             \
    "an mbarrier used by another thread or the async proxy before its init was made visible") \
  X(named_red_mixed, "named_red_mixed",                                                     \
    "bar.red and bar.sync/bar.arrive on one instance of a named barrier (unpredictable in the PTX ISA)") \
  X(named_count_mismatch, "named_count_mismatch",                                           \
    "participants of one named-barrier instance gave different thread counts, or more threads arrived than counted") \
  X(named_count_not_warp_multiple, "named_count_not_warp_multiple",                         \
    "a named-barrier thread count that is not a multiple of the warp size")                 \
  X(named_id_out_of_range, "named_id_out_of_range", "a named-barrier id outside 0..15")       \
  X(named_id0_clash, "named_id0_clash", "barrier id 0 (__syncthreads) used with a partial thread count") \
  X(remote_wait, "remote_wait", "a wait or test on an mbarrier of another CTA")               \
  X(exit_with_pending, "exit_with_pending",                                                 \
    "a CTA exits while async operations or remote arrivals still target its shared memory") \
  X(parity_alias, "parity_alias",                                                           \
    "reserved: no longer reported (lapping is judged by the deadlock or race it causes)") \
  X(cluster_barrier_misuse, "cluster_barrier_misuse",                                       \
    "barrier.cluster.wait without a matching arrive, or two arrives without a wait")        \
  X(async_group_misuse, "async_group_misuse", "wgmma or bulk async-group protocol broken (e.g. wgmma without wgmma.fence)") \
  X(amd_missing_waitcnt, "amd_missing_waitcnt",                                             \
    "an AMD barrier crossed with LDS operations still outstanding (no s_waitcnt lgkmcnt(0))") \
  X(split_barrier_misuse, "split_barrier_misuse", "gfx12 s_barrier_wait without a preceding s_barrier_signal") \
  X(assertion_failed, "assertion_failed", "an assert of the kernel does not hold")             \
  X(scope_race, "scope_race",                                                               \
    "a read of a write of another CTA ordered only through a release or acquire whose scope does not include the other thread") \
  X(scope_war, "scope_war",                                                                 \
    "an overwrite of what another CTA accessed, ordered only through a release or acquire of too narrow a scope (warning)") \
  X(cross_proxy_war, "cross_proxy_war",                                                     \
    "generic-proxy reads followed by an async-proxy write of the same buffer with no fence.proxy.async between") \
  X(async_init_unfenced, "async_init_unfenced",                                             \
    "an mbarrier's initialising thread uses it through the async proxy with no fence.mbarrier_init or fence.proxy.async (warning)") \
  X(bad_copy_size, "bad_copy_size",                                                         \
    "a bulk copy (TMA) whose size is not a multiple of 16 bytes or is above 1048560 bytes")   \
  X(smem_overflow, "smem_overflow",                                                         \
    "a CTA's shared memory (buffers, 8 bytes per mbarrier) is larger than the target allows") \
  X(symbolic_counterexample, "symbolic_counterexample",                                     \
    "--symbolic refuted a claim for some parameter values, and the explicit search at them did not confirm it") \
  X(tcgen05_unfenced, "tcgen05_unfenced",                                                   \
    "a tcgen05 MMA issued after a thread synchronization with no tcgen05.fence::after_thread_sync between (warning)") \
  X(tmem_unallocated, "tmem_unallocated",                                                   \
    "a tensor-memory access to an allocation that is not live: before its tcgen05.alloc, not ordered after it, or after its tcgen05.dealloc") \
  X(tmem_dealloc_in_use, "tmem_dealloc_in_use",                                             \
    "tcgen05.dealloc while an access to that tensor memory (an MMA, a copy, a tcgen05.ld/st) is not ordered before it") \
  X(tmem_misuse, "tmem_misuse",                                                             \
    "tcgen05.alloc after tcgen05.relinquish_alloc_permit or of a live allocation, tcgen05.dealloc of memory not allocated, or the two warps of a cta_group::2 collective issuing different operations") \
  X(tmem_not_deallocated, "tmem_not_deallocated", "a CTA exits with tensor memory still allocated") \
  X(clc_misuse, "clc_misuse", "clusterlaunchcontrol.try_cancel issued after a response of the cluster reported a failure (undefined)") \
  X(barrier_memory_reuse, "barrier_memory_reuse",                                           \
    "a data access (generic or async proxy) to the memory of an mbarrier object that is live: not invalidated") \
  X(scope_cta_acquire, "scope_cta_acquire",                                                 \
    "a read of a write of another CTA ordered only through that CTA's .release.cluster and a .cta acquire (warning)")

enum class Violation : std::uint8_t {
  none = 0,
#define PC_X(e, name, doc) e,
  PC_VIOLATIONS(PC_X)
#undef PC_X
};

[[nodiscard]] constexpr std::string_view violation_name(Violation v) {
  switch (v) {
    case Violation::none: return "none";
#define PC_X(e, name, doc) \
  case Violation::e:       \
    return name;
    PC_VIOLATIONS(PC_X)
#undef PC_X
  }
  return "?";
}

[[nodiscard]] constexpr std::string_view violation_doc(Violation v) {
  switch (v) {
    case Violation::none: return "no violation";
#define PC_X(e, name, doc) \
  case Violation::e:       \
    return doc;
    PC_VIOLATIONS(PC_X)
#undef PC_X
  }
  return "?";
}

[[nodiscard]] constexpr std::optional<Violation> violation_from_name(std::string_view s) {
#define PC_X(e, name, doc) \
  if (s == name) return Violation::e;
  PC_VIOLATIONS(PC_X)
#undef PC_X
  return std::nullopt;
}

// Kinds that rest only on a point of the PTX ISA's letter that the field relies
// on with no failure known (docs/spec.md, "Stances"): reported as warnings, the
// search goes on, and `--strict` makes them errors.
[[nodiscard]] constexpr bool is_warning(Violation v) {
  return v == Violation::scope_war || v == Violation::async_init_unfenced || v == Violation::tcgen05_unfenced ||
         v == Violation::scope_cta_acquire;
}

inline constexpr int violation_count = 0
#define PC_X(e, name, doc) +1
    PC_VIOLATIONS(PC_X)
#undef PC_X
    ;

}  // namespace pc::spec
