// clc_tiles.cu with a planted bug: each thread releases the response slot
// before it reads the response, so once both warps have released it the
// next request's response may land while a warp still reads this one.
// Work stealing with cluster launch control (sm_100a), as CCCL's
// for_each_canceled_block and CUTLASS sm100's CLC scheduler do it: one CTA
// of two warps works on its tile, then asks for another. Lane 0 of warp 0
// waits until both warps have released the response slot (empty, 64
// arrivals), arms full with 16 bytes and sends clusterlaunchcontrol
// .try_cancel, whose 16-byte response lands in `response` and completes on
// full. Both warps wait on full, read the response (ld.shared.b128 and
// query_cancel), order that generic read before the next request's
// async-proxy write (fence.proxy.async), release the slot, and go on with
// the canceled cluster's tile or stop.
// twin: kernels/cuda/clc_tiles_bug_release_before_query.bk
// arch: sm_100a
// check-kernel: --entry clc_tiles_bug_release_before_query --block 64 --clc 2
// expect: data_race
#include <cstdint>

#include "spec/primitives.hpp"

using namespace pc::prim;

extern "C" __global__ void __launch_bounds__(64) clc_tiles_bug_release_before_query(float* __restrict__ out) {
  __shared__ alignas(16) std::uint8_t response[16];
  __shared__ mbarrier_t full;
  __shared__ mbarrier_t empty;
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    mbarrier_init(&full, 1);
    mbarrier_init(&empty, 64);
    fence_mbarrier_init();
  }
  __syncthreads();
  std::uint32_t tile = blockIdx.x;
  float acc = 0.0f;
#pragma unroll 1
  for (int i = 0;; ++i) {
    acc += static_cast<float>(tile) * static_cast<float>(threadIdx.x + 1);  // the tile's work
    if (warp == 0 && lane == 0) {
      while (!mbarrier_try_wait_parity(&empty, (i + 1) % 2)) {
      }
      mbarrier_arrive_expect_tx(&full, 16);
      clc_try_cancel(response, &full);
    }
    while (!mbarrier_try_wait_parity(&full, i % 2)) {
    }
    mbarrier_arrive(&empty, 1);  // BUG: the slot is released before the response is read
    std::uint32_t next = 0;
    const bool canceled = clc_query(response, next);
    fence_proxy_async();
    if (!canceled) break;
    tile = next;
  }
  out[blockIdx.x * 64 + threadIdx.x] = acc;
}
