// AMD workgroup barriers: s_barrier with the s_waitcnt it needs for LDS, and the
// gfx12 split barrier (s_barrier_signal / s_barrier_wait). Pure functions, as in
// spec/mbarrier.hpp. Sources:
//  - AMD "CDNA3 Instruction Set Architecture", S_BARRIER ("synchronize waves
//    within a threadgroup") and S_WAITCNT (LGKM_CNT counts outstanding LDS,
//    GDS, constant and message instructions; the wave waits until the count is
//    at or below the operand);
//  - AMD "RDNA4 Instruction Set Architecture" (gfx12), S_BARRIER_SIGNAL,
//    S_BARRIER_WAIT and S_WAIT_DSCNT (DS_CNT, the LDS part of LGKM_CNT);
//  - LLVM "AMDGPU Execution Synchronization": "Barriers only synchronize
//    execution and do not affect the visibility of memory operations between
//    threads"; LLVM "AMDGPUUsage", memory model: a workgroup release before a
//    barrier is an s_waitcnt lgkmcnt(0) (gfx12: s_wait_dscnt 0).
// The software mbarrier that TLX builds in LDS is spec/sw_mbarrier.hpp.
#pragma once

#include <compare>
#include <cstdint>

#include "spec/outcome.hpp"

namespace pc::spec::amd {

// One wave's view. LDS instructions complete asynchronously; the wave's
// LGKM counter (gfx12: DS counter) counts those issued and not yet complete.
struct Wave {
  std::uint32_t lds_outstanding = 0;
  bool signaled = false;       // signalled the barrier and has not waited yet
  std::uint32_t joined = 0;    // generation of the instance it signalled
  auto operator<=>(const Wave&) const = default;
};

// The workgroup barrier (s_barrier, and on gfx12 the workgroup barrier -1 of
// s_barrier_signal/s_barrier_wait).
struct Barrier {
  std::uint16_t waves = 0;       // waves still alive in the workgroup: those the barrier waits for
  std::uint16_t arrived = 0;     // waves that signalled the instance in progress
  std::uint32_t generation = 0;  // completed instances
  auto operator<=>(const Barrier&) const = default;
};

struct Result {
  Barrier barrier;
  Wave wave;
  Outcome out;  // observed: the generation joined (signal) or 0
};

[[nodiscard]] Barrier make_barrier(std::uint16_t waves);

// An LDS instruction (ds_read, ds_write, ds atomics) issued: LGKM_CNT += 1.
[[nodiscard]] Wave lds_issue(Wave w);
// The oldest outstanding LDS instruction completes (LDS returns in order, so
// the counter alone describes which ones are done). Blocked when none is outstanding.
[[nodiscard]] Outcome lds_complete_enabled(const Wave& w);
[[nodiscard]] Wave lds_complete(Wave w);

// s_waitcnt lgkmcnt(n) (gfx12: s_wait_dscnt n): enabled once at most n LDS
// instructions are outstanding.
[[nodiscard]] Outcome waitcnt_lgkm(const Wave& w, std::uint32_t n);

// The signal half of a barrier: s_barrier_signal -1 on gfx12, and the arrival
// part of s_barrier on every target. The barrier does not wait for the wave's
// LDS instructions, so any still outstanding may be unfinished when other waves
// pass the barrier: amd_missing_waitcnt (they must be waited for with
// s_waitcnt lgkmcnt(0) first). A second signal before the wave's wait is
// split_barrier_misuse: the model gives one wave one arrival per instance.
[[nodiscard]] Result signal(Barrier b, Wave w);

// The wait half: s_barrier_wait -1 on gfx12, the waiting part of s_barrier.
// A wait with no signal before it is split_barrier_misuse; otherwise it is
// enabled once the instance the wave joined has completed.
[[nodiscard]] Result wait(Barrier b, Wave w);

// s_barrier: signal, then wait, as one instruction. The explorer runs it as
// signal() followed by wait() of the same wave, which blocks in between.
[[nodiscard]] Result s_barrier_arrive(Barrier b, Wave w);

// A wave ends (s_endpgm). "If some waves in the threadgroup have already
// terminated, this waits on only the surviving waves" (CDNA3 ISA, S_BARRIER):
// the barrier expects one wave fewer, which may complete the instance in progress.
[[nodiscard]] Barrier wave_exit(Barrier b, const Wave& w);

}  // namespace pc::spec::amd
