// The cluster barrier: PTX ISA, barrier.cluster ("barrier.cluster.wait instruction causes the
// executing thread to wait for all non-exited threads of the cluster to perform
// barrier.cluster.arrive."; "Each thread must arrive at the barrier only once before the barrier
// completes."; "After using barrier.cluster.wait to detect completion of the barrier, a thread may
// immediately arrive at the barrier once again."). The model asks more than the ISA's letter:
// a second arrive before the thread's own wait is misuse
// even after the instance completed, and so is a wait with no arrive (no ISA sentence for it).
// Both are stances stricter than the H200, which lets a re-arrive after completion join the
// next instance and a lone wait return at once, ordering nothing (harness test barrier_letter
// Q4, Q5: docs/conformance/h200-2026-12-05-barrier-letter.md; docs/spec.md).
// Pure functions over one State per cluster; the per-thread part (has this agent arrived, in
// which instance) is a Ticket the caller keeps.
#pragma once

#include <compare>
#include <cstdint>

#include "spec/outcome.hpp"

namespace pc::spec::cluster {

// CTAs per cluster: at most 16 (PTX ISA, "Cluster of Cooperative Thread
// Arrays" and the special register %cluster_nctarank; CUDA C++ Programming
// Guide, "Thread Block Clusters": 8 is the portable size, 16 the largest an
// sm_90 kernel may opt in to with cudaFuncAttributeNonPortableClusterSizeAllowed).
inline constexpr int max_ctas = 16;

struct State {
  std::uint32_t generation = 0;  // completed instances
  std::uint32_t arrived = 0;     // threads arrived in the current instance
  auto operator<=>(const State&) const = default;
};

// 0: not arrived; g + 1: arrived in instance g and not yet waited.
using Ticket = std::uint32_t;

struct Result {
  State next;
  Ticket ticket = 0;
  Outcome out;
};

// An agent of `threads` threads arrives; `expected` is the number of
// non-exited threads of the cluster (PTX ISA, barrier.cluster: "When all
// non-exited threads in the cluster have executed barrier.cluster.arrive, the
// barrier completes and is automatically reinitialized."), plus the exited
// threads whose arrive the instance in progress counts (exited_counted): their
// arrival stays in `arrived` and balances them, so that only the non-exited
// threads' arrivals complete the instance. Arriving twice
// without a wait is `cluster_barrier_misuse`: "Each thread must arrive at the
// barrier only once before the barrier completes."; the ISA allows the next
// arrive "After using barrier.cluster.wait to detect completion of the barrier",
// and the model asks for that wait even where the instance has completed.
[[nodiscard]] Result arrive(State s, Ticket t, std::uint32_t threads, std::uint32_t expected);
// Enabled once the instance the ticket joined has completed (PTX ISA,
// barrier.cluster: "barrier.cluster.wait instruction causes the executing thread
// to wait for all non-exited threads of the cluster to perform
// barrier.cluster.arrive."). Waiting without having arrived is
// `cluster_barrier_misuse`: no ISA sentence says so (see above).
[[nodiscard]] Result wait(State s, Ticket t);
// A thread exits: the instance in progress may now be complete. PTX ISA, exit:
// "As threads exit, barriers waiting on all threads are checked to see if the
// exiting threads are the only threads that have not yet made it to ... a
// barrier.cluster for all threads in the cluster. If the exiting threads are
// holding up the barrier, the barrier is released."
[[nodiscard]] Result on_exit(State s, std::uint32_t expected);
// Whether an exited thread with ticket `t` is among the `expected` threads
// above: it arrived on the instance in progress. Until issue 61 `expected`
// was the non-exited threads alone, so an agent that arrived and then exited
// with no wait (an exit orders nothing) completed the instance while a
// non-exited thread had not arrived; the partial-order reduction's check
// found it (the two orders of that exit and the other thread's exit reached
// different states).
[[nodiscard]] constexpr bool exited_counted(State s, Ticket t) { return t != 0 && t == s.generation + 1; }

}  // namespace pc::spec::cluster
