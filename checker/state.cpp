#include "checker/state.hpp"

#include <cstring>

namespace pc::check {
namespace {

template <class T>
void put(std::string& out, const T& v) {
  const std::size_t n = out.size();
  out.resize(n + sizeof(T));
  std::memcpy(out.data() + n, &v, sizeof(T));
}

void put_event(std::string& out, const spec::hb::Event& e) {
  put(out, e.thread);
  put(out, static_cast<std::uint8_t>(static_cast<int>(e.proxy) | (e.spread << 1)));
  put(out, e.after);
  put(out, e.after_async);
  put(out, e.released);
  put(out, e.released_async);
  put(out, e.visible);
  put(out, e.visible_async);
}

}  // namespace

void serialize(const State& s, std::string& out) {
  out.clear();
  for (const AgentState& a : s.agents) {
    put(out, a.pc);
    put(out, a.stage);
    put(out, static_cast<std::uint8_t>(a.exited | (a.wgmma_fenced << 1) | (a.lgkm << 2)));
    put(out, a.ticket);
    put(out, a.cluster_ticket);
    put(out, a.split_ticket);
    for (const Groups* g : {&a.bulk, &a.mma}) {
      put(out, g->committed);
      put(out, g->last[0]);
      put(out, g->last[1]);
    }
    for (std::int64_t v : a.vars) put(out, v);
    for (std::uint32_t v : a.last_seen) put(out, v);
  }
  for (const spec::mbarrier::State& m : s.mbars) {
    put(out, m.status);
    put(out, m.phase);
    put(out, m.expected);
    put(out, m.pending);
    put(out, m.tx);
  }
  for (const spec::named::State& n : s.named) {
    put(out, n.count);
    put(out, n.arrived);
    put(out, n.generation);
    put(out, n.acc_popc);
    put(out, n.acc_and);
    put(out, n.acc_or);
    put(out, n.last_popc);
    put(out, n.last_and);
    put(out, n.last_or);
  }
  put(out, s.cluster.generation);
  put(out, s.cluster.arrived);
  put(out, static_cast<std::uint32_t>(s.pending.size()));
  for (const Pending& p : s.pending) {
    put(out, p.kind);
    put(out, p.agent);
    put(out, p.pc);
    put(out, p.mbar);
    put(out, p.buf);
    put(out, p.bytes);
    put(out, p.noinc);
  }
  for (const spec::hb::Buffer& b : s.mem.buffers) {
    put(out, static_cast<std::uint8_t>(b.writes.size()));
    for (const spec::hb::Event& e : b.writes) put_event(out, e);
    put(out, static_cast<std::uint8_t>(b.reads.size()));
    for (const spec::hb::Event& e : b.reads) put_event(out, e);
  }
  put(out, s.cta_exited);
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
