// The IR's integer expressions in Z3, with the arithmetic the explicit search
// uses (checker/program.cpp, eval): division and remainder truncate toward
// zero, shifts and bitwise operations act on 64-bit two's complement values,
// comparisons and logic give 0 or 1. Overflow is not modelled: the explicit
// search stops with an error there.
#pragma once

#include <z3++.h>

#include <functional>
#include <vector>

#include "checker/ir.hpp"

namespace pc::smt {

// a / b, truncating toward zero.
[[nodiscard]] z3::expr truncating_div(const z3::expr& a, const z3::expr& b);

// The term of expression `id`. `leaf` gives the term of a constant or variable
// node; `on_mod`, if set, is told of each remainder r = a % b it builds.
[[nodiscard]] z3::expr encode(z3::context& c, const std::vector<ir::Expr>& exprs, ir::ExprId id,
                              const std::function<z3::expr(const ir::Expr&)>& leaf,
                              const std::function<void(const z3::expr&, const z3::expr&, const z3::expr&)>& on_mod = {});

}  // namespace pc::smt
