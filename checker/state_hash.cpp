// The fingerprint of a state read from its fields (hash_state and its
// parts, for the search's incremental fingerprints), and hash_bytes.
#include "checker/state.hpp"

#include <cstddef>
#include <cstring>
#include <string_view>
#include <type_traits>

#include "checker/ir.hpp"
#include "checker/state_words.hpp"

namespace pc::check {

namespace {

using state_words::agent_words;
using state_words::load_word;

std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
  const __uint128_t r = static_cast<__uint128_t>(a) * b;
  return static_cast<std::uint64_t>(r) ^ static_cast<std::uint64_t>(r >> 64);
}

// Two lanes, each taking two words per multiplication, as wyhash does:
// mix(a ^ secret, b ^ lane).
struct Lanes {
  static constexpr std::uint64_t k0 = 0xA0761D6478BD642Full, k1 = 0xE7037ED1A0B428DBull, k2 = 0x8EBC6AF09C88C6E3ull;
  std::uint64_t h0, h1 = 0xC2B2AE3D27D4EB4Full;
  explicit Lanes(std::uint64_t seed) : h0(0x9E3779B97F4A7C15ull ^ seed) {}
  void block(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t d) {
    h0 = mix(a ^ k0, b ^ h0);
    h1 = mix(c ^ k1, d ^ h1);
  }
  [[nodiscard]] std::uint64_t finish() const { return mix(h0 ^ k2, h1 ^ k0); }
};

// Words taken one at a time, one multiplication each, into two chains in
// turn, so that consecutive multiplications do not wait for each other: for
// parts of a few words, read where they lie (no buffer, no block to fill).
struct Chains {
  std::uint64_t h0, h1;
  explicit Chains(std::uint64_t seed) : h0(seed), h1(Lanes::k2) {}
  void eat(std::uint64_t x) {
    const std::uint64_t h = mix(h0 ^ x, Lanes::k0);
    h0 = h1;
    h1 = h;
  }
  [[nodiscard]] std::uint64_t finish() const { return mix(h0 ^ Lanes::k1, h1 ^ Lanes::k2); }
};

}  // namespace

Owners::Owners(std::span<const int> base, int m) : var_base(base), phases(m) {
  // (Unmixed, index 1 would read as a flag of the first word flipped, and
  // two agents swapped with that flag flipped in both would hash alike: the
  // state test met one.) The parts' lengths are the kernel's: they enter the
  // fingerprint once, as hash_with_agents' seed (shape_seed).
  for (std::size_t a = 0; a < base.size(); ++a)
    seeds.push_back(mix(std::uint64_t{a} ^ Lanes::k1, std::uint64_t(static_cast<std::uint32_t>(m)) ^ Lanes::k2));
}

// The state's value laid out as words, every field at a fixed place within
// its part (no variable-length encoding, no branch per word), then hashed
// by two independent multiply-mix lanes, so that the multiplications
// overlap (docs/checker.md, "State storage"). Each agent's part is hashed
// apart (agent_hash) and enters as the sum of those hashes: the search
// hashes again only the part of the agent that moved.
namespace {

// Whether any word of the AgentState at q but its first is set (read as
// words, as has_rare does).
bool rare_words(const char* q) {
  return (load_word(q + 8) | load_word(q + 16) | load_word(q + 24) | load_word(q + 32) | load_word(q + 40) | load_word(q + 48)) != 0;
}

// Agent a's part: its AgentState, its variables [v0, v1), its phases seen
// [a * m, (a + 1) * m), from its seed. Inline into agent_hash and
// agent_hashes.
[[gnu::always_inline]] inline std::uint64_t hash_agent(const State& s, std::uint64_t seed, std::size_t a, std::size_t v0,
                                                       std::size_t v1, std::size_t m) {
  // One word per multiplication, read where it lies (a part is a few words:
  // no buffer, no block to fill), from the agent's seed.
  Chains h(seed);
  auto eat = [&h](std::uint64_t x) { h.eat(x); };
  // As in serialize, the rarer words follow only when one is set (a bit of
  // the unused field in the first word says so), so that most agents take
  // one word.
  const char* q = reinterpret_cast<const char*>(&s.agents[a]);
  const bool rare = rare_words(q);
  eat(load_word(q) | std::uint64_t{rare} << 48);
  if (rare)
    for (int k = 1; k < agent_words; ++k) eat(load_word(q + 8 * k));
  static_assert(std::has_unique_object_representations_v<std::int64_t> && std::has_unique_object_representations_v<std::uint32_t>);
  // The builtin variables (cta, instance, warp: each agent's first ones)
  // are left out: no step writes them (instantiate rejects a kernel that
  // would), so they are the same in every state of a kernel, and the seed
  // already tells the agents apart.
  const std::int64_t* v = s.vars.data();
  for (std::size_t k = v0 + ir::num_builtin_vars; k < v1; ++k) eat(static_cast<std::uint64_t>(v[k]));
  if (m != 0) {
    const std::uint32_t* l = s.last_seen.data() + a * m;
    std::size_t k = 0;
    for (; k + 1 < m; k += 2) eat(l[k] | std::uint64_t{l[k + 1]} << 32);
    if (k < m) eat(l[k]);
  }
  return h.finish();
}

}  // namespace

std::uint64_t agent_hash(const State& s, const Owners& o, int i) {
  const auto a = static_cast<std::size_t>(i);
  const auto [v0, v1] = o.vars_of(a, s.vars.size());
  return hash_agent(s, o.seeds[a], a, v0, v1, static_cast<std::size_t>(o.phases));
}

std::uint64_t agent_hashes(const State& s, const Owners& o, std::uint64_t* out) {
  const std::size_t n = s.agents.size(), m = static_cast<std::size_t>(o.phases);
  std::uint64_t sum = 0;
  for (std::size_t a = 0; a < n; ++a) {
    const auto [v0, v1] = o.vars_of(a, s.vars.size());
    const std::uint64_t h = hash_agent(s, o.seeds[a], a, v0, v1, m);
    if (out) out[a] = h;
    sum += h;
  }
  return sum;
}

namespace {
std::uint64_t two(std::size_t a, std::size_t b) { return a | std::uint64_t{static_cast<std::uint32_t>(b)} << 32; }
}  // namespace

std::uint64_t shape_seed(const State& s) {
  Chains h(Lanes::k2);
  h.eat(two(s.agents.size(), s.vars.size()));
  h.eat(two(s.last_seen.size(), s.mbars.size()));
  h.eat(two(s.named.size(), s.amd.size()));
  h.eat(two(s.tmem.size(), s.values.size()));
  return h.finish();
}

static_assert(Lanes::k1 == 0xE7037ED1A0B428DBull && Lanes::k2 == 0x8EBC6AF09C88C6E3ull, "fingerprint_of (state.hpp) mixes with these");

std::uint64_t hash_with_agents(const State& s, std::uint64_t agents, std::uint64_t shape) {
  return fingerprint_of(agents, shared_hash(s, shape));
}

std::uint64_t shared_hash(const State& s, std::uint64_t shape) {
  // Read field by field, one word per multiplication: most of these parts
  // are empty or a few words. The counts of the parts whose length varies
  // come first, then the elements; the words most kernels leave zero
  // follow only when one is set (a bit says so).
  Chains h(shape);
  auto eat = [&h](std::uint64_t x) { h.eat(x); };
  eat(two(s.pending.size(), s.mem.events.size()));
  const std::uint64_t clc = s.clc.queue | std::uint64_t{s.clc.requests} << 16 | std::uint64_t{s.clc.failed_seen} << 32;
  const std::uint64_t cluster = s.cluster.generation | std::uint64_t{s.cluster.arrived} << 32;
  const bool rare = (clc | cluster | s.cta_exited) != 0;
  eat(two(static_cast<std::uint32_t>(s.mem.buffers), rare));
  if (rare) {
    eat(clc);
    eat(cluster);
    eat(s.cta_exited);
  }
  // Raw bytes of a type whose every bit is part of its value (no padding),
  // as whole words, the last one zero-filled.
  auto eat_raw = [&](const auto& v) {
    static_assert(std::has_unique_object_representations_v<std::decay_t<decltype(v[0])>>);
    if (v.empty()) return;
    const char* q = reinterpret_cast<const char*>(v.data());
    const std::size_t len = sizeof(v[0]) * v.size();
    std::size_t i = 0;
    for (; i + 8 <= len; i += 8) eat(load_word(q + i));
    if (i == len) return;
    std::uint64_t last = 0;
    std::memcpy(&last, q + i, len - i);
    eat(last);
  };
  // An mbarrier's tx-count, zero outside a transaction, follows only when
  // it is not (bit 8 says so).
  static_assert(sizeof(spec::mbarrier::Status) == 1);
  for (const spec::mbarrier::State& m : s.mbars) {
    eat(static_cast<std::uint64_t>(m.status) | std::uint64_t{m.tx != 0} << 8 | std::uint64_t{m.phase} << 32);
    eat(static_cast<std::uint32_t>(m.expected) | std::uint64_t{static_cast<std::uint32_t>(m.pending)} << 32);
    if (m.tx != 0) eat(static_cast<std::uint32_t>(m.tx));
  }
  eat_raw(s.named);
  eat_raw(s.amd);
  for (const spec::tmem::Cta& t : s.tmem) {
    eat(t.used | std::uint64_t{t.allocated} << 16 | std::uint64_t{t.relinquished} << 48 |
        std::uint64_t{t.pair_which} << 56);
    eat(static_cast<std::uint64_t>(t.pair) | std::uint64_t{t.last_cols} << 8);
  }
  eat_raw(s.values);
  for (const Pending& e : s.pending) {
    eat(static_cast<std::uint64_t>(e.kind) | std::uint64_t{e.agent} << 8 | std::uint64_t{e.pc} << 16 | std::uint64_t{e.mbar} << 32 |
        std::uint64_t{e.group} << 48);
    eat(static_cast<std::uint32_t>(e.buf) | std::uint64_t{static_cast<std::uint32_t>(e.bytes)} << 32);
    eat(e.noinc | std::uint64_t{e.slot} << 8 | std::uint64_t{e.canceled} << 16);
  }
  if (s.mem.events.empty()) return h.finish();
  // The events, each as two blocks of the two lanes (so that the
  // multiplications overlap), read where they lie: its small fields in one
  // word, the low halves of its three thread masks, its four sync masks; the
  // high halves (threads 64 and up, which most kernels lack) in a third
  // block where one is set, a bit of the first word saying so; the masks of
  // a chain through a too-narrow release (released_weak, visible_weak) in a
  // block of their own where one is set, another bit saying so.
  static_assert(offsetof(spec::hb::Event, visible_async) + sizeof(spec::hb::Syncs) - offsetof(spec::hb::Event, released) == 32);
  Lanes lanes(h.finish());
  for (const spec::hb::Event& e : s.mem.events) {
    const bool high = ((e.after | e.after_async | e.after_weak) >> 64) != 0;
    const bool weak = (e.released_weak | e.visible_weak) != 0;
    lanes.block(e.buf | std::uint64_t{e.write} << 16 | std::uint64_t{e.atomic} << 17 | static_cast<std::uint64_t>(e.proxy) << 18 |
                    std::uint64_t{high} << 19 | std::uint64_t{weak} << 20 | std::uint64_t{e.thread} << 24 | std::uint64_t{e.spread} << 32 |
                    std::uint64_t{e.group} << 40 | std::uint64_t{e.mma} << 56,
                static_cast<std::uint64_t>(e.after), static_cast<std::uint64_t>(e.after_async),
                static_cast<std::uint64_t>(e.after_weak));
    lanes.block(e.released, e.released_async, e.visible, e.visible_async);
    if (high)
      lanes.block(static_cast<std::uint64_t>(e.after >> 64), static_cast<std::uint64_t>(e.after_async >> 64),
                  static_cast<std::uint64_t>(e.after_weak >> 64), 0);
    if (weak) lanes.block(e.released_weak, e.visible_weak, 0, 0);
  }
  return lanes.finish();
}

std::uint64_t hash_state(const State& s, const Owners& o) {
  return hash_with_agents(s, agent_hashes(s, o), shape_seed(s));
}

std::uint64_t hash_bytes(std::string_view bytes) {
  // Two independent multiply-mix lanes over 16-byte blocks (in the manner of
  // wyhash), so that the multiplications overlap; then both lanes are folded.
  auto mix = [](std::uint64_t a, std::uint64_t b) {
    const __uint128_t r = static_cast<__uint128_t>(a) * b;
    return static_cast<std::uint64_t>(r) ^ static_cast<std::uint64_t>(r >> 64);
  };
  constexpr std::uint64_t k0 = 0xA0761D6478BD642Full, k1 = 0xE7037ED1A0B428DBull, k2 = 0x8EBC6AF09C88C6E3ull;
  std::uint64_t h0 = 0x9E3779B97F4A7C15ull ^ bytes.size(), h1 = 0xC2B2AE3D27D4EB4Full;
  const char* p = bytes.data();
  std::size_t n = bytes.size();
  while (n >= 16) {
    std::uint64_t a, b;
    std::memcpy(&a, p, 8);
    std::memcpy(&b, p + 8, 8);
    h0 = mix(h0 ^ a, k0);
    h1 = mix(h1 ^ b, k1);
    p += 16;
    n -= 16;
  }
  std::uint64_t a = 0, b = 0;
  if (n > 8) {
    std::memcpy(&a, p, 8);
    std::memcpy(&b, p + 8, n - 8);
  } else if (n > 0) {
    std::memcpy(&a, p, n);
  }
  h0 = mix(h0 ^ a, k0);
  h1 = mix(h1 ^ b, k1);
  return mix(h0 ^ k2, h1 ^ k2);
}

}  // namespace pc::check
