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

// The op litmus kernel of harnesses/conformance on the software mbarrier, as
// it would run on AMD: lane l of wave 0 and lane l of wave 1 operate on word l
// through apply_sw_op (the same dispatch the CUDA harness and the model use).
// Compiled here so that the vendor-neutral half of the harness stays
// compilable for gfx90a/gfx940; it has not run on an AMD GPU.
#include "harnesses/conformance/op_litmus.hpp"

namespace conf = pc::conformance;

struct OpLitmusDev {
  unsigned count;
  int na, nb;
  unsigned a[conf::op_litmus_max_ops], b[conf::op_litmus_max_ops];
};

__global__ void sw_op_litmus(OpLitmusDev t, int iters, unsigned long long* keys) {
  __shared__ unsigned long long words[32];
  __shared__ unsigned bvals[conf::op_litmus_max_ops][32];
  const unsigned wave = threadIdx.x / warpSize, lane = threadIdx.x % warpSize;
  if (wave > 1 || lane >= 32) return;
  const unsigned* ops = wave == 0 ? t.a : t.b;
  const int n = wave == 0 ? t.na : t.nb;
  for (int it = 0; it < iters; ++it) {
    if (wave == 0) prim::sw_mbarrier_init(&words[lane], t.count);
    prim::s_waitcnt_lgkm0();
    prim::s_barrier();
    std::uint32_t vals[conf::op_litmus_max_ops] = {};
#pragma unroll
    for (int k = 0; k < conf::op_litmus_max_ops; ++k) {
      if (k < n) {
        vals[k] = conf::apply_sw_op(&words[lane], conf::op_code(ops[k]), conf::op_arg(ops[k]));
        if (wave == 1) bvals[k][lane] = vals[k];
      }
    }
    prim::s_waitcnt_lgkm0();
    prim::s_barrier();
    if (wave == 0) {
      std::uint32_t bv[conf::op_litmus_max_ops];
#pragma unroll
      for (int k = 0; k < conf::op_litmus_max_ops; ++k) bv[k] = bvals[k][lane];
      const std::uint32_t fin = conf::apply_sw_op(&words[lane], conf::op_probe, 0);
      keys[(blockIdx.x * iters + it) * 32 + lane] = conf::op_litmus_key(vals, t.na, bv, t.nb, fin);
    }
    prim::s_waitcnt_lgkm0();
    prim::s_barrier();
  }
}
