// The .bk parser's class, private to checker/dsl: the parser is one class
// whose member functions are spread over files by what they read:
//   parse_expr.cpp    expressions, constant folding, name suggestions
//   parse_decl.cpp    top-level declarations (param, target, cluster, cta, clc,
//                     smem, tmem, mbarrier) and roles
//   parse_stmt.cpp    statements and blocks inside a role
//   parse_ops.cpp     an operation's operands, per operand form of the op table
//   parse_checks.cpp  checks of an operation once read, and of the whole kernel
//   parser.cpp        the driver (parse, parse_file, parse_override)
// The grammar is in docs/dsl.md.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "checker/dsl/lexer.hpp"
#include "checker/dsl/parser.hpp"
#include "checker/ir.hpp"

namespace pc::dsl::detail {

using ir::ExprId;
using ir::OpCode;


inline constexpr int max_block_depth = 64;
inline constexpr int max_expr_depth = 200;
inline constexpr int max_errors = 20;
inline constexpr std::int64_t max_array = 1024;
inline constexpr std::int64_t max_role_count = 64;

struct Fail {};  // a diagnostic was recorded; skip to the end of the statement
struct Stop {};  // a limit was hit (nesting): the rest of the file would only repeat it

// Counts one level of nesting for as long as it lives, also when a diagnostic
// unwinds the parse, so that recovery goes on at the right depth.
class Nest {
 public:
  Nest(int& depth, int limit) : depth_(depth) { over_ = ++depth_ > limit; }
  ~Nest() { --depth_; }
  Nest(const Nest&) = delete;
  Nest& operator=(const Nest&) = delete;
  [[nodiscard]] bool over() const { return over_; }

 private:
  int& depth_;
  bool over_ = false;
};

std::string suggest(const std::string& name, const std::vector<std::string>& known);

class Parser {
 public:
  Parser(const Lexed& lx, const std::string& file, const std::vector<std::pair<std::string, std::int64_t>>& overrides)
      : t_(lx.tokens), file_(file), overrides_(overrides) {
    k_.file = file;
    // A binary file gives an error per byte: keep the first few.
    for (const LexError& e : lx.errors) {
      if (static_cast<int>(errors_.size()) == max_errors) {
        truncated_ = true;
        break;
      }
      errors_.push_back({file_, e.loc, e.message});
    }
    expects_ = lx.expects;
  }

  Parsed run();

 private:
  const std::vector<Token>& t_;
  std::size_t pos_ = 0;
  std::string file_;
  const std::vector<std::pair<std::string, std::int64_t>>& overrides_;
  std::vector<std::pair<ir::Loc, std::string>> expects_;
  ir::Kernel k_;
  std::vector<Diagnostic> errors_;
  std::map<std::string, int> params_, buffers_, mbars_;
  ir::Role* role_ = nullptr;
  std::map<std::string, int> vars_;
  int depth_ = 0, expr_depth_ = 0;
  int lane0_ = 0;            // inside `if lane == 0:` blocks
  std::vector<int> height_;  // of each expression tree, parallel to k_.exprs
  bool seen_kernel_ = false;
  bool truncated_ = false;   // errors were left out: the list ends with "too many errors"
  // Names whose declaration had an error: a use of one is dropped without a
  // second error (the first already says what is wrong).
  std::string declaring_;
  ir::Loc clc_loc_;
  std::set<std::string> broken_;
  int silenced_ = 0;         // statements dropped for using a broken name
  ir::Loc cta_threads_loc_;  // where `cta threads` was declared
  mutable std::optional<ir::Loc> overflow_;  // where const_value last overflowed
  ir::Loc target_loc_, cluster_loc_;  // where `target` and `cluster` were declared (line 0: not)

  // ---- tokens ----
  const Token& peek(std::size_t ahead = 0) const { return t_[std::min(pos_ + ahead, t_.size() - 1)]; }
  const Token& next() {
    const Token& tk = peek();
    if (pos_ < t_.size() - 1) ++pos_;
    return tk;
  }
  bool is(std::string_view text, std::size_t ahead = 0) const {
    const Token& tk = peek(ahead);
    return (tk.kind == Tok::name || tk.kind == Tok::punct) && tk.text == text;
  }
  bool accept(std::string_view text) {
    if (!is(text)) return false;
    next();
    return true;
  }
  static std::string describe(const Token& tk) {
    switch (tk.kind) {
      case Tok::name: return "'" + tk.text + "'";
      case Tok::number: return "number " + tk.text;
      case Tok::punct: return "'" + tk.text + "'";
      case Tok::newline: return "end of line";
      case Tok::indent: return "an indented block";
      case Tok::dedent: return "end of block";
      case Tok::end: return "end of file";
    }
    return "?";
  }
  [[noreturn]] void fail(ir::Loc loc, std::string msg) {
    errors_.push_back({file_, loc, std::move(msg)});
    throw Fail{};
  }
  // A use of a name whose declaration failed: drop the statement quietly.
  [[noreturn]] void silent() {
    ++silenced_;
    throw Fail{};
  }
  [[noreturn]] void stop(ir::Loc loc, std::string msg) {
    errors_.push_back({file_, loc, std::move(msg)});
    throw Stop{};
  }
  [[noreturn]] void expected(std::string what) { fail(peek().loc, "expected " + what + ", found " + describe(peek())); }
  void expect(std::string_view text) {
    if (!accept(text)) expected("'" + std::string(text) + "'");
  }
  std::string name(const char* what) {
    if (peek().kind != Tok::name) expected(what);
    return next().text;
  }
  void end_of_statement() {
    if (peek().kind != Tok::newline && peek().kind != Tok::end) expected("end of line");
    if (peek().kind == Tok::newline) next();
  }
  // After an error: drop the rest of the statement (and a block it opens).
  void recover() {
    while (peek().kind != Tok::newline && peek().kind != Tok::end) next();
    if (peek().kind == Tok::newline) next();
    if (peek().kind == Tok::indent) {
      int level = 0;
      do {
        if (peek().kind == Tok::indent) ++level;
        if (peek().kind == Tok::dedent) --level;
        if (peek().kind == Tok::end) return;
        next();
      } while (level > 0);
    }
  }

  // ---- expressions (parse_expr.cpp) ----
  // Every pass over an expression (constant folding here, evaluation in the
  // checker) recurses over its tree: a long chain `1+1+...` is as deep as
  // nested parentheses, so the height of the tree is what is limited.
  ExprId add(ir::Expr e);
  // Whether the cluster size can no longer change (`cluster_size` may be used).
  bool cluster_declared_ = false;
  [[nodiscard]] bool cluster_fixed() const {
    return cluster_declared_ || role_ || !k_.buffers.empty() || !k_.mbarriers.empty() || !k_.roles.empty();
  }
  ExprId constant(std::int64_t v, ir::Loc loc, int param = -1);
  ExprId binary(ir::BinOp op, ExprId a, ExprId b, ir::Loc loc);
  ExprId expr();
  ExprId binary_level(int level);
  ExprId unary();
  ExprId primary();
  // The value of an expression over parameters only.
  std::optional<std::int64_t> const_value(ExprId e) const;
  std::int64_t const_expr(const char* what, std::int64_t lo, std::int64_t hi);

  // ---- declarations (parse_decl.cpp) and statements (parse_stmt.cpp) ----
  void declaration();
  void param();
  void role();
  void block(std::vector<ir::Stmt>& out);
  void statement(std::vector<ir::Stmt>& out);
  void if_rest(ir::Stmt& s);
  static bool is_builtin(const std::string& v) {
    return v == "cta" || v == "instance" || v == "cta_rank" || v == "cluster_size" || v == "warp" || v == "lane";
  }
  int define_var(const std::string& n, ir::Loc loc) {
    // A parameter is a constant everywhere: a variable of the same name would
    // silently shadow it in the rest of the role.
    if (params_.count(n)) fail(loc, "'" + n + "' is a parameter, a constant: it cannot be assigned or be a loop variable");
    auto it = vars_.find(n);
    if (it != vars_.end()) return it->second;
    role_->vars.push_back(n);
    const int v = static_cast<int>(role_->vars.size()) - 1;
    vars_[n] = v;
    return v;
  }

  // ---- operations (parse_ops.cpp) ----
  ir::Alias alias_clause(const std::string& n);
  ir::Ref ref(const std::map<std::string, int>& names, const char* kind, bool allow_cta = true);
  ir::Op op(OpCode code, ir::Loc loc, ir::Lanes lanes, bool lanes_given, int dest, std::uint64_t lane_mask = 0);
  void cta_group(ir::Op& op);
  void fence_restrict(ir::Op& op);
  void tensormap_scope();
  // Where each option of an operation was written (line 0: not given), for
  // diagnostics that point at the option to change.
  struct OptionLocs {
    ir::Loc count, bytes, sem, scope, nocomplete;
  };
  // Which options an operation takes after its operands.
  struct Allowed {
    bool count = false, bytes = false, sem = false, scope = false, nocomplete = false;
  };
  OptionLocs options(ir::Op& op, Allowed allowed);
  void check_lane_prefix(ir::Op& op, bool lanes_given);
  bool lane_mask_prefix();
  ir::Lanes lanes_by_mask(int warp, std::uint64_t& mask);
  void check_returns(const ir::Op& op);
  int token_var();
  // The operands of each form of the op table (ir::Operands).
  void operands(ir::Op& op, OptionLocs& at);
  void buffer_list(ir::Op& op, const char* kind, bool allow_cta);
  void wait_operands(ir::Op& op);
  void named_operands(ir::Op& op);
  void waitcnt_operands(ir::Op& op);
  void tma_load_operands(ir::Op& op);
  void async_store_operands(ir::Op& op);
  void mma_operands(ir::Op& op);
  void regs_operands(ir::Op& op);
  void tmem_allocation(ir::Op& op);
  void check_parity(ExprId e, ir::Loc loc) {
    if (auto v = const_value(e); v && *v != 0 && *v != 1) fail(loc, "parity must be 0 or 1, not " + std::to_string(*v));
  }
  // An operand that is constant and outside what any execution could accept is
  // a typo, not a schedule to explore: report it here. Operands that depend on
  // variables are left to the checker, which names the violation.
  void check_range(ExprId e, const char* what, std::int64_t lo, std::int64_t hi) {
    if (e == ir::no_expr) return;
    if (auto v = const_value(e); v && (*v < lo || *v > hi))
      fail(k_.exprs[static_cast<std::size_t>(e)].loc,
           std::string(what) + " is " + std::to_string(*v) + "; it must be " +
               (hi == max_number ? "at least " + std::to_string(lo) : "in " + std::to_string(lo) + ".." + std::to_string(hi)));
  }
  // ---- checks (parse_checks.cpp) ----
  void check_operands(const ir::Op& op);
  void check_spaces(const ir::Op& op);
  void check_tmem_allocated();
  void check_isa_form(const ir::Op& op, const OptionLocs& at, ir::Loc loc);
  void check_target(const std::vector<ir::Stmt>& body);
  void check_cp_async_lanes(const std::vector<ir::Stmt>& body);
  void check_bulk_thread(const std::vector<ir::Stmt>& body);
  void check_target_op(const ir::Op& op);
  void target_error(ir::Loc loc, std::string msg) {
    if (static_cast<int>(errors_.size()) < max_errors) errors_.push_back({file_, loc, std::move(msg)});
    else truncated_ = true;
  }
  void finish();
  void check_cta_threads();
};

}  // namespace pc::dsl::detail
