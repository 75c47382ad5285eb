#include "checker/report/rules.hpp"

namespace pc::report {
namespace {

const std::vector<RuleHelp>& table() {
  static const std::vector<RuleHelp> rules = {
      {"bad_input", "Fix the error at the location given: the file must parse and name only what it declares (docs/dsl.md).",
       {"input"}},
      {"unreached_statement",
       "No interleaving runs this statement: its barrier or branch condition is never met. Check the condition, or remove "
       "the dead code; what it does (an access, an assert) is never checked.",
       {"coverage", "maintainability"}},
      {"deadlock",
       "Make every wait reachable by the arrivals it needs: check arrival counts, expected parities, the tx bytes each "
       "barrier expects against what its TMA loads deliver, and that every thread a barrier counts arrives.",
       {"concurrency", "deadlock", "liveness"}},
      {"data_race",
       "Order the two accesses: wait on the mbarrier phase (or named barrier) that the writer's arrive or TMA load "
       "completes before the other access, and give a reused buffer an 'empty' barrier that the consumer arrives on.",
       {"concurrency", "race", "memory-model"}},
      {"proxy_race",
       "Put fence_proxy_async between generic-proxy writes (st.shared) and the async-proxy access (TMA store, wgmma, "
       "tcgen05) that reads them, after the barrier that orders them.",
       {"concurrency", "race", "async-proxy"}},
      {"uninitialized_barrier", "Initialise the mbarrier (init, or a count in its declaration) before any use.",
       {"correctness", "mbarrier"}},
      {"invalidated_barrier", "Do not use an mbarrier after inval; initialise it again first.", {"correctness", "mbarrier"}},
      {"reinit_live_barrier", "Invalidate the mbarrier (inval) before initialising it again.", {"correctness", "mbarrier"}},
      {"bad_init_count", "Give init a count in 1..2^20-1.", {"correctness", "mbarrier"}},
      {"arrival_underflow",
       "Arrive no more often per phase than the barrier's count: check the count given to init and the arrivals of each "
       "phase (an arrive_expect_tx is an arrival too).",
       {"correctness", "mbarrier"}},
      {"bad_arrive_count", "Give arrive a count in 1..2^20-1.", {"correctness", "mbarrier"}},
      {"tx_out_of_range",
       "Keep the bytes expected in one phase within 2^20-1: split a large copy over phases, and match every expect_tx "
       "with loads of those bytes.",
       {"correctness", "mbarrier", "tx-count"}},
      {"nocomplete_would_complete", "Drop nocomplete from the arrive that completes the phase, or arrive with a smaller count.",
       {"correctness", "mbarrier"}},
      {"pending_count_undefined", "Read pending_count only from the token of an arrive with nocomplete.",
       {"correctness", "mbarrier"}},
      {"unsynchronized_init",
       "Make the init visible before other threads or the async proxy use the barrier: fence_mbarrier_init (for the "
       "cluster) or a CTA barrier (syncthreads) after init.",
       {"concurrency", "mbarrier", "initialisation"}},
      {"named_red_mixed", "Use bar_red or bar_sync/bar_arrive on one named-barrier instance, not both.",
       {"correctness", "named-barrier"}},
      {"named_count_mismatch",
       "Give every use of one named barrier id the same thread count, equal to the threads that arrive at it.",
       {"correctness", "named-barrier"}},
      {"named_count_not_warp_multiple", "Give named barriers a thread count that is a multiple of 32.",
       {"correctness", "named-barrier"}},
      {"named_id_out_of_range", "Use named-barrier ids 0..15.", {"correctness", "named-barrier"}},
      {"named_id0_clash", "Use a user barrier id (1..15) for a partial thread count: id 0 is __syncthreads'.",
       {"correctness", "named-barrier"}},
      {"remote_wait", "Wait only on an mbarrier of the agent's own CTA; signal other CTAs with remote arrives.",
       {"correctness", "cluster"}},
      {"exit_with_pending",
       "Keep the CTA alive until everything that targets its shared memory has landed: wait on the barriers of its TMA "
       "loads and remote arrivals (a cluster barrier before exit), and wait_group 0 for TMA stores.",
       {"correctness", "async", "cluster"}},
      {"parity_alias", "No longer reported.", {"correctness"}},
      {"cluster_barrier_misuse", "Pair every cluster_arrive with one cluster_wait, in that order.", {"correctness", "cluster"}},
      {"async_group_misuse",
       "Follow the async-group protocol: wgmma_fence before the first wgmma and between the threads' accesses of a "
       "wgmma's registers (wgmma_regs) and that wgmma, commit_group/wgmma_commit before waiting on a group.",
       {"correctness", "async"}},
      {"amd_missing_waitcnt", "Wait for outstanding LDS operations (s_waitcnt lgkmcnt(0)) before the barrier.",
       {"correctness", "amd"}},
      {"split_barrier_misuse", "Signal (s_barrier_signal) before each s_barrier_wait.", {"correctness", "amd"}},
      {"assertion_failed", "The assert does not hold in the schedule of the trace: fix the kernel or the assert.",
       {"correctness", "assertion"}},
      {"scope_race",
       "Give the release (arrive) and the acquire (wait) that order the two accesses cluster scope when they are in "
       "different CTAs.",
       {"concurrency", "race", "scope", "cluster"}},
      {"scope_war",
       "Order the overwrite after the other CTA's access with a release and acquire of cluster scope.",
       {"concurrency", "race", "scope", "cluster"}},
      {"cross_proxy_war",
       "The generic-proxy reads were not known to be complete at the release that orders them before the async-proxy "
       "write (a TMA load) into the same buffer: the H100 returns the new data to loads still in flight there (harness "
       "test generic_read_then_tma_overwrite). Put fence_proxy_async after the reads, or `consume` the loaded values "
       "(the instruction that uses them: an mma.sync, a dependent store) before releasing the buffer.",
       {"concurrency", "race", "async-proxy"}},
      {"cross_proxy_waw",
       "Put fence_proxy_async after the generic writes (in the writing thread, before the synchronization that orders "
       "them before the copy): the PTX ISA orders accesses of one location through two proxies only with a proxy fence.",
       {"concurrency", "race", "async-proxy"}},
      {"async_init_unfenced",
       "Put fence_mbarrier_init (or fence_proxy_async) between the init and the first async-proxy use of the barrier.",
       {"concurrency", "mbarrier", "async-proxy"}},
      {"bad_copy_size",
       "Give every bulk copy (TMA) a size that is a multiple of 16 bytes and at most 1048560; where a loop variable "
       "computes it, check the expression for every iteration.",
       {"correctness", "tma"}},
      {"smem_overflow",
       "Shrink the buffers or the stage count of the kernel (or narrow the parameter's declared range to the values "
       "that fit): a CTA of compute capability 9.0 gets at most 227 KiB of shared memory.",
       {"correctness", "resources"}},
      {"symbolic_counterexample",
       "Run the printed check-kernel --param command: at those values the claim (bytes expected against bytes "
       "delivered, arrivals against the count, named-barrier participants) fails; fix the arithmetic for every value.",
       {"correctness", "parameters"}},
      {"tcgen05_unfenced",
       "Put tcgen05_fence_after_thread_sync between the wait (or bar_sync, cluster_wait) and the tcgen05 MMAs issued "
       "after it.",
       {"concurrency", "tcgen05", "fence"}},
      {"tmem_unallocated",
       "Access tensor memory only while its tcgen05_alloc is live, and after it: the allocating warp publishes the "
       "address (a barrier such as bar_sync), the others pass that barrier and tcgen05_fence_after_thread_sync first.",
       {"correctness", "tcgen05", "tensor-memory"}},
      {"tmem_dealloc_in_use",
       "Deallocate only after every access of that tensor memory is ordered before the dealloc: the MMAs through their "
       "tcgen05_commit and a wait on its barrier, tcgen05_ld/st through tcgen05_wait_ld/st (or "
       "tcgen05_fence_before_thread_sync) and a barrier with the deallocating warp.",
       {"concurrency", "tcgen05", "tensor-memory"}},
      {"tmem_misuse",
       "Allocate each tensor-memory buffer once per tcgen05_dealloc, never after tcgen05_relinquish_alloc_permit, never "
       "more columns than the CTA's previous allocation (allocate the largest first), and deallocate only what is allocated. With cta_group 2, one warp in each CTA of the pair issues the same "
       "alloc, dealloc or relinquish, in the same order. Give every tcgen05 operation of a kernel the same cta_group.",
       {"correctness", "tcgen05", "tensor-memory"}},
      {"tmem_not_deallocated", "tcgen05_dealloc every allocation before the CTA's last warp exits.",
       {"correctness", "tcgen05", "tensor-memory", "resources"}},
      {"tmem_lane_quarter",
       "Give each warp the tensor-memory lanes of its own quarter: warp w of the CTA loads and stores lanes 32 * (w % 4) to "
       "32 * (w % 4) + 31. Place a warp role whose warps each take one quarter at a warp rank that lines up with them "
       "('at warp W', W a multiple of 4), or index the quarter by the warp's rank.",
       {"correctness", "tcgen05", "tensor-memory"}},
      {"clc_misuse",
       "Stop requesting work once a response says not canceled: leave the scheduler loop on that response instead of "
       "issuing another clc_try_cancel.",
       {"correctness", "clc", "scheduler"}},
      {"barrier_memory_reuse",
       "Invalidate the mbarrier (inval) once every use of it is done, and order the data accesses that reuse its 8 "
       "bytes after the inval (and a TMA into them after a fence_proxy_async); before a new init, order those accesses "
       "before it.",
       {"correctness", "mbarrier", "memory"}},
      {"scope_cta_acquire",
       "Wait with .acquire.cluster (mbarrier.try_wait.parity.acquire.cluster) on a barrier that another CTA's "
       ".release.cluster (a remote arrive, st.async, red.async, the complete-tx of a TMA load issued by another CTA) "
       "completes.",
       {"concurrency", "scope", "cluster"}},
      {"stale_token",
       "Wait with the state of an arrive of the current phase or the one before it: test the token before the barrier "
       "can complete another phase (arrive again only after the wait), or wait by parity.",
       {"correctness", "mbarrier"}},
      {"expected_count_zero",
       "Let the last participant of an mbarrier arrive (arrive, not arrive_drop), or invalidate the barrier once no "
       "thread uses it: arrive_drop may not take the expected count to zero.",
       {"correctness", "mbarrier"}},
      {"bar_sync_acquire",
       "Wait with .acquire (the default) instead of .relaxed, or put fence_acquire cta (fence.acquire.cta) after the wait: "
       "bar.sync after a relaxed wait is the field's acquire, not the PTX ISA's.",
       {"memory-model", "stance"}},
      {"mma_not_pipelined",
       "Commit the earlier tcgen05.mma and wait for its mbarrier before a later MMA reads its accumulator as an A operand "
       "or accumulates into its A operand: the PTX ISA pipelines two MMAs only on the same accumulator and shape.",
       {"memory-model", "stance", "tcgen05", "tensor-memory"}},
      {"warp_mask_misuse",
       "Give __syncwarp / elect.sync the mask of exactly the lanes that execute it: 0x1 (or __activemask()) inside a "
       "one-lane branch, the full mask only where every lane of the warp reaches the instruction.",
       {"correctness", "warp", "concurrency"}},
      {"peer_not_started",
       "Synchronise with the other CTA before the first operation on its shared memory, barriers or tensor memory: a "
       "cluster barrier (barrier.cluster.arrive, .relaxed will do, then barrier.cluster.wait) in every CTA after the "
       "barriers' init, or a wait for an arrive that CTA made.",
       {"correctness", "cluster", "concurrency"}},
  };
  return rules;
}

}  // namespace

const RuleHelp* rule_help(std::string_view id) {
  for (const RuleHelp& r : table())
    if (r.id == id) return &r;
  return nullptr;
}

}  // namespace pc::report
