// long_ring.cu with a branch on a loaded value in every k-tile: warp 1
// keeps the largest word it has read, and stores each new largest one to
// out[64 + k]. nvcc emits about 25,500 lines of PTX with 400 such branches,
// each of which the PTX front end reads both ways (run.sh;
// docs/benchmarks.md, "The PTX front end"; docs/ptx.md).
#include "spec/primitives.hpp"

using namespace pc::prim;

namespace {
constexpr int kTiles = 400;
}

extern "C" __global__ void __launch_bounds__(64) long_ring_branchy(float* out) {
  __shared__ alignas(16) float tile[2][32];
  __shared__ mbarrier_t full[2], empty[2];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    for (int s = 0; s < 2; ++s) {
      mbarrier_init(&full[s], 32);
      mbarrier_init(&empty[s], 32);
    }
    fence_mbarrier_init();
  }
  __syncthreads();
  float acc = 0;
#pragma unroll
  for (int k = 0; k < kTiles; ++k) {
    const int s = k % 2;
    if (warp == 0) {
      while (!mbarrier_try_wait_parity(&empty[s], ((k / 2) & 1) ^ 1)) {
      }
      tile[s][lane] = static_cast<float>(k);
      mbarrier_arrive(&full[s], 1);
    } else {
      while (!mbarrier_try_wait_parity(&full[s], (k / 2) & 1)) {
      }
      const float v = tile[s][lane];
      if (v > acc) {
        acc = v;
        out[64 + k] = v;
      }
      mbarrier_arrive(&empty[s], 1);
    }
  }
  out[threadIdx.x] = acc;
}
