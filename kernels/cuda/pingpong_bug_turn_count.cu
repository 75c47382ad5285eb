// pingpong.cu with a planted bug: the turn barriers 1 and 2 are given 32
// threads (one consumer) instead of 64. Each bar_sync then completes with its
// own consumer's threads alone, and each bar_arrive completes a barrier
// instance of its own, so nothing orders one consumer's acc[t] += partial
// after the other's: a race on acc.
// twin: kernels/cuda/pingpong_bug_turn_count.bk
// check-kernel: --entry pingpong_bug_turn_count --block 96
// expect: data_race
#include <cstddef>
#include <cstdint>

#include "spec/primitives.hpp"

using namespace pc::prim;

namespace {
constexpr int kStages = 2;
constexpr int kKTiles = 4;
constexpr int kTileBytes = 4096;
constexpr int kTileFloats = kTileBytes / 4;
// Warps of each consumer group. 4 would make them the warp groups of a
// CUTLASS ping-pong (a block of 288); the PTX front end runs every warp as
// an agent of its own, and 8 consumer warps are far past an exhaustive
// search.
constexpr int kGroupWarps = 1;
constexpr int kGroup = 32 * kGroupWarps;  // threads of one consumer group
constexpr int kThreads = 32 + 2 * kGroup;
constexpr int kTurns = kKTiles / 2;  // k-tiles of each consumer group
}  // namespace

extern "C" __global__ void __launch_bounds__(kThreads) pingpong_bug_turn_count(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ alignas(128) float stage[kStages][kTileFloats];
  __shared__ float acc[kGroup];
  __shared__ mbarrier_t full[kStages];
  __shared__ mbarrier_t empty[kStages];

  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int wg = (warp - 1) / kGroupWarps;  // consumer group (warps 1 .. 2 * kGroupWarps)
  const int t = (threadIdx.x - 32) % kGroup;

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbarrier_init(&full[s], 1);
      mbarrier_init(&empty[s], kGroup);
    }
    fence_mbarrier_init();
  }
  if (warp >= 1 && wg == 0) acc[t] = 0.0f;
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
    // Consumer group wg: k-tiles wg, wg + 2, ...; its turn on barrier 1 + wg.
    if (wg == 1) bar_arrive(1, kGroup);  // group 0 takes the first turn (BUG: both groups take part)
#pragma unroll 1
    for (int j = 0; j < kTurns; ++j) {
      const int k = 2 * j + wg;
      const int s = k % kStages;
      while (!mbarrier_try_wait_parity(&full[s], (k / kStages) % 2)) {
      }
      float partial = 0.0f;
#pragma unroll
      for (int i = 0; i < kTileFloats / kGroup; ++i) partial += stage[s][t + i * kGroup];
      mbarrier_arrive(&empty[s], 1);

      bar_sync(1 + wg, kGroup);  // my turn (BUG: both groups take part)
      acc[t] += partial;
      if (wg == 0 || j + 1 < kTurns) bar_arrive(2 - wg, kGroup);  // the other group's turn (BUG: as above)
    }
    if (wg == 1) out[blockIdx.x * kGroup + t] = acc[t];
  }
}
