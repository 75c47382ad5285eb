// Happens-before over shared memory, bounded: per buffer, the last write and
// the last read of each thread since it, each with the set of threads known to
// be ordered after it. Sources: PTX ISA "Memory Consistency Model" (release and
// acquire patterns, morally strong operations, "Proxies", "Causality order"),
// and PTX ISA membar/fence ("fence.proxy.async").
//
// A "thread" here is a lane class of an agent (the leader lane, the other
// lanes) or one of its async units (bulk copies, matrix ops): see Lane.
#pragma once

#include <compare>
#include <cstdint>
#include <vector>

#include "spec/violation.hpp"

namespace pc::spec::hb {

using Threads = std::uint64_t;  // one bit per thread: agent * lanes_per_agent + lane
using Syncs = std::uint64_t;    // one bit per synchronization object

// The lane classes of one agent (a warp or a warp group). `leader` is the
// elected lane that runs `one:` operations; `rest` stands for all other lanes.
// The others are the agent's async units, each the "thread" of what it
// accesses until a wait or a barrier completion orders it: bulk0/bulk1 the
// source reads of its TMA stores, mma0/mma1 the shared-memory reads of its
// wgmma/tcgen05 operations (async groups alternate between the two units of a
// kind, so that `wait_group 1` can retire the older group and keep the newer),
// cp_async the writes of its cp.async copies, tma the writes of its TMA loads.
enum class Lane : std::uint8_t { leader = 0, rest = 1, bulk0 = 2, bulk1 = 3, mma0 = 4, mma1 = 5, cp_async = 6, tma = 7 };
inline constexpr int lanes_per_agent = 8;
inline constexpr int max_agents = 64 / lanes_per_agent;
inline constexpr int max_syncs = 64;

[[nodiscard]] constexpr std::uint8_t thread_of(int agent, Lane l) {
  return static_cast<std::uint8_t>(agent * lanes_per_agent + static_cast<int>(l));
}
[[nodiscard]] constexpr Threads bit(std::uint8_t thread) { return Threads{1} << thread; }
[[nodiscard]] constexpr Threads lanes_of(int agent) {
  return bit(thread_of(agent, Lane::leader)) | bit(thread_of(agent, Lane::rest));
}

enum class Proxy : std::uint8_t { generic = 0, async = 1 };
enum class Kind : std::uint8_t { read = 0, write = 1 };

// One access event. `after` holds the threads ordered after it as seen by the
// generic proxy, `after_async` as seen by the async proxy (they differ for a
// generic write until a fence.proxy.async). `released` marks the sync objects
// into which a thread in `after` released it; `visible` the ones whose release
// has completed (a phase completion), so that an acquire of that object orders it.
struct Event {
  std::uint16_t buf = 0;
  bool write = false;
  std::uint8_t thread = 0;
  Proxy proxy = Proxy::generic;
  // The access was made by every lane of the agent, each on its own part of
  // the buffer: two such accesses of the same agent's lane classes do not
  // conflict with each other. A `one:` access (the leader on the buffer as a
  // whole) conflicts with the other lanes as with any thread.
  bool spread = false;
  Threads after = 0;
  Threads after_async = 0;
  Syncs released = 0, released_async = 0;
  Syncs visible = 0, visible_async = 0;
  auto operator<=>(const Event&) const = default;
};

// The writes and reads of each buffer not yet known to be ordered before a
// later write: at most one write and one read per thread and buffer (a
// thread's newer access subsumes its older one by program order). One flat
// list, sorted by (buffer, write, thread), so that a state copies in one piece.
struct Memory {
  int buffers = 0;
  std::vector<Event> events;
  auto operator<=>(const Memory&) const = default;
};

struct Check {
  Violation violation = Violation::none;
  std::uint8_t other_thread = 0;  // the thread of the conflicting earlier access
  bool other_was_write = false;
};

// An access to buffer `buf`. `issuer` is the thread whose knowledge decides the
// ordering (the thread that executes or issues the access); `actor` is the
// thread recorded as accessing (the issuer itself, or its async unit).
// Rules (docs/spec.md, "Data races and proxies"):
//  - conflicting accesses (one a write) must be ordered: issuer in `after`;
//  - an async-proxy access to a generic write needs the issuer in `after_async`
//    (PTX ISA "Proxies": a proxy fence is needed between proxies);
//  - async writes seen through an mbarrier wait need no proxy fence (PTX ISA,
//    cp.async.bulk: completion is signalled through the mbarrier's complete-tx).
[[nodiscard]] Check access(Memory& m, int buf, Kind k, Proxy p, std::uint8_t issuer, std::uint8_t actor,
                           bool spread = false);

// Records a write by `thread` without a conflict test: the initialisation of
// an mbarrier's memory, whose conflicts are the mbarrier rules' business.
void overwrite(Memory& m, int buf, std::uint8_t thread);

// The same conflict test as access() without recording anything.
[[nodiscard]] Check check_only(const Memory& m, int buf, Kind k, Proxy p, std::uint8_t issuer, bool spread = false);

// `thread` performs a release into sync object `sync`: everything it knows is
// attached to the object, to be made visible at the object's next completion.
void release(Memory& m, std::uint8_t thread, int sync);
// The write of `thread` (an async unit) to `buf` is released into `sync`: the
// complete-tx of a TMA load releases that copy's data and nothing else.
void release_write(Memory& m, int buf, std::uint8_t thread, int sync);
// The sync object completed a phase: what was released into it becomes visible.
void complete(Memory& m, int sync);
// `thread` performs an acquire on `sync` that observed its latest completion.
void acquire(Memory& m, std::uint8_t thread, int sync);
// Direct order from one thread to others (__syncwarp, the retirement of an
// async unit by wait_group): everything `from` knows, `to` knows.
void order(Memory& m, std::uint8_t from, Threads to);
// fence.proxy.async by `thread`: the generic writes it knows become known to the
// async proxy through it (PTX ISA, membar/fence: "fence.proxy.async").
// `first_buf`/`end_buf` restrict it to a range of buffers (fence.mbarrier_init
// orders only mbarrier initialisations); by default every buffer.
void proxy_fence(Memory& m, std::uint8_t thread, int first_buf = 0, int end_buf = -1);

}  // namespace pc::spec::hb
