#include "checker/smt/bmc.hpp"

#include <z3++.h>

#include <algorithm>
#include <cstdio>
#include <initializer_list>
#include <memory>
#include <utility>

#include "checker/smt/bmc_fragment.hpp"
#include "spec/mbarrier.hpp"
#include "spec/rules.hpp"
#include "spec/tmem.hpp"

namespace pc::smt {
namespace {

using bmc::Fragment;
using bmc::no_sync;
using bmc::own_sync;
using bmc::Step;
using bmc::StepKind;
using spec::Violation;

// A field of a State: a vector of terms that copies of the state share
// until one of them writes it (copy on write). Each case of a step starts
// from a copy of the whole state and writes a few fields; the search merges
// only the fields a case no longer shares with the state it came from.
// Reading through a non-const field takes a copy of its own first, as
// writing does: read a state that is not to change through a const one.
class Exprs {
 public:
  Exprs() = default;
  Exprs(std::initializer_list<z3::expr> l) : v_(std::make_shared<std::vector<z3::expr>>(l)) {}
  [[nodiscard]] std::size_t size() const { return v_ ? v_->size() : 0; }
  [[nodiscard]] bool empty() const { return size() == 0; }
  const z3::expr& operator[](std::size_t i) const { return (*v_)[i]; }
  z3::expr& operator[](std::size_t i) { return own()[i]; }
  void push_back(const z3::expr& e) { own().push_back(e); }
  void assign(std::size_t n, const z3::expr& e) { own().assign(n, e); }
  // Whether both are the same vector, not only equal ones.
  [[nodiscard]] bool shares(const Exprs& o) const { return v_ == o.v_; }

 private:
  std::vector<z3::expr>& own() {
    if (!v_) v_ = std::make_shared<std::vector<z3::expr>>();
    else if (v_.use_count() > 1) v_ = std::make_shared<std::vector<z3::expr>>(*v_);
    return *v_;
  }
  std::shared_ptr<std::vector<z3::expr>> v_;
};

// One state of the search, as Z3 terms. Synchronisation objects: the
// mbarrier instances, the named-barrier slots, then the extra ones
// (bmc_fragment.hpp). An event's `k[t]` is
// hb::Event::after (thread t is ordered after it), `ka[t]` after_async, `kw[t]` after_weak;
// `rel`, `vis` (and `rela`, `visa`) its released and visible sets. An async
// event is seen the same way by both proxies (hb.cpp, mirror), so only its
// generic-proxy terms are kept and read for both.
struct State {
  Exprs at;                   // [base[a] + i]: agent a's next step is i (a done step: it has exited)
  Exprs stage, ticket;        // per agent: waiting at a bar_sync; the instance joined
  Exprs pending, tx, odd;     // per mbarrier: pending count, tx-count, phase parity
  Exprs live, dead, expected; // per mbarrier: initialised, invalidated, the count it reloads
  Exprs arrived, count, gen, whole;  // per named slot (spec/named_barrier.hpp)
  Exprs landed;               // per TMA load or st.async: its complete-tx has happened
  Exprs cl_stage, cl_ticket;  // per agent: waiting at cluster_sync; the instance joined + 1 (spec/cluster.hpp, Ticket)
  Exprs cl;                   // the cluster barrier: {arrived, generation}
  Exprs alive;                // per event: recorded and not overwritten (hb::Memory holds it)
  // Tensor memory per CTA (spec::tmem::Cta): columns in use, relinquished,
  // the pair collective issued (PairOp), its allocation, performed; per
  // CTA and allocation ([cta * slots + slot]): allocated.
  Exprs tm_used, tm_relinq, tm_pair, tm_which, tm_done, tm_alloc;
  // Cluster launch control (spec::clc::State): {clusters left to take, a
  // failure reported}; per request, whether its answer is decided and what
  // it is; per buffer, the answer of the response last written there.
  Exprs clc, decided, answer, response;
  Exprs k, ka, kw;            // [thread * events + event]
  Exprs rel, vis, rela, visa; // [sync * events + event]
};

z3::expr or2(const z3::expr& a, const z3::expr& b) {
  if (a.is_true() || b.is_false()) return a;
  if (b.is_true() || a.is_false()) return b;
  return a || b;
}
z3::expr not1(const z3::expr& a) {
  if (a.is_true()) return a.ctx().bool_val(false);
  if (a.is_false()) return a.ctx().bool_val(true);
  return !a;
}
z3::expr and2(const z3::expr& a, const z3::expr& b) {
  if (a.is_false() || b.is_true()) return a;
  if (b.is_false() || a.is_true()) return b;
  return a && b;
}

// A violation a step raises under a condition.
struct Raise {
  Violation kind;
  z3::expr when;
};

// One transition: an agent's step (a bar_sync has two: its arrival, then
// its resumption) or a TMA load's completion.
struct Case {
  std::string text;
  z3::expr guard;            // enabled
  std::vector<Raise> raises;  // under the guard
  State next;
  // For the peephole reduction: the process that takes it (an agent, or the
  // agents' count plus a TMA load's index), and the objects (Encoder::object)
  // its guard, raises and effect read and write. An agent's threads'
  // happens-before sets are read and written by that agent's steps only
  // (a TMA load's landing reads its event's `alive`: its buffer).
  int proc = 0;
  std::vector<int> reads, writes;
};

class Encoder {
 public:
  explicit Encoder(const Fragment& f) : f_(f), E_(static_cast<int>(f.events.size())) {
    for (const bmc::Agent& a : f.agents) {
      base_.push_back(total_);
      total_ += static_cast<int>(a.steps.size());
    }
    M_ = static_cast<int>(f.mbars.size());
    N_ = static_cast<int>(f.named_ids.size());
    S_ = M_ + N_ + f.extra_syncs;
  }

  State initial() {
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
        s.tm_pair.push_back(num(0));
        s.tm_which.push_back(num(0));
        s.tm_done.push_back(c_.bool_val(false));
        for (int k = 0; k < f_.tmem_slots; ++k) s.tm_alloc.push_back(c_.bool_val(false));
      }
    if (f_.clc_requests > 0) {
      s.clc = {num(f_.clc_queue), c_.bool_val(false)};
      s.decided.assign(static_cast<std::size_t>(f_.clc_requests), c_.bool_val(false));
      s.answer = s.decided;
      s.response.assign(f_.buffers.size(), c_.bool_val(false));
    }
    s.k.assign(f_.threads.size() * static_cast<std::size_t>(E_), c_.bool_val(false));
    s.ka = s.k;
    s.kw = s.k;
    s.rel.assign(static_cast<std::size_t>(S_ * E_), c_.bool_val(false));
    s.vis = s.rel;
    s.rela = s.rel;
    s.visa = s.rel;
    return s;
  }

  std::vector<Case> cases(const State& s) {
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
  z3::expr all_exited(const State& s) {
    z3::expr all = c_.bool_val(true);
    for (std::size_t a = 0; a < f_.agents.size(); ++a) all = and2(all, exited(s, static_cast<int>(a)));
    return all;
  }

  z3::context& ctx() { return c_; }

  // The objects of the footprints: mbarriers, named slots, buffers, whether
  // each agent has exited (what a count of live threads and the CTA's exit
  // read), whether each TMA load is issued and whether it has landed. An
  // agent's position and stage are its own steps' business alone.
  enum class Obj { mbar, named, buf, exited, issued, landed, cluster, clc, tmem };
  int object(Obj o, int i) const {
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

 private:
  z3::context c_;
  const Fragment& f_;
  // Counts, tx-counts and generations: integers (32-bit vectors with the
  // bit-blasting solver took longer on the agreement test's kernels).
  z3::expr num(std::int64_t v) { return c_.int_val(v); }
  int E_ = 0, M_ = 0, N_ = 0, S_ = 0;
  std::vector<int> base_;  // per agent: its first entry of State::at
  int total_ = 0;

  z3::expr& K(State& s, int t, int e, bool async_view) {
    const bool mirrored = f_.events[static_cast<std::size_t>(e)].async;
    return (async_view && !mirrored ? s.ka : s.k)[static_cast<std::size_t>(t * E_ + e)];
  }
  const z3::expr& K(const State& s, int t, int e, bool async_view) const {
    const bool mirrored = f_.events[static_cast<std::size_t>(e)].async;
    return (async_view && !mirrored ? s.ka : s.k)[static_cast<std::size_t>(t * E_ + e)];
  }
  z3::expr& R(State& s, int sync, int e, bool async_view) {
    const bool mirrored = f_.events[static_cast<std::size_t>(e)].async;
    return (async_view && !mirrored ? s.rela : s.rel)[static_cast<std::size_t>(sync * E_ + e)];
  }
  z3::expr& V(State& s, int sync, int e, bool async_view) {
    const bool mirrored = f_.events[static_cast<std::size_t>(e)].async;
    return (async_view && !mirrored ? s.visa : s.vis)[static_cast<std::size_t>(sync * E_ + e)];
  }
  // The reads, through a const state: a field read and not written stays
  // shared with the state the case came from (Exprs).
  const z3::expr& R(const State& s, int sync, int e, bool async_view) const {
    const bool mirrored = f_.events[static_cast<std::size_t>(e)].async;
    return (async_view && !mirrored ? s.rela : s.rel)[static_cast<std::size_t>(sync * E_ + e)];
  }
  const z3::expr& V(const State& s, int sync, int e, bool async_view) const {
    const bool mirrored = f_.events[static_cast<std::size_t>(e)].async;
    return (async_view && !mirrored ? s.visa : s.vis)[static_cast<std::size_t>(sync * E_ + e)];
  }
  bool generic(int e) const { return !f_.events[static_cast<std::size_t>(e)].async; }
  // An extra sync object (bmc_fragment.hpp), or own_sync: mbarrier m's own.
  int sync_of(int extra, int m) const { return extra == own_sync ? m : M_ + N_ + extra; }

  // Every agent of CTA c has exited (step.cpp, State::cta_exited: set by
  // the exit of its last agent, so never for a CTA without one).
  z3::expr cta_exited(const State& s, int c) {
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
  void require_alive(const State& s, int remote, Case& c) {
    if (remote < 0) return;
    c.raises.push_back({spec::rules::target_alive(true), cta_exited(s, remote)});
    for (int b = 0; b < static_cast<int>(f_.agents.size()); ++b)
      if (f_.agents[static_cast<std::size_t>(b)].cta == remote) c.reads.push_back(object(Obj::exited, b));
  }

  z3::expr exited(const State& s, int a) {
    z3::expr any = c_.bool_val(false);
    for (const int i : f_.agents[static_cast<std::size_t>(a)].ends) any = or2(any, at(s, a, i));
    return any;
  }
  // Agent b has exited along a path whose exit leaves a store's, wgmma's or
  // cp.async write in flight (Step::in_flight).
  z3::expr exited_in_flight(const State& s, int b) {
    const bmc::Agent& ag = f_.agents[static_cast<std::size_t>(b)];
    z3::expr any = c_.bool_val(false);
    for (const int i : ag.ends)
      if (ag.steps[static_cast<std::size_t>(i - 1)].in_flight) any = or2(any, at(s, b, i));
    return any;
  }
  z3::expr at(const State& s, int a, int i) { return s.at[static_cast<std::size_t>(base_[static_cast<std::size_t>(a)] + i)]; }
  // The agent at step i goes on to i + 1 (when `go`; otherwise it stays).
  void advance(State& s, int a, int i, const z3::expr& go) {
    const std::size_t here = static_cast<std::size_t>(base_[static_cast<std::size_t>(a)] + i);
    s.at[here] = !go;
    s.at[here + 1] = go;
  }
  void advance(State& s, int a, int i) { advance(s, a, i, c_.bool_val(true)); }

  // spec/hb.cpp, one by one: release, release_write, complete, acquire, order.
  void release(State& s, const std::vector<int>& from, int sync, const z3::expr& when) {
    for (int e = 0; e < E_; ++e)
      for (const bool av : {false, true}) {
        if (av && !generic(e)) continue;
        z3::expr known = c_.bool_val(false);
        for (const int t : from) known = or2(known, K(std::as_const(s), t, e, av));
        R(s, sync, e, av) = or2(R(s, sync, e, av), and2(when, known));
      }
  }
  void complete(State& s, int sync, const z3::expr& when) {
    for (int e = 0; e < E_; ++e)
      for (const bool av : {false, true}) {
        if (av && !generic(e)) continue;
        V(s, sync, e, av) = or2(V(s, sync, e, av), and2(when, R(std::as_const(s), sync, e, av)));
      }
  }
  void acquire(State& s, const std::vector<int>& to, int sync, const z3::expr& when) {
    for (int e = 0; e < E_; ++e)
      for (const bool av : {false, true}) {
        if (av && !generic(e)) continue;
        const z3::expr v = and2(when, V(std::as_const(s), sync, e, av));
        for (const int t : to) K(s, t, e, av) = or2(K(s, t, e, av), v);
      }
  }
  // The rest of spec/hb.cpp's acquire: what is visible through `weak` (a
  // release whose scope does not reach the acquire) and not yet ordered
  // before every thread of `to` is after_weak for them.
  void acquire_weak(State& s, const std::vector<int>& to, int weak, const z3::expr& when) {
    for (int e = 0; e < E_; ++e) {
      z3::expr all = c_.bool_val(true);
      for (const int t : to) all = and2(all, K(std::as_const(s), t, e, false));
      const z3::expr v = and2(when, and2(V(std::as_const(s), weak, e, false), not1(all)));
      for (const int t : to) {
        z3::expr& w = s.kw[static_cast<std::size_t>(t * E_ + e)];
        w = or2(w, v);
      }
    }
  }
  // spec/hb.cpp, move: what `from` holds is released into `to` instead.
  void move(State& s, int from, int to) {
    for (int e = 0; e < E_; ++e)
      for (const bool av : {false, true}) {
        if (av && !generic(e)) continue;
        R(s, to, e, av) = or2(R(s, to, e, av), R(s, from, e, av));
        R(s, from, e, av) = c_.bool_val(false);
      }
  }
  // spec/hb.cpp, forward: what `from` holds is released into `to` too.
  void forward(State& s, int from, int to) {
    for (int e = 0; e < E_; ++e)
      for (const bool av : {false, true}) {
        if (av && !generic(e)) continue;
        R(s, to, e, av) = or2(R(s, to, e, av), R(s, from, e, av));
      }
  }
  // spec/hb.cpp, release_unit: what async unit `unit` is ordered after
  // goes into `sync`, less its own accesses in groups after `upto` (0: all).
  void release_unit(State& s, int unit, int upto, int sync) {
    for (int e = 0; e < E_; ++e) {
      const bmc::Event& ev = f_.events[static_cast<std::size_t>(e)];
      if (ev.thread == unit && upto != 0 && ev.group > upto) continue;
      for (const bool av : {false, true}) {
        if (av && !generic(e)) continue;
        R(s, sync, e, av) = or2(R(s, sync, e, av), K(s, unit, e, av));
      }
    }
  }
  void order(State& s, int from, int to) {
    for (int e = 0; e < E_; ++e)
      for (const bool av : {false, true}) {
        if (av && !generic(e)) continue;
        K(s, to, e, av) = or2(K(s, to, e, av), K(s, from, e, av));
      }
  }

  // spec/mbarrier.cpp: the tx-count moves by delta (expect-tx: positive,
  // complete-tx: negative) and must stay within the ISA's range.
  void add_tx(const State& s, State& n, int m, std::int64_t delta, std::vector<Raise>& raises) {
    const std::size_t i = static_cast<std::size_t>(m);
    const z3::expr tx = s.tx[i] + num(delta);
    raises.push_back({Violation::tx_out_of_range, tx > spec::mbarrier::max_tx || tx < -spec::mbarrier::max_tx});
    n.tx[i] = tx;
  }

  // spec/mbarrier.cpp, settle: a phase completes when pending and tx are 0.
  void settle(State& s, int m) {
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
  void require_live(const State& s, int m, std::vector<Raise>& raises) {
    const std::size_t i = static_cast<std::size_t>(m);
    raises.push_back({spec::rules::uninitialized_use(Violation::uninitialized_barrier, f_.mbar_kernel_inits[i]),
                      and2(not1(s.live[i]), not1(s.dead[i]))});
    raises.push_back({Violation::invalidated_barrier, s.dead[i]});
  }
  // step.cpp, require_init_visible: the hb check of a read of the barrier's
  // memory by `issuers` through the generic proxy, or the async one
  // (rules::init_use): an init not ordered before the use is
  // unsynchronized_init; the async proxy's use of an init that the issuing
  // thread made with no proxy fence between is a warning, not raised.
  void require_init_visible(const State& s, int m, const std::vector<int>& issuers, bool async, std::vector<Raise>& raises) {
    const int pseudo = f_.first_pseudo + m;
    for (int e = 0; e < E_; ++e) {
      const bmc::Event& init = f_.events[static_cast<std::size_t>(e)];
      if (init.buf != pseudo) continue;
      const z3::expr live = s.alive[static_cast<std::size_t>(e)];
      for (const int t : issuers) {
        const z3::expr ordered = init.thread == t ? c_.bool_val(true) : K(s, t, e, false);
        raises.push_back({Violation::unsynchronized_init, and2(live, not1(ordered))});
        if (async && init.thread != t) raises.push_back({Violation::unsynchronized_init, and2(live, not1(K(s, t, e, true)))});
      }
    }
  }

  // One buffer access (spec/hb.cpp, check_only and access): the violations
  // it raises, then its events recorded. `unit`: an async unit's access
  // (-1: the issuers' own), through the async proxy when `async`.
  void access(State& s, const Step& st, const Step::Part& part, const std::vector<int>& issuers, int unit, bool async,
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
          if (prior.write) raises.push_back({Violation::proxy_race, unfenced});
          else raises.push_back({Violation::cross_proxy_war, unfenced});
        }
      }
    if (unit >= 0)
      for (const int t : issuers) order(s, t, unit);
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
  z3::expr live_threads(const State& s, int except, int cta) {
    z3::expr live = num(0);
    for (int b = 0; b < static_cast<int>(f_.agents.size()); ++b)
      if (b != except && (cta < 0 || f_.agents[static_cast<std::size_t>(b)].cta == cta))
        live = live + z3::ite(exited(s, b), num(0), num(f_.agents[static_cast<std::size_t>(b)].threads));
    return live;
  }

  void step_cases(const State& s, int a, int i, std::vector<Case>& out) {
    const bmc::Agent& ag = f_.agents[static_cast<std::size_t>(a)];
    const Step& st = ag.steps[static_cast<std::size_t>(i)];
    if (st.kind == StepKind::done) return;  // exited: no step
    const std::string text = ag.name + ": " + st.text + " (line " + std::to_string(st.loc.line) + ")";
    const std::size_t ai = static_cast<std::size_t>(a);
    Case c{text, at(s, a, i), {}, s, a, {}, {}};
    // The checks step.cpp makes of an mbarrier use before its operands.
    switch (st.kind) {
      case StepKind::arrive:
      case StepKind::expect_tx:
      case StepKind::wait:
      case StepKind::st_async:
        require_alive(s, st.remote, c);
        require_init_visible(s, st.mbar, st.lanes, false, c.raises);
        if (st.kind != StepKind::st_async) require_live(s, st.mbar, c.raises);
        c.reads.push_back(object(Obj::buf, f_.first_pseudo + st.mbar));
        c.reads.push_back(object(Obj::mbar, st.mbar));
        break;
      case StepKind::clc_cancel:
        // step.cpp: spec::clc::issue, then per destination as a TMA load's.
        c.raises.push_back({Violation::clc_misuse, s.clc[1]});
        c.reads.push_back(object(Obj::clc, 0));
        [[fallthrough]];
      case StepKind::tma_load:
        // step.cpp, per destination: the CTA, the init's visibility to the
        // async proxy (the access follows).
        for (const Step::Part& part : st.parts) {
          require_alive(s, part.remote, c);
          require_init_visible(s, part.mbar, st.lanes, true, c.raises);
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
          c.reads.push_back(object(Obj::buf, f_.first_pseudo + part.mbar));
          c.reads.push_back(object(Obj::mbar, part.mbar));
        }
        break;
      case StepKind::init:
        c.raises.push_back({Violation::reinit_live_barrier, s.live[static_cast<std::size_t>(st.mbar)]});
        break;
      default: break;
    }
    if (st.raises != Violation::none) {
      c.raises.push_back({st.raises, c_.bool_val(true)});
      out.push_back(std::move(c));
      return;
    }
    State& n = c.next;
    lockstep(n, ag);
    switch (st.kind) {
      case StepKind::access:
        for (const Step::Part& part : st.parts) {
          require_alive(s, part.remote, c);
          access(n, st, part, st.lanes, -1, false, c.raises);
          touch(c, part.buf);
        }
        advance(n, a, i);
        break;
      case StepKind::arrive: {
        // spec/mbarrier.cpp, arrive (its operand checks are Step::raises).
        const std::size_t m = static_cast<std::size_t>(st.mbar);
        add_tx(s, n, st.mbar, st.tx, c.raises);
        c.raises.push_back({Violation::arrival_underflow, s.pending[m] - num(static_cast<std::int64_t>(st.count)) < 0});
        c.writes.push_back(object(Obj::mbar, st.mbar));
        n.pending[m] = s.pending[m] - num(static_cast<std::int64_t>(st.count));
        // Into the channel of its scope (step.cpp, channel_sync); what the
        // agent's fence_mbarrier_init released goes with it (fence_forward).
        if (st.sync && st.into != no_sync) release(n, st.lanes, sync_of(st.into, st.mbar), c_.bool_val(true));
        if (ag.fence_sync >= 0 && st.forward != no_sync) forward(n, sync_of(ag.fence_sync, -1), sync_of(st.forward, st.mbar));
        settle(n, st.mbar);
        advance(n, a, i);
        break;
      }
      case StepKind::expect_tx: {
        // spec/mbarrier.cpp, expect_tx and complete_tx (a negative tx).
        add_tx(s, n, st.mbar, st.tx, c.raises);
        c.writes.push_back(object(Obj::mbar, st.mbar));
        settle(n, st.mbar);
        advance(n, a, i);
        break;
      }
      case StepKind::init: {
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
        break;
      }
      case StepKind::inval: {
        // spec/mbarrier.cpp, inval, per thread: a second finds it invalid.
        const std::size_t m = static_cast<std::size_t>(st.mbar);
        require_live(s, st.mbar, c.raises);
        if (st.twice) c.raises.push_back({Violation::invalidated_barrier, c_.bool_val(true)});
        c.writes.push_back(object(Obj::mbar, st.mbar));
        n.live[m] = c_.bool_val(false);
        n.dead[m] = c_.bool_val(true);
        if (!st.parts.empty()) {  // data laid over it (bmc_fragment.cpp)
          const int ev = st.parts[0].events[0];
          mbar_memory_write(s, st.mbar, f_.events[static_cast<std::size_t>(ev)].thread, false, c);
          c.writes.push_back(object(Obj::buf, f_.first_pseudo + st.mbar));
          overwrite(n, st.mbar, ev);
        }
        advance(n, a, i);
        break;
      }
      case StepKind::fence_init: {
        // step.cpp, fence_mbarrier_init: a proxy fence and a release into
        // the agent's fence sync, both of the barriers' memory only.
        const int into = sync_of(ag.fence_sync, -1);
        for (const int t : st.lanes)
          for (int e = 0; e < E_; ++e) {
            if (!generic(e) || f_.events[static_cast<std::size_t>(e)].buf < f_.first_pseudo) continue;
            K(n, t, e, true) = or2(K(n, t, e, true), K(n, t, e, false));
            R(n, into, e, false) = or2(R(n, into, e, false), K(n, t, e, false));
            R(n, into, e, true) = or2(R(n, into, e, true), K(n, t, e, true));
          }
        advance(n, a, i);
        break;
      }
      case StepKind::wait: {
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
        }
        advance(n, a, i);
        break;
      }
      case StepKind::clc_query: {
        // step.cpp: the lanes' read of the response, then the path of its
        // answer (Step::next_false: "not canceled").
        access(n, st, st.parts[0], st.lanes, -1, false, c.raises);
        touch(c, st.parts[0].buf);
        if (st.next_false < 0) {  // the answer is not kept: one path
          advance(n, a, i);
          break;
        }
        const z3::expr canceled = s.response[static_cast<std::size_t>(st.parts[0].buf)];
        const std::size_t here = static_cast<std::size_t>(base_[ai] + i);
        n.at[here] = c_.bool_val(false);
        n.at[here + 1] = canceled;
        n.at[static_cast<std::size_t>(base_[ai] + st.next_false)] = not1(canceled);
        break;
      }
      case StepKind::clc_cancel:
      case StepKind::tma_load:
        for (std::size_t d = 0; d < st.parts.size(); ++d) {
          access(n, st, st.parts[d], st.lanes, st.unit, true, c.raises);
          touch(c, st.parts[d].buf);
          c.writes.push_back(object(Obj::issued, st.tmas[d]));
        }
        advance(n, a, i);
        break;
      case StepKind::st_async: {
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
        break;
      }
      case StepKind::async_arrive: {
        // spec/mbarrier.cpp, increment_pending, once per thread (a
        // cp.async.mbarrier.arrive without noinc); then hb::release_unit:
        // what the unit has done in the groups tracked, and what it was
        // ordered after, goes into each arrive-on's sync object.
        if (st.count > 0) {
          const int m = st.parts[0].mbar;
          const std::size_t mi = static_cast<std::size_t>(m);
          require_live(s, m, c.raises);
          c.raises.push_back({Violation::bad_arrive_count, s.pending[mi] + num(st.count) > spec::mbarrier::max_count});
          c.writes.push_back(object(Obj::mbar, m));
          n.pending[mi] = s.pending[mi] + num(st.count);
        }
        for (const int j : st.tmas) {
          release_unit(n, st.unit, st.upto, sync_of(f_.tmas[static_cast<std::size_t>(j)].slot, -1));
          c.writes.push_back(object(Obj::issued, j));
        }
        advance(n, a, i);
        break;
      }
      case StepKind::cluster_barrier:
        cluster_cases(s, a, i, std::move(c), out);
        return;
      case StepKind::bar_sync: {
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
        z3::expr mismatch = s.arrived[b] + threads > count;
        mismatch = mismatch || (s.arrived[b] > 0 && (whole ? !s.whole[b] : (s.whole[b] || s.count[b] != count)));
        c.raises.push_back({Violation::named_count_mismatch, mismatch});
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
          break;
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
        return;
      }
      case StepKind::unit_access:
        // step.cpp, unit_access: the async unit accesses each buffer for the
        // issuing lanes, in its group (a pair-CTA tcgen05.mma: in CTAs that
        // must not have exited, require_alive).
        require_alive(s, st.remote, c);
        for (const Step::Part& part : st.parts) {
          require_alive(s, part.remote, c);
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
        break;
      case StepKind::retire:
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
        break;
      case StepKind::amd_barrier:
        amd_barrier_cases(s, a, i, std::move(c), out);
        return;
      case StepKind::syncwarp:
        for (const auto& [leader, rest] : st.warps) {
          order(n, leader, rest);
          order(n, rest, leader);
        }
        advance(n, a, i);
        break;
      case StepKind::proxy_fence:
        // spec/hb.cpp, proxy_fence: what the lanes know, the async proxy
        // knows through them.
        for (const int t : st.lanes)
          for (int e = 0; e < E_; ++e)
            if (generic(e)) K(n, t, e, true) = or2(K(n, t, e, true), K(n, t, e, false));
        advance(n, a, i);
        break;
      case StepKind::tmem_alloc: tmem_alloc(s, a, st, c); advance(n, a, i); break;
      case StepKind::tmem_pair: tmem_pair_cases(s, a, i, std::move(c), out); return;
      case StepKind::fail:
      case StepKind::done: break;  // Step::raises
      case StepKind::exit: {
        advance(n, a, i);
        for (int b = 0; b < static_cast<int>(f_.agents.size()); ++b) c.reads.push_back(object(Obj::exited, b));
        c.writes.push_back(object(Obj::exited, a));
        for (int j = 0; j < static_cast<int>(f_.tmas.size()); ++j) c.reads.push_back(object(Obj::issued, j));
        for (int b = 0; b < N_; ++b) c.writes.push_back(object(Obj::named, b));
        for (int j = 0; j < static_cast<int>(f_.tmas.size()); ++j) c.reads.push_back(object(Obj::landed, j));
        // spec/cluster.cpp, on_exit: the instance in progress waits for
        // fewer threads.
        if (f_.cluster_sync >= 0) {
          c.writes.push_back(object(Obj::cluster, 0));
          cluster_settle(n, live_threads(s, a, -1));
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
        // spec::tmem::cta_exit: columns still allocated.
        if (f_.tmem_slots > 0) {
          z3::expr held = c_.bool_val(false);
          for (int k = 0; k < f_.tmem_slots; ++k) held = or2(held, tm_alloc(s, ag.cta, k));
          c.raises.push_back({Violation::tmem_not_deallocated, and2(last, held)});
          c.reads.push_back(object(Obj::tmem, ag.cta));
        }
        break;
      }
    }
    out.push_back(std::move(c));
  }

  // The footprint of an access of `buf`: it writes the buffer's events and
  // reads those of the buffers that share bytes with it.
  void touch(Case& c, int buf) const {
    c.writes.push_back(object(Obj::buf, buf));
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
  void mbar_memory_write(const State& s, int mbar, int leader, bool init, Case& c) {
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
  void overwrite(State& n, int mbar, int event) {
    for (int e = 0; e < E_; ++e)
      if (f_.events[static_cast<std::size_t>(e)].buf == f_.first_pseudo + mbar) n.alive[static_cast<std::size_t>(e)] = c_.bool_val(false);
    n.alive[static_cast<std::size_t>(event)] = c_.bool_val(true);
    K(n, f_.events[static_cast<std::size_t>(event)].thread, event, false) = c_.bool_val(true);
  }

  // Tensor memory (spec/tmem.hpp), its state in CTA `cta`.
  z3::expr& tm_alloc(State& s, int cta, int slot) { return s.tm_alloc[static_cast<std::size_t>(cta * f_.tmem_slots + slot)]; }
  const z3::expr& tm_alloc(const State& s, int cta, int slot) const {
    return s.tm_alloc[static_cast<std::size_t>(cta * f_.tmem_slots + slot)];
  }
  // Whether a write of `buf` by one of `by` meets a live event not ordered
  // before that thread (spec/hb.cpp, check_only; after_weak alone: a warning).
  z3::expr unordered(const State& s, int buf, const std::vector<int>& by) {
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
  // step.cpp, tmem_alloc_memory, when `when` holds: an alloc's or dealloc's
  // write of each element (part) of the allocation by the leader of the
  // warp whose lanes are `by` (hb::overwrite, known to `known` too, then
  // hb::order from the leader to the lanes); a dealloc first checks that
  // every access is ordered before `by` or `known` (tmem_dealloc_in_use).
  void alloc_memory(const State& s, State& n, const Step::Part& part, const std::vector<int>& by, const std::vector<int>& known,
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
    touch(c, part.buf);
  }

  // tcgen05.alloc, dealloc, relinquish_alloc_permit by one warp (step.cpp,
  // tmem_alloc; spec::tmem::alloc, dealloc, relinquish): an alloc blocks
  // while the columns are not free.
  void tmem_alloc(const State& s, int a, const Step& st, Case& c) {
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
    const z3::expr misuse = alloc ? or2(s.tm_relinq[ci], tm_alloc(s, cta, st.slot)) : not1(tm_alloc(s, cta, st.slot));
    c.raises.push_back({Violation::tmem_misuse, misuse});
    if (alloc) c.guard = and2(c.guard, or2(misuse, s.tm_used[ci] + num(st.cols) <= num(tm::columns)));
    n.tm_used[ci] = s.tm_used[ci] + num(alloc ? st.cols : -st.cols);
    tm_alloc(n, cta, st.slot) = c_.bool_val(alloc);
    for (const Step::Part& part : st.parts) alloc_memory(s, n, part, st.lanes, {}, !alloc, c_.bool_val(true), c);
  }

  // A cta_group 2 collective (step.cpp, tmem_pair; spec::tmem::pair_issue):
  // its issue, which the first warp of the pair makes and then waits (its
  // stage), or the second, which performs it in both CTAs; then the first
  // warp's return once it is performed (pair_returns).
  void tmem_pair_cases(const State& s, int a, int i, Case c, std::vector<Case>& out) {
    namespace tm = spec::tmem;
    const bmc::Agent& ag = f_.agents[static_cast<std::size_t>(a)];
    const Step& st = ag.steps[static_cast<std::size_t>(i)];
    const std::size_t ai = static_cast<std::size_t>(a);
    const int me = ag.cta, peer = tm::peer(ag.cta);
    const std::size_t mi = static_cast<std::size_t>(me), pi = static_cast<std::size_t>(peer);
    const auto op = static_cast<tm::PairOp>(st.tmem_op);
    const z3::expr none = num(static_cast<int>(tm::PairOp::none)), kind = num(st.tmem_op);
    State& n = c.next;
    c.writes.push_back(object(Obj::tmem, me));
    c.writes.push_back(object(Obj::tmem, peer));
    c.guard = and2(c.guard, and2(not1(s.stage[ai]), s.tm_pair[mi] == none));
    const z3::expr first = s.tm_pair[pi] == none || s.tm_done[pi];
    z3::expr mismatch = s.tm_pair[pi] != kind;
    if (op != tm::PairOp::relinquish) mismatch = mismatch || s.tm_which[pi] != num(st.slot);
    mismatch = and2(not1(first), mismatch);
    const z3::expr second = and2(not1(first), not1(mismatch));
    z3::expr misuse = c_.bool_val(false), blocked = c_.bool_val(false);
    if (op == tm::PairOp::alloc) {
      for (const int x : {me, peer}) {
        misuse = or2(misuse, or2(s.tm_relinq[static_cast<std::size_t>(x)], tm_alloc(s, x, st.slot)));
        blocked = or2(blocked, s.tm_used[static_cast<std::size_t>(x)] + num(st.cols) > num(tm::columns));
      }
    } else if (op == tm::PairOp::dealloc) {
      misuse = or2(not1(tm_alloc(s, me, st.slot)), not1(tm_alloc(s, peer, st.slot)));
    }
    c.raises.push_back({Violation::tmem_misuse, or2(mismatch, and2(second, misuse))});
    c.guard = and2(c.guard, not1(and2(second, and2(not1(misuse), blocked))));
    const z3::expr perform = second;  // (misuse raises: the step is not taken then)
    // The first: issued, waiting for the peer's warp.
    n.tm_pair[mi] = z3::ite(first, kind, s.tm_pair[mi]);
    n.tm_which[mi] = z3::ite(first, num(op == tm::PairOp::relinquish ? 0 : st.slot), s.tm_which[mi]);
    n.stage[ai] = first;
    // The second: performed in both CTAs, and the peer's warp may return.
    for (const int x : {me, peer}) {
      const std::size_t xi = static_cast<std::size_t>(x);
      if (op == tm::PairOp::relinquish) {
        n.tm_relinq[xi] = or2(s.tm_relinq[xi], perform);
        continue;
      }
      const bool alloc = op == tm::PairOp::alloc;
      n.tm_used[xi] = z3::ite(perform, s.tm_used[xi] + num(alloc ? st.cols : -st.cols), s.tm_used[xi]);
      tm_alloc(n, x, st.slot) = z3::ite(perform, c_.bool_val(alloc), tm_alloc(s, x, st.slot));
    }
    n.tm_done[pi] = or2(s.tm_done[pi], perform);
    if (op != tm::PairOp::relinquish) {
      // Each CTA's elements: its own warp's leader writes them, and the
      // other warp of the collective knows it (step.cpp, tmem_alloc_memory).
      // The other warp is the peer agent waiting at a collective (one at
      // most: the peer CTA's state holds one).
      const std::size_t size = st.parts.size() / (st.peer_agents.size() + 1);
      for (std::size_t w = 0; w < st.peer_agents.size(); ++w) {
        const int b = st.peer_agents[w];
        const std::vector<int>& theirs = st.peer_lanes[w];
        z3::expr waiting = c_.bool_val(false);
        const bmc::Agent& other = f_.agents[static_cast<std::size_t>(b)];
        for (int j = 0; j < static_cast<int>(other.steps.size()); ++j)
          if (other.steps[static_cast<std::size_t>(j)].kind == StepKind::tmem_pair) waiting = or2(waiting, at(s, b, j));
        const z3::expr with = and2(perform, and2(s.stage[static_cast<std::size_t>(b)], waiting));
        for (std::size_t k = 0; k < size; ++k) {
          alloc_memory(s, n, st.parts[k], st.lanes, theirs, op == tm::PairOp::dealloc, with, c);
          alloc_memory(s, n, st.parts[size * (w + 1) + k], theirs, st.lanes, op == tm::PairOp::dealloc, with, c);
        }
      }
    }
    advance(n, a, i, perform);
    out.push_back(std::move(c));
    // The first warp's return.
    Case r{ag.name + ": " + st.text + " returns (line " + std::to_string(st.loc.line) + ")",
           and2(at(s, a, i), s.stage[ai] && s.tm_pair[mi] != none && s.tm_done[mi]), {}, s, a, {}, {object(Obj::tmem, me)}};
    r.next.tm_pair[mi] = none;
    r.next.tm_which[mi] = num(0);
    r.next.tm_done[mi] = c_.bool_val(false);
    r.next.stage[ai] = c_.bool_val(false);
    advance(r.next, a, i);
    out.push_back(std::move(r));
  }

  // AMD: each instruction orders the lanes of each of the agent's waves
  // (step.cpp, Exec::op; spec/amd.hpp, wave_lanes_in_lockstep).
  void lockstep(State& n, const bmc::Agent& ag) {
    for (const auto& [leader, rest] : ag.lockstep) {
      order(n, leader, rest);
      order(n, rest, leader);
    }
  }

  // The live waves of an AMD workgroup: its agents not exited (step.cpp
  // counts one wave per agent), less `except`.
  z3::expr live_waves(const State& s, int except) {
    z3::expr live = num(0);
    for (int b = 0; b < static_cast<int>(f_.agents.size()); ++b)
      if (b != except) live = live + z3::ite(exited(s, b), num(0), num(1));
    return live;
  }

  // spec/amd.cpp, settle: the instance completes once every live wave
  // has signalled.
  void amd_settle(State& n, const z3::expr& waves) {
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
  void amd_barrier_cases(const State& s, int a, int i, Case c, std::vector<Case>& out) {
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

  // spec/cluster.cpp, settle: the instance completes once every live
  // thread of the cluster has arrived.
  void cluster_settle(State& n, const z3::expr& expected) {
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
  void cluster_cases(const State& s, int a, int i, Case c, std::vector<Case>& out) {
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
    if (ag.fence_sync >= 0) forward(n, sync_of(ag.fence_sync, -1), sync);
    n.cl_ticket[ai] = s.cl[1] + 1;
    n.cl[0] = s.cl[0] + num(ag.threads);
    cluster_settle(n, live_threads(s, -1, -1));
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

  z3::expr issued(const State& s, int j) {
    const bmc::Tma& t = f_.tmas[static_cast<std::size_t>(j)];
    z3::expr later = c_.bool_val(false);
    for (int i = t.step + 1; i < f_.agents[static_cast<std::size_t>(t.agent)].steps[static_cast<std::size_t>(t.step)].end; ++i)
      later = or2(later, at(s, t.agent, i));
    return later;
  }

  // A TMA load's or st.async's complete-tx (spec/mbarrier.cpp,
  // complete_tx) on a barrier of a CTA that has not exited (step.cpp,
  // pending_step), which releases the load's write into the barrier
  // (hb.cpp, release_write), or moves what the st.async's issue released
  // into the channel of a .cluster release (hb.cpp, move).
  Case landing(const State& s, int j) {
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
    else R(n, t.mbar, t.event, false) = or2(R(n, t.mbar, t.event, false), s.alive[static_cast<std::size_t>(t.event)]);
    settle(n, t.mbar);
    return c;
  }

  // A try_cancel response lands as a TMA load does, with an answer: the
  // first of its request's responses decides it, "canceled" only while a
  // cluster is left to take (spec/clc.hpp, may_answer and decide); the
  // others give the same answer. The buffer then holds it (step.cpp,
  // pending_step).
  Case clc_landing(const State& s, int j, bool canceled) {
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
    if (canceled) n.clc[0] = z3::ite(s.decided[r], s.clc[0], s.clc[0] - 1);
    else n.clc[1] = c_.bool_val(true);  // decided now, or failed already
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
  Case arrive_on(const State& s, int j) {
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
};

// The fields of a state, in one order, for building the next one.
template <class S, class F>
void each_field(S& s, F&& f) {
  for (auto* v : {&s.at, &s.stage, &s.ticket, &s.pending, &s.tx, &s.odd, &s.live, &s.dead, &s.expected, &s.arrived, &s.count, &s.gen, &s.whole, &s.landed,
                  &s.cl_stage, &s.cl_ticket, &s.cl, &s.alive, &s.tm_used, &s.tm_relinq, &s.tm_pair, &s.tm_which, &s.tm_done, &s.tm_alloc,
                  &s.clc, &s.decided, &s.answer, &s.response, &s.k, &s.ka, &s.kw, &s.rel, &s.vis, &s.rela, &s.visa})
    f(*v);
}

// At most one of `x`, in clauses: pairwise for a few (the quickest on the
// agreement test's generated kernels), else a sequential counter (C. Sinz,
// "Towards an Optimal CNF Encoding of Boolean Cardinality Constraints", CP
// 2005), where `some` says that one of x[0..i] holds. Z3 4.8.12's own `atmost`
// (a pseudo-Boolean constraint) answered unsat, in this incremental use, for
// a depth a run did reach: the search stopped there and called a kernel
// with an invalidated-barrier use "verified" (a generated kernel of the
// agreement test).
void at_most_one(z3::solver& solver, const z3::expr_vector& x, const std::string& prefix) {
  z3::context& c = solver.ctx();
  if (x.size() <= 32) {
    for (unsigned i = 0; i < x.size(); ++i)
      for (unsigned j = i + 1; j < x.size(); ++j) solver.add(!x[i] || !x[j]);
    return;
  }
  z3::expr some = x[0];
  for (unsigned i = 1; i < x.size(); ++i) {
    solver.add(!some || !x[i]);
    if (i + 1 == x.size()) break;
    const z3::expr next = c.bool_const((prefix + std::to_string(i)).c_str());
    solver.add(!some || next);
    solver.add(!x[i] || next);
    some = next;
  }
}

}  // namespace

BmcResult bounded_search(const ir::Kernel& k, const BmcOptions& opt) {
  BmcResult out;
  const Fragment f = bmc::unroll(k);
  if (!f.refused.empty()) {
    out.verdict = BmcResult::Verdict::not_covered;
    out.reason = f.refused;
    return out;
  }
  Encoder enc(f);
  z3::context& c = enc.ctx();
  z3::solver solver(c);
  // The budget is Z3's resource count, the same on every machine: a check
  // that runs out of it ends the search at the depth before.
  if (opt.budget > 0) {
    z3::params limit(c);
    limit.set("rlimit", static_cast<unsigned>(opt.budget));
    solver.set(limit);
  }
  auto out_of_budget = [&](int depth) {
    out.verdict = BmcResult::Verdict::bounded;
    out.depth = depth - 1;
    out.reason = "its budget ran out at depth " + std::to_string(depth);
    return out;
  };
  // Every run ends within this many steps: each step moves an agent on, lands
  // a load, or parks an agent at a bar_sync it then leaves.
  int bound = static_cast<int>(f.tmas.size());
  for (const bmc::Agent& a : f.agents) bound += 2 * static_cast<int>(a.steps.size());
  State s = enc.initial();
  // The peephole reduction (Wang, Yang, Kahlon, Gupta, "Peephole Partial
  // Order Reduction", TACAS 2008): two adjacent steps of different processes
  // that touch no common object (one writing it) commute, so every run is
  // equivalent to one where such a pair comes in process order, reaching
  // the same states; the search takes only those. `before[i]`: the cases
  // that may not come right before case i. The case list is the same at
  // every depth.
  std::vector<std::vector<int>> before;
  if (opt.reduction) {
    const std::vector<Case> proto = enc.cases(s);
    auto meets = [](const std::vector<int>& x, const std::vector<int>& y) {
      for (const int a : x)
        for (const int b : y)
          if (a == b) return true;
      return false;
    };
    before.resize(proto.size());
    for (std::size_t i = 0; i < proto.size(); ++i)
      for (std::size_t j = 0; j < proto.size(); ++j) {
        const Case& first = proto[j];
        const Case& second = proto[i];
        if (second.proc >= first.proc) continue;
        if (meets(first.writes, second.writes) || meets(first.writes, second.reads) || meets(second.writes, first.reads)) continue;
        before[i].push_back(static_cast<int>(j));
      }
  }
  // Per depth, per case, the Boolean that it is the step taken there
  // (false where the case cannot be enabled at that depth); its text.
  std::vector<std::vector<z3::expr>> picks;
  std::vector<std::vector<std::string>> texts;
  auto wanted = [&](Violation v) { return opt.only == Violation::none || opt.only == v; };
  const int last = opt.max_depth > 0 && opt.max_depth < bound ? opt.max_depth : bound;
  for (int depth = 0; depth <= last; ++depth) {
    std::vector<Case> cases = enc.cases(s);
    // The cases that may be enabled at this depth (an agent is at most
    // `depth` steps on: the others' guards are the literal false).
    std::vector<std::size_t> live;
    for (std::size_t i = 0; i < cases.size(); ++i)
      if (!cases[i].guard.is_false()) live.push_back(i);
    z3::expr any_enabled = c.bool_val(false);
    for (const std::size_t i : live) any_enabled = or2(any_enabled, cases[i].guard);
    // What can go wrong from this state: a deadlock, or an enabled step
    // that raises a violation.
    z3::expr_vector bad(c);
    std::vector<std::pair<std::size_t, const Raise*>> which;
    if (wanted(Violation::deadlock)) bad.push_back(!any_enabled && !enc.all_exited(s));
    for (const std::size_t i : live)
      for (const Raise& r : cases[i].raises)
        if (wanted(r.kind) && !r.when.is_false()) {
          bad.push_back(and2(cases[i].guard, r.when));
          which.emplace_back(i, &r);
        }
    const z3::expr flag = c.bool_const(("bad" + std::to_string(depth)).c_str());
    solver.add(z3::implies(flag, z3::mk_or(bad)));
    z3::expr_vector assume(c);
    assume.push_back(flag);
    const z3::check_result found = solver.check(assume);
    if (found == z3::unknown) return out_of_budget(depth);
    if (found == z3::sat) {
      const z3::model model = solver.get_model();
      out.verdict = BmcResult::Verdict::violation;
      out.depth = depth;
      for (int d = 0; d < depth; ++d) {
        const std::vector<z3::expr>& pick = picks[static_cast<std::size_t>(d)];
        for (std::size_t i = 0; i < pick.size(); ++i)
          if (!pick[i].is_false() && model.eval(pick[i], true).is_true())
            out.trace.push_back(texts[static_cast<std::size_t>(d)][i]);
      }
      out.kind = Violation::deadlock;
      for (const auto& [i, r] : which)
        if (model.eval(cases[i].guard && r->when, true).is_true()) {
          out.kind = r->kind;
          out.trace.push_back(cases[i].text + " -> " + std::string(spec::violation_name(r->kind)));
          break;
        }
      if (out.kind == Violation::deadlock) out.trace.push_back("no step is enabled: deadlock");
      return out;
    }
    solver.add(!flag);
    // Take one enabled step that raises nothing.
    std::vector<z3::expr> pick(cases.size(), c.bool_val(false));
    z3::expr_vector taken(c), one(c);
    std::vector<std::string> names;
    for (const Case& x : cases) names.push_back(x.text);
    for (const std::size_t i : live) {
      pick[i] = c.bool_const(("step" + std::to_string(depth) + "_" + std::to_string(i)).c_str());
      one.push_back(pick[i]);
      z3::expr ok = cases[i].guard;
      for (const Raise& r : cases[i].raises) ok = and2(ok, !r.when);
      taken.push_back(pick[i] && ok);
    }
    solver.add(z3::mk_or(taken));
    at_most_one(solver, one, "one" + std::to_string(depth) + "_");
    if (!before.empty() && !picks.empty()) {
      const std::vector<z3::expr>& prev = picks.back();
      for (const std::size_t i : live)
        for (const int j : before[i])
          if (!prev[static_cast<std::size_t>(j)].is_false()) solver.add(!pick[i] || !prev[static_cast<std::size_t>(j)]);
    }
    const z3::check_result goes_on = solver.check();
    if (goes_on == z3::unknown) return out_of_budget(depth);
    if (goes_on != z3::sat) {
      out.depth = depth;
      return out;  // every run has ended, none wrong
    }
    if (depth == last) break;
    // The next state: each field a fresh constant equal to what the chosen
    // case makes of it.
    State next = s;
    std::vector<Exprs*> mine;
    std::vector<const Exprs*> old;
    each_field(next, [&](Exprs& v) { mine.push_back(&v); });
    each_field(std::as_const(s), [&](const Exprs& v) { old.push_back(&v); });
    std::vector<std::vector<const Exprs*>> per_case(cases.size());
    for (const std::size_t i : live)
      each_field(std::as_const(cases[i].next), [&](const Exprs& v) { per_case[i].push_back(&v); });
    int fresh = 0;
    std::vector<std::size_t> writers;  // the live cases that do not share the field with s
    for (std::size_t fld = 0; fld < mine.size(); ++fld) {
      writers.clear();
      for (const std::size_t i : live)
        if (!per_case[i][fld]->shares(*old[fld])) writers.push_back(i);
      if (writers.empty()) continue;
      for (std::size_t x = 0; x < old[fld]->size(); ++x) {
        const z3::expr& was = (*old[fld])[x];
        z3::expr value = was;
        bool changed = false;
        for (std::size_t k = writers.size(); k-- > 0;) {
          const std::size_t i = writers[k];
          const z3::expr& after = (*per_case[i][fld])[x];
          if (z3::eq(after, was)) continue;
          value = z3::ite(pick[i], after, value);
          changed = true;
        }
        if (!changed) continue;
        const z3::expr v = c.constant(("s" + std::to_string(depth) + "_" + std::to_string(fresh++)).c_str(), was.get_sort());
        solver.add(v == value);
        (*mine[fld])[x] = v;
      }
    }
    picks.push_back(std::move(pick));
    texts.push_back(std::move(names));
    s = next;
  }
  // Some run goes on past the depth asked for: nothing is said of it.
  out.depth = last;
  out.verdict = BmcResult::Verdict::bounded;
  return out;
}

}  // namespace pc::smt
