// Each reduction reduces: a floor on what it removes on named kernels. The
// comparison tests (checker_por_test.cpp, checker_step_cache_test.cpp,
// corpus_test.cpp) show that a reduction keeps every verdict, which a
// reduction that removes nothing does too: these floors fail when one stops
// working. Each floor is half of what the reduction removed on the date of its
// comment
// (the message prints today's figure): with r the states without it over
// the states with it, the floor is 1 + (r - 1) / 2; for the step cache, half
// the share of steps it answered for. A small change of the model passes; a
// reduction turned off does not. They run in the corpus process (their names
// start with "corpus"), whose searches with every reduction they share.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "checker/explore.hpp"
#include "tests/corpus_searches.hpp"
#include "tests/kernel_generators.hpp"

using namespace pc;

namespace {

const corpus::Kernel& named(const std::string& name) {
  const corpus::Kernel& k = corpus::kernel(std::string(PC_SOURCE_DIR) + "/kernels/" + name);
  REQUIRE(k.parsed.ok());
  return k;
}

std::string short_name(const corpus::Kernel& k) { return k.file.substr(k.file.find("kernels/")); }

// The states of the search with every reduction but the one `off` turns off,
// over those of the search with every reduction: both must finish, with one
// outcome.
template <class Off>
double ratio(const corpus::Kernel& k, Off&& off, bool partial_order = true) {
  check::Options all;
  all.threads = 1;
  all.partial_order = partial_order;
  check::Options without = all;
  off(without);
  const check::Result &a = corpus::search(k, all), &b = corpus::search(k, without);
  REQUIRE(a.verdict != check::Verdict::inconclusive);
  REQUIRE(b.verdict != check::Verdict::inconclusive);
  CHECK(check::outcome_name(a) == check::outcome_name(b));
  const double r = static_cast<double>(b.states) / static_cast<double>(a.states);
  MESSAGE(short_name(k) << ": " << b.states << " states without it, " << a.states << " with it (" << r << "x)");
  return r;
}

void no_por(check::Options& o) { o.partial_order = false; }
void no_symmetry(check::Options& o) { o.symmetry = false; }
void no_private_steps(check::Options& o) { o.private_steps = false; }

}  // namespace

// Measured on 2026-12-05 (arrivals from outside the set bounded by the
// runs, checker/phase_bound.hpp): 20.2x, 31.0x, 77.3x, 198x, 26.5x
// (on 2026-12-03: 5.47x, 21.5x, 1.72x, 58.8x, 6.68x).
TEST_CASE("corpus: each reduction reduces: partial order") {
  CHECK(ratio(named("field/cutlass_sm100_mixed_tma_cpasync.bk"), no_por) >= 10.6);
  CHECK(ratio(named("field/cutlass_sm90_tma_ws_multicast.bk"), no_por) >= 16.0);
  CHECK(ratio(named("per_warp_mbarrier_tma.bk"), no_por) >= 39.1);
  CHECK(ratio(named("field/deepgemm_sm100_bf16_2cta.bk"), no_por) >= 99.4);
  CHECK(ratio(named("field/cutlass_sm100_2sm_umma.bk"), no_por) >= 13.7);
}

// Measured on 2026-12-07: 14.7x (the st.async stores' sync objects numbered
// by issue: 1.47x before) and 138x (the launch-control responses of a
// request in the set with the seed and the pair's second tcgen05.alloc
// half a read of the allocation: 78.8x before, 17.8x with neither change).
TEST_CASE("corpus: each reduction reduces: partial order, async arrivals and launch control") {
  CHECK(ratio(named("field/quack_rmsnorm_bwd_stas_dsmem.bk"), no_por) >= 7.8);
  CHECK(ratio(named("field/cutlass_sm100_clc_gemm.bk"), no_por) >= 69.5);
}

// Symmetry is measured with the partial-order reduction off, so that a
// stronger one does not hide it (the arrivals of interchangeable consumers
// commute since 2026-12-05: with it on, symmetry removed 1.5x on the first
// kernel below). Measured on 2026-12-05: 10.7x, 1.54x.
TEST_CASE("corpus: each reduction reduces: symmetry") {
  const std::string text = testgen::four_consumers(4);
  const dsl::Parsed p = dsl::parse(text, "sym.bk");
  REQUIRE(p.ok());
  check::Options all, without;
  all.threads = without.threads = 1;
  all.partial_order = without.partial_order = false;
  without.symmetry = false;
  const check::Result a = check::check(p.kernel, all), b = check::check(p.kernel, without);
  CHECK(a.verdict == check::Verdict::verified);
  CHECK(b.verdict == check::Verdict::verified);
  const double r = static_cast<double>(b.states) / static_cast<double>(a.states);
  MESSAGE("four interchangeable consumers: " << b.states << " states without symmetry, " << a.states << " with it (" << r << "x)");
  CHECK(r >= 5.8);
  CHECK(ratio(named("bugs/arrive_count_depends_on_consumers.bk"), no_symmetry, false) >= 1.2);
}

// Measured: 1.76x, 1.83x, 1.98x.
TEST_CASE("corpus: each reduction reduces: local steps") {
  CHECK(ratio(named("tlx_ws_gemm_hopper.bk"), no_private_steps) >= 1.38);
  CHECK(ratio(named("field/fa3_fwd_pingpong.bk"), no_private_steps) >= 1.41);
  CHECK(ratio(named("amd_lds_gather_pipeline.bk"), no_private_steps) >= 1.49);
}

// Measured on 2026-12-03: 0.132, 0.225, 0.200 of the steps; on 2026-12-05
// 0.039 on the first (the partial-order reduction takes fewer steps there);
// on 2026-12-06 0.070 on the first, 0.314 on fast.cu's kernel 4, 0.126 on
// the third. block_mbarrier_tma (0.225) reuses none since its __syncthreads
// got the named-slot bounds (31 states, 78 steps).
TEST_CASE("corpus: each reduction reduces: the step cache") {
  const std::pair<const char*, double> floors[] = {{"tlx_ws_gemm_hopper.bk", 0.019},
                                                   {"field/fastcu_matmul4_barrier_tokens.bk", 0.15},
                                                   {"field/cutlass_sm100_mixed_tma_cpasync.bk", 0.10}};
  for (const auto& [name, floor] : floors) {
    const corpus::Kernel& k = named(name);
    check::Options o;
    o.threads = 1;
    const check::Result& r = corpus::search(k, o);
    REQUIRE(r.transitions > 0);
    const double share = static_cast<double>(r.step_cache_hits) / static_cast<double>(r.transitions);
    MESSAGE(short_name(k) << ": " << r.step_cache_hits << " of " << r.transitions << " steps reused (" << share << ")");
    CHECK(share >= floor);
  }
}
