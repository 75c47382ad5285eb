// A function's control-flow facts, at instruction granularity: where
// divergent lanes reconverge (the immediate post-dominator, PTX's SIMT
// reconvergence point), and which registers are live (a polling loop is one
// whose failing path comes back with the same live values; exec.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "checker/ptx/module.hpp"

namespace pc::ptx {

// The registers an instruction writes (args[0] of the instructions that have
// a destination, both predicates of `setp p|q`, a vector's elements). Where
// unsure it writes none: liveness then errs towards live, which only makes
// a polling loop harder to recognize, never wrongly so.
[[nodiscard]] std::vector<int> defs_of(const Instr& in);
// The registers it reads (its guard included): every register operand that is not a destination.
[[nodiscard]] std::vector<int> uses_of(const Instr& in);

struct Cfg {
  // Per instruction, its immediate post-dominator (an instruction index);
  // `exit_node` (= code.size()) where it is the function's end, -1 where the
  // instruction cannot reach an exit.
  std::vector<int> ipdom;
  int exit_node = 0;
  // Per instruction, the registers live on entry to it (bit r of words r/64).
  std::vector<std::vector<std::uint64_t>> live_in;
  [[nodiscard]] bool live(int instr, int reg) const {
    return (live_in[static_cast<std::size_t>(instr)][static_cast<std::size_t>(reg) / 64] >> (reg % 64)) & 1;
  }
};

[[nodiscard]] Cfg analyse(const Function& f);

}  // namespace pc::ptx
