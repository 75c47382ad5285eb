// An attention forward tile with wgmma (sm_90a), FlashAttention-3's
// warp-specialized layout at its smallest: one CTA of five warps. Warp 4's
// lane 0 loads Q once (q_full) and KV_TILES tiles of K and V (64 x 64 BF16,
// rows of 128 bytes, 128-byte swizzled) through a 2-stage ring, K and V on
// their own barriers (k_full[s], v_full[s]) so that S = Q K^T can start
// before V lands. Warps 0-3, a warp group: per KV tile, four wgmma
// m64n64k16 for S (A = Q, B = K, both K-major), wait, the online softmax
// on S's registers (row max and sum across each row's four threads), the
// rescale of O, then wgmma.fence (the threads wrote P's and O's registers)
// and four wgmma m64n64k16 for O += P V (A = P from registers, B = V,
// N-major: imm-trans-b 1), wait, and the release of the stage
// (kv_empty[s], every consumer thread). After the last tile each thread
// stores the sum of its O / l. Planted bug:
// the stage is released as soon as the wgmmas of O += P V are committed,
// before their wait: the producer may refill V while they read it.
// twin: kernels/cuda/fa_fwd_bug_release_before_pv_wait.bk
// check-kernel: --entry fa_fwd_bug_release_before_pv_wait --block 160
// expect: data_race
// apart: bounded 100000
#include <cstddef>
#include <cstdint>

#include "spec/primitives.hpp"

using namespace pc::prim;

namespace {
constexpr int kStages = 2;
constexpr int kKvTiles = 3;
constexpr int kTileBytes = 8192;  // 64 x 64 BF16 elements
constexpr int kConsumers = 128;   // warps 0-3
constexpr int kThreads = 160;
constexpr std::uint32_t kSbo = 1024;  // 8-row groups of 128-byte rows

__device__ inline std::uint32_t pack_bf16(float lo, float hi) {
  return (__float_as_uint(hi) & 0xFFFF0000u) | (__float_as_uint(lo) >> 16);
}
}  // namespace

extern "C" __global__ void __launch_bounds__(kThreads) fa_fwd_bug_release_before_pv_wait(const std::uint8_t* __restrict__ q, const std::uint8_t* __restrict__ k,
                                                              const std::uint8_t* __restrict__ v, float* __restrict__ out) {
  __shared__ alignas(1024) std::uint8_t sq[kTileBytes];
  __shared__ alignas(1024) std::uint8_t sk[kStages][kTileBytes];
  __shared__ alignas(1024) std::uint8_t sv[kStages][kTileBytes];
  __shared__ mbarrier_t q_full;
  __shared__ mbarrier_t k_full[kStages];
  __shared__ mbarrier_t v_full[kStages];
  __shared__ mbarrier_t kv_empty[kStages];

  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    mbarrier_init(&q_full, 1);
    for (int s = 0; s < kStages; ++s) {
      mbarrier_init(&k_full[s], 1);
      mbarrier_init(&v_full[s], 1);
      mbarrier_init(&kv_empty[s], kConsumers);
    }
    fence_mbarrier_init();
  }
  __syncthreads();

  if (warp == 4) {
    if (lane == 0) {
      mbarrier_arrive_expect_tx(&q_full, kTileBytes);
      tma_load_1d(sq, q, kTileBytes, &q_full);
      for (int j = 0; j < kKvTiles; ++j) {
        const int s = j % kStages;
        if (j >= kStages)
          while (!mbarrier_try_wait_parity(&kv_empty[s], ((j / kStages) - 1) & 1)) {
          }
        mbarrier_arrive_expect_tx(&k_full[s], kTileBytes);
        tma_load_1d(sk[s], k + static_cast<std::size_t>(j) * kTileBytes, kTileBytes, &k_full[s]);
        mbarrier_arrive_expect_tx(&v_full[s], kTileBytes);
        tma_load_1d(sv[s], v + static_cast<std::size_t>(j) * kTileBytes, kTileBytes, &v_full[s]);
      }
    }
  } else {
    float o[32] = {};
    float row_max[2] = {-1e30f, -1e30f}, row_sum[2] = {0.f, 0.f};
    while (!mbarrier_try_wait_parity(&q_full, 0)) {
    }
    for (int j = 0; j < kKvTiles; ++j) {
      const int s = j % kStages;
      while (!mbarrier_try_wait_parity(&k_full[s], (j / kStages) & 1)) {
      }
      float sc[32];
      wgmma_fence();
#pragma unroll
      for (int ks = 0; ks < 4; ++ks)
        wgmma_m64n64k16_bf16(sc, wgmma_descriptor(sq + 32 * ks, 16, kSbo, Swizzle::b128),
                             wgmma_descriptor(sk[s] + 32 * ks, 16, kSbo, Swizzle::b128), ks > 0);
      wgmma_commit_group();
      wgmma_wait_group<0>();
      // Online softmax: each thread holds two rows (i / 2 % 2) of S; a row's
      // 64 values are spread over four threads (lane % 4).
      float alpha[2];
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        float m = row_max[r];
#pragma unroll
        for (int i = 0; i < 32; ++i)
          if (i / 2 % 2 == r) m = fmaxf(m, sc[i]);
        m = fmaxf(m, __shfl_xor_sync(0xFFFFFFFFu, m, 1));
        m = fmaxf(m, __shfl_xor_sync(0xFFFFFFFFu, m, 2));
        alpha[r] = __expf(row_max[r] - m);
        row_max[r] = m;
        row_sum[r] *= alpha[r];
      }
      std::uint32_t p[16];
#pragma unroll
      for (int i = 0; i < 32; i += 2) {
        const int r = i / 2 % 2;
        const float p0 = __expf(sc[i] - row_max[r]), p1 = __expf(sc[i + 1] - row_max[r]);
        row_sum[r] += p0 + p1;
        p[i / 2] = pack_bf16(p0, p1);
      }
#pragma unroll
      for (int i = 0; i < 32; ++i) o[i] *= alpha[i / 2 % 2];
      while (!mbarrier_try_wait_parity(&v_full[s], (j / kStages) & 1)) {
      }
      wgmma_fence();  // the threads wrote P's and O's registers
#pragma unroll
      for (int ks = 0; ks < 4; ++ks) {
        const std::uint32_t a[4] = {p[4 * ks], p[4 * ks + 1], p[4 * ks + 2], p[4 * ks + 3]};
        // V's rows ks*16 .. ks*16+15 (K of P V), N-major: 8-row groups 1024 apart.
        wgmma_m64n64k16_bf16_rs<1>(o, a, wgmma_descriptor(sv[s] + 2048 * ks, 8192, kSbo, Swizzle::b128), true);
      }
      wgmma_commit_group();
      mbarrier_arrive(&kv_empty[s], 1);  // planted: before the wgmmas reading V are done
      wgmma_wait_group<0>();
    }
    float sum = 0.f;
    for (int i = 0; i < 32; ++i) sum += o[i] / row_sum[i / 2 % 2];
    out[threadIdx.x] = sum;
  }
}
