// spec/primitives.hpp against libcu++'s cuda::ptx, side by side on one GPU:
// the same loop (arrive on an mbarrier, then try_wait.parity until the phase
// completes, per warp, many blocks) written with each; the figure is the time
// ratio ours / libcu++ (1.00 means zero overhead). cuobjdump -sass of this
// binary shows the two loops' instructions.
//   primitives_bench [--iters N] [--reps R]
#include <cuda/ptx>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "spec/primitives.hpp"

namespace prim = pc::prim;

#define CUDA_CHECK(x)                                                                    \
  do {                                                                                   \
    cudaError_t e_ = (x);                                                                \
    if (e_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "CUDA error %s at line %d\n", cudaGetErrorString(e_), __LINE__); \
      std::exit(3);                                                                      \
    }                                                                                    \
  } while (0)

constexpr int warps = 4;

__global__ void loop_ours(int iters, unsigned* out) {
  __shared__ prim::hw_mbarrier bars[warps];
  const int w = threadIdx.x / 32;
  if (threadIdx.x % 32 == 0) prim::mbarrier_init(&bars[w], 1);
  __syncwarp();
  unsigned done = 0;
  for (int i = 0; i < iters; ++i) {
    if (threadIdx.x % 32 == 0) prim::mbarrier_arrive(&bars[w], 1);
    while (!prim::mbarrier_try_wait_parity(&bars[w], i & 1)) {
    }
    ++done;
  }
  if (threadIdx.x == 0) out[blockIdx.x] = done;
}

__global__ void loop_libcu(int iters, unsigned* out) {
  __shared__ std::uint64_t bars[warps];
  const int w = threadIdx.x / 32;
  if (threadIdx.x % 32 == 0) cuda::ptx::mbarrier_init(&bars[w], 1);
  __syncwarp();
  unsigned done = 0;
  for (int i = 0; i < iters; ++i) {
    if (threadIdx.x % 32 == 0)
      (void)cuda::ptx::mbarrier_arrive(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, &bars[w], 1u);
    while (!cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cta, &bars[w], static_cast<std::uint32_t>(i & 1))) {
    }
    ++done;
  }
  if (threadIdx.x == 0) out[blockIdx.x] = done;
}

int main(int argc, char** argv) {
  int iters = 20000, reps = 9;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--iters") && i + 1 < argc) iters = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: primitives_bench [--iters N] [--reps R]\n");
      return 2;
    }
  }
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  const int blocks = prop.multiProcessorCount * 8;
  unsigned* out = nullptr;
  CUDA_CHECK(cudaMalloc(&out, blocks * sizeof(unsigned)));
  cudaEvent_t a, b;
  CUDA_CHECK(cudaEventCreate(&a));
  CUDA_CHECK(cudaEventCreate(&b));
  auto time = [&](auto kernel) {
    kernel<<<blocks, 32 * warps>>>(iters, out);  // warm-up
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaEventRecord(a));
    kernel<<<blocks, 32 * warps>>>(iters, out);
    CUDA_CHECK(cudaEventRecord(b));
    CUDA_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    return ms;
  };
  std::vector<float> ours, libcu, ratio;
  for (int r = 0; r < reps; ++r) {  // A B A B ...: the ratio is taken pair by pair
    const float x = time(loop_ours), y = time(loop_libcu);
    ours.push_back(x);
    libcu.push_back(y);
    ratio.push_back(x / y);
  }
  auto median = [](std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const double pairs = double(blocks) * warps * iters;
  std::printf("%s, %d blocks x %d warps x %d arrive+wait pairs, %d reps\n", prop.name, blocks, warps, iters, reps);
  std::printf("primitives.hpp  median %.3f ms  (%.3g pairs/s)\n", median(ours), pairs / (median(ours) * 1e-3));
  std::printf("libcu++ ptx     median %.3f ms  (%.3g pairs/s)\n", median(libcu), pairs / (median(libcu) * 1e-3));
  const auto [lo, hi] = std::minmax_element(ratio.begin(), ratio.end());
  std::printf("ratio ours/libcu++: median %.3f (min %.3f, max %.3f)\n", median(ratio), *lo, *hi);
  return 0;
}
