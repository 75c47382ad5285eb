#include "spec/hb.hpp"

#include <algorithm>

namespace pc::spec::hb {
namespace {

template <class F>
void for_each_event(Memory& m, F&& f) {
  for (Buffer& b : m.buffers) {
    for (Event& e : b.writes) f(e);
    for (Event& e : b.reads) f(e);
  }
}

// An async-proxy event is seen the same way by both proxies.
void mirror(Event& e) {
  if (e.proxy == Proxy::async) {
    e.after_async = e.after;
    e.released_async = e.released;
    e.visible_async = e.visible;
  }
}

bool same_agent(std::uint8_t a, std::uint8_t b) { return a / lanes_per_agent == b / lanes_per_agent; }

Violation conflict(const Event& prior, bool prior_is_write, Proxy p, std::uint8_t issuer, bool spread) {
  if (prior.thread == issuer) return Violation::none;
  if (spread && prior.spread && same_agent(prior.thread, issuer)) return Violation::none;
  const Threads me = bit(issuer);
  if (!(prior.after & me)) return Violation::data_race;
  if (p == Proxy::async && prior_is_write && prior.proxy == Proxy::generic && !(prior.after_async & me))
    return Violation::proxy_race;
  return Violation::none;
}

Event fresh(std::uint8_t actor, Proxy p, bool spread) {
  Event e;
  e.thread = actor;
  e.proxy = p;
  e.spread = spread;
  e.after = bit(actor);
  e.after_async = p == Proxy::async ? bit(actor) : 0;
  return e;
}

void put(std::vector<Event>& v, const Event& e) {
  auto it = std::find_if(v.begin(), v.end(), [&](const Event& x) { return x.thread >= e.thread; });
  if (it != v.end() && it->thread == e.thread) *it = e;
  else v.insert(it, e);
}

}  // namespace

Check check_only(const Memory& m, int buf, Kind k, Proxy p, std::uint8_t issuer, bool spread) {
  const Buffer& b = m.buffers.at(static_cast<std::size_t>(buf));
  for (const Event& w : b.writes)
    if (Violation v = conflict(w, true, p, issuer, spread); v != Violation::none) return {v, w.thread, true};
  if (k == Kind::write) {
    for (const Event& r : b.reads)
      if (Violation v = conflict(r, false, p, issuer, spread); v != Violation::none) return {v, r.thread, false};
  }
  return {};
}

Check access(Memory& m, int buf, Kind k, Proxy p, std::uint8_t issuer, std::uint8_t actor, bool spread) {
  Check c = check_only(m, buf, k, p, issuer, spread);
  if (c.violation != Violation::none) return c;
  // The actor (an async unit) inherits what its issuer knows when it is issued.
  if (actor != issuer) order(m, issuer, bit(actor));
  Buffer& b = m.buffers.at(static_cast<std::size_t>(buf));
  const Event e = fresh(actor, p, spread);
  if (k == Kind::write) {
    // Everything earlier is ordered before this write (checked above), except
    // the agent's own other lanes' parts of a spread access: those stay.
    auto ordered = [&](const Event& x) { return !(spread && x.spread && same_agent(x.thread, issuer) && x.thread != actor); };
    b.writes.erase(std::remove_if(b.writes.begin(), b.writes.end(), ordered), b.writes.end());
    b.reads.erase(std::remove_if(b.reads.begin(), b.reads.end(), ordered), b.reads.end());
    put(b.writes, e);
  } else {
    put(b.reads, e);
  }
  return {};
}

void overwrite(Memory& m, int buf, std::uint8_t thread) {
  Buffer& b = m.buffers.at(static_cast<std::size_t>(buf));
  b.writes.assign(1, fresh(thread, Proxy::generic, false));
  b.reads.clear();
}

void release(Memory& m, std::uint8_t thread, int sync) {
  const Syncs s = Syncs{1} << sync;
  const Threads t = bit(thread);
  for_each_event(m, [&](Event& e) {
    if (e.after & t) e.released |= s;
    if (e.after_async & t) e.released_async |= s;
    mirror(e);
  });
}

void release_write(Memory& m, int buf, std::uint8_t thread, int sync) {
  for (Event& e : m.buffers.at(static_cast<std::size_t>(buf)).writes) {
    if (e.thread != thread) continue;
    e.released |= Syncs{1} << sync;
    e.released_async |= Syncs{1} << sync;
    mirror(e);
  }
}

void complete(Memory& m, int sync) {
  const Syncs s = Syncs{1} << sync;
  for_each_event(m, [&](Event& e) {
    if (e.released & s) e.visible |= s;
    if (e.released_async & s) e.visible_async |= s;
    mirror(e);
  });
}

void acquire(Memory& m, std::uint8_t thread, int sync) {
  const Syncs s = Syncs{1} << sync;
  const Threads t = bit(thread);
  for_each_event(m, [&](Event& e) {
    if (e.visible & s) e.after |= t;
    if (e.visible_async & s) e.after_async |= t;
    mirror(e);
  });
}

void order(Memory& m, std::uint8_t from, Threads to) {
  const Threads f = bit(from);
  for_each_event(m, [&](Event& e) {
    if (e.after & f) e.after |= to;
    if (e.after_async & f) e.after_async |= to;
    mirror(e);
  });
}

void proxy_fence(Memory& m, std::uint8_t thread, int first_buf, int end_buf) {
  const Threads t = bit(thread);
  const int end = end_buf < 0 ? static_cast<int>(m.buffers.size()) : end_buf;
  for (int i = first_buf; i < end; ++i) {
    Buffer& b = m.buffers[static_cast<std::size_t>(i)];
    for (Event& e : b.writes)
      if (e.after & t) e.after_async |= t;
    for (Event& e : b.reads)
      if (e.after & t) e.after_async |= t;
  }
}

}  // namespace pc::spec::hb
