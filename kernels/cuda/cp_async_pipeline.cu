// A 2-stage cp.async pipeline over 4 k-tiles of 8 floats, 128 threads:
// lane 0 of each warp copies its warp's 2 floats of the next tile (cp.async,
// 4 bytes each) and commits a group (empty at the last trip),
// cp.async.wait_group 1 waits for its copies of the current tile, __syncthreads makes every thread's copy
// visible, each thread sums one float copied by each warp, and a second
// __syncthreads keeps the next trip's refill of that stage behind the reads.
// twin: kernels/cuda/cp_async_pipeline.bk
// check-kernel: --entry cp_async_pipeline --block 128
// expect: verified
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

extern "C" __global__ void __launch_bounds__(kThreads) cp_async_pipeline(const float* __restrict__ in, float* __restrict__ out) {
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
    __syncthreads();  // the reads before the refill of this stage at trip k + 1
  }
  out[blockIdx.x * kThreads + t] = acc;
}
