// --prove (docs/checker.md, "Every trip count"): the corpus pipelines are
// verified for every trip count; a bug that needs several trips is caught
// at its trip count and shown by the explicit search there; every barrier
// mutant of two pipelines gets from the one search what the explicit search
// gets at trip counts 1 to 8; stepping a state and stepping its key state
// give successors of one key; what the proof cannot cover is named.
#include <doctest/doctest.h>

#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/model.hpp"
#include "checker/reduce/trips.hpp"
#include "checker/trips.hpp"
#include "checker/smt/trips.hpp"
#include "checker/successors.hpp"
#include "tests/cli_support.hpp"
#include "tests/tier.hpp"

using namespace pc;
using namespace cli_support;

namespace {

std::string source(const std::string& file) { return slurp(std::string(PC_SOURCE_DIR) + "/" + file); }

using Values = std::vector<std::pair<std::string, std::int64_t>>;

dsl::Parsed parsed(const std::string& text, const Values& values = {}) {
  dsl::Parsed p = dsl::parse(text, "prove.bk", values);
  REQUIRE_MESSAGE(p.ok(), (p.ok() ? "" : p.errors[0].message));
  return p;
}

// The search for every value of `param`, or the reason it is not covered.
struct Proved {
  std::string reason;
  check::Result r;
};
Proved prove(const ir::Kernel& k, const std::string& param, unsigned threads = 1) {
  Proved out;
  const smt::TripProof tp = smt::prove_trips(k, param);
  if (!tp.shift) {
    out.reason = tp.reason;
    return out;
  }
  check::Options o;
  o.trips = tp.shift;
  o.threads = threads;
  out.r = check::check(k, o);
  return out;
}

std::string outcome_at(const std::string& text, const std::string& param, std::int64_t n) {
  check::Options o;
  o.threads = 1;
  return check::outcome_name(check::check(parsed(text, {{param, n}}).kernel, o));
}

// The loop shapes of real kernels (issue 57, item 4): a loop flattened over
// 2 * N, run by one instance of a role (`if instance == 0:`), and a release
// guarded by a comparison with N inside the loop (the last two stages are
// not released: the producer needs no more).
const std::string shapes =
    "kernel shapes\nparam N = 3 in 1..64\nsmem buf[2] bytes 64\nmbarrier full[2] count 1\nmbarrier empty[2] count 1\n"
    "role producer warp x2:\n  if instance == 0:\n    for i in 0 .. 2 * N:\n      wait empty[i % 2] parity (i / 2 + 1) % 2\n"
    "      one: write buf[i % 2]\n      one: arrive full[i % 2]\n"
    "role consumer warp:\n  for i in 0 .. 2 * N:\n    wait full[i % 2] parity (i / 2) % 2\n    one: read buf[i % 2]\n"
    "    if i + 2 < 2 * N:\n      one: arrive empty[i % 2]\n";

// A ring indexed by k * 2 + i, i an inner loop's variable from 0: the
// proof takes i >= 0 (a loop variable set only by loops from constants at
// or above 0), without which `(k * 2 + i) % 2` is not periodic (a negative
// remainder).
const std::string inner =
    "kernel inner\nparam N = 3 in 1..64\nsmem buf[2] bytes 64\nmbarrier full[2] count 1\nmbarrier empty[2] count 1\n"
    "role producer warp:\n  for k in 0 .. N:\n    for i in 0 .. 2:\n"
    "      wait empty[(k * 2 + i) % 2] parity ((k * 2 + i) / 2 + 1) % 2\n"
    "      one: write buf[(k * 2 + i) % 2]\n      one: arrive full[(k * 2 + i) % 2]\n"
    "role consumer warp:\n  for k in 0 .. N:\n    for i in 0 .. 2:\n"
    "      wait full[(k * 2 + i) % 2] parity ((k * 2 + i) / 2) % 2\n"
    "      one: read buf[(k * 2 + i) % 2]\n      one: arrive empty[(k * 2 + i) % 2]\n";

// Nested loops (issue 57, item 4): a persistent kernel's tile loop around
// its k loop over N. The ring runs on across tiles (g = t * N + k: N's
// class), the consumer releases the previous stage after it reads one (the
// release reads g - 1 under `if k > 0`) and the last after the tile, then
// writes its output; the producer's tail after its tile loop waits for the
// last releases (g = TILES * N + c).
const std::string nested =
    "kernel nested\nparam N = 3 in 1..64\nparam TILES = 2\nsmem buf[2] bytes 64\nsmem out[1] bytes 64\n"
    "mbarrier full[2] count 1\nmbarrier empty[2] count 1\n"
    "role producer warp:\n  for t in 0 .. TILES:\n    base = t * N\n    for k in 0 .. N:\n      g = base + k\n"
    "      wait empty[g % 2] parity (g / 2 + 1) % 2\n      one: write buf[g % 2]\n      one: arrive full[g % 2]\n"
    "  for c in 0 .. 2:\n    g = TILES * N + c\n    wait empty[g % 2] parity (g / 2 + 1) % 2\n"
    "role consumer warp:\n  for t in 0 .. TILES:\n    for k in 0 .. N:\n      g = t * N + k\n"
    "      wait full[g % 2] parity (g / 2) % 2\n      one: read buf[g % 2]\n      if k > 0:\n"
    "        one: arrive empty[(g - 1) % 2]\n    one: arrive empty[(t * N + N - 1) % 2]\n    one: write out[0]\n";

// The same with three tiles, a release guarded by a comparison with N in
// the loop (a gate in every pass) and the ring's stage and phase kept by a
// counter from 0 in each tile's code (s = (t * N + k) % 2 read once).
const std::string nested_gates =
    "kernel nested_gates\nparam N = 3 in 1..64\nsmem buf[2] bytes 64\n"
    "mbarrier full[2] count 1\nmbarrier empty[2] count 1\n"
    "role producer warp:\n  for t in 0 .. 3:\n    for k in 0 .. N:\n      g = t * N + k\n"
    "      wait empty[g % 2] parity (g / 2 + 1) % 2\n      one: write buf[g % 2]\n      one: arrive full[g % 2]\n"
    "role consumer warp:\n  for t in 0 .. 3:\n    for k in 0 .. N:\n      g = t * N + k\n"
    "      wait full[g % 2] parity (g / 2) % 2\n      one: read buf[g % 2]\n"
    "      if t < 2 || k + 2 < N:\n        one: arrive empty[g % 2]\n";

// A k loop over 2 * N in the tile loop (flattened over a constant), the
// last tile's last release left out (a gate in every pass).
const std::string nested_scaled =
    "kernel nested_scaled\nparam N = 3 in 1..64\nsmem buf[2] bytes 64\nmbarrier full[2] count 1\nmbarrier empty[2] count 1\n"
    "role producer warp:\n  for t in 0 .. 2:\n    for k in 0 .. 2 * N:\n      g = t * 2 * N + k\n"
    "      wait empty[g % 2] parity (g / 2 + 1) % 2\n      one: write buf[g % 2]\n      one: arrive full[g % 2]\n"
    "role consumer warp:\n  for t in 0 .. 2:\n    for k in 0 .. 2 * N:\n      g = t * 2 * N + k\n"
    "      wait full[g % 2] parity (g / 2) % 2\n      one: read buf[g % 2]\n      if t < 1 || k + 1 < 2 * N:\n"
    "        one: arrive empty[g % 2]\n";

// CUTLASS's shape: the producer runs every tile's k blocks in one loop
// over 2 * N (the search runs it as 2 passes of N), the consumer a k loop
// in its tile loop; the producer's tail reads 2 * N + c.
const std::string nested_mixed =
    "kernel nested_mixed\nparam N = 3 in 1..64\nsmem buf[2] bytes 64\nmbarrier full[2] count 1\nmbarrier empty[2] count 1\n"
    "role producer warp:\n  for g in 0 .. 2 * N:\n    wait empty[g % 2] parity (g / 2 + 1) % 2\n    one: write buf[g % 2]\n"
    "    one: arrive full[g % 2]\n  for c in 0 .. 2:\n    g = 2 * N + c\n    wait empty[g % 2] parity (g / 2 + 1) % 2\n"
    "role consumer warp:\n  for t in 0 .. 2:\n    for k in 0 .. N:\n      g = t * N + k\n"
    "      wait full[g % 2] parity (g / 2) % 2\n      one: read buf[g % 2]\n      one: arrive empty[g % 2]\n";

// CUTLASS's sm100 tile scheduler: a pass runs its tile only while the last
// launch-control response said "a new tile" (`if valid == 1:`); the ring's
// base is the running tile count n (g = n * N + k), the producer's tail
// after the tile loop reads n * N + c. The tile loop's bound is a constant
// expression (the tiles launch control may give, and the first).
const std::string nested_clc =
    "kernel nested_clc\nparam N = 3 in 1..64\nparam CLC_LEFT = 2\nclc 1\nsmem buf[2] bytes 64\nsmem resp bytes 16\n"
    "mbarrier full[2] count 1\nmbarrier empty[2] count 1\nmbarrier cfull count 1\nmbarrier cempty count 64\n"
    "role producer warp:\n  valid = 1\n  n = 0\n  for t in 0 .. CLC_LEFT + 1:\n    if valid == 1:\n      for k in 0 .. N:\n"
    "        g = n * N + k\n        wait empty[g % 2] parity (g / 2 + 1) % 2\n        one: write buf[g % 2]\n"
    "        one: arrive full[g % 2]\n      one: wait cempty parity (n + 1) % 2\n      one: arrive_expect_tx cfull bytes 16\n"
    "      one: clc_try_cancel resp -> cfull\n      wait cfull parity n % 2\n      nv = clc_query resp\n      fence_proxy_async\n"
    "      arrive cempty\n      n = n + 1\n      valid = nv\n"
    "  for c in 0 .. 2:\n    g = n * N + c\n    wait empty[g % 2] parity (g / 2 + 1) % 2\n"
    "role consumer warp:\n  valid = 1\n  n = 0\n  for t in 0 .. CLC_LEFT + 1:\n    if valid == 1:\n      for k in 0 .. N:\n"
    "        g = n * N + k\n        wait full[g % 2] parity (g / 2) % 2\n        one: read buf[g % 2]\n"
    "        one: arrive empty[g % 2]\n      wait cfull parity n % 2\n      nv = clc_query resp\n      fence_proxy_async\n"
    "      arrive cempty\n      n = n + 1\n      valid = nv\n";

}  // namespace

TEST_CASE("prove: the corpus pipelines are verified for every trip count") {
  const std::pair<const char*, const char*> kernels[] = {
      {"kernels/tlx_ws_gemm_hopper.bk", "K_TILES"},
      {"kernels/tlx_producer_consumer.bk", "ITERS"},
      {"kernels/tlx_pingpong.bk", "ITERS"},
      {"kernels/field/cutlass_sm90_tma_ws_multicast.bk", "K_TILES"},
      // N read before and inside the trip loop, by comparisons (gates):
      {"kernels/field/triton_tma_matmul_barrier_reuse.bk", "K_TILES"},
      {"kernels/field/probe_parity_alias_named_barrier.bk", "ROUNDS"},
      // Nested loops: the k loop inside the work-tile loop, the ring's
      // stage from the tile's base (t * K_TILES + k).
      {"kernels/field/cutlass_sm90_grouped_gemm_tensormap.bk", "K_TILES"},
      {"kernels/field/fa3_fwd_pingpong.bk", "N_BLOCKS"},
  };
  for (const auto& [file, param] : kernels) {
    CAPTURE(file);
    const Proved p = prove(parsed(source(file)).kernel, param);
    CAPTURE(p.reason);
    REQUIRE(p.reason.empty());
    CHECK(p.r.verdict == check::Verdict::verified);
  }
}

TEST_CASE("prove: a loop over 2 * N run by one instance, with a release guarded by a comparison with N") {
  const Proved ok = prove(parsed(shapes).kernel, "N");
  CAPTURE(ok.reason);
  REQUIRE(ok.reason.empty());
  CHECK(ok.r.verdict == check::Verdict::verified);
  // Releasing one stage fewer deadlocks the producer from N = 2 on.
  std::string bug = shapes;
  bug.replace(bug.find("i + 2 < 2 * N"), 13, "i + 3 < 2 * N");
  const Proved p = prove(parsed(bug).kernel, "N");
  REQUIRE(p.reason.empty());
  REQUIRE(p.r.verdict == check::Verdict::violation);
  CHECK(check::outcome_name(p.r) == "deadlock");
  CHECK(p.r.trip_value == 2);
  CHECK(outcome_at(bug, "N", 2) == "deadlock");
  CHECK(outcome_at(bug, "N", 1) == "verified");
}

TEST_CASE("prove: 2-CTA GEMMs whose tile loop only CTA 0's MMA warp runs, for every TILES (full tier)") {
  if (tier::ci() || tier::sanitized) return;  // 4.1M and 2.3M states, about 30 s and 20 s
  // QuACK's cluster reduction: its producer tail's `t = ITERS + j` is dead
  // while the warps are in their loop (before, the key shifted it below 0).
  const Proved quack = prove(parsed(source("kernels/field/quack_rmsnorm_bwd_stas_dsmem.bk")).kernel, "ITERS", 2);
  CAPTURE(quack.reason);
  REQUIRE(quack.reason.empty());
  CHECK(quack.r.verdict == check::Verdict::verified);
  const Proved ok = prove(parsed(source("kernels/field/deepgemm_sm100_bf16_2cta.bk")).kernel, "TILES", 2);
  CAPTURE(ok.reason);
  REQUIRE(ok.reason.empty());
  CHECK(ok.r.verdict == check::Verdict::verified);
  for (const char* file : {"kernels/field/quack_rmsnorm_bwd_stas_dsmem_bug_expect_tx_local.bk",
                           "kernels/field/deepgemm_sm100_bf16_2cta_bug_dealloc_no_cluster_sync.bk",
                           "kernels/field/cutlass_sm100_2sm_umma_bug_no_dealloc_handshake.bk",
                           "kernels/field/cutlass_sm100_2sm_umma_bug_expect_tx_full_b.bk",
                           "kernels/field/cutlass_sm100_2sm_umma_bug_dealloc_init_unfenced.bk"}) {
    CAPTURE(file);
    const std::string text = source(file);
    const char* param = std::string(file).find("quack") != std::string::npos ? "ITERS" : "TILES";
    const Proved p = prove(parsed(text).kernel, param, 2);
    CAPTURE(p.reason);
    REQUIRE(p.reason.empty());
    REQUIRE(p.r.verdict == check::Verdict::violation);
    CHECK(outcome_at(text, param, p.r.trip_value) != "verified");
  }
}

TEST_CASE("prove: the k-block count of kernels whose k loop runs in their tile loop, and their bugs (full tier)") {
  if (tier::ci() || tier::sanitized) return;  // 2.7M, 1.8M, 10.0M and 2.1M states, about 45, 18, 140 and 15 s on one thread
  for (const auto& [file, param] : {std::pair{"kernels/field/deepgemm_sm100_bf16_2cta.bk", "K_BLOCKS"},
                                    // Its tile loop runs a tile while the last launch-control response says so.
                                    std::pair{"kernels/field/cutlass_sm100_clc_gemm.bk", "K_TILES"},
                                    std::pair{"kernels/field/fa3_fwd_hdim64_3wg.bk", "N_BLOCKS"},
                                    // Its load warp's one loop over every tile's k tiles runs as passes.
                                    std::pair{"kernels/field/cutlass_sm100_2sm_umma.bk", "K_TILES"}}) {
    CAPTURE(file);
    const Proved ok = prove(parsed(source(file)).kernel, param, 2);
    CAPTURE(ok.reason);
    REQUIRE(ok.reason.empty());
    CHECK(ok.r.verdict == check::Verdict::verified);
  }
  for (const auto& [file, param] :
       {std::pair{"kernels/field/cutlass_sm90_grouped_gemm_tensormap_bug_no_bulk_wait.bk", "K_TILES"},
        std::pair{"kernels/field/cutlass_sm90_grouped_gemm_tensormap_bug_stale_store_map.bk", "K_TILES"},
        std::pair{"kernels/field/deepgemm_sm100_fp8_1d1d_2cta_bug_release_before_wait_ld.bk", "K_BLOCKS"},
        std::pair{"kernels/field/deepgemm_sm90_fp8_1d2d_bug_expect_tx_local_only.bk", "K_BLOCKS"},
        std::pair{"kernels/field/fa3_fwd_hdim64_3wg_bug_two_wg_scheduler.bk", "N_BLOCKS"},
        std::pair{"kernels/field/fa3_fwd_pingpong_bug_no_barrier_o.bk", "N_BLOCKS"},
        std::pair{"kernels/field/cutlass_sm100_2sm_umma_bug_expect_tx_full_b.bk", "K_TILES"},
        std::pair{"kernels/field/cutlass_sm100_2sm_umma_bug_no_dealloc_handshake.bk", "K_TILES"},
        std::pair{"kernels/field/cutlass_sm100_clc_gemm_bug_no_fence_after_query.bk", "K_TILES"},
        std::pair{"kernels/field/cutlass_sm100_clc_gemm_bug_release_before_wait_ld.bk", "K_TILES"}}) {
    CAPTURE(file);
    const std::string text = source(file);
    const Proved p = prove(parsed(text).kernel, param, 2);
    CAPTURE(p.reason);
    REQUIRE(p.reason.empty());
    REQUIRE(p.r.verdict == check::Verdict::violation);
    CHECK(outcome_at(text, param, p.r.trip_value) != "verified");
  }
}

// A choice inside the trip loop (an `either`, docs/dsl.md "Choices"): its
// second way is a process after the trip oracle's two (Model::mover).
TEST_CASE("prove: a loop with a choice in it, each way taken on every trip") {
  const std::string ring =
      "kernel ring_choice\nparam N = 3 in 1..8\nsmem buf[1] bytes 64\nmbarrier full[1] count 1\nmbarrier empty[1] count 1\n"
      "role producer warp:\n  for k in 0 .. N:\n    wait empty[0] parity (k + 1) % 2\n    either:\n"
      "      one: write buf[0]\n      one: arrive full[0]\n    or:\n      one: write buf[0]\n      syncwarp\n"
      "      one: arrive full[0]\n"
      "role consumer warp:\n  for k in 0 .. N:\n    wait full[0] parity k % 2\n    all: read buf[0]\n    syncwarp\n"
      "    one: arrive empty[0]\n";
  const Proved ok = prove(parsed(ring).kernel, "N");
  CAPTURE(ok.reason);
  REQUIRE(ok.reason.empty());
  CHECK(ok.r.verdict == check::Verdict::verified);
  // The second way arrives before its write: a race from the first trip.
  std::string bug = ring;
  const std::string second = "      one: write buf[0]\n      syncwarp\n      one: arrive full[0]\n";
  bug.replace(bug.find(second), second.size(), "      one: arrive full[0]\n      one: write buf[0]\n");
  const Proved p = prove(parsed(bug).kernel, "N");
  REQUIRE(p.reason.empty());
  REQUIRE(p.r.verdict == check::Verdict::violation);
  CHECK(check::outcome_name(p.r) == "data_race");
  CHECK(outcome_at(bug, "N", 1) == "data_race");
}

TEST_CASE("prove: an inner loop's variable from a constant is at least that constant") {
  const Proved ok = prove(parsed(inner).kernel, "N");
  CAPTURE(ok.reason);
  REQUIRE(ok.reason.empty());
  CHECK(ok.r.verdict == check::Verdict::verified);
}

TEST_CASE("prove: a bug that needs several trips is caught at its trip count") {
  const std::string text = source("kernels/bugs/consumer_laps_producer.bk");
  const Proved p = prove(parsed(text).kernel, "ITERS");
  REQUIRE(p.reason.empty());
  REQUIRE(p.r.verdict == check::Verdict::violation);
  CHECK(check::outcome_name(p.r) == "data_race");
  REQUIRE(p.r.trip_value >= 1);
  // The schedule is a run at that trip count: the explicit search there fails.
  CHECK(outcome_at(text, "ITERS", p.r.trip_value) != "verified");
  // It needs more than one trip: at one trip the kernel verifies.
  CHECK(outcome_at(text, "ITERS", 1) == "verified");
}

namespace {

// Single-line mutants of the barrier statements of a role body (as
// harnesses/bench/checker/mutants.py makes them): the line deleted, a wait's
// parity flipped, a barrier's index made 0.
std::vector<std::string> mutants(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::vector<std::string> out;
  bool roles = false;
  auto join = [](const std::vector<std::string>& ls) {
    std::string s;
    for (const std::string& l : ls) s += l + "\n";
    return s;
  };
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string code = lines[i].substr(0, lines[i].find('#'));
    if (code.rfind("role ", 0) == 0) roles = true;
    const bool barrier = code.find("wait ") != std::string::npos || code.find("arrive") != std::string::npos;
    if (!roles || !barrier || code.find("wgmma_wait") != std::string::npos) continue;
    std::vector<std::string> ls = lines;
    ls.erase(ls.begin() + static_cast<std::ptrdiff_t>(i));
    out.push_back(join(ls));
    if (const auto at = code.find(" parity "); at != std::string::npos) {
      ls = lines;
      ls[i] = code.substr(0, at) + " parity (" + code.substr(at + 8) + " + 1) % 2";
      out.push_back(join(ls));
    }
    if (const auto open = code.find('['); open != std::string::npos) {
      const auto close = code.find(']', open);
      if (code.substr(open + 1, close - open - 1) != "0") {
        ls = lines;
        ls[i] = code.substr(0, open + 1) + "0" + code.substr(close);
        out.push_back(join(ls));
      }
    }
  }
  return out;
}

}  // namespace

TEST_CASE("prove: every barrier mutant gets what the explicit search gets at trip counts 1 to 8") {
  const std::pair<std::string, const char*> kernels[] = {
      {source("kernels/tlx_ws_gemm_hopper.bk"), "K_TILES"},
      {source("kernels/tlx_producer_consumer.bk"), "ITERS"},
      // Gates (N read by comparisons before and in the loop), a loop over
      // 2 * N run by one instance of its role:
      {source("kernels/field/triton_tma_matmul_barrier_reuse.bk"), "K_TILES"},
      {source("kernels/field/probe_parity_alias_named_barrier.bk"), "ROUNDS"},
      {shapes, "N"},
      {inner, "N"},
  };
  int compared = 0, caught = 0, proved = 0;
  for (const auto& [text, param] : kernels) {
    for (const std::string& m : mutants(text)) {
      const dsl::Parsed p = dsl::parse(m, "mutant.bk");
      if (!p.ok()) continue;  // an `if` left with no body
      CAPTURE(m);
      const Proved pr = prove(p.kernel, param);
      CAPTURE(pr.reason);
      REQUIRE(pr.reason.empty());
      REQUIRE(pr.r.verdict != check::Verdict::inconclusive);
      std::vector<std::int64_t> fails;
      for (std::int64_t n = 1; n <= 8; ++n)
        if (outcome_at(m, param, n) != "verified") fails.push_back(n);
      if (pr.r.verdict == check::Verdict::verified) {
        CHECK(fails.empty());
        ++proved;
      } else {
        // Caught: at a trip count where the explicit search fails too.
        CHECK(outcome_at(m, param, pr.r.trip_value) != "verified");
        ++caught;
      }
      ++compared;
    }
  }
  MESSAGE(compared << " mutants: " << caught << " caught, " << proved << " verified for every trip count");
  CHECK(compared >= 45);
  CHECK(caught >= 40);
}

TEST_CASE("prove: nested loops: every barrier mutant gets what the explicit search gets at trip counts 1 to 8") {
  // Each pass of the outer loop has its own N, all of one residue modulo the
  // period (docs/checker.md, "Every trip count"): a violation the search
  // finds may need passes of different N, which no real run has. The CLI
  // says "not proved" then; here such a one is counted apart.
  int compared = 0, caught = 0, proved = 0, apart = 0;
  for (const std::string& text : {nested, nested_gates, nested_scaled, nested_mixed, nested_clc}) {
    for (const std::string& m : mutants(text)) {
      const dsl::Parsed p = dsl::parse(m, "mutant.bk");
      if (!p.ok()) continue;
      CAPTURE(m);
      const Proved pr = prove(p.kernel, "N");
      CAPTURE(pr.reason);
      REQUIRE(pr.reason.empty());
      REQUIRE(pr.r.verdict != check::Verdict::inconclusive);
      std::vector<std::int64_t> fails;
      for (std::int64_t n = 1; n <= 8; ++n)
        if (outcome_at(m, "N", n) != "verified") fails.push_back(n);
      if (pr.r.verdict == check::Verdict::verified) {
        CHECK(fails.empty());  // sound: no trip count fails
        ++proved;
      } else if (outcome_at(m, "N", pr.r.trip_value) != "verified") {
        ++caught;
      } else {
        ++apart;
      }
      ++compared;
    }
  }
  MESSAGE(compared << " mutants: " << caught << " caught, " << proved << " verified for every trip count, " << apart
                   << " with a violation of passes of different trip counts only");
  CHECK(compared >= 40);
  CHECK(caught >= 32);
  CHECK(apart * 5 <= compared);
}

TEST_CASE("prove: stepping a state and stepping its key state give successors of one key") {
  const std::pair<std::string, const char*> kernels[] = {
      {source("kernels/tlx_ws_gemm_hopper.bk"), "K_TILES"},
      {source("kernels/tlx_pingpong.bk"), "ITERS"},
      {source("kernels/field/cutlass_sm90_tma_ws_multicast.bk"), "K_TILES"},
      {source("kernels/field/triton_tma_matmul_barrier_reuse.bk"), "K_TILES"},
      {shapes, "N"},
      // A producer tail's `t = ITERS + j`, dead while the warps are in their
      // loop: the key sets it to 0 there.
      {source("kernels/field/quack_rmsnorm_bwd_stas_dsmem.bk"), "ITERS"},
      // Nested loops: the lowest pass's agents move, the table of passes too.
      {nested, "N"},
      {nested_gates, "N"},
      {nested_mixed, "N"},
      {nested_clc, "N"},
      // tcgen05 groups across tiles: an accumulator's last write of an
      // earlier tile keeps its group while later ones are committed.
      {source("kernels/field/cutlass_sm100_clc_gemm.bk"), "K_TILES"},
  };
  std::mt19937 rng(20261126);
  int shifted = 0;
  for (const auto& [text, param] : kernels) {
    const ir::Kernel k = parsed(text).kernel;
    CAPTURE(k.name);
    const smt::TripProof tp = smt::prove_trips(k, param);
    REQUIRE(tp.shift);
    const ir::Kernel tk = check::trip_kernel(k, tp.shift->param, tp.shift->nested ? tp.shift->passes : 0);
    const check::Model m(tk, false, tp.shift);
    check::Options o;
    o.trips = tp.shift;
    o.reduction = false;
    const check::Successors next(m, o);
    auto key = [&](check::State s) {
      check::trip_key(m.trips(), m.program(), s);
      std::string b;
      check::serialize(s, next.owners(), b);
      return b;
    };
    for (int walk = 0; walk < 40; ++walk) {
      check::State s = next.initial(nullptr);
      for (int step = 0; step < 400; ++step) {
        check::State ks = s;
        check::trip_key(m.trips(), m.program(), ks);
        shifted += !(ks.vars == s.vars);
        std::vector<check::State> succ;
        const int oracle = m.processes(s) - 2;  // the trip oracle (decide, raise): taken rarely, so that the walks run many trips
        for (int a = 0; a < m.processes(s); ++a) {
          check::State t1 = s, t2 = ks;
          check::StepInfo i1, i2;
          const bool e1 = m.apply(t1, static_cast<check::Action>(a), i1);
          const bool e2 = m.apply(t2, static_cast<check::Action>(a), i2);
          REQUIRE(e1 == e2);
          if (!e1) continue;
          CHECK(i1.violation == i2.violation);
          if (i1.violation != spec::Violation::none) continue;
          if (a < m.agents() || a >= oracle) {  // the oracle may open any agent's gate
            next.local_steps(t1, a < m.agents() ? a : -1);
            next.local_steps(t2, a < m.agents() ? a : -1);
          }
          CHECK(key(t1) == key(t2));
          if (a < oracle || rng() % 64 == 0) succ.push_back(std::move(t1));
        }
        if (succ.empty()) break;
        s = succ[rng() % succ.size()];
      }
    }
  }
  MESSAGE(shifted << " states on the walks had a shifted key state");
  CHECK(shifted > 100);
}

TEST_CASE("prove: what the proof cannot cover is named, with its line") {
  const std::string head = "kernel t\nparam N = 4 in 1..64\nsmem buf[2] bytes 64\nmbarrier full[2] count 32\nmbarrier empty[2] count 32\n";
  const std::string consumer =
      "role consumer warp:\n  for k in 0 .. N:\n    wait full[k % 2] parity (k / 2) % 2\n    all: read buf[k % 2]\n"
      "    all: arrive empty[k % 2]\n";
  auto producer = [](const std::string& extra) {
    return "role producer warp:\n  for k in 0 .. N:\n    wait empty[k % 2] parity (k / 2 + 1) % 2\n" + extra +
           "    all: write buf[k % 2]\n    all: arrive full[k % 2]\n";
  };
  // The ring as written is covered and verified.
  const Proved ok = prove(parsed(head + producer("") + consumer).kernel, "N");
  CAPTURE(ok.reason);
  REQUIRE(ok.reason.empty());
  CHECK(ok.r.verdict == check::Verdict::verified);
  CHECK(ok.r.proved_for.empty());  // the CLI names what a proof covers
  struct Case {
    std::string text, why;
  };
  const Case cases[] = {
      {head + producer("    x = N - k\n    if x == 1:\n      one: write buf[0]\n") + consumer, "inside its loop"},
      {head + producer("    if k < 5:\n      one: write buf[0]\n") + consumer, "not periodic"},
      {head + producer("") + consumer + "role other warp:\n  for j in 0 .. N:\n    one: read buf[0]\n  for j in 0 .. N:\n    one: read buf[1]\n",
       "two loops"},
      {"kernel t\nparam N = 4 in 1..64\nparam M = N * 2\nsmem buf[2] bytes 64\nmbarrier full[2] count 32\nmbarrier empty[2] count 32\n" +
           producer("") + consumer,
       "declaration"},
      {head + "role w warp:\n  x = N * 2\n  for k in 0 .. N:\n    one: read buf[1]\n", "before its loop"},
      {head + "role w warp:\n  for u in 0 .. 2:\n    for t in 0 .. 2:\n      for k in 0 .. N:\n        one: read buf[1]\n", "nested loops"},
      {head + "role w warp:\n  for t in 0 .. 2:\n    for k in 0 .. N:\n      one: read buf[1]\nrole v warp:\n  for k in 0 .. N:\n    one: read buf[0]\n",
       "in no other loop"},
      {head + "role w warp:\n  for t in 0 .. 2:\n    x = N - 1\n    for k in 0 .. N:\n      one: read buf[x % 2]\n", "not periodic"},
      {head + "role w warp:\n  x = N\n  for t in 0 .. 2:\n    for k in 0 .. N:\n      one: read buf[x % 2]\n", "before its loops"},
      {head + "role w warp:\n  for t in 0 .. 2:\n    for k in 0 .. N:\n      one: read buf[1]\nrole v warp:\n  one: read buf[N % 2]\n",
       "runs no loop over it"},
      // The value a write stores is an expression it evaluates too.
      {head + "role w warp:\n  for k in 0 .. N:\n    one: write buf[1] value k\n", "not periodic"},
      {head + "role w warp:\n  for k in 0 .. N + 1:\n    one: read buf[1]\n", "bound"},
      {head + "role w warp x2:\n  if instance == 0:\n    for k in 0 .. N:\n      one: read buf[1]\n  if N > 3:\n    one: read buf[0]\n",
       "does not run its loop"},
      {head + "role w warp:\n  c = 1\n  if c == 1:\n    for k in 0 .. N:\n      one: read buf[1]\n", "condition reads"},
      // Per-pass `if`s (CUTLASS's tile scheduler): pass 0 must take the trip
      // loop (it decides N's class), and where an agent may skip it, N is
      // not read.
      {head + "role w warp:\n  valid = 0\n  for t in 0 .. 2:\n    if valid == 1:\n      for k in 0 .. N:\n        one: read buf[1]\n",
       "may skip the loop over the trip count in the first pass"},
      {head + "role w warp:\n  valid = 1\n  for t in 0 .. 2:\n    if valid == 1:\n      for k in 0 .. N:\n        one: read buf[1]\n"
              "    if N > 2:\n      one: read buf[0]\n",
       "skips its loop"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    const Proved p = prove(parsed(c.text).kernel, "N");
    CAPTURE(p.reason);
    CHECK(p.reason.find(c.why) != std::string::npos);
    CHECK(p.reason.find("line ") != std::string::npos);
  }
  CHECK(prove(parsed(head + producer("") + consumer).kernel, "K").reason.find("no parameter K") != std::string::npos);
  // A role split per warp (it reads `warp`) is refused.
  const std::string split = head + producer("") +
                            "role consumer warpgroup:\n  for k in 0 .. N:\n    wait full[k % 2] parity (k / 2) % 2\n"
                            "    if warp == 0:\n      all: read buf[k % 2]\n    all: arrive empty[k % 2]\n";
  CHECK(prove(parsed(split).kernel, "N").reason.find("split per warp") != std::string::npos);
}

TEST_CASE("prove: check-kernel --prove NAME, its text, JSON and exit status") {
  const Run ok = run("prove_cli", src + "/kernels/tlx_ws_gemm_hopper.bk --prove K_TILES");
  CHECK(ok.status == 0);
  CHECK(ok.out.find("VERIFIED for every K_TILES >= 1") != std::string::npos);
  const Run json = run("prove_cli", src + "/kernels/tlx_ws_gemm_hopper.bk --prove K_TILES --json");
  CHECK(json.out.find("\"proved_for\": \"every K_TILES >= 1\"") != std::string::npos);
  const Run bug = run("prove_cli", src + "/kernels/bugs/consumer_laps_producer.bk --prove ITERS");
  CHECK(bug.status == 1);
  CHECK(bug.out.find("(--prove)") != std::string::npos);
  CHECK(bug.out.find("at ITERS=") != std::string::npos);  // the trip count its replay token carries
  // A parameter the kernel does not declare is bad input.
  const Run unknown = run("prove_cli", src + "/kernels/tlx_ws_gemm_hopper.bk --prove NOPE");
  CHECK(unknown.status == 2);
  CHECK(unknown.err.find("no parameter NOPE (it declares") != std::string::npos);
  // A kernel the proof does not cover (AMD) is searched explicitly at the
  // given value: verified there only, so inconclusive (exit 3), saying so.
  const Run refused = run("prove_cli", src + "/kernels/amd_lds_gather_pipeline.bk --prove ITERS --param ITERS=3 --json");
  CHECK(refused.status == 3);
  CHECK(refused.out.find("\"inconclusive_reason\": \"not-proved\"") != std::string::npos);
  CHECK(refused.out.find("\"verified_at\": \"ITERS=3\"") != std::string::npos);
  CHECK(refused.out.find("verified explicitly at ITERS=3 only") != std::string::npos);
  const Run refused_text = run("prove_cli", src + "/kernels/amd_lds_gather_pipeline.bk --prove ITERS");
  CHECK(refused_text.status == 3);
  CHECK(refused_text.out.find("INCONCLUSIVE: not proved for every ITERS: ") != std::string::npos);
  CHECK(refused_text.out.find("; verified explicitly at ITERS=4 only") != std::string::npos);
  // Its bug twin fails there: a violation (exit 1), from the explicit search.
  const Run refused_bug = run("prove_cli", src + "/kernels/bugs/amd_lds_gather_vmcnt_off_by_one.bk --prove ITERS");
  CHECK(refused_bug.status == 1);
  CHECK(refused_bug.out.find("at ITERS=4 (the explicit search; not proved for every ITERS: ") != std::string::npos);
  CHECK(run("prove_cli", src + "/kernels/tlx_ws_gemm_hopper.bk --prove").status == 2);
  CHECK(run("prove_cli", src + "/kernels/tlx_ws_gemm_hopper.bk --prove K_TILES --sweep").status == 2);
  // A proof search that stops at a limit: the profile is its own (26,704
  // states close it), said so, not the explicit search's.
  const Run capped = run("prove_cli", src + "/kernels/tlx_ws_gemm_hopper.bk --prove K_TILES --max-states 3000 --profile-states");
  CHECK(capped.status == 3);
  CHECK(capped.out.find("the search stopped at its limit (max-states) before it closed") != std::string::npos);
  CHECK(capped.out.find("states stored by the --prove K_TILES search, which stopped at its limit;") != std::string::npos);
  const Run capped_json = run("prove_cli", src + "/kernels/tlx_ws_gemm_hopper.bk --prove K_TILES --max-states 3000 --profile-states --json");
  CHECK(capped_json.out.find("\"of\": \"the --prove K_TILES search, which stopped at its limit\"") != std::string::npos);
  // Where the proof covers no kernel, the profile is the explicit search's.
  const Run plain = run("prove_cli", src + "/kernels/amd_lds_gather_pipeline.bk --prove ITERS --profile-states");
  CHECK(plain.out.find("  profile: ") != std::string::npos);
  CHECK(plain.out.find("stored by ") == std::string::npos);
}
