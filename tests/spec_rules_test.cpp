// The composition rules (spec/rules.hpp), each on its own; the kernels that
// show them in a search are in tests/checker_*_test.cpp.
#include <doctest/doctest.h>

#include "spec/rules.hpp"

using namespace pc::spec;

TEST_CASE("rules: a use before the init the kernel has is unsynchronized, with no init anywhere uninitialized") {
  CHECK(rules::uninitialized_use(Violation::uninitialized_barrier, true) == Violation::unsynchronized_init);
  CHECK(rules::uninitialized_use(Violation::uninitialized_barrier, false) == Violation::uninitialized_barrier);
  CHECK(rules::uninitialized_use(Violation::invalidated_barrier, true) == Violation::invalidated_barrier);
}

TEST_CASE("rules: an init is visible, unfenced for an async use it is ordered before, or unordered") {
  hb::Check c;
  CHECK(rules::init_use(c) == rules::InitUse::visible);
  c.violation = Violation::proxy_race;
  c.other_thread = c.issuer = 3;
  CHECK(rules::init_use(c) == rules::InitUse::unfenced_own_init);
  c.other_thread = 4;  // another thread's init, ordered (a proxy race comes only after the generic order holds)
  CHECK(rules::init_use(c) == rules::InitUse::unfenced_init);
  c.violation = Violation::data_race;
  c.other_thread = 3;
  CHECK(rules::init_use(c) == rules::InitUse::unordered);
}

TEST_CASE("rules: per-thread operations, wait targets, multicast and exit") {
  CHECK(rules::per_thread_total(2, 128) == 256);
  CHECK(rules::wait_target(true) == Violation::remote_wait);
  CHECK(rules::wait_target(false) == Violation::none);
  CHECK(rules::selects(0b101, 0));
  CHECK_FALSE(rules::selects(0b101, 1));
  CHECK(rules::selects(0b101, 2));
  CHECK(rules::signalled_cta(1, -1) == 1);
  CHECK(rules::signalled_cta(1, 0) == 0);
  CHECK(rules::cta_exit({}) == Violation::none);
  CHECK(rules::cta_exit({true, false, false}) == Violation::exit_with_pending);
  CHECK(rules::cta_exit({false, true, false}) == Violation::exit_with_pending);
  CHECK(rules::cta_exit({false, false, true}) == Violation::exit_with_pending);
  CHECK(rules::target_alive(true) == Violation::exit_with_pending);
}

TEST_CASE("rules: tensor-core fences and the order of a thread's commits") {
  CHECK(rules::wgmma_issue(false) == Violation::async_group_misuse);
  CHECK(rules::wgmma_issue(true) == Violation::none);
  CHECK(rules::tcgen05_issue(true) == Violation::tcgen05_unfenced);
  CHECK(is_warning(Violation::tcgen05_unfenced));
  CHECK(rules::tcgen05_issue(false) == Violation::none);
  CHECK(rules::commit_may_land(2, 0));
  CHECK(rules::commit_may_land(2, 2));
  CHECK_FALSE(rules::commit_may_land(3, 2));
}

TEST_CASE("rules: a .cta wait acquires only its own CTA's releases, a .cluster wait also .cluster ones") {
  CHECK_FALSE(rules::acquire_channels(ordering::Scope::cta).cluster_scope_strong);
  CHECK_FALSE(rules::acquire_channels(ordering::Scope::standard).cluster_scope_strong);
  CHECK(rules::acquire_channels(ordering::Scope::cluster).cluster_scope_strong);
  // The stance on a .cta acquire of another CTA's .cluster release (docs/spec.md "Stances").
  CHECK(rules::acquire_channels(ordering::Scope::cta).cluster_release_trusted);
  CHECK(rules::acquire_channels(ordering::Scope::standard).cluster_release_trusted);
  CHECK_FALSE(rules::acquire_channels(ordering::Scope::cluster).cluster_release_trusted);
}

TEST_CASE("rules: __syncwarp orders the lanes of each warp, never two warps") {
  hb::Memory m;
  m.buffers = 1;
  const hb::AgentThreads a{0, 2};
  hb::Access w;
  w.buf = 0;
  w.kind = hb::Kind::write;
  w.issuers = hb::bit(a.cell(0, 1));
  REQUIRE(hb::access(m, w).violation == Violation::none);
  hb::Access r;
  r.buf = 0;
  r.issuers = hb::bit(a.leader(0));
  // Executed by warp 0's elected lane alone, or its other lanes alone: the
  // two classes do not wait for each other.
  rules::syncwarp(m, a, hb::bit(a.leader(0)));
  CHECK(hb::check_only(m, r).violation == Violation::data_race);
  rules::syncwarp(m, a, hb::bit(a.cell(0, 1)));
  CHECK(hb::check_only(m, r).violation == Violation::data_race);
  rules::syncwarp(m, a, a.lanes());
  CHECK(hb::check_only(m, r).violation == Violation::none);
  r.issuers = hb::bit(a.leader(1));
  CHECK(hb::check_only(m, r).violation == Violation::data_race);
}

TEST_CASE("rules: __syncwarp orders the lane classes that execute it, and only them") {
  // Three classes per warp (lane 0, lanes 1-3, lanes 4-31: `lanes 0xf:`).
  hb::Memory m;
  m.buffers = 1;
  hb::AgentThreads a{0, 1, 3, {1, 3, 28}};
  hb::Access w;
  w.buf = 0;
  w.kind = hb::Kind::write;
  w.issuers = hb::bit(a.cell(0, 2));
  REQUIRE(hb::access(m, w).violation == Violation::none);
  hb::Access r;
  r.buf = 0;
  r.issuers = hb::bit(a.leader(0));
  // Lanes 0-3 synchronise: the write of lanes 4-31 stays unordered.
  rules::syncwarp(m, a, hb::bit(a.leader(0)) | hb::bit(a.cell(0, 1)));
  CHECK(hb::check_only(m, r).violation == Violation::data_race);
  // Lane 0 with lanes 4-31: ordered, and lanes 1-3 still not.
  rules::syncwarp(m, a, hb::bit(a.leader(0)) | hb::bit(a.cell(0, 2)));
  CHECK(hb::check_only(m, r).violation == Violation::none);
  r.issuers = hb::bit(a.cell(0, 1));
  CHECK(hb::check_only(m, r).violation == Violation::data_race);
  CHECK(a.count() == 3 + hb::units);
  CHECK(a.others(0) == (hb::bit(a.cell(0, 1)) | hb::bit(a.cell(0, 2))));
}
