// Seed 003's spread variant with per-warp mbarriers, at two warps: lane 0 of
// each warp initialises its warp's barrier for 32 threads and fences the
// init, __syncwarp publishes it, then the lanes lane % 8 == 0 each expect a
// quarter of the point's 512 bytes and load that quarter with a bulk copy of
// their own (four copies per warp, each lane its own), the 32 threads arrive
// and wait on their own warp's barrier, and each sums its floats of the
// point. The expect-tx and copies by four lanes are `lanes 0x1010101:` in
// the model (docs/spec.md, "Lane classes"). Planted bug: lane 0 alone sets
// the expected transaction count, a quarter of the point, while four lanes
// load a quarter each: the phase can complete when the first quarter lands.
// twin: kernels/cuda/seed003_spread_bug_one_expect.bk
// check-kernel: --entry seed003_spread_bug_one_expect --block 64
// expect: data_race
#include <cstddef>
#include <cstdint>

#include "spec/primitives.hpp"

using namespace pc::prim;

namespace {
constexpr int kWarps = 2;
constexpr int kThreads = 32 * kWarps;
constexpr int kPointBytes = 512;
constexpr int kPointFloats = kPointBytes / 4;
constexpr int kIssuers = 4;
constexpr int kChunkBytes = kPointBytes / kIssuers;
}  // namespace

extern "C" __global__ void __launch_bounds__(kThreads) seed003_spread_bug_one_expect(const float* __restrict__ in, float* __restrict__ out) {
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
  if (lane == 0) mbarrier_expect_tx(&bar[warp], kChunkBytes);  // planted: lane 0 alone expects
  if (lane % 8 == 0) {
    const int k = lane / 8;
    tma_load_1d(reinterpret_cast<unsigned char*>(chunk[warp]) + k * kChunkBytes,
                reinterpret_cast<const unsigned char*>(in + point * kPointFloats) + k * kChunkBytes, kChunkBytes, &bar[warp]);
  }
  mbarrier_arrive(&bar[warp], 1);
  while (!mbarrier_try_wait_parity(&bar[warp], 0)) {
  }
  float acc = 0.0f;
#pragma unroll
  for (int i = 0; i < kPointFloats / 32; ++i) acc += chunk[warp][lane + 32 * i];
  out[point * 32 + lane] = acc;
}
