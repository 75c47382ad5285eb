// The PTX reader (PTX ISA, "Syntax" and "Directives"): tokens, then
// directives and instructions. Register names are resolved here, scope by
// scope (`{ .reg .pred p; ... }` in inline assembly declares a register of
// that block only), so that the executor sees register numbers alone.
#include "checker/ptx/parse.hpp"

#include <cctype>
#include <cstdlib>
#include <map>
#include <optional>
#include <utility>

namespace pc::ptx {
namespace {

struct Token {
  enum class Kind : std::uint8_t { ident, number, fnumber, string, punct, end };
  Kind kind = Kind::end;
  std::string text;
  std::int64_t value = 0;
  int line = 0, col = 0;
};

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%' || c == '.'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%' || c == '.'; }

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}
  std::vector<Token> run(std::vector<std::pair<int, std::string>>& bad) {
    std::vector<Token> out;
    while (true) {
      skip();
      Token t;
      t.line = line_;
      t.col = static_cast<int>(i_ - line_start_) + 1;
      if (i_ >= s_.size()) {
        out.push_back(t);
        return out;
      }
      const char c = s_[i_];
      if (c == '"') {
        const std::size_t j = s_.find('"', i_ + 1);
        const std::size_t e = j == std::string_view::npos ? s_.size() : j + 1;
        t.kind = Token::Kind::string;
        t.text = std::string(s_.substr(i_ + 1, (j == std::string_view::npos ? s_.size() : j) - i_ - 1));
        i_ = e;
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        number(t, bad);
      } else if (ident_start(c)) {
        std::size_t j = i_;
        while (j < s_.size() && (ident_char(s_[j]) || (s_[j] == ':' && j + 1 < s_.size() && s_[j + 1] == ':'))) j += s_[j] == ':' ? 2 : 1;
        t.kind = Token::Kind::ident;
        t.text = std::string(s_.substr(i_, j - i_));
        i_ = j;
      } else {
        t.kind = Token::Kind::punct;
        t.text = std::string(1, c);
        ++i_;
      }
      out.push_back(std::move(t));
    }
  }

 private:
  void skip() {
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '\n') {
        ++i_;
        ++line_;
        line_start_ = i_;
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        ++i_;
      } else if (s_.substr(i_, 2) == "//") {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else if (s_.substr(i_, 2) == "/*") {
        i_ += 2;
        while (i_ < s_.size() && s_.substr(i_, 2) != "*/") {
          if (s_[i_] == '\n') ++line_, line_start_ = i_ + 1;
          ++i_;
        }
        i_ = std::min(s_.size(), i_ + 2);
      } else {
        return;
      }
    }
  }
  // Decimal, 0x hex, octal with a leading 0, 0b binary, an optional U; 0f
  // and 0d are floating-point bit patterns (data).
  void number(Token& t, std::vector<std::pair<int, std::string>>& bad) {
    std::size_t j = i_;
    while (j < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[j])) || s_[j] == '.')) ++j;
    std::string text(s_.substr(i_, j - i_));
    i_ = j;
    t.text = text;
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'f' || text[1] == 'F' || text[1] == 'd' || text[1] == 'D')) {
      t.kind = Token::Kind::fnumber;
      return;
    }
    if (!text.empty() && (text.back() == 'U' || text.back() == 'u')) text.pop_back();
    int base = 10;
    std::size_t from = 0;
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) base = 16, from = 2;
    else if (text.size() > 2 && text[0] == '0' && (text[1] == 'b' || text[1] == 'B')) base = 2, from = 2;
    else if (text.size() > 1 && text[0] == '0') base = 8, from = 1;
    if (text.find('.') != std::string::npos || text.find('e') != std::string::npos) {
      t.kind = Token::Kind::fnumber;  // 1.5, 1e3: a decimal floating-point literal
      return;
    }
    char* end = nullptr;
    const unsigned long long v = std::strtoull(text.c_str() + from, &end, base);
    if (end == nullptr || *end != '\0' || from == text.size()) bad.emplace_back(t.line, "malformed number '" + t.text + "'");
    t.kind = Token::Kind::number;
    t.value = static_cast<std::int64_t>(v);
  }

  std::string_view s_;
  std::size_t i_ = 0, line_start_ = 0;
  int line_ = 1;
};

const char* const specials[] = {"%tid", "%ntid", "%laneid", "%warpid", "%nwarpid", "%ctaid", "%nctaid", "%smid", "%nsmid",
                                "%gridid", "%clusterid", "%nclusterid", "%cluster_ctaid", "%cluster_nctaid",
                                "%cluster_ctarank", "%cluster_nctarank", "%is_explicit_cluster", "%lanemask_eq",
                                "%lanemask_le", "%lanemask_lt", "%lanemask_ge", "%lanemask_gt", "%clock", "%clock64",
                                "%clock_hi", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi", "%dynamic_smem_size",
                                "%total_smem_size", "%aggr_smem_size", "%reserved_smem_offset_begin",
                                "%reserved_smem_offset_end", "%reserved_smem_offset_cap", "%current_graph_exec"};

bool is_special(const std::string& s) {
  const std::string base = s.substr(0, s.find('.'));
  for (const char* x : specials)
    if (base == x) return true;
  return s.rfind("%envreg", 0) == 0 || s.rfind("%pm", 0) == 0;
}

class Parser {
 public:
  Parser(std::string_view text, std::string file) : file_(std::move(file)) {
    std::vector<std::pair<int, std::string>> bad;
    toks_ = Lexer(text).run(bad);
    for (auto& [line, msg] : bad) error(line, 1, msg);
  }

  ParsedModule run() {
    while (!at_end() && out_.errors.size() < 20) top();
    return std::move(out_);
  }

 private:
  // ---- tokens ----
  const Token& peek(int k = 0) const { return toks_[std::min(pos_ + static_cast<std::size_t>(k), toks_.size() - 1)]; }
  bool at_end() const { return peek().kind == Token::Kind::end; }
  Token next() {
    Token t = peek();
    if (!at_end()) ++pos_;
    return t;
  }
  bool is(const char* s, int k = 0) const { return peek(k).text == s && peek(k).kind != Token::Kind::string; }
  bool accept(const char* s) {
    if (!is(s)) return false;
    ++pos_;
    return true;
  }
  void error(int line, int col, const std::string& msg) {
    if (out_.errors.size() < 20) out_.errors.push_back(Diagnostic{file_, ir::Loc{line, col}, msg, true});
  }
  void error_at(const Token& t, const std::string& msg) { error(t.line, t.col, msg); }
  bool expect(const char* s) {
    if (accept(s)) return true;
    error_at(peek(), std::string("expected '") + s + "', found '" + (at_end() ? "the end of the file" : peek().text) + "'");
    return false;
  }
  // Skips to the end of the statement (past the next ';' at this depth) after an error.
  void skip_statement() {
    int depth = 0;
    while (!at_end()) {
      const Token t = next();
      if (t.kind != Token::Kind::punct) continue;
      if (t.text == "{") ++depth;
      else if (t.text == "}" && --depth < 0) { --pos_; return; }
      else if (t.text == ";" && depth == 0) return;
    }
  }
  void skip_braces() {
    if (!expect("{")) return;
    int depth = 1;
    while (!at_end() && depth > 0) {
      const Token t = next();
      if (t.kind == Token::Kind::punct && t.text == "{") ++depth;
      else if (t.kind == Token::Kind::punct && t.text == "}") --depth;
    }
  }
  void skip_line() {
    const int line = peek().line;
    while (!at_end() && peek().line == line) next();
  }

  // ---- module level ----
  void top() {
    const Token t = peek();
    if (t.kind != Token::Kind::ident) {
      error_at(t, "expected a directive, found '" + t.text + "'");
      skip_statement();
      return;
    }
    if (t.text == ".version" || t.text == ".target" || t.text == ".address_size") return skip_line();
    if (t.text == ".file") return file_directive();
    if (t.text == ".section") {
      next();
      while (!at_end() && !is("{")) next();
      return skip_braces();
    }
    // Linkage and the entity it applies to.
    std::size_t save = pos_;
    while (is(".visible") || is(".extern") || is(".weak") || is(".common")) next();
    if (is(".entry") || is(".func")) return function();
    if (is(".shared") || is(".global") || is(".const")) {
      pos_ = save;
      Var v = variable();
      if (!v.name.empty()) out_.module.vars.push_back(std::move(v));
      return;
    }
    error_at(peek(), "'" + peek().text + "' is not a directive the PTX front end reads (docs/ptx.md)");
    skip_statement();
  }

  void file_directive() {
    next();
    const Token n = next();
    const Token path = next();
    if (n.kind != Token::Kind::number || path.kind != Token::Kind::string) {
      error_at(n, ".file needs a number and a quoted path");
      return skip_line();
    }
    auto& files = out_.module.files;
    if (n.value < 0 || n.value > 100000) return error_at(n, ".file number out of range");
    if (files.size() <= static_cast<std::size_t>(n.value)) files.resize(static_cast<std::size_t>(n.value) + 1);
    files[static_cast<std::size_t>(n.value)] = path.text;
    while (accept(",")) next();
  }

  // `[.extern] .shared|.global|.const [.align N] .TYPE name[[N]]... [= ...];`
  Var variable() {
    Var v;
    const Token first = peek();
    v.at.line = first.line;
    v.at.col = first.col;
    while (is(".visible") || is(".extern") || is(".weak")) v.is_extern |= next().text == ".extern";
    const std::string sp = next().text;
    v.space = sp == ".shared" ? Space::shared : sp == ".global" ? Space::global : sp == ".const" ? Space::constant : Space::local;
    std::int64_t elem = 0;
    while (peek().kind == Token::Kind::ident && peek().text[0] == '.') {
      const std::string q = next().text;
      if (q == ".align") {
        const Token a = next();
        v.align = static_cast<int>(a.value);
      } else if (q.rfind(".v", 0) == 0 && q.size() == 3 && std::isdigit(static_cast<unsigned char>(q[2]))) {
        elem = std::max<std::int64_t>(elem, 1) * (q[2] - '0');
      } else {
        const std::int64_t w = type_bytes(q);
        if (w > 0) elem = (elem > 0 ? elem : 1) * w;
      }
    }
    const Token name = next();
    if (name.kind != Token::Kind::ident) {
      error_at(name, "expected the variable's name");
      skip_statement();
      return {};
    }
    v.name = name.text;
    std::int64_t count = 1;
    bool dynamic = false;
    while (accept("[")) {
      if (accept("]")) {
        dynamic = true;
        continue;
      }
      const Token n = next();
      count *= n.value;
      expect("]");
    }
    if (is("=")) {
      while (!at_end() && !is(";")) next();
    }
    expect(";");
    v.bytes = dynamic ? 0 : count * (elem > 0 ? elem : 1);
    if (dynamic) v.is_extern = true;
    return v;
  }

  static std::int64_t type_bytes(const std::string& q) {
    if (q == ".pred") return 1;
    if (q.size() < 3) return 0;
    const char c = q[1];
    if (c != 'b' && c != 'u' && c != 's' && c != 'f') return 0;
    int bits = 0;
    for (std::size_t i = 2; i < q.size(); ++i) {
      if (!std::isdigit(static_cast<unsigned char>(q[i]))) return 0;
      bits = bits * 10 + (q[i] - '0');
    }
    return bits / 8;
  }

  void function() {
    Function f;
    f.entry = next().text == ".entry";
    f.at.line = peek().line;
    if (is("(")) {  // a .func's return value
      next();
      while (!at_end() && !is(")")) next();
      expect(")");
    }
    const Token name = next();
    f.name = name.text;
    f.at.line = name.line;
    f.at.col = name.col;
    if (accept("(")) {
      while (!at_end() && !is(")")) {
        Param p;
        if (!accept(".param") && !accept(".reg")) {
          error_at(peek(), "expected a .param");
          skip_statement();
          return;
        }
        while (peek().kind == Token::Kind::ident && peek().text[0] == '.') {
          const std::string q = next().text;
          if (q == ".align" || q == ".ptr") {
            if (peek().kind == Token::Kind::number) next();
            continue;
          }
          if (q.rfind(".space", 0) == 0 || q == ".global" || q == ".shared" || q == ".const" || q == ".local") continue;
          p.type = q.substr(1);
          p.bytes = type_bytes(q);
        }
        p.name = next().text;
        if (accept("[")) {
          const Token n = next();
          p.bytes *= n.value;
          expect("]");
        }
        f.params.push_back(std::move(p));
        if (!accept(",")) break;
      }
      expect(")");
    }
    // Performance directives before the body.
    while (peek().kind == Token::Kind::ident && peek().text[0] == '.') {
      const std::string d = next().text;
      int* dims = d == ".reqntid" || d == ".maxntid" ? f.reqntid : d == ".reqnctapercluster" || d == ".explicitcluster" ? f.cluster : nullptr;
      for (int i = 0; i < 3 && peek().kind == Token::Kind::number; ++i) {
        const Token n = next();
        if (dims) dims[i] = static_cast<int>(n.value);
        if (!accept(",")) break;
      }
    }
    if (accept(";")) return;  // a prototype
    fn_ = &f;
    scopes_.assign(1, {});
    scope_labels_.clear();
    branch_tables_.clear();
    branch_scopes_.clear();
    next_scope_ = 0;
    body();
    // Branch targets: a label is its block's (PTX ISA, "Statements": the
    // `{ }` of inline asm, which may name its own LAB_WAIT each time), so a
    // branch goes to the label of the innermost block around it that has one.
    for (std::size_t i = 0; i < f.code.size(); ++i) {
      Instr& in = f.code[i];
      if (in.target.empty() || in.parts[0] == "call") continue;  // a call names a function, not a label
      const auto chain = branch_scopes_.find(static_cast<int>(i));
      if (in.parts[0] == "brx") {
        // The list's labels, each resolved as a branch's (the list is the function's).
        const auto list = branch_tables_.find(in.target);
        if (list == branch_tables_.end()) {
          error(in.at.line, in.at.col, "brx.idx names no .branchtargets list '" + in.target + "'");
          continue;
        }
        for (const std::string& l : list->second) {
          int to = -1;
          if (chain != branch_scopes_.end())
            for (auto s = chain->second.rbegin(); s != chain->second.rend() && to < 0; ++s)
              if (const auto it = scope_labels_.find({*s, l}); it != scope_labels_.end()) to = it->second;
          if (to < 0) error(in.at.line, in.at.col, "the .branchtargets list '" + in.target + "' names an unknown label '" + l + "'");
          in.targets.push_back(to);
        }
        in.target_index = in.targets.empty() ? -1 : in.targets.front();
        continue;
      }
      if (chain != branch_scopes_.end())
        for (auto s = chain->second.rbegin(); s != chain->second.rend() && in.target_index < 0; ++s)
          if (const auto it = scope_labels_.find({*s, in.target}); it != scope_labels_.end()) in.target_index = it->second;
      if (in.target_index < 0) error(in.at.line, in.at.col, "branch to an unknown label '" + in.target + "'");
    }
    fn_ = nullptr;
    out_.module.functions.push_back(std::move(f));
  }

  // ---- registers, by scope ----
  struct Scope {
    std::map<std::string, int> names;
    std::vector<std::pair<std::string, std::pair<int, int>>> ranges;  // prefix, (count, first register)
    int id = 0;  // for its labels
  };
  int add_reg(const std::string& name, const std::string& type) {
    fn_->regs.push_back(Reg{name, type});
    return static_cast<int>(fn_->regs.size()) - 1;
  }
  std::optional<int> find_reg(const std::string& name) const {
    std::size_t digits = name.size();
    while (digits > 0 && std::isdigit(static_cast<unsigned char>(name[digits - 1]))) --digits;
    for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
      if (const auto it = s->names.find(name); it != s->names.end()) return it->second;
      if (digits < name.size() && digits > 0)
        for (const auto& [prefix, r] : s->ranges)
          if (prefix == name.substr(0, digits)) {
            const long n = std::strtol(name.c_str() + digits, nullptr, 10);
            if (n < r.first) return r.second + static_cast<int>(n);
          }
    }
    return std::nullopt;
  }
  void reg_decl() {
    next();  // .reg
    std::string type;
    while (peek().kind == Token::Kind::ident && peek().text[0] == '.') {
      const std::string q = next().text;
      if (q == ".align") { next(); continue; }
      if (q.rfind(".v", 0) == 0) continue;
      type = q.substr(1);
    }
    do {
      const Token n = next();
      if (n.kind != Token::Kind::ident) {
        error_at(n, "expected a register name");
        return skip_statement();
      }
      if (accept("<")) {
        const Token c = next();
        expect(">");
        const int first = static_cast<int>(fn_->regs.size());
        if (c.value < 0 || c.value > 1000000) return error_at(c, "register count out of range");
        for (std::int64_t i = 0; i < c.value; ++i) add_reg(n.text + std::to_string(i), type);
        scopes_.back().ranges.emplace_back(n.text, std::make_pair(static_cast<int>(c.value), first));
      } else {
        scopes_.back().names[n.text] = add_reg(n.text, type);
      }
    } while (accept(","));
    expect(";");
  }

  void loc_directive() {
    const Token d = next();
    const Token f = next(), l = next(), c = next();
    if (f.kind != Token::Kind::number || l.kind != Token::Kind::number || c.kind != Token::Kind::number) {
      error_at(d, ".loc needs a file, a line and a column");
      return skip_line();
    }
    Where w{0, 0, static_cast<int>(f.value), static_cast<int>(l.value), static_cast<int>(c.value)};
    // `, function_name LABEL, inlined_at F L C`: the call site in the
    // caller is what the user wrote; an inlined function's own line is
    // library code. The outermost call site wins (the last one given).
    while (accept(",")) {
      const Token k = next();
      if (k.text == "function_name") {
        next();
      } else if (k.text == "inlined_at") {
        const Token f2 = next(), l2 = next(), c2 = next();
        w.src_file = static_cast<int>(f2.value);
        w.src_line = static_cast<int>(l2.value);
        w.src_col = static_cast<int>(c2.value);
      }
    }
    // Line 0 is the compiler's "no line": keep the previous one.
    if (w.src_line > 0) loc_ = w;
  }

  void body() {
    if (!expect("{")) return;
    while (!at_end()) {
      if (accept("}")) {
        if (scopes_.size() > 1) {
          scopes_.pop_back();
          continue;
        }
        return;
      }
      if (accept("{")) {
        scopes_.emplace_back();
        scopes_.back().id = ++next_scope_;
        continue;
      }
      const Token t = peek();
      if (t.kind == Token::Kind::ident && t.text == ".reg") { reg_decl(); continue; }
      if (t.kind == Token::Kind::ident && t.text == ".loc") { loc_directive(); continue; }
      if (t.kind == Token::Kind::ident && (t.text == ".pragma" || t.text == ".maxnreg")) { skip_statement(); continue; }
      if (t.kind == Token::Kind::ident && (t.text == ".shared" || t.text == ".local" || t.text == ".param")) {
        Var v = variable();
        if (v.space == Space::shared && !v.name.empty()) fn_->vars.push_back(std::move(v));
        else if (!v.name.empty()) local_names_[v.name] = true;
        continue;
      }
      if (t.kind == Token::Kind::ident && is(":", 1)) {  // a label
        next();
        next();
        if (is(".branchtargets")) {  // LABEL: .branchtargets L0, L1, ...; (brx.idx's list)
          next();
          std::vector<std::string>& list = branch_tables_[t.text];
          list.clear();
          do list.push_back(next().text);
          while (accept(","));
          expect(";");
          continue;
        }
        if (scopes_.size() == 1) fn_->labels[t.text] = static_cast<int>(fn_->code.size());
        scope_labels_[{scopes_.back().id, t.text}] = static_cast<int>(fn_->code.size());
        continue;
      }
      if (out_.errors.size() >= 20) return;
      instruction();
    }
    error(peek().line, peek().col, "the function's body is not closed ('}' missing)");
  }

  void instruction() {
    Instr in;
    const Token first = peek();
    in.at = loc_;
    in.at.line = first.line;
    in.at.col = first.col;
    if (accept("@")) {
      in.guard_neg = accept("!");
      const Token p = next();
      const auto r = find_reg(p.text);
      if (!r) {
        error_at(p, "unknown predicate register '" + p.text + "'");
        return skip_statement();
      }
      in.guard = *r;
    }
    const Token op = next();
    if (op.kind != Token::Kind::ident || op.text[0] == '.' || op.text[0] == '%') {
      error_at(op, "expected an instruction, found '" + op.text + "'");
      return skip_statement();
    }
    in.text = op.text;
    std::size_t a = 0;
    while (true) {
      const std::size_t b = op.text.find('.', a);
      in.parts.push_back(op.text.substr(a, b == std::string::npos ? std::string::npos : b - a));
      if (b == std::string::npos) break;
      a = b + 1;
    }
    const std::string& m = in.parts[0];
    if (m == "brx") {  // brx.idx{.uni} index, tlist;
      Operand o;
      if (!operand(o)) return skip_statement();
      in.args.push_back(std::move(o));
      expect(",");
    }
    if (m == "bra" || m == "brx") {
      const Token l = next();
      in.target = l.text;
      expect(";");
      std::vector<int>& chain = branch_scopes_[static_cast<int>(fn_->code.size())];
      for (const Scope& s : scopes_) chain.push_back(s.id);
      fn_->code.push_back(std::move(in));
      return;
    }
    if (m == "call") {  // call[.uni] [(ret,)] func, (args)[, proto];
      while (!at_end() && !is(";")) {
        if (accept("(")) {
          while (!at_end() && !is(")")) {
            Operand o;
            if (operand(o)) in.args.push_back(std::move(o));
            if (!accept(",")) break;
          }
          expect(")");
        } else if (accept(",")) {
        } else {
          const Token f = next();
          in.target = f.text;  // the callee (not a label: resolved by the executor)
        }
      }
      expect(";");
      in.target_index = -2;
      fn_->code.push_back(std::move(in));
      return;
    }
    if (!is(";")) {
      do {
        Operand o;
        if (!operand(o)) return skip_statement();
        in.args.push_back(std::move(o));
      } while (accept(","));
    }
    if (!expect(";")) return skip_statement();
    fn_->code.push_back(std::move(in));
  }

  bool reg_operand(const Token& t, Operand& o) {
    if (is_special(t.text)) {
      o.kind = Operand::Kind::special;
      o.name = t.text;
      return true;
    }
    const auto r = find_reg(t.text);
    if (r) {
      o.kind = Operand::Kind::reg;
      o.reg = *r;
      return true;
    }
    if (t.text[0] == '%') {
      error_at(t, "unknown register '" + t.text + "'");
      return false;
    }
    o.kind = Operand::Kind::sym;
    o.name = t.text;
    return true;
  }

  bool operand(Operand& o) {
    const Token t = peek();
    if (accept("[")) {
      o.kind = Operand::Kind::addr;
      bool any = false;
      while (!at_end() && !is("]")) {
        // `[tensorMap, {x, y}]`: a tensor copy's map and coordinates.
        if (any && accept(",")) {
          Operand coords;
          if (!operand(coords)) return false;
          o.elems.push_back(std::move(coords));
          continue;
        }
        std::int64_t sign = 1;
        if (accept("+")) sign = 1;
        else if (accept("-")) sign = -1;
        const Token x = next();
        if (x.kind == Token::Kind::number) {
          o.imm += sign * x.value;
        } else if (x.kind == Token::Kind::ident && sign == 1) {
          Operand base;
          if (!reg_operand(x, base)) return false;
          if (base.kind == Operand::Kind::reg) o.reg = base.reg;
          else o.name = base.name;
        } else if (x.kind == Token::Kind::punct && x.text == "-" ) {
          continue;
        } else {
          error_at(x, "malformed address");
          return false;
        }
        any = true;
      }
      expect("]");
      if (!any) error_at(t, "an empty address");
      return any;
    }
    if (accept("{")) {
      o.kind = Operand::Kind::vec;
      while (!at_end() && !is("}")) {
        Operand e;
        if (!operand(e)) return false;
        o.elems.push_back(std::move(e));
        if (!accept(",")) break;
      }
      return expect("}");
    }
    if (accept("-")) {
      const Token n = next();
      if (n.kind == Token::Kind::fnumber) { o.kind = Operand::Kind::fimm; return true; }
      if (n.kind != Token::Kind::number) {
        error_at(n, "expected a number after '-'");
        return false;
      }
      o.kind = Operand::Kind::imm;
      o.imm = -n.value;
      return true;
    }
    if (accept("!")) {  // a negated predicate operand: stored as a register with reg2 = -2
      const Token p = next();
      if (!reg_operand(p, o) || o.kind != Operand::Kind::reg) {
        error_at(p, "expected a predicate register after '!'");
        return false;
      }
      o.reg2 = -2;
      return true;
    }
    const Token x = next();
    if (x.kind == Token::Kind::number) {
      o.kind = Operand::Kind::imm;
      o.imm = x.value;
      return true;
    }
    if (x.kind == Token::Kind::fnumber) {
      o.kind = Operand::Kind::fimm;
      return true;
    }
    if (x.kind == Token::Kind::ident) {
      if (x.text == "_") {
        o.kind = Operand::Kind::sink;
        return true;
      }
      if (!reg_operand(x, o)) return false;
      if (accept("|")) {
        const Token q = next();
        const auto r = find_reg(q.text);
        if (!r) {
          error_at(q, "unknown register '" + q.text + "'");
          return false;
        }
        o.reg2 = *r;
      }
      return true;
    }
    error_at(x, "expected an operand, found '" + x.text + "'");
    return false;
  }

  std::string file_;
  std::vector<Token> toks_;
  std::size_t pos_ = 0;
  ParsedModule out_;
  Function* fn_ = nullptr;
  std::vector<Scope> scopes_;
  std::map<std::pair<int, std::string>, int> scope_labels_;  // (block, label) -> index into code
  std::map<std::string, std::vector<std::string>> branch_tables_;  // `L: .branchtargets ...` -> its labels
  std::map<int, std::vector<int>> branch_scopes_;           // a branch's index -> the blocks around it, outermost first
  int next_scope_ = 0;
  std::map<std::string, bool> local_names_;
  Where loc_;
};

}  // namespace

ParsedModule parse(std::string_view text, const std::string& file) { return Parser(text, file).run(); }

}  // namespace pc::ptx
