// A Hopper GEMM tile with wgmma (sm_90a), one CTA of five warps, the
// CUTLASS sm90 warp-specialized layout at its smallest: warp 4's lane 0
// loads K_TILES k-tiles of A and B (64 x 64 BF16 each, rows of 128 bytes,
// 128-byte swizzled: 8 KB) through a 2-stage TMA ring; warps 0-3, a warp
// group, wait for each stage, issue four wgmma m64n64k16 over it (the
// descriptors' start 32 bytes further per K slice), commit them as one
// group, wait until at most one group is pending (wgmma.wait_group 1: the
// previous stage's MMAs are done) and release the previous stage, every
// thread arriving on empty[s]; after the last they wait for all, release
// the last stage and store their accumulators' sums. Planted bug:
// the consumers wait for a stage's TMA loads (full[s]) in the ring's first
// round only, so the wgmmas of k-tile 2 may read stage 0 while the TMA
// still writes it.
// twin: kernels/cuda/wg_gemm_bug_mma_before_full.bk
// check-kernel: --entry wg_gemm_bug_mma_before_full --block 160
// expect: data_race
// apart: reduced
#include <cstddef>
#include <cstdint>

#include "spec/primitives.hpp"

using namespace pc::prim;

namespace {
constexpr int kStages = 2;
constexpr int kKTiles = 4;
constexpr int kTileBytes = 8192;  // 64 x 64 BF16 elements of A, and of B
constexpr int kConsumers = 128;   // warps 0-3
constexpr int kThreads = 160;
// K-major, 128-byte swizzle: rows of 128 bytes, 8-row groups 1024 bytes apart.
constexpr std::uint32_t kSbo = 1024;
}  // namespace

extern "C" __global__ void __launch_bounds__(kThreads) wg_gemm_bug_mma_before_full(const std::uint8_t* __restrict__ a, const std::uint8_t* __restrict__ b,
                                                               float* __restrict__ out) {
  __shared__ alignas(1024) std::uint8_t sa[kStages][kTileBytes];
  __shared__ alignas(1024) std::uint8_t sb[kStages][kTileBytes];
  __shared__ mbarrier_t full[kStages];
  __shared__ mbarrier_t empty[kStages];

  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbarrier_init(&full[s], 1);
      mbarrier_init(&empty[s], kConsumers);
    }
    fence_mbarrier_init();
  }
  __syncthreads();

  if (warp == 4) {
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
  } else {
    float acc[32] = {};
    for (int k = 0; k < kKTiles; ++k) {
      const int s = k % kStages;
      if (k < kStages)  // planted: the later rounds do not wait
        while (!mbarrier_try_wait_parity(&full[s], (k / kStages) & 1)) {
        }
      wgmma_fence();
#pragma unroll
      for (int ks = 0; ks < 4; ++ks)
        wgmma_m64n64k16_bf16(acc, wgmma_descriptor(sa[s] + 32 * ks, 16, kSbo, Swizzle::b128),
                             wgmma_descriptor(sb[s] + 32 * ks, 16, kSbo, Swizzle::b128), k > 0 || ks > 0);
      wgmma_commit_group();
      wgmma_wait_group<1>();  // the previous stage's group is done
      if (k > 0) mbarrier_arrive(&empty[(k - 1) % kStages], 1);
    }
    wgmma_wait_group<0>();
    mbarrier_arrive(&empty[(kKTiles - 1) % kStages], 1);
    float sum = 0.f;  // each thread stores the sum of its accumulators
    for (int j = 0; j < 32; ++j) sum += acc[j];
    out[threadIdx.x] = sum;
  }
}
