// The byte encoding of a state (serialize, deserialize): what the queue
// stores, and what a kernel's tag is taken from.
#include "checker/state.hpp"

#include <bit>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "checker/ir.hpp"
#include "checker/state_words.hpp"

namespace pc::check {
namespace {

using state_words::agent_words;

void agent_words_of(const AgentState& a, std::uint64_t (&w)[agent_words]) { std::memcpy(w, &a, sizeof a); }

// Whether an agent has any of the rarer fields set (wave.signaled, a flag,
// aside): serialize and hash_state write them only then, after a flag bit
// that says so. Read as words: an OR of six, not of sixteen fields.
bool has_rare(const AgentState& a) {
  std::uint64_t w[agent_words];
  agent_words_of(a, w);
  return (w[1] | w[2] | w[3] | (w[4] & ~std::uint64_t{0xff}) | w[5] | w[6]) != 0;
}

// An agent's flags, whether its rarer fields follow (bit 3: has_rare), and
// whether a byte of wgmma registers follows the flags (bit 7: written only
// when some are unfenced, so that a state without any, the initial one
// among them, has the bytes it had before the field: the kernel tag).
std::uint8_t flag_bits(const AgentState& a, bool rare) {
  return static_cast<std::uint8_t>(a.exited | (a.wgmma_fenced << 1) | (a.wave.signaled << 2) | (rare << 3) | (a.tc_synced << 4) |
                                   ((a.wgmma_regs != 0) << 7));
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
// lengths (5), ten words of 8, and the two masks of a chain through a
// too-narrow release (released_weak, visible_weak: rare, so behind a flag
// bit, LEB128, 10 bytes each at most).
constexpr std::size_t event_bytes = 3 + 1 + 1 + 1 + 3 + 1 + 5 + max_words * 8 + 2 * 10;
// A word's write may run 7 bytes past its length: the bound leaves room.
constexpr std::size_t word_slack = 8;

int byte_length(std::uint64_t v) { return (std::bit_width(v) + 7) / 8; }

void put_event(Writer& w, const spec::hb::Event& e) {
  w.var(e.buf);
  w.put(e.thread);
  const bool extra = e.spread != 0 || e.group != 0;
  const bool weak = (e.released_weak | e.visible_weak) != 0;
  w.put(static_cast<std::uint8_t>(e.write | (static_cast<int>(e.proxy) << 1) | (extra << 2) | (e.atomic << 3) | (weak << 4) |
                                  (e.mma << 5)));
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
  // The lengths as nibbles, two to a byte (at most ten: five bytes, written
  // as a word within the event's bound), then the words.
  std::uint64_t nibbles = 0;
  for (int i = 0; i < k; ++i) nibbles |= static_cast<std::uint64_t>(byte_length(words[i])) << (4 * i);
  std::memcpy(w.p, &nibbles, 8);
  w.p += (k + 1) / 2;
  for (int i = 0; i < k; ++i) {
    std::memcpy(w.p, &words[i], 8);
    w.p += (nibbles >> (4 * i)) & 15;
  }
  if (weak) {
    w.var(e.released_weak);
    w.var(e.visible_weak);
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
  e.mma = static_cast<std::uint8_t>((bits >> 5) & 3);
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
  // Straight through the seven masks, each word's byte length taken from
  // the nibbles as they come (no array of lengths, no loop over pointers).
  // A word of n bytes read with one load of 8 (n > 4) or of 4 and masked:
  // the state's last field (cta_exited, 4 bytes) follows its events, so at
  // least n + 4 bytes lie from the word's start and neither load passes the
  // end; so too from the nibbles' start, which the first four (or, with
  // nine words or more, five nibble bytes and so eight) bytes are read from.
  static_assert(sizeof(State::cta_exited) == 4);
  constexpr std::uint64_t keep[9] = {0,           0xff,           0xffff,           0xffffff,          0xffffffff,
                                     0xffffffffff, 0xffffffffffff, 0xffffffffffffff, ~std::uint64_t{0}};
  std::uint64_t nibbles;
  if (k > 8) {
    std::memcpy(&nibbles, r.p, 8);
  } else {
    std::uint32_t u;
    std::memcpy(&u, r.p, 4);
    nibbles = u;
  }
  const char* p = r.p + (k + 1) / 2;
  auto word = [&] {
    const auto n = static_cast<int>(nibbles & 15);
    nibbles >>= 4;
    std::uint64_t v;
    if (n > 4) {
      std::memcpy(&v, p, 8);
    } else {
      std::uint32_t u;
      std::memcpy(&u, p, 4);
      v = u;
    }
    p += n;
    return v & keep[n];
  };
  auto thread_mask = [&](int i) -> spec::hb::Threads {
    if (!((present >> i) & 1)) return 0;
    const spec::hb::Threads low = word();
    return high ? low | static_cast<spec::hb::Threads>(word()) << 64 : low;
  };
  e.after = thread_mask(0);
  e.after_async = thread_mask(1);
  e.after_weak = thread_mask(2);
  e.released = present & (1 << 3) ? word() : 0;
  e.released_async = present & (1 << 4) ? word() : 0;
  e.visible = present & (1 << 5) ? word() : 0;
  e.visible_async = present & (1 << 6) ? word() : 0;
  r.p = p;
  const bool weak = (bits >> 4) & 1;
  e.released_weak = weak ? r.var() : 0;
  e.visible_weak = weak ? r.var() : 0;
}

}  // namespace

namespace {

// Agent a's part in the layout serialize writes (put_agent): its pc, stage
// and flags, the rarer fields behind a flag bit, its variables but the
// builtins (which no step writes: every state of a kernel has the initial
// state's), its phases seen; the variables and the phases one byte each
// unless a flag bit says some value needs the long form.
void get_agent(Reader& r, State& s, std::size_t a, std::size_t v0, std::size_t v1, std::size_t m) {
  AgentState& ag = s.agents[a];
  r.get(ag.pc);
  r.get(ag.stage);
  const auto bits = r.get<std::uint8_t>();
  ag.exited = bits & 1;
  ag.wgmma_fenced = (bits >> 1) & 1;
  ag.wave.signaled = (bits >> 2) & 1;
  ag.tc_synced = (bits >> 4) & 1;
  ag.wgmma_regs = (bits >> 7) & 1 ? r.get<std::uint8_t>() : 0;
  if (!((bits >> 3) & 1)) {
    ag.ticket = ag.cluster_ticket = ag.wave.lds_outstanding = ag.wave.joined = 0;
    ag.collectives = ag.arrived = 0;
    ag.wave.vm_issued = ag.wave.vm_done = 0;
    ag.bulk = ag.mma = ag.cp = Groups{};
  } else {
    ag.ticket = static_cast<std::uint32_t>(r.var());
    ag.collectives = static_cast<std::uint16_t>(r.var());
    ag.arrived = static_cast<std::uint16_t>(r.var());
    ag.cluster_ticket = static_cast<std::uint32_t>(r.var());
    ag.wave.lds_outstanding = static_cast<std::uint32_t>(r.var());
    ag.wave.joined = static_cast<std::uint32_t>(r.var());
    ag.wave.vm_issued = static_cast<std::uint16_t>(r.var());
    ag.wave.vm_done = static_cast<std::uint16_t>(r.var());
    for (Groups* g : {&ag.bulk, &ag.mma, &ag.cp}) {
      g->committed = static_cast<std::uint16_t>(r.var());
      g->issued = static_cast<std::uint16_t>(r.var());
      g->retired = static_cast<std::uint16_t>(r.var());
    }
  }
  // The one-byte forms read through a local pointer: a byte read through
  // the reader's own pointer is one the compiler must assume may write that
  // pointer, and reloads it per value.
  std::int64_t* v = s.vars.data() + v0 + ir::num_builtin_vars;
  const std::size_t nv = v1 - v0 - ir::num_builtin_vars;
  if (!((bits >> 5) & 1)) {
    const char* __restrict q = r.p;
    for (std::size_t k = 0; k < nv; ++k) v[k] = static_cast<std::int8_t>(q[k]);
    r.p = q + nv;
  } else {
    for (std::size_t k = 0; k < nv; ++k) v[k] = r.svar();
  }
  std::uint32_t* l = s.last_seen.data() + a * m;
  if (!((bits >> 6) & 1)) {
    const char* __restrict q = r.p;
    for (std::size_t k = 0; k < m; ++k) l[k] = static_cast<std::uint8_t>(q[k]);
    r.p = q + m;
  } else {
    for (std::size_t k = 0; k < m; ++k) l[k] = static_cast<std::uint32_t>(r.var());
  }
}

// The phases seen per agent: the search's states keep none, a trace's one
// per mbarrier instance.
std::size_t phases_of(const State& s) { return s.agents.empty() ? 0 : s.last_seen.size() / s.agents.size(); }

const char* skip_vars(const char* p, std::size_t n) {
  for (std::size_t k = 0; k < n; ++k)
    while (static_cast<std::uint8_t>(*p++) & 0x80) {
    }
  return p;
}

}  // namespace

PartShape::PartShape(const State& s, const Owners& o) : phases(phases_of(s)) {
  for (std::size_t a = 0; a < s.agents.size(); ++a) {
    const auto [v0, v1] = o.vars_of(a, s.vars.size());
    vars.push_back(static_cast<std::uint32_t>(v1 - v0 - ir::num_builtin_vars));
  }
}

void agent_parts(const char* bytes, const PartShape& shape, std::uint32_t* at) {
  const char* p = bytes;
  const std::size_t n = shape.vars.size(), m = shape.phases;
  const std::uint32_t* vars = shape.vars.data();
  for (std::size_t a = 0; a < n; ++a) {
    at[a] = static_cast<std::uint32_t>(p - bytes);
    const std::size_t nv = vars[a];
    const auto bits = static_cast<std::uint8_t>(p[3]);
    // Most parts: no rarer fields, every value in the one-byte form.
    if ((bits & 0xe8) == 0) {
      p += 4 + nv + m;
      continue;
    }
    p += 4 + ((bits >> 7) & 1);  // the wgmma registers' byte
    // The rarer fields: 17 numbers (get_agent).
    if ((bits >> 3) & 1) p = skip_vars(p, 17);
    p = (bits >> 5) & 1 ? skip_vars(p, nv) : p + nv;
    p = (bits >> 6) & 1 ? skip_vars(p, m) : p + m;
  }
  at[n] = static_cast<std::uint32_t>(p - bytes);
}

void deserialize(const char* bytes, const Owners& o, State& s, EventBytes* where) {
  Reader r{bytes};
  const std::size_t n = s.agents.size(), m = phases_of(s);
  for (std::size_t a = 0; a < n; ++a) {
    const auto [v0, v1] = o.vars_of(a, s.vars.size());
    get_agent(r, s, a, v0, v1, m);
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
    std::uint8_t flags = 0;  // bit 0: relinquished; bits 1..: log2 of the last allocation's columns
    r.get(flags);
    t.relinquished = flags & 1u;
    t.last_cols = flags >> 1 ? static_cast<std::uint16_t>(1u << (flags >> 1)) : 0;
    std::uint8_t pair = 0;
    r.get(pair);
    t.pair = static_cast<spec::tmem::PairOp>(pair);
    r.get(t.pair_which);
  }
  r.get(s.clc.queue);
  r.get(s.clc.requests);
  s.clc.failed_seen = static_cast<std::uint16_t>(r.var());
  for (std::int32_t& v : s.values) r.get(v);
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
  return s.agents.size() * 70 + s.vars.size() * 10 + 1 + s.last_seen.size() * 5 + 1 + s.mbars.size() * 21 +
         s.named.size() * 26 + s.amd.size() * 8 + s.tmem.size() * 15 + 7 + s.values.size() * 4 + 8 + 4 + s.pending.size() * 19 + 4 +
         s.mem.events.size() * event_bytes + 4 + word_slack;
}

// Writes agent a's part (get_agent reads it). Variables and phases seen are
// nearly always small: then one byte each, copied without a branch per value
// (a flag bit says which form).
void put_agent(Writer& w, const State& s, std::size_t a, std::size_t v0, std::size_t v1, std::size_t m) {
  const AgentState& ag = s.agents[a];
  w.put(ag.pc);
  w.put(ag.stage);
  // Most agents of most kernels have none of the rarer fields: a flag bit
  // says whether they follow.
  const bool rare = has_rare(ag);
  char* flags = w.p++;
  if (ag.wgmma_regs != 0) w.put(ag.wgmma_regs);
  if (rare) {
    w.var(ag.ticket);
    w.var(ag.collectives);
    w.var(ag.arrived);
    w.var(ag.cluster_ticket);
    w.var(ag.wave.lds_outstanding);
    w.var(ag.wave.joined);
    w.var(ag.wave.vm_issued);
    w.var(ag.wave.vm_done);
    for (const Groups* g : {&ag.bulk, &ag.mma, &ag.cp}) {
      w.var(g->committed);
      w.var(g->issued);
      w.var(g->retired);
    }
  }
  const std::int64_t* v = s.vars.data() + v0 + ir::num_builtin_vars;
  const std::size_t nv = v1 - v0 - ir::num_builtin_vars;
  std::uint64_t wide_v = 0;
  {
    char* __restrict q = w.p;
    for (std::size_t k = 0; k < nv; ++k) {
      q[k] = static_cast<char>(v[k]);
      wide_v |= (static_cast<std::uint64_t>(v[k]) + 128) >> 8;
    }
    w.p = q + nv;
  }
  if (wide_v != 0) {
    w.p -= nv;
    for (std::size_t k = 0; k < nv; ++k) w.svar(v[k]);
  }
  const std::uint32_t* l = s.last_seen.data() + a * m;
  std::uint64_t wide_l = 0;
  {
    char* __restrict q = w.p;
    for (std::size_t k = 0; k < m; ++k) {
      q[k] = static_cast<char>(l[k]);
      wide_l |= l[k] >> 8;
    }
    w.p = q + m;
  }
  if (wide_l != 0) {
    w.p -= m;
    for (std::size_t k = 0; k < m; ++k) w.var(l[k]);
  }
  *flags = static_cast<char>(flag_bits(ag, rare) | (wide_v != 0) << 5 | (wide_l != 0) << 6);
}

// Writes the parts of s no agent owns (EventBytes::shared).
char* write_shared(const State& s, Writer w, const State* like, const EventBytes* like_events);

// Writes s's bytes from `out` (room for bound_of(s)); returns their end.
char* write_state(const State& s, const Owners& o, char* out, const State* like, const EventBytes* like_events) {
  Writer w{out};
  const std::size_t m = phases_of(s);
  for (std::size_t a = 0; a < s.agents.size(); ++a) {
    const auto [v0, v1] = o.vars_of(a, s.vars.size());
    put_agent(w, s, a, v0, v1, m);
  }
  return write_shared(s, w, like, like_events);
}

char* write_shared(const State& s, Writer w, const State* like, const EventBytes* like_events) {
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
    // One byte, as the flag it extends: 0 while nothing was allocated, so the
    // replay tokens' kernel tags (token.cpp) stay the same. Allocations are
    // powers of 2 (spec::tmem::valid_alloc_columns).
    w.put(static_cast<std::uint8_t>(t.relinquished | (t.last_cols ? std::bit_width(unsigned{t.last_cols}) - 1 : 0) << 1));
    w.put(static_cast<std::uint8_t>(t.pair));
    w.put(t.pair_which);
  }
  w.put(s.clc.queue);
  w.put(s.clc.requests);
  // One byte while no CTA has seen a failure, as the one-byte flag it
  // replaced: the replay tokens' kernel tags (token.cpp) stay the same.
  w.var(s.clc.failed_seen);
  for (std::int32_t v : s.values) w.put(v);
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

void serialize(const State& s, const Owners& o, Bytes& out, const State* like, const EventBytes* like_events) {
  const std::size_t bound = bound_of(s);
  if (out.buf.size() < bound) out.buf.resize(bound);
  out.n = static_cast<std::size_t>(write_state(s, o, out.buf.data(), like, like_events) - out.buf.data());
}

void serialize_agent(const State& s, const Owners& o, std::size_t a, Bytes& out) {
  const auto [v0, v1] = o.vars_of(a, s.vars.size());
  const std::size_t m = phases_of(s), bound = 66 + (v1 - v0) * 10 + m * 5 + word_slack;
  if (out.buf.size() < bound) out.buf.resize(bound);
  Writer w{out.buf.data()};
  put_agent(w, s, a, v0, v1, m);
  out.n = static_cast<std::size_t>(w.p - out.buf.data());
}

void serialize_shared(const State& s, Bytes& out, const State* like, const EventBytes* like_events) {
  const std::size_t bound = bound_of(s);
  if (out.buf.size() < bound) out.buf.resize(bound);
  out.n = static_cast<std::size_t>(write_shared(s, Writer{out.buf.data()}, like, like_events) - out.buf.data());
}

void serialize(const State& s, const Owners& o, std::string& out) {
  out.resize(bound_of(s));
  out.resize(static_cast<std::size_t>(write_state(s, o, out.data(), nullptr, nullptr) - out.data()));
}

std::string tag_bytes(const State& s) {
  std::string out(bound_of(s) + s.vars.size() * ir::num_builtin_vars * 10, '\0');
  Writer w{out.data()};
  for (const AgentState& a : s.agents) {
    w.put(a.pc);
    w.put(a.stage);
    const bool rare = has_rare(a);
    w.put(flag_bits(a, rare));
    if (a.wgmma_regs != 0) w.put(a.wgmma_regs);
    if (!rare) continue;
    for (std::uint64_t x : {std::uint64_t{a.ticket}, std::uint64_t{a.collectives}, std::uint64_t{a.arrived}, std::uint64_t{a.cluster_ticket},
                            std::uint64_t{a.wave.lds_outstanding}, std::uint64_t{a.wave.joined}, std::uint64_t{a.wave.vm_issued},
                            std::uint64_t{a.wave.vm_done}})
      w.var(x);
    for (const Groups* g : {&a.bulk, &a.mma, &a.cp}) {
      w.var(g->committed);
      w.var(g->issued);
      w.var(g->retired);
    }
  }
  // Every variable, then every phase seen: one byte each after a flag byte
  // 1, or each in the long form after a flag byte 0.
  auto block = [&w](const auto& part, auto wide, auto put_long) {
    bool any = false;
    for (auto v : part) any |= wide(v);
    w.put(static_cast<std::uint8_t>(!any));
    for (auto v : part) {
      if (any) put_long(v);
      else w.put(static_cast<char>(v));
    }
  };
  block(s.vars, [](std::int64_t v) { return ((static_cast<std::uint64_t>(v) + 128) >> 8) != 0; }, [&w](std::int64_t v) { w.svar(v); });
  block(s.last_seen, [](std::uint32_t v) { return (v >> 8) != 0; }, [&w](std::uint32_t v) { w.var(v); });
  out.resize(static_cast<std::size_t>(write_shared(s, w, nullptr, nullptr) - out.data()));
  return out;
}

}  // namespace pc::check
