// Statements of each operation, and a kernel around them: the samples the
// parser's, the targets' and the op table's tests parse
// (tests/dsl_parser_test.cpp, tests/dsl_targets_test.cpp,
// tests/checker_ops_table_test.cpp, tests/smt_bmc_test.cpp). A new operation
// fails to compile here until it has its samples.
#pragma once

#include <string>
#include <vector>

#include "checker/ops.hpp"

namespace op_samples {

using namespace pc;

// One statement of each operation, valid on a target that has it: no cluster,
// no `@ CTA`, only the options the software mbarrier has for the shared ones.
// A switch with no default: a new operation fails to compile until it has one.
inline std::string sample(ir::OpCode c) {
  using ir::OpCode;
  switch (c) {
    case OpCode::read: return "all: read A[0]";
    case OpCode::write: return "one: write A[1]";
    case OpCode::consume: return "all: consume A[0]";
    case OpCode::atomic: return "all: atomic A[0]";
    case OpCode::atomic_load: return "one: atomic_load A[1]";
    case OpCode::mbar_init: return "one: init full[0] count 2";
    case OpCode::mbar_arrive: return "one: arrive full[1] count 1";
    case OpCode::mbar_arrive_drop: return "arrive_drop full[0]";
    case OpCode::mbar_arrive_expect_tx: return "one: arrive_expect_tx full[0] bytes 16";
    case OpCode::mbar_expect_tx: return "expect_tx full[0] bytes 16";
    case OpCode::mbar_complete_tx: return "complete_tx full[0] bytes 16";
    case OpCode::mbar_wait: return "wait full[0] parity 1";
    case OpCode::mbar_test_wait: return "r = test_wait full[0] parity 0";
    case OpCode::mbar_try_wait: return "r = try_wait full[1] parity 0";
    case OpCode::mbar_pending_count: return "r = pending_count r";
    case OpCode::mbar_inval: return "inval full[1]";
    case OpCode::fence_mbarrier_init: return "fence_mbarrier_init";
    case OpCode::bar_sync: return "bar_sync 1, 64";
    case OpCode::bar_arrive: return "bar_arrive 2, 64";
    case OpCode::bar_red: return "r = bar_red popc 3, 64, 1";
    case OpCode::syncthreads: return "syncthreads";
    case OpCode::syncwarp: return "syncwarp";
    case OpCode::tma_load: return "one: tma_load A[0] -> full[0]";
    case OpCode::tma_store: return "tma_store A[1]";
    case OpCode::tma_reduce: return "tma_reduce A[0]";
    case OpCode::bulk_commit_group: return "commit_group";
    case OpCode::bulk_wait_group: return "wait_group 0";
    case OpCode::bulk_wait_group_read: return "wait_group_read 1";
    case OpCode::cp_async: return "cp_async A[0]";
    case OpCode::cp_async_mbarrier_arrive: return "cp_async_arrive full[0]";
    case OpCode::cp_async_commit: return "one: cp_async_commit";
    case OpCode::cp_async_wait: return "one: cp_async_wait 1";
    case OpCode::cp_async_wait_all: return "one: cp_async_wait_all";
    case OpCode::st_async: return "one: st_async A[0] -> full[0] bytes 4";
    case OpCode::red_async: return "one: red_async A[0] @ 1 - cta -> full[0] bytes 4";
    case OpCode::wgmma_fence: return "wgmma_fence";
    case OpCode::wgmma_regs: return "wgmma_regs acc";
    case OpCode::wgmma: return "wgmma read A[0]";
    case OpCode::wgmma_commit: return "wgmma_commit";
    case OpCode::wgmma_wait: return "wgmma_wait 0";
    case OpCode::tcgen05_mma: return "tcgen05_mma read A[0] into T[0]";
    case OpCode::tcgen05_commit: return "tcgen05_commit full[0]";
    case OpCode::tcgen05_fence_after: return "tcgen05_fence_after_thread_sync";
    case OpCode::tcgen05_fence_before: return "tcgen05_fence_before_thread_sync";
    case OpCode::tcgen05_alloc: return "tcgen05_alloc T";
    case OpCode::tcgen05_dealloc: return "tcgen05_dealloc T";
    case OpCode::tcgen05_relinquish: return "tcgen05_relinquish_alloc_permit";
    case OpCode::tcgen05_ld: return "tcgen05_ld T[0]";
    case OpCode::tcgen05_st: return "tcgen05_st T[1]";
    case OpCode::tcgen05_wait_ld: return "tcgen05_wait_ld";
    case OpCode::tcgen05_wait_st: return "tcgen05_wait_st";
    case OpCode::tcgen05_regs: return "tcgen05_regs";
    case OpCode::tcgen05_cp: return "tcgen05_cp A[0] -> T[1]";
    case OpCode::tcgen05_shift: return "tcgen05_shift T[1]";
    case OpCode::clc_try_cancel: return "clc_try_cancel R -> full[1]";
    case OpCode::clc_query: return "r = clc_query R";
    case OpCode::fence_proxy_async: return "fence_proxy_async";
    case OpCode::fence_acq_rel: return "fence_acq_rel cta";
    case OpCode::fence_sc: return "fence_sc cta";
    case OpCode::fence_release: return "fence_release cta";
    case OpCode::fence_proxy_tensormap: return "fence_proxy_tensormap acquire M";
    case OpCode::tensormap_cp_fenceproxy: return "tensormap_cp_fenceproxy A[0] to M";
    case OpCode::griddep_launch: return "one: griddep_launch";
    case OpCode::elect_sync: return "one: elect_sync mask 1";
    case OpCode::griddep_wait: return "griddep_wait";
    case OpCode::fence_acquire: return "fence_acquire cta";
    case OpCode::cluster_arrive: return "cluster_arrive";
    case OpCode::cluster_wait: return "cluster_wait";
    case OpCode::cluster_sync: return "cluster_sync";
    case OpCode::s_waitcnt: return "s_waitcnt vmcnt(2) lgkmcnt(1)";
    case OpCode::global_load_lds: return "global_load_lds A[0]";
    case OpCode::s_barrier: return "s_barrier";
    case OpCode::s_barrier_signal: return "s_barrier_signal";
    case OpCode::s_barrier_wait: return "s_barrier_wait";
    case OpCode::exit: return "exit";
  }
  return "";
}

// One statement of each operation with all its operand forms, in the
// declarations of tests/dsl_parser_test.cpp's prelude (which has buffers A
// and B, mbarriers full and fresh, tensor memory T, responses R). A switch
// with no default, as sample()'s.
inline std::string with_all_operands(ir::OpCode c) {
  using ir::OpCode;
  switch (c) {
    case OpCode::read: return "all: read A[0] @ 1, B[1]";
    case OpCode::write: return "one: write A[1]";
    case OpCode::consume: return "one: consume A[0] @ 1, B[1]";
    case OpCode::atomic: return "all: atomic A[0] @ 1, B[1]";
    case OpCode::atomic_load: return "one: atomic_load A[0] @ 1, B[1]";
    case OpCode::mbar_init: return "one: init fresh count 2";
    case OpCode::mbar_arrive: return "one: arrive full[1] @ 1 count 2 release cluster";
    case OpCode::mbar_arrive_drop: return "arrive_drop full[0] @ 1 bytes 16 relaxed cta";
    case OpCode::mbar_arrive_expect_tx: return "one: arrive_expect_tx full[0] @ 1 bytes 2048 release cluster";
    case OpCode::mbar_expect_tx: return "expect_tx full[0] @ 1 bytes 16 relaxed cluster";
    case OpCode::mbar_complete_tx: return "complete_tx full[0] bytes 16";
    case OpCode::mbar_wait: return "wait full[0] parity 1 acquire cluster";
    case OpCode::mbar_test_wait: return "r = test_wait full[0] token t";
    case OpCode::mbar_try_wait: return "r = try_wait full[1] parity 0 relaxed";
    case OpCode::mbar_pending_count: return "r = pending_count t";
    case OpCode::mbar_inval: return "inval full[1]";
    case OpCode::fence_mbarrier_init: return "fence_mbarrier_init";
    case OpCode::bar_sync: return "bar_sync 1, 256";
    case OpCode::bar_arrive: return "bar_arrive 2, 128";
    case OpCode::bar_red: return "r = bar_red popc 3, 128, instance == 0";
    case OpCode::syncthreads: return "syncthreads";
    case OpCode::syncwarp: return "syncwarp";
    case OpCode::tma_load: return "one: tma_load A[0] -> full[0] @ 1 bytes 512 multicast 3";
    case OpCode::tma_store: return "tma_store A[1]";
    case OpCode::bulk_commit_group: return "commit_group";
    case OpCode::bulk_wait_group: return "wait_group 0";
    case OpCode::bulk_wait_group_read: return "wait_group_read 1";
    case OpCode::cp_async: return "cp_async B[0]";
    case OpCode::cp_async_mbarrier_arrive: return "cp_async_arrive full[0] noinc";
    case OpCode::cp_async_commit: return "one: cp_async_commit";
    case OpCode::cp_async_wait: return "one: cp_async_wait 1";
    case OpCode::cp_async_wait_all: return "one: cp_async_wait_all";
    case OpCode::st_async: return "all: st_async A[1] @ 1 -> full[1] bytes 16";
    case OpCode::red_async: return "one: red_async A[0] @ 1 -> full[0] bytes 8";
    case OpCode::tma_reduce: return "tma_reduce A[1]";
    case OpCode::wgmma_fence: return "wgmma_fence";
    case OpCode::wgmma_regs: return "wgmma_regs acc, a";
    case OpCode::wgmma: return "wgmma read A[0], B[0] regs a";
    case OpCode::wgmma_commit: return "wgmma_commit";
    case OpCode::wgmma_wait: return "wgmma_wait 0";
    case OpCode::tcgen05_mma: return "tcgen05_mma read A[0] @ 1, B[1], T[0] into T[1]";
    case OpCode::tcgen05_commit: return "tcgen05_commit full[0] multicast 3";
    case OpCode::tcgen05_fence_before: return "tcgen05_fence_before_thread_sync";
    case OpCode::tcgen05_fence_after: return "one: tcgen05_fence_after_thread_sync";
    case OpCode::tcgen05_alloc: return "tcgen05_alloc T";
    case OpCode::tcgen05_dealloc: return "tcgen05_dealloc T";
    case OpCode::tcgen05_relinquish: return "tcgen05_relinquish_alloc_permit";
    case OpCode::tcgen05_ld: return "tcgen05_ld T[0], T[1] lanes 0";
    case OpCode::tcgen05_st: return "tcgen05_st T[1] lanes 3";
    case OpCode::tcgen05_wait_ld: return "tcgen05_wait_ld";
    case OpCode::tcgen05_wait_st: return "tcgen05_wait_st";
    case OpCode::tcgen05_regs: return "tcgen05_regs";
    case OpCode::tcgen05_cp: return "one: tcgen05_cp A[0] -> T[1]";
    case OpCode::tcgen05_shift: return "one: tcgen05_shift T[1]";
    case OpCode::clc_try_cancel: return "one: clc_try_cancel R[0] -> full[1] multicast 3";
    case OpCode::clc_query: return "r = clc_query R[1]";
    case OpCode::fence_proxy_async: return "fence_proxy_async shared_cluster";
    case OpCode::fence_acq_rel: return "fence_acq_rel cta";
    case OpCode::fence_sc: return "fence_sc cluster";
    case OpCode::fence_release: return "fence_release cluster shared_cta";
    case OpCode::fence_proxy_tensormap: return "fence_proxy_tensormap acquire M[1] gpu";
    case OpCode::tensormap_cp_fenceproxy: return "tensormap_cp_fenceproxy A[0] to M[1] sys";
    case OpCode::griddep_launch: return "griddep_launch";
    case OpCode::elect_sync: return "elect_sync mask 0xffffffff";
    case OpCode::griddep_wait: return "one: griddep_wait";
    case OpCode::fence_acquire: return "fence_acquire cluster shared_cluster";
    case OpCode::cluster_arrive: return "cluster_arrive relaxed";
    case OpCode::cluster_wait: return "cluster_wait";
    case OpCode::cluster_sync: return "cluster_sync";
    case OpCode::s_waitcnt: return "s_waitcnt vmcnt(1) & lgkmcnt(0)";
    case OpCode::global_load_lds: return "one: global_load_lds A[1]";
    case OpCode::s_barrier: return "s_barrier";
    case OpCode::s_barrier_signal: return "s_barrier_signal";
    case OpCode::s_barrier_wait: return "s_barrier_wait";
    case OpCode::exit: return "exit";
  }
  return "";
}

// The statement on line 8, column 3. NVIDIA is the default target: its line
// declares a cluster of two CTAs instead (st_async needs one).
inline std::string kernel_with(const std::string& target, const std::string& stmt) {
  return "kernel t\n" +
         (target == "nvidia" ? std::string("cluster 2") : "target " + target) + "\n"
         "smem A[2] bytes 1024\n"
         "mbarrier full[2] count 1\n"
         "tmem T[2] cols 64\n"
         // (a statement of a tensor map has M instead of the responses R)
         + std::string(stmt.find(" M") != std::string::npos ? "tensormap M\n" : "smem R bytes 16\n") +
         // wgmma is a warp group's; tcgen05.alloc one warp's.
         "role r " + (stmt.rfind("wgmma", 0) == 0 ? "warpgroup" : "warp") + ":\n"
         "  " + stmt + "\n" +
         // (the tensor memory the samples access is allocated somewhere: else bad input)
         (target == "nvidia" ? "role alloc warp:\n  if cta == 1:\n    tcgen05_alloc T\n" : "");
}

inline std::vector<ir::OpCode> all_ops() {
  std::vector<ir::OpCode> v;
#define PC_X(e, ...) v.push_back(ir::OpCode::e);
  PC_OPS(PC_X)
#undef PC_X
  return v;
}

}  // namespace op_samples
