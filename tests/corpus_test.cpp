// The corpus: every kernel in kernels/ verifies or fails exactly as its
// `# expect:` line says, with and without reductions, and every violation's
// replay token reproduces it.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "tests/corpus_files.hpp"

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

// The checks of one kernel (its parameters at `size`, or at their defaults):
// the outcome its `# expect:` line names, with and without reductions; the
// reductions store no more states; a violation's replay token reproduces it;
// coverage is the same with the reductions as without them (docs/checker.md,
// "Coverage"). `cap` caps the search with reductions and `plain_cap` the
// one without (0: none); a search stopped at its cap is compared with
// nothing.
void check_corpus_kernel(const std::string& file, const ParamValues& size, std::uint64_t cap, std::uint64_t plain_cap) {
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
  if (cap > 0) with.max_states = cap;
  check::Options plain;
  plain.params = size;
  plain.reduction = false;
  if (plain_cap > 0) plain.max_states = plain_cap;
  const check::Result a = check::check(p.kernel, with);
  const check::Result b = check::check(p.kernel, plain);
  const bool a_capped = cap > 0 && a.verdict == check::Verdict::inconclusive;
  const bool capped = a_capped || (plain_cap > 0 && b.verdict == check::Verdict::inconclusive);
  if (!a_capped) CHECK(outcome_name(a) == p.kernel.expect);
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

// Under the sanitizers, which look for memory errors rather than verdicts,
// the search without reductions stops at corpus_compare_cap states; the one
// with them, which gives the verdict and the trace, still runs to the end.
TEST_CASE("every corpus kernel matches its expectation, with and without reductions") {
  for (const std::string& file : corpus_files()) check_corpus_kernel(file, {}, 0, corpus_compare_cap);
}

// The loop-carried barriers of some kernels are all exercised only at sizes
// beyond their defaults (each of two S buffers is used again from the fourth
// trip): each such size, named in the file, is checked too, to the end in the
// plain build. Under the sanitizers, which look for memory errors rather
// than verdicts, both searches stop at corpus_compare_cap states, as the
// reduction and thread comparisons do there.
TEST_CASE("corpus sizes: every kernel matches its expectation at the further sizes its file names") {
  int sized = 0;
  for (const std::string& file : corpus_files()) {
    for (const ParamValues& size : corpus_sizes(file)) {
      CAPTURE(file);
      for (const auto& [name, value] : size) REQUIRE_MESSAGE(!name.empty(), "a '# corpus size:' word is not NAME=VALUE");
      check_corpus_kernel(file, size, corpus_compare_cap, corpus_compare_cap);
      ++sized;
    }
  }
  CHECK(sized >= 2);
}
