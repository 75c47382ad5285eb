// What the model allows each litmus test to observe, derived from spec/ by the
// checker: a litmus test is written as an abstract kernel (the same shape as
// its CUDA twin in conformance.cu) and explored exhaustively. If the checker
// verifies it, the consumer's read is ordered after the producer's write, so
// the only allowed outcome is "fresh"; if it finds a data or proxy race, the
// read may return the old value too ("stale"); if it finds a deadlock, the
// kernel may hang.
#pragma once

#include <string>
#include <vector>

#include "checker/ir.hpp"

namespace pc::conformance {

struct Allowed {
  bool fresh = true;
  bool stale = false;
  bool may_hang = false;
  std::string verdict;  // the checker's verdict on the litmus kernel
};

enum class Litmus {
  mp_mbarrier_release,   // write; mbarrier.arrive.release; try_wait.acquire; read
  mp_mbarrier_relaxed,   // the same with mbarrier.arrive.relaxed
  mp_named_barrier,      // write; bar.arrive; bar.sync; read
  tma_load_mbarrier,     // cp.async.bulk complete_tx on the barrier; wait; read
  tma_store_fenced,      // generic writes; fence.proxy.async; barrier; TMA store reads
  tma_store_unfenced,    // the same without the proxy fence
  tma_reduce_fenced,     // generic writes; fence.proxy.async; cp.reduce.async.bulk reads them (add into global)
  cluster_release,       // DSMEM write; barrier.cluster.arrive.release; wait.acquire; read
  cluster_relaxed,       // the same with barrier.cluster.arrive.relaxed
  mp_sw_mbarrier,        // the software mbarrier (CAS on a shared word) instead of the hardware one
  arrive_drop_progress,  // one of two consumers drops out; the next phases complete with one
  hang_short_count,      // count 2, one arrival: the waiter hangs (watchdog)
  finish_full_count,     // count 2, two arrivals: the waiter finishes
  st_async_cluster,      // DSMEM write; st.async into the peer with complete_tx; try_wait.acquire.cluster; read both
  red_async_cluster,     // the same with red.async.add (a running sum)
  st_async_cta_wait,     // st_async_cluster with the wait at the default .acquire.cta (the field's practice)
  cp_async_wait_group,   // cp.async (group 1), cp.async (group 2), wait_group 1; read group 1's word
  cp_async_wait_pending, // the same, reading group 2's word (its group may be pending)
};

[[nodiscard]] const char* litmus_name(Litmus l);
[[nodiscard]] ir::Kernel litmus_kernel(Litmus l);
[[nodiscard]] Allowed allowed(Litmus l);

}  // namespace pc::conformance
