#include "spec/hb.hpp"

#include <algorithm>
#include <stdexcept>

namespace pc::spec::hb {
namespace {

// An async-proxy event is seen the same way by both proxies.
void mirror(Event& e) {
  if (e.proxy == Proxy::async) {
    e.after_async = e.after;
    e.released_async = e.released;
    e.visible_async = e.visible;
  }
}

bool same_agent(std::uint8_t a, std::uint8_t b) { return a / lanes_per_agent == b / lanes_per_agent; }

bool before(const Event& x, std::uint16_t buf, bool write, std::uint8_t thread) {
  if (x.buf != buf) return x.buf < buf;
  if (x.write != write) return x.write < write;
  return x.thread < thread;
}

std::pair<std::size_t, std::size_t> range(const Memory& m, int buf) {
  if (buf < 0 || buf >= m.buffers) throw std::out_of_range("hb: buffer index");
  const auto lo = std::lower_bound(m.events.begin(), m.events.end(), buf,
                                   [](const Event& e, int b) { return e.buf < b; });
  const auto hi = std::upper_bound(lo, m.events.end(), buf, [](int b, const Event& e) { return b < e.buf; });
  return {static_cast<std::size_t>(lo - m.events.begin()), static_cast<std::size_t>(hi - m.events.begin())};
}

Violation conflict(const Event& prior, Proxy p, std::uint8_t issuer, bool spread) {
  if (prior.thread == issuer) return Violation::none;
  if (spread && prior.spread && same_agent(prior.thread, issuer)) return Violation::none;
  const Threads me = bit(issuer);
  if (!(prior.after & me)) return Violation::data_race;
  if (p == Proxy::async && prior.write && prior.proxy == Proxy::generic && !(prior.after_async & me))
    return Violation::proxy_race;
  return Violation::none;
}

Event fresh(int buf, bool write, std::uint8_t actor, Proxy p, bool spread) {
  Event e;
  e.buf = static_cast<std::uint16_t>(buf);
  e.write = write;
  e.thread = actor;
  e.proxy = p;
  e.spread = spread;
  e.after = bit(actor);
  e.after_async = p == Proxy::async ? bit(actor) : 0;
  return e;
}

void put(Memory& m, const Event& e) {
  auto it = std::lower_bound(m.events.begin(), m.events.end(), e,
                             [](const Event& x, const Event& y) { return before(x, y.buf, y.write, y.thread); });
  if (it != m.events.end() && it->buf == e.buf && it->write == e.write && it->thread == e.thread) *it = e;
  else m.events.insert(it, e);
}

}  // namespace

Check check_only(const Memory& m, int buf, Kind k, Proxy p, std::uint8_t issuer, bool spread) {
  const auto [lo, hi] = range(m, buf);
  for (std::size_t i = lo; i < hi; ++i) {
    const Event& e = m.events[i];
    if (!e.write && k == Kind::read) continue;  // two reads never conflict
    if (Violation v = conflict(e, p, issuer, spread); v != Violation::none) return {v, e.thread, e.write};
  }
  return {};
}

Check access(Memory& m, int buf, Kind k, Proxy p, std::uint8_t issuer, std::uint8_t actor, bool spread) {
  Check c = check_only(m, buf, k, p, issuer, spread);
  if (c.violation != Violation::none) return c;
  // The actor (an async unit) inherits what its issuer knows when it is issued.
  if (actor != issuer) order(m, issuer, bit(actor));
  if (k == Kind::write) {
    // Everything earlier is ordered before this write (checked above), except
    // the agent's own other lanes' parts of a spread access: those stay.
    const auto [lo, hi] = range(m, buf);
    auto keep = [&](const Event& x) { return spread && x.spread && same_agent(x.thread, issuer) && x.thread != actor; };
    const auto first = m.events.begin() + static_cast<std::ptrdiff_t>(lo);
    const auto last = m.events.begin() + static_cast<std::ptrdiff_t>(hi);
    m.events.erase(std::remove_if(first, last, [&](const Event& x) { return !keep(x); }), last);
  }
  put(m, fresh(buf, k == Kind::write, actor, p, spread));
  return {};
}

void overwrite(Memory& m, int buf, std::uint8_t thread) {
  const auto [lo, hi] = range(m, buf);
  m.events.erase(m.events.begin() + static_cast<std::ptrdiff_t>(lo), m.events.begin() + static_cast<std::ptrdiff_t>(hi));
  put(m, fresh(buf, true, thread, Proxy::generic, false));
}

void release(Memory& m, std::uint8_t thread, int sync) {
  const Syncs s = Syncs{1} << sync;
  const Threads t = bit(thread);
  for (Event& e : m.events) {
    if (e.after & t) e.released |= s;
    if (e.after_async & t) e.released_async |= s;
    mirror(e);
  }
}

void release_write(Memory& m, int buf, std::uint8_t thread, int sync) {
  const auto [lo, hi] = range(m, buf);
  for (std::size_t i = lo; i < hi; ++i) {
    Event& e = m.events[i];
    if (!e.write || e.thread != thread) continue;
    e.released |= Syncs{1} << sync;
    e.released_async |= Syncs{1} << sync;
    mirror(e);
  }
}

void complete(Memory& m, int sync) {
  const Syncs s = Syncs{1} << sync;
  for (Event& e : m.events) {
    if (e.released & s) e.visible |= s;
    if (e.released_async & s) e.visible_async |= s;
    mirror(e);
  }
}

void acquire(Memory& m, std::uint8_t thread, int sync) {
  const Syncs s = Syncs{1} << sync;
  const Threads t = bit(thread);
  for (Event& e : m.events) {
    if (e.visible & s) e.after |= t;
    if (e.visible_async & s) e.after_async |= t;
    mirror(e);
  }
}

void order(Memory& m, std::uint8_t from, Threads to) {
  const Threads f = bit(from);
  for (Event& e : m.events) {
    if (e.after & f) e.after |= to;
    if (e.after_async & f) e.after_async |= to;
    mirror(e);
  }
}

void proxy_fence(Memory& m, std::uint8_t thread, int first_buf, int end_buf) {
  const Threads t = bit(thread);
  const int end = end_buf < 0 ? m.buffers : end_buf;
  for (Event& e : m.events)
    if (e.buf >= first_buf && e.buf < end && (e.after & t)) e.after_async |= t;
}

}  // namespace pc::spec::hb
