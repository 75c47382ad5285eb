// The partial-order reduction between agents (docs/checker.md, "Reductions"),
// a wrapper of the language module: at each state, the processes whose
// successors the search stores, a persistent set built from the model's
// dependencies (footprint.hpp; Godefroid, LNCS 1032, ch. 4). The search still
// takes every other enabled step, so that a violation it raises there is
// reported (successors.hpp).
#pragma once

#include <cstdint>

#include "checker/coverage.hpp"
#include "checker/model.hpp"

namespace pc::check {

class PartialOrder {
 public:
  // `check`: test the reduction at every state where it applies (--check-reduction).
  PartialOrder(const Model& m, bool check) : m_(m), check_(check) {}

  // False when the kernel has more resources than the dependency sets hold.
  [[nodiscard]] bool usable() const { return m_.dependencies().usable(); }

  // The processes whose successors are stored at s, as a mask over
  // processes; 0: every one. With the check on, each kept step is tested to
  // commute with each step left out (InternalError if not); `depth` and
  // `coverage` are for its message and marks.
  [[nodiscard]] std::uint64_t keep(const State& s, std::uint64_t depth, Coverage* coverage) const;

 private:
  // docs/checker.md, "Checking the reduction".
  void check_commute(const State& s, std::uint64_t keep, std::uint64_t depth, Coverage* coverage) const;
  const Model& m_;
  bool check_;
};

}  // namespace pc::check
