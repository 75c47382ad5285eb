// The warps of a role (docs/dsl.md, "Warps of a role"). A role whose body
// reads `warp` is split: each warp of an instance is an agent of its own, so
// its warps interleave and may take different branches. This pass, run on a
// role once its body is parsed, decides that and keeps the meaning of the
// body's one-lane operations: outside a condition on `warp` they are the
// instance's one thread (lane 0 of warp 0), so they are placed under
// `if warp == 0`. It also rejects what the ISA does not allow: a warp-group
// instruction (wgmma) in a role that is not whole warp groups or under a
// condition on `warp`, a one-warp instruction (tcgen05.alloc) executed by
// several warps; and what the model does not follow yet: wgmma in a split
// role (the warp group's MMA is one operation of its four warps).
#pragma once

#include <functional>
#include <string>

#include "checker/ir.hpp"

namespace pc::dsl {

using WarpError = std::function<void(ir::Loc, const std::string&)>;

// Sets role.per_warp and rewrites its body; `warp_is_0` adds the expression
// `warp == 0` to the kernel (the parser owns the expression arena).
void place_warps(ir::Kernel& k, ir::Role& role, const std::function<ir::ExprId()>& warp_is_0, const WarpError& error);

}  // namespace pc::dsl
