// The language module (model.hpp) wrapped in the reductions Options turn on,
// as the search back ends (checker/search/) see it: an initial state, the
// successors of a state that are to be stored, and the key a stored state is
// deduplicated by. The wrappers, each in its own file under checker/reduce/:
//   local.hpp          local steps merged into the next operation (always),
//                      with the agents' private operations (with reductions);
//   partial_order.hpp  only a persistent set's successors are stored;
//   symmetry.hpp       a state's key is that of its canonical representative;
//   trips.hpp          with --prove, the key forgets how many trips have passed.
// Every enabled step of a state is still taken, so that any violation it
// raises there is reported (docs/checker.md, "Reductions").
#pragma once

#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "checker/coverage.hpp"
#include "checker/model.hpp"
#include "checker/reduce/local.hpp"
#include "checker/reduce/partial_order.hpp"
#include "checker/reduce/symmetry.hpp"
#include "checker/reduce/trips.hpp"
#include "checker/result.hpp"
#include "checker/step_cache.hpp"

namespace pc::check {

// A point of the one-thread search's order: the state expanded (by id, the
// order states are found in) and the action taken from it; a deadlock comes
// after every action of its state. The parallel search keeps its findings by
// key, so that it reports what one thread meets first.
using Key = std::uint64_t;
constexpr Key key_of(std::uint32_t id, std::uint32_t action) { return (Key{id} << 16) | action; }
constexpr std::uint32_t deadlock_action = 0xffff;
constexpr Key no_key = ~Key{0};

// The first violation an expansion met.
struct Found {
  bool any = false;
  spec::Violation violation = spec::Violation::none;
  std::uint32_t parent = 0;   // id of the state the failing action was taken from
  bool deadlock = false;      // the state `parent` itself is deadlocked
  Action action = 0;
};

// What one thread of a search owns: its state buffers and its findings.
struct Worker {
  // The state expanded, and two buffers its successors are stepped into in
  // turn (Successors::expand): one is probed in the visited set while the
  // next successor is stepped into the other.
  State s, t, t2;
  StepInfo info;        // the step being taken (apply clears it)
  EventBytes s_events;  // where s's events lie in the bytes it was loaded from
  Bytes bytes;                      // the successor being queued
  Bytes part, shared;               // a successor's bytes of an agent's part and of the shared parts (StepCache::put)
  // The agent hashes of s (agent_hash), and their sum, when the search
  // fingerprints successors from them (Successors::incremental_).
  std::vector<std::uint64_t> agent_hashes;
  std::uint64_t agent_sum = 0;
  // The bytes of the state to expand (valid while it is expanded):
  // Successors::expand expands the state given so, loading it into s unless
  // the step cache answers for every agent; its successors' bytes copy its
  // unchanged events and agents' parts from there, and the step cache reads
  // its parts there.
  void load(std::string_view bytes) { from = bytes; }
  std::string_view from;
  StepCache cache;            // the outcomes of this worker's agent steps, marked in its coverage when taken (step_cache.hpp)
  // With the cache: where each agent's part lies in `from` (agent_parts),
  // and the outcomes found for a state expanded from its bytes.
  std::vector<std::uint32_t> parts;
  std::vector<StepCache::Kept> outcomes;
  std::vector<int> enabled;         // the agents whose outcome is enabled, in order
  std::vector<std::uint64_t> fps;   // their successors' fingerprints
  std::uint64_t kept_states = 0;  // states expanded so (Result::step_cache_states)
  State m;                    // Options::check_step_cache steps a kept step here
  StepInfo m_info;
  Coverage* coverage = nullptr;            // where this thread marks the instructions run (none: no coverage)
  std::unique_ptr<Coverage> own_coverage;  // a thread's own marks (parallel search)
  std::uint64_t transitions = 0;
  Action action = 0;                       // the action being taken (the key of an error)
  Found found;
  Key found_key = no_key;
  std::exception_ptr error;                // a KernelError or InternalError met while expanding
  Key error_key = no_key;
  // The first finding of each warning kind at each location, the first
  // max_warnings + 1 of them (one more tells that there are more).
  std::vector<std::pair<Key, Warning>> warnings;
};

// The warnings of a search: Result::warnings and Result::warnings_capped.
struct Warnings {
  std::vector<Warning> list;
  bool capped = false;
};

// Over the threads, the first finding of each warning kind at each location
// in the one-thread order, before `limit` (the violation that ended the
// search): the first max_warnings, grouped by kind.
[[nodiscard]] Warnings first_warnings(const std::vector<const Worker*>& ws, Key limit);

class Successors {
 public:
  Successors(const Model& m, const Options& opt)
      : m_(m),
        reduction_(opt.reduction),
        private_(opt.merges_private()),
        por_(opt.reduction && opt.partial_order && m.dependencies().usable()),
        canonical_(false),
        order_(m, opt.check_reduction),
        sym_(m.program()),
        plan_(m.trips()),
        owners_{m.program().var_base, m.stepper().phases_kept()},
        parts_(m.initial(), owners_),
        shape_(shape_seed(m.initial())),
        check_cache_(opt.check_step_cache) {
    canonical_ = reduction_ && opt.symmetry && sym_.active();
    // A canonical representative or a trip key is a state apart from the
    // successor, with every agent's part moved or rewritten: hashed whole.
    incremental_ = !canonical_ && !plan_.active;
    // The cache gives a successor's fingerprint from the agent hashes.
    cache_ = incremental_ && opt.step_cache;
    // The key graph has cycles (a state's key equals an earlier one's): the
    // persistent sets have no cycle proviso, so --prove stores every successor.
    if (plan_.active) por_ = false;
  }

  [[nodiscard]] const Model& model() const { return m_; }
  // Which parts of a state are whose: serialize lays the bytes out by them.
  [[nodiscard]] const Owners& owners() const { return owners_; }

  // The initial state, its local steps run.
  [[nodiscard]] State initial(Coverage* coverage) const {
    State s = m_.initial();
    local_steps(s, -1, coverage);
    return s;
  }
  // Runs the local steps after a step of agent `only` (-1: of every agent).
  void local_steps(State& s, int only = -1, Coverage* coverage = nullptr) const {
    run_local_steps(m_.stepper(), s, private_, only, coverage);
  }
  // The same after a step of agent a; true if one of them read another
  // agent's part (StepInfo::reads_others).
  bool local_steps_reading(State& s, int a, Coverage* coverage) const {
    bool others = false;
    run_local_steps(m_.stepper(), s, private_, [&others](int, const StepInfo& i) { others |= i.reads_others; }, a, coverage);
    return others;
  }
  // The key a state is stored by (its canonical representative's, with
  // symmetry): a hash of its fields (hash_state), so that a successor is
  // serialised only when the search queues it.
  std::uint64_t fingerprint(const State& s) const {
    if (plan_.active) {
      State c = s;
      trip_key(plan_, m_.program(), c);
      return canonical_ ? hash_state(sym_.canonical(c), owners_) : hash_state(c, owners_);
    }
    return canonical_ ? hash_state(sym_.canonical(s), owners_) : hash_state(s, owners_);
  }
  // fingerprint(w.t), where w.t is a successor of w.s by action a: with
  // incremental_, from w.s's agent hashes (load_agent_hashes), a's part alone
  // hashed again. A step of agent a writes no other agent's part, and a
  // pending event's step no agent's (step.cpp); local steps after a step
  // of a are a's own.
  // With `parts`, a's agent_hash of t and t's shared_hash go there too.
  std::uint64_t successor_fingerprint(Worker& w, const State& t, int a, StepCache::Outcome* parts = nullptr) const {
    if (!incremental_) return fingerprint(t);
    std::uint64_t sum = w.agent_sum, h = 0;
    if (const int b = m_.mover(w.s, a); b >= 0) {  // an agent's step, or its second way
      h = agent_hash(t, owners_, b);
      sum += h - w.agent_hashes[static_cast<std::size_t>(b)];
    }
    const std::uint64_t shared = shared_hash(t, shape_);
    if (parts) {
      parts->enabled = true;
      parts->agent_hash = h;
      parts->shared_hash = shared;
    }
    return fingerprint_of(sum, shared);
  }

  // Expands w.s, the state numbered `id`: takes every enabled action,
  // records a violation or deadlock in w.found (and its key), and hands each
  // successor the reductions keep to store(fingerprint, action, queued),
  // queued() giving the bytes to queue (the state itself, not its canonical
  // representative, so that a schedule's actions stay valid along the path).
  // Each fingerprint goes to prefetch(fingerprint) first, and to store after
  // the next action is stepped: the search's visited set can fetch its slot
  // meanwhile. The store calls come in the order of the actions.
  template <class Store, class Prefetch = void (*)(std::uint64_t)>
  void expand(Worker& w, std::uint32_t id, std::uint64_t depth, Store&& store, Prefetch&& prefetch = no_prefetch) const;
  static void no_prefetch(std::uint64_t) {}

 private:
  // One expansion of w.s from its loaded state (defined below).
  template <class Store, class Prefetch>
  class Expansion;

  void note_warning(Worker& w, const StepInfo& info, std::uint32_t id, int action) const {
    auto note = [&](spec::Violation kind, const std::string& message) {
      for (const auto& kx : w.warnings)
        if (kx.second.kind == kind && kx.second.loc.line == info.loc.line && kx.second.loc.col == info.loc.col) return;
      if (w.warnings.size() > max_warnings) return;
      w.warnings.emplace_back(key_of(id, static_cast<std::uint32_t>(action)),
                              Warning{kind, message, info.loc, action < m_.agents() ? action : -1});
    };
    note(info.warning, info.warning_message);
    if (info.warning2 != spec::Violation::none) note(info.warning2, info.warning2_message);
  }

  // Agent a's part of the state being expanded, as its bytes lie in w.from.
  static std::string_view own(const Worker& w, int a) {
    const std::uint32_t* at = w.parts.data() + a;
    return {w.from.data() + at[0], at[1] - at[0]};
  }
  // The bytes of the successor of the state expanded by agent a's step whose
  // outcome the cache kept: its bytes with a's part and the shared parts
  // replaced by the outcome's.
  static std::string_view spliced(Worker& w, int a, const StepCache::Kept& o) {
    const auto i = static_cast<std::size_t>(a);
    const std::uint32_t at = w.parts[i], after = w.parts[i + 1], shared = w.parts.back();
    const std::string_view part = o.part(), next = o.shared();
    const std::size_t n = at + part.size() + (shared - after) + next.size();
    if (w.bytes.buf.size() < n) w.bytes.buf.resize(n);
    char* p = w.bytes.buf.data();
    std::memcpy(p, w.from.data(), at);
    std::memcpy(p + at, part.data(), part.size());
    std::memcpy(p + at + part.size(), w.from.data() + after, shared - after);
    std::memcpy(p + at + part.size() + (shared - after), next.data(), next.size());
    w.bytes.n = n;
    return w.bytes.view();
  }
  // Options::check_step_cache: the step of agent a from w.s taken for real
  // (into w.m, restored after) and compared with the cache's outcome `o`.
  void check_kept(Worker& w, int a, const StepCache::Kept& o, bool& m_is_s) const {
    if (!m_is_s) w.m = w.s;
    m_is_s = true;
    const bool enabled = m_.may_move(w.s, a) && m_.apply(w.m, static_cast<Action>(a), w.m_info);
    StepCache::Outcome now{};
    bool same_bytes = true;
    if (enabled) {
      local_steps(w.m, a, nullptr);
      (void)successor_fingerprint(w, w.m, a, &now);
      serialize_agent(w.m, owners_, static_cast<std::size_t>(a), w.part);
      serialize_shared(w.m, w.shared);
      same_bytes = w.part.view() == o.part() && w.shared.view() == o.shared();
    }
    restore(w.m, w.s, owners_, a);
    if (enabled != o.enabled() || o.before() != w.agent_hashes[static_cast<std::size_t>(a)] ||
        (enabled && (w.m_info.violation != spec::Violation::none || w.m_info.warning != spec::Violation::none ||
                     now.agent_hash != o.agent_hash() || now.shared_hash != o.shared_hash() || !same_bytes)))
      throw InternalError("the step cache's outcome for " + m_.process_name(w.s, a) + " differs from its step");
  }

  // Expands the state in w.from from its bytes alone, where the cache holds
  // an outcome for every agent, some enabled, and it has no pending event:
  // false (nothing done) otherwise. The successors are those the steps
  // make, in the order of the actions (Successors::expand).
  template <class Store, class Prefetch>
  bool expand_kept(Worker& w, Store& store, Prefetch& prefetch) const {
    // An agent's second way (an `either`) is no agent step the cache keeps.
    if (w.cache.pending() != 0 || m_.program().has_choice) return false;
    const int n = m_.agents();
    w.outcomes.resize(static_cast<std::size_t>(n));
    std::uint64_t sum = 0;
    bool any = false;
    for (int a = 0; a < n; ++a) {
      const StepCache::Kept o = w.cache.find(a, own(w, a));
      if (!o) return false;
      w.outcomes[static_cast<std::size_t>(a)] = o;
      sum += o.before();
      any |= o.enabled();
    }
    // None enabled: a deadlock, or every agent has exited; the loaded state
    // tells which.
    if (!any) return false;
    // The enabled agents in order, listed without a branch on each.
    w.fps.resize(static_cast<std::size_t>(n));
    w.enabled.resize(static_cast<std::size_t>(n));
    std::size_t k = 0;
    for (int a = 0; a < n; ++a) {
      w.enabled[k] = a;
      k += w.outcomes[static_cast<std::size_t>(a)].enabled();
    }
    for (std::size_t j = 0; j < k; ++j) {
      const StepCache::Kept& o = w.outcomes[static_cast<std::size_t>(w.enabled[j])];
      w.fps[j] = fingerprint_of(sum - o.before() + o.agent_hash(), o.shared_hash());
      prefetch(w.fps[j]);
    }
    w.transitions += k;
    for (std::size_t j = 0; j < k; ++j) {
      const int a = w.enabled[j];
      const StepCache::Kept& o = w.outcomes[static_cast<std::size_t>(a)];
      store(w.fps[j], static_cast<Action>(a), [&]() -> std::string_view { return spliced(w, a, o); });
    }
    w.cache.tally(static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(n));
    ++w.kept_states;
    return true;
  }

  const Model& m_;
  bool reduction_, private_, por_, canonical_, incremental_ = false, cache_ = false;
  PartialOrder order_;
  Symmetry sym_;
  const TripPlan& plan_;
  Owners owners_;
  PartShape parts_;  // where agent_parts finds the agents' parts in the bytes
  std::uint64_t shape_;  // shape_seed of the search's states: every one has the kernel's shape
  bool check_cache_;
};

// One expansion of w.s (Successors::expand), loaded from w.from: each
// action is stepped from s into a buffer that is s between actions: the
// step of an agent or an async event writes its own part and the parts no
// agent owns, which restore() copies back after it (an agent's own part:
// the steps of a are a's, and its local steps after them; an async event's
// step writes no agent's part). The trip oracle's step writes every
// agent's: its buffer is copied whole after it. A step that throws ends the
// search; the next expansion copies the buffers whole.
// Two buffers: a kept successor waits in one (`held`) for its store call
// until the next action has been stepped into the other. Each is made s
// when first used (into its buffers: no allocation unless a part's size
// differs): where the step cache answers for every agent, neither is.
template <class Store, class Prefetch>
class Successors::Expansion {
 public:
  Expansion(const Successors& x, Worker& w, std::uint32_t id, Store& store, Prefetch& prefetch, bool cached)
      : x_(x),
        w_(w),
        s_(w.s),
        store_(store),
        prefetch_(prefetch),
        id_(id),
        agents_(x.m_.agents()),
        cached_(cached) {}

  // Takes every enabled action (only the persistent set's successors
  // stored, where the reduction picks one), then records a deadlock.
  void run(std::uint64_t depth) {
    const int total = x_.m_.processes(s_);
    w_.action = 0;
    if (x_.incremental_) {
      w_.agent_hashes.resize(s_.agents.size());
      w_.agent_sum = agent_hashes(s_, x_.owners_, w_.agent_hashes.data());
    }
    const std::uint64_t keep = x_.por_ ? x_.order_.keep(s_, depth, w_.coverage) : 0;  // 0: store every successor
    bool kept_any = false;
    for (int a = 0; a < total && !w_.found.any; ++a) kept_any |= act(a, keep == 0 || kept(keep, a));
    // No step of the persistent set was enabled after all: store them all.
    if (keep != 0 && !kept_any)
      for (int a = 0; a < total && !w_.found.any; ++a)
        if (x_.m_.may_move(s_, a)) take(a, {.keep = true, .to_cache = false});
    store_held();
    if (!w_.found.any && !any_enabled_ && x_.m_.live(s_)) {
      w_.found = Found{.any = true, .violation = spec::Violation::deadlock, .parent = id_, .deadlock = true, .action = 0};
      w_.found_key = key_of(id_, deadlock_action);
    }
  }

 private:
  // Whether the persistent set `keep` holds process a: an agent's second
  // way is kept with the agent (both are its steps).
  [[nodiscard]] bool kept(std::uint64_t keep, int a) const {
    const int b = a >= agents_ ? x_.m_.mover(s_, a) : a;
    const int bit = b >= 0 ? b : a;
    return bit < 64 && (keep >> bit & 1) != 0;
  }

  // How take() treats an enabled action's successor: with `keep`, it is
  // stored; with `to_cache` (agent a's own part in w.from is the cache's
  // key: looked up, not found), a clean outcome goes to the step cache.
  struct Take {
    bool keep = true;
    bool to_cache = false;
  };

  // The successor waiting for its store call.
  struct Held {
    State* t = nullptr;  // null: none, or a kept step's (`kept`)
    int a = 0;
    std::uint64_t fp = 0;
    bool kept = false;   // the cache's outcome `o`: its successor's bytes are spliced if it is new
    StepCache::Kept o;
  };

  // Action a, its successor stored if store_it: from the step cache where
  // it holds a's outcome. True if a successor is kept.
  bool act(int a, bool store_it) {
    const bool own = cached_ && a < agents_ && store_it;
    if (own) {
      const StepCache::Kept o = w_.cache.find(a, Successors::own(w_, a));
      w_.cache.tally(1, static_cast<bool>(o));
      if (o) return hold_kept(a, o);
      if (!x_.m_.may_move(s_, a)) {
        put_outcome(a, nullptr, {});
        return false;
      }
    } else if (!x_.m_.may_move(s_, a)) {
      return false;
    }
    return take(a, {.keep = store_it, .to_cache = own}) && store_it;
  }

  // The cache's outcome o of agent a's step, held for its store call where
  // it is enabled (checked against the step first, where asked).
  bool hold_kept(int a, const StepCache::Kept& o) {
    if (x_.check_cache_) x_.check_kept(w_, a, o, m_is_s_);
    if (!o.enabled()) return false;
    any_enabled_ = true;
    ++w_.transitions;
    const std::uint64_t fp = fingerprint_of(w_.agent_sum - o.before() + o.agent_hash(), o.shared_hash());
    prefetch_(fp);
    store_held();
    held_ = Held{.t = nullptr, .a = a, .fp = fp, .kept = true, .o = o};
    return true;
  }

  // Takes action `a` from s; false if it is not enabled. A violation ends
  // the expansion.
  bool take(int a, Take how) {
    State& t = buffer();
    w_.action = static_cast<Action>(a);
    StepInfo& info = w_.info;
    bool enabled = false;
    try {
      enabled = x_.m_.apply(t, static_cast<Action>(a), info);
    } catch (...) {
      store_held();  // as it would have been before this step
      throw;
    }
    if (!enabled) {
      if (how.to_cache && !info.reads_others) put_outcome(a, nullptr, {});
      put_back(t, a);
      return false;
    }
    if (w_.coverage && a < agents_) w_.coverage->mark(a, s_.agents[static_cast<std::size_t>(a)].pc);
    any_enabled_ = true;
    ++w_.transitions;
    if (info.violation != spec::Violation::none) {
      store_held();
      w_.found = Found{.any = true, .violation = info.violation, .parent = id_, .deadlock = false, .action = static_cast<Action>(a)};
      w_.found_key = key_of(id_, static_cast<std::uint32_t>(a));
      return true;
    }
    if (info.warning != spec::Violation::none) x_.note_warning(w_, info, id_, a);
    if (!how.keep) {
      cover_local_steps(t, a);
      put_back(t, a);
      return true;
    }
    hold(t, a, info, how.to_cache);
    return true;
  }

  // The buffer the next action is stepped into: not the one held, made s
  // when first used.
  State& buffer() {
    if (held_.t == &w_.t) {
      if (!t2_is_s_) w_.t2 = s_;
      t2_is_s_ = true;
      return w_.t2;
    }
    if (!t_is_s_) {
      w_.t = s_;
      t_is_s_ = true;
    }
    return w_.t;
  }

  // The control flow that follows a step not kept belongs to it: coverage
  // counts it even where the reduction does not keep the successor.
  void cover_local_steps(State& t, int a) {
    const int b = x_.m_.mover(s_, a);
    if (!w_.coverage || b < 0) return;
    try {
      x_.local_steps(t, b, w_.coverage);
    } catch (...) {
      store_held();
      throw;
    }
  }

  // The successor t of agent a's step (or a pending event's): its local
  // steps run, its fingerprint taken, its outcome to the cache where clean
  // (with `to_cache`), then held for its store call.
  void hold(State& t, int a, const StepInfo& info, bool to_cache) {
    // Only the agent that moved can have reached local steps; a pending
    // event moves no agent; the trip oracle may open any agent's gate.
    bool others = info.reads_others;
    const int b = x_.m_.mover(s_, a);
    if (b != -1) {
      try {
        if (b >= 0) others |= x_.local_steps_reading(t, b, w_.coverage);
        else x_.local_steps(t, -1, w_.coverage);
      } catch (...) {
        store_held();
        throw;
      }
    }
    StepCache::Outcome out;
    const std::uint64_t fp = x_.successor_fingerprint(w_, t, a, &out);
    if (to_cache && !others && info.warning == spec::Violation::none) put_outcome(a, &t, out);
    prefetch_(fp);
    store_held();
    held_ = Held{.t = &t, .a = a, .fp = fp, .kept = false, .o = {}};
  }

  // Makes t, after a step of action a, s again.
  void put_back(State& t, int a) {
    const int b = x_.m_.mover(s_, a);
    if (b == -2) t = s_;  // the trip oracle writes every agent's N
    else restore(t, s_, x_.owners_, b);
  }

  // The successor held, if any, to its store call (its buffer put back).
  void store_held() {
    if (held_.kept) {
      held_.kept = false;
      store_(held_.fp, static_cast<Action>(held_.a), [&]() -> std::string_view { return spliced(w_, held_.a, held_.o); });
      return;
    }
    if (held_.t == nullptr) return;
    State& t = *held_.t;
    store_(held_.fp, static_cast<Action>(held_.a), [&]() -> std::string_view {
      serialize(t, x_.owners_, w_.bytes, &w_.s, &w_.s_events);
      return w_.bytes.view();
    });
    put_back(t, held_.a);
    held_.t = nullptr;
  }

  // The outcome of agent a's step from s into the cache (the successor t,
  // unless it is not enabled), after the successor held is stored: a kept
  // outcome's bytes lie in the cache until the next put.
  void put_outcome(int a, const State* t, StepCache::Outcome out) {
    store_held();
    out.before = w_.agent_hashes[static_cast<std::size_t>(a)];
    if (t != nullptr) {
      serialize_agent(*t, x_.owners_, static_cast<std::size_t>(a), w_.part);
      serialize_shared(*t, w_.shared, &w_.s, &w_.s_events);
      out.part = w_.part.view();
      out.shared = w_.shared.view();
    }
    w_.cache.put(a, Successors::own(w_, a), out, t != nullptr ? t->pending.size() : 0);
  }

  const Successors& x_;
  Worker& w_;
  const State& s_;
  Store& store_;
  Prefetch& prefetch_;
  const std::uint32_t id_;
  const int agents_;
  const bool cached_;    // the step cache answers for this state's agents
  bool t_is_s_ = false, t2_is_s_ = false, m_is_s_ = false;  // w.t, w.t2, w.m are s
  bool any_enabled_ = false;
  Held held_;
};

template <class Store, class Prefetch>
void Successors::expand(Worker& w, std::uint32_t id, std::uint64_t depth, Store&& store, Prefetch&& prefetch) const {
  // The step cache (step_cache.hpp), where successors are fingerprinted from
  // agent hashes: its key is read from the state's bytes, and where it
  // answers for every agent (and no reduction picks among the actions, and
  // no check of it is asked for), the state is expanded from its bytes. A
  // kept step marks no instruction: the ones it would mark (its own and its
  // local steps', a function of what the key holds) were marked in
  // w.coverage when it was taken and kept.
  const int agents = m_.agents();
  bool cached = cache_ && w.cache.on();
  if (cached) {
    w.parts.resize(static_cast<std::size_t>(agents) + 1);
    agent_parts(w.from.data(), parts_, w.parts.data());
    // The cache reads two words from each agent's part's first byte: the
    // parts no agent owns, which follow, are longer than 12 bytes (their
    // fixed fields). Checked, not assumed.
    cached = agents > 0 && w.from.size() >= w.parts[static_cast<std::size_t>(agents) - 1] + 16;
  }
  if (cached) {
    w.cache.begin(w.from.substr(w.parts.back()));
    if (!por_ && !check_cache_ && expand_kept(w, store, prefetch)) return;
  }
  deserialize(w.from.data(), owners_, w.s, &w.s_events);
  if (cached) w.cache.set_pending(w.s.pending.size());
  using S = std::remove_reference_t<Store>;
  using P = std::remove_reference_t<Prefetch>;
  Expansion<S, P>(*this, w, id, store, prefetch, cached).run(depth);
}

}  // namespace pc::check
