// Rules of spec/mbarrier.hpp, including the facts measured on an H100.
#include <doctest/doctest.h>

#include "spec/mbarrier.hpp"

using namespace pc::spec;
using namespace pc::spec::mbarrier;

namespace {
State live(std::int64_t count) {
  Result r = init(State{}, count);
  REQUIRE(r.out.ok());
  return r.next;
}
}  // namespace

TEST_CASE("fresh barrier: parity(1) true, parity(0) false (H100, fresh_parity)") {
  State s = live(1);
  CHECK(test_wait_parity(s, 1).observed == 1);
  CHECK(test_wait_parity(s, 0).observed == 0);
  CHECK_FALSE(try_wait_parity(s, 0).enabled);
  CHECK(try_wait_parity(s, 1).enabled);
}

TEST_CASE("count arrivals complete a phase, fewer do not") {
  State s = live(3);
  for (int i = 0; i < 2; ++i) {
    Result r = arrive(s, {});
    REQUIRE(r.out.ok());
    CHECK_FALSE(r.out.phase_completed);
    s = r.next;
  }
  CHECK(test_wait_parity(s, 0).observed == 0);
  Result r = arrive(s, {});
  CHECK(r.out.phase_completed);
  CHECK(r.next.phase == 1);
  CHECK(r.next.pending == 3);
  CHECK(test_wait_parity(r.next, 0).observed == 1);
  CHECK(test_wait_parity(r.next, 1).observed == 0);
}

TEST_CASE("expect_tx holds the phase open until complete_tx") {
  State s = live(1);
  Result r = arrive(s, {.count = 1, .expect_tx = 1024});
  REQUIRE(r.out.ok());
  CHECK_FALSE(r.out.phase_completed);
  r = complete_tx(r.next, 512);
  CHECK_FALSE(r.out.phase_completed);
  r = complete_tx(r.next, 512);
  CHECK(r.out.phase_completed);
  CHECK(r.next.phase == 1);
}

TEST_CASE("complete_tx before expect_tx: tx-count goes negative, phase completes at zero") {
  State s = live(1);
  Result r = complete_tx(s, 256);
  REQUIRE(r.out.ok());
  CHECK(r.next.tx == -256);
  r = arrive(r.next, {.count = 1, .expect_tx = 256});
  CHECK(r.out.phase_completed);
}

TEST_CASE("arrive_drop lowers the expected count of later phases") {
  State s = live(2);
  Result r = arrive(s, {.count = 1, .drop = true});
  REQUIRE(r.out.ok());
  CHECK(r.next.expected == 1);
  r = arrive(r.next, {});
  CHECK(r.out.phase_completed);
  CHECK(r.next.pending == 1);  // the next phase needs one arrival only
  r = arrive(r.next, {});
  CHECK(r.out.phase_completed);
}

TEST_CASE("phase arithmetic over many phases") {
  State s = live(2);
  for (std::uint32_t k = 0; k < 1000; ++k) {
    CHECK(test_wait_parity(s, k & 1u).observed == 0);
    CHECK(test_wait_parity(s, (k + 1) & 1u).observed == 1);
    Token t = token_before(s);
    s = arrive(s, {}).next;
    CHECK(test_wait_token(s, t).observed == 0);
    s = arrive(s, {}).next;
    CHECK(test_wait_token(s, t).observed == 1);
    CHECK(s.phase == k + 1);
  }
}

TEST_CASE("violations of mbarrier use, and the correct use beside each") {
  CHECK(arrive(State{}, {}).out.violation == Violation::uninitialized_barrier);
  CHECK(init(State{}, 0).out.violation == Violation::bad_init_count);
  CHECK(init(State{}, max_count + 1).out.violation == Violation::bad_init_count);
  CHECK(init(State{}, max_count).out.ok());
  State s = live(1);
  CHECK(init(s, 1).out.violation == Violation::reinit_live_barrier);
  State dead = inval(s).next;
  CHECK(arrive(dead, {}).out.violation == Violation::invalidated_barrier);
  CHECK(init(dead, 1).out.ok());
  CHECK(arrive(live(1), {.count = 2}).out.violation == Violation::arrival_underflow);
  CHECK(arrive(live(2), {.count = 2}).out.ok());
  {  // a failing arrive.expect_tx leaves tx-count and expected count as they were
    const Result r = arrive(live(1), {.count = 2, .expect_tx = 64});
    CHECK(r.out.violation == Violation::arrival_underflow);
    CHECK(r.next.tx == 0);
    const Result d = arrive(live(1), {.count = 2, .drop = true});
    CHECK(d.out.violation == Violation::arrival_underflow);
    CHECK(d.next.expected == 1);
  }
  CHECK(arrive(live(1), {.count = 0}).out.violation == Violation::bad_arrive_count);
  CHECK(arrive(live(2), {.count = 1, .no_complete = true}).out.ok());
  CHECK(arrive(live(1), {.count = 1, .no_complete = true}).out.violation ==
        Violation::nocomplete_would_complete);
  CHECK(expect_tx(live(1), max_tx + 1).out.violation == Violation::tx_out_of_range);
  CHECK(expect_tx(live(1), max_tx).out.ok());
  CHECK(complete_tx(live(1), max_tx + 1).out.violation == Violation::tx_out_of_range);
}

// PTX ISA mbarrier.test_wait: valid only for the current incomplete phase
// and the immediately preceding phase. Before, the model followed the H100
// (test_wait answers by the parity, so two phases later it read false
// again: harness tests op_sequences and token_two_phases_later); the ISA's
// letter makes that use undefined.
TEST_CASE("test_wait with a token from two or more phases back is stale_token") {
  State s = live(1);
  const Token t = token_before(s);
  CHECK(test_wait_token(s, t).ok());
  CHECK(test_wait_token(s, t).observed == 0);  // the current phase
  s = arrive(s, {}).next;                      // phase 0 completes
  CHECK(test_wait_token(s, t).observed == 1);  // the immediately preceding phase
  s = arrive(s, {}).next;                      // phase 1 completes
  CHECK(test_wait_token(s, t).violation == Violation::stale_token);
  s = arrive(s, {}).next;
  CHECK(test_wait_token(s, t).violation == Violation::stale_token);
  // A token from before a re-initialisation names a phase of another object.
  State again = init(inval(s).next, 1).next;
  CHECK(test_wait_token(again, Token{5, 1, false}).violation == Violation::stale_token);
  CHECK(test_wait_token(again, token_before(again)).ok());
}

TEST_CASE("arrive_drop that takes the expected count to zero is expected_count_zero") {
  // PTX ISA mbarrier.arrive_drop: "If the decrement causes the expected
  // arrivals count to be zero, the behavior is undefined."
  const Result last = arrive(live(1), {.count = 1, .drop = true});
  CHECK(last.out.violation == Violation::expected_count_zero);
  CHECK(last.next.expected == 1);  // a failing operation leaves the state as it was
  CHECK(arrive(live(3), {.count = 3, .drop = true}).out.violation == Violation::expected_count_zero);
  CHECK(arrive(live(3), {.count = 2, .drop = true}).out.ok());  // one participant left
  // Two participants each dropping: the second drop is the undefined one.
  Result r = arrive(live(2), {.count = 1, .drop = true});
  REQUIRE(r.out.ok());
  CHECK(arrive(r.next, {.count = 1, .drop = true}).out.violation == Violation::expected_count_zero);
}

TEST_CASE("a tx operand outside 0..2^20-1 is tx_out_of_range even when the tx-count stays in range") {
  State s = live(1);
  Result r = complete_tx(s, 16);
  REQUIRE(r.out.ok());
  CHECK(expect_tx(r.next, 1 << 20).out.violation == Violation::tx_out_of_range);
  CHECK(expect_tx(r.next, (1 << 20) - 1).out.ok());  // tx 2^20-17: both in range
  const Result full = expect_tx(s, (1 << 20) - 1);
  REQUIRE(full.out.ok());
  CHECK(complete_tx(full.next, 1 << 20).out.violation == Violation::tx_out_of_range);  // tx would be -1
  ArriveArgs a;
  a.expect_tx = 1 << 20;
  CHECK(arrive(r.next, a).out.violation == Violation::tx_out_of_range);
}
