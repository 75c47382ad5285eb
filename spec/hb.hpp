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
// `bulk` and `mma` are the agent's async units: what its TMA copies read and
// what its wgmma/tcgen05 operations read, until a wait retires them.
enum class Lane : std::uint8_t { leader = 0, rest = 1, bulk = 2, mma = 3 };
inline constexpr int lanes_per_agent = 4;
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
  std::uint8_t thread = 0;
  Proxy proxy = Proxy::generic;
  Threads after = 0;
  Threads after_async = 0;
  Syncs released = 0, released_async = 0;
  Syncs visible = 0, visible_async = 0;
  auto operator<=>(const Event&) const = default;
};

struct Buffer {
  bool has_write = false;
  Event write;
  std::vector<Event> reads;  // at most one per thread, sorted by thread
  auto operator<=>(const Buffer&) const = default;
};

struct Memory {
  std::vector<Buffer> buffers;
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
[[nodiscard]] Check access(Memory& m, int buf, Kind k, Proxy p, std::uint8_t issuer, std::uint8_t actor);

// The same conflict test as access() without recording anything.
[[nodiscard]] Check check_only(const Memory& m, int buf, Kind k, Proxy p, std::uint8_t issuer);

// `thread` performs a release into sync object `sync`: everything it knows is
// attached to the object, to be made visible at the object's next completion.
void release(Memory& m, std::uint8_t thread, int sync);
// One event (buffer's write) is released into `sync` by an async unit: the
// complete-tx of a TMA load.
void release_write(Memory& m, int buf, int sync);
// The sync object completed a phase: what was released into it becomes visible.
void complete(Memory& m, int sync);
// `thread` performs an acquire on `sync` that observed its latest completion.
void acquire(Memory& m, std::uint8_t thread, int sync);
// Direct order from one thread to others (__syncwarp, the retirement of an
// async unit by wait_group): everything `from` knows, `to` knows.
void order(Memory& m, std::uint8_t from, Threads to);
// fence.proxy.async by `thread`: the generic writes it knows become known to the
// async proxy through it (PTX ISA, membar/fence: "fence.proxy.async").
void proxy_fence(Memory& m, std::uint8_t thread);

}  // namespace pc::spec::hb
