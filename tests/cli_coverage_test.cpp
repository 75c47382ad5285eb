// Coverage: after a verified search, the statements that no interleaving
// executed are a warning (a summary line; --coverage lists each, saying
// plainly when an access or an assert was never checked), in JSON too
// (SARIF: cli_sarif_test.cpp); the verdict and the exit status stay as
// they are.
#include <doctest/doctest.h>

#include <string>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "tests/cli_support.hpp"
#include "tests/json_mini.hpp"

namespace {

using namespace cli_support;

Run run(const std::string& args) { return cli_support::run("cli_coverage_test", args); }

// The race in the branch never runs: the kernel verifies, and says so.
const std::string dead_branch =
    "kernel dead_branch\nparam N = 2 in 1..4\nsmem tile[1] bytes 16\nmbarrier full[1] count 1\n"
    "role producer warp:\n  one: write tile[0]\n  one: arrive full[0]\n"
    "role consumer warp:\n  if N > 8:\n    read tile[0]\n    assert 0\n  wait full[0] parity 0\n  read tile[0]\n"
    "  if instance > 0:\n    syncwarp\n";

}  // namespace

TEST_CASE("unreached statements: a summary by default, the full list with --coverage, the verdict unchanged") {
  const std::string file = temp_file("cli_coverage_test", "dead.bk", dead_branch);
  const Run r = run(file);
  CHECK(r.status == 0);
  CHECK(r.out.find("VERIFIED") != std::string::npos);
  CHECK(r.out.find("warning: 3 statements never run in any interleaving (lines 10, 11, 15); unreachable, so never "
                   "checked: 1 buffer access and 1 assert (--coverage lists them)") != std::string::npos);
  const Run full = run(file + " --coverage");
  CHECK(full.status == 0);
  CHECK(full.out.find(":10:5: consumer: 'read tile[0]' never runs in any interleaving: this access is unreachable, so no "
                      "race on it is checked") != std::string::npos);
  CHECK(full.out.find(":11:5: consumer: 'assert 0' never runs in any interleaving: this assert is unreachable, so it "
                      "is never checked") != std::string::npos);
  CHECK(full.out.find(":15:5: consumer: 'syncwarp' never runs in any interleaving\n") != std::string::npos);
  // --check-expect and --strict see the same verdict.
  CHECK(run(file + " --coverage --strict").status == 0);
  // JSON: the list, with kinds; SARIF: warnings.
  jsonmini::Value v;
  REQUIRE(jsonmini::Reader(run(file + " --json").out).parse(v));
  CHECK(v.get("exit_code")->n == 0);
  const auto& u = v.get("kernels")->a.at(0).get("unreached")->a;
  REQUIRE(u.size() == 3);
  CHECK(u[0].get("kind")->s == "access");
  CHECK(u[1].get("kind")->s == "assert");
  CHECK(u[2].get("kind")->s == "statement");
  CHECK(u[2].get("location")->get("line")->n == 15);
}

TEST_CASE("full coverage prints nothing, or says so with --coverage; violations and limits report none") {
  const Run r = run(good);
  CHECK(r.out.find("never run") == std::string::npos);
  CHECK(run(good + " --coverage").out.find("coverage: every statement runs in some interleaving") != std::string::npos);
  jsonmini::Value v;
  REQUIRE(jsonmini::Reader(run(good + " --json").out).parse(v));
  CHECK(v.get("kernels")->a.at(0).get("unreached")->a.empty());
  // A violation ends the search early: no coverage claim.
  jsonmini::Value w;
  REQUIRE(jsonmini::Reader(run(bad + " --json").out).parse(w));
  CHECK(w.get("kernels")->a.at(0).get("unreached") == nullptr);
  jsonmini::Value x;
  REQUIRE(jsonmini::Reader(run(src + "/kernels/cutlass_tma_multicast.bk --max-states 10 --json").out).parse(x));
  CHECK(x.get("kernels")->a.at(0).get("unreached") == nullptr);
}

TEST_CASE("coverage counts statements any agent of a role runs, and a loop with no iteration leaves its body") {
  const pc::dsl::Parsed p = pc::dsl::parse(
      "kernel k\nparam T = 0 in 0..4\nrole r warp x 2:\n  if instance == 1:\n    syncwarp\n  for i in 0 .. T:\n"
      "    syncwarp\n  x = 1\n",
      "k.bk");
  REQUIRE(p.ok());
  for (const bool reduction : {true, false}) {
    pc::check::Options o;
    o.reduction = reduction;
    const pc::check::Result r = pc::check::check(p.kernel, o);
    REQUIRE(r.verdict == pc::check::Verdict::verified);
    REQUIRE(r.unreached.size() == 1);  // instance 1 runs line 5; the loop's body never runs
    CHECK(r.unreached[0].loc.line == 7);
    CHECK(r.unreached[0].role == "r");
  }
}
