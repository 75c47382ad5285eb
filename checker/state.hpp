// The global state the explorer searches: every agent's control state, every
// spec/ object, the pending async events, and the happens-before memory.
#pragma once

#include <algorithm>
#include <compare>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
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
  std::uint8_t unused0 = 0;       // the unused fields are always zero: the type has no padding (state_hash.cpp hashes its words)
  std::uint8_t wgmma_regs = 0;    // the registers its threads accessed since its last wgmma.fence (spec::agent::regs_acc, regs_a), and a tcgen05.ld not yet waited for (regs_tmem_ld)
  std::uint32_t ticket = 0;       // the named-barrier instance joined (stage 1)
  std::uint16_t collectives = 0;  // a warp of a role split per warp: the warp-group wgmma operations it has joined
  std::uint16_t arrived = 0;      // threads of the arrive at pc that arrived: a part that completed a phase (the rest arrive next)
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
  std::uint16_t group = 0;   // tcgen05 arrive: the commit's group (the MMAs up to it); commits complete in order;
                             // TMA load: its tensor map's buffer + 1 (0: none)
  std::uint8_t slot = 0;     // tcgen05 / cp.async arrive, st.async: the sync object holding what it releases (Program::arrive_slot_first)
  // clc_response: each request leaves one event per destination CTA and
  // answer (`group` names the request); the first to land decides the
  // answer of all its destinations (step.cpp).
  bool canceled = false;
  auto operator<=>(const Pending&) const = default;
};

// Whether an event holds a sync object of its agent's arrival pool (`slot`).
[[nodiscard]] constexpr bool holds_slot(PendingKind k) {
  return k == PendingKind::tcgen05_arrive || k == PendingKind::cp_async_arrive || k == PendingKind::st_async;
}
// Event e as it is named after `landed` landed: an event of the same agent
// holding a later sync object holds the one below it (Stepper::free_slot).
[[nodiscard]] constexpr Pending after_landing(Pending e, const Pending& landed) {
  if (holds_slot(landed.kind) && holds_slot(e.kind) && e.agent == landed.agent && e.slot > landed.slot) --e.slot;
  return e;
}

// A part of a state whose length is fixed for a kernel (its agents, their
// variables, its barriers): a view of the state's one block of memory, so
// that a state copies with one memcpy (State). Indexed and iterated as a
// vector is; its length is set only by State::reshape.
template <class T>
class Part {
 public:
  [[nodiscard]] std::size_t size() const { return n_; }
  [[nodiscard]] bool empty() const { return n_ == 0; }
  T* data() { return p_; }
  const T* data() const { return p_; }
  T& operator[](std::size_t i) { return p_[i]; }
  const T& operator[](std::size_t i) const { return p_[i]; }
  T* begin() { return p_; }
  T* end() { return p_ + n_; }
  const T* begin() const { return p_; }
  const T* end() const { return p_ + n_; }
  T& back() { return p_[n_ - 1]; }
  const T& back() const { return p_[n_ - 1]; }
  friend bool operator==(const Part& a, const Part& b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }
  friend auto operator<=>(const Part& a, const Part& b) {
    return std::lexicographical_compare_three_way(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  friend struct State;
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

// The lengths of a state's fixed parts (State::reshape).
struct Shape {
  std::size_t agents = 0, vars = 0, last_seen = 0, mbars = 0, named = 0, amd = 0, tmem = 0, values = 0;
  auto operator<=>(const Shape&) const = default;
};

struct State {
  Part<AgentState> agents;
  // Each agent's variables (Program::var_base), and per agent and mbarrier
  // instance the phase it last observed (agent * mbarriers + instance); kept
  // outside AgentState so that an agent is a few words.
  Part<std::int64_t> vars;
  Part<std::uint32_t> last_seen;
  Part<spec::mbarrier::State> mbars;
  Part<spec::named::State> named;  // cta * named_used + slot
  spec::cluster::State cluster;
  Part<spec::amd::Barrier> amd;    // AMD workgroup barrier per CTA (empty for NVIDIA kernels)
  Part<spec::tmem::Cta> tmem;      // tensor-memory allocations per CTA (empty without `tmem` declarations)
  spec::clc::State clc;            // cluster launch control
  // Per buffer instance: the value the last write with a value stored there
  // (`one: write B value V`; a launch-control response: 1 if it says
  // canceled), 0 before any; empty in a kernel with neither.
  Part<std::int32_t> values;
  std::vector<Pending> pending;    // sorted
  spec::hb::Memory mem;
  std::uint32_t cta_exited = 0;    // bit per CTA whose agents have all exited

  State() = default;
  State(const State& o);
  State(State&& o) noexcept;
  State& operator=(State&& o) noexcept;
  // Memberwise, the fixed parts with one memcpy of their block where the
  // shapes are equal (the search copies a state of one kernel into a buffer
  // of that kernel, once per state expanded).
  State& operator=(const State& o);
  bool operator==(const State& o) const;
  std::strong_ordering operator<=>(const State& o) const;

  // Gives the fixed parts these lengths, each element its default value.
  void reshape(const Shape& sh);
  [[nodiscard]] Shape shape() const {
    return {agents.size(), vars.size(), last_seen.size(), mbars.size(), named.size(), amd.size(), tmem.size(), values.size()};
  }
  // A few free functions see the layout (state.cpp).
  friend void restore(State& t, const State& s, const struct Owners& o, int a);

 private:
  // The block holds the fixed parts in their order, each part's start
  // rounded up to a word; the bytes between parts are zero.
  void allocate(const Shape& sh);  // a zeroed block of this shape, the parts pointing into it (reshape fills defaults)
  void point(std::uint64_t* at);   // sets the parts' pointers into a block of this shape
  std::unique_ptr<std::uint64_t[]> block_;
  std::size_t words_ = 0;
  std::size_t owned_words_ = 0;  // the agents', the variables' and the phases seen: the block's first words
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

struct Owners;

// A compact byte encoding of the state: equal states, equal bytes. Each
// agent's part in turn (its AgentState, its variables but the builtins, its
// phases seen; `o` says which are whose), then the parts no agent owns. With
// `like` (a state and where its events lie in its bytes, still valid), each
// event equal to one of like's, at the same place or at the same place from
// the end, is copied from like's bytes: the result is the same.
void serialize(const State& s, const Owners& o, Bytes& out, const State* like = nullptr, const EventBytes* like_events = nullptr);
void serialize(const State& s, const Owners& o, std::string& out);
// Agent a's part of serialize's bytes alone, and the parts no agent owns
// alone (EventBytes::shared; `like` as in serialize): a state's bytes are
// its agents' parts in turn, then these.
void serialize_agent(const State& s, const Owners& o, std::size_t a, Bytes& out);
void serialize_shared(const State& s, Bytes& out, const State* like = nullptr, const EventBytes* like_events = nullptr);
// The inverse of serialize, into a state of the same kernel: its fixed-size
// parts (agents, variables, barriers) already have the kernel's sizes and
// its builtin variables (cta, instance, warp), which no step writes, the
// kernel's values (serialize leaves them out). `where`, if given, receives
// where each event lies in `bytes`.
void deserialize(const char* bytes, const Owners& o, State& s, EventBytes* where = nullptr);
// What agent_parts needs of a kernel's states, taken once from one of them:
// each agent's variables but the builtins, and the phases seen it keeps.
struct PartShape {
  PartShape(const State& s, const Owners& o);
  std::vector<std::uint32_t> vars;
  std::size_t phases = 0;
};
// Where each agent's part lies in a state's bytes, read without loading it:
// agent a's in [at[a], at[a + 1]) (room for the agents + 1), the parts no
// agent owns from at[agents].
void agent_parts(const char* bytes, const PartShape& shape, std::uint32_t* at);
// The bytes a kernel's tag (token.hpp) is taken from: s in the layout of
// the first encoding (every agent's AgentState, then every variable, then
// every phase seen, then the parts no agent owns), so that the tags, and
// the replay tokens that hold them, stay as they were.
[[nodiscard]] std::string tag_bytes(const State& s);
[[nodiscard]] std::uint64_t hash_bytes(std::string_view bytes);
// Which variables and phases seen are an agent's own (Program::var_base):
// agent i's variables are vars[var_base[i], var_base[i + 1]) (the last
// agent's run to the end), its phases last_seen[i * phases, (i + 1) * phases)
// (`phases`: Stepper::phases_kept, none in the search's states).
// An agent's part of a state is its AgentState with these.
struct Owners {
  Owners(std::span<const int> var_base, int phases);
  std::span<const int> var_base;
  int phases = 0;
  // Per agent, the seed of its hash (agent_hash): its index mixed, so that
  // parts swapped between agents differ.
  std::vector<std::uint64_t> seeds;
  // Agent i's variables: [first, second) of a state with `nvars` in all.
  [[nodiscard]] std::pair<std::size_t, std::size_t> vars_of(std::size_t i, std::size_t nvars) const {
    return {static_cast<std::size_t>(var_base[i]), i + 1 < var_base.size() ? static_cast<std::size_t>(var_base[i + 1]) : nvars};
  }
};

// Makes t equal to s again where t is s after a step of agent a (-1: of no
// agent, an async event's): a's part and every part no agent owns are
// copied back, the other agents' parts (most of a state) are left as they
// are. The search steps each action from s in one buffer so (successors.hpp).
void restore(State& t, const State& s, const Owners& o, int a);

// A 64-bit hash of the state's value read from its fields, without
// serialising it (equal states, equal hashes): the search's fingerprint, so
// that only a state found new is serialised (docs/checker.md, "State
// storage").
//
// It is hash_with_agents(s, sum of agent_hash(s, o, i) over the agents,
// shape_seed(s)):
// a step of agent a writes no other agent's part (step.cpp), so the search
// finds a successor's fingerprint from its parent's agent hashes with a's
// alone hashed again (successors.hpp).
[[nodiscard]] std::uint64_t hash_state(const State& s, const Owners& o);
// The hash of agent i's part, its index included.
[[nodiscard]] std::uint64_t agent_hash(const State& s, const Owners& o, int i);
// Every agent's agent_hash, into out[0, agents) unless out is null; returns
// their sum.
std::uint64_t agent_hashes(const State& s, const Owners& o, std::uint64_t* out = nullptr);
// The lengths of s's fixed parts (State::shape) hashed: the same for every
// state of a kernel, so that a search takes it once.
[[nodiscard]] std::uint64_t shape_seed(const State& s);
// The fingerprint of s given the sum of its agents' hashes and its
// shape_seed: fingerprint_of(agents, shared_hash(s, shape)).
[[nodiscard]] std::uint64_t hash_with_agents(const State& s, std::uint64_t agents, std::uint64_t shape);
// The hash of the parts of s no agent owns (the barriers, the async events,
// the memory), from its shape_seed.
[[nodiscard]] std::uint64_t shared_hash(const State& s, std::uint64_t shape);
// A fingerprint from the sum of a state's agent hashes and its shared_hash:
// a step of agent a changes only a's hash and the shared one, so the search
// finds a successor's fingerprint from those two (StepCache).
// (Inline: the search takes one per transition.)
[[nodiscard]] inline std::uint64_t fingerprint_of(std::uint64_t agents, std::uint64_t shared) {
  const __uint128_t r = static_cast<__uint128_t>(agents ^ 0xE7037ED1A0B428DBull) * (shared ^ 0x8EBC6AF09C88C6E3ull);
  return static_cast<std::uint64_t>(r) ^ static_cast<std::uint64_t>(r >> 64);
}

}  // namespace pc::check
