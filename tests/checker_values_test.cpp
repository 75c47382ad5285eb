// Values in shared memory (docs/dsl.md, "Values in shared memory"): a
// `one: write B value V` stores V, `r = read B` returns what the write it is
// ordered after stored, and the value steers the reader's control flow.
// Before: `.bk` had no values; a read could not be assigned.
#include <doctest/doctest.h>

#include <string>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/program.hpp"
#include "checker/smt/bmc.hpp"
#include "tests/agreed_check.hpp"
#include "tests/kernel_text.hpp"
#include "tests/located_errors.hpp"

using namespace pc;
using testing::with;

namespace {

std::string outcome(const std::string& text) { return testing::agreed_outcome(text); }

// A scheduler warp stores a flag V; the worker reads it after the barrier
// and either reads the data (flag 1) or writes it (any other flag, where
// the scheduler's own later read races with that write).
const std::string flag_kernel =
    "kernel flag\nsmem flag bytes 4\nsmem data bytes 256\nmbarrier ready[1] count 1\n"
    "role sched warp:\n  one: write data\n  one: write flag value V\n  one: arrive ready[0]\n  one: read data\n"
    "role worker warp:\n  wait ready[0] parity 0\n  r = read flag\n  if r == 1:\n    all: read data\n  else:\n    all: write data\n";

}  // namespace

TEST_CASE("values: the value read steers the reader, and each value gives its verdict") {
  CHECK(outcome(with(flag_kernel, "value V", "value 1")) == "verified");
  CHECK(outcome(with(flag_kernel, "value V", "value 2")) == "data_race");
  // The read is still a read: without the barrier it races with the store.
  CHECK(outcome(with(with(flag_kernel, "value V", "value 1"), "  wait ready[0] parity 0\n", "")) == "data_race");
  // A value is read back by the lane that stored it, 0 before any store.
  CHECK(outcome("kernel t\nsmem f bytes 4\nrole a warp:\n  r = one: read f\n  assert r == 0\n  one: write f value 7\n"
                "  r = one: read f\n  assert r == 7\n") == "verified");
}

TEST_CASE("values: a scheduler publishing tile indices until there is no more work") {
  const std::string k =
      "kernel scheduler\nparam TILES = 3\nsmem tile bytes 4\nsmem data[2] bytes 256\nmbarrier full[1] count 1\n"
      "mbarrier empty[1] count 1\n"
      "role sched warp:\n  for t in 0 .. TILES + 1:\n    EMPTY\n    if t < TILES:\n      one: write data[t % 2]\n"
      "    one: write tile value t\n    one: arrive full[0]\n"
      "role worker warp:\n  for t in 0 .. TILES + 1:\n    wait full[0] parity t % 2\n    r = read tile\n    if r < TILES:\n"
      "      all: read data[r % 2]\n    else:\n      exit\n    syncwarp\n    one: arrive empty[0]\n";
  CHECK(outcome(with(k, "EMPTY", "wait empty[0] parity (t + 1) % 2")) == "verified");
  // The scheduler stores the next index while the worker may still read the last one.
  CHECK(outcome(with(k, "EMPTY", "syncwarp")) == "data_race");
}

TEST_CASE("values: the forms a value takes are located errors otherwise") {
  const std::string head = "kernel t\nsmem f bytes 4\nsmem g bytes 4\nrole a warp:\n";
  testing::check_located_errors({
      {"every lane stores", head + "  all: write f value 1\n", 5, 8, "stored by one lane"},
      {"two buffers", head + "  one: write f, g value 1\n", 5, 8, "stores one word"},
      {"two buffers read", head + "  r = read f, g\n", 5, 7, "returns the value of one buffer"},
      {"a write returns nothing", head + "  r = one: write f\n", 5, 12, "returns no value"},
  });
}

TEST_CASE("values: a value out of range stops the search at its line") {
  testing::check_run_error("kernel t\nsmem f bytes 4\nrole a warp:\n  one: write f value 0 - 1\n", 4, 8, "0..2^31-1");
}

TEST_CASE("values: the bounded SMT search does not follow them") {
  const dsl::Parsed p = dsl::parse(with(flag_kernel, "value V", "value 1"), "flag.bk");
  REQUIRE(p.ok());
  const smt::BmcResult r = smt::bounded_search(p.kernel, smt::BmcOptions{});
  CHECK(r.verdict == smt::BmcResult::Verdict::not_covered);
  CHECK(r.reason.find("value") != std::string::npos);
}
