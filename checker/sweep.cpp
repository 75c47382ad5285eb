#include "checker/sweep.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "checker/dsl/parser.hpp"
#include "checker/guard.hpp"

namespace pc::cli {
namespace {

using Params = std::vector<std::pair<std::string, std::int64_t>>;

constexpr std::uint64_t saturated = std::uint64_t{1} << 63;

// splitmix64: the sample is the same on every run and machine.
std::uint64_t mix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::string axis_text(const ir::Param& p) {
  if (!p.candidates.empty()) {
    std::string s = p.name + " {";
    for (std::size_t i = 0; i < p.candidates.size(); ++i) s += (i ? ", " : "") + std::to_string(p.candidates[i]);
    return s + "}";
  }
  return p.name + " " + std::to_string(p.lo) + ".." + std::to_string(p.hi);
}

// The rank of an outcome for "the first failing point": a violation first,
// then the contract's failures (internal error, bad input, inconclusive).
int rank(const report::FileReport& r) {
  if (r.failure == check::Failure::none && r.result.verdict == check::Verdict::violation) return 4;
  switch (report::exit_of(r)) {
    case check::Exit::internal: return 3;
    case check::Exit::bad_input: return 2;
    case check::Exit::inconclusive: return 1;
    case check::Exit::verified:
    case check::Exit::violation: break;
  }
  return 0;
}

}  // namespace

SweepPlan plan_sweep(const ir::Kernel& k, const Params& given, std::uint64_t max_points) {
  SweepPlan plan;
  plan.combinations = 1;
  for (const ir::Param& p : k.params) {
    const bool fixed = std::any_of(given.begin(), given.end(), [&](const auto& g) { return g.first == p.name; });
    std::vector<std::int64_t> v;
    if (!p.candidates.empty()) {
      v = p.candidates;
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
    } else if (p.lo <= p.hi) {
      // A range too wide to list is sampled: its ends and evenly spaced values.
      const std::uint64_t width = static_cast<std::uint64_t>(p.hi - p.lo) + 1;
      const std::uint64_t n = std::min<std::uint64_t>(width, 4096);
      for (std::uint64_t i = 0; i < n; ++i)
        v.push_back(p.lo + static_cast<std::int64_t>(n == 1 ? 0 : (width - 1) / (n - 1) * i));
      v.back() = p.hi;
      if (n < width) plan.sampled = true;
    }
    if (fixed || v.size() < 2) continue;
    plan.names.push_back(p.name);
    plan.values.push_back(std::move(v));
    const std::uint64_t n = plan.values.back().size();
    plan.combinations = plan.combinations > saturated / n ? saturated : plan.combinations * n;
  }
  const std::size_t axes = plan.values.size();
  auto point_at = [&](std::uint64_t index) {  // mixed radix, the last axis fastest
    std::vector<std::int64_t> pt(axes);
    for (std::size_t a = axes; a-- > 0;) {
      const std::uint64_t n = plan.values[a].size();
      pt[a] = plan.values[a][index % n];
      index /= n;
    }
    return pt;
  };
  if (plan.combinations <= max_points) {
    for (std::uint64_t i = 0; i < plan.combinations; ++i) plan.points.push_back(point_at(i));
    return plan;
  }
  plan.sampled = true;
  // Per axis an index drawn at random; the first and the last combination
  // always. Kept in enumeration order (lexicographic by axis index).
  std::set<std::vector<std::size_t>> chosen;
  std::vector<std::size_t> first(axes, 0), last(axes);
  for (std::size_t a = 0; a < axes; ++a) last[a] = plan.values[a].size() - 1;
  chosen.insert(first);
  if (max_points > 1) chosen.insert(last);
  std::uint64_t seed = 0x7068617365636b31ull;  // fixed
  for (std::uint64_t tries = 0; chosen.size() < max_points && tries < 64 * max_points; ++tries) {
    std::vector<std::size_t> ix(axes);
    for (std::size_t a = 0; a < axes; ++a) ix[a] = static_cast<std::size_t>(mix(seed) % plan.values[a].size());
    chosen.insert(std::move(ix));
  }
  for (const std::vector<std::size_t>& ix : chosen) {
    std::vector<std::int64_t> pt(axes);
    for (std::size_t a = 0; a < axes; ++a) pt[a] = plan.values[a][ix[a]];
    plan.points.push_back(std::move(pt));
  }
  return plan;
}

namespace {

// What the sweep keeps of each point as it finishes: the counts, the totals,
// the first point of each failing outcome, the warnings of every point and
// the statements no point runs. Points finish in any order; everything kept
// is decided by point index, so the summary is the same on any number of
// threads.
class Tally {
 public:
  Tally(const SweepPlan& plan, std::size_t n) : plan_(plan), ranks_(n, 0), exits_(n, check::Exit::verified) {}

  void add(std::size_t i, int rank, const report::FileReport& r) {
    ranks_[i] = rank;
    exits_[i] = report::exit_of(r);
    if (!r.failed()) {
      const check::Result& x = r.result;
      states_ += x.states;
      transitions_ += x.transitions;
      depth_ = std::max(depth_, x.max_depth);
      memory_ = std::max(memory_, x.memory_bytes);
      for (std::size_t w = 0; w < x.warnings.size(); ++w) add_warning(i, w, x.warnings[w]);
      capped_ |= x.warnings_capped;
      if (x.coverage) add_coverage(i, x.unreached);
    }
    if (rank > 0) add_kind(i, r);
  }

  // The summary into s; f (the result point's report) gets the sweep's
  // statistics, warnings and coverage in place of its own.
  void finish(report::Sweep& s, report::FileReport& f, double seconds);

 private:
  struct Kind {
    std::size_t first;  // point index
    std::uint64_t points = 0;
    std::string replay;
  };
  struct Seen {
    std::size_t point, seq;
    check::Warning w;
  };

  void add_kind(std::size_t i, const report::FileReport& r) {
    const std::string name = report::outcome_name(r);
    auto it = kinds_.find(name);
    if (it == kinds_.end()) it = kinds_.emplace(name, Kind{i, 0, {}}).first;
    Kind& k = it->second;
    ++k.points;
    if (i <= k.first) {
      k.first = i;
      k.replay = r.failed() ? std::string() : r.result.replay;
    }
  }
  void add_warning(std::size_t i, std::size_t seq, const check::Warning& w) {
    for (Seen& x : warnings_)
      if (check::same_instance(x.w, w)) {
        if (std::pair{i, seq} < std::pair{x.point, x.seq}) x = {i, seq, w};
        return;
      }
    warnings_.push_back({i, seq, w});
  }
  // The statements unreached at every point with coverage so far.
  void add_coverage(std::size_t i, const std::vector<check::Unreached>& u) {
    auto at = [&](ir::Loc l) {
      return std::find_if(u.begin(), u.end(), [&](const check::Unreached& x) { return x.loc.line == l.line && x.loc.col == l.col; });
    };
    if (!covered_) {
      covered_ = true;
      common_point_ = i;
      common_ = u;
      return;
    }
    std::vector<check::Unreached> kept;
    for (const check::Unreached& x : common_) {
      const auto it = at(x.loc);
      if (it != u.end()) kept.push_back(i < common_point_ ? *it : x);
    }
    common_ = std::move(kept);
    common_point_ = std::min(common_point_, i);
  }
  Params point(std::size_t i) const {
    Params p;
    for (std::size_t a = 0; a < plan_.names.size(); ++a) p.emplace_back(plan_.names[a], plan_.points[i][a]);
    return p;
  }

  const SweepPlan& plan_;
  std::vector<int> ranks_;
  std::vector<check::Exit> exits_;
  std::uint64_t states_ = 0, transitions_ = 0, depth_ = 0, memory_ = 0;
  std::map<std::string, Kind> kinds_;
  std::vector<Seen> warnings_;
  bool capped_ = false;
  bool covered_ = false;
  std::size_t common_point_ = 0;
  std::vector<check::Unreached> common_;
};

void Tally::finish(report::Sweep& s, report::FileReport& f, double seconds) {
  s.states = states_;
  s.transitions = transitions_;
  s.seconds = seconds;
  for (std::size_t i = 0; i < ranks_.size(); ++i) {
    if (ranks_[i] == 4) ++s.violation;
    else
      switch (exits_[i]) {
        case check::Exit::verified: ++s.verified; break;
        case check::Exit::violation: ++s.violation; break;
        case check::Exit::inconclusive: ++s.inconclusive; break;
        case check::Exit::bad_input: ++s.bad_input; break;
        case check::Exit::internal: ++s.internal; break;
      }
  }
  for (const auto& [name, k] : kinds_) s.kinds.push_back({name, k.points, point(k.first), k.replay, k.first});
  std::sort(s.kinds.begin(), s.kinds.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
  if (f.failed()) return;
  check::Result& r = f.result;
  s.result_states = r.states;
  s.result_transitions = r.transitions;
  s.result_seconds = r.seconds;
  r.max_depth = depth_;
  r.memory_bytes = memory_;
  // Every point's warnings, each instance once, grouped by kind.
  std::sort(warnings_.begin(), warnings_.end(), [](const Seen& a, const Seen& b) {
    return std::pair{a.point, a.seq} < std::pair{b.point, b.seq};
  });
  r.warnings_capped = capped_ || warnings_.size() > check::max_warnings;
  if (warnings_.size() > check::max_warnings) warnings_.resize(check::max_warnings);
  r.warnings.clear();
  std::vector<spec::Violation> order;
  for (const Seen& x : warnings_)
    if (std::find(order.begin(), order.end(), x.w.kind) == order.end()) order.push_back(x.w.kind);
  for (const spec::Violation kind : order)
    for (const Seen& x : warnings_)
      if (x.w.kind == kind) r.warnings.push_back(x.w);
  // Coverage: the statements that run at no point (of those searched to the end).
  if (r.coverage) r.unreached = common_;
}

}  // namespace

void sweep(report::FileReport& f, const ir::Kernel& k, const Params& given, check::Options opt, const SweepOptions& so) {
  const SweepPlan plan = plan_sweep(k, given, so.max_points);
  report::Sweep s;
  s.on = true;
  s.sampled = plan.sampled;
  s.points = plan.combinations;
  for (const std::string& name : plan.names)
    for (const ir::Param& p : k.params)
      if (p.name == name) s.axes.push_back(axis_text(p));
  const std::size_t n = plan.points.size();
  unsigned workers = so.threads ? so.threads : std::max(1u, std::thread::hardware_concurrency());
  workers = static_cast<unsigned>(std::min<std::size_t>(workers, n));
  opt.threads = 1;   // the points run side by side, each on one thread
  opt.progress = false;

  Tally tally(plan, n);
  std::mutex m;
  std::size_t best = n;  // the first point of the highest rank so far
  int best_rank = -1;
  report::FileReport best_report;
  std::atomic<std::size_t> next{0}, done{0};
  const auto t0 = std::chrono::steady_clock::now();
  auto last = t0;
  auto work = [&] {
    for (std::size_t i = next++; i < n; i = next++) {
      Params params = given;
      for (std::size_t a = 0; a < plan.names.size(); ++a) params.emplace_back(plan.names[a], plan.points[i][a]);
      report::FileReport r;
      r.file = f.file;
      r.expect = f.expect;
      r.kernel = f.kernel;
      std::string source;
      const dsl::Parsed parsed = dsl::parse_file(f.file, source, params);
      r.source = std::move(source);
      for (const ir::Param& p : parsed.kernel.params) r.params.emplace_back(p.name, p.value);
      if (!parsed.ok()) {
        r.failure = check::Failure::bad_input;
        r.diagnostics = parsed.errors;
      } else {
        check::Options o = opt;
        o.params = params;
        check::run_guarded(r, [&] { r.result = check::check(parsed.kernel, o); });
      }
      const int rk = rank(r);
      const std::lock_guard<std::mutex> g(m);
      tally.add(i, rk, r);
      if (rk > best_rank || (rk == best_rank && i < best)) {
        best_rank = rk;
        best = i;
        best_report = std::move(r);
      }
      ++done;
      const auto now = std::chrono::steady_clock::now();
      if (so.progress && now - last > std::chrono::seconds(3)) {
        last = now;
        std::fprintf(stderr, "sweep: %zu of %zu points, %.0f s\n", done.load(), n,
                     std::chrono::duration<double>(now - t0).count());
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < workers; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();

  s.run = n;
  if (best < n) {
    for (std::size_t a = 0; a < plan.names.size(); ++a) s.shown.emplace_back(plan.names[a], plan.points[best][a]);
    if (best_rank > 0) {
      s.failing = s.shown;
      s.failing_outcome = report::outcome_name(best_report);
    }
    std::vector<report::SymbolicClaim> symbolic = std::move(f.symbolic);
    f = std::move(best_report);
    f.symbolic = std::move(symbolic);
  }
  tally.finish(s, f, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  f.sweep = std::move(s);
}

}  // namespace pc::cli
