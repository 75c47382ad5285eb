// The AMD side of spec/primitives.hpp, compiled by hipcc for gfx90a and
// gfx940 in CI: an LDS message-passing kernel with s_barrier (after
// s_waitcnt lgkmcnt(0)) and the software mbarrier of spec/sw_mbarrier.hpp.
// harnesses/CMakeLists.txt checks the AMDGCN it becomes.
#include <hip/hip_runtime.h>

#include "spec/primitives.hpp"

namespace prim = pc::prim;

__global__ void lds_message_passing(unsigned* out, int iters) {
  __shared__ unsigned data;
  __shared__ unsigned long long full, empty;
  const unsigned wave = threadIdx.x / warpSize, lane = threadIdx.x % warpSize;
  if (threadIdx.x == 0) {
    data = 0;
    prim::sw_mbarrier_init(&full, 1);
    prim::sw_mbarrier_init(&empty, 1);
  }
  prim::s_waitcnt_lgkm0();
  prim::s_barrier();
  unsigned fresh = 0;
  for (int i = 0; i < iters; ++i) {
    if (wave == 0 && lane == 0) {
      while (!prim::sw_mbarrier_test_wait_parity(&empty, (i & 1) ^ 1)) {
      }
      data = static_cast<unsigned>(i + 1);
      prim::sw_mbarrier_arrive(&full, 1);
    } else if (wave == 1 && lane == 0) {
      while (!prim::sw_mbarrier_test_wait_parity(&full, i & 1)) {
      }
      fresh += data == static_cast<unsigned>(i + 1);
      prim::sw_mbarrier_arrive(&empty, 1);
    }
  }
  if (wave == 1 && lane == 0) out[blockIdx.x] = fresh;
}
