// The one list of kernel operations. The enum, the DSL keywords, the JSON
// names and the lane policy all come from this table so they cannot drift.
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

// X(enumerator, keyword, lane policy, operands as written in .bk (documentation))
#define PC_OPS(X)                                                                                 \
  /* shared memory */                                                                             \
  X(read, "read", any, "BUF[i] [@ CTA] {, BUF[j] [@ CTA]}")                                                          \
  X(write, "write", any, "BUF[i] [@ CTA] {, BUF[j] [@ CTA]}")                                                        \
  /* mbarrier */                                                                                  \
  X(mbar_init, "init", single, "BAR[i] count N")                                                  \
  X(mbar_arrive, "arrive", any, "[T =] arrive BAR[i] [@ CTA] [count N] [release|relaxed] [cta|cluster] [nocomplete]") \
  X(mbar_arrive_drop, "arrive_drop", any, "BAR[i] [@ CTA] [count N] [bytes B] [nocomplete] [release|relaxed] [cta|cluster]") \
  X(mbar_arrive_expect_tx, "arrive_expect_tx", any, "BAR[i] [@ CTA] bytes B [release|relaxed] [cta|cluster]") \
  X(mbar_expect_tx, "expect_tx", any, "BAR[i] [@ CTA] bytes B")                                   \
  X(mbar_complete_tx, "complete_tx", any, "BAR[i] [@ CTA] bytes B")                               \
  X(mbar_wait, "wait", agent, "BAR[i] [@ CTA] (parity P | token T) [acquire|relaxed] [cta|cluster]") \
  X(mbar_test_wait, "test_wait", agent, "R = test_wait BAR[i] [@ CTA] (parity P | token T) [acquire|relaxed] [cta|cluster]")              \
  X(mbar_try_wait, "try_wait", agent, "R = try_wait BAR[i] [@ CTA] (parity P | token T) [acquire|relaxed] [cta|cluster]")                 \
  X(mbar_pending_count, "pending_count", aligned, "R = pending_count T")                          \
  X(mbar_inval, "inval", single, "BAR[i]")                                                        \
  X(fence_mbarrier_init, "fence_mbarrier_init", any, "")                                          \
  /* named barriers */                                                                            \
  X(bar_sync, "bar_sync", aligned, "ID [, THREADS]")                                                 \
  X(bar_arrive, "bar_arrive", aligned, "ID, THREADS")                                                 \
  X(bar_red, "bar_red", aligned, "R = bar_red popc|and|or ID, THREADS, PRED")                     \
  X(syncthreads, "syncthreads", aligned, "")                                                      \
  X(syncwarp, "syncwarp", aligned, "")                                                            \
  /* async copies and groups */                                                                   \
  X(tma_load, "tma_load", leader, "BUF[i] -> BAR[j] [@ CTA] [bytes B] [multicast MASK]")                  \
  X(tma_store, "tma_store", leader, "BUF[i]")                                                     \
  X(tma_reduce, "tma_reduce", leader, "BUF[i]")                                                   \
  X(bulk_commit_group, "commit_group", leader, "")                                                \
  X(bulk_wait_group, "wait_group", leader, "N")                                                   \
  X(bulk_wait_group_read, "wait_group_read", leader, "N")                                         \
  X(cp_async, "cp_async", any, "BUF[i] [@ CTA] {, BUF[j] [@ CTA]}")                                                          \
  X(cp_async_mbarrier_arrive, "cp_async_arrive", any, "BAR[i] [noinc]")                           \
  X(cp_async_commit, "cp_async_commit", any, "")                                                  \
  X(cp_async_wait, "cp_async_wait", any, "N")                                                     \
  X(cp_async_wait_all, "cp_async_wait_all", any, "")                                              \
  X(st_async, "st_async", any, "BUF[i] [@ CTA] -> BAR[j] bytes B")                                 \
  X(red_async, "red_async", any, "BUF[i] @ CTA -> BAR[j] bytes B")                                  \
  X(wgmma_fence, "wgmma_fence", aligned, "")                                                      \
  X(wgmma, "wgmma", aligned, "read BUF[i] [@ CTA] {, BUF[j] [@ CTA]}")                                           \
  X(wgmma_commit, "wgmma_commit", aligned, "")                                                    \
  X(wgmma_wait, "wgmma_wait", aligned, "N")                                                       \
  X(tcgen05_mma, "tcgen05_mma", leader, "read BUF[i] [@ CTA] {, BUF[j] [@ CTA]} [into TMEM[k]] [cta_group 2]")                \
  X(tcgen05_commit, "tcgen05_commit", leader, "BAR[i] [multicast MASK] [cta_group 2]")                          \
  X(tcgen05_fence_before, "tcgen05_fence_before_thread_sync", any, "")                             \
  X(tcgen05_fence_after, "tcgen05_fence_after_thread_sync", any, "")                               \
  /* tensor memory (sm_100a) */                                                                   \
  X(tcgen05_alloc, "tcgen05_alloc", aligned, "TMEM [cta_group 2]")                                              \
  X(tcgen05_dealloc, "tcgen05_dealloc", aligned, "TMEM [cta_group 2]")                                          \
  X(tcgen05_relinquish, "tcgen05_relinquish_alloc_permit", aligned, "[cta_group 2]")                           \
  X(tcgen05_ld, "tcgen05_ld", aligned, "TMEM[i] {, TMEM[j]}")                                     \
  X(tcgen05_st, "tcgen05_st", aligned, "TMEM[i] {, TMEM[j]}")                                     \
  X(tcgen05_wait_ld, "tcgen05_wait_ld", aligned, "")                                              \
  X(tcgen05_wait_st, "tcgen05_wait_st", aligned, "")                                              \
  X(tcgen05_cp, "tcgen05_cp", leader, "BUF[i] -> TMEM[j]")                                        \
  /* cluster launch control (sm_100a) */                                                          \
  X(clc_try_cancel, "clc_try_cancel", leader, "RESP[i] -> BAR[j] [multicast MASK]")                \
  X(clc_query, "clc_query", any, "R = clc_query RESP[i]")                                          \
  /* fences */                                                                                    \
  X(fence_proxy_async, "fence_proxy_async", any, "")                                              \
  X(fence_acq_rel, "fence_acq_rel", any, "cta|cluster")                                           \
  X(fence_sc, "fence_sc", any, "cta|cluster")                                                     \
  /* cluster barrier */                                                                           \
  X(cluster_arrive, "cluster_arrive", aligned, "[release|relaxed]")                               \
  X(cluster_wait, "cluster_wait", aligned, "")                                                    \
  X(cluster_sync, "cluster_sync", aligned, "")                                                    \
  /* AMD */                                                                                       \
  X(s_waitcnt, "s_waitcnt", aligned, "[vmcnt(N)] [lgkmcnt(N)]")                                  \
  X(global_load_lds, "global_load_lds", any, "BUF[i]")                                            \
  X(s_barrier, "s_barrier", aligned, "")                                                          \
  X(s_barrier_signal, "s_barrier_signal", aligned, "")                                            \
  X(s_barrier_wait, "s_barrier_wait", aligned, "")                                                \
  /* control */                                                                                   \
  X(exit, "exit", aligned, "")

enum class OpCode : std::uint8_t {
#define PC_X(e, kw, lanes, doc) e,
  PC_OPS(PC_X)
#undef PC_X
};

// How many operations the table has (op codes are 0 .. op_count-1).
inline constexpr int op_count = 0
#define PC_X(e, kw, lanes, doc) +1
    PC_OPS(PC_X)
#undef PC_X
    ;

[[nodiscard]] constexpr std::string_view op_keyword(OpCode c) {
  switch (c) {
#define PC_X(e, kw, lanes, doc) \
  case OpCode::e:               \
    return kw;
    PC_OPS(PC_X)
#undef PC_X
  }
  return "?";
}

[[nodiscard]] constexpr LanePolicy op_lanes(OpCode c) {
  switch (c) {
#define PC_X(e, kw, lanes, doc) \
  case OpCode::e:               \
    return LanePolicy::lanes;
    PC_OPS(PC_X)
#undef PC_X
  }
  return LanePolicy::any;
}

[[nodiscard]] constexpr std::string_view op_operands_doc(OpCode c) {
  switch (c) {
#define PC_X(e, kw, lanes, doc) \
  case OpCode::e:               \
    return doc;
    PC_OPS(PC_X)
#undef PC_X
  }
  return "";
}

// Which targets have an operation; the front end rejects it elsewhere
// (docs/dsl.md, "Targets"). A switch with no default, so that a new operation
// must be classified here.
//   both:     NVIDIA and AMD (shared-memory accesses; on AMD the mbarrier ones
//             are the software mbarrier of spec/sw_mbarrier.hpp, with only the
//             forms it has)
//   nvidia:   PTX only
//   amd:      every AMD chip
//   amd_cdna: AMD gfx90a, gfx940, gfx942 only (spec/amd.hpp, has_lds_dma)
//   amd_gfx12: AMD gfx1200, gfx1201 only (spec/amd.hpp, has_split_barrier)
enum class OpTarget : std::uint8_t { both, nvidia, amd, amd_cdna, amd_gfx12 };

[[nodiscard]] constexpr OpTarget op_target(OpCode c) {
  switch (c) {
    case OpCode::read:
    case OpCode::write:
    case OpCode::mbar_init:
    case OpCode::mbar_arrive:
    case OpCode::mbar_wait:
    case OpCode::exit: return OpTarget::both;
    case OpCode::mbar_arrive_drop:
    case OpCode::mbar_arrive_expect_tx:
    case OpCode::mbar_expect_tx:
    case OpCode::mbar_complete_tx:
    case OpCode::mbar_test_wait:
    case OpCode::mbar_try_wait:
    case OpCode::mbar_pending_count:
    case OpCode::mbar_inval:
    case OpCode::fence_mbarrier_init:
    case OpCode::bar_sync:
    case OpCode::bar_arrive:
    case OpCode::bar_red:
    case OpCode::syncthreads:
    case OpCode::syncwarp:
    case OpCode::tma_load:
    case OpCode::tma_store:
    case OpCode::tma_reduce:
    case OpCode::bulk_commit_group:
    case OpCode::bulk_wait_group:
    case OpCode::bulk_wait_group_read:
    case OpCode::cp_async:
    case OpCode::cp_async_mbarrier_arrive:
    case OpCode::cp_async_commit:
    case OpCode::cp_async_wait:
    case OpCode::cp_async_wait_all:
    case OpCode::st_async:
    case OpCode::red_async:
    case OpCode::wgmma_fence:
    case OpCode::wgmma:
    case OpCode::wgmma_commit:
    case OpCode::wgmma_wait:
    case OpCode::tcgen05_mma:
    case OpCode::tcgen05_commit:
    case OpCode::tcgen05_fence_after:
    case OpCode::tcgen05_fence_before:
    case OpCode::tcgen05_alloc:
    case OpCode::tcgen05_dealloc:
    case OpCode::tcgen05_relinquish:
    case OpCode::tcgen05_ld:
    case OpCode::tcgen05_st:
    case OpCode::tcgen05_wait_ld:
    case OpCode::tcgen05_wait_st:
    case OpCode::tcgen05_cp:
    case OpCode::clc_try_cancel:
    case OpCode::clc_query:
    case OpCode::fence_proxy_async:
    case OpCode::fence_acq_rel:
    case OpCode::fence_sc:
    case OpCode::cluster_arrive:
    case OpCode::cluster_wait:
    case OpCode::cluster_sync: return OpTarget::nvidia;
    case OpCode::s_waitcnt:
    case OpCode::s_barrier: return OpTarget::amd;
    case OpCode::global_load_lds: return OpTarget::amd_cdna;
    case OpCode::s_barrier_signal:
    case OpCode::s_barrier_wait: return OpTarget::amd_gfx12;
  }
  return OpTarget::nvidia;  // an op code outside the enum
}

[[nodiscard]] constexpr std::optional<OpCode> op_from_keyword(std::string_view s) {
#define PC_X(e, kw, lanes, doc) \
  if (s == kw) return OpCode::e;
  PC_OPS(PC_X)
#undef PC_X
  return std::nullopt;
}

}  // namespace pc::ir
