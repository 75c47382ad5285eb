// Theorem (b): ring-buffer phase arithmetic. A pipeline of S stages has a
// `full` and an `empty` mbarrier per stage (count 1 each, as in the TLX
// warp-specialized GEMM). Iteration k uses stage k % S. The consumer waits on
// full[k % S] with parity (k / S) % 2; the producer waits on empty[k % S] with
// parity (k / S + 1) % 2: it starts one phase ahead, so that its first pass
// over the stages does not wait (a fresh barrier passes parity 1).
// For every S in 1..64 and k < 2^20 (phases are symbolic, never enumerated):
//  (L)  k = q * S + r with r < S implies k / S = q and k % S = r;
//  (b1) the completed phases of the barrier of stage s before iteration k, once
//       every use of s by iterations < k has completed, are
//       ph(s, k) = k / S + (s < k % S ? 1 : 0): ph(s, 0) = 0 and
//       ph(s, k + 1) = ph(s, k) + (k % S == s ? 1 : 0), which by induction on k
//       is the number of iterations < k that use stage s (the step is proved on the
//       quotient/remainder pair of k, which L ties to k / S and k % S);
//  (b2) consumer: the parity it waits for equals the parity of full[k % S]'s
//       phase at that point (ph(k % S, k) = k / S), so test_wait.parity is false
//       until the producer's fill of iteration k completes that phase and true
//       right after;
//  (b3) producer: with j = k / S, empty[k % S] has completed j phases when the
//       consumers have released every earlier use (then the wait passes, also
//       for j = 0 on a fresh barrier) and j - 1 when the release of use j - 1
//       is missing (then it blocks);
//  (b4) the (index, phase) pair that a CUTLASS-style PipelineState advances
//       (index + 1, wrapping at S and flipping the phase) equals (k % S, (k / S) % 2).
// test_wait.parity is encoded as in spec/mbarrier.hpp; the tests below check
// the encoding and the closed form against a run of spec mbarriers.
#include <doctest/doctest.h>

#include <vector>

#include "proofs/encoding.hpp"
#include "proofs/prove.hpp"
#include "spec/mbarrier.hpp"

namespace mb = pc::spec::mbarrier;
using namespace pc::proofs;

namespace {

// k < 2^20 and k + 1 fit in 21 bits; S <= 64 too. A narrow width keeps the
// bit-blasted dividers small (32 bits took minutes, 21 bits take seconds).
inline constexpr unsigned width = 21;

struct Ring {
  z3::context c;
  z3::expr S = c.bv_const("S", width);
  z3::expr k = c.bv_const("k", width);
  z3::expr s = c.bv_const("s", width);
  z3::expr one = c.bv_val(1, width);
  z3::expr zero = c.bv_val(0, width);
  z3::expr two = c.bv_val(2, width);
  z3::expr bounds = z3::uge(S, one) && z3::ule(S, c.bv_val(64, width)) && z3::ult(k, c.bv_val(1u << 20, width)) &&
                    z3::ult(s, S);

  z3::expr ph(const z3::expr& stage, const z3::expr& iter) const {
    return z3::udiv(iter, S) + z3::ite(z3::ult(stage, z3::urem(iter, S)), one, zero);
  }
  z3::expr consumer_parity(const z3::expr& iter) const { return z3::urem(z3::udiv(iter, S), two); }
  z3::expr producer_parity(const z3::expr& iter) const {
    return z3::urem(z3::udiv(iter, S) + one, two);
  }
};

void require_proved(const Verdict& v) {
  INFO(v.detail);
  REQUIRE(v.proved);
}

}  // namespace

// Relating k + 1 to k through udiv/urem directly is slow for the solver
// (minutes): each side is a divider circuit. So b1 and b4 state the step on the
// quotient/remainder pair (q, r) of k, and lemma L ties that pair to
// k / S and k % S: the division is unique.
TEST_CASE("lemma L: k = q * S + r with r < S means k / S = q and k % S = r") {
  Ring r;
  const z3::expr q = r.c.bv_const("q", width), rem = r.c.bv_const("r", width);
  // 28 bits hold q * S + r without wrap-around (q < 2^21, S <= 64 < 2^7).
  const z3::expr wide = z3::zext(q, 7) * z3::zext(r.S, 7) + z3::zext(rem, 7);
  const z3::expr pre = z3::uge(r.S, r.one) && z3::ule(r.S, r.c.bv_val(64, width)) && z3::ult(rem, r.S) &&
                       z3::ule(wide, r.c.bv_val(1u << 20, 28)) && r.k == wide.extract(width - 1, 0);
  require_proved(prove(r.c, pre, z3::udiv(r.k, r.S) == q && z3::urem(r.k, r.S) == rem));
}

TEST_CASE("theorem b1: the closed form of a stage's completed phases satisfies its recurrence") {
  Ring r;
  require_proved(prove(r.c, r.bounds, r.ph(r.s, r.zero) == r.zero));
  // On (q, r): ph = q + [s < r]; the successor of k is (q, r + 1), or (q + 1, 0) on wrap.
  const z3::expr q = r.c.bv_const("q", width), rem = r.c.bv_const("r", width);
  const z3::expr pre = r.bounds && z3::ult(rem, r.S) && z3::ult(q, r.c.bv_val(1u << 20, width));
  const z3::expr wrap = rem + r.one == r.S;
  const z3::expr q1 = z3::ite(wrap, q + r.one, q), r1 = z3::ite(wrap, r.zero, rem + r.one);
  auto ph = [&](const z3::expr& qq, const z3::expr& rr) { return qq + z3::ite(z3::ult(r.s, rr), r.one, r.zero); };
  require_proved(prove(r.c, pre, ph(q1, r1) == ph(q, rem) + z3::ite(rem == r.s, r.one, r.zero)));
  // And the successor pair is the division of k + 1 (then L says it is
  // ((k + 1) / S, (k + 1) % S)): q1 * S + r1 = q * S + r + 1 and r1 < S. Over
  // the integers, where distributivity is free.
  const z3::expr Si = r.c.int_const("Si"), qi = r.c.int_const("qi"), ri = r.c.int_const("ri");
  const z3::expr wrap_i = ri + 1 == Si;
  const z3::expr q1i = z3::ite(wrap_i, qi + 1, qi), r1i = z3::ite(wrap_i, r.c.int_val(0), ri + 1);
  const z3::expr pre_i = Si >= 1 && Si <= 64 && ri >= 0 && ri < Si && qi >= 0;
  require_proved(prove(r.c, pre_i, q1i * Si + r1i == qi * Si + ri + 1 && r1i >= 0 && r1i < Si));
}

TEST_CASE("theorem b2: the consumer's parity is the full barrier's phase parity; it waits exactly for the fill") {
  Ring r;
  const z3::expr stage = z3::urem(r.k, r.S);
  const z3::expr phase = r.ph(stage, r.k);
  const z3::expr p = r.consumer_parity(r.k);
  const z3::expr claim = (phase & r.one) == p && !SpecEnc::test_wait_parity(phase, p) &&
                         SpecEnc::test_wait_parity(phase + r.one, p);
  require_proved(prove(r.c, r.bounds, claim));
}

TEST_CASE("theorem b3: the producer, one phase ahead, passes once every earlier use is released and not before") {
  Ring r;
  const z3::expr stage = z3::urem(r.k, r.S);
  const z3::expr released_all = r.ph(stage, r.k);  // = k / S
  const z3::expr q = r.producer_parity(r.k);
  const z3::expr claim =
      SpecEnc::test_wait_parity(released_all, q) &&
      z3::implies(z3::uge(released_all, r.one), !SpecEnc::test_wait_parity(released_all - r.one, q));
  require_proved(prove(r.c, r.bounds, claim));
}

TEST_CASE("theorem b4: a PipelineState's (index, phase) is (k % S, (k / S) % 2)") {
  // On (q, r) as in b1: the state (r, q % 2) advances to the successor pair's (r1, q1 % 2).
  Ring r;
  const z3::expr q = r.c.bv_const("q", width), rem = r.c.bv_const("r", width);
  const z3::expr pre = r.bounds && z3::ult(rem, r.S) && z3::ult(q, r.c.bv_val(1u << 20, width));
  const z3::expr idx = rem, phase = z3::urem(q, r.two);
  const z3::expr wrap = idx + r.one == r.S;
  const z3::expr next_idx = z3::ite(wrap, r.zero, idx + r.one);
  const z3::expr next_phase = z3::ite(wrap, phase ^ r.one, phase);
  const z3::expr q1 = z3::ite(wrap, q + r.one, q), r1 = z3::ite(wrap, r.zero, rem + r.one);
  require_proved(prove(r.c, pre, next_idx == r1 && next_phase == z3::urem(q1, r.two)));
}

TEST_CASE("a sanity check of the method: a producer starting in phase 0 is refuted") {
  Ring r;
  const z3::expr stage = z3::urem(r.k, r.S);
  const Verdict bad = prove(r.c, r.bounds, SpecEnc::test_wait_parity(r.ph(stage, r.k), r.consumer_parity(r.k)));
  CHECK_FALSE(bad.proved);
}

TEST_CASE("the ring-buffer encoding agrees with a run of spec mbarriers") {
  // Producer and consumer in lock-step, the consumer lagging so that both
  // waits are also tried too early. Every parity the encoding predicts is
  // checked with mbarrier::test_wait_parity on the simulated barriers.
  Ring r;
  for (std::uint32_t S = 1; S <= 8; ++S) {
    std::vector<mb::State> full(S, mb::init(mb::State{}, 1).next), empty(S, mb::init(mb::State{}, 1).next);
    for (std::uint32_t k = 0; k < 5 * S + 3; ++k) {
      const std::uint32_t s = k % S;
      auto at = [&](const z3::expr& e) {
        z3::expr_vector from(r.c), to(r.c);
        from.push_back(r.S); to.push_back(r.c.bv_val(S, width));
        from.push_back(r.k); to.push_back(r.c.bv_val(k, width));
        return value_of(z3::expr(e).substitute(from, to));
      };
      const std::uint32_t q = std::uint32_t(at(r.producer_parity(r.k)));
      const std::uint32_t p = std::uint32_t(at(r.consumer_parity(r.k)));
      CHECK(at(r.ph(r.c.bv_val(s, width), r.k)) == full[s].phase);
      // Producer: empty[s] was released for every earlier use, so its wait passes.
      CHECK(mb::test_wait_parity(empty[s], q).observed == 1);
      // Consumer before the fill: blocked.
      CHECK(mb::test_wait_parity(full[s], p).observed == 0);
      full[s] = mb::arrive(full[s], {}).next;  // the fill completes
      CHECK(mb::test_wait_parity(full[s], p).observed == 1);
      // The producer of iteration k + S, tried before this release: blocked.
      if (k + S < 5 * S + 3) {
        const std::uint32_t q_next = ((k + S) / S + 1) % 2;
        CHECK(mb::test_wait_parity(empty[s], q_next).observed == 0);
      }
      empty[s] = mb::arrive(empty[s], {}).next;  // the consumer releases the stage
    }
  }
}
