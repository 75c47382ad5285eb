// The driver of the .bk front end: the parse loop over declarations with its
// error recovery, and the entry points of parser.hpp. The Parser class is in
// parser_impl.hpp.
#include "checker/dsl/parser.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <tuple>

#include "checker/dsl/parser_impl.hpp"

namespace pc::dsl {

namespace detail {

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

}  // namespace detail

namespace {

// A NUL byte, or more than one byte in eight of the first 4 KiB a control
// character other than white space: a binary file (an object file, an image,
// a compressed archive), not a .bk kernel. It gets one error, not one per
// garbled line.
bool binary(std::string_view s) {
  if (s.find('\0') != std::string_view::npos) return true;
  const std::string_view head = s.substr(0, 4096);
  std::size_t control = 0;
  for (const char c : head) {
    const auto u = static_cast<unsigned char>(c);
    control += u < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\v';
  }
  return control * 8 > head.size();
}

}  // namespace

Parsed parse(std::string_view source, const std::string& file, const std::vector<std::pair<std::string, std::int64_t>>& overrides) {
  if (source.size() > max_source_bytes)
    return Parsed{{}, {{file, {0, 0}, "the file is larger than 16 MiB; a .bk kernel is a few hundred lines"}}};
  if (binary(source))
    return Parsed{{}, {{file, {1, 1}, "not a text file (a NUL byte or control characters): a .bk kernel is text (docs/dsl.md)", false}}};
  const Lexed lx = lex(source);
  detail::Parser p(lx, file, overrides);
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
