// Statement coverage of a search: which instructions of each role some agent
// executed. After a verified search, the statements none executed in any
// interleaving are reported as warnings (docs/checker.md, "Coverage"); they
// never change a verdict.
#pragma once

#include <cstdint>
#include <vector>

#include "checker/program.hpp"
#include "checker/result.hpp"

namespace pc::check {

class Coverage {
 public:
  explicit Coverage(const Program& p);
  // Agent `agent` executed its instruction at `pc`.
  void mark(int agent, std::uint16_t pc) { hit_[base_[static_cast<std::size_t>(agent)] + pc] = 1; }
  // Adds the marks of another coverage of the same program (the parallel
  // search keeps one per thread).
  void merge(const Coverage& o) {
    for (std::size_t i = 0; i < hit_.size(); ++i) hit_[i] |= o.hit_[i];
  }
  // The marks themselves, one byte per instruction, for a search that merges
  // them across processes (the distributed search: a bitwise or).
  [[nodiscard]] std::vector<std::uint8_t>& marks() { return hit_; }
  // The source statements of which no instruction ran, in source order.
  [[nodiscard]] std::vector<Unreached> unreached() const;

 private:
  const Program& p_;
  std::vector<std::size_t> base_;       // per agent: its role's first slot in hit_
  std::vector<std::size_t> role_base_;  // per role
  std::vector<std::uint8_t> hit_;
};

}  // namespace pc::check
