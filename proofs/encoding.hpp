// The Z3 encodings of spec/ that the theorems quantify over. They express the
// semantics a second time, so tests in this folder evaluate each one on
// concrete states and compare it with the spec function it encodes.
#pragma once

#include <z3++.h>

namespace pc::proofs {

// spec/sw_mbarrier.hpp over a 64-bit word.
struct SwEnc {
  static z3::expr pending(const z3::expr& w) { return w.extract(19, 0); }
  static z3::expr reload(const z3::expr& w) { return w.extract(39, 20); }
  static z3::expr phase(const z3::expr& w) { return w.extract(63, 40); }
  // arrive(word, count): count is a 20-bit vector.
  static z3::expr arrive(const z3::expr& w, const z3::expr& count) {
    z3::context& c = w.ctx();
    const z3::expr p = pending(w) - count;
    const z3::expr done = p == c.bv_val(0, 20);
    const z3::expr next_pending = z3::ite(done, reload(w), p);
    const z3::expr next_phase = z3::ite(done, phase(w) + c.bv_val(1, 24), phase(w));
    return z3::concat(next_phase, z3::concat(reload(w), next_pending));
  }
  static z3::expr test_wait_parity(const z3::expr& w, const z3::expr& parity_bit) {
    return w.extract(40, 40) != parity_bit;
  }
  static z3::expr arrive_valid(const z3::expr& w, const z3::expr& count) {
    z3::context& c = w.ctx();
    return count != c.bv_val(0, 20) && z3::ule(count, pending(w));
  }
};

// spec/mbarrier.hpp for a live barrier with tx-count zero, the part that
// init/arrive/test_wait.parity touch. Counts as 32-bit vectors, the phase as a
// 32-bit counter (the spec's std::uint32_t).
struct SpecState {
  z3::expr pending, expected, phase;
};
struct SpecEnc {
  // mbarrier::arrive without drop, expect_tx or noComplete, when defined
  // (1 <= count <= pending): pending -= count; at zero the phase completes.
  static SpecState arrive(const SpecState& s, const z3::expr& count) {
    z3::context& c = s.pending.ctx();
    const z3::expr p = s.pending - count;
    const z3::expr done = p == c.bv_val(0, 32);
    return {z3::ite(done, s.expected, p), s.expected, z3::ite(done, s.phase + c.bv_val(1, 32), s.phase)};
  }
  // The arrive is defined (no arrival_underflow, no bad_arrive_count).
  static z3::expr arrive_defined(const SpecState& s, const z3::expr& count) {
    z3::context& c = s.pending.ctx();
    return z3::uge(count, c.bv_val(1, 32)) && z3::ule(count, c.bv_val((1u << 20) - 1, 32)) &&
           z3::ule(count, s.pending);
  }
  // mbarrier::test_wait_parity: the current phase's parity differs.
  static z3::expr test_wait_parity(const z3::expr& phase, const z3::expr& parity) {
    z3::context& c = phase.ctx();
    return (phase & c.bv_val(1, phase.get_sort().bv_size())) != (parity & c.bv_val(1, parity.get_sort().bv_size()));
  }
};

}  // namespace pc::proofs
