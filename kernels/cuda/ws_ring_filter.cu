// ws_ring.cu with an epilogue that branches on values loaded from
// memory: each consumer thread stores its sum where it exceeds in[0],
// else its negation and a flag 64 floats on where it is below in[1]
// (each thread its own two slots). No planted bug.
// twin: kernels/cuda/ws_ring_filter.bk
// check-kernel: --entry ws_ring_filter --block 96
// expect: verified
// loaded branches: 2
#include <cstddef>
#include <cstdint>

#include "spec/primitives.hpp"

using namespace pc::prim;

namespace {
constexpr int kStages = 2;
constexpr int kKTiles = 4;
constexpr int kTileBytes = 4096;
constexpr int kTileFloats = kTileBytes / 4;
// Warps of each of the two consumer groups. 4 makes them warp groups (a
// block of 288): the PTX front end runs every warp as an agent of its own,
// and 8 consumer warps take 972 states (docs/benchmarks.md, 2026-12-06); 1
// keeps the tests small.
constexpr int kGroupWarps = 1;
constexpr int kConsumers = 2 * 32 * kGroupWarps;
constexpr int kThreads = 32 + kConsumers;
}  // namespace

extern "C" __global__ void __launch_bounds__(kThreads) ws_ring_filter(const float* __restrict__ in, float* __restrict__ out) {
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
    // Consumers: warps 1 .. 2 * kGroupWarps, every thread.
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
    // The epilogue keeps a sum that passes a threshold read from memory,
    // and flags one below another: branches on loaded values, which
    // the front end reads both ways (docs/ptx.md).
    const int o = blockIdx.x * 2 * kConsumers + ct;
    if (acc > in[0]) {
      out[o] = acc;
    } else if (acc < in[1]) {
      out[o] = -acc;
      out[o + kConsumers] = 1.0f;  // its flag
    }
  }
}
