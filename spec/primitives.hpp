// One API for the barrier primitives of spec/. The same source compiles three ways:
//
//   host (g++/clang, or the host pass of nvcc/hipcc): each function applies
//     the spec/ rule to a model object (Mbarrier below), so a test or a
//     harness computes what the model says a sequence of operations observes;
//   nvcc for sm_90a (__CUDA_ARCH__): each function is one PTX instruction, its
//     exact form and minimum target in the comment above it;
//   hipcc for gfx90a/gfx940 (__HIP_DEVICE_COMPILE__): the AMD primitives
//     (s_barrier, s_waitcnt) and the software mbarrier of spec/sw_mbarrier.hpp
//     in one 64-bit LDS word.
//
// The hardware and the model must agree on every observation: harnesses/
// conformance runs the device side and compares with the host side.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "spec/async_group.hpp"
#include "spec/portability.hpp"
#include "spec/sw_mbarrier.hpp"

#include "spec/mbarrier.hpp"

// The sections below are chosen by compiler, not by pass: under nvcc the
// device functions are declared in both passes (a kernel's body is parsed by
// the host pass too), and the model functions exist wherever host code is
// compiled. The device mbarrier is the 8-byte word (hw_mbarrier), the model
// one a spec/ state (Mbarrier): the same function names take either.

namespace pc::prim {

// Memory-ordering qualifiers as tag types, chosen at compile time.
struct release_t {};
struct relaxed_t {};
inline constexpr release_t release{};
inline constexpr relaxed_t relaxed{};
// A scope qualifier: .cluster where the default is .cta.
struct cluster_scope_t {};
inline constexpr cluster_scope_t cluster_scope{};

// ---- Matrix descriptors, host and device: the 64-bit words through which
// wgmma and tcgen05.mma read shared memory. The start address, the leading
// and stride byte offsets are kept >> 4 in bits 13-0, 29-16 and 45-32; the
// swizzle mode is bits 63-62 for wgmma (PTX ISA "Matrix Descriptor Format":
// 0 none, 1 128B, 2 64B, 3 32B) and bits 63-61 for tcgen05, which also has
// the fixed 0b001 in bits 48-46 (PTX ISA "Shared memory descriptor": 0 none,
// 2 128B, 4 64B, 6 32B). checker/ptx/desc.hpp reads them back.
enum class Swizzle : std::uint8_t { none, b32, b64, b128 };
PC_HOST_DEVICE constexpr std::uint64_t desc_fields(std::uint32_t addr, std::uint32_t lbo, std::uint32_t sbo) {
  return std::uint64_t{(addr >> 4) & 0x3FFFu} | (std::uint64_t{(lbo >> 4) & 0x3FFFu} << 16) | (std::uint64_t{(sbo >> 4) & 0x3FFFu} << 32);
}
PC_HOST_DEVICE constexpr std::uint64_t wgmma_desc_bits(std::uint32_t addr, std::uint32_t lbo, std::uint32_t sbo, Swizzle sw) {
  const std::uint64_t mode = sw == Swizzle::b128 ? 1 : sw == Swizzle::b64 ? 2 : sw == Swizzle::b32 ? 3 : 0;
  return desc_fields(addr, lbo, sbo) | (mode << 62);
}
PC_HOST_DEVICE constexpr std::uint64_t tcgen05_desc_bits(std::uint32_t addr, std::uint32_t lbo, std::uint32_t sbo, Swizzle sw) {
  const std::uint64_t mode = sw == Swizzle::b128 ? 2 : sw == Swizzle::b64 ? 4 : sw == Swizzle::b32 ? 6 : 0;
  return desc_fields(addr, lbo, sbo) | (std::uint64_t{1} << 46) | (mode << 61);
}
// The instruction descriptor of a tcgen05 .kind::f16 MMA with BF16 A and B,
// FP32 D (PTX ISA "Instruction descriptor"): D format in bits 5-4, A and B
// formats in bits 9-7 and 12-10, A and B MN-major (transposed) in bits 15
// and 16, N >> 3 in bits 22-17, M >> 4 in bits 28-24.
PC_HOST_DEVICE constexpr std::uint32_t idesc_bf16_f32(std::uint32_t m, std::uint32_t n, bool a_mn_major = false, bool b_mn_major = false) {
  return (1u << 4) | (1u << 7) | (1u << 10) | (std::uint32_t{a_mn_major} << 15) | (std::uint32_t{b_mn_major} << 16) | ((n >> 3) << 17) |
         ((m >> 4) << 24);
}

#if defined(__CUDACC__) && !defined(__HIPCC__)
// ============================ NVIDIA device (PTX) ============================

using hw_mbarrier = std::uint64_t;  // the 8-byte mbarrier object in shared memory
using mbarrier_t = hw_mbarrier;

__device__ inline std::uint32_t smem(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// The differential harness's delays (harnesses/differential, built with
// -DPC_STRESS): before and after each arrive and bulk copy and after each
// wait, half the time, a warp sleeps for up to 2 us, drawn from the SM's
// clock, its CTA and its warp. No branch and no memory access: the PTX front
// end reads `nanosleep` as no step, so the stressed kernel is the same
// search as the plain one (tests/ptx_kernels_test.cpp checks that).
// Otherwise it compiles to nothing.
__device__ inline void stress() {
#if defined(PC_STRESS)
  std::uint32_t h;
  asm volatile("mov.u32 %0, %%clock;" : "=r"(h));
  h ^= blockIdx.x * 0x9E3779B9u ^ (threadIdx.x / 32) * 0x85EBCA6Bu;
  h ^= h >> 16;
  h *= 0x7FEB352Du;
  h ^= h >> 15;
  h *= 0x846CA68Bu;
  h ^= h >> 16;
  asm volatile("nanosleep.u32 %0;" ::"r"((h >> 21) & (0u - (h & 1u))));
#endif
}

// mbarrier.init.shared::cta.b64 [addr], count;            PTX 7.0, sm_80
__device__ inline void mbarrier_init(mbarrier_t* bar, std::uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem(bar)), "r"(count) : "memory");
}
// mbarrier.arrive.release.cta.shared::cta.b64 state, [addr], count;   PTX 8.0, sm_90
__device__ inline std::uint64_t mbarrier_arrive(mbarrier_t* bar, std::uint32_t count, release_t = {}) {
  std::uint64_t state;
  stress();
  asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 %0, [%1], %2;" : "=l"(state) : "r"(smem(bar)), "r"(count) : "memory");
  stress();
  return state;
}
// mbarrier.arrive.relaxed.cta.shared::cta.b64 state, [addr], count;   PTX 8.6, sm_90
__device__ inline std::uint64_t mbarrier_arrive(mbarrier_t* bar, std::uint32_t count, relaxed_t) {
  std::uint64_t state;
  stress();
  asm volatile("mbarrier.arrive.relaxed.cta.shared::cta.b64 %0, [%1], %2;" : "=l"(state) : "r"(smem(bar)), "r"(count) : "memory");
  stress();
  return state;
}
// mbarrier.arrive.noComplete.shared::cta.b64 state, [addr], count;    PTX 7.0, sm_80
__device__ inline std::uint64_t mbarrier_arrive_nocomplete(mbarrier_t* bar, std::uint32_t count) {
  std::uint64_t state;
  stress();
  asm volatile("mbarrier.arrive.noComplete.shared::cta.b64 %0, [%1], %2;" : "=l"(state) : "r"(smem(bar)), "r"(count) : "memory");
  stress();
  return state;
}
// mbarrier.arrive_drop.shared::cta.b64 state, [addr], count;          PTX 7.0, sm_80 (count: sm_90)
__device__ inline std::uint64_t mbarrier_arrive_drop(mbarrier_t* bar, std::uint32_t count) {
  std::uint64_t state;
  stress();
  asm volatile("mbarrier.arrive_drop.shared::cta.b64 %0, [%1], %2;" : "=l"(state) : "r"(smem(bar)), "r"(count) : "memory");
  stress();
  return state;
}
// mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 state, [addr], tx;   PTX 8.0, sm_90
__device__ inline std::uint64_t mbarrier_arrive_expect_tx(mbarrier_t* bar, std::uint32_t tx) {
  std::uint64_t state;
  stress();
  asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %0, [%1], %2;" : "=l"(state) : "r"(smem(bar)), "r"(tx) : "memory");
  stress();
  return state;
}
// mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [addr], tx;          PTX 8.0, sm_90
__device__ inline void mbarrier_expect_tx(mbarrier_t* bar, std::uint32_t tx) {
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(smem(bar)), "r"(tx) : "memory");
}
// mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [addr], tx;        PTX 8.0, sm_90
__device__ inline void mbarrier_complete_tx(mbarrier_t* bar, std::uint32_t tx) {
  asm volatile("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(smem(bar)), "r"(tx) : "memory");
}
// mbarrier.test_wait.parity.acquire.cta.shared::cta.b64 p, [addr], parity;   PTX 7.1, sm_80
__device__ inline bool mbarrier_test_wait_parity(mbarrier_t* bar, std::uint32_t parity) {
  std::uint32_t ok;
  asm volatile(
      "{ .reg .pred p; mbarrier.test_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
      : "=r"(ok) : "r"(smem(bar)), "r"(parity) : "memory");
  stress();
  return ok != 0;
}
// mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [addr], parity;    PTX 7.8, sm_90
__device__ inline bool mbarrier_try_wait_parity(mbarrier_t* bar, std::uint32_t parity) {
  std::uint32_t ok;
  asm volatile(
      "{ .reg .pred p; mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
      : "=r"(ok) : "r"(smem(bar)), "r"(parity) : "memory");
  stress();
  return ok != 0;
}
// mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [addr], parity;  PTX 8.0, sm_90
__device__ inline bool mbarrier_try_wait_parity(mbarrier_t* bar, std::uint32_t parity, cluster_scope_t) {
  std::uint32_t ok;
  asm volatile(
      "{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
      : "=r"(ok) : "r"(smem(bar)), "r"(parity) : "memory");
  stress();
  return ok != 0;
}
// mbarrier.test_wait.acquire.cta.shared::cta.b64 p, [addr], state;          PTX 7.0, sm_80
__device__ inline bool mbarrier_test_wait(mbarrier_t* bar, std::uint64_t state) {
  std::uint32_t ok;
  asm volatile("{ .reg .pred p; mbarrier.test_wait.acquire.cta.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
               : "=r"(ok) : "r"(smem(bar)), "l"(state) : "memory");
  stress();
  return ok != 0;
}
// mbarrier.pending_count.b64 count, state;                             PTX 7.0, sm_80
__device__ inline std::uint32_t mbarrier_pending_count(std::uint64_t state) {
  std::uint32_t n;
  asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(n) : "l"(state));
  return n;
}
// mbarrier.inval.shared::cta.b64 [addr];                               PTX 7.0, sm_80
__device__ inline void mbarrier_inval(mbarrier_t* bar) {
  asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(smem(bar)) : "memory");
}
// fence.mbarrier_init.release.cluster;                                 PTX 8.0, sm_90
__device__ inline void fence_mbarrier_init() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
// fence.proxy.async.shared::cta;                                       PTX 8.0, sm_90
__device__ inline void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
// barrier.sync.aligned id, count;                                      PTX 6.0, sm_70
__device__ inline void bar_sync(std::uint32_t id, std::uint32_t count) {
  asm volatile("barrier.sync.aligned %0, %1;" ::"r"(id), "r"(count) : "memory");
}
// barrier.arrive.aligned id, count;                                    PTX 6.0, sm_70
__device__ inline void bar_arrive(std::uint32_t id, std::uint32_t count) {
  asm volatile("barrier.arrive.aligned %0, %1;" ::"r"(id), "r"(count) : "memory");
}
// barrier.cluster.arrive.release.aligned;                              PTX 8.0, sm_90
__device__ inline void cluster_arrive(release_t = {}) { asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory"); }
// barrier.cluster.arrive.relaxed.aligned;                              PTX 8.0, sm_90
__device__ inline void cluster_arrive(relaxed_t) { asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory"); }
// barrier.cluster.wait.acquire.aligned;                                PTX 8.0, sm_90
__device__ inline void cluster_wait() { asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory"); }
// cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], size, [bar];   PTX 8.0, sm_90
__device__ inline void tma_load_1d(void* dst, const void* src, std::uint32_t bytes, mbarrier_t* bar) {
  stress();
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(smem(dst)),
               "l"(src), "r"(bytes), "r"(smem(bar))
               : "memory");
  stress();
}
// cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [dst], [src], size, [bar], mask;
//                                                                      PTX 8.0, sm_90
// The copy lands at dst's offset in each CTA of `mask` (bit i: CTA rank i of
// the cluster) and completes `bytes` on the mbarrier at bar's offset there.
__device__ inline void tma_load_1d_multicast(void* dst, const void* src, std::uint32_t bytes, mbarrier_t* bar, std::uint16_t mask) {
  stress();
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1], %2, [%3], %4;" ::"r"(
                   smem(dst)),
               "l"(src), "r"(bytes), "r"(smem(bar)), "h"(mask)
               : "memory");
  stress();
}
// cp.async.bulk.global.shared::cta.bulk_group [dst], [src], size;      PTX 8.0, sm_90
__device__ inline void tma_store_1d(void* dst, const void* src, std::uint32_t bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(smem(src)), "r"(bytes) : "memory");
}
// cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [dst], [src], size;   PTX 8.0, sm_90
__device__ inline void tma_reduce_add_u32_1d(void* dst, const void* src, std::uint32_t bytes) {
  asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%0], [%1], %2;" ::"l"(dst), "r"(smem(src)), "r"(bytes)
               : "memory");
}
// cp.async.bulk.commit_group;                                          PTX 8.0, sm_90
__device__ inline void bulk_commit_group() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
// cp.async.bulk.wait_group.read 0;                                     PTX 8.0, sm_90
__device__ inline void bulk_wait_group_read0() { asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory"); }
// cp.async.bulk.wait_group 0;                                          PTX 8.0, sm_90
__device__ inline void bulk_wait_group0() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }
// cp.async.ca.shared.global [dst], [src], 4;                          PTX 7.0, sm_80
__device__ inline void cp_async_4(void* dst, const void* src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(smem(dst)), "l"(src) : "memory");
}
// cp.async.commit_group;                                               PTX 7.0, sm_80
__device__ inline void cp_async_commit_group() { asm volatile("cp.async.commit_group;" ::: "memory"); }
// cp.async.wait_group N;                                               PTX 7.0, sm_80
template <int N>
__device__ inline void cp_async_wait_group() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}
// cp.async.wait_all;                                                   PTX 7.0, sm_80
__device__ inline void cp_async_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }
// mapa.shared::cluster.u32 d, a, cta;: the address of `p` in CTA `cta` of the cluster.   PTX 7.8, sm_90
__device__ inline std::uint32_t mapa_shared(const void* p, std::uint32_t cta) {
  std::uint32_t d;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(d) : "r"(smem(p)), "r"(cta));
  return d;
}
// mbarrier.arrive.release.cluster.shared::cluster.b64 _, [bar];       PTX 8.0, sm_90
// bar: the shared::cluster address (mapa_shared) of an mbarrier of any CTA of
// the cluster: one arrive-on of it, which returns no state ("_"); the
// release at cluster scope orders the thread's accesses before the phase
// for a waiter in that CTA that acquires at cluster scope.
__device__ inline void mbarrier_arrive_cluster(std::uint32_t bar) {
  stress();
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(bar) : "memory");
  stress();
}
// st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [dst], v, [bar];   PTX 8.1, sm_90
// dst and bar: shared::cluster addresses (mapa_shared) of one CTA of the cluster.
__device__ inline void st_async_b32(std::uint32_t dst, std::uint32_t v, std::uint32_t bar) {
  stress();
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];" ::"r"(dst), "r"(v), "r"(bar)
               : "memory");
  stress();
}
// red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [dst], v, [bar];   PTX 8.1, sm_90
// dst and bar: shared::cluster addresses of one CTA other than the executing thread's.
__device__ inline void red_async_add_u32(std::uint32_t dst, std::uint32_t v, std::uint32_t bar) {
  asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%0], %1, [%2];" ::"r"(dst),
               "r"(v), "r"(bar)
               : "memory");
}

// ---- wgmma (sm_90a; PTX ISA "Asynchronous Warpgroup Level Matrix
// Multiply-Accumulate"): all 128 threads of a warp group run each of these.
// wgmma.fence.sync.aligned;   PTX 8.0, sm_90a
__device__ inline void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
// wgmma.commit_group.sync.aligned;   PTX 8.0, sm_90a
__device__ inline void wgmma_commit_group() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
// wgmma.wait_group.sync.aligned N;   PTX 8.0, sm_90a: at most N groups of the warp still pending.
template <int N>
__device__ inline void wgmma_wait_group() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}
// A wgmma shared-memory descriptor of `p` (wgmma_desc_bits).
__device__ inline std::uint64_t wgmma_descriptor(const void* p, std::uint32_t lbo, std::uint32_t sbo, Swizzle sw) {
  return wgmma_desc_bits(smem(p), lbo, sbo, sw);
}
// wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {d}, adesc, bdesc, p, 1, 1, 0, 0;   PTX 8.0, sm_90a
// D (each thread's 32 floats of the 64x64 tile) += A (64x16, K-major) * B
// (64x16, K-major), or = where !accumulate.
__device__ inline void wgmma_m64n64k16_bf16(float (&d)[32], std::uint64_t adesc, std::uint64_t bdesc, bool accumulate) {
  asm volatile(
      "{\n .reg .pred p;\n setp.ne.b32 p, %34, 0;\n"
      " wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 0;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(adesc), "l"(bdesc), "r"(static_cast<std::uint32_t>(accumulate))
      : "memory");
}

// wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {d}, {a}, bdesc, p, 1, 1, TransB;   PTX 8.0, sm_90a
// The same with A from registers (each thread's four 32-bit registers of
// BF16 pairs, the accumulator's fragment layout), B K-major (TransB 0) or
// N-major (1).
template <int TransB>
__device__ inline void wgmma_m64n64k16_bf16_rs(float (&d)[32], const std::uint32_t (&a)[4], std::uint64_t bdesc, bool accumulate) {
  asm volatile(
      "{\n .reg .pred p;\n setp.ne.b32 p, %37, 0;\n"
      " wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, p, 1, 1, %38;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bdesc), "r"(static_cast<std::uint32_t>(accumulate)), "n"(TransB)
      : "memory");
}

// ---- tcgen05 (sm_100a; PTX ISA "TensorCore 5th Generation Family
// Instructions"), .cta_group::1: a CTA's own tensor memory and MMAs. Only a
// kernel compiled for sm_100a may call these (ptxas refuses them elsewhere).
// tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], cols;   PTX 8.6, sm_100a
// The whole warp; the tensor-memory address of the columns is written to `slot`.
__device__ inline void tcgen05_alloc(std::uint32_t* slot, std::uint32_t cols) {
  asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(smem(slot)), "r"(cols) : "memory");
}
// tcgen05.dealloc.cta_group::1.sync.aligned.b32 taddr, cols;          PTX 8.6, sm_100a
__device__ inline void tcgen05_dealloc(std::uint32_t taddr, std::uint32_t cols) {
  asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(taddr), "r"(cols) : "memory");
}
// tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;           PTX 8.6, sm_100a
__device__ inline void tcgen05_relinquish_alloc_permit() {
  asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
}
// A tcgen05 shared-memory descriptor of `p`, no swizzle (tcgen05_desc_bits).
__device__ inline std::uint64_t smem_descriptor(const void* p, std::uint32_t lbo, std::uint32_t sbo) {
  return tcgen05_desc_bits(smem(p), lbo, sbo, Swizzle::none);
}
// tcgen05.mma.cta_group::1.kind::f16 [d], adesc, bdesc, idesc, accumulate;   PTX 8.6, sm_100a
// One thread issues it; D (tensor memory) += A * B, or = where !accumulate.
__device__ inline void tcgen05_mma_f16(std::uint32_t d, std::uint64_t adesc, std::uint64_t bdesc, std::uint32_t idesc, bool accumulate) {
  asm volatile(
      "{\n .reg .pred p;\n setp.ne.b32 p, %4, 0;\n tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n}" ::"r"(d), "l"(adesc),
      "l"(bdesc), "r"(idesc), "r"(static_cast<std::uint32_t>(accumulate))
      : "memory");
}
// tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [bar];   PTX 8.6, sm_100a
// An arrive on bar when the thread's earlier tcgen05 MMAs have completed.
__device__ inline void tcgen05_commit(mbarrier_t* bar) {
  asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(smem(bar)) : "memory");
}
// tcgen05.ld.sync.aligned.32x32b.x32.b32 {r0..r31}, [taddr];           PTX 8.6, sm_100a
// The warp's 32 lanes of tensor memory (its lane quarter) from taddr's
// column, 32 columns; the registers are valid after tcgen05.wait::ld.
__device__ inline void tcgen05_ld_32x32b_x32(std::uint32_t taddr, std::uint32_t (&r)[32]) {
  asm volatile(
      "tcgen05.ld.sync.aligned.32x32b.x32.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, "
      "%18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, [%32];"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]), "=r"(r[8]), "=r"(r[9]),
        "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]), "=r"(r[14]), "=r"(r[15]), "=r"(r[16]), "=r"(r[17]), "=r"(r[18]),
        "=r"(r[19]), "=r"(r[20]), "=r"(r[21]), "=r"(r[22]), "=r"(r[23]), "=r"(r[24]), "=r"(r[25]), "=r"(r[26]), "=r"(r[27]),
        "=r"(r[28]), "=r"(r[29]), "=r"(r[30]), "=r"(r[31])
      : "r"(taddr)
      : "memory");
}
// tcgen05.wait::ld.sync.aligned;                                       PTX 8.6, sm_100a
__device__ inline void tcgen05_wait_ld() { asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory"); }
// tcgen05.fence::before_thread_sync; / ::after_thread_sync;            PTX 8.6, sm_100a
__device__ inline void tcgen05_fence_before_thread_sync() { asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory"); }
__device__ inline void tcgen05_fence_after_thread_sync() { asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory"); }

// ---- cluster launch control (sm_100a; PTX ISA "clusterlaunchcontrol"):
// a request to cancel a cluster not yet launched, whose 16-byte response
// the async proxy writes into shared memory, completing 16 bytes on `bar`.
// clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [addr], [mbar];   PTX 8.6, sm_100a
__device__ inline void clc_try_cancel(void* response, mbarrier_t* bar) {
  asm volatile("clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%0], [%1];" ::"r"(smem(response)),
               "r"(smem(bar))
               : "memory");
}
// ld.shared.b128 r, [addr]; clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 p, r;
// and, where it was, .query_cancel.get_first_ctaid::x.b32.b128: whether the
// response canceled a cluster (a new tile for this CTA), and that cluster's
// first CTA's x.                                                     PTX 8.6, sm_100a
__device__ inline bool clc_query(const void* response, std::uint32_t& first_cta_x) {
  std::uint32_t ok, x = 0;
  asm volatile(
      "{ .reg .b128 r; .reg .pred p; ld.shared.b128 r, [%2]; clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 p, r; "
      "selp.u32 %0, 1, 0, p; @p clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %1, r; }"
      : "=r"(ok), "+r"(x) : "r"(smem(response)) : "memory");
  first_cta_x = x;
  return ok != 0;
}

#endif

#if defined(__HIPCC__)
// ================================ AMD device =================================

// s_barrier: "synchronize waves within a threadgroup" (CDNA3 ISA, S_BARRIER).
__device__ inline void s_barrier() { __builtin_amdgcn_s_barrier(); }
// s_waitcnt lgkmcnt(0): on gfx9 the simm16 holds vmcnt[3:0] and [15:14],
// expcnt[6:4], lgkmcnt[11:8]; all-ones except lgkmcnt waits for LDS only.
__device__ inline void s_waitcnt_lgkm0() { __builtin_amdgcn_s_waitcnt(0xc07f); }

#endif

#if defined(__CUDACC__) || defined(__HIPCC__)
// ====================== software mbarrier (both vendors) =====================
// spec/sw_mbarrier.hpp in one 64-bit shared-memory word: arrive computes the
// next word with the spec's own function and publishes it by compare-and-swap;
// waiting polls the word. The fences give the release and acquire that the
// hardware mbarrier's arrive and wait carry by default.
__device__ inline void sw_mbarrier_init(unsigned long long* word, std::uint32_t count) {
  *word = spec::sw_mbarrier::init(count);
}
// Returns the word before the arrive (the software mbarrier's state token).
__device__ inline unsigned long long sw_mbarrier_arrive(unsigned long long* word, std::uint32_t count) {
  __threadfence_block();  // release: earlier writes before the arrive
  unsigned long long old = *reinterpret_cast<volatile unsigned long long*>(word);
  for (;;) {
    const unsigned long long next = spec::sw_mbarrier::arrive(old, count);
    const unsigned long long seen = atomicCAS(word, old, next);
    if (seen == old) return old;
    old = seen;
  }
}
__device__ inline bool sw_mbarrier_test_wait_parity(unsigned long long* word, std::uint32_t parity) {
  const unsigned long long w = *reinterpret_cast<volatile unsigned long long*>(word);
  const bool done = spec::sw_mbarrier::test_wait_parity(w, parity);
  if (done) __threadfence_block();  // acquire: later reads after the observation
  return done;
}
#endif

// ================================ host (model) ===============================
// The same names on a model object: what the specification says each call
// observes. `violation` records the first undefined use (the device would do
// something the model does not define).
struct Mbarrier {
  spec::mbarrier::State state;
  spec::Violation violation = spec::Violation::none;
};

// The model's arrive token: what the device's opaque 64-bit state stands for.
struct ModelToken {
  spec::mbarrier::Token token;
  Mbarrier* from = nullptr;  // the barrier arrived on: an undefined use of the token is recorded there
};

namespace detail {
inline ModelToken token(Mbarrier* b) { return ModelToken{spec::mbarrier::token_before(b->state), b}; }
inline void apply(Mbarrier* b, const spec::mbarrier::Result& r) {
  if (r.out.violation != spec::Violation::none) {
    if (b->violation == spec::Violation::none) b->violation = r.out.violation;
    return;
  }
  b->state = r.next;
}
// What a test or wait observed; a violation is recorded (the first one) and
// the answer is false.
inline bool observe(Mbarrier* b, const spec::Outcome& o) {
  if (o.violation != spec::Violation::none) {
    if (b->violation == spec::Violation::none) b->violation = o.violation;
    return false;
  }
  return o.observed != 0;
}
}  // namespace detail

inline void mbarrier_init(Mbarrier* b, std::uint32_t count) { detail::apply(b, spec::mbarrier::init(b->state, count)); }
template <class Sem = release_t>
inline ModelToken mbarrier_arrive(Mbarrier* b, std::uint32_t count, Sem = {}) {
  const ModelToken t = detail::token(b);
  detail::apply(b, spec::mbarrier::arrive(b->state, {count, false, false, 0}));
  return t;
}
inline ModelToken mbarrier_arrive_nocomplete(Mbarrier* b, std::uint32_t count) {
  ModelToken t = detail::token(b);
  t.token.no_complete = true;  // the token pending_count is defined for
  detail::apply(b, spec::mbarrier::arrive(b->state, {count, false, true, 0}));
  return t;
}
inline ModelToken mbarrier_arrive_drop(Mbarrier* b, std::uint32_t count) {
  const ModelToken t = detail::token(b);
  detail::apply(b, spec::mbarrier::arrive(b->state, {count, true, false, 0}));
  return t;
}
inline ModelToken mbarrier_arrive_expect_tx(Mbarrier* b, std::uint32_t tx) {
  const ModelToken t = detail::token(b);
  detail::apply(b, spec::mbarrier::arrive(b->state, {1, false, false, tx}));
  return t;
}
inline void mbarrier_expect_tx(Mbarrier* b, std::uint32_t tx) { detail::apply(b, spec::mbarrier::expect_tx(b->state, tx)); }
inline void mbarrier_complete_tx(Mbarrier* b, std::uint32_t tx) { detail::apply(b, spec::mbarrier::complete_tx(b->state, tx)); }
// A wait's answer; an undefined wait (on a barrier not initialised, or
// invalidated) is recorded as any undefined use is, and answers false.
inline bool mbarrier_test_wait_parity(Mbarrier* b, std::uint32_t parity) {
  return detail::observe(b, spec::mbarrier::test_wait_parity(b->state, parity));
}
inline bool mbarrier_try_wait_parity(Mbarrier* b, std::uint32_t parity) { return mbarrier_test_wait_parity(b, parity); }
inline bool mbarrier_try_wait_parity(Mbarrier* b, std::uint32_t parity, cluster_scope_t) { return mbarrier_test_wait_parity(b, parity); }
inline bool mbarrier_test_wait(Mbarrier* b, ModelToken t) {
  return detail::observe(b, spec::mbarrier::test_wait_token(b->state, t.token));
}
// The count a token holds; from a token the ISA does not define it for (an
// arrive without .noComplete) the violation is recorded on the barrier the
// token came from, and the count returned is the H100's (the state before
// the arrive, spec/mbarrier.hpp).
inline std::uint32_t mbarrier_pending_count(ModelToken t) {
  if (const spec::Violation v = spec::mbarrier::check_pending_count(t.token); v != spec::Violation::none && t.from != nullptr)
    if (t.from->violation == spec::Violation::none) t.from->violation = v;
  return static_cast<std::uint32_t>(spec::mbarrier::pending_count(t.token));
}
inline void mbarrier_inval(Mbarrier* b) { detail::apply(b, spec::mbarrier::inval(b->state)); }
// An arrive-on of a barrier of any CTA of the cluster, with no state returned.
inline void mbarrier_arrive_cluster(Mbarrier* b) { detail::apply(b, spec::mbarrier::arrive(b->state, {1, false, false, 0})); }
// st.async of 4 bytes as the model sees it once the store lands: the value
// is in place and its bytes are completed on the barrier of its CTA.
inline void st_async_b32(std::uint32_t* dst, std::uint32_t v, Mbarrier* bar) {
  *dst = v;
  detail::apply(bar, spec::mbarrier::complete_tx(bar->state, 4));
}
// red.async .add.u32 once it lands: the sum in place, 4 bytes completed.
inline void red_async_add_u32(std::uint32_t* dst, std::uint32_t v, Mbarrier* bar) {
  *dst += v;
  detail::apply(bar, spec::mbarrier::complete_tx(bar->state, 4));
}

// Non-bulk cp.async on the host, one thread's: each copy waits in the open
// group (spec/async_group.hpp) and lands when a wait retires its group.
struct CpAsyncThread {
  struct Copy {
    std::uint32_t* dst;
    std::uint32_t value;
    std::uint16_t group;
  };
  spec::async_group::Groups groups;
  std::vector<Copy> in_flight;
};
inline void cp_async_4(CpAsyncThread& t, std::uint32_t* dst, const std::uint32_t* src) {
  t.in_flight.push_back({dst, *src, spec::async_group::issue(t.groups)});
}
inline void cp_async_commit_group(CpAsyncThread& t) { spec::async_group::commit(t.groups); }
inline void cp_async_wait_group(CpAsyncThread& t, int n) {
  const std::uint16_t done = spec::async_group::wait(t.groups, n);
  std::vector<CpAsyncThread::Copy> left;
  for (const CpAsyncThread::Copy& c : t.in_flight)
    if (c.group > done) left.push_back(c);
    else *c.dst = c.value;
  t.in_flight = std::move(left);
}
inline void cp_async_wait_all(CpAsyncThread& t) {
  cp_async_commit_group(t);
  cp_async_wait_group(t, 0);
}

// The software mbarrier on the host: the spec's word functions, sequentially.
inline void sw_mbarrier_init(std::uint64_t* word, std::uint32_t count) { *word = spec::sw_mbarrier::init(count); }
inline std::uint64_t sw_mbarrier_arrive(std::uint64_t* word, std::uint32_t count) {
  const std::uint64_t old = *word;
  *word = spec::sw_mbarrier::arrive(old, count);
  return old;
}
inline bool sw_mbarrier_test_wait_parity(std::uint64_t* word, std::uint32_t parity) {
  return spec::sw_mbarrier::test_wait_parity(*word, parity);
}
// The pending count held in a word returned by sw_mbarrier_arrive (the
// software twin of mbarrier.pending_count on an arrive's state).
PC_HOST_DEVICE constexpr std::uint32_t sw_mbarrier_pending_count(std::uint64_t before) {
  return spec::sw_mbarrier::pending(before);
}
}  // namespace pc::prim
