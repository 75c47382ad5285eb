// An error in the input, located at file:line:column: what the .bk front end
// and the checker report as bad input, and what the reports print.
#pragma once

#include <string>
#include <string_view>

#include "checker/ir.hpp"

namespace pc {

struct Diagnostic {
  std::string file;
  ir::Loc loc;  // line 0: the file as a whole
  std::string message;
  bool excerpt = true;  // render shows the source line (not for a file that is not text)
};

// "file:line:col: error: message", the source line, and a caret under the column (with `excerpt`).
[[nodiscard]] std::string render(const Diagnostic& d, std::string_view source);

}  // namespace pc
