// Tokens of the .bk language (docs/dsl.md). Lines matter: a statement ends at
// the end of its line, and indentation opens and closes blocks as in Python.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "checker/expr.hpp"
#include "checker/ir.hpp"

namespace pc::dsl {

enum class Tok : std::uint8_t {
  name,     // identifiers and keywords
  number,
  punct,    // operators and punctuation: text holds it
  newline,
  indent,
  dedent,
  end,
};

struct Token {
  Tok kind = Tok::end;
  std::string text;
  std::int64_t value = 0;  // number
  ir::Loc loc;
};

struct LexError {
  ir::Loc loc;
  std::string message;
};

struct Lexed {
  std::vector<Token> tokens;
  std::vector<LexError> errors;
  std::vector<std::pair<ir::Loc, std::string>> expects;  // `# expect: X` comments
};

inline constexpr std::int64_t max_number = ir::value_limit;  // checker/expr.hpp

[[nodiscard]] Lexed lex(std::string_view src);

}  // namespace pc::dsl
