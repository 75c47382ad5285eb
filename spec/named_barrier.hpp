// Named (CTA) barriers: PTX ISA, "bar, barrier" (barrier{.cta}.sync, .arrive,
// .red) in "Parallel Synchronization and Communication Instructions".
// One State per barrier id per CTA. Pure functions, as in spec/mbarrier.hpp.
#pragma once

#include <compare>
#include <cstdint>

#include "spec/outcome.hpp"

namespace pc::spec::named {

inline constexpr int num_ids = 16;  // PTX ISA, "bar, barrier": "Each CTA instance has sixteen barriers numbered 0..15."
inline constexpr int warp_size = 32;

enum class Red : std::uint8_t { none, popc, and_, or_ };

struct State {
  std::uint16_t count = 0;        // thread count of the instance in progress (0: none)
  std::uint16_t arrived = 0;      // threads arrived at it so far
  std::uint32_t generation = 0;   // completed instances
  std::uint16_t acc_popc = 0;     // bar.red accumulators of the instance in progress
  std::uint8_t acc_and = 1, acc_or = 0;
  std::int32_t last_popc = 0;     // results of the last completed instance
  std::uint8_t last_and = 1, last_or = 0;
  bool whole_cta = false;         // the instance in progress was given no count: every non-exited thread
  std::uint8_t kind = 0;          // of the instance in progress: 0 none yet, 1 bar.sync/bar.arrive, 2 bar.red
  auto operator<=>(const State&) const = default;
};

struct Result {
  State next;
  Outcome out;  // observed: the generation (instance) this arrival joined
};

struct ArriveArgs {
  int id = 0;
  std::int64_t count = 0;   // the b operand, where given
  bool no_count = false;    // b absent: all threads of the CTA take part
  bool sync = false;        // bar.sync (barrier.sync): a b of 0 is the whole CTA too (whole_cta)
  int threads = warp_size;  // threads of the arriving agent (32: a warp, 128: a warp group)
  int cta_threads = 0;      // threads of the CTA (for id 0 and the checks of an absent count)
  int live_threads = -1;    // threads of the CTA not exited (an absent count waits for these); -1: cta_threads
  Red red = Red::none;
  bool predicate = false;   // bar.red's predicate, uniform over the agent's threads
  bool id0_whole_cta = true; // the kernel also uses barrier 0 for the whole CTA (__syncthreads, or an id-0 barrier with no count)
};

// Checks of the operands. PTX ISA, "bar, barrier":
//  - `named_id_out_of_range`: "Source operand a specifies a logical barrier resource as an immediate
//    constant or register with value 0 through 15."
//  - `named_count_not_warp_multiple`: "When specifying a thread count, the value must be a multiple of
//    the warp size." A count of 0 given to bar.arrive is one too: "Note that a non-zero thread count
//    is required for barrier{.cta}.arrive" (the H200 faults: harness test barrier_letter Q2,
//    docs/conformance/h200-2026-12-05-barrier-letter.md), and to bar.red ("Operand b specifies the
//    number of threads participating in the barrier", which the executing threads are; not tested).
//    To bar.sync a count of 0 is the whole CTA (whole_cta): the ISA's letter allows it (0 is a
//    multiple of the warp size) and gives it no meaning, and on the H200 `bar.sync 1, r` with r = 0
//    at run time waits for every warp of the block (Q2: in 16,896 blocks no warp passed before the
//    late one arrived). With no count nothing is checked: "If no thread count is specified, all
//    threads in the CTA participate in the barrier" (a CTA of 48 threads may run bar.sync 0: Q3;
//    until issue 62 the model checked the CTA's size there).
//  - `named_id0_clash`: id 0 is the barrier of __syncthreads (CUDA C++ Programming Guide,
//    "Synchronization Functions"), so a partial count on it clashes with the __syncthreads of the
//    CTA: only when the kernel has one. No PTX ISA sentence forbids it: PTX allows any warp-multiple
//    count on barrier 0.
[[nodiscard]] Violation check_operands(const ArriveArgs& a);
// Whether the arrive is for every thread of the CTA: no count, or bar.sync's 0.
[[nodiscard]] bool whole_cta(const ArriveArgs& a);

// The arrival part of bar.sync, bar.arrive and bar.red: adds the agent's threads;
// the instance completes when `count` threads have arrived (PTX ISA, "bar, barrier":
// "When a barrier completes, the waiting threads are restarted without delay, and
// the barrier is reinitialized so that it can be immediately reused.").
// With no count, the instance waits for the CTA's threads that have not
// exited ("If no thread count is specified, all threads in the CTA participate in
// the barrier."; PTX ISA, exit: "If the exiting threads are holding up the
// barrier, the barrier is released."; the H100 does so for bar.sync 0).
// Violations, besides check_operands():
//  - `named_red_mixed`: "barrier{.cta}.red should not be intermixed with
//    barrier{.cta}.sync or barrier{.cta}.arrive using the same active barrier.
//    Execution in this case is unpredictable."
//  - `named_count_mismatch`, an arrive whose thread count differs from the
//    instance's in progress: no ISA sentence says so; the nearest is "Different
//    warps may execute different forms of the barrier{.cta} instruction using the
//    same barrier name and thread count". The H200 faults (illegal instruction) in
//    every launch whose warps give bar.sync 1 different counts (harness test
//    barrier_letter Q1: 64/96/96, 96/64/64, 96/64/64/64). Also more threads than the count: "Care
//    must be taken to keep a warp from executing more barrier{.cta} instructions
//    than intended ... prior to the reset of the barrier."
[[nodiscard]] Result arrive(State s, const ArriveArgs& a);

// The arrival of `warps` warps of one agent (a warp group, a role of W
// warps), `a.threads` threads in all. The barrier counts threads ("Operand b
// specifies the number of threads participating in the barrier.") and each
// warp's arrive is its own, its threads arriving together (PTX ISA, "bar,
// barrier": "barrier{.cta} instruction causes executing thread to wait for all
// non-exited threads from its warp and marks warps' arrival at barrier."); the
// completed instance "is reinitialized so that it can be immediately reused".
// Where the warps fit in the instance in progress, this is one arrive of
// their total (no warp but the last can complete it: the order of the
// others changes nothing). Where they do not, the warps up to the one that
// completes the instance arrive (`warps` of the result); the others arrive
// on the next instance, in a later step (docs/spec.md, "Per-warp named
// barrier arrivals"). bar.red is one arrive of the agent's threads (its
// result is the instance's, one per agent): not split. Hardware test
// named_warp_instances (harnesses/conformance, docs/conformance/
// h200-2026-12-03-named-warps.md): four warps on bar.sync 1, 64, two of them
// late, form two instances on the H200; the early pair passes first in
// every block.
struct WarpsResult {
  State next;
  Outcome out;
  int warps = 0;  // the warps that arrived (0 where the arrive failed)
};
[[nodiscard]] WarpsResult arrive_warps(State s, const ArriveArgs& a, int warps);

// A thread group of the CTA exited: an instance without count in progress
// completes when every thread still live has arrived (`live`). PTX ISA, exit:
// "As threads exit, barriers waiting on all threads are checked to see if the
// exiting threads are the only threads that have not yet made it to a
// barrier{.cta} for all threads in the CTA ... If the exiting threads are
// holding up the barrier, the barrier is released."
[[nodiscard]] Result on_exit(State s, int live);

// The waiting part of bar.sync / bar.red: enabled once the instance the thread
// joined (`joined` = the observed value of arrive) has completed (PTX ISA, "bar,
// barrier": "the barrier{.cta}.red and barrier{.cta}.sync instructions causes
// executing thread to wait for non-exited threads of all other warps participating
// in the barrier to arrive"). For bar.red the observed value is the reduction
// result, computed over the agent's threads ("Once the barrier count is reached,
// the final value is written to the destination register in all threads waiting
// at the barrier.").
[[nodiscard]] Outcome wait(const State& s, std::uint32_t joined, Red red, int threads);

}  // namespace pc::spec::named
