#include "spec/hb.hpp"

#include "spec/tmem.hpp"

#include <algorithm>
#include <array>
#include <bit>
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

// A thread ordered after an event is not after it weakly (Event::after_weak).
void settle_weak(Event& e) { e.after_weak &= ~e.after; }

bool before(const Event& x, std::uint16_t buf, bool write, bool atomic, std::uint8_t thread) {
  if (x.buf != buf) return x.buf < buf;
  if (x.write != write) return x.write < write;
  if (x.atomic != atomic) return x.atomic < atomic;
  return x.thread < thread;
}

std::pair<std::size_t, std::size_t> range(const Memory& m, int buf) {
  if (buf < 0 || buf >= m.buffers) throw std::out_of_range("hb: buffer index");
  const auto lo = std::lower_bound(m.events.begin(), m.events.end(), buf,
                                   [](const Event& e, int b) { return e.buf < b; });
  const auto hi = std::upper_bound(lo, m.events.end(), buf, [](int b, const Event& e) { return b < e.buf; });
  return {static_cast<std::size_t>(lo - m.events.begin()), static_cast<std::size_t>(hi - m.events.begin())};
}

// The conflict of one issuer's access with one earlier access (hb.hpp, check_only).
Check conflict(const Event& prior, const Access& a, std::uint8_t issuer) {
  Check c;
  c.other_buf = prior.buf;
  c.other_thread = prior.thread;
  c.other_spread = prior.spread == warp_local ? 0 : prior.spread;
  c.issuer = issuer;
  c.other_was_write = prior.write;
  c.other_proxy = prior.proxy;
  if (!prior.write && a.kind == Kind::read) return c;  // two reads never conflict
  // nor two strong (atomic) operations of the same bytes: morally strong
  // only where they "overlap completely" (PTX ISA, "Morally strong
  // operations"), so an atomic of an alias (other bytes that share some)
  // conflicts as a plain access would
  if (prior.atomic && a.atomic && prior.buf == a.buf) return c;
  // A later MMA after the accesses of its unit (or, through the tcgen05
  // ordering, another thread's) that a pipelined pair covers; one that only
  // in-order execution of the unit would order is the mma_not_pipelined
  // warning (spec::tmem::pipelined, docs/spec.md "Stances").
  if (a.after_own_unit && a.unit >= 0 && (prior.thread == a.unit || (prior.after_async & bit(issuer)))) {
    if (!tmem::pipelined(static_cast<tmem::MmaPart>(prior.mma), static_cast<tmem::MmaPart>(a.mma), prior.buf == a.buf) &&
        !(prior.after & bit(issuer)))
      c.warning = Violation::mma_not_pipelined;
    return c;
  }
  const Threads me = bit(issuer);
  // lanes of one all-lane access each on its part (of one buffer)
  const bool same_part = a.spread != 0 && a.spread == prior.spread && prior.buf == a.buf;
  const bool known = (prior.after & me) && !(prior.spread == warp_local && (a.partial_units & bit(prior.thread)));
  if (prior.thread != issuer && !same_part && !known) {
    // Only a scope kept them apart: a read of the earlier write is an error
    // (stale data), an overwrite the stance of docs/spec.md ("Stances")
    // makes a warning.
    if (!(prior.after_weak & me)) c.violation = Violation::data_race;
    else if (a.kind == Kind::read) c.violation = Violation::scope_race;
    else c.warning = Violation::scope_war;
    return c;
  }
  if (a.proxy == Proxy::async && !(prior.after_async & me) && prior.proxy == Proxy::generic) {
    if (prior.write && a.kind == Kind::write && a.overwrite && prior.thread != issuer) c.warning = Violation::cross_proxy_waw;
    else if (prior.write) c.violation = Violation::proxy_race;
    else if (a.kind == Kind::write) c.violation = Violation::cross_proxy_war;
  }
  return c;
}

Event fresh(const Access& a, std::uint8_t actor) {
  Event e;
  e.buf = static_cast<std::uint16_t>(a.buf);
  e.write = a.kind == Kind::write;
  e.atomic = a.atomic;
  e.thread = actor;
  e.proxy = a.proxy;
  e.spread = a.unit >= 0 ? 0 : a.spread;
  e.group = a.unit >= 0 ? a.group : 0;
  e.mma = a.unit >= 0 ? a.mma : 0;
  e.after = bit(actor);
  e.after_async = a.proxy == Proxy::async ? bit(actor) : 0;
  return e;
}

void put(Memory& m, const Event& e) {
  auto it = std::lower_bound(m.events.begin(), m.events.end(), e,
                             [](const Event& x, const Event& y) { return before(x, y.buf, y.write, y.atomic, y.thread); });
  if (it != m.events.end() && it->buf == e.buf && it->write == e.write && it->atomic == e.atomic && it->thread == e.thread) *it = e;
  else m.events.insert(it, e);
}

// Calls f on each thread of `t`, lowest first, by its set bits (a thread
// mask is mostly zeros above a few bits; the search calls this per access).
template <class F>
void each_thread(Threads t, F&& f) {
  for (int half = 0; half < 2; ++half) {
    auto bits = static_cast<std::uint64_t>(t >> (64 * half));
    while (bits != 0) {
      f(static_cast<std::uint8_t>(64 * half + std::countr_zero(bits)));
      bits &= bits - 1;
    }
  }
}

}  // namespace

Check check_only(const Memory& m, const Access& a) {
  Check found;
  auto scan = [&](int buf) {
    const std::pair<std::size_t, std::size_t> r = range(m, buf);  // not a structured binding: clang 14 cannot capture one
    const std::size_t lo = r.first, hi = r.second;
    if (lo == hi) return;  // no earlier access to this buffer: nothing to conflict with
    each_thread(a.issuers, [&](std::uint8_t issuer) {
      for (std::size_t i = lo; i < hi && found.violation == Violation::none; ++i) {
        const Check c = conflict(m.events[i], a, issuer);
        if (c.violation != Violation::none || (c.warning != Violation::none && found.warning == Violation::none)) found = c;
      }
    });
  };
  scan(a.buf);
  for (const std::uint16_t b : a.aliases)
    if (found.violation == Violation::none) scan(b);
  return found;
}

Check access(Memory& m, const Access& a) {
  const Check c = check_only(m, a);
  if (c.violation != Violation::none) return c;
  // The threads whose access is recorded, at most one per bit of a thread
  // mask (no allocation: the search makes an access on most steps).
  std::array<std::uint8_t, 128> actors;
  std::size_t n_actors = 0;
  if (a.unit >= 0) {
    // The unit inherits what its issuers know when it is issued.
    each_thread(a.issuers, [&](std::uint8_t t) { order(m, t, bit(static_cast<std::uint8_t>(a.unit))); });
    actors[n_actors++] = static_cast<std::uint8_t>(a.unit);
  } else {
    each_thread(a.issuers, [&](std::uint8_t t) { actors[n_actors++] = t; });
  }
  if (a.kind == Kind::write) {
    // Everything earlier is ordered before this write (checked above), except
    // the parts other lanes of the same all-lane access keep: those stay.
    const auto [lo, hi] = range(m, a.buf);
    // An atomic write keeps the other atomic ones (they were not checked
    // against it: they need not be ordered before it).
    auto keep = [&](const Event& x) {
      return (a.spread != 0 && x.spread == a.spread && a.unit < 0 && !(a.issuers & bit(x.thread))) || (a.atomic && x.atomic);
    };
    const auto first = m.events.begin() + static_cast<std::ptrdiff_t>(lo);
    const auto last = m.events.begin() + static_cast<std::ptrdiff_t>(hi);
    m.events.erase(std::remove_if(first, last, [&](const Event& x) { return !keep(x); }), last);
    // An alias the write covers: its accesses are ordered before it too
    // (the lanes' parts line up within one buffer only), its atomic ones
    // included (checked above: an atomic of other bytes is no morally
    // strong partner).
    for (const std::uint16_t b : a.covered) {
      const auto [clo, chi] = range(m, b);
      const auto cfirst = m.events.begin() + static_cast<std::ptrdiff_t>(clo);
      const auto clast = m.events.begin() + static_cast<std::ptrdiff_t>(chi);
      m.events.erase(cfirst, clast);
    }
  }
  for (std::size_t i = 0; i < n_actors; ++i) put(m, fresh(a, actors[i]));
  return c;
}

void overwrite(Memory& m, int buf, std::uint8_t thread, Threads known) {
  const auto [lo, hi] = range(m, buf);
  m.events.erase(m.events.begin() + static_cast<std::ptrdiff_t>(lo), m.events.begin() + static_cast<std::ptrdiff_t>(hi));
  Access a;
  a.buf = buf;
  a.kind = Kind::write;
  Event e = fresh(a, thread);
  e.after |= known;
  put(m, e);
}

void mark_warp_local(Memory& m, std::uint8_t unit, Threads to) {
  for (Event& e : m.events)
    if (e.thread == unit && (e.after & to) != to) e.spread = warp_local;
}

void share_warp_local(Memory& m, Threads units, Threads lanes) {
  for (Event& e : m.events)
    if ((units & bit(e.thread)) && e.spread == warp_local && (e.after & lanes)) e.spread = 0;
}

void learn_write(Memory& m, int buf, Threads writers, Threads to) {
  const auto [lo, hi] = range(m, buf);
  for (std::size_t i = lo; i < hi; ++i) {
    Event& e = m.events[i];
    if (!e.write || !(bit(e.thread) & writers)) continue;
    e.after |= to;
    mirror(e);
  }
}

void release(Memory& m, Threads from, int sync) {
  const Syncs s = Syncs{1} << sync;
  for (Event& e : m.events) {
    if (e.after & from) e.released |= s;
    if (e.after_async & from) e.released_async |= s;
    if (e.after_weak & from) e.released_weak |= s;
    mirror(e);
  }
}

void release(Memory& m, const Quorum& q, int sync) {
  const Syncs s = Syncs{1} << sync;
  for (Event& e : m.events) {
    if ((q.per_warp_units & bit(e.thread)) && e.spread == warp_local) continue;
    if (q.holds(e.after)) e.released |= s;
    if (q.holds(e.after_async)) e.released_async |= s;
    if (q.holds(e.after | e.after_weak)) e.released_weak |= s;
    mirror(e);
  }
}

void release_range(Memory& m, Threads from, int sync, int first_buf, int end_buf, std::span<const std::uint8_t> skip) {
  const Syncs s = Syncs{1} << sync;
  for (Event& e : m.events) {
    if (e.buf < first_buf || e.buf >= end_buf || (e.buf < skip.size() && skip[e.buf] != 0)) continue;
    if (e.after & from) e.released |= s;
    if (e.after_async & from) e.released_async |= s;
    if (e.after_weak & from) e.released_weak |= s;
    mirror(e);
  }
}

void forward(Memory& m, int from_sync, int to_sync) {
  const Syncs f = Syncs{1} << from_sync, t = Syncs{1} << to_sync;
  for (Event& e : m.events) {
    if (e.released & f) e.released |= t;
    if (e.released_async & f) e.released_async |= t;
    if (e.released_weak & f) e.released_weak |= t;
    mirror(e);
  }
}

void release_unit(Memory& m, std::uint8_t unit, std::uint16_t group, int sync, Threads except) {
  const Syncs s = Syncs{1} << sync;
  const Threads u = bit(unit);
  for (Event& e : m.events) {
    if (e.thread == unit && group != 0 && e.group > group) continue;  // a later group's access: still in flight
    if (except & bit(e.thread)) continue;                             // the arriving thread's own access
    if (e.after & u) e.released |= s;
    if (e.after_async & u) e.released_async |= s;
    if (e.after_weak & u) e.released_weak |= s;
    mirror(e);
  }
}

void move(Memory& m, int from_sync, int to_sync) {
  const Syncs f = Syncs{1} << from_sync, t = Syncs{1} << to_sync;
  for (Event& e : m.events) {
    if (e.released & f) e.released |= t;
    if (e.released_async & f) e.released_async |= t;
    if (e.released_weak & f) e.released_weak |= t;
    e.released &= ~f;
    e.released_async &= ~f;
    e.released_weak &= ~f;
    e.visible &= ~f;
    e.visible_async &= ~f;
    e.visible_weak &= ~f;
    mirror(e);
  }
}

void renumber_down(Memory& m, int free_sync, int end) {
  // The bits above free_sync and below end move down by one; the others stay.
  const Syncs range = (end >= max_syncs ? ~Syncs{0} : (Syncs{1} << end) - 1) & ~((Syncs{2} << free_sync) - 1);
  const auto down = [&](Syncs& x) { x = (x & ~range & ~(Syncs{1} << free_sync)) | ((x & range) >> 1); };
  for (Event& e : m.events) {
    down(e.released);
    down(e.released_async);
    down(e.released_weak);
    down(e.visible);
    down(e.visible_async);
    down(e.visible_weak);
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

void release_read(Memory& m, int buf, std::uint8_t thread, int sync) {
  const auto [lo, hi] = range(m, buf);
  for (std::size_t i = lo; i < hi; ++i) {
    Event& e = m.events[i];
    if (e.write || e.thread != thread) continue;
    e.released |= Syncs{1} << sync;
    e.released_async |= Syncs{1} << sync;
    mirror(e);
  }
}

void release_writes(Memory& m, int buf, Threads writers, int sync) {
  each_thread(writers, [&](std::uint8_t t) { release_write(m, buf, t, sync); });
}

void complete(Memory& m, int sync) {
  const Syncs s = Syncs{1} << sync;
  for (Event& e : m.events) {
    if (e.released & s) e.visible |= s;
    if (e.released_async & s) e.visible_async |= s;
    if (e.released_weak & s) e.visible_weak |= s;
    mirror(e);
  }
}

void complete_all(Memory& m, Syncs syncs) {
  for (Event& e : m.events) {
    e.visible |= e.released & syncs;
    e.visible_async |= e.released_async & syncs;
    e.visible_weak |= e.released_weak & syncs;
    mirror(e);
  }
}

void acquire(Memory& m, Threads to, Syncs strong, Syncs weak) {
  for (Event& e : m.events) {
    if (e.visible & strong) e.after |= to;
    if (e.visible_async & strong) e.after_async |= to;
    if ((e.visible & weak) || (e.visible_weak & (strong | weak))) e.after_weak |= to;
    settle_weak(e);
    mirror(e);
  }
}

void acquire_except(Memory& m, Threads to, Syncs strong, std::span<const std::uint8_t> skip) {
  for (Event& e : m.events) {
    if (e.buf < skip.size() && skip[e.buf] != 0) continue;
    if (e.visible & strong) e.after |= to;
    if (e.visible_async & strong) e.after_async |= to;
    if (e.visible_weak & strong) e.after_weak |= to;
    settle_weak(e);
    mirror(e);
  }
}

bool acquire_orders(const Memory& m, Threads to, Syncs syncs, int below) {
  for (const Event& e : m.events)
    if (below >= 0 && e.buf >= below) break;  // sorted by buffer
    else if (((e.visible & syncs) && (e.after & to) != to) || ((e.visible_async & syncs) && (e.after_async & to) != to)) return true;
  return false;
}

bool acquire_orders_write(const Memory& m, Threads to, Syncs syncs, std::span<const std::uint8_t> skip) {
  for (const Event& e : m.events) {
    if (!e.write || (e.buf < skip.size() && skip[e.buf] != 0)) continue;
    if (((e.visible & syncs) && (e.after & to) == 0) || ((e.visible_async & syncs) && (e.after_async & to) == 0)) return true;
  }
  return false;
}

void observe(Memory& m, Syncs from, int to) {
  const Syncs t = Syncs{1} << to;
  for (Event& e : m.events) {
    if (e.visible & from) e.released |= t, e.visible |= t;
    if (e.visible_async & from) e.released_async |= t, e.visible_async |= t;
    if (e.visible_weak & from) e.released_weak |= t, e.visible_weak |= t;
    mirror(e);
  }
}

void order(Memory& m, std::uint8_t from, Threads to) {
  const Threads f = bit(from);
  for (Event& e : m.events) {
    if (e.after & f) e.after |= to;
    if (e.after_async & f) e.after_async |= to;
    if (e.after_weak & f) e.after_weak |= to;
    settle_weak(e);
    mirror(e);
  }
}

void order_accesses_of(Memory& m, Threads by, Threads to) {
  for (Event& e : m.events) {
    if ((bit(e.thread) & by) == 0) continue;
    e.after |= to;
    e.after_async |= to;
    settle_weak(e);
    mirror(e);
  }
}

void retire(Memory& m, std::uint8_t unit, std::uint16_t group, Threads to, bool reads_only) {
  for (Event& e : m.events) {
    if (e.thread != unit || e.group == 0 || e.group > group || (reads_only && e.write)) continue;
    e.after |= to;
    e.after_async |= to;
    settle_weak(e);
  }
}

void retire_kind(Memory& m, std::uint8_t unit, Kind kind, Threads to) {
  for (Event& e : m.events) {
    if (e.thread != unit || e.write != (kind == Kind::write)) continue;
    e.after |= to;  // not after_async: the tcgen05 ordering of tensor memory (Event) needs a tcgen05 fence
    settle_weak(e);
  }
}

namespace {
bool in_tmem(const Event& e, std::span<const std::uint8_t> tmem) { return e.buf < tmem.size() && tmem[e.buf] != 0; }
}  // namespace

void tc_fence(Memory& m, Threads lanes, std::uint8_t unit, std::span<const std::uint8_t> tmem) {
  if (tmem.empty()) return;  // a kernel with no tensor memory
  for (Event& e : m.events)
    if (in_tmem(e, tmem) && ((e.after & lanes) || e.thread == unit)) e.after_async |= lanes;
}

void tc_fence_unit(Memory& m, std::uint8_t unit, std::uint16_t group, std::span<const std::uint8_t> tmem) {
  if (tmem.empty()) return;  // a kernel with no tensor memory
  for (Event& e : m.events)
    if (e.thread == unit && e.group <= group && in_tmem(e, tmem)) e.after_async |= bit(unit);
}

void tc_release(Memory& m, Threads lanes, int sync, std::span<const std::uint8_t> tmem) {
  if (tmem.empty()) return;  // a kernel with no tensor memory
  const Syncs s = Syncs{1} << sync;
  for (Event& e : m.events) {
    if (!in_tmem(e, tmem) || !(e.after_async & lanes)) continue;
    e.released_async |= s;
    if (e.after & e.after_async & lanes) e.released |= s;
  }
}

void tc_release(Memory& m, const Quorum& q, int sync, std::span<const std::uint8_t> tmem) {
  if (tmem.empty()) return;
  const Syncs s = Syncs{1} << sync;
  for (Event& e : m.events) {
    if (!in_tmem(e, tmem) || !q.holds(e.after_async) || (q.per_warp_units & bit(e.thread))) continue;
    e.released_async |= s;
    if (q.holds(e.after & e.after_async)) e.released |= s;
  }
}

void tc_acquire(Memory& m, Threads to, Syncs syncs, std::span<const std::uint8_t> tmem) {
  if (tmem.empty()) return;  // a kernel with no tensor memory
  for (Event& e : m.events) {
    if (!in_tmem(e, tmem) || !(e.visible_async & syncs)) continue;
    e.after_async |= to;
    if (e.visible & e.visible_async & syncs) e.after |= to;
    settle_weak(e);
  }
}

void consume(Memory& m, int buf, Threads by) {
  const auto [lo, hi] = range(m, buf);
  for (std::size_t i = lo; i < hi; ++i) {
    Event& e = m.events[i];
    if (e.write || e.proxy != Proxy::generic || !(by & bit(e.thread))) continue;
    e.after_async |= bit(e.thread);
  }
}

void proxy_fence(Memory& m, Threads by, int first_buf, int end_buf, std::span<const std::uint8_t> skip) {
  const int end = end_buf < 0 ? m.buffers : end_buf;
  for (Event& e : m.events)
    if (e.buf >= first_buf && e.buf < end && !(e.buf < skip.size() && skip[e.buf])) e.after_async |= e.after & by;
}

// Only the generic writes of a tensor map matter to the tensormap proxy's
// reads (Check: an async-proxy read conflicts with generic writes only); an
// async-proxy event keeps `after_async` equal to `after` (mirror).
void tensormap_release(Memory& m, Threads by, std::span<const std::uint8_t> tmaps, std::uint8_t mark) {
  for (Event& e : m.events)
    if (e.buf < tmaps.size() && tmaps[e.buf] && e.write && e.proxy == Proxy::generic && (e.after & by) != 0)
      e.after_async |= bit(mark);
}

void tensormap_acquire(Memory& m, Threads by, int buf, std::uint8_t mark) {
  const auto [lo, hi] = range(m, buf);
  for (std::size_t i = lo; i < hi; ++i) {
    Event& e = m.events[i];
    if (e.write && e.proxy == Proxy::generic && (e.after_async & bit(mark))) e.after_async |= e.after & by;
  }
}

}  // namespace pc::spec::hb
