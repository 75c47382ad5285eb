// Planted bug: each consumer releases only its own CTA's producer (empty[s]
// of count 1, no arrive on the peer's), though the peer's multicast also
// overwrites this CTA's stage: the peer's next copy races with this CTA's
// reads. Otherwise multicast_ring.cu.
// A 1x2 cluster multicast ring with remote releases, CUTLASS's
// PipelineTmaAsync shape: 2 CTAs of 2 warps, 2 stages, 4 k-tiles of 1 KiB.
// Thread 0 of each CTA initialises full[s] (count 1) and empty[s] (count 2:
// one release from each CTA's consumer), fences the init, and a cluster
// barrier shows each CTA its peer started. Lane 0 of warp 0 (the producer)
// waits its empty[s], arms its full[s] for the whole tile and loads its half
// of the tile into stage[s] of both CTAs with one multicast bulk copy, which
// completes 512 bytes on full[s] in each. Warp 1 (the consumer) waits full[s]
// (.acquire.cluster: half the bytes came from the peer's copy), sums the
// stage, and lane 0, after __syncwarp, releases the stage to both producers:
// an arrive on its own empty[s] and one on the peer's (.release.cluster).
// The producer waits for the last releases (producer_tail) before its CTA
// exits, so no remote arrive targets an exited CTA.
// twin: kernels/cuda/multicast_ring_bug_local_release.bk
// check-kernel: --entry multicast_ring_bug_local_release --block 64
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
    multicast_ring_bug_local_release(const std::uint32_t* __restrict__ in, std::uint32_t* __restrict__ out) {
  __shared__ alignas(128) std::uint32_t stage[kStages][kTileWords];
  __shared__ mbarrier_t full[kStages];
  __shared__ mbarrier_t empty[kStages];

  const unsigned warp = threadIdx.x / 32;
  const unsigned lane = threadIdx.x % 32;
  const unsigned rank = blockIdx.x % kCluster;  // %cluster_ctarank for a 1-D cluster of 2

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbarrier_init(&full[s], 1);
      mbarrier_init(&empty[s], 1);  // the bug: this CTA's consumer only
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
      __syncwarp();
      if (lane == 0) {
        mbarrier_arrive(&empty[s], 1);                        // this CTA's producer
      }
    }
    out[blockIdx.x * 32 + lane] = acc;
  }
}
