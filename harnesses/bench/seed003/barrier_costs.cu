// What each barrier costs on the GPU, in SM cycles (clock64), for the cost
// view of docs/benchmarks.md: one block (or one cluster) alone on the device
// runs a loop of the barrier operation; thread 0 reads clock64 around
// `--iters` rounds after a warm-up, and the figure is cycles per round. Each
// row is written twice, with spec/primitives.hpp and with its peer (libcu++'s
// cuda::ptx, or the CUDA intrinsic __barrier_sync_count where cuda::ptx has
// no bar.sync), the two launched alternately; printed are the medians of
// `--runs` runs with 95% intervals (order statistics) and the run-by-run
// ratio ours / peer.
//
//   mbarrier N      N threads, one mbarrier of count N: each thread arrives
//                   (release.cta) and waits (try_wait.parity, acquire.cta)
//   per-warp W      W warps, each on its own mbarrier of count 32
//   bar.sync N      named barrier 1 with N threads
//   cluster C rel   C CTAs of 256 threads: barrier.cluster.arrive.release +
//                   barrier.cluster.wait.acquire; "rlx": arrive.relaxed
//   TMA B           one warp: the leader arrive.expect_tx B bytes and issues
//                   one cp.async.bulk of B bytes, the warp waits for the phase;
//                   "L2": the same 16 sources over and over, "cold": random
//                   B-byte blocks of a 1 GiB buffer (mostly device memory)
// The last column is the %globaltimer time per round of the primitives.hpp
// runs (it tells a slower SM clock from a longer wait).
//   barrier_costs [--runs N] [--iters N]
#include <cuda/ptx>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "harnesses/bench/seed003/stats.hpp"
#include "spec/primitives.hpp"

namespace prim = pc::prim;
namespace ptx = cuda::ptx;

#define CUDA_CHECK(x)                                                                        \
  do {                                                                                       \
    cudaError_t e_ = (x);                                                                    \
    if (e_ != cudaSuccess) {                                                                 \
      std::fprintf(stderr, "CUDA error %s at line %d\n", cudaGetErrorString(e_), __LINE__); \
      std::exit(3);                                                                          \
    }                                                                                        \
  } while (0)

constexpr int kWarm = 16;

// %globaltimer (ns): with clock64 it tells a slower SM clock from a longer wait.
__device__ inline long long global_ns() {
  long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

struct Ours {
  static __device__ void init(std::uint64_t* b, std::uint32_t n) {
    prim::mbarrier_init(b, n);
    prim::fence_mbarrier_init();
  }
  static __device__ void arrive(std::uint64_t* b) { (void)prim::mbarrier_arrive(b, 1); }
  static __device__ bool try_wait(std::uint64_t* b, std::uint32_t p) { return prim::mbarrier_try_wait_parity(b, p); }
  static __device__ void arrive_expect_tx(std::uint64_t* b, std::uint32_t tx) { (void)prim::mbarrier_arrive_expect_tx(b, tx); }
  static __device__ void load(void* dst, const void* src, std::uint32_t n, std::uint64_t* b) { prim::tma_load_1d(dst, src, n, b); }
  static __device__ void bar_sync(std::uint32_t id, std::uint32_t n) { prim::bar_sync(id, n); }
  static __device__ void cluster_arrive_release() { prim::cluster_arrive(prim::release); }
  static __device__ void cluster_arrive_relaxed() { prim::cluster_arrive(prim::relaxed); }
  static __device__ void cluster_wait() { prim::cluster_wait(); }
};

struct Peer {
  static __device__ void init(std::uint64_t* b, std::uint32_t n) {
    ptx::mbarrier_init(b, n);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  static __device__ void arrive(std::uint64_t* b) {
    (void)ptx::mbarrier_arrive(ptx::sem_release, ptx::scope_cta, ptx::space_shared, b, 1u);
  }
  static __device__ bool try_wait(std::uint64_t* b, std::uint32_t p) {
    return ptx::mbarrier_try_wait_parity(ptx::sem_acquire, ptx::scope_cta, b, p);
  }
  static __device__ void arrive_expect_tx(std::uint64_t* b, std::uint32_t tx) {
    (void)ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, b, tx);
  }
  static __device__ void load(void* dst, const void* src, std::uint32_t n, std::uint64_t* b) {
    ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, dst, src, n, b);
  }
  static __device__ void bar_sync(std::uint32_t id, std::uint32_t n) { __barrier_sync_count(id, n); }
  static __device__ void cluster_arrive_release() { ptx::barrier_cluster_arrive(ptx::sem_release); }
  static __device__ void cluster_arrive_relaxed() { ptx::barrier_cluster_arrive(ptx::sem_relaxed); }
  static __device__ void cluster_wait() { ptx::barrier_cluster_wait(ptx::sem_acquire); }
};

// N threads, one mbarrier of count N.
template <class A>
__global__ void mbar_block(int iters, long long* out, const unsigned char*, std::uint32_t) {
  __shared__ std::uint64_t bar;
  if (threadIdx.x == 0) A::init(&bar, blockDim.x);
  __syncthreads();
  long long t0 = 0, n0 = 0;
  for (int i = 0; i < kWarm + iters; ++i) {
    if (i == kWarm) {
      n0 = global_ns();
      t0 = clock64();
    }
    A::arrive(&bar);
    while (!A::try_wait(&bar, i & 1)) {
    }
  }
  const long long t1 = clock64(), n1 = global_ns();
  if (threadIdx.x == 0) {
    out[0] = t1 - t0;
    out[32] = n1 - n0;
  }
}

// Each warp on its own mbarrier of count 32; the figure is the mean over warps.
template <class A>
__global__ void mbar_warp(int iters, long long* out, const unsigned char*, std::uint32_t) {
  __shared__ std::uint64_t bars[32];
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) A::init(&bars[warp], 32);
  __syncwarp();
  long long t0 = 0, n0 = 0;
  for (int i = 0; i < kWarm + iters; ++i) {
    if (i == kWarm) {
      n0 = global_ns();
      t0 = clock64();
    }
    A::arrive(&bars[warp]);
    while (!A::try_wait(&bars[warp], i & 1)) {
    }
  }
  const long long t1 = clock64(), n1 = global_ns();
  if (lane == 0) out[warp] = t1 - t0;
  if (threadIdx.x == 0) out[32] = n1 - n0;
}

template <class A>
__global__ void named(int iters, long long* out, const unsigned char*, std::uint32_t) {
  long long t0 = 0, n0 = 0;
  for (int i = 0; i < kWarm + iters; ++i) {
    if (i == kWarm) {
      n0 = global_ns();
      t0 = clock64();
    }
    A::bar_sync(1, blockDim.x);
  }
  const long long t1 = clock64(), n1 = global_ns();
  if (threadIdx.x == 0) {
    out[0] = t1 - t0;
    out[32] = n1 - n0;
  }
}

template <class A, bool Release>
__global__ void cluster_loop(int iters, long long* out, const unsigned char*, std::uint32_t) {
  long long t0 = 0, n0 = 0;
  for (int i = 0; i < kWarm + iters; ++i) {
    if (i == kWarm) {
      n0 = global_ns();
      t0 = clock64();
    }
    if constexpr (Release) A::cluster_arrive_release();
    else A::cluster_arrive_relaxed();
    A::cluster_wait();
  }
  const long long t1 = clock64(), n1 = global_ns();
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    out[0] = t1 - t0;
    out[32] = n1 - n0;
  }
}

__device__ inline std::uint32_t mix(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  return x ^ (x >> 16);
}

// One warp: leader arrive.expect_tx + one bulk copy, the warp waits. `blocks`
// is the number of `bytes`-sized source blocks to pick from (16: L2-resident;
// a power of two); `seed` varies the cold addresses from run to run.
template <class A>
__global__ void tma_round_trip(int iters, long long* out, const unsigned char* src, std::uint32_t bytes_blocks_seed) {
  extern __shared__ __align__(128) unsigned char buf[];
  __shared__ std::uint64_t bar;
  const std::uint32_t bytes = 16u << (bytes_blocks_seed & 0xf);  // 16 B .. 512 KiB
  const std::uint32_t blocks_log = (bytes_blocks_seed >> 4) & 0x1f;
  const std::uint32_t seed = bytes_blocks_seed >> 9;
  const unsigned lane = threadIdx.x % 32;
  if (lane == 0) A::init(&bar, 1);
  __syncwarp();
  long long t0 = 0, n0 = 0;
  for (int i = 0; i < kWarm + iters; ++i) {
    if (i == kWarm) {
      n0 = global_ns();
      t0 = clock64();
    }
    if (lane == 0) {
      const std::uint32_t blk = blocks_log == 4 ? (i & 15) : (mix(seed * 1000003u + i) & ((1u << blocks_log) - 1));
      A::arrive_expect_tx(&bar, bytes);
      A::load(buf, src + std::size_t(blk) * bytes, bytes, &bar);
    }
    while (!A::try_wait(&bar, i & 1)) {
    }
  }
  const long long t1 = clock64(), n1 = global_ns();
  if (threadIdx.x == 0) {
    out[0] = t1 - t0;
    out[32] = n1 - n0;
  }
}

using Kernel = void (*)(int, long long*, const unsigned char*, std::uint32_t);

struct Row {
  const char* what;
  Kernel ours, peer;
  int threads;      // per CTA
  int cluster;      // CTAs (1: a plain launch)
  int tma_log;      // bytes = 16 << tma_log (TMA rows), else -1
  int tma_blocks;   // log2 of the source blocks (TMA rows)
  int per_warp;     // the figure is the mean over warps
};

int main(int argc, char** argv) {
  int runs = 31, iters = 1000;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--runs") && i + 1 < argc) runs = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--iters") && i + 1 < argc) iters = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: barrier_costs [--runs N] [--iters N]\n");
      return 2;
    }
  }
  if (runs < 30 || iters < 1) {
    std::fprintf(stderr, "barrier_costs: at least 30 runs and 1 iteration\n");
    return 2;
  }
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  int clock_khz = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  const std::size_t cold_bytes = std::size_t(1) << 30;
  unsigned char* src = nullptr;
  CUDA_CHECK(cudaMalloc(&src, cold_bytes));
  CUDA_CHECK(cudaMemset(src, 1, cold_bytes));
  long long* out = nullptr;
  CUDA_CHECK(cudaMalloc(&out, 33 * sizeof(long long)));

  std::vector<Row> rows;
  for (int n : {32, 64, 128, 256, 512, 1024})
    rows.push_back({nullptr, mbar_block<Ours>, mbar_block<Peer>, n, 1, -1, 0, 0});
  for (int n : {256, 1024}) rows.push_back({nullptr, mbar_warp<Ours>, mbar_warp<Peer>, n, 1, -1, 0, 1});
  for (int n : {32, 64, 128, 256, 512, 1024}) rows.push_back({nullptr, named<Ours>, named<Peer>, n, 1, -1, 0, 0});
  for (int c : {2, 4}) {
    rows.push_back({"release", cluster_loop<Ours, true>, cluster_loop<Peer, true>, 256, c, -1, 0, 0});
    rows.push_back({"relaxed", cluster_loop<Ours, false>, cluster_loop<Peer, false>, 256, c, -1, 0, 0});
  }
  for (int cold : {0, 1})
    for (int lg : {0, 6, 10}) {  // 16 B, 1 KiB, 16 KiB
      const int blocks_log = cold ? 30 - (4 + lg) : 4;
      rows.push_back({cold ? "cold" : "L2", tma_round_trip<Ours>, tma_round_trip<Peer>, 32, 1, lg, blocks_log, 0});
    }
  for (const Row& r : rows)
    if (r.tma_log >= 0) {
      CUDA_CHECK(cudaFuncSetAttribute(r.ours, cudaFuncAttributeMaxDynamicSharedMemorySize, 16 << 10));
      CUDA_CHECK(cudaFuncSetAttribute(r.peer, cudaFuncAttributeMaxDynamicSharedMemorySize, 16 << 10));
    }

  double ns = 0;  // the last launch's ns per round (thread 0)
  auto launch = [&](const Row& r, Kernel k, int run) -> double {
    std::uint32_t arg = 0;
    std::size_t smem = 0;
    if (r.tma_log >= 0) {
      arg = std::uint32_t(r.tma_log) | (std::uint32_t(r.tma_blocks) << 4) | (std::uint32_t(run + 1) << 9);
      smem = std::size_t(16) << r.tma_log;
    }
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(r.cluster);
    cfg.blockDim = dim3(r.threads);
    cfg.dynamicSmemBytes = smem;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = r.cluster;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = r.cluster > 1 ? 1 : 0;
    CUDA_CHECK(cudaLaunchKernelEx(&cfg, k, iters, out, static_cast<const unsigned char*>(src), arg));
    CUDA_CHECK(cudaDeviceSynchronize());
    long long host[33] = {};
    CUDA_CHECK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
    ns = double(host[32]) / iters;
    if (!r.per_warp) return double(host[0]) / iters;
    const int warps = r.threads / 32;
    double sum = 0;
    for (int w = 0; w < warps; ++w) sum += double(host[w]);
    return sum / warps / iters;
  };

  std::printf("# barrier_costs: %s, SM clock %.0f MHz, %d runs x %d rounds per row; cycles per round\n", prop.name,
              clock_khz / 1e3, runs, iters);
  std::printf("| operation | threads | primitives.hpp: median cycles [95%% CI] | peer: median [95%% CI] | ratio ours/peer [95%% CI] | ours: ns per round [95%% CI] |\n");
  std::printf("| --- | --- | --- | --- | --- | --- |\n");
  for (const Row& r : rows) {
    launch(r, r.ours, 0);  // warm-up
    launch(r, r.peer, 0);
    std::vector<double> a, b, a_ns;
    for (int run = 0; run < runs; ++run) {
      if (run % 2) {
        b.push_back(launch(r, r.peer, run));
        a.push_back(launch(r, r.ours, run));
        a_ns.push_back(ns);
      } else {
        a.push_back(launch(r, r.ours, run));
        a_ns.push_back(ns);
        b.push_back(launch(r, r.peer, run));
      }
    }
    const seed003::Summary sn = seed003::summarize(a_ns);
    const seed003::Summary sa = seed003::summarize(a), sb = seed003::summarize(b), q = seed003::ratio(a, b);
    char name[96];
    if (r.tma_log >= 0)
      std::snprintf(name, sizeof name, "TMA round trip %u B, %s", 16u << r.tma_log, r.what);
    else if (r.cluster > 1)
      std::snprintf(name, sizeof name, "cluster barrier, %d CTAs, arrive.%s + wait", r.cluster, r.what);
    else if (r.ours == mbar_block<Ours>)
      std::snprintf(name, sizeof name, "mbarrier arrive+wait, one barrier (count %d)", r.threads);
    else if (r.per_warp)
      std::snprintf(name, sizeof name, "mbarrier arrive+wait, per-warp (%d barriers of count 32)", r.threads / 32);
    else
      std::snprintf(name, sizeof name, "bar.sync 1, %d", r.threads);
    std::printf("| %s | %d | %.1f [%.1f, %.1f] | %.1f [%.1f, %.1f] | %.3f [%.3f, %.3f] | %.1f [%.1f, %.1f] |\n", name,
                r.threads * r.cluster, sa.median, sa.lo, sa.hi, sb.median, sb.lo, sb.hi, q.median, q.lo, q.hi, sn.median,
                sn.lo, sn.hi);
    std::fflush(stdout);
  }
  CUDA_CHECK(cudaFree(src));
  CUDA_CHECK(cudaFree(out));
  return 0;
}
