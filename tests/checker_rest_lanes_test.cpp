// `rest:`: every lane of each warp but its elected lane, the other side of
// a lane test (`if (lane == 0) ... else ...`), or a tail a compiler gave each
// side of one (CUTLASS's sm90 warp-specialized GEMM arrives on its load-order
// barrier with lanes 1-31 in one place and lane 0 in another). Each lane's
// arrive-on is its own (PTX ISA mbarrier.arrive), and a warp's executing
// lanes arrive as one (docs/spec.md, "Per-thread arrivals"): `rest:` is 31
// arrivals per warp. Its lanes are the model's rest(w) class of each warp
// (spec/hb.hpp), so what they access is ordered with the elected lane's
// only through a barrier or a `syncwarp` both classes execute. Before this,
// `.bk` could not say it and the PTX front end refused it. Both engines
// agree on each kernel (the bounded one where its fragment covers it).
#include <doctest/doctest.h>

#include <string>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/smt/bmc.hpp"
#include "tests/agreed_check.hpp"

using namespace pc;
using testing::agreed_check;

namespace {

// The explicit searches' outcome (with and without reductions, which must
// agree), and the bounded search's verdict where it covers the kernel.
std::string outcome(const std::string& text) {
  const check::Result r = agreed_check(text);
  const dsl::Parsed p = dsl::parse(text, "test.bk");
  const smt::BmcResult b = smt::bounded_search(p.kernel, {});
  if (b.verdict != smt::BmcResult::Verdict::not_covered) {
    CAPTURE(b.reason);
    CHECK((b.verdict == smt::BmcResult::Verdict::violation) == (r.verdict == check::Verdict::violation));
  }
  return check::outcome_name(r);
}

std::string first_error(const std::string& text) {
  const dsl::Parsed p = dsl::parse(text, "test.bk");
  return p.errors.empty() ? "" : p.errors[0].message;
}

std::string with_count(int count) { return "kernel k\nsmem a bytes 256\nmbarrier m count " + std::to_string(count) + "\n"; }

const std::string head = with_count(32);

}  // namespace

TEST_CASE("rest lanes: a warp's lanes but its leader arrive 31 times, as one arrive-on") {
  // Lane 0 and lanes 1-31 arrive apart: 32 arrivals complete the phase.
  const std::string both = "role p warp:\n  one: write a\n  one: arrive m\n  rest: arrive m\n"
                           "role c warp:\n  wait m parity 0\n  all: read a\n";
  CHECK(outcome(with_count(32) + both) == "verified");
  // Lanes 1-31 alone leave one arrival pending.
  CHECK(outcome(with_count(32) + "role p warp:\n  rest: arrive m\nrole c warp:\n  wait m parity 0\n") == "deadlock");
  CHECK(outcome(with_count(31) + "role p warp:\n  rest: arrive m\nrole c warp:\n  wait m parity 0\n") == "verified");
  // 31 arrivals on 30 pending: a warp's lanes arrive as one, past the count.
  CHECK(outcome(with_count(30) + "role p warp:\n  rest: arrive m\n") == "arrival_underflow");
  // A warp group: each warp's other lanes, 4 x 31 = 124.
  CHECK(outcome(with_count(124) + "role p warpgroup:\n  rest: arrive m\nrole c warp:\n  wait m parity 0\n") == "verified");
  CHECK(outcome(with_count(128) + "role p warpgroup:\n  rest: arrive m\nrole c warp:\n  wait m parity 0\n") == "deadlock");
  CHECK(outcome(with_count(128) + "role p warpgroup:\n  rest: arrive m\n  each: arrive m\nrole c warp:\n  wait m parity 0\n") ==
        "verified");
}

TEST_CASE("rest lanes: the elected lane and the other lanes are ordered only by what both execute") {
  // Lane 0 writes, lanes 1-31 read: a syncwarp of the whole warp between.
  CHECK(outcome(head + "role r warp:\n  one: write a\n  syncwarp\n  rest: read a\n") == "verified");
  CHECK(outcome(head + "role r warp:\n  one: write a\n  rest: read a\n") == "data_race");
  // elect.sync by lanes 1-31: its member mask must be exactly those lanes.
  CHECK(outcome(head + "role r warp:\n  rest: elect_sync mask 0xfffffffe\n") == "verified");
  const check::Result r = agreed_check(head + "role r warp:\n  rest: elect_sync\n");
  CHECK(check::outcome_name(r) == "warp_mask_misuse");
  CHECK(r.message.find("every lane but lane 0") != std::string::npos);
  // Lanes 1-31 write, lane 0 reads after a barrier of both.
  CHECK(outcome(head + "role r warp:\n  rest: write a\n  syncwarp\n  one: read a\n") == "verified");
  CHECK(outcome(head + "role r warp:\n  rest: write a\n  one: read a\n") == "data_race");
}

TEST_CASE("rest lanes: where the prefix does not apply") {
  CHECK(first_error(head + "role r warp:\n  rest: bar_sync 1, 32\n").find("remove 'rest:'") != std::string::npos);
  // Since the lane classes (docs/spec.md, "Lane classes") a syncwarp of
  // lanes 1-31 can be written (it was "remove 'rest:'"): it orders nothing
  // with lane 0.
  CHECK(outcome(head + "role r warp:\n  one: write a\n  rest: syncwarp mask 0xfffffffe\n  rest: read a\n") == "data_race");
  CHECK(first_error(head + "role r warp:\n  rest: tma_load a -> m\n").find("one elected lane") != std::string::npos);
  CHECK(first_error(head + "role r warpgroup:\n  warp 1: rest: arrive m\n").find("'warp K: rest:'") != std::string::npos);
  CHECK(first_error(head + "role r warp:\n  if lane == 0:\n    rest: arrive m\n").find("already says which lanes") !=
        std::string::npos);
}
