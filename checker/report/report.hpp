// Writers of check results: text for people, JSON (docs/check-kernel.schema.json)
// for scripts, SARIF 2.1.0 for code-scanning tools, and a self-contained HTML
// timeline of a counterexample. They read results only: nothing here
// depends on the .bk front end or on the SMT back end.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "checker/diagnostic.hpp"
#include "checker/result.hpp"

namespace pc::report {

// check-kernel's version: --version, and the tool version in SARIF.
inline constexpr const char* tool_version = "0.1";

// A claim of the symbolic back end (--symbolic), as the reports print it.
struct SymbolicClaim {
  std::string check;    // arrival_count, tx_balance, ... (docs/checker.md, "Symbolic claims")
  std::string status;   // "proven", "counterexample", "unknown" or "not_checked"
  std::string claim;
  ir::Loc loc;
  std::vector<std::pair<std::string, std::int64_t>> witness;  // parameter values of a counterexample
  std::string detail;     // a counterexample: what fails at the witness
  std::string reason;     // not_checked / unknown: why
  std::string reproduce;  // a counterexample: the check-kernel command that shows it in the explicit search
};

// One file's outcome: bad input or an internal error (diagnostics), or a check result.
// --sweep: the explicit search at every combination of the declared
// parameter values (or a sample of them). The file's result is that of the
// first failing point in enumeration order (a violation before an
// inconclusive one), else of the first point.
// A failing outcome of the points of a sweep: how many, the first.
struct SweepKind {
  std::string outcome;              // a violation name, inconclusive, bad_input or internal_error
  std::uint64_t points = 0;
  std::vector<std::pair<std::string, std::int64_t>> first;  // the first point with it
  std::string replay;               // that point's replay token ("": none, no trace)
  std::size_t index = 0;            // that point's place in the enumeration
};

struct Sweep {
  bool on = false;
  bool sampled = false;             // more points than --sweep-max: a sample was run
  std::uint64_t points = 0;         // combinations of the declared values (saturates at 2^63)
  std::uint64_t run = 0;            // points searched
  std::uint64_t verified = 0, violation = 0, inconclusive = 0, bad_input = 0, internal = 0;
  std::vector<std::string> axes;    // each swept parameter with its values, e.g. "STAGES 1..4"
  std::vector<std::pair<std::string, std::int64_t>> failing;  // the first failing point (empty: none)
  std::string failing_outcome;      // its outcome name
  std::vector<SweepKind> kinds;     // each failing outcome, in the order of their first points
  // Over the points: the states and transitions summed, the sweep's time.
  std::uint64_t states = 0, transitions = 0;
  double seconds = 0;
  // The point whose result the file's is, and its own statistics.
  std::vector<std::pair<std::string, std::int64_t>> shown;
  std::uint64_t result_states = 0, result_transitions = 0;
  double result_seconds = 0;
};

// A kernel read from compiled code (the PTX front end): where a line of its
// text came from, as the compiler's `.loc` says, and that source line.
struct SourceLine {
  std::string where;  // "kernel.cu:19:9"; empty: none
  std::string text;   // the source line, where the file could be read
};

struct FileReport {
  std::string file;
  std::string source;
  std::vector<SourceLine> origin;  // per line of `source` (index = line); empty for a .bk file
  std::string options;             // the front end's options a replay needs ("--entry k --block 128")
  std::vector<std::string> notes;  // how the front end read the kernel, where the verdict depends on it (docs/ptx.md)
  std::string kernel;
  check::Failure failure = check::Failure::none;
  std::vector<Diagnostic> diagnostics;
  std::string expect;             // the `# expect:` line, if any
  check::Result result;
  std::vector<SymbolicClaim> symbolic;  // with --symbolic
  std::vector<std::pair<std::string, std::int64_t>> params;  // parameter values used
  Sweep sweep;                    // with --sweep
  [[nodiscard]] bool failed() const { return failure != check::Failure::none; }
};

// How much of the coverage the text report lists.
enum class Coverage : std::uint8_t { summary, full };

// "verified", a violation name, "inconclusive", "bad_input" or "internal_error".
[[nodiscard]] std::string outcome_name(const FileReport& f);
// Whether the outcome matches the file's `# expect:` line (true when there is none).
[[nodiscard]] bool matches_expectation(const FileReport& f);
[[nodiscard]] check::Exit exit_of(const FileReport& f);
// The worst exit status over the files (check::worst).
[[nodiscard]] check::Exit exit_of(const std::vector<FileReport>& files);
// The process's exit status: the worst over the files; with --check-expect,
// 0 when every file has an `# expect:` line its outcome matches, else 1 (an
// internal error stays 4).
[[nodiscard]] int exit_status(const std::vector<FileReport>& files, bool check_expect);

[[nodiscard]] std::string text(const FileReport& f, bool verbose_trace, Coverage coverage = Coverage::summary);
// --brief: one line per finding (FILE:LINE:COL: KIND: MESSAGE), or the verdict line where there is none.
[[nodiscard]] std::string brief(const FileReport& f);
// `exit_status`: the process's (exit_status above), which the document reports.
[[nodiscard]] std::string json(const std::vector<FileReport>& files, int exit_status);
[[nodiscard]] std::string sarif(const std::vector<FileReport>& files, int exit_status);
[[nodiscard]] std::string html(const FileReport& f);

// --profile-states: where the states come from, as text (indented lines)
// and as the value of the JSON's `profile` (profile.cpp).
[[nodiscard]] std::string profile_text(const FileReport& f);
[[nodiscard]] std::string profile_json(const FileReport& f);

// JSON string escaping (also used by the HTML writer for data attributes).
[[nodiscard]] std::string json_escape(std::string_view s);

}  // namespace pc::report
