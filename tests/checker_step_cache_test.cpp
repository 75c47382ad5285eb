// The step cache (checker/step_cache.hpp) changes no result: over the corpus
// and over generated kernels the search with it, every reused step taken
// again and compared (--check-step-cache: an InternalError where one
// differs), gives what the search without it gives: the verdict and kind,
// the states and transitions, the replay token, the unreached statements.
// And the cache is used: the searches reuse steps. Under the sanitizers the
// corpus searches stop at 5,000 states; the tier decides which kernels are
// compared (tests/tier.hpp).
#include <cstring>
#include <doctest/doctest.h>

#include <cstdint>
#include <deque>
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
#include "tests/corpus_searches.hpp"
#include "tests/kernel_generators.hpp"
#include "tests/tier.hpp"

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
  std::uint64_t transitions = 0, hits = 0, from_bytes = 0;
  std::uint64_t largest = 0, largest_hits = 0;  // the search of the most transitions, and its steps reused
  int compared = 0;
};

std::vector<int> unreached_lines(const check::Result& r) {
  std::vector<int> out;
  for (const check::Unreached& u : r.unreached) out.push_back(u.loc.line);
  return out;
}

// One kernel, with and without the cache, with every reduction and with none:
// with the cache as the search runs it by default (a state whose every agent
// it answers for expanded from its bytes, its successors' bytes spliced),
// and with every reused step taken again and compared.
// `run` runs a search (check::check, or the corpus's shared searches).
template <class Run>
void same_with_and_without(Run&& run, std::uint64_t cap, Totals& t) {
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
    check::Options plain = with;
    plain.check_step_cache = false;
    const check::Result &a = run(with), &b = run(without), &c = run(plain);
    for (const check::Result* x : {&a, &c}) {
      CHECK(x->verdict == b.verdict);
      CHECK(check::outcome_name(*x) == check::outcome_name(b));
      CHECK(x->states == b.states);
      CHECK(x->transitions == b.transitions);
      CHECK(x->replay == b.replay);
      CHECK(x->trace.size() == b.trace.size());
      CHECK(unreached_lines(*x) == unreached_lines(b));
    }
    CHECK(b.step_cache_hits == 0);
    t.transitions += a.transitions;
    t.hits += a.step_cache_hits;
    if (a.transitions > t.largest) t.largest = a.transitions, t.largest_hits = a.step_cache_hits;
    t.from_bytes += c.step_cache_states;
    CHECK(a.step_cache_states == 0);  // every reused step checked: each state loaded
    ++t.compared;
  }
}

int drawn = 0;

// False if the text does not parse or the model refuses it.
bool compare(const std::string& text, Totals& t) {
  CAPTURE(text);
  const dsl::Parsed p = dsl::parse(text, "gen.bk");
  if (!p.ok()) return false;
  if (!tier::sample().take(drawn++)) return true;
  try {
    std::deque<check::Result> kept;  // a result's address stays valid as more are added
    same_with_and_without([&](const check::Options& o) -> const check::Result& { return kept.emplace_back(check::check(p.kernel, o)); }, 200'000, t);
  } catch (const check::KernelError&) {
    return false;
  }
  return true;
}

}  // namespace

// The corpus's kernels that the tier compares (tests/tier.hpp); the search
// with the cache as it runs by default is the corpus test's where it ends
// within the cap.
TEST_CASE("corpus: the step cache gives the same results with it, every reused step checked") {
  Totals t;
  for (const std::string& file : corpus_files()) {
    CAPTURE(file);
    const corpus::Kernel& k = corpus::kernel(file);
    REQUIRE(k.parsed.ok());
    if (!corpus::compared(k)) continue;
    same_with_and_without([&](const check::Options& o) -> const check::Result& { return corpus::search(k, o); }, corpus_cap, t);
  }
  // On kernels whose memory events enter the key the cache soon turns
  // itself off; on the rest it answers for many steps, each checked.
  MESSAGE(t.compared << " corpus searches: " << t.hits << " of " << t.transitions << " transitions' steps reused, "
                     << t.from_bytes << " states expanded from their bytes");
  // The sanitized CI tier compares the kernels of at most 5,000 states:
  // 12,299 steps reused and 422 states from their bytes on 2026-12-02.
  const bool few = tier::sanitized && tier::ci();
  CHECK(t.from_bytes > (few ? 200u : 1'000u));
  CHECK(t.hits > (few ? 6'000u : 20'000u));
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
  for (int i = 0; i < 100; ++i) parsed += compare(either_kernel(rng), t);  // the cache answers for an agent's first way only
  MESSAGE(parsed << " generated kernels parsed, " << t.compared << " searches compared: " << t.hits << " of " << t.transitions
                 << " transitions' steps reused, " << t.from_bytes << " states expanded from their bytes");
  // The sanitized CI tier's sample caps each search: 243 states from their
  // bytes at one rotating offset on 2026-12-02.
  CHECK(t.from_bytes > (tier::sanitized && tier::ci() ? 100u : 1'000u));
  CHECK(parsed > 1200);
  // A tenth of the steps reused over every kernel; half that share in a
  // rotating sample (tests/tier.hpp) without its largest search, which can
  // hold most of the transitions and few reused steps (6.7% with it at one
  // of the 8 offsets on 2026-12-02; 3.4% at ef3aef2's, 82,631 of 2,403,644,
  // once a warp group's wgmma no longer made a state of each order its
  // warps pass it in). The sanitized CI tier's sample (1 in 16) can be one
  // such kernel and little else (1.5% at def790a's offset: 18,421 of
  // 1,205,950): it looks for memory errors, and the floor is held by the
  // plain CI tier's sample and by both full tiers.
  if (!tier::sample().rotates) CHECK(t.hits > t.transitions / 10);
  else if (!(tier::sanitized && tier::ci())) CHECK(t.hits - t.largest_hits > (t.transitions - t.largest) / 20);
}

TEST_CASE("step cache: an outcome is found only for the same agent, own part and shared parts") {
  check::StepCache c;
  // Own parts as views into longer buffers, as they lie in a state's bytes
  // (its shared parts follow its agents'): find reads whole words.
  const std::string buf = "abcdefghijk" + std::string(16, 'x'), buf2 = "abcdefghijZ" + std::string(16, 'x');
  const std::string_view own(buf.data(), 11), other(buf2.data(), 11), shorter(buf.data(), 10);
  const std::string shared = "shared parts", shared2 = "shared partz", next = "the successor's shared parts";
  using Outcome = check::StepCache::Outcome;
  c.begin(shared);
  CHECK(c.pending() == check::StepCache::unknown);
  c.set_pending(0);
  CHECK(c.pending() == 0);
  CHECK_FALSE(c.find(0, own));
  c.put(0, own, Outcome{true, 7, 11, 12, "part", next}, 2);
  const check::StepCache::Kept o = c.find(0, own);
  REQUIRE(o);
  CHECK(o.enabled());
  CHECK(o.before() == 7);
  CHECK(o.agent_hash() == 11);
  CHECK(o.shared_hash() == 12);
  CHECK(o.part() == "part");
  CHECK(o.shared() == next);
  CHECK_FALSE(c.find(1, own));      // another agent
  CHECK_FALSE(c.find(0, other));    // another own part
  CHECK_FALSE(c.find(0, shorter));  // a shorter one
  // Own parts past one word and past two (the bytes past the second word
  // kept apart): every byte is compared, and the length.
  const std::string long_buf = "0123456789abcdefghij" + std::string(16, 'x');
  std::string far_off = long_buf, near_off = long_buf;
  far_off[18] = 'Z';
  near_off[9] = 'Z';
  const std::string_view longer(long_buf.data(), 20), mid(long_buf.data(), 12);
  c.put(2, longer, Outcome{true, 1, 2, 3, "long", next}, 2);
  c.put(2, mid, Outcome{true, 4, 5, 6, "mid", next}, 2);
  REQUIRE(c.find(2, longer));
  CHECK(c.find(2, longer).part() == "long");
  CHECK(c.find(2, longer).agent_hash() == 2);
  REQUIRE(c.find(2, mid));
  CHECK(c.find(2, mid).part() == "mid");
  CHECK_FALSE(c.find(2, std::string_view(far_off.data(), 20)));
  CHECK_FALSE(c.find(2, std::string_view(near_off.data(), 12)));
  CHECK_FALSE(c.find(2, std::string_view(long_buf.data(), 19)));
  CHECK_FALSE(c.find(2, std::string_view(long_buf.data(), 21)));
  c.begin(next);
  CHECK(c.pending() == 2);  // the successor's, told as it was kept
  c.begin(shared2);
  CHECK_FALSE(c.find(0, own));  // other shared parts
  c.put(0, own, Outcome{false, 7, 0, 0, {}, {}}, 0);
  REQUIRE(c.find(0, own));
  CHECK_FALSE(c.find(0, own).enabled());
  c.begin(shared);
  REQUIRE(c.find(0, own));  // the first shared parts again: the same number
  CHECK(c.find(0, own).enabled());
  CHECK(c.pending() == 0);
  // Many outcomes: the table grows, and the cache starts afresh past 1,024
  // outcomes; each outcome found is the one put for its key, the one put
  // just before is found but where the cache started afresh between, and
  // one put 2,048 before is gone.
  auto key = [](std::uint64_t i) {
    std::string k(24, '\0');
    const std::uint64_t w[2] = {i, i * 3};
    std::memcpy(k.data(), w, 16);
    return k;
  };
  std::uint64_t found = 0;
  for (std::uint64_t i = 1; i < 200'000; ++i) {
    const std::string mine = key(i), before = key(i - 1);
    c.put(static_cast<int>(i % 5), std::string_view(mine.data(), 16), Outcome{true, i, i, i + 1, "p", next}, 0);
    if (const check::StepCache::Kept x = c.find(static_cast<int>((i - 1) % 5), std::string_view(before.data(), 16))) {
      CHECK(x.agent_hash() == i - 1);
      CHECK(x.shared_hash() == i);
      CHECK(x.part() == "p");
      CHECK(x.shared() == next);
      ++found;
    }
  }
  CHECK(found > 199'000);
  CHECK(found < 199'999);
  const std::string old = key(200'000 - 2'048);
  CHECK_FALSE(c.find(static_cast<int>((200'000 - 2'048) % 5), std::string_view(old.data(), 16)));
  // A cache that seldom finds turns itself off.
  check::StepCache d;
  d.begin(shared);
  for (std::uint64_t i = 0; i < 40'000; ++i) {
    const std::string mine = key(i);
    const check::StepCache::Kept x = d.find(0, std::string_view(mine.data(), 16));
    d.tally(1, static_cast<bool>(x));
    if (!x) d.put(0, std::string_view(mine.data(), 16), Outcome{}, 0);
  }
  CHECK_FALSE(d.on());
  CHECK(d.hits() == 0);
  CHECK(d.lookups() == 40'000);
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
