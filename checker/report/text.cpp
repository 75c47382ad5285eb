#include <cstdio>
#include <sstream>
#include <string>
#include <string_view>

#include "checker/report/report.hpp"

namespace pc::report {

std::string outcome_name(const FileReport& f) {
  switch (f.failure) {
    case check::Failure::none: return check::outcome_name(f.result);
    case check::Failure::bad_input: return "bad_input";
    case check::Failure::internal: return "internal_error";
  }
  return "internal_error";
}

bool matches_expectation(const FileReport& f) { return f.expect.empty() || f.expect == outcome_name(f); }

check::Exit exit_of(const FileReport& f) { return check::exit_of(f.failure, f.result.verdict); }

check::Exit exit_of(const std::vector<FileReport>& files) {
  check::Exit e = check::Exit::verified;
  for (const FileReport& f : files) e = check::worst(e, exit_of(f));
  return e;
}

int exit_status(const std::vector<FileReport>& files, bool check_expect) {
  const check::Exit worst = exit_of(files);
  if (!check_expect || worst == check::Exit::internal) return static_cast<int>(worst);
  bool all = true;
  for (const FileReport& f : files) all &= !f.expect.empty() && matches_expectation(f);
  return static_cast<int>(all ? check::Exit::verified : check::Exit::violation);
}

namespace {

const SourceLine* origin_of(const FileReport& f, int line) {
  if (line <= 0 || static_cast<std::size_t>(line) >= f.origin.size() || f.origin[static_cast<std::size_t>(line)].where.empty())
    return nullptr;
  return &f.origin[static_cast<std::size_t>(line)];
}

// "file:line:col", and the source line a compiled kernel's line came from.
std::string where(const FileReport& f, ir::Loc loc) {
  const SourceLine* o = origin_of(f, loc.line);
  return f.file + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.col) + (o ? " (" + o->where + ")" : "");
}

std::string replay_command(const FileReport& f, const std::string& token) {
  return "check-kernel " + f.file + (f.options.empty() ? "" : " " + f.options) + " --replay " + token;
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

std::string padded(const std::string& s, std::size_t width) {
  return s + std::string(s.size() < width ? width - s.size() : 1, ' ');
}

// The trace, up to the step --steps asked for, if it did.
std::string trace_text(const FileReport& f) {
  const check::Result& r = f.result;
  std::ostringstream o;
  const std::size_t shown = r.snapshot.taken ? r.snapshot.step : r.trace.size();
  if (shown == r.trace.size()) o << "  trace (" << r.trace.size() << " steps):\n";
  else o << "  trace (the first " << shown << " of " << r.trace.size() << " steps):\n";
  for (std::size_t i = 0; i < shown; ++i) {
    const check::TraceStep& t = r.trace[i];
    const std::string who = t.agent >= 0 ? r.agents[static_cast<std::size_t>(t.agent)].name : "async";
    char num[32];
    std::snprintf(num, sizeof num, "%4zu", i + 1);
    o << "  " << num << "  " << padded(who, 18) << "line " << t.loc.line << ": " << t.text;
    if (t.phase_completed) o << "   [" << t.object << "]";
    if (i + 1 == r.earlier.step) o << "   <- the race's earlier access";
    o << '\n';
    if (i + 1 == shown || t.blocked || i + 1 == r.earlier.step) {
      const std::string src = source_line(f.source, t.loc.line);
      if (!src.empty()) o << "        " << std::string(18, ' ') << "      | " << src << '\n';
      if (const SourceLine* sl = origin_of(f, t.loc.line))
        o << "        " << std::string(18, ' ') << "      | " << sl->where << (sl->text.empty() ? "" : ": " + sl->text) << '\n';
    }
  }
  return o.str();
}

// --steps: each agent's position, each barrier's state, what is in flight.
std::string snapshot(const FileReport& f) {
  const check::Result& r = f.result;
  std::ostringstream o;
  const check::Snapshot& s = r.snapshot;
  o << "  state after step " << s.step << ":\n";
  for (const check::Position& p : s.agents) {
    o << "    " << padded(r.agents[static_cast<std::size_t>(p.agent)].name, 18);
    if (p.loc.line > 0) {
      o << "line " << p.loc.line;
      std::string src = source_line(f.source, p.loc.line);
      src = src.substr(0, src.find('#'));
      while (!src.empty() && src.back() == ' ') src.pop_back();
      if (!src.empty()) o << " (" << src << ")";
      o << ": ";
    }
    o << p.status << '\n';
  }
  for (const check::ObjectState& b : s.objects) o << "    " << padded(b.name, 18) << b.state << '\n';
  for (const std::string& e : s.in_flight) o << "    in flight: " << e << '\n';
  return o.str();
}

std::string params_text(const std::vector<std::pair<std::string, std::int64_t>>& ps) {
  std::string o;
  for (const auto& [n, v] : ps) o += (o.empty() ? "" : " ") + std::string("--param ") + n + "=" + std::to_string(v);
  return o;
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f s", s);
  return buf;
}

std::string points_text(std::uint64_t n) { return std::to_string(n) + (n == 1 ? " point" : " points"); }

// --sweep: how many points, their outcomes and totals, a row per failing
// kind, the first failing point.
std::string sweep_text(const FileReport& f) {
  const Sweep& s = f.sweep;
  std::ostringstream o;
  o << "  sweep: ";
  if (s.sampled) o << "a sample of " << s.run << " of " << s.points << " points";
  else o << points_text(s.run);
  if (!s.axes.empty()) {
    o << " (";
    for (std::size_t i = 0; i < s.axes.size(); ++i) o << (i ? ", " : "") << s.axes[i];
    o << ")";
  } else {
    o << " (no parameter with declared values: 'param N = v in lo..hi' declares them)";
  }
  o << ": " << s.verified << " verified";
  for (const auto& [n, what] : {std::pair{s.violation, "violation"}, std::pair{s.inconclusive, "inconclusive"},
                                std::pair{s.bad_input, "bad input"}, std::pair{s.internal, "internal error"}})
    if (n) o << ", " << n << " " << what << (n > 1 && what == std::string_view("violation") ? "s" : "");
  o << "; " << s.states << " states, " << seconds_text(s.seconds) << "\n";
  if (!s.kinds.empty()) {
    std::size_t w_kind = 7, w_points = 6, w_first = 11;
    for (const SweepKind& k : s.kinds) {
      w_kind = std::max(w_kind, k.outcome.size());
      w_points = std::max(w_points, points_text(k.points).size());
      w_first = std::max(w_first, params_text(k.first).size());
    }
    o << "    " << padded("outcome", w_kind + 2) << padded("points", w_points + 2) << padded("first point", w_first + 2)
      << "replay\n";
    for (const SweepKind& k : s.kinds)
      o << "    " << padded(k.outcome, w_kind + 2) << padded(points_text(k.points), w_points + 2)
        << padded(params_text(k.first), w_first + 2)
        << (k.replay.empty() ? std::string("(none: no trace)") : "check-kernel " + f.file + " --replay " + k.replay) << "\n";
  }
  if (!s.failing.empty()) o << "  first failing point: " << s.failing_outcome << " at " << params_text(s.failing) << " (the result above)\n";
  return o.str();
}

std::string kind_word(check::UnreachedKind k) {
  switch (k) {
    case check::UnreachedKind::statement: return "statement";
    case check::UnreachedKind::access: return "buffer access";
    case check::UnreachedKind::assertion: return "assert";
  }
  return "statement";
}

// Statements no interleaving executed: a summary, or each with what it means.
std::string coverage_text(const FileReport& f, Coverage how) {
  const std::vector<check::Unreached>& u = f.result.unreached;
  std::ostringstream o;
  if (how == Coverage::full) {
    if (u.empty()) o << "  coverage: every statement runs in some interleaving\n";
    for (const check::Unreached& x : u) {
      const std::string src = source_line(f.source, x.loc.line);
      o << "  unreached: " << where(f, x.loc) << ": " << x.role << ": '" << (src.empty() ? x.what : src)
        << "' never runs " << (f.sweep.on ? "at any point of the sweep" : "in any interleaving");
      if (x.kind == check::UnreachedKind::access) o << ": this access is unreachable, so no race on it is checked";
      if (x.kind == check::UnreachedKind::assertion) o << ": this assert is unreachable, so it is never checked";
      o << '\n';
    }
    return o.str();
  }
  if (u.empty()) return "";
  int access = 0, assertion = 0;
  std::string lines;
  for (std::size_t i = 0; i < u.size(); ++i) {
    access += u[i].kind == check::UnreachedKind::access;
    assertion += u[i].kind == check::UnreachedKind::assertion;
    if (i < 8) lines += (i ? ", " : "") + std::to_string(u[i].loc.line);
    else if (i == 8) lines += ", ...";
  }
  o << "  warning: " << u.size() << (u.size() == 1 ? " statement never runs" : " statements never run")
    << (f.sweep.on ? " at any point of the sweep" : " in any interleaving") << " (line" << (u.size() == 1 ? " " : "s ") << lines << ")";
  if (access + assertion > 0) {
    o << "; unreachable, so never checked:";
    if (access) o << " " << access << " " << kind_word(check::UnreachedKind::access) << (access == 1 ? "" : "es");
    if (access && assertion) o << " and";
    if (assertion) o << " " << assertion << " " << kind_word(check::UnreachedKind::assertion) << (assertion == 1 ? "" : "s");
  }
  o << " (--coverage lists them)\n";
  return o.str();
}

// Every warning instance, grouped by kind (the list is in that order).
std::string warnings_text(const FileReport& f) {
  const std::vector<check::Warning>& ws = f.result.warnings;
  std::ostringstream o;
  for (std::size_t i = 0; i < ws.size();) {
    std::size_t j = i;
    while (j < ws.size() && ws[j].kind == ws[i].kind) ++j;
    const std::string_view kind = spec::violation_name(ws[i].kind);
    if (j - i == 1) {
      o << "  warning " << kind << ": " << where(f, ws[i].loc) << ": " << ws[i].message << '\n';
    } else {
      o << "  warning " << kind << " (" << j - i << " instances):\n";
      for (std::size_t k = i; k < j; ++k) o << "    " << where(f, ws[k].loc) << ": " << ws[k].message << '\n';
    }
    o << "    (a point the field relies on with no failure known: docs/spec.md, \"Stances\"; --strict makes it an error)\n";
    i = j;
  }
  if (f.result.warnings_capped)
    o << "  (more warning instances than " << ws.size() << ": the first " << ws.size() << " instances listed)\n";
  return o.str();
}

}  // namespace

std::string text(const FileReport& f, bool verbose_trace, Coverage coverage) {
  std::ostringstream o;
  if (f.failure == check::Failure::internal) {
    for (const Diagnostic& d : f.diagnostics)
      o << f.file << ": " << (f.kernel.empty() ? "?" : f.kernel) << ": INTERNAL ERROR: " << d.message << '\n';
    o << "  a defect of check-kernel, not of the kernel: please report it, with this file and the command line\n";
    return o.str();
  }
  if (f.failure == check::Failure::bad_input) {
    for (const Diagnostic& d : f.diagnostics) o << render(d, f.source);
    // The front end ends a list it cut short with "too many errors; stopping".
    const bool cut = !f.diagnostics.empty() && f.diagnostics.back().message == "too many errors; stopping";
    const std::size_t n = f.diagnostics.size() - (cut ? 1 : 0);
    o << f.file << ": bad input (" << n << (n == 1 ? " error" : " errors") << (cut ? ", and more left out" : "") << ")\n";
    return o.str();
  }
  const check::Result& r = f.result;
  // A sweep's verdict line has the sweep's statistics; the point's are on the next line.
  const std::string stats = f.sweep.on ? "sweep of " + points_text(f.sweep.run) + ": " + std::to_string(f.sweep.states) +
                                             " states, " + seconds_text(f.sweep.seconds)
                                       : std::to_string(r.states) + " states, " + seconds_text(r.seconds);
  o << f.file << ": " << f.kernel << ": ";
  switch (r.verdict) {
    case check::Verdict::verified:
      o << "VERIFIED";
      if (!r.proved_for.empty()) o << " for " << r.proved_for;
      if (r.warnings_capped) o << ", more than " << r.warnings.size() << " warnings";
      else if (!r.warnings.empty()) o << ", " << r.warnings.size() << (r.warnings.size() == 1 ? " warning" : " warnings");
      o << " (" << stats << ")";
      break;
    case check::Verdict::inconclusive:
      if (!r.not_proved.empty())
        o << "INCONCLUSIVE: " << r.not_proved << " (" << stats << ")";
      else if (r.inconclusive_reason == "swarm")
        o << "INCONCLUSIVE: the swarm found no violation (" << stats << "); not a proof";
      else
        o << "INCONCLUSIVE: " << r.inconclusive_reason << (r.inconclusive_reason == "interrupted" ? " (" : " reached (") << stats
          << "); nothing was proven";
      break;
    case check::Verdict::violation: o << "VIOLATION " << spec::violation_name(r.violation) << " (" << stats << ")"; break;
  }
  if (!f.expect.empty()) o << (matches_expectation(f) ? "  [as expected]" : "  [EXPECTED " + f.expect + "]");
  o << '\n';
  for (const std::string& n : f.notes) o << "  note: " << n << '\n';
  for (const std::string& n : r.notes) o << "  note: " << n << '\n';
  if (r.verdict == check::Verdict::inconclusive && !r.stop_detail.empty()) o << "  " << r.stop_detail << '\n';
  if (f.sweep.on && !f.sweep.failing.empty())
    o << "  at the first failing point " << params_text(f.sweep.failing) << " (" << f.sweep.result_states << " states, "
      << seconds_text(f.sweep.result_seconds) << "):\n";
  if (r.verdict == check::Verdict::violation) {
    o << "  " << where(f, r.loc) << ": " << r.message << '\n';
    if (r.earlier.step > 0)
      o << "  the earlier access: step " << r.earlier.step << ", " << where(f, r.earlier.loc) << ": "
        << (r.earlier.write ? "a write by " : "a read by ") << r.earlier.thread << " (" << r.earlier.proxy << " proxy)\n";
    for (const check::Related& x : r.related)
      o << "  " << where(f, x.loc) << ": note: " << x.message << (x.step > 0 ? " (step " + std::to_string(x.step) + ")" : "")
        << '\n';
    // The rule's general statement, unless the message already says just that.
    const std::string_view doc = spec::violation_doc(r.violation);
    if (r.message.find(doc) == std::string::npos) o << "  why: " << doc << '\n';
    if (verbose_trace) o << trace_text(f);
    if (r.snapshot.taken) o << snapshot(f);
    if (!r.replay.empty()) o << "  replay: " << replay_command(f, r.replay) << '\n';
  }
  if (r.verdict == check::Verdict::inconclusive && r.snapshot.taken) {
    if (verbose_trace) o << trace_text(f);
    o << snapshot(f);
  }
  if (r.coverage) o << coverage_text(f, coverage);
  o << warnings_text(f);
  if (f.sweep.on) o << sweep_text(f);
  o << profile_text(f);
  for (const SymbolicClaim& s : f.symbolic) {
    o << "  symbolic " << s.check << ": " << s.status << ": " << s.claim;
    if (s.status == "counterexample") {
      o << " fails for";
      for (const auto& [n, v] : s.witness) o << " --param " << n << "=" << v;
      if (!s.detail.empty()) o << ": " << s.detail;
    }
    if (!s.reason.empty()) o << ": " << s.reason;
    o << " (" << where(f, s.loc) << ")\n";
    if (!s.reproduce.empty()) o << "    reproduce: " << s.reproduce << "\n";
  }
  return o.str();
}

// --brief: a line per finding, FILE:LINE:COL: KIND: MESSAGE.
std::string brief(const FileReport& f) {
  std::ostringstream o;
  auto at = [&](ir::Loc l) { return l.line > 0 ? where(f, l) : f.file; };
  if (f.failure == check::Failure::internal) return text(f, false);
  if (f.failure == check::Failure::bad_input) {
    for (const Diagnostic& d : f.diagnostics)
      o << (d.loc.line > 0 ? d.file + ":" + std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) : d.file)
        << ": bad_input: " << d.message << '\n';
    return o.str();
  }
  const check::Result& r = f.result;
  std::size_t findings = 0;
  if (r.verdict == check::Verdict::violation) {
    const std::string kind = std::string(spec::violation_name(r.violation)) + ": ";
    // A message that starts with its kind (a deadlock's) does not say it twice.
    o << at(r.loc) << ": " << kind << (r.message.rfind(kind, 0) == 0 ? r.message.substr(kind.size()) : r.message) << '\n';
    ++findings;
  }
  for (const check::Warning& w : r.warnings) o << at(w.loc) << ": " << spec::violation_name(w.kind) << ": " << w.message << '\n';
  findings += r.warnings.size();
  if (r.warnings_capped) o << f.file << ": more warning instances than the " << r.warnings.size() << " listed\n";
  if (r.coverage)
    for (const check::Unreached& u : r.unreached) {
      o << at(u.loc) << ": unreached_statement: " << u.role << ": '" << u.what << "' never runs "
        << (f.sweep.on ? "at any point of the sweep" : "in any interleaving") << '\n';
      ++findings;
    }
  for (const SymbolicClaim& c : f.symbolic) {
    if (c.status != "counterexample") continue;
    o << at(c.loc) << ": symbolic_counterexample: " << c.check << ": " << c.claim << " fails for " << params_text(c.witness)
      << (c.detail.empty() ? "" : ": " + c.detail) << '\n';
    ++findings;
  }
  if (f.sweep.on)
    for (const SweepKind& k : f.sweep.kinds) {
      o << f.file << ": sweep: " << k.outcome << " at " << k.points << " of " << points_text(f.sweep.run) << ", first at "
        << params_text(k.first) << (k.replay.empty() ? "" : " (replay: " + replay_command(f, k.replay) + ")")
        << '\n';
      ++findings;
    }
  // No finding: the verdict line (verified, or inconclusive: nothing proven).
  if (findings == 0 || r.verdict == check::Verdict::inconclusive) {
    const std::string full = text(f, false);
    o << full.substr(0, full.find('\n') + 1);
  }
  return o.str();
}

}  // namespace pc::report
