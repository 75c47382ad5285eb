// What each synchronizing operation does to happens-before: which sync object
// its release enters, which its acquire reads, what an async operation's
// completion releases. Each function is the choreography of one kind of
// operation over the primitives of spec/hb.hpp, next to the PTX ISA (or AMD
// ISA) sentence it follows; the explorer (checker/step/) resolves the
// operands and calls these, and decides nothing of its own.
#pragma once

#include <cstdint>

#include "spec/hb.hpp"

namespace pc::spec::sync_order {

// --- Barriers whose arrive and wait are one object ------------------------------

// An arrive at a barrier whose instance the waiters then pass: a named
// barrier (PTX ISA bar/barrier: "memory accesses requested by the threads
// prior to the barrier are performed relative to all threads participating
// in the barrier"), AMD's workgroup barrier (the LDS operations a wave
// completed before signalling are visible to the waves past the wait: AMD
// ISA, S_BARRIER), the cluster barrier's arrive unless .relaxed (PTX ISA
// barrier.cluster: "arrive ... has .release semantics by default"). The
// arriving lanes release into the barrier's sync object; the last arrival
// completes the instance.
// `pattern`: the sync object of the thread's release fence, whose release the
// arrive carries as a release pattern (PTX ISA, Memory Consistency Model: a
// release fence followed by a strong write), or -1.
inline void barrier_arrive(hb::Memory& m, hb::Threads lanes, int sync, bool releases, bool completes, int pattern = -1) {
  if (releases) hb::release(m, lanes, sync);
  if (pattern >= 0) hb::forward(m, pattern, sync);
  if (completes) hb::complete(m, sync);
}

// Passing the barrier's wait acquires what its completed instance released
// (bar.sync and barrier.cluster.wait: ".acquire" by default; s_barrier).
inline void barrier_pass(hb::Memory& m, hb::Threads lanes, int sync) { hb::acquire(m, lanes, hb::Syncs{1} << sync); }

// --- Async arrivals: released at the issue, landing later -----------------------

// cp.async.mbarrier.arrive: "the arrive-on operation ... is triggered ... after
// the completion of all prior cp.async operations initiated by the executing
// thread" (PTX ISA cp.async.mbarrier.arrive). The cp.async unit's copies are
// released now into the arrival's own sync object `slot`, moved to the
// mbarrier when it lands (arrival_lands).
inline void cp_async_arrive_issue(hb::Memory& m, std::uint8_t cp_async_unit, int slot) {
  hb::release_unit(m, cp_async_unit, 0, slot);
}

// tcgen05.commit: the mbarrier "tracks the completion of all prior async
// tcgen05 operations ... initiated by the executing thread" (PTX ISA
// tcgen05.commit): the MMA unit's groups up to the one this commit closes.
inline void tcgen05_commit_issue(hb::Memory& m, std::uint8_t mma_unit, std::uint16_t group, int slot) {
  hb::release_unit(m, mma_unit, group, slot);
}

// st.async / red.async: the store is a write of the agent's TMA unit in
// flight, and its complete-tx "has .release semantics at .cluster scope" (PTX
// ISA st.async, red.async): what the issuers know and the write itself are
// held in `slot` until it lands (spec/ordering.hpp, st_async_release_scope).
inline void st_async_issue(hb::Memory& m, hb::Threads issuers, int buf, std::uint8_t tma_unit, int slot) {
  hb::release(m, issuers, slot);
  hb::release_write(m, buf, tma_unit, slot);
}

// An async arrival (or st.async's complete-tx) lands on its mbarrier: what
// was held in `slot` enters the barrier's sync object `channel`.
inline void arrival_lands(hb::Memory& m, int slot, int channel) { hb::move(m, slot, channel); }

// A TMA load (or a launch-control response) lands: its complete-tx releases
// that copy's write and nothing else (PTX ISA cp.async.bulk: the mbarrier
// "complete-tx" of the bytes copied; the issuing thread's other accesses are
// not released by it).
inline void copy_lands(hb::Memory& m, int buf, std::uint8_t tma_unit, int sync) { hb::release_write(m, buf, tma_unit, sync); }

// An mbarrier phase completed: every sync object of the barrier (its scopes'
// channels) makes visible what was released into it (PTX ISA mbarrier:
// "phase completion").
inline void phase_completes(hb::Memory& m, hb::Syncs syncs) { hb::complete_all(m, syncs); }

}  // namespace pc::spec::sync_order
