// Op litmus tests: two threads operate concurrently on one freshly initialised
// mbarrier, each recording the value of every operation it performs (the
// pending count of an arrive's token, a probe's test_wait.parity(0)); after
// both, a last probe. The outcome is all of these together.
//
// What the model allows is computed, not written down: every interleaving of
// the two threads' operations is run on the host side of spec/primitives.hpp
// (the spec/ functions), and the set of outcomes it produces is the allowed
// set. The model takes each mbarrier operation as one indivisible step on the
// object's state (PTX ISA, "Contents of the mbarrier object", "Arrive-on
// operation on mbarrier object", "expect-tx operation", "complete-tx
// operation"); these tests check on the hardware that concurrent operations
// behave as some such order.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "harnesses/conformance/ops.hpp"

namespace pc::conformance {

inline constexpr int op_litmus_max_ops = 6;  // per thread; 4 bits per value in the outcome key

struct OpLitmus {
  const char* name;
  std::uint32_t count;             // mbarrier.init count
  std::vector<std::uint32_t> a;    // thread A's ops (op(code, arg))
  std::vector<std::uint32_t> b;    // thread B's ops
  bool software = false;           // also run on the software mbarrier (init/arrive/probe only)
};

// The suite. Each must be defined by the model in every interleaving
// (tests/primitives_op_litmus_test.cpp checks it).
inline std::vector<OpLitmus> op_litmus_suite() {
  return {
      // expect_tx and complete_tx race: the tx-count may go negative first
      // (complete_tx before expect_tx); the phase completes once both and the
      // arrive are in.
      {"tx_expect_vs_complete", 1, {op(op_expect, 16), op(op_probe, 0), op(op_arrive, 1), op(op_probe, 0)},
       {op(op_complete, 16), op(op_probe, 0)}},
      // The arrive may come before the expect_tx: then the phase completes at
      // once and the expect_tx and complete_tx land in the next phase, or
      // complete_tx came first and the arrive leaves the phase open at tx < 0.
      {"tx_arrive_before_expect", 1, {op(op_arrive, 1), op(op_probe, 0), op(op_expect, 16), op(op_probe, 0)},
       {op(op_complete, 16), op(op_probe, 0)}},
      // arrive.expect_tx against complete_tx.
      {"tx_arrive_expect_vs_complete", 1, {op(op_arrive_tx, 32), op(op_probe, 0)},
       {op(op_complete, 16), op(op_probe, 0), op(op_complete, 16), op(op_probe, 0)}},
      // arrive_drop against two arrives: the drop lowers the expected count of
      // the phase it lands in and of all later ones.
      {"drop_vs_arrive", 2, {op(op_drop, 1), op(op_probe, 0)},
       {op(op_arrive, 1), op(op_probe, 0), op(op_arrive, 1), op(op_probe, 0)}},
      // Two arrivers, two phases: every arrive's token and probe.
      {"two_arrivers", 2, {op(op_arrive, 1), op(op_probe, 0), op(op_arrive, 1), op(op_probe, 0)},
       {op(op_arrive, 1), op(op_probe, 0), op(op_arrive, 1), op(op_probe, 0)}, true},
      // Arrivals with counts.
      {"arrive_counts", 3, {op(op_arrive, 2), op(op_probe, 0), op(op_arrive, 1), op(op_probe, 0)},
       {op(op_arrive, 1), op(op_probe, 0), op(op_arrive, 2), op(op_probe, 0)}, true},
  };
}

// Outcome key: A's values, then B's, 4 bits each, then the final probe.
[[nodiscard]] inline PC_HOST_DEVICE std::uint64_t op_litmus_key(const std::uint32_t* a_vals, int na, const std::uint32_t* b_vals, int nb,
                                                 std::uint32_t final_parities) {
  std::uint64_t k = 0;
  for (int i = 0; i < na; ++i) k = k << 4 | (a_vals[i] & 15u);
  for (int i = 0; i < nb; ++i) k = k << 4 | (b_vals[i] & 15u);
  return k << 2 | (final_parities & 3u);
}

[[nodiscard]] inline std::string op_litmus_outcome_text(const OpLitmus& t, std::uint64_t key) {
  const int na = static_cast<int>(t.a.size()), nb = static_cast<int>(t.b.size());
  std::string s;
  const std::uint32_t fin = key & 3u;
  key >>= 2;
  std::vector<std::uint32_t> v(static_cast<std::size_t>(na + nb));
  for (int i = na + nb - 1; i >= 0; --i, key >>= 4) v[static_cast<std::size_t>(i)] = key & 15u;
  auto one = [&](const char* who, const std::vector<std::uint32_t>& ops, int base) {
    s += who;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const std::uint32_t c = op_code(ops[i]), x = v[static_cast<std::size_t>(base) + i];
      if (c == op_probe) s += " w0=" + std::to_string(x);
      else if (c == op_expect || c == op_complete) s += " -";
      else s += " " + std::to_string(x);
    }
  };
  one("A:", t.a, 0);
  one(" B:", t.b, na);
  s += " final w0=" + std::to_string(fin);
  return s;
}

struct Allowed2 {
  std::map<std::uint64_t, int> outcomes;  // key -> number of interleavings giving it
  int interleavings = 0;
  int undefined = 0;  // interleavings in which the model reports a violation
  int software_differs = 0;  // values where spec/sw_mbarrier and spec/mbarrier disagree
};

// Every interleaving of A and B on the model (spec/ through primitives.hpp).
// `software`: the values come from spec/sw_mbarrier's word functions, which
// claim equality with spec/mbarrier for init/arrive/test_wait.parity; any
// difference is counted in software_differs.
[[nodiscard]] inline Allowed2 op_litmus_allowed(const OpLitmus& t, bool software = false) {
  Allowed2 r;
  const int na = static_cast<int>(t.a.size()), nb = static_cast<int>(t.b.size());
  // A choice vector: bit i set means step i is B's. Enumerate all with exactly nb bits.
  for (std::uint32_t m = 0; m < (1u << (na + nb)); ++m) {
    if (__builtin_popcount(m) != nb) continue;
    ++r.interleavings;
    prim::Mbarrier bar;
    std::uint64_t word = 0;
    prim::mbarrier_init(&bar, t.count);
    prim::sw_mbarrier_init(&word, t.count);
    prim::ModelToken ta, tb;
    std::uint32_t av[op_litmus_max_ops] = {}, bv[op_litmus_max_ops] = {};
    int ia = 0, ib = 0;
    for (int step = 0; step < na + nb; ++step) {
      const bool is_b = (m >> step & 1u) != 0;
      const std::uint32_t o = is_b ? t.b[static_cast<std::size_t>(ib)] : t.a[static_cast<std::size_t>(ia)];
      // The hardware mbarrier's model runs in either case: it says whether the
      // interleaving is defined, and the software word must agree with it.
      std::uint32_t v = apply_op(&bar, is_b ? tb : ta, op_code(o), op_arg(o));
      if (software) {
        const std::uint32_t sv = apply_sw_op(&word, op_code(o), op_arg(o));
        if (sv != v) ++r.software_differs;
        v = sv;
      }
      (is_b ? bv[ib++] : av[ia++]) = v;
    }
    if (bar.violation != spec::Violation::none) {
      ++r.undefined;
      continue;
    }
    const std::uint32_t fin = apply_op(&bar, ta, op_probe, 0);
    if (software && apply_sw_op(&word, op_probe, 0) != fin) ++r.software_differs;
    ++r.outcomes[op_litmus_key(av, na, bv, nb, fin)];
  }
  return r;
}

}  // namespace pc::conformance
