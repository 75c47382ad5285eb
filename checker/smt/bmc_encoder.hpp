// The bounded SMT search's encoding (bmc.hpp), shared by its files: a state
// of the search as Z3 terms, the transitions (cases) out of it, and the
// Encoder that builds them (bmc_state.cpp: the state and the happens-before
// sets; bmc_steps.cpp: the agents' steps on memory, mbarriers and async
// copies, and the landings; bmc_steps_sync.cpp: the barriers, the exit and
// tensor memory). Private to checker/smt.
#pragma once

#include <z3++.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "checker/smt/bmc_fragment.hpp"
#include "spec/violation.hpp"

namespace pc::smt::bmc::encoding {

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
// `rel`, `vis` (and `rela`, `visa`) its released and visible sets, `relw`,
// `visw` released_weak and visible_weak (a chain through a too-narrow
// release: generic terms only, as after_weak has). An async
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
  // the columns of the last allocation, the pair collective issued first
  // and not yet joined by the peer (PairOp), its allocation; per CTA and
  // allocation ([cta * slots + slot]): allocated.
  Exprs tm_used, tm_relinq, tm_last, tm_pair, tm_which, tm_alloc;
  // Cluster launch control (spec::clc::State): {clusters left to take, then
  // per CTA a failure it observed}; per request, whether its answer is decided and what
  // it is; per buffer, the answer of the response last written there.
  Exprs clc, decided, answer, response;
  Exprs k, ka, kw;            // [thread * events + event]
  Exprs rel, vis, rela, visa; // [sync * events + event]
  Exprs relw, visw;           // [sync * events + event]
};

inline z3::expr or2(const z3::expr& a, const z3::expr& b) {
  if (a.is_true() || b.is_false()) return a;
  if (b.is_true() || a.is_false()) return b;
  return a || b;
}

inline z3::expr not1(const z3::expr& a) {
  if (a.is_true()) return a.ctx().bool_val(false);
  if (a.is_false()) return a.ctx().bool_val(true);
  return !a;
}

inline z3::expr and2(const z3::expr& a, const z3::expr& b) {
  if (a.is_false() || b.is_true()) return a;
  if (b.is_false() || a.is_true()) return b;
  return a && b;
}

// A violation a step raises under a condition.
struct Raise {
  Violation kind;
  z3::expr when;
  // Not a violation: a state the fragment does not follow (a group's arrive
  // that would complete a phase in the middle of its threads: the explicit
  // search lets the rest arrive later, spec::mbarrier::arrive_threads).
  // Reaching it makes the verdict not_covered.
  bool declines = false;
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

  State initial();

  std::vector<Case> cases(const State& s);

  z3::expr all_exited(const State& s);

  z3::context& ctx() { return c_; }

  // The objects of the footprints: mbarriers, named slots, buffers, whether
  // each agent has exited (what a count of live threads and the CTA's exit
  // read), whether each TMA load is issued and whether it has landed. An
  // agent's position and stage are its own steps' business alone.
  enum class Obj { mbar, named, buf, exited, issued, landed, cluster, clc, tmem };
  int object(Obj o, int i) const;

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
  // after_weak, released_weak, visible_weak (hb::Event).
  z3::expr& KW(State& s, int t, int e) { return s.kw[static_cast<std::size_t>(t * E_ + e)]; }
  z3::expr& RW(State& s, int sync, int e) { return s.relw[static_cast<std::size_t>(sync * E_ + e)]; }
  z3::expr& VW(State& s, int sync, int e) { return s.visw[static_cast<std::size_t>(sync * E_ + e)]; }
  const z3::expr& KW(const State& s, int t, int e) const { return s.kw[static_cast<std::size_t>(t * E_ + e)]; }
  const z3::expr& RW(const State& s, int sync, int e) const { return s.relw[static_cast<std::size_t>(sync * E_ + e)]; }
  const z3::expr& VW(const State& s, int sync, int e) const { return s.visw[static_cast<std::size_t>(sync * E_ + e)]; }
  bool generic(int e) const { return !f_.events[static_cast<std::size_t>(e)].async; }
  // An extra sync object (bmc_fragment.hpp), or own_sync: mbarrier m's own.
  int sync_of(int extra, int m) const { return extra == own_sync ? m : M_ + N_ + extra; }

  z3::expr cta_exited(const State& s, int c);
  void require_alive(const State& s, int remote, Case& c);
  // step.cpp, require_started; and the execution ordering that carries a
  // CTA's start through .relaxed arrives and waits (spec/hb.cpp,
  // tc_release and tc_acquire, on the start events only: the fragment
  // declines kernels where the tcgen05 ordering can order something).
  void require_started(const State& s, int remote, const std::vector<int>& issuers, std::vector<Raise>& raises);
  void release_start(State& s, const std::vector<int>& from, int sync);
  void remote_operation(State& n, const Step& st, Case& c);
  void end_ordered(const State& s, int cta, const z3::expr& last, Case& c);
  void acquire_start(State& s, const std::vector<int>& to, int sync);

  z3::expr exited(const State& s, int a);
  z3::expr exited_in_flight(const State& s, int b);
  z3::expr at(const State& s, int a, int i) { return s.at[static_cast<std::size_t>(base_[static_cast<std::size_t>(a)] + i)]; }
  void advance(State& s, int a, int i, const z3::expr& go);
  void advance(State& s, int a, int i) { advance(s, a, i, c_.bool_val(true)); }

  void release(State& s, const std::vector<int>& from, int sync, const z3::expr& when);
  void complete(State& s, int sync, const z3::expr& when);
  void acquire(State& s, const std::vector<int>& to, int sync, const z3::expr& when);
  void acquire_weak(State& s, const std::vector<int>& to, int weak, const z3::expr& when);
  void move(State& s, int from, int to);
  void forward(State& s, int from, int to);
  void release_unit(State& s, int unit, int upto, int sync, const std::vector<int>& except);
  void order(State& s, int from, int to);

  void add_tx(const State& s, State& n, int m, std::int64_t delta, std::vector<Raise>& raises);

  void settle(State& s, int m);

  void require_live(const State& s, int m, std::vector<Raise>& raises);
  void require_init_visible(const State& s, int m, const std::vector<int>& issuers, bool async, std::vector<Raise>& raises);

  void access(State& s, const Step& st, const Step::Part& part, const std::vector<int>& issuers, int unit, bool async,
              std::vector<Raise>& raises);

  z3::expr live_threads(const State& s, int except, int cta);

  // The cases of agent a's step i, by its kind (bmc_steps.cpp, bmc_steps_sync.cpp).
  void step_cases(const State& s, int a, int i, std::vector<Case>& out);
  void mbar_use_checks(const State& s, const Step& st, Case& c);
  void access_step(const State& s, int a, int i, Case& c);
  void arrive_step(const State& s, int a, int i, Case& c);
  void expect_tx_step(const State& s, int a, int i, Case& c);
  void init_step(const State& s, int a, int i, Case& c);
  void inval_step(const State& s, int a, int i, Case& c);
  void fence_init_step(int a, int i, Case& c);
  void wait_step(const State& s, int a, int i, Case& c);
  void clc_query_step(const State& s, int a, int i, Case& c);
  void copy_step(int a, int i, Case& c);
  void st_async_step(int a, int i, Case& c);
  void async_arrive_step(const State& s, int a, int i, Case& c);
  void bar_sync_cases(const State& s, int a, int i, Case c, std::vector<Case>& out);
  void unit_access_step(const State& s, int a, int i, Case& c);
  void retire_step(int a, int i, Case& c);
  void syncwarp_step(int a, int i, Case& c);
  void proxy_fence_step(int a, int i, Case& c);
  void consume_step(int a, int i, Case& c);
  void exit_step(const State& s, int a, int i, Case& c);

  void touch(Case& c, int buf) const;

  void mbar_memory_write(const State& s, int mbar, int leader, bool init, Case& c);
  void overwrite(State& n, int mbar, int event);

  // Tensor memory (spec/tmem.hpp), its state in CTA `cta`.
  z3::expr& tm_alloc(State& s, int cta, int slot) { return s.tm_alloc[static_cast<std::size_t>(cta * f_.tmem_slots + slot)]; }
  const z3::expr& tm_alloc(const State& s, int cta, int slot) const {
    return s.tm_alloc[static_cast<std::size_t>(cta * f_.tmem_slots + slot)];
  }
  // spec::tmem::grows: an allocation of `cols` after a smaller one in the CTA.
  z3::expr tm_grows(const State& s, int cta, std::int64_t cols) {
    const z3::expr& last = s.tm_last[static_cast<std::size_t>(cta)];
    return last != num(0) && last < num(cols);
  }
  z3::expr unordered(const State& s, int buf, const std::vector<int>& by);
  void alloc_memory(const State& s, State& n, const Step::Part& part, const std::vector<int>& by, const std::vector<int>& known,
                    bool dealloc, const z3::expr& when, Case& c);

  void tmem_alloc(const State& s, int a, const Step& st, Case& c);

  void tmem_pair_cases(const State& s, int a, int i, Case c, std::vector<Case>& out);
  [[nodiscard]] std::vector<int> peer_collectives(int cta, const Step& st) const;

  void lockstep(State& n, const bmc::Agent& ag);

  z3::expr live_waves(const State& s, int except);

  void amd_settle(State& n, const z3::expr& waves);

  void amd_barrier_cases(const State& s, int a, int i, Case c, std::vector<Case>& out);

  void cluster_settle(State& n, const z3::expr& expected);
  z3::expr cluster_expected(const State& s, int exiting);

  void cluster_cases(const State& s, int a, int i, Case c, std::vector<Case>& out);

  z3::expr issued(const State& s, int j);

  Case landing(const State& s, int j);

  Case clc_landing(const State& s, int j, bool canceled);

  Case arrive_on(const State& s, int j);
};

// The fields of a state, in one order, for building the next one.
template <class S, class F>
void each_field(S& s, F&& f) {
  for (auto* v : {&s.at, &s.stage, &s.ticket, &s.pending, &s.tx, &s.odd, &s.live, &s.dead, &s.expected, &s.arrived, &s.count, &s.gen, &s.whole, &s.landed,
                  &s.cl_stage, &s.cl_ticket, &s.cl, &s.alive, &s.tm_used, &s.tm_relinq, &s.tm_last, &s.tm_pair, &s.tm_which, &s.tm_alloc,
                  &s.clc, &s.decided, &s.answer, &s.response, &s.k, &s.ka, &s.kw, &s.rel, &s.vis, &s.rela, &s.visa, &s.relw, &s.visw})
    f(*v);
}

}  // namespace pc::smt::bmc::encoding
