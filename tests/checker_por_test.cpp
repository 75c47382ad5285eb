// The partial-order reduction between agents (checker/footprint.hpp) keeps
// verdicts: over the corpus and over generated kernels, the search with it
// finds a violation exactly when the search without it does (and the same
// kind on the corpus, whose kernels hold one bug each), and it never stores
// more states.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"

using namespace pc;

namespace {

std::string outcome(const check::Result& r) {
  if (r.verdict == check::Verdict::verified) return "verified";
  if (r.verdict == check::Verdict::inconclusive) return "inconclusive";
  return std::string(spec::violation_name(r.violation));
}

check::Result run(const ir::Kernel& k, bool partial_order) {
  check::Options o;
  o.partial_order = partial_order;
  o.max_states = 2'000'000;
  return check::check(k, o);
}

// A random kernel: two CTAs' worth of objects in one CTA, three roles, each a
// short sequence of operations on two mbarriers and two buffers, some in a
// loop. Most are wrong in some way; what matters is that both searches agree.
std::string random_kernel(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  std::string k = "kernel gen\nsmem a[1] bytes 256\nsmem b[1] bytes 256\n";
  k += "mbarrier m[2] count " + std::to_string(1 + pick(2)) + "\n";
  k += "mbarrier n[1] count 1\n";
  const char* bars[] = {"m[0]", "m[1]", "n[0]"};
  const char* bufs[] = {"a[0]", "b[0]"};
  for (int r = 0; r < 3; ++r) {
    k += "role r" + std::to_string(r) + " warp:\n";
    const bool loop = pick(3) == 0;
    const std::string ind = loop ? "    " : "  ";
    if (loop) k += "  for i in 0..2:\n";
    const int ops = 2 + pick(3);
    for (int i = 0; i < ops; ++i) {
      const std::string bar = bars[pick(3)], buf = bufs[pick(2)];
      switch (pick(9)) {
        case 0: k += ind + "one: arrive " + bar + "\n"; break;
        case 1: k += ind + "wait " + bar + " parity " + std::to_string(pick(2)) + "\n"; break;
        case 2: k += ind + "one: write " + buf + "\n"; break;
        case 3: k += ind + "all: read " + buf + "\n"; break;
        case 4: k += ind + "one: arrive_expect_tx " + bar + " bytes 256\n"; break;
        case 5: k += ind + "one: tma_load " + buf + " -> " + bar + "\n"; break;
        case 6: k += ind + "bar_sync 1, 64\n"; break;
        case 7: k += ind + "syncwarp\n"; break;
        default: k += ind + "one: tma_store " + buf + "\n"; break;
      }
    }
  }
  return k;
}

// A kernel of mostly independent roles, so that many verify: role r works on
// its own buffer o[r], arrives once on its own barrier m[r], and may wait for
// role r-1's barrier and then read role r-1's buffer (a race when r-1 writes
// it again after arriving).
std::string chained_kernel(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  std::string k = "kernel chain\nsmem o[3] bytes 256\nmbarrier m[3] count 1\n";
  for (int r = 0; r < 3; ++r) {
    const std::string me = std::to_string(r), prev = std::to_string(r - 1);
    k += "role r" + me + " warp:\n";
    const int ops = 2 + pick(4), arrive_at = pick(ops + 1), wait_at = r > 0 && pick(2) ? pick(ops + 1) : -1;
    for (int i = 0; i <= ops; ++i) {
      if (i == wait_at) k += "  wait m[" + prev + "] parity 0\n  one: read o[" + prev + "]\n";
      if (i == arrive_at) k += "  one: arrive m[" + me + "]\n";
      if (i == ops) break;
      switch (pick(4)) {
        case 0: k += "  one: write o[" + me + "]\n"; break;
        case 1: k += "  one: read o[" + me + "]\n"; break;
        case 2: k += "  syncwarp\n"; break;
        default: k += "  fence_proxy_async\n"; break;
      }
    }
  }
  return k;
}

void agree(const std::string& text, int& violations, int& verified, int& reduced) {
  CAPTURE(text);
  const dsl::Parsed p = dsl::parse(text, "gen.bk");
  if (!p.ok()) return;  // e.g. a named barrier count the roles cannot fill
  const check::Result a = run(p.kernel, true), b = run(p.kernel, false);
  REQUIRE(a.verdict != check::Verdict::inconclusive);
  CHECK(a.verdict == b.verdict);
  // A search for a violation stops at the first one, which the two searches
  // may reach at different depths; a complete search must store no more.
  if (a.verdict == check::Verdict::verified) CHECK(a.states <= b.states);
  (a.verdict == check::Verdict::violation ? violations : verified) += 1;
  reduced += a.verdict == check::Verdict::verified && a.states < b.states;
}

}  // namespace

TEST_CASE("partial-order reduction: the corpus keeps its verdicts and violation kinds") {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(std::string(PC_SOURCE_DIR) + "/kernels"))
    if (e.is_regular_file() && e.path().extension() == ".bk") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  std::uint64_t with = 0, without = 0;
  for (const std::string& file : files) {
    CAPTURE(file);
    std::string src;
    const dsl::Parsed p = dsl::parse_file(file, src);
    REQUIRE(p.ok());
    const check::Result a = run(p.kernel, true), b = run(p.kernel, false);
    CHECK(outcome(a) == outcome(b));
    CHECK(a.states <= b.states);
    with += a.states;
    without += b.states;
  }
  MESSAGE("corpus states with partial-order reduction: " << with << ", without: " << without);
}

TEST_CASE("partial-order reduction: generated kernels, a violation found with it exactly when without it") {
  std::mt19937 rng(20261122);
  int violations = 0, verified = 0, reduced = 0;
  for (int i = 0; i < 400; ++i) agree(random_kernel(rng), violations, verified, reduced);
  for (int i = 0; i < 300; ++i) agree(chained_kernel(rng), violations, verified, reduced);
  MESSAGE(violations << " generated kernels with a violation, " << verified << " verified (" << reduced
                     << " of them with fewer states under the reduction)");
  CHECK(violations > 100);
  CHECK(verified > 100);
  CHECK(reduced > 50);
}
