#include "checker/diagnostic.hpp"

#include <algorithm>
#include <sstream>

namespace pc {

std::string render(const Diagnostic& d, std::string_view source) {
  std::ostringstream o;
  o << d.file;
  if (d.loc.line > 0) o << ':' << d.loc.line << ':' << d.loc.col;
  o << ": error: " << d.message << '\n';
  if (d.loc.line <= 0 || !d.excerpt) return o.str();
  std::size_t start = 0;
  for (int l = 1; l < d.loc.line && start != std::string_view::npos; ++l) {
    start = source.find('\n', start);
    if (start != std::string_view::npos) ++start;
  }
  if (start == std::string_view::npos || start > source.size()) return o.str();
  std::size_t end = source.find('\n', start);
  if (end == std::string_view::npos) end = source.size();
  // A long line is shown as a window of it around the column, so that the
  // caret stays under the right character.
  constexpr std::size_t width = 160;
  std::size_t from = 0;
  const std::size_t col = static_cast<std::size_t>(std::max(1, d.loc.col)) - 1;
  if (col > width / 2) from = std::min(col - width / 2, end - start);
  std::string line(source.substr(start + from, std::min<std::size_t>(end - start - from, width)));
  for (char& c : line)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = c == '\t' ? ' ' : '?';
  const std::string lead = from > 0 ? "  ..." : "  ";
  o << lead << line << '\n' << std::string(lead.size() + std::min(col - from, width), ' ') << "^\n";
  return o.str();
}

}  // namespace pc
