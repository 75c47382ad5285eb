// An epilogue that stores each of 3 output tiles with one TMA store from a
// shared staging tile, in a block of 64 threads (two warps): every thread
// calls cp.async.bulk.wait_group.read 0 before it writes its float of the
// next tile into the staging tile (as CUDA code that waits in every thread
// does; only thread 0 has bulk groups), __syncthreads orders thread 0's wait
// before the other threads' writes and, after them, the writes before thread
// 0's fence.proxy.async and TMA store of the tile, then thread 0 commits the
// store's group. Thread 0 waits for the last store before the block ends.
// The pattern of the epilogue of fast.cu's Hopper GEMM kernel 12
// (github.com/pranjalssh/fast.cu, examples/matmul/matmul_12.cuh), which
// waits in every thread and writes the tile with no barrier between.
// twin: kernels/cuda/epilogue_store.bk
// check-kernel: --entry epilogue_store --block 64
// expect: verified
#include <cstdint>

#include "spec/primitives.hpp"

using namespace pc::prim;

namespace {
constexpr int kThreads = 64;
constexpr int kTiles = 3;
}  // namespace

extern "C" __global__ void __launch_bounds__(kThreads) epilogue_store(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ alignas(128) float tile[kThreads];
  const unsigned t = threadIdx.x;
  for (int k = 0; k < kTiles; ++k) {
    bulk_wait_group_read0();  // every thread: only thread 0 has a store in flight
    __syncthreads();          // thread 0's wait before the others' writes
    tile[t] = in[k * kThreads + t] * 2.0f;
    __syncthreads();          // every write before the store
    if (t == 0) {
      fence_proxy_async();
      tma_store_1d(out + k * kThreads, tile, sizeof(tile));
      bulk_commit_group();
    }
  }
  if (t == 0) bulk_wait_group0();
}
