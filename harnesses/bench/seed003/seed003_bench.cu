// Seed 003 on the GPU: a block of 8 warps (256 threads) gathers 8 points, one
// per warp, each a contiguous run of POINT bytes at a scattered address, into
// shared memory, and each warp then copies its point out. The variants, all
// written with spec/primitives.hpp, run side by side (round robin, the order
// rotated every round), so every ratio below is taken run by run:
//
//   manual    every thread loads 16-byte vectors of all 8 points into shared
//             memory, barrier.sync 0 (the block), each warp copies its point
//   block64   one mbarrier (count 256); 64 issuers (lanes 0,4,..,28 of every
//             warp), each expects and loads 1/8 of its warp's point; all 256
//             threads arrive and wait                       (the seed's "block")
//   warp8     one mbarrier per warp (count 32); lane 0 of each warp expects and
//             loads its warp's whole point; the warp's 32 threads arrive and
//             wait on their own barrier                     (the seed's "warp")
//   block8    one mbarrier (count 256), lane 0 of each warp loads its point
//   warp64    one mbarrier per warp, lanes 0,4,..,28 each load 1/8 of the point
//   block8w0  one mbarrier (count 256); lanes 0,4,..,28 of warp 0 each load a
//             whole point (the seed's block code read literally: its loaders are
//             threads with threadIdx % 4 == 0 and loader_id < 8)
//
// block64/warp64/block8/warp8 are the 2x2 design: barrier granularity (block
// vs per-warp) crossed with the issuing threads (64 vs 8, the same bytes in
// flight). The copies are cp.async.bulk (1D) with complete_tx on the mbarrier;
// the seed uses the tensor form, whose completion mechanism is the same.
//
// Each run times K back-to-back launches with a pair of cudaEvents (after a
// warm-up); a point is `--runs` runs (at least 30). Printed: median time per
// launch with its 95% interval (order statistics), the bandwidth, the median
// cycles from kernel entry to "data in shared memory" per warp (clock64), and
// the run-by-run ratios with their intervals. Every variant's output is
// checked against the input before timing.
//   seed003_bench [--runs N]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "harnesses/bench/seed003/stats.hpp"
#include "spec/primitives.hpp"

namespace prim = pc::prim;

#define CUDA_CHECK(x)                                                                        \
  do {                                                                                       \
    cudaError_t e_ = (x);                                                                    \
    if (e_ != cudaSuccess) {                                                                 \
      std::fprintf(stderr, "CUDA error %s at line %d\n", cudaGetErrorString(e_), __LINE__); \
      std::exit(3);                                                                          \
    }                                                                                        \
  } while (0)

constexpr int kWarps = 8;
constexpr int kThreads = 32 * kWarps;

// The source point of output point i: an odd multiplier modulo a power of two
// is a bijection, so the points are distinct and scattered.
__host__ __device__ inline std::uint32_t src_point(std::uint32_t i, std::uint32_t mask) { return (i * 2654435761u) & mask; }

enum class Gran { block, warp };
enum class Issue { spread64, lead8, warp0_8 };

__global__ void __launch_bounds__(kThreads) manual_kernel(const uint4* in, uint4* out, std::uint32_t point_bytes,
                                                           std::uint32_t mask, long long* cycles) {
  extern __shared__ __align__(128) unsigned char tile_raw[];
  uint4* tile = reinterpret_cast<uint4*>(tile_raw);
  const long long t0 = clock64();
  const std::uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::uint32_t v = point_bytes / 16;  // vectors per point
  const std::uint32_t base = blockIdx.x * kWarps;
  for (std::uint32_t i = threadIdx.x; i < kWarps * v; i += kThreads) {
    const std::uint32_t p = i / v, k = i % v;
    tile[i] = in[std::size_t(src_point(base + p, mask)) * v + k];
  }
  prim::bar_sync(0, kThreads);
  const long long t1 = clock64();
  for (std::uint32_t k = lane; k < v; k += 32) out[std::size_t(base + warp) * v + k] = tile[warp * v + k];
  if (lane == 0) cycles[base + warp] = t1 - t0;
}

template <Gran G, Issue I>
__global__ void __launch_bounds__(kThreads) tma_kernel(const uint4* in, uint4* out, std::uint32_t point_bytes,
                                                        std::uint32_t mask, long long* cycles) {
  extern __shared__ __align__(128) unsigned char tile_raw[];
  __shared__ prim::hw_mbarrier bars[kWarps];
  const long long t0 = clock64();
  const std::uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::uint32_t base = blockIdx.x * kWarps;
  const unsigned char* src = reinterpret_cast<const unsigned char*>(in);
  prim::hw_mbarrier* bar;
  if constexpr (G == Gran::block) {
    if (threadIdx.x == 0) {
      prim::mbarrier_init(&bars[0], kThreads);
      prim::fence_mbarrier_init();
    }
    prim::bar_sync(0, kThreads);  // the init before any other thread's use
    bar = &bars[0];
  } else {
    if (lane == 0) {
      prim::mbarrier_init(&bars[warp], 32);
      prim::fence_mbarrier_init();
    }
    __syncwarp();  // the init before the other lanes' arrive and wait
    bar = &bars[warp];
  }
  if constexpr (I == Issue::lead8) {
    if (lane == 0) {
      prim::mbarrier_expect_tx(bar, point_bytes);
      prim::tma_load_1d(tile_raw + warp * point_bytes, src + std::size_t(src_point(base + warp, mask)) * point_bytes,
                        point_bytes, bar);
    }
  } else if constexpr (I == Issue::spread64) {
    if (lane % 4 == 0) {
      const std::uint32_t chunk = point_bytes / 8, k = lane / 4;
      prim::mbarrier_expect_tx(bar, chunk);
      prim::tma_load_1d(tile_raw + warp * point_bytes + k * chunk,
                        src + std::size_t(src_point(base + warp, mask)) * point_bytes + k * chunk, chunk, bar);
    }
  } else {
    static_assert(G == Gran::block, "warp 0 issues for every warp only with the block barrier");
    if (warp == 0 && lane % 4 == 0) {
      const std::uint32_t p = lane / 4;
      prim::mbarrier_expect_tx(bar, point_bytes);
      prim::tma_load_1d(tile_raw + p * point_bytes, src + std::size_t(src_point(base + p, mask)) * point_bytes,
                        point_bytes, bar);
    }
  }
  prim::mbarrier_arrive(bar, 1);
  while (!prim::mbarrier_try_wait_parity(bar, 0)) {
  }
  const long long t1 = clock64();
  const uint4* tile = reinterpret_cast<const uint4*>(tile_raw);
  const std::uint32_t v = point_bytes / 16;
  for (std::uint32_t k = lane; k < v; k += 32) out[std::size_t(base + warp) * v + k] = tile[warp * v + k];
  if (lane == 0) cycles[base + warp] = t1 - t0;
}

using Kernel = void (*)(const uint4*, uint4*, std::uint32_t, std::uint32_t, long long*);

struct Variant {
  const char* name;
  Kernel kernel;
};

struct Config {
  std::uint32_t point_bytes;  // bytes per point (per warp); the block moves 8x this
  std::uint32_t blocks;
  int launches;  // back-to-back launches per timed run
  const char* what;
};

int main(int argc, char** argv) {
  int runs = 41;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--runs") && i + 1 < argc) runs = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: seed003_bench [--runs N]\n");
      return 2;
    }
  }
  if (runs < 30) {
    std::fprintf(stderr, "seed003_bench: at least 30 runs per point\n");
    return 2;
  }
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  int clock_khz = 0, driver = 0, runtime = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));

  const Variant variants[] = {
      {"manual", manual_kernel},
      {"block64", tma_kernel<Gran::block, Issue::spread64>},
      {"warp8", tma_kernel<Gran::warp, Issue::lead8>},
      {"block8", tma_kernel<Gran::block, Issue::lead8>},
      {"warp64", tma_kernel<Gran::warp, Issue::spread64>},
      {"block8w0", tma_kernel<Gran::block, Issue::warp0_8>},
  };
  constexpr int nv = sizeof(variants) / sizeof(variants[0]);
  // The seed's size: 8 points of 128 fp32 (2x2x32) = 4 KiB per block.
  const Config configs[] = {
      {512, 256, 1, "seed size (8 x 512 B per block, 256 blocks), 1 launch per run"},
      {512, 256, 20, "seed size (8 x 512 B per block, 256 blocks), 20 launches per run"},
      {4096, 2048, 10, "copies dominate: 8 x 4 KiB per block, 2048 blocks (64 MiB in, 64 MiB out)"},
      {16384, 1024, 5, "copies dominate: 8 x 16 KiB per block, 1024 blocks (128 MiB in, 128 MiB out)"},
  };

  std::printf("# seed003_bench: %s, %d SMs, SM clock %.0f MHz, driver %d, runtime %d, %d runs per point\n", prop.name,
              prop.multiProcessorCount, clock_khz / 1e3, driver, runtime, runs);
  for (const Variant& v : variants)
    CUDA_CHECK(cudaFuncSetAttribute(v.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 8 * 16384));

  cudaEvent_t ev_a, ev_b;
  CUDA_CHECK(cudaEventCreate(&ev_a));
  CUDA_CHECK(cudaEventCreate(&ev_b));
  bool all_ok = true;
  for (const Config& c : configs) {
    const std::uint32_t points = c.blocks * kWarps;
    std::uint32_t npow = 1;
    while (npow < points) npow *= 2;
    const std::size_t in_bytes = std::size_t(npow) * c.point_bytes, out_bytes = std::size_t(points) * c.point_bytes;
    const std::size_t smem = std::size_t(kWarps) * c.point_bytes;
    uint4 *in = nullptr, *out = nullptr;
    long long* cycles = nullptr;
    CUDA_CHECK(cudaMalloc(&in, in_bytes));
    CUDA_CHECK(cudaMalloc(&out, out_bytes));
    CUDA_CHECK(cudaMalloc(&cycles, points * sizeof(long long)));
    std::vector<std::uint32_t> host_in(in_bytes / 4), host_out(out_bytes / 4);
    for (std::size_t i = 0; i < host_in.size(); ++i) host_in[i] = std::uint32_t(i * 2246822519u + 12345u);
    CUDA_CHECK(cudaMemcpy(in, host_in.data(), in_bytes, cudaMemcpyHostToDevice));
    auto launch = [&](const Variant& v) {
      v.kernel<<<c.blocks, kThreads, smem>>>(in, out, c.point_bytes, npow - 1, cycles);
    };
    // Correctness of every variant first.
    for (const Variant& v : variants) {
      CUDA_CHECK(cudaMemset(out, 0, out_bytes));
      launch(v);
      CUDA_CHECK(cudaGetLastError());
      CUDA_CHECK(cudaDeviceSynchronize());
      CUDA_CHECK(cudaMemcpy(host_out.data(), out, out_bytes, cudaMemcpyDeviceToHost));
      const std::size_t w = c.point_bytes / 4;
      std::size_t bad = 0;
      for (std::uint32_t p = 0; p < points; ++p)
        bad += std::memcmp(&host_out[std::size_t(p) * w], &host_in[std::size_t(src_point(p, npow - 1)) * w], c.point_bytes) != 0;
      if (bad) {
        std::printf("CHECK FAILED: %s, %u of %u points wrong\n", v.name, unsigned(bad), points);
        all_ok = false;
      }
    }
    // Warm-up, then the rounds.
    for (int w = 0; w < 3; ++w)
      for (const Variant& v : variants) launch(v);
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<std::vector<double>> us(nv);
    for (int r = 0; r < runs; ++r) {
      for (int j = 0; j < nv; ++j) {
        const int vi = (j + r) % nv;  // rotate the order every round
        CUDA_CHECK(cudaEventRecord(ev_a));
        for (int l = 0; l < c.launches; ++l) launch(variants[vi]);
        CUDA_CHECK(cudaEventRecord(ev_b));
        CUDA_CHECK(cudaEventSynchronize(ev_b));
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, ev_a, ev_b));
        us[vi].push_back(1000.0 * ms / c.launches);
      }
    }
    CUDA_CHECK(cudaGetLastError());
    std::printf("\n## %s\n", c.what);
    std::printf("| variant | median us | 95%% CI | GB/s (in+out) | cycles to data ready, median warp [p10, p90] |\n");
    std::printf("| --- | --- | --- | --- | --- |\n");
    std::vector<long long> cyc(points);
    for (int j = 0; j < nv; ++j) {
      launch(variants[j]);
      CUDA_CHECK(cudaDeviceSynchronize());
      CUDA_CHECK(cudaMemcpy(cyc.data(), cycles, points * sizeof(long long), cudaMemcpyDeviceToHost));
      std::sort(cyc.begin(), cyc.end());
      const seed003::Summary s = seed003::summarize(us[j]);
      std::printf("| %s | %.2f | [%.2f, %.2f] | %.0f | %lld [%lld, %lld] |\n", variants[j].name, s.median, s.lo, s.hi,
                  2.0 * out_bytes / (s.median * 1e3), cyc[points / 2], cyc[points / 10], cyc[points * 9 / 10]);
    }
    auto idx = [&](const char* n) {
      for (int j = 0; j < nv; ++j)
        if (!std::strcmp(variants[j].name, n)) return j;
      std::abort();
    };
    struct Pair {
      const char *a, *b, *what;
    };
    const Pair pairs[] = {
        {"manual", "warp8", "seed: warp-barrier vs manual (seed 1.58)"},
        {"manual", "block64", "seed: block-barrier vs manual (seed 1.27)"},
        {"block64", "warp8", "seed: warp vs block barrier (seed 1.24), both factors changed"},
        {"block64", "warp64", "granularity, 64 issuers"},
        {"block8", "warp8", "granularity, 8 issuers"},
        {"block64", "block8", "issuers 64 -> 8, block barrier"},
        {"warp64", "warp8", "issuers 64 -> 8, per-warp barriers"},
        {"block8w0", "warp8", "seed block code read literally (8 issuers in warp 0) vs warp8"},
        {"block8w0", "block8", "8 issuers in warp 0 vs one per warp, block barrier"},
    };
    std::printf("\n| ratio time(a)/time(b) | a | b | median | 95%% CI |\n| --- | --- | --- | --- | --- |\n");
    for (const Pair& p : pairs) {
      const seed003::Summary s = seed003::ratio(us[idx(p.a)], us[idx(p.b)]);
      std::printf("| %s | %s | %s | %.3f | [%.3f, %.3f] |\n", p.what, p.a, p.b, s.median, s.lo, s.hi);
    }
    std::fflush(stdout);
    CUDA_CHECK(cudaFree(in));
    CUDA_CHECK(cudaFree(out));
    CUDA_CHECK(cudaFree(cycles));
  }
  std::printf("\n# output check: %s\n", all_ok ? "all variants correct at every size" : "FAILED");
  return all_ok ? 0 : 1;
}
