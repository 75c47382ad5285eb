// Five points where the PTX ISA's text on barriers is silent or doubtful,
// decided on the hardware. Each barrier instruction is written as inline PTX,
// so that the instruction tested is the one named.
//
// Q1 named_count_mixed (PTX ISA, "bar, barrier"): the warps of one named
//    barrier give different thread counts. Warp k of the block waits k * d
//    cycles, then runs bar.sync 1 with its count: 64, 96, 96 (first64);
//    96, 64, 64 (first96); 96, 64, 64, 64 in a block of four warps
//    (first96x4); 96, 96, 96 (same96, the control). Which count does an
//    instance use (the first arrival's, the last's), and does a mismatch
//    hang?
// Q2 named_count_zero: a thread count of 0, read at run time from a kernel
//    argument (so that ptxas cannot refuse it), in a block of two warps,
//    warp 1 late by d: both warps bar.sync 1, r (sync); or warp 0
//    bar.sync 1, 64 and warp 1 bar.arrive 1, r (arrive). r = 64 is the
//    control of each.
// Q3 cta48_bar0: a block of 48 threads (a full warp and a warp of 16) on
//    bar.sync 0 (no count): the partial warp late by d (partial_late), or the
//    full one (full_late).
// Q4 cluster_rearrive (PTX ISA, barrier.cluster): clusters of two CTAs of one
//    warp. CTA 1: barrier.cluster.arrive, barrier.cluster.wait, thread 0
//    stores a flag (st.release.gpu), a pause of d cycles, arrive and wait
//    again. CTA 0: arrive, no wait, spin (bounded) until it sees the flag (so
//    the first instance completed), arrive again, then wait. Does CTA 0's
//    second arrive count, and does its one wait return before or after
//    CTA 1's second arrive?
// Q5 cluster_wait_without_arrive: both CTAs arrive and wait (round 1); then
//    CTA 0 runs barrier.cluster.wait with no arrive before it, and exits
//    (exit) or then arrives and waits (then_arrive); CTA 1 pauses d cycles,
//    then arrives and waits. Does CTA 0's wait return at once, only after
//    CTA 1's arrive, or never?
//
// Lane 0 of each warp (Q1-Q3, %clock64: the warps of a block share an SM) or
// thread 0 of each CTA (Q4, Q5, %globaltimer: the CTAs of a cluster may sit on
// two SMs) records its times in mapped host memory as it goes, so a launch
// that never finishes still shows which warps passed. Each row runs in a
// child process, forked before any CUDA call of the parent: the child
// launches the kernel --launches times and reports a launch that has not
// finished after --hang-ms as hung, with what its blocks had recorded; the
// parent kills a child that reports nothing within --timeout seconds, and
// kills and reaps every child before the next row. Every spin on a flag is
// bounded by %clock64.
//
// Build: nvcc -std=c++20 -O2 -gencode=arch=compute_90a,code=sm_90a -I. \
//   harnesses/conformance/barrier_letter.cu -o barrier_letter
// Run: barrier_letter [--launches N] [--blocks-per-sm B] [--hang-ms MS] [--timeout S] [--only PREFIX] [--report FILE]
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "harnesses/conformance/cuda_check.hpp"

namespace {

constexpr int slots = 16;                          // records per block (4 per warp) or per cluster (8 per CTA)
constexpr long long flag_spin_cycles = 1ll << 28;  // Q4: CTA 0's bound on its spin for the flag (about 0.14 s)

// ---------------------------------------------------------------- device side

__device__ inline long long gtime() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return static_cast<long long>(t);
}
__device__ inline void spin(long long cycles) {
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
}
// Records go to the record buffer (mapped host memory), one volatile store each.
__device__ inline void put(long long* p, long long v) { *reinterpret_cast<volatile long long*>(p) = v; }

// The named-barrier operations of Q1-Q3. bar.sync is barrier.sync.aligned;
// each warp runs its operation converged.
enum Op : int { sync_1_64, sync_1_96, sync_1_r, arrive_1_r, sync_0 };
__device__ inline void barrier_op(int op, unsigned r) {
  switch (op) {
    case sync_1_64: asm volatile("bar.sync 1, 64;" ::: "memory"); break;
    case sync_1_96: asm volatile("bar.sync 1, 96;" ::: "memory"); break;
    case sync_1_r: asm volatile("bar.sync 1, %0;" ::"r"(r) : "memory"); break;
    case arrive_1_r: asm volatile("bar.arrive 1, %0;" ::"r"(r) : "memory"); break;
    default: asm volatile("bar.sync 0;" ::: "memory"); break;
  }
}

struct CtaCase {
  int op[4];
  long long delay[4];  // cycles before warp k's operation
};

// Q1-Q3. Per block, for warp k (lane 0): slot 4k its clock just before the
// operation, 4k+1 just after it (passed), 4k+2 just before its exit.
__global__ void cta_case(CtaCase c, unsigned r, long long* rec) {
  const int warp = static_cast<int>(threadIdx.x / 32);
  const bool lead = threadIdx.x % 32 == 0;
  const int op = c.op[warp];
  const long long delay = c.delay[warp];
  long long* mine = rec + static_cast<long long>(blockIdx.x) * slots + 4 * warp;
  spin(delay);
  const long long arrived = clock64();
  if (lead) put(mine + 0, arrived);
  barrier_op(op, r);
  const long long passed = clock64();
  if (lead) put(mine + 1, passed);
  __threadfence_system();
  if (lead) put(mine + 2, clock64());
  __threadfence_system();
}

__device__ inline unsigned cta_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ inline void cluster_arrive() { asm volatile("barrier.cluster.arrive;" ::: "memory"); }
__device__ inline void cluster_wait() { asm volatile("barrier.cluster.wait;" ::: "memory"); }
__device__ inline void st_release(unsigned* p, unsigned v) { asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory"); }
__device__ inline unsigned ld_acquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Q4. Clusters of two CTAs: blocks 2i and 2i+1. Records of cluster i
// (%globaltimer, thread 0): CTA r at slots 8r + k.
//   CTA 1: 0 start, 1 first wait returned, 2 flag stored, 3 just before the
//          second arrive (after the pause), 4 second wait returned.
//   CTA 0: 0 start (just before the first arrive), 1 flag seen, 2 just before
//          the second arrive, 3 the wait returned, 5 1: flag seen, 2: the
//          bounded spin ran out.
__global__ void cluster_rearrive(long long delay, unsigned* flags, long long* rec) {
  const unsigned rank = cta_rank();
  const unsigned cid = blockIdx.x / 2;
  const bool lead = threadIdx.x == 0;
  long long* mine = rec + static_cast<long long>(cid) * slots + 8 * rank;
  if (lead) put(mine + 0, gtime());
  if (rank == 1) {
    cluster_arrive();
    cluster_wait();
    if (lead) {
      put(mine + 1, gtime());
      st_release(&flags[cid], 1u);
      put(mine + 2, gtime());
    }
    spin(delay);
    if (lead) put(mine + 3, gtime());
    cluster_arrive();
    cluster_wait();
    if (lead) put(mine + 4, gtime());
  } else {
    cluster_arrive();
    const long long t0 = clock64();
    bool seen = false;
    while (!(seen = ld_acquire(&flags[cid]) != 0u) && clock64() - t0 < flag_spin_cycles) {
    }
    if (lead) {
      put(mine + 1, seen ? gtime() : 0);
      put(mine + 5, seen ? 1 : 2);
      put(mine + 2, gtime());
    }
    cluster_arrive();
    cluster_wait();
    if (lead) put(mine + 3, gtime());
  }
  __threadfence_system();
}

// Q5. Records of cluster i (%globaltimer, thread 0), CTA r at slots 8r + k:
//   both: 0 start, 1 round 1's wait returned.
//   CTA 0: 2 its wait without an arrive returned, 3 (then_arrive) its later
//          arrive + wait returned.
//   CTA 1: 2 just before its second arrive (after the pause), 3 its second
//          wait returned.
template <bool ThenArrive>
__global__ void cluster_wait_no_arrive(long long delay, long long* rec) {
  const unsigned rank = cta_rank();
  const unsigned cid = blockIdx.x / 2;
  const bool lead = threadIdx.x == 0;
  long long* mine = rec + static_cast<long long>(cid) * slots + 8 * rank;
  if (lead) put(mine + 0, gtime());
  cluster_arrive();
  cluster_wait();
  if (lead) put(mine + 1, gtime());
  if (rank == 0) {
    cluster_wait();
    if (lead) put(mine + 2, gtime());
    if (ThenArrive) {
      cluster_arrive();
      cluster_wait();
      if (lead) put(mine + 3, gtime());
    }
  } else {
    spin(delay);
    if (lead) put(mine + 2, gtime());
    cluster_arrive();
    cluster_wait();
    if (lead) put(mine + 3, gtime());
  }
  __threadfence_system();
}

// The step of %globaltimer (the smallest change seen over 1 ms) and the SM
// clock against it.
__global__ void timer_probe(long long* out) {
  long long last = gtime(), step = LLONG_MAX;
  const long long c0 = clock64(), g0 = last;
  while (last - g0 < 1000000 && clock64() - c0 < (1ll << 32)) {
    const long long t = gtime();
    if (t != last) {
      step = t - last < step ? t - last : step;
      last = t;
    }
  }
  out[0] = step;
  out[1] = clock64() - c0;
  out[2] = last - g0;
}

// ---------------------------------------------------------------- host side

enum Kind : int { cta, rearrive, wait_exit, wait_then_arrive };

struct Row {
  const char* question;  // Q1..Q5
  const char* name;      // e.g. named_count_mixed/first64
  Kind kind;
  int warps, threads;  // Q1-Q3
  int op[4];
  int mult[4];  // warp k waits mult[k] * delay
  unsigned r;   // Q2's count operand
  long long delay;
};

constexpr int max_sigs = 6;
struct Result {
  int status;  // 0 every launch finished; 1 a launch hung; 2 a launch failed
  bool mapped;  // the records were in mapped host memory (else copied back after each launch)
  char error[96];
  int launches;               // launches run (the last one hung or failed, if status != 0)
  unsigned long long units;   // blocks (Q1-Q3) or clusters (Q4, Q5) launched
  unsigned long long started; // of those, started (some record written)
  unsigned long long c[12];   // per kind, see tally_*
  unsigned long long passed[4];
  unsigned long long before[4][4];  // warp i passed before warp j arrived
  long long dmin, dmax;             // Q4, Q5: the time differences compared (ns)
  int nsig;
  char sig[max_sigs][32];
  unsigned long long sigc[max_sigs], sig_other;
};

struct Info {
  char name[256];
  char driver[96];
  int sms, major, minor, driver_api, runtime, max_clusters;
  long long gt_step_ns, probe_cycles, probe_ns;
};

struct Options {
  int launches = 4, per_sm = 8, hang_ms = 2000;
  double timeout_s = 10.0;
  std::string only, report = "barrier-letter-report.md";
};

// Q1-Q3. c[0]: blocks where every warp passed; the outcome of each block
// (its signature, see the report's legend) into `sigs`.
void tally_cta(const Row& row, const volatile long long* h, int blocks, Result& res, std::map<std::string, unsigned long long>& sigs) {
  for (int b = 0; b < blocks; ++b) {
    const volatile long long* r = h + static_cast<long long>(b) * slots;
    long long a[4] = {}, p[4] = {}, x[4] = {};
    bool any = false;
    for (int w = 0; w < row.warps; ++w) {
      a[w] = r[4 * w];
      p[w] = r[4 * w + 1];
      x[w] = r[4 * w + 2];
      any = any || a[w] != 0;
    }
    if (!any) continue;
    ++res.started;
    bool all = true;
    std::string sig;
    for (int w = 0; w < row.warps; ++w) {
      if (w > 0) sig += '/';
      if (p[w] == 0) {
        all = false;
        sig += a[w] != 0 ? "-" : ".";
        continue;
      }
      ++res.passed[w];
      bool late = row.warps > 1;
      for (int v = 0; v < row.warps; ++v) {
        if (a[v] != 0 && a[v] < p[w]) sig += static_cast<char>('0' + v);
        if (v != w && a[v] != 0 && p[w] < a[v]) ++res.before[w][v];
        if (v != w && !(x[v] != 0 && x[v] < p[w])) late = false;
      }
      if (late) sig += 'x';
    }
    res.c[0] += all;
    ++sigs[sig];
  }
}

void diff_range(Result& res, long long d) {
  res.dmin = std::min(res.dmin, d);
  res.dmax = std::max(res.dmax, d);
}

// Q4. c[0] flag seen by CTA 0; c[1] its spin ran out; c[2] CTA 1's first
// wait returned; c[3] CTA 0's wait returned; c[4] CTA 1's second wait
// returned; c[5] both; CTA 0's wait returned before (c[6]) or after (c[7])
// CTA 1's second arrive, or at the same timer reading (c[8]); c[9] CTA 0's
// wait returned and CTA 1 never reached its second arrive.
void tally_rearrive(const volatile long long* h, int clusters, Result& res) {
  for (int i = 0; i < clusters; ++i) {
    const volatile long long* r0 = h + static_cast<long long>(i) * slots;
    const volatile long long* r1 = r0 + 8;
    if (r0[0] == 0 && r1[0] == 0) continue;
    ++res.started;
    res.c[0] += r0[5] == 1;
    res.c[1] += r0[5] == 2;
    res.c[2] += r1[1] != 0;
    res.c[3] += r0[3] != 0;
    res.c[4] += r1[4] != 0;
    res.c[5] += r0[3] != 0 && r1[4] != 0;
    if (r0[3] != 0 && r1[3] != 0) {
      const long long d = r0[3] - r1[3];
      res.c[6] += d < 0;
      res.c[7] += d > 0;
      res.c[8] += d == 0;
      diff_range(res, d);
    }
    res.c[9] += r0[3] != 0 && r1[3] == 0;
  }
}

// Q5. c[0] round 1 passed by both CTAs; c[1] CTA 0's wait without an arrive
// returned; c[2] CTA 1's second wait returned; c[3] (then_arrive) CTA 0's
// later wait returned; CTA 0's wait without an arrive returned before (c[4])
// or after (c[5]) CTA 1's second arrive, or at the same reading (c[6]);
// c[7] every wait of the cluster returned.
void tally_wait(bool then_arrive, const volatile long long* h, int clusters, Result& res) {
  for (int i = 0; i < clusters; ++i) {
    const volatile long long* r0 = h + static_cast<long long>(i) * slots;
    const volatile long long* r1 = r0 + 8;
    if (r0[0] == 0 && r1[0] == 0) continue;
    ++res.started;
    res.c[0] += r0[1] != 0 && r1[1] != 0;
    res.c[1] += r0[2] != 0;
    res.c[2] += r1[3] != 0;
    res.c[3] += r0[3] != 0;
    if (r0[2] != 0 && r1[2] != 0) {
      const long long d = r0[2] - r1[2];
      res.c[4] += d < 0;
      res.c[5] += d > 0;
      res.c[6] += d == 0;
      diff_range(res, d);
    }
    res.c[7] += r0[2] != 0 && r1[3] != 0 && (!then_arrive || r0[3] != 0);
  }
}

// A launch of `clusters` clusters of two CTAs of one warp; `attr` holds the
// cluster dimension the configuration points to.
cudaLaunchConfig_t cluster_config(int clusters, cudaLaunchAttribute& attr) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(static_cast<unsigned>(2 * clusters));
  cfg.blockDim = dim3(32);
  attr = cudaLaunchAttribute{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = 2;
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  return cfg;
}

template <class Kernel, class... Args>
cudaError_t launch_cluster(Kernel k, int clusters, Args... args) {
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = cluster_config(clusters, attr);
  return cudaLaunchKernelEx(&cfg, k, args...);
}

// In the child: one row.
Result run_row(const Row& row, const Options& o) {
  Result res{};
  res.dmin = LLONG_MAX;
  res.dmax = LLONG_MIN;
  CUDA_CHECK(cudaSetDevice(0));
  int sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int units = sms * o.per_sm;  // blocks, or clusters
  const std::size_t bytes = sizeof(long long) * slots * static_cast<std::size_t>(units);
  // The records live in mapped host memory, read while a launch runs; where
  // that cannot be had, in device memory, copied back after a launch that
  // finished (a hung launch then shows nothing).
  long long* host = nullptr;
  long long* dev = nullptr;
  res.mapped = cudaHostAlloc(&host, bytes, cudaHostAllocMapped) == cudaSuccess &&
               cudaHostGetDevicePointer(reinterpret_cast<void**>(&dev), host, 0) == cudaSuccess;
  if (!res.mapped) {
    (void)cudaGetLastError();
    host = static_cast<long long*>(std::malloc(bytes));
    CUDA_CHECK(cudaMalloc(&dev, bytes));
  }
  unsigned* flags = nullptr;
  CUDA_CHECK(cudaMalloc(&flags, sizeof(unsigned) * static_cast<std::size_t>(units)));
  CtaCase c{};
  for (int w = 0; w < 4; ++w) {
    c.op[w] = row.op[w];
    c.delay[w] = row.mult[w] * row.delay;
  }
  std::map<std::string, unsigned long long> sigs;
  for (int l = 0; l < o.launches; ++l) {
    std::memset(host, 0, bytes);
    if (!res.mapped) CUDA_CHECK(cudaMemset(dev, 0, bytes));
    CUDA_CHECK(cudaMemset(flags, 0, sizeof(unsigned) * static_cast<std::size_t>(units)));
    CUDA_CHECK(cudaDeviceSynchronize());
    cudaError_t e = cudaSuccess;
    switch (row.kind) {
      case cta:
        cta_case<<<units, row.threads>>>(c, row.r, dev);
        e = cudaGetLastError();
        break;
      case rearrive: e = launch_cluster(cluster_rearrive, units, row.delay, flags, dev); break;
      case wait_exit: e = launch_cluster(cluster_wait_no_arrive<false>, units, row.delay, dev); break;
      case wait_then_arrive: e = launch_cluster(cluster_wait_no_arrive<true>, units, row.delay, dev); break;
    }
    res.launches = l + 1;
    res.units += static_cast<unsigned long long>(units);
    if (e == cudaSuccess) {
      const auto t0 = std::chrono::steady_clock::now();
      while ((e = cudaStreamQuery(0)) == cudaErrorNotReady &&
             std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() < o.hang_ms)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (e == cudaErrorNotReady) {
      res.status = 1;
      // What the blocks record after they are found hung: give stores in
      // flight a moment to land.
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    } else if (e != cudaSuccess) {
      res.status = 2;
      std::snprintf(res.error, sizeof res.error, "%s", cudaGetErrorName(e));
    }
    if (!res.mapped && (res.status != 0 || cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost) != cudaSuccess))
      std::memset(host, 0, bytes);
    const volatile long long* h = host;
    switch (row.kind) {
      case cta: tally_cta(row, h, units, res, sigs); break;
      case rearrive: tally_rearrive(h, units, res); break;
      case wait_exit: tally_wait(false, h, units, res); break;
      case wait_then_arrive: tally_wait(true, h, units, res); break;
    }
    if (res.status != 0) break;
  }
  std::vector<std::pair<unsigned long long, std::string>> v;
  for (const auto& [s, n] : sigs) v.emplace_back(n, s);
  std::sort(v.begin(), v.end(), [](const auto& x, const auto& y) { return x.first != y.first ? x.first > y.first : x.second < y.second; });
  for (const auto& [n, s] : v) {
    if (res.nsig < max_sigs) {
      std::snprintf(res.sig[res.nsig], sizeof res.sig[0], "%s", s.c_str());
      res.sigc[res.nsig++] = n;
    } else {
      res.sig_other += n;
    }
  }
  return res;
}

// In the child: the device, the driver, the runtime, the timers.
Info run_info() {
  Info in{};
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::snprintf(in.name, sizeof in.name, "%s", prop.name);
  in.sms = prop.multiProcessorCount;
  in.major = prop.major;
  in.minor = prop.minor;
  CUDA_CHECK(cudaDriverGetVersion(&in.driver_api));
  CUDA_CHECK(cudaRuntimeGetVersion(&in.runtime));
  std::snprintf(in.driver, sizeof in.driver, "unknown");
  // The driver's own version, through NVML where the library is there.
  if (void* nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW)) {
    using Init = int (*)();
    using Version = int (*)(char*, unsigned);
    auto init = reinterpret_cast<Init>(dlsym(nvml, "nvmlInit_v2"));
    auto version = reinterpret_cast<Version>(dlsym(nvml, "nvmlSystemGetDriverVersion"));
    char buf[96] = {};
    if (init != nullptr && version != nullptr && init() == 0 && version(buf, sizeof buf) == 0)
      std::snprintf(in.driver, sizeof in.driver, "%s", buf);
  }
  long long* d = nullptr;
  CUDA_CHECK(cudaMalloc(&d, 3 * sizeof(long long)));
  timer_probe<<<1, 1>>>(d);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  long long h[3];
  CUDA_CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  in.gt_step_ns = h[0];
  in.probe_cycles = h[1];
  in.probe_ns = h[2];
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = cluster_config(1, attr);
  if (cudaOccupancyMaxActiveClusters(&in.max_clusters, cluster_rearrive, &cfg) != cudaSuccess) in.max_clusters = -1;
  return in;
}

// Runs f in a forked child and reads its result through a pipe. `note` says
// what happened to the child: "" (it reported and exited), or why not.
template <class T, class F>
bool in_child(F f, T& out, double timeout_s, std::string& note) {
  std::fflush(stdout);
  std::fflush(stderr);
  int fd[2];
  if (pipe(fd) != 0) {
    note = "pipe failed";
    return false;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    note = "fork failed";
    close(fd[0]);
    close(fd[1]);
    return false;
  }
  if (pid == 0) {
    close(fd[0]);
    const T v = f();
    const char* p = reinterpret_cast<const char*>(&v);
    std::size_t left = sizeof v;
    while (left > 0) {
      const ssize_t n = write(fd[1], p, left);
      if (n <= 0 && errno != EINTR) break;
      if (n > 0) {
        p += n;
        left -= static_cast<std::size_t>(n);
      }
    }
    close(fd[1]);
    _exit(0);
  }
  close(fd[1]);
  char* p = reinterpret_cast<char*>(&out);
  std::size_t got = 0;
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  while (got < sizeof out) {
    const double left_s = timeout_s - elapsed();
    if (left_s <= 0) break;
    pollfd q{fd[0], POLLIN, 0};
    const int k = poll(&q, 1, static_cast<int>(left_s * 1000) + 1);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    const ssize_t n = read(fd[0], p + got, sizeof out - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the child ended without its result
    got += static_cast<std::size_t>(n);
  }
  close(fd[0]);
  const bool ok = got == sizeof out;
  if (!ok) note = elapsed() >= timeout_s ? "no result within the timeout" : "the child ended without a result";
  // The child exits by itself once it has reported (a hung launch can make
  // that slow: the driver ends its context); past 5 s it is killed.
  int status = 0;
  bool reaped = false;
  const auto t1 = std::chrono::steady_clock::now();
  while (!reaped && std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count() < 5.0) {
    reaped = waitpid(pid, &status, WNOHANG) == pid;
    if (!reaped) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (!reaped) {
    kill(pid, SIGKILL);
    const auto t2 = std::chrono::steady_clock::now();
    while (!reaped && std::chrono::duration<double>(std::chrono::steady_clock::now() - t2).count() < 60.0) {
      reaped = waitpid(pid, &status, WNOHANG) == pid;
      if (!reaped) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    note += note.empty() ? "" : "; ";
    note += reaped ? "child killed" : "child killed, not yet reaped";
  } else if (!ok && WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    note += "; exit status " + std::to_string(WEXITSTATUS(status));
  }
  return ok;
}

std::vector<Row> all_rows() {
  std::vector<Row> rows;
  const long long delays[] = {0, 2000, 20000, 200000};
  auto cta_rows = [&](const char* q, const char* name, int warps, std::vector<int> ops, std::vector<int> mult, unsigned r,
                      std::vector<long long> ds) {
    for (const long long d : ds) {
      Row row{q, name, cta, warps, 0, {sync_0, sync_0, sync_0, sync_0}, {0, 0, 0, 0}, r, d};
      row.threads = 32 * warps;
      for (int w = 0; w < warps; ++w) {
        row.op[w] = ops[static_cast<std::size_t>(w)];
        row.mult[w] = mult[static_cast<std::size_t>(w)];
      }
      rows.push_back(row);
    }
  };
  const std::vector<long long> all_d(std::begin(delays), std::end(delays));
  cta_rows("Q1", "named_count_mixed/first64", 3, {sync_1_64, sync_1_96, sync_1_96}, {0, 1, 2}, 0, all_d);
  cta_rows("Q1", "named_count_mixed/first96", 3, {sync_1_96, sync_1_64, sync_1_64}, {0, 1, 2}, 0, all_d);
  cta_rows("Q1", "named_count_mixed/first96x4", 4, {sync_1_96, sync_1_64, sync_1_64, sync_1_64}, {0, 1, 2, 3}, 0, all_d);
  cta_rows("Q1", "named_count_mixed/same96", 3, {sync_1_96, sync_1_96, sync_1_96}, {0, 1, 2}, 0, {20000});
  cta_rows("Q2", "named_count_zero/sync", 2, {sync_1_r, sync_1_r}, {0, 1}, 0, all_d);
  cta_rows("Q2", "named_count_zero/sync", 2, {sync_1_r, sync_1_r}, {0, 1}, 64, {20000});
  cta_rows("Q2", "named_count_zero/arrive", 2, {sync_1_64, arrive_1_r}, {0, 1}, 0, all_d);
  cta_rows("Q2", "named_count_zero/arrive", 2, {sync_1_64, arrive_1_r}, {0, 1}, 64, {20000});
  cta_rows("Q3", "cta48_bar0/partial_late", 2, {sync_0, sync_0}, {0, 1}, 0, all_d);
  cta_rows("Q3", "cta48_bar0/full_late", 2, {sync_0, sync_0}, {1, 0}, 0, all_d);
  for (Row& row : rows)
    if (std::strncmp(row.name, "cta48", 5) == 0) row.threads = 48;
  for (const long long d : delays) rows.push_back(Row{"Q4", "cluster_rearrive", rearrive, 0, 0, {}, {}, 0, d});
  for (const long long d : delays) rows.push_back(Row{"Q5", "cluster_wait_without_arrive/exit", wait_exit, 0, 0, {}, {}, 0, d});
  for (const long long d : delays)
    rows.push_back(Row{"Q5", "cluster_wait_without_arrive/then_arrive", wait_then_arrive, 0, 0, {}, {}, 0, d});
  return rows;
}

std::string run_note(const Result& r, bool ok, const std::string& note, int hang_ms) {
  std::string s;
  if (!ok) s = "**no result** (" + note + ")";
  else if (r.status == 0) s = "finished";
  else if (r.status == 1) s = "**hung** (launch " + std::to_string(r.launches) + " not finished after " + std::to_string(hang_ms) + " ms)";
  else s = std::string("**error** ") + r.error + " (launch " + std::to_string(r.launches) + ")";
  if (ok && !r.mapped) s += "; records copied after each launch";
  if (ok && !note.empty()) s += "; " + note;
  return s;
}

std::string sig_text(const Result& r) {
  std::string s;
  for (int i = 0; i < r.nsig; ++i) {
    if (i) s += ", ";
    s += "`" + std::string(r.sig[i]) + "` " + std::to_string(r.sigc[i]);
  }
  if (r.sig_other) s += ", other " + std::to_string(r.sig_other);
  return s.empty() ? "-" : s;
}

std::string ns_range(const Result& r) {
  if (r.dmin > r.dmax) return "-";
  return std::to_string(r.dmin) + " .. " + std::to_string(r.dmax);
}

const char* const q_text[5][3] = {
    {"Q1 named_count_mixed: one named barrier, different thread counts",
     "PTX ISA, \"bar, barrier\": \"Operand b specifies the number of threads participating in the barrier.\" The nearest sentence on "
     "several counts: \"Different warps may execute different forms of the barrier{.cta} instruction using the same barrier name and "
     "thread count\".",
     "Warp k of the block waits k x d cycles, then runs `bar.sync 1, COUNT` with the counts of the case, in warp order: first64 "
     "64, 96, 96; first96 96, 64, 64; first96x4 96, 64, 64, 64; same96 96, 96, 96."},
    {"Q2 named_count_zero: a thread count of 0 read at run time",
     "PTX ISA, \"bar, barrier\": \"If no thread count is specified, all threads in the CTA participate in the barrier.\" and \"Note "
     "that a non-zero thread count is required for barrier{.cta}.arrive.\"",
     "A block of 64 threads; r is a kernel argument. sync: both warps run `bar.sync 1, r`; arrive: warp 0 runs `bar.sync 1, 64` and "
     "warp 1 runs `bar.arrive 1, r`. Warp 1 waits d cycles first. r = 64 is the control."},
    {"Q3 cta48_bar0: a block of 48 threads on bar.sync 0",
     "PTX ISA, \"bar, barrier\": \"If no thread count is specified, all threads in the CTA participate in the barrier.\" and \"When "
     "specifying a thread count, the value must be a multiple of the warp size.\" (here no count is given)",
     "A block of 48 threads: warp 0 of 32 threads and warp 1 of 16. Both run `bar.sync 0`. partial_late: warp 1 waits d cycles "
     "first; full_late: warp 0 does."},
    {"Q4 cluster_rearrive: a second arrive after completion, without a wait between",
     "PTX ISA, barrier.cluster: \"Each thread must arrive at the barrier only once before the barrier completes.\" and \"After using "
     "barrier.cluster.wait to detect completion of the barrier, a thread may immediately arrive at the barrier once again.\"",
     "Clusters of two CTAs of 32 threads. CTA 1: `barrier.cluster.arrive`, `barrier.cluster.wait`, thread 0 stores a flag "
     "(`st.release.gpu`), all wait d cycles, then arrive and wait again. CTA 0: arrive, no wait, spin until the flag is seen "
     "(`ld.acquire.gpu`, bounded at 2^28 cycles), arrive again, wait. Times by %globaltimer."},
    {"Q5 cluster_wait_without_arrive: a wait with no arrive before it",
     "PTX ISA, barrier.cluster: \"barrier.cluster.wait instruction causes the executing thread to wait for all non-exited threads of "
     "the cluster to perform barrier.cluster.arrive.\"",
     "Clusters of two CTAs of 32 threads. Round 1: all threads `barrier.cluster.arrive`, `barrier.cluster.wait`. Then CTA 0 runs "
     "`barrier.cluster.wait` alone and exits (exit), or then arrives and waits (then_arrive); CTA 1 waits d cycles, then arrives and "
     "waits. Times by %globaltimer."}};

}  // namespace

int main(int argc, char** argv) {
  Options o;
  std::string cmdline = "barrier_letter";
  for (int i = 1; i < argc; ++i) {
    cmdline += " ";
    cmdline += argv[i];
    if (i + 1 < argc && argv[i][0] == '-') cmdline += std::string(" ") + argv[i + 1];
    if (!std::strcmp(argv[i], "--launches") && i + 1 < argc) o.launches = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--blocks-per-sm") && i + 1 < argc) o.per_sm = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--hang-ms") && i + 1 < argc) o.hang_ms = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--timeout") && i + 1 < argc) o.timeout_s = std::max(1.0, std::atof(argv[++i]));
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) o.only = argv[++i];
    else if (!std::strcmp(argv[i], "--report") && i + 1 < argc) o.report = argv[++i];
    else {
      std::fprintf(stderr,
                   "usage: barrier_letter [--launches N] [--blocks-per-sm B] [--hang-ms MS] [--timeout S] [--only PREFIX] [--report FILE]\n");
      return 2;
    }
  }
  // The parent makes no CUDA call: every call is made in a child.
  Info info{};
  std::string note;
  if (!in_child<Info>(run_info, info, 60.0, note)) {
    std::fprintf(stderr, "barrier_letter: no device information (%s)\n", note.c_str());
    return 2;
  }
  const double cyc_per_ns = info.probe_ns > 0 ? static_cast<double>(info.probe_cycles) / static_cast<double>(info.probe_ns) : 0.0;
  std::printf("%s, %d SMs (sm_%d%d); driver %s (CUDA %d), runtime %d; nvcc %d.%d\n", info.name, info.sms, info.major, info.minor,
              info.driver, info.driver_api, info.runtime, __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__);
  std::printf("globaltimer step %lld ns; SM clock %.3f cycles per ns; clusters of 2 x 32 threads resident at once: %d\n", info.gt_step_ns,
              cyc_per_ns, info.max_clusters);
  std::map<std::string, std::string> tables;
  const char* const heads[5] = {
      "| case | d (cycles) | blocks | started | all warps passed | w0 passed before w1 arrived | w0 passed before w2 arrived | w1 passed "
      "before w2 arrived | outcomes per block | run |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
      "| case | r | d (cycles) | blocks | started | all warps passed | w0 passed before w1 arrived | outcomes per block | run |\n"
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
      "| case | d (cycles) | blocks | started | all warps passed | the early warp passed before the late one arrived | outcomes per "
      "block | run |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n",
      "| d (cycles) | clusters | started | CTA 0 saw the flag | CTA 0's spin ran out | CTA 1's first wait returned | CTA 0's wait "
      "returned | CTA 1's second wait returned | both returned | CTA 0's wait returned before CTA 1's second arrive | after it | same "
      "reading | CTA 0's wait minus CTA 1's arrive (ns) | CTA 1 never reached its second arrive, CTA 0's wait returned | run |\n"
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
      "| case | d (cycles) | clusters | started | round 1 passed | CTA 0's wait without an arrive returned | before CTA 1's second arrive "
      "| after it | same reading | CTA 0's wait minus CTA 1's arrive (ns) | CTA 1's second wait returned | CTA 0's later wait returned "
      "(then_arrive) | every wait returned | run |\n"
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"};
  int ran = 0;
  for (const Row& row : all_rows()) {
    if (!o.only.empty() && std::string(row.name).rfind(o.only, 0) != 0 && o.only != row.question) continue;
    Result r{};
    std::string why;
    const bool ok = in_child<Result>([&] { return run_row(row, o); }, r, o.timeout_s, why);
    if (!ok) {
      r = Result{};
      r.dmin = LLONG_MAX;
      r.dmax = LLONG_MIN;
    }
    const std::string run = run_note(r, ok, why, o.hang_ms);
    const std::string rname = std::strchr(row.name, '/') ? std::strchr(row.name, '/') + 1 : row.name;
    const int q = row.question[1] - '1';
    char line[2048];
    if (q == 0) {
      std::snprintf(line, sizeof line, "| %s | %lld | %llu | %llu | %llu | %llu | %llu | %llu | %s | %s |\n", rname.c_str(), row.delay, r.units,
                    r.started, r.c[0], r.before[0][1], r.before[0][2], r.before[1][2], sig_text(r).c_str(), run.c_str());
    } else if (q == 1) {
      std::snprintf(line, sizeof line, "| %s | %u | %lld | %llu | %llu | %llu | %llu | %s | %s |\n", rname.c_str(), row.r, row.delay, r.units,
                    r.started, r.c[0], r.before[0][1], sig_text(r).c_str(), run.c_str());
    } else if (q == 2) {
      const bool partial_late = row.mult[1] > row.mult[0];
      std::snprintf(line, sizeof line, "| %s | %lld | %llu | %llu | %llu | %llu | %s | %s |\n", rname.c_str(), row.delay, r.units, r.started,
                    r.c[0], partial_late ? r.before[0][1] : r.before[1][0], sig_text(r).c_str(), run.c_str());
    } else if (q == 3) {
      std::snprintf(line, sizeof line, "| %lld | %llu | %llu | %llu | %llu | %llu | %llu | %llu | %llu | %llu | %llu | %llu | %s | %llu | %s |\n",
                    row.delay, r.units, r.started, r.c[0], r.c[1], r.c[2], r.c[3], r.c[4], r.c[5], r.c[6], r.c[7], r.c[8],
                    ns_range(r).c_str(), r.c[9], run.c_str());
    } else {
      std::snprintf(line, sizeof line, "| %s | %lld | %llu | %llu | %llu | %llu | %llu | %llu | %llu | %s | %llu | %s | %llu | %s |\n",
                    rname.c_str(), row.delay, r.units, r.started, r.c[0], r.c[1], r.c[4], r.c[5], r.c[6], ns_range(r).c_str(), r.c[2],
                    row.kind == wait_then_arrive ? std::to_string(r.c[3]).c_str() : "-", r.c[7], run.c_str());
    }
    std::printf("%s %s", row.question, line);
    std::fflush(stdout);
    if (tables[row.question].empty()) tables[row.question] = heads[q];
    tables[row.question] += line;
    ++ran;
  }
  if (FILE* f = std::fopen(o.report.c_str(), "w")) {
    std::fprintf(f, "# barrier_letter: %s, %d SMs (sm_%d%d); driver %s (CUDA %d), runtime %d; nvcc %d.%d for sm_90a\n\n", info.name,
                 info.sms, info.major, info.minor, info.driver, info.driver_api, info.runtime, __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__);
    std::fprintf(f,
                 "- command: `%s`\n- %d launch(es) per row of %d blocks (Q1-Q3) or clusters of two CTAs (Q4, Q5) per SM; a launch not "
                 "finished after %d ms is counted as hung, with what its blocks had recorded, and the row stops there\n"
                 "- %%globaltimer step: %lld ns; SM clock: %.3f cycles per ns; clusters resident at once (occupancy): %d\n\n",
                 cmdline.c_str(), o.launches, o.per_sm, o.hang_ms, info.gt_step_ns, cyc_per_ns, info.max_clusters);
    std::fprintf(f,
                 "Outcomes per block (Q1-Q3): for each warp in order, the warps that had arrived (recorded their clock before the "
                 "barrier) when it passed; `-`: it arrived and never passed; `.`: it never arrived; `x`: it passed only after every "
                 "other warp of the block had exited. Counts of blocks; the six most frequent, the rest as other.\n\n");
    for (int q = 0; q < 5; ++q) {
      const std::string key = "Q" + std::to_string(q + 1);
      if (tables[key].empty()) continue;
      std::fprintf(f, "## %s\n\n%s\n\n%s\n\n%s\n", q_text[q][0], q_text[q][1], q_text[q][2], tables[key].c_str());
    }
    std::fclose(f);
  }
  return ran > 0 ? 0 : 1;
}
