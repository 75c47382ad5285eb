// When does a TMA copy read its tensor map? The PTX ISA does not say.
//
// Each CTA owns a tensor map in global memory over one of two source
// buffers, A (word i holds 2i+1) or B (word i holds 2i+2). In round r the
// map points at buffer r % 2: thread 0 acquires it
// (fence.proxy.tensormap::generic.acquire.gpu), issues a tiled
// cp.async.bulk.tensor (2-D, one row of 256 words) into shared memory, and
// rewrites the map's global address to the other buffer
// (tensormap.replace.tile.global_address.global, then
// fence.proxy.tensormap::generic.release.gpu): right after the issue (after
// a pause of 0..D cycles), after cp.async.bulk.commit_group and
// wait_group.read 0 (CUTLASS's grouped GEMMs before they rewrite a map), or
// after the copy's mbarrier wait. Then it checks what the copy brought:
// every word from the buffer the map named at the issue ("old"), from the
// rewritten one ("new"), or a mix. The next round's copy, after the
// acquire, must bring the new buffer (the rewrite took effect).
//
// The model (docs/spec.md, "Tensor maps"): a copy reads its map while it is
// in flight, so a rewrite before the copy is known complete races with it
// (either map); after the mbarrier wait, or the bulk wait, old only.
// Sensitivity: the acquire left out of the rounds after the first, where the
// model reports a proxy_race: whether the tensormap proxy keeps a map it read
// before (Triton #4332 saw stale maps without the fence).
//
// Build: nvcc -std=c++20 -O2 -gencode=arch=compute_90a,code=sm_90a -I. \
//   harnesses/conformance/tensormap_reread.cu -o tensormap_reread
// Run: tensormap_reread [--instances N] [--seed S] [--report FILE]
#include <cuda.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "harnesses/conformance/cuda_check.hpp"

namespace {

constexpr int box = 256;           // words per copy (the most a box dimension takes)
constexpr int chunks = 4096;       // copies' positions in each buffer: 4 MiB each
constexpr int words = box * chunks;

// The counters of one case: rounds, the copies that brought the old buffer,
// the new one, a mix, anything else; waits that timed out.
enum Count { rounds_done, old_data, new_data, mixed, wrong, hung, counts };

__device__ inline std::uint32_t smem_addr(const void* p) { return static_cast<std::uint32_t>(__cvta_generic_to_shared(p)); }

__device__ inline void acquire_map(const CUtensorMap* map) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(map) : "memory");
}
__device__ inline void release_maps() { asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory"); }
__device__ inline void replace_address(CUtensorMap* map, const void* base) {
  asm volatile("tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;" ::"l"(map), "l"(base) : "memory");
}
// One row (chunk) of the 2-D tensor: box {256, 1} at {0, row}.
__device__ inline void copy_row(void* dst, const CUtensorMap* map, int row, std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(smem_addr(dst)),
      "l"(map), "r"(0), "r"(row), "r"(smem_addr(bar))
      : "memory");
}
__device__ inline bool try_wait(std::uint64_t* bar, std::uint32_t parity) {
  std::uint32_t done = 0;
  asm volatile(
      "{ .reg .pred p; mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
      : "=r"(done)
      : "r"(smem_addr(bar)), "r"(parity)
      : "memory");
  return done != 0;
}
__device__ inline std::uint32_t xorshift(std::uint32_t& s) {
  s ^= s << 13;
  s ^= s >> 17;
  s ^= s << 5;
  return s;
}

// When thread 0 rewrites the map: right after issuing the copy (and the
// pause), after cp.async.bulk.commit_group and wait_group.read 0 (what
// CUTLASS's grouped GEMMs do before rewriting a map: tma_desc_commit_group,
// tma_desc_wait_group), or after the copy's mbarrier wait (the copy done).
enum When { at_issue = 0, after_bulk_wait = 1, after_completion = 2 };

template <bool AcquireEveryRound, int Rewrite>
__global__ void __launch_bounds__(32) reread(int rounds, CUtensorMap* maps, const std::uint32_t* a, const std::uint32_t* b,
                                            std::uint32_t seed, long long max_delay, unsigned long long* out) {
  __shared__ alignas(128) std::uint32_t dst[box];
  __shared__ alignas(8) std::uint64_t bar;
  if (threadIdx.x != 0) return;
  CUtensorMap* map = &maps[blockIdx.x];
  std::uint32_t s = (seed ^ (blockIdx.x * 2654435761u)) | 1u;
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bar)) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  unsigned long long c[counts] = {};
  for (int r = 0; r < rounds; ++r) {
    const std::uint32_t* named = (r % 2 == 0) ? a : b;  // what the map names at the issue
    const std::uint32_t* next = (r % 2 == 0) ? b : a;   // what the rewrite names
    for (int w = 0; w < box; ++w) reinterpret_cast<volatile std::uint32_t*>(dst)[w] = 0;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    if (AcquireEveryRound || r == 0) acquire_map(map);
    const int chunk = static_cast<int>(xorshift(s) % chunks);
    asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(&bar)), "r"(4u * box) : "memory");
    copy_row(dst, map, chunk, &bar);
    if (max_delay > 0) {
      const long long until = clock64() + static_cast<long long>(xorshift(s) % static_cast<std::uint32_t>(max_delay + 1));
      while (clock64() < until) {
      }
    }
    if (Rewrite == after_bulk_wait) asm volatile("cp.async.bulk.commit_group;\n\tcp.async.bulk.wait_group.read 0;" ::: "memory");
    if (Rewrite != after_completion) {
      replace_address(map, next);
      release_maps();
    }
    const long long deadline = clock64() + (1ll << 28);
    bool ok = false;
    while (!(ok = try_wait(&bar, static_cast<std::uint32_t>(r & 1))) && clock64() < deadline) {
    }
    if (!ok) {
      ++c[hung];
      break;
    }
    if (Rewrite == after_completion) {
      replace_address(map, next);
      release_maps();
    }
    int n_old = 0, n_new = 0;
    for (int w = 0; w < box; ++w) {
      const std::uint32_t v = reinterpret_cast<volatile std::uint32_t*>(dst)[w];
      const std::uint32_t i = static_cast<std::uint32_t>(chunk * box + w);
      n_old += v == named[i];
      n_new += v == next[i];
    }
    if (n_old == box) ++c[old_data];
    else if (n_new == box) ++c[new_data];
    else if (n_old + n_new == box) ++c[mixed];
    else ++c[wrong];
    ++c[rounds_done];
  }
  for (int k = 0; k < counts; ++k) atomicAdd(&out[k], c[k]);
}

__global__ void fill(std::uint32_t* a, std::uint32_t* b) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < words; i += gridDim.x * blockDim.x) {
    a[i] = 2u * static_cast<std::uint32_t>(i) + 1u;
    b[i] = 2u * static_cast<std::uint32_t>(i) + 2u;
  }
}

using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*, const cuuint64_t*,
                                 const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                 CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

}  // namespace

int main(int argc, char** argv) {
  unsigned long long target = 100000000ull;
  std::uint32_t seed = 12345;
  std::string report = "tensormap-reread-report.md";
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--instances") && i + 1 < argc) target = std::strtoull(argv[++i], nullptr, 10);
    else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc) seed = static_cast<std::uint32_t>(std::strtoul(argv[++i], nullptr, 10));
    else if (!std::strcmp(argv[i], "--report") && i + 1 < argc) report = argv[++i];
    else {
      std::fprintf(stderr, "usage: tensormap_reread [--instances N] [--seed S] [--report FILE]\n");
      return 2;
    }
  }
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0, runtime = 0;
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  const int sms = prop.multiProcessorCount, blocks = sms * 16, rounds = 256;
  EncodeTiled encode = nullptr;
  cudaDriverEntryPointQueryResult q{};
  CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", reinterpret_cast<void**>(&encode), 12000, cudaEnableDefault, &q));
  if (encode == nullptr || q != cudaDriverEntryPointSuccess) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled not found\n");
    return 2;
  }
  std::uint32_t *a = nullptr, *b = nullptr;
  CUDA_CHECK(cudaMalloc(&a, sizeof(std::uint32_t) * words));
  CUDA_CHECK(cudaMalloc(&b, sizeof(std::uint32_t) * words));
  fill<<<sms * 4, 256>>>(a, b);
  CUDA_CHECK(cudaGetLastError());
  // The template: A as a 2-D tensor of `chunks` rows of 256 uint32, boxes
  // of one row.
  CUtensorMap tmpl{};
  const cuuint64_t dim[2] = {static_cast<cuuint64_t>(box), static_cast<cuuint64_t>(chunks)};
  const cuuint64_t pitch[1] = {static_cast<cuuint64_t>(box) * 4};
  const cuuint32_t boxdim[2] = {box, 1}, stride[2] = {1, 1};
  if (const CUresult e = encode(&tmpl, CU_TENSOR_MAP_DATA_TYPE_UINT32, 2, a, dim, pitch, boxdim, stride, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
      e != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled failed: CUresult %d\n", static_cast<int>(e));
    return 2;
  }
  CUtensorMap* maps = nullptr;
  CUDA_CHECK(cudaMalloc(&maps, sizeof(CUtensorMap) * blocks));
  std::vector<CUtensorMap> host(static_cast<std::size_t>(blocks), tmpl);
  unsigned long long* d = nullptr;
  CUDA_CHECK(cudaMalloc(&d, counts * sizeof(unsigned long long)));
  struct Case {
    bool acquire;
    int rewrite;  // When
    long long delay;
  };
  const std::vector<Case> cases = {{true, at_issue, 0},         {true, at_issue, 200},        {true, at_issue, 2000},
                                   {true, after_bulk_wait, 0},  {true, after_completion, 0},  {false, at_issue, 0},
                                   {false, after_completion, 0}};
  const unsigned long long per = static_cast<unsigned long long>(blocks) * rounds;
  std::string md =
      "| acquire before each copy | the rewrite | pause before the rewrite (cycles, 0..D) | copies | old map (the buffer named at the issue) | new map "
      "(the rewritten buffer) | mixed | other data | waits timed out | model |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  bool all_agree = true;
  for (const Case& c : cases) {
    unsigned long long h[counts] = {}, launched = 0;
    std::uint32_t s = seed;
    const auto t0 = std::chrono::steady_clock::now();
    for (; launched < target; launched += per) {
      if (launched > 0 && std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > 20.0) break;
      // Every launch starts from maps over A, written by the host (so the
      // first round's acquire is the one the ISA asks for).
      CUDA_CHECK(cudaMemcpy(maps, host.data(), sizeof(CUtensorMap) * blocks, cudaMemcpyHostToDevice));
      CUDA_CHECK(cudaMemset(d, 0, counts * sizeof(unsigned long long)));
      auto go = [&](auto kernel) { kernel<<<blocks, 32>>>(rounds, maps, a, b, s++, c.delay, d); };
      if (c.acquire && c.rewrite == at_issue) go(reread<true, at_issue>);
      else if (c.acquire && c.rewrite == after_bulk_wait) go(reread<true, after_bulk_wait>);
      else if (c.acquire) go(reread<true, after_completion>);
      else if (c.rewrite == at_issue) go(reread<false, at_issue>);
      else go(reread<false, after_completion>);
      CUDA_CHECK(cudaGetLastError());
      CUDA_CHECK(cudaDeviceSynchronize());
      unsigned long long g[counts];
      CUDA_CHECK(cudaMemcpy(g, d, sizeof g, cudaMemcpyDeviceToHost));
      for (int k = 0; k < counts; ++k) h[k] += g[k];
    }
    // The model (docs/spec.md, "Tensor maps"): the copy reads its map while
    // it is in flight, so a rewrite right after the issue races with it (a
    // data_race: either map); after the mbarrier wait or the bulk wait, old
    // only, and the rewrite reaches the next copy through the release and
    // the acquire. Without the acquire, a proxy_race (any map). Every round
    // must end, with one map's data.
    const bool ordered = c.acquire && c.rewrite != at_issue;
    const bool agree = h[hung] == 0 && h[wrong] == 0 && h[mixed] == 0 && h[rounds_done] == launched &&
                       (!ordered || (h[new_data] == 0 && h[old_data] == launched));
    all_agree = all_agree && agree;
    const char* model = ordered ? (agree ? "verified: old only (agree)" : "verified: old only (**disagree**)")
                        : !c.acquire ? (agree ? "proxy_race: either map (agree)" : "proxy_race (**disagree**: rounds lost or other data)")
                                     : (agree ? "data_race: either map (agree)" : "data_race (**disagree**: rounds lost or other data)");
    static const char* const whens[3] = {"right after the copy's issue", "after commit_group + wait_group.read 0",
                                         "after the copy's mbarrier wait"};
    char row[512];
    std::snprintf(row, sizeof row, "| %s | %s | 0..%lld | %llu | %llu | %llu | %llu | %llu | %llu | %s |\n",
                  c.acquire ? "yes" : "first round only", whens[c.rewrite], c.delay, h[rounds_done], h[old_data], h[new_data], h[mixed],
                  h[wrong], h[hung], model);
    std::printf("%s", row);
    std::fflush(stdout);
    md += row;
  }
  CUDA_CHECK(cudaFree(d));
  CUDA_CHECK(cudaFree(maps));
  CUDA_CHECK(cudaFree(a));
  CUDA_CHECK(cudaFree(b));
  if (FILE* f = std::fopen(report.c_str(), "w")) {
    std::fprintf(f, "# tensormap_reread: %s, %d SMs; driver %d, runtime %d; nvcc %d.%d for sm_90a; seed %u; %llu copies per case\n\n%s\nEvery row %s.\n",
                 prop.name, sms, driver, runtime, __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__, seed, target, md.c_str(),
                 all_agree ? "agrees" : "does **not** agree");
    std::fclose(f);
  }
  return all_agree ? 0 : 1;
}
