// The violation kinds of the model: undefined behaviour, misuse and the
// properties the checker reports. The names are a stable contract: they are
// the vocabulary of --json, --sarif and `# expect:` lines. Only ever append.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace pc::spec {

// X(enumerator, stable name, severity, one-line meaning). The severity is
// `error` or `warning`: a warning kind rests only on a point of the PTX
// ISA's letter that the field relies on with no failure known (docs/spec.md,
// "Stances"); it is reported as a warning, the search goes on, and
// `--strict` makes it an error. The JSON schema's and docs/cli.md's lists of
// warning kinds are checked against this column (tests/cli_contract_test.cpp).
#define PC_VIOLATIONS(X)                                                                    \
  X(deadlock, "deadlock", error, "every live agent is blocked and no async event is pending")     \
  X(data_race, "data_race", error, "two accesses to one buffer, one a write, not ordered by happens-before") \
  X(proxy_race, "proxy_race", error,                                                               \
    "a generic-proxy write reached by an async-proxy access with no fence.proxy.async between (by a TMA copy's tensor-map read with no fence.proxy.tensormap release and acquire)") \
  X(uninitialized_barrier, "uninitialized_barrier", error, "use of an mbarrier that was never initialized") \
  X(invalidated_barrier, "invalidated_barrier", error, "use of an mbarrier after mbarrier.inval")   \
  X(reinit_live_barrier, "reinit_live_barrier", error, "mbarrier.init on a barrier that is live (not invalidated)") \
  X(bad_init_count, "bad_init_count", error, "mbarrier.init count outside 1..2^20-1")               \
  X(arrival_underflow, "arrival_underflow", error, "an arrive would take the pending arrival count below zero") \
  X(bad_arrive_count, "bad_arrive_count", error, "an arrive count outside 1..2^20-1")               \
  X(tx_out_of_range, "tx_out_of_range", error, "the tx-count left the range -(2^20-1)..2^20-1, or a tx operand is outside 0..2^20-1")     \
  X(nocomplete_would_complete, "nocomplete_would_complete", error,                                 \
    "an arrive with .noComplete would have completed the current phase")                    \
  X(pending_count_undefined, "pending_count_undefined", error,                                     \
    "mbarrier.pending_count on the state of an arrive without .noComplete (undefined in the PTX ISA)") \
  X(unsynchronized_init, "unsynchronized_init", error,                                             \
    "an mbarrier used by another thread or the async proxy before its init was made visible") \
  X(named_red_mixed, "named_red_mixed", error,                                                     \
    "bar.red and bar.sync/bar.arrive on one instance of a named barrier (unpredictable in the PTX ISA)") \
  X(named_count_mismatch, "named_count_mismatch", error,                                           \
    "participants of one named-barrier instance gave different thread counts, or more threads arrived than counted") \
  X(named_count_not_warp_multiple, "named_count_not_warp_multiple", error,                         \
    "a named-barrier thread count that is 0 or not a multiple of the warp size")                 \
  X(named_id_out_of_range, "named_id_out_of_range", error, "a named-barrier id outside 0..15")       \
  X(named_id0_clash, "named_id0_clash", error, "barrier id 0 (__syncthreads) used with a partial thread count") \
  X(remote_wait, "remote_wait", error, "a wait or test on an mbarrier of another CTA")               \
  X(exit_with_pending, "exit_with_pending", error,                                                 \
    "a CTA exits while async operations or remote arrivals still target its shared memory, or before another CTA's operation on it is ordered before the exit") \
  X(parity_alias, "parity_alias", error,                                                           \
    "reserved: no longer reported (lapping is judged by the deadlock or race it causes)") \
  X(cluster_barrier_misuse, "cluster_barrier_misuse", error,                                       \
    "barrier.cluster.wait without a matching arrive, or two arrives without a wait")        \
  X(async_group_misuse, "async_group_misuse", error, "wgmma, bulk async-group or tcgen05.ld protocol broken (e.g. wgmma without wgmma.fence, tcgen05.ld registers used before tcgen05.wait::ld)") \
  X(amd_missing_waitcnt, "amd_missing_waitcnt", error,                                             \
    "an AMD barrier crossed with LDS operations still outstanding (no s_waitcnt lgkmcnt(0))") \
  X(split_barrier_misuse, "split_barrier_misuse", error, "gfx12 s_barrier_wait without a preceding s_barrier_signal") \
  X(assertion_failed, "assertion_failed", error, "an assert of the kernel does not hold")             \
  X(scope_race, "scope_race", error,                                                               \
    "a read of a write of another CTA ordered only through a release or acquire whose scope does not include the other thread") \
  X(scope_war, "scope_war", warning,                                                                 \
    "an overwrite of what another CTA accessed, ordered only through a release or acquire of too narrow a scope (warning)") \
  X(cross_proxy_war, "cross_proxy_war", error,                                                     \
    "generic-proxy reads not known to be consumed at the release, then an async-proxy write of the same buffer with no fence.proxy.async between") \
  X(cross_proxy_waw, "cross_proxy_waw", warning,                                                     \
    "an async-proxy overwrite (a TMA load) of another thread's generic write ordered before it, with no fence.proxy.async between (warning)") \
  X(async_init_unfenced, "async_init_unfenced", warning,                                             \
    "an mbarrier's initialising thread uses it through the async proxy with no fence.mbarrier_init or fence.proxy.async (warning)") \
  X(bad_copy_size, "bad_copy_size", error,                                                         \
    "a bulk copy (TMA) whose size is not a multiple of 16 bytes or is above 1048560 bytes")   \
  X(smem_overflow, "smem_overflow", error,                                                         \
    "a CTA's shared memory (buffers, 8 bytes per mbarrier) is larger than the target allows") \
  X(symbolic_counterexample, "symbolic_counterexample", error,                                     \
    "--symbolic refuted a claim for some parameter values, and the explicit search at them did not confirm it") \
  X(tcgen05_unfenced, "tcgen05_unfenced", warning,                                                   \
    "a tcgen05 MMA issued after a thread synchronization with no tcgen05.fence::after_thread_sync between (warning)") \
  X(tmem_unallocated, "tmem_unallocated", error,                                                   \
    "a tensor-memory access to an allocation that is not live: before its tcgen05.alloc, not ordered after it, or after its tcgen05.dealloc") \
  X(tmem_dealloc_in_use, "tmem_dealloc_in_use", error,                                             \
    "tcgen05.dealloc while an access to that tensor memory (an MMA, a copy, a tcgen05.ld/st) is not ordered before it") \
  X(tmem_misuse, "tmem_misuse", error,                                                             \
    "tcgen05.alloc after tcgen05.relinquish_alloc_permit, of a live allocation or of more columns than the CTA's previous allocation, tcgen05.dealloc of memory not allocated, the two warps of a cta_group::2 collective issuing different operations, a cta_group::2 dealloc issued before the peer CTA's warp joined the CTA's last collective, a collective the peer CTA's warps never join, or tcgen05 instructions of one kernel giving different .cta_group values") \
  X(tmem_not_deallocated, "tmem_not_deallocated", error, "a CTA exits with tensor memory still allocated") \
  X(tmem_lane_quarter, "tmem_lane_quarter", error,                                                 \
    "a tcgen05.ld or tcgen05.st of a warp addresses a lane quarter of tensor memory other than its own (warp rank % 4)") \
  X(clc_misuse, "clc_misuse", error, "clusterlaunchcontrol.try_cancel issued by a CTA that observed (queried) a response reporting a failure (undefined)") \
  X(barrier_memory_reuse, "barrier_memory_reuse", error,                                           \
    "a data access (generic or async proxy) to the memory of an mbarrier object that is live: not invalidated") \
  X(scope_cta_acquire, "scope_cta_acquire", warning,                                                 \
    "a read of a write of another CTA ordered only through that CTA's .release.cluster and a .cta acquire (warning)") \
  X(stale_token, "stale_token", error,                                                             \
    "mbarrier.test_wait or try_wait with the state of an arrive from neither the current nor the immediately preceding phase (undefined in the PTX ISA)") \
  X(expected_count_zero, "expected_count_zero", error,                                             \
    "mbarrier.arrive_drop took the expected arrival count to zero (undefined in the PTX ISA)") \
  X(peer_not_started, "peer_not_started", error,                                                   \
    "an access, arrive or async operation into another CTA of the cluster that no synchronisation shows to have started") \
  X(warp_mask_misuse, "warp_mask_misuse", error,                                                   \
    "bar.warp.sync (__syncwarp) or elect.sync whose member mask is not exactly the lanes that execute it (undefined in the PTX ISA)") \
  X(bar_sync_acquire, "bar_sync_acquire", warning,                                                 \
    "what a .relaxed mbarrier wait observed, ordered before the thread's later accesses only by a bar.sync after it, which the PTX ISA does not make an acquire pattern (warning)") \
  X(mma_not_pipelined, "mma_not_pipelined", warning,                                               \
    "a tcgen05.mma that uses tensor memory an earlier MMA wrote as another accumulator or read as its A operand, with no completion waited for between: the PTX ISA pipelines two MMAs only on the same accumulator (warning)")

enum class Violation : std::uint8_t {
  none = 0,
#define PC_X(e, name, severity, doc) e,
  PC_VIOLATIONS(PC_X)
#undef PC_X
};

[[nodiscard]] constexpr std::string_view violation_name(Violation v) {
  switch (v) {
    case Violation::none: return "none";
#define PC_X(e, name, severity, doc) \
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
#define PC_X(e, name, severity, doc) \
  case Violation::e:       \
    return doc;
    PC_VIOLATIONS(PC_X)
#undef PC_X
  }
  return "?";
}

[[nodiscard]] constexpr std::optional<Violation> violation_from_name(std::string_view s) {
#define PC_X(e, name, severity, doc) \
  if (s == name) return Violation::e;
  PC_VIOLATIONS(PC_X)
#undef PC_X
  return std::nullopt;
}

enum class Severity : std::uint8_t { error, warning };

[[nodiscard]] constexpr Severity severity(Violation v) {
  switch (v) {
    case Violation::none: return Severity::error;
#define PC_X(e, name, sev, doc) \
  case Violation::e:            \
    return Severity::sev;
    PC_VIOLATIONS(PC_X)
#undef PC_X
  }
  return Severity::error;
}

// Kinds reported as warnings (the severity column above).
[[nodiscard]] constexpr bool is_warning(Violation v) { return severity(v) == Severity::warning; }

inline constexpr int violation_count = 0
#define PC_X(e, name, severity, doc) +1
    PC_VIOLATIONS(PC_X)
#undef PC_X
    ;

}  // namespace pc::spec
