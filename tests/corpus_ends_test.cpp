// The corpus at the ends of its declared parameter ranges: a kernel that
// expects `verified` claims it for every value its `param N = v in lo..hi`
// (or `in {a, ..., b}`) declares, so each parameter is checked at its lowest
// and its highest declared value, the others at their defaults. A bug
// kernel (kernels/bugs/, or `_bug_` in its name) is left out: its range is
// where `--sweep` and `--symbolic` look for its bug, which some values show
// and others do not, and its expectation holds at its defaults. A range that
// reaches a value the source forbids (CUTLASS's collective asserts
// Stages >= 2) shows here as another verdict. Some ends are far larger
// than the defaults (cutlass_sm90_tma_ws_multicast at STAGES=7 stores more
// than 15 million states): each search stops at ends_cap() states, and a
// point it does not finish is counted, not judged. A violation where the file expects
// `verified` fails; a limit of the model (a KernelError) is reported, not
// judged. The full tier runs it (about a minute on two cores).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "checker/explore.hpp"
#include "tests/corpus_files.hpp"
#include "tests/corpus_searches.hpp"
#include "tests/tier.hpp"

using namespace pc;

namespace {

// The lowest and the highest declared value of `p` (none: no range or set).
std::vector<std::int64_t> ends(const ir::Param& p) {
  if (!p.candidates.empty())
    return {*std::min_element(p.candidates.begin(), p.candidates.end()), *std::max_element(p.candidates.begin(), p.candidates.end())};
  if (p.lo <= p.hi) return {p.lo, p.hi};
  return {};
}

// The states one point's search may store (under the sanitizers, the corpus cap).
std::uint64_t ends_cap() { return tier::corpus_cap() > 0 ? tier::corpus_cap() : 150'000; }

}  // namespace

TEST_CASE("corpus range ends: every kernel matches its expectation at each end of each declared parameter range") {
  int points = 0, unfinished = 0;
  for (const std::string& file : corpus_files()) {
    const corpus::Kernel& at_defaults = corpus::kernel(file);
    REQUIRE(at_defaults.parsed.ok());
    const std::string& expect = at_defaults.ir().expect;
    if (expect != "verified" || file.find("/bugs/") != std::string::npos || file.find("_bug_") != std::string::npos) continue;
    for (const ir::Param& p : at_defaults.ir().params) {
      for (const std::int64_t v : ends(p)) {
        if (v == p.value) continue;  // the defaults: the corpus test's
        const corpus::Kernel& k = corpus::kernel(file, {{p.name, v}});
        CAPTURE(file);
        CAPTURE(k.at);
        REQUIRE_MESSAGE(k.parsed.ok(), (k.parsed.ok() ? "" : k.parsed.errors[0].message));
        check::Options o = corpus::reduced_options();
        o.max_states = ends_cap();
        ++points;
        const check::Result* found = nullptr;
        try {
          found = &corpus::search(k, o);
        } catch (const check::KernelError& e) {
          // A limit of the model, not a verdict (reported, not judged).
          MESSAGE(file << " at " << k.at << ": " << std::string(e.what()));
          ++unfinished;
          continue;
        }
        const check::Result& r = *found;
        if (r.verdict == check::Verdict::inconclusive) {
          REQUIRE(r.inconclusive_reason == "max-states");  // only the cap stops it
          ++unfinished;
          continue;
        }
        CHECK(check::outcome_name(r) == expect);
      }
    }
  }
  MESSAGE(std::string(tier::name()) << " tier: " << points << " range ends checked, " << unfinished << " of them past "
                                    << ends_cap() << " states (not judged)");
  CHECK(unfinished * 2 <= points);
  CHECK(points >= 30);
}
