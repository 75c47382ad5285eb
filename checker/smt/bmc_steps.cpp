// The bounded search's steps (bmc_encoder.hpp): the cases of an agent's step,
// dispatched by its kind; here the accesses, the mbarrier operations, the
// async copies and groups, and the landings of what they leave in flight.
#include "checker/smt/bmc_encoder.hpp"

#include "spec/mbarrier.hpp"
#include "spec/rules.hpp"
#include "spec/tmem.hpp"

namespace pc::smt::bmc::encoding {

void Encoder::step_cases(const State& s, int a, int i, std::vector<Case>& out) {
  const bmc::Agent& ag = f_.agents[static_cast<std::size_t>(a)];
  const Step& st = ag.steps[static_cast<std::size_t>(i)];
  if (st.kind == StepKind::done) return;  // exited: no step
  const std::string text = ag.name + ": " + st.text + " (line " + std::to_string(st.loc.line) + ")";
  Case c{text, at(s, a, i), {}, s, a, {}, {}};
  mbar_use_checks(s, st, c);
  if (st.raises != Violation::none) {
    c.raises.push_back({st.raises, c_.bool_val(true)});
    out.push_back(std::move(c));
    return;
  }
  State& n = c.next;
  lockstep(n, ag);
  switch (st.kind) {
    case StepKind::access: access_step(s, a, i, c); break;
    case StepKind::arrive: arrive_step(s, a, i, c); break;
    case StepKind::expect_tx: expect_tx_step(s, a, i, c); break;
    case StepKind::init: init_step(s, a, i, c); break;
    case StepKind::inval: inval_step(s, a, i, c); break;
    case StepKind::fence_init: fence_init_step(a, i, c); break;
    case StepKind::wait: wait_step(s, a, i, c); break;
    case StepKind::clc_query: clc_query_step(s, a, i, c); break;
    case StepKind::clc_cancel:
    case StepKind::tma_load: copy_step(a, i, c); break;
    case StepKind::st_async: st_async_step(a, i, c); break;
    case StepKind::async_arrive: async_arrive_step(s, a, i, c); break;
    case StepKind::cluster_barrier:
      cluster_cases(s, a, i, std::move(c), out);
      return;
    case StepKind::bar_sync: bar_sync_cases(s, a, i, std::move(c), out); return;
    case StepKind::unit_access: unit_access_step(s, a, i, c); break;
    case StepKind::retire: retire_step(a, i, c); break;
    case StepKind::amd_barrier:
      amd_barrier_cases(s, a, i, std::move(c), out);
      return;
    case StepKind::syncwarp: syncwarp_step(a, i, c); break;
    case StepKind::proxy_fence: proxy_fence_step(a, i, c); break;
    case StepKind::consume: consume_step(a, i, c); break;
    case StepKind::tmem_alloc: tmem_alloc(s, a, st, c); advance(n, a, i); break;
    case StepKind::tmem_pair: tmem_pair_cases(s, a, i, std::move(c), out); return;
    case StepKind::fail:
    case StepKind::done: break;  // Step::raises
    case StepKind::exit: exit_step(s, a, i, c); break;
  }
  out.push_back(std::move(c));
}

// The checks step.cpp makes of an mbarrier use before its operands.
void Encoder::mbar_use_checks(const State& s, const Step& st, Case& c) {
  switch (st.kind) {
    case StepKind::arrive:
    case StepKind::expect_tx:
    case StepKind::wait:
    case StepKind::st_async:
      require_alive(s, st.remote, c);
      require_init_visible(s, st.mbar, st.lanes, false, c.raises);
      if (st.kind == StepKind::st_async) require_started(s, st.remote, st.lanes, c.raises);
      if (st.kind != StepKind::st_async) require_live(s, st.mbar, c.raises);
      c.reads.push_back(object(Obj::buf, f_.first_pseudo + st.mbar));
      c.reads.push_back(object(Obj::mbar, st.mbar));
      break;
    case StepKind::clc_cancel:
      // step.cpp: spec::clc::issue (a failure the issuing CTA observed),
      // then per destination as a TMA load's.
      c.raises.push_back({Violation::clc_misuse, s.clc[1 + static_cast<std::size_t>(f_.agents[static_cast<std::size_t>(c.proc)].cta)]});
      c.reads.push_back(object(Obj::clc, 0));
      [[fallthrough]];
    case StepKind::tma_load:
      // step.cpp, per destination: the CTA, the init's visibility to the
      // async proxy (the access follows).
      for (const Step::Part& part : st.parts) {
        require_alive(s, part.remote, c);
        require_init_visible(s, part.mbar, st.lanes, true, c.raises);
        require_started(s, part.remote, st.lanes, c.raises);
        // step.cpp, tma_load: the barrier in a third CTA (`-> B @ c`).
        const int own = f_.agents[static_cast<std::size_t>(c.proc)].cta;
        const int bar_cta = f_.mbar_cta[static_cast<std::size_t>(part.mbar)];
        if (bar_cta != own && bar_cta != (part.remote < 0 ? own : part.remote)) {
          require_alive(s, bar_cta, c);
          require_started(s, bar_cta, st.lanes, c.raises);
        }
        c.reads.push_back(object(Obj::buf, f_.first_pseudo + part.mbar));
        c.reads.push_back(object(Obj::mbar, part.mbar));
      }
      break;
    case StepKind::async_arrive:
      // step.cpp, tcgen05_commit and cp_async_mbarrier_arrive: per
      // barrier, the CTA and the init's visibility to the issuers.
      for (const Step::Part& part : st.parts) {
        require_alive(s, part.remote, c);
        require_init_visible(s, part.mbar, st.lanes, st.async_proxy, c.raises);
        require_started(s, part.remote, st.lanes, c.raises);
        c.reads.push_back(object(Obj::buf, f_.first_pseudo + part.mbar));
        c.reads.push_back(object(Obj::mbar, part.mbar));
      }
      break;
    case StepKind::init:
      c.raises.push_back({Violation::reinit_live_barrier, s.live[static_cast<std::size_t>(st.mbar)]});
      break;
    case StepKind::access:
    case StepKind::inval:
    case StepKind::unit_access:
    case StepKind::retire:
    case StepKind::bar_sync:
    case StepKind::amd_barrier:
    case StepKind::cluster_barrier:
    case StepKind::syncwarp:
    case StepKind::proxy_fence:
    case StepKind::consume:
    case StepKind::fence_init:
    case StepKind::tmem_alloc:
    case StepKind::tmem_pair:
    case StepKind::clc_query:
    case StepKind::fail:
    case StepKind::exit:
    case StepKind::done: break;
  }
}

// A read or write by the lanes (spec/hb.cpp, check_only and access), of
// each buffer in turn.
void Encoder::access_step(const State& s, int a, int i, Case& c) {
  const Step& st = f_.agents[static_cast<std::size_t>(a)].steps[static_cast<std::size_t>(i)];
  State& n = c.next;
  for (const Step::Part& part : st.parts) {
    require_alive(s, part.remote, c);
    require_started(s, part.remote, st.lanes, c.raises);
    access(n, st, part, st.lanes, -1, false, c.raises);
    touch(c, part.buf);
  }
  advance(n, a, i);
}

void Encoder::arrive_step(const State& s, int a, int i, Case& c) {
  const bmc::Agent& ag = f_.agents[static_cast<std::size_t>(a)];
  const Step& st = ag.steps[static_cast<std::size_t>(i)];
  State& n = c.next;
  // spec/mbarrier.cpp, arrive (its operand checks are Step::raises).
  const std::size_t m = static_cast<std::size_t>(st.mbar);
  add_tx(s, n, st.mbar, st.tx, c.raises);
  const z3::expr over = s.pending[m] - num(static_cast<std::int64_t>(st.count)) < 0;
  if (st.units > 1) {
    // Some of the units may complete the phase and the others arrive on
    // the next (spec::mbarrier::arrive_units): the fragment does not follow
    // that. With less than a unit's count pending, the first over-arrives.
    const z3::expr split = over && s.pending[m] >= num(static_cast<std::int64_t>(st.count / st.units));
    c.raises.push_back({Violation::arrival_underflow, split, true});
    c.raises.push_back({Violation::arrival_underflow, over && !split});
  } else {
    c.raises.push_back({Violation::arrival_underflow, over});
  }
  require_started(s, st.remote, st.lanes, c.raises);  // after the barrier's own rules (step.cpp, mbar_arrive)
  c.writes.push_back(object(Obj::mbar, st.mbar));
  n.pending[m] = s.pending[m] - num(static_cast<std::int64_t>(st.count));
  remote_operation(n, st, c);
  // Into the channel of its scope (step.cpp, channel_sync); what the
  // agent's fence_mbarrier_init released goes with it (fence_forward).
  if (st.sync && st.into != no_sync) release(n, st.lanes, sync_of(st.into, st.mbar), c_.bool_val(true));
  if (!st.sync && st.into != no_sync) release_start(n, st.lanes, sync_of(st.into, st.mbar));
  if (ag.fence_sync >= 0 && st.forward != no_sync) forward(n, sync_of(ag.fence_sync, -1), sync_of(st.forward, st.mbar));
  settle(n, st.mbar);
  advance(n, a, i);
}

void Encoder::expect_tx_step(const State& s, int a, int i, Case& c) {
  const Step& st = f_.agents[static_cast<std::size_t>(a)].steps[static_cast<std::size_t>(i)];
  State& n = c.next;
  // spec/mbarrier.cpp, expect_tx and complete_tx (a negative tx).
  add_tx(s, n, st.mbar, st.tx, c.raises);
  require_started(s, st.remote, st.lanes, c.raises);
  remote_operation(n, st, c);
  c.writes.push_back(object(Obj::mbar, st.mbar));
  settle(n, st.mbar);
  advance(n, a, i);
}

void Encoder::init_step(const State& s, int a, int i, Case& c) {
  const Step& st = f_.agents[static_cast<std::size_t>(a)].steps[static_cast<std::size_t>(i)];
  State& n = c.next;
  // spec/mbarrier.cpp, init; then step.cpp's hb::overwrite of the
  // barrier's memory: the init is its only event.
  const std::size_t m = static_cast<std::size_t>(st.mbar);
  if (st.twice) c.raises.push_back({Violation::reinit_live_barrier, c_.bool_val(true)});
  c.writes.push_back(object(Obj::mbar, st.mbar));
  c.writes.push_back(object(Obj::buf, f_.first_pseudo + st.mbar));
  n.live[m] = c_.bool_val(true);
  n.dead[m] = c_.bool_val(false);
  n.odd[m] = c_.bool_val(false);
  n.expected[m] = num(static_cast<std::int64_t>(st.count));
  n.pending[m] = n.expected[m];
  n.tx[m] = num(0);
  const int init = st.parts[0].events[0];
  mbar_memory_write(s, st.mbar, f_.events[static_cast<std::size_t>(init)].thread, true, c);
  overwrite(n, st.mbar, init);
  advance(n, a, i);
}

void Encoder::inval_step(const State& s, int a, int i, Case& c) {
  const Step& st = f_.agents[static_cast<std::size_t>(a)].steps[static_cast<std::size_t>(i)];
  State& n = c.next;
  // spec/mbarrier.cpp, inval, per thread: a second finds it invalid.
  const std::size_t m = static_cast<std::size_t>(st.mbar);
  require_live(s, st.mbar, c.raises);
  if (st.twice) c.raises.push_back({Violation::invalidated_barrier, c_.bool_val(true)});
  c.writes.push_back(object(Obj::mbar, st.mbar));
  n.live[m] = c_.bool_val(false);
  n.dead[m] = c_.bool_val(true);
  if (!st.parts.empty()) {  // data laid over it (bmc_unroll_mbarrier.cpp)
    const int ev = st.parts[0].events[0];
    mbar_memory_write(s, st.mbar, f_.events[static_cast<std::size_t>(ev)].thread, false, c);
    c.writes.push_back(object(Obj::buf, f_.first_pseudo + st.mbar));
    overwrite(n, st.mbar, ev);
  }
  advance(n, a, i);
}

void Encoder::fence_init_step(int a, int i, Case& c) {
  const bmc::Agent& ag = f_.agents[static_cast<std::size_t>(a)];
  const Step& st = ag.steps[static_cast<std::size_t>(i)];
  State& n = c.next;
  // step.cpp, fence_mbarrier_init: a proxy fence and a release into
  // the agent's fence sync, both of the barriers' memory only.
  const int into = sync_of(ag.fence_sync, -1);
  for (const int t : st.lanes)
    for (int e = 0; e < E_; ++e) {
      const int buf = f_.events[static_cast<std::size_t>(e)].buf;
      if (!generic(e) || buf < f_.first_pseudo || buf >= f_.first_start) continue;
      K(n, t, e, true) = or2(K(n, t, e, true), K(n, t, e, false));
      R(n, into, e, false) = or2(R(n, into, e, false), K(n, t, e, false));
      R(n, into, e, true) = or2(R(n, into, e, true), K(n, t, e, true));
      RW(n, into, e) = or2(RW(n, into, e), KW(std::as_const(n), t, e));
    }
  advance(n, a, i);
}

void Encoder::wait_step(const State& s, int a, int i, Case& c) {
  const Step& st = f_.agents[static_cast<std::size_t>(a)].steps[static_cast<std::size_t>(i)];
  State& n = c.next;
  const std::size_t m = static_cast<std::size_t>(st.mbar);
  // spec/mbarrier.cpp, test_wait_parity: the phase's parity differs
  // (a use that raises is taken at once: step.cpp checks before it
  // blocks).
  z3::expr bad = c_.bool_val(false);
  for (const Raise& r : c.raises) bad = or2(bad, r.when);
  c.guard = and2(c.guard, or2(st.parity == 1 ? !s.odd[m] : s.odd[m], bad));
  // step.cpp, mbar_wait (rules::acquire_channels): the barrier's own
  // channel and its .cluster one (at .cta scope too: the stance of
  // scope_cta_acquire, a warning) synchronise; the too-narrow one
  // only makes what it carries after_weak.
  if (st.sync) {
    acquire(n, st.lanes, st.mbar, c_.bool_val(true));
    if (const int x = f_.mbar_cluster_sync[m]; x >= 0) acquire(n, st.lanes, sync_of(x, -1), c_.bool_val(true));
    if (const int x = f_.mbar_weak_sync[m]; x >= 0) acquire_weak(n, st.lanes, sync_of(x, -1), c_.bool_val(true));
  } else {  // an execution ordering all the same: the channels its scope reaches (so::mbar_wait, `tc`)
    acquire_start(n, st.lanes, st.mbar);
    if (const int x = f_.mbar_cluster_sync[m]; x >= 0 && st.cluster_scope) acquire_start(n, st.lanes, sync_of(x, -1));
  }
  advance(n, a, i);
}

void Encoder::clc_query_step(const State& s, int a, int i, Case& c) {
  const Step& st = f_.agents[static_cast<std::size_t>(a)].steps[static_cast<std::size_t>(i)];
  const std::size_t ai = static_cast<std::size_t>(a);
  State& n = c.next;
  // step.cpp: the lanes' read of the response, then the path of its
  // answer (Step::next_false: "not canceled").
  access(n, st, st.parts[0], st.lanes, -1, false, c.raises);
  touch(c, st.parts[0].buf);
  // "not canceled": the CTA has observed a failure (spec::clc::query).
  const z3::expr canceled = s.response[static_cast<std::size_t>(st.parts[0].buf)];
  const std::size_t seen = 1 + static_cast<std::size_t>(f_.agents[ai].cta);
  n.clc[seen] = or2(s.clc[seen], not1(canceled));
  c.reads.push_back(object(Obj::clc, 0));
  c.writes.push_back(object(Obj::clc, 0));
  if (st.next_false < 0) {  // the answer is not kept: one path
    advance(n, a, i);
    return;
  }
  const std::size_t here = static_cast<std::size_t>(base_[ai] + i);
  n.at[here] = c_.bool_val(false);
  n.at[here + 1] = canceled;
  n.at[static_cast<std::size_t>(base_[ai] + st.next_false)] = not1(canceled);
}

// A TMA load or a try_cancel: the TMA unit's write of each destination,
// issued (its landing follows: landing, clc_landing).
void Encoder::copy_step(int a, int i, Case& c) {
  const Step& st = f_.agents[static_cast<std::size_t>(a)].steps[static_cast<std::size_t>(i)];
  State& n = c.next;
  for (std::size_t d = 0; d < st.parts.size(); ++d) {
    access(n, st, st.parts[d], st.lanes, st.unit, true, c.raises);
    touch(c, st.parts[d].buf);
    c.writes.push_back(object(Obj::issued, st.tmas[d]));
  }
  advance(n, a, i);
}

void Encoder::st_async_step(int a, int i, Case& c) {
  const Step& st = f_.agents[static_cast<std::size_t>(a)].steps[static_cast<std::size_t>(i)];
  State& n = c.next;
  // step.cpp: the TMA unit's generic write for the issuing lanes; the
  // issue releases what they know and the write into its own sync
  // object (hb::release, release_write), held until it lands.
  const bmc::Tma& t = f_.tmas[static_cast<std::size_t>(st.tmas[0])];
  access(n, st, st.parts[0], st.lanes, st.unit, false, c.raises);
  touch(c, st.parts[0].buf);
  c.writes.push_back(object(Obj::issued, st.tmas[0]));
  const int slot = sync_of(t.slot, -1);
  release(n, st.lanes, slot, c_.bool_val(true));
  R(n, slot, t.event, false) = c_.bool_val(true);
  R(n, slot, t.event, true) = c_.bool_val(true);
  advance(n, a, i);
}

void Encoder::async_arrive_step(const State& s, int a, int i, Case& c) {
  const Step& st = f_.agents[static_cast<std::size_t>(a)].steps[static_cast<std::size_t>(i)];
  State& n = c.next;
  // spec/mbarrier.cpp, increment_pending, once per thread (a
  // cp.async.mbarrier.arrive without noinc); then hb::release_unit:
  // what the unit has done in the groups tracked, and what it was
  // ordered after (less the arriving lanes' own accesses), goes into
  // each arrive-on's sync object.
  if (st.count > 0) {
    const int m = st.parts[0].mbar;
    const std::size_t mi = static_cast<std::size_t>(m);
    require_live(s, m, c.raises);
    c.raises.push_back({Violation::bad_arrive_count, s.pending[mi] + num(st.count) > spec::mbarrier::max_count});
    c.writes.push_back(object(Obj::mbar, m));
    n.pending[mi] = s.pending[mi] + num(st.count);
  }
  for (const int j : st.tmas) {
    release_unit(n, st.unit, st.upto, sync_of(f_.tmas[static_cast<std::size_t>(j)].slot, -1), st.lanes);
    c.writes.push_back(object(Obj::issued, j));
  }
  advance(n, a, i);
}

void Encoder::unit_access_step(const State& s, int a, int i, Case& c) {
  const Step& st = f_.agents[static_cast<std::size_t>(a)].steps[static_cast<std::size_t>(i)];
  State& n = c.next;
  // step.cpp, unit_access: the async unit accesses each buffer for the
  // issuing lanes, in its group (a pair-CTA tcgen05.mma: in CTAs that
  // must not have exited, require_alive).
  require_alive(s, st.remote, c);
  require_started(s, st.remote, st.lanes, c.raises);
  for (const Step::Part& part : st.parts) {
    require_alive(s, part.remote, c);
    require_started(s, part.remote, st.lanes, c.raises);
    const int slot = f_.buffer_slot[static_cast<std::size_t>(part.buf)];
    if (slot >= 0) {  // step.cpp, tmem_access: spec::tmem::use
      const int cta = f_.buffer_cta[static_cast<std::size_t>(part.buf)];
      c.raises.push_back({spec::tmem::use(spec::tmem::Cta{}, slot), not1(tm_alloc(s, cta, slot))});
      c.reads.push_back(object(Obj::tmem, cta));
    }
    access(n, st, part, st.lanes, st.unit, st.async_proxy && slot < 0, c.raises);
    touch(c, part.buf);
  }
  advance(n, a, i);
}

void Encoder::retire_step(int a, int i, Case& c) {
  const Step& st = f_.agents[static_cast<std::size_t>(a)].steps[static_cast<std::size_t>(i)];
  State& n = c.next;
  // spec/hb.cpp, retire: the waiting threads are ordered after the
  // unit's accesses in the complete groups (the agent's own threads:
  // no other process reads these sets).
  for (int e = 0; e < E_; ++e) {
    const bmc::Event& ev = f_.events[static_cast<std::size_t>(e)];
    if (ev.thread != st.unit || ev.group == 0 || ev.group > st.upto) continue;
    if (st.only >= 0 && ev.write != (st.only == 1)) continue;  // hb::retire_kind
    for (const int t : st.to) {
      K(n, t, e, false) = c_.bool_val(true);
      K(n, t, e, true) = c_.bool_val(true);
    }
  }
  advance(n, a, i);
}

// syncwarp: each warp's leader and other lanes are ordered both ways.
void Encoder::syncwarp_step(int a, int i, Case& c) {
  const Step& st = f_.agents[static_cast<std::size_t>(a)].steps[static_cast<std::size_t>(i)];
  State& n = c.next;
  for (const auto& [leader, rest] : st.warps) {
    order(n, leader, rest);
    order(n, rest, leader);
  }
  advance(n, a, i);
}

void Encoder::proxy_fence_step(int a, int i, Case& c) {
  const Step& st = f_.agents[static_cast<std::size_t>(a)].steps[static_cast<std::size_t>(i)];
  State& n = c.next;
  // spec/hb.cpp, proxy_fence: what the lanes know, the async proxy
  // knows through them.
  for (const int t : st.lanes)
    for (int e = 0; e < E_; ++e)
      if (generic(e)) K(n, t, e, true) = or2(K(n, t, e, true), K(n, t, e, false));
  advance(n, a, i);
}

void Encoder::consume_step(int a, int i, Case& c) {
  const Step& st = f_.agents[static_cast<std::size_t>(a)].steps[static_cast<std::size_t>(i)];
  State& n = c.next;
  // spec/hb.cpp, consume: each lane's own generic reads of the buffers,
  // known to the async proxy through that lane.
  for (const Step::Part& part : st.parts)
    for (const int t : st.lanes)
      for (int e = 0; e < E_; ++e) {
        const bmc::Event& ev = f_.events[static_cast<std::size_t>(e)];
        if (ev.buf == part.buf && !ev.write && generic(e) && ev.thread == t) K(n, t, e, true) = or2(K(n, t, e, true), K(n, t, e, false));
      }
  advance(n, a, i);
}

// A TMA load's or st.async's complete-tx (spec/mbarrier.cpp,
// complete_tx) on a barrier of a CTA that has not exited (step.cpp,
// pending_step), which releases the load's write into the barrier
// (hb.cpp, release_write), or moves what the st.async's issue released
// into the channel of a .cluster release (hb.cpp, move).
Case Encoder::landing(const State& s, int j) {
  const bmc::Tma& t = f_.tmas[static_cast<std::size_t>(j)];
  if (t.event < 0) return arrive_on(s, j);
  const std::size_t m = static_cast<std::size_t>(t.mbar);
  Case c{std::string(t.slot >= 0 ? "the st.async of " : "the TMA load of ") + f_.agents[static_cast<std::size_t>(t.agent)].name + " (line " +
             std::to_string(f_.agents[static_cast<std::size_t>(t.agent)].steps[static_cast<std::size_t>(t.step)].loc.line) +
             ") lands: complete_tx " + std::to_string(t.bytes) + " on " + f_.mbars[m],
         and2(issued(s, j), !s.landed[static_cast<std::size_t>(j)]), {}, s,
         static_cast<int>(f_.agents.size()) + j,
         {object(Obj::issued, j), object(Obj::buf, f_.events[static_cast<std::size_t>(t.event)].buf)},
         {object(Obj::mbar, t.mbar), object(Obj::landed, j)}};
  State& n = c.next;
  c.raises.push_back({spec::rules::target_alive(true), cta_exited(s, f_.mbar_cta[m])});
  for (int b = 0; b < static_cast<int>(f_.agents.size()); ++b)
    if (f_.agents[static_cast<std::size_t>(b)].cta == f_.mbar_cta[m]) c.reads.push_back(object(Obj::exited, b));
  require_live(s, t.mbar, c.raises);
  if (!spec::mbarrier::tx_operand_in_range(t.bytes)) c.raises.push_back({Violation::tx_out_of_range, c_.bool_val(true)});
  add_tx(s, n, t.mbar, -t.bytes, c.raises);
  n.landed[static_cast<std::size_t>(j)] = c_.bool_val(true);
  if (t.slot >= 0) move(n, sync_of(t.slot, -1), sync_of(t.into, t.mbar));
  else if (t.into != no_sync)
    R(n, sync_of(t.into, t.mbar), t.event, false) = or2(R(n, sync_of(t.into, t.mbar), t.event, false), s.alive[static_cast<std::size_t>(t.event)]);
  settle(n, t.mbar);
  return c;
}

// A try_cancel response lands as a TMA load does, with an answer: the
// first of its request's responses decides it, "canceled" only while a
// cluster is left to take (spec/clc.hpp, may_answer and decide); the
// others give the same answer. The buffer then holds it (step.cpp,
// pending_step).
Case Encoder::clc_landing(const State& s, int j, bool canceled) {
  const bmc::Tma& t = f_.tmas[static_cast<std::size_t>(j)];
  const std::size_t r = static_cast<std::size_t>(t.request);
  Case c = landing(s, j);
  c.text = "the try_cancel response of " + f_.agents[static_cast<std::size_t>(t.agent)].name + " (line " +
           std::to_string(f_.agents[static_cast<std::size_t>(t.agent)].steps[static_cast<std::size_t>(t.step)].loc.line) +
           ") lands in " + f_.buffers[static_cast<std::size_t>(f_.events[static_cast<std::size_t>(t.event)].buf)] +
           (canceled ? " (canceled: a new tile)" : " (not canceled)") + ": complete_tx 16 on " + f_.mbars[static_cast<std::size_t>(t.mbar)];
  const z3::expr may = canceled ? s.clc[0] > 0 : c_.bool_val(true);
  c.guard = and2(c.guard, z3::ite(s.decided[r], s.answer[r] == c_.bool_val(canceled), may));
  State& n = c.next;
  n.decided[r] = c_.bool_val(true);
  n.answer[r] = c_.bool_val(canceled);
  if (canceled) n.clc[0] = z3::ite(s.decided[r], s.clc[0], s.clc[0] - 1);  // a failure counts once queried (clc_query_step)
  n.response[static_cast<std::size_t>(f_.events[static_cast<std::size_t>(t.event)].buf)] = c_.bool_val(canceled);
  c.reads.push_back(object(Obj::clc, 0));
  c.writes.push_back(object(Obj::clc, 0));
  c.writes.push_back(object(Obj::buf, f_.events[static_cast<std::size_t>(t.event)].buf));
  return c;
}

// The arrive-on of a tcgen05.commit or cp.async.mbarrier.arrive lands
// (step.cpp, pending_step): a tcgen05.commit's once the agent's earlier
// commits have (rules::commit_may_land), on a barrier of a CTA that has
// not exited; what its issue released moves into the barrier's own sync
// object (hb.cpp, move), then spec/mbarrier.cpp, arrive.
Case Encoder::arrive_on(const State& s, int j) {
  const bmc::Tma& t = f_.tmas[static_cast<std::size_t>(j)];
  const std::size_t m = static_cast<std::size_t>(t.mbar);
  const bmc::Agent& ag = f_.agents[static_cast<std::size_t>(t.agent)];
  Case c{"the " + std::string(t.commit > 0 ? "tcgen05.commit" : "cp.async.mbarrier.arrive") + " of " + ag.name + " (line " +
             std::to_string(ag.steps[static_cast<std::size_t>(t.step)].loc.line) + ") lands: arrive on " + f_.mbars[m],
         and2(issued(s, j), !s.landed[static_cast<std::size_t>(j)]), {}, s,
         static_cast<int>(f_.agents.size()) + j, {object(Obj::issued, j)}, {object(Obj::mbar, t.mbar), object(Obj::landed, j)}};
  if (t.commit > 0)
    for (int x = 0; x < static_cast<int>(f_.tmas.size()); ++x) {
      const bmc::Tma& o = f_.tmas[static_cast<std::size_t>(x)];
      if (o.agent != t.agent || o.commit == 0 || spec::rules::commit_may_land(static_cast<std::uint16_t>(t.commit), static_cast<std::uint16_t>(o.commit)))
        continue;
      c.guard = and2(c.guard, s.landed[static_cast<std::size_t>(x)]);
      c.reads.push_back(object(Obj::landed, x));
    }
  State& n = c.next;
  c.raises.push_back({spec::rules::target_alive(true), cta_exited(s, f_.mbar_cta[m])});
  for (int b = 0; b < static_cast<int>(f_.agents.size()); ++b)
    if (f_.agents[static_cast<std::size_t>(b)].cta == f_.mbar_cta[m]) c.reads.push_back(object(Obj::exited, b));
  require_live(s, t.mbar, c.raises);
  c.raises.push_back({Violation::arrival_underflow, s.pending[m] - num(t.arrivals) < 0});
  n.landed[static_cast<std::size_t>(j)] = c_.bool_val(true);
  move(n, sync_of(t.slot, -1), t.mbar);
  n.pending[m] = s.pending[m] - num(t.arrivals);
  settle(n, t.mbar);
  return c;
}

}  // namespace pc::smt::bmc::encoding
