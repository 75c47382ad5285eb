// cluster_multicast.cu with a planted bug: lane 0 of warp 1 expects only
// its own CTA's 128 bytes, not both CTAs' 256. The phase may complete when
// the own words have landed, and warp 1 then reads the peer's inbox half
// while the peer's st.async into it is still in flight.
// twin: kernels/cuda/cluster_multicast_bug_expect_tx_local.bk
// check-kernel: --entry cluster_multicast_bug_expect_tx_local --block 64
// expect: data_race
#include <cstdint>

#include "spec/primitives.hpp"

using namespace pc::prim;

namespace {
constexpr int kCluster = 2;
constexpr int kThreads = 64;
constexpr int kWords = 32;  // one per lane of warp 0
}  // namespace

extern "C" __global__ void __cluster_dims__(kCluster, 1, 1) __launch_bounds__(kThreads)
    cluster_multicast_bug_expect_tx_local(const std::uint32_t* __restrict__ in, std::uint32_t* __restrict__ out) {
  __shared__ alignas(16) std::uint32_t inbox[kCluster][kWords];
  __shared__ mbarrier_t full;

  const unsigned warp = threadIdx.x / 32;
  const unsigned lane = threadIdx.x % 32;
  const unsigned rank = blockIdx.x % kCluster;  // %cluster_ctarank for a 1-D cluster of 2

  if (threadIdx.x == 0) {
    mbarrier_init(&full, 1);
    fence_mbarrier_init();
  }
  cluster_arrive();  // .release: the init, before any remote operation
  cluster_wait();    // .acquire: the peer has started and initialised

  if (warp == 0) {
    const std::uint32_t v = in[blockIdx.x * kWords + lane];
#pragma unroll
    for (unsigned c = 0; c < kCluster; ++c) st_async_b32(mapa_shared(&inbox[rank][lane], c), v, mapa_shared(&full, c));
  } else {
    if (lane == 0) mbarrier_arrive_expect_tx(&full, kWords * 4);  // BUG: the peer's 128 bytes too
    while (!mbarrier_try_wait_parity(&full, 0, cluster_scope)) {
    }
    std::uint32_t sum = 0;
#pragma unroll
    for (int src = 0; src < kCluster; ++src) sum += inbox[src][lane];
    out[blockIdx.x * kWords + lane] = sum;
  }
}
