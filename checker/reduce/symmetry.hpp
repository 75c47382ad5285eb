// Symmetry reduction (Emerson & Sistla, "Symmetry and model checking", FMSD
// 1996; Ip & Dill, "Better verification through symmetry", FMSD 1996): agents
// of one role in one CTA whose code never reads `instance` are interchangeable,
// so states that differ only by a permutation of them are explored once. The
// search hashes a canonical representative: such agents sorted by their local
// state, with every agent reference (happens-before threads, async issuers)
// renamed to match.
#pragma once

#include <vector>

#include "checker/program.hpp"
#include "checker/state.hpp"

namespace pc::check {

class Symmetry {
 public:
  explicit Symmetry(const Program& p);
  [[nodiscard]] bool active() const { return active_; }
  // A state equivalent to `s` up to renaming interchangeable agents.
  [[nodiscard]] State canonical(const State& s) const;

 private:
  struct Group {
    std::vector<int> agents;  // agents that may be permuted among themselves
    int nvars = 0;            // variables of their role
  };
  const Program& p_;
  std::vector<Group> groups_;
  bool active_ = false;
};

}  // namespace pc::check
