// Async groups (spec/async_group.hpp) and parity aliasing (spec/mbarrier.hpp).
#include <doctest/doctest.h>

#include "spec/async_group.hpp"
#include "spec/mbarrier.hpp"

using namespace pc::spec;

TEST_CASE("wait_group N retires the groups older than the N most recent, never a newer one") {
  async_group::Groups g;
  CHECK(async_group::issue(g) == 0);  // group 0
  async_group::commit(g);
  CHECK(async_group::issue(g) == 1);  // group 1
  async_group::commit(g);
  CHECK(async_group::wait(g, 2) == 0u);  // both may be pending
  CHECK(async_group::wait(g, 1) == 1u);  // group 0 retires, group 1 stays
  CHECK(async_group::wait(g, 1) == 0u);
  CHECK(async_group::wait(g, 0) == 2u);
}

TEST_CASE("an open (uncommitted) group is never retired by a wait") {
  async_group::Groups g;
  (void)async_group::issue(g);
  CHECK(async_group::wait(g, 0) == 0u);
  async_group::commit(g);
  CHECK(async_group::wait(g, 0) == 1u);
}

TEST_CASE("a unit shared by an old and a newer group waits for the newer one") {
  async_group::Groups g;
  (void)async_group::issue(g);  // group 0 on unit 0
  async_group::commit(g);
  async_group::commit(g);        // group 1 empty
  (void)async_group::issue(g);  // group 2 on unit 0 again
  async_group::commit(g);
  CHECK(async_group::wait(g, 1) == 0u);  // group 2 may be pending: unit 0 stays
  CHECK(async_group::wait(g, 0) == 1u);
}

TEST_CASE("parity aliasing: two phases past the last observation") {
  CHECK_FALSE(mbarrier::parity_aliased(0, 0));
  CHECK_FALSE(mbarrier::parity_aliased(0, 1));
  CHECK(mbarrier::parity_aliased(0, 2));
  CHECK(mbarrier::parity_aliased(3, 7));
  CHECK_FALSE(mbarrier::parity_aliased(3, 4));
}
