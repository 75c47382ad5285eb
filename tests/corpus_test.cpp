// The corpus: every kernel in kernels/ verifies or fails exactly as its
// `# expect:` line says, with and without reductions, and every violation's
// replay token reproduces it; with 3 threads, each gets the result of one.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "tests/corpus_files.hpp"
#include "tests/thread_compare.hpp"

using namespace pc;

using check::outcome_name;

TEST_CASE("the corpus has the seed systems and the bug classes") {
  const std::vector<std::string> files = corpus_files();
  CHECK(files.size() >= 24);
  int bugs = 0;
  for (const std::string& f : files) bugs += f.find("/bugs/") != std::string::npos;
  CHECK(bugs >= 15);
}

namespace {

// The search with 3 threads gives the result of the one with one thread
// (checker_threads_test.cpp): `one` is that search, run with the options
// `o` on one thread (to the end, or stopped at o.max_states under the
// sanitizers, where both must stop).
void compare_threads(const ir::Kernel& k, const check::Options& o, const check::Result& one) {
  const check::Result many = threads_test::run(k, 3, o);
  if (one.verdict == check::Verdict::inconclusive) {
    REQUIRE(o.max_states > 0);  // only a cap stops it
    CHECK(many.verdict == check::Verdict::inconclusive);
    return;
  }
  threads_test::same_result(one, many);
  threads_test::replays(k, many);
}

// How far check_corpus_kernel goes. `cap` caps the search with reductions
// and `plain_cap` the one without (0: none); a search stopped at its cap is
// compared with nothing. With `threads`, 3 threads give the result of one.
// Without `plain_after_bug`, a kernel whose search with reductions finds
// the violation its file expects is not searched again without them: the
// risk of a reduction is a violation missed, and that one was found.
struct Checks {
  std::uint64_t cap = 0, plain_cap = 0;
  bool threads = false;
  bool plain_after_bug = true;
};

// The checks of one kernel (its parameters at `size`, or at their defaults):
// the outcome its `# expect:` line names, with and without reductions; the
// reductions store no more states; a violation's replay token reproduces it;
// coverage is the same with the reductions as without them (docs/checker.md,
// "Coverage").
void check_corpus_kernel(const std::string& file, const ParamValues& size, const Checks& how) {
  CAPTURE(file);
  std::string at = size.empty() ? "the defaults" : "";
  for (const auto& [name, value] : size) at += (at.empty() ? "" : " ") + name + "=" + std::to_string(value);
  CAPTURE(at);
  std::string src;
  dsl::Parsed p = dsl::parse_file(file, src, size);
  REQUIRE_MESSAGE(p.ok(), (p.ok() ? "" : p.errors[0].message));
  REQUIRE_FALSE(p.kernel.expect.empty());
  check::Options with;
  with.params = size;
  with.threads = 1;  // the reference the threads are compared with
  if (how.cap > 0) with.max_states = how.cap;
  check::Options plain;
  plain.params = size;
  plain.reduction = false;
  if (how.plain_cap > 0) plain.max_states = how.plain_cap;
  const check::Result a = check::check(p.kernel, with);
  const bool a_capped = how.cap > 0 && a.verdict == check::Verdict::inconclusive;
  if (!a_capped) CHECK(outcome_name(a) == p.kernel.expect);
  const bool bug_found = a.verdict == check::Verdict::violation && outcome_name(a) == p.kernel.expect;
  const bool skip_plain = !how.plain_after_bug && bug_found;
  const check::Result b = skip_plain ? check::Result{} : check::check(p.kernel, plain);
  if (how.threads) compare_threads(p.kernel, with, a);
  const bool capped = skip_plain || a_capped || (how.plain_cap > 0 && b.verdict == check::Verdict::inconclusive);
  if (!capped) {
    CHECK(outcome_name(b) == p.kernel.expect);
    CHECK(a.states <= b.states);
  }
  if (a.verdict == check::Verdict::violation && !a_capped) {
    CHECK_FALSE(a.trace.empty());
    check::Options replay;
    replay.replay = a.replay;
    replay.params = size;
    const check::Result again = check::check(p.kernel, replay);
    CHECK(outcome_name(again) == p.kernel.expect);
    CHECK(again.trace.size() == a.trace.size());
  }
  if (a.verdict == check::Verdict::verified && !capped) {
    REQUIRE(a.coverage);
    REQUIRE(b.coverage);
    auto lines = [](const check::Result& r) {
      std::vector<std::pair<int, int>> out;
      for (const check::Unreached& u : r.unreached) out.emplace_back(u.loc.line, u.loc.col);
      return out;
    };
    CHECK(lines(a) == lines(b));
  }
}

}  // namespace

// Under the sanitizers, which look for memory errors rather than verdicts
// (the plain build checks every verdict to the end), every search stops at
// corpus_compare_cap states.
TEST_CASE("every corpus kernel matches its expectation, with and without reductions") {
  Checks how;
  how.cap = how.plain_cap = corpus_compare_cap;
  how.threads = true;
  for (const std::string& file : corpus_files()) check_corpus_kernel(file, {}, how);
}

// The loop-carried barriers of some kernels are all exercised only at sizes
// beyond their defaults (each of two S buffers is used again from the fourth
// trip): each such size, named in the file, is checked too, to the end in the
// plain build. A verified one is searched without reductions too; a bug
// kernel whose expected violation the search with reductions finds is not
// (Checks::plain_after_bug; at the defaults it is). Under the sanitizers,
// which look for memory errors rather than verdicts, both searches stop at
// corpus_compare_cap states, as the reduction and thread comparisons do there.
TEST_CASE("corpus sizes: every kernel matches its expectation at the further sizes its file names") {
  int sized = 0;
  for (const std::string& file : corpus_files()) {
    for (const ParamValues& size : corpus_sizes(file)) {
      CAPTURE(file);
      for (const auto& [name, value] : size) REQUIRE_MESSAGE(!name.empty(), "a '# corpus size:' word is not NAME=VALUE");
      Checks how;
      how.cap = how.plain_cap = corpus_compare_cap;
      how.plain_after_bug = false;
      check_corpus_kernel(file, size, how);
      ++sized;
    }
  }
  CHECK(sized >= 2);
}
