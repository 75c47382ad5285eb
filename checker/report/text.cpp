#include <cstdio>
#include <sstream>
#include <string>
#include <string_view>

#include "checker/report/report.hpp"

namespace pc::report {

std::string outcome_name(const FileReport& f) {
  return f.bad_input ? "bad_input" : check::outcome_name(f.result);
}

bool matches_expectation(const FileReport& f) { return f.expect.empty() || f.expect == outcome_name(f); }

check::Exit exit_of(const FileReport& f) {
  if (f.bad_input) return check::Exit::bad_input;
  switch (f.result.verdict) {
    case check::Verdict::verified: return check::Exit::verified;
    case check::Verdict::violation: return check::Exit::violation;
    case check::Verdict::inconclusive: return check::Exit::inconclusive;
  }
  return check::Exit::bad_input;
}

namespace {

std::string where(const FileReport& f, ir::Loc loc) {
  return f.file + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.col);
}

std::string source_line(const std::string& src, int line) {
  std::size_t start = 0;
  for (int l = 1; l < line && start != std::string::npos; ++l) {
    start = src.find('\n', start);
    if (start != std::string::npos) ++start;
  }
  if (start == std::string::npos || start >= src.size()) return "";
  std::size_t end = src.find('\n', start);
  std::string s = src.substr(start, (end == std::string::npos ? src.size() : end) - start);
  const std::size_t a = s.find_first_not_of(' ');
  return a == std::string::npos ? "" : s.substr(a);
}

}  // namespace

std::string text(const FileReport& f, bool verbose_trace) {
  std::ostringstream o;
  if (f.bad_input) {
    for (const dsl::Diagnostic& d : f.diagnostics) o << dsl::render(d, f.source);
    o << f.file << ": bad input (" << f.diagnostics.size() << (f.diagnostics.size() == 1 ? " error" : " errors") << ")\n";
    return o.str();
  }
  const check::Result& r = f.result;
  char stats[160];
  std::snprintf(stats, sizeof stats, "%llu states, %.2f s", static_cast<unsigned long long>(r.states), r.seconds);
  o << f.file << ": " << f.kernel << ": ";
  switch (r.verdict) {
    case check::Verdict::verified:
      o << "VERIFIED";
      if (!r.warnings.empty()) o << ", " << r.warnings.size() << (r.warnings.size() == 1 ? " warning" : " warnings");
      o << " (" << stats << ")";
      break;
    case check::Verdict::inconclusive:
      o << "INCONCLUSIVE: " << r.inconclusive_reason << " reached (" << stats << "); nothing was proven";
      break;
    case check::Verdict::violation: o << "VIOLATION " << spec::violation_name(r.violation) << " (" << stats << ")"; break;
  }
  if (!f.expect.empty()) o << (matches_expectation(f) ? "  [as expected]" : "  [EXPECTED " + f.expect + "]");
  o << '\n';
  if (r.verdict == check::Verdict::violation) {
    o << "  " << where(f, r.loc) << ": " << r.message << '\n';
    // The rule's general statement, unless the message already says just that.
    const std::string_view doc = spec::violation_doc(r.violation);
    if (r.message.find(doc) == std::string::npos) o << "  why: " << doc << '\n';
    if (verbose_trace) {
      o << "  trace (" << r.trace.size() << " steps):\n";
      for (std::size_t i = 0; i < r.trace.size(); ++i) {
        const check::TraceStep& t = r.trace[i];
        const std::string who = t.agent >= 0 ? r.agents[static_cast<std::size_t>(t.agent)].name : "async";
        char num[32];
        std::snprintf(num, sizeof num, "%4zu", i + 1);
        o << "  " << num << "  " << who << std::string(who.size() < 18 ? 18 - who.size() : 1, ' ') << "line "
          << t.loc.line << ": " << t.text;
        if (t.phase_completed) o << "   [" << t.object << "]";
        o << '\n';
        if (i + 1 == r.trace.size() || t.blocked) {
          const std::string src = source_line(f.source, t.loc.line);
          if (!src.empty()) o << "        " << std::string(18, ' ') << "      | " << src << '\n';
        }
      }
    }
    o << "  replay: check-kernel " << f.file << " --replay " << r.replay << '\n';
  }
  for (const check::Warning& w : r.warnings)
    o << "  warning " << spec::violation_name(w.kind) << ": " << where(f, w.loc) << ": " << w.message
      << "\n    (a point the field relies on with no failure known: docs/spec.md, \"Stances\"; --strict makes it an error)\n";
  for (const smt::Finding& s : f.symbolic) {
    o << "  symbolic " << s.check << ": " << smt::status_name(s.status) << ": " << s.claim;
    if (s.status == smt::Status::counterexample) {
      o << " fails for";
      for (const auto& [n, v] : s.witness) o << " --param " << n << "=" << v;
    }
    o << " (" << where(f, s.loc) << ")\n";
  }
  return o.str();
}

}  // namespace pc::report
