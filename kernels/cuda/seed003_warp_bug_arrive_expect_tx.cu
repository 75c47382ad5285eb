// seed003_warp.cu with a planted bug: lane 0 arms the barrier with
// mbarrier.arrive.expect_tx (an arrive as well as the expect) instead of
// mbarrier.expect_tx, and then all 32 lanes arrive as before: 33 arrivals on
// a barrier initialised for 32, one more than the phase has pending.
// twin: kernels/cuda/seed003_warp_bug_arrive_expect_tx.bk
// check-kernel: --entry seed003_warp_bug_arrive_expect_tx --block 128
// expect: arrival_underflow
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

extern "C" __global__ void __launch_bounds__(kThreads) seed003_warp_bug_arrive_expect_tx(const float* __restrict__ in, float* __restrict__ out) {
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
    mbarrier_arrive_expect_tx(&bar[warp], kPointBytes);  // BUG: an arrive too; all 32 arrive below
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
