// Strong operations (docs/spec.md, "strong operations"; PTX ISA, Memory
// Consistency Model, "Morally strong operations", "Data races"): `atomic`
// (atom, red, a strong store) and `atomic_load` (a strong load) never race
// with each other, and conflict with plain accesses as a write and a read
// do unless happens-before orders them.
#include <doctest/doctest.h>

#include <string>

#include "tests/agreed_check.hpp"
#include "tests/kernel_text.hpp"

using namespace pc;

namespace {

// Two warps, each one operation on A[0] (FIRST, SECOND), with SYNC between
// them: nothing, or a named barrier both reach.
const std::string pair =
    "kernel atomics\n"
    "smem A[1] bytes 4\n"
    "role p warp:\n"
    "  FIRST\n"
    "  SYNCP\n"
    "role q warp:\n"
    "  SYNCQ\n"
    "  SECOND\n";

std::string outcome(const std::string& first, const std::string& second, bool synced = false) {
  std::string k = testing::with(pair, "FIRST", first);
  k = testing::with(k, "SECOND", second);
  k = testing::with(k, "SYNCP", synced ? "bar_sync 1, 64" : "");
  k = testing::with(k, "SYNCQ", synced ? "bar_sync 1, 64" : "");
  return testing::agreed_outcome(k);
}

}  // namespace

TEST_CASE("atomic: strong operations never race with each other") {
  CHECK(outcome("all: atomic A[0]", "all: atomic A[0]") == "verified");
  CHECK(outcome("one: atomic A[0]", "all: atomic_load A[0]") == "verified");
  CHECK(outcome("all: atomic_load A[0]", "one: atomic A[0]") == "verified");
  CHECK(outcome("all: atomic_load A[0]", "all: atomic_load A[0]") == "verified");
}

TEST_CASE("atomic: a strong operation conflicts with a plain access unless ordered") {
  // atomic is a write: it races with a plain read or write.
  CHECK(outcome("all: atomic A[0]", "all: read A[0]") == "data_race");
  CHECK(outcome("all: read A[0]", "all: atomic A[0]") == "data_race");
  CHECK(outcome("one: write A[0]", "all: atomic A[0]") == "data_race");
  // atomic_load is a read: with a plain read no conflict, with a write a race.
  CHECK(outcome("all: atomic_load A[0]", "all: read A[0]") == "verified");
  CHECK(outcome("all: atomic_load A[0]", "one: write A[0]") == "data_race");
  CHECK(outcome("one: write A[0]", "all: atomic_load A[0]") == "data_race");
  // Ordered by a barrier: no race.
  CHECK(outcome("all: atomic A[0]", "all: read A[0]", true) == "verified");
  CHECK(outcome("one: write A[0]", "all: atomic_load A[0]", true) == "verified");
  // Two atomics, then a plain read ordered after one of them only: the
  // other still races with it.
  const std::string three =
      "kernel atomics\n"
      "smem A[1] bytes 4\n"
      "role p warp:\n"
      "  all: atomic A[0]\n"
      "role q warp:\n"
      "  all: atomic A[0]\n"
      "  bar_sync 1, 64\n"
      "role r warp:\n"
      "  bar_sync 1, 64\n"
      "  all: read A[0]\n";
  CHECK(testing::agreed_outcome(three) == "data_race");
  // Ordered after both (p through barrier 2, q through barrier 1): none.
  const std::string both =
      "kernel atomics\n"
      "smem A[1] bytes 4\n"
      "role p warp:\n"
      "  all: atomic A[0]\n"
      "  bar_sync 2, 64\n"
      "role q warp:\n"
      "  all: atomic A[0]\n"
      "  bar_sync 1, 64\n"
      "role r warp:\n"
      "  bar_sync 1, 64\n"
      "  bar_sync 2, 64\n"
      "  all: read A[0]\n";
  CHECK(testing::agreed_outcome(both) == "verified");
}

// Morally strong only where they overlap completely: atomics of two
// buffers that share some bytes (an alias) conflict as plain writes do.
TEST_CASE("atomic: atomics of overlapping, different bytes race") {
  const std::string k =
      "kernel atomics\n"
      "smem X bytes 8\n"
      "smem Y bytes 4 aliases X offset 4\n"
      "role p warp:\n"
      "  all: atomic X\n"
      "role q warp:\n"
      "  all: SECOND\n";
  CHECK(testing::agreed_outcome(testing::with(k, "SECOND", "atomic Y")) == "data_race");
  CHECK(testing::agreed_outcome(testing::with(k, "SECOND", "atomic_load Y")) == "data_race");
  CHECK(testing::agreed_outcome(testing::with(k, "SECOND", "atomic X")) == "verified");
}
