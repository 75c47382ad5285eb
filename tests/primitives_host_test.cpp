// The host side of spec/primitives.hpp is the model: the same calls a kernel
// makes, answered by spec/. These are the facts the H100 run confirmed
// (docs/conformance/h100-2026-11-22.md, fixed sequences).
#include <doctest/doctest.h>

#include "spec/primitives.hpp"

namespace prim = pc::prim;

TEST_CASE("primitives on the host: the model's answers to the fixed sequences") {
  prim::Mbarrier b;
  prim::mbarrier_init(&b, 3);
  CHECK_FALSE(prim::mbarrier_test_wait_parity(&b, 0));
  CHECK(prim::mbarrier_test_wait_parity(&b, 1));
  const prim::ModelToken t = prim::mbarrier_arrive(&b, 1);
  CHECK(b.violation == pc::spec::Violation::none);
  // The state before the arrive, as the H100 answers; the ISA defines the
  // count only for a .noComplete arrive's token, so the model records it.
  CHECK(prim::mbarrier_pending_count(t) == 3);
  CHECK(b.violation == pc::spec::Violation::pending_count_undefined);
  b.violation = pc::spec::Violation::none;
  prim::mbarrier_arrive(&b, 1, prim::relaxed);
  prim::mbarrier_arrive(&b, 1);
  CHECK(prim::mbarrier_test_wait_parity(&b, 0));
  CHECK(prim::mbarrier_test_wait(&b, t));
  CHECK(b.violation == pc::spec::Violation::none);
  prim::Mbarrier n;
  prim::mbarrier_init(&n, 3);
  CHECK(prim::mbarrier_pending_count(prim::mbarrier_arrive_nocomplete(&n, 1)) == 3);
  CHECK(n.violation == pc::spec::Violation::none);

  prim::Mbarrier tx;
  prim::mbarrier_init(&tx, 1);
  prim::mbarrier_complete_tx(&tx, 64);
  CHECK_FALSE(prim::mbarrier_test_wait_parity(&tx, 0));
  prim::mbarrier_arrive_expect_tx(&tx, 64);
  CHECK(prim::mbarrier_test_wait_parity(&tx, 0));
}

TEST_CASE("primitives on the host record undefined use instead of guessing") {
  prim::Mbarrier b;
  prim::mbarrier_init(&b, 1);
  prim::mbarrier_arrive(&b, 2);
  CHECK(b.violation == pc::spec::Violation::arrival_underflow);
  prim::Mbarrier c;
  prim::mbarrier_init(&c, 1);
  prim::mbarrier_arrive_nocomplete(&c, 1);
  CHECK(c.violation == pc::spec::Violation::nocomplete_would_complete);
  // Waits record theirs as the device-side model does: a wait on a barrier
  // never initialised, or invalidated, is undefined (and answers false).
  prim::Mbarrier never;
  CHECK_FALSE(prim::mbarrier_test_wait_parity(&never, 1));
  CHECK(never.violation == pc::spec::Violation::uninitialized_barrier);
  prim::Mbarrier gone;
  prim::mbarrier_init(&gone, 1);
  const prim::ModelToken t = prim::mbarrier_arrive(&gone, 1);
  prim::mbarrier_inval(&gone);
  CHECK(gone.violation == pc::spec::Violation::none);
  CHECK_FALSE(prim::mbarrier_test_wait(&gone, t));
  CHECK(gone.violation == pc::spec::Violation::invalidated_barrier);
  prim::Mbarrier polled;
  CHECK_FALSE(prim::mbarrier_try_wait_parity(&polled, 0));
  CHECK(polled.violation == pc::spec::Violation::uninitialized_barrier);
}

TEST_CASE("the software mbarrier through the same API") {
  std::uint64_t w = 0;
  prim::sw_mbarrier_init(&w, 2);
  CHECK(prim::sw_mbarrier_test_wait_parity(&w, 1));
  CHECK_FALSE(prim::sw_mbarrier_test_wait_parity(&w, 0));
  prim::sw_mbarrier_arrive(&w, 1);
  CHECK_FALSE(prim::sw_mbarrier_test_wait_parity(&w, 0));
  prim::sw_mbarrier_arrive(&w, 1);
  CHECK(prim::sw_mbarrier_test_wait_parity(&w, 0));
}

TEST_CASE("primitives on the host: st.async lands its value and completes 4 bytes on its barrier") {
  prim::Mbarrier full;
  prim::mbarrier_init(&full, 1);
  prim::mbarrier_arrive_expect_tx(&full, 8);
  std::uint32_t words[2] = {0, 0};
  prim::st_async_b32(&words[0], 7, &full);
  CHECK_FALSE(prim::mbarrier_test_wait_parity(&full, 0));  // 4 of 8 bytes
  prim::st_async_b32(&words[1], 9, &full);
  CHECK(prim::mbarrier_test_wait_parity(&full, 0));
  CHECK(words[0] == 7);
  CHECK(words[1] == 9);
  CHECK(full.violation == pc::spec::Violation::none);
}

TEST_CASE("primitives on the host: red.async adds its value and completes 4 bytes on its barrier") {
  prim::Mbarrier full;
  prim::mbarrier_init(&full, 1);
  prim::mbarrier_arrive_expect_tx(&full, 8);
  std::uint32_t sum = 5;
  prim::red_async_add_u32(&sum, 2, &full);
  prim::red_async_add_u32(&sum, 3, &full);
  CHECK(prim::mbarrier_test_wait_parity(&full, 0));
  CHECK(sum == 10);
}

TEST_CASE("primitives on the host: cp.async copies land when a wait_group retires their group") {
  prim::CpAsyncThread t;
  const std::uint32_t src[3] = {11, 22, 33};
  std::uint32_t dst[3] = {0, 0, 0};
  prim::cp_async_4(t, &dst[0], &src[0]);
  prim::cp_async_commit_group(t);
  prim::cp_async_4(t, &dst[1], &src[1]);
  prim::cp_async_commit_group(t);
  prim::cp_async_4(t, &dst[2], &src[2]);  // the open group
  prim::cp_async_wait_group(t, 1);         // at most one committed group pending
  CHECK(dst[0] == 11);
  CHECK(dst[1] == 0);
  CHECK(dst[2] == 0);
  prim::cp_async_wait_group(t, 0);         // the open group is not committed: still pending
  CHECK(dst[1] == 22);
  CHECK(dst[2] == 0);
  prim::cp_async_wait_all(t);              // commits it, then waits
  CHECK(dst[2] == 33);
  CHECK(t.in_flight.empty());
}

TEST_CASE("primitives on the host: an arrive on another CTA's barrier is one arrive-on of it") {
  prim::Mbarrier empty;
  prim::mbarrier_init(&empty, 2);
  prim::mbarrier_arrive_cluster(&empty);  // the peer CTA's consumer
  CHECK_FALSE(prim::mbarrier_test_wait_parity(&empty, 0));
  prim::mbarrier_arrive(&empty, 1);  // this CTA's
  CHECK(prim::mbarrier_test_wait_parity(&empty, 0));
  CHECK(empty.violation == pc::spec::Violation::none);
  prim::Mbarrier one;
  prim::mbarrier_init(&one, 1);
  prim::mbarrier_arrive(&one, 1, prim::relaxed);
  prim::mbarrier_arrive_cluster(&one);  // the next phase's
  CHECK(prim::mbarrier_test_wait_parity(&one, 1));
}
