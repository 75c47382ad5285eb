// cp_async_pipeline.cu with a planted bug: the __syncthreads after the reads
// is missing, so a fast warp's cp.async refill of a stage at trip k + 1
// may overwrite floats that a slower warp still reads at trip k.
// twin: kernels/cuda/cp_async_pipeline_bug_no_second_sync.bk
// check-kernel: --entry cp_async_pipeline_bug_no_second_sync --block 128
// expect: data_race
#include <cstddef>
#include <cstdint>

#include "spec/primitives.hpp"

using namespace pc::prim;

namespace {
constexpr int kThreads = 128;
constexpr int kStages = 2;
constexpr int kKTiles = 4;
constexpr int kWarpFloats = 2;                    // floats of a k-tile each warp copies
constexpr int kTileFloats = kThreads / 32 * kWarpFloats;  // 8 floats: 32 bytes
}  // namespace

extern "C" __global__ void __launch_bounds__(kThreads) cp_async_pipeline_bug_no_second_sync(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ alignas(16) float buf[kStages][kTileFloats];

  const unsigned t = threadIdx.x;
  const unsigned warp = t / 32, lane = t % 32;
  const float* src = in + static_cast<std::size_t>(blockIdx.x) * kKTiles * kTileFloats;
  // Lane 0 of each warp copies its warp's kWarpFloats floats of k-tile `tile` into
  // `stage`: cp.async-groups are per thread, and this one thread commits and
  // waits them; __syncthreads then orders the warp's other lanes after them.
  auto copy = [&](int stage, int tile) {
    if (lane == 0)
#pragma unroll
      for (int i = 0; i < kWarpFloats; ++i)
        cp_async_4(&buf[stage][kWarpFloats * warp + i], src + tile * kTileFloats + kWarpFloats * warp + i);
  };

  copy(0, 0);  // k-tile 0
  if (lane == 0) cp_async_commit_group();
  float acc = 0.0f;
#pragma unroll 1
  for (int k = 0; k < kKTiles; ++k) {
    if (k + 1 < kKTiles) copy((k + 1) % kStages, k + 1);
    if (lane == 0) cp_async_commit_group();
    if (lane == 0) cp_async_wait_group<1>();  // every group but the newest: k-tile k
    __syncthreads();           // every thread's copy of k-tile k
#pragma unroll
    for (int i = 0; i < kThreads / 32; ++i) acc += buf[k % kStages][lane % kWarpFloats + kWarpFloats * i];  // one of each warp's
    // BUG: no __syncthreads() here: the next trip's refill of this stage races the reads
  }
  out[blockIdx.x * kThreads + t] = acc;
}
