// A persistent Blackwell GEMM with tcgen05 (sm_100a): kernels/cuda/tc_gemm.cu
// over kTiles output tiles with a double-buffered accumulator, the CUTLASS
// sm100 layout of two accumulator stages in one allocation. Warp 0's lane 0
// loads kKTiles k-tiles of A and B per tile through a 2-stage TMA ring;
// warp 1 allocates 2 x 64 columns, and its lane 0 issues the MMAs of tile t
// into columns 64 * (t % 2), waiting first for the epilogue to have emptied
// that stage (acc_empty, 128 arrivals: every epilogue thread), and commits
// it to acc_full[t % 2]; warps 2-5 load tile t's stage, wait for the loads,
// release the stage and store their rows' sums. Named barrier 1 orders the
// last loads before warp 1 frees the columns. Planted bug: the MMA warp
// does not wait on acc_empty, so tile 2's MMAs may write stage 0 while the
// epilogue still loads tile 0 from it.
// twin: kernels/cuda/tc_gemm_acc2_bug_no_acc_empty_wait.bk
// arch: sm_100a
// check-kernel: --entry tc_gemm_acc2_bug_no_acc_empty_wait --block 192
// expect: data_race
// apart: reduced
#include <cstddef>
#include <cstdint>

#include "spec/primitives.hpp"

using namespace pc::prim;

namespace {
constexpr int kStages = 2;
constexpr int kKTiles = 2;
constexpr int kTiles = 3;
constexpr int kAccStages = 2;
constexpr int kTileBytes = 4096;  // 128 x 16 BF16 elements of A, and of B
constexpr std::uint32_t kN = 64;  // N of a tile: the columns of one accumulator stage
constexpr int kThreads = 192;
constexpr int kEpilogue = 128;  // warps 2-5
}  // namespace

extern "C" __global__ void __launch_bounds__(kThreads) tc_gemm_acc2_bug_no_acc_empty_wait(const std::uint8_t* __restrict__ a,
                                                                    const std::uint8_t* __restrict__ b, float* __restrict__ out) {
  __shared__ alignas(1024) std::uint8_t sa[kStages][kTileBytes];
  __shared__ alignas(1024) std::uint8_t sb[kStages][kTileBytes];
  __shared__ mbarrier_t full[kStages];
  __shared__ mbarrier_t empty[kStages];
  __shared__ mbarrier_t acc_full[kAccStages];
  __shared__ mbarrier_t acc_empty[kAccStages];
  __shared__ std::uint32_t tmem_slot;

  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (warp == 0 && lane == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbarrier_init(&full[s], 1);
      mbarrier_init(&empty[s], 1);
    }
    for (int s = 0; s < kAccStages; ++s) {
      mbarrier_init(&acc_full[s], 1);
      mbarrier_init(&acc_empty[s], kEpilogue);
    }
    fence_mbarrier_init();
  }
  if (warp == 1) {
    tcgen05_alloc(&tmem_slot, kAccStages * kN);
    tcgen05_relinquish_alloc_permit();
  }
  tcgen05_fence_before_thread_sync();
  __syncthreads();
  tcgen05_fence_after_thread_sync();
  const std::uint32_t tmem = tmem_slot;

  if (warp == 0) {
    if (lane == 0)
      for (int i = 0; i < kTiles * kKTiles; ++i) {  // the k-tiles of every output tile, in order
        const int s = i % kStages;
        if (i >= kStages)
          while (!mbarrier_try_wait_parity(&empty[s], ((i / kStages) - 1) & 1)) {
          }
        mbarrier_arrive_expect_tx(&full[s], 2 * kTileBytes);
        tma_load_1d(sa[s], a + static_cast<std::size_t>(i % kKTiles) * kTileBytes, kTileBytes, &full[s]);
        tma_load_1d(sb[s], b + static_cast<std::size_t>(i) * kTileBytes, kTileBytes, &full[s]);
      }
  } else if (warp == 1) {
    if (lane == 0) {
      constexpr std::uint32_t idesc = idesc_bf16_f32(128, kN);
      for (int t = 0; t < kTiles; ++t) {
        const int as = t % kAccStages;
        // planted: no wait for the epilogue to have emptied this stage (acc_empty)
        tcgen05_fence_after_thread_sync();
        for (int k = 0; k < kKTiles; ++k) {
          const int i = t * kKTiles + k;
          const int s = i % kStages;
          while (!mbarrier_try_wait_parity(&full[s], (i / kStages) & 1)) {
          }
          tcgen05_fence_after_thread_sync();
          tcgen05_mma_f16(tmem + static_cast<std::uint32_t>(as) * kN, smem_descriptor(sa[s], 128, 256), smem_descriptor(sb[s], 128, 256),
                          idesc, k > 0);
          tcgen05_commit(&empty[s]);
        }
        tcgen05_commit(&acc_full[as]);
      }
    }
    __syncwarp();
    bar_sync(1, 32 + kEpilogue);  // the epilogue's loads are done
    tcgen05_fence_after_thread_sync();
    tcgen05_dealloc(tmem, kAccStages * kN);
  } else {
    const int quarter = warp % 4;  // the lanes this warp reaches (PTX ISA tcgen05 "Access restrictions")
    const int row = quarter * 32 + lane;
    for (int t = 0; t < kTiles; ++t) {
      const int as = t % kAccStages;
      while (!mbarrier_try_wait_parity(&acc_full[as], (t / kAccStages) & 1)) {
      }
      tcgen05_fence_after_thread_sync();
      std::uint32_t r[32];
      tcgen05_ld_32x32b_x32(tmem + (static_cast<std::uint32_t>(quarter * 32) << 16) + static_cast<std::uint32_t>(as) * kN, r);
      tcgen05_wait_ld();
      tcgen05_fence_before_thread_sync();
      mbarrier_arrive(&acc_empty[as], 1);  // every epilogue thread: the stage may be written again
      float sum = 0.f;
      for (int j = 0; j < 32; ++j) sum += __uint_as_float(r[j]);
      out[t * 128 + row] = sum;
    }
    bar_sync(1, 32 + kEpilogue);
  }
}
