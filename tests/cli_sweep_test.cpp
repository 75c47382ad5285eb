// check-kernel --sweep: the explicit search at every combination of the
// declared parameter values, or a fixed sample of them.
#include <doctest/doctest.h>

#include <string>

#include "checker/sweep.hpp"
#include "checker/dsl/parser.hpp"
#include "tests/cli_support.hpp"

using namespace cli_support;

namespace {

// Deadlocks only at N=3 with M=5: the producer's arrive is skipped there.
const char* const one_bad_point =
    "kernel sw\n"
    "param N = 1 in 1..4\n"
    "param M = 0 in {0, 5}\n"
    "mbarrier bar count 1\n"
    "smem buf bytes 64\n"
    "role p warp:\n"
    "  one: write buf\n"
    "  if N != 3 || M == 0:\n"
    "    one: arrive bar\n"
    "role c warp:\n"
    "  wait bar parity 0\n"
    "  read buf\n";

}  // namespace

TEST_CASE("sweep: every combination runs and the first failing point is the result") {
  const std::string f = temp_file("cli_sweep", "one_bad_point.bk", one_bad_point);
  for (const char* threads : {"1", "4"}) {
    CAPTURE(threads);
    const Run r = run("cli_sweep", f + " --sweep --threads " + threads);
    CHECK(r.status == 1);
    CHECK(r.out.find("VIOLATION deadlock") != std::string::npos);
    CHECK(r.out.find("sweep: 8 points (N 1..4, M {0, 5}): 7 verified, 1 violation") != std::string::npos);
    CHECK(r.out.find("first failing point: deadlock at --param N=3 --param M=5") != std::string::npos);
    // The replay token carries the failing point's values.
    CHECK(r.out.find(".N=3,M=5") != std::string::npos);
  }
  // A --param fixes an axis: with M=0 every point verifies.
  const Run fixed = run("cli_sweep", f + " --sweep --param M=0");
  CHECK(fixed.status == 0);
  CHECK(fixed.out.find("sweep: 4 points (N 1..4): 4 verified") != std::string::npos);
  CHECK(fixed.out.find("first failing point") == std::string::npos);
  // JSON: the summary under "sweep".
  const Run js = run("cli_sweep", f + " --sweep --json");
  CHECK(js.status == 1);
  CHECK(js.out.find("\"sweep\": {\"points\": 8, \"run\": 8, \"sampled\": false") != std::string::npos);
  CHECK(js.out.find("\"first_failing\": {\"outcome\": \"deadlock\", \"params\": {\"N\": 3, \"M\": 5}}") != std::string::npos);
}

TEST_CASE("sweep: past --sweep-max a fixed sample that keeps the first and last combination") {
  const std::string src =
      "kernel wide\nparam A = 1 in 1..100\nparam B = 1 in 1..100\nsmem buf bytes 64\nrole r warp:\n  one: write buf\n";
  const pc::dsl::Parsed p = pc::dsl::parse(src, "wide.bk");
  REQUIRE(p.ok());
  const pc::cli::SweepPlan plan = pc::cli::plan_sweep(p.kernel, {}, 20);
  CHECK(plan.combinations == 10000);
  CHECK(plan.sampled);
  REQUIRE(plan.points.size() == 20);
  CHECK(plan.points.front() == std::vector<std::int64_t>{1, 1});
  CHECK(plan.points.back() == std::vector<std::int64_t>{100, 100});
  for (std::size_t i = 1; i < plan.points.size(); ++i) CHECK(plan.points[i - 1] < plan.points[i]);
  // The same sample every time.
  CHECK(pc::cli::plan_sweep(p.kernel, {}, 20).points == plan.points);
  // Within the limit: every combination, in order, the last axis fastest.
  const pc::cli::SweepPlan all = pc::cli::plan_sweep(p.kernel, {{"A", 7}}, 256);
  CHECK_FALSE(all.sampled);
  REQUIRE(all.points.size() == 100);
  CHECK(all.points[1] == std::vector<std::int64_t>{2});
  const std::string f = temp_file("cli_sweep", "wide.bk", src);
  const Run r = run("cli_sweep", f + " --sweep --sweep-max 20");
  CHECK(r.status == 0);
  CHECK(r.out.find("sweep: a sample of 20 of 10000 points (A 1..100, B 1..100): 20 verified") != std::string::npos);
}

TEST_CASE("sweep: usage errors") {
  CHECK(run("cli_sweep", good + " --sweep --sweep-max 0").status == 2);
  const Run r = run("cli_sweep", good + " --sweep --replay v2.R.0.0");
  CHECK(r.status == 2);
  CHECK(r.err.find("--sweep and --replay exclude each other") != std::string::npos);
}

namespace {

// Verified at N=1 and N=2, a deadlock at N=3, and at N=4 a CTA larger than
// shared memory (smem_overflow, found before the search).
const char* const two_kinds =
    "kernel kinds\n"
    "param N = 1 in 1..4\n"
    "mbarrier bar count 1\n"
    "smem buf bytes 16384 * (N * N)\n"
    "role p warp:\n"
    "  one: write buf\n"
    "  if N != 3:\n"
    "    one: arrive bar\n"
    "role c warp:\n"
    "  wait bar parity 0\n"
    "  read buf\n";

// The states of one point, run alone.
std::uint64_t states_at(const std::string& file, int n) {
  const Run r = run("cli_sweep", file + " --json --param N=" + std::to_string(n));
  const std::size_t at = r.out.find("\"states\": ");
  REQUIRE(at != std::string::npos);
  return std::stoull(r.out.substr(at + 10));
}

}  // namespace

TEST_CASE("sweep: a table per violation kind, and a headline that holds for the whole sweep") {
  const std::string f = temp_file("cli_sweep", "two_kinds.bk", two_kinds);
  std::uint64_t total = 0;
  for (int n = 1; n <= 4; ++n) total += states_at(f, n);
  const Run r = run("cli_sweep", f + " --sweep --threads 2");
  CAPTURE(r.out);
  CHECK(r.status == 1);
  // The headline: the result's kind, the statistics of all the points.
  const std::string head = r.out.substr(0, r.out.find('\n'));
  CHECK(head.find("VIOLATION deadlock") != std::string::npos);
  CHECK(head.find("sweep of 4 points: " + std::to_string(total) + " states") != std::string::npos);
  // The point shown, with its own statistics, named as such.
  CHECK(r.out.find("  at the first failing point --param N=3 (") != std::string::npos);
  CHECK(r.out.find("sweep: 4 points (N 1..4): 2 verified, 2 violations; " + std::to_string(total) + " states") !=
        std::string::npos);
  // A row per kind: how many points, the first, its replay.
  const std::size_t dl = r.out.find("\n    deadlock ");
  const std::size_t so = r.out.find("\n    smem_overflow ");
  REQUIRE(dl != std::string::npos);
  REQUIRE(so != std::string::npos);
  const std::string dl_row = r.out.substr(dl + 1, r.out.find('\n', dl + 1) - dl - 1);
  const std::string so_row = r.out.substr(so + 1, r.out.find('\n', so + 1) - so - 1);
  CHECK(dl_row.find("1 point ") != std::string::npos);
  CHECK(dl_row.find("--param N=3") != std::string::npos);
  CHECK(dl_row.find("--replay v2.") != std::string::npos);
  CHECK(dl_row.find(".N=3") != std::string::npos);
  CHECK(so_row.find("1 point ") != std::string::npos);
  CHECK(so_row.find("--param N=4") != std::string::npos);
  // JSON: the same, per kind; the kernel's stats are the sweep's.
  const Run js = run("cli_sweep", f + " --sweep --json");
  CAPTURE(js.out);
  CHECK(js.out.find("\"stats\": {\"states\": " + std::to_string(total) + ",") != std::string::npos);
  CHECK(js.out.find("{\"outcome\": \"deadlock\", \"points\": 1, \"first\": {\"N\": 3}, \"replay\": \"v2.") != std::string::npos);
  CHECK(js.out.find("{\"outcome\": \"smem_overflow\", \"points\": 1, \"first\": {\"N\": 4}") != std::string::npos);
  CHECK(js.out.find("\"result_point\": {\"params\": {\"N\": 3}, \"states\": " + std::to_string(states_at(f, 3))) !=
        std::string::npos);
}

TEST_CASE("sweep: the coverage warning is the sweep's: statements that no point runs") {
  // The write runs at N=2 only, so the sweep covers it; the read at no point.
  const std::string f = temp_file("cli_sweep", "cover.bk",
                                  "kernel cover\nparam N = 1 in 1..2\nsmem buf bytes 64\nsmem other bytes 64\n"
                                  "role p warp:\n  if N > 1:\n    one: write buf\n  if N > 5:\n    one: read other\n"
                                  "  syncwarp\n");
  const Run r = run("cli_sweep", f + " --sweep");
  CAPTURE(r.out);
  CHECK(r.status == 0);
  CHECK(r.out.find("1 statement never runs at any point of the sweep (line 9)") != std::string::npos);
  CHECK(r.out.find("line 7") == std::string::npos);
}
