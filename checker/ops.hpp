// The one list of kernel operations and every per-op fact. The enum, the DSL
// keywords, the JSON names, the lane policy, the target, and what the
// explorer, the partial-order reduction and the reports need to know of an
// operation all come from this table, so they cannot drift. Code that
// classifies operations reads these columns; a switch over OpCode has no
// `default:` (a new operation must be placed everywhere it matters).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace pc::ir {

// How lanes take part in an operation.
//   any:     `one:` (the leader lane) or `all:` (every lane; the default)
//   single:  as `any`, but one lane by default: `all:` / `each:` make every
//            lane (every warp's leader) execute it, each on its own (mbarrier.init
//            and inval, which the kernel usually guards to one thread)
//   agent:   as `any`, every lane by default: `one:` / `each:` make only the
//            leader (each warp's leader) execute it (mbarrier waits)
//   leader:  issued by one elected lane whatever the prefix (TMA, commits)
//   aligned: executed by the whole agent together (barriers, wgmma)
enum class LanePolicy : std::uint8_t { any, single, agent, leader, aligned };

// The object an operation acts on. The explorer's step of each family is in
// its own file (checker/step_FAMILY.cpp); the SMT engines dispatch on it too.
//   memory:   shared-memory loads and stores of the threads, and the use of
//             the values they loaded (consume)
//   mbarrier: mbarrier objects (PTX ISA mbarrier), and fence.mbarrier_init
//   named:    named barriers (bar.sync, bar.arrive, bar.red, __syncthreads) and bar.warp.sync
//   bulk:     TMA and bulk copies, bulk async-groups, st.async and red.async
//   cp_async: cp.async, its groups and cp.async.mbarrier.arrive
//   wgmma:    warpgroup MMA and its groups
//   tcgen05:  tensor memory and the 5th-generation tensor core (sm_100a)
//   clc:      cluster launch control (sm_100a)
//   fence:    memory and proxy fences
//   cluster:  the cluster barrier
//   amd:      AMD's workgroup barriers and LDS loads
//   control:  exit, and griddepcontrol (programmatic dependent launch)
enum class OpFamily : std::uint8_t { memory, mbarrier, named, bulk, cp_async, wgmma, tcgen05, clc, fence, cluster, amd, control };

// Which targets have an operation; the front end rejects it elsewhere
// (docs/dsl.md, "Targets").
//   both:      NVIDIA and AMD (shared-memory accesses; on AMD the mbarrier ones
//              are the software mbarrier of spec/sw_mbarrier.hpp, with only the
//              forms it has)
//   nvidia:    PTX only
//   amd:       every AMD chip
//   amd_cdna:  AMD gfx90a, gfx940, gfx942 only (spec/amd.hpp, has_lds_dma)
//   amd_gfx12: AMD gfx1200, gfx1201 only (spec/amd.hpp, has_split_barrier)
enum class OpTarget : std::uint8_t { both, nvidia, amd, amd_cdna, amd_gfx12 };

// What the op's footprint covers for the partial-order reduction
// (checker/footprint.cpp): the shared objects its step may read or write.
//   own:        the agent's own threads and counters only: such an op never
//               blocks, never fails and commutes with every other (private)
//   access:     its buffers (and tensor memory) in the CTAs named
//   mbarrier:   its mbarrier, which it changes
//   mbar_wait:  its mbarrier, read only (a wait, test or try changes nothing
//               of the barrier: only its own threads' view, spec::sync_order)
//   none:       nothing shared (reads the agent's own token)
//   tma_load:   its buffers and barrier in each destination CTA (an async event)
//   async_arrive: a slot of the agent's arrival pool and the barrier (an async event)
//   async_store: a pool slot, the buffer and the barrier (st.async, red.async)
//   barrier:    the CTA's named (or AMD workgroup) barriers
//   cluster:    the cluster barrier
//   tmem_cp:    its buffer and the tensor memory it writes
//   tmem_alloc: the CTA's tensor-memory allocator and the allocation
//   tmem_relinquish: the CTA's allocator
//   clc_request: the launch-control state and each destination's response
//   grid_wait:  the exits of the primary grid's CTAs (griddepcontrol.wait)
//   exit:       what an exit lowers and checks
enum class Footprint : std::uint8_t {
  own, access, mbarrier, mbar_wait, none, tma_load, async_arrive, async_store, barrier, cluster,
  tmem_cp, tmem_alloc, tmem_relinquish, clc_request, grid_wait, exit
};

// How the op accesses the buffers it names (its BUF operands, or the TMEM
// ones of tcgen05.ld and tcgen05.st): none, reads, writes.
enum class Access : std::uint8_t { none, read, write };

// What an op counts towards an mbarrier's phase (PTX ISA mbarrier: the
// pending arrival count and the tx-count), per executing thread where it is
// executed per thread:
//   none:             nothing
//   arrive:           N arrivals (`count N`, default 1), and with `bytes B`
//                     an expect-tx of B (arrive, arrive_drop)
//   arrive_expect_tx: one arrival and an expect-tx of B
//   expect_tx:        an expect-tx of B
//   complete_tx:      a complete-tx of B (complete_tx; st.async and
//                     red.async when they land)
//   cp_async_arrive:  one arrival when the copies land (with .noinc; without
//                     it the pending count is raised first: zero net)
//   copy_tx:          a complete-tx of the copy's bytes in each destination
//                     CTA when it lands (TMA load, launch-control response)
//   commit:           one arrival in each destination CTA when the MMAs
//                     finish (tcgen05.commit)
enum class PhaseTerm : std::uint8_t { none, arrive, arrive_expect_tx, expect_tx, complete_tx, cp_async_arrive, copy_tx, commit };

// The operands an op takes in .bk, each form parsed once (checker/dsl/
// parse_ops.cpp; the text of each op's operands is the table's last column):
//   none            nothing
//   buffers         BUF[i] [@ CTA] {, BUF[j] [@ CTA]}
//   buffer          one BUF[i] of the agent's CTA
//   tmem_buffers    TMEM[i] {, TMEM[j]}
//   init            BAR[i] count N
//   arrive          BAR[i] [@ CTA] and the arrive's options
//   tx              BAR[i] [@ CTA] bytes B [relaxed] [cta|cluster]
//   wait            BAR[i] [@ CTA] (parity P | token T) [acquire|relaxed] [cta|cluster]
//   token           a state token T
//   barrier         BAR[i]
//   named           ID [, THREADS]
//   named_red       popc|and|or ID, THREADS, PRED
//   waitcnt         [vmcnt(N)] [lgkmcnt(N)]
//   tma_load        BUF[i] -> BAR[j] [@ CTA] [bytes B] [multicast MASK]
//   count           N (groups left pending)
//   cp_async_arrive BAR[i] [noinc]
//   async_store     BUF[i] [@ CTA] -> BAR[j] bytes B
//   mma             read BUF[i] {, BUF[j]} [into TMEM[k]] [cta_group 2] (wgmma: [regs a])
//   regs            acc|a {, acc|a}
//   tmem_alloc      TMEM [cta_group 2]
//   tmem_cp         BUF[i] -> TMEM[j]
//   tmem_pair       TMEM[i] [cta_group 2]
//   clc_request     RESP[i] -> BAR[j] [multicast MASK]
//   commit          BAR[i] [multicast MASK] [cta_group 2]
//   pair            [cta_group 2]
//   scope           cta|cluster
//   scope_restrict  cta|cluster, and the .sync_restrict state space of a
//                   one-way fence (shared_cta for fence_release,
//                   shared_cluster for fence_acquire)
//   proxy_space     [global|shared_cta|shared_cluster|release|acquire]
//   warp_mask       [mask M] (a 32-bit member mask; default: the whole warp)
//   sem             [release|relaxed]
enum class Operands : std::uint8_t {
  none, buffers, buffer, tmem_buffers, init, arrive, tx, wait, token, barrier, named, named_red, waitcnt, tma_load, count,
  cp_async_arrive, async_store, mma, regs, tmem_alloc, tmem_cp, tmem_pair, clc_request, commit, pair, scope, scope_restrict, sem, proxy_space, warp_mask,
  tensormap_fence, tensormap_copy
};

// Flags (the `flags` column, or-ed).
namespace opf {
inline constexpr std::uint16_t none = 0;
// Joins a named barrier (or AMD's workgroup barrier) and waits for its
// instance to complete: bar.sync, bar.red, __syncthreads. The agent's ticket
// then matters (state.cpp) and its step may be surely blocked (step.cpp).
inline constexpr std::uint16_t named_wait = 1 << 0;
// May leave the agent unable to move until another step (a wait, a barrier,
// an allocation): its step can be "not enabled".
inline constexpr std::uint16_t may_block = 1 << 1;
// Arrives on an mbarrier from the executing threads, locally or in another
// CTA of the cluster (`@ CTA`): mbarrier.arrive and its forms.
inline constexpr std::uint16_t thread_arrive = 1 << 2;
// Leaves an arrival on an mbarrier for later (an async event whose release is
// held in a sync object of the agent's arrival pool): tcgen05.commit,
// cp.async.mbarrier.arrive, st.async, red.async.
inline constexpr std::uint16_t async_arrive = 1 << 3;
// Accesses tensor memory through the CTA's allocations (spec::tmem::use).
inline constexpr std::uint16_t tmem = 1 << 4;
// Takes `cta_group 2`: the pair of CTAs.
inline constexpr std::uint16_t pair = 1 << 5;
// Its buffer accesses are made in the async proxy (PTX ISA "Proxies").
inline constexpr std::uint16_t async_proxy = 1 << 6;
// The minimum SM is an architecture-specific target (sm_90a, sm_100a).
inline constexpr std::uint16_t arch_specific = 1 << 7;
// Waits for a barrier to complete a phase or an instance (an mbarrier wait,
// a named barrier, the cluster barrier, AMD's workgroup barrier): the waits
// the symbolic claims count (checker/smt/symbolic.cpp).
inline constexpr std::uint16_t barrier_wait = 1 << 8;
// Returns a value the kernel may assign (`r = OP ...`): a state token, a
// test's answer, a count, bar.red's result, a launch-control answer.
inline constexpr std::uint16_t returns = 1 << 9;
// ... and the value must be assigned (an op whose only effect is its result).
inline constexpr std::uint16_t result_required = 1 << 10;
// The bounded Z3 check (`--bmc`, checker/smt/bmc_fragment.cpp) does not
// unroll it: a kernel with it is refused there (the explicit search checks
// it). Every other op is unrolled (tests/smt_bmc_test.cpp checks both ways).
inline constexpr std::uint16_t no_bmc = 1 << 11;
}  // namespace opf

// Why an `aligned` operation takes no lane prefix and no `if lane == 0:`:
// PTX ISA bar/barrier (bar.sync is barrier.sync.aligned): "The optional
// .aligned modifier indicates that all threads in CTA will execute the same
// barrier instruction. In conditionally executed code, an aligned barrier
// instruction should only be used if it is known that all threads in CTA
// evaluate the condition identically, otherwise behavior is undefined"; the
// same holds of wgmma's and tcgen05's .sync.aligned forms for the warp (group).
inline constexpr std::string_view aligned_rule =
    "an .aligned instruction: every thread executes the same one, and executed by some lanes only it is undefined (PTX ISA "
    "bar/barrier: \"In conditionally executed code, an aligned barrier instruction should only be used if it is known that "
    "all threads in CTA evaluate the condition identically, otherwise behavior is undefined\")";

// The table. Columns:
//   enumerator, keyword, family, lane policy, target, minimum NVIDIA SM (0:
//   none: AMD only, or any), footprint, buffer access, phase term, operand
//   form, flags, operands as written in .bk (documentation).
// The minimum SM is the PTX ISA's "Target ISA notes" of the instruction.
#define PC_OPS(X)                                                                                                     \
  /* shared memory */                                                                                                 \
  X(read, "read", memory, any, both, 0, access, read, none, buffers, opf::returns, "[R =] read BUF[i] [@ CTA] {, BUF[j] [@ CTA]}")     \
  X(write, "write", memory, any, both, 0, access, write, none, buffers, opf::none, "BUF[i] [@ CTA] {, BUF[j] [@ CTA]} [value V]")       \
  X(consume, "consume", memory, any, both, 0, own, none, none, buffers, opf::none, "BUF[i] [@ CTA] {, BUF[j] [@ CTA]}")               \
  X(atomic, "atomic", memory, any, nvidia, 70, access, write, none, buffers, opf::no_bmc, "BUF[i] [@ CTA] {, BUF[j] [@ CTA]}")         \
  X(atomic_load, "atomic_load", memory, any, nvidia, 70, access, read, none, buffers, opf::no_bmc, "BUF[i] [@ CTA] {, BUF[j] [@ CTA]}") \
  /* mbarrier */                                                                                                      \
  X(mbar_init, "init", mbarrier, single, both, 80, mbarrier, none, none, init, opf::none, "BAR[i] count N")                        \
  X(mbar_arrive, "arrive", mbarrier, any, both, 80, mbarrier, none, arrive, arrive, opf::returns | opf::thread_arrive,                                \
    "[T =] arrive BAR[i] [@ CTA] [count N] [release|relaxed] [cta|cluster] [nocomplete]")                              \
  X(mbar_arrive_drop, "arrive_drop", mbarrier, any, nvidia, 80, mbarrier, none, arrive, arrive, opf::returns | opf::thread_arrive | opf::no_bmc,                    \
    "BAR[i] [@ CTA] [count N] [bytes B] [nocomplete] [release|relaxed] [cta|cluster]")                                 \
  X(mbar_arrive_expect_tx, "arrive_expect_tx", mbarrier, any, nvidia, 90, mbarrier, none, arrive_expect_tx, arrive, opf::returns | opf::thread_arrive,          \
    "BAR[i] [@ CTA] bytes B [release|relaxed] [cta|cluster]")                                                          \
  X(mbar_expect_tx, "expect_tx", mbarrier, any, nvidia, 90, mbarrier, none, expect_tx, tx, opf::none, "BAR[i] [@ CTA] bytes B [relaxed] [cta|cluster]") \
  X(mbar_complete_tx, "complete_tx", mbarrier, any, nvidia, 90, mbarrier, none, complete_tx, tx, opf::none, "BAR[i] [@ CTA] bytes B [relaxed] [cta|cluster]") \
  X(mbar_wait, "wait", mbarrier, agent, both, 80, mbar_wait, none, none, wait, opf::barrier_wait | opf::may_block,                                      \
    "BAR[i] [@ CTA] (parity P | token T) [acquire|relaxed] [cta|cluster]")                                             \
  X(mbar_test_wait, "test_wait", mbarrier, agent, nvidia, 80, mbar_wait, none, none, wait, opf::returns | opf::result_required | opf::no_bmc,                               \
    "R = test_wait BAR[i] [@ CTA] (parity P | token T) [acquire|relaxed] [cta|cluster]")                               \
  X(mbar_try_wait, "try_wait", mbarrier, agent, nvidia, 90, mbar_wait, none, none, wait, opf::returns | opf::result_required | opf::no_bmc,                                 \
    "R = try_wait BAR[i] [@ CTA] (parity P | token T) [acquire|relaxed] [cta|cluster]")                                \
  X(mbar_pending_count, "pending_count", mbarrier, aligned, nvidia, 80, none, none, none, token, opf::returns | opf::result_required | opf::no_bmc, "R = pending_count T")  \
  X(mbar_inval, "inval", mbarrier, single, nvidia, 80, mbarrier, none, none, barrier, opf::none, "BAR[i]")                            \
  X(fence_mbarrier_init, "fence_mbarrier_init", mbarrier, any, nvidia, 90, own, none, none, none, opf::none, "")                   \
  /* named barriers */                                                                                                \
  X(bar_sync, "bar_sync", named, aligned, nvidia, 70, barrier, none, none, named, opf::barrier_wait | opf::named_wait | opf::may_block, "ID [, THREADS]") \
  X(bar_arrive, "bar_arrive", named, aligned, nvidia, 70, barrier, none, none, named, opf::none, "ID, THREADS")                     \
  X(bar_red, "bar_red", named, aligned, nvidia, 70, barrier, none, none, named_red, opf::returns | opf::result_required | opf::barrier_wait | opf::named_wait | opf::may_block | opf::no_bmc,                   \
    "R = bar_red popc|and|or ID, THREADS, PRED")                                                                       \
  X(syncthreads, "syncthreads", named, aligned, nvidia, 70, barrier, none, none, none, opf::barrier_wait | opf::named_wait | opf::may_block, "")       \
  X(syncwarp, "syncwarp", named, agent, nvidia, 70, own, none, none, warp_mask, opf::none, "[mask M]")                          \
  X(elect_sync, "elect_sync", named, any, nvidia, 90, none, none, none, warp_mask, opf::no_bmc, "[mask M]")                        \
  /* async copies and groups */                                                                                       \
  X(tma_load, "tma_load", bulk, leader, nvidia, 90, tma_load, write, copy_tx, tma_load, opf::async_proxy,                                 \
    "BUF[i] -> BAR[j] [@ CTA] [bytes B] [multicast MASK] [from GMEM[k]]")                                             \
  X(tma_store, "tma_store", bulk, leader, nvidia, 90, access, read, none, buffer, opf::async_proxy, "BUF[i] [to GMEM[k]]")          \
  X(tma_reduce, "tma_reduce", bulk, leader, nvidia, 90, access, read, none, buffer, opf::async_proxy, "BUF[i]")                      \
  X(bulk_commit_group, "commit_group", bulk, leader, nvidia, 90, own, none, none, none, opf::none, "")                             \
  X(bulk_wait_group, "wait_group", bulk, leader, nvidia, 90, own, none, none, count, opf::none, "N")                                \
  X(bulk_wait_group_read, "wait_group_read", bulk, leader, nvidia, 90, own, none, none, count, opf::none, "N")                      \
  X(cp_async, "cp_async", cp_async, any, nvidia, 80, access, write, none, buffers, opf::none, "BUF[i] [@ CTA] {, BUF[j] [@ CTA]}")     \
  X(cp_async_mbarrier_arrive, "cp_async_arrive", cp_async, any, nvidia, 80, async_arrive, none, cp_async_arrive, cp_async_arrive, opf::async_arrive,     \
    "BAR[i] [noinc]")                                                                                                  \
  X(cp_async_commit, "cp_async_commit", cp_async, any, nvidia, 80, own, none, none, none, opf::none, "")                           \
  X(cp_async_wait, "cp_async_wait", cp_async, any, nvidia, 80, own, none, none, count, opf::none, "N")                              \
  X(cp_async_wait_all, "cp_async_wait_all", cp_async, any, nvidia, 80, own, none, none, none, opf::none, "")                       \
  X(st_async, "st_async", bulk, any, nvidia, 90, async_store, write, complete_tx, async_store, opf::async_arrive, "BUF[i] [@ CTA] -> BAR[j] bytes B") \
  X(red_async, "red_async", bulk, any, nvidia, 90, async_store, write, complete_tx, async_store, opf::async_arrive | opf::no_bmc, "BUF[i] @ CTA -> BAR[j] bytes B") \
  X(wgmma_fence, "wgmma_fence", wgmma, aligned, nvidia, 90, own, none, none, none, opf::arch_specific, "")                         \
  X(wgmma_regs, "wgmma_regs", wgmma, aligned, nvidia, 90, own, none, none, regs, opf::arch_specific, "acc|a {, acc|a}")          \
  X(wgmma, "wgmma", wgmma, aligned, nvidia, 90, access, read, none, mma, opf::may_block | opf::async_proxy | opf::arch_specific,                   \
    "read BUF[i] [@ CTA] {, BUF[j] [@ CTA]} [regs a]")                                                                 \
  X(wgmma_commit, "wgmma_commit", wgmma, aligned, nvidia, 90, own, none, none, none, opf::arch_specific, "")                       \
  X(wgmma_wait, "wgmma_wait", wgmma, aligned, nvidia, 90, own, none, none, count, opf::arch_specific, "N")                          \
  X(tcgen05_mma, "tcgen05_mma", tcgen05, leader, nvidia, 100, access, read, none, mma,                                            \
    opf::tmem | opf::pair | opf::async_proxy | opf::arch_specific,                                                     \
    "read BUF[i] [@ CTA] {, BUF[j] [@ CTA]} [into TMEM[k]] [cta_group 2]")                                             \
  X(tcgen05_commit, "tcgen05_commit", tcgen05, leader, nvidia, 100, async_arrive, none, commit, commit,                                \
    opf::async_arrive | opf::pair | opf::arch_specific, "BAR[i] [multicast MASK] [cta_group 2]")                       \
  X(tcgen05_fence_before, "tcgen05_fence_before_thread_sync", tcgen05, any, nvidia, 100, own, none, none, none, opf::arch_specific, "") \
  X(tcgen05_fence_after, "tcgen05_fence_after_thread_sync", tcgen05, any, nvidia, 100, own, none, none, none, opf::arch_specific, "")   \
  /* tensor memory (sm_100a) */                                                                                       \
  X(tcgen05_alloc, "tcgen05_alloc", tcgen05, aligned, nvidia, 100, tmem_alloc, none, none, tmem_alloc,                                   \
    opf::may_block | opf::pair | opf::arch_specific, "TMEM [cta_group 2]")                                             \
  X(tcgen05_dealloc, "tcgen05_dealloc", tcgen05, aligned, nvidia, 100, tmem_alloc, none, none, tmem_alloc,                               \
    opf::may_block | opf::pair | opf::arch_specific, "TMEM [cta_group 2]")                                             \
  X(tcgen05_relinquish, "tcgen05_relinquish_alloc_permit", tcgen05, aligned, nvidia, 100, tmem_relinquish, none, none, pair,       \
    opf::may_block | opf::pair | opf::arch_specific, "[cta_group 2]")                                                  \
  X(tcgen05_ld, "tcgen05_ld", tcgen05, aligned, nvidia, 100, access, read, none, tmem_buffers, opf::tmem | opf::arch_specific, "TMEM[i] {, TMEM[j]}")  \
  X(tcgen05_st, "tcgen05_st", tcgen05, aligned, nvidia, 100, access, write, none, tmem_buffers, opf::tmem | opf::arch_specific, "TMEM[i] {, TMEM[j]}") \
  X(tcgen05_wait_ld, "tcgen05_wait_ld", tcgen05, aligned, nvidia, 100, own, none, none, none, opf::arch_specific, "")              \
  X(tcgen05_wait_st, "tcgen05_wait_st", tcgen05, aligned, nvidia, 100, own, none, none, none, opf::arch_specific, "")              \
  X(tcgen05_regs, "tcgen05_regs", tcgen05, aligned, nvidia, 100, none, none, none, none, opf::arch_specific | opf::no_bmc, "")       \
  X(tcgen05_shift, "tcgen05_shift", tcgen05, leader, nvidia, 100, access, write, none, tmem_pair,                       \
    opf::tmem | opf::pair | opf::arch_specific | opf::no_bmc, "TMEM[i] [cta_group 2]")                                               \
  X(tcgen05_cp, "tcgen05_cp", tcgen05, leader, nvidia, 100, tmem_cp, read, none, tmem_cp, opf::async_proxy | opf::arch_specific | opf::no_bmc,      \
    "BUF[i] -> TMEM[j]")                                                                                               \
  /* cluster launch control (sm_100a) */                                                                              \
  X(clc_try_cancel, "clc_try_cancel", clc, leader, nvidia, 100, clc_request, write, copy_tx, clc_request, opf::async_proxy,                  \
    "RESP[i] -> BAR[j] [multicast MASK]")                                                                              \
  X(clc_query, "clc_query", clc, any, nvidia, 100, access, read, none, buffer, opf::returns | opf::result_required, "R = clc_query RESP[i]")                   \
  /* programmatic dependent launch (`grids 2`) */                                                                      \
  X(griddep_launch, "griddep_launch", control, any, nvidia, 90, own, none, none, none, opf::no_bmc, "")                         \
  X(griddep_wait, "griddep_wait", control, agent, nvidia, 90, grid_wait, none, none, none, opf::may_block | opf::no_bmc, "")     \
  /* fences */                                                                                                        \
  X(fence_proxy_async, "fence_proxy_async", fence, any, nvidia, 90, own, none, none, proxy_space, opf::none, "[global|shared_cta|shared_cluster|release|acquire]") \
  X(fence_proxy_tensormap, "fence_proxy_tensormap", fence, any, nvidia, 90, access, none, none, tensormap_fence, opf::no_bmc,    \
    "release | acquire TMAP[i]")                                                                                       \
  X(tensormap_cp_fenceproxy, "tensormap_cp_fenceproxy", fence, aligned, nvidia, 90, access, read, none, tensormap_copy,   \
    opf::no_bmc, "BUF[i] to TMAP[j]")                                                                                  \
  X(fence_acq_rel, "fence_acq_rel", fence, any, nvidia, 70, own, none, none, scope, opf::no_bmc, "cta|cluster")                       \
  X(fence_release, "fence_release", fence, any, nvidia, 90, own, none, none, scope_restrict, opf::no_bmc, "cta|cluster [shared_cta]") \
  X(fence_acquire, "fence_acquire", fence, any, nvidia, 90, own, none, none, scope_restrict, opf::no_bmc, "cta|cluster [shared_cluster]") \
  X(fence_sc, "fence_sc", fence, any, nvidia, 70, own, none, none, scope, opf::no_bmc, "cta|cluster")                                 \
  /* cluster barrier */                                                                                               \
  X(cluster_arrive, "cluster_arrive", cluster, aligned, nvidia, 90, cluster, none, none, sem, opf::none, "[release|relaxed]")     \
  X(cluster_wait, "cluster_wait", cluster, aligned, nvidia, 90, cluster, none, none, none, opf::barrier_wait | opf::may_block, "")                     \
  X(cluster_sync, "cluster_sync", cluster, aligned, nvidia, 90, cluster, none, none, none, opf::barrier_wait | opf::may_block, "")                     \
  /* AMD */                                                                                                           \
  X(s_waitcnt, "s_waitcnt", amd, aligned, amd, 0, own, none, none, waitcnt, opf::none, "[vmcnt(N)] [lgkmcnt(N)]")                     \
  X(global_load_lds, "global_load_lds", amd, any, amd_cdna, 0, access, write, none, buffer, opf::none, "BUF[i]")                     \
  X(s_barrier, "s_barrier", amd, aligned, amd, 0, barrier, none, none, none, opf::barrier_wait | opf::may_block, "")                                   \
  X(s_barrier_signal, "s_barrier_signal", amd, aligned, amd_gfx12, 0, barrier, none, none, none, opf::none, "")                    \
  X(s_barrier_wait, "s_barrier_wait", amd, aligned, amd_gfx12, 0, barrier, none, none, none, opf::barrier_wait | opf::may_block, "")                   \
  /* control */                                                                                                       \
  X(exit, "exit", control, aligned, both, 0, exit, none, none, none, opf::none, "")

enum class OpCode : std::uint8_t {
#define PC_X(e, kw, family, lanes, target, sm, foot, access, phase, form, flags, doc) e,
  PC_OPS(PC_X)
#undef PC_X
};

// One row of the table.
struct OpInfo {
  std::string_view keyword;
  OpFamily family;
  LanePolicy lanes;
  OpTarget target;
  int min_sm;
  Footprint footprint;
  Access access;
  PhaseTerm phase;
  Operands operands_form;
  std::uint16_t flags;
  std::string_view operands;  // as written in .bk (documentation)
};

inline constexpr OpInfo op_table[] = {
#define PC_X(e, kw, family, lanes, target, sm, foot, access, phase, form, flags, doc)                                        \
  {kw, OpFamily::family, LanePolicy::lanes, OpTarget::target, sm, Footprint::foot, Access::access, PhaseTerm::phase, Operands::form, \
   flags, doc},
    PC_OPS(PC_X)
#undef PC_X
};

// How many operations the table has (op codes are 0 .. op_count-1).
inline constexpr int op_count = static_cast<int>(sizeof op_table / sizeof op_table[0]);

[[nodiscard]] constexpr const OpInfo& op_info(OpCode c) { return op_table[static_cast<std::uint8_t>(c)]; }
[[nodiscard]] constexpr std::string_view op_keyword(OpCode c) { return op_info(c).keyword; }
[[nodiscard]] constexpr LanePolicy op_lanes(OpCode c) { return op_info(c).lanes; }
// The operations one warp of a multi-warp agent may execute on its own
// (`warp K:`, docs/dsl.md "Lanes"): those that take their lanes from the
// statement (check::lanes_of) and leave no completion in one of the agent's
// async units that a whole-agent operation later retires (a cp.async
// group, the MMA unit a commit tracks, the tensor-memory unit a
// tcgen05.wait orders), where one warp's work could not be told apart from
// another's. The bulk async-group operations (TMA store and reduce, their
// commit and wait) are one thread's anyway: a role gives them all to one
// warp's elected lane (Parser::check_bulk_thread), whose groups the agent's
// bulk unit then tracks.
[[nodiscard]] constexpr bool warp_op(OpCode c) {
  switch (c) {
    case OpCode::read:
    case OpCode::write:
    case OpCode::consume:
    case OpCode::atomic:
    case OpCode::atomic_load:
    case OpCode::mbar_init:
    case OpCode::mbar_arrive:
    case OpCode::mbar_arrive_drop:
    case OpCode::mbar_arrive_expect_tx:
    case OpCode::mbar_expect_tx:
    case OpCode::mbar_complete_tx:
    case OpCode::mbar_inval:
    case OpCode::fence_mbarrier_init:
    case OpCode::fence_proxy_async:
    case OpCode::fence_acq_rel:
    case OpCode::fence_sc:
    case OpCode::fence_proxy_tensormap:
    case OpCode::tensormap_cp_fenceproxy:
    case OpCode::tma_load:
    case OpCode::tma_store:
    case OpCode::tma_reduce:
    case OpCode::bulk_commit_group:
    case OpCode::bulk_wait_group:
    case OpCode::bulk_wait_group_read:
    case OpCode::tcgen05_alloc:
    case OpCode::tcgen05_dealloc:
    case OpCode::tcgen05_relinquish: return true;
    default: return false;
  }
}
[[nodiscard]] constexpr std::string_view op_operands_doc(OpCode c) { return op_info(c).operands; }
[[nodiscard]] constexpr OpTarget op_target(OpCode c) { return op_info(c).target; }
[[nodiscard]] constexpr OpFamily op_family(OpCode c) { return op_info(c).family; }
[[nodiscard]] constexpr Footprint op_footprint(OpCode c) { return op_info(c).footprint; }
[[nodiscard]] constexpr Access op_access(OpCode c) { return op_info(c).access; }
[[nodiscard]] constexpr PhaseTerm op_phase(OpCode c) { return op_info(c).phase; }
[[nodiscard]] constexpr Operands op_operands(OpCode c) { return op_info(c).operands_form; }
[[nodiscard]] constexpr bool op_has(OpCode c, std::uint16_t flag) { return (op_info(c).flags & flag) != 0; }
// Never blocks, never fails, and reads or writes only the agent's own
// threads' bits in happens-before (hb::order and hb::proxy_fence from and to
// its own lanes and units) or its own counters: it commutes with every other
// agent's step.
[[nodiscard]] constexpr bool op_private(OpCode c) { return op_footprint(c) == Footprint::own; }
// Joins a named barrier slot of its CTA (NVIDIA named barriers and the AMD
// workgroup barrier share the slots: program.hpp, named_slot).
[[nodiscard]] constexpr bool op_uses_named_barrier(OpCode c) { return op_footprint(c) == Footprint::barrier; }

// A named barrier (bar.sync, bar.arrive, bar.red, __syncthreads): the named
// family's ops that take a barrier (not __syncwarp).
[[nodiscard]] constexpr bool op_is_named_barrier(OpCode c) {
  return op_family(c) == OpFamily::named && op_uses_named_barrier(c);
}

[[nodiscard]] constexpr std::optional<OpCode> op_from_keyword(std::string_view s) {
  for (int i = 0; i < op_count; ++i)
    if (op_table[i].keyword == s) return static_cast<OpCode>(i);
  return std::nullopt;
}

// The table's own consistency, checked where it is written.
namespace detail {
constexpr bool ops_consistent() {
  for (int i = 0; i < op_count; ++i) {
    const OpInfo& o = op_table[i];
    for (int j = 0; j < i; ++j)
      if (op_table[j].keyword == o.keyword) return false;  // keywords are unique
    // A private op touches only the agent's own state: no buffer, no wait, no arrival.
    if (o.footprint == Footprint::own && (o.access != Access::none || (o.flags & (opf::may_block | opf::thread_arrive |
                                                                                 opf::async_arrive | opf::named_wait))))
      return false;
    // A buffer access has a footprint that covers buffers.
    if (o.access != Access::none && o.footprint != Footprint::access && o.footprint != Footprint::tma_load &&
        o.footprint != Footprint::async_store && o.footprint != Footprint::tmem_cp && o.footprint != Footprint::clc_request)
      return false;
    // An op whose result must be assigned returns one.
    if ((o.flags & opf::result_required) && !(o.flags & opf::returns)) return false;
    // A barrier wait may block; every thread or async arrival counts towards a phase.
    if ((o.flags & opf::barrier_wait) && !(o.flags & opf::may_block)) return false;
    if ((o.flags & (opf::thread_arrive | opf::async_arrive)) && o.phase == PhaseTerm::none) return false;
    // What counts towards a phase is an mbarrier op, an async arrival, or a copy that completes bytes.
    if (o.phase != PhaseTerm::none && o.family != OpFamily::mbarrier && !(o.flags & opf::async_arrive) &&
        o.footprint != Footprint::tma_load && o.footprint != Footprint::clc_request)
      return false;
    // Only a wait, test or try reads its mbarrier without changing it.
    if ((o.footprint == Footprint::mbar_wait) != (o.operands_form == Operands::wait)) return false;
    // A named-barrier wait blocks, on a named barrier.
    if ((o.flags & opf::named_wait) && (!(o.flags & opf::may_block) || o.footprint != Footprint::barrier)) return false;
    // Only NVIDIA ops have a minimum SM; the sm_100a families need sm_100.
    if ((o.target == OpTarget::nvidia) != (o.min_sm > 0) && o.target != OpTarget::both) return false;
    if ((o.family == OpFamily::tcgen05 || o.family == OpFamily::clc) && o.min_sm < 100) return false;
    if ((o.flags & opf::arch_specific) && o.target != OpTarget::nvidia) return false;
    if (o.family == OpFamily::amd && o.target == OpTarget::nvidia) return false;
  }
  return true;
}
}  // namespace detail
static_assert(detail::ops_consistent(), "the op table contradicts itself (checker/ops.hpp)");
static_assert(op_count <= 255, "op codes are one byte");

}  // namespace pc::ir
