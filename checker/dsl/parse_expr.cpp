// Expressions: precedence climbing, names, constant folding; name suggestions.
#include "checker/dsl/parser_impl.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "checker/expr.hpp"

namespace pc::dsl::detail {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> d(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) d[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t prev = d[0];
    d[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cur = d[j];
      d[j] = std::min({d[j] + 1, d[j - 1] + 1, prev + (a[i - 1] == b[j - 1] ? 0 : 1)});
      prev = cur;
    }
  }
  return d[b.size()];
}

std::string suggest(const std::string& name, const std::vector<std::string>& known) {
  std::string best;
  std::size_t best_d = name.size() / 2 + 2;
  for (const std::string& k : known) {
    const std::size_t d = edit_distance(name, k);
    if (d < best_d) {
      best_d = d;
      best = k;
    }
  }
  return best.empty() ? "" : " (did you mean '" + best + "'?)";
}

// Every pass over an expression (constant folding here, evaluation in the
// checker) recurses over its tree: a long chain `1+1+...` is as deep as
// nested parentheses, so the height of the tree is what is limited.
ExprId Parser::add(ir::Expr e) {
  int h = 1;
  for (const ExprId c : {e.a, e.b})
    if (c != ir::no_expr) h = std::max(h, height_[static_cast<std::size_t>(c)] + 1);
  if (h > max_expr_depth) stop(e.loc, "expression nested too deeply (the limit is 200 levels; a chain of operators counts too)");
  height_.push_back(h);
  k_.exprs.push_back(e);
  return static_cast<ExprId>(k_.exprs.size()) - 1;
}
ExprId Parser::constant(std::int64_t v, ir::Loc loc, int param) {
  return add({ir::ExprKind::constant, ir::UnOp::neg, ir::BinOp::add, v, param, -1, ir::no_expr, ir::no_expr, loc});
}
ExprId Parser::binary(ir::BinOp op, ExprId a, ExprId b, ir::Loc loc) {
  return add({ir::ExprKind::binary, ir::UnOp::neg, op, 0, -1, -1, a, b, loc});
}

ExprId Parser::expr() {
  const Nest nest(expr_depth_, max_expr_depth);
  if (nest.over()) stop(peek().loc, "expression nested too deeply (the limit is 200 levels)");
  return binary_level(0);
}
// Binary operators by precedence climbing: level 0 (`||`) binds loosest,
// level 9 (`*`, `/`, `%`) tightest, each left-associative. One call per
// operand, not one per level, so that a nesting of 200 parentheses stays a
// few frames deep per level.
ExprId Parser::binary_level(int min_level) {
  static const std::vector<std::vector<std::pair<std::string_view, ir::BinOp>>> levels = {
      {{"||", ir::BinOp::lor}},
      {{"&&", ir::BinOp::land}},
      {{"|", ir::BinOp::bor}},
      {{"^", ir::BinOp::bxor}},
      {{"&", ir::BinOp::band}},
      {{"==", ir::BinOp::eq}, {"!=", ir::BinOp::ne}},
      {{"<", ir::BinOp::lt}, {"<=", ir::BinOp::le}, {">", ir::BinOp::gt}, {">=", ir::BinOp::ge}},
      {{"<<", ir::BinOp::shl}, {">>", ir::BinOp::shr}},
      {{"+", ir::BinOp::add}, {"-", ir::BinOp::sub}},
      {{"*", ir::BinOp::mul}, {"/", ir::BinOp::div}, {"%", ir::BinOp::mod}},
  };
  ExprId lhs = unary();
  for (;;) {
    int level = -1;
    ir::BinOp op = ir::BinOp::add;
    if (peek().kind == Tok::punct)
      for (int l = min_level; l < static_cast<int>(levels.size()) && level < 0; ++l)
        for (const auto& [text, o] : levels[static_cast<std::size_t>(l)])
          if (peek().text == text) {
            level = l;
            op = o;
            break;
          }
    if (level < 0) return lhs;
    const ir::Loc loc = next().loc;
    lhs = binary(op, lhs, binary_level(level + 1), loc);
  }
}
ExprId Parser::unary() {
  const ir::Loc loc = peek().loc;
  if (accept("-") || accept("!")) {
    const bool neg = t_[pos_ - 1].text == "-";
    const Nest nest(expr_depth_, max_expr_depth);
    if (nest.over()) stop(loc, "expression nested too deeply (the limit is 200 levels)");
    ExprId a = unary();
    return add({ir::ExprKind::unary, neg ? ir::UnOp::neg : ir::UnOp::lnot, ir::BinOp::add, 0, -1, -1, a, ir::no_expr, loc});
  }
  return primary();
}
ExprId Parser::primary() {
  const Token& tk = peek();
  if (tk.kind == Tok::number) {
    next();
    return constant(tk.value, tk.loc);
  }
  if (accept("(")) {
    ExprId e = expr();
    expect(")");
    return e;
  }
  if (tk.kind == Tok::name) {
    next();
    // With two grids of one CTA each, the agent's CTA in its cluster is 0 and
    // the builtin variable holding the CTA's index is its grid.
    if (role_ && k_.grids > 1 && (tk.text == "cta" || tk.text == "cta_rank") && vars_.count(tk.text) && vars_.at(tk.text) == ir::var_cta)
      return constant(0, tk.loc, -1);
    if (role_) {
      auto v = vars_.find(tk.text);
      if (v != vars_.end())
        return add({ir::ExprKind::var, ir::UnOp::neg, ir::BinOp::add, 0, -1, v->second, ir::no_expr, ir::no_expr, tk.loc});
    }
    auto p = params_.find(tk.text);
    if (p != params_.end()) return constant(k_.params[static_cast<std::size_t>(p->second)].value, tk.loc, p->second);
    // Builtins (PTX %cluster_nctarank, %cluster_ctarank): the cluster's CTA
    // count, a constant; in a role, the agent's CTA (the same as `cta`).
    if (tk.text == "cluster_size") {
      if (!cluster_fixed())
        fail(tk.loc, "'cluster_size' is known after the 'cluster' declaration (or once a buffer, barrier or role is declared)");
      return constant(k_.cluster_ctas, tk.loc, -1);
    }
    if (role_ && tk.text == "lane")
      fail(tk.loc, "'lane' can only be tested as 'if lane == 0:' (the elected lane of each warp): a variable is the warp's, the same in all its lanes");
    if (role_ && tk.text == "cta_rank")
      return add({ir::ExprKind::var, ir::UnOp::neg, ir::BinOp::add, 0, -1, ir::var_cta, ir::no_expr, ir::no_expr, tk.loc});
    // `grid`: 0 in the primary grid, 1 in the dependent one (`grids 2`).
    if (role_ && tk.text == "grid")
      return k_.grids > 1 ? add({ir::ExprKind::var, ir::UnOp::neg, ir::BinOp::add, 0, -1, ir::var_cta, ir::no_expr, ir::no_expr, tk.loc})
                          : constant(0, tk.loc, -1);
    if (broken_.count(tk.text)) silent();
    std::vector<std::string> known;
    for (const auto& [n, i] : params_) known.push_back(n);
    if (role_)
      for (const auto& [n, i] : vars_) known.push_back(n);
    fail(tk.loc, "unknown name '" + tk.text + "'" + suggest(tk.text, known) +
                     (role_ ? "" : "; only parameters may appear outside roles"));
  }
  expected("an expression");
}

// The value of an expression over parameters only (checker/expr.hpp: the
// explorer's arithmetic); an overflow is remembered for const_expr's message.
std::optional<std::int64_t> Parser::const_value(ExprId e) const {
  const ir::Folded f = ir::fold_constant(k_.exprs, e);
  if (f.error == ir::ExprError::overflow && !overflow_) overflow_ = f.loc;
  return f.value;
}

std::int64_t Parser::const_expr(const char* what, std::int64_t lo, std::int64_t hi) {
  const ir::Loc loc = peek().loc;
  ExprId e = expr();
  overflow_.reset();
  auto v = const_value(e);
  if (!v && overflow_)
    fail(*overflow_, "integer overflow in " + std::string(what) + ": the value leaves -2^62..2^62");
  if (!v) fail(loc, std::string(what) + " must be a constant expression of parameters (no division by zero, shifts by 0..62)");
  if (*v < lo || *v > hi)
    fail(loc, std::string(what) + " is " + std::to_string(*v) + "; it must be in " + std::to_string(lo) + ".." +
                  std::to_string(hi));
  return *v;
}

}  // namespace pc::dsl::detail
