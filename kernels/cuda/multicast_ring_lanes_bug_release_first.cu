// Planted bug: the per-lane release comes before the __syncwarp, so lanes
// 0 and 1 release the stage while the warp's other lanes may still read it:
// a producer's next multicast races with those reads. Otherwise
// multicast_ring_lanes.cu.
// A 1x2 cluster multicast ring whose release is per lane, CUTLASS's
// PipelineTmaAsync consumer_release with a multicast cluster: lane i of the
// consumer warp arrives on CTA i's empty[s] (its is_signaling_thread, each
// lane's own destination CTA), one mbarrier.arrive instruction whose lanes
// name different mbarriers, in no order the ISA gives. Otherwise
// multicast_ring.cu: 2 CTAs of 2 warps, 2 stages, 4 k-tiles of 1 KiB; the
// producer's lane 0 waits its empty[s], arms its full[s] and multicasts its
// half of the tile into both CTAs; the consumer waits full[s]
// (.acquire.cluster), sums the stage and, after __syncwarp, releases it.
// twin: kernels/cuda/multicast_ring_lanes_bug_release_first.bk
// check-kernel: --entry multicast_ring_lanes_bug_release_first --block 64
// expect: data_race
#include <cstdint>

#include "spec/primitives.hpp"

using namespace pc::prim;

namespace {
constexpr int kCluster = 2;
constexpr int kStages = 2;
constexpr int kKTiles = 4;
constexpr int kTileBytes = 1024;
constexpr int kHalf = kTileBytes / kCluster;
constexpr int kTileWords = kTileBytes / 4;
}  // namespace

extern "C" __global__ void __cluster_dims__(kCluster, 1, 1) __launch_bounds__(64)
    multicast_ring_lanes_bug_release_first(const std::uint32_t* __restrict__ in, std::uint32_t* __restrict__ out) {
  __shared__ alignas(128) std::uint32_t stage[kStages][kTileWords];
  __shared__ mbarrier_t full[kStages];
  __shared__ mbarrier_t empty[kStages];

  const unsigned warp = threadIdx.x / 32;
  const unsigned lane = threadIdx.x % 32;
  const unsigned rank = blockIdx.x % kCluster;  // %cluster_ctarank for a 1-D cluster of 2

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbarrier_init(&full[s], 1);
      mbarrier_init(&empty[s], kCluster);
    }
    fence_mbarrier_init();
  }
  cluster_arrive();  // .release: the inits, before any remote operation
  cluster_wait();    // .acquire: the peer has started and initialised

  if (warp == 0) {
    if (lane == 0) {
      const std::uint32_t* src = in + static_cast<std::size_t>(blockIdx.x / kCluster) * kKTiles * kTileWords;
#pragma unroll 1
      for (int k = 0; k < kKTiles; ++k) {
        const int s = k % kStages;
        while (!mbarrier_try_wait_parity(&empty[s], (k / kStages + 1) % 2, cluster_scope)) {
        }
        mbarrier_arrive_expect_tx(&full[s], kTileBytes);
        tma_load_1d_multicast(reinterpret_cast<char*>(stage[s]) + rank * kHalf,
                              reinterpret_cast<const char*>(src + k * kTileWords) + rank * kHalf, kHalf, &full[s], 0x3);
      }
      // producer_tail: every stage's last releases, both CTAs', have landed.
#pragma unroll 1
      for (int k = kKTiles; k < kKTiles + kStages; ++k) {
        while (!mbarrier_try_wait_parity(&empty[k % kStages], (k / kStages + 1) % 2, cluster_scope)) {
        }
      }
    }
  } else {
    std::uint32_t acc = 0;
#pragma unroll 1
    for (int k = 0; k < kKTiles; ++k) {
      const int s = k % kStages;
      while (!mbarrier_try_wait_parity(&full[s], (k / kStages) % 2, cluster_scope)) {
      }
#pragma unroll
      for (int i = 0; i < kTileWords / 32; ++i) acc += stage[s][lane + 32 * i];
      // Lane i releases the stage to CTA i's producer, before the warp's
      // other lanes are known to have read it (the bug: no __syncwarp first).
      if (lane < kCluster) mbarrier_arrive_cluster(mapa_shared(&empty[s], lane));
    }
    out[blockIdx.x * 32 + lane] = acc;
  }
}
