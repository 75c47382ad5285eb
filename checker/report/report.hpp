// Writers of check results: text for people, JSON (docs/check-kernel.schema.json)
// for scripts, SARIF 2.1.0 for code-scanning tools, and a self-contained HTML
// timeline of a counterexample.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "checker/dsl/parser.hpp"
#include "checker/result.hpp"
#include "checker/smt/symbolic.hpp"

namespace pc::report {

// check-kernel's version: --version, and the tool version in SARIF.
inline constexpr const char* tool_version = "0.1";

// One file's outcome: bad input (diagnostics), or a check result.
struct FileReport {
  std::string file;
  std::string source;
  std::string kernel;
  bool bad_input = false;
  std::vector<dsl::Diagnostic> diagnostics;
  std::string expect;             // the `# expect:` line, if any
  check::Result result;
  std::vector<smt::Finding> symbolic;  // with --symbolic
  std::vector<std::pair<std::string, std::int64_t>> params;  // parameter values used
};

// "verified", a violation name, "inconclusive", or "bad_input".
[[nodiscard]] std::string outcome_name(const FileReport& f);
// Whether the outcome matches the file's `# expect:` line (true when there is none).
[[nodiscard]] bool matches_expectation(const FileReport& f);
[[nodiscard]] check::Exit exit_of(const FileReport& f);

[[nodiscard]] std::string text(const FileReport& f, bool verbose_trace);
[[nodiscard]] std::string json(const std::vector<FileReport>& files);
[[nodiscard]] std::string sarif(const std::vector<FileReport>& files);
[[nodiscard]] std::string html(const FileReport& f);

// JSON string escaping (also used by the HTML writer for data attributes).
[[nodiscard]] std::string json_escape(std::string_view s);

}  // namespace pc::report
