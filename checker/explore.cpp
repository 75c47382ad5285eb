// A check, as layered in docs/checker.md ("Layers"): the language module
// (model.hpp) wrapped in the reductions (successors.hpp), searched by a back
// end (checker/search/). When a violation is found, the search runs again
// with parent links, up to the violation's depth only: breadth-first order
// is deterministic, so it meets the same violation, now with a shortest
// schedule of the searched graph, replayed with descriptions for the trace
// (trace.cpp).
#include "checker/explore.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "checker/cause.hpp"
#include "checker/coverage.hpp"
#include "checker/frontier.hpp"
#include "checker/model.hpp"
#include "checker/trips.hpp"
#include "checker/search/search.hpp"
#include "checker/successors.hpp"
#include "checker/token.hpp"
#include "checker/trace.hpp"
#include "checker/visited.hpp"
#include "spec/rules.hpp"

namespace pc::check {
namespace {

using Clock = std::chrono::steady_clock;

// Which limit stopped a search, and how to raise it (Result::stop_detail).
std::string stop_detail(const std::string& reason, const Options& o, std::uint64_t states) {
  const Options defaults;
  if (reason == "max-states")
    return "the search stored more than " + std::to_string(o.max_states) + " states, " +
           (o.max_states == defaults.max_states ? "the default state cap" : "the --max-states given") +
           ": raise it with --max-states N, or check smaller parameter values (--param)";
  if (reason == "max-memory")
    return "the process's resident memory passed " + std::to_string(o.max_memory_mb) + " MiB, " +
           (o.max_memory_mb == defaults.max_memory_mb ? "the default memory cap" : "the --max-memory given") +
           ": raise it with --max-memory MB, or check smaller parameter values (--param)";
  if (reason == "timeout") {
    std::ostringstream t;
    t << o.timeout_s;
    return "the search ran past the --timeout of " + t.str() + " s: raise it with --timeout S";
  }
  if (reason == "interrupted")
    return "interrupted (SIGINT) after " + std::to_string(states) + " states: the verdict so far, nothing proven";
  return {};
}

unsigned thread_count(const Options& o) {
  if (o.threads > 0) return o.threads;
  return std::max(1u, std::thread::hardware_concurrency());
}

class Search {
 public:
  Search(const ir::Kernel& k, const Options& opt) : model_(k, opt.strict, opt.trips), opt_(opt), next_(model_, opt_) {}

  Result run();
  Result replay();
  Result hunt();

 private:
  Model model_;
  Options opt_;
  Successors next_;

  int agents() const { return model_.agents(); }
  // --prove: the trip count of a violation's schedule (decided by the
  // oracle, or else the least the schedule allows, trip_least: every larger
  // one runs the same schedule).
  std::int64_t trip_value_at(const std::vector<Action>& path) const {
    State s = next_.initial(nullptr);
    for (const Action a : path) {
      StepInfo info;
      if (!model_.apply(s, a, info) || info.violation != spec::Violation::none) break;
      next_.local_steps(s);
    }
    return trip_least(model_.trips(), model_.program(), s);
  }
  // One search by the back end Options::threads picks; with `links`, parent links are kept.
  Searched search(std::uint64_t max_depth, Coverage* coverage, Links* links) const {
    // The profile is the first search's: the one with links stops where it did.
    const SearchRun run{next_, opt_, coverage, links, max_depth, opt_.profile_states && links == nullptr};
    if (opt_.distributed) {
      if (!distributed_breadth_first) throw InternalError("--distributed: MPI was not started (MpiSession)");
      // One thread a rank unless --threads says otherwise (a rank a core).
      return distributed_breadth_first(run, opt_.threads > 0 ? opt_.threads : 1);
    }
    if (const unsigned threads = thread_count(opt_); threads > 1) return parallel_breadth_first(run, threads);
    return breadth_first(run);
  }
  // The verdict and, with links, the trace of a finished search.
  void conclude(Result& r, const Searched& s, const Links* links) const;
  // A reduction asked for that the kernel is too large for: said so.
  void note_reductions(Result& r) const {
    if (opt_.reduction && opt_.partial_order && !model_.dependencies().usable())
      r.notes.push_back(model_.dependencies().unusable_reason());
  }
  void fill_agents(Result& r) const {
    const Program& p = model_.program();
    for (const AgentInfo& a : p.agents)
      r.agents.push_back(Agent{a.name, p.kernel->roles[static_cast<std::size_t>(a.role)].name, a.cta, a.instance});
  }
};

void Search::conclude(Result& r, const Searched& s, const Links* links) const {
  if (s.found.any) {
    r.verdict = Verdict::violation;
    r.violation = s.found.violation;
    if (links) {
      std::vector<Action> path;
      for (std::uint32_t id = s.found.parent; id != 0; id = links->parent(id)) path.push_back(links->action(id));
      std::reverse(path.begin(), path.end());
      if (!s.found.deadlock) path.push_back(s.found.action);
      describe(model_, opt_, path, s.found.deadlock, r);
      r.replay = make_token(model_, opt_.merges_private(), path, opt_.params);
      if (model_.trips().active) r.trip_value = trip_value_at(path);
    }
  } else if (!s.stop_reason.empty()) {
    r.verdict = Verdict::inconclusive;
    r.inconclusive_reason = s.stop_reason;
    r.stop_detail = stop_detail(s.stop_reason, opt_, r.states);
  } else {
    r.verdict = Verdict::verified;
  }
}

Result Search::run() {
  const auto t0 = Clock::now();
  reset_peak_resident();  // the figure reported is this search's peak
  Coverage coverage(model_.program());
  Searched first = search(~std::uint64_t{0}, &coverage, nullptr);
  Result r = std::move(first.r);
  fill_agents(r);
  conclude(r, first, nullptr);
  if (r.verdict == Verdict::verified) {
    // Every step enabled at an expanded state is taken, and the reductions
    // keep every step that some interleaving takes (docs/checker.md,
    // "Coverage"): an instruction never marked runs in no interleaving.
    r.coverage = true;
    r.unreached = coverage.unreached();
  }
  if (r.verdict == Verdict::violation) {
    // The same search again, with links, stops at the same violation.
    Links links;
    Searched again = search(r.max_depth, nullptr, &links);
    Result t = std::move(again.r);
    fill_agents(t);
    conclude(t, again, &links);
    t.states = r.states;
    t.transitions = r.transitions;
    t.step_cache_hits = r.step_cache_hits;
    t.step_cache_states = r.step_cache_states;
    t.memory_bytes = r.memory_bytes;
    t.profile = std::move(r.profile);
    r = std::move(t);
  }
  note_reductions(r);
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

// --swarm: a violation with its schedule, or inconclusive ("swarm"): the
// searches skip states, so finding none proves nothing.
Result Search::hunt() {
  const auto t0 = Clock::now();
  reset_peak_resident();
  const SearchRun run{next_, opt_, nullptr, nullptr, opt_.swarm_depth, false};
  Swarmed s = swarm(run, opt_.swarm, thread_count(opt_));
  Result r = std::move(s.s.r);
  fill_agents(r);
  if (s.s.found.any) {
    r.verdict = Verdict::violation;
    r.violation = s.s.found.violation;
    describe(model_, opt_, s.path, s.s.found.deadlock, r);
    r.replay = make_token(model_, opt_.merges_private(), s.path, opt_.params);
  } else {
    r.verdict = Verdict::inconclusive;
    r.inconclusive_reason = s.s.stop_reason.empty() ? "swarm" : s.s.stop_reason;
    r.stop_detail = s.s.stop_reason.empty()
                        ? std::to_string(opt_.swarm) + " randomized depth-first searches with bitstate hashing found no violation" +
                              (s.truncated ? " (" + std::to_string(s.truncated) + " steps past the depth of " + std::to_string(opt_.swarm_depth) + " not taken)" : "") +
                              ": a bug hunt, not a proof; the search without --swarm verifies"
                        : stop_detail(s.s.stop_reason, opt_, r.states);
  }
  note_reductions(r);
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
  if (parsed->tag != kernel_tag(model_)) {
    Params values;
    for (const ir::Param& x : model_.program().kernel->params) values.emplace_back(x.name, x.value);
    throw KernelError("the replay token does not match this kernel and its parameters: it was made for another kernel, "
                      "another version of this file, or other parameter values (this run: kernel " +
                          model_.program().kernel->name + ", parameters " + params_text(values) + ")",
                      {});
  }
  opt_.reduction = parsed->reduction;
  opt_.private_steps = true;
  const Successors next(model_, opt_);  // the token's reductions decide what ran at once
  const std::vector<Action>& path = parsed->path;
  // Follow the schedule; check every action is enabled.
  State s = next.initial(nullptr);
  bool violated = false;
  for (std::size_t k = 0; k < path.size(); ++k) {
    StepInfo info;
    if (!model_.apply(s, path[k], info))
      throw KernelError("the replay token's step " + std::to_string(k + 1) + " is not possible in this kernel", {});
    if (info.violation != spec::Violation::none) {
      if (k + 1 != path.size()) throw KernelError("the replay token goes on past a violation", {});
      violated = true;
      break;
    }
    next.local_steps(s);
  }
  bool deadlock = false;
  if (!violated) {
    bool any = false;
    for (int a = 0; a < agents() + static_cast<int>(s.pending.size()) && !any; ++a) {
      State t = s;
      StepInfo info;
      any = model_.apply(t, static_cast<Action>(a), info);
    }
    deadlock = !any && model_.live(s);
  }
  r.states = path.size() + 1;
  if (violated || deadlock || opt_.steps >= 0) describe(model_, opt_, path, deadlock, r, opt_.steps);
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
    if (std::optional<Result> r = smem_overflow(k)) return *r;
  }
  if (opt.replay.empty()) {
    // A tcgen05 qualifier that differs across the kernel's text (spec::tmem::same_cta_group).
    if (const TextViolation t = cta_group_mix(k); t.kind != spec::Violation::none) {
      Result r;
      r.verdict = Verdict::violation;
      r.violation = t.kind;
      r.loc = t.loc;
      r.message = t.message;
      return r;
    }
  }
  if (opt.trips) {
    const ir::Kernel tk = trip_kernel(k, opt.trips->param, opt.trips->nested ? opt.trips->passes : 0);
    try {
      Search s(tk, opt);
      return opt.replay.empty() ? s.run() : s.replay();
    } catch (const NotProved& e) {
      Result r;
      r.verdict = Verdict::inconclusive;
      r.inconclusive_reason = "not-proved";
      r.not_proved = e.what();
      return r;
    } catch (const KernelError& e) {
      // With N undecided the error may be of no trip count (a loop of no
      // operation that N alone ends runs on): the explicit search at N's
      // value says whether it is the kernel's.
      Result r;
      r.verdict = Verdict::inconclusive;
      r.inconclusive_reason = "not-proved";
      r.not_proved = "line " + std::to_string(e.loc.line) + ": with the trip count undecided, " + e.what();
      return r;
    }
  }
  Search s(k, opt);
  if (!opt.replay.empty()) return s.replay();
  return opt.swarm > 0 ? s.hunt() : s.run();
}

}  // namespace pc::check
