// ws_ring.cu at the size of a warp-specialised GEMM: two consumer warp
// groups (warps 1-4 and 5-8, 256 threads) behind one producer warp. Warp 0's
// lane 0 waits empty[s], arms full[s] with arrive.expect_tx and issues the
// bulk copy of k-tile k into stage s; every consumer thread waits full[s],
// sums its floats of the stage and arrives once on empty[s] (initialised
// with 256). No planted bug. Each of the nine warps is an agent of the PTX
// front end.
// twin: kernels/cuda/ws_ring_wg.bk
// check-kernel: --entry ws_ring_wg --block 288
// expect: verified
// apart: reduced
#include <cstddef>
#include <cstdint>

#include "spec/primitives.hpp"

using namespace pc::prim;

namespace {
constexpr int kStages = 2;
constexpr int kKTiles = 4;
constexpr int kTileBytes = 4096;
constexpr int kTileFloats = kTileBytes / 4;
// Warps of each of the two consumer groups: warp groups.
constexpr int kGroupWarps = 4;
constexpr int kConsumers = 2 * 32 * kGroupWarps;
constexpr int kThreads = 32 + kConsumers;
}  // namespace

extern "C" __global__ void __launch_bounds__(kThreads) ws_ring_wg(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ alignas(128) float stage[kStages][kTileFloats];
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

  if (warp == 0) {
    // Producer: one issuing lane.
    if (lane == 0) {
      const float* src = in + static_cast<std::size_t>(blockIdx.x) * kKTiles * kTileFloats;
#pragma unroll 1
      for (int k = 0; k < kKTiles; ++k) {
        const int s = k % kStages;
        while (!mbarrier_try_wait_parity(&empty[s], (k / kStages + 1) % 2)) {
        }
        mbarrier_arrive_expect_tx(&full[s], kTileBytes);
        tma_load_1d(stage[s], src + k * kTileFloats, kTileBytes, &full[s]);
      }
    }
  } else {
    // Consumers: warps 1 .. 8, every thread.
    const int ct = threadIdx.x - 32;
    float acc = 0.0f;
#pragma unroll 1
    for (int k = 0; k < kKTiles; ++k) {
      const int s = k % kStages;
      while (!mbarrier_try_wait_parity(&full[s], (k / kStages) % 2)) {
      }
#pragma unroll
      for (int i = 0; i < kTileFloats / kConsumers; ++i) acc += stage[s][ct + i * kConsumers];
      mbarrier_arrive(&empty[s], 1);  // after the sum has used the loads
    }
    out[blockIdx.x * kConsumers + ct] = acc;
  }
}
