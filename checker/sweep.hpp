// --sweep (check-kernel): the explicit search at every combination of the
// declared parameter values (`param N = v in lo..hi` or `in {a, b}`), or a
// sample of them when there are more than --sweep-max, on every core.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "checker/explore.hpp"
#include "checker/ir.hpp"
#include "checker/report/report.hpp"

namespace pc::cli {

struct SweepOptions {
  std::uint64_t max_points = 256;  // --sweep-max: more combinations than this are sampled
  unsigned threads = 0;            // points searched at once (0: every core)
  bool progress = false;           // a line on stderr every few seconds
};

// The points of a kernel: each parameter with declared values that `given`
// (the --param values) does not fix, and the combinations of their values in
// enumeration order (the first axis slowest), all of them or, past
// max_points, a deterministic sample that keeps the first and last
// combination.
struct SweepPlan {
  std::vector<std::string> names;
  std::vector<std::vector<std::int64_t>> values;                 // per axis
  std::uint64_t combinations = 0;                                // saturates at 2^63
  std::vector<std::vector<std::int64_t>> points;                 // the points to run, in enumeration order
  bool sampled = false;
};
[[nodiscard]] SweepPlan plan_sweep(const ir::Kernel& k, const std::vector<std::pair<std::string, std::int64_t>>& given,
                                   std::uint64_t max_points);

// Runs the plan on f.file (f.source, f.kernel and the parse are redone per
// point): f.result and f.params become those of the first failing point (or
// of the first point), f.sweep the summary. `opt` is the search's options
// (each point's search runs on one thread).
void sweep(report::FileReport& f, const ir::Kernel& k, const std::vector<std::pair<std::string, std::int64_t>>& given,
           check::Options opt, const SweepOptions& so);

}  // namespace pc::cli
