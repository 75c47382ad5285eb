// The compact layout of async units (spec::hb::AgentThreads::unit_at): an
// agent gets a thread of happens-before only for the async units its code
// makes accesses by (check::instantiate), where a kernel needs more than
// the model's 128 threads with all five per agent; the others are one
// spare thread. A thread that makes no access orders nothing and races
// with nothing, so states that differ only in those threads' bits behave
// alike, and the compact layout, which makes them one, keeps every
// outcome: the same outcome and shortest trace as the whole layout on
// generated kernels of every async operation (ir::Kernel::units_compact
// forces it), never more states; and a kernel past 128 threads with all
// five is read.
#include <doctest/doctest.h>

#include <random>
#include <string>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/program.hpp"
#include "tests/kernel_generators.hpp"
#include "tests/tier.hpp"

using namespace pc;
using namespace pc::testgen;

namespace {

int drawn = 0;
int merged = 0;  // kernels whose compact search stored fewer states

// False where the kernel does not parse or is not drawn.
bool alike(const std::string& text, int& compared, int& violations) {
  dsl::Parsed p = dsl::parse(text, "gen.bk");
  if (!p.ok()) return false;
  if (!tier::sample().take(drawn++)) return false;
  CAPTURE(text);
  check::Options o;
  o.max_states = 2'000'000;
  check::Result whole, compact;
  try {
    whole = check::check(p.kernel, o);
  } catch (const check::KernelError&) {
    return false;  // past a capacity of the model, as the CLI refuses it
  }
  p.kernel.units_compact = true;
  compact = check::check(p.kernel, o);
  CHECK(check::outcome_name(compact) == check::outcome_name(whole));
  CHECK(compact.trace.size() == whole.trace.size());  // breadth-first: the same shortest schedule's length
  if (whole.verdict == check::Verdict::verified) CHECK(compact.states <= whole.states);
  merged += compact.states < whole.states;
  ++compared;
  violations += whole.verdict == check::Verdict::violation;
  return true;
}

}  // namespace

TEST_CASE("async units: the compact layout gives the whole layout's verdicts and states on generated kernels") {
  std::mt19937 rng(20261207);
  int compared = 0, violations = 0;
  for (int i = 0; i < 200; ++i) alike(async_kernel(rng), compared, violations);
  for (int i = 0; i < 100; ++i) alike(async_pipeline(rng), compared, violations);
  for (int i = 0; i < 100; ++i) alike(cluster_kernel(rng), compared, violations);
  for (int i = 0; i < 100; ++i) alike(misc_kernel(rng), compared, violations);
  for (int i = 0; i < 100; ++i) alike(tmem_kernel(rng), compared, violations);
  for (int i = 0; i < 60; ++i) alike(tmem_pair_kernel(rng), compared, violations);
  for (int i = 0; i < 60; ++i) alike(clc_kernel(rng), compared, violations);
  for (int i = 0; i < 60; ++i) alike(wgmma_warp_kernel(rng), compared, violations);
  for (int i = 0; i < 60; ++i) alike(amd_kernel(rng), compared, violations);
  for (int i = 0; i < 60; ++i) alike(layout_kernel(rng), compared, violations);
  for (int i = 0; i < 60; ++i) alike(tensormap_kernel(rng), compared, violations);
  MESSAGE(compared << " generated kernels compared, " << violations << " with a violation, " << merged
                   << " with fewer states compact; " << tier::sample_text());
  CHECK(compared > tier::sample().scaled(700));
  CHECK(violations > tier::sample().scaled(200));
  CHECK(compared - violations > tier::sample().scaled(50));
}

TEST_CASE("async units: a kernel past 128 threads with every unit is read with the units it uses") {
  // Two CTAs of a producer warp and eleven consumer warps, each consumer
  // its own role (19 warps, 24 agents' worth of lane classes and units: 168
  // threads with all five units each, 51 with the ones they use).
  std::string k = "kernel many\ncluster 2\nsmem tile bytes 1024\nmbarrier full\n";
  k += "role producer warp:\n  one: init full count 1\n  one: fence_mbarrier_init\n  cluster_sync\n"
       "  one: arrive_expect_tx full bytes 1024\n  one: tma_load tile -> full\n";
  for (int w = 0; w < 11; ++w) k += "role c" + std::to_string(w) + " warp:\n  cluster_sync\n  wait full parity 0\n  all: read tile\n";
  const dsl::Parsed p = dsl::parse(k, "many.bk");
  REQUIRE(p.ok());
  const check::Result r = check::check(p.kernel, {});
  CHECK(check::outcome_name(r) == "verified");
  // A consumer that reads before its wait: the race is found in this layout too.
  std::string bug = k;
  bug.replace(bug.rfind("  wait full parity 0\n  all: read tile\n"), 38, "  all: read tile\n  wait full parity 0\n");
  const dsl::Parsed b = dsl::parse(bug, "many.bk");
  REQUIRE(b.ok());
  CHECK(check::outcome_name(check::check(b.kernel, {})) == "data_race");
}
