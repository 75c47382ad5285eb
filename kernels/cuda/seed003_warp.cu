// Seed 003 with per-warp mbarriers (kernels/seed003_tma_warp.bk at WARPS=4,
// ISSUERS=1, POINT=512): lane 0 of each warp initialises its warp's barrier
// for 32 threads and fences the init, __syncwarp publishes it to the other
// lanes, lane 0 expects the point's 512 bytes and loads them with one bulk
// copy, the 32 threads arrive and wait on their own warp's barrier, and each
// sums its floats of the point. No planted bug.
// twin: kernels/cuda/seed003_warp.bk
// check-kernel: --entry seed003_warp --block 128
// expect: verified
#include <cstddef>
#include <cstdint>

#include "spec/primitives.hpp"

using namespace pc::prim;

namespace {
constexpr int kWarps = 4;
constexpr int kThreads = 32 * kWarps;
constexpr int kPointBytes = 512;
constexpr int kPointFloats = kPointBytes / 4;
}  // namespace

extern "C" __global__ void __launch_bounds__(kThreads) seed003_warp(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ alignas(128) float chunk[kWarps][kPointFloats];
  __shared__ mbarrier_t bar[kWarps];

  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const std::size_t point = static_cast<std::size_t>(blockIdx.x) * kWarps + warp;

  if (lane == 0) {
    mbarrier_init(&bar[warp], 32);
    fence_mbarrier_init();
  }
  __syncwarp();
  if (lane == 0) {
    mbarrier_expect_tx(&bar[warp], kPointBytes);
    tma_load_1d(chunk[warp], in + point * kPointFloats, kPointBytes, &bar[warp]);
  }
  mbarrier_arrive(&bar[warp], 1);
  while (!mbarrier_try_wait_parity(&bar[warp], 0)) {
  }
  float acc = 0.0f;
#pragma unroll
  for (int i = 0; i < kPointFloats / 32; ++i) acc += chunk[warp][lane + 32 * i];
  out[point * 32 + lane] = acc;
}
