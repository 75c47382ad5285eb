#include "checker/sweep.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <limits>
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

  std::vector<int> ranks(n, 0);
  std::vector<check::Exit> exits(n, check::Exit::verified);
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
      ranks[i] = rk;
      exits[i] = report::exit_of(r);
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
  for (std::size_t i = 0; i < n; ++i) {
    if (ranks[i] == 4) ++s.violation;
    else
      switch (exits[i]) {
        case check::Exit::verified: ++s.verified; break;
        case check::Exit::violation: ++s.violation; break;
        case check::Exit::inconclusive: ++s.inconclusive; break;
        case check::Exit::bad_input: ++s.bad_input; break;
        case check::Exit::internal: ++s.internal; break;
      }
  }
  if (best < n) {
    if (best_rank > 0) {
      for (std::size_t a = 0; a < plan.names.size(); ++a) s.failing.emplace_back(plan.names[a], plan.points[best][a]);
      s.failing_outcome = report::outcome_name(best_report);
    }
    std::vector<report::SymbolicClaim> symbolic = std::move(f.symbolic);
    f = std::move(best_report);
    f.symbolic = std::move(symbolic);
  }
  f.sweep = std::move(s);
}

}  // namespace pc::cli
