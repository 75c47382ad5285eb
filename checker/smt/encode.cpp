#include "checker/smt/encode.hpp"

namespace pc::smt {

z3::expr truncating_div(const z3::expr& a, const z3::expr& b) {
  z3::expr aa = z3::ite(a >= 0, a, -a), bb = z3::ite(b >= 0, b, -b);
  z3::expr q = aa / bb;  // both non-negative: Euclidean = truncating
  return z3::ite((a >= 0) == (b >= 0), q, -q);
}

z3::expr encode(z3::context& c, const std::vector<ir::Expr>& exprs, ir::ExprId id,
                const std::function<z3::expr(const ir::Expr&)>& leaf,
                const std::function<void(const z3::expr&, const z3::expr&, const z3::expr&)>& on_mod) {
  const ir::Expr& x = exprs.at(static_cast<std::size_t>(id));
  switch (x.kind) {
    case ir::ExprKind::constant:
    case ir::ExprKind::var: return leaf(x);
    case ir::ExprKind::unary: {
      z3::expr a = encode(c, exprs, x.a, leaf, on_mod);
      return x.un == ir::UnOp::neg ? -a : z3::ite(a == 0, c.int_val(1), c.int_val(0));
    }
    case ir::ExprKind::binary: {
      z3::expr a = encode(c, exprs, x.a, leaf, on_mod), b = encode(c, exprs, x.b, leaf, on_mod);
      auto boolean = [&](const z3::expr& cond) { return z3::ite(cond, c.int_val(1), c.int_val(0)); };
      switch (x.bin) {
        case ir::BinOp::add: return a + b;
        case ir::BinOp::sub: return a - b;
        case ir::BinOp::mul: return a * b;
        case ir::BinOp::div: return truncating_div(a, b);
        case ir::BinOp::mod: {
          z3::expr r = a - b * truncating_div(a, b);
          if (on_mod) on_mod(r, a, b);
          return r;
        }
        case ir::BinOp::shl: return z3::bv2int(z3::shl(z3::int2bv(64, a), z3::int2bv(64, b)), true);
        case ir::BinOp::shr: return z3::bv2int(z3::ashr(z3::int2bv(64, a), z3::int2bv(64, b)), true);
        case ir::BinOp::bxor: return z3::bv2int(z3::int2bv(64, a) ^ z3::int2bv(64, b), true);
        case ir::BinOp::band: return z3::bv2int(z3::int2bv(64, a) & z3::int2bv(64, b), true);
        case ir::BinOp::bor: return z3::bv2int(z3::int2bv(64, a) | z3::int2bv(64, b), true);
        case ir::BinOp::lt: return boolean(a < b);
        case ir::BinOp::le: return boolean(a <= b);
        case ir::BinOp::gt: return boolean(a > b);
        case ir::BinOp::ge: return boolean(a >= b);
        case ir::BinOp::eq: return boolean(a == b);
        case ir::BinOp::ne: return boolean(a != b);
        case ir::BinOp::land: return boolean(a != 0 && b != 0);
        case ir::BinOp::lor: return boolean(a != 0 || b != 0);
      }
    }
  }
  return c.int_val(0);
}

}  // namespace pc::smt
