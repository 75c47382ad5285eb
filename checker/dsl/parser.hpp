// The .bk front end: text to ir::Kernel, or diagnostics that point at
// file:line:column. The grammar is in docs/dsl.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "checker/diagnostic.hpp"
#include "checker/ir.hpp"

namespace pc::dsl {

using pc::Diagnostic;
using pc::render;

struct Parsed {
  ir::Kernel kernel;
  std::vector<Diagnostic> errors;
  [[nodiscard]] bool ok() const { return errors.empty(); }
};

// `overrides` replace parameter values (check-kernel --param NAME=VALUE); an
// override that names no parameter of the kernel is an error.
[[nodiscard]] Parsed parse(std::string_view source, const std::string& file,
                           const std::vector<std::pair<std::string, std::int64_t>>& overrides = {});

// "NAME=VALUE" as `check-kernel --param` takes it, VALUE written as a number is
// in a .bk file (decimal or 0x hex, an optional minus sign, at most 2^62), so
// that a value means the same on the command line and in the file.
[[nodiscard]] std::optional<std::pair<std::string, std::int64_t>> parse_override(std::string_view s);

inline constexpr std::size_t max_source_bytes = 16u << 20;

// Reads and parses a file; a file that cannot be read, or is larger than
// max_source_bytes, gives a diagnostic at line 0.
[[nodiscard]] Parsed parse_file(const std::string& path, std::string& source_out,
                                const std::vector<std::pair<std::string, std::int64_t>>& overrides = {});

}  // namespace pc::dsl
