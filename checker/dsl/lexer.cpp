#include "checker/dsl/lexer.hpp"

#include <cctype>

namespace pc::dsl {
namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Two-character operators first, then single characters.
constexpr std::string_view two_char[] = {"..", "->", "==", "!=", "<<", ">>", "<=", ">=", "&&", "||"};
constexpr std::string_view one_char = "+-*/%^&|<>=!()[]{},:@";

std::string trim(std::string_view s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return std::string(s.substr(a, b - a));
}

}  // namespace

Lexed lex(std::string_view src) {
  Lexed out;
  std::vector<int> indents{0};
  int line = 1;
  std::size_t i = 0;
  auto error = [&](int col, std::string msg) { out.errors.push_back({ir::Loc{line, col}, std::move(msg)}); };
  while (i <= src.size()) {
    // One physical line: [i, eol).
    std::size_t eol = src.find('\n', i);
    if (eol == std::string_view::npos) eol = src.size();
    const std::string_view text = src.substr(i, eol - i);
    // Indentation.
    std::size_t p = 0;
    bool tab = false;
    while (p < text.size() && (text[p] == ' ' || text[p] == '\t')) {
      tab |= text[p] == '\t';
      ++p;
    }
    const bool blank = p == text.size() || text[p] == '#' || text[p] == '\r';
    if (!blank) {
      if (tab) error(1, "indent with spaces, not tabs");
      const int width = static_cast<int>(p);
      if (width > indents.back()) {
        indents.push_back(width);
        out.tokens.push_back({Tok::indent, "", 0, {line, 1}});
      } else {
        while (width < indents.back()) {
          indents.pop_back();
          out.tokens.push_back({Tok::dedent, "", 0, {line, 1}});
        }
        if (width != indents.back()) error(width + 1, "this line's indentation matches no enclosing block");
      }
    }
    // Tokens of the line.
    while (p < text.size()) {
      const char c = text[p];
      const int col = static_cast<int>(p) + 1;
      if (c == ' ' || c == '\t' || c == '\r') {
        ++p;
      } else if (c == '#') {
        const std::string comment = trim(text.substr(p + 1));
        if (comment.rfind("expect:", 0) == 0) out.expects.emplace_back(ir::Loc{line, col}, trim(comment.substr(7)));
        break;
      } else if (ident_start(c)) {
        std::size_t q = p;
        while (q < text.size() && ident_char(text[q])) ++q;
        out.tokens.push_back({Tok::name, std::string(text.substr(p, q - p)), 0, {line, col}});
        p = q;
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        std::size_t q = p;
        std::int64_t v = 0;
        bool big = false;
        const bool hex = c == '0' && q + 1 < text.size() && (text[q + 1] == 'x' || text[q + 1] == 'X');
        if (hex) q += 2;
        while (q < text.size() && (hex ? std::isxdigit(static_cast<unsigned char>(text[q])) : std::isdigit(static_cast<unsigned char>(text[q])))) {
          const int d = std::isdigit(static_cast<unsigned char>(text[q])) ? text[q] - '0' : (std::tolower(text[q]) - 'a' + 10);
          if (v > (max_number - d) / (hex ? 16 : 10)) big = true;
          else v = v * (hex ? 16 : 10) + d;
          ++q;
        }
        if (hex && q == p + 2) {
          error(col, "malformed number '" + std::string(text.substr(p, q - p)) + "': 0x needs hex digits");
        } else if (q < text.size() && ident_char(text[q])) {
          error(col, "malformed number '" + std::string(text.substr(p, q - p + 1)) + "'");
          while (q < text.size() && ident_char(text[q])) ++q;
        } else if (big) {
          error(col, "number too large (the limit is 2^62)");
        }
        out.tokens.push_back({Tok::number, std::string(text.substr(p, q - p)), v, {line, col}});
        p = q;
      } else {
        bool matched = false;
        for (std::string_view op : two_char) {
          if (text.substr(p, 2) == op) {
            out.tokens.push_back({Tok::punct, std::string(op), 0, {line, col}});
            p += 2;
            matched = true;
            break;
          }
        }
        if (matched) continue;
        if (one_char.find(c) != std::string_view::npos) {
          out.tokens.push_back({Tok::punct, std::string(1, c), 0, {line, col}});
        } else {
          const unsigned char u = static_cast<unsigned char>(c);
          error(col, u >= 0x20 && u < 0x7f ? std::string("unexpected character '") + c + "'"
                                           : "unexpected byte " + std::to_string(u) + " (not printable ASCII)");
        }
        ++p;
      }
    }
    if (!blank) out.tokens.push_back({Tok::newline, "", 0, {line, static_cast<int>(text.size()) + 1}});
    if (eol == src.size()) break;
    i = eol + 1;
    ++line;
  }
  while (indents.size() > 1) {
    indents.pop_back();
    out.tokens.push_back({Tok::dedent, "", 0, {line, 1}});
  }
  out.tokens.push_back({Tok::end, "", 0, {line, 1}});
  return out;
}

}  // namespace pc::dsl
