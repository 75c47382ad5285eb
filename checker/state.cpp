#include "checker/state.hpp"

#include <cstring>

namespace pc::check {
namespace {

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
};

constexpr std::size_t event_bytes = 2 + 1 + 1 + 1 + 6 * 8;

void put_event(Writer& w, const spec::hb::Event& e) {
  w.put(e.buf);
  w.put(static_cast<std::uint8_t>(e.write));
  w.put(e.thread);
  w.put(static_cast<std::uint8_t>(static_cast<int>(e.proxy) | (e.spread << 1)));
  w.put(e.after);
  w.put(e.after_async);
  w.put(e.released);
  w.put(e.released_async);
  w.put(e.visible);
  w.put(e.visible_async);
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
};

void get_event(Reader& r, spec::hb::Event& e) {
  r.get(e.buf);
  e.write = r.get<std::uint8_t>() != 0;
  r.get(e.thread);
  const auto bits = r.get<std::uint8_t>();
  e.proxy = static_cast<spec::hb::Proxy>(bits & 1);
  e.spread = (bits >> 1) & 1;
  r.get(e.after);
  r.get(e.after_async);
  r.get(e.released);
  r.get(e.released_async);
  r.get(e.visible);
  r.get(e.visible_async);
}

}  // namespace

void deserialize(const char* bytes, State& s) {
  Reader r{bytes};
  for (AgentState& a : s.agents) {
    r.get(a.pc);
    r.get(a.stage);
    const auto bits = r.get<std::uint8_t>();
    a.exited = bits & 1;
    a.wgmma_fenced = (bits >> 1) & 1;
    a.wave.signaled = (bits >> 2) & 1;
    r.get(a.ticket);
    r.get(a.cluster_ticket);
    r.get(a.wave.lds_outstanding);
    r.get(a.wave.joined);
    for (Groups* g : {&a.bulk, &a.mma}) {
      r.get(g->committed);
      r.get(g->last[0]);
      r.get(g->last[1]);
    }
  }
  r.raw(s.vars.data(), s.vars.size() * sizeof(std::int64_t));
  r.raw(s.last_seen.data(), s.last_seen.size() * sizeof(std::uint32_t));
  for (spec::mbarrier::State& m : s.mbars) {
    r.get(m.status);
    r.get(m.phase);
    r.get(m.expected);
    r.get(m.pending);
    r.get(m.tx);
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
  }
  for (spec::amd::Barrier& b : s.amd) {
    r.get(b.waves);
    r.get(b.arrived);
    r.get(b.generation);
  }
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
  }
  s.mem.events.resize(r.get<std::uint32_t>());
  for (spec::hb::Event& e : s.mem.events) get_event(r, e);
  r.get(s.cta_exited);
}

void serialize(const State& s, std::string& out) {
  const std::size_t bound = s.agents.size() * 40 + s.vars.size() * 8 + s.last_seen.size() * 4 + s.mbars.size() * 17 +
                            s.named.size() * 24 + s.amd.size() * 8 + 8 + 4 + s.pending.size() * 16 + 4 + s.mem.events.size() * event_bytes + 4;
  out.resize(bound);
  Writer w{out.data()};
  for (const AgentState& a : s.agents) {
    w.put(a.pc);
    w.put(a.stage);
    w.put(static_cast<std::uint8_t>(a.exited | (a.wgmma_fenced << 1) | (a.wave.signaled << 2)));
    w.put(a.ticket);
    w.put(a.cluster_ticket);
    w.put(a.wave.lds_outstanding);
    w.put(a.wave.joined);
    for (const Groups* g : {&a.bulk, &a.mma}) {
      w.put(g->committed);
      w.put(g->last[0]);
      w.put(g->last[1]);
    }
  }
  w.raw(s.vars.data(), s.vars.size() * sizeof(std::int64_t));
  w.raw(s.last_seen.data(), s.last_seen.size() * sizeof(std::uint32_t));
  for (const spec::mbarrier::State& m : s.mbars) {
    w.put(m.status);
    w.put(m.phase);
    w.put(m.expected);
    w.put(m.pending);
    w.put(m.tx);
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
  }
  for (const spec::amd::Barrier& b : s.amd) {
    w.put(b.waves);
    w.put(b.arrived);
    w.put(b.generation);
  }
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
  }
  w.put(static_cast<std::uint32_t>(s.mem.events.size()));
  for (const spec::hb::Event& e : s.mem.events) put_event(w, e);
  w.put(s.cta_exited);
  out.resize(static_cast<std::size_t>(w.p - out.data()));
}

std::uint64_t hash_bytes(const std::string& bytes) {
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
