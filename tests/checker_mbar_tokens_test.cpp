// The mbarrier preconditions the PTX ISA states and the explorer checks on
// whole kernels: a state token must name the current or the immediately
// preceding phase (mbarrier.test_wait/try_wait), and arrive_drop may not take
// the expected count to zero (mbarrier.arrive_drop). Each minimal kernel with
// the corrected kernel beside it, with and without reductions.
#include <doctest/doctest.h>

#include <string>

#include "tests/agreed_check.hpp"

using namespace pc;

namespace {

// Both searches (with and without reductions) must give `outcome`.
void expect(const std::string& text, const char* outcome) {
  CAPTURE(text);
  CHECK(testing::agreed_outcome(text) == outcome);
}

}  // namespace

// Two warps on a count-2 barrier. The waiter keeps the token of its first
// arrive and arrives once more before it waits: its two arrivals complete
// phase 0, the other warp's two complete phase 1, and the wait then names a
// phase two back. Before issue 62 the model
// followed the H100 (the token tested by its parity: false again, so the
// waiter hung: `deadlock`); the ISA makes the wait undefined.
TEST_CASE("a wait with the token of an arrive two phases back is stale_token") {
  const std::string stale =
      "kernel k\nmbarrier bar count 2\n"
      "role a warp:\n  t = one: arrive bar\n  one: arrive bar\n  wait bar token t\n"
      "role b warp:\n  one: arrive bar\n  wait bar parity 0\n  one: arrive bar\n";
  expect(stale, "stale_token");
  // The wait right after the arrive whose phase it names: the current or the preceding phase.
  const std::string fresh =
      "kernel k\nmbarrier bar count 2\n"
      "role a warp:\n  t = one: arrive bar\n  wait bar token t\n  u = one: arrive bar\n  wait bar token u\n"
      "role b warp:\n  one: arrive bar\n  wait bar parity 0\n  one: arrive bar\n";
  expect(fresh, "verified");
}

// PTX ISA mbarrier.arrive_drop: "If the decrement causes the expected arrivals
// count to be zero, the behavior is undefined." Before issue 62 a barrier
// whose every participant dropped out verified.
TEST_CASE("arrive_drop of the last participant is expected_count_zero") {
  const std::string all_drop =
      "kernel k\nmbarrier bar count 2\n"
      "role a warp:\n  one: arrive bar\n  wait bar parity 0\n  one: arrive_drop bar\n"
      "role b warp:\n  one: arrive bar\n  wait bar parity 0\n  one: LAST bar\n";
  auto with = [&](const char* last) {
    std::string t = all_drop;
    t.replace(t.find("LAST"), 4, last);
    return t;
  };
  expect(with("arrive_drop"), "expected_count_zero");
  // The last one arrives instead: phase 1 completes with the one arrival left.
  expect(with("arrive"), "verified");
}
