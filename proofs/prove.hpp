// Proving by refutation: assert the negation of a claim; unsat means the claim
// holds for every assignment. sat (a counterexample) and unknown both fail.
#pragma once

#include <z3++.h>

#include <string>

namespace pc::proofs {

struct Verdict {
  bool proved = false;
  std::string detail;  // the counterexample, or why the solver gave up
};

// `assumptions` restrict the variables (field ranges); `claim` must follow.
[[nodiscard]] inline Verdict prove(z3::context& c, const z3::expr& assumptions, const z3::expr& claim) {
  z3::solver s(c);
  s.add(assumptions);
  s.add(!claim);
  switch (s.check()) {
    case z3::unsat: return {true, ""};
    case z3::sat: return {false, "counterexample: " + s.get_model().to_string()};
    case z3::unknown: return {false, "unknown: " + s.reason_unknown()};
  }
  return {false, "unreachable"};
}

// The value of a closed bit-vector expression (all inputs numerals).
[[nodiscard]] inline std::uint64_t value_of(const z3::expr& e) {
  return e.simplify().get_numeral_uint64();
}
[[nodiscard]] inline bool truth_of(const z3::expr& e) { return e.simplify().is_true(); }

}  // namespace pc::proofs
