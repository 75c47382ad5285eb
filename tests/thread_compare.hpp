// The parallel search gives the result of one thread (checker_threads_test.cpp,
// and the corpus test): helpers shared by both.
#pragma once

#include <doctest/doctest.h>

#include <string>

#include "checker/explore.hpp"

namespace pc::threads_test {

using check::outcome_name;

// Every level is expanded by all threads (parallel_min_level 1), so that the
// levels of a few states exercise the hand-over between threads, and the
// visited table starts at one line, so that it grows while threads expand a
// level and its inserts run out of room (successors put aside).
inline check::Result run(const ir::Kernel& k, unsigned threads, check::Options o = {}) {
  o.threads = threads;
  o.parallel_min_level = 1;
  o.parallel_table_lines = 1;
  return check::check(k, o);
}

inline std::string trace_text(const check::Result& r) {
  std::string s;
  for (const check::TraceStep& t : r.trace) s += std::to_string(t.agent) + " " + std::to_string(t.loc.line) + " " + t.text + "\n";
  return s;
}

inline std::string warnings_text(const check::Result& r) {
  std::string s;
  for (const check::Warning& w : r.warnings)
    s += std::string(spec::violation_name(w.kind)) + " " + std::to_string(w.loc.line) + " " + w.message + "\n";
  return s;
}

inline std::string unreached_text(const check::Result& r) {
  std::string s;
  for (const check::Unreached& u : r.unreached) s += std::to_string(u.loc.line) + " " + u.what + "\n";
  return s;
}

// `many` is the result of several threads, `one` of one thread.
inline void same_result(const check::Result& one, const check::Result& many) {
  CHECK(outcome_name(many) == outcome_name(one));
  CHECK(many.states == one.states);
  CHECK(many.transitions == one.transitions);
  CHECK(many.max_depth == one.max_depth);
  CHECK(many.replay == one.replay);
  CHECK(trace_text(many) == trace_text(one));
  CHECK(many.message == one.message);
  CHECK(warnings_text(many) == warnings_text(one));
  CHECK(many.coverage == one.coverage);
  CHECK(unreached_text(many) == unreached_text(one));
}

// The counterexample replays to its kind (a warning's, with --strict as the
// search had it).
inline void replays(const ir::Kernel& k, const check::Result& r, const check::Options& searched = {}) {
  if (r.verdict != check::Verdict::violation) return;
  check::Options o;
  o.strict = searched.strict;
  o.replay = r.replay;
  const check::Result again = check::check(k, o);
  CHECK(outcome_name(again) == outcome_name(r));
}

}  // namespace pc::threads_test
