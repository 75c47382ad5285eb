#include "checker/dsl/parser.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include "checker/dsl/lexer.hpp"
#include "checker/dsl/warps.hpp"
#include "checker/layout.hpp"
#include "spec/clc.hpp"
#include "spec/rules.hpp"
#include "spec/tmem.hpp"
#include "spec/violation.hpp"

namespace pc::dsl {
namespace {

using ir::ExprId;
using ir::OpCode;

constexpr int max_block_depth = 64;
constexpr int max_expr_depth = 200;
constexpr int max_errors = 20;
constexpr std::int64_t max_array = 1024;
constexpr std::int64_t max_role_count = 64;

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

  // ---- expressions ----
  // Every pass over an expression (constant folding here, evaluation in the
  // checker) recurses over its tree: a long chain `1+1+...` is as deep as
  // nested parentheses, so the height of the tree is what is limited.
  ExprId add(ir::Expr e) {
    int h = 1;
    for (const ExprId c : {e.a, e.b})
      if (c != ir::no_expr) h = std::max(h, height_[static_cast<std::size_t>(c)] + 1);
    if (h > max_expr_depth) stop(e.loc, "expression nested too deeply (the limit is 200 levels; a chain of operators counts too)");
    height_.push_back(h);
    k_.exprs.push_back(e);
    return static_cast<ExprId>(k_.exprs.size()) - 1;
  }
  // Whether the cluster size can no longer change (`cluster_size` may be used).
  bool cluster_declared_ = false;
  [[nodiscard]] bool cluster_fixed() const {
    return cluster_declared_ || role_ || !k_.buffers.empty() || !k_.mbarriers.empty() || !k_.roles.empty();
  }
  ExprId constant(std::int64_t v, ir::Loc loc, int param = -1) {
    return add({ir::ExprKind::constant, ir::UnOp::neg, ir::BinOp::add, v, param, -1, ir::no_expr, ir::no_expr, loc});
  }
  ExprId binary(ir::BinOp op, ExprId a, ExprId b, ir::Loc loc) {
    return add({ir::ExprKind::binary, ir::UnOp::neg, op, 0, -1, -1, a, b, loc});
  }

  ExprId expr() {
    const Nest nest(expr_depth_, max_expr_depth);
    if (nest.over()) stop(peek().loc, "expression nested too deeply (the limit is 200 levels)");
    return binary_level(0);
  }
  ExprId binary_level(int level) {
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
    if (level == static_cast<int>(levels.size())) return unary();
    ExprId lhs = binary_level(level + 1);
    for (;;) {
      bool matched = false;
      for (const auto& [text, op] : levels[static_cast<std::size_t>(level)]) {
        if (peek().kind == Tok::punct && peek().text == text) {
          const ir::Loc loc = next().loc;
          lhs = binary(op, lhs, binary_level(level + 1), loc);
          matched = true;
          break;
        }
      }
      if (!matched) return lhs;
    }
  }
  ExprId unary() {
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
  ExprId primary() {
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

  // The value of an expression over parameters only.
  std::optional<std::int64_t> const_value(ExprId e) const {
    const ir::Expr& x = k_.exprs[static_cast<std::size_t>(e)];
    switch (x.kind) {
      case ir::ExprKind::constant: return x.value;
      case ir::ExprKind::var: return std::nullopt;
      case ir::ExprKind::unary: {
        auto a = const_value(x.a);
        if (!a) return std::nullopt;
        return x.un == ir::UnOp::neg ? -*a : (*a == 0 ? 1 : 0);
      }
      case ir::ExprKind::binary: {
        auto a = const_value(x.a), b = const_value(x.b);
        if (!a || !b) return std::nullopt;
        const __int128 A = *a, B = *b;
        __int128 r = 0;
        switch (x.bin) {
          case ir::BinOp::add: r = A + B; break;
          case ir::BinOp::sub: r = A - B; break;
          case ir::BinOp::mul: r = A * B; break;
          case ir::BinOp::div:
          case ir::BinOp::mod:
            if (B == 0) return std::nullopt;
            r = x.bin == ir::BinOp::div ? A / B : A % B;
            break;
          case ir::BinOp::shl:
          case ir::BinOp::shr:
            if (B < 0 || B > 62) return std::nullopt;
            r = x.bin == ir::BinOp::shl ? A * (__int128{1} << static_cast<int>(B)) : A >> static_cast<int>(B);
            break;
          case ir::BinOp::bxor: r = A ^ B; break;
          case ir::BinOp::band: r = A & B; break;
          case ir::BinOp::bor: r = A | B; break;
          case ir::BinOp::lt: r = A < B; break;
          case ir::BinOp::le: r = A <= B; break;
          case ir::BinOp::gt: r = A > B; break;
          case ir::BinOp::ge: r = A >= B; break;
          case ir::BinOp::eq: r = A == B; break;
          case ir::BinOp::ne: r = A != B; break;
          case ir::BinOp::land: r = A && B; break;
          case ir::BinOp::lor: r = A || B; break;
        }
        if (r > max_number || r < -max_number) {
          if (!overflow_) overflow_ = x.loc;
          return std::nullopt;
        }
        return static_cast<std::int64_t>(r);
      }
    }
    return std::nullopt;
  }
  // `cta_group 1|2` after a tcgen05 operation's operands (PTX .cta_group::1 /
  // ::2): 2 is the CTA pair of spec/tmem.hpp, which needs a cluster of an
  // even number of CTAs (each CTA's peer differs in bit 0 of its rank).
  void cta_group(ir::Op& op) {
    if (!accept("cta_group")) return;
    const ir::Loc at = peek().loc;
    op.cta_pair = const_expr("the cta_group", 1, 2) == 2;
    if (op.cta_pair && (k_.cluster_ctas < 2 || k_.cluster_ctas % 2 != 0))
      fail(at, "cta_group 2 works on a CTA pair (PTX ISA tcgen05, \"CTA Pair\"): declare 'cluster N' with N even first (this "
               "kernel's cluster has " + std::to_string(k_.cluster_ctas) + " CTA" + (k_.cluster_ctas == 1 ? "" : "s") + ")");
  }

  std::int64_t const_expr(const char* what, std::int64_t lo, std::int64_t hi) {
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

  // ---- declarations ----
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

  // ---- operations ----
  ir::Alias alias_clause(const std::string& n);
  ir::Ref ref(const std::map<std::string, int>& names, const char* kind, bool allow_cta = true);
  ir::Op op(OpCode code, ir::Loc loc, ir::Lanes lanes, bool lanes_given, int dest);
  // Where each option of an operation was written (line 0: not given), for
  // diagnostics that point at the option to change.
  struct OptionLocs {
    ir::Loc count, bytes, sem, scope, nocomplete;
  };
  OptionLocs options(ir::Op& op, bool allow_count, bool allow_bytes, bool allow_sem, bool allow_scope, bool allow_nocomplete);
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
  void check_operands(const ir::Op& op);
  void check_spaces(const ir::Op& op);
  void check_tmem_allocated();
  void check_isa_form(const ir::Op& op, const OptionLocs& at, ir::Loc loc);
  void check_target(const std::vector<ir::Stmt>& body);
  void check_cp_async_lanes(const std::vector<ir::Stmt>& body);
  void check_target_op(const ir::Op& op);
  void target_error(ir::Loc loc, std::string msg) {
    if (static_cast<int>(errors_.size()) < max_errors) errors_.push_back({file_, loc, std::move(msg)});
    else truncated_ = true;
  }
  void finish();
  void check_cta_threads();
};

// `cta threads = N` states the CTA's size. The roles placed on a CTA are
// its threads the model runs; they cannot be more than N. Fewer is allowed:
// the others are threads the kernel does not model, which take part in no
// barrier (as threads that exit at once; docs/dsl.md).
void Parser::check_cta_threads() {
  if (!errors_.empty() || silenced_ > 0) return;
  // A CTA has at most 1024 threads (CUDA C++ Programming Guide, "Technical
  // Specifications": maximum threads per block; AMD: per workgroup).
  for (int cta = 0; cta < k_.cluster_ctas && k_.cta_threads <= 0; ++cta) {
    int threads = 0;
    const ir::Role* last = nullptr;
    for (const ir::Role& r : k_.roles)
      if (r.placed_on(cta)) {
        threads += ir::role_warps(r) * ir::warp_size(k_) * r.count;
        if (threads > 1024 && !last) last = &r;
      }
    if (last) {
      errors_.push_back({file_, last->loc,
                         "the roles on CTA " + std::to_string(cta) + " have " + std::to_string(threads) +
                             " threads with role '" + last->name + "': a CTA has at most 1024 threads (" +
                             std::to_string(1024 / ir::warp_size(k_)) + " warps)"});
      return;
    }
  }
  if (k_.cta_threads <= 0) return;
  for (int cta = 0; cta < k_.cluster_ctas; ++cta) {
    int threads = 0;
    std::string parts;
    for (const ir::Role& r : k_.roles) {
      if (!r.placed_on(cta)) continue;
      const int t = ir::role_warps(r) * ir::warp_size(k_) * r.count;
      threads += t;
      parts += (parts.empty() ? "" : ", ") + r.name + " " + std::to_string(t);
    }
    if (threads <= k_.cta_threads) continue;
    errors_.push_back({file_, cta_threads_loc_,
                       "cta threads = " + std::to_string(k_.cta_threads) + ", but the roles on CTA " + std::to_string(cta) +
                           " have " + std::to_string(threads) + " threads (" + parts +
                           "): a CTA cannot run more threads than it has; raise the count, or drop the line (the CTA "
                           "then has its roles' threads)"});
    return;
  }
}

// `aliases BASE[i] [offset O]` of declaration `n` (checker/layout.hpp): BASE
// is a buffer or mbarrier declared before; whether it fits is checked by the caller.
ir::Alias Parser::alias_clause(const std::string& n) {
  ir::Alias a;
  const Token& at = peek();
  a.loc = at.loc;
  const std::string base = name("a buffer or mbarrier name");
  const auto bi = buffers_.find(base);
  const auto mi = mbars_.find(base);
  if (bi == buffers_.end() && mi == mbars_.end()) {
    std::vector<std::string> known;
    for (const auto& [o, i] : buffers_) known.push_back(o);
    for (const auto& [o, i] : mbars_) known.push_back(o);
    fail(at.loc, "'" + base + "' is not a buffer or mbarrier declared before '" + n + "'" + suggest(base, known));
  }
  a.mbar = bi == buffers_.end();
  a.of = a.mbar ? mi->second : bi->second;
  if (accept("[")) {
    a.index = const_expr("an element index", 0, max_array - 1);
    expect("]");
  }
  if (accept("offset")) a.offset = const_expr("a byte offset", 0, 1 << 30);
  return a;
}

ir::Ref Parser::ref(const std::map<std::string, int>& names, const char* kind, bool allow_cta) {
  const Token& tk = peek();
  if (tk.kind != Tok::name) expected(std::string("the name of ") + kind);
  next();
  auto it = names.find(tk.text);
  if (it == names.end()) {
    if (broken_.count(tk.text)) silent();
    std::vector<std::string> known;
    for (const auto& [n, i] : names) known.push_back(n);
    fail(tk.loc, "unknown " + std::string(kind) + " '" + tk.text + "'" + suggest(tk.text, known));
  }
  ir::Ref r;
  r.object = it->second;
  r.loc = tk.loc;
  const bool is_buf = &names == &buffers_;
  const int size = is_buf ? k_.buffers[static_cast<std::size_t>(r.object)].size : k_.mbarriers[static_cast<std::size_t>(r.object)].size;
  if (accept("[")) {
    const ir::Loc loc = peek().loc;
    r.index = expr();
    expect("]");
    if (auto v = const_value(r.index); v && (*v < 0 || *v >= size))
      fail(loc, "index " + std::to_string(*v) + " is outside " + tk.text + "[" + std::to_string(size) + "]");
  } else if (size > 1) {
    fail(tk.loc, std::string(kind) + " '" + tk.text + "' has " + std::to_string(size) + " elements: give an index, " +
                     tk.text + "[i]");
  }
  if (allow_cta && accept("@")) {
    const ir::Loc loc = peek().loc;
    r.cta = expr();
    if (auto v = const_value(r.cta); v && (*v < 0 || *v >= k_.cluster_ctas))
      fail(loc, "CTA " + std::to_string(*v) + " is outside the cluster of " + std::to_string(k_.cluster_ctas));
  }
  return r;
}

Parser::OptionLocs Parser::options(ir::Op& op, bool allow_count, bool allow_bytes, bool allow_sem, bool allow_scope,
                                   bool allow_nocomplete) {
  OptionLocs at;
  while (peek().kind == Tok::name) {
    const Token& tk = peek();
    if (allow_count && tk.text == "count") {
      at.count = next().loc;
      op.count = expr();
    } else if (allow_bytes && tk.text == "bytes") {
      at.bytes = next().loc;
      op.bytes = expr();
    } else if (allow_sem && (tk.text == "release" || tk.text == "relaxed" || tk.text == "acquire")) {
      at.sem = next().loc;
      op.sem = tk.text == "release" ? ir::Sem::release : tk.text == "relaxed" ? ir::Sem::relaxed : ir::Sem::acquire;
    } else if (allow_scope && (tk.text == "cta" || tk.text == "cluster")) {
      at.scope = next().loc;
      op.scope = tk.text == "cta" ? ir::Scope::cta : ir::Scope::cluster;
    } else if (allow_nocomplete && tk.text == "nocomplete") {
      at.nocomplete = next().loc;
      op.no_complete = true;
    } else {
      fail(tk.loc, "unexpected '" + tk.text + "' after " + std::string(ir::op_keyword(op.code)) + ": it takes " +
                       std::string(ir::op_operands_doc(op.code)));
    }
  }
  return at;
}

ir::Op Parser::op(OpCode code, ir::Loc loc, ir::Lanes lanes, bool lanes_given, int dest) {
  ir::Op op;
  op.code = code;
  op.loc = loc;
  op.lanes = lanes;
  op.dest_var = dest;
  const std::string kw(ir::op_keyword(code));
  const ir::LanePolicy policy = ir::op_lanes(code);
  OptionLocs at;
  if (lanes_given && policy == ir::LanePolicy::aligned && lanes != ir::Lanes::all)
    fail(loc, "'" + kw + "' is executed by the whole warp or warp group together: remove '" +
                  (lanes == ir::Lanes::one ? "one:" : "each:") + "'");
  if (lanes_given && policy == ir::LanePolicy::leader && lanes != ir::Lanes::one)
    fail(loc, "'" + kw + "' is issued by one elected lane: write 'one:' or no prefix");
  // Without a prefix an mbarrier.init / inval is one thread's (the kernel
  // guards it to one thread); `all:` / `each:` are every thread's.
  if (!lanes_given && policy == ir::LanePolicy::single) op.lanes = ir::Lanes::one;
  auto token_var = [&]() {
    const Token& tk = peek();
    const std::string n = name("a variable holding a token");
    auto it = vars_.find(n);
    if (it == vars_.end()) fail(tk.loc, "unknown variable '" + n + "'");
    return it->second;
  };
  auto wait_operands = [&]() {
    op.bar = ref(mbars_, "mbarrier");
    if (accept("parity")) {
      const ir::Loc ploc = peek().loc;
      op.parity = expr();
      check_parity(op.parity, ploc);
    } else if (accept("token")) {
      op.token_var = token_var();
    } else {
      expected("'parity P' or 'token T'");
    }
    options(op, false, false, true, true, false);
  };
  switch (code) {
    case OpCode::read:
    case OpCode::write:
    case OpCode::cp_async:
      op.bufs.push_back(ref(buffers_, "buffer"));
      while (accept(",")) op.bufs.push_back(ref(buffers_, "buffer"));
      break;
    case OpCode::global_load_lds: op.bufs.push_back(ref(buffers_, "buffer", false)); break;
    case OpCode::s_waitcnt:
      // As the AMDGPU assembler writes it: vmcnt(N) and lgkmcnt(N) in any
      // order, optionally separated by '&' or ','. The counter ranges depend
      // on the chip: checked with the target (check_target_op).
      while (peek().kind == Tok::name) {
        const Token& c = next();
        ExprId* slot = c.text == "vmcnt" ? &op.n : c.text == "lgkmcnt" ? &op.count : nullptr;
        if (!slot) fail(c.loc, "unexpected '" + c.text + "' after s_waitcnt: it takes vmcnt(N) and/or lgkmcnt(N)");
        if (*slot != ir::no_expr) fail(c.loc, c.text + " is given twice");
        expect("(");
        *slot = expr();
        expect(")");
        if (!accept("&")) accept(",");
      }
      if (op.n == ir::no_expr && op.count == ir::no_expr)
        fail(loc, "s_waitcnt needs the counters to wait for: vmcnt(N), lgkmcnt(N), or both");
      break;
    case OpCode::tma_store:
    case OpCode::tma_reduce:
      op.bufs.push_back(ref(buffers_, "buffer", false));
      break;
    case OpCode::mbar_init:
      op.bar = ref(mbars_, "mbarrier", false);
      expect("count");
      op.count = expr();
      break;
    case OpCode::mbar_arrive:
      op.bar = ref(mbars_, "mbarrier");
      at = options(op, true, false, true, true, true);
      break;
    case OpCode::mbar_arrive_drop:
      op.bar = ref(mbars_, "mbarrier");
      at = options(op, true, true, true, true, true);
      break;
    case OpCode::mbar_arrive_expect_tx:
      op.bar = ref(mbars_, "mbarrier");
      at = options(op, true, true, true, true, false);
      if (op.bytes == ir::no_expr) fail(loc, "arrive_expect_tx needs 'bytes B'");
      break;
    case OpCode::mbar_expect_tx:
    case OpCode::mbar_complete_tx:
      op.bar = ref(mbars_, "mbarrier");
      options(op, false, true, false, false, false);
      if (op.bytes == ir::no_expr) fail(loc, kw + " needs 'bytes B'");
      break;
    case OpCode::mbar_wait:
    case OpCode::mbar_test_wait:
    case OpCode::mbar_try_wait: wait_operands(); break;
    case OpCode::mbar_pending_count: op.token_var = token_var(); break;
    case OpCode::mbar_inval: op.bar = ref(mbars_, "mbarrier", false); break;
    case OpCode::bar_sync:
    case OpCode::bar_arrive:
    case OpCode::bar_red: {
      if (code == OpCode::bar_red) {
        const Token& tk = peek();
        const std::string r = name("popc, and or or");
        if (r == "popc") op.red = ir::Red::popc;
        else if (r == "and") op.red = ir::Red::and_;
        else if (r == "or") op.red = ir::Red::or_;
        else fail(tk.loc, "expected popc, and or or, found '" + r + "'");
      }
      op.id = expr();
      if (accept(",")) op.count = expr();
      if (code == OpCode::bar_red) {
        expect(",");
        op.n = expr();
      }
      break;
    }
    case OpCode::tma_load:
      op.bufs.push_back(ref(buffers_, "buffer", false));
      expect("->");
      op.bar = ref(mbars_, "mbarrier");
      while (peek().kind == Tok::name) {
        if (accept("bytes")) op.bytes = expr();
        else if (accept("multicast")) op.multicast = expr();
        else fail(peek().loc, "unexpected '" + peek().text + "' after tma_load: it takes " + std::string(ir::op_operands_doc(code)));
      }
      break;
    case OpCode::bulk_wait_group:
    case OpCode::bulk_wait_group_read:
    case OpCode::cp_async_wait:
    case OpCode::wgmma_wait: op.n = expr(); break;
    case OpCode::cp_async_mbarrier_arrive:
      op.bar = ref(mbars_, "mbarrier", false);
      if (accept("noinc")) op.noinc = true;
      break;
    case OpCode::st_async:
    case OpCode::red_async: {
      // st.async / red.async .shared::cluster.mbarrier::complete_tx::bytes:
      // the access and its barrier are in one CTA (PTX ISA st.async, red.async:
      // "belong to the same CTA"), named once with the buffer; red.async's is
      // another CTA than the issuer's.
      const bool red = code == OpCode::red_async;
      const ir::Loc at = peek().loc;
      if (k_.cluster_ctas < 2 && k_.target == ir::Target::nvidia)  // (AMD: the target check below names the instruction)
        fail(at, kw + " needs a cluster of more than one CTA (PTX ISA " + (red ? "red.async" : "st.async") +
                     ": %cluster_nctarank > 1, else undefined); declare 'cluster N' first");
      op.bufs.push_back(ref(buffers_, "buffer"));
      if (red && op.bufs[0].cta == ir::no_expr && k_.target == ir::Target::nvidia)
        fail(op.bufs[0].loc, "red_async reduces into another CTA's shared memory (PTX ISA red.async: \"different from the CTA of "
                         "the executing thread\"): name it with '@ CTA'");
      expect("->");
      op.bar = ref(mbars_, "mbarrier", false);
      op.bar.cta = op.bufs[0].cta;
      expect("bytes");
      const ir::Loc bl = peek().loc;
      op.bytes = expr();
      if (const auto v = const_value(op.bytes); v && !(red ? spec::rules::red_async_bytes_valid(*v) : spec::rules::st_async_bytes_valid(*v)))
        fail(bl, red ? "red_async reduces 4 or 8 bytes per thread (.u32/.s32/.b32, .u64), not " + std::to_string(*v)
                     : "st_async stores 4, 8 or 16 bytes per thread (.b32, .b64 / .v2.b32, .v4.b32 / .v2.b64 / .b128), not " +
                           std::to_string(*v));
      break;
    }
    case OpCode::wgmma:
    case OpCode::tcgen05_mma:
      expect("read");
      op.bufs.push_back(ref(buffers_, "buffer"));
      while (accept(",")) op.bufs.push_back(ref(buffers_, "buffer"));
      if (code == OpCode::tcgen05_mma && accept("into")) op.tmem = ref(buffers_, "tensor-memory buffer", false);
      if (code == OpCode::tcgen05_mma) cta_group(op);
      break;
    case OpCode::tcgen05_alloc:
    case OpCode::tcgen05_dealloc: {
      // The whole declaration: one allocation.
      const Token& t = peek();
      const std::string n = name("a tensor-memory buffer");
      auto it = buffers_.find(n);
      if (it == buffers_.end()) {
        if (broken_.count(n)) silent();
        std::vector<std::string> known;
        for (const auto& [b, i] : buffers_)
          if (k_.buffers[static_cast<std::size_t>(i)].space == ir::Space::tensor) known.push_back(b);
        fail(t.loc, "unknown tensor-memory buffer '" + n + "'" + suggest(n, known));
      }
      op.tmem.object = it->second;
      op.tmem.loc = t.loc;
      if (peek().kind == Tok::punct && peek().text == "[")
        fail(peek().loc, kw + " takes the whole declaration '" + n + "' (one allocation of all its elements): drop the index");
      cta_group(op);
      break;
    }
    case OpCode::tcgen05_ld:
    case OpCode::tcgen05_st:
      op.bufs.push_back(ref(buffers_, "tensor-memory buffer", false));
      while (accept(",")) op.bufs.push_back(ref(buffers_, "tensor-memory buffer", false));
      break;
    case OpCode::tcgen05_cp:
      op.bufs.push_back(ref(buffers_, "buffer", false));
      expect("->");
      op.tmem = ref(buffers_, "tensor-memory buffer", false);
      break;
    case OpCode::clc_try_cancel:
      op.bufs.push_back(ref(buffers_, "buffer", false));
      expect("->");
      op.bar = ref(mbars_, "mbarrier", false);
      if (accept("multicast")) op.multicast = expr();
      break;
    case OpCode::clc_query: op.bufs.push_back(ref(buffers_, "buffer", false)); break;
    case OpCode::tcgen05_commit:
      op.bar = ref(mbars_, "mbarrier", false);
      if (accept("multicast")) op.multicast = expr();
      cta_group(op);
      break;
    case OpCode::tcgen05_relinquish: cta_group(op); break;
    case OpCode::cluster_arrive: options(op, false, false, true, false, false); break;
    case OpCode::fence_acq_rel:
    case OpCode::fence_sc:
      options(op, false, false, false, true, false);
      // PTX ISA membar/fence: fence{.sem}.scope, the scope is not optional.
      if (op.scope == ir::Scope::standard) fail(loc, "'" + kw + "' needs a scope: write '" + kw + " cta' or '" + kw + " cluster'");
      break;
    case OpCode::fence_mbarrier_init:
    case OpCode::syncthreads:
    case OpCode::syncwarp:
    case OpCode::cp_async_commit:
    case OpCode::cp_async_wait_all:
    case OpCode::bulk_commit_group:
    case OpCode::wgmma_fence:
    case OpCode::wgmma_commit:
    case OpCode::tcgen05_fence_before:
    case OpCode::tcgen05_fence_after:
    case OpCode::tcgen05_wait_ld:
    case OpCode::tcgen05_wait_st:
    case OpCode::fence_proxy_async:
    case OpCode::cluster_wait:
    case OpCode::cluster_sync:
    case OpCode::s_barrier:
    case OpCode::s_barrier_signal:
    case OpCode::s_barrier_wait:
    case OpCode::exit: break;  // no operands
  }
  check_spaces(op);
  check_operands(op);
  const bool returns = code == OpCode::clc_query || code == OpCode::mbar_test_wait || code == OpCode::mbar_try_wait || code == OpCode::mbar_pending_count ||
                       code == OpCode::bar_red || code == OpCode::mbar_arrive || code == OpCode::mbar_arrive_expect_tx ||
                       code == OpCode::mbar_arrive_drop;
  if (dest >= 0 && !returns) fail(loc, "'" + kw + "' returns no value to assign");
  if (dest < 0 && (code == OpCode::mbar_test_wait || code == OpCode::mbar_try_wait || code == OpCode::mbar_pending_count ||
                   code == OpCode::bar_red || code == OpCode::clc_query))
    fail(loc, "'" + kw + "' returns a value: write 'r = " + kw + " ...'");
  check_isa_form(op, at, loc);
  return op;
}

// Which memory each buffer operand may be in: tensor memory only for the
// tcgen05 operations on it (and an MMA's A operand), shared memory for the
// rest; `@ CTA` is for shared memory (distributed shared memory).
void Parser::check_spaces(const ir::Op& op) {
  const std::string kw(ir::op_keyword(op.code));
  auto is_tmem = [&](const ir::Ref& r) { return k_.buffers[static_cast<std::size_t>(r.object)].space == ir::Space::tensor; };
  auto name_of = [&](const ir::Ref& r) { return k_.buffers[static_cast<std::size_t>(r.object)].name; };
  const bool tmem_op = op.code == OpCode::tcgen05_ld || op.code == OpCode::tcgen05_st;
  for (const ir::Ref& r : op.bufs) {
    if (tmem_op && !is_tmem(r))
      fail(r.loc, "'" + kw + "' accesses tensor memory, and '" + name_of(r) + "' is shared memory: declare it 'tmem " +
                      name_of(r) + " cols C'");
    if (!tmem_op && op.code != OpCode::tcgen05_mma && is_tmem(r))
      fail(r.loc, "'" + name_of(r) + "' is tensor memory: '" + kw +
                      "' accesses shared memory (tensor memory is accessed with tcgen05_ld, tcgen05_st, tcgen05_cp and tcgen05_mma)");
    if (is_tmem(r) && r.cta != ir::no_expr)
      fail(k_.exprs[static_cast<std::size_t>(r.cta)].loc, "'" + name_of(r) + "' is tensor memory, which has no '@ CTA' (the model's "
                                                         "tensor memory is the CTA's own)");
  }
  if (op.tmem.object >= 0 && !is_tmem(op.tmem))
    fail(op.tmem.loc, "'" + name_of(op.tmem) + "' is shared memory; '" + kw + "' needs a tensor-memory buffer ('tmem " +
                          name_of(op.tmem) + " cols C')");
}

void Parser::check_operands(const ir::Op& op) {
  constexpr std::int64_t max_count = (1 << 20) - 1;  // mbarrier counts and tx bytes (PTX ISA, mbarrier)
  if (op.code != OpCode::bar_red && op.code != OpCode::s_waitcnt) check_range(op.n, "the number of pending groups", 0, max_number);
  check_range(op.multicast, "the multicast CTA mask", 1, (std::int64_t{1} << k_.cluster_ctas) - 1);
  switch (op.code) {
    case OpCode::mbar_init:
    case OpCode::mbar_arrive:
    case OpCode::mbar_arrive_drop:
    case OpCode::mbar_arrive_expect_tx: check_range(op.count, "the count", 1, max_count); break;
    case OpCode::bar_sync:
    case OpCode::bar_arrive:
    case OpCode::bar_red:
      check_range(op.id, "a named-barrier id", 0, 15);
      check_range(op.count, "a named-barrier thread count", 32, 1024);
      if (auto v = op.count == ir::no_expr ? std::nullopt : const_value(op.count); v && *v % 32 != 0)
        fail(k_.exprs[static_cast<std::size_t>(op.count)].loc,
             "a named-barrier thread count is a multiple of the warp size (32), not " + std::to_string(*v));
      break;
    case OpCode::read:
    case OpCode::write:
    case OpCode::mbar_expect_tx:
    case OpCode::mbar_complete_tx:
    case OpCode::mbar_wait:
    case OpCode::mbar_test_wait:
    case OpCode::mbar_try_wait:
    case OpCode::mbar_pending_count:
    case OpCode::mbar_inval:
    case OpCode::fence_mbarrier_init:
    case OpCode::syncthreads:
    case OpCode::syncwarp:
    case OpCode::tma_load:
    case OpCode::tma_store:
    case OpCode::tma_reduce:
    case OpCode::bulk_commit_group:
    case OpCode::bulk_wait_group:
    case OpCode::bulk_wait_group_read:
    case OpCode::cp_async:
    case OpCode::cp_async_mbarrier_arrive:
    case OpCode::cp_async_commit:
    case OpCode::cp_async_wait:
    case OpCode::cp_async_wait_all:
    case OpCode::st_async:
    case OpCode::red_async:
    case OpCode::wgmma_fence:
    case OpCode::wgmma:
    case OpCode::wgmma_commit:
    case OpCode::wgmma_wait:
    case OpCode::tcgen05_mma:
    case OpCode::tcgen05_commit:
    case OpCode::tcgen05_fence_before:
    case OpCode::tcgen05_fence_after:
    case OpCode::tcgen05_alloc:
    case OpCode::tcgen05_dealloc:
    case OpCode::tcgen05_relinquish:
    case OpCode::tcgen05_ld:
    case OpCode::tcgen05_st:
    case OpCode::tcgen05_wait_ld:
    case OpCode::tcgen05_wait_st:
    case OpCode::tcgen05_cp:
    case OpCode::clc_try_cancel:
    case OpCode::clc_query:
    case OpCode::fence_proxy_async:
    case OpCode::fence_acq_rel:
    case OpCode::fence_sc:
    case OpCode::cluster_arrive:
    case OpCode::cluster_wait:
    case OpCode::cluster_sync:
    case OpCode::s_waitcnt:
    case OpCode::global_load_lds:
    case OpCode::s_barrier:
    case OpCode::s_barrier_signal:
    case OpCode::s_barrier_wait:
    case OpCode::exit: break;
  }
  // try_cancel writes a .b128 response (PTX ISA clusterlaunchcontrol.try_cancel).
  if (op.code == OpCode::clc_try_cancel && !op.bufs.empty()) {
    const ir::BufferDecl& b = k_.buffers[static_cast<std::size_t>(op.bufs[0].object)];
    if (b.bytes != spec::clc::response_bytes)
      fail(op.bufs[0].loc, "clc_try_cancel writes a 16-byte response, and '" + b.name + "' has " + std::to_string(b.bytes) +
                               " bytes per element: declare it 'smem " + b.name + "[N] bytes 16'");
  }
  check_range(op.bytes, "the byte count", 0, max_count);
  // A bulk copy moves a multiple of 16 bytes (PTX ISA, cp.async.bulk: its
  // size operand; ptxas: "expected to be multiple of 16", at most 1048560):
  // the tx bytes of a tma_load, or without them the buffer it fills; the
  // buffer a tma_store reads.
  if (op.code == OpCode::tma_load && op.bytes != ir::no_expr) {
    if (auto v = const_value(op.bytes); v && spec::rules::bulk_copy_size(*v) != spec::Violation::none)
      fail(k_.exprs[static_cast<std::size_t>(op.bytes)].loc,
           "the byte count of a bulk copy is " + std::to_string(*v) +
               ": PTX cp.async.bulk copies a multiple of 16 bytes (0..1048560); round it to a multiple of 16");
  } else if ((op.code == OpCode::tma_load || op.code == OpCode::tma_store || op.code == OpCode::tma_reduce) && !op.bufs.empty()) {
    const ir::BufferDecl& b = k_.buffers[static_cast<std::size_t>(op.bufs[0].object)];
    if (spec::rules::bulk_copy_size(b.bytes) != spec::Violation::none)
      fail(op.bufs[0].loc, std::string(ir::op_keyword(op.code)) + " copies all of '" + b.name + "', " + std::to_string(b.bytes) +
                               " bytes: PTX cp.async.bulk copies a multiple of 16 bytes; declare it a multiple of 16" +
                               (op.code == OpCode::tma_load ? " or give 'bytes B'" : ""));
  }
}

// Forms that parse but that no PTX instruction spells: ptxas rejects them
// (tests/isa_limits_test.cpp assembles each with ptxas). PTX ISA sections:
// mbarrier.arrive and mbarrier.arrive_drop (the syntax of their forms), bar,
// barrier (barrier{.cta}.arrive).
void Parser::check_isa_form(const ir::Op& op, const OptionLocs& at, ir::Loc loc) {
  const bool arrive = op.code == OpCode::mbar_arrive || op.code == OpCode::mbar_arrive_drop ||
                      op.code == OpCode::mbar_arrive_expect_tx;
  if (arrive) {
    const bool drop = op.code == OpCode::mbar_arrive_drop;
    const bool tx = op.code == OpCode::mbar_arrive_expect_tx || (drop && op.bytes != ir::no_expr);
    const std::string ptx = std::string(drop ? "mbarrier.arrive_drop" : "mbarrier.arrive") + (tx ? ".expect_tx" : "");
    const bool remote = op.bar.cta != ir::no_expr;
    // mbarrier.arrive{...}.shared::cluster.b64 _, [addr] ...: no state.
    if (remote && op.dest_var >= 0)
      fail(k_.exprs[static_cast<std::size_t>(op.bar.cta)].loc,
           "an arrive on a barrier '@ CTA' returns no state: PTX " + ptx +
               " on .shared::cluster takes only the sink '_' as its destination; drop '" +
               role_->vars[static_cast<std::size_t>(op.dest_var)] + " =' or arrive on the agent's own barrier");
    // .expect_tx forms take [addr], txCount and no count.
    if (tx && op.count != ir::no_expr)
      fail(at.count, "PTX " + ptx + " has no count operand (it counts one arrival); drop 'count', or add an 'arrive ... count N' for the other arrivals");
    // mbarrier.arrive{_drop}.noComplete{.release}{.cta}{.shared{::cta}}.b64 state, [addr], count.
    if (op.no_complete) {
      const std::string allowed = "PTX allows .noComplete only as " + std::string(drop ? "mbarrier.arrive_drop" : "mbarrier.arrive") +
                                  ".noComplete.release.cta on the agent's own barrier (.shared::cta)";
      if (remote) fail(at.nocomplete, "'nocomplete' on a barrier '@ CTA': " + allowed + "; drop '@ CTA' or 'nocomplete'");
      if (op.sem == ir::Sem::relaxed) fail(at.nocomplete, "'nocomplete' with 'relaxed': " + allowed + "; drop 'relaxed'");
      if (op.scope == ir::Scope::cluster) fail(at.nocomplete, "'nocomplete' with 'cluster': " + allowed + "; write 'cta' or drop it");
      if (tx) fail(at.nocomplete, "'nocomplete' with 'bytes': " + allowed + ", not with .expect_tx; drop 'bytes' or 'nocomplete'");
    }
  }
  // barrier{.cta}.arrive a, b: "a non-zero thread count is required".
  if (op.code == OpCode::bar_arrive && op.count == ir::no_expr)
    fail(loc, "bar_arrive needs a thread count: PTX barrier.arrive requires its operand b (only barrier.sync may leave it "
              "out, for the whole CTA); write 'bar_arrive ID, THREADS'");
}

// The operations of each target (ir::op_target; docs/dsl.md, "Targets"),
// checked once the whole file is read, since `target` may come after the roles.
// cp.async-groups are per thread (PTX ISA cp.async.commit_group: "creates a
// new cp.async-group per thread"; cp.async.wait_group makes the writes
// visible "to the executing thread"). The model follows the groups of one
// thread per agent, so in a role with cp_async_commit / cp_async_wait every
// cp.async operation is `one:`: the lane that issues the copies commits and
// waits them, and a barrier or syncwarp orders the other lanes after it. (An
// agent-wide group would order every lane after every lane's copies, hiding
// a missing __syncthreads.)
void Parser::check_cp_async_lanes(const std::vector<ir::Stmt>& body) {
  std::vector<const ir::Op*> ops;
  bool groups = false;
  auto walk = [&](auto& self, const std::vector<ir::Stmt>& b) -> void {
    for (const ir::Stmt& s : b) {
      if (s.kind == ir::StmtKind::op &&
          (s.op.code == OpCode::cp_async || s.op.code == OpCode::cp_async_commit || s.op.code == OpCode::cp_async_wait ||
           s.op.code == OpCode::cp_async_wait_all)) {
        ops.push_back(&s.op);
        groups |= s.op.code != OpCode::cp_async;
      }
      self(self, s.body);
      self(self, s.else_body);
    }
  };
  walk(walk, body);
  if (!groups) return;
  for (const ir::Op* o : ops)
    if (o->lanes != ir::Lanes::one) {
      target_error(o->loc, "cp.async-groups are per thread and the model follows one thread's: write 'one: " +
                               std::string(ir::op_keyword(o->code)) +
                               "' (the lane that issues the copies commits and waits them; a barrier then orders the other lanes), "
                               "or track the copies with cp_async_arrive");
      return;
    }
}

void Parser::check_target(const std::vector<ir::Stmt>& body) {
  for (const ir::Stmt& s : body) {
    if (s.kind == ir::StmtKind::op) check_target_op(s.op);
    check_target(s.body);
    check_target(s.else_body);
  }
}

void Parser::check_target_op(const ir::Op& op) {
  const std::string kw(ir::op_keyword(op.code));
  const bool amd = k_.target == ir::Target::amd;
  const std::string chip = spec::amd::gfx_name(k_.gfx);
  switch (ir::op_target(op.code)) {
    case ir::OpTarget::both: break;
    case ir::OpTarget::nvidia:
      if (amd) {
        std::string why;
        switch (op.code) {
          case OpCode::syncthreads:
          case OpCode::bar_sync:
          case OpCode::bar_arrive:
          case OpCode::bar_red: why = "AMD has no named barriers; the workgroup barrier is s_barrier"; break;
          case OpCode::syncwarp: why = "a wave's lanes run in lockstep, one instruction stream: nothing to write"; break;
          case OpCode::tma_load:
          case OpCode::tma_store:
          case OpCode::tma_reduce:
          case OpCode::bulk_commit_group:
          case OpCode::bulk_wait_group:
          case OpCode::bulk_wait_group_read:
          case OpCode::cp_async:
          case OpCode::cp_async_mbarrier_arrive:
          case OpCode::cp_async_commit:
          case OpCode::cp_async_wait:
          case OpCode::cp_async_wait_all:
          case OpCode::st_async:
          case OpCode::red_async:
            why = "AMD has no TMA, bulk copies, cp.async, st.async or red.async; a copy into LDS is global_load_lds, waited for with s_waitcnt vmcnt(N)";
            break;
          case OpCode::mbar_arrive_drop:
          case OpCode::mbar_arrive_expect_tx:
          case OpCode::mbar_expect_tx:
          case OpCode::mbar_complete_tx:
          case OpCode::mbar_test_wait:
          case OpCode::mbar_try_wait:
          case OpCode::mbar_pending_count:
          case OpCode::mbar_inval:
          case OpCode::fence_mbarrier_init:
            why = "AMD has no mbarrier in hardware; the software mbarrier (an LDS word) has init, arrive and wait ... parity only";
            break;
          case OpCode::cluster_arrive:
          case OpCode::cluster_wait:
          case OpCode::cluster_sync: why = "AMD has no thread-block clusters"; break;
          case OpCode::wgmma_fence:
          case OpCode::wgmma:
          case OpCode::wgmma_commit:
          case OpCode::wgmma_wait:
          case OpCode::tcgen05_mma:
          case OpCode::tcgen05_commit:
          case OpCode::tcgen05_fence_after:
          case OpCode::tcgen05_fence_before: why = "AMD has no asynchronous MMA reading shared memory (its MFMA/WMMA read registers)"; break;
          case OpCode::tcgen05_alloc:
          case OpCode::tcgen05_dealloc:
          case OpCode::tcgen05_relinquish:
          case OpCode::tcgen05_ld:
          case OpCode::tcgen05_st:
          case OpCode::tcgen05_wait_ld:
          case OpCode::tcgen05_wait_st:
          case OpCode::tcgen05_cp: why = "AMD has no tensor memory (Blackwell's tcgen05)"; break;
          case OpCode::clc_try_cancel:
          case OpCode::clc_query: why = "AMD has no cluster launch control"; break;
          case OpCode::fence_proxy_async:
          case OpCode::fence_acq_rel:
          case OpCode::fence_sc: why = "PTX fences have no AMD instruction of their own here; order LDS with s_waitcnt and a barrier"; break;
          case OpCode::read:
          case OpCode::write:
          case OpCode::mbar_init:
          case OpCode::mbar_arrive:
          case OpCode::mbar_wait:
          case OpCode::s_waitcnt:
          case OpCode::global_load_lds:
          case OpCode::s_barrier:
          case OpCode::s_barrier_signal:
          case OpCode::s_barrier_wait:
          case OpCode::exit: break;
        }
        target_error(op.loc, "'" + kw + "' is a PTX (NVIDIA) operation, not under 'target amd': " + why);
      }
      return;
    case ir::OpTarget::amd:
    case ir::OpTarget::amd_cdna:
    case ir::OpTarget::amd_gfx12:
      if (!amd) {
        target_error(op.loc, "'" + kw + "' is an AMD instruction: declare 'target amd' (the kernel is 'target nvidia')");
        return;
      }
      if (ir::op_target(op.code) == ir::OpTarget::amd_gfx12 && !spec::amd::has_split_barrier(k_.gfx))
        target_error(op.loc, "'" + kw + "' is the gfx12 split barrier (RDNA4 ISA); " + chip +
                                 " (CDNA) has s_barrier only: write s_barrier, or declare 'target amd gfx1200'");
      if (ir::op_target(op.code) == ir::OpTarget::amd_cdna && !spec::amd::has_lds_dma(k_.gfx))
        target_error(op.loc, "'" + kw + "' loads into LDS, which CDNA has (gfx90a, gfx940, gfx942); " + chip +
                                 " (RDNA4) has no load with an LDS destination");
      break;
  }
  if (!amd) return;
  // On AMD: no clusters, so no `@ CTA`; the software mbarrier's forms only.
  if (op.bar.object >= 0 && op.bar.cta != ir::no_expr)
    target_error(k_.exprs[static_cast<std::size_t>(op.bar.cta)].loc, "'@ CTA' names a CTA of a cluster: AMD has no clusters");
  for (const ir::Ref& r : op.bufs)
    if (r.cta != ir::no_expr)
      target_error(k_.exprs[static_cast<std::size_t>(r.cta)].loc, "'@ CTA' names a CTA of a cluster: AMD has no clusters");
  const std::string sw = "the software mbarrier (spec/sw_mbarrier.hpp) has ";
  if (op.code == OpCode::mbar_arrive) {
    if (op.dest_var >= 0) target_error(op.loc, sw + "no state token: its arrive returns nothing; drop the assignment");
    if (op.no_complete) target_error(op.loc, sw + "no .noComplete arrive: drop 'nocomplete'");
    if (op.sem != ir::Sem::standard || op.scope != ir::Scope::standard)
      target_error(op.loc, sw + "one arrive, a release compare-and-swap at workgroup scope: drop the release/relaxed and "
                                "cta/cluster options");
  }
  if (op.code == OpCode::mbar_wait) {
    if (op.token_var >= 0) target_error(op.loc, sw + "no state token: wait by 'parity P'");
    if (op.sem != ir::Sem::standard || op.scope != ir::Scope::standard)
      target_error(op.loc, sw + "one wait, acquire loads at workgroup scope: drop the acquire/relaxed and cta/cluster options");
  }
  if (op.code == OpCode::s_waitcnt) {
    // gfx9 S_WAITCNT: vmcnt 0..63, lgkmcnt 0..15; gfx12 S_WAIT_LOADCNT and
    // S_WAIT_DSCNT: 0..63 (spec/amd.hpp, max_vmcnt, max_lgkmcnt).
    for (const auto& [e, what, hi] : {std::tuple{op.n, "vmcnt", spec::amd::max_vmcnt(k_.gfx)},
                                      std::tuple{op.count, "lgkmcnt", spec::amd::max_lgkmcnt(k_.gfx)}}) {
      if (e == ir::no_expr) continue;
      if (auto v = const_value(e); v && (*v < 0 || *v > static_cast<std::int64_t>(hi)))
        target_error(k_.exprs[static_cast<std::size_t>(e)].loc, std::string(what) + " is " + std::to_string(*v) + "; on " +
                                                                     chip + " it must be in 0.." + std::to_string(hi));
    }
  }
}

void Parser::block(std::vector<ir::Stmt>& out) {
  expect(":");
  if (peek().kind != Tok::newline) expected("end of line after ':'");
  next();
  if (peek().kind != Tok::indent) fail(peek().loc, "expected an indented block after ':'");
  next();
  const Nest nest(depth_, max_block_depth);
  if (nest.over()) stop(peek().loc, "blocks nested too deeply (the limit is 64; each elif counts as one level)");
  while (peek().kind != Tok::dedent && peek().kind != Tok::end) {
    if (peek().kind == Tok::newline) {
      next();
      continue;
    }
    try {
      statement(out);
    } catch (const Fail&) {
      if (static_cast<int>(errors_.size()) >= max_errors) throw;
      recover();
    }
  }
  if (peek().kind == Tok::dedent) next();
}

// After 'if' (or 'elif'): the condition, the block, and an elif/else chain.
void Parser::if_rest(ir::Stmt& s) {
  s.kind = ir::StmtKind::if_else;
  s.expr = expr();
  block(s.body);
  if (is("elif")) {
    // An elif is an if nested in the else branch (of the IR, and of every
    // pass that walks it): it counts against the nesting limit.
    ir::Stmt inner;
    inner.loc = next().loc;
    const Nest nest(depth_, max_block_depth);
    if (nest.over()) stop(inner.loc, "blocks nested too deeply (the limit is 64; each elif counts as one level)");
    if_rest(inner);
    s.else_body.push_back(std::move(inner));
  } else if (accept("else")) {
    block(s.else_body);
  }
}

void Parser::statement(std::vector<ir::Stmt>& out) {
  const Token& tk = peek();
  if (tk.kind == Tok::indent) fail(tk.loc, "unexpected indentation");
  if (tk.kind != Tok::name) expected("a statement");
  ir::Stmt s;
  s.loc = tk.loc;
  if (tk.text == "for") {
    next();
    const ir::Loc vloc = peek().loc;
    const std::string v = name("a loop variable");
    if (is_builtin(v))
      fail(t_[pos_ - 1].loc, "'" + v + "' is a builtin and cannot be a loop variable");
    expect("in");
    s.kind = ir::StmtKind::for_loop;
    s.lo = expr();
    expect("..");
    s.hi = expr();
    s.var = define_var(v, vloc);
    block(s.body);
    out.push_back(std::move(s));
    return;
  }
  if (tk.text == "if") {
    next();
    // `if lane == 0:` (CUDA's `if (lane_id == 0)`, or elect.sync): the
    // operations in the block are executed by the elected lane of each warp.
    if (is("lane") && is("==", 1) && peek(2).kind == Tok::number && peek(2).value == 0 && is(":", 3)) {
      next();
      next();
      next();
      ++lane0_;
      try {
        block(out);
      } catch (...) {
        --lane0_;
        throw;
      }
      --lane0_;
      if (is("else") || is("elif"))
        fail(peek().loc, "'if lane == 0:' has no '" + peek().text + "': the other lanes run what follows the block");
      return;
    }
    if_rest(s);
    out.push_back(std::move(s));
    return;
  }
  if (tk.text == "else" || tk.text == "elif") fail(tk.loc, "'" + tk.text + "' without a matching 'if'");
  if (tk.text == "assert") {
    next();
    s.kind = ir::StmtKind::assert_true;
    s.expr = expr();
    end_of_statement();
    out.push_back(std::move(s));
    return;
  }
  // [dest =] [one:|each:|all:] op ...   or   var = expr
  int dest = -1;
  std::string dest_name;
  if (is("=", 1) && !ir::op_from_keyword(tk.text)) {
    dest_name = tk.text;
    if (is_builtin(dest_name))
      fail(tk.loc, "'" + dest_name + "' is a builtin and cannot be assigned");
    next();
    next();
    const bool lane_prefix = (is("one") || is("all") || is("each")) && is(":", 1);
    if (!lane_prefix && (peek().kind != Tok::name || !ir::op_from_keyword(peek().text))) {
      if (lane0_ > 0)
        fail(tk.loc, "an assignment under 'if lane == 0:': a variable is the warp's, the same in all its lanes; assign it outside the block");
      s.kind = ir::StmtKind::assign;
      s.expr = expr();
      s.var = define_var(dest_name, s.loc);
      end_of_statement();
      out.push_back(std::move(s));
      return;
    }
  }
  ir::Lanes lanes = ir::Lanes::all;
  bool lanes_given = false;
  if ((is("one") || is("all") || is("each")) && is(":", 1)) {
    lanes = is("one") ? ir::Lanes::one : is("each") ? ir::Lanes::each : ir::Lanes::all;
    lanes_given = true;
    next();
    next();
  }
  const Token& optk = peek();
  if (optk.kind != Tok::name) expected("an operation");
  auto code = ir::op_from_keyword(optk.text);
  if (!code) {
    std::vector<std::string> known;
#define PC_X(e, kw, l, doc) known.emplace_back(kw);
    PC_OPS(PC_X)
#undef PC_X
    fail(optk.loc, "unknown operation '" + optk.text + "'" + suggest(optk.text, known));
  }
  next();
  if (lane0_ > 0) {
    const std::string kw(ir::op_keyword(*code));
    if (lanes_given) fail(s.loc, "'if lane == 0:' already says which lanes execute '" + kw + "': remove the prefix");
    switch (ir::op_lanes(*code)) {
      case ir::LanePolicy::aligned:
        fail(optk.loc, "'" + kw + "' is executed by all the lanes of a warp together: it cannot be under 'if lane == 0:'");
      case ir::LanePolicy::leader: break;  // one elected lane in any case (warps.cpp checks there is one warp)
      case ir::LanePolicy::any:
      case ir::LanePolicy::single:
      case ir::LanePolicy::agent:
        lanes = ir::role_warps(*role_) == 1 ? ir::Lanes::one : ir::Lanes::each;
        lanes_given = true;
        break;
    }
  }
  if (!dest_name.empty()) dest = define_var(dest_name, s.loc);
  s.kind = ir::StmtKind::op;
  s.loc = tk.loc;  // where the statement starts: `r =` or `one:` if present
  s.op = op(*code, optk.loc, lanes, lanes_given, dest);
  s.op.lane0 = lane0_ > 0;
  end_of_statement();
  out.push_back(std::move(s));
}

void Parser::param() {
  const Token& tk = peek();
  const std::string n = name("a parameter name");
  if (params_.count(n)) fail(tk.loc, "parameter '" + n + "' is declared twice");
  declaring_ = n;
  expect("=");
  ir::Param p;
  p.name = n;
  p.loc = tk.loc;
  p.value = const_expr("a parameter value", -max_number, max_number);
  if (accept("in")) {
    if (accept("{")) {
      do p.candidates.push_back(const_expr("a parameter value", -max_number, max_number));
      while (accept(","));
      expect("}");
    } else {
      p.lo = const_expr("a range bound", -max_number, max_number);
      expect("..");
      p.hi = const_expr("a range bound", -max_number, max_number);
      if (p.lo > p.hi) fail(tk.loc, "empty range " + std::to_string(p.lo) + ".." + std::to_string(p.hi));
    }
  }
  for (const auto& [on, ov] : overrides_)
    if (on == n) p.value = ov;
  const bool in_set = p.candidates.empty() || std::find(p.candidates.begin(), p.candidates.end(), p.value) != p.candidates.end();
  const bool in_range = p.lo > p.hi || (p.value >= p.lo && p.value <= p.hi);
  if (!in_set || !in_range) fail(tk.loc, "parameter '" + n + "' = " + std::to_string(p.value) + " is outside its declared values");
  params_[n] = static_cast<int>(k_.params.size());
  k_.params.push_back(std::move(p));
  end_of_statement();
}

void Parser::role() {
  const Token& tk = peek();
  ir::Role r;
  r.name = name("a role name");
  r.loc = tk.loc;
  for (const ir::Role& other : k_.roles)
    if (other.name == r.name) fail(tk.loc, "role '" + r.name + "' is declared twice");
  const Token& g = peek();
  const std::string gran = name("'warp', 'warpgroup' or 'warps N'");
  if (gran == "warp") r.granularity = ir::Granularity::warp;
  else if (gran == "warpgroup") r.granularity = ir::Granularity::warpgroup;
  else if (gran == "warps") r.warps = static_cast<int>(const_expr("the warps of a role", 1, 32));  // warps per CTA: at most 32
  else fail(g.loc, "expected 'warp', 'warpgroup' or 'warps N', found '" + gran + "'");
  // Multiplicity: `x N` or `xN`.
  if (peek().kind == Tok::name && peek().text.size() > 1 && peek().text[0] == 'x' &&
      std::all_of(peek().text.begin() + 1, peek().text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    const Token& m = next();
    const std::string digits = m.text.substr(1);
    if (digits.size() > 3 || std::stoll(digits) < 1 || std::stoll(digits) > max_role_count)
      fail(m.loc, "a role has 1.." + std::to_string(max_role_count) + " instances");
    r.count = static_cast<int>(std::stoll(digits));
  } else if (accept("x")) {
    r.count = static_cast<int>(const_expr("the number of instances", 1, max_role_count));
  }
  if (accept("on")) {
    expect("cta");
    r.cta = static_cast<int>(const_expr("the CTA of a role", 0, k_.cluster_ctas - 1));
    r.cta_end = r.cta + 1;
    // `on cta K..M`: the CTAs K to M-1, the upper bound excluded as in `for`.
    if (accept("..")) r.cta_end = static_cast<int>(const_expr("the end of a role's CTA range", r.cta + 1, k_.cluster_ctas));
  }
  k_.roles.push_back(std::move(r));
  role_ = &k_.roles.back();
  role_->vars = {"cta", "instance", "warp"};
  vars_ = {{"cta", ir::var_cta}, {"instance", ir::var_instance}, {"warp", ir::var_warp}};
  std::vector<ir::Stmt> body;
  const std::size_t errors_before = errors_.size();
  const int silenced_before = silenced_;
  block(body);
  role_ = &k_.roles.back();
  role_->body = std::move(body);
  if (role_->body.empty() && errors_.size() == errors_before && silenced_ == silenced_before)
    fail(role_->loc, "role '" + role_->name + "' has an empty body");
  place_warps(
      k_, *role_,
      [&] {
        const ir::Loc at = role_->loc;
        return binary(ir::BinOp::eq, add({ir::ExprKind::var, ir::UnOp::neg, ir::BinOp::add, 0, -1, ir::var_warp, ir::no_expr, ir::no_expr, at}),
                      constant(0, at), at);
      },
      [&](ir::Loc at, const std::string& msg) { target_error(at, msg); });
  check_cp_async_lanes(role_->body);
  role_ = nullptr;
}

void Parser::declaration() {
  const Token& tk = peek();
  if (tk.kind == Tok::indent) fail(tk.loc, "unexpected indentation at the top level");
  if (tk.kind != Tok::name) expected("a declaration (kernel, param, target, cluster, cta, clc, smem, tmem, mbarrier, role)");
  const std::string kw = next().text;
  if (kw == "kernel") {
    if (seen_kernel_) fail(tk.loc, "a file holds one kernel; 'kernel' appears twice");
    seen_kernel_ = true;
    k_.name = name("a kernel name");
    k_.loc = tk.loc;
    end_of_statement();
  } else if (kw == "param") {
    param();
  } else if (kw == "target") {
    // target nvidia | target amd [CHIP]: the chip sets the wave size and the
    // instructions there are (spec/amd.hpp); without one, spec::amd::default_gfx.
    if (target_loc_.line > 0) fail(tk.loc, "'target' is declared twice");
    target_loc_ = tk.loc;
    const Token& t = peek();
    const std::string v = name("'nvidia' or 'amd'");
    if (v == "nvidia") k_.target = ir::Target::nvidia;
    else if (v == "amd") k_.target = ir::Target::amd;
    else fail(t.loc, "expected 'nvidia' or 'amd', found '" + v + "'");
    if (k_.target == ir::Target::amd && peek().kind == Tok::name) {
      const Token& c = next();
      std::vector<std::string> chips;
      bool found = false;
      for (const spec::amd::Gfx g : {spec::amd::Gfx::gfx90a, spec::amd::Gfx::gfx940, spec::amd::Gfx::gfx942,
                                     spec::amd::Gfx::gfx1200, spec::amd::Gfx::gfx1201}) {
        chips.emplace_back(spec::amd::gfx_name(g));
        if (c.text == chips.back()) {
          k_.gfx = g;
          found = true;
        }
      }
      if (!found)
        fail(c.loc, "unknown AMD chip '" + c.text + "': the model has gfx90a, gfx940, gfx942 (CDNA, wave64) and gfx1200, "
                    "gfx1201 (RDNA4, wave32)" + suggest(c.text, chips));
    }
    end_of_statement();
  } else if (kw == "cluster") {
    if (!k_.roles.empty() || !k_.buffers.empty() || !k_.mbarriers.empty())
      fail(tk.loc, "declare the cluster before buffers, barriers and roles");
    cluster_loc_ = tk.loc;
    k_.cluster_ctas = static_cast<int>(const_expr("the cluster size", 1, 16));
    cluster_declared_ = true;
    end_of_statement();
  } else if (kw == "clc") {
    // clc N: the clusters waiting to launch that clusterlaunchcontrol.try_cancel
    // may take (spec/clc.hpp); a request answers "not cancelled" once none is left.
    if (clc_loc_.line > 0) fail(tk.loc, "'clc' is declared twice");
    clc_loc_ = tk.loc;
    k_.clc_queue = static_cast<int>(const_expr("the clusters left to launch", 0, 255));
    end_of_statement();
  } else if (kw == "cta") {
    cta_threads_loc_ = tk.loc;
    expect("threads");
    expect("=");
    k_.cta_threads = static_cast<int>(const_expr("the CTA's thread count", 32, 1024));
    end_of_statement();
  } else if (kw == "smem" || kw == "mbarrier" || kw == "tmem") {
    const Token& nt = peek();
    const std::string n = name(kw == "mbarrier" ? "an mbarrier name" : "a buffer name");
    if (buffers_.count(n) || mbars_.count(n) || params_.count(n)) fail(nt.loc, "'" + n + "' is already declared");
    declaring_ = n;
    int size = 1;
    if (accept("[")) {
      size = static_cast<int>(const_expr("an array size", 1, max_array));
      expect("]");
    }
    if (kw == "smem") {
      expect("bytes");
      const ir::Loc bl = peek().loc;
      ir::BufferDecl b;
      b.name = n;
      b.size = size;
      b.loc = nt.loc;
      b.bytes_expr = expr();
      auto v = const_value(b.bytes_expr);
      if (!v || *v < 1 || *v > (1 << 30)) fail(bl, "buffer bytes must be a constant in 1..2^30");
      b.bytes = *v;
      if (accept("aliases")) {
        b.alias = alias_clause(n);
        k_.buffers.push_back(b);
        if (const auto why = check::layout::alias_error(k_, static_cast<int>(k_.buffers.size()) - 1)) fail(b.alias.loc, *why);
        k_.buffers.pop_back();
      }
      buffers_[n] = static_cast<int>(k_.buffers.size());
      k_.buffers.push_back(b);
    } else if (kw == "tmem") {
      // Tensor memory (sm_100a): `tmem NAME[N] cols C`, N elements of C
      // columns, allocated together by one tcgen05.alloc of N x C columns: a
      // power of 2 in 32..512 (PTX ISA tcgen05.alloc, spec/tmem.hpp).
      expect("cols");
      const ir::Loc cl = peek().loc;
      ir::BufferDecl b;
      b.name = n;
      b.size = size;
      b.loc = nt.loc;
      b.space = ir::Space::tensor;
      b.cols = const_expr("the columns of a tensor-memory element", 1, spec::tmem::columns);
      b.bytes = b.cols * spec::tmem::bytes_per_column;
      if (!spec::tmem::valid_alloc_columns(b.cols * size))
        fail(cl, "'" + n + "' takes " + std::to_string(b.cols * size) + " columns (" + std::to_string(size) + " x " +
                     std::to_string(b.cols) + "): tcgen05.alloc allocates a power of 2 in 32..512 columns");
      int tmem_decls = 0;
      for (const ir::BufferDecl& o : k_.buffers) tmem_decls += o.space == ir::Space::tensor;
      if (tmem_decls >= 32) fail(nt.loc, "at most 32 tensor-memory declarations per kernel");
      buffers_[n] = static_cast<int>(k_.buffers.size());
      k_.buffers.push_back(b);
    } else {
      ir::MbarrierDecl m;
      m.name = n;
      m.size = size;
      m.loc = nt.loc;
      if (accept("count")) m.count = const_expr("an mbarrier count", 1, (1 << 20) - 1);
      if (accept("aliases")) {
        m.alias = alias_clause(n);
        k_.mbarriers.push_back(m);
        if (const auto why = check::layout::mbar_alias_error(k_, static_cast<int>(k_.mbarriers.size()) - 1)) fail(m.alias.loc, *why);
        k_.mbarriers.pop_back();
      }
      mbars_[n] = static_cast<int>(k_.mbarriers.size());
      k_.mbarriers.push_back(m);
    }
    end_of_statement();
  } else if (kw == "role") {
    role();
  } else {
    fail(tk.loc, "expected a declaration (kernel, param, target, cluster, cta, clc, smem, tmem, mbarrier, role), found '" + kw + "'" +
                     suggest(kw, {"kernel", "param", "target", "cluster", "cta", "clc", "smem", "tmem", "mbarrier", "role"}));
  }
}

void Parser::finish() {
  if (k_.target == ir::Target::amd && k_.cluster_ctas > 1)
    target_error(cluster_loc_, "AMD has no thread-block clusters: 'cluster' needs 'target nvidia'; an AMD workgroup is one CTA");
  for (const ir::Role& r : k_.roles) check_target(r.body);
  if (errors_.empty()) check_tmem_allocated();  // a whole-kernel check, once the statements are sound
  if (!seen_kernel_) errors_.push_back({file_, {1, 1}, "the file declares no kernel: start it with 'kernel NAME'"});
  else if (k_.roles.empty() && errors_.empty()) errors_.push_back({file_, k_.loc, "kernel '" + k_.name + "' has no role"});
  check_cta_threads();
  for (const auto& [on, ov] : overrides_) {
    (void)ov;
    // A parameter whose declaration failed (its value out of range, say) has its error already.
    if (!params_.count(on) && !broken_.count(on)) {
      std::vector<std::string> known;
      for (const auto& [n, i] : params_) known.push_back(n);
      errors_.push_back({file_, {0, 0}, "--param " + on + ": the kernel has no such parameter" + suggest(on, known)});
    }
  }
  if (expects_.size() > 1) errors_.push_back({file_, expects_[1].first, "more than one '# expect:' line"});
  if (!expects_.empty()) {
    const std::string& e = expects_[0].second;
    if (e != "verified" && !spec::violation_from_name(e))
      errors_.push_back({file_, expects_[0].first, "'# expect: " + e + "': expected 'verified' or a violation name (docs/spec.md)"});
    k_.expect = e;
  }
}

// A tensor-memory buffer that some operation accesses and no tcgen05_alloc
// anywhere allocates: every such access is tmem_unallocated, whatever the
// interleaving, so it is bad input (the first access, located).
void Parser::check_tmem_allocated() {
  std::vector<bool> allocated(k_.buffers.size(), false);
  std::vector<const ir::Ref*> accesses;
  auto walk = [&](auto&& self, const std::vector<ir::Stmt>& body) -> void {
    for (const ir::Stmt& st : body) {
      self(self, st.body);
      self(self, st.else_body);
      if (st.kind != ir::StmtKind::op) continue;
      const ir::Op& op = st.op;
      if (op.code == OpCode::tcgen05_alloc && op.tmem.object >= 0) allocated[static_cast<std::size_t>(op.tmem.object)] = true;
      if (op.code == OpCode::tcgen05_alloc || op.code == OpCode::tcgen05_dealloc) continue;
      for (const ir::Ref& r : op.bufs) accesses.push_back(&r);
      if (op.tmem.object >= 0) accesses.push_back(&op.tmem);
    }
  };
  for (const ir::Role& r : k_.roles) walk(walk, r.body);
  std::vector<bool> told(k_.buffers.size(), false);
  for (const ir::Ref* r : accesses) {
    const auto b = static_cast<std::size_t>(r->object);
    if (b >= k_.buffers.size() || k_.buffers[b].space != ir::Space::tensor || allocated[b] || told[b]) continue;
    told[b] = true;
    errors_.push_back({file_, r->loc, "tensor memory '" + k_.buffers[b].name + "' is accessed but never allocated: add 'tcgen05_alloc " +
                                          k_.buffers[b].name + "' (one warp; then publish it with a barrier)"});
  }
}

Parsed Parser::run() {
  try {
    while (peek().kind != Tok::end) {
      if (peek().kind == Tok::newline || peek().kind == Tok::dedent) {
        next();
        continue;
      }
      try {
        declaring_.clear();
        declaration();
      } catch (const Fail&) {
        if (!declaring_.empty()) broken_.insert(declaring_);
        if (static_cast<int>(errors_.size()) >= max_errors) throw;
        recover();
      }
    }
    finish();
  } catch (const Fail&) {
    truncated_ = true;
  } catch (const Stop&) {
  }
  std::stable_sort(errors_.begin(), errors_.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return std::tie(a.loc.line, a.loc.col) < std::tie(b.loc.line, b.loc.col);
  });
  // At most max_errors, then one line that says the rest was left out.
  if (static_cast<int>(errors_.size()) > max_errors) {
    errors_.resize(max_errors);
    truncated_ = true;
  }
  if (truncated_) errors_.push_back({file_, errors_.empty() ? ir::Loc{} : errors_.back().loc, "too many errors; stopping"});
  return Parsed{std::move(k_), std::move(errors_)};
}

}  // namespace

Parsed parse(std::string_view source, const std::string& file, const std::vector<std::pair<std::string, std::int64_t>>& overrides) {
  if (source.size() > max_source_bytes)
    return Parsed{{}, {{file, {0, 0}, "the file is larger than 16 MiB; a .bk kernel is a few hundred lines"}}};
  const Lexed lx = lex(source);
  Parser p(lx, file, overrides);
  return p.run();
}

std::optional<std::pair<std::string, std::int64_t>> parse_override(std::string_view s) {
  const std::size_t eq = s.find('=');
  if (eq == std::string_view::npos) return std::nullopt;
  const Lexed name = lex(s.substr(0, eq));
  const Lexed value = lex(s.substr(eq + 1));
  // The name: one identifier. The value: [-] number.
  if (!name.errors.empty() || name.tokens.size() != 3 || name.tokens[0].kind != Tok::name) return std::nullopt;
  if (!value.errors.empty()) return std::nullopt;
  std::size_t i = 0;
  const bool neg = value.tokens.size() == 4 && value.tokens[0].kind == Tok::punct && value.tokens[0].text == "-";
  if (neg) ++i;
  if (value.tokens.size() != i + 3 || value.tokens[i].kind != Tok::number) return std::nullopt;
  return std::pair{name.tokens[0].text, neg ? -value.tokens[i].value : value.tokens[i].value};
}

Parsed parse_file(const std::string& path, std::string& source_out,
                  const std::vector<std::pair<std::string, std::int64_t>>& overrides) {
  auto error = [&](std::string msg) { return Parsed{{}, {{path, {0, 0}, std::move(msg)}}}; };
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return error("is a directory, not a .bk file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return error(std::string("cannot open the file (") + std::strerror(errno) + ")");
  // Read in chunks rather than asking for the size: a device or a pipe has
  // none, and /dev/zero never ends.
  source_out.clear();
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    source_out.append(buf, static_cast<std::size_t>(in.gcount()));
    if (source_out.size() > max_source_bytes) {
      source_out.clear();
      return error("the file is larger than 16 MiB; a .bk kernel is a few hundred lines");
    }
  }
  if (in.bad()) return error("cannot read the file");
  return parse(source_out, path, overrides);
}

}  // namespace pc::dsl
