// Conformance of an NVIDIA GPU (sm_90a) against the model: the device side of
// spec/primitives.hpp runs here, and its observations are compared with the
// host side (the model) and with what the checker allows (allowed.cpp).
//
//   conformance [--instances N] [--seed S] [--report FILE] [--open NAME] [--contested] [--op-stress]
//
// 1. sequences: random valid op sequences on one mbarrier (thousands of blocks,
//    one sequence each); every observation must equal the model's.
// 2. litmus: message passing and friends, many instances per launch, with
//    random delays and a stress warp; observed outcomes must be allowed.
// 3. liveness: a kernel the model says finishes must finish; one it says can
//    hang must be caught hung by a device-side watchdog, not waited on.
// 4. op litmus: two threads on one barrier; every observed outcome must be one
//    that some interleaving of the model's operations gives (op_litmus.hpp).
// 5. open points: what the hardware does where the ISA leaves it open.
// 6. contested points (--contested, or --open NAME for one of them): where the
//    PTX ISA's letter and field practice differ; outcomes counted against what
//    the letter allows (docs/conformance/h100-2026-11-23-contested.md).
// 7. op stress (--op-stress): the op litmus tests under several stress modes
//    (skew, long pauses, the threads' warps swapped), with the allowed
//    outcomes seen and unseen per test (docs/conformance/h100-2026-11-23-op-stress.md).
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "harnesses/conformance/allowed.hpp"
#include "harnesses/conformance/op_litmus.hpp"
#include "harnesses/conformance/ops.hpp"
#include "spec/primitives.hpp"

namespace cg = cooperative_groups;
namespace prim = pc::prim;
using pc::conformance::Litmus;
using namespace pc::conformance;  // op codes, apply_op, op litmus

#define CUDA_CHECK(x)                                                                                   \
  do {                                                                                                  \
    cudaError_t e_ = (x);                                                                               \
    if (e_ != cudaSuccess) {                                                                            \
      std::fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(e_), __FILE__, __LINE__, \
                   cudaGetErrorString(e_));                                                             \
      std::exit(3);                                                                                     \
    }                                                                                                   \
  } while (0)

// ---------------------------------------------------------------- device utilities

__device__ inline std::uint32_t xorshift(std::uint32_t& s) {
  s ^= s << 13;
  s ^= s >> 17;
  s ^= s << 5;
  return s;
}
// Thread randomisation: a random pause of up to 255 cycles.
__device__ inline void jitter(std::uint32_t& s) {
  const long long until = clock64() + (xorshift(s) & 255);
  while (clock64() < until) {
  }
}
// Waits for a phase with a watchdog: false if it did not complete within `budget` cycles.
__device__ inline bool wait_parity(prim::hw_mbarrier* bar, std::uint32_t parity, long long budget = 1ll << 26) {
  const long long deadline = clock64() + budget;
  while (!prim::mbarrier_try_wait_parity(bar, parity))
    if (clock64() > deadline) return false;
  return true;
}
__device__ inline bool sw_wait_parity(unsigned long long* w, std::uint32_t parity, long long budget = 1ll << 26) {
  const long long deadline = clock64() + budget;
  while (!prim::sw_mbarrier_test_wait_parity(w, parity))
    if (clock64() > deadline) return false;
  return true;
}

// Outcome counters per launch: [fresh, stale, hung].
struct Counts {
  unsigned long long fresh, stale, hung;
};

// A stress warp: hammers shared and global memory while the litmus runs.
__device__ inline void stress(volatile std::uint32_t* scratch, std::uint32_t* gscratch, std::uint32_t& seed, const volatile int* stop) {
  while (!*stop) {
    const std::uint32_t r = xorshift(seed);
    scratch[(threadIdx.x + r) & 63] = r;
    gscratch[(blockIdx.x * 64 + (r & 63))] = r;
  }
}

// ---------------------------------------------------------------- litmus kernels

// Message passing through an mbarrier (hardware, release or relaxed arrive), or
// through the software mbarrier. Warp 0 produces, warp 1 consumes, warp 2 stresses.
template <int Mode>  // 0 release, 1 relaxed, 2 software mbarrier
__global__ void mp_mbarrier(int iters, std::uint32_t seed0, Counts* out, std::uint32_t* gscratch) {
  __shared__ prim::hw_mbarrier full, empty;
  __shared__ unsigned long long swfull, swempty;
  __shared__ volatile std::uint32_t data;
  __shared__ volatile std::uint32_t scratch[64];
  __shared__ volatile int stop;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  std::uint32_t seed = seed0 ^ (blockIdx.x * 7919u + threadIdx.x * 104729u) | 1u;
  if (threadIdx.x == 0) {
    prim::mbarrier_init(&full, 1);
    prim::mbarrier_init(&empty, 1);
    prim::sw_mbarrier_init(&swfull, 1);
    prim::sw_mbarrier_init(&swempty, 1);
    data = 0;
    stop = 0;
    prim::fence_mbarrier_init();
  }
  __syncthreads();
  unsigned long long fresh = 0, stale = 0, hung = 0;
  if (warp == 0 && lane == 0) {
    for (int i = 0; i < iters; ++i) {
      const std::uint32_t p = (i & 1) ^ 1;  // the producer starts one phase ahead on empty
      const bool ok = Mode == 2 ? sw_wait_parity(&swempty, p) : wait_parity(&empty, p);
      if (!ok) break;
      jitter(seed);
      data = static_cast<std::uint32_t>(i + 1);
      if (Mode == 0) prim::mbarrier_arrive(&full, 1, prim::release);
      else if (Mode == 1) prim::mbarrier_arrive(&full, 1, prim::relaxed);
      else prim::sw_mbarrier_arrive(&swfull, 1);
    }
  } else if (warp == 1 && lane == 0) {
    for (int i = 0; i < iters; ++i) {
      const bool ok = Mode == 2 ? sw_wait_parity(&swfull, i & 1) : wait_parity(&full, i & 1);
      if (!ok) {
        ++hung;
        break;
      }
      const std::uint32_t v = data;
      if (v == static_cast<std::uint32_t>(i + 1)) ++fresh;
      else ++stale;
      jitter(seed);
      if (Mode == 2) prim::sw_mbarrier_arrive(&swempty, 1);
      else prim::mbarrier_arrive(&empty, 1);
    }
    stop = 1;
  } else if (warp == 2) {
    stress(scratch, gscratch, seed, &stop);
  }
  if (warp == 1 && lane == 0) {
    atomicAdd(&out->fresh, fresh);
    atomicAdd(&out->stale, stale);
    atomicAdd(&out->hung, hung);
  }
}

// Message passing through named barriers: warp 0 writes and bar.arrive(1);
// warp 1 bar.sync(1) and reads; barrier 2 hands the buffer back.
__global__ void mp_named(int iters, std::uint32_t seed0, Counts* out) {
  __shared__ volatile std::uint32_t data;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  std::uint32_t seed = seed0 ^ (blockIdx.x * 7919u + threadIdx.x * 104729u) | 1u;
  if (threadIdx.x == 0) data = 0;
  __syncthreads();
  unsigned long long fresh = 0, stale = 0;
  for (int i = 0; i < iters; ++i) {
    if (warp == 0) {
      if (i > 0) prim::bar_sync(2, 64);
      if (lane == 0) {
        jitter(seed);
        data = static_cast<std::uint32_t>(i + 1);
      }
      prim::bar_arrive(1, 64);
    } else {
      prim::bar_sync(1, 64);
      if (lane == 0) {
        if (data == static_cast<std::uint32_t>(i + 1)) ++fresh;
        else ++stale;
        jitter(seed);
      }
      if (i + 1 < iters) prim::bar_arrive(2, 64);
    }
  }
  if (warp == 1 && lane == 0) {
    atomicAdd(&out->fresh, fresh);
    atomicAdd(&out->stale, stale);
  }
}

// A bulk copy (TMA) from global memory completes its bytes on the barrier; the
// waiting thread then reads the copied data with ordinary loads.
__global__ void tma_load(int iters, const std::uint32_t* src, int chunks, Counts* out) {
  __shared__ alignas(16) std::uint32_t dst[4];
  __shared__ prim::hw_mbarrier full;
  if (threadIdx.x == 0) {
    prim::mbarrier_init(&full, 1);
    prim::fence_mbarrier_init();
  }
  __syncthreads();
  if (threadIdx.x != 0) return;
  unsigned long long fresh = 0, stale = 0, hung = 0;
  for (int i = 0; i < iters; ++i) {
    const int c = (blockIdx.x + i) % chunks;
    prim::mbarrier_arrive_expect_tx(&full, 16);
    prim::tma_load_1d(dst, src + 4 * c, 16, &full);
    if (!wait_parity(&full, i & 1)) {
      ++hung;
      break;
    }
    const std::uint32_t v = *reinterpret_cast<volatile std::uint32_t*>(&dst[i & 3]);
    if (v == static_cast<std::uint32_t>(c * 4 + (i & 3) + 1)) ++fresh;
    else ++stale;
  }
  atomicAdd(&out->fresh, fresh);
  atomicAdd(&out->stale, stale);
  atomicAdd(&out->hung, hung);
}

// A multicast bulk copy (TMA) issued by CTA 0 into both CTAs of a cluster,
// completing on each CTA's own barrier; every CTA's thread 0 expects its 16
// bytes and waits, CTA 1's then reads. The complete-tx is a .release.cluster
// of another CTA's operation (PTX ISA cp.async.bulk): by the ISA's letter a
// wait at the default .acquire.cta (`ClusterWait` false: what CUTLASS's
// PipelineTmaAsync::consumer_wait issues) does not synchronise with it; the
// model orders it under the stance scope_cta_acquire, a warning (docs/spec.md,
// "Stances"). `ClusterWait`: the control, try_wait.acquire.cluster.
// cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster
//   [dst], [src], size, [bar], ctaMask;                                    PTX 8.0, sm_90a
__device__ inline void bulk_load_multicast(std::uint32_t dst, const void* src, std::uint32_t bytes, std::uint32_t bar,
                                           std::uint16_t mask) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1], %2, [%3], %4;" ::"r"(dst),
      "l"(src), "r"(bytes), "r"(bar), "h"(mask)
      : "memory");
}
template <bool ClusterWait>
__global__ void __cluster_dims__(2, 1, 1) tma_multicast_wait(int iters, const std::uint32_t* src, int chunks, std::uint32_t seed0,
                                                             Counts* out) {
  __shared__ alignas(16) std::uint32_t dst[4];
  __shared__ prim::hw_mbarrier full;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  std::uint32_t seed = seed0 ^ (blockIdx.x * 7919u) | 1u;
  if (threadIdx.x == 0) {
    prim::mbarrier_init(&full, 1);
    prim::fence_mbarrier_init();
  }
  cluster.sync();
  unsigned long long fresh = 0, stale = 0, hung = 0;
  for (int i = 0; i < iters; ++i) {
    const int c = static_cast<int>((blockIdx.x / 2 + static_cast<unsigned>(i) * 7u) % static_cast<unsigned>(chunks));
    if (threadIdx.x == 0) {
      prim::mbarrier_arrive_expect_tx(&full, 16);
      if (rank == 0) {
        jitter(seed);
        bulk_load_multicast(prim::smem(dst), src + 4 * c, 16, prim::smem(&full), 0x3);
      }
      const long long deadline = clock64() + (1ll << 26);
      bool ok = true;
      auto ready = [&] {
        if (ClusterWait) return prim::mbarrier_try_wait_parity(&full, static_cast<std::uint32_t>(i & 1), prim::cluster_scope);
        return prim::mbarrier_try_wait_parity(&full, static_cast<std::uint32_t>(i & 1));
      };
      while (!ready())
        if (clock64() > deadline) {
          ok = false;
          break;
        }
      if (!ok) ++hung;
      else if (rank == 1) {
        const std::uint32_t v = *reinterpret_cast<volatile std::uint32_t*>(&dst[i & 3]);
        if (v == static_cast<std::uint32_t>(c * 4 + (i & 3) + 1)) ++fresh;
        else ++stale;
      }
    }
    cluster.sync();  // the next copy overwrites dst after the reads
  }
  if (rank == 1 && threadIdx.x == 0) {
    atomicAdd(&out->fresh, fresh);
    atomicAdd(&out->stale, stale);
    atomicAdd(&out->hung, hung);
  }
}

// Ordinary stores to shared memory read by a bulk store (TMA store, async
// proxy), with or without fence.proxy.async between them.
template <bool Fence>
__global__ void tma_store(int iters, std::uint32_t* dst, Counts* out) {
  __shared__ alignas(16) std::uint32_t src[4];
  unsigned long long fresh = 0, stale = 0;
  for (int i = 0; i < iters; ++i) {
    const std::uint32_t v = static_cast<std::uint32_t>(i + 1) * 2654435761u + blockIdx.x;
    if (threadIdx.x < 4) src[threadIdx.x] = v + threadIdx.x;
    if (Fence) prim::fence_proxy_async();
    __syncwarp();
    if (threadIdx.x == 0) {
      std::uint32_t* g = dst + 4 * blockIdx.x;
      prim::tma_store_1d(g, src, 16);
      prim::bulk_commit_group();
      prim::bulk_wait_group0();
      bool ok = true;
      for (int k = 0; k < 4; ++k) ok &= reinterpret_cast<volatile std::uint32_t*>(g)[k] == v + k;
      if (ok) ++fresh;
      else ++stale;
    }
    __syncwarp();
  }
  if (threadIdx.x == 0) {
    atomicAdd(&out->fresh, fresh);
    atomicAdd(&out->stale, stale);
  }
}

// The same with cp.reduce.async.bulk .add.u32 into global memory: thread 0
// reads the four words (then fence.proxy.async.global), the warp writes the
// source, fence.proxy.async, the reduction, wait_group 0, and the words must
// have grown by the source.
__global__ void tma_reduce(int iters, std::uint32_t* dst, Counts* out) {
  __shared__ alignas(16) std::uint32_t src[4];
  unsigned long long fresh = 0, stale = 0;
  std::uint32_t* g = dst + 4 * blockIdx.x;
  for (int i = 0; i < iters; ++i) {
    const std::uint32_t v = static_cast<std::uint32_t>(i + 1) * 2654435761u + blockIdx.x;
    std::uint32_t before[4] = {0, 0, 0, 0};
    if (threadIdx.x == 0) {
      for (int k = 0; k < 4; ++k) before[k] = reinterpret_cast<volatile std::uint32_t*>(g)[k];
      // fence.proxy.async.global;   PTX 8.0, sm_90. Without it the reduction
      // (async proxy) overtakes these generic loads of the same words: 1.5e8
      // of 1.0e9 instances read the sum already grown (the cross-proxy WAR of
      // docs/spec.md, "Stances", on global memory).
      asm volatile("fence.proxy.async.global;" ::: "memory");
    }
    if (threadIdx.x < 4) src[threadIdx.x] = v + threadIdx.x;
    prim::fence_proxy_async();
    __syncwarp();
    if (threadIdx.x == 0) {
      prim::tma_reduce_add_u32_1d(g, src, 16);
      prim::bulk_commit_group();
      prim::bulk_wait_group0();
      bool ok = true;
      for (int k = 0; k < 4; ++k) ok &= reinterpret_cast<volatile std::uint32_t*>(g)[k] == before[k] + v + k;
      if (ok) ++fresh;
      else ++stale;
    }
    __syncwarp();
  }
  if (threadIdx.x == 0) {
    atomicAdd(&out->fresh, fresh);
    atomicAdd(&out->stale, stale);
  }
}

// Cluster of two CTAs: CTA 0 writes into CTA 1's shared memory, then the
// cluster barrier (arrive release or relaxed, wait acquire); CTA 1 reads.
template <bool Release>
__global__ void __cluster_dims__(2, 1, 1) cluster_mp(int iters, std::uint32_t seed0, Counts* out) {
  __shared__ volatile std::uint32_t data;
  cg::cluster_group cluster = cg::this_cluster();
  std::uint32_t seed = seed0 ^ (blockIdx.x * 7919u + threadIdx.x * 104729u) | 1u;
  if (threadIdx.x == 0) data = 0;
  cluster.sync();
  const unsigned rank = cluster.block_rank();
  volatile std::uint32_t* peer = cluster.map_shared_rank(const_cast<std::uint32_t*>(&data), 1);
  unsigned long long fresh = 0, stale = 0;
  for (int i = 0; i < iters; ++i) {
    if (rank == 0 && threadIdx.x == 0) {
      jitter(seed);
      *peer = static_cast<std::uint32_t>(i + 1);
    }
    if (Release) prim::cluster_arrive(prim::release);
    else prim::cluster_arrive(prim::relaxed);
    prim::cluster_wait();
    if (rank == 1 && threadIdx.x == 0) {
      if (data == static_cast<std::uint32_t>(i + 1)) ++fresh;
      else ++stale;
    }
    cluster.sync();  // hands the buffer back before the next write
  }
  if (rank == 1 && threadIdx.x == 0) {
    atomicAdd(&out->fresh, fresh);
    atomicAdd(&out->stale, stale);
  }
}

// st.async: CTA 0's thread 0 writes `note` into CTA 1's shared memory
// (generic DSMEM store), then st.async's `data` there with complete_tx on
// CTA 1's barrier; CTA 1's thread 0 expects the 4 bytes, waits with
// try_wait.acquire.cluster and reads both. The model (litmus st_async_cluster):
// both are always the new values. `Red`: red.async.add instead, `data` the
// running sum 1 + 2 + ... (litmus red_async_cluster). `CtaWait`: the wait at
// the default .acquire.cta, as the field writes it (litmus st_async_cta_wait:
// the model allows stale values, scope_race).
template <bool Red, bool CtaWait = false>
__global__ void __cluster_dims__(2, 1, 1) st_async_mp(int iters, std::uint32_t seed0, Counts* out) {
  __shared__ prim::hw_mbarrier bar;
  __shared__ volatile std::uint32_t data, note;
  cg::cluster_group cluster = cg::this_cluster();
  std::uint32_t seed = seed0 ^ (blockIdx.x * 7919u + threadIdx.x * 104729u) | 1u;
  const unsigned rank = cluster.block_rank();
  if (threadIdx.x == 0) {
    data = 0;
    note = 0;
    prim::mbarrier_init(&bar, 1);
    prim::fence_mbarrier_init();
  }
  cluster.sync();
  volatile std::uint32_t* peer_note = cluster.map_shared_rank(const_cast<std::uint32_t*>(&note), 1);
  const std::uint32_t peer_data = prim::mapa_shared(const_cast<std::uint32_t*>(&data), 1);
  const std::uint32_t peer_bar = prim::mapa_shared(&bar, 1);
  unsigned long long fresh = 0, stale = 0, hung = 0;
  for (int i = 0; i < iters; ++i) {
    const std::uint32_t v = static_cast<std::uint32_t>(i + 1);
    if (rank == 0 && threadIdx.x == 0) {
      jitter(seed);
      *peer_note = v;
      if (Red) prim::red_async_add_u32(peer_data, v, peer_bar);
      else prim::st_async_b32(peer_data, v, peer_bar);
    }
    if (rank == 1 && threadIdx.x == 0) {
      prim::mbarrier_arrive_expect_tx(&bar, 4);
      const long long deadline = clock64() + (1ll << 26);
      bool ok = true;
      auto ready = [&] {
        if (CtaWait) return prim::mbarrier_try_wait_parity(&bar, static_cast<std::uint32_t>(i & 1));
        return prim::mbarrier_try_wait_parity(&bar, static_cast<std::uint32_t>(i & 1), prim::cluster_scope);
      };
      while (!ready())
        if (clock64() > deadline) {
          ok = false;
          break;
        }
      if (!ok) ++hung;
      else if (data == (Red ? v * (v + 1) / 2 : v) && note == v) ++fresh;
      else ++stale;
    }
    cluster.sync();  // the next round starts after the reads
  }
  if (rank == 1 && threadIdx.x == 0) {
    atomicAdd(&out->fresh, fresh);
    atomicAdd(&out->stale, stale);
    atomicAdd(&out->hung, hung);
  }
}

// Non-bulk cp.async-groups: one thread copies word 0 of a chunk (group 1) and
// word 1 (group 2), commits each, waits until at most one group is pending
// and reads word 0 (litmus cp_async_wait_group: only the new value allowed);
// `Newest`: word 1, whose group may still be pending (cp_async_wait_pending:
// both allowed). wait_all before the next round's copies.
template <bool Newest>
__global__ void cp_async_groups(int iters, const std::uint32_t* src, int chunks, Counts* out) {
  __shared__ alignas(16) std::uint32_t dst[2];
  if (threadIdx.x != 0) return;
  unsigned long long fresh = 0, stale = 0;
  for (int i = 0; i < iters; ++i) {
    const int c = (blockIdx.x + i) % chunks;
    prim::cp_async_4(&dst[0], src + 4 * c);
    prim::cp_async_commit_group();
    prim::cp_async_4(&dst[1], src + 4 * c + 1);
    prim::cp_async_commit_group();
    prim::cp_async_wait_group<1>();
    const std::uint32_t v = *reinterpret_cast<volatile std::uint32_t*>(&dst[Newest ? 1 : 0]);
    if (v == static_cast<std::uint32_t>(c * 4 + (Newest ? 1 : 0) + 1)) ++fresh;
    else ++stale;
    prim::cp_async_wait_all();
  }
  atomicAdd(&out->fresh, fresh);
  atomicAdd(&out->stale, stale);
}

// One of two consumers drops out with arrive_drop; the next phases must
// complete with the remaining one's arrival alone.
__global__ void arrive_drop_progress(Counts* out) {
  __shared__ prim::hw_mbarrier bar;
  if (threadIdx.x == 0) prim::mbarrier_init(&bar, 2);
  __syncthreads();
  if (threadIdx.x == 32) prim::mbarrier_arrive_drop(&bar, 1);
  if (threadIdx.x == 0) {
    prim::mbarrier_arrive(&bar, 1);
    bool ok = wait_parity(&bar, 0, 1ll << 24);
    prim::mbarrier_arrive(&bar, 1);
    ok = ok && wait_parity(&bar, 1, 1ll << 24);
    atomicAdd(ok ? &out->fresh : &out->hung, 1ull);
  }
}

// A warp group's arrive past the pending count (docs/spec.md, "Per-thread
// arrivals"): count `init`, one thread arrives `first` (pending init-first),
// then every thread of the block arrives once. Each thread's arrive-on being
// its own, the phase completes at the (init-first)-th and the rest arrive on
// phase 1; a hardware that took a warp's arrivals as one arrive of its
// active threads would over-arrive (a fault, as over_arrival does). Thread 0
// then records the parities, and the pending count of phase 1 through a
// .noComplete arrive's token; obs[2] after one more arrive of what is left.
__global__ void group_arrive_past_pending(std::uint32_t init, std::uint32_t first, Obs* obs) {
  __shared__ prim::hw_mbarrier bar;
  if (threadIdx.x == 0) {
    prim::mbarrier_init(&bar, init);
    prim::mbarrier_arrive(&bar, first);
  }
  __syncthreads();
  prim::mbarrier_arrive(&bar, 1);
  __syncthreads();
  if (threadIdx.x != 0) return;
  obs[0].parity_bits = parities(&bar);
  const std::uint64_t tok = prim::mbarrier_arrive_nocomplete(&bar, 1);
  const std::uint32_t left = prim::mbarrier_pending_count(tok);
  obs[1].parity_bits = parities(&bar);
  obs[1].value = left;
  if (left > 1) prim::mbarrier_arrive(&bar, left - 1);
  obs[2].parity_bits = parities(&bar);
  prim::mbarrier_inval(&bar);
}

// Per-warp named-barrier instances (docs/spec.md, "Per-warp named-barrier
// arrivals"): the four warps of a block each run bar.sync 1, 64 once;
// warps 2 and 3 first spin `delay` cycles. PTX ISA bar/barrier: the barrier
// counts threads and, once complete, "is reinitialized so that it can be
// immediately reused", so warps 0 and 1 form one 64-thread instance and
// pass while warps 2 and 3 have not arrived; a hardware that held them for
// the whole block would pass them only after warp 2's arrival. Per block:
// whether warp 0 passed before warp 2 arrived, and whether all passed.
__global__ void named_warp_instances(long long delay, unsigned long long* early, unsigned long long* done) {
  __shared__ long long passed0, arrived2;
  const int warp = static_cast<int>(threadIdx.x / 32), lane = static_cast<int>(threadIdx.x % 32);
  if (warp >= 2) {
    const long long t0 = clock64();
    while (clock64() - t0 < delay) {
    }
  }
  if (warp == 2 && lane == 0) arrived2 = clock64();
  prim::bar_sync(1, 64);
  if (warp == 0 && lane == 0) passed0 = clock64();
  __syncthreads();
  if (threadIdx.x == 0) {
    if (passed0 < arrived2) atomicAdd(early, 1ull);
    atomicAdd(done, 1ull);
  }
}

// A remote arrive and the issuer's exit (docs/conformance/h200-2026-12-03-remote-arrive-exit.md).
// A cluster of two CTAs of 128 threads. CTA 0's thread 0 inits `bar` with
// count 32 * `warps` and fences the init; a full cluster barrier (arrive
// .release, wait .acquire) follows. Then `warps` warps of CTA 1, after a
// per-cluster pseudo-random pause of 0..`max_delay` cycles and `burst`
// remote stores each into CTA 0's `traffic` (st.shared::cluster, traffic
// ahead of the arrive), arrive once per thread on CTA 0's barrier through its
// shared::cluster address (mapa), at .release.cluster (`Relaxed`:
// .relaxed.cluster). Then CTA 1 (`End`) 0: exits at once; 1: runs
// barrier.cluster.arrive.relaxed + wait and exits (the relaxed arrive orders
// nothing); 2 (the control): barrier.cluster.arrive (.release) + wait and
// exits, the release ordering the arrives before CTA 0's acquire. CTA 0 runs
// barrier.cluster.arrive (.release) and barrier.cluster.wait (.acquire),
// which waits for the non-exited threads of the cluster only (PTX ISA,
// barrier.cluster), so with End 0 it can pass as soon as CTA 1 has exited;
// then thread 0 runs one non-blocking test_wait.parity on phase 0 (true iff
// all the arrivals have landed). The issuer's exit orders nothing, so an
// arrival may still be in flight there. out[0]: clusters done; out[1]: phase
// 0 not complete at the test_wait (an arrive in flight); out[2]: of those,
// completed later (a bounded try_wait); out[3]: never within it. `drain`:
// then CTA 0's threads wait (bounded) until CTA 1's remote stores are all
// visible before CTA 0 exits; out[4]: clusters where some never were. With a
// relaxed arrive nothing orders those stores before the barrier's phase, and
// without the drain CTA 0 can exit while they are in flight (the run of
// docs/conformance/h200-2026-12-03-remote-arrive-exit.md: a launch failure).
// mbarrier.arrive.release.cluster.shared::cluster.b64 _, [addr];          PTX 8.0, sm_90
// mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [addr];          PTX 8.6, sm_90
template <bool Relaxed>
__device__ inline void remote_arrive(std::uint32_t addr) {
  if (Relaxed) asm volatile("mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [%0];" ::"r"(addr) : "memory");
  else asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(addr) : "memory");
}
// st.shared::cluster.u32 [addr], v;                                       PTX 7.8, sm_90
__device__ inline void st_cluster_u32(std::uint32_t addr, std::uint32_t v) {
  asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}
constexpr int remote_arrive_max_burst = 8;
template <bool Relaxed, int End>
__global__ void __cluster_dims__(2, 1, 1) remote_arrive_exit(int warps, long long max_delay, int burst, bool drain,
                                                             std::uint32_t seed0, unsigned long long* out) {
  __shared__ prim::hw_mbarrier bar;
  __shared__ std::uint32_t traffic[128 * remote_arrive_max_burst];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const std::uint32_t tag = 16u * (blockIdx.x / 2);  // CTA 1's k-th store writes tag + k + 1 (never 0)
  if (rank == 0)
    for (int k = 0; k < remote_arrive_max_burst; ++k) traffic[threadIdx.x + 128 * k] = 0;
  if (rank == 0 && threadIdx.x == 0) {
    prim::mbarrier_init(&bar, 32u * static_cast<std::uint32_t>(warps));
    prim::fence_mbarrier_init();
  }
  prim::cluster_arrive();
  prim::cluster_wait();
  if (rank == 1) {
    if (static_cast<int>(threadIdx.x / 32) < warps) {
      std::uint32_t s = (seed0 ^ ((blockIdx.x / 2) * 2654435761u)) | 1u;
      xorshift(s);
      const long long pause = max_delay > 0 ? static_cast<long long>(xorshift(s) % static_cast<std::uint32_t>(max_delay + 1)) : 0;
      const long long until = clock64() + pause;
      while (clock64() < until) {
      }
      for (int k = 0; k < burst; ++k)
        st_cluster_u32(prim::mapa_shared(&traffic[threadIdx.x + 128 * k], 0), tag + static_cast<std::uint32_t>(k) + 1u);
      remote_arrive<Relaxed>(prim::mapa_shared(&bar, 0));
    }
    if (End == 1) {
      prim::cluster_arrive(prim::relaxed);
      prim::cluster_wait();
    } else if (End == 2) {
      prim::cluster_arrive();
      prim::cluster_wait();
    }
    return;  // CTA 1 exits
  }
  prim::cluster_arrive();
  prim::cluster_wait();  // passes once CTA 1 has exited (End 0) or arrived
  if (threadIdx.x == 0) {
    const bool complete = prim::mbarrier_test_wait_parity(&bar, 0);
    atomicAdd(&out[0], 1ull);
    if (!complete) {
      atomicAdd(&out[1], 1ull);
      atomicAdd(wait_parity(&bar, 0, 1ll << 22) ? &out[2] : &out[3], 1ull);
    }
  }
  if (drain && static_cast<int>(threadIdx.x / 32) < warps) {
    const long long deadline = clock64() + (1ll << 22);
    bool landed = true;
    for (int k = 0; k < burst && landed; ++k)
      while (*reinterpret_cast<volatile std::uint32_t*>(&traffic[threadIdx.x + 128 * k]) != tag + static_cast<std::uint32_t>(k) + 1u)
        if (clock64() > deadline) {
          landed = false;
          break;
        }
    if (!landed) atomicAdd(&out[4], 1ull);  // once per thread whose stores did not all land
  }
}

// A .relaxed mbarrier wait, then bar.sync, as the acquire of what the wait
// observed (docs/conformance/h200-2026-12-04-relaxed-wait-barsync.md): CCCL's
// for_each_canceled_block has thread 0 wait on its mbarrier with
// try_wait.parity.relaxed.cta, then __syncthreads ("this syncthreads provides
// the .acquire.cta fence"), then every thread reads the 16-byte response that
// the async proxy wrote with complete_tx (kernels/field/
// probe_cccl_clc_relaxed_wait_syncthreads.bk). By the ISA's letter bar.sync
// is no fence, so the model reports a data_race there. 128 threads per CTA,
// `rounds` rounds on one barrier and one buffer of `words` 32-bit words (4:
// the 16-byte response; at most 1024). Each round r: every thread writes the
// round's sentinel over the buffer (Producer 0: then fence.proxy.async, the
// sentinel before the copy), __syncthreads; then
// - Producer 0 (TMA; barrier count 1): warp 0 pauses, thread 0 arms the barrier
//   (mbarrier.arrive.expect_tx.relaxed.cta, as CCCL) and issues a 1D bulk copy
//   of chunk c(seed, CTA, r) of `src` into the buffer, completing on it; warps
//   1..3 pause; thread 0 waits (`Wait` 0: try_wait.parity.relaxed.cta, 1:
//   .acquire.cta, the control, 2: not before the reads, the sensitivity check:
//   thread 0 waits at .acquire after its own reads); __syncthreads (bar.sync 0);
//   every thread reads.
// - Producer 1 (generic; count 32): warp 1 first runs barrier.arrive 1, 128, so
//   that the named barrier the others sync on orders none of its writes, then
//   pauses, writes chunk c's values with st.shared and arrives once per lane
//   with mbarrier.arrive.release.cta; warps 0, 2, 3 pause, thread 0 waits as
//   above, barrier.sync 1, 128, and they read (warp 1 reads nothing).
// Then __syncthreads (the reads before the next round's sentinel). The pauses
// are 0..`max_delay` cycles, drawn per warp and round. Every reader reads each
// 16-byte piece assigned to it with one ld.shared.v4 (with 4 words, all of
// them the whole buffer). out[w]: reader instances (one thread in one round)
// of warp w; out[4 + w]: those that read the sentinel of the round in some
// word (stale); out[8]: stale words; out[9]: words holding the next round's
// sentinel; out[10]: other wrong words; out[11]: CTAs whose wait timed out
// (2^26 cycles: the CTA stops); out[12]: CTA rounds done.
namespace rwb {
constexpr int max_words = 1024;
__device__ inline std::uint32_t sentinel(int r) { return 0xF0000000u | (static_cast<std::uint32_t>(r) & 0x0FFFFFFFu); }
__device__ inline std::uint32_t chunk(std::uint32_t seed0, int r, int chunks) {
  std::uint32_t h = seed0 ^ (blockIdx.x * 0x9E3779B1u) ^ (static_cast<std::uint32_t>(r) * 0x85EBCA6Bu);
  h ^= h >> 16;
  h *= 0x7FEB352Du;
  h ^= h >> 15;
  h *= 0x846CA68Bu;
  h ^= h >> 16;
  return h % static_cast<std::uint32_t>(chunks);
}
// mbarrier.try_wait.parity.relaxed.cta.shared::cta.b64 p, [addr], parity;     PTX 8.6, sm_90
__device__ inline bool try_wait_relaxed(std::uint32_t a, std::uint32_t parity) {
  std::uint32_t ok;
  asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.relaxed.cta.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
               : "=r"(ok)
               : "r"(a), "r"(parity)
               : "memory");
  return ok != 0;
}
// mbarrier.arrive.expect_tx.relaxed.cta.shared::cta.b64 _, [addr], tx;        PTX 8.6, sm_90
__device__ inline void arrive_expect_tx_relaxed(std::uint32_t a, std::uint32_t tx) {
  asm volatile("mbarrier.arrive.expect_tx.relaxed.cta.shared::cta.b64 _, [%0], %1;" ::"r"(a), "r"(tx) : "memory");
}
// ld.shared.v4.u32 {a, b, c, d}, [addr];                                        PTX 1.0
__device__ inline uint4 ld_shared_v4(std::uint32_t a) {
  uint4 v;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(a) : "memory");
  return v;
}
// Thread 0's wait on phase `parity`: Relaxed (CCCL's loop) or .acquire.cta; false after 2^26 cycles.
template <bool Relaxed>
__device__ inline bool wait(prim::hw_mbarrier* bar, std::uint32_t parity) {
  const long long deadline = clock64() + (1ll << 26);
  for (;;) {
    if (Relaxed ? try_wait_relaxed(prim::smem(bar), parity) : prim::mbarrier_try_wait_parity(bar, parity)) return true;
    if (clock64() > deadline) return false;
  }
}
__device__ inline void pause(std::uint32_t& s, long long max_delay) {
  if (max_delay <= 0) return;
  const long long until = clock64() + static_cast<long long>(xorshift(s) % static_cast<std::uint32_t>(max_delay + 1));
  while (clock64() < until) {
  }
}
}  // namespace rwb
__global__ void rwb_fill(std::uint32_t* p, std::size_t n) {
  for (std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; k < n; k += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    p[k] = static_cast<std::uint32_t>(k + 1);
}
template <int Producer, int Wait>
__global__ void __launch_bounds__(128) relaxed_wait_barsync(int rounds, int words, const std::uint32_t* src, int chunks,
                                                            std::uint32_t seed0, long long max_delay, unsigned long long* out) {
  __shared__ alignas(128) std::uint32_t buf[rwb::max_words];
  __shared__ prim::hw_mbarrier bar;
  __shared__ int stop;
  const int tid = static_cast<int>(threadIdx.x), warp = tid / 32, lane = tid % 32;
  // One pseudo-random stream per warp (the same in every lane: warp-uniform pauses).
  std::uint32_t s = (seed0 ^ (blockIdx.x * 2654435761u) ^ (static_cast<std::uint32_t>(warp) * 40503u)) | 1u;
  if (tid == 0) {
    prim::mbarrier_init(&bar, Producer == 0 ? 1u : 32u);
    prim::fence_mbarrier_init();
    stop = 0;
  }
  __syncthreads();
  const bool reader = Producer == 0 || warp != 1;
  const int nreaders = Producer == 0 ? 128 : 96;
  const int ri = Producer == 0 ? tid : (warp == 0 ? tid : tid - 32);
  const int pieces = words / 4;
  std::uint32_t inst = 0, stale_inst = 0, stale_words = 0, future_words = 0, wrong_words = 0;
  bool hung = false;
  int r = 0;
  for (; r < rounds; ++r) {
    const std::uint32_t sent = rwb::sentinel(r), next = rwb::sentinel(r + 1);
    for (int w = tid; w < words; w += 128) reinterpret_cast<volatile std::uint32_t*>(buf)[w] = sent;
    if (Producer == 0) prim::fence_proxy_async();  // the sentinel (and the last round's reads) before the copy
    __syncthreads();
    const std::uint32_t c = rwb::chunk(seed0, r, chunks);
    const std::uint32_t parity = static_cast<std::uint32_t>(r & 1);
    if (Producer == 0) {
      rwb::pause(s, max_delay);
      if (tid == 0) {
        rwb::arrive_expect_tx_relaxed(prim::smem(&bar), 4u * static_cast<std::uint32_t>(words));
        prim::tma_load_1d(buf, src + static_cast<std::size_t>(c) * rwb::max_words, 4u * static_cast<std::uint32_t>(words), &bar);
        if (Wait != 2 && !rwb::wait<Wait == 0>(&bar, parity)) {
          hung = true;
          stop = 1;
        }
      }
      __syncthreads();  // bar.sync 0: CCCL's "acquire"
    } else {
      if (warp == 1) {
        prim::bar_arrive(1, 128);  // counted at the readers' barrier before any write: it orders none of them
        rwb::pause(s, max_delay);
        for (int w = lane; w < words; w += 32)
          reinterpret_cast<volatile std::uint32_t*>(buf)[w] = c * rwb::max_words + static_cast<std::uint32_t>(w) + 1u;
        prim::mbarrier_arrive(&bar, 1);  // .release.cta, one per lane
      } else {
        rwb::pause(s, max_delay);
        if (tid == 0 && Wait != 2 && !rwb::wait<Wait == 0>(&bar, parity)) {
          hung = true;
          stop = 1;
        }
        prim::bar_sync(1, 128);  // warps 0, 2, 3 and warp 1's arrive
      }
    }
    if (reader) {
      for (int p = ri % pieces; p < pieces; p += nreaders) {
        const uint4 v = rwb::ld_shared_v4(prim::smem(&buf[4 * p]));
        const std::uint32_t got[4] = {v.x, v.y, v.z, v.w};
        bool st = false;
        for (int k = 0; k < 4; ++k) {
          const std::uint32_t want = c * rwb::max_words + static_cast<std::uint32_t>(4 * p + k) + 1u;
          if (got[k] == want) continue;
          if (got[k] == sent) {
            ++stale_words;
            st = true;
          } else if (got[k] == next) ++future_words;
          else ++wrong_words;
        }
        stale_inst += st ? 1u : 0u;
        ++inst;
      }
    }
    if (Wait == 2 && tid == 0 && !rwb::wait<false>(&bar, parity)) {
      hung = true;
      stop = 1;
    }
    __syncthreads();  // the reads (and, with Wait 2, thread 0's late wait) before the next round's sentinel
    if (stop) {
      ++r;
      break;
    }
  }
  // Counts per thread fit 32 bits (rounds * pieces); summed per warp, then once per warp into out.
  inst = __reduce_add_sync(0xffffffffu, inst);
  stale_inst = __reduce_add_sync(0xffffffffu, stale_inst);
  stale_words = __reduce_add_sync(0xffffffffu, stale_words);
  future_words = __reduce_add_sync(0xffffffffu, future_words);
  wrong_words = __reduce_add_sync(0xffffffffu, wrong_words);
  if (lane == 0) {
    if (inst) atomicAdd(&out[warp], inst);
    if (stale_inst) atomicAdd(&out[4 + warp], stale_inst);
    if (stale_words) atomicAdd(&out[8], stale_words);
    if (future_words) atomicAdd(&out[9], future_words);
    if (wrong_words) atomicAdd(&out[10], wrong_words);
  }
  if (tid == 0) {
    if (hung) atomicAdd(&out[11], 1ull);
    atomicAdd(&out[12], static_cast<unsigned long long>(r));
  }
}

// Liveness: count 2 and one (`Full`: two) arrivals; the waiter's watchdog says
// hung or finished. `Sw`: the same on the software mbarrier.
template <bool Full, bool Sw = false>
__global__ void liveness(Counts* out) {
  __shared__ prim::hw_mbarrier bar;
  __shared__ unsigned long long sw;
  if (threadIdx.x == 0) {
    if (Sw) prim::sw_mbarrier_init(&sw, 2);
    else prim::mbarrier_init(&bar, 2);
  }
  __syncthreads();
  if (threadIdx.x == 32) {
    for (int k = 0; k < (Full ? 2 : 1); ++k) {
      if (Sw) prim::sw_mbarrier_arrive(&sw, 1);
      else prim::mbarrier_arrive(&bar, 1);
    }
  }
  if (threadIdx.x == 0) {
    const bool ok = Sw ? sw_wait_parity(&sw, 0, 1ll << 24) : wait_parity(&bar, 0, 1ll << 24);
    atomicAdd(ok ? &out->fresh : &out->hung, 1ull);
  }
}


// ---------------------------------------------------------------- op litmus (harnesses/conformance/op_litmus.hpp)

// A device-wide outcome histogram: open addressing over 64-bit keys.
constexpr unsigned long long hist_empty = ~0ull;
__device__ inline void hist_add(unsigned long long* keys, unsigned long long* counts, int slots, unsigned long long key,
                                unsigned long long n, unsigned long long* overflow) {
  unsigned h = static_cast<unsigned>((key * 0x9E3779B97F4A7C15ull) >> 40) % static_cast<unsigned>(slots);
  for (int probe = 0; probe < slots; ++probe, h = (h + 1) % static_cast<unsigned>(slots)) {
    const unsigned long long prev = atomicCAS(&keys[h], hist_empty, key);
    if (prev == hist_empty || prev == key) {
      atomicAdd(&counts[h], n);
      return;
    }
  }
  atomicAdd(overflow, n);
}

// How the two threads are pushed apart (--op-stress): a random skew before
// the first op, a pause before every op (usually `pause` cycles at most, one
// time in big_every+1 up to `big`), which warp runs thread A, and whether the
// random draws are per lane or one per warp. Per lane, a warp's lanes wait
// for the longest of 32 draws (the warp leaves a divergent spin loop when all
// its lanes have), so both warps pause about the maximum and stay in step;
// one draw per warp (lane 0's, broadcast) moves the two warps apart.
struct Stress {
  const char* name;
  std::uint32_t skew_mask, pause_mask, big_mask, big_every_mask;
  int a_warp;
  bool per_warp;
  unsigned budget_div;  // the mode runs (instances budget) / budget_div
};
// Mode 0 is the suite's own (a pause of 0..63 cycles before each op).
inline const Stress stress_modes[] = {
    {"pause 0-63", 0, 63, 0, 0, 0, false, 1},
    {"skew 0-2047, pause 0-63", 2047, 63, 0, 0, 0, false, 8},
    {"skew 0-8191, pause 0-15", 8191, 15, 0, 0, 0, false, 8},
    {"pause 0-15, 1 in 4 up to 1023", 0, 15, 1023, 3, 0, false, 8},
    {"pause 0-7, 1 in 2 up to 4095", 0, 7, 4095, 1, 0, false, 8},
    {"A on warp 1, skew 0-2047, pause 0-63", 2047, 63, 0, 0, 1, false, 8},
    {"per warp: pause 0-255", 0, 255, 0, 0, 0, true, 8},
    {"per warp: skew 0-1023, pause 0-1023", 1023, 1023, 0, 0, 0, true, 8},
    {"per warp: pause 0-15, 1 in 2 up to 2047", 0, 15, 2047, 1, 0, true, 8},
    {"per warp, A on warp 1: pause 0-15, 1 in 2 up to 2047", 0, 15, 2047, 1, 1, true, 8},
};
constexpr int stress_mode_count = static_cast<int>(sizeof(stress_modes) / sizeof(stress_modes[0]));

struct OpLitmusDev {
  std::uint32_t count;
  int na, nb;
  std::uint32_t a[op_litmus_max_ops], b[op_litmus_max_ops];
  std::uint32_t skew_mask = 0, pause_mask = 63, big_mask = 0, big_every_mask = 0;
  int a_warp = 0;
  bool per_warp = false;
};

// A random draw: the lane's own, or lane 0's for the whole warp.
__device__ inline std::uint32_t draw(std::uint32_t& seed, bool per_warp) {
  const std::uint32_t r = xorshift(seed);
  return per_warp ? __shfl_sync(0xffffffffu, r, 0) : r;
}

__device__ inline void spin_cycles(std::uint32_t n) {
  const long long until = clock64() + n;
  while (clock64() < until) {
  }
}
constexpr int global_slots = 256, block_slots = 64;

// Lane l of warp a_warp is thread A and lane l of the other warp thread B of
// instance l: 32 instances per iteration, each on its own barrier. Warp 2
// stresses memory; every op is preceded by a random pause (thread
// randomisation), the first by a random skew (Stress).
template <bool Sw>
__global__ void op_litmus_kernel(OpLitmusDev t, int iters, std::uint32_t seed0, unsigned long long* gkeys,
                                 unsigned long long* gcounts, unsigned long long* overflow, std::uint32_t* gscratch) {
  __shared__ prim::hw_mbarrier bars[32];
  __shared__ unsigned long long words[32];
  __shared__ std::uint32_t bvals[op_litmus_max_ops][32];
  __shared__ unsigned long long skeys[block_slots], scounts[block_slots];
  __shared__ volatile std::uint32_t scratch[64];
  __shared__ volatile int stop;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  std::uint32_t seed = seed0 ^ (blockIdx.x * 7919u + threadIdx.x * 104729u) | 1u;
  if (threadIdx.x < block_slots) {
    skeys[threadIdx.x] = hist_empty;
    scounts[threadIdx.x] = 0;
  }
  if (threadIdx.x == 0) stop = 0;
  __syncthreads();
  if (warp == 2) {
    stress(scratch, gscratch, seed, &stop);
  } else {
    const bool is_a = warp == t.a_warp;
    const std::uint32_t* ops = is_a ? t.a : t.b;
    const int n = is_a ? t.na : t.nb;
    for (int it = 0; it < iters; ++it) {
      if (warp == 0) {
        if (Sw) prim::sw_mbarrier_init(&words[lane], t.count);
        else prim::mbarrier_init(&bars[lane], t.count);
      }
      prim::bar_sync(1, 64);
      std::uint32_t vals[op_litmus_max_ops] = {};
      std::uint64_t token = 0;
      if (t.skew_mask) spin_cycles(draw(seed, t.per_warp) & t.skew_mask);
#pragma unroll
      for (int k = 0; k < op_litmus_max_ops; ++k) {
        if (k < n) {
          const std::uint32_t r = draw(seed, t.per_warp);
          const bool big = t.big_mask && ((r >> 20) & t.big_every_mask) == 0;
          spin_cycles(big ? (r >> 8) & t.big_mask : r & t.pause_mask);
          const std::uint32_t o = ops[k];
          vals[k] = Sw ? apply_sw_op(&words[lane], op_code(o), op_arg(o)) : apply_op(&bars[lane], token, op_code(o), op_arg(o));
          if (!is_a) bvals[k][lane] = vals[k];
        }
      }
      prim::bar_sync(1, 64);
      if (is_a) {
        std::uint32_t bv[op_litmus_max_ops];
#pragma unroll
        for (int k = 0; k < op_litmus_max_ops; ++k) bv[k] = bvals[k][lane];
        const std::uint32_t fin = Sw ? apply_sw_op(&words[lane], op_probe, 0) : apply_op(&bars[lane], token, op_probe, 0);
        const unsigned long long key = op_litmus_key(vals, t.na, bv, t.nb, fin);
        hist_add(skeys, scounts, block_slots, key, 1, &gcounts[global_slots]);
        if (!Sw) prim::mbarrier_inval(&bars[lane]);
      }
      prim::bar_sync(1, 64);
    }
    if (threadIdx.x == 0) stop = 1;
  }
  __syncthreads();
  if (threadIdx.x < block_slots && skeys[threadIdx.x] != hist_empty)
    hist_add(gkeys, gcounts, global_slots, skeys[threadIdx.x], scounts[threadIdx.x], &gcounts[global_slots]);
}

// ---------------------------------------------------------------- op sequences

// Each block runs one sequence on its own barrier, by one thread; ops[0] is the init count.
__global__ void run_sequences(const std::uint32_t* ops, int len, Obs* obs) {
  __shared__ prim::hw_mbarrier bar;
  if (threadIdx.x != 0) return;
  const std::uint32_t* o = ops + static_cast<std::size_t>(blockIdx.x) * len;
  Obs* r = obs + static_cast<std::size_t>(blockIdx.x) * len;
  prim::mbarrier_init(&bar, o[0]);
  std::uint64_t token = 0;
  for (int i = 1; i < len; ++i) {
    const std::uint32_t code = o[i] >> 24, arg = o[i] & 0xffffff;
    const std::uint32_t value = apply_op(&bar, token, code, arg);
    r[i].parity_bits = parities(&bar);
    r[i].value = value;
  }
  if (o[len - 1] >> 24 != op_inval) prim::mbarrier_inval(&bar);
}

// The same sequences on the software mbarrier: only init and arrive with a
// count (it has no tx-count, drop or noComplete); the observations must equal
// the hardware mbarrier's model.
__global__ void run_sw_sequences(const std::uint32_t* ops, int len, Obs* obs) {
  __shared__ unsigned long long word;
  if (threadIdx.x != 0) return;
  const std::uint32_t* o = ops + static_cast<std::size_t>(blockIdx.x) * len;
  Obs* r = obs + static_cast<std::size_t>(blockIdx.x) * len;
  prim::sw_mbarrier_init(&word, o[0]);
  for (int i = 1; i < len; ++i) {
    if (o[i] >> 24 == op_arrive) prim::sw_mbarrier_arrive(&word, o[i] & 0xffffff);
    r[i].parity_bits =
        (prim::sw_mbarrier_test_wait_parity(&word, 0) ? 1u : 0u) | (prim::sw_mbarrier_test_wait_parity(&word, 1) ? 2u : 0u);
    r[i].value = 0;
  }
}

// The model's observations of one sequence (the host side of primitives.hpp).
std::vector<Obs> model_run(const std::uint32_t* o, int len, bool& defined) {
  std::vector<Obs> r(static_cast<std::size_t>(len));
  prim::Mbarrier bar;
  prim::mbarrier_init(&bar, o[0]);
  prim::ModelToken token;
  for (int i = 1; i < len; ++i) {
    const std::uint32_t code = o[i] >> 24, arg = o[i] & 0xffffff;
    const std::uint32_t value = apply_op(&bar, token, code, arg);
    r[static_cast<std::size_t>(i)].parity_bits = parities(&bar);
    r[static_cast<std::size_t>(i)].value = value;
  }
  defined = bar.violation == pc::spec::Violation::none;
  return r;
}

// A random sequence the model defines (no violation): each candidate op is
// tried on the model and kept only if it stays defined.
std::vector<std::uint32_t> random_sequence(std::mt19937& rng, int len) {
  std::vector<std::uint32_t> ops(static_cast<std::size_t>(len), 0);
  ops[0] = 1 + rng() % 4;
  for (int i = 1; i < len; ++i) {
    for (int attempt = 0; attempt < 20; ++attempt) {
      const std::uint32_t code = 1 + rng() % 7;
      const std::uint32_t arg = code == op_expect || code == op_complete || code == op_arrive_tx ? 16 * (1 + rng() % 4) : 1 + rng() % 2;
      ops[static_cast<std::size_t>(i)] = code << 24 | arg;
      bool defined = true;
      (void)model_run(ops.data(), i + 1, defined);
      if (defined) break;
      ops[static_cast<std::size_t>(i)] = op_observe << 24;  // always defined (a token test is not: stale_token)
    }
  }
  return ops;
}

// ---------------------------------------------------------------- contested points (--contested)
//
// Four points where the PTX ISA's letter and field practice (CUTLASS and the
// CUDA guide's examples) differ. Every instruction is written here as inline
// PTX, its PTX ISA name in the comment above it, so that these tests do not
// depend on spec/primitives.hpp. Each test counts outcomes on the device; the
// host says which of them the ISA's letter allows (contested_tests below).
namespace contested {

__device__ inline std::uint32_t saddr(const void* p) { return static_cast<std::uint32_t>(__cvta_generic_to_shared(p)); }
// mov.u32 r, %cluster_ctarank;                                          PTX 7.8, sm_90
__device__ inline std::uint32_t cluster_rank() {
  std::uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
// mapa.shared::cluster.u32 d, a, rank;                                  PTX 7.8, sm_90
__device__ inline std::uint32_t mapa(std::uint32_t a, std::uint32_t rank) {
  std::uint32_t d;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(rank));
  return d;
}
// st.shared::cluster.u32 [a], v;  (weak; a DSMEM address from mapa)     PTX 7.8, sm_90
__device__ inline void st_cluster(std::uint32_t a, std::uint32_t v) {
  asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(a), "r"(v) : "memory");
}
// ld.shared::cluster.u32 v, [a];  (weak)                                PTX 7.8, sm_90
__device__ inline std::uint32_t ld_cluster(std::uint32_t a) {
  std::uint32_t v;
  asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(a) : "memory");
  return v;
}
// st.shared::cta.u32 [a], v;  (weak)                                    PTX 7.8, sm_90
__device__ inline void st_cta(std::uint32_t a, std::uint32_t v) {
  asm volatile("st.shared::cta.u32 [%0], %1;" ::"r"(a), "r"(v) : "memory");
}
// ld.shared::cta.u32 v, [a];  (weak)                                    PTX 7.8, sm_90
__device__ inline std::uint32_t ld_cta(std::uint32_t a) {
  std::uint32_t v;
  asm volatile("ld.shared::cta.u32 %0, [%1];" : "=r"(v) : "r"(a) : "memory");
  return v;
}
// mbarrier.init.shared::cta.b64 [a], count;                             PTX 7.0, sm_80
__device__ inline void mbar_init(std::uint32_t a, std::uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(a), "r"(count) : "memory");
}
// mbarrier.inval.shared::cta.b64 [a];                                   PTX 7.0, sm_80
__device__ inline void mbar_inval(std::uint32_t a) { asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(a) : "memory"); }
// fence.mbarrier_init.release.cluster;                                  PTX 8.0, sm_90
__device__ inline void fence_mbar_init() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
// fence.proxy.async.shared::cta;                                        PTX 8.0, sm_90
__device__ inline void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
// mbarrier.arrive.release.cta.shared::cta.b64 _, [a], 1;                PTX 8.0, sm_90
__device__ inline void arrive_local(std::uint32_t a) {
  asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0], 1;" ::"r"(a) : "memory");
}
// Remote arrive on an mbarrier of another CTA of the cluster (a mapa address):
//   Sc 0: mbarrier.arrive.release.cta.shared::cluster.b64 _, [a], 1;      PTX 8.0, sm_90
//   Sc 1: mbarrier.arrive.release.cluster.shared::cluster.b64 _, [a], 1;  PTX 8.0, sm_90
//   Sc 2: mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [a], 1;  PTX 8.6, sm_90
template <int Sc>
__device__ inline void arrive_remote(std::uint32_t a) {
  if constexpr (Sc == 0) asm volatile("mbarrier.arrive.release.cta.shared::cluster.b64 _, [%0], 1;" ::"r"(a) : "memory");
  else if constexpr (Sc == 1) asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0], 1;" ::"r"(a) : "memory");
  else asm volatile("mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [%0], 1;" ::"r"(a) : "memory");
}
//   Sc 0: mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [a], parity;      PTX 8.0, sm_90
//   Sc 1: mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [a], parity;  PTX 8.0, sm_90
template <int Sc>
__device__ inline bool try_wait(std::uint32_t a, std::uint32_t parity) {
  std::uint32_t ok;
  if constexpr (Sc == 0)
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(ok) : "r"(a), "r"(parity) : "memory");
  else
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(ok) : "r"(a), "r"(parity) : "memory");
  return ok != 0;
}
// A wait with a watchdog: false if the phase did not complete within `budget` cycles.
template <int Sc>
__device__ inline bool wait(std::uint32_t a, std::uint32_t parity, long long budget = 1ll << 26) {
  const long long deadline = clock64() + budget;
  while (!try_wait<Sc>(a, parity))
    if (clock64() > deadline) return false;
  return true;
}
// mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [a], tx;     PTX 8.0, sm_90
__device__ inline void arrive_expect_tx(std::uint32_t a, std::uint32_t tx) {
  asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;" ::"r"(a), "r"(tx) : "memory");
}
// cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], size, [bar];   PTX 8.0, sm_90
__device__ inline void bulk_load(std::uint32_t dst, const void* src, std::uint32_t bytes, std::uint32_t bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst), "l"(src),
               "r"(bytes), "r"(bar)
               : "memory");
}
// cp.async.bulk.global.shared::cta.bulk_group [dst], [src], size;       PTX 8.0, sm_90
__device__ inline void bulk_store(void* dst, std::uint32_t src, std::uint32_t bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(src), "r"(bytes) : "memory");
}
// cp.async.bulk.commit_group;                                           PTX 8.0, sm_90
__device__ inline void commit_group() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
// cp.async.bulk.wait_group.read 0;                                      PTX 8.0, sm_90
__device__ inline void wait_group_read0() { asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory"); }
// cp.async.bulk.wait_group 0;                                           PTX 8.0, sm_90
__device__ inline void wait_group0() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }
// barrier.sync.aligned 0;  (__syncthreads)                              PTX 6.0, sm_70
__device__ inline void bar_sync0() { asm volatile("barrier.sync.aligned 0;" ::: "memory"); }
// barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;   PTX 8.0, sm_90
__device__ inline void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// Outcome counters: slot k of `out` counts outcome k of the test (host table).
__device__ inline void add(unsigned long long* out, int k, unsigned long long n) {
  if (n) atomicAdd(&out[k], n);
}

// 1. scope_{cta,cluster}_remote_arrive. A 2-CTA cluster; lane l of warp 0 is
// one instance: in CTA 1 the producer writes the datum, then arrives on CTA
// 0's full[l] remotely (release scope Rel: 0 .cta, 1 .cluster, 2 .relaxed
// control); in CTA 0 the consumer waits on full[l] (acquire scope Acq: 0 .cta,
// 1 .cluster) and reads the datum. Push: the datum lives in CTA 0 and CTA 1
// writes it through DSMEM; pull: it lives in CTA 1 and CTA 0 reads it through
// DSMEM. The buffer is handed back by a remote arrive on CTA 1's empty[l]
// (.release.cluster / .acquire.cluster, the ISA-correct direction). Warp 1
// stresses local memory, warp 2 the DSMEM path (stores into the peer's scratch).
// Outcomes: 0 fresh, 1 stale (an older datum), 2 future (a newer one: the
// hand-back failed), 3 hung (watchdog).
template <int Rel, int Acq, bool Pull>
__global__ void remote_arrive_mp(int iters, std::uint32_t seed0, unsigned long long* out, std::uint32_t* gscratch) {
  __shared__ alignas(8) std::uint64_t full[32], empty[32];
  __shared__ alignas(128) std::uint32_t data[32];
  __shared__ alignas(128) volatile std::uint32_t scratch[64];
  __shared__ alignas(128) std::uint32_t rscratch[64];
  __shared__ volatile int stop;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::uint32_t rank = cluster_rank();
  std::uint32_t seed = seed0 ^ (blockIdx.x * 7919u + threadIdx.x * 104729u) | 1u;
  if (threadIdx.x < 32) {
    mbar_init(saddr(&full[lane]), 1);
    mbar_init(saddr(&empty[lane]), 1);
    data[lane] = 0;
    fence_mbar_init();  // each initialising thread: its inits before the peer's remote arrives
  }
  if (threadIdx.x == 0) stop = 0;
  cluster_sync();
  unsigned long long fresh = 0, stale = 0, future = 0, hung = 0;
  if (warp == 0) {
    if (rank == 1) {  // producer
      const std::uint32_t rfull = mapa(saddr(&full[lane]), 0);
      const std::uint32_t dat = Pull ? saddr(&data[lane]) : mapa(saddr(&data[lane]), 0);
      for (int i = 0; i < iters; ++i) {
        if (!wait<1>(saddr(&empty[lane]), (i & 1) ^ 1)) break;  // a fresh barrier's parity 1 is complete
        jitter(seed);
        if (Pull) st_cta(dat, static_cast<std::uint32_t>(i + 1));
        else st_cluster(dat, static_cast<std::uint32_t>(i + 1));
        arrive_remote<Rel>(rfull);
      }
    } else {  // consumer
      const std::uint32_t rempty = mapa(saddr(&empty[lane]), 1);
      const std::uint32_t dat = Pull ? mapa(saddr(&data[lane]), 1) : saddr(&data[lane]);
      for (int i = 0; i < iters; ++i) {
        if (!wait<Acq>(saddr(&full[lane]), i & 1)) {
          ++hung;
          break;
        }
        const std::uint32_t v = Pull ? ld_cluster(dat) : ld_cta(dat);
        const std::uint32_t want = static_cast<std::uint32_t>(i + 1);
        if (v == want) ++fresh;
        else if (v < want) ++stale;
        else ++future;
        jitter(seed);
        arrive_remote<1>(rempty);
      }
    }
    __syncwarp();
    if (lane == 0) stop = 1;
  } else if (warp == 1) {
    stress(scratch, gscratch, seed, &stop);
  } else {
    const std::uint32_t peer = mapa(saddr(&rscratch[0]), rank ^ 1);
    while (!stop) {
      const std::uint32_t r = xorshift(seed);
      st_cluster(peer + 4 * ((lane + r) & 63), r);
    }
  }
  cluster_sync();  // neither CTA exits while the other may still touch its shared memory
  if (rank == 0 && warp == 0) {
    add(out, 0, fresh);
    add(out, 1, stale);
    add(out, 2, future);
    add(out, 3, hung);
  }
}

// 2. init_then_own_tma_no_fence. Lane l of warp 0 is one instance, on its own
// barrier: mbarrier.init (count 1), then with no fence.mbarrier_init and no
// fence.proxy.async (Fence: both, the control) arrive.expect_tx 16 and a
// 16-byte cp.async.bulk global->shared completing on that barrier; wait with
// a watchdog; check the 16 bytes; inval. Warp 1 stresses.
// Outcomes: 0 completed with the right data, 1 completed with wrong data,
// 2 hung (watchdog). A fault is seen by the host.
template <bool Fence>
__global__ void init_own_tma(int iters, const std::uint32_t* src, int chunks, unsigned long long* out, std::uint32_t* gscratch) {
  __shared__ alignas(8) std::uint64_t bars[32];
  __shared__ alignas(128) std::uint32_t dst[32][4];
  __shared__ alignas(128) volatile std::uint32_t scratch[64];
  __shared__ volatile int stop;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  std::uint32_t seed = 0x9e3779b9u ^ (blockIdx.x * 7919u + threadIdx.x * 104729u) | 1u;
  if (threadIdx.x == 0) stop = 0;
  __syncthreads();
  unsigned long long ok = 0, wrong = 0, hung = 0;
  if (warp == 0) {
    const std::uint32_t bar = saddr(&bars[lane]), d = saddr(&dst[lane][0]);
    for (int i = 0; i < iters; ++i) {
      const int c = static_cast<int>((blockIdx.x * 32u + lane * 7u + i * 13u) % static_cast<unsigned>(chunks));
      mbar_init(bar, 1);
      if (Fence) {
        fence_mbar_init();
        fence_proxy_async();
      }
      arrive_expect_tx(bar, 16);
      bulk_load(d, src + 4 * c, 16, bar);
      if (!wait<0>(bar, 0, 1ll << 24)) {
        ++hung;
        break;
      }
      bool good = true;
      for (int k = 0; k < 4; ++k) good &= ld_cta(d + 4 * k) == static_cast<std::uint32_t>(4 * c + k + 1);
      if (good) ++ok;
      else ++wrong;
      mbar_inval(bar);
    }
    __syncwarp();
    if (lane == 0) stop = 1;
  } else {
    stress(scratch, gscratch, seed, &stop);
  }
  if (warp == 0) {
    add(out, 0, ok);
    add(out, 1, wrong);
    add(out, 2, hung);
  }
}

// 2b. init_then_other_tma_no_fence (Triton's prologue: one thread inits the
// barriers, a CTA barrier, another warp's TMA on them). Lane l of warp 0
// inits barrier l (count 1), with no fence.mbarrier_init and no
// fence.proxy.async (Fence: both, the control); named barrier 1 (warps 0
// and 1); lane l of warp 1 arms it with arrive.expect_tx 16 and issues a
// 16-byte cp.async.bulk global->shared on it, waits with a watchdog and
// checks the 16 bytes; named barrier 2; lane l of warp 0 invalidates it.
// Warp 2 stresses. Outcomes: 0 right data, 1 wrong data, 2 hung.
template <bool Fence>
__global__ void init_other_tma(int iters, const std::uint32_t* src, int chunks, unsigned long long* out, std::uint32_t* gscratch) {
  __shared__ alignas(8) std::uint64_t bars[32];
  __shared__ alignas(128) std::uint32_t dst[32][4];
  __shared__ alignas(128) volatile std::uint32_t scratch[64];
  __shared__ volatile int stop;
  __shared__ volatile int abort_run;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  std::uint32_t seed = 0x9e3779b9u ^ (blockIdx.x * 7919u + threadIdx.x * 104729u) | 1u;
  if (threadIdx.x == 0) stop = 0, abort_run = 0;
  __syncthreads();
  unsigned long long ok = 0, wrong = 0, hung = 0;
  if (warp < 2) {
    const std::uint32_t bar = saddr(&bars[lane]), d = saddr(&dst[lane][0]);
    for (int i = 0; i < iters; ++i) {
      const int c = static_cast<int>((blockIdx.x * 32u + lane * 7u + i * 13u) % static_cast<unsigned>(chunks));
      if (warp == 0) {
        mbar_init(bar, 1);
        if (Fence) {
          fence_mbar_init();
          fence_proxy_async();
        }
      }
      asm volatile("barrier.sync.aligned 1, 64;" ::: "memory");
      if (warp == 1) {
        arrive_expect_tx(bar, 16);
        bulk_load(d, src + 4 * c, 16, bar);
        if (!wait<0>(bar, 0, 1ll << 24)) {
          ++hung;
          abort_run = 1;
        } else {
          bool good = true;
          for (int k = 0; k < 4; ++k) good &= ld_cta(d + 4 * k) == static_cast<std::uint32_t>(4 * c + k + 1);
          if (good) ++ok;
          else ++wrong;
        }
      }
      asm volatile("barrier.sync.aligned 2, 64;" ::: "memory");
      if (abort_run) break;
      if (warp == 0) mbar_inval(bar);
    }
    asm volatile("barrier.sync.aligned 3, 64;" ::: "memory");
    if (threadIdx.x == 0) stop = 1;
  } else {
    stress(scratch, gscratch, seed, &stop);
  }
  if (warp == 1) {
    add(out, 0, ok);
    add(out, 1, wrong);
    add(out, 2, hung);
  }
}

// 2c. generic_write_then_tma_overwrite (Triton's reuse of shared memory:
// the word tcgen05.alloc wrote its address to, read after a barrier, is later
// a TMA destination, with no proxy fence between). Lane l of warp 1 inits its
// mbarrier once (fenced). Each round, lane l of warp 0 writes row l (32
// bytes: the 16 the copy overwrites and the 16 after them) with generic
// stores of values of that round (Fence: then fence.proxy.async, the
// control); named barrier 1 (warps 0 and 1); lane l of warp 1 arms its
// mbarrier with arrive.expect_tx 16, issues a 16-byte cp.async.bulk into the
// row's first half, waits for the round's phase with a watchdog and checks
// the row: the copy's 16 bytes, then the generic values after them; named
// barrier 2. Warp 2 stresses. Outcomes: 0 right data, 1 a generic value where
// the copy wrote, 2 the neighbour lost its generic value, 3 hung.
template <bool Fence>
__global__ void write_then_tma(int iters, const std::uint32_t* src, int chunks, unsigned long long* out, std::uint32_t* gscratch) {
  __shared__ alignas(8) std::uint64_t bars[32];
  __shared__ alignas(128) std::uint32_t rows[32][8];
  __shared__ alignas(128) volatile std::uint32_t scratch[64];
  __shared__ volatile int stop;
  __shared__ volatile int abort_run;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  std::uint32_t seed = 0x9e3779b9u ^ (blockIdx.x * 7919u + threadIdx.x * 104729u) | 1u;
  const std::uint32_t bar = saddr(&bars[lane]), row = saddr(&rows[lane][0]);
  if (threadIdx.x == 0) stop = 0, abort_run = 0;
  if (warp == 1) {
    mbar_init(bar, 1);
    fence_mbar_init();
    fence_proxy_async();
  }
  __syncthreads();
  unsigned long long ok = 0, lost_copy = 0, lost_neighbour = 0, hung = 0;
  if (warp < 2) {
    for (int i = 0; i < iters; ++i) {
      const int c = static_cast<int>((blockIdx.x * 32u + lane * 7u + i * 13u) % static_cast<unsigned>(chunks));
      const std::uint32_t mark = 0x80000000u | (static_cast<std::uint32_t>(i) << 8) | (static_cast<std::uint32_t>(lane) << 3);
      if (warp == 0) {
        for (int k = 0; k < 8; ++k) st_cta(row + 4 * k, mark | k);
        if (Fence) fence_proxy_async();
      }
      asm volatile("barrier.sync.aligned 1, 64;" ::: "memory");
      if (warp == 1) {
        arrive_expect_tx(bar, 16);
        bulk_load(row, src + 4 * c, 16, bar);
        if (!wait<0>(bar, static_cast<std::uint32_t>(i & 1), 1ll << 24)) {
          ++hung;
          abort_run = 1;
        } else {
          bool copy = true, neighbour = true;
          for (int k = 0; k < 4; ++k) copy &= ld_cta(row + 4 * k) == static_cast<std::uint32_t>(4 * c + k + 1);
          for (int k = 4; k < 8; ++k) neighbour &= ld_cta(row + 4 * k) == (mark | k);
          if (!copy) ++lost_copy;
          else if (!neighbour) ++lost_neighbour;
          else ++ok;
        }
      }
      asm volatile("barrier.sync.aligned 2, 64;" ::: "memory");
      if (abort_run) break;
    }
    asm volatile("barrier.sync.aligned 3, 64;" ::: "memory");
    if (threadIdx.x == 0) stop = 1;
  } else {
    stress(scratch, gscratch, seed, &stop);
  }
  if (warp == 1) {
    add(out, 0, ok);
    add(out, 1, lost_copy);
    add(out, 2, lost_neighbour);
    add(out, 3, hung);
  }
}

// barrier.sync.aligned 1, 128;  (a named barrier over the 128 readers)    PTX 6.0, sm_70
__device__ inline void bar_sync_readers() { asm volatile("barrier.sync.aligned 1, 128;" ::: "memory"); }
// barrier.red.or.pred p, 2, 128, q;  (bar.red over the 128 readers)        PTX 6.0, sm_70
__device__ inline bool bar_or_readers(bool q) {
  std::uint32_t r;
  asm volatile("{ .reg .pred p, q; setp.ne.u32 q, %1, 0; bar.red.or.pred p, 2, 128, q; selp.u32 %0, 1, 0, p; }"
               : "=r"(r) : "r"(q ? 1u : 0u) : "memory");
  return r != 0;
}

// 3. generic_read_then_tma_overwrite. Warps 0-3 (the readers) read all of a
// 4 KB buffer with generic loads (ld.shared, 32 a thread; Conflicts: each
// warp's load is a 32-way bank conflict, so that the loads queue; else each
// warp's load reads 32 consecutive words), then
//   Mode 0: barrier.sync over the readers (no fence.proxy.async); thread 0
//           issues a 4 KB cp.async.bulk into the same buffer;
//   Mode 1: each reader arrives (.release.cta) on an `empty` mbarrier (count
//           128), thread 0 waits on it (.acquire.cta), then issues the copy:
//           the CUTLASS consumer-release / producer-acquire shape;
//   Mode 2: control: thread 0 issues the copy before the reads, with no
//           ordering at all, to show that the test can see new data;
//   Mode 3: control, the letter's way: each reader fence.proxy.async after its
//           reads, then barrier.sync and the copy as in mode 0;
//   Mode 4: control of the classification: each reader stores the xor of the
//           values it read to a sink word (so its loads have returned) before
//           the barrier.sync of mode 0; no proxy fence.
// Every reader then waits on `full` for the copy and checks the values it
// read before it. Warp 4 stresses. The buffer held chunk c(i-1) (the previous
// copy, async proxy too); the copy writes chunk c(i); word w of chunk c is
// c * 1024 + w + 1.
// Outcomes per overwrite: 0 every read returned the old data, 1 some read
// returned the new data (none neither), 2 some read returned neither, 3 hung
// (watchdog). Slots 8-10 count loads: all, new, neither.
constexpr int rt_words = 1024, rt_readers = 128;
template <int Mode, bool Conflicts>
__global__ void read_then_tma(int iters, const std::uint32_t* src, int chunks, unsigned long long* out, std::uint32_t* gscratch) {
  __shared__ alignas(128) std::uint32_t buf[rt_words];
  __shared__ alignas(8) std::uint64_t fullb, emptyb;
  __shared__ std::uint32_t sink[rt_readers];
  __shared__ alignas(128) volatile std::uint32_t scratch[64];
  __shared__ volatile int stop;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, tid = threadIdx.x;
  std::uint32_t seed = 0x85ebca6bu ^ (blockIdx.x * 7919u + threadIdx.x * 104729u) | 1u;
  const std::uint32_t full = saddr(&fullb), empty = saddr(&emptyb), b = saddr(&buf[0]);
  auto chunk = [&](int i) { return (blockIdx.x + 7u * static_cast<unsigned>(i)) % static_cast<unsigned>(chunks); };
  if (tid == 0) {
    mbar_init(full, 1);
    mbar_init(empty, rt_readers);
    stop = 0;
    fence_mbar_init();
    fence_proxy_async();
  }
  __syncthreads();
  if (warp >= rt_readers / 32) {
    stress(scratch, gscratch, seed, &stop);
    return;
  }
  unsigned long long res[4] = {0, 0, 0, 0}, loads = 0, lnew = 0, lother = 0;
  if (tid == 0) {  // the buffer's first contents, written by the async proxy as well
    arrive_expect_tx(full, rt_words * 4);
    bulk_load(b, src + static_cast<std::size_t>(chunk(0)) * rt_words, rt_words * 4, full);
  }
  bool alive = wait<0>(full, 0);
  if (bar_or_readers(!alive)) {
    res[3] = 1;
  } else {
    for (int i = 1; i <= iters; ++i) {
      const std::uint32_t oldbase = chunk(i - 1) * rt_words, newbase = chunk(i) * rt_words;
      const std::uint32_t* next = src + static_cast<std::size_t>(chunk(i)) * rt_words;
      if (Mode == 2 && tid == 0) {
        arrive_expect_tx(full, rt_words * 4);
        bulk_load(b, next, rt_words * 4, full);
      }
      // word read by load k of this thread
      auto word = [&](int k) {
        return Conflicts ? static_cast<std::uint32_t>(lane * 32 + ((k + warp * 8) & 31))
                         : static_cast<std::uint32_t>((k * rt_readers + warp * 32 + lane) & (rt_words - 1));
      };
      std::uint32_t v[32];
#pragma unroll
      for (int k = 0; k < 32; ++k) v[k] = ld_cta(b + 4u * word(k));
      if (Mode == 3) fence_proxy_async();
      if (Mode == 4) {
        std::uint32_t x = 0;
#pragma unroll
        for (int k = 0; k < 32; ++k) x ^= v[k];
        st_cta(saddr(&sink[tid]), x);
      }
      if (Mode == 0 || Mode == 3 || Mode == 4) bar_sync_readers();
      if (Mode == 1) arrive_local(empty);
      if (tid == 0 && Mode != 2) {
        if (Mode == 1 && !wait<0>(empty, (i - 1) & 1)) alive = false;
        if (alive) {
          arrive_expect_tx(full, rt_words * 4);
          bulk_load(b, next, rt_words * 4, full);
        }
      }
      if (alive && !wait<0>(full, i & 1)) alive = false;
      int saw_new = 0, saw_other = 0;
#pragma unroll
      for (int k = 0; k < 32; ++k) {
        const std::uint32_t idx = word(k);
        if (v[k] == oldbase + idx + 1) continue;
        if (v[k] == newbase + idx + 1) ++saw_new;
        else ++saw_other;
      }
      const bool any_hung = bar_or_readers(!alive);
      const bool any_other = bar_or_readers(saw_other != 0);
      const bool any_new = bar_or_readers(saw_new != 0);
      if (any_hung) {
        ++res[3];
        break;
      }
      loads += 32;
      lnew += static_cast<unsigned>(saw_new);
      lother += static_cast<unsigned>(saw_other);
      ++res[any_other ? 2 : any_new ? 1 : 0];
    }
  }
  if (tid == 0) {
    stop = 1;
    for (int k = 0; k < 4; ++k) add(out, k, res[k]);
  }
  add(out, 8, loads);
  add(out, 9, lnew);
  add(out, 10, lother);
}

// 4. leader_wait_group_read_then_lanes_write. Each of warps 0-3 is one
// instance per iteration, with its own 128-byte staging buffer: every lane
// writes its word (generic), fence.proxy.async, __syncwarp; lane 0 issues a
// 128-byte cp.async.bulk shared->global store (bulk async-group),
// commit_group, and then
//   Mode 0: wait_group.read 0; lanes 1-31 then overwrite their words with no
//           __syncwarp and no barrier, written as CUDA C++: `if (lane == 0)
//           {...}` then `if (lane != 0) overwrite` (the compiler may, and
//           nvcc 13.0 does, merge the two into one if/else, the overwrite on
//           the other path);
//   Mode 3: the same order kept in the PTX: one asm block of predicated
//           instructions, straight-line: @p copy, @p commit, @p wait_group.read
//           0, @!p st.shared (no branch, no __syncwarp);
//   Mode 1: control: wait_group.read 0, __syncwarp, then the overwrite (the
//           letter's way);
//   Mode 2: control: no wait_group.read before the overwrite (a race, to
//           show that the test can see new values).
// Lane 0 then waits (wait_group 0) for the store to complete and reads the
// 32 global words. Warp 4 stresses.
// Outcomes per store: 0 global holds the old (pre-overwrite) words, 1 some word
// is a new (overwritten) value (none neither), 2 some word is neither.
// Slots 8-9 count words: all, new.
template <int Mode>
__global__ void leader_store(int iters, std::uint32_t* gdst, unsigned long long* out, std::uint32_t* gscratch) {
  __shared__ alignas(128) std::uint32_t stage[4][32];
  __shared__ alignas(128) volatile std::uint32_t scratch[64];
  __shared__ volatile int stop;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  std::uint32_t seed = 0xc2b2ae35u ^ (blockIdx.x * 7919u + threadIdx.x * 104729u) | 1u;
  if (threadIdx.x == 0) stop = 0;
  __syncthreads();
  if (warp == 4) {
    stress(scratch, gscratch, seed, &stop);
    return;
  }
  std::uint32_t* g = gdst + (static_cast<std::size_t>(blockIdx.x) * 4 + warp) * 32;
  const std::uint32_t s = saddr(&stage[warp][0]);
  unsigned long long res[3] = {0, 0, 0}, words = 0, wnew = 0;
  for (int i = 0; i < iters; ++i) {
    const std::uint32_t v = (static_cast<std::uint32_t>(i) * 2654435761u) ^ (blockIdx.x * 4u + warp) * 40503u;
    st_cta(s + 4u * lane, v + lane);
    fence_proxy_async();
    __syncwarp();
    if (Mode == 3) {
      // setp; @p cp.async.bulk.global.shared::cta.bulk_group; @p cp.async.bulk.commit_group;
      // @p cp.async.bulk.wait_group.read 0; @!p st.shared::cta.u32      PTX 8.0, sm_90
      asm volatile(
          "{ .reg .pred p; setp.eq.u32 p, %0, 0;\n\t"
          "@p cp.async.bulk.global.shared::cta.bulk_group [%1], [%2], 128;\n\t"
          "@p cp.async.bulk.commit_group;\n\t"
          "@p cp.async.bulk.wait_group.read 0;\n\t"
          "@!p st.shared::cta.u32 [%3], %4; }" ::"r"(static_cast<std::uint32_t>(lane)),
          "l"(g), "r"(s), "r"(s + 4u * lane), "r"(~(v + lane))
          : "memory");
    } else {
      if (lane == 0) {
        bulk_store(g, s, 128);
        commit_group();
        if (Mode != 2) wait_group_read0();
      }
      if (Mode == 1) __syncwarp();
      if (lane != 0) st_cta(s + 4u * lane, ~(v + lane));
    }
    if (lane == 0) {
      wait_group0();
      int nnew = 0, nother = 0;
      for (int k = 0; k < 32; ++k) {
        const std::uint32_t w = reinterpret_cast<volatile std::uint32_t*>(g)[k];
        if (w == v + k) continue;
        if (k != 0 && w == ~(v + k)) ++nnew;
        else ++nother;
      }
      words += 32;
      wnew += static_cast<unsigned>(nnew);
      ++res[nother ? 2 : nnew ? 1 : 0];
    }
    __syncwarp();  // the next iteration's writes come after lane 0's check
  }
  if (lane == 0) {
    for (int k = 0; k < 3; ++k) add(out, k, res[k]);
    add(out, 8, words);
    add(out, 9, wnew);
  }
  asm volatile("barrier.sync.aligned 3, 128;" ::: "memory");  // barrier.sync: the four instance warps are done
  if (threadIdx.x == 0) stop = 1;
}

}  // namespace contested

// ---------------------------------------------------------------- contested points: the host side

namespace contested_host {

// An outcome of a test, and whether the PTX ISA's letter allows it there.
struct Outcome {
  const char* name;
  bool allowed;
};
struct Variant {
  std::string test;     // the point's name (--open NAME selects every variant of it)
  std::string variant;  // what this variant does
  bool control = false;  // a control: not the contested point itself
  std::vector<Outcome> outcomes;                  // counter slot k = outcome k
  std::vector<std::pair<int, std::string>> extra;  // counter slots 8.. (load or word counts)
  bool fault_allowed = false;                      // a fault (the kernel does not complete) is allowed by the letter
  std::function<cudaError_t(std::uint32_t)> launch;  // one launch with this seed; its launch error
  unsigned long long per_launch = 0, want = 0;
};
struct Result {
  std::vector<unsigned long long> counts;
  std::vector<unsigned long long> extra;
  unsigned long long instances = 0;
  double seconds = 0;
  std::string fault;  // non-empty: the launch failed (the context is lost) or the host timed out
  bool ran = false;
};

// Waits for the device with a deadline: a kernel that never returns is
// reported, not waited on for ever.
inline cudaError_t sync_deadline(double seconds, bool& timed_out) {
  timed_out = false;
  cudaEvent_t ev;
  cudaError_t e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
  if (e != cudaSuccess) return e;
  e = cudaEventRecord(ev);
  if (e != cudaSuccess) return e;
  const auto t0 = std::chrono::steady_clock::now();
  while ((e = cudaEventQuery(ev)) == cudaErrorNotReady) {
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > seconds) {
      timed_out = true;
      return e;
    }
    struct timespec ts{0, 1000000};
    nanosleep(&ts, nullptr);
  }
  cudaEventDestroy(ev);
  return e;
}

// The letter of the PTX ISA, per point, as the report states it.
inline const char* letter_of(const std::string& test) {
  if (test == "scope_cta_remote_arrive" || test == "scope_cluster_remote_arrive" || test == "scope_relaxed_remote_arrive")
    return "The consumer's wait synchronizes with the producer's arrive only if the two are morally strong: each "
           "operation's scope must include the other's thread (PTX ISA, Memory Consistency Model: morally strong "
           "operations; mbarrier.arrive / mbarrier.try_wait `.sem` and `.scope`). A `.release.cta` arrive by a thread of "
           "CTA 1 has a scope (CTA 1) that does not include the consumer in CTA 0, and an `.acquire.cta` wait in CTA 0 has a "
           "scope that does not include the producer in CTA 1: so only `.release.cluster` with `.acquire.cluster` orders the "
           "datum, and in the three other combinations a stale read is allowed. The arrive still counts whatever its "
           "scope, so a hang is never allowed; `future` (a newer datum) needs the hand-back, which is `.cluster` both ways, "
           "to fail, and is not allowed.";
  if (test == "init_then_own_tma_no_fence")
    return "mbarrier.init is a generic-proxy write of the barrier; the complete-tx of cp.async.bulk is performed by the "
           "async proxy. The ISA asks for a proxy fence between accesses of one location through two proxies, and "
           "names fence.mbarrier_init (or fence.proxy.async) as the fence that makes an mbarrier.init visible to the "
           "async proxy; the same thread issuing both does not remove the need. Without it the complete-tx may act on the "
           "barrier as it was before the init: the behaviour is not defined, so every outcome is allowed (right data, "
           "wrong data, a hang, a fault). With the fences (control) only `completed, right data` is allowed.";
  if (test == "init_then_other_tma_no_fence")
    return "As init_then_own_tma_no_fence, with the TMA issued by another warp after a named barrier that orders the "
           "init before it in the generic proxy: the barrier does not make a generic write visible to the async proxy "
           "(PTX ISA, Memory Consistency Model, Proxies), so without fence.mbarrier_init or fence.proxy.async by the "
           "initialising thread every outcome is allowed. With the fences (control) only `completed, right data` is "
           "allowed.";
  if (test == "generic_write_then_tma_overwrite")
    return "barrier.sync orders the generic proxy; a write by the async proxy after a generic write of the same "
           "location is, by the letter, ordered only through fence.proxy.async (PTX ISA, Memory Consistency Model, "
           "Proxies). Without one the two writes are not ordered, so the location may end with either value: the "
           "generic value where the copy wrote is allowed. The bytes next to them, which only the generic stores "
           "wrote, must keep their values (`neighbour lost` is not allowed), and the copy always completes (no hang). "
           "With the fence (control) only the copy's data is allowed.";
  if (test == "generic_read_then_tma_overwrite")
    return "barrier.sync (and an mbarrier release/acquire) orders the generic proxy; a write by the async proxy after "
           "generic reads of the same location is, by the letter, ordered only through fence.proxy.async (PTX ISA, "
           "Memory Consistency Model, Proxies: accesses of one location through different proxies need a proxy "
           "fence). Without one, the copy's write is not ordered after the reads, so a read may return the NEW data "
           "(allowed). Every read returns the value of some write of its location, so `neither` is not allowed; the "
           "copy always completes, so a hang is not allowed. The model (docs/spec.md) forbids `new` here: it treats "
           "the reads as ordered before the copy by the barrier alone, as CUTLASS's consumer release does.";
  if (test == "leader_wait_group_read_then_lanes_write")
    return "cp.async.bulk.wait_group.read 0 makes the executing thread (lane 0) wait until its bulk groups have read "
           "their source; the other lanes are not ordered after lane 0's wait by anything (falling out of lane 0's "
           "`if` is no synchronization: __syncwarp or a barrier is), so their overwrites race with the copy's "
           "async-proxy reads, and global memory may receive NEW (overwritten) values: allowed. A word is either "
           "the old or the new value, so `neither` is not allowed. With __syncwarp (control) only `old` is allowed.";
  return "";
}

// Runs every selected variant; the report is rewritten after each one, so a
// fault or a timeout keeps what ran before it.
inline int run(const std::vector<Variant>& vs, unsigned long long* dcounts, std::uint32_t seed, const std::string& report,
               const std::string& header, const std::string& command) {
  std::vector<Result> results(vs.size());
  auto write_report = [&]() {
    FILE* f = std::fopen(report.c_str(), "w");
    if (!f) {
      std::perror(report.c_str());
      return;
    }
    std::fprintf(f, "%s", header.c_str());
    std::fprintf(f, "- command: `%s`\n\n", command.c_str());
    std::string last;
    for (std::size_t k = 0; k < vs.size(); ++k) {
      const Variant& v = vs[k];
      const Result& r = results[k];
      if (v.test != last) {
        last = v.test;
        std::fprintf(f, "\n## %s\n\nISA letter: %s\n\n", v.test.c_str(), letter_of(v.test));
        std::fprintf(f, "| variant | outcome | count | ISA letter | seen |\n| --- | --- | --- | --- | --- |\n");
      }
      const std::string name = v.variant + (v.control ? " (control)" : "");
      if (!r.ran) {
        std::fprintf(f, "| %s | (not run) | | | |\n", name.c_str());
        continue;
      }
      for (std::size_t o = 0; o < v.outcomes.size(); ++o) {
        const unsigned long long c = r.counts[o];
        std::fprintf(f, "| %s | %s | %llu | %s | %s |\n", name.c_str(), v.outcomes[o].name, c,
                     v.outcomes[o].allowed ? "allowed" : "not allowed",
                     c ? (v.outcomes[o].allowed ? "seen" : "**seen, not allowed**") : (v.outcomes[o].allowed ? "**allowed, unseen**" : "-"));
      }
      std::fprintf(f, "| %s | fault / no return | %s | %s | %s |\n", name.c_str(), r.fault.empty() ? "0" : r.fault.c_str(),
                   v.fault_allowed ? "allowed" : "not allowed",
                   r.fault.empty() ? (v.fault_allowed ? "**allowed, unseen**" : "-") : (v.fault_allowed ? "seen" : "**seen, not allowed**"));
      std::string ex;
      for (std::size_t e = 0; e < v.extra.size(); ++e)
        ex += (e ? ", " : "") + v.extra[e].second + " " + std::to_string(r.extra[e]);
      std::fprintf(f, "| %s | (instances %llu%s%s; %.2f s) | | | |\n", name.c_str(), r.instances, ex.empty() ? "" : "; ", ex.c_str(),
                   r.seconds);
    }
    std::fclose(f);
  };
  int rc = 0;
  for (std::size_t k = 0; k < vs.size(); ++k) {
    const Variant& v = vs[k];
    Result& r = results[k];
    r.counts.assign(v.outcomes.size(), 0);
    r.extra.assign(v.extra.size(), 0);
    r.ran = true;
    CUDA_CHECK(cudaMemset(dcounts, 0, 16 * sizeof(unsigned long long)));
    const auto t0 = std::chrono::steady_clock::now();
    unsigned long long launched = 0;
    cudaError_t e = cudaSuccess;
    bool timed_out = false;
    for (std::uint32_t s = 0; launched < v.want && e == cudaSuccess && !timed_out; ++s) {
      e = v.launch(seed + s);
      launched += v.per_launch;
      if (e == cudaSuccess && (s % 16 == 15 || launched >= v.want)) e = sync_deadline(120.0, timed_out);
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (timed_out) r.fault = "no return within 120 s";
    else if (e != cudaSuccess) r.fault = std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ")";
    if (r.fault.empty()) {
      unsigned long long h[16];
      CUDA_CHECK(cudaMemcpy(h, dcounts, sizeof h, cudaMemcpyDeviceToHost));
      for (std::size_t o = 0; o < v.outcomes.size(); ++o) r.instances += r.counts[o] = h[o];
      for (std::size_t x = 0; x < v.extra.size(); ++x) r.extra[x] = h[v.extra[x].first];
    }
    std::printf("%-40s %-44s %12llu instances ", v.test.c_str(), (v.variant + (v.control ? " (control)" : "")).c_str(), r.instances);
    for (std::size_t o = 0; o < v.outcomes.size(); ++o) std::printf(" %s %llu", v.outcomes[o].name, r.counts[o]);
    for (std::size_t x = 0; x < v.extra.size(); ++x) std::printf(" [%s %llu]", v.extra[x].second.c_str(), r.extra[x]);
    if (!r.fault.empty()) std::printf("  FAULT: %s", r.fault.c_str());
    std::printf("  %.3f s\n", r.seconds);
    std::fflush(stdout);
    for (std::size_t o = 0; o < v.outcomes.size(); ++o)
      if (r.counts[o] && !v.outcomes[o].allowed) rc = 1;
    write_report();
    if (!r.fault.empty()) {
      if (!v.fault_allowed) rc = 1;
      std::printf("the context is lost after a fault or a timeout: the remaining variants are not run\n");
      std::fflush(stdout);
      std::_Exit(rc ? rc : 4);  // a timed-out kernel may still run: leave without waiting for it
    }
  }
  return rc;
}

inline bool is_test(const std::string& n) {
  return n == "scope_cta_remote_arrive" || n == "scope_cluster_remote_arrive" || n == "scope_relaxed_remote_arrive" ||
         n == "init_then_own_tma_no_fence" || n == "init_then_other_tma_no_fence" || n == "generic_write_then_tma_overwrite" ||
         n == "generic_read_then_tma_overwrite" ||
         n == "leader_wait_group_read_then_lanes_write";
}

}  // namespace contested_host

namespace contested_host {

template <int Rel, int Acq, bool Pull>
cudaError_t launch_remote(int blocks, int iters, std::uint32_t s, unsigned long long* out, std::uint32_t* g) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(static_cast<unsigned>(blocks));
  cfg.blockDim = dim3(96);
  cfg.dynamicSmemBytes = 0;
  cfg.stream = nullptr;
  cudaLaunchAttribute a[1];
  a[0].id = cudaLaunchAttributeClusterDimension;
  a[0].val.clusterDim.x = 2;
  a[0].val.clusterDim.y = 1;
  a[0].val.clusterDim.z = 1;
  cfg.attrs = a;
  cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, contested::remote_arrive_mp<Rel, Acq, Pull>, iters, s, out, g);
}

// The four points and their controls. `want`: instances per variant (controls a quarter).
inline std::vector<Variant> variants(int sms, unsigned long long want, unsigned long long* out, std::uint32_t* gscratch,
                                     const std::uint32_t* src16, int chunks16, const std::uint32_t* src4k, int chunks4k,
                                     std::uint32_t* gdst) {
  std::vector<Variant> vs;
  const unsigned long long ctl = want / 4 ? want / 4 : 1;
  // 1. remote arrive scopes.
  {
    const int blocks = (sms / 2) * 2 * 8, iters = 1024;
    const unsigned long long per = static_cast<unsigned long long>(blocks / 2) * 32 * iters;
    const std::vector<Outcome> oc = {{"fresh", true}, {"stale", true}, {"future", false}, {"hung", false}};
    const std::vector<Outcome> oc_ordered = {{"fresh", true}, {"stale", false}, {"future", false}, {"hung", false}};
    auto add = [&](const char* test, const char* name, bool control, bool ordered, auto launch) {
      Variant v;
      v.test = test;
      v.variant = name;
      v.control = control;
      v.outcomes = ordered ? oc_ordered : oc;
      v.launch = launch;
      v.per_launch = per;
      v.want = control ? ctl : want;
      vs.push_back(v);
    };
    add("scope_cta_remote_arrive", "push: release.cta / acquire.cta", false, false,
        [=](std::uint32_t s) { return launch_remote<0, 0, false>(blocks, iters, s, out, gscratch); });
    add("scope_cta_remote_arrive", "push: release.cta / acquire.cluster", false, false,
        [=](std::uint32_t s) { return launch_remote<0, 1, false>(blocks, iters, s, out, gscratch); });
    add("scope_cta_remote_arrive", "pull: release.cta / acquire.cta", false, false,
        [=](std::uint32_t s) { return launch_remote<0, 0, true>(blocks, iters, s, out, gscratch); });
    add("scope_cta_remote_arrive", "pull: release.cta / acquire.cluster", false, false,
        [=](std::uint32_t s) { return launch_remote<0, 1, true>(blocks, iters, s, out, gscratch); });
    add("scope_cluster_remote_arrive", "push: release.cluster / acquire.cta", false, false,
        [=](std::uint32_t s) { return launch_remote<1, 0, false>(blocks, iters, s, out, gscratch); });
    add("scope_cluster_remote_arrive", "push: release.cluster / acquire.cluster", false, true,
        [=](std::uint32_t s) { return launch_remote<1, 1, false>(blocks, iters, s, out, gscratch); });
    add("scope_cluster_remote_arrive", "pull: release.cluster / acquire.cta", false, false,
        [=](std::uint32_t s) { return launch_remote<1, 0, true>(blocks, iters, s, out, gscratch); });
    add("scope_cluster_remote_arrive", "pull: release.cluster / acquire.cluster", false, true,
        [=](std::uint32_t s) { return launch_remote<1, 1, true>(blocks, iters, s, out, gscratch); });
    add("scope_relaxed_remote_arrive", "push: relaxed.cluster / acquire.cluster", true, false,
        [=](std::uint32_t s) { return launch_remote<2, 1, false>(blocks, iters, s, out, gscratch); });
    add("scope_relaxed_remote_arrive", "pull: relaxed.cluster / acquire.cluster", true, false,
        [=](std::uint32_t s) { return launch_remote<2, 1, true>(blocks, iters, s, out, gscratch); });
  }
  // 3. generic reads, then a TMA overwrite.
  {
    const int blocks = sms * 8, iters = 256;
    const unsigned long long per = static_cast<unsigned long long>(blocks) * iters;
    const std::vector<std::pair<int, std::string>> ex = {{8, "loads"}, {9, "new loads"}, {10, "neither loads"}};
    auto mk = [&](const char* name, bool control, bool new_allowed, std::function<cudaError_t(std::uint32_t)> launch) {
      Variant v;
      v.test = "generic_read_then_tma_overwrite";
      v.variant = name;
      v.control = control;
      v.outcomes = {{"old", true}, {"new", new_allowed}, {"neither", false}, {"hung", false}};
      v.extra = ex;
      v.launch = launch;
      v.per_launch = per;
      v.want = (control ? ctl : want) / 64 ? (control ? ctl : want) / 64 : 1;  // an overwrite is 4096 loads
      vs.push_back(v);
    };
    mk("conflicting reads; barrier.sync; TMA load", false, true, [=](std::uint32_t) {
      contested::read_then_tma<0, true><<<blocks, 160>>>(iters, src4k, chunks4k, out, gscratch);
      return cudaPeekAtLastError();
    });
    mk("conflict-free reads; barrier.sync; TMA load", false, true, [=](std::uint32_t) {
      contested::read_then_tma<0, false><<<blocks, 160>>>(iters, src4k, chunks4k, out, gscratch);
      return cudaPeekAtLastError();
    });
    mk("conflicting reads; mbarrier arrive / wait; TMA load", false, true, [=](std::uint32_t) {
      contested::read_then_tma<1, true><<<blocks, 160>>>(iters, src4k, chunks4k, out, gscratch);
      return cudaPeekAtLastError();
    });
    mk("conflict-free reads; mbarrier arrive / wait; TMA load", false, true, [=](std::uint32_t) {
      contested::read_then_tma<1, false><<<blocks, 160>>>(iters, src4k, chunks4k, out, gscratch);
      return cudaPeekAtLastError();
    });
    mk("conflicting reads; values used (sink store); barrier.sync; TMA load", true, true, [=](std::uint32_t) {
      contested::read_then_tma<4, true><<<blocks, 160>>>(iters, src4k, chunks4k, out, gscratch);
      return cudaPeekAtLastError();
    });
    mk("conflicting reads; fence.proxy.async; barrier.sync; TMA load", true, false, [=](std::uint32_t) {
      contested::read_then_tma<3, true><<<blocks, 160>>>(iters, src4k, chunks4k, out, gscratch);
      return cudaPeekAtLastError();
    });
    mk("TMA load concurrent with the conflicting reads", true, true, [=](std::uint32_t) {
      contested::read_then_tma<2, true><<<blocks, 160>>>(iters, src4k, chunks4k, out, gscratch);
      return cudaPeekAtLastError();
    });
  }
  // 4. the leader's wait_group.read, then the other lanes' writes.
  {
    const int blocks = sms * 16, iters = 256;
    const unsigned long long per = static_cast<unsigned long long>(blocks) * 4 * iters;
    const std::vector<std::pair<int, std::string>> ex = {{8, "words"}, {9, "new words"}};
    auto mk = [&](const char* name, bool control, bool new_allowed, std::function<cudaError_t(std::uint32_t)> launch) {
      Variant v;
      v.test = "leader_wait_group_read_then_lanes_write";
      v.variant = name;
      v.control = control;
      v.outcomes = {{"old", true}, {"new", new_allowed}, {"neither", false}};
      v.extra = ex;
      v.launch = launch;
      v.per_launch = per;
      v.want = control ? ctl : want;
      vs.push_back(v);
    };
    mk("C++: if (lane 0) {copy; wait_group.read 0} if (lane != 0) write", false, true, [=](std::uint32_t) {
      contested::leader_store<0><<<blocks, 160>>>(iters, gdst, out, gscratch);
      return cudaPeekAtLastError();
    });
    mk("PTX order: @p copy; @p wait_group.read 0; @!p write", false, true, [=](std::uint32_t) {
      contested::leader_store<3><<<blocks, 160>>>(iters, gdst, out, gscratch);
      return cudaPeekAtLastError();
    });
    mk("lane 0 wait_group.read 0; __syncwarp; lanes write", true, false, [=](std::uint32_t) {
      contested::leader_store<1><<<blocks, 160>>>(iters, gdst, out, gscratch);
      return cudaPeekAtLastError();
    });
    mk("no wait_group.read; lanes write", true, true, [=](std::uint32_t) {
      contested::leader_store<2><<<blocks, 160>>>(iters, gdst, out, gscratch);
      return cudaPeekAtLastError();
    });
  }
  // 2. init, then the thread's own TMA with no fence: last, since a fault takes the context.
  {
    const int blocks = sms * 16, iters = 256;
    const unsigned long long per = static_cast<unsigned long long>(blocks) * 32 * iters;
    Variant v;
    v.test = "init_then_own_tma_no_fence";
    v.variant = "fence.mbarrier_init + fence.proxy.async after the init";
    v.control = true;
    v.outcomes = {{"completed, right data", true}, {"completed, wrong data", false}, {"hung", false}};
    v.launch = [=](std::uint32_t) {
      contested::init_own_tma<true><<<blocks, 64>>>(iters, src16, chunks16, out, gscratch);
      return cudaPeekAtLastError();
    };
    v.per_launch = per;
    v.want = ctl;
    vs.push_back(v);
    v.variant = "init; arrive.expect_tx; TMA load (no fence)";
    v.control = false;
    v.outcomes = {{"completed, right data", true}, {"completed, wrong data", true}, {"hung", true}};
    v.fault_allowed = true;
    v.launch = [=](std::uint32_t) {
      contested::init_own_tma<false><<<blocks, 64>>>(iters, src16, chunks16, out, gscratch);
      return cudaPeekAtLastError();
    };
    v.want = want;
    vs.push_back(v);
  }
  // 2b. init by warp 0, named barrier, warp 1's TMA with no fence (Triton's prologue).
  {
    const int blocks = sms * 16, iters = 256;
    const unsigned long long per = static_cast<unsigned long long>(blocks) * 32 * iters;
    Variant v;
    v.test = "init_then_other_tma_no_fence";
    v.variant = "fence.mbarrier_init + fence.proxy.async after the init";
    v.control = true;
    v.outcomes = {{"completed, right data", true}, {"completed, wrong data", false}, {"hung", false}};
    v.launch = [=](std::uint32_t) {
      contested::init_other_tma<true><<<blocks, 96>>>(iters, src16, chunks16, out, gscratch);
      return cudaPeekAtLastError();
    };
    v.per_launch = per;
    v.want = ctl;
    vs.push_back(v);
    v.variant = "init; bar.sync; another warp's arrive.expect_tx and TMA load (no fence)";
    v.control = false;
    v.outcomes = {{"completed, right data", true}, {"completed, wrong data", true}, {"hung", true}};
    v.fault_allowed = true;
    v.launch = [=](std::uint32_t) {
      contested::init_other_tma<false><<<blocks, 96>>>(iters, src16, chunks16, out, gscratch);
      return cudaPeekAtLastError();
    };
    v.want = want;
    vs.push_back(v);
  }
  // 2c. generic writes, named barrier, another warp's TMA over them with no fence (Triton's reuse of shared memory).
  {
    const int blocks = sms * 16, iters = 256;
    const unsigned long long per = static_cast<unsigned long long>(blocks) * 32 * iters;
    Variant v;
    v.test = "generic_write_then_tma_overwrite";
    v.variant = "fence.proxy.async after the writes";
    v.control = true;
    v.outcomes = {{"copy's data, neighbour kept", true}, {"generic value where the copy wrote", false},
                  {"neighbour lost", false}, {"hung", false}};
    v.launch = [=](std::uint32_t) {
      contested::write_then_tma<true><<<blocks, 96>>>(iters, src16, chunks16, out, gscratch);
      return cudaPeekAtLastError();
    };
    v.per_launch = per;
    v.want = ctl;
    vs.push_back(v);
    v.variant = "generic writes; bar.sync; another warp's TMA load over them (no fence)";
    v.control = false;
    v.outcomes = {{"copy's data, neighbour kept", true}, {"generic value where the copy wrote", true},
                  {"neighbour lost", false}, {"hung", false}};
    v.launch = [=](std::uint32_t) {
      contested::write_then_tma<false><<<blocks, 96>>>(iters, src16, chunks16, out, gscratch);
      return cudaPeekAtLastError();
    };
    v.want = want;
    vs.push_back(v);
  }
  return vs;
}

}  // namespace contested_host

// ---------------------------------------------------------------- driver

struct Row {
  std::string test, litmus_verdict;
  unsigned long long instances = 0, fresh = 0, stale = 0, hung = 0;
  bool allowed_stale = false, may_hang = false;
  std::uint64_t outside = 0;
  double seconds = 0;
  std::string note;
};

// One op litmus test under one stress mode: the outcome histogram of
// `want` instances (at least one launch).
struct OpHist {
  std::map<std::uint64_t, unsigned long long> seen;
  unsigned long long overflow = 0;
  double seconds = 0;
};
OpHist op_litmus_run(const OpLitmus& t, bool sw, const Stress& m, unsigned long long want, std::uint32_t seed, int sms,
                     std::uint32_t* gscratch) {
  unsigned long long *gkeys = nullptr, *gcounts = nullptr;
  CUDA_CHECK(cudaMalloc(&gkeys, global_slots * sizeof(unsigned long long)));
  CUDA_CHECK(cudaMalloc(&gcounts, (global_slots + 1) * sizeof(unsigned long long)));
  const int oblocks = sms * 16, oiters = 256;
  const unsigned long long oper = static_cast<unsigned long long>(oblocks) * oiters * 32;
  OpLitmusDev d{};
  d.count = t.count;
  d.na = static_cast<int>(t.a.size());
  d.nb = static_cast<int>(t.b.size());
  for (int k = 0; k < d.na; ++k) d.a[k] = t.a[static_cast<std::size_t>(k)];
  for (int k = 0; k < d.nb; ++k) d.b[k] = t.b[static_cast<std::size_t>(k)];
  d.skew_mask = m.skew_mask;
  d.pause_mask = m.pause_mask;
  d.big_mask = m.big_mask;
  d.big_every_mask = m.big_every_mask;
  d.a_warp = m.a_warp;
  d.per_warp = m.per_warp;
  CUDA_CHECK(cudaMemset(gkeys, 0xff, global_slots * sizeof(unsigned long long)));
  CUDA_CHECK(cudaMemset(gcounts, 0, (global_slots + 1) * sizeof(unsigned long long)));
  const auto t0 = std::chrono::steady_clock::now();
  unsigned long long launched = 0;
  for (std::uint32_t s = seed; launched < want; ++s, launched += oper) {
    if (sw) op_litmus_kernel<true><<<oblocks, 96>>>(d, oiters, s, gkeys, gcounts, gcounts + global_slots, gscratch);
    else op_litmus_kernel<false><<<oblocks, 96>>>(d, oiters, s, gkeys, gcounts, gcounts + global_slots, gscratch);
  }
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  OpHist h;
  h.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::vector<unsigned long long> hk(global_slots), hc(global_slots + 1);
  CUDA_CHECK(cudaMemcpy(hk.data(), gkeys, hk.size() * 8, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(hc.data(), gcounts, hc.size() * 8, cudaMemcpyDeviceToHost));
  for (int k = 0; k < global_slots; ++k)
    if (hk[static_cast<std::size_t>(k)] != hist_empty) h.seen[hk[static_cast<std::size_t>(k)]] += hc[static_cast<std::size_t>(k)];
  h.overflow = hc[global_slots];
  CUDA_CHECK(cudaFree(gkeys));
  CUDA_CHECK(cudaFree(gcounts));
  return h;
}

// --op-stress: every op litmus test under every stress mode; per outcome the
// instances of each mode, and the outcomes allowed but seen in no mode.
int op_stress_report(unsigned long long budget, std::uint32_t seed, int sms, std::uint32_t* gscratch, const std::string& report,
                     const std::string& head) {
  FILE* f = std::fopen(report.c_str(), "w");
  if (!f) {
    std::perror(report.c_str());
    return 2;
  }
  std::fprintf(f, "%s", head.c_str());
  std::fprintf(f, "## Stress modes\n\n| mode | skew before the first op (cycles) | pause before each op | thread A on warp | draws | instances |\n"
                  "| --- | --- | --- | --- | --- | --- |\n");
  for (int m = 0; m < stress_mode_count; ++m) {
    const Stress& s = stress_modes[m];
    std::fprintf(f, "| %d | 0..%u | 0..%u%s | %d | %s | budget / %u |\n", m, s.skew_mask, s.pause_mask,
                 s.big_mask ? (", 1 in " + std::to_string(s.big_every_mask + 1) + " up to " + std::to_string(s.big_mask)).c_str() : "",
                 s.a_warp, s.per_warp ? "one per warp" : "per lane", s.budget_div);
  }
  unsigned long long outside = 0;
  std::string summary = "\n## Seen and unseen per test (union of the modes)\n\n| test | allowed | seen | unseen | outside model |\n"
                        "| --- | --- | --- | --- | --- |\n";
  std::string detail;
  for (const OpLitmus& t : op_litmus_suite()) {
    for (int sw = 0; sw < (t.software ? 2 : 1); ++sw) {
      const std::string name = std::string(t.name) + (sw ? " (software mbarrier)" : "");
      const Allowed2 allowed = op_litmus_allowed(t, sw != 0);
      std::map<std::uint64_t, std::vector<unsigned long long>> per;  // outcome -> instances per mode
      unsigned long long out = 0;
      for (int m = 0; m < stress_mode_count; ++m) {
        const OpHist h = op_litmus_run(t, sw != 0, stress_modes[m], budget / stress_modes[m].budget_div, seed + 7919u * m, sms, gscratch);
        out += h.overflow;
        for (const auto& [key, c] : h.seen) {
          auto& v = per[key];
          v.resize(stress_mode_count);
          v[static_cast<std::size_t>(m)] += c;
          if (!allowed.outcomes.count(key)) out += c;
        }
        std::printf("%-40s mode %d  %zu outcomes  %.2f s\n", name.c_str(), m, h.seen.size(), h.seconds);
        std::fflush(stdout);
      }
      int seen = 0, unseen = 0;
      detail += "\n### " + name + "\n\n| outcome | model interleavings |";
      for (int m = 0; m < stress_mode_count; ++m) detail += " mode " + std::to_string(m) + " |";
      detail += " |\n| --- | --- |";
      for (int m = 0; m < stress_mode_count; ++m) detail += " --- |";
      detail += " --- |\n";
      for (const auto& [key, n] : allowed.outcomes) {
        const auto it = per.find(key);
        const bool any = it != per.end();
        seen += any;
        unseen += !any;
        detail += "| `" + op_litmus_outcome_text(t, key) + "` | " + std::to_string(n) + " |";
        for (int m = 0; m < stress_mode_count; ++m) detail += " " + std::to_string(any ? it->second[static_cast<std::size_t>(m)] : 0) + " |";
        detail += any ? " seen |\n" : " **unseen** |\n";
      }
      for (const auto& [key, v] : per) {
        if (allowed.outcomes.count(key)) continue;
        detail += "| `" + op_litmus_outcome_text(t, key) + "` | 0 |";
        for (unsigned long long c : v) detail += " " + std::to_string(c) + " |";
        detail += " **outside model** |\n";
      }
      outside += out;
      summary += "| " + name + " | " + std::to_string(allowed.outcomes.size()) + " | " + std::to_string(seen) + " | " +
                 std::to_string(unseen) + " | " + std::to_string(out) + " |\n";
    }
  }
  std::fprintf(f, "%s\n## Histograms (instances per mode)\n%s", summary.c_str(), detail.c_str());
  std::fclose(f);
  std::printf("outside-model: %llu\n", outside);
  return outside == 0 ? 0 : 1;
}

struct OpRow {
  std::string test;
  int interleavings = 0, unseen = 0;
  unsigned long long instances = 0, outside = 0;
  double seconds = 0;
  std::vector<std::string> lines;
};

int main(int argc, char** argv) {
  unsigned long long target = 20'000'000;
  std::uint32_t seed = 12345;
  std::string report = "conformance-report.md";
  std::string open_only;  // --open NAME: run that one fixed sequence (or contested point) only
  bool contested_all = false;  // --contested: run the four contested points only
  bool op_stress = false;      // --op-stress: the op litmus tests under every stress mode only
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--instances") && i + 1 < argc) target = std::strtoull(argv[++i], nullptr, 10);
    else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc) seed = static_cast<std::uint32_t>(std::strtoul(argv[++i], nullptr, 10));
    else if (!std::strcmp(argv[i], "--report") && i + 1 < argc) report = argv[++i];
    else if (!std::strcmp(argv[i], "--open") && i + 1 < argc) open_only = argv[++i];
    else if (!std::strcmp(argv[i], "--contested")) contested_all = true;
    else if (!std::strcmp(argv[i], "--op-stress")) op_stress = true;
    else {
      std::fprintf(stderr, "usage: conformance [--instances N] [--seed S] [--report FILE] [--open NAME] [--contested] [--op-stress]\n");
      return 2;
    }
  }
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0, runtime = 0;
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  const int sms = prop.multiProcessorCount;

  Counts* counts = nullptr;
  CUDA_CHECK(cudaMalloc(&counts, sizeof(Counts)));
  std::uint32_t* gscratch = nullptr;
  CUDA_CHECK(cudaMalloc(&gscratch, sizeof(std::uint32_t) * 64 * sms * 32));
  const int chunks = 4096;
  std::vector<std::uint32_t> src(4 * chunks);
  for (std::size_t k = 0; k < src.size(); ++k) src[k] = static_cast<std::uint32_t>(k + 1);
  std::uint32_t* dsrc = nullptr;
  CUDA_CHECK(cudaMalloc(&dsrc, src.size() * 4));
  CUDA_CHECK(cudaMemcpy(dsrc, src.data(), src.size() * 4, cudaMemcpyHostToDevice));
  std::uint32_t* dst = nullptr;
  CUDA_CHECK(cudaMalloc(&dst, 16 * sms * 64));

  // Contested points: --contested runs all four (and their controls), --open
  // NAME one of them; --instances is the budget of each variant (controls: a quarter).
  if (contested_all || contested_host::is_test(open_only)) {
    const int chunks4k = 64;
    std::vector<std::uint32_t> s4k(static_cast<std::size_t>(chunks4k) * contested::rt_words);
    for (std::size_t k = 0; k < s4k.size(); ++k) s4k[k] = static_cast<std::uint32_t>(k + 1);
    std::uint32_t* dsrc4k = nullptr;
    CUDA_CHECK(cudaMalloc(&dsrc4k, s4k.size() * 4));
    CUDA_CHECK(cudaMemcpy(dsrc4k, s4k.data(), s4k.size() * 4, cudaMemcpyHostToDevice));
    std::uint32_t* gdst = nullptr;
    CUDA_CHECK(cudaMalloc(&gdst, static_cast<std::size_t>(sms) * 16 * 4 * 32 * 4));
    unsigned long long* dcounts = nullptr;
    CUDA_CHECK(cudaMalloc(&dcounts, 16 * sizeof(unsigned long long)));
    std::vector<contested_host::Variant> vs =
        contested_host::variants(sms, target, dcounts, gscratch, dsrc, chunks, dsrc4k, chunks4k, gdst);
    if (!contested_all) {
      std::vector<contested_host::Variant> one;
      for (const auto& v : vs)
        if (v.test == open_only) one.push_back(v);
      vs = one;
    }
    char head[1024];
    std::snprintf(head, sizeof head,
                  "# Contested points: %s\n\n- GPU: %s, %d SMs, compute capability %d.%d\n- driver: %d, CUDA runtime: %d\n"
                  "- built by nvcc %d.%d for sm_90a\n- instances per variant: %llu (controls: a quarter; "
                  "generic_read_then_tma_overwrite: a 64th, each instance being 4096 loads); seed %u\n",
                  prop.name, prop.name, sms, prop.major, prop.minor, driver, runtime, __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__,
                  target, seed);
    std::string cmd = "conformance";
    for (int i = 1; i < argc; ++i) cmd += std::string(" ") + argv[i];
    return contested_host::run(vs, dcounts, seed, report, head, cmd);
  }

  // --open group_arrive_past_pending: a block of `threads` arrives once each
  // on a barrier with fewer arrivals pending (the kernel above).
  // Each case alone as group_arrive_past_pending/N (a fault takes the context).
  if (open_only.rfind("group_arrive_past_pending", 0) == 0) {
    struct Case {
      std::uint32_t threads, init, first;
    };
    // 0: a warp group on as many arrivals as it has threads (the control: no
    // thread past the count); 1: on 64 pending, the phase completing at a
    // warp's end; 2: on 80, inside warp 2; 3: a warp on 16, inside it.
    const std::vector<Case> all_cases = {{128, 200, 72}, {128, 192, 128}, {128, 200, 120}, {32, 40, 24}};
    std::vector<Case> cases = all_cases;
    if (const std::size_t slash = open_only.find('/'); slash != std::string::npos)
      cases = {all_cases.at(static_cast<std::size_t>(std::stoi(open_only.substr(slash + 1))))};
    std::string md = "| threads | init | first arrive | pending before the block | device: parities after the block; phase 1 pending (token of a .noComplete arrive); parities after the rest | model |\n| --- | --- | --- | --- | --- | --- |\n";
    for (const Case& c : cases) {
      Obs* dobs = nullptr;
      CUDA_CHECK(cudaMalloc(&dobs, 3 * sizeof(Obs)));
      CUDA_CHECK(cudaMemset(dobs, 0, 3 * sizeof(Obs)));
      group_arrive_past_pending<<<1, c.threads>>>(c.init, c.first, dobs);
      CUDA_CHECK(cudaGetLastError());
      CUDA_CHECK(cudaDeviceSynchronize());
      Obs o[3];
      CUDA_CHECK(cudaMemcpy(o, dobs, sizeof o, cudaMemcpyDeviceToHost));
      CUDA_CHECK(cudaFree(dobs));
      const std::uint32_t before = c.init - c.first, carried = c.threads > before ? c.threads - before : 0;
      // The model (spec::mbarrier::arrive_threads): phase 0 completes with
      // `before` threads, `carried` arrive on phase 1, whose pending count is
      // then init - carried (before the .noComplete arrive).
      const std::uint32_t want_left = c.init - carried;
      const bool agree = o[0].parity_bits == 1u && o[1].value == want_left && o[2].parity_bits == 2u;
      char row[512];
      std::snprintf(row, sizeof row, "| %u | %u | %u | %u | p0=%u p1=%u; %u; p0=%u p1=%u | p0=1 p1=0; %u; p0=0 p1=1 %s |\n", c.threads, c.init,
                    c.first, before, o[0].parity_bits & 1, o[0].parity_bits >> 1, o[1].value, o[2].parity_bits & 1,
                    o[2].parity_bits >> 1, want_left, agree ? "(agree)" : "(**disagree**)");
      std::printf("%s", row);
      md += row;
    }
    if (FILE* f = std::fopen(report.c_str(), "w")) {
      std::fprintf(f, "# group_arrive_past_pending: %s\n\n%s", prop.name, md.c_str());
      std::fclose(f);
    }
    return 0;
  }

  // --open named_warp_instances: four warps on bar.sync 1, 64, two of them
  // late (the kernel above), over many blocks per delay.
  if (open_only == "named_warp_instances") {
    const int nblocks = sms * 16;
    std::string md = "| delay of warps 2, 3 (cycles) | blocks | warp 0 passed before warp 2 arrived | all passed | model |\n| --- | --- | --- | --- | --- |\n";
    for (const long long delay : {0ll, 2000ll, 20000ll, 200000ll}) {
      unsigned long long* d = nullptr;
      CUDA_CHECK(cudaMalloc(&d, 2 * sizeof(unsigned long long)));
      CUDA_CHECK(cudaMemset(d, 0, 2 * sizeof(unsigned long long)));
      named_warp_instances<<<nblocks, 128>>>(delay, d, d + 1);
      CUDA_CHECK(cudaGetLastError());
      CUDA_CHECK(cudaDeviceSynchronize());
      unsigned long long h[2];
      CUDA_CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
      CUDA_CHECK(cudaFree(d));
      // The model: warps 0 and 1 may pass before warps 2 and 3 arrive (two
      // instances of 64); every block completes.
      const bool agree = h[1] == static_cast<unsigned long long>(nblocks) && (delay < 20000 || h[0] > 0);
      char row[256];
      std::snprintf(row, sizeof row, "| %lld | %d | %llu | %llu | two 64-thread instances %s |\n", delay, nblocks, h[0], h[1],
                    agree ? "(agree)" : "(**disagree**)");
      std::printf("%s", row);
      md += row;
    }
    if (FILE* f = std::fopen(report.c_str(), "w")) {
      std::fprintf(f, "# named_warp_instances: %s\n\n%s", prop.name, md.c_str());
      std::fclose(f);
    }
    return 0;
  }

  // --open remote_arrive_exit: CTA 1's remote arrives on CTA 0's barrier,
  // then CTA 1's exit; CTA 0 passes its cluster barrier and tests the phase
  // once (the kernel above). --instances clusters per case (rounded up to
  // whole launches of 8 clusters per SM). CTA 0 drains CTA 1's remote stores
  // before it exits; remote_arrive_exit/nodrain runs one case without the
  // drain (relaxed arrives after 8 stores each, then a relaxed cluster
  // arrive), whose stores can land in CTA 0 after its exit.
  if (open_only == "remote_arrive_exit" || open_only == "remote_arrive_exit/nodrain") {
    const bool drain = open_only == "remote_arrive_exit";
    struct Case {
      bool relaxed;
      int end;  // CTA 1 after its arrives: 0 exit; 1 cluster arrive.relaxed + wait; 2 cluster arrive (.release) + wait
      int warps;
      long long delay;
      int burst;
    };
    std::vector<Case> cases = {
        {false, 0, 1, 0, 0}, {false, 0, 1, 2000, 0}, {false, 0, 1, 20000, 0}, {false, 0, 4, 0, 0}, {false, 0, 4, 2000, 0},
        {false, 0, 1, 0, 8}, {false, 0, 1, 2000, 8}, {false, 0, 4, 0, 8},
        {true, 0, 1, 0, 0},  {true, 0, 1, 2000, 0},  {true, 0, 1, 20000, 0},  {true, 0, 4, 0, 0},  {true, 0, 4, 2000, 0},
        {true, 0, 1, 0, 8},  {true, 0, 4, 0, 8},
        {false, 1, 4, 0, 0}, {false, 1, 4, 0, 8}, {true, 1, 4, 0, 0}, {true, 1, 4, 0, 8},
        {false, 2, 1, 0, 0}, {false, 2, 1, 2000, 0}, {false, 2, 4, 0, 0}, {false, 2, 4, 0, 8}, {true, 2, 4, 0, 0}};
    if (!drain) cases = {{true, 1, 4, 0, 8}};
    const int cblocks = sms * 2 * 8;
    const unsigned long long per = static_cast<unsigned long long>(cblocks / 2);
    unsigned long long* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, 5 * sizeof(unsigned long long)));
    std::string md =
        "| arrive (CTA 1 -> CTA 0's barrier) | arriving threads (count) | remote stores before each arrive | CTA 1 after its arrives "
        "| pause of CTA 1 (cycles, 0..D) | clusters | done | phase not complete at CTA 0's test_wait (arrive in flight) "
        "| of those, completed later | never (2^22 cycles) | threads whose stores never landed | model |\n"
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
    bool all_agree = true;
    unsigned long long in_flight[3] = {0, 0, 0}, clusters[3] = {0, 0, 0};
    for (const Case& c : cases) {
      unsigned long long h[5] = {0, 0, 0, 0, 0}, launched = 0;
      std::uint32_t s = seed;
      for (; launched < target; launched += per) {
        CUDA_CHECK(cudaMemset(d, 0, 5 * sizeof(unsigned long long)));
        const std::uint32_t sd = s++;
        if (c.relaxed) {
          if (c.end == 0) remote_arrive_exit<true, 0><<<cblocks, 128>>>(c.warps, c.delay, c.burst, drain, sd, d);
          else if (c.end == 1) remote_arrive_exit<true, 1><<<cblocks, 128>>>(c.warps, c.delay, c.burst, drain, sd, d);
          else remote_arrive_exit<true, 2><<<cblocks, 128>>>(c.warps, c.delay, c.burst, drain, sd, d);
        } else {
          if (c.end == 0) remote_arrive_exit<false, 0><<<cblocks, 128>>>(c.warps, c.delay, c.burst, drain, sd, d);
          else if (c.end == 1) remote_arrive_exit<false, 1><<<cblocks, 128>>>(c.warps, c.delay, c.burst, drain, sd, d);
          else remote_arrive_exit<false, 2><<<cblocks, 128>>>(c.warps, c.delay, c.burst, drain, sd, d);
        }
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaDeviceSynchronize());
        unsigned long long g[5];
        CUDA_CHECK(cudaMemcpy(g, d, sizeof g, cudaMemcpyDeviceToHost));
        for (int k = 0; k < 5; ++k) h[k] += g[k];
      }
      // The model: unless CTA 1 releases its arrives to CTA 0's acquire (end
      // 2), nothing orders them before CTA 0's exit (the issuer's exit orders
      // nothing; CTA 0's cluster wait waits for non-exited threads only; a
      // relaxed cluster arrive releases nothing): exit_with_pending, a
      // possibility whatever the count. With end 2 none may be in flight.
      const bool agree = h[0] == launched && (c.end != 2 || h[1] == 0) && h[3] == 0 && h[4] == 0;
      all_agree = all_agree && agree;
      in_flight[c.end] += h[1];
      clusters[c.end] += h[0];
      static const char* const ends[3] = {"exits at once", "barrier.cluster.arrive.relaxed + wait, exits",
                                          "barrier.cluster.arrive (.release) + wait (.acquire), exits"};
      char row[768];
      std::snprintf(row, sizeof row, "| %s | %d (%d) | %d | %s | 0..%lld | %llu | %llu | %llu | %llu | %llu | %llu | %s |\n",
                    c.relaxed ? "mbarrier.arrive.relaxed.cluster.shared::cluster" : "mbarrier.arrive.release.cluster.shared::cluster",
                    32 * c.warps, 32 * c.warps, c.burst, ends[c.end], c.delay, launched, h[0], h[1], h[2], h[3], h[4],
                    c.end == 2 ? (agree ? "ordered by the cluster barrier: none in flight (agree)" : "ordered: none in flight (**disagree**)")
                               : (agree ? "not ordered before CTA 0's exit: exit_with_pending (agree)"
                                        : "not ordered before CTA 0's exit: exit_with_pending (**disagree**: not every cluster done, or lost)"));
      std::printf("%s", row);
      std::fflush(stdout);
      md += row;
    }
    CUDA_CHECK(cudaFree(d));
    char tail[768];
    std::snprintf(tail, sizeof tail,
                  "\nArrives in flight at CTA 0's test_wait: CTA 1 exiting at once, %llu of %llu clusters; after a relaxed cluster "
                  "arrive, %llu of %llu; after a releasing cluster arrive (the control), %llu of %llu. Every row %s.\n",
                  in_flight[0], clusters[0], in_flight[1], clusters[1], in_flight[2], clusters[2],
                  all_agree ? "agrees" : "does **not** agree");
    std::printf("%s", tail);
    if (FILE* f = std::fopen(report.c_str(), "w")) {
      std::fprintf(f, "# remote_arrive_exit: %s, %d SMs; driver %d, runtime %d; nvcc %d.%d for sm_90a; seed %u; %llu clusters per case\n\n%s%s",
                   prop.name, sms, driver, runtime, __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__, seed, target, md.c_str(), tail);
      std::fclose(f);
    }
    return all_agree ? 0 : 1;
  }

  // --open relaxed_wait_barsync: thread 0's .relaxed wait on a TMA's (or a
  // generic producer's) barrier, then bar.sync, then the other threads' reads
  // (the kernel above); the control with an .acquire.cta wait, and the
  // sensitivity check with no wait before the reads; the TMA's source is 16 MiB
  // (held in L2) or 1 GiB (the copies miss L2). --instances CTA rounds
  // per case (no-wait cases: an eighth), rounded up to whole launches of 16
  // CTAs per SM x 256 rounds; a case also stops after 8 s of launches.
  if (open_only == "relaxed_wait_barsync") {
    struct Case {
      int producer;  // 0 TMA (cp.async.bulk, complete_tx), 1 warp 1's st.shared + mbarrier.arrive.release.cta
      int wait;      // 0 try_wait.parity.relaxed.cta, 1 .acquire.cta (control), 2 none before the reads (sensitivity)
      int words;
      long long delay;
      int chunks;  // of 4 KB in the source: 4096 (16 MiB, held in L2) or 262144 (1 GiB: the copies miss L2)
    };
    const int l2 = 4096, hbm = 262144;
    const std::vector<Case> cases = {
        {0, 0, 4, 0, l2},    {0, 0, 4, 1000, l2},    {0, 0, 1024, 0, l2}, {0, 0, 1024, 1000, l2}, {0, 0, 4, 0, hbm},
        {0, 0, 1024, 0, hbm}, {0, 1, 4, 0, l2},      {0, 1, 1024, 0, l2}, {0, 1, 4, 0, hbm},      {1, 0, 4, 0, l2},
        {1, 0, 4, 1000, l2}, {1, 0, 1024, 0, l2},    {1, 0, 1024, 1000, l2}, {1, 1, 4, 0, l2},    {1, 1, 1024, 0, l2},
        {0, 2, 4, 0, l2},    {0, 2, 1024, 0, l2},    {0, 2, 4, 0, hbm},   {0, 2, 1024, 0, hbm},   {1, 2, 4, 0, l2},
        {1, 2, 1024, 0, l2}};
    const int blocks = sms * 16, rounds = 256;
    const double case_seconds = 8.0;
    std::uint32_t* rsrc = nullptr;  // chunk c, word w: c * 1024 + w + 1
    CUDA_CHECK(cudaMalloc(&rsrc, static_cast<std::size_t>(hbm) * rwb::max_words * 4));
    rwb_fill<<<sms * 8, 256>>>(rsrc, static_cast<std::size_t>(hbm) * rwb::max_words);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    unsigned long long* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, 13 * sizeof(unsigned long long)));
    const unsigned long long per = static_cast<unsigned long long>(blocks) * rounds;
    std::string md =
        "| producer | thread 0's wait | buffer (bytes) | source | pause (cycles, 0..D) | readers per CTA | CTAs x rounds | reader instances "
        "(threads x rounds x CTAs) | stale instances: warp 0 | stale instances: other warps | stale words | next-round sentinel "
        "words | other wrong words | waits timed out | model |\n"
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
    bool all_agree = true;
    unsigned long long sum_inst[3] = {0, 0, 0}, sum_stale[3] = {0, 0, 0};
    for (const Case& c : cases) {
      unsigned long long h[13] = {}, launched = 0;
      std::uint32_t s = seed;
      const unsigned long long goal = c.wait == 2 ? target / 8 : target;
      const auto t0 = std::chrono::steady_clock::now();
      for (; launched < goal; launched += per) {
        if (launched > 0 && std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > case_seconds) break;
        CUDA_CHECK(cudaMemset(d, 0, 13 * sizeof(unsigned long long)));
        const std::uint32_t sd = s++;
        auto go = [&](auto kernel) { kernel<<<blocks, 128>>>(rounds, c.words, rsrc, c.chunks, sd, c.delay, d); };
        if (c.producer == 0) {
          if (c.wait == 0) go(relaxed_wait_barsync<0, 0>);
          else if (c.wait == 1) go(relaxed_wait_barsync<0, 1>);
          else go(relaxed_wait_barsync<0, 2>);
        } else {
          if (c.wait == 0) go(relaxed_wait_barsync<1, 0>);
          else if (c.wait == 1) go(relaxed_wait_barsync<1, 1>);
          else go(relaxed_wait_barsync<1, 2>);
        }
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaDeviceSynchronize());
        unsigned long long g[13];
        CUDA_CHECK(cudaMemcpy(g, d, sizeof g, cudaMemcpyDeviceToHost));
        for (int k = 0; k < 13; ++k) h[k] += g[k];
      }
      const unsigned long long inst = h[0] + h[1] + h[2] + h[3], stale0 = h[4], stale_other = h[5] + h[6] + h[7];
      // The model: a .relaxed wait then bar.sync is no acquire pattern (bar.sync
      // is no fence): data_race, stale allowed (probe_cccl_clc_relaxed_wait_syncthreads);
      // so with no wait before the reads. With .acquire.cta: verified, fresh only.
      // Every row: every round done, no wait timed out, no word other than the
      // round's data or its sentinel.
      const bool agree = h[12] == launched && h[11] == 0 && h[9] == 0 && h[10] == 0 && (c.wait != 1 || stale0 + stale_other == 0);
      all_agree = all_agree && agree;
      sum_inst[c.wait] += inst;
      sum_stale[c.wait] += stale0 + stale_other;
      static const char* const waits[3] = {"try_wait.parity.relaxed.cta, then bar.sync", "try_wait.parity.acquire.cta (control), then bar.sync",
                                           "none before the reads (sensitivity), bar.sync"};
      const char* model = c.wait == 1 ? (agree ? "verified: fresh only (agree)" : "verified: fresh only (**disagree**)")
                                      : (agree ? "data_race: stale allowed (agree)" : "data_race (**disagree**: rounds lost, a wait timed out, or wrong data)");
      char row[1024];
      std::snprintf(row, sizeof row, "| %s | %s | %d | %s | 0..%lld | %d | %llu | %llu | %llu | %llu | %llu | %llu | %llu | %llu | %s |\n",
                    c.producer == 0 ? "TMA: cp.async.bulk (complete_tx), thread 0" : "warp 1: st.shared + mbarrier.arrive.release.cta",
                    waits[c.wait], 4 * c.words, c.chunks == l2 ? "16 MiB (L2)" : "1 GiB (misses L2)", c.delay, c.producer == 0 ? 128 : 96, h[12], inst, stale0, stale_other, h[8], h[9], h[10],
                    h[11], model);
      std::printf("%s", row);
      std::fflush(stdout);
      md += row;
    }
    CUDA_CHECK(cudaFree(d));
    CUDA_CHECK(cudaFree(rsrc));
    char tail[768];
    std::snprintf(tail, sizeof tail,
                  "\nStale reader instances: relaxed wait + bar.sync, %llu of %llu; acquire wait + bar.sync (control), %llu of %llu; no wait "
                  "before the reads (sensitivity), %llu of %llu. Every row %s.\n",
                  sum_stale[0], sum_inst[0], sum_stale[1], sum_inst[1], sum_stale[2], sum_inst[2], all_agree ? "agrees" : "does **not** agree");
    std::printf("%s", tail);
    if (FILE* f = std::fopen(report.c_str(), "w")) {
      std::fprintf(f, "# relaxed_wait_barsync: %s, %d SMs; driver %d, runtime %d; nvcc %d.%d for sm_90a; seed %u; %llu CTA rounds per case\n\n%s%s",
                   prop.name, sms, driver, runtime, __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__, seed, target, md.c_str(), tail);
      std::fclose(f);
    }
    return all_agree ? 0 : 1;
  }

  // --open tma_multicast_cta_wait: CTA 0's multicast TMA load read in CTA 1
  // after a wait at the default .acquire.cta, and the control at
  // .acquire.cluster (the kernel above); --instances reads of each.
  if (open_only == "tma_multicast_cta_wait") {
    const int cblocks = (sms / 2) * 2 * 8, iters = 1024;
    const unsigned long long per = static_cast<unsigned long long>(cblocks / 2) * iters;
    std::string md = "| wait in CTA 1 | reads | fresh | stale | hung | model |\n| --- | --- | --- | --- | --- | --- |\n";
    for (const bool cluster_wait : {false, true}) {
      Counts h{};
      std::uint32_t s = seed;
      for (unsigned long long done = 0; done < target; done += per) {
        CUDA_CHECK(cudaMemset(counts, 0, sizeof(Counts)));
        if (cluster_wait) tma_multicast_wait<true><<<cblocks, 32>>>(iters, dsrc, chunks, s++, counts);
        else tma_multicast_wait<false><<<cblocks, 32>>>(iters, dsrc, chunks, s++, counts);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaDeviceSynchronize());
        Counts c{};
        CUDA_CHECK(cudaMemcpy(&c, counts, sizeof c, cudaMemcpyDeviceToHost));
        h.fresh += c.fresh;
        h.stale += c.stale;
        h.hung += c.hung;
      }
      char row[512];
      std::snprintf(row, sizeof row, "| %s | %llu | %llu | %llu | %llu | fresh only (%s) |\n",
                    cluster_wait ? "try_wait.parity.acquire.cluster" : "try_wait.parity (.acquire.cta)", h.fresh + h.stale + h.hung,
                    h.fresh, h.stale, h.hung, cluster_wait ? "verified" : "verified, warning scope_cta_acquire");
      std::printf("%s", row);
      md += row;
    }
    if (FILE* f = std::fopen(report.c_str(), "w")) {
      std::fprintf(f, "# tma_multicast_cta_wait: %s, %d SMs; driver %d, runtime %d; nvcc %d.%d for sm_90a; seed %u\n\n%s", prop.name,
                   sms, driver, runtime, __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__, seed, md.c_str());
      std::fclose(f);
    }
    return 0;
  }

  if (op_stress) {
    char head[512];
    std::snprintf(head, sizeof head,
                  "# Op litmus under stress: %s\n\n- GPU: %s, %d SMs; driver %d, runtime %d; built by nvcc %d.%d for sm_90a\n"
                  "- command: conformance --op-stress --instances %llu --seed %u --report FILE\n\n",
                  prop.name, prop.name, sms, driver, runtime, __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__, target, seed);
    return op_stress_report(target, seed, sms, gscratch, report, head);
  }

  std::vector<Row> rows;
  std::vector<OpRow> op_rows;
  const unsigned long long op_target = target / 2;
  const bool suite = open_only.empty();
  auto run_litmus = [&](Litmus l, unsigned long long want, auto&& launch, unsigned long long per_launch) {
    const pc::conformance::Allowed a = pc::conformance::allowed(l);
    Row row;
    row.test = pc::conformance::litmus_name(l);
    row.litmus_verdict = a.verdict;
    row.allowed_stale = a.stale;
    row.may_hang = a.may_hang;
    const auto t0 = std::chrono::steady_clock::now();
    Counts host{0, 0, 0};
    CUDA_CHECK(cudaMemset(counts, 0, sizeof(Counts)));
    unsigned long long launched = 0;
    for (std::uint32_t s = seed; launched < want; ++s) {
      launch(s);
      launched += per_launch;
    }
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(&host, counts, sizeof(Counts), cudaMemcpyDeviceToHost));
    row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    row.fresh = host.fresh;
    row.stale = host.stale;
    row.hung = host.hung;
    row.instances = host.fresh + host.stale + host.hung;
    row.outside = (host.stale && !a.stale ? host.stale : 0) + (host.hung && !a.may_hang ? host.hung : 0) +
                  (host.fresh && a.may_hang && l == Litmus::hang_short_count ? host.fresh : 0);
    std::printf("%-22s %12llu instances  fresh %llu stale %llu hung %llu  outside-model %llu  %.2f s  (%.3g/s)\n", row.test.c_str(),
                row.instances, row.fresh, row.stale, row.hung, static_cast<unsigned long long>(row.outside), row.seconds,
                row.instances / row.seconds);
    std::fflush(stdout);
    rows.push_back(row);
  };

  if (suite) {
  const int blocks = sms * 16, iters = 4096;
  const unsigned long long per = static_cast<unsigned long long>(blocks) * iters;
  run_litmus(Litmus::mp_mbarrier_release, target, [&](std::uint32_t s) { mp_mbarrier<0><<<blocks, 96>>>(iters, s, counts, gscratch); }, per);
  run_litmus(Litmus::mp_mbarrier_relaxed, target, [&](std::uint32_t s) { mp_mbarrier<1><<<blocks, 96>>>(iters, s, counts, gscratch); }, per);
  run_litmus(Litmus::mp_sw_mbarrier, target, [&](std::uint32_t s) { mp_mbarrier<2><<<blocks, 96>>>(iters, s, counts, gscratch); }, per);
  run_litmus(Litmus::mp_named_barrier, target, [&](std::uint32_t s) { mp_named<<<blocks, 64>>>(iters, s, counts); }, per);
  run_litmus(Litmus::tma_load_mbarrier, target, [&](std::uint32_t) { tma_load<<<blocks, 32>>>(iters, dsrc, chunks, counts); }, per);
  const int store_blocks = sms * 64;
  const unsigned long long store_per = static_cast<unsigned long long>(store_blocks) * 256;
  run_litmus(Litmus::tma_store_fenced, target / 8, [&](std::uint32_t) { tma_store<true><<<store_blocks, 32>>>(256, dst, counts); }, store_per);
  run_litmus(Litmus::tma_reduce_fenced, target / 8, [&](std::uint32_t) { tma_reduce<<<store_blocks, 32>>>(256, dst, counts); }, store_per);
  run_litmus(Litmus::tma_store_unfenced, target / 8, [&](std::uint32_t) { tma_store<false><<<store_blocks, 32>>>(256, dst, counts); }, store_per);
  const int cblocks = (sms / 2) * 2 * 8;
  const unsigned long long cper = static_cast<unsigned long long>(cblocks / 2) * 1024;
  run_litmus(Litmus::cluster_release, target / 8, [&](std::uint32_t s) { cluster_mp<true><<<cblocks, 64>>>(1024, s, counts); }, cper);
  run_litmus(Litmus::cluster_relaxed, target / 8, [&](std::uint32_t s) { cluster_mp<false><<<cblocks, 64>>>(1024, s, counts); }, cper);
  run_litmus(Litmus::st_async_cluster, target / 8, [&](std::uint32_t s) { st_async_mp<false><<<cblocks, 64>>>(1024, s, counts); }, cper);
  run_litmus(Litmus::red_async_cluster, target / 8, [&](std::uint32_t s) { st_async_mp<true><<<cblocks, 64>>>(1024, s, counts); }, cper);
  run_litmus(Litmus::st_async_cta_wait, target / 8, [&](std::uint32_t s) { st_async_mp<false, true><<<cblocks, 64>>>(1024, s, counts); }, cper);
  run_litmus(Litmus::cp_async_wait_group, target / 8, [&](std::uint32_t) { cp_async_groups<false><<<blocks, 32>>>(iters, dsrc, chunks, counts); }, per);
  run_litmus(Litmus::cp_async_wait_pending, target / 8, [&](std::uint32_t) { cp_async_groups<true><<<blocks, 32>>>(iters, dsrc, chunks, counts); }, per);
  run_litmus(Litmus::arrive_drop_progress, 100000, [&](std::uint32_t) { arrive_drop_progress<<<sms * 8, 64>>>(counts); },
             static_cast<unsigned long long>(sms) * 8);
  run_litmus(Litmus::finish_full_count, 10000, [&](std::uint32_t) { liveness<true><<<sms * 8, 64>>>(counts); },
             static_cast<unsigned long long>(sms) * 8);
  run_litmus(Litmus::hang_short_count, 1000, [&](std::uint32_t) { liveness<false><<<sms * 8, 64>>>(counts); },
             static_cast<unsigned long long>(sms) * 8);
  // The software mbarrier, under the same watchdog.
  const std::size_t before = rows.size();
  run_litmus(Litmus::finish_full_count, 10000, [&](std::uint32_t) { liveness<true, true><<<sms * 8, 64>>>(counts); },
             static_cast<unsigned long long>(sms) * 8);
  run_litmus(Litmus::hang_short_count, 1000, [&](std::uint32_t) { liveness<false, true><<<sms * 8, 64>>>(counts); },
             static_cast<unsigned long long>(sms) * 8);
  for (std::size_t k = before; k < rows.size(); ++k) rows[k].test += " (software mbarrier)";

  // Op litmus: outcome histograms against every interleaving of the model.
  for (const OpLitmus& t : op_litmus_suite()) {
    for (int sw = 0; sw < (t.software ? 2 : 1); ++sw) {
      const OpHist h = op_litmus_run(t, sw != 0, stress_modes[0], op_target, seed, sms, gscratch);
      OpRow r;
      r.test = std::string(t.name) + (sw ? " (software mbarrier)" : "");
      r.seconds = h.seconds;
      const Allowed2 allowed = op_litmus_allowed(t, sw != 0);
      r.interleavings = allowed.interleavings;
      r.outside = h.overflow;  // histogram overflow counts as outside
      for (const auto& [key, c] : h.seen) {
        r.instances += c;
        const bool ok = allowed.outcomes.count(key) != 0;
        if (!ok) r.outside += c;
        r.lines.push_back("| `" + op_litmus_outcome_text(t, key) + "` | " + std::to_string(c) + " | " +
                          (ok ? std::to_string(allowed.outcomes.at(key)) : std::string("0")) + " | " +
                          (ok ? "allowed" : "**outside model**") + " |");
      }
      r.instances += h.overflow;
      for (const auto& [key, n] : allowed.outcomes) {
        if (h.seen.count(key)) continue;
        ++r.unseen;
        r.lines.push_back("| `" + op_litmus_outcome_text(t, key) + "` | 0 | " + std::to_string(n) + " | allowed but unseen |");
      }
      std::printf("%-40s %12llu instances  %zu outcomes seen, %d allowed, %d unseen  outside-model %llu  %.2f s  (%.3g/s)\n",
                  r.test.c_str(), r.instances, h.seen.size(), static_cast<int>(allowed.outcomes.size()), r.unseen, r.outside,
                  r.seconds, r.instances / r.seconds);
      std::fflush(stdout);
      op_rows.push_back(r);
    }
  }

  }
  // Op sequences: observations must equal the model's exactly.
  const int seqs = suite ? 20000 : 0, len = 48;
  std::mt19937 rng(seed);
  std::vector<std::uint32_t> ops;
  ops.reserve(static_cast<std::size_t>(seqs) * len + len);
  for (int s = 0; s < seqs; ++s) {
    const std::vector<std::uint32_t> one = random_sequence(rng, len);
    ops.insert(ops.end(), one.begin(), one.end());
  }
  if (ops.empty()) {  // --open: one trivial sequence (init 1, observe)
    ops.assign(static_cast<std::size_t>(len), 0u);
    ops[0] = 1;
  }
  std::uint32_t* dops = nullptr;
  Obs* dobs = nullptr;
  CUDA_CHECK(cudaMalloc(&dops, ops.size() * 4));
  CUDA_CHECK(cudaMalloc(&dobs, ops.size() * sizeof(Obs)));
  CUDA_CHECK(cudaMemcpy(dops, ops.data(), ops.size() * 4, cudaMemcpyHostToDevice));
  const auto ts = std::chrono::steady_clock::now();
  run_sequences<<<seqs > 0 ? seqs : 1, 32>>>(dops, len, dobs);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<Obs> obs(ops.size());
  CUDA_CHECK(cudaMemcpy(obs.data(), dobs, obs.size() * sizeof(Obs), cudaMemcpyDeviceToHost));
  std::map<std::string, unsigned long long> seq_mismatch;
  unsigned long long seq_obs = 0, seq_outside = 0;
  std::string first_mismatch;
  for (int s = 0; s < seqs; ++s) {
    bool defined = true;
    const std::vector<Obs> m = model_run(ops.data() + static_cast<std::size_t>(s) * len, len, defined);
    for (int i = 1; i < len; ++i) {
      const Obs& d = obs[static_cast<std::size_t>(s) * len + i];
      const std::uint32_t code = ops[static_cast<std::size_t>(s) * len + i] >> 24;
      ++seq_obs;
      const bool parity_ok = d.parity_bits == m[static_cast<std::size_t>(i)].parity_bits;
      const bool value_ok = d.value == m[static_cast<std::size_t>(i)].value;
      if (!parity_ok || !value_ok) {
        ++seq_outside;
        const char* const* names = op_names;
        ++seq_mismatch[std::string(names[code < 8 ? code : 0]) + (parity_ok ? " value" : " parity")];
        if (first_mismatch.empty()) {
          char buf[256];
          std::snprintf(buf, sizeof buf, "sequence %d op %d (%s %u): device parity %u value %u, model parity %u value %u", s, i,
                        names[code < 8 ? code : 0], ops[static_cast<std::size_t>(s) * len + i] & 0xffffff, d.parity_bits,
                        d.value, m[static_cast<std::size_t>(i)].parity_bits, m[static_cast<std::size_t>(i)].value);
          first_mismatch = buf;
        }
      }
    }
  }
  // Software mbarrier: arrive-only sequences, compared with the hardware mbarrier's model.
  unsigned long long sw_obs = 0, sw_outside = 0;
  if (suite) {
    std::vector<std::uint32_t> swops(static_cast<std::size_t>(seqs) * len);
    for (int q = 0; q < seqs; ++q) {
      std::uint32_t* o = swops.data() + static_cast<std::size_t>(q) * len;
      o[0] = 1 + rng() % 4;
      std::uint32_t pending = o[0];
      for (int i = 1; i < len; ++i) {
        const std::uint32_t want = 1 + rng() % 2;
        if (rng() % 4 == 0 || want > pending) {
          o[i] = op_observe << 24;
          continue;
        }
        o[i] = op_arrive << 24 | want;
        pending = pending - want == 0 ? o[0] : pending - want;
      }
    }
    CUDA_CHECK(cudaMemcpy(dops, swops.data(), swops.size() * 4, cudaMemcpyHostToDevice));
    run_sw_sequences<<<seqs, 32>>>(dops, len, dobs);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(obs.data(), dobs, obs.size() * sizeof(Obs), cudaMemcpyDeviceToHost));
    for (int q = 0; q < seqs; ++q) {
      bool defined = true;
      const std::vector<Obs> m = model_run(swops.data() + static_cast<std::size_t>(q) * len, len, defined);
      for (int i = 1; i < len; ++i) {
        ++sw_obs;
        if (obs[static_cast<std::size_t>(q) * len + i].parity_bits != m[static_cast<std::size_t>(i)].parity_bits || !defined)
          ++sw_outside;
      }
    }
    std::printf("%-22s %12llu observations  outside-model %llu\n", "sw_op_sequences", sw_obs, sw_outside);
  }
  const double seq_secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - ts).count();
  std::printf("%-22s %12llu observations  outside-model %llu  %.2f s\n", "op_sequences", seq_obs, seq_outside, seq_secs);
  for (const auto& [k, v] : seq_mismatch) std::printf("  mismatch %s: %llu\n", k.c_str(), v);
  if (!first_mismatch.empty()) std::printf("  first: %s\n", first_mismatch.c_str());

  // Fixed sequences: the measured facts the model is built on, and the points
  // where the ISA is open. Printed with the model's answer and whether the
  // model defines the sequence at all.
  struct Fixed {
    const char* name;
    std::vector<std::uint32_t> ops;
  };
  auto A = [](std::uint32_t code, std::uint32_t arg) { return code << 24 | arg; };
  const std::vector<Fixed> fixed = {
      {"fresh_parity", {1, A(op_observe, 0)}},
      {"count_arrivals", {3, A(op_arrive, 1), A(op_arrive, 1), A(op_arrive, 1)}},
      {"expect_tx_holds_phase", {1, A(op_arrive_tx, 64), A(op_complete, 32), A(op_complete, 32)}},
      {"arrive_drop_lowers_expected", {2, A(op_drop, 1), A(op_arrive, 1), A(op_arrive, 1)}},
      {"pending_count_token", {3, A(op_arrive, 1), A(op_arrive, 1)}},
      {"complete_tx_before_expect_tx", {1, A(op_complete, 64), A(op_arrive_tx, 64)}},
      {"try_wait_false_before_completion", {1, A(op_try_wait, 0), A(op_arrive, 1), A(op_try_wait, 0)}},
      {"token_two_phases_later", {1, A(op_arrive, 1), A(op_arrive, 1), A(op_token_test, 0), A(op_arrive, 1), A(op_token_test, 0)}},
      // The largest tx operand the ISA allows (2^20-1), expected and delivered.
      {"tx_operand_max", {1, A(op_arrive_tx, (1 << 20) - 1), A(op_complete, (1 << 20) - 1)}},
      // Undefined in the model: each runs alone (--open NAME), since the
      // hardware may fault and take the process's context with it.
      {"over_arrival", {1, A(op_arrive, 2), A(op_arrive, 1), A(op_arrive, 1)}},
      {"over_arrival_second", {2, A(op_arrive, 1), A(op_arrive, 2), A(op_arrive, 1), A(op_arrive, 1)}},
      {"nocomplete_would_complete", {1, A(op_nocomplete, 1), A(op_arrive, 1)}},
      {"arrive_after_inval", {1, A(op_inval, 0), A(op_arrive, 1), A(op_observe, 0)}},
      // arrive_drop taking the expected count to 0 (PTX ISA mbarrier.arrive_drop:
      // undefined): does the phase complete, do later phases complete by
      // themselves, and what does a later arrive do?
      {"arrive_drop_to_zero", {1, A(op_drop, 1), A(op_observe, 0), A(op_observe, 0)}},
      {"arrive_drop_to_zero_then_arrive", {1, A(op_drop, 1), A(op_arrive, 1), A(op_observe, 0)}},
      // A tx operand of 2^20, one past the range, where the tx-count itself
      // stays in range: after a complete_tx of 16 (tx -16), an
      // arrive.expect_tx of 2^20 (tx 2^20-16 if taken whole), then a
      // complete_tx of 2^20-16 (tx 0: the phase completes if it was).
      {"expect_tx_operand_2pow20", {1, A(op_complete, 16), A(op_arrive_tx, 1 << 20), A(op_complete, (1 << 20) - 16)}},
      // complete_tx of 2^20 after an expect of 2^20-1 (tx -1 if taken whole).
      {"complete_tx_operand_2pow20", {1, A(op_arrive_tx, (1 << 20) - 1), A(op_complete, 1 << 20), A(op_complete, 0)}},
  };
  std::string fixed_md;
  unsigned long long fixed_outside = 0;
  for (const Fixed& fx : fixed) {
    bool model_defined = true;
    (void)model_run(fx.ops.data(), static_cast<int>(fx.ops.size()), model_defined);
    if (open_only.empty() ? !model_defined : open_only != fx.name) continue;
    const int n = static_cast<int>(fx.ops.size());
    std::uint32_t* fo = nullptr;
    Obs* fb = nullptr;
    CUDA_CHECK(cudaMalloc(&fo, n * 4));
    CUDA_CHECK(cudaMalloc(&fb, n * sizeof(Obs)));
    CUDA_CHECK(cudaMemcpy(fo, fx.ops.data(), n * 4, cudaMemcpyHostToDevice));
    run_sequences<<<1, 32>>>(fo, n, fb);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<Obs> d(static_cast<std::size_t>(n));
    CUDA_CHECK(cudaMemcpy(d.data(), fb, n * sizeof(Obs), cudaMemcpyDeviceToHost));
    bool defined = true;
    const std::vector<Obs> m = model_run(fx.ops.data(), n, defined);
    std::string dev, mod;
    bool same = true;
    for (int i = 1; i < n; ++i) {
      char b[64];
      std::snprintf(b, sizeof b, "%s(p0=%u p1=%u v=%u)", i > 1 ? " " : "", d[i].parity_bits & 1, d[i].parity_bits >> 1, d[i].value);
      dev += b;
      std::snprintf(b, sizeof b, "%s(p0=%u p1=%u v=%u)", i > 1 ? " " : "", m[i].parity_bits & 1, m[i].parity_bits >> 1, m[i].value);
      mod += b;
      same &= d[i].parity_bits == m[i].parity_bits && d[i].value == m[i].value;
    }
    if (defined && !same) ++fixed_outside;
    std::printf("%-34s device %s\n%-34s model  %s%s\n", fx.name, dev.c_str(), "", mod.c_str(),
                defined ? (same ? "  [agree]" : "  [DISAGREE]") : "  [undefined in the model]");
    fixed_md += "| " + std::string(fx.name) + " | " + dev + " | " + mod + " | " +
                (defined ? (same ? "agree" : "**disagree**") : "undefined in the model (violation)") + " |\n";
    CUDA_CHECK(cudaFree(fo));
    CUDA_CHECK(cudaFree(fb));
  }

  // The report.
  unsigned long long total = 0, outside = fixed_outside;
  for (const Row& r : rows) {
    total += r.instances;
    outside += r.outside;
  }
  for (const OpRow& r : op_rows) {
    total += r.instances;
    outside += r.outside;
  }
  total += seq_obs + sw_obs;
  outside += seq_outside + sw_outside;
  FILE* f = std::fopen(report.c_str(), "w");
  if (!f) {
    std::perror(report.c_str());
    return 2;
  }
  std::fprintf(f, "# Conformance run: %s\n\n", prop.name);
  std::fprintf(f, "- GPU: %s, %d SMs, compute capability %d.%d\n- driver: %d, CUDA runtime: %d\n- seed: %u\n\n", prop.name, sms,
               prop.major, prop.minor, driver, runtime, seed);
  std::fprintf(f, "- built by nvcc %d.%d for sm_90a; command: conformance --instances %llu --seed %u --report FILE\n\n",
               __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__, target, seed);
  std::fprintf(f, "instances: %llu\noutside-model: %llu\n\n", total, outside);
  std::fprintf(f, "| test | model says | instances | fresh | stale | hung | outside model | allowed but unseen | instances/s |\n");
  std::fprintf(f, "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  for (const Row& r : rows) {
    std::string unseen;
    if (r.allowed_stale && r.stale == 0) unseen += "stale ";
    if (r.may_hang && r.hung == 0) unseen += "hang ";
    if (!r.may_hang && r.fresh == 0) unseen += "fresh ";
    std::fprintf(f, "| %s | %s | %llu | %llu | %llu | %llu | %llu | %s | %.3g |\n", r.test.c_str(), r.litmus_verdict.c_str(),
                 r.instances, r.fresh, r.stale, r.hung, static_cast<unsigned long long>(r.outside), unseen.empty() ? "-" : unseen.c_str(),
                 r.instances / r.seconds);
  }
  std::fprintf(f, "| op_sequences (%d random sequences of %d ops) | model observations | %llu | | | | %llu | | |\n", seqs, len, seq_obs,
               seq_outside);
  std::fprintf(f, "| sw_op_sequences (software mbarrier, %d sequences) | model observations | %llu | | | | %llu | | |\n", seqs,
               sw_obs, sw_outside);
  for (const auto& [k, v] : seq_mismatch) std::fprintf(f, "\nmismatch %s: %llu", k.c_str(), v);
  if (!first_mismatch.empty()) std::fprintf(f, "\nfirst mismatch: %s\n", first_mismatch.c_str());
  for (const OpRow& r : op_rows)
    std::fprintf(f, "| %s | %d interleavings | %llu | | | | %llu | %d outcomes | %.3g |\n", r.test.c_str(), r.interleavings,
                 r.instances, r.outside, r.unseen, r.instances / r.seconds);
  std::fprintf(f, "\n\n## Op litmus histograms (two threads on one barrier; allowed = every interleaving of the model)\n");
  for (const OpRow& r : op_rows) {
    std::fprintf(f, "\n### %s\n\n| outcome | instances | model interleavings giving it | |\n| --- | --- | --- | --- |\n", r.test.c_str());
    for (const std::string& l : r.lines) std::fprintf(f, "%s\n", l.c_str());
  }
  std::fprintf(f, "\n\n## Fixed sequences (after each op: test_wait.parity(0), parity(1), and the op's value)\n\n");
  std::fprintf(f, "| sequence | device | model | |\n| --- | --- | --- | --- |\n%s", fixed_md.c_str());
  std::fclose(f);
  std::printf("instances: %llu\noutside-model: %llu\n", total, outside);
  return outside == 0 ? 0 : 1;
}
