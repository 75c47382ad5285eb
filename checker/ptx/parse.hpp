// PTX text to a Module (checker/ptx/module.hpp), or diagnostics at
// file:line:column. It reads the whole module's structure (functions,
// registers, variables, labels, `.loc` lines) and every instruction's
// operands, whatever the instruction; which instructions mean what is
// checker/ptx/exec.cpp's business.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "checker/diagnostic.hpp"
#include "checker/ptx/module.hpp"

namespace pc::ptx {

struct ParsedModule {
  Module module;
  std::vector<Diagnostic> errors;
  [[nodiscard]] bool ok() const { return errors.empty(); }
};

[[nodiscard]] ParsedModule parse(std::string_view text, const std::string& file);

}  // namespace pc::ptx
