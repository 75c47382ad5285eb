// Conformance of an NVIDIA GPU (sm_90a) against the model: the device side of
// spec/primitives.hpp runs here, and its observations are compared with the
// host side (the model) and with what the checker allows (allowed.cpp).
//
//   conformance [--instances N] [--seed S] [--report FILE]
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
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

struct OpLitmusDev {
  std::uint32_t count;
  int na, nb;
  std::uint32_t a[op_litmus_max_ops], b[op_litmus_max_ops];
};
constexpr int global_slots = 256, block_slots = 64;

// Lane l of warp 0 is thread A and lane l of warp 1 thread B of instance l:
// 32 instances per iteration, each on its own barrier. Warp 2 stresses
// memory; every op is preceded by a random pause (thread randomisation).
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
    const std::uint32_t* ops = warp == 0 ? t.a : t.b;
    const int n = warp == 0 ? t.na : t.nb;
    for (int it = 0; it < iters; ++it) {
      if (warp == 0) {
        if (Sw) prim::sw_mbarrier_init(&words[lane], t.count);
        else prim::mbarrier_init(&bars[lane], t.count);
      }
      prim::bar_sync(1, 64);
      std::uint32_t vals[op_litmus_max_ops] = {};
      std::uint64_t token = 0;
#pragma unroll
      for (int k = 0; k < op_litmus_max_ops; ++k) {
        if (k < n) {
          const long long until = clock64() + (xorshift(seed) & 63);
          while (clock64() < until) {
          }
          const std::uint32_t o = ops[k];
          vals[k] = Sw ? apply_sw_op(&words[lane], op_code(o), op_arg(o)) : apply_op(&bars[lane], token, op_code(o), op_arg(o));
          if (warp == 1) bvals[k][lane] = vals[k];
        }
      }
      prim::bar_sync(1, 64);
      if (warp == 0) {
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
      ops[static_cast<std::size_t>(i)] = op_token_test << 24;  // always defined
    }
  }
  return ops;
}

// ---------------------------------------------------------------- driver

struct Row {
  std::string test, litmus_verdict;
  unsigned long long instances = 0, fresh = 0, stale = 0, hung = 0;
  bool allowed_stale = false, may_hang = false;
  std::uint64_t outside = 0;
  double seconds = 0;
  std::string note;
};

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
  std::string open_only;  // --open NAME: run that one fixed sequence only
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--instances") && i + 1 < argc) target = std::strtoull(argv[++i], nullptr, 10);
    else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc) seed = static_cast<std::uint32_t>(std::strtoul(argv[++i], nullptr, 10));
    else if (!std::strcmp(argv[i], "--report") && i + 1 < argc) report = argv[++i];
    else if (!std::strcmp(argv[i], "--open") && i + 1 < argc) open_only = argv[++i];
    else {
      std::fprintf(stderr, "usage: conformance [--instances N] [--seed S] [--report FILE] [--open NAME]\n");
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
  run_litmus(Litmus::tma_store_unfenced, target / 8, [&](std::uint32_t) { tma_store<false><<<store_blocks, 32>>>(256, dst, counts); }, store_per);
  const int cblocks = (sms / 2) * 2 * 8;
  const unsigned long long cper = static_cast<unsigned long long>(cblocks / 2) * 1024;
  run_litmus(Litmus::cluster_release, target / 8, [&](std::uint32_t s) { cluster_mp<true><<<cblocks, 64>>>(1024, s, counts); }, cper);
  run_litmus(Litmus::cluster_relaxed, target / 8, [&](std::uint32_t s) { cluster_mp<false><<<cblocks, 64>>>(1024, s, counts); }, cper);
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
  {
    unsigned long long *gkeys = nullptr, *gcounts = nullptr;
    CUDA_CHECK(cudaMalloc(&gkeys, global_slots * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMalloc(&gcounts, (global_slots + 1) * sizeof(unsigned long long)));
    const int oblocks = sms * 16, oiters = 256;
    const unsigned long long oper = static_cast<unsigned long long>(oblocks) * oiters * 32;
    for (const OpLitmus& t : op_litmus_suite()) {
      for (int sw = 0; sw < (t.software ? 2 : 1); ++sw) {
        OpLitmusDev d{};
        d.count = t.count;
        d.na = static_cast<int>(t.a.size());
        d.nb = static_cast<int>(t.b.size());
        for (int k = 0; k < d.na; ++k) d.a[k] = t.a[static_cast<std::size_t>(k)];
        for (int k = 0; k < d.nb; ++k) d.b[k] = t.b[static_cast<std::size_t>(k)];
        CUDA_CHECK(cudaMemset(gkeys, 0xff, global_slots * sizeof(unsigned long long)));
        CUDA_CHECK(cudaMemset(gcounts, 0, (global_slots + 1) * sizeof(unsigned long long)));
        const auto t0 = std::chrono::steady_clock::now();
        unsigned long long launched = 0;
        for (std::uint32_t s = seed; launched < op_target; ++s, launched += oper) {
          if (sw) op_litmus_kernel<true><<<oblocks, 96>>>(d, oiters, s, gkeys, gcounts, gcounts + global_slots, gscratch);
          else op_litmus_kernel<false><<<oblocks, 96>>>(d, oiters, s, gkeys, gcounts, gcounts + global_slots, gscratch);
        }
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaDeviceSynchronize());
        std::vector<unsigned long long> hk(global_slots), hc(global_slots + 1);
        CUDA_CHECK(cudaMemcpy(hk.data(), gkeys, hk.size() * 8, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(hc.data(), gcounts, hc.size() * 8, cudaMemcpyDeviceToHost));
        OpRow r;
        r.test = std::string(t.name) + (sw ? " (software mbarrier)" : "");
        r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const Allowed2 allowed = op_litmus_allowed(t, sw != 0);
        r.interleavings = allowed.interleavings;
        r.outside = hc[global_slots];  // histogram overflow counts as outside
        std::map<std::uint64_t, unsigned long long> seen;
        for (int k = 0; k < global_slots; ++k)
          if (hk[static_cast<std::size_t>(k)] != hist_empty) seen[hk[static_cast<std::size_t>(k)]] += hc[static_cast<std::size_t>(k)];
        for (const auto& [key, c] : seen) {
          r.instances += c;
          const bool ok = allowed.outcomes.count(key) != 0;
          if (!ok) r.outside += c;
          r.lines.push_back("| `" + op_litmus_outcome_text(t, key) + "` | " + std::to_string(c) + " | " +
                            (ok ? std::to_string(allowed.outcomes.at(key)) : std::string("0")) + " | " +
                            (ok ? "allowed" : "**outside model**") + " |");
        }
        r.instances += hc[global_slots];
        for (const auto& [key, n] : allowed.outcomes) {
          if (seen.count(key)) continue;
          ++r.unseen;
          r.lines.push_back("| `" + op_litmus_outcome_text(t, key) + "` | 0 | " + std::to_string(n) + " | allowed but unseen |");
        }
        std::printf("%-40s %12llu instances  %zu outcomes seen, %d allowed, %d unseen  outside-model %llu  %.2f s  (%.3g/s)\n",
                    r.test.c_str(), r.instances, seen.size(), static_cast<int>(allowed.outcomes.size()), r.unseen, r.outside,
                    r.seconds, r.instances / r.seconds);
        std::fflush(stdout);
        op_rows.push_back(r);
      }
    }
    CUDA_CHECK(cudaFree(gkeys));
    CUDA_CHECK(cudaFree(gcounts));
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
      // Undefined in the model: each runs alone (--open NAME), since the
      // hardware may fault and take the process's context with it.
      {"over_arrival", {1, A(op_arrive, 2), A(op_arrive, 1), A(op_arrive, 1)}},
      {"over_arrival_second", {2, A(op_arrive, 1), A(op_arrive, 2), A(op_arrive, 1), A(op_arrive, 1)}},
      {"nocomplete_would_complete", {1, A(op_nocomplete, 1), A(op_arrive, 1)}},
      {"arrive_after_inval", {1, A(op_inval, 0), A(op_arrive, 1), A(op_observe, 0)}},
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
