#include "checker/state.hpp"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstring>
#include <type_traits>

namespace pc::check {
namespace {

// An agent is seven words with no padding: its common fields (pc, stage and
// the flags) in the first, the rarer ones in the other six.
static_assert(std::has_unique_object_representations_v<AgentState> && sizeof(AgentState) == 56);
static_assert(offsetof(AgentState, ticket) == 8 && offsetof(AgentState, wave) + offsetof(spec::amd::Wave, signaled) == 32);
constexpr int agent_words = 7;
void agent_words_of(const AgentState& a, std::uint64_t (&w)[agent_words]) { std::memcpy(w, &a, sizeof a); }

// Whether an agent has any of the rarer fields set (wave.signaled, a flag,
// aside): serialize and hash_state write them only then, after a flag bit
// that says so. Read as words: an OR of six, not of sixteen fields.
bool has_rare(const AgentState& a) {
  std::uint64_t w[agent_words];
  agent_words_of(a, w);
  return (w[1] | w[2] | w[3] | (w[4] & ~std::uint64_t{0xff}) | w[5] | w[6]) != 0;
}

// An agent's flags, and whether its rarer fields follow (bit 3: has_rare).
std::uint8_t flag_bits(const AgentState& a, bool rare) {
  return static_cast<std::uint8_t>(a.exited | (a.wgmma_fenced << 1) | (a.wave.signaled << 2) | (rare << 3) | (a.tc_synced << 4));
}

// Writes fields into a buffer sized up front: serialisation is on the hot path.
struct Writer {
  char* p;
  template <class T>
  void put(const T& v) {
    std::memcpy(p, &v, sizeof(T));
    p += sizeof(T);
  }
  void raw(const void* d, std::size_t n) {
    if (n == 0) return;
    std::memcpy(p, d, n);
    p += n;
  }
  // LEB128: small values (most counters, phases, variables) take one byte,
  // so states are short to hash. Zigzag for signed values.
  void var(std::uint64_t v) {
    while (v >= 0x80) {
      *p++ = static_cast<char>(v | 0x80);
      v >>= 7;
    }
    *p++ = static_cast<char>(v);
  }
  void svar(std::int64_t v) { var((static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63)); }
};

// An event's masks (three thread masks of 128 bits, four sync masks of 64)
// are mostly zero or a few low bytes. A presence byte says which are there
// (and whether a thread mask has a high half); each 64-bit word present is
// written in as many bytes as it needs (0 to 8), its length a nibble, two
// to a byte, ahead of the words: no branch per byte, as LEB128 would take.
constexpr int max_words = 10;
// At most: buffer (3), thread, flags, spread, group (3), presence, the
// lengths (5) and ten words of 8.
constexpr std::size_t event_bytes = 3 + 1 + 1 + 1 + 3 + 1 + 5 + max_words * 8;
// A word's write may run 7 bytes past its length: the bound leaves room.
constexpr std::size_t word_slack = 8;

int byte_length(std::uint64_t v) { return (std::bit_width(v) + 7) / 8; }

void put_event(Writer& w, const spec::hb::Event& e) {
  w.var(e.buf);
  w.put(e.thread);
  const bool extra = e.spread != 0 || e.group != 0;
  w.put(static_cast<std::uint8_t>(e.write | (static_cast<int>(e.proxy) << 1) | (extra << 2) | (e.atomic << 3)));
  if (extra) {
    w.put(e.spread);
    w.var(e.group);
  }
  const spec::hb::Threads threads[3] = {e.after, e.after_async, e.after_weak};
  const std::uint64_t syncs[4] = {e.released, e.released_async, e.visible, e.visible_async};
  const bool high = ((e.after | e.after_async | e.after_weak) >> 64) != 0;
  std::uint8_t present = static_cast<std::uint8_t>(high << 7);
  std::uint64_t words[max_words];
  int k = 0;
  for (int i = 0; i < 3; ++i) {
    if (threads[i] == 0) continue;
    present |= static_cast<std::uint8_t>(1 << i);
    words[k++] = static_cast<std::uint64_t>(threads[i]);
    if (high) words[k++] = static_cast<std::uint64_t>(threads[i] >> 64);
  }
  for (int i = 0; i < 4; ++i) {
    if (syncs[i] == 0) continue;
    present |= static_cast<std::uint8_t>(1 << (3 + i));
    words[k++] = syncs[i];
  }
  w.put(present);
  int len[max_words];
  for (int i = 0; i < k; ++i) len[i] = byte_length(words[i]);
  for (int i = 0; i < k; i += 2) *w.p++ = static_cast<char>(len[i] | (i + 1 < k ? len[i + 1] << 4 : 0));
  for (int i = 0; i < k; ++i) {
    std::memcpy(w.p, &words[i], 8);
    w.p += len[i];
  }
}

// Reads fields back in the order Writer wrote them.
struct Reader {
  const char* p;
  template <class T>
  void get(T& v) {
    std::memcpy(&v, p, sizeof(T));
    p += sizeof(T);
  }
  template <class T>
  T get() {
    T v;
    get(v);
    return v;
  }
  void raw(void* d, std::size_t n) {
    if (n == 0) return;
    std::memcpy(d, p, n);
    p += n;
  }
  std::uint64_t var() {
    std::uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      const auto b = static_cast<std::uint8_t>(*p++);
      v |= std::uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
  }
  std::int64_t svar() {
    const std::uint64_t u = var();
    return static_cast<std::int64_t>(u >> 1) ^ -static_cast<std::int64_t>(u & 1);
  }
};

void get_event(Reader& r, spec::hb::Event& e) {
  e.buf = static_cast<std::uint16_t>(r.var());
  r.get(e.thread);
  const auto bits = r.get<std::uint8_t>();
  e.write = bits & 1;
  e.proxy = static_cast<spec::hb::Proxy>((bits >> 1) & 1);
  e.atomic = (bits >> 3) & 1;
  e.spread = 0;
  e.group = 0;
  if ((bits >> 2) & 1) {
    r.get(e.spread);
    e.group = static_cast<std::uint16_t>(r.var());
  }
  const auto present = r.get<std::uint8_t>();
  const bool high = (present >> 7) & 1;
  // The words present: one per mask bit, one more per thread mask with a high half.
  constexpr std::uint8_t bits3[8] = {0, 1, 1, 2, 1, 2, 2, 3};
  const int k = bits3[present & 7] * (high ? 2 : 1) + bits3[(present >> 3) & 7] + ((present >> 6) & 1);
  int len[max_words];
  for (int i = 0; i < k; i += 2) {
    const auto b = static_cast<std::uint8_t>(*r.p++);
    len[i] = b & 15;
    if (i + 1 < k) len[i + 1] = b >> 4;
  }
  int at = 0;
  auto word = [&] {
    std::uint64_t v = 0;
    const int n = len[at++];
    for (int j = 0; j < n; ++j) v |= std::uint64_t(static_cast<std::uint8_t>(r.p[j])) << (8 * j);
    r.p += n;
    return v;
  };
  spec::hb::Threads* threads[3] = {&e.after, &e.after_async, &e.after_weak};
  std::uint64_t* syncs[4] = {&e.released, &e.released_async, &e.visible, &e.visible_async};
  for (int i = 0; i < 3; ++i) {
    *threads[i] = 0;
    if (!((present >> i) & 1)) continue;
    *threads[i] = word();
    if (high) *threads[i] |= static_cast<spec::hb::Threads>(word()) << 64;
  }
  for (int i = 0; i < 4; ++i) *syncs[i] = (present >> (3 + i)) & 1 ? word() : 0;
}

}  // namespace

void deserialize(const char* bytes, State& s, EventBytes* where) {
  Reader r{bytes};
  for (AgentState& a : s.agents) {
    r.get(a.pc);
    r.get(a.stage);
    const auto bits = r.get<std::uint8_t>();
    a.exited = bits & 1;
    a.wgmma_fenced = (bits >> 1) & 1;
    a.wave.signaled = (bits >> 2) & 1;
    a.tc_synced = (bits >> 4) & 1;
    if (!((bits >> 3) & 1)) {
      a.ticket = a.cluster_ticket = a.wave.lds_outstanding = a.wave.joined = 0;
      a.collectives = 0;
      a.wave.vm_issued = a.wave.vm_done = 0;
      a.bulk = a.mma = a.cp = Groups{};
      continue;
    }
    a.ticket = static_cast<std::uint32_t>(r.var());
    a.collectives = static_cast<std::uint16_t>(r.var());
    a.cluster_ticket = static_cast<std::uint32_t>(r.var());
    a.wave.lds_outstanding = static_cast<std::uint32_t>(r.var());
    a.wave.joined = static_cast<std::uint32_t>(r.var());
    a.wave.vm_issued = static_cast<std::uint16_t>(r.var());
    a.wave.vm_done = static_cast<std::uint16_t>(r.var());
    for (Groups* g : {&a.bulk, &a.mma, &a.cp}) {
      g->committed = static_cast<std::uint16_t>(r.var());
      g->issued = static_cast<std::uint16_t>(r.var());
      g->retired = static_cast<std::uint16_t>(r.var());
    }
  }
  if (r.get<std::uint8_t>()) {
    for (std::int64_t& v : s.vars) v = static_cast<std::int8_t>(*r.p++);
  } else {
    for (std::int64_t& v : s.vars) v = r.svar();
  }
  if (r.get<std::uint8_t>()) {
    for (std::uint32_t& v : s.last_seen) v = static_cast<std::uint8_t>(*r.p++);
  } else {
    for (std::uint32_t& v : s.last_seen) v = static_cast<std::uint32_t>(r.var());
  }
  for (spec::mbarrier::State& m : s.mbars) {
    r.get(m.status);
    m.phase = static_cast<std::uint32_t>(r.var());
    m.expected = static_cast<std::int32_t>(r.svar());
    m.pending = static_cast<std::int32_t>(r.svar());
    m.tx = static_cast<std::int32_t>(r.svar());
  }
  for (spec::named::State& n : s.named) {
    r.get(n.count);
    r.get(n.arrived);
    r.get(n.generation);
    r.get(n.acc_popc);
    r.get(n.acc_and);
    r.get(n.acc_or);
    r.get(n.last_popc);
    r.get(n.last_and);
    r.get(n.last_or);
    r.get(n.whole_cta);
    r.get(n.kind);
  }
  for (spec::amd::Barrier& b : s.amd) {
    r.get(b.waves);
    r.get(b.arrived);
    r.get(b.generation);
  }
  for (spec::tmem::Cta& t : s.tmem) {
    t.used = static_cast<std::uint16_t>(r.var());
    t.allocated = static_cast<std::uint32_t>(r.var());
    r.get(t.relinquished);
    std::uint8_t pair = 0;
    r.get(pair);
    t.pair = static_cast<spec::tmem::PairOp>(pair);
    r.get(t.pair_which);
    r.get(t.pair_done);
  }
  r.get(s.clc.queue);
  r.get(s.clc.requests);
  r.get(s.clc.failed);
  for (std::uint8_t& v : s.clc_value) r.get(v);
  r.get(s.cluster.generation);
  r.get(s.cluster.arrived);
  s.pending.resize(r.get<std::uint32_t>());
  for (Pending& p : s.pending) {
    r.get(p.kind);
    r.get(p.agent);
    r.get(p.pc);
    r.get(p.mbar);
    r.get(p.buf);
    r.get(p.bytes);
    r.get(p.noinc);
    r.get(p.group);
    r.get(p.slot);
    r.get(p.canceled);
  }
  s.mem.events.resize(r.get<std::uint32_t>());
  if (where) {
    where->bytes = bytes;
    where->at.resize(s.mem.events.size() + 1);
  }
  for (std::size_t i = 0; i < s.mem.events.size(); ++i) {
    if (where) where->at[i] = static_cast<std::uint32_t>(r.p - bytes);
    get_event(r, s.mem.events[i]);
  }
  if (where) where->at[s.mem.events.size()] = static_cast<std::uint32_t>(r.p - bytes);
  r.get(s.cta_exited);
}

namespace {

// The most bytes write_state can write for s.
std::size_t bound_of(const State& s) {
  return s.agents.size() * 66 + s.vars.size() * 10 + 1 + s.last_seen.size() * 5 + 1 + s.mbars.size() * 21 +
         s.named.size() * 26 + s.amd.size() * 8 + s.tmem.size() * 15 + 5 + s.clc_value.size() + 8 + 4 + s.pending.size() * 19 + 4 +
         s.mem.events.size() * event_bytes + 4 + word_slack;
}

// Writes s's bytes from `out` (room for bound_of(s)); returns their end.
char* write_state(const State& s, char* out, const State* like, const EventBytes* like_events) {
  Writer w{out};
  for (const AgentState& a : s.agents) {
    w.put(a.pc);
    w.put(a.stage);
    // Most agents of most kernels have none of the rarer fields: a flag bit
    // says whether they follow.
    const bool rare = has_rare(a);
    w.put(flag_bits(a, rare));
    if (!rare) continue;
    w.var(a.ticket);
    w.var(a.collectives);
    w.var(a.cluster_ticket);
    w.var(a.wave.lds_outstanding);
    w.var(a.wave.joined);
    w.var(a.wave.vm_issued);
    w.var(a.wave.vm_done);
    for (const Groups* g : {&a.bulk, &a.mma, &a.cp}) {
      w.var(g->committed);
      w.var(g->issued);
      w.var(g->retired);
    }
  }
  // Variables and observed phases are nearly always small: then one byte
  // each, copied without a branch per value (a flag byte says which form).
  const bool vars_small = std::all_of(s.vars.begin(), s.vars.end(), [](std::int64_t v) { return v >= -128 && v <= 127; });
  w.put(static_cast<std::uint8_t>(vars_small));
  if (vars_small) {
    for (std::int64_t v : s.vars) *w.p++ = static_cast<char>(static_cast<std::int8_t>(v));
  } else {
    for (std::int64_t v : s.vars) w.svar(v);
  }
  const bool seen_small = std::all_of(s.last_seen.begin(), s.last_seen.end(), [](std::uint32_t v) { return v <= 255; });
  w.put(static_cast<std::uint8_t>(seen_small));
  if (seen_small) {
    for (std::uint32_t v : s.last_seen) *w.p++ = static_cast<char>(static_cast<std::uint8_t>(v));
  } else {
    for (std::uint32_t v : s.last_seen) w.var(v);
  }
  for (const spec::mbarrier::State& m : s.mbars) {
    w.put(m.status);
    w.var(m.phase);
    w.svar(m.expected);
    w.svar(m.pending);
    w.svar(m.tx);
  }
  for (const spec::named::State& n : s.named) {
    w.put(n.count);
    w.put(n.arrived);
    w.put(n.generation);
    w.put(n.acc_popc);
    w.put(n.acc_and);
    w.put(n.acc_or);
    w.put(n.last_popc);
    w.put(n.last_and);
    w.put(n.last_or);
    w.put(n.whole_cta);
    w.put(n.kind);
  }
  for (const spec::amd::Barrier& b : s.amd) {
    w.put(b.waves);
    w.put(b.arrived);
    w.put(b.generation);
  }
  for (const spec::tmem::Cta& t : s.tmem) {
    w.var(t.used);
    w.var(t.allocated);
    w.put(t.relinquished);
    w.put(static_cast<std::uint8_t>(t.pair));
    w.put(t.pair_which);
    w.put(t.pair_done);
  }
  w.put(s.clc.queue);
  w.put(s.clc.requests);
  w.put(s.clc.failed);
  for (std::uint8_t v : s.clc_value) w.put(v);
  w.put(s.cluster.generation);
  w.put(s.cluster.arrived);
  w.put(static_cast<std::uint32_t>(s.pending.size()));
  for (const Pending& p : s.pending) {
    w.put(p.kind);
    w.put(p.agent);
    w.put(p.pc);
    w.put(p.mbar);
    w.put(p.buf);
    w.put(p.bytes);
    w.put(p.noinc);
    w.put(p.group);
    w.put(p.slot);
    w.put(p.canceled);
  }
  w.put(static_cast<std::uint32_t>(s.mem.events.size()));
  const std::vector<spec::hb::Event>& now = s.mem.events;
  // The events of `like` to copy from: at the same index, or (where a step
  // added or dropped events, which keep their order) at the same distance
  // from the end. An event not found there is encoded.
  const std::vector<spec::hb::Event>* was = like && like_events && like_events->bytes ? &like->mem.events : nullptr;
  const std::ptrdiff_t shift = was ? static_cast<std::ptrdiff_t>(now.size()) - static_cast<std::ptrdiff_t>(was->size()) : 0;
  auto copy_from = [&](std::ptrdiff_t j) {
    const auto from = like_events->at[static_cast<std::size_t>(j)], to = like_events->at[static_cast<std::size_t>(j) + 1];
    std::memcpy(w.p, like_events->bytes + from, to - from);
    w.p += to - from;
  };
  for (std::size_t i = 0; i < now.size(); ++i) {
    const spec::hb::Event& e = now[i];
    if (was) {
      const auto n = static_cast<std::ptrdiff_t>(was->size()), ii = static_cast<std::ptrdiff_t>(i);
      if (ii < n && (*was)[i] == e) {
        copy_from(ii);
        continue;
      }
      if (shift != 0 && ii - shift >= 0 && ii - shift < n && (*was)[static_cast<std::size_t>(ii - shift)] == e) {
        copy_from(ii - shift);
        continue;
      }
    }
    put_event(w, e);
  }
  w.put(s.cta_exited);
  return w.p;
}

}  // namespace

void serialize(const State& s, Bytes& out, const State* like, const EventBytes* like_events) {
  const std::size_t bound = bound_of(s);
  if (out.buf.size() < bound) out.buf.resize(bound);
  out.n = static_cast<std::size_t>(write_state(s, out.buf.data(), like, like_events) - out.buf.data());
}

namespace {

template <class T>
void copy_part(std::vector<T>& to, const std::vector<T>& from) {
  static_assert(std::is_trivially_copyable_v<T>);
  if (to.size() != from.size()) {
    to = from;
    return;
  }
  if (!from.empty()) std::memcpy(to.data(), from.data(), sizeof(T) * from.size());
}

}  // namespace

State& State::operator=(const State& o) {
  if (this == &o) return *this;
  // Every member of State is copied here: one added must be added here too.
  // (The size of State's members as they are today on a 64-bit target.)
  static_assert(sizeof(void*) != 8 || sizeof(State) == 272, "State changed: copy the new member in State::operator=");
  copy_part(agents, o.agents);
  copy_part(vars, o.vars);
  copy_part(last_seen, o.last_seen);
  copy_part(mbars, o.mbars);
  copy_part(named, o.named);
  cluster = o.cluster;
  copy_part(amd, o.amd);
  copy_part(tmem, o.tmem);
  clc = o.clc;
  copy_part(clc_value, o.clc_value);
  copy_part(pending, o.pending);
  mem.buffers = o.mem.buffers;
  copy_part(mem.events, o.mem.events);
  cta_exited = o.cta_exited;
  return *this;
}

void serialize(const State& s, std::string& out) {
  out.resize(bound_of(s));
  out.resize(static_cast<std::size_t>(write_state(s, out.data(), nullptr, nullptr) - out.data()));
}

namespace {

std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
  const __uint128_t r = static_cast<__uint128_t>(a) * b;
  return static_cast<std::uint64_t>(r) ^ static_cast<std::uint64_t>(r >> 64);
}

std::uint64_t load_word(const char* p) {
  std::uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
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
  // `n` bytes read as words, four at a time, the last block zero-filled.
  void bytes(const char* p, std::size_t n) {
    std::size_t i = 0;
    for (; i + 32 <= n; i += 32) block(load_word(p + i), load_word(p + i + 8), load_word(p + i + 16), load_word(p + i + 24));
    if (i == n) return;
    std::uint64_t t[4] = {0, 0, 0, 0};
    for (int j = 0; i < n; ++j, i += 8) {
      if (n - i >= 8) {
        t[j] = load_word(p + i);
        continue;
      }
      for (std::size_t b = 0; i + b < n; ++b) t[j] |= std::uint64_t{static_cast<unsigned char>(p[i + b])} << (8 * b);
    }
    block(t[0], t[1], t[2], t[3]);
  }
  [[nodiscard]] std::uint64_t finish() const { return mix(h0 ^ k2, h1 ^ k0); }
};

// Appends raw bytes of a type whose every bit is part of its value (no
// padding), as whole words (the last one zero-filled), after their count.
template <class T>
std::uint64_t* put_raw(std::uint64_t* p, const std::vector<T>& v) {
  static_assert(std::has_unique_object_representations_v<T>);
  *p++ = v.size();
  const std::size_t len = sizeof(T) * v.size();
  if (len == 0) return p;
  p[len / 8] = 0;
  std::memcpy(p, v.data(), len);
  return p + (len + 7) / 8;
}

}  // namespace

// The state's value laid out as words, every field at a fixed place within
// its part (no variable-length encoding, no branch per word), then hashed
// by two independent multiply-mix lanes, so that the multiplications
// overlap (docs/checker.md, "State storage").
std::uint64_t hash_state(const State& s, std::vector<std::uint64_t>& words) {
  // A bound without a division per part: every element takes at most a
  // word per four of its bytes (checked here), a raw part (put_raw) its
  // bytes rounded up to words; its count, the other counts and the scalar
  // words, and the rounding, take fewer than 24.
  static_assert(sizeof(AgentState) / 4 >= agent_words && sizeof(spec::mbarrier::State) / 4 >= 3 &&
                sizeof(spec::tmem::Cta) / 4 >= 2 && sizeof(Pending) / 4 >= 3 && sizeof(spec::hb::Event) / 4 >= 11);
  auto bytes_of = [](const auto& v) { return v.size() * sizeof(v[0]); };
  const std::size_t bound = (bytes_of(s.agents) + bytes_of(s.mbars) + bytes_of(s.named) + bytes_of(s.amd) + bytes_of(s.tmem) +
                             bytes_of(s.clc_value) + bytes_of(s.pending) + bytes_of(s.mem.events)) / 4 + 24;
  if (words.size() < bound) words.resize(bound);
  std::uint64_t* p = words.data();
  for (const AgentState& a : s.agents) {
    // As in serialize: the rarer words follow only when one is set (a bit of
    // the unused field in the first word says so), so that most agents take
    // one word.
    // Read in place, word by word: a copy of the whole agent first costs
    // more than the test.
    const char* q = reinterpret_cast<const char*>(&a);
    const std::uint64_t w0 = load_word(q);
    const bool rare = (load_word(q + 8) | load_word(q + 16) | load_word(q + 24) | load_word(q + 32) | load_word(q + 40) |
                       load_word(q + 48)) != 0;
    *p++ = w0 | std::uint64_t{rare} << 48;
    if (!rare) continue;
    std::memcpy(p, q + 8, (agent_words - 1) * 8);
    p += agent_words - 1;
  }
  // The variables and the phases seen are hashed where they lie (below),
  // after their lengths here.
  *p++ = s.vars.size();
  *p++ = s.last_seen.size();
  for (const spec::mbarrier::State& m : s.mbars) {
    *p++ = static_cast<std::uint64_t>(m.status) | std::uint64_t{m.phase} << 32;
    *p++ = static_cast<std::uint32_t>(m.expected) | std::uint64_t{static_cast<std::uint32_t>(m.pending)} << 32;
    *p++ = static_cast<std::uint32_t>(m.tx);
  }
  p = put_raw(p, s.named);
  p = put_raw(p, s.amd);
  *p++ = s.tmem.size();
  for (const spec::tmem::Cta& t : s.tmem) {
    *p++ = t.used | std::uint64_t{t.allocated} << 16 | std::uint64_t{t.relinquished} << 48 | std::uint64_t{t.pair_done} << 49 |
           std::uint64_t{t.pair_which} << 56;
    *p++ = static_cast<std::uint64_t>(t.pair);
  }
  *p++ = s.clc.queue | std::uint64_t{s.clc.requests} << 16 | std::uint64_t{s.clc.failed} << 32;
  p = put_raw(p, s.clc_value);
  *p++ = s.cluster.generation | std::uint64_t{s.cluster.arrived} << 32;
  *p++ = s.cta_exited | static_cast<std::uint64_t>(static_cast<std::uint32_t>(s.mem.buffers)) << 32;
  *p++ = s.pending.size();
  for (const Pending& e : s.pending) {
    *p++ = static_cast<std::uint64_t>(e.kind) | std::uint64_t{e.agent} << 8 | std::uint64_t{e.pc} << 16 | std::uint64_t{e.mbar} << 32 |
           std::uint64_t{e.group} << 48;
    *p++ = static_cast<std::uint32_t>(e.buf) | std::uint64_t{static_cast<std::uint32_t>(e.bytes)} << 32;
    *p++ = e.noinc | std::uint64_t{e.slot} << 8 | std::uint64_t{e.canceled} << 16;
  }
  *p++ = s.mem.events.size();
  // An event's ten mask words lie together from `after` to `visible_async`.
  static_assert(offsetof(spec::hb::Event, visible_async) + sizeof(spec::hb::Syncs) - offsetof(spec::hb::Event, after) == 80);
  for (const spec::hb::Event& e : s.mem.events) {
    *p++ = e.buf | std::uint64_t{e.write} << 16 | std::uint64_t{e.atomic} << 17 | static_cast<std::uint64_t>(e.proxy) << 18 |
           std::uint64_t{e.thread} << 24 | std::uint64_t{e.spread} << 32 | std::uint64_t{e.group} << 40;
    std::memcpy(p, &e.after, 80);
    p += 10;
  }
  const auto n = static_cast<std::size_t>(p - words.data());
  Lanes h(n);
  h.bytes(reinterpret_cast<const char*>(words.data()), n * 8);
  static_assert(std::has_unique_object_representations_v<std::int64_t> && std::has_unique_object_representations_v<std::uint32_t>);
  h.bytes(reinterpret_cast<const char*>(s.vars.data()), s.vars.size() * sizeof(std::int64_t));
  h.bytes(reinterpret_cast<const char*>(s.last_seen.data()), s.last_seen.size() * sizeof(std::uint32_t));
  return h.finish();
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
