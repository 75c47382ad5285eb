// The one arithmetic of .bk expressions (checker/expr.hpp): the folding that
// the parser and the Z3 back end use gives the value, or the error, that the
// explorer's eval gives, on every operator with edge and random operands.
#include <doctest/doctest.h>

#include <optional>
#include <random>
#include <string>
#include <vector>

#include "checker/expr.hpp"
#include "checker/program.hpp"

using namespace pc;

namespace {

// What eval gives: a value, or the error's kind read from its message.
std::pair<std::optional<std::int64_t>, ir::ExprError> evaluated(const check::Program& p, ir::ExprId e, const std::int64_t* vars) {
  try {
    return {check::eval(p, e, vars), ir::ExprError::none};
  } catch (const check::KernelError& k) {
    const std::string m = k.what();
    if (m.find("overflow") != std::string::npos) return {std::nullopt, ir::ExprError::overflow};
    if (m.find("division by zero") != std::string::npos) return {std::nullopt, ir::ExprError::division_by_zero};
    if (m.find("a shift by") != std::string::npos) return {std::nullopt, ir::ExprError::bad_shift};
    return {std::nullopt, ir::ExprError::none};
  }
}

}  // namespace

TEST_CASE("expressions: folding and the explorer's eval give the same value or the same error") {
  using ir::BinOp;
  check::Program p;
  p.exprs.resize(6);
  for (int v : {0, 1}) {
    p.exprs[static_cast<std::size_t>(v)].kind = ir::ExprKind::var;
    p.exprs[static_cast<std::size_t>(v)].var = v;
  }
  p.exprs[2].kind = ir::ExprKind::binary;  // a OP b
  p.exprs[2].a = 0;
  p.exprs[2].b = 1;
  p.exprs[3].kind = ir::ExprKind::binary;  // (a OP b) OP b: an error on the left stops the right
  p.exprs[3].a = 2;
  p.exprs[3].b = 1;
  p.exprs[4].kind = ir::ExprKind::unary;  // -(a OP b)
  p.exprs[4].un = ir::UnOp::neg;
  p.exprs[4].a = 2;
  p.exprs[5].kind = ir::ExprKind::unary;  // !(a OP b)
  p.exprs[5].un = ir::UnOp::lnot;
  p.exprs[5].a = 2;
  const std::int64_t big = ir::value_limit;
  std::vector<std::int64_t> values = {0, 1, -1, 2, -2, 3, 62, 63, big, -big, big - 1, -big + 1, big / 2, -big / 2,
                                      std::int64_t{1} << 31, -(std::int64_t{1} << 31), INT64_MAX, INT64_MIN};
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20; ++i) values.push_back(static_cast<std::int64_t>(rng()) >> (rng() % 64));
  int compared = 0, errors = 0, short_circuits = 0;
  for (int o = 0; o <= static_cast<int>(BinOp::lor); ++o) {
    const auto op = static_cast<BinOp>(o);
    p.exprs[2].bin = p.exprs[3].bin = op;
    check::compile_exprs(p);
    for (const std::int64_t a : values)
      for (const std::int64_t b : values) {
        const std::int64_t vars[2] = {a, b};
        const auto leaf = [&](int v) { return std::optional<std::int64_t>(vars[v]); };
        for (const ir::ExprId e : {2, 3, 4, 5}) {
          INFO("op ", o, " a ", a, " b ", b, " expr ", e);
          const ir::Folded f = ir::fold(p.exprs, e, leaf);
          const auto want = evaluated(p, e, vars);
          CHECK(f.value == want.first);
          CHECK(f.error == want.second);
          ++compared;
          errors += f.error != ir::ExprError::none;
        }
        short_circuits += ir::short_circuit(op, a).has_value();
        // Unknown variables fold to no value and no error.
        const ir::Folded unknown = ir::fold_constant(p.exprs, 2);
        CHECK_FALSE(unknown.value.has_value());
        CHECK(unknown.error == ir::ExprError::none);
      }
  }
  CHECK(compared == 18 * 38 * 38 * 4);
  CHECK(errors > 2000);         // overflows, division by zero and bad shifts are met
  CHECK(short_circuits > 1000);  // && with a 0 and || with a non-zero left operand
}

TEST_CASE("expressions: a constant expression folds, and reports its first error at the operator") {
  std::vector<ir::Expr> ex(5);
  ex[0].kind = ir::ExprKind::constant;
  ex[0].value = ir::value_limit;
  ex[1].kind = ir::ExprKind::constant;
  ex[1].value = 0;
  ex[2].kind = ir::ExprKind::binary;  // 2^62 + 2^62: an overflow
  ex[2].bin = ir::BinOp::add;
  ex[2].a = 0;
  ex[2].b = 0;
  ex[2].loc = {3, 7};
  ex[3].kind = ir::ExprKind::binary;  // 0 && (2^62 + 2^62): the right side is not evaluated
  ex[3].bin = ir::BinOp::land;
  ex[3].a = 1;
  ex[3].b = 2;
  ex[4].kind = ir::ExprKind::binary;  // (2^62 + 2^62) / 0: the first error, the overflow
  ex[4].bin = ir::BinOp::div;
  ex[4].a = 2;
  ex[4].b = 1;
  const ir::Folded over = ir::fold_constant(ex, 2);
  CHECK_FALSE(over.value.has_value());
  CHECK(over.error == ir::ExprError::overflow);
  CHECK(over.loc.line == 3);
  CHECK(over.loc.col == 7);
  CHECK(ir::fold_constant(ex, 3).value == 0);
  CHECK(ir::fold_constant(ex, 4).error == ir::ExprError::overflow);
  CHECK(ir::fold_constant(ex, 99).value == std::nullopt);  // no such expression
}
