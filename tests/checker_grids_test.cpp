// Global memory (`gmem`) and programmatic dependent launch (`grids 2`,
// griddepcontrol; issue 62; docs/spec.md, "Global memory and two grids").
// Before issue 62 `.bk` could not write either: every kernel below was a
// parse error. Each kernel is checked with and without the reductions
// (agreed_outcome); the bounded engine refuses them (tested last).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/smt/bmc.hpp"
#include "checker/smt/symbolic.hpp"
#include "tests/agreed_check.hpp"
#include "tests/kernel_text.hpp"

using namespace pc;
using testing::agreed_outcome;
using testing::with;

namespace {

// CUTLASS's sm90 warp-specialized GEMM launched twice, reduced to its
// synchronization: the producer loads its input from act[grid] (the
// primary's output in the dependent grid) and the consumer stores its
// output to act[grid + 1]. WAIT: where the producer waits for the primary.
const std::string pair_kernel =
    "kernel pair\ngrids 2\ngmem act[3] bytes 4096\nsmem s bytes 4096\nmbarrier full count 1\n"
    "role producer warp:\nWAIT  one: arrive_expect_tx full bytes 4096\n  one: tma_load s -> full from act[grid]\n"
    "role consumer warp:\n  wait full parity 0\n  all: read s\n  one: griddep_launch\n  all: write s\n"
    "  all: fence_proxy_async\n  syncwarp\n  one: tma_store s to act[grid + 1]\n  commit_group\n  wait_group_read 0\n";

std::string first_error(const std::string& text) {
  const dsl::Parsed p = dsl::parse(text, "t.bk");
  return p.errors.empty() ? std::string() : p.errors[0].message;
}

}  // namespace

// PTX ISA griddepcontrol: ".wait modifier causes the executing thread to
// wait until all prerequisite grids in flight have completed and all the
// memory operations from the prerequisite grids are performed and made
// visible to the current grid"; the dependent "may launch before the
// completion of the current grid".
TEST_CASE("two grids: the dependent's read of the primary's output needs griddepcontrol.wait before it") {
  CHECK(agreed_outcome(with(pair_kernel, "WAIT", "")) == "data_race");
  CHECK(agreed_outcome(with(pair_kernel, "WAIT", "  griddep_wait\n")) == "verified");
  // The wait by the leader lane only orders that lane, which issues the load.
  CHECK(agreed_outcome(with(pair_kernel, "WAIT", "  one: griddep_wait\n")) == "verified");
  // After the load: too late.
  CHECK(agreed_outcome(with(with(pair_kernel, "WAIT", ""), "from act[grid]\n", "from act[grid]\n  griddep_wait\n")) ==
        "data_race");
}

TEST_CASE("two grids: the consumer's store is ordered through the producer's wait, its own early access is not") {
  const std::string ok = with(pair_kernel, "WAIT", "  griddep_wait\n");
  // A write of the dependent's output before its full barrier: in the
  // primary, act[1] is the TMA store's destination.
  const std::string early = with(ok, "  wait full parity 0\n", "  one: read act[grid]\n  wait full parity 0\n");
  CHECK(agreed_outcome(early) == "data_race");
  // The same read after the full barrier: ordered after the producer's wait.
  CHECK(agreed_outcome(with(ok, "  all: read s\n", "  all: read s\n  one: read act[grid]\n")) == "verified");
}

TEST_CASE("two grids: a write of the dependent before its wait races with the primary's read (WAR)") {
  const std::string k = "kernel war\ngrids 2\ngmem ws bytes 64\nrole r warp:\n  if grid == 0:\n    one: read ws\n"
                        "  if grid == 1:\nWAIT    one: write ws\n";
  CHECK(agreed_outcome(with(k, "WAIT", "")) == "data_race");
  CHECK(agreed_outcome(with(k, "WAIT", "    griddep_wait\n")) == "verified");
  // griddep_launch orders nothing (scheduling only).
  CHECK(agreed_outcome(with(with(k, "WAIT", ""), "    one: read ws\n", "    one: read ws\n    griddep_launch\n")) == "data_race");
}

TEST_CASE("griddep_wait with no prerequisite grid returns at once; the builtin grid is 0 in one grid") {
  CHECK(agreed_outcome("kernel one\ngmem g bytes 64\nrole r warp:\n  griddep_wait\n  one: write g\n  one: griddep_launch\n") ==
        "verified");
  CHECK(agreed_outcome("kernel one\ngmem g[2] bytes 64\nrole r warp:\n  one: write g[grid + 1]\n") == "verified");
  // Two roles of one grid writing one global buffer with nothing between.
  CHECK(agreed_outcome("kernel two\ngmem g bytes 64\nrole a warp:\n  one: write g\nrole b warp:\n  one: write g\n") == "data_race");
}

// cp.async.bulk.wait_group: ".read modifier indicates that the waiting has to
// be done until all the bulk async operations in the specified bulk
// async-group have completed reading from their source locations": the
// write of global memory is not waited for.
TEST_CASE("wait_group_read does not wait for a TMA store's write of global memory; wait_group does") {
  const std::string k = "kernel st\ngmem out bytes 4096\nsmem s bytes 4096\n"
                        "role w warp:\n  all: write s\n  all: fence_proxy_async\n  syncwarp\n  one: tma_store s to out\n"
                        "  commit_group\n  WAIT 0\n  bar_sync 1, 64\n"
                        "role r warp:\n  bar_sync 1, 64\n  one: read out\n";
  CHECK(agreed_outcome(with(k, "WAIT", "wait_group_read")) == "data_race");
  CHECK(agreed_outcome(with(k, "WAIT", "wait_group")) == "verified");
}

TEST_CASE("gmem: located errors for what global memory does not take") {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"kernel e\ngmem g bytes 64\nrole r warp:\n  one: write g @ 0\n", "has no '@ CTA'"},
      {"kernel e\ngmem g bytes 64\nmbarrier m count 1\nrole r warp:\n  one: tma_load g -> m\n", "is global memory"},
      {"kernel e\nsmem s bytes 64\nsmem t bytes 64\nrole r warp:\n  one: tma_store s to t\n", "is not global memory"},
      {"kernel e\ngmem g bytes 64\ngmem h bytes 64 aliases g\nrole r warp:\n  one: write g\n", "cannot alias"},
      {"kernel e\ncluster 2\ngrids 2\nrole r warp:\n  one: griddep_wait\n", "not modelled"},
      {"kernel e\ngrids 2\nrole r warp:\n  cluster_sync\n", "with 'grids 2' is not modelled"},
      {"kernel e\ngrids 2\nsmem s bytes 64\nrole r warp:\n  one: write s @ 0\n", "names another CTA"},
      {"kernel e\ngrids 3\nrole r warp:\n  griddep_wait\n", "the number of grids"},
      {"kernel e\nrole r warp:\n  griddep_wait\ngrids 2\n", "before the roles"},
  };
  for (const auto& [text, message] : bad) {
    CAPTURE(text);
    CHECK(first_error(text).find(message) != std::string::npos);
  }
}

// The partial-order reduction's footprint of the new operations (the
// global buffers, a TMA load's source, a TMA store's destination,
// griddep_wait reading the primary's exits) is compared with the plain
// search on generated two-grid kernels in tests/checker_por_test.cpp
// (tests/kernel_generators.hpp, grid_kernel).

TEST_CASE("the bounded engine refuses global memory and two grids with the reason") {
  for (const std::string& text : {with(pair_kernel, "WAIT", "  griddep_wait\n"),
                                 std::string("kernel one\ngmem g bytes 64\nrole r warp:\n  one: write g\n")}) {
    const dsl::Parsed p = dsl::parse(text, "t.bk");
    REQUIRE(p.ok());
    const smt::BmcResult b = smt::bounded_search(p.kernel);
    CHECK(b.verdict == smt::BmcResult::Verdict::not_covered);
    CHECK(b.reason.find("global memory") != std::string::npos);
  }
}

// --symbolic counts the dependent grid's CTA too: a barrier that only the
// dependent under-arrives on is refuted (with one grid's CTAs only, the
// claim was proven).
TEST_CASE("symbolic: the claims cover both grids") {
  const std::string k = "kernel s\ngrids 2\nmbarrier m count 2\nrole a warp:\n  one: arrive m\n  if grid == 0:\n    one: arrive m\n"
                        "role b warp:\n  wait m parity 0\n";
  const dsl::Parsed p = dsl::parse(k, "s.bk");
  REQUIRE(p.ok());
  bool refuted = false;
  for (const smt::Finding& f : smt::check_symbolic(p.kernel))
    refuted |= f.check == "arrival_count" && f.status == smt::Status::counterexample;
  CHECK(refuted);
  CHECK(agreed_outcome(k) == "deadlock");
}
