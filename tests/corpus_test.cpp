// The corpus: every kernel in kernels/ verifies or fails exactly as its
// `# expect:` line says, with and without reductions, and every violation's
// replay token reproduces it; with 3 threads, each gets the result of one.
// The searches are shared with the other corpus comparisons of the process
// (tests/corpus_searches.hpp); the tier decides which kernels are compared
// (tests/tier.hpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "tests/corpus_files.hpp"
#include "tests/corpus_searches.hpp"
#include "tests/tier.hpp"
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

// The search with 3 threads gives the result of one thread
// (checker_threads_test.cpp): `one` is that search.
void compare_threads(const corpus::Kernel& k, const check::Result& one) {
  check::Options o = corpus::reduced_options();
  o.params = k.size;  // as the shared search, so that the replay tokens name the size
  const check::Result many = threads_test::run(k.ir(), 3, o);
  if (one.verdict == check::Verdict::inconclusive) {
    REQUIRE(tier::corpus_cap() > 0);  // only a cap stops it
    CHECK(many.verdict == check::Verdict::inconclusive);
    return;
  }
  threads_test::same_result(one, many);
  threads_test::replays(k.ir(), many);
}

// The checks of one kernel at one size: the outcome its `# expect:` line
// names with the reductions; a violation's replay token reproduces it. Where
// the tier compares the kernel (corpus::compared): the same outcome without
// reductions, and no fewer states there; at the defaults, 3 threads give the
// result of one; coverage is the same with the reductions as without them
// (docs/checker.md, "Coverage"). Without `plain_after_bug`, a kernel whose search with
// reductions finds the violation its file expects is not searched again
// without them: the risk of a reduction is a violation missed, and that one
// was found. Returns whether it was compared.
bool check_corpus_kernel(const corpus::Kernel& k, bool plain_after_bug) {
  CAPTURE(k.file);
  CAPTURE(k.at);
  REQUIRE_MESSAGE(k.parsed.ok(), (k.parsed.ok() ? "" : k.parsed.errors[0].message));
  REQUIRE_FALSE(k.ir().expect.empty());
  const std::string& expect = k.ir().expect;
  const check::Result& a = corpus::reduced(k);
  const bool a_capped = a.verdict == check::Verdict::inconclusive;
  if (a_capped) REQUIRE(tier::corpus_cap() > 0);  // only a cap stops it
  else CHECK(outcome_name(a) == expect);
  if (a.verdict == check::Verdict::violation) {
    CHECK_FALSE(a.trace.empty());
    check::Options replay;
    replay.replay = a.replay;
    replay.params = k.size;
    const check::Result again = check::check(k.ir(), replay);
    CHECK(outcome_name(again) == expect);
    CHECK(again.trace.size() == a.trace.size());
  }
  if (!corpus::compared(k)) return false;
  if (k.size.empty()) compare_threads(k, a);
  const bool bug_found = a.verdict == check::Verdict::violation && outcome_name(a) == expect;
  if (!plain_after_bug && bug_found) return true;
  const check::Result& b = corpus::search(k, corpus::plain_options());
  if (b.verdict == check::Verdict::inconclusive) {
    REQUIRE((tier::corpus_cap() > 0 || tier::plain_cap() > 0));  // only a cap stops it
    // Past the CI tier's cap for the search without reductions: compared by --full.
    return tier::plain_cap() == 0;
  }
  CHECK(outcome_name(b) == expect);
  CHECK(a.states <= b.states);
  if (a.verdict == check::Verdict::verified) {
    REQUIRE(a.coverage);
    REQUIRE(b.coverage);
    auto lines = [](const check::Result& r) {
      std::vector<std::pair<int, int>> out;
      for (const check::Unreached& u : r.unreached) out.emplace_back(u.loc.line, u.loc.col);
      return out;
    };
    CHECK(lines(a) == lines(b));
  }
  return true;
}

}  // namespace

// Every kernel at its defaults, every search to the end in the plain build.
// The CI tier compares the kernels of at most tier::small_states() states;
// the full tier compares every one.
TEST_CASE("corpus: every kernel matches its expectation, with and without reductions") {
  int compared = 0, kernels = 0;
  for (const std::string& file : corpus_files()) {
    compared += check_corpus_kernel(corpus::kernel(file), true);
    ++kernels;
  }
  MESSAGE(std::string(tier::name()) << " tier: " << kernels << " corpus kernels, " << compared
                       << " of them compared without reductions and with 3 threads");
  // Most kernels are small: a tier that compares few of them has lost its
  // point (77 of 90 in the plain build's CI tier on 2026-12-02; the
  // sanitized CI tier compares those of at most 5,000 states).
  const int percent = tier::sanitized ? 60 : 70;
  CHECK(compared * 100 >= kernels * percent);
}

// The kernels too large to compare without reductions (corpus::
// reductions_only): every step the reductions take alone in their whole
// search is checked to commute with what it was taken before
// (--check-reduction), and they are few.
TEST_CASE("corpus: a kernel compared with the reductions only is checked by --check-reduction to the end") {
  int found = 0;
  for (const std::string& file : corpus_files()) {
    const corpus::Kernel& k = corpus::kernel(file);
    if (!corpus::reductions_only(k)) continue;
    CAPTURE(file);
    ++found;
    check::Options o = corpus::reduced_options();
    o.check_reduction = true;
    const check::Result& r = corpus::search(k, o);
    if (r.verdict == check::Verdict::inconclusive) REQUIRE(tier::corpus_cap() > 0);  // only a cap stops it
    else CHECK(outcome_name(r) == k.ir().expect);
  }
  CHECK(found >= 2);  // kernels/cuda/ws_ring_wg.bk, tc_gemm_acc2.bk
  CHECK(found <= 3);  // an exception, not a way around the comparisons
}

// The loop-carried barriers of some kernels are all exercised only at sizes
// beyond their defaults (each of two S buffers is used again from the fourth
// trip): each such size, named in the file, is checked too, to the end in the
// plain build. A verified one is searched without reductions too; a bug
// kernel whose expected violation the search with reductions finds is not
// (plain_after_bug; at the defaults it is). The CI tier checks the sizes of
// the kernels it compares at their defaults, the full tier every size.
TEST_CASE("corpus sizes: every kernel matches its expectation at the further sizes its file names") {
  int sized = 0, checked = 0;
  for (const std::string& file : corpus_files()) {
    for (const ParamValues& size : corpus_sizes(file)) {
      CAPTURE(file);
      for (const auto& [name, value] : size) REQUIRE_MESSAGE(!name.empty(), "a '# corpus size:' word is not NAME=VALUE");
      ++sized;
      if (tier::ci() && !corpus::compared(corpus::kernel(file))) continue;
      check_corpus_kernel(corpus::kernel(file, size), false);
      ++checked;
    }
  }
  MESSAGE(std::string(tier::name()) << " tier: " << checked << " of " << sized << " further sizes checked");
  CHECK(sized >= 18);
  CHECK(checked >= 1);
}
