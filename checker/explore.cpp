// Breadth-first search over the global states of a kernel. Visited states are
// kept as 64-bit fingerprints (hash compaction). When a violation is found,
// the search runs again with parent links, up to the violation's depth only:
// breadth-first order is deterministic, so it meets the same violation, now
// with a shortest schedule of the searched graph, replayed with descriptions
// for the trace.
#include "checker/explore.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
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
  void normalize(State& s, int only = -1) const { run_local_steps(step_, s, opt_.reduction, only, coverage_.get()); }
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
  // --check-reduction: at a state where only the processes of `keep` are
  // stored, each enabled step of the set commutes with each enabled step left
  // out (docs/checker.md, "Checking the reduction"); else InternalError.
  void check_commute(const State& s, std::uint64_t keep, std::uint64_t depth) const;
  std::string process_name(const State& s, int a) const;
  // Keeps the first finding of each warning kind (the search goes on).
  void note_warning(Result& r, const StepInfo& info, int action) const {
    for (const Warning& w : r.warnings)
      if (w.kind == info.warning) return;
    r.warnings.push_back(Warning{info.warning, info.warning_message, info.loc, action < agents() ? action : -1});
  }
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
  normalize_described(s);
  State before;
  for (std::size_t i = 0; i < path.size(); ++i) {
    StepInfo info;
    const Action a = path[i];
    const int agent = a < agents() ? a : -1;
    if (snap_at >= 0) before = s;
    apply(st, s, a, info);
    TraceStep t;
    t.agent = agent;
    t.text = info.text.empty() && info.violation != spec::Violation::none
                 ? "-> " + std::string(spec::violation_name(info.violation))
                 : info.text;
    t.loc = info.loc;
    t.phase_completed = !info.completed.empty();
    t.object = info.completed;
    r.trace.push_back(t);
    // The state in which a violating step fails: the step did not complete.
    if (info.violation != spec::Violation::none) snap(before);
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
  }
}

Result Search::run() {
  const auto t0 = Clock::now();
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

void Search::check_commute(const State& s, std::uint64_t keep, std::uint64_t depth) const {
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
    if (x < agents() && info.violation == spec::Violation::none) normalize(t, x);
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

Result Search::search(std::uint64_t max_depth) {
  const auto t0 = Clock::now();
  Result r;
  fill_agents(r);
  State init = step_.initial();
  normalize(init);
  std::string bytes;
  visit(fingerprint(init, bytes), 0, 0);

  BlockPool blocks;
  Level level(&blocks), next(&blocks);
  const bool canonical = opt_.reduction && sym_.active();
  const bool por = opt_.reduction && opt_.partial_order && fp_.usable();
  std::string actual;
  serialize(init, actual);
  level.push(actual, 0);
  Found found;
  State s = init, t = init;
  std::uint64_t depth = 0, expanded = 0;
  auto last_progress = t0;
  std::string stop_reason;

  while (!level.empty() && !found.any && stop_reason.empty() && depth <= max_depth) {
    for (std::size_t li = 0; li < level.size() && !found.any; ++li) {
      deserialize(level.items[li].first, s);
      const std::uint32_t id = level.items[li].second;
      bool any_enabled = false;
      const int total = agents() + static_cast<int>(s.pending.size());
      // Takes action `a` from s into t; false if it is not enabled. A
      // violation ends the search; with `store`, a new state is queued.
      auto expand = [&](int a, bool store) {
        t = s;  // reuses t's buffers: no allocation unless t was moved into the queue
        StepInfo info;
        if (!apply(step_, t, static_cast<Action>(a), info)) return false;
        if (coverage_ && a < agents()) coverage_->mark(a, s.agents[static_cast<std::size_t>(a)].pc);
        any_enabled = true;
        ++r.transitions;
        if (info.violation != spec::Violation::none) {
          found = Found{true, info.violation, id, false, static_cast<Action>(a)};
          return true;
        }
        if (info.warning != spec::Violation::none) note_warning(r, info, a);
        if (!store) {
          // The control flow that follows the step belongs to it: coverage
          // counts it even where the reduction does not keep the successor.
          if (coverage_ && a < agents()) normalize(t, a);
          return true;
        }
        // Only the agent that moved can have reached local steps; a pending
        // event moves no agent.
        if (a < agents()) normalize(t, a);
        if (visit(fingerprint(t, bytes), id, static_cast<Action>(a))) {
          // The queue keeps the state itself, not its canonical representative,
          // so that a schedule's actions stay valid along the path.
          if (canonical) serialize(t, actual);
          next.push(canonical ? actual : bytes, static_cast<std::uint32_t>(visited_.size() - 1));
        }
        return true;
      };
      // Partial-order reduction: an enabled step of an agent that no other
      // agent or pending event can interfere with is a persistent set on its
      // own; only its successor is stored. Every other enabled step is still
      // taken, so that a violation it would raise here is reported (see
      // docs/checker.md for why this keeps every violation and deadlock).
      std::uint64_t keep = 0;  // 0: store every successor
      if (por) {
        std::uint64_t seeds = 0;
        for (int a = 0; a < total && a < 64; ++a)
          if (a >= agents() || !step_.surely_blocked(s, a)) seeds |= std::uint64_t{1} << a;
        keep = fp_.persistent(s, seeds);
        if (keep != 0 && opt_.check_reduction) check_commute(s, keep, depth);
      }
      bool kept_any = false;
      for (int a = 0; a < total && !found.any; ++a) {
        if (a < agents() && step_.surely_blocked(s, a)) continue;
        const bool store = keep == 0 || (keep >> a & 1);
        if (expand(a, store) && store) kept_any = true;
      }
      // No step of the persistent set was enabled after all: store them all.
      if (keep != 0 && !kept_any)
        for (int a = 0; a < total && !found.any; ++a)
          if (!(a < agents() && step_.surely_blocked(s, a))) expand(a, true);
      if (!found.any && !any_enabled) {
        bool live = false;
        for (const AgentState& a : s.agents) live |= !a.exited;
        if (live) found = Found{true, spec::Violation::deadlock, id, true, 0};
      }
      if ((++expanded & 1023) == 0) {
        const auto now = Clock::now();
        const double secs = std::chrono::duration<double>(now - t0).count();
        if (opt_.timeout_s > 0 && secs > opt_.timeout_s) stop_reason = "timeout";
        if (visited_.size() > opt_.max_states) stop_reason = "max-states";
        const std::uint64_t mem =
            visited_.bytes() + level.bytes() + next.bytes() + blocks.spare.size() * block_bytes;
        if (mem > opt_.max_memory_mb * 1024 * 1024) stop_reason = "max-memory";
        if (opt_.progress && now - last_progress > std::chrono::seconds(3)) {
          last_progress = now;
          std::fprintf(stderr, "progress: %llu states, %.0f states/s, depth %llu, queue %zu, memory %.1f MiB\n",
                       static_cast<unsigned long long>(visited_.size()), visited_.size() / (secs > 0 ? secs : 1),
                       static_cast<unsigned long long>(depth), next.size(), mem / 1048576.0);
        }
        if (!stop_reason.empty()) break;
      }
    }
    level.swap(next);
    next.clear();
    ++depth;
  }

  r.states = visited_.size();
  r.max_depth = depth;
  r.memory_bytes = visited_.bytes();
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
    for (const ir::BufferDecl& b : k.buffers) bytes += static_cast<std::int64_t>(b.size) * static_cast<std::int64_t>(b.bytes);
    for (const ir::MbarrierDecl& m : k.mbarriers) bytes += m.size * spec::rules::mbarrier_bytes;
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
