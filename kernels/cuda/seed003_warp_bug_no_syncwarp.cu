// seed003_warp.cu with a planted bug: no __syncwarp between lane 0's
// mbarrier.init (and its fence) and the other lanes' first use of the
// barrier, so the 31 other lanes' arrives are not ordered after the init
// (kernels/bugs/seed003_warp_init_no_syncwarp.bk is the same bug).
// twin: kernels/cuda/seed003_warp_bug_no_syncwarp.bk
// check-kernel: --entry seed003_warp_bug_no_syncwarp --block 128
// expect: unsynchronized_init
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

extern "C" __global__ void __launch_bounds__(kThreads) seed003_warp_bug_no_syncwarp(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ alignas(128) float chunk[kWarps][kPointFloats];
  __shared__ mbarrier_t bar[kWarps];

  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const std::size_t point = static_cast<std::size_t>(blockIdx.x) * kWarps + warp;

  if (lane == 0) {
    mbarrier_init(&bar[warp], 32);
    fence_mbarrier_init();
  }
  // BUG: no __syncwarp() here: the other lanes may arrive before the init
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
