// The step cache (checker/step_cache.hpp) changes no result: over the corpus
// and over generated kernels the search with it, every reused step taken
// again and compared (--check-step-cache: an InternalError where one
// differs), gives what the search without it gives: the verdict and kind,
// the states and transitions, the replay token, the unreached statements.
// And the cache is used: the searches reuse steps. Under the sanitizers the
// corpus searches stop at 5,000 states and one generated kernel in
// compared_stride is compared.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/program.hpp"
#include "checker/step_cache.hpp"
#include "tests/cli_support.hpp"
#include "tests/corpus_files.hpp"
#include "tests/kernel_generators.hpp"

using namespace pc;
using namespace pc::testgen;

namespace {

// The states each corpus search may store: every kernel in full but the
// largest; under the sanitizers (which look for memory errors, not
// verdicts) fewer.
#ifdef PC_SANITIZED
constexpr std::uint64_t corpus_cap = 5'000;
#else
constexpr std::uint64_t corpus_cap = 100'000;
#endif

struct Totals {
  std::uint64_t transitions = 0, hits = 0;
  int compared = 0;
};

std::vector<int> unreached_lines(const check::Result& r) {
  std::vector<int> out;
  for (const check::Unreached& u : r.unreached) out.push_back(u.loc.line);
  return out;
}

// One kernel, with and without the cache, with every reduction and with none.
void same_with_and_without(const ir::Kernel& k, std::uint64_t cap, Totals& t) {
  for (const bool reduction : {true, false}) {
    CAPTURE(reduction);
    check::Options with;
    with.reduction = reduction;
    with.threads = 1;
    with.max_states = cap;
    with.check_step_cache = true;
    check::Options without = with;
    without.step_cache = false;
    without.check_step_cache = false;
    const check::Result a = check::check(k, with), b = check::check(k, without);
    CHECK(a.verdict == b.verdict);
    CHECK(check::outcome_name(a) == check::outcome_name(b));
    CHECK(a.states == b.states);
    CHECK(a.transitions == b.transitions);
    CHECK(a.replay == b.replay);
    CHECK(a.trace.size() == b.trace.size());
    CHECK(unreached_lines(a) == unreached_lines(b));
    CHECK(b.step_cache_hits == 0);
    t.transitions += a.transitions;
    t.hits += a.step_cache_hits;
    ++t.compared;
  }
}

int drawn = 0;

// False if the text does not parse or the model refuses it.
bool compare(const std::string& text, Totals& t) {
  CAPTURE(text);
  const dsl::Parsed p = dsl::parse(text, "gen.bk");
  if (!p.ok()) return false;
  if (drawn++ % compared_stride != 0) return true;
  try {
    same_with_and_without(p.kernel, 200'000, t);
  } catch (const check::KernelError&) {
    return false;
  }
  return true;
}

}  // namespace

TEST_CASE("step cache: the corpus gives the same results with it, every reused step checked") {
  Totals t;
  for (const std::string& file : corpus_files()) {
    CAPTURE(file);
    std::string src;
    const dsl::Parsed p = dsl::parse_file(file, src);
    REQUIRE(p.ok());
    same_with_and_without(p.kernel, corpus_cap, t);
  }
  // On kernels whose memory events enter the key the cache soon turns
  // itself off; on the rest it answers for many steps, each checked.
  MESSAGE(t.compared << " corpus searches: " << t.hits << " of " << t.transitions << " transitions' steps reused");
  CHECK(t.hits > 20'000);
}

TEST_CASE("step cache: generated kernels give the same results with it, every reused step checked") {
  std::mt19937 rng(20261129);
  Totals t;
  int parsed = 0;
  for (int i = 0; i < 150; ++i) parsed += compare(random_kernel(rng), t);
  for (int i = 0; i < 100; ++i) parsed += compare(pipeline_kernel(rng), t);
  for (int i = 0; i < 300; ++i) parsed += compare(async_kernel(rng), t);
  for (int i = 0; i < 150; ++i) parsed += compare(async_pipeline(rng), t);
  for (int i = 0; i < 150; ++i) parsed += compare(misc_kernel(rng), t);
  for (int i = 0; i < 100; ++i) parsed += compare(cluster_kernel(rng), t);
  for (int i = 0; i < 100; ++i) parsed += compare(amd_kernel(rng), t);
  for (int i = 0; i < 100; ++i) parsed += compare(tmem_kernel(rng), t);
  for (int i = 0; i < 100; ++i) parsed += compare(tmem_pair_kernel(rng), t);
  for (int i = 0; i < 100; ++i) parsed += compare(clc_kernel(rng), t);
  for (int i = 0; i < 100; ++i) parsed += compare(warp_kernel(rng), t);
  for (int i = 0; i < 100; ++i) parsed += compare(wgmma_warp_kernel(rng), t);
  MESSAGE(parsed << " generated kernels parsed, " << t.compared << " searches compared: " << t.hits << " of " << t.transitions
                 << " transitions' steps reused");
  CHECK(parsed > 1200);
  CHECK(t.hits > t.transitions / 10);
}

TEST_CASE("step cache: an outcome is found only for the same agent, own part and shared parts") {
  check::StepCache c;
  const std::uint64_t own[3] = {1, 2, 3};
  const std::uint64_t other[3] = {1, 2, 4};
  const std::string shared = "shared parts", shared2 = "shared partz";
  c.begin(shared);
  CHECK(c.find(0, 7, own, 3) == nullptr);
  c.put(0, 7, own, 3, check::StepCache::Outcome{true, 11, 12});
  const check::StepCache::Outcome* o = c.find(0, 7, own, 3);
  REQUIRE(o != nullptr);
  CHECK(o->enabled);
  CHECK(o->agent_hash == 11);
  CHECK(o->shared_hash == 12);
  CHECK(c.find(1, 7, own, 3) == nullptr);    // another agent
  CHECK(c.find(0, 7, other, 3) == nullptr);  // another own part under the same hash
  CHECK(c.find(0, 7, own, 2) == nullptr);    // a shorter one
  c.begin(shared2);
  CHECK(c.find(0, 7, own, 3) == nullptr);  // other shared parts
  c.put(0, 7, own, 3, check::StepCache::Outcome{false, 0, 0});
  REQUIRE(c.find(0, 7, own, 3) != nullptr);
  CHECK_FALSE(c.find(0, 7, own, 3)->enabled);
  c.begin(shared);
  REQUIRE(c.find(0, 7, own, 3) != nullptr);  // the first shared parts again: the same number
  CHECK(c.find(0, 7, own, 3)->enabled);
  // Many outcomes: the table grows, and the cache starts afresh past 1,024
  // outcomes; each outcome found is the one put for its key, the one put
  // just before is found but where the cache started afresh between, and
  // one put 2,048 before is gone.
  std::uint64_t found = 0;
  for (std::uint64_t i = 1; i < 200'000; ++i) {
    const std::uint64_t mine[2] = {i, i * 3};
    c.put(static_cast<int>(i % 5), i, mine, 2, check::StepCache::Outcome{true, i, i + 1});
    const std::uint64_t before[2] = {i - 1, (i - 1) * 3};
    if (const check::StepCache::Outcome* x = c.find(static_cast<int>((i - 1) % 5), i - 1, before, 2)) {
      CHECK(x->agent_hash == i - 1);
      CHECK(x->shared_hash == i);
      ++found;
    }
  }
  CHECK(found > 199'000);
  CHECK(found < 199'999);
  const std::uint64_t old[2] = {200'000 - 2'048, (200'000 - 2'048) * 3};
  CHECK(c.find(static_cast<int>((200'000 - 2'048) % 5), 200'000 - 2'048, old, 2) == nullptr);
  // A cache that seldom finds turns itself off.
  check::StepCache d;
  d.begin(shared);
  for (std::uint64_t i = 0; i < 40'000; ++i) {
    const std::uint64_t mine[1] = {i};
    if (d.find(0, i, mine, 1) == nullptr) d.put(0, i, mine, 1, check::StepCache::Outcome{});
  }
  CHECK_FALSE(d.on());
  CHECK(d.hits() == 0);
}

TEST_CASE("step cache: --no-step-cache and --check-step-cache print what the default prints") {
  // The seconds a search took differ from run to run: left out.
  auto plain = [](const std::string& out) { return std::regex_replace(out, std::regex(", [0-9.]+ s\\)"), ")"); };
  const std::string kernels[] = {cli_support::good, cli_support::bad,
                                 cli_support::src + "/kernels/field/fa3_fwd_hdim64_3wg_bug_two_wg_scheduler.bk",
                                 cli_support::src + "/kernels/tlx_ws_gemm_hopper.bk"};
  for (const std::string& kernel : kernels) {
    CAPTURE(kernel);
    const cli_support::Run a = cli_support::run("step_cache", kernel);
    const cli_support::Run b = cli_support::run("step_cache", kernel + " --no-step-cache");
    const cli_support::Run c = cli_support::run("step_cache", kernel + " --check-step-cache");
    CHECK(a.status == b.status);
    CHECK(a.status == c.status);
    CHECK(a.status <= 1);
    CHECK(plain(a.out) == plain(b.out));
    CHECK(plain(a.out) == plain(c.out));
    CHECK(a.out.find(" states") != std::string::npos);
  }
}
