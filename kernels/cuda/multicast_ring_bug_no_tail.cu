// Planted bug: no producer_tail (CUTLASS's load_tail): a CTA may exit while
// the peer's consumer still has a release to send it, a remote arrive on an
// exited CTA. Otherwise multicast_ring.cu.
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
// twin: kernels/cuda/multicast_ring_bug_no_tail.bk
// check-kernel: --entry multicast_ring_bug_no_tail --block 64
// expect: exit_with_pending
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
    multicast_ring_bug_no_tail(const std::uint32_t* __restrict__ in, std::uint32_t* __restrict__ out) {
  __shared__ alignas(128) std::uint32_t stage[kStages][kTileWords];
  __shared__ mbarrier_t full[kStages];
  __shared__ mbarrier_t empty[kStages];

  const unsigned warp = threadIdx.x / 32;
  const unsigned lane = threadIdx.x % 32;
  const unsigned rank = blockIdx.x % kCluster;  // %cluster_ctarank for a 1-D cluster of 2
  const unsigned peer = rank ^ 1;

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
        mbarrier_arrive_cluster(mapa_shared(&empty[s], peer));  // the peer's: it overwrites this stage too
      }
    }
    out[blockIdx.x * 32 + lane] = acc;
  }
}
