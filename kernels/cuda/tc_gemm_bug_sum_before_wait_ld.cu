// A Blackwell GEMM tile with tcgen05 (sm_100a), one CTA of six warps, the
// CUTLASS sm100 warp-specialized layout at its smallest: warp 0's lane 0
// loads K_TILES k-tiles of A and B through a 2-stage TMA ring; warp 1
// allocates the 64 columns its accumulator takes (N = 64; their address into tmem_slot), and
// its lane 0 issues one tcgen05.mma per k-tile into them, committing each
// stage back to the producer (empty[s]) and, after the last, the
// accumulator to the epilogue (acc_full); warps 2-5, a warp group, wait for
// acc_full and each loads its lane quarter (warp % 4) of the accumulator,
// 32 columns at a time, waits for the loads (tcgen05.wait::ld) and stores
// each row's sum to global memory. Named barrier 1 (the epilogue and warp 1) orders
// the loads before warp 1 frees the columns. Planted bug: the epilogue sums
// the registers of each tcgen05.ld before tcgen05.wait::ld, which the load
// may still be writing.
// twin: kernels/cuda/tc_gemm_bug_sum_before_wait_ld.bk
// arch: sm_100a
// check-kernel: --entry tc_gemm_bug_sum_before_wait_ld --block 192
// expect: async_group_misuse
#include <cstddef>
#include <cstdint>

#include "spec/primitives.hpp"

using namespace pc::prim;

namespace {
constexpr int kStages = 2;
constexpr int kKTiles = 4;
constexpr int kTileBytes = 4096;  // 128 x 16 BF16 elements of A, and of B
constexpr std::uint32_t kCols = 64;  // N of the tile: the accumulator's columns
constexpr int kThreads = 192;
constexpr int kEpilogue = 128;  // warps 2-5
}  // namespace

extern "C" __global__ void __launch_bounds__(kThreads) tc_gemm_bug_sum_before_wait_ld(const std::uint8_t* __restrict__ a, const std::uint8_t* __restrict__ b,
                                                               float* __restrict__ out) {
  __shared__ alignas(1024) std::uint8_t sa[kStages][kTileBytes];
  __shared__ alignas(1024) std::uint8_t sb[kStages][kTileBytes];
  __shared__ mbarrier_t full[kStages];
  __shared__ mbarrier_t empty[kStages];
  __shared__ mbarrier_t acc_full;
  __shared__ std::uint32_t tmem_slot;

  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (warp == 0 && lane == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbarrier_init(&full[s], 1);
      mbarrier_init(&empty[s], 1);
    }
    mbarrier_init(&acc_full, 1);
    fence_mbarrier_init();
  }
  if (warp == 1) {
    tcgen05_alloc(&tmem_slot, kCols);
    tcgen05_relinquish_alloc_permit();
  }
  tcgen05_fence_before_thread_sync();
  __syncthreads();
  tcgen05_fence_after_thread_sync();
  const std::uint32_t tmem = tmem_slot;

  if (warp == 0) {
    if (lane == 0)
      for (int k = 0; k < kKTiles; ++k) {
        const int s = k % kStages;
        if (k >= kStages)
          while (!mbarrier_try_wait_parity(&empty[s], ((k / kStages) - 1) & 1)) {
          }
        mbarrier_arrive_expect_tx(&full[s], 2 * kTileBytes);
        tma_load_1d(sa[s], a + static_cast<std::size_t>(k) * kTileBytes, kTileBytes, &full[s]);
        tma_load_1d(sb[s], b + static_cast<std::size_t>(k) * kTileBytes, kTileBytes, &full[s]);
      }
  } else if (warp == 1) {
    if (lane == 0) {
      constexpr std::uint32_t idesc = idesc_bf16_f32(128, kCols);
      for (int k = 0; k < kKTiles; ++k) {
        const int s = k % kStages;
        while (!mbarrier_try_wait_parity(&full[s], (k / kStages) & 1)) {
        }
        tcgen05_fence_after_thread_sync();
        tcgen05_mma_f16(tmem, smem_descriptor(sa[s], 128, 256), smem_descriptor(sb[s], 128, 256), idesc, k > 0);
        tcgen05_commit(&empty[s]);
      }
      tcgen05_commit(&acc_full);
    }
    __syncwarp();
    bar_sync(1, 32 + kEpilogue);  // the epilogue's loads are done
    tcgen05_fence_after_thread_sync();
    tcgen05_dealloc(tmem, kCols);
  } else {
    while (!mbarrier_try_wait_parity(&acc_full, 0)) {
    }
    tcgen05_fence_after_thread_sync();
    const int quarter = warp % 4;  // the lanes this warp reaches (PTX ISA tcgen05 "Access restrictions")
    const int row = quarter * 32 + lane;
    float sum = 0.f;  // the row's sum: each lane stores one float
    for (int c = 0; c < static_cast<int>(kCols); c += 32) {
      std::uint32_t r[32];
      tcgen05_ld_32x32b_x32(tmem + (static_cast<std::uint32_t>(quarter * 32) << 16) + static_cast<std::uint32_t>(c), r);
      for (int j = 0; j < 32; ++j) sum += __uint_as_float(r[j]);  // planted: before the wait
      tcgen05_wait_ld();
    }
    out[row] = sum;
    tcgen05_fence_before_thread_sync();
    bar_sync(1, 32 + kEpilogue);
  }
}
