// The bounded search's steps on tensor memory, named barriers, the cluster
// barrier and the AMD workgroup barrier, and the agents' exit (bmc_encoder.hpp).
#include "checker/smt/bmc_encoder.hpp"

#include "spec/rules.hpp"
#include "spec/tmem.hpp"

namespace pc::smt::bmc::encoding {

// step.cpp, tmem_alloc_memory, when `when` holds: an alloc's or dealloc's
// write of each element (part) of the allocation by the leader of the
// warp whose lanes are `by` (hb::overwrite, known to `known` too, then
// hb::order from the leader to the lanes); a dealloc first checks that
// every access is ordered before `by` or `known` (tmem_dealloc_in_use).
void Encoder::alloc_memory(const State& s, State& n, const Step::Part& part, const std::vector<int>& by, const std::vector<int>& known,
                           bool dealloc, const z3::expr& when, Case& c) {
  if (dealloc) {
    const z3::expr in_use = known.empty() ? unordered(s, part.buf, by) : and2(unordered(s, part.buf, by), unordered(s, part.buf, known));
    c.raises.push_back({Violation::tmem_dealloc_in_use, and2(when, in_use)});
  }
  const int ev = part.events[0];
  const int leader = f_.events[static_cast<std::size_t>(ev)].thread;
  for (int e = 0; e < E_; ++e)
    if (f_.events[static_cast<std::size_t>(e)].buf == part.buf)
      n.alive[static_cast<std::size_t>(e)] = and2(n.alive[static_cast<std::size_t>(e)], not1(when));
  n.alive[static_cast<std::size_t>(ev)] = or2(n.alive[static_cast<std::size_t>(ev)], when);
  K(n, leader, ev, false) = or2(K(n, leader, ev, false), when);
  for (const int t : known) K(n, t, ev, false) = or2(K(n, t, ev, false), when);
  for (const int t : by)
    if (t != leader)
      for (int e = 0; e < E_; ++e)
        for (const bool av : {false, true}) {
          if (av && !generic(e)) continue;
          K(n, t, e, av) = or2(K(n, t, e, av), and2(when, K(n, leader, e, av)));
        }
  for (const int t : by)
    if (t != leader)
      for (int e = 0; e < E_; ++e) KW(n, t, e) = or2(KW(n, t, e), and2(when, KW(std::as_const(n), leader, e)));
  touch(c, part.buf);
}

// tcgen05.alloc, dealloc, relinquish_alloc_permit by one warp (step.cpp,
// tmem_alloc; spec::tmem::alloc, dealloc, relinquish): an alloc blocks
// while the columns are not free.
void Encoder::tmem_alloc(const State& s, int a, const Step& st, Case& c) {
  namespace tm = spec::tmem;
  const int cta = f_.agents[static_cast<std::size_t>(a)].cta;
  const std::size_t ci = static_cast<std::size_t>(cta);
  State& n = c.next;
  c.writes.push_back(object(Obj::tmem, cta));
  const auto op = static_cast<tm::PairOp>(st.tmem_op);
  if (op == tm::PairOp::relinquish) {
    n.tm_relinq[ci] = c_.bool_val(true);
    return;
  }
  const bool alloc = op == tm::PairOp::alloc;
  const z3::expr misuse = alloc ? or2(or2(s.tm_relinq[ci], tm_alloc(s, cta, st.slot)), tm_grows(s, cta, st.cols))
                                : not1(tm_alloc(s, cta, st.slot));
  c.raises.push_back({Violation::tmem_misuse, misuse});
  if (alloc) c.guard = and2(c.guard, or2(misuse, s.tm_used[ci] + num(st.cols) <= num(tm::columns)));
  n.tm_used[ci] = s.tm_used[ci] + num(alloc ? st.cols : -st.cols);
  if (alloc) n.tm_last[ci] = num(st.cols);
  tm_alloc(n, cta, st.slot) = c_.bool_val(alloc);
  for (const Step::Part& part : st.parts) alloc_memory(s, n, part, st.lanes, {}, !alloc, c_.bool_val(true), c);
}

// A cta_group 2 collective (step.cpp, tmem_pair; spec::tmem::pair_issue),
// with no rendezvous: the first warp to issue performs it in both CTAs
// (its leader writes both CTAs' parts) and goes on; the second joins it,
// its lanes ordered after the first's writes still recorded (the events of
// the peer CTA's collectives on the same allocation that are alive).
void Encoder::tmem_pair_cases(const State& s, int a, int i, Case c, std::vector<Case>& out) {
  namespace tm = spec::tmem;
  const bmc::Agent& ag = f_.agents[static_cast<std::size_t>(a)];
  const Step& st = ag.steps[static_cast<std::size_t>(i)];
  const int me = ag.cta, peer = tm::peer(ag.cta);
  const std::size_t mi = static_cast<std::size_t>(me), pi = static_cast<std::size_t>(peer);
  const auto op = static_cast<tm::PairOp>(st.tmem_op);
  const z3::expr none = num(static_cast<int>(tm::PairOp::none)), kind = num(st.tmem_op);
  State& n = c.next;
  c.writes.push_back(object(Obj::tmem, me));
  c.writes.push_back(object(Obj::tmem, peer));
  for (int b = 0; b < static_cast<int>(f_.agents.size()); ++b)
    if (f_.agents[static_cast<std::size_t>(b)].cta == peer) c.reads.push_back(object(Obj::exited, b));
  const z3::expr ahead = s.tm_pair[mi] != none;
  if (op == tm::PairOp::dealloc)
    c.raises.push_back({Violation::tmem_misuse, ahead});
  else
    c.guard = and2(c.guard, not1(ahead));
  const z3::expr first = and2(not1(ahead), s.tm_pair[pi] == none);
  const z3::expr second = and2(not1(ahead), s.tm_pair[pi] != none);
  z3::expr mismatch = s.tm_pair[pi] != kind;
  if (op != tm::PairOp::relinquish) mismatch = mismatch || s.tm_which[pi] != num(st.slot);
  mismatch = and2(second, mismatch);
  z3::expr misuse = cta_exited(s, peer), blocked = c_.bool_val(false);
  if (op == tm::PairOp::alloc) {
    for (const int x : {me, peer}) {
      misuse = or2(misuse, or2(or2(s.tm_relinq[static_cast<std::size_t>(x)], tm_alloc(s, x, st.slot)), tm_grows(s, x, st.cols)));
      blocked = or2(blocked, s.tm_used[static_cast<std::size_t>(x)] + num(st.cols) > num(tm::columns));
    }
  } else if (op == tm::PairOp::dealloc) {
    misuse = or2(misuse, or2(not1(tm_alloc(s, me, st.slot)), not1(tm_alloc(s, peer, st.slot))));
  }
  misuse = and2(first, misuse);
  c.raises.push_back({Violation::tmem_misuse, or2(mismatch, misuse)});
  c.guard = and2(c.guard, not1(and2(first, and2(not1(misuse), blocked))));
  // (a raise stops the search: the step is not taken then)
  const z3::expr perform = first;
  n.tm_pair[mi] = z3::ite(first, kind, s.tm_pair[mi]);
  n.tm_which[mi] = z3::ite(first, num(op == tm::PairOp::relinquish ? 0 : st.slot), s.tm_which[mi]);
  n.tm_pair[pi] = z3::ite(second, none, s.tm_pair[pi]);
  n.tm_which[pi] = z3::ite(second, num(0), s.tm_which[pi]);
  for (const int x : {me, peer}) {
    const std::size_t xi = static_cast<std::size_t>(x);
    if (op == tm::PairOp::relinquish) {
      n.tm_relinq[xi] = or2(s.tm_relinq[xi], perform);
      continue;
    }
    const bool alloc = op == tm::PairOp::alloc;
    n.tm_used[xi] = z3::ite(perform, s.tm_used[xi] + num(alloc ? st.cols : -st.cols), s.tm_used[xi]);
    if (alloc) n.tm_last[xi] = z3::ite(perform, num(st.cols), s.tm_last[xi]);
    tm_alloc(n, x, st.slot) = z3::ite(perform, c_.bool_val(alloc), tm_alloc(s, x, st.slot));
  }
  if (op != tm::PairOp::relinquish) {
    for (const Step::Part& part : st.parts) alloc_memory(s, n, part, st.lanes, {}, op == tm::PairOp::dealloc, perform, c);
    // Joined: ordered after the first warp's writes (step.cpp, hb::learn_write).
    for (const int b : peer_collectives(peer, st))
      for (const Step::Part& part : f_.agents[static_cast<std::size_t>(b / 65536)].steps[static_cast<std::size_t>(b % 65536)].parts)
        for (const int ev : part.events)
          for (const int t : st.lanes) K(n, t, ev, false) = or2(K(n, t, ev, false), and2(second, s.alive[static_cast<std::size_t>(ev)]));
  }
  advance(n, a, i);
  out.push_back(std::move(c));
}

// The tmem_pair steps of CTA `cta`'s agents on the same operation and
// allocation as `st` (agent * 65536 + step).
std::vector<int> Encoder::peer_collectives(int cta, const Step& st) const {
  std::vector<int> found;
  for (int b = 0; b < static_cast<int>(f_.agents.size()); ++b) {
    const bmc::Agent& o = f_.agents[static_cast<std::size_t>(b)];
    if (o.cta != cta) continue;
    for (int j = 0; j < static_cast<int>(o.steps.size()); ++j) {
      const Step& x = o.steps[static_cast<std::size_t>(j)];
      if (x.kind == StepKind::tmem_pair && x.tmem_op == st.tmem_op && x.slot == st.slot) found.push_back(b * 65536 + j);
    }
  }
  return found;
}

// AMD: each instruction orders the lanes of each of the agent's waves
// (step.cpp, Exec::op; spec/amd.hpp, wave_lanes_in_lockstep).
void Encoder::lockstep(State& n, const bmc::Agent& ag) {
  for (const auto& [leader, rest] : ag.lockstep) {
    order(n, leader, rest);
    order(n, rest, leader);
  }
}

// The live waves of an AMD workgroup: its agents not exited (step.cpp
// counts one wave per agent), less `except`.
z3::expr Encoder::live_waves(const State& s, int except) {
  z3::expr live = num(0);
  for (int b = 0; b < static_cast<int>(f_.agents.size()); ++b)
    if (b != except) live = live + z3::ite(exited(s, b), num(0), num(1));
  return live;
}

// spec/amd.cpp, settle: the instance completes once every live wave
// has signalled.
void Encoder::amd_settle(State& n, const z3::expr& waves) {
  const z3::expr done = waves > 0 && n.arrived[0] >= waves;
  n.gen[0] = z3::ite(done, n.gen[0] + 1, n.gen[0]);
  n.arrived[0] = z3::ite(done, num(0), n.arrived[0]);
  complete(n, M_, done);
}

// s_barrier, s_barrier_signal, s_barrier_wait (step.cpp, amd_barrier):
// the signal releases the wave's lanes into the barrier and joins the
// instance in progress; the wait acquires once that instance completes.
// s_barrier is both: its signal, then (when the instance is not complete
// at once) a resumption.
void Encoder::amd_barrier_cases(const State& s, int a, int i, Case c, std::vector<Case>& out) {
  const bmc::Agent& ag = f_.agents[static_cast<std::size_t>(a)];
  const Step& st = ag.steps[static_cast<std::size_t>(i)];
  const std::size_t ai = static_cast<std::size_t>(a);
  State& n = c.next;
  c.writes.push_back(object(Obj::named, 0));
  if (!st.signal) {  // s_barrier_wait
    c.guard = and2(c.guard, s.gen[0] > s.ticket[ai]);
    acquire(n, ag.lanes, M_, c_.bool_val(true));
    advance(n, a, i);
    out.push_back(std::move(c));
    return;
  }
  c.guard = and2(c.guard, !s.stage[ai]);
  for (int b = 0; b < static_cast<int>(f_.agents.size()); ++b) c.reads.push_back(object(Obj::exited, b));
  release(n, ag.lanes, M_, c_.bool_val(true));
  n.ticket[ai] = s.gen[0];
  n.arrived[0] = s.arrived[0] + 1;
  amd_settle(n, live_waves(s, -1));
  if (!st.wait) {
    advance(n, a, i);
    out.push_back(std::move(c));
    return;
  }
  const z3::expr done = n.gen[0] > s.gen[0];
  acquire(n, ag.lanes, M_, done);
  n.stage[ai] = !done;
  advance(n, a, i, done);
  out.push_back(std::move(c));
  Case r{ag.name + ": " + st.text + " resumes (line " + std::to_string(st.loc.line) + ")",
         and2(at(s, a, i), s.stage[ai] && s.gen[0] > s.ticket[ai]), {}, s, a, {object(Obj::named, 0)}, {}};
  lockstep(r.next, ag);
  acquire(r.next, ag.lanes, M_, c_.bool_val(true));
  r.next.stage[ai] = c_.bool_val(false);
  advance(r.next, a, i);
  out.push_back(std::move(r));
}

// The threads the cluster barrier's instance in progress waits for
// (spec::cluster::arrive's `expected`): the non-exited ones, and the
// exited ones whose arrive it counts (spec::cluster::exited_counted);
// agent `exiting` counts as exited.
z3::expr Encoder::cluster_expected(const State& s, int exiting) {
  z3::expr n = num(0);
  for (int b = 0; b < static_cast<int>(f_.agents.size()); ++b) {
    const std::size_t bi = static_cast<std::size_t>(b);
    const z3::expr gone = b == exiting ? c_.bool_val(true) : exited(s, b);
    const z3::expr counted = s.cl_ticket[bi] != 0 && s.cl_ticket[bi] == s.cl[1] + 1;
    n = n + z3::ite(!gone || counted, num(f_.agents[bi].threads), num(0));
  }
  return n;
}

// spec/cluster.cpp, settle: the instance completes once every live
// thread of the cluster has arrived.
void Encoder::cluster_settle(State& n, const z3::expr& expected) {
  const z3::expr done = n.cl[0] > 0 && n.cl[0] >= expected;
  n.cl[1] = z3::ite(done, n.cl[1] + 1, n.cl[1]);
  n.cl[0] = z3::ite(done, num(0), n.cl[0]);
  complete(n, sync_of(f_.cluster_sync, -1), done);
}

// cluster_arrive, cluster_wait, cluster_sync (step.cpp; spec/cluster.cpp):
// the arrive releases the agent's lanes (and what its fence_mbarrier_init
// released) into the cluster barrier and joins the instance in progress;
// the wait acquires, for all its lanes, once that instance completes.
// cluster_sync is both: its arrive, then (when the instance is not
// complete at once) a resumption. Misuse is Step::raises.
void Encoder::cluster_cases(const State& s, int a, int i, Case c, std::vector<Case>& out) {
  const bmc::Agent& ag = f_.agents[static_cast<std::size_t>(a)];
  const Step& st = ag.steps[static_cast<std::size_t>(i)];
  const std::size_t ai = static_cast<std::size_t>(a);
  const int sync = sync_of(f_.cluster_sync, -1);
  State& n = c.next;
  c.writes.push_back(object(Obj::cluster, 0));
  if (!st.arrive) {  // cluster_wait
    c.guard = and2(c.guard, s.cl[1] >= s.cl_ticket[ai]);
    acquire(n, ag.lanes, sync, c_.bool_val(true));
    n.cl_ticket[ai] = num(0);
    advance(n, a, i);
    out.push_back(std::move(c));
    return;
  }
  c.guard = and2(c.guard, !s.cl_stage[ai]);
  for (int b = 0; b < static_cast<int>(f_.agents.size()); ++b) c.reads.push_back(object(Obj::exited, b));
  if (st.sync) release(n, st.lanes, sync, c_.bool_val(true));
  else release_start(n, st.lanes, sync);
  if (ag.fence_sync >= 0) forward(n, sync_of(ag.fence_sync, -1), sync);
  n.cl_ticket[ai] = s.cl[1] + 1;
  n.cl[0] = s.cl[0] + num(ag.threads);
  cluster_settle(n, cluster_expected(s, -1));
  if (!st.wait) {
    advance(n, a, i);
    out.push_back(std::move(c));
    return;
  }
  const z3::expr done = n.cl[1] > s.cl[1];
  acquire(n, ag.lanes, sync, done);
  n.cl_ticket[ai] = z3::ite(done, num(0), n.cl_ticket[ai]);
  n.cl_stage[ai] = !done;
  advance(n, a, i, done);
  out.push_back(std::move(c));
  Case r{ag.name + ": " + st.text + " resumes (line " + std::to_string(st.loc.line) + ")",
         and2(at(s, a, i), s.cl_stage[ai] && s.cl[1] >= s.cl_ticket[ai]), {}, s, a, {object(Obj::cluster, 0)}, {}};
  acquire(r.next, ag.lanes, sync, c_.bool_val(true));
  r.next.cl_ticket[ai] = num(0);
  r.next.cl_stage[ai] = c_.bool_val(false);
  advance(r.next, a, i);
  out.push_back(std::move(r));
}

void Encoder::bar_sync_cases(const State& s, int a, int i, Case c, std::vector<Case>& out) {
  const bmc::Agent& ag = f_.agents[static_cast<std::size_t>(a)];
  const Step& st = ag.steps[static_cast<std::size_t>(i)];
  const std::size_t ai = static_cast<std::size_t>(a);
  State& n = c.next;
  // spec/named_barrier.cpp: arrive, then settle; the agent waits
  // until the generation passes the one it joined.
  const std::size_t b = static_cast<std::size_t>(st.named);
  const int sync = M_ + st.named;
  c.guard = and2(c.guard, !s.stage[ai]);
  const bool whole = st.count == 0;
  c.writes.push_back(object(Obj::named, st.named));
  if (whole)
    for (int b2 = 0; b2 < static_cast<int>(f_.agents.size()); ++b2)
      if (f_.agents[static_cast<std::size_t>(b2)].cta == ag.cta) c.reads.push_back(object(Obj::exited, b2));
  const z3::expr count = whole ? live_threads(s, -1, ag.cta) : num(static_cast<std::int64_t>(st.count));
  const z3::expr threads = num(ag.threads);
  const z3::expr over = s.arrived[b] + threads > count;
  const z3::expr differs = s.arrived[b] > 0 && (whole ? !s.whole[b] : (s.whole[b] || s.count[b] != count));
  if (ag.warps > 1) {
    // spec::named::arrive_warps: the warps up to the one that completes the
    // instance arrive, the others on the next one in a later step, which this
    // search does not follow (where a warp fits: else the arrive fails).
    const z3::expr fits = s.arrived[b] + num(ag.threads / ag.warps) <= count;
    c.raises.push_back({Violation::named_count_mismatch, differs || (over && !fits)});
    c.raises.push_back({Violation::named_count_mismatch, !differs && over && fits, true});
  } else {
    c.raises.push_back({Violation::named_count_mismatch, over || differs});
  }
  const z3::expr arrived = s.arrived[b] + threads;
  const z3::expr done = arrived >= count;
  n.ticket[ai] = s.gen[b];
  release(n, st.lanes, sync, c_.bool_val(true));
  n.gen[b] = z3::ite(done, s.gen[b] + 1, s.gen[b]);
  n.arrived[b] = z3::ite(done, num(0), arrived);
  n.count[b] = z3::ite(done, num(0), count);
  n.whole[b] = z3::ite(done, c_.bool_val(false), c_.bool_val(whole));
  complete(n, sync, done);
  if (!st.wait) {  // bar_arrive: on at once, acquiring nothing
    advance(n, a, i);
    out.push_back(std::move(c));
    return;
  }
  acquire(n, st.lanes, sync, done);
  n.stage[ai] = !done;
  advance(n, a, i, done);
  out.push_back(std::move(c));
  // Its resumption.
  Case r{ag.name + ": " + st.text + " resumes (line " + std::to_string(st.loc.line) + ")",
         and2(at(s, a, i), s.stage[ai] && s.gen[b] > s.ticket[ai]), {}, s, a, {object(Obj::named, st.named)},
         {}};
  acquire(r.next, st.lanes, sync, c_.bool_val(true));
  r.next.stage[ai] = c_.bool_val(false);
  advance(r.next, a, i);
  out.push_back(std::move(r));
}

// The agent exits (step.cpp, exit_agent): the barriers that wait for its
// threads wait for fewer, and its CTA's exit checks what is still in flight.
void Encoder::exit_step(const State& s, int a, int i, Case& c) {
  const bmc::Agent& ag = f_.agents[static_cast<std::size_t>(a)];
  const Step& st = ag.steps[static_cast<std::size_t>(i)];
  State& n = c.next;
  advance(n, a, i);
  for (int b = 0; b < static_cast<int>(f_.agents.size()); ++b) c.reads.push_back(object(Obj::exited, b));
  c.writes.push_back(object(Obj::exited, a));
  for (int j = 0; j < static_cast<int>(f_.tmas.size()); ++j) c.reads.push_back(object(Obj::issued, j));
  for (int b = 0; b < N_; ++b) c.writes.push_back(object(Obj::named, b));
  for (int j = 0; j < static_cast<int>(f_.tmas.size()); ++j) c.reads.push_back(object(Obj::landed, j));
  // spec/cluster.cpp, on_exit: the instance in progress waits for
  // fewer threads (the agent's, unless its arrive is counted).
  if (f_.cluster_sync >= 0) {
    c.writes.push_back(object(Obj::cluster, 0));
    cluster_settle(n, cluster_expected(s, a));
  }
  // spec/amd.cpp, wave_exit: the workgroup barrier waits for one wave
  // fewer, and a signal the wave did not wait for leaves with it.
  if (f_.amd) {
    const std::size_t ai = static_cast<std::size_t>(a);
    if (st.signaled)
      n.arrived[0] = z3::ite(s.ticket[ai] == s.gen[0] && s.arrived[0] > 0, s.arrived[0] - 1, s.arrived[0]);
    amd_settle(n, live_waves(s, a));
  }
  // spec/named_barrier.cpp, on_exit: an instance without a thread
  // count now waits for fewer threads.
  const z3::expr live = live_threads(s, a, ag.cta);
  for (int b = 0; b < (f_.amd ? 0 : N_); ++b) {
    const std::size_t bi = static_cast<std::size_t>(b);
    if (f_.named_cta[bi] != ag.cta) continue;
    const z3::expr shrink = s.whole[bi] && s.arrived[bi] > 0;
    const z3::expr done = shrink && s.arrived[bi] >= live;
    n.count[bi] = z3::ite(done, num(0), z3::ite(shrink, live, s.count[bi]));
    n.gen[bi] = z3::ite(done, s.gen[bi] + 1, s.gen[bi]);
    n.arrived[bi] = z3::ite(done, num(0), s.arrived[bi]);
    n.whole[bi] = z3::ite(done, c_.bool_val(false), s.whole[bi]);
    complete(n, M_ + b, done);
  }
  // spec/rules.hpp, cta_exit: the CTA's last agent leaves while an
  // async operation still targets it.
  z3::expr last = c_.bool_val(true);
  for (int b = 0; b < static_cast<int>(f_.agents.size()); ++b)
    if (b != a && f_.agents[static_cast<std::size_t>(b)].cta == ag.cta) last = and2(last, exited(s, b));
  // An agent's TMA stores, wgmmas and cp.async-groups not waited for
  // when it exited are known from its own sequence.
  z3::expr in_flight = c_.bool_val(st.in_flight);
  for (int b = 0; b < static_cast<int>(f_.agents.size()); ++b)
    if (b != a && f_.agents[static_cast<std::size_t>(b)].cta == ag.cta) in_flight = or2(in_flight, exited_in_flight(s, b));
  for (std::size_t j = 0; j < f_.tmas.size(); ++j) {
    const bmc::Tma& t = f_.tmas[j];
    const int buf = t.event >= 0 ? f_.events[static_cast<std::size_t>(t.event)].buf : -1;
    if (f_.mbar_cta[static_cast<std::size_t>(t.mbar)] != ag.cta && (buf < 0 || f_.buffer_cta[static_cast<std::size_t>(buf)] != ag.cta))
      continue;
    in_flight = or2(in_flight, and2(issued(s, static_cast<int>(j)), !s.landed[j]));
  }
  c.raises.push_back({Violation::exit_with_pending, and2(last, in_flight)});
  end_ordered(s, ag.cta, last, c);
  // spec::tmem::cta_exit: columns still allocated.
  if (f_.tmem_slots > 0) {
    z3::expr held = c_.bool_val(false);
    for (int k = 0; k < f_.tmem_slots; ++k) held = or2(held, tm_alloc(s, ag.cta, k));
    c.raises.push_back({Violation::tmem_not_deallocated, and2(last, held)});
    c.reads.push_back(object(Obj::tmem, ag.cta));
    // spec::tmem::pair_exit: the peer's collective waits for this CTA's half.
    if (const int peer = spec::tmem::peer(ag.cta); peer < f_.ctas) {
      c.raises.push_back({Violation::tmem_misuse, and2(last, s.tm_pair[static_cast<std::size_t>(peer)] != num(0))});
      c.reads.push_back(object(Obj::tmem, peer));
    }
  }
}

}  // namespace pc::smt::bmc::encoding
