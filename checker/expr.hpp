// The one arithmetic of .bk expressions, shared by the parser (constants),
// the explorer (Program's eval), the placer and the Z3 back end's constant
// folding, so that a value and its errors are the same everywhere:
//   - 64-bit integers; every result must lie in -2^62..2^62, the range of
//     numbers in a .bk file: outside it is an overflow error, never a wrap;
//   - `/` truncates toward zero and `%` is its remainder; either by 0 is an
//     error;
//   - `<<` and `>>` shift by 0..62, any other amount is an error;
//   - comparisons and `!`, `&&`, `||` give 0 or 1; `&&` and `||` do not
//     evaluate their right operand when the left one decides (0 for `&&`,
//     not 0 for `||`).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "checker/ir.hpp"

namespace pc::ir {

inline constexpr std::int64_t value_limit = std::int64_t{1} << 62;

enum class ExprError : std::uint8_t { none, overflow, division_by_zero, bad_shift };

struct ExprValue {
  constexpr ExprValue(std::int64_t v = 0, ExprError e = ExprError::none) : value(v), error(e) {}  // NOLINT(google-explicit-constructor)
  std::int64_t value;
  ExprError error;
};

[[nodiscard]] constexpr ExprValue in_range(__int128 v) {
  if (v > value_limit || v < -value_limit) return ExprValue(0, ExprError::overflow);
  return ExprValue(static_cast<std::int64_t>(v));
}

[[nodiscard]] constexpr ExprValue apply(UnOp op, std::int64_t a) {
  return op == UnOp::neg ? in_range(-static_cast<__int128>(a)) : ExprValue(a == 0 ? 1 : 0);
}

// The value `&&` or `||` takes from its left operand alone, if it decides.
[[nodiscard]] constexpr std::optional<std::int64_t> short_circuit(BinOp op, std::int64_t a) {
  if (op == BinOp::land && a == 0) return 0;
  if (op == BinOp::lor && a != 0) return 1;
  return std::nullopt;
}

// In 64 bits where the result cannot leave them: an overflow of int64 means a
// value outside the range, which in_range reports, and the one quotient that
// overflows (INT64_MIN / -1) takes the wide path. (A 128-bit division is a
// library call, and `k % 2` is in most parities.)
[[nodiscard]] constexpr ExprValue apply(BinOp op, std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  switch (op) {
    case BinOp::add: return __builtin_add_overflow(a, b, &r) ? in_range(__int128{a} + b) : in_range(r);
    case BinOp::sub: return __builtin_sub_overflow(a, b, &r) ? in_range(__int128{a} - b) : in_range(r);
    case BinOp::mul: return __builtin_mul_overflow(a, b, &r) ? in_range(__int128{a} * b) : in_range(r);
    case BinOp::div:
    case BinOp::mod:
      if (b == 0) return {0, ExprError::division_by_zero};
      if (b == -1) return in_range(op == BinOp::div ? -__int128{a} : __int128{0});
      return in_range(op == BinOp::div ? a / b : a % b);
    case BinOp::shl:
    case BinOp::shr:
      if (b < 0 || b > 62) return {0, ExprError::bad_shift};
      if (op == BinOp::shr) return {a >> b};
      return __builtin_mul_overflow(a, std::int64_t{1} << b, &r) ? in_range(__int128{a} * (__int128{1} << b)) : in_range(r);
    case BinOp::bxor: return {a ^ b};
    case BinOp::band: return {a & b};
    case BinOp::bor: return {a | b};
    case BinOp::lt: return {a < b};
    case BinOp::le: return {a <= b};
    case BinOp::gt: return {a > b};
    case BinOp::ge: return {a >= b};
    case BinOp::eq: return {a == b};
    case BinOp::ne: return {a != b};
    case BinOp::land: return {a != 0 && b != 0};
    case BinOp::lor: return {a != 0 || b != 0};
  }
  return {};
}

// An expression folded over what is known of its variables.
struct Folded {
  Folded(std::optional<std::int64_t> v = std::nullopt, ExprError e = ExprError::none, Loc l = {})  // NOLINT(google-explicit-constructor)
      : value(v), error(e), loc(l) {}
  std::optional<std::int64_t> value;  // none: a variable it needs is unknown, or an error
  ExprError error;                    // the first error met
  Loc loc;                            // where (the operator's location)
};

// Evaluates expression `e` of `exprs`; `leaf(var)` gives a variable's value,
// or nullopt where it is unknown (a constant expression: every variable
// unknown).
template <class Leaf>
[[nodiscard]] Folded fold(const std::vector<Expr>& exprs, ExprId e, Leaf&& leaf) {
  if (e < 0 || static_cast<std::size_t>(e) >= exprs.size()) return Folded();
  const Expr& x = exprs[static_cast<std::size_t>(e)];
  auto result = [&](ExprValue v) -> Folded {
    if (v.error != ExprError::none) return Folded(std::nullopt, v.error, x.loc);
    return Folded(v.value);
  };
  switch (x.kind) {
    case ExprKind::constant: return Folded(x.value);
    case ExprKind::var: return Folded(leaf(x.var));
    case ExprKind::unary: {
      Folded a = fold(exprs, x.a, leaf);
      if (!a.value) return a;
      return result(apply(x.un, *a.value));
    }
    case ExprKind::binary: {
      Folded a = fold(exprs, x.a, leaf);
      if (!a.value) return a;
      if (const auto s = short_circuit(x.bin, *a.value)) return Folded(*s);
      Folded b = fold(exprs, x.b, leaf);
      if (!b.value) return b;
      return result(apply(x.bin, *a.value, *b.value));
    }
  }
  return Folded();
}

// The value of an expression over parameters and constants only (no
// variable), or nullopt (a variable, or an error).
[[nodiscard]] inline Folded fold_constant(const std::vector<Expr>& exprs, ExprId e) {
  return fold(exprs, e, [](int) { return std::optional<std::int64_t>{}; });
}

}  // namespace pc::ir
