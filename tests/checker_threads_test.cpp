// The parallel search (Options::threads, --threads) gives the result of one
// thread: the same verdict and violation kind, the same counts (states,
// transitions, depth), the same trace and replay token, the same warnings
// and the same coverage, over generated kernels with 2 and 4 threads (on any
// machine: threads beyond its cores only take turns). The corpus is compared
// with 3 threads by the corpus test (corpus_test.cpp), against the search
// with one thread it runs anyway.
// Every level is expanded by all threads here (parallel_min_level 1), so
// that the levels of a few states exercise the hand-over between threads.
#include <doctest/doctest.h>

#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/program.hpp"
#include "tests/kernel_generators.hpp"
#include "tests/tier.hpp"
#include "tests/thread_compare.hpp"

using namespace pc;
using namespace pc::threads_test;

namespace {

int compared = 0, violations = 0, drawn = 0;

// False when the text is not a kernel the checker takes. A kernel the tier
// does not compare (tests/tier.hpp) counts as taken.
bool agree(const std::string& text, check::Options o = {}) {
  CAPTURE(text);
  const dsl::Parsed p = dsl::parse(text, "gen.bk");
  if (!p.ok()) return false;
  if (!tier::sample().take(drawn++)) return true;
  try {
    const check::Result one = run(p.kernel, 1, o);
    for (unsigned n : {2u, 4u}) {
      CAPTURE(n);
      same_result(one, run(p.kernel, n, o));
    }
    replays(p.kernel, one, o);
    ++compared;
    violations += one.verdict == check::Verdict::violation;
    return true;
  } catch (const check::KernelError&) {
    // Past one of the model's capacities: refused with every thread count.
    for (unsigned n : {2u, 4u}) CHECK_THROWS_AS(run(p.kernel, n, o), check::KernelError);
    return false;
  }
}

}  // namespace

TEST_CASE("threads: generated kernels get the result of one thread") {
  std::mt19937 rng(20261123);
  using namespace testgen;
  for (int i = 0; i < 60; ++i) agree(random_kernel(rng));
  for (int i = 0; i < 40; ++i) agree(chained_kernel(rng));
  for (int i = 0; i < 60; ++i) agree(cluster_kernel(rng));
  for (int i = 0; i < 40; ++i) agree(pipeline_kernel(rng));
  for (int i = 0; i < 100; ++i) agree(async_kernel(rng));
  for (int i = 0; i < 60; ++i) agree(async_pipeline(rng));
  for (int i = 0; i < 60; ++i) agree(misc_kernel(rng));
  for (int i = 0; i < 30; ++i) agree(amd_kernel(rng));
  for (int i = 0; i < 40; ++i) agree(tmem_kernel(rng));
  for (int i = 0; i < 40; ++i) agree(clc_kernel(rng));
  for (int i = 0; i < 40; ++i) agree(layout_kernel(rng));
  for (int i = 0; i < 40; ++i) agree(warp_kernel(rng));
  // The other searches: no reduction, no partial-order reduction, the
  // reduction checked as it runs, and warnings as violations.
  check::Options none, no_por, checked, strict;
  none.reduction = false;
  no_por.partial_order = false;
  checked.check_reduction = true;
  strict.strict = true;
  for (int i = 0; i < 30; ++i) agree(pipeline_kernel(rng), none);
  for (int i = 0; i < 30; ++i) agree(async_kernel(rng), no_por);
  for (int i = 0; i < 30; ++i) agree(async_pipeline(rng), checked);
  for (int i = 0; i < 30; ++i) agree(cluster_kernel(rng), strict);
  for (int i = 0; i < 40; ++i) agree(either_kernel(rng));  // an agent's second way (Model::mover)
  MESSAGE(compared << " generated kernels alike with 1, 2 and 4 threads, " << violations << " of them with a violation; "
                   << tier::sample_text());
  CHECK(compared > tier::sample().scaled(400));
  CHECK(violations > tier::sample().scaled(100));
  CHECK(compared - violations > tier::sample().scaled(50));
}

TEST_CASE("threads: symmetric agents and a large level") {
  // Interchangeable consumers (symmetry) and levels of thousands of states,
  // the default hand-over size included.
  const std::string text = testgen::four_consumers(6);
  const dsl::Parsed p = dsl::parse(text, "sym.bk");
  REQUIRE(p.ok());
  for (bool reduction : {true, false}) {
    CAPTURE(reduction);
    check::Options o;
    o.reduction = reduction;
    const check::Result one = run(p.kernel, 1, o);
    CHECK(one.verdict == check::Verdict::verified);
    for (unsigned n : {2u, 3u, 4u}) {
      CAPTURE(n);
      same_result(one, run(p.kernel, n, o));
      check::Options d = o;
      d.threads = n;  // the default hand-over size
      same_result(one, check::check(p.kernel, d));
    }
  }
}

TEST_CASE("threads: limits stop every thread, inconclusive") {
  std::string src;
  const dsl::Parsed p = dsl::parse_file(std::string(PC_SOURCE_DIR) + "/kernels/per_warp_mbarrier_tma.bk", src,
                                        {{"WARPS", 6}});
  REQUIRE(p.ok());
  check::Options o;
  o.reduction = false;
  o.max_states = 20'000;
  o.threads = 4;
  check::Result r = check::check(p.kernel, o);
  CHECK(r.verdict == check::Verdict::inconclusive);
  CHECK(r.inconclusive_reason == "max-states");
  CHECK(r.states < 200'000);
  o.max_states = 50'000'000;
  o.max_memory_mb = 1;
  r = check::check(p.kernel, o);
  CHECK(r.verdict == check::Verdict::inconclusive);
  CHECK(r.inconclusive_reason == "max-memory");
  o.max_memory_mb = 8192;
  o.timeout_s = 0.2;
  const auto t0 = std::chrono::steady_clock::now();
  r = check::check(p.kernel, o);
  CHECK(r.verdict == check::Verdict::inconclusive);
  CHECK(r.inconclusive_reason == "timeout");
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 5);
}
