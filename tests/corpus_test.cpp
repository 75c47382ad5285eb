// The corpus: every kernel in kernels/ verifies or fails exactly as its
// `# expect:` line says, with and without reductions, and every violation's
// replay token reproduces it.
#include <doctest/doctest.h>

#include <algorithm>
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

TEST_CASE("every corpus kernel matches its expectation, with and without reductions") {
  for (const std::string& file : corpus_files()) {
    CAPTURE(file);
    std::string src;
    dsl::Parsed p = dsl::parse_file(file, src);
    REQUIRE_MESSAGE(p.ok(), (p.ok() ? "" : p.errors[0].message));
    REQUIRE_FALSE(p.kernel.expect.empty());
    check::Options with;
    check::Options plain;
    plain.reduction = false;
    const check::Result a = check::check(p.kernel, with);
    const check::Result b = check::check(p.kernel, plain);
    CHECK(outcome_name(a) == p.kernel.expect);
    CHECK(outcome_name(b) == p.kernel.expect);
    CHECK(a.states <= b.states);
    if (a.verdict == check::Verdict::violation) {
      CHECK_FALSE(a.trace.empty());
      check::Options replay;
      replay.replay = a.replay;
      const check::Result again = check::check(p.kernel, replay);
      CHECK(outcome_name(again) == p.kernel.expect);
      CHECK(again.trace.size() == a.trace.size());
    }
    // Coverage is the same with the reductions as without them (docs/checker.md, "Coverage").
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
  }
}
