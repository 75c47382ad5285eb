// The placed kernel as .bk text: the input's lines with the barriers it had
// taken out and the placed ones put in (each slot's lines at its statement's
// indentation), and the same change as a unified diff.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "checker/place/hazards.hpp"

namespace pc::place {

struct Insert {
  int slot = 0;
  std::vector<std::string> lines;  // without indentation
};

struct Rewritten {
  std::string text;
  std::string diff;
  std::vector<int> lines;  // per insert, the line of the new text its first line is on
  std::vector<int> moved;  // per line of the source (1-based), its line in the new text (0: taken out)
};

// The lines of a text, without their line ends.
[[nodiscard]] std::vector<std::string> split_lines(const std::string& s);

// `replace` pairs a 1-based line of the source with its new text (the
// `# expect:` and `target` lines); `header` lines go before the `kernel` line,
// `declare` lines (new mbarriers) before the first `role` line; `drop` lines
// go (declarations nothing uses any more).
[[nodiscard]] Rewritten rewrite(const std::string& source, const std::string& file, const Analysis& a,
                                const std::vector<Insert>& inserts, const std::vector<std::pair<int, std::string>>& replace,
                                const std::vector<std::string>& header, const std::vector<std::string>& declare = {},
                                const std::vector<int>& drop = {});

}  // namespace pc::place
