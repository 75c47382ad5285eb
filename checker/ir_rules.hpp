// Rules of a kernel's text that both front ends apply to the IR they build
// (the .bk parser, checker/dsl/parse_checks.cpp; the PTX lowering,
// checker/ptx/lower.cpp), so that each is written once: what the model cannot
// follow is refused at its operation, with the reason, before any search.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "checker/ir.hpp"

namespace pc::ir {

struct TextError {
  Loc loc;
  std::string message;
  OpCode code = OpCode::exit;  // the operation it concerns
};

// cp.async-groups are per thread (PTX ISA cp.async.commit_group: "creates a
// new cp.async-group per thread"; cp.async.wait_group makes the writes
// visible "to the executing thread"), and the model follows the groups of one
// thread per agent: in a role body with cp_async_commit / cp_async_wait, every
// cp.async operation (but cp.async.mbarrier.arrive, whose lanes are free) is
// one lane's. The lane that issues the copies commits and waits them, and a
// barrier or syncwarp orders the other lanes after it; an agent-wide group
// would order every lane after every lane's copies, hiding a missing
// __syncthreads. The first operation of several lanes, if any.
[[nodiscard]] std::optional<TextError> cp_async_lanes(const std::vector<Stmt>& body);

// The `.bk` prefix that names an operation's lanes: "one:", "each:", "rest:",
// "all:" or "lanes 0x...:" (Lanes::mask).
[[nodiscard]] std::string lanes_word(const Op& op);

}  // namespace pc::ir
