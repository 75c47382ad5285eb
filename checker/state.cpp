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

}  // namespace

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
  // 64-bit multiply-mix over 8-byte words (a wyhash-style mixer), seeded with the length.
  std::uint64_t h = 0x9E3779B97F4A7C15ull ^ (bytes.size() * 0xC2B2AE3D27D4EB4Full);
  const char* p = bytes.data();
  std::size_t n = bytes.size();
  auto mix = [](std::uint64_t a, std::uint64_t b) {
    const __uint128_t r = static_cast<__uint128_t>(a) * b;
    return static_cast<std::uint64_t>(r) ^ static_cast<std::uint64_t>(r >> 64);
  };
  while (n >= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    h = mix(h ^ w, 0xA0761D6478BD642Full);
    p += 8;
    n -= 8;
  }
  if (n > 0) {
    std::uint64_t w = 0;
    std::memcpy(&w, p, n);
    h = mix(h ^ w, 0xE7037ED1A0B428DBull);
  }
  return mix(h, 0x8EBC6AF09C88C6E3ull);
}

}  // namespace pc::check
