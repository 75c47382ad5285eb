// What a check of one kernel produces: the verdict, and for a violation the
// trace that reaches it. Output formats (text, JSON, SARIF, HTML) read this.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "checker/ir.hpp"
#include "spec/violation.hpp"

namespace pc::check {

enum class Verdict : std::uint8_t { verified, violation, inconclusive };

// Exit statuses are a contract (docs/cli.md): only ever extended.
enum class Exit : int { verified = 0, violation = 1, bad_input = 2, inconclusive = 3 };

[[nodiscard]] constexpr const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::verified: return "verified";
    case Verdict::violation: return "violation";
    case Verdict::inconclusive: return "inconclusive";
  }
  return "?";
}

// One step of a counterexample: an agent's operation, or an async event.
struct TraceStep {
  int agent = -1;            // index into Result::agents; -1: an async event
  std::string text;          // e.g. "one: arrive full[1] (phase 3 -> 4)"
  ir::Loc loc;               // source line of the operation (of its issue, for async events)
  bool phase_completed = false;
  std::string object;        // the barrier whose phase completed, if any
  bool blocked = false;      // the final step of a deadlock: this agent is blocked here
};

struct Agent {
  std::string name;          // e.g. "consumer#1@cta0"
  std::string role;
  int cta = 0;
  int instance = 0;
};

// A finding of a warning kind (spec::is_warning): the search went on past it.
struct Warning {
  spec::Violation kind = spec::Violation::none;
  std::string message;
  ir::Loc loc;
  int agent = -1;
};

struct Result {
  Verdict verdict = Verdict::verified;
  std::vector<Warning> warnings;   // the first finding of each warning kind (none under `strict`)
  spec::Violation violation = spec::Violation::none;
  std::string message;       // one line: what went wrong, where
  ir::Loc loc;               // the violating operation
  int agent = -1;            // the violating agent (-1: none / global)
  std::vector<Agent> agents;
  std::vector<TraceStep> trace;
  std::string replay;        // token that re-runs exactly this schedule (--replay)
  std::string inconclusive_reason;  // "max-states", "timeout", "max-memory"
  std::uint64_t states = 0;  // distinct states stored
  std::uint64_t transitions = 0;
  std::uint64_t max_depth = 0;
  double seconds = 0;
  std::uint64_t memory_bytes = 0;  // state storage
};

// What a `# expect:` line names: "verified", "inconclusive", or the violation.
[[nodiscard]] inline std::string outcome_name(const Result& r) {
  switch (r.verdict) {
    case Verdict::verified: return "verified";
    case Verdict::inconclusive: return "inconclusive";
    case Verdict::violation: return std::string(spec::violation_name(r.violation));
  }
  return "?";
}

struct Options {
  bool reduction = true;             // partial-order and symmetry reductions
  bool partial_order = true;         // with `reduction`: also between shared steps of different agents
  std::uint64_t max_states = 50'000'000;
  std::uint64_t max_memory_mb = 8192;
  double timeout_s = 0;              // 0: none
  std::string replay;                // non-empty: follow this schedule only
  bool progress = false;             // a progress line on stderr every few seconds
  bool strict = false;               // warning kinds are violations (--strict)
  bool check_reduction = false;      // test the partial-order reduction where it applies (--check-reduction); InternalError if it fails
};

}  // namespace pc::check
