// The bounded search's state (bmc_encoder.hpp): the initial one, its cases,
// the footprints' objects, and the encoding of spec/hb.cpp and
// spec/mbarrier.cpp that the steps share.
#include "checker/smt/bmc_encoder.hpp"

#include <algorithm>

#include "spec/mbarrier.hpp"
#include "spec/rules.hpp"
#include "spec/tmem.hpp"

namespace pc::smt::bmc::encoding {

State Encoder::initial() {
  State s;
  for (const bmc::Agent& a : f_.agents) {
    for (std::size_t i = 0; i < a.steps.size(); ++i) s.at.push_back(c_.bool_val(i == 0));
    s.stage.push_back(c_.bool_val(false));
    s.ticket.push_back(num(0));
    s.cl_stage.push_back(c_.bool_val(false));
    s.cl_ticket.push_back(num(0));
  }
  s.cl = {num(0), num(0)};
  for (int m = 0; m < M_; ++m) {
    s.pending.push_back(num(static_cast<std::int64_t>(f_.mbar_count[static_cast<std::size_t>(m)])));
    s.tx.push_back(num(0));
    s.odd.push_back(c_.bool_val(false));
    const std::int64_t n = f_.mbar_count[static_cast<std::size_t>(m)];
    s.live.push_back(c_.bool_val(n > 0));
    s.dead.push_back(c_.bool_val(false));
    s.expected.push_back(num(n));
  }
  for (int n = 0; n < N_; ++n) {
    s.arrived.push_back(num(0));
    s.count.push_back(num(0));
    s.gen.push_back(num(0));
    s.whole.push_back(c_.bool_val(false));
  }
  for (std::size_t j = 0; j < f_.tmas.size(); ++j) s.landed.push_back(c_.bool_val(false));
  s.alive.assign(static_cast<std::size_t>(E_), c_.bool_val(false));
  if (f_.tmem_slots > 0)
    for (int c = 0; c < f_.ctas; ++c) {
      s.tm_used.push_back(num(0));
      s.tm_relinq.push_back(c_.bool_val(false));
      s.tm_last.push_back(num(0));
      s.tm_pair.push_back(num(0));
      s.tm_which.push_back(num(0));
      for (int k = 0; k < f_.tmem_slots; ++k) s.tm_alloc.push_back(c_.bool_val(false));
    }
  if (f_.clc_requests > 0) {
    s.clc = {num(f_.clc_queue)};
    for (int c = 0; c < f_.ctas; ++c) s.clc.push_back(c_.bool_val(false));
    s.decided.assign(static_cast<std::size_t>(f_.clc_requests), c_.bool_val(false));
    s.answer = s.decided;
    s.response.assign(f_.buffers.size(), c_.bool_val(false));
  }
  s.k.assign(f_.threads.size() * static_cast<std::size_t>(E_), c_.bool_val(false));
  s.ka = s.k;
  s.kw = s.k;
  // Each CTA's start, known to its threads (spec::sync_order::cta_starts).
  for (int c = 0; c < static_cast<int>(f_.start_event.size()); ++c) {
    const int e = f_.start_event[static_cast<std::size_t>(c)];
    if (e < 0) continue;
    s.alive[static_cast<std::size_t>(e)] = c_.bool_val(true);
    for (int t = 0; t < static_cast<int>(f_.threads.size()); ++t)
      if (f_.thread_cta[static_cast<std::size_t>(t)] == c) {
        K(s, t, e, false) = c_.bool_val(true);
        K(s, t, e, true) = c_.bool_val(true);
      }
  }
  s.rel.assign(static_cast<std::size_t>(S_ * E_), c_.bool_val(false));
  s.vis = s.rel;
  s.rela = s.rel;
  s.visa = s.rel;
  s.relw = s.rel;
  s.visw = s.rel;
  return s;
}

std::vector<Case> Encoder::cases(const State& s) {
  std::vector<Case> out;
  for (int a = 0; a < static_cast<int>(f_.agents.size()); ++a) {
    const bmc::Agent& ag = f_.agents[static_cast<std::size_t>(a)];
    for (int i = 0; i < static_cast<int>(ag.steps.size()); ++i) step_cases(s, a, i, out);
  }
  for (int j = 0; j < static_cast<int>(f_.tmas.size()); ++j) {
    if (f_.tmas[static_cast<std::size_t>(j)].request < 0) {
      out.push_back(landing(s, j));
      continue;
    }
    for (const bool canceled : {true, false}) out.push_back(clc_landing(s, j, canceled));
  }
  return out;
}

// Every agent has exited.
z3::expr Encoder::all_exited(const State& s) {
  z3::expr all = c_.bool_val(true);
  for (std::size_t a = 0; a < f_.agents.size(); ++a) all = and2(all, exited(s, static_cast<int>(a)));
  return all;
}

int Encoder::object(Obj o, int i) const {
  const int B = static_cast<int>(f_.buffers.size()), A = static_cast<int>(f_.agents.size());
  const int T = static_cast<int>(f_.tmas.size());
  switch (o) {
    case Obj::mbar: return i;
    case Obj::named: return M_ + i;
    case Obj::buf: return M_ + N_ + i;
    case Obj::exited: return M_ + N_ + B + i;
    case Obj::issued: return M_ + N_ + B + A + i;
    case Obj::landed: return M_ + N_ + B + A + T + i;
    case Obj::cluster: return M_ + N_ + B + A + 2 * T;
    case Obj::clc: return M_ + N_ + B + A + 2 * T + 1;
    case Obj::tmem: return M_ + N_ + B + A + 2 * T + 2 + i;
  }
  return -1;
}

// Every agent of CTA c has exited (step.cpp, State::cta_exited: set by
// the exit of its last agent, so never for a CTA without one).
z3::expr Encoder::cta_exited(const State& s, int c) {
  z3::expr all = c_.bool_val(true);
  bool any = false;
  for (int b = 0; b < static_cast<int>(f_.agents.size()); ++b)
    if (f_.agents[static_cast<std::size_t>(b)].cta == c) {
      all = and2(all, exited(s, b));
      any = true;
    }
  return any ? all : c_.bool_val(false);
}

// step.cpp, require_alive: an operation on another CTA, `remote` (-1:
// none), which must not have exited (rules::target_alive); the footprint
// reads whether its agents have.
void Encoder::require_alive(const State& s, int remote, Case& c) {
  if (remote < 0) return;
  c.raises.push_back({spec::rules::target_alive(true), cta_exited(s, remote)});
  for (int b = 0; b < static_cast<int>(f_.agents.size()); ++b)
    if (f_.agents[static_cast<std::size_t>(b)].cta == remote) c.reads.push_back(object(Obj::exited, b));
}

// step.cpp, require_started: each issuing thread must know that CTA
// `remote` (-1: none) has started (spec::sync_order::cta_start_known).
void Encoder::require_started(const State& s, int remote, const std::vector<int>& issuers, std::vector<Raise>& raises) {
  if (remote < 0 || static_cast<std::size_t>(remote) >= f_.start_event.size()) return;
  const int e = f_.start_event[static_cast<std::size_t>(remote)];
  if (e < 0) return;
  for (const int t : issuers) {
    if (t == f_.events[static_cast<std::size_t>(e)].thread) continue;
    const z3::expr known = or2(or2(K(s, t, e, false), K(s, t, e, true)), KW(s, t, e));
    raises.push_back({spec::rules::target_started(false), not1(known)});
  }
}

// spec::sync_order::remote_operation: the step's atomic writes of the
// target CTA's end pseudo-buffer (each replaces its thread's older one,
// hb.cpp, put), released into the channel its landing is seen through.
void Encoder::remote_operation(State& n, const Step& st, Case& c) {
  for (const int e : st.end_events) {
    const bmc::Event& mine = f_.events[static_cast<std::size_t>(e)];
    for (int x = 0; x < E_; ++x) {
      const bmc::Event& old = f_.events[static_cast<std::size_t>(x)];
      if (x != e && old.buf == mine.buf && old.thread == mine.thread) n.alive[static_cast<std::size_t>(x)] = c_.bool_val(false);
    }
    n.alive[static_cast<std::size_t>(e)] = c_.bool_val(true);
    K(n, mine.thread, e, false) = c_.bool_val(true);
    if (st.into != no_sync) {
      const int sync = sync_of(st.into, st.mbar);
      R(n, sync, e, false) = c_.bool_val(true);
      R(n, sync, e, true) = c_.bool_val(true);
    }
    c.writes.push_back(object(Obj::buf, mine.buf));
  }
}

// spec::sync_order::cta_end_ordered, at the last exit of CTA `cta`: each
// live event of its end pseudo-buffer known to one of its threads.
void Encoder::end_ordered(const State& s, int cta, const z3::expr& last, Case& c) {
  if (f_.ctas < 2) return;
  const int buf = f_.first_end + cta;
  c.reads.push_back(object(Obj::buf, buf));
  for (int e = 0; e < E_; ++e) {
    if (f_.events[static_cast<std::size_t>(e)].buf != buf) continue;
    z3::expr known = c_.bool_val(false);
    for (int t = 0; t < static_cast<int>(f_.threads.size()); ++t)
      if (f_.thread_cta[static_cast<std::size_t>(t)] == cta) known = or2(known, or2(K(s, t, e, false), KW(s, t, e)));
    spec::rules::CtaExit x;
    x.remote_unordered = true;
    c.raises.push_back({spec::rules::cta_exit(x), and2(and2(last, s.alive[static_cast<std::size_t>(e)]), not1(known))});
  }
}

void Encoder::release_start(State& s, const std::vector<int>& from, int sync) {
  for (const int e : f_.start_event) {
    if (e < 0) continue;
    for (const int t : from) {
      R(s, sync, e, true) = or2(R(s, sync, e, true), K(std::as_const(s), t, e, true));
      R(s, sync, e, false) = or2(R(s, sync, e, false), and2(K(std::as_const(s), t, e, false), K(std::as_const(s), t, e, true)));
    }
  }
}

void Encoder::acquire_start(State& s, const std::vector<int>& to, int sync) {
  for (const int e : f_.start_event) {
    if (e < 0) continue;
    const z3::expr va = V(std::as_const(s), sync, e, true);
    const z3::expr both = and2(V(std::as_const(s), sync, e, false), va);
    for (const int t : to) {
      K(s, t, e, true) = or2(K(s, t, e, true), va);
      K(s, t, e, false) = or2(K(s, t, e, false), both);
    }
  }
}

z3::expr Encoder::exited(const State& s, int a) {
  z3::expr any = c_.bool_val(false);
  for (const int i : f_.agents[static_cast<std::size_t>(a)].ends) any = or2(any, at(s, a, i));
  return any;
}

// Agent b has exited along a path whose exit leaves a store's, wgmma's or
// cp.async write in flight (Step::in_flight).
z3::expr Encoder::exited_in_flight(const State& s, int b) {
  const bmc::Agent& ag = f_.agents[static_cast<std::size_t>(b)];
  z3::expr any = c_.bool_val(false);
  for (const int i : ag.ends)
    if (ag.steps[static_cast<std::size_t>(i - 1)].in_flight) any = or2(any, at(s, b, i));
  return any;
}

// The agent at step i goes on to i + 1 (when `go`; otherwise it stays).
void Encoder::advance(State& s, int a, int i, const z3::expr& go) {
  const std::size_t here = static_cast<std::size_t>(base_[static_cast<std::size_t>(a)] + i);
  s.at[here] = !go;
  s.at[here + 1] = go;
}

// spec/hb.cpp, one by one: release, release_write, complete, acquire, order
// (each with its after_weak part: a chain through a too-narrow release).
void Encoder::release(State& s, const std::vector<int>& from, int sync, const z3::expr& when) {
  for (int e = 0; e < E_; ++e)
    for (const bool av : {false, true}) {
      if (av && !generic(e)) continue;
      z3::expr known = c_.bool_val(false);
      for (const int t : from) known = or2(known, K(std::as_const(s), t, e, av));
      R(s, sync, e, av) = or2(R(s, sync, e, av), and2(when, known));
    }
  for (int e = 0; e < E_; ++e) {
    z3::expr weak = c_.bool_val(false);
    for (const int t : from) weak = or2(weak, KW(std::as_const(s), t, e));
    RW(s, sync, e) = or2(RW(s, sync, e), and2(when, weak));
  }
}

void Encoder::complete(State& s, int sync, const z3::expr& when) {
  for (int e = 0; e < E_; ++e)
    for (const bool av : {false, true}) {
      if (av && !generic(e)) continue;
      V(s, sync, e, av) = or2(V(s, sync, e, av), and2(when, R(std::as_const(s), sync, e, av)));
    }
  for (int e = 0; e < E_; ++e) VW(s, sync, e) = or2(VW(s, sync, e), and2(when, RW(std::as_const(s), sync, e)));
}

void Encoder::acquire(State& s, const std::vector<int>& to, int sync, const z3::expr& when) {
  for (int e = 0; e < E_; ++e)
    for (const bool av : {false, true}) {
      if (av && !generic(e)) continue;
      const z3::expr v = and2(when, V(std::as_const(s), sync, e, av));
      for (const int t : to) K(s, t, e, av) = or2(K(s, t, e, av), v);
    }
  // What reached `sync` through a chain with a too-narrow edge in it.
  for (int e = 0; e < E_; ++e) {
    const z3::expr v = and2(when, VW(std::as_const(s), sync, e));
    for (const int t : to) KW(s, t, e) = or2(KW(s, t, e), v);
  }
}

// The rest of spec/hb.cpp's acquire: what is visible through `weak` (a
// release whose scope does not reach the acquire) and not yet ordered
// before every thread of `to` is after_weak for them.
void Encoder::acquire_weak(State& s, const std::vector<int>& to, int weak, const z3::expr& when) {
  for (int e = 0; e < E_; ++e) {
    z3::expr all = c_.bool_val(true);
    for (const int t : to) all = and2(all, K(std::as_const(s), t, e, false));
    const z3::expr v = and2(when, and2(or2(V(std::as_const(s), weak, e, false), VW(std::as_const(s), weak, e)), not1(all)));
    for (const int t : to) {
      z3::expr& w = s.kw[static_cast<std::size_t>(t * E_ + e)];
      w = or2(w, v);
    }
  }
}

// spec/hb.cpp, move: what `from` holds is released into `to` instead.
void Encoder::move(State& s, int from, int to) {
  for (int e = 0; e < E_; ++e)
    for (const bool av : {false, true}) {
      if (av && !generic(e)) continue;
      R(s, to, e, av) = or2(R(s, to, e, av), R(s, from, e, av));
      R(s, from, e, av) = c_.bool_val(false);
    }
  for (int e = 0; e < E_; ++e) {
    RW(s, to, e) = or2(RW(s, to, e), RW(std::as_const(s), from, e));
    RW(s, from, e) = c_.bool_val(false);
  }
}

// spec/hb.cpp, forward: what `from` holds is released into `to` too.
void Encoder::forward(State& s, int from, int to) {
  for (int e = 0; e < E_; ++e)
    for (const bool av : {false, true}) {
      if (av && !generic(e)) continue;
      R(s, to, e, av) = or2(R(s, to, e, av), R(s, from, e, av));
    }
  for (int e = 0; e < E_; ++e) RW(s, to, e) = or2(RW(s, to, e), RW(std::as_const(s), from, e));
}

// spec/hb.cpp, release_unit: what async unit `unit` is ordered after
// goes into `sync`, less its own accesses in groups after `upto` (0: all)
// and the accesses of the arriving lanes `except`.
void Encoder::release_unit(State& s, int unit, int upto, int sync, const std::vector<int>& except) {
  for (int e = 0; e < E_; ++e) {
    const bmc::Event& ev = f_.events[static_cast<std::size_t>(e)];
    if (ev.thread == unit && upto != 0 && ev.group > upto) continue;
    if (std::find(except.begin(), except.end(), ev.thread) != except.end()) continue;
    for (const bool av : {false, true}) {
      if (av && !generic(e)) continue;
      R(s, sync, e, av) = or2(R(s, sync, e, av), K(s, unit, e, av));
    }
    RW(s, sync, e) = or2(RW(s, sync, e), KW(std::as_const(s), unit, e));
  }
}

void Encoder::order(State& s, int from, int to) {
  for (int e = 0; e < E_; ++e)
    for (const bool av : {false, true}) {
      if (av && !generic(e)) continue;
      K(s, to, e, av) = or2(K(s, to, e, av), K(s, from, e, av));
    }
  for (int e = 0; e < E_; ++e) KW(s, to, e) = or2(KW(s, to, e), KW(std::as_const(s), from, e));
}

// spec/mbarrier.cpp: the tx-count moves by delta (expect-tx: positive,
// complete-tx: negative) and must stay within the ISA's range.
void Encoder::add_tx(const State& s, State& n, int m, std::int64_t delta, std::vector<Raise>& raises) {
  const std::size_t i = static_cast<std::size_t>(m);
  const z3::expr tx = s.tx[i] + num(delta);
  raises.push_back({Violation::tx_out_of_range, tx > spec::mbarrier::max_tx || tx < -spec::mbarrier::max_tx});
  n.tx[i] = tx;
}

// spec/mbarrier.cpp, settle: a phase completes when pending and tx are 0.
void Encoder::settle(State& s, int m) {
  const std::size_t i = static_cast<std::size_t>(m);
  const z3::expr done = s.pending[i] == 0 && s.tx[i] == 0;
  s.odd[i] = z3::ite(done, !s.odd[i], s.odd[i]);
  s.pending[i] = z3::ite(done, s.expected[i], s.pending[i]);
  // Program::mbar_syncs: the phase completes each of the barrier's channels.
  complete(s, m, done);
  for (const int x : {f_.mbar_cluster_sync[i], f_.mbar_weak_sync[i]})
    if (x >= 0) complete(s, sync_of(x, m), done);
}

// A use of an mbarrier that is not live (spec/mbarrier.cpp, check_live),
// named as step.cpp's mbar_fail names it (rules::uninitialized_use).
void Encoder::require_live(const State& s, int m, std::vector<Raise>& raises) {
  const std::size_t i = static_cast<std::size_t>(m);
  raises.push_back({spec::rules::uninitialized_use(Violation::uninitialized_barrier, f_.mbar_kernel_inits[i]),
                    and2(not1(s.live[i]), not1(s.dead[i]))});
  raises.push_back({Violation::invalidated_barrier, s.dead[i]});
}

// step.cpp, require_init_visible: the hb check of a read of the barrier's
// memory by `issuers` through the generic proxy, or the async one
// (rules::init_use): an init not ordered before the use is
// unsynchronized_init; the async proxy's use of an init ordered before it
// (by the issuing thread, or by another thread and a barrier) with no proxy
// fence between is a warning, not raised.
void Encoder::require_init_visible(const State& s, int m, const std::vector<int>& issuers, bool /*async: its proxy is a warning*/,
                                   std::vector<Raise>& raises) {
  const int pseudo = f_.first_pseudo + m;
  for (int e = 0; e < E_; ++e) {
    const bmc::Event& init = f_.events[static_cast<std::size_t>(e)];
    if (init.buf != pseudo) continue;
    const z3::expr live = s.alive[static_cast<std::size_t>(e)];
    for (const int t : issuers) {
      const z3::expr ordered = init.thread == t ? c_.bool_val(true) : K(s, t, e, false);
      raises.push_back({Violation::unsynchronized_init, and2(live, not1(ordered))});
    }
  }
}

// One buffer access (spec/hb.cpp, check_only and access): the violations
// it raises, then its events recorded. `unit`: an async unit's access
// (-1: the issuers' own), through the async proxy when `async`.
void Encoder::access(State& s, const Step& st, const Step::Part& part, const std::vector<int>& issuers, int unit, bool async,
                     std::vector<Raise>& raises) {
  const std::vector<int>& over = f_.aliases[static_cast<std::size_t>(part.buf)];
  const bool write = st.write || part.write;
  const bool tensor = f_.buffer_slot[static_cast<std::size_t>(part.buf)] >= 0;
  // step.cpp, require_no_live_mbarrier (spec/mbarrier.hpp, data_use).
  for (const int other : over)
    if (other >= f_.first_pseudo) raises.push_back({Violation::barrier_memory_reuse, s.live[static_cast<std::size_t>(other - f_.first_pseudo)]});
  for (const int t : issuers)
    for (int e = 0; e < E_; ++e) {
      const bmc::Event& prior = f_.events[static_cast<std::size_t>(e)];
      const bool mine = prior.buf == part.buf;
      if (!mine && std::find(over.begin(), over.end(), prior.buf) == over.end()) continue;
      if (!prior.write && !write) continue;
      if (st.after_own && unit >= 0 && prior.thread == unit) continue;  // hb::Access::after_own_unit
      const bool same_part = mine && st.spread != 0 && prior.spread == st.spread;
      const z3::expr live = s.alive[static_cast<std::size_t>(e)];
      z3::expr ordered = c_.bool_val(prior.thread == t || same_part);
      if (!ordered.is_true()) {
        // Only a scope kept them apart (after_weak): a read is a
        // scope_race, a write the scope_war warning (not raised).
        ordered = K(s, t, e, false);
        const z3::expr weak = s.kw[static_cast<std::size_t>(t * E_ + e)];
        // In tensor memory a lane's write is its allocation's: a use not
        // ordered after it is tmem_unallocated (spec::tmem::conflict).
        const Violation alloc = spec::tmem::conflict(tensor && prior.write && f_.lane[static_cast<std::size_t>(prior.thread)]);
        raises.push_back({alloc != Violation::none ? alloc : Violation::data_race, and2(and2(live, !ordered), not1(weak))});
        if (!write) raises.push_back({alloc != Violation::none ? alloc : Violation::scope_race, and2(and2(live, !ordered), weak)});
      }
      if (async && generic(e)) {
        const z3::expr unfenced = and2(and2(live, ordered), !K(s, t, e, true));
        // An overwrite ordered after another thread's write: the
        // cross_proxy_waw warning, not raised.
        if (prior.write && !(write && part.overwrite && prior.thread != t)) raises.push_back({Violation::proxy_race, unfenced});
        else if (!prior.write) raises.push_back({Violation::cross_proxy_war, unfenced});
      }
    }
  if (unit >= 0)
    for (const int t : issuers) order(s, t, unit);
  if (write) {
    // hb::Access::covered: the aliases the write overwrites whole.
    const std::vector<int>& covered = f_.covers[static_cast<std::size_t>(part.buf)];
    for (int e = 0; e < E_; ++e)
      if (std::find(covered.begin(), covered.end(), f_.events[static_cast<std::size_t>(e)].buf) != covered.end())
        s.alive[static_cast<std::size_t>(e)] = c_.bool_val(false);
  }
  if (write)
    for (int e = 0; e < E_; ++e) {
      const bmc::Event& prior = f_.events[static_cast<std::size_t>(e)];
      if (prior.buf != part.buf) continue;
      bool issuer = false;
      for (const int t : issuers) issuer |= t == prior.thread;
      const bool keep = unit < 0 && st.spread != 0 && prior.spread == st.spread && !issuer;
      if (!keep) s.alive[static_cast<std::size_t>(e)] = c_.bool_val(false);
    }
  for (const int e : part.events) {
    s.alive[static_cast<std::size_t>(e)] = c_.bool_val(true);
    K(s, f_.events[static_cast<std::size_t>(e)].thread, e, false) = c_.bool_val(true);
  }
}

// The threads of CTA `cta` (-1: of the cluster) not exited, less agent `except`'s.
z3::expr Encoder::live_threads(const State& s, int except, int cta) {
  z3::expr live = num(0);
  for (int b = 0; b < static_cast<int>(f_.agents.size()); ++b)
    if (b != except && (cta < 0 || f_.agents[static_cast<std::size_t>(b)].cta == cta))
      live = live + z3::ite(exited(s, b), num(0), num(f_.agents[static_cast<std::size_t>(b)].threads));
  return live;
}

// The footprint of an access of `buf`: it writes the buffer's events and
// reads those of the buffers that share bytes with it.
void Encoder::touch(Case& c, int buf) const {
  c.writes.push_back(object(Obj::buf, buf));
  for (const int other : f_.covers[static_cast<std::size_t>(buf)]) c.writes.push_back(object(Obj::buf, other));
  for (const int other : f_.aliases[static_cast<std::size_t>(buf)]) {
    c.reads.push_back(object(Obj::buf, other));
    if (other >= f_.first_pseudo) c.reads.push_back(object(Obj::mbar, other - f_.first_pseudo));
  }
}

// step.cpp, mbar_memory_write: an init or inval writes the barrier's
// memory (by `leader`); where other objects are laid over it, a live
// mbarrier there is re-initialised (spec/mbarrier.hpp, init_over), and
// each earlier access of theirs not ordered before the leader is a race
// (hb::check_only of a generic write: after_weak alone only warns).
void Encoder::mbar_memory_write(const State& s, int mbar, int leader, bool init, Case& c) {
  for (const int other : f_.aliases[static_cast<std::size_t>(f_.first_pseudo + mbar)]) {
    c.reads.push_back(object(Obj::buf, other));
    if (init && other >= f_.first_pseudo) {
      c.reads.push_back(object(Obj::mbar, other - f_.first_pseudo));
      c.raises.push_back({Violation::reinit_live_barrier, s.live[static_cast<std::size_t>(other - f_.first_pseudo)]});
    }
    for (int e = 0; e < E_; ++e) {
      const bmc::Event& prior = f_.events[static_cast<std::size_t>(e)];
      if (prior.buf != other || prior.thread == leader) continue;
      const z3::expr weak = s.kw[static_cast<std::size_t>(leader * E_ + e)];
      c.raises.push_back({Violation::data_race, and2(and2(s.alive[static_cast<std::size_t>(e)], !K(s, leader, e, false)), not1(weak))});
    }
  }
}

// hb::overwrite of the barrier's memory: `event` (by its thread) is its only access.
void Encoder::overwrite(State& n, int mbar, int event) {
  for (int e = 0; e < E_; ++e)
    if (f_.events[static_cast<std::size_t>(e)].buf == f_.first_pseudo + mbar) n.alive[static_cast<std::size_t>(e)] = c_.bool_val(false);
  n.alive[static_cast<std::size_t>(event)] = c_.bool_val(true);
  K(n, f_.events[static_cast<std::size_t>(event)].thread, event, false) = c_.bool_val(true);
}

// Whether a write of `buf` by one of `by` meets a live event not ordered
// before that thread (spec/hb.cpp, check_only; after_weak alone: a warning).
z3::expr Encoder::unordered(const State& s, int buf, const std::vector<int>& by) {
  z3::expr any = c_.bool_val(false);
  for (int e = 0; e < E_; ++e) {
    const bmc::Event& prior = f_.events[static_cast<std::size_t>(e)];
    if (prior.buf != buf) continue;
    for (const int t : by)
      if (prior.thread != t)
        any = or2(any, and2(and2(s.alive[static_cast<std::size_t>(e)], not1(K(s, t, e, false))),
                            not1(s.kw[static_cast<std::size_t>(t * E_ + e)])));
  }
  return any;
}

z3::expr Encoder::issued(const State& s, int j) {
  const bmc::Tma& t = f_.tmas[static_cast<std::size_t>(j)];
  z3::expr later = c_.bool_val(false);
  for (int i = t.step + 1; i < f_.agents[static_cast<std::size_t>(t.agent)].steps[static_cast<std::size_t>(t.step)].end; ++i)
    later = or2(later, at(s, t.agent, i));
  return later;
}

}  // namespace pc::smt::bmc::encoding
