// Async groups (spec/async_group.hpp) and parity aliasing (spec/mbarrier.hpp).
#include <doctest/doctest.h>

#include "spec/async_group.hpp"
#include "spec/mbarrier.hpp"

using namespace pc::spec;

TEST_CASE("wait_group N retires the groups older than the N most recent, never a newer one") {
  async_group::Groups g;
  CHECK(async_group::issue(g) == 1);
  async_group::commit(g);
  CHECK(async_group::issue(g) == 2);
  async_group::commit(g);
  CHECK(async_group::wait(g, 2) == 0u);  // both may be pending
  CHECK(async_group::wait(g, 1) == 1u);  // group 1 retires, group 2 stays
  CHECK(async_group::in_flight(g));
  CHECK(async_group::wait(g, 1) == 1u);
  CHECK(async_group::wait(g, 0) == 2u);
  CHECK_FALSE(async_group::in_flight(g));
}

TEST_CASE("an open (uncommitted) group is never retired by a wait") {
  async_group::Groups g;
  CHECK(async_group::issue(g) == 1);
  CHECK(async_group::wait(g, 0) == 0u);
  CHECK(async_group::in_flight(g));
  async_group::commit(g);
  CHECK(async_group::wait(g, 0) == 1u);
}

TEST_CASE("any number of groups in flight: wait_group N keeps exactly the N newest") {
  async_group::Groups g;
  for (int i = 1; i <= 5; ++i) {
    CHECK(async_group::issue(g) == i);
    async_group::commit(g);
  }
  CHECK(async_group::wait(g, 3) == 2u);
  CHECK(async_group::wait(g, 4) == 2u);  // a looser wait never un-retires
  CHECK(async_group::wait(g, 1) == 4u);
}

TEST_CASE("parity aliasing: two phases past the last observation") {
  CHECK_FALSE(mbarrier::parity_aliased(0, 0));
  CHECK_FALSE(mbarrier::parity_aliased(0, 1));
  CHECK(mbarrier::parity_aliased(0, 2));
  CHECK(mbarrier::parity_aliased(3, 7));
  CHECK_FALSE(mbarrier::parity_aliased(3, 4));
}
