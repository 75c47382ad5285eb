// Theorem (a): the bit-packed software mbarrier (spec/sw_mbarrier.hpp) refines
// the spec mbarrier (spec/mbarrier.hpp) for init, arrive and test_wait.parity.
//
// The refinement relation R(w, s) between a word w and a spec state s (live,
// tx-count 0): pending(w) = s.pending, reload(w) = s.expected, and
// phase(w) = s.phase mod 2^24. The invariant I(w): 1 <= pending(w) <= reload(w).
//  (a1) init: for every count in 1..2^20-1, R(init(count), mbarrier::init(count)) and I(init(count)).
//  (a2) arrive: for all w, s with R(w, s) and I(w), and every count with
//       1 <= count <= pending(w): R(arrive(w, count), mbarrier::arrive(s, count)), and
//       the phase completes in one exactly when it completes in the other.
//  (a3) validity: for all w, s with R(w, s) and every count in 0..2^20-1,
//       arrive_valid(w, count) holds iff mbarrier::arrive(s, count) reports no violation.
//  (a4) parity: for all w, s with R(w, s) and parity p in {0, 1},
//       test_wait_parity(w, p) = mbarrier::test_wait_parity(s, p).
//  (a5) invariant: I(w) and arrive_valid(w, count) imply I(arrive(w, count)).
// Together: every sequence of init, defined arrives and parity tests observes
// the same results on both, for every state within the field ranges.
#include <doctest/doctest.h>

#include <random>

#include "proofs/encoding.hpp"
#include "proofs/prove.hpp"
#include "spec/mbarrier.hpp"
#include "spec/sw_mbarrier.hpp"

namespace mb = pc::spec::mbarrier;
namespace sw = pc::spec::sw_mbarrier;
using namespace pc::proofs;

namespace {

z3::expr zext32(const z3::expr& e) { return z3::zext(e, 32 - e.get_sort().bv_size()); }

z3::expr related(const z3::expr& w, const SpecState& s) {
  return zext32(SwEnc::pending(w)) == s.pending && zext32(SwEnc::reload(w)) == s.expected &&
         SwEnc::phase(w) == s.phase.extract(23, 0);
}

z3::expr invariant(const z3::expr& w) {
  z3::context& c = w.ctx();
  return z3::uge(SwEnc::pending(w), c.bv_val(1, 20)) && z3::ule(SwEnc::pending(w), SwEnc::reload(w));
}

struct Vars {
  z3::context c;
  z3::expr w = c.bv_const("word", 64);
  SpecState s{c.bv_const("s_pending", 32), c.bv_const("s_expected", 32), c.bv_const("s_phase", 32)};
  z3::expr count = c.bv_const("count", 32);
  z3::expr parity = c.bv_const("parity", 1);
};

void require_proved(const Verdict& v) {
  INFO(v.detail);
  REQUIRE(v.proved);
}

}  // namespace

TEST_CASE("theorem a1: init establishes the refinement relation and the invariant") {
  Vars v;
  const z3::expr count20 = v.count.extract(19, 0);
  const z3::expr w0 = z3::concat(v.c.bv_val(0, 24), z3::concat(count20, count20));
  const SpecState s0{v.count, v.count, v.c.bv_val(0, 32)};
  const z3::expr in_range = z3::uge(v.count, v.c.bv_val(1, 32)) && z3::ule(v.count, v.c.bv_val(mb::max_count, 32));
  require_proved(prove(v.c, in_range, related(w0, s0) && invariant(w0)));
  // The encoding of init agrees with sw_mbarrier::init and mbarrier::init.
  for (std::uint32_t n : {1u, 2u, 77u, 4096u, std::uint32_t(mb::max_count)}) {
    z3::expr wn = z3::concat(v.c.bv_val(0, 24), z3::concat(v.c.bv_val(n, 20), v.c.bv_val(n, 20)));
    CHECK(value_of(wn) == sw::init(n));
    mb::State st = mb::init(mb::State{}, n).next;
    CHECK(st.pending == std::int32_t(n));
    CHECK(st.expected == std::int32_t(n));
    CHECK(st.phase == 0u);
  }
}

TEST_CASE("theorem a2: arrive preserves the refinement relation") {
  Vars v;
  const z3::expr count20 = v.count.extract(19, 0);
  const z3::expr pre = related(v.w, v.s) && invariant(v.w) && SpecEnc::arrive_defined(v.s, v.count);
  const z3::expr w1 = SwEnc::arrive(v.w, count20);
  const SpecState s1 = SpecEnc::arrive(v.s, v.count);
  const z3::expr same_completion = (SwEnc::phase(w1) != SwEnc::phase(v.w)) == (s1.phase != v.s.phase);
  require_proved(prove(v.c, pre, related(w1, s1) && same_completion));
}

TEST_CASE("theorem a3: arrive_valid agrees with the spec's violation check") {
  Vars v;
  const z3::expr pre = related(v.w, v.s) && z3::ule(v.count, v.c.bv_val(mb::max_count, 32));
  require_proved(prove(v.c, pre, SwEnc::arrive_valid(v.w, v.count.extract(19, 0)) == SpecEnc::arrive_defined(v.s, v.count)));
}

TEST_CASE("theorem a4: parity tests agree") {
  Vars v;
  require_proved(prove(v.c, related(v.w, v.s),
                       SwEnc::test_wait_parity(v.w, v.parity) == SpecEnc::test_wait_parity(v.s.phase, zext32(v.parity))));
}

TEST_CASE("theorem a5: arrive preserves the invariant 1 <= pending <= reload") {
  Vars v;
  const z3::expr count20 = v.count.extract(19, 0);
  require_proved(prove(v.c, invariant(v.w) && SwEnc::arrive_valid(v.w, count20),
                       invariant(SwEnc::arrive(v.w, count20))));
}

TEST_CASE("a sanity check of the method: a false claim is refuted") {
  // Without the invariant, a word with reload 0 completes into pending 0:
  // the refutation must find it, or the proofs above would prove nothing.
  Vars v;
  const z3::expr count20 = v.count.extract(19, 0);
  const Verdict bad = prove(v.c, SwEnc::arrive_valid(v.w, count20), invariant(SwEnc::arrive(v.w, count20)));
  CHECK_FALSE(bad.proved);
  CHECK(bad.detail.rfind("counterexample", 0) == 0);
}

namespace {

// The encodings against spec/ at one concrete state: the software word
// (pending, reload, phase), the spec state with the same counts, an arrive
// of `count`, and both parity tests.
void agree_at(z3::context& c, std::uint32_t pending, std::uint32_t reload, std::uint32_t phase, std::uint32_t count) {
  CAPTURE(pending);
  CAPTURE(reload);
  CAPTURE(phase);
  CAPTURE(count);
  const std::uint64_t w = sw::pack({pending, reload, phase});
  const z3::expr we = c.bv_val(w, 64);
  // sw_mbarrier.
  CHECK(truth_of(SwEnc::arrive_valid(we, c.bv_val(count & sw::count_mask, 20))) == sw::arrive_valid(w, count));
  if (sw::arrive_valid(w, count)) CHECK(value_of(SwEnc::arrive(we, c.bv_val(count, 20))) == sw::arrive(w, count));
  for (std::uint32_t p : {0u, 1u}) CHECK(truth_of(SwEnc::test_wait_parity(we, c.bv_val(p, 1))) == sw::test_wait_parity(w, p));
  // mbarrier.
  const mb::State st{mb::Status::live, phase, std::int32_t(reload), std::int32_t(pending), 0};
  const SpecState se{c.bv_val(pending, 32), c.bv_val(reload, 32), c.bv_val(phase, 32)};
  const mb::Result r = mb::arrive(st, {.count = count});
  CHECK(truth_of(SpecEnc::arrive_defined(se, c.bv_val(count, 32))) == r.out.ok());
  if (r.out.ok()) {
    const SpecState s1 = SpecEnc::arrive(se, c.bv_val(count, 32));
    CHECK(value_of(s1.pending) == std::uint64_t(r.next.pending));
    CHECK(value_of(s1.expected) == std::uint64_t(r.next.expected));
    CHECK(value_of(s1.phase) == r.next.phase);
  }
  for (std::uint32_t p : {0u, 1u})
    CHECK(truth_of(SpecEnc::test_wait_parity(c.bv_val(phase, 32), c.bv_val(p, 32))) ==
          (mb::test_wait_parity(st, p).observed == 1));
}

}  // namespace

TEST_CASE("the Z3 encodings agree with spec/ on sampled concrete states") {
  z3::context c;
  std::mt19937_64 rng(20240611);
  std::uniform_int_distribution<std::uint32_t> cnt(1, mb::max_count);
  for (int i = 0; i < 400; ++i) {
    const std::uint32_t reload = i < 100 ? 1 + i % 5 : cnt(rng);
    const std::uint32_t pending = 1 + std::uint32_t(rng() % reload);
    const std::uint32_t phase = std::uint32_t(rng()) & std::uint32_t(sw::phase_mask);
    const std::uint32_t count = i % 3 == 0 ? pending : 1 + std::uint32_t(rng() % (pending + 2));
    agree_at(c, pending, reload, phase, count);
  }
}

TEST_CASE("the Z3 encodings agree with spec/ on every state up to a bound") {
  // Every word and spec state with reload 1..6, pending 1..reload, the phases
  // 0..3 and the two below the 24-bit wrap, every count 0..reload + 2 and
  // both parities: the encodings the theorems quantify over are the spec/
  // functions there, not only on samples.
  z3::context c;
  int states = 0;
  for (std::uint32_t reload = 1; reload <= 6; ++reload)
    for (std::uint32_t pending = 1; pending <= reload; ++pending)
      for (const std::uint32_t phase : {0u, 1u, 2u, 3u, std::uint32_t(sw::phase_mask) - 1, std::uint32_t(sw::phase_mask)})
        for (std::uint32_t count = 0; count <= reload + 2; ++count) {
          ++states;
          agree_at(c, pending, reload, phase, count);
        }
  MESSAGE(states << " states compared");
}
