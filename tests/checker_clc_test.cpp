// Cluster launch control (docs/spec.md, "cluster launch control"; spec/clc.hpp):
// both answers of a request are explored while clusters are left, none once
// they are taken, every destination of a multicast request gets the same
// answer, a request after a failure is clc_misuse, and the response is
// memory the hb rules order; bad input is a located error, exit 2.
#include <doctest/doctest.h>

#include <string>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "spec/clc.hpp"
#include "tests/cli_support.hpp"
#include "tests/kernel_text.hpp"
#include "tests/located_errors.hpp"

using namespace pc;

namespace {

std::string outcome(const std::string& text, bool reduction = true) {
  const dsl::Parsed p = dsl::parse(text, "clc.bk");
  const std::string first = p.errors.empty() ? std::string() : p.errors[0].message;
  CAPTURE(first);
  REQUIRE(p.ok());
  check::Options o;
  o.reduction = reduction;
  return check::outcome_name(check::check(p.kernel, o));
}

using testing::with;

// One warp asks for up to two more tiles; the assert states what the answers may be.
const std::string two_requests =
    "kernel t\nclc N\nsmem resp bytes 16\nmbarrier full count 1\n"
    "role sched warp:\n"
    "  go = 1\n"
    "  got = 0\n"
    "  for i in 0 .. 2:\n"
    "    if go == 1:\n"
    "      one: arrive_expect_tx full bytes 16\n"
    "      one: clc_try_cancel resp -> full\n"
    "      wait full parity i % 2\n"
    "      go = clc_query resp\n"
    "      got = got + go\n"
    "      fence_proxy_async\n"
    "      syncwarp\n"
    "  ASSERT\n";

}  // namespace

TEST_CASE("spec::clc: a failure the CTA observed ends its requests, a cancellation takes a cluster") {
  using spec::Violation;
  namespace clc = spec::clc;
  clc::State s;
  s.queue = 1;
  CHECK(clc::issue(s, 0) == Violation::none);
  CHECK(clc::may_answer(s, true));
  CHECK(clc::may_answer(s, false));
  s = clc::decide(s, true);
  CHECK(s.queue == 0);
  CHECK_FALSE(clc::may_answer(s, true));  // none left: only a failure
  CHECK(clc::may_answer(s, false));
  s = clc::decide(s, false);
  // A failure that landed and that no thread of the CTA queried yet does not count.
  CHECK(clc::issue(s, 0) == Violation::none);
  s = clc::query(s, 1, true);
  CHECK(clc::issue(s, 1) == Violation::none);
  s = clc::query(s, 1, false);  // CTA 1 observed a failure; CTA 0 did not
  CHECK(clc::issue(s, 1) == Violation::clc_misuse);
  CHECK(clc::issue(s, 0) == Violation::none);
}

TEST_CASE("both answers are explored while clusters are left, a failure once none is") {
  for (bool reduction : {true, false}) {
    CAPTURE(reduction);
    // With none left every answer is a failure.
    CHECK(outcome(with(with(two_requests, "N", "0"), "ASSERT", "assert got == 0"), reduction) == "verified");
    // With one left a tile may come (the assert that none does fails), and at most one.
    CHECK(outcome(with(with(two_requests, "N", "1"), "ASSERT", "assert got == 0"), reduction) == "assertion_failed");
    CHECK(outcome(with(with(two_requests, "N", "1"), "ASSERT", "assert got <= 1"), reduction) == "verified");
    // With two left, two may come; and a failure may come first all the same.
    CHECK(outcome(with(with(two_requests, "N", "2"), "ASSERT", "assert got <= 1"), reduction) == "assertion_failed");
    CHECK(outcome(with(with(two_requests, "N", "2"), "ASSERT", "assert got >= 1"), reduction) == "assertion_failed");
  }
}

TEST_CASE("a request after a failed response is clc_misuse") {
  const std::string unguarded = with(with(with(two_requests, "N", "1"), "ASSERT", "exit"), "    if go == 1:\n", "    if 1:\n");
  CHECK(outcome(unguarded) == "clc_misuse");
  CHECK(outcome(with(with(two_requests, "N", "1"), "ASSERT", "exit")) == "verified");
}

// Issue 62: try_cancel is undefined only "if the executing CTA has already
// observed the completion of a clusterlaunchcontrol.try_cancel instruction as
// failed" (PTX ISA clusterlaunchcontrol.try_cancel). Two requests in flight,
// the first failing before the second is issued, were clc_misuse (the model
// counted a failure when its response landed): a false alarm, now verified.
// The twin issues a third request after both answers were queried, one of
// which is a failure (`clc 1`: at most one cancellation): clc_misuse.
TEST_CASE("two requests in flight: a failure counts once the CTA has queried it") {
  const std::string k = "kernel t\nclc 1\nsmem resp[2] bytes 16\nmbarrier full[2] count 1\n"
                        "role sched warp:\n"
                        "  one: arrive_expect_tx full[0] bytes 16\n"
                        "  one: clc_try_cancel resp[0] -> full[0]\n"
                        "  one: arrive_expect_tx full[1] bytes 16\n"
                        "  one: clc_try_cancel resp[1] -> full[1]\n"
                        "  wait full[0] parity 0\n"
                        "  a = clc_query resp[0]\n"
                        "  wait full[1] parity 0\n"
                        "  b = clc_query resp[1]\n"
                        "AGAIN";
  const std::string again = "  one: fence_proxy_async\n  syncwarp\n"
                            "  one: arrive_expect_tx full[0] bytes 16\n"
                            "  one: clc_try_cancel resp[0] -> full[0]\n";
  for (bool reduction : {true, false}) {
    CAPTURE(reduction);
    CHECK(outcome(with(k, "AGAIN", ""), reduction) == "verified");  // was clc_misuse
    CHECK(outcome(with(k, "AGAIN", again), reduction) == "clc_misuse");
  }
}

TEST_CASE("every destination of a multicast request gets the same answer") {
  // CTA 1's worker tells CTA 0 what it got (an arrive on `flag` if a tile);
  // after the cluster barrier CTA 0's scheduler compares with its own answer.
  const std::string both = pc::testing::started(
      "kernel t\ncluster 2\nclc 1\nsmem resp bytes 16\nmbarrier full count 1\nmbarrier flag count 1\n"
      "role sched warp on cta 0:\n"
      "  one: arrive_expect_tx full bytes 16\n"
      "  one: arrive_expect_tx full @ 1 bytes 16\n"
      "  one: clc_try_cancel resp -> full multicast 3\n"
      "  wait full parity 0\n"
      "  a = clc_query resp\n"
      "  cluster_sync\n"
      "  r = test_wait flag parity 0 acquire cluster\n"
      "  ASSERT\n"
      "role worker warp on cta 1:\n"
      "  wait full parity 0\n"
      "  b = clc_query resp\n"
      "  if b == 1:\n"
      "    one: arrive flag @ 0 release cluster\n"
      "  cluster_sync\n");
  for (bool reduction : {true, false}) {
    CAPTURE(reduction);
    CHECK(outcome(with(both, "ASSERT", "assert r == a"), reduction) == "verified");
    // Both answers do come.
    CHECK(outcome(with(both, "ASSERT", "assert a == 0"), reduction) == "assertion_failed");
    CHECK(outcome(with(both, "ASSERT", "assert a == 1"), reduction) == "assertion_failed");
  }
}

TEST_CASE("the response is memory: read after the barrier, fenced before the next request") {
  const std::string k = "kernel t\nclc 2\nsmem resp bytes 16\nmbarrier full count 1\n"
                        "role sched warp:\n"
                        "  go = 1\n"
                        "  for i in 0 .. 2:\n"
                        "    if go == 1:\n"
                        "      one: arrive_expect_tx full bytes 16\n"
                        "      one: clc_try_cancel resp -> full\n"
                        "WAIT"
                        "      go = one: clc_query resp\n"
                        "FENCE";
  const std::string wait = "      wait full parity i % 2\n", fence = "      one: fence_proxy_async\n";
  CHECK(outcome(with(with(k, "WAIT", ""), "FENCE", fence)) == "data_race");  // read before the response lands
  CHECK(outcome(with(with(k, "WAIT", wait), "FENCE", "")) == "cross_proxy_war");  // the next response overwrites the read
  CHECK(outcome(with(with(k, "WAIT", wait), "FENCE", fence)) == "verified");
}

TEST_CASE("cluster launch control: located errors, exit 2") {
  const std::string head = "kernel t\nsmem resp bytes 32\nsmem r16 bytes 16\nmbarrier full count 1\n";
  testing::check_located_errors({
      {"response size", head + "role w warp:\n  one: clc_try_cancel resp -> full\n", 6, 23, "writes a 16-byte response"},
      {"query without a value", head + "role w warp:\n  clc_query r16\n", 6, 3, "returns a value"},
      {"clc twice", "kernel t\nclc 1\nclc 2\n", 3, 1, "'clc' is declared twice"},
      {"clc out of range", "kernel t\nclc 300\n", 2, 5, "must be in 0..255"},
      {"try_cancel with no barrier", head + "role w warp:\n  one: clc_try_cancel r16\n", 6, 26, "expected '->'"},
  });
  const std::string f = cli_support::temp_file("clc", "bad_resp.bk", head + "role w warp:\n  one: clc_try_cancel resp -> full\n");
  const cli_support::Run r = cli_support::run("clc", f);
  CHECK(r.status == 2);
  CHECK(r.err.find("bad_resp.bk:6:23: error:") != std::string::npos);
}
