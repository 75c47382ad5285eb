// Happens-before over shared memory, bounded: per buffer, the last write and
// the last read of each thread since it, each with the set of threads known to
// be ordered after it. Sources: PTX ISA "Memory Consistency Model" (release and
// acquire patterns, morally strong operations, scope, "Proxies", "Causality
// order"), PTX ISA membar/fence ("fence.proxy.async"), bar.warp.sync
// (`__syncwarp` orders the threads of one warp), and the async-group
// instructions (cp.async.bulk.wait_group: "wait ... by the executing thread").
//
// A "thread" here is a lane class of an agent or one of its async units (see
// AgentThreads): the elected lane of each warp, the other lanes of each warp
// (split by the lane masks of the agent's code), and the agent's TMA store
// reads, MMA reads, cp.async writes and TMA load writes.
#pragma once

#include <compare>
#include <cstdint>
#include <span>
#include <vector>

#include "spec/violation.hpp"

namespace pc::spec::hb {

__extension__ using Threads = unsigned __int128;  // one bit per thread (AgentThreads numbers them)
using Syncs = std::uint64_t;                      // one bit per synchronization object
inline constexpr int max_threads = 128;
inline constexpr int max_syncs = 64;

[[nodiscard]] constexpr Threads bit(std::uint8_t thread) { return Threads{1} << thread; }

// The async units of an agent, each the "thread" of what it accesses until a
// wait or a barrier completion orders it. Groups (bulk async-groups, wgmma
// groups, tcgen05 commits) are told apart by the group number an access
// carries, so any number of groups may be in flight.
// `tmem`: the agent's tcgen05.ld / tcgen05.st, asynchronous until
// tcgen05.wait::ld / wait::st (PTX ISA tcgen05.ld, tcgen05.wait).
enum class Unit : std::uint8_t { bulk = 0, mma = 1, cp_async = 2, tma = 3, tmem = 4 };
inline constexpr int units = 5;

// The lane classes of a warp ("cells"): every lane of a cell executes the
// same operations, so the lanes of a cell know the same and one thread of
// happens-before stands for them all (an exact representation, no
// reduction: a cell's lanes have no operation of their own to order).
// Cell 0 is the elected lane (lane 0: `one:` and `each:` operations), the
// others split the warp's other lanes by the lane masks the agent's code
// names (`lanes M:`; `rest:` alone leaves one other cell, lanes 1-31).
inline constexpr int max_cells = 32;

// The threads of one agent of `warps` warps, numbered from `base`: per warp
// its `cells` lane classes (`leader(w)` the elected lane, the lane that runs
// `one:` operations in warp 0 and `each:` operations in every warp; `others(w)`
// its other lanes), then the units. `__syncwarp` orders the cells of one warp
// that execute it, nothing more. `cell_lanes[c]`: how many lanes cell c has.
// Every unit has a thread, unless the layout gives an agent only the units
// its code makes accesses by (check::Program, where a kernel needs more than
// max_threads otherwise): `unit_at[u]` is unit u's place after the lane
// classes, or no_unit, and unit(u) is then `spare`, a thread that makes no
// access (the step that would make one by it stops with an internal error):
// a thread with no access of its own orders nothing and races with nothing,
// so states that differ only in such threads' bits behave alike
// (tests/checker_units_layout_test.cpp compares the two layouts).
inline constexpr std::uint8_t no_unit = 0xff;
struct AgentThreads {
  std::uint8_t base = 0;
  std::uint8_t warps = 1;
  std::uint8_t cells = 2;
  std::uint8_t cell_lanes[max_cells] = {1, 31};
  std::uint8_t unit_at[units] = {0, 1, 2, 3, 4};
  std::uint8_t unit_count = units;
  std::uint8_t spare = 0;
  [[nodiscard]] constexpr int count() const { return cells * warps + unit_count; }
  [[nodiscard]] constexpr std::uint8_t cell(int w, int c) const { return static_cast<std::uint8_t>(base + cells * w + c); }
  [[nodiscard]] constexpr std::uint8_t leader(int w = 0) const { return cell(w, 0); }
  // Warp w's lane classes: all of them, and all but the elected lane's.
  [[nodiscard]] constexpr Threads warp_lanes(int w) const { return ((Threads{1} << cells) - 1) << cell(w, 0); }
  [[nodiscard]] constexpr Threads others(int w = 0) const { return warp_lanes(w) & ~bit(leader(w)); }
  [[nodiscard]] constexpr bool has_unit(Unit u) const { return unit_at[static_cast<int>(u)] != no_unit; }
  [[nodiscard]] constexpr std::uint8_t unit(Unit u) const {
    return has_unit(u) ? static_cast<std::uint8_t>(base + cells * warps + unit_at[static_cast<int>(u)]) : spare;
  }
  [[nodiscard]] constexpr Threads leaders() const {
    Threads t = 0;
    for (int w = 0; w < warps; ++w) t |= bit(leader(w));
    return t;
  }
  [[nodiscard]] constexpr Threads lanes() const {
    Threads t = 0;
    for (int w = 0; w < warps; ++w) t |= warp_lanes(w);
    return t;
  }
  // The units whose accesses, made for several warps, are each warp's own
  // (Quorum::per_warp_units): tcgen05.ld/st and cp.async, where the agent
  // has more than one warp.
  [[nodiscard]] constexpr Threads per_warp_units() const {
    return warps > 1 ? bit(unit(Unit::tmem)) | bit(unit(Unit::cp_async)) : Threads{0};
  }
  [[nodiscard]] constexpr bool owns(std::uint8_t t) const { return t >= base && t < base + count(); }
  [[nodiscard]] constexpr bool is_lane(std::uint8_t t) const { return t >= base && t < base + cells * warps; }
};

enum class Proxy : std::uint8_t { generic = 0, async = 1 };
enum class Kind : std::uint8_t { read = 0, write = 1 };

// One access event. `after` holds the threads ordered after it as seen by the
// generic proxy, `after_async` as seen by the async proxy (they differ for a
// generic write until a fence.proxy.async). `released` marks the sync objects
// into which a thread in `after` released it; `visible` the ones whose release
// has completed (a phase completion), so that an acquire of that object orders
// it. `after_weak` holds the threads that acquired it through a release and an
// acquire that are not morally strong (a scope too narrow), directly or
// through a chain of synchronisations with such an edge in it: not ordered,
// and a race with them is reported as the scope's (scope_race, scope_war), as
// the direct case is (docs/spec.md, "Stances": one stance per edge). Its
// threads are never in `after` (a thread ordered after the event through some
// other path is ordered). `released_weak` and `visible_weak` carry it as
// `released` and `visible` carry `after`: into the objects the threads of
// `after_weak` released into, and visible at their completion, so that their
// acquirers are `after_weak` in turn.
//
// Tensor memory has no async proxy (every access of it is a tcgen05
// instruction's, made in the generic proxy of the model), so for an event of
// a tensor-memory buffer `after_async` (and `released_async`,
// `visible_async`) carries the tcgen05 ordering of the ISA's fences instead
// (PTX ISA, "Memory Consistency Model for 5th generation of TensorCore
// operations", "Specialized inter-thread synchronization"): the threads
// whose later asynchronous tcgen05 operations are ordered after the access
// through a tcgen05.fence::before_thread_sync, an execution ordering
// operation of any .sem and a tcgen05.fence::after_thread_sync (tc_fence,
// tc_release, tc_acquire). Only a pipelined consumer (Access::after_own_unit,
// a tcgen05.mma) is ordered by it alone; the others need `after`.
struct Event {
  std::uint16_t buf = 0;
  bool write = false;
  // A strong operation (an atomic read-modify-write, or a strong load or
  // store): two of them of the same buffer never conflict (red.async and
  // the model's atomics: at .cluster scope or wider, morally strong with
  // each other inside the cluster where they overlap completely).
  bool atomic = false;
  std::uint8_t thread = 0;
  Proxy proxy = Proxy::generic;
  // Non-zero for an access made by every lane of agent `spread - 1`, each on
  // its own part of the buffer: two such accesses by lane classes of that
  // agent do not conflict with each other. Never set for a `one:` access
  // (the leader on the buffer as a whole). For an async unit's access:
  // `warp_local` or 0 (below).
  std::uint8_t spread = 0;
  // An MMA unit's access of tensor memory: which part of its MMA it is
  // (spec::tmem::MmaPart: 0 none, a tcgen05.cp or shift; 1 the accumulator;
  // 2 an operand read), for the pipelined pairs (spec::tmem::pipelined).
  std::uint8_t mma = 0;
  // An async unit's access: the group it was issued in (1-based; 0: none).
  std::uint16_t group = 0;
  Threads after = 0;
  Threads after_async = 0;
  Threads after_weak = 0;
  Syncs released = 0, released_async = 0;
  Syncs visible = 0, visible_async = 0;
  Syncs released_weak = 0, visible_weak = 0;
  auto operator<=>(const Event&) const = default;
};

// The writes and reads of each buffer not yet known to be ordered before a
// later write: at most one write, one atomic and one read per thread and
// buffer (a thread's newer access subsumes its older one of that kind by
// program order; for an async unit, a newer group completes no earlier than
// an older one). One flat list, sorted by (buffer, write, atomic, thread), so
// that a state copies in one piece.
struct Memory {
  int buffers = 0;
  std::vector<Event> events;
  auto operator<=>(const Memory&) const = default;
};

struct Check {
  Violation violation = Violation::none;  // an error: the access is not recorded
  Violation warning = Violation::none;    // a warning kind (violation none): the access is recorded
  int other_buf = 0;              // the buffer of the conflicting earlier access (the access's own, or one of its aliases)
  std::uint8_t other_thread = 0;  // the thread of the conflicting earlier access
  std::uint8_t other_spread = 0;  // its Event::spread: non-zero for an access by every lane of an agent
  std::uint8_t issuer = 0;        // the thread of this access that conflicts
  bool other_was_write = false;
  Proxy other_proxy = Proxy::generic;
};

// What an access is: executed by the threads `issuers` (each on its own part
// when `spread` names their agent), recorded as their own accesses, or, when
// `unit` is set, as one access of that async unit in group `group` (the unit
// inherits what its issuers know when it is issued).
struct Access {
  int buf = 0;
  Kind kind = Kind::read;
  Proxy proxy = Proxy::generic;
  Threads issuers = 0;
  std::uint8_t spread = 0;
  int unit = -1;  // a thread number, or -1
  std::uint16_t group = 0;
  // A strong operation (kind write: an atomic read-modify-write or a
  // strong store; kind read: a strong load): it conflicts with plain
  // accesses, never with another atomic one of the same buffer (Event::atomic).
  bool atomic = false;
  // An async-proxy write that only overwrites (a TMA load's landing, a TMA
  // store's write of global memory, a cluster launch control response): it
  // reads nothing of what it overwrites. After another thread's generic
  // write that happens before it with no proxy fence between, it is the
  // `cross_proxy_waw` warning, not `proxy_race` (docs/spec.md, "Stances";
  // H100, harness test generic_write_then_tma_overwrite); after the issuing
  // thread's own write (program order only) it stays `proxy_race`. A
  // reduction (cp.reduce.async.bulk) reads its destination: not an overwrite.
  bool overwrite = false;
  // The unit's own earlier accesses are ordered before this one: a tcgen05.mma
  // after the same thread's tcgen05.mma or tcgen05.cp, which the ISA executes
  // in order ("Pipelined tcgen05 instructions"); and so is an earlier access
  // of tensor memory whose `after_async` (the tcgen05 ordering, Event) holds
  // the issuer: an MMA after another thread's tcgen05.cp or MMA, fenced on
  // both sides with a synchronization between ("Pipelined instructions,
  // different thread": "no explicit waiting mechanism is needed").
  bool after_own_unit = false;
  // The part of its MMA this access is (Event::mma; spec::tmem::MmaPart):
  // the pipelined pairs order a later MMA after an earlier tcgen05.cp or
  // shift, and after an earlier MMA only on the same accumulator.
  std::uint8_t mma = 0;
  // The buffers that share bytes with `buf` (overlapping byte ranges of one
  // allocation, checker/layout.hpp): their accesses conflict with this one
  // as accesses of `buf` do, except that lanes of one all-lane access are on
  // their own parts only within one buffer (the parts of two buffers laid
  // over each other need not line up).
  std::span<const std::uint16_t> aliases;
  // The aliases whose bytes all lie in `buf`'s: a write writes every byte
  // of them, so their earlier accesses (checked against it, hence ordered
  // before it) are retired with `buf`'s own, as a later access of the alias
  // conflicts with this write first (PTX ISA 8.2.1, "Overlap").
  std::span<const std::uint16_t> covered;
  // The issuing agent's units in AgentThreads::per_warp_units when the
  // issuers are some of its warps only (`one:`, `warp K:`): a `warp_local`
  // access of such a unit is not known to them, though its `after` holds
  // them, since each warp knows only the part its own lanes made and the
  // unit does not say which (a dealloc by warp 0 after every warp's
  // tcgen05.ld and tcgen05.wait::ld needs a barrier of the warps between).
  Threads partial_units = 0;
};

// The conflict rules (docs/spec.md, "Happens-before and proxies"), checked for
// each issuer against every earlier access of the buffer:
//  - conflicting accesses (one a write) by different threads must be ordered:
//    the issuer in the earlier access's `after`; else `data_race` (or
//    `scope_race` when only a scope kept them apart);
//  - an async-proxy access to a generic write needs the issuer in `after_async`,
//    also when the issuer made that write itself (PTX ISA "Proxies": a proxy
//    fence is needed between proxies); else `proxy_race`, or, for an
//    `overwrite` ordered after another thread's write in the generic proxy,
//    the `cross_proxy_waw` warning (H100, harness test
//    generic_write_then_tma_overwrite);
//  - an async-proxy write after generic reads, ordered but with no proxy fence:
//    `cross_proxy_war` (H100, harness test generic_read_then_tma_overwrite:
//    reads still in flight at the release return the new data), unless the
//    reads were consumed before the release that ordered them (`consume`);
//  - async writes seen through an mbarrier wait need no proxy fence (PTX ISA,
//    cp.async.bulk: completion is signalled through the mbarrier's complete-tx).
// The earlier accesses are those of the buffer and of its aliases: PTX ISA
// 8.2.1 "Overlap", "Two memory locations are said to overlap when the
// starting address of one location is within the range of bytes constituting
// the other location", and conflicting operations are overlapping ones.
// The first conflict is returned; `check_only` records nothing.
[[nodiscard]] Check check_only(const Memory& m, const Access& a);
[[nodiscard]] Check access(Memory& m, const Access& a);

// Records a write by `thread` without a conflict test: the initialisation of
// an mbarrier's memory, whose conflicts are the mbarrier rules' business.
// `known`: more threads ordered after that write (a collective's other
// participants: the two warps of a .cta_group::2 tcgen05.alloc, spec/tmem.hpp).
void overwrite(Memory& m, int buf, std::uint8_t thread, Threads known = 0);
// The threads `to` are ordered after the writes to `buf` by the threads
// `writers`: the second warp of a .cta_group::2 collective joins the
// allocation the first performed (spec/tmem.hpp, pair_issue).
void learn_write(Memory& m, int buf, Threads writers, Threads to);

// The threads `from` perform a release into sync object `sync`: everything
// they know is attached to the object, to be made visible at its next completion.
void release(Memory& m, Threads from, int sync);
// The units of one arrive instruction that arrive on a phase before the
// others (a part that completes the phase: spec::mbarrier::arrive_units):
// any `part` of its `units` units, so what they release is what every such
// part releases, the accesses known to more than `units - part` of them
// (docs/spec.md, "Per-thread arrivals"). `lanes`: the lane classes of
// `agent` that arrive. The units are warps (a warp knows what any of its
// arriving cells knows) unless `by_thread`, where each cell counts its lanes.
struct Quorum {
  Threads lanes = 0;
  AgentThreads agent;
  bool by_thread = false;
  int more_than = 0;
  // The agent's async units whose accesses are each warp's own, though one
  // unit thread makes them all: tcgen05.ld/st (each warp's lanes load their
  // own lane quarter; tcgen05.wait::ld waits for "all prior tcgen05.ld ...
  // issued by the executing thread") and cp.async (each thread's copies).
  // A wait by every warp's lanes orders the unit's accesses before all of
  // them, though a warp left out of the part may not have issued its own
  // yet: a part releases none of these units' accesses (the last part
  // releases them with everything).
  Threads per_warp_units = 0;
  [[nodiscard]] constexpr bool holds(Threads known) const {
    const Threads k = known & lanes;
    if (k == 0) return false;
    int n = 0;
    for (int w = 0; w < agent.warps; ++w) {
      if (!by_thread) {
        n += (k & agent.warp_lanes(w)) != 0;
        continue;
      }
      for (int c = 0; c < agent.cells; ++c)
        if (k & bit(agent.cell(w, c))) n += agent.cell_lanes[c];
    }
    return n > more_than;
  }
};
// A release by a part of an instruction's threads (Quorum): an access enters
// `sync` when the part surely holds a thread that knows it; an access of one
// of `per_warp_units` that is `warp_local` does not.
void release(Memory& m, const Quorum& q, int sync);

// An access of a unit in AgentThreads::per_warp_units that a wait by several
// warps ordered before all of them (tcgen05.wait::ld/st,
// tcgen05.fence::before_thread_sync, cp.async.wait_group): each warp knows
// only its own warp's, though the unit does not say which warp made it, so
// a release by some of the warps releases none of them (hb::Quorum) until a
// barrier all the agent's warps pass together shares them.
inline constexpr std::uint8_t warp_local = 0xff;
// Before `to` waits for `unit`'s accesses: those not yet ordered before
// every thread of `to` become warp_local.
void mark_warp_local(Memory& m, std::uint8_t unit, Threads to);
// A barrier that all of an agent's warps passed together: the warp_local
// accesses of its `units` that its lanes know are known to each of them.
void share_warp_local(Memory& m, Threads units, Threads lanes);
// Only what the threads `from` know of buffers first_buf..end_buf-1 (a
// fence.mbarrier_init releases the thread's prior inits and nothing else;
// fence.release.sync_restrict::shared::cta the CTA's shared memory), less the
// buffers marked in `skip` (tensor memory, which no .sync_restrict reaches).
void release_range(Memory& m, Threads from, int sync, int first_buf, int end_buf, std::span<const std::uint8_t> skip = {});
// What was released into `from_sync` is released into `to_sync` too: a
// release fence (into a sync object of its own) and a later relaxed arrive
// form a release pattern (PTX ISA, Memory Consistency Model).
void forward(Memory& m, int from_sync, int to_sync);
// The completion of async unit `unit`'s groups up to `group` (0: all) is
// released into `sync`: the unit's own accesses of those groups, and what the
// unit knows now, that is what its issuers knew when they issued its accesses,
// less the accesses of the threads `except` (the arriving thread's own: its
// arrive-on is ordered with the tracked async operations, "but not to those
// of any other instruction issued by the thread", PTX ISA, Memory
// Consistency Model). Called when a tcgen05.commit or cp.async.mbarrier.arrive
// is issued (PTX ISA: each tracks the async operations the thread initiated
// before it), into a sync object of the arrival's own, moved to the mbarrier
// when it lands.
void release_unit(Memory& m, std::uint8_t unit, std::uint16_t group, int sync, Threads except = 0);
// What was released into `from_sync` is released into `to_sync` instead, and
// `from_sync` is free again: an async arrival whose release was fixed when it
// was issued (into a sync object of its own) lands on its mbarrier.
void move(Memory& m, int from_sync, int to_sync);
// Sync objects free_sync + 1 .. end - 1 are numbered one lower, free_sync
// being free (nothing released into it, nothing sees it): a number is only
// a name, so the memory means what it meant. The checker keeps the sync
// objects an agent's async arrivals hold numbered by their issue, densely
// (checker/step.cpp, free_slot), so that the order in which they land does
// not name the same memory differently.
void renumber_down(Memory& m, int free_sync, int end);
// The write of async unit `thread` to `buf` is released into `sync`: the
// complete-tx of a TMA load releases that copy's data and nothing else.
void release_write(Memory& m, int buf, std::uint8_t thread, int sync);
// The same for the writes of each of the threads `writers`.
void release_writes(Memory& m, int buf, Threads writers, int sync);
// The read of async unit `thread` of `buf` is released into `sync`: a TMA
// load's read of its tensor map, complete when the copy completes
// (spec::sync_order::tma_load_lands).
void release_read(Memory& m, int buf, std::uint8_t thread, int sync);
// The sync object completed a phase: what was released into it becomes visible.
void complete(Memory& m, int sync);
// Each object of `syncs` completed (one barrier phase completes all its objects).
void complete_all(Memory& m, Syncs syncs);
// The threads `to` perform an acquire that observed the latest completion of
// the objects in `strong` (morally strong with the releases into them) and of
// those in `weak` (releases the acquire's scope does not reach: `after_weak`).
// What reached an object through a chain with a too-narrow edge in it
// (`visible_weak`) is `after_weak` for `to` whichever object it is.
void acquire(Memory& m, Threads to, Syncs strong, Syncs weak = 0);
// The same for the events of the buffers not marked in `skip` only: an
// acquire fence restricted to shared memory
// (fence.acquire.sync_restrict::shared::cluster; `skip`: tensor memory).
void acquire_except(Memory& m, Threads to, Syncs strong, std::span<const std::uint8_t> skip);
// Whether acquiring `syncs` would order some access before one of `to` that
// is not ordered before all of them yet (the acquire matters).
// `below`: only the events of buffers below it count (-1: every buffer).
[[nodiscard]] bool acquire_orders(const Memory& m, Threads to, Syncs syncs, int below = -1);
// Whether acquiring `syncs` would order some write before the threads `to`
// that none of them is ordered after yet (an acquire that only one of them
// needs is carried to the others by a barrier they then pass together),
// leaving out the buffers marked in `skip` (tensor memory, which the
// tcgen05 ordering covers).
[[nodiscard]] bool acquire_orders_write(const Memory& m, Threads to, Syncs syncs, std::span<const std::uint8_t> skip);
// An acquire that is not yet one: a relaxed wait observed the latest
// completion of the objects in `from`; what is visible through them now is
// recorded in sync object `to` (marked visible there), for a later acquire
// fence of the same thread to acquire from `to` (an acquire pattern).
void observe(Memory& m, Syncs from, int to);
// Direct order from one thread to others (__syncwarp): everything `from`
// knows, `to` knows.
void order(Memory& m, std::uint8_t from, Threads to);
// Every access made by one of the threads `by` is ordered before the threads
// `to`, in both proxies (griddepcontrol.wait: the prerequisite grid's memory
// operations "are performed and made visible to the current grid").
void order_accesses_of(Memory& m, Threads by, Threads to);
// The groups up to `group` of async unit `unit` have completed and the
// threads `to` waited for them (wait_group): their accesses are ordered before `to`.
// `reads_only`: only the reads (cp.async.bulk.wait_group.read).
void retire(Memory& m, std::uint8_t unit, std::uint16_t group, Threads to, bool reads_only = false);
// Every access of `kind` by async unit `unit` has completed and the threads
// `to` waited for it (tcgen05.wait::ld for the reads of tcgen05.ld,
// tcgen05.wait::st for the writes of tcgen05.st). Its accesses are tensor
// memory's, whose `after_async` is the tcgen05 ordering (Event): a wait
// leaves it to the tcgen05 fences (tc_fence).
void retire_kind(Memory& m, std::uint8_t unit, Kind kind, Threads to);
// The tcgen05 ordering across threads (Event: `after_async` of tensor-memory
// events), `tmem` flagging the tensor-memory buffers (one entry per buffer).
// tcgen05.fence::before_thread_sync by the threads `lanes` ("orders all the
// prior asynchronous tcgen05 operations with respect to the subsequent
// tcgen05 and the execution ordering operations"): the tensor-memory accesses
// they know, and those of the agent's MMA unit `unit` (its tcgen05.mma, .cp,
// .shift, issued by them and maybe still running), are ordered before their
// later execution ordering operations.
void tc_fence(Memory& m, Threads lanes, std::uint8_t unit, std::span<const std::uint8_t> tmem);
// A tcgen05.commit: it "implicitly performs" before_thread_sync for the
// tracked operations (PTX ISA, canonical patterns, "Non-pipelined
// instructions, same thread"): the MMA unit's own tensor-memory accesses of
// the groups up to `group` are ordered before its arrive-on.
void tc_fence_unit(Memory& m, std::uint8_t unit, std::uint16_t group, std::span<const std::uint8_t> tmem);
// An execution ordering operation that releases nothing (a .relaxed arrive)
// by the threads `lanes` into sync object `sync`: the tensor-memory accesses
// their tcgen05 fence ordered before it (and, of those, the ones they know
// complete, for every later tcgen05 operation).
void tc_release(Memory& m, Threads lanes, int sync, std::span<const std::uint8_t> tmem);
// The same by a part of an instruction's threads (Quorum).
void tc_release(Memory& m, const Quorum& q, int sync, std::span<const std::uint8_t> tmem);
// An execution ordering operation that acquires nothing (a .relaxed wait) by
// the threads `to`, that observed the latest completion of the objects in
// `syncs`: what a tcgen05 fence ordered before an arrive into them is
// ordered before `to`'s later tcgen05 operations (the after_thread_sync
// they issue next: its absence is the tcgen05_unfenced warning's business).
void tc_acquire(Memory& m, Threads to, Syncs syncs, std::span<const std::uint8_t> tmem);
// The threads `by` use the values their own earlier generic reads of `buf`
// loaded (an instruction that needs the loaded register: mma.sync on the
// fragments, a dependent store or compare): those reads have returned their
// values, so an async-proxy write ordered after them through a later release
// by one of `by` cannot reach them. Recorded as the reading thread knowing the
// read in the async proxy too (`after_async`, as a proxy fence of that read
// alone would), so a release before the use carries the read as in flight.
// The PTX ISA's letter asks for fence.proxy.async all the same ("Proxies");
// the stance follows the H100 (harness test generic_read_then_tma_overwrite,
// docs/conformance/findings.md: loads still queued at the barrier returned the
// TMA's new data in up to 99.95% of overwrites, never (0 of 3.9e7) when their
// values were used before the barrier, nor after fence.proxy.async).
void consume(Memory& m, int buf, Threads by);
// fence.proxy.async by the threads `by`: the generic accesses they know become
// known to the async proxy through them (PTX ISA, membar/fence).
// `first_buf`/`end_buf` restrict it to a range of buffers (fence.mbarrier_init
// orders only mbarrier initialisations); by default every buffer, less those
// marked in `skip` (the tensor maps, whose proxy is the tensormap proxy).
void proxy_fence(Memory& m, Threads by, int first_buf = 0, int end_buf = -1, std::span<const std::uint8_t> skip = {});
// The tensormap proxy (PTX ISA, "Proxies": a tensor map is read by
// cp.async.bulk.tensor through it). For an event of a tensor map (marked in
// `tmaps`), `after_async` holds the threads whose tensormap-proxy reads are
// ordered after it, and the bit of thread `mark` (the host's, no agent's)
// that a release proxy fence followed it: "A .release proxy fence can form a
// release sequence that synchronizes with an acquire sequence that contains
// a .acquire proxy fence" (membar/fence), so a reader needs both.
// fence.proxy.tensormap::generic.release by the threads `by`: the accesses
// of tensor maps they know are released to the tensormap proxy.
void tensormap_release(Memory& m, Threads by, std::span<const std::uint8_t> tmaps, std::uint8_t mark);
// fence.proxy.tensormap::generic.acquire [buf] by the threads `by`: the
// released accesses of tensor map `buf` they know are ordered before their
// later tensormap-proxy reads.
void tensormap_acquire(Memory& m, Threads by, int buf, std::uint8_t mark);

}  // namespace pc::spec::hb
