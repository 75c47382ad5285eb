// cluster_multicast.cu with a planted bug: __syncthreads instead of the
// cluster barrier after the init. It orders the CTA's own threads, but
// nothing shows that the peer CTA has started (and initialised its barrier)
// before warp 0's st.async into the peer's shared memory.
// twin: kernels/cuda/cluster_multicast_bug_no_cluster_sync.bk
// check-kernel: --entry cluster_multicast_bug_no_cluster_sync --block 64
// expect: peer_not_started
#include <cstdint>

#include "spec/primitives.hpp"

using namespace pc::prim;

namespace {
constexpr int kCluster = 2;
constexpr int kThreads = 64;
constexpr int kWords = 32;  // one per lane of warp 0
}  // namespace

extern "C" __global__ void __cluster_dims__(kCluster, 1, 1) __launch_bounds__(kThreads)
    cluster_multicast_bug_no_cluster_sync(const std::uint32_t* __restrict__ in, std::uint32_t* __restrict__ out) {
  __shared__ alignas(16) std::uint32_t inbox[kCluster][kWords];
  __shared__ mbarrier_t full;

  const unsigned warp = threadIdx.x / 32;
  const unsigned lane = threadIdx.x % 32;
  const unsigned rank = blockIdx.x % kCluster;  // %cluster_ctarank for a 1-D cluster of 2

  if (threadIdx.x == 0) {
    mbarrier_init(&full, 1);
    fence_mbarrier_init();
  }
  __syncthreads();  // BUG: the CTA only; the peer may not have started

  if (warp == 0) {
    const std::uint32_t v = in[blockIdx.x * kWords + lane];
#pragma unroll
    for (unsigned c = 0; c < kCluster; ++c) st_async_b32(mapa_shared(&inbox[rank][lane], c), v, mapa_shared(&full, c));
  } else {
    if (lane == 0) mbarrier_arrive_expect_tx(&full, kCluster * kWords * 4);
    while (!mbarrier_try_wait_parity(&full, 0, cluster_scope)) {
    }
    std::uint32_t sum = 0;
#pragma unroll
    for (int src = 0; src < kCluster; ++src) sum += inbox[src][lane];
    out[blockIdx.x * kWords + lane] = sum;
  }
}
