// --prove's proof obligation (docs/checker.md, "Every trip count"): for a
// trip-count parameter N, the kernel's trip loops (`for k in lo .. N`, one at
// the top of a role's body at most, or directly in one loop over constants
// in every role: nested, where N's value is read through its class and the
// variables computed from it are modular), the variables linear in their counters,
// and a period P and threshold T such that every expression the roles
// evaluate in or after their trip loop gives the same value (an assignment to
// a shifted variable: its value moved by the same shift) when the counters,
// those variables and N move up by any multiple of P, from counters >= T and
// shifted variables >= 0, for every value of every other variable (but a
// variable set only by `for` loops from constants >= 0: >= 0, and inside
// such a loop >= its first value). Proved
// with Z3, one query per expression; the search's key (checker/reduce/
// trips.hpp) may then merge a state with its shift.
#pragma once

#include <memory>
#include <string>

#include "checker/ir.hpp"
#include "checker/trips.hpp"

namespace pc::smt {

struct TripProof {
  std::shared_ptr<const check::TripShift> shift;  // null: not covered
  std::string reason;                              // why not, with the line where it can
};

[[nodiscard]] TripProof prove_trips(const ir::Kernel& k, const std::string& param);

}  // namespace pc::smt
