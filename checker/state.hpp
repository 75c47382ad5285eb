// The global state the explorer searches: every agent's control state, every
// spec/ object, the pending async events, and the happens-before memory.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "spec/amd.hpp"
#include "spec/async_group.hpp"
#include "spec/clc.hpp"
#include "spec/cluster.hpp"
#include "spec/hb.hpp"
#include "spec/mbarrier.hpp"
#include "spec/named_barrier.hpp"
#include "spec/tmem.hpp"

namespace pc::check {

using spec::async_group::Groups;

struct AgentState {
  std::uint16_t pc = 0;
  std::uint8_t stage = 0;         // 1: a bar.sync/bar.red/cluster_sync has arrived and now waits
  bool exited = false;
  bool wgmma_fenced = false;      // a wgmma.fence before the agent's first wgmma
  bool tc_synced = false;         // a thread synchronization since the last tcgen05.fence::after_thread_sync
  std::uint16_t unused0 = 0;      // the unused fields are always zero: the type has no padding (state.cpp hashes its words)
  std::uint32_t ticket = 0;       // the named-barrier instance joined (stage 1)
  std::uint16_t collectives = 0;  // a warp of a role split per warp: the warp-group wgmma operations it has joined
  std::uint16_t unused1 = 0;
  spec::cluster::Ticket cluster_ticket = 0;
  spec::amd::Wave wave;           // AMD: LDS counter and split-barrier signal
  Groups bulk;                    // bulk async-groups of the leader lane (the thread that issues TMA stores)
  Groups mma;                     // wgmma groups, or the tcgen05 operations grouped by tcgen05.commit
  Groups cp;                      // cp.async-groups (non-bulk cp.async; the same lanes issue, commit and wait them)
  std::uint16_t unused2 = 0;
  auto operator<=>(const AgentState&) const = default;
};

// st_async: an st.async or a red.async (the issuing instruction tells them apart).
enum class PendingKind : std::uint8_t { tma_load, tcgen05_arrive, cp_async_arrive, clc_response, st_async };

// An issued async operation that completes at some later point.
struct Pending {
  PendingKind kind = PendingKind::tma_load;
  std::uint8_t agent = 0;    // issuer
  std::uint16_t pc = 0;      // issuing instruction (for traces)
  std::uint16_t mbar = 0;    // barrier instance it completes on
  std::int32_t buf = -1;     // TMA load destination buffer instance
  std::int32_t bytes = 0;
  bool noinc = false;
  std::uint16_t group = 0;   // tcgen05 arrive: the commit's group (the MMAs up to it); commits complete in order
  std::uint8_t slot = 0;     // tcgen05 / cp.async arrive, st.async: the sync object holding what it releases (Program::arrive_slot_first)
  // clc_response: each request leaves one event per destination CTA and
  // answer (`group` names the request); the first to land decides the
  // answer of all its destinations (step.cpp).
  bool canceled = false;
  auto operator<=>(const Pending&) const = default;
};

struct State {
  std::vector<AgentState> agents;
  // Each agent's variables (Program::var_base), and per agent and mbarrier
  // instance the phase it last observed (agent * mbarriers + instance); kept
  // outside AgentState so that a state copies in few pieces.
  std::vector<std::int64_t> vars;
  std::vector<std::uint32_t> last_seen;
  std::vector<spec::mbarrier::State> mbars;
  std::vector<spec::named::State> named;  // cta * named_used + slot
  spec::cluster::State cluster;
  std::vector<spec::amd::Barrier> amd;    // AMD workgroup barrier per CTA (empty for NVIDIA kernels)
  std::vector<spec::tmem::Cta> tmem;      // tensor-memory allocations per CTA (empty without `tmem` declarations)
  spec::clc::State clc;                   // cluster launch control
  std::vector<std::uint8_t> clc_value;    // per buffer instance: 1 if the last response written there says canceled (empty without clc_try_cancel)
  std::vector<Pending> pending;           // sorted
  spec::hb::Memory mem;
  std::uint32_t cta_exited = 0;           // bit per CTA whose agents have all exited

  State() = default;
  State(const State&) = default;
  State(State&&) = default;
  State& operator=(State&&) = default;
  // Memberwise, as the default would, but a part of the same length as
  // before (most of them: the search copies a state of one kernel into a
  // buffer of that kernel, once per transition) is copied with one memcpy,
  // and an empty one not at all (state.cpp).
  State& operator=(const State& o);
  auto operator<=>(const State&) const = default;
};

// Where each happens-before event of a state lies in its serialised bytes
// (event i in [at[i], at[i + 1]) of `bytes`): deserialize records it, so that
// serialising a successor copies the bytes of the events the step left as
// they were instead of encoding them again (0-5% of the search's time: a
// release or an acquire rewrites the masks of many events; docs/checker.md,
// "State storage").
struct EventBytes {
  const char* bytes = nullptr;
  std::vector<std::uint32_t> at;
};

// A serialised state: a buffer that only grows, so that serialising a state
// writes its bytes and nothing more (a std::string resized to the bound and
// back zero-filled the difference for every successor), and the length
// written.
struct Bytes {
  std::string buf;
  std::size_t n = 0;
  [[nodiscard]] const char* data() const { return buf.data(); }
  [[nodiscard]] std::size_t size() const { return n; }
  [[nodiscard]] std::string_view view() const { return {buf.data(), n}; }
};

// A compact byte encoding of the state: equal states, equal bytes. With
// `like` (a state and where its events lie in its bytes, still valid), each
// event equal to one of like's, at the same place or at the same place from
// the end, is copied from like's bytes: the result is the same.
void serialize(const State& s, Bytes& out, const State* like = nullptr, const EventBytes* like_events = nullptr);
void serialize(const State& s, std::string& out);
// The inverse of serialize, into a state whose fixed-size parts (agents,
// variables, barriers) already have the kernel's sizes; `where`, if given,
// receives where each event lies in `bytes`.
void deserialize(const char* bytes, State& s, EventBytes* where = nullptr);
[[nodiscard]] std::uint64_t hash_bytes(std::string_view bytes);
// A 64-bit hash of the state's value read from its fields, without
// serialising it (equal states, equal hashes): the search's fingerprint, so
// that only a state found new is serialised (docs/checker.md, "State
// storage"). `words` is scratch space, kept between calls.
[[nodiscard]] std::uint64_t hash_state(const State& s, std::vector<std::uint64_t>& words);

}  // namespace pc::check
