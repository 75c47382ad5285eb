// Breadth-first search over the global states of a kernel. Visited states are
// kept as 64-bit fingerprints (hash compaction). When a violation is found,
// the search runs again with parent links, up to the violation's depth only:
// breadth-first order is deterministic, so it meets the same violation, now
// with a shortest schedule of the searched graph, replayed with descriptions
// for the trace.
#include "checker/explore.hpp"

#include <algorithm>
#include <atomic>
#include <barrier>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "checker/coverage.hpp"
#include "checker/footprint.hpp"
#include "checker/frontier.hpp"
#include "checker/program.hpp"
#include "checker/reduce.hpp"
#include "checker/snapshot.hpp"
#include "checker/state.hpp"
#include "checker/step.hpp"
#include "checker/symmetry.hpp"
#include "checker/visited.hpp"
#include "spec/rules.hpp"

namespace pc::check {
namespace {

using Clock = std::chrono::steady_clock;

// A schedule step: agent index, or agents + index into the pending events.
using Action = std::uint16_t;

struct Found {
  bool any = false;
  spec::Violation violation = spec::Violation::none;
  std::uint32_t parent = 0;   // id of the state the failing action was taken from
  bool deadlock = false;      // the state `parent` itself is deadlocked
  Action action = 0;
};

// A point of the one-thread search's order: the state expanded (by id, which
// is the order states are found in) and the action taken from it; a
// deadlock comes after every action of its state. The parallel search keeps
// its findings by key, so that it reports what one thread meets first.
using Key = std::uint64_t;
constexpr Key key_of(std::uint32_t id, std::uint32_t action) { return (Key{id} << 16) | action; }
constexpr std::uint32_t deadlock_action = 0xffff;
constexpr Key no_key = ~Key{0};

void lower(std::atomic<Key>& k, Key v) {
  Key cur = k.load(std::memory_order_relaxed);
  while (v < cur && !k.compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
  }
}

// What one thread of the search owns: its state buffers and its findings.
struct Worker {
  State s, t;
  std::string bytes, actual;
  Coverage* coverage = nullptr;            // during the first search of run(): where this thread marks
  std::unique_ptr<Coverage> own_coverage;  // a thread's own marks (parallel search)
  std::uint64_t transitions = 0;
  Action action = 0;                       // the action being taken (the key of an error)
  Found found;
  Key found_key = no_key;
  std::exception_ptr error;                // a KernelError or InternalError met while expanding
  Key error_key = no_key;
  std::vector<std::pair<Key, Warning>> warnings;  // the first finding of each warning kind
};

// The threads of a parallel search: the caller and n - 1 others, which wait
// between jobs. run(job) runs job(i) on each member i and returns when all
// have finished; the first exception a member throws is rethrown.
class Team {
 public:
  explicit Team(unsigned n) : start_(static_cast<std::ptrdiff_t>(n)), done_(static_cast<std::ptrdiff_t>(n)) {
    try {
      for (unsigned i = 1; i < n; ++i) threads_.emplace_back([this, i] { serve(static_cast<int>(i)); });
    } catch (const std::system_error&) {
      // Fewer threads than asked for: the barriers wait for those there are.
      for (std::size_t i = threads_.size() + 1; i < n; ++i) {
        start_.arrive_and_drop();
        done_.arrive_and_drop();
      }
    }
  }
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;
  ~Team() {
    quit_ = true;
    start_.arrive_and_wait();
    for (std::thread& t : threads_) t.join();
  }
  void run(const std::function<void(int)>& job) {
    job_ = &job;
    start_.arrive_and_wait();
    call(0);
    done_.arrive_and_wait();
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

 private:
  void serve(int i) {
    for (;;) {
      start_.arrive_and_wait();
      if (quit_) return;
      call(i);
      done_.arrive_and_wait();
    }
  }
  void call(int i) {
    try {
      (*job_)(i);
    } catch (...) {
      const std::lock_guard<std::mutex> g(error_m_);
      if (!error_) error_ = std::current_exception();
    }
  }
  std::barrier<> start_, done_;
  std::vector<std::thread> threads_;
  const std::function<void(int)>* job_ = nullptr;
  bool quit_ = false;
  std::mutex error_m_;
  std::exception_ptr error_;
};

unsigned thread_count(const Options& o) {
  if (o.threads > 0) return o.threads;
  return std::max(1u, std::thread::hardware_concurrency());
}

// A tag of the kernel and its parameter values: a replay token made for
// another kernel, another version of the file or other values does not match.
std::string kernel_tag(const Program& p) {
  std::string bytes;
  serialize(Stepper(p, false).initial(), bytes);
  bytes += p.kernel->name;
  for (const auto& code : p.code) bytes += std::to_string(code.size()) + ",";
  for (const ir::Param& x : p.kernel->params) bytes += ";" + x.name + "=" + std::to_string(x.value);
  char buf[17];
  std::snprintf(buf, sizeof buf, "%08x", static_cast<unsigned>(hash_bytes(bytes) & 0xffffffffu));
  return buf;
}

using Params = std::vector<std::pair<std::string, std::int64_t>>;

// A replay token: v2.<R|N>.<tag>.<schedule>[.<NAME=VALUE,...>], the schedule
// being agent or event indices joined by '-', the values those of --param.
struct Token {
  bool reduction = true;
  std::string tag;
  std::vector<Action> path;
  Params params;
};

std::optional<Token> parse_token(const std::string& tok) {
  std::vector<std::string> parts;
  std::size_t from = 0;
  for (;;) {
    const std::size_t dot = tok.find('.', from);
    parts.push_back(tok.substr(from, dot == std::string::npos ? std::string::npos : dot - from));
    if (dot == std::string::npos) break;
    from = dot + 1;
  }
  if (parts.size() < 4 || parts.size() > 5 || parts[0] != "v2" || (parts[1] != "R" && parts[1] != "N")) return std::nullopt;
  Token t;
  t.reduction = parts[1] == "R";
  t.tag = parts[2];
  if (t.tag.size() != 8 || t.tag.find_first_not_of("0123456789abcdef") != std::string::npos) return std::nullopt;
  for (std::size_t i = 0; i < parts[3].size();) {
    std::size_t j = parts[3].find('-', i);
    if (j == std::string::npos) j = parts[3].size();
    const std::string num = parts[3].substr(i, j - i);
    if (num.empty() || num.size() > 5 || num.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    const int v = std::stoi(num);
    if (v > 0xffff) return std::nullopt;
    t.path.push_back(static_cast<Action>(v));
    i = j + 1;
    if (j + 1 == parts[3].size()) return std::nullopt;  // a trailing '-'
  }
  if (parts.size() == 5) {
    for (std::size_t i = 0; i <= parts[4].size();) {
      std::size_t j = parts[4].find(',', i);
      if (j == std::string::npos) j = parts[4].size();
      const std::string item = parts[4].substr(i, j - i);
      const std::size_t eq = item.find('=');
      if (eq == 0 || eq == std::string::npos) return std::nullopt;
      std::int64_t v = 0;
      const char* first = item.data() + eq + 1;
      const char* last = item.data() + item.size();
      const auto [end, ec] = std::from_chars(first, last, v);
      if (ec != std::errc() || end != last || first == last) return std::nullopt;
      t.params.emplace_back(item.substr(0, eq), v);
      i = j + 1;
    }
  }
  return t;
}

std::string params_text(const Params& ps) {
  std::string s;
  for (const auto& [n, v] : ps) s += (s.empty() ? "" : ", ") + n + "=" + std::to_string(v);
  return s.empty() ? "none" : s;
}

class Search {
 public:
  Search(const ir::Kernel& k, const Options& opt)
      : prog_(instantiate(k)), opt_(opt), step_(prog_, false, opt.strict), sym_(prog_), fp_(prog_) {}

  Result run();
  Result replay();

 private:
  Program prog_;
  Options opt_;
  Stepper step_;
  Symmetry sym_;
  Footprints fp_;
  FingerprintSet visited_;
  Links links_;
  bool with_links_ = false;
  std::unique_ptr<Coverage> coverage_;  // during the first search of run()

  std::uint64_t fingerprint(const State& s, std::string& bytes) const {
    if (opt_.reduction && sym_.active()) serialize(sym_.canonical(s), bytes);
    else serialize(s, bytes);
    return hash_bytes(bytes);
  }

  int agents() const { return static_cast<int>(prog_.agents.size()); }
  void normalize(State& s, int only = -1, Coverage* coverage = nullptr) const {
    run_local_steps(step_, s, opt_.reduction, only, coverage);
  }
  // Applies one action; false if it is not enabled.
  bool apply(const Stepper& st, State& s, Action a, StepInfo& info) const {
    if (a < agents()) {
      if (s.agents[a].exited) return false;
      info = st.agent_step(s, a);
    } else {
      const int i = a - agents();
      if (i >= static_cast<int>(s.pending.size())) return false;
      info = st.pending_step(s, i);
    }
    return info.enabled;
  }
  std::vector<Action> path_to(std::uint32_t id) const {
    std::vector<Action> path;
    while (id != 0) {
      path.push_back(links_.action(id));
      id = links_.parent(id);
    }
    return {path.rbegin(), path.rend()};
  }
  bool visit(std::uint64_t fp, std::uint32_t parent, Action a) {
    if (!visited_.insert(fp)) return false;
    if (with_links_) links_.add(parent, a);
    return true;
  }
  Result search(std::uint64_t max_depth);
  // The same search on several threads, level by level (docs/checker.md,
  // "Parallel search"): the same result as search(), but the time and memory.
  Result search_parallel(std::uint64_t max_depth, unsigned threads);
  // Expands w.s, the state numbered `id`: takes every enabled action, records
  // a violation or deadlock in w.found, and hands each successor the
  // reductions keep to store(fingerprint, action, queued), queued() giving
  // the bytes to queue.
  template <class Store>
  void expand_state(Worker& w, std::uint32_t id, std::uint64_t depth, Store&& store) const;
  // The verdict and, with links, the trace of a finished search.
  void conclude(Result& r, const Found& found, const std::string& stop_reason) const;
  // --check-reduction: at a state where only the processes of `keep` are
  // stored, each enabled step of the set commutes with each enabled step left
  // out (docs/checker.md, "Checking the reduction"); else InternalError.
  void check_commute(const State& s, std::uint64_t keep, std::uint64_t depth, Coverage* coverage) const;
  std::string process_name(const State& s, int a) const;
  // Keeps a thread's first finding of each warning kind (the search goes on).
  void note_warning(Worker& w, const StepInfo& info, std::uint32_t id, int action) const {
    for (const auto& [k, x] : w.warnings)
      if (x.kind == info.warning) return;
    w.warnings.emplace_back(key_of(id, static_cast<std::uint32_t>(action)),
                            Warning{info.warning, info.warning_message, info.loc, action < agents() ? action : -1});
  }
  // Over the threads, the first finding of each kind in the one-thread order,
  // before `limit` (the violation that ended the search).
  static std::vector<Warning> first_warnings(const std::vector<const Worker*>& ws, Key limit);
  // With `snap_at` >= 0, also the state after that many trace steps (--steps).
  void describe(const std::vector<Action>& path, bool deadlock, Result& r, long long snap_at = -1) const;
  // The earlier access of the race `race` reports, found among the trace's accesses.
  EarlierAccess earlier_access(const std::vector<std::pair<std::size_t, AccessNote>>& accesses, const StepInfo& race) const;
  std::string token(const std::vector<Action>& path) const;
  void fill_agents(Result& r) const {
    for (const AgentInfo& a : prog_.agents)
      r.agents.push_back(Agent{a.name, prog_.kernel->roles[static_cast<std::size_t>(a.role)].name, a.cta, a.instance});
  }
};

std::string Search::token(const std::vector<Action>& path) const {
  std::ostringstream o;
  o << "v2." << (opt_.reduction ? 'R' : 'N') << '.' << kernel_tag(prog_) << '.';
  for (std::size_t i = 0; i < path.size(); ++i) o << (i ? "-" : "") << path[i];
  for (std::size_t i = 0; i < opt_.params.size(); ++i)
    o << (i ? "," : ".") << opt_.params[i].first << '=' << opt_.params[i].second;
  return o.str();
}

// Re-runs a schedule with descriptions on, filling the trace; the last action
// (or, for a deadlock, the final state) is the violation.
EarlierAccess Search::earlier_access(const std::vector<std::pair<std::size_t, AccessNote>>& accesses, const StepInfo& race) const {
  EarlierAccess e;
  for (auto it = accesses.rbegin(); it != accesses.rend(); ++it) {
    const AccessNote& n = it->second;
    if (n.buf != race.race_buf || !(n.threads & spec::hb::bit(race.race_other)) || n.write != race.race_other_write) continue;
    e.step = it->first;
    break;
  }
  e.thread = prog_.thread_name(race.race_other);
  e.write = race.race_other_write;
  e.proxy = race.race_other_proxy == spec::hb::Proxy::async ? "async" : "generic";
  for (std::size_t a = 0; a < prog_.agents.size(); ++a)
    if (prog_.agents[a].hb.owns(race.race_other)) e.agent = static_cast<int>(a);
  return e;
}

void Search::describe(const std::vector<Action>& path, bool deadlock, Result& r, long long snap_at) const {
  Stepper st(prog_, true, opt_.strict);
  const State* current = nullptr;
  auto snap = [&](const State& x) {
    if (snap_at >= 0 && !r.snapshot.taken && r.trace.size() == static_cast<std::size_t>(snap_at))
      r.snapshot = snapshot(st, x, r.trace.size());
  };
  // --trace-html: the state after each step so far (Result::step_states).
  auto keep = [&](const State& x) {
    if (!opt_.record_states) return;
    while (r.step_states.size() < r.trace.size() + 1) r.step_states.push_back(snapshot(st, x, r.step_states.size()));
  };
  // Every access of the trace, with its step, so that a race names the step
  // of its earlier access.
  std::vector<std::pair<std::size_t, AccessNote>> accesses;
  auto note = [&](const StepInfo& info) {
    for (const AccessNote& n : info.accesses) accesses.emplace_back(r.trace.size(), n);
  };
  // Operations the reduction runs without interleaving still belong in the trace.
  auto record = [&](int agent, const StepInfo& info) {
    TraceStep t;
    t.agent = agent;
    t.text = info.text;
    t.loc = info.loc;
    r.trace.push_back(t);
    note(info);
    if (current) snap(*current);
  };
  // The state after a step includes the control flow that follows it; when
  // operations the reduction runs at once follow too, those are steps of
  // their own, so the state is taken before them.
  auto normalize_described = [&](State& x) {
    const bool due = snap_at >= 0 && !r.snapshot.taken && r.trace.size() == static_cast<std::size_t>(snap_at);
    State control = due ? x : State{};
    if (due) run_local_steps(st, control, false);
    current = &x;
    run_local_steps(st, x, opt_.reduction, record);
    current = nullptr;
    if (due && !r.snapshot.taken) r.snapshot = snapshot(st, control, static_cast<std::size_t>(snap_at));
  };
  State s = st.initial();
  if (opt_.record_states) r.step_states.push_back(snapshot(st, s, 0));
  normalize_described(s);
  keep(s);
  State before;
  for (std::size_t i = 0; i < path.size(); ++i) {
    StepInfo info;
    const Action a = path[i];
    const int agent = a < agents() ? a : -1;
    if (snap_at >= 0 || opt_.record_states) before = s;
    apply(st, s, a, info);
    TraceStep t;
    t.agent = agent;
    t.text = info.text.empty() && info.violation != spec::Violation::none
                 ? "-> " + std::string(spec::violation_name(info.violation))
                 : info.text;
    t.loc = info.loc;
    t.phase_completed = !info.completed.empty();
    t.object = info.completed;
    t.acquired = info.acquired;
    r.trace.push_back(t);
    // The state in which a violating step fails: the step did not complete.
    if (info.violation != spec::Violation::none) snap(before);
    if (info.violation != spec::Violation::none) keep(before);
    if (info.violation != spec::Violation::none) {
      r.violation = info.violation;
      r.message = info.message;
      r.loc = info.loc;
      r.agent = agent;
      if (info.race_buf >= 0) {
        r.earlier = earlier_access(accesses, info);
        if (r.earlier.step > 0) r.earlier.loc = r.trace[r.earlier.step - 1].loc;
      }
      return;
    }
    note(info);
    normalize_described(s);
    keep(s);
  }
  if (deadlock) {
    r.violation = spec::Violation::deadlock;
    std::string msg = "deadlock: ";
    bool first = true;
    for (int a = 0; a < agents(); ++a) {
      if (s.agents[static_cast<std::size_t>(a)].exited) continue;
      TraceStep t;
      t.agent = a;
      t.blocked = true;
      t.loc = st.loc_of(s, a);
      t.text = "blocked: " + st.describe_blocked(s, a);
      r.trace.push_back(t);
      msg += (first ? "" : "; ") + st.describe_blocked(s, a);
      if (first) {
        r.loc = t.loc;
        r.agent = a;
      }
      first = false;
    }
    r.message = msg;
    keep(s);
  }
}

Result Search::run() {
  const auto t0 = Clock::now();
  reset_peak_resident();  // the figure reported is this search's peak
  coverage_ = std::make_unique<Coverage>(prog_);
  Result r = search(~std::uint64_t{0});
  if (r.verdict == Verdict::verified) {
    // Every step enabled at an expanded state is taken, and the reductions
    // keep every step that some interleaving takes (docs/checker.md,
    // "Coverage"): an instruction never marked runs in no interleaving.
    r.coverage = true;
    r.unreached = coverage_->unreached();
  }
  coverage_.reset();
  if (r.verdict == Verdict::violation) {
    // The same search again, with links, stops at the same violation.
    const Result first = r;
    visited_ = FingerprintSet();
    with_links_ = true;
    r = search(first.max_depth);
    r.states = first.states;
    r.transitions = first.transitions;
    r.memory_bytes = first.memory_bytes;
  }
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

std::string Search::process_name(const State& s, int a) const {
  if (a < agents()) {
    const ir::Loc l = step_.loc_of(s, a);
    return prog_.agents[static_cast<std::size_t>(a)].name + " at line " + std::to_string(l.line);
  }
  const Pending& pe = s.pending[static_cast<std::size_t>(a - agents())];
  const ir::Loc l = prog_.code[static_cast<std::size_t>(prog_.agents[pe.agent].role)][pe.pc].loc;
  return "the async event of " + prog_.agents[pe.agent].name + " from line " + std::to_string(l.line);
}

void Search::check_commute(const State& s, std::uint64_t keep, std::uint64_t depth, Coverage* coverage) const {
  const int total = agents() + static_cast<int>(s.pending.size());
  // The kept processes of s: agents by index, pending events by value.
  std::vector<int> kept_agents;
  std::vector<Pending> kept_events;
  for (int a = 0; a < total; ++a) {
    if (!(keep >> a & 1)) continue;
    if (a < agents()) kept_agents.push_back(a);
    else kept_events.push_back(s.pending[static_cast<std::size_t>(a - agents())]);
  }
  auto is_kept = [&](const State& u, int x) {
    if (x < agents()) return std::find(kept_agents.begin(), kept_agents.end(), x) != kept_agents.end();
    return std::find(kept_events.begin(), kept_events.end(), u.pending[static_cast<std::size_t>(x - agents())]) !=
           kept_events.end();
  };
  // One step of action x, taken from t; false when not enabled.
  auto take = [&](State& t, int x, StepInfo& info) {
    if (x < 0 || (x < agents() && step_.surely_blocked(t, x))) return false;
    if (!apply(step_, t, static_cast<Action>(x), info)) return false;
    if (x < agents() && info.violation == spec::Violation::none) normalize(t, x, coverage);
    return true;
  };
  // The kept processes as actions of state u (-1: gone).
  auto kept_actions = [&](const State& u) {
    std::vector<int> xs = kept_agents;
    for (const Pending& pe : kept_events) {
      const auto it = std::find(u.pending.begin(), u.pending.end(), pe);
      xs.push_back(it == u.pending.end() ? -1 : agents() + static_cast<int>(it - u.pending.begin()));
    }
    return xs;
  };
  auto fail = [&](const State& u, int p, int q, const std::string& why) {
    throw InternalError("partial-order reduction check failed in " + prog_.kernel->name + " at depth " +
                        std::to_string(depth) + ": the step of " + process_name(u, p) +
                        " (kept) and the step of " + process_name(u, q) + " (left out) " + why);
  };
  // Which kept processes have an enabled step at s: they must stay enabled
  // along every path of left-out steps (Godefroid, LNCS 1032, persistent sets).
  std::vector<bool> enabled_at_s;
  for (int x : kept_actions(s)) {
    State t = s;
    StepInfo i;
    enabled_at_s.push_back(take(t, x, i));
  }
  // Paths of left-out steps from s, breadth-first, a few steps deep: at each
  // state on them, every left-out step commutes with every kept step.
  constexpr int max_path = 2, max_states = 16;
  std::vector<State> frontier{s}, next;
  std::string x, y;
  int seen = 0;
  for (int len = 0; len <= max_path && !frontier.empty(); ++len) {
    next.clear();
    for (const State& u : frontier) {
      const std::vector<int> kx = kept_actions(u);
      for (std::size_t k = 0; k < kx.size(); ++k) {
        if (!enabled_at_s[k]) continue;
        State t = u;
        StepInfo i;
        if (!take(t, kx[k], i))
          throw InternalError("partial-order reduction check failed in " + prog_.kernel->name + " at depth " +
                              std::to_string(depth) + ": a path of " + std::to_string(len) +
                              " left-out steps disables a kept step" +
                              (kx[k] >= 0 ? " (" + process_name(u, kx[k]) + ")" : std::string()));
      }
      const int n = agents() + static_cast<int>(u.pending.size());
      for (int q = 0; q < n; ++q) {
        if (is_kept(u, q)) continue;
        State uq = u;
        StepInfo iq;
        if (!take(uq, q, iq)) continue;
        for (std::size_t k = 0; k < kx.size(); ++k) {
          if (!enabled_at_s[k]) continue;
          const int p = kx[k];
          State up = u;
          StepInfo ip;
          (void)take(up, p, ip);
          if (ip.violation != spec::Violation::none || iq.violation != spec::Violation::none) continue;
          State upq = up, uqp = uq;
          StepInfo ipq, iqp;
          const int q_after_p = q < agents() ? q : [&] {
            const auto it = std::find(up.pending.begin(), up.pending.end(), u.pending[static_cast<std::size_t>(q - agents())]);
            return it == up.pending.end() ? -1 : agents() + static_cast<int>(it - up.pending.begin());
          }();
          const int p_after_q = kept_actions(uq)[k];
          if (!take(upq, q_after_p, ipq)) fail(u, p, q, "do not commute: the kept step disables the left-out one");
          if (!take(uqp, p_after_q, iqp)) fail(u, p, q, "do not commute: the left-out step disables the kept one");
          if (ipq.violation != iqp.violation)
            fail(u, p, q, "do not commute: " + std::string(spec::violation_name(ipq.violation)) + " in one order, " +
                              std::string(spec::violation_name(iqp.violation)) + " in the other");
          if (ipq.violation != spec::Violation::none) continue;
          serialize(upq, x);
          serialize(uqp, y);
          if (x != y) fail(u, p, q, "do not commute: the two orders reach different states");
        }
        if (iq.violation == spec::Violation::none && ++seen <= max_states) next.push_back(std::move(uq));
      }
    }
    frontier.swap(next);
  }
}

template <class Store>
void Search::expand_state(Worker& w, std::uint32_t id, std::uint64_t depth, Store&& store) const {
  const State& s = w.s;
  const bool canonical = opt_.reduction && sym_.active();
  const bool por = opt_.reduction && opt_.partial_order && fp_.usable();
  bool any_enabled = false;
  const int total = agents() + static_cast<int>(s.pending.size());
  // Takes action `a` from s into w.t; false if it is not enabled. A
  // violation ends the expansion; with `keep`, the successor is stored.
  auto expand = [&](int a, bool keep) {
    w.action = static_cast<Action>(a);
    w.t = s;  // reuses t's buffers: no allocation unless t was moved into the queue
    StepInfo info;
    if (!apply(step_, w.t, static_cast<Action>(a), info)) return false;
    if (w.coverage && a < agents()) w.coverage->mark(a, s.agents[static_cast<std::size_t>(a)].pc);
    any_enabled = true;
    ++w.transitions;
    if (info.violation != spec::Violation::none) {
      w.found = Found{true, info.violation, id, false, static_cast<Action>(a)};
      w.found_key = key_of(id, static_cast<std::uint32_t>(a));
      return true;
    }
    if (info.warning != spec::Violation::none) note_warning(w, info, id, a);
    if (!keep) {
      // The control flow that follows the step belongs to it: coverage
      // counts it even where the reduction does not keep the successor.
      if (w.coverage && a < agents()) normalize(w.t, a, w.coverage);
      return true;
    }
    // Only the agent that moved can have reached local steps; a pending
    // event moves no agent.
    if (a < agents()) normalize(w.t, a, w.coverage);
    // The queue keeps the state itself, not its canonical representative,
    // so that a schedule's actions stay valid along the path.
    store(fingerprint(w.t, w.bytes), static_cast<Action>(a), [&]() -> const std::string& {
      if (!canonical) return w.bytes;
      serialize(w.t, w.actual);
      return w.actual;
    });
    return true;
  };
  // Partial-order reduction: an enabled step of an agent that no other
  // agent or pending event can interfere with is a persistent set on its
  // own; only its successor is stored. Every other enabled step is still
  // taken, so that a violation it would raise here is reported (see
  // docs/checker.md for why this keeps every violation and deadlock).
  std::uint64_t keep = 0;  // 0: store every successor
  w.action = 0;
  if (por) {
    std::uint64_t seeds = 0;
    for (int a = 0; a < total && a < 64; ++a)
      if (a >= agents() || !step_.surely_blocked(s, a)) seeds |= std::uint64_t{1} << a;
    keep = fp_.persistent(s, seeds);
    if (keep != 0 && opt_.check_reduction) check_commute(s, keep, depth, w.coverage);
  }
  bool kept_any = false;
  for (int a = 0; a < total && !w.found.any; ++a) {
    if (a < agents() && step_.surely_blocked(s, a)) continue;
    const bool store_it = keep == 0 || (keep >> a & 1);
    if (expand(a, store_it) && store_it) kept_any = true;
  }
  // No step of the persistent set was enabled after all: store them all.
  if (keep != 0 && !kept_any)
    for (int a = 0; a < total && !w.found.any; ++a)
      if (!(a < agents() && step_.surely_blocked(s, a))) expand(a, true);
  if (!w.found.any && !any_enabled) {
    bool live = false;
    for (const AgentState& a : s.agents) live |= !a.exited;
    if (live) {
      w.found = Found{true, spec::Violation::deadlock, id, true, 0};
      w.found_key = key_of(id, deadlock_action);
    }
  }
}

std::vector<Warning> Search::first_warnings(const std::vector<const Worker*>& ws, Key limit) {
  std::vector<std::pair<Key, Warning>> first;
  for (const Worker* w : ws)
    for (const auto& kx : w->warnings) {
      // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
      const Key k = kx.first;
      const Warning& x = kx.second;
      if (k >= limit) continue;
      auto it = std::find_if(first.begin(), first.end(), [&](const auto& f) { return f.second.kind == x.kind; });
      if (it == first.end()) first.emplace_back(k, x);
      else if (k < it->first) *it = {k, x};
    }
  std::sort(first.begin(), first.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Warning> out;
  for (auto& [k, x] : first) out.push_back(std::move(x));
  return out;
}

void Search::conclude(Result& r, const Found& found, const std::string& stop_reason) const {
  if (found.any) {
    r.verdict = Verdict::violation;
    r.violation = found.violation;
    if (with_links_) {
      std::vector<Action> path = path_to(found.parent);
      if (!found.deadlock) path.push_back(found.action);
      describe(path, found.deadlock, r);
      r.replay = token(path);
    }
  } else if (!stop_reason.empty()) {
    r.verdict = Verdict::inconclusive;
    r.inconclusive_reason = stop_reason;
  } else {
    r.verdict = Verdict::verified;
  }
}

Result Search::search(std::uint64_t max_depth) {
  if (const unsigned threads = thread_count(opt_); threads > 1) return search_parallel(max_depth, threads);
  const auto t0 = Clock::now();
  Result r;
  fill_agents(r);
  State init = step_.initial();
  normalize(init, -1, coverage_.get());
  std::string bytes;
  visit(fingerprint(init, bytes), 0, 0);

  // The level read and the level written; ids are given in the order states
  // are found, so a level's states are the ids [base, base + its size).
  Frames frames[2];
  Frames* level = &frames[0];
  Frames* next = &frames[1];
  FrameReader reader;
  std::size_t level_size = 1, next_size = 0;
  std::uint32_t base = 0;
  std::string actual;
  serialize(init, actual);
  level->put(actual);
  level->seal();
  Worker w;
  w.coverage = coverage_.get();
  w.s = init;
  w.t = init;
  std::uint64_t depth = 0, expanded = 0;
  auto last_progress = t0;
  std::string stop_reason;

  while (level_size > 0 && !w.found.any && stop_reason.empty() && depth <= max_depth) {
    StateRef at;
    for (std::size_t li = 0; li < level_size && !w.found.any; ++li) {
      deserialize(reader.get(*level, at), w.s);
      at = level->after(at);
      const auto id = static_cast<std::uint32_t>(base + li);
      expand_state(w, id, depth, [&](std::uint64_t fp, Action a, auto&& queued) {
        if (!visit(fp, id, a)) return;
        next->put(queued());
        ++next_size;
      });
      if ((++expanded & 1023) == 0) {
        const auto now = Clock::now();
        const double secs = std::chrono::duration<double>(now - t0).count();
        if (opt_.timeout_s > 0 && secs > opt_.timeout_s) stop_reason = "timeout";
        if (visited_.size() > opt_.max_states) stop_reason = "max-states";
        const std::uint64_t mem = resident_bytes();
        if (mem > opt_.max_memory_mb * 1024 * 1024) stop_reason = "max-memory";
        if (opt_.progress && now - last_progress > std::chrono::seconds(3)) {
          last_progress = now;
          std::fprintf(stderr, "progress: %llu states, %.0f states/s, depth %llu, queue %zu, memory %.1f MiB\n",
                       static_cast<unsigned long long>(visited_.size()), visited_.size() / (secs > 0 ? secs : 1),
                       static_cast<unsigned long long>(depth), next_size, mem / 1048576.0);
        }
        if (!stop_reason.empty()) break;
      }
    }
    next->seal();
    base += static_cast<std::uint32_t>(level_size);
    std::swap(level, next);
    level_size = std::exchange(next_size, 0);
    next->clear();
    ++depth;
  }

  r.states = visited_.size();
  r.transitions = w.transitions;
  r.max_depth = depth;
  r.memory_bytes = peak_resident_bytes();
  r.warnings = first_warnings({&w}, w.found_key);
  conclude(r, w.found, stop_reason);
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

// The parallel search, level by level. Each level's states are cut into
// chunks that the threads take in order; a thread expands its chunks with
// its own buffers, puts each successor into the shared table and, when the
// table says it is new, or reached from an earlier state than the one that
// put it there, appends it to its own list. Between levels the lists are
// filtered (only the entry of a state's earliest parent stays) and numbered
// in chunk order: the ids, the parent links and the queue are those of one
// thread, and so is the first violation (the smallest key).
Result Search::search_parallel(std::uint64_t max_depth, unsigned threads) {
  const auto t0 = Clock::now();
  Result r;
  fill_agents(r);
  State init = step_.initial();
  normalize(init, -1, coverage_.get());
  std::string bytes;
  int shard_bits = 6;
  while ((1u << shard_bits) < threads * 64 && shard_bits < 12) ++shard_bits;
  SharedFingerprintSet visited(shard_bits);
  visited.insert(fingerprint(init, bytes), 0, 0);
  if (with_links_) links_.add(0, 0);

  // A successor a thread appended: its bytes, fingerprint and parent link.
  struct Entry {
    StateRef at;
    std::uint64_t fp;
    std::uint32_t parent;
    Action action;
  };
  // A thread's own part, on cache lines of its own.
  struct alignas(64) Lane {
    Worker w;
    Frames frames[2];  // the states it found of the level read and of the level written (by `gen`)
    FrameReader reader;
    std::vector<Entry> out;
    std::uint64_t expanded = 0;             // states, for the limits' checks
    std::atomic<std::uint64_t> fresh{0};    // states it added to the table (only it writes)
  };
  std::vector<std::unique_ptr<Lane>> lanes;
  for (unsigned i = 0; i < threads; ++i) {
    auto lane = std::make_unique<Lane>();
    lane->w.s = init;
    lane->w.t = init;
    if (coverage_) {
      lane->w.own_coverage = std::make_unique<Coverage>(prog_);
      lane->w.coverage = lane->w.own_coverage.get();
    }
    lanes.push_back(std::move(lane));
  }
  int gen = 0;
  // A level: where each of its states lies; state i of the level has id base + i.
  std::vector<StateRef> level, next;
  std::string actual;
  serialize(init, actual);
  level.push_back(lanes[0]->frames[gen].put(actual, 0));
  lanes[0]->frames[gen].seal();

  // A chunk of the level: the states [first, first + size) of `level`, and
  // where its thread put what it found.
  struct Chunk {
    int lane = -1;  // -1: not expanded
    std::uint32_t begin = 0, end = 0;  // in the lane's `out`
    std::uint64_t transitions = 0;
    std::uint64_t before = 0;  // entries kept whose key is below the first violation's
    std::uint64_t offset = 0;  // of its first kept entry in the next level
  };
  std::vector<Chunk> chunks;
  std::atomic<std::size_t> cursor{0};
  std::atomic<Key> best{no_key};  // the smallest key of a violation or error so far
  std::atomic<bool> stop{false};
  std::mutex stop_m, progress_m;
  std::string stop_reason;
  auto last_progress = t0;
  std::unique_ptr<Team> team;
  std::uint64_t depth = 0, transitions = 0;
  std::uint32_t base = 0;  // the id of level[0]
  Found found;
  Key found_key = no_key;

  // Each thread checks the limits every 256 states it expands (one thread
  // checks every 1024); the states stored so far are the threads' counts,
  // which they alone write, so that no counter is shared.
  constexpr std::uint64_t check_every = 256;
  auto stored = [&] {
    std::uint64_t n = 1;
    for (const auto& lane : lanes) n += lane->fresh.load(std::memory_order_relaxed);
    return n;
  };
  // Limits and the progress line, from whichever thread comes by: one line
  // for the whole search.
  auto check_limits = [&](std::size_t level_end) {
    const auto now = Clock::now();
    const double secs = std::chrono::duration<double>(now - t0).count();
    const char* why = nullptr;
    if (opt_.timeout_s > 0 && secs > opt_.timeout_s) why = "timeout";
    const std::uint64_t states = stored();
    if (states > opt_.max_states) why = "max-states";
    const std::uint64_t mem = resident_bytes();
    if (mem > opt_.max_memory_mb * 1024 * 1024) why = "max-memory";
    if (opt_.progress) {
      const std::unique_lock<std::mutex> g(progress_m, std::try_to_lock);
      if (g.owns_lock() && now - last_progress > std::chrono::seconds(3)) {
        last_progress = now;
        std::fprintf(stderr, "progress: %llu states, %.0f states/s, depth %llu, queue %llu, memory %.1f MiB\n",
                     static_cast<unsigned long long>(states), states / (secs > 0 ? secs : 1),
                     static_cast<unsigned long long>(depth),
                     static_cast<unsigned long long>(states > level_end ? states - level_end : 0), mem / 1048576.0);
      }
    }
    if (why) {
      const std::lock_guard<std::mutex> g(stop_m);
      if (stop_reason.empty()) stop_reason = why;
      stop.store(true, std::memory_order_relaxed);
    }
  };

  while (!level.empty() && !found.any && !stop.load() && depth <= max_depth) {
    const std::size_t n = level.size();
    const std::size_t chunk = std::clamp<std::size_t>(n / (std::size_t{threads} * 32), 1, 256);
    const std::size_t nchunks = (n + chunk - 1) / chunk;
    chunks.assign(nchunks, Chunk{});
    const std::size_t level_end = base + n;
    const bool wide = n >= opt_.parallel_min_level;
    if (wide && !team) team = std::make_unique<Team>(threads);
    auto phase = [&](const std::function<void(int)>& job) {
      cursor.store(0);
      if (wide) team->run(job);
      else job(0);
    };

    // Expand: each thread takes chunks in order until none is left or a
    // violation before them is known.
    phase([&](int li) {
      Lane& lane = *lanes[static_cast<std::size_t>(li)];
      Worker& w = lane.w;
      Frames& into = lane.frames[gen ^ 1];
      for (;;) {
        const std::size_t c = cursor.fetch_add(1, std::memory_order_relaxed);
        if (c >= nchunks || stop.load(std::memory_order_relaxed)) break;
        Chunk& ch = chunks[c];
        ch.lane = li;
        ch.begin = static_cast<std::uint32_t>(lane.out.size());
        const std::uint64_t before = w.transitions;
        for (std::size_t i = c * chunk; i < std::min(n, (c + 1) * chunk); ++i) {
          const auto id = static_cast<std::uint32_t>(base + i);
          if (key_of(id, 0) > best.load(std::memory_order_relaxed) || stop.load(std::memory_order_relaxed)) break;
          deserialize(lane.reader.get(lanes[level[i].writer]->frames[gen], level[i]), w.s);
          try {
            expand_state(w, id, depth, [&](std::uint64_t fp, Action a, auto&& queued) {
              const SharedFingerprintSet::Put put = visited.insert(fp, id + 1, base);
              if (put == SharedFingerprintSet::Put::seen) return;
              if (put == SharedFingerprintSet::Put::fresh)
                lane.fresh.store(lane.fresh.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
              lane.out.push_back(Entry{into.put(queued(), static_cast<std::uint16_t>(li)), fp, id, a});
            });
          } catch (...) {
            w.error = std::current_exception();
            w.error_key = key_of(id, w.action);
            lower(best, w.error_key);
            break;
          }
          if (w.found.any) {
            lower(best, w.found_key);
            break;
          }
          if (++lane.expanded % check_every == 0) check_limits(level_end);
        }
        ch.end = static_cast<std::uint32_t>(lane.out.size());
        ch.transitions = w.transitions - before;
        if (w.error) break;
      }
    });
    const Key first = best.load();
    for (const auto& lane : lanes) lane->frames[gen ^ 1].seal();

    // Filter: an entry stays where its parent is the state's owner, the
    // earliest parent in the one-thread order.
    phase([&](int) {
      for (;;) {
        const std::size_t c = cursor.fetch_add(1, std::memory_order_relaxed);
        if (c >= nchunks) break;
        Chunk& ch = chunks[c];
        if (ch.lane < 0) continue;
        std::vector<Entry>& out = lanes[static_cast<std::size_t>(ch.lane)]->out;
        std::uint32_t k = ch.begin;
        for (std::uint32_t i = ch.begin; i < ch.end; ++i) {
          const Entry e = out[i];
          if (visited.owner(e.fp) != e.parent + 1) continue;
          if (key_of(e.parent, e.action) < first) ++ch.before;
          out[k++] = e;
        }
        ch.end = k;
      }
    });

    if (first != no_key) {
      // A violation (or an error) in this level: the first in key order is
      // the one one thread meets; its counts are those one thread has then.
      const Worker* at = nullptr;
      for (const auto& lane : lanes) {
        const Worker& w = lane->w;
        if (w.found_key == first || w.error_key == first) at = &w;
      }
      if (at && at->error_key == first) std::rethrow_exception(at->error);
      if (at) {
        found = at->found;
        found_key = first;
        if (!stop.load()) {
          std::uint64_t kept = 0;
          const std::size_t last = (found.parent - base) / chunk;
          for (std::size_t c = 0; c < nchunks; ++c) {
            kept += chunks[c].before;
            if (c <= last) transitions += chunks[c].transitions;
          }
          r.states = level_end + kept;
        }
      }
      ++depth;
      break;
    }
    if (stop.load()) {
      ++depth;
      break;
    }

    // Number the new states in chunk order.
    std::uint64_t total = 0;
    for (Chunk& ch : chunks) {
      ch.offset = total;
      total += ch.lane < 0 ? 0 : ch.end - ch.begin;
      transitions += ch.transitions;
    }
    if (level_end + total > std::numeric_limits<std::uint32_t>::max())
      throw KernelError("more than 2^32 states: the search cannot number them", {});
    next.resize(total);
    if (with_links_) links_.resize(static_cast<std::uint32_t>(level_end + total));
    phase([&](int) {
      for (;;) {
        const std::size_t c = cursor.fetch_add(1, std::memory_order_relaxed);
        if (c >= nchunks) break;
        const Chunk& ch = chunks[c];
        if (ch.lane < 0) continue;
        const std::vector<Entry>& out = lanes[static_cast<std::size_t>(ch.lane)]->out;
        for (std::uint32_t i = ch.begin; i < ch.end; ++i) {
          const Entry& e = out[i];
          const auto id = static_cast<std::uint32_t>(level_end + ch.offset + (i - ch.begin));
          next[ch.offset + (i - ch.begin)] = e.at;
          if (with_links_) links_.set(id, e.parent, e.action);
        }
      }
    });
    for (const auto& lane : lanes) {
      lane->out.clear();
      lane->frames[gen].clear();
    }
    gen ^= 1;
    level.swap(next);
    next.clear();
    base = static_cast<std::uint32_t>(level_end);
    ++depth;
  }
  team.reset();

  if (!found.any || stop.load()) {
    r.states = visited.size();
    for (const Chunk& ch : chunks)
      if (stop.load()) transitions += ch.transitions;
  }
  r.transitions = transitions;
  r.max_depth = depth;
  r.memory_bytes = peak_resident_bytes();
  std::vector<const Worker*> ws;
  for (const auto& lane : lanes) {
    ws.push_back(&lane->w);
    if (coverage_) coverage_->merge(*lane->w.own_coverage);
  }
  r.warnings = first_warnings(ws, found_key);
  conclude(r, found, stop_reason);
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

Result Search::replay() {
  const auto t0 = Clock::now();
  Result r;
  fill_agents(r);
  const std::string& tok = opt_.replay;
  if (tok.rfind("v1.", 0) == 0)
    throw KernelError("the replay token '" + tok + "' is of an older format (v1, without parameter values): run the check again for a new one", {});
  const std::optional<Token> parsed = parse_token(tok);
  if (!parsed) throw KernelError("malformed replay token '" + tok + "'", {});
  if (parsed->tag != kernel_tag(prog_)) {
    Params values;
    for (const ir::Param& x : prog_.kernel->params) values.emplace_back(x.name, x.value);
    throw KernelError("the replay token does not match this kernel and its parameters: it was made for another kernel, "
                      "another version of this file, or other parameter values (this run: kernel " +
                          prog_.kernel->name + ", parameters " + params_text(values) + ")",
                      {});
  }
  opt_.reduction = parsed->reduction;
  const std::vector<Action>& path = parsed->path;
  // Follow the schedule; check every action is enabled.
  State s = step_.initial();
  normalize(s);
  bool violated = false;
  for (std::size_t k = 0; k < path.size(); ++k) {
    StepInfo info;
    if (!apply(step_, s, path[k], info))
      throw KernelError("the replay token's step " + std::to_string(k + 1) + " is not possible in this kernel", {});
    if (info.violation != spec::Violation::none) {
      if (k + 1 != path.size()) throw KernelError("the replay token goes on past a violation", {});
      violated = true;
      break;
    }
    normalize(s);
  }
  bool deadlock = false;
  if (!violated) {
    bool any = false, live = false;
    for (int a = 0; a < agents() + static_cast<int>(s.pending.size()) && !any; ++a) {
      State t = s;
      StepInfo info;
      any = apply(step_, t, static_cast<Action>(a), info);
    }
    for (const AgentState& a : s.agents) live |= !a.exited;
    deadlock = !any && live;
  }
  r.states = path.size() + 1;
  if (violated || deadlock || opt_.steps >= 0) describe(path, deadlock, r, opt_.steps);
  if (opt_.steps >= 0 && !r.snapshot.taken) {
    std::size_t steps = 0;
    for (const TraceStep& t : r.trace) steps += !t.blocked;
    throw KernelError("--steps " + std::to_string(opt_.steps) + ": the schedule has " + std::to_string(steps) +
                          " steps (0 is the initial state)",
                      {});
  }
  r.replay = tok;
  if (violated || deadlock) {
    r.verdict = Verdict::violation;
  } else {
    r.verdict = Verdict::inconclusive;
    r.inconclusive_reason = "replay-ended-without-violation";
  }
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

}  // namespace

Result check(const ir::Kernel& k, const Options& opt) {
  if (opt.replay.empty() && k.target == ir::Target::nvidia) {
    // The kernel must fit in a CTA's shared memory before any schedule matters.
    std::int64_t bytes = 0;
    for (const ir::BufferDecl& b : k.buffers)  // a buffer that aliases another takes no memory of its own
      if (b.space == ir::Space::shared && b.alias.of < 0) bytes += static_cast<std::int64_t>(b.size) * static_cast<std::int64_t>(b.bytes);
    for (const ir::MbarrierDecl& m : k.mbarriers)
      if (m.alias.of < 0) bytes += m.size * spec::rules::mbarrier_bytes;
    if (const spec::Violation v = spec::rules::smem_footprint(bytes); v != spec::Violation::none) {
      Result r;
      r.verdict = Verdict::violation;
      r.violation = v;
      r.loc = k.loc;
      r.message = "the shared memory of a CTA is " + std::to_string(bytes) + " bytes (buffers, 8 bytes per mbarrier): above " +
                  std::to_string(spec::rules::smem_limit_sm90) + " (227 KiB, sm_90a)";
      return r;
    }
  }
  Search s(k, opt);
  return opt.replay.empty() ? s.run() : s.replay();
}

std::optional<Params> token_params(const std::string& token) {
  if (token.rfind("v1.", 0) == 0) return Params{};  // rejected, with its reason, when replayed
  const std::optional<Token> t = parse_token(token);
  if (!t) return std::nullopt;
  return t->params;
}

}  // namespace pc::check
