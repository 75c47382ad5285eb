#include "spec/hb.hpp"

#include <algorithm>

namespace pc::spec::hb {
namespace {

template <class F>
void for_each_event(Memory& m, F&& f) {
  for (Buffer& b : m.buffers) {
    if (b.has_write) f(b.write);
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

Violation conflict(const Event& prior, bool prior_is_write, Proxy p, std::uint8_t issuer) {
  const Threads me = bit(issuer);
  if (!(prior.after & me)) return Violation::data_race;
  if (p == Proxy::async && prior_is_write && prior.proxy == Proxy::generic && !(prior.after_async & me))
    return Violation::proxy_race;
  return Violation::none;
}

Event fresh(std::uint8_t actor, Proxy p) {
  Event e;
  e.thread = actor;
  e.proxy = p;
  e.after = bit(actor);
  e.after_async = p == Proxy::async ? bit(actor) : 0;
  return e;
}

}  // namespace

Check check_only(const Memory& m, int buf, Kind k, Proxy p, std::uint8_t issuer) {
  const Buffer& b = m.buffers.at(static_cast<std::size_t>(buf));
  if (b.has_write && b.write.thread != issuer) {
    if (Violation v = conflict(b.write, true, p, issuer); v != Violation::none) return {v, b.write.thread, true};
  }
  if (k == Kind::write) {
    for (const Event& r : b.reads) {
      if (r.thread == issuer) continue;
      if (Violation v = conflict(r, false, p, issuer); v != Violation::none) return {v, r.thread, false};
    }
  }
  return {};
}

Check access(Memory& m, int buf, Kind k, Proxy p, std::uint8_t issuer, std::uint8_t actor) {
  Check c = check_only(m, buf, k, p, issuer);
  if (c.violation != Violation::none) return c;
  Buffer& b = m.buffers.at(static_cast<std::size_t>(buf));
  Event e = fresh(actor, p);
  // The actor (an async unit) inherits what its issuer knows when it is issued.
  if (actor != issuer) order(m, issuer, bit(actor));
  if (k == Kind::write) {
    b.has_write = true;
    b.write = e;
    b.reads.clear();  // every earlier read is ordered before this write (checked above)
  } else {
    auto it = std::find_if(b.reads.begin(), b.reads.end(), [&](const Event& r) { return r.thread >= actor; });
    // A newer read by the same thread subsumes the older one: program order.
    if (it != b.reads.end() && it->thread == actor) *it = e;
    else b.reads.insert(it, e);
  }
  return {};
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

void release_write(Memory& m, int buf, int sync) {
  Buffer& b = m.buffers.at(static_cast<std::size_t>(buf));
  if (!b.has_write) return;
  b.write.released |= Syncs{1} << sync;
  b.write.released_async |= Syncs{1} << sync;
  mirror(b.write);
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

void proxy_fence(Memory& m, std::uint8_t thread) {
  const Threads t = bit(thread);
  for_each_event(m, [&](Event& e) {
    if (e.after & t) e.after_async |= t;
  });
}

}  // namespace pc::spec::hb
