// SARIF 2.1.0 (OASIS, "Static Analysis Results Interchange Format") as code
// scanning takes it: one run; one rule per violation kind (and for bad input
// and unreached statements), each with a short and a full description, help
// in text and markdown with the fix, and tags; one result per violation at
// its line, the trace as a code flow, and a fingerprint of the kernel, the
// kind and the location (not of the schedule, which changes with the
// search). Files under the working directory are URIs relative to
// %SRCROOT%. An inconclusive check, or an internal error, is a tool
// execution notification, and the invocation is marked unsuccessful.
#include <cctype>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "checker/report/report.hpp"
#include "checker/report/rules.hpp"

namespace pc::report {
namespace {

std::string q(std::string_view s) { return "\"" + json_escape(s) + "\""; }

// A URI reference (RFC 3986): the path with what a URI reserves or forbids
// percent-encoded.
std::string encode(std::string_view path) {
  std::string o;
  for (const char c : path) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || std::strchr("/-._~", c) != nullptr) {
      o += c;
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", u);
      o += buf;
    }
  }
  return o;
}

std::string working_dir() {
  std::error_code ec;
  std::string d = std::filesystem::current_path(ec).generic_string();
  if (ec) return "";
  if (d.empty() || d.back() != '/') d += '/';
  return d;
}

// The file relative to the working directory when it lies under it ("" when not).
std::string relative(const std::string& file) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path abs = fs::weakly_canonical(fs::absolute(file, ec), ec);
  const fs::path root = fs::weakly_canonical(fs::current_path(ec), ec);
  if (ec) return "";
  const fs::path rel = abs.lexically_relative(root);
  const std::string r = rel.generic_string();
  if (r.empty() || r == "." || r.rfind("..", 0) == 0 || rel.is_absolute()) return "";
  return r;
}

std::string artifact(const std::string& file) {
  const std::string rel = relative(file);
  if (!rel.empty()) return "{\"uri\": " + q(encode(rel)) + ", \"uriBaseId\": \"%SRCROOT%\"}";
  namespace fs = std::filesystem;
  std::error_code ec;
  const std::string abs = fs::absolute(file, ec).generic_string();
  return "{\"uri\": " + q("file://" + encode(ec ? file : abs)) + "}";
}

std::string location(const std::string& file, ir::Loc l, std::string_view message = {}) {
  std::string s = "{\"physicalLocation\": {\"artifactLocation\": " + artifact(file) + ", \"region\": {\"startLine\": " +
                  std::to_string(l.line > 0 ? l.line : 1) + ", \"startColumn\": " + std::to_string(l.col > 0 ? l.col : 1) + "}}";
  if (!message.empty()) s += ", \"message\": {\"text\": " + q(message) + "}";
  return s + "}";
}

// 64-bit FNV-1a, as hex: a fingerprint that stays while the finding does.
std::string fingerprint(const std::string& key) {
  std::uint64_t h = 1469598103934665603ull;
  for (const char c : key) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// `extra` tells apart findings of one rule at one location (the check of a
// refuted claim); "" for the others, whose fingerprints stay as they were.
std::string fingerprints(const FileReport& f, std::string_view rule, ir::Loc l, const std::string& extra = "") {
  const std::string rel = relative(f.file);
  const std::string key = f.kernel + "|" + std::string(rule) + "|" + (rel.empty() ? f.file : rel) + ":" +
                          std::to_string(l.line) + ":" + std::to_string(l.col) + (extra.empty() ? "" : "|" + extra);
  return "{\"phasecheck/v1\": " + q(fingerprint(key)) + "}";
}

// Where a rule is documented, relative to the repository root (as the
// artifact locations are): a violation kind's row in docs/spec.md's table,
// the other rules in docs/cli.md.
std::string help_uri(std::string_view id) {
  if (id == rule_bad_input || id == rule_unreached) return "docs/cli.md#rule-" + std::string(id);
  return "docs/spec.md#violation-" + std::string(id);
}

void rule(std::ostringstream& o, std::string_view id, std::string_view short_text, std::string_view full_text, bool first) {
  const RuleHelp* h = rule_help(id);
  const std::string fix = h ? std::string(h->fix) : "See docs/spec.md for the rule and its source.";
  const std::string help = std::string(full_text) + ". Fix: " + fix;
  const std::string md = "**" + std::string(id) + "**: " + std::string(full_text) + ".\n\n**Fix**: " + fix +
                         "\n\nThe rule and its source: docs/spec.md; the trace replays with `check-kernel FILE --replay TOKEN`.";
  o << (first ? "" : ",") << "\n      {\"id\": " << q(id) << ", \"name\": " << q(id) << ", \"shortDescription\": {\"text\": "
    << q(short_text) << "}, \"fullDescription\": {\"text\": " << q(std::string(full_text) + ".") << "}, \"help\": {\"text\": "
    << q(help) << ", \"markdown\": " << q(md) << "}, \"helpUri\": " << q(help_uri(id))
    << ", \"properties\": {\"tags\": [\"phasecheck\"";
  if (h)
    for (std::string_view t : h->tags) o << ", " << q(t);
  o << "], \"precision\": \"very-high\"}}";
}

// The rules, in this order: their indices are the results' ruleIndex.
std::vector<std::string> rule_ids() {
  std::vector<std::string> ids = {std::string(rule_bad_input), std::string(rule_unreached)};
#define PC_X(e, name, severity, doc) ids.emplace_back(name);
  PC_VIOLATIONS(PC_X)
#undef PC_X
  return ids;
}

int rule_index(std::string_view id) {
  static const std::vector<std::string> ids = rule_ids();
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] == id) return static_cast<int>(i);
  return -1;
}

// Every refuted --symbolic claim: an error at the claim's line. The first
// is the file's result already where the explicit search did not confirm it
// (symbolic_counterexample at that line): not twice.
template <class Result>
void symbolic_results(const FileReport& f, Result& result, std::ostringstream& o) {
  bool first = true;
  for (const SymbolicClaim& c : f.symbolic) {
    if (c.status != "counterexample") continue;
    const bool shown = first && f.result.verdict == check::Verdict::violation &&
                       f.result.violation == spec::Violation::symbolic_counterexample;
    first = false;
    if (shown) continue;
    std::string values;
    for (const auto& [n, v] : c.witness) values += " --param " + n + "=" + std::to_string(v);
    result(spec::violation_name(spec::Violation::symbolic_counterexample), "error",
           f.kernel + ": --symbolic " + c.check + ": " + c.claim + " fails for" + values +
               (c.detail.empty() ? "" : ": " + c.detail) + (c.reproduce.empty() ? "" : " (reproduce: " + c.reproduce + ")"),
           f, c.loc, f.file, c.check);
    o << "}";
  }
}

}  // namespace

std::string sarif(const std::vector<FileReport>& files, int exit_status) {
  std::ostringstream o;
  o << "{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n  \"version\": \"2.1.0\",\n  \"runs\": [{\n"
    << "    \"tool\": {\"driver\": {\"name\": \"check-kernel\", \"fullName\": \"check-kernel (phasecheck)\", \"version\": \""
    << tool_version << "\", \"semanticVersion\": \"" << tool_version
    << ".0\", \"informationUri\": \"README.md\", \"rules\": [";
  rule(o, rule_bad_input, "the .bk file could not be read or parsed", "The input file could not be read, parsed or instantiated",
       true);
  rule(o, rule_unreached, "a statement no interleaving executes",
       "A statement of the kernel that no interleaving of its agents executes, found after a verified search", false);
#define PC_X(e, name, severity, doc) rule(o, name, doc, std::string("The kernel breaks a rule of the model: ") + doc, false);
  PC_VIOLATIONS(PC_X)
#undef PC_X
  o << "\n    ]}},\n";
  // Inconclusive checks and internal errors: the run did not do its job.
  std::vector<std::string> notes;
  for (const FileReport& f : files) {
    if (f.failure == check::Failure::internal)
      for (const Diagnostic& d : f.diagnostics)
        notes.push_back("{\"level\": \"error\", \"message\": {\"text\": " +
                        q(f.kernel + ": internal error of check-kernel (please report it): " + d.message) +
                        "}, \"locations\": [" + location(f.file, {}) + "]}");
    if (!f.failed() && f.result.verdict == check::Verdict::inconclusive)
      notes.push_back("{\"level\": \"error\", \"message\": {\"text\": " +
                      q(f.kernel + ": inconclusive (" + f.result.inconclusive_reason + "): " +
                        (!f.result.not_proved.empty()                 ? f.result.not_proved
                         : f.result.inconclusive_reason == "swarm" ? f.result.stop_detail
                                                                    : std::string("the search did not finish")) +
                        (f.result.verified_at.empty()
                             ? ", so nothing was proven and no result is reported for this kernel"
                             : ", so it is proven at " + f.result.verified_at + " only and no result is reported for this kernel")) +
                      "}, \"locations\": [" + location(f.file, {}) + "]}");
  }
  // More warning instances than a report keeps: a note, not a failure.
  const bool failed = !notes.empty();
  for (const FileReport& f : files)
    if (!f.failed() && f.result.warnings_capped)
      notes.push_back("{\"level\": \"note\", \"message\": {\"text\": " +
                      q(f.kernel + ": more warning instances than " + std::to_string(f.result.warnings.size()) +
                        "; the first " + std::to_string(f.result.warnings.size()) + " are results") +
                      "}, \"locations\": [" + location(f.file, {}) + "]}");
  o << "    \"invocations\": [{\"executionSuccessful\": " << (failed ? "false" : "true")
    << ", \"exitCode\": " << exit_status << ", \"toolExecutionNotifications\": [";
  for (std::size_t i = 0; i < notes.size(); ++i) o << (i ? ", " : "") << "\n      " << notes[i];
  o << "]}],\n";
  const std::string root = working_dir();
  if (!root.empty()) o << "    \"originalUriBaseIds\": {\"%SRCROOT%\": {\"uri\": " << q("file://" + encode(root)) << "}},\n";
  o << "    \"results\": [";
  bool any = false;
  auto result = [&](std::string_view id, const char* level, const std::string& message, const FileReport& f, ir::Loc l,
                    const std::string& file, const std::string& extra = "") {
    o << (any ? "," : "") << "\n      {\"ruleId\": " << q(id) << ", \"ruleIndex\": " << rule_index(id) << ", \"level\": \""
      << level << "\", \"message\": {\"text\": " << q(message) << "}, \"locations\": [" << location(file, l)
      << "], \"partialFingerprints\": " << fingerprints(f, id, l, extra);
    any = true;
  };
  for (const FileReport& f : files) {
    if (f.failure == check::Failure::bad_input) {
      for (const Diagnostic& d : f.diagnostics) {
        result(rule_bad_input, "error", d.message, f, d.loc, d.file);
        o << "}";
      }
      continue;
    }
    if (f.failed()) continue;
    const check::Result& r = f.result;
    for (const check::Warning& w : r.warnings) {
      result(spec::violation_name(w.kind), "warning", f.kernel + ": " + w.message, f, w.loc, f.file);
      o << "}";
    }
    for (const check::Unreached& u : r.unreached) {
      result(rule_unreached, "warning",
             f.kernel + ": " + u.role + ": '" + u.what + "' never runs in any interleaving" +
                 (u.kind == check::UnreachedKind::access      ? ": this access is unreachable, so no race on it is checked"
                  : u.kind == check::UnreachedKind::assertion ? ": this assert is unreachable, so it is never checked"
                                                              : ""),
             f, u.loc, f.file);
      o << "}";
    }
    symbolic_results(f, result, o);
    if (r.verdict != check::Verdict::violation) continue;
    result(spec::violation_name(r.violation), "error",
           f.kernel + ": " + r.message +
               (r.replay.empty() ? "" : " (replay: check-kernel " + f.file + (f.options.empty() ? "" : " " + f.options) + " --replay " + r.replay + ")"),
           f, r.loc, f.file);
    // A race's earlier access, then the places that explain the finding
    // (check::Result::related), each a relatedLocation.
    std::vector<std::string> related;
    if (r.earlier.step > 0)
      related.push_back(location(f.file, r.earlier.loc,
                                 "the earlier access (step " + std::to_string(r.earlier.step) + "): " +
                                     (r.earlier.write ? "a write by " : "a read by ") + r.earlier.thread + ", " + r.earlier.proxy + " proxy")
                            .substr(1));
    for (const check::Related& x : r.related)
      related.push_back(
          location(f.file, x.loc, x.message + (x.step > 0 ? " (step " + std::to_string(x.step) + ")" : "")).substr(1));
    if (!related.empty()) {
      o << ", \"relatedLocations\": [";
      for (std::size_t i = 0; i < related.size(); ++i) o << (i ? ", " : "") << "{\"id\": " << i + 1 << ", " << related[i];
      o << "]";
    }
    // One thread flow per agent (and one for the async events), each step
    // with its place in the whole schedule (executionOrder).
    o << ", \"codeFlows\": [{\"threadFlows\": [";
    bool first_flow = true;
    for (int a = -1; a < static_cast<int>(r.agents.size()); ++a) {
      bool any_step = false;
      for (const check::TraceStep& t : r.trace) any_step |= t.agent == a;
      if (!any_step) continue;
      const std::string who = a >= 0 ? r.agents[static_cast<std::size_t>(a)].name : "async";
      o << (first_flow ? "" : ", ") << "{\"id\": " << q(who) << ", \"locations\": [";
      first_flow = false;
      bool first_step = true;
      for (std::size_t i = 0; i < r.trace.size(); ++i) {
        const check::TraceStep& t = r.trace[i];
        if (t.agent != a) continue;
        o << (first_step ? "" : ", ") << "{\"executionOrder\": " << i + 1
          << ", \"location\": " << location(f.file, t.loc, who + ": " + t.text) << "}";
        first_step = false;
      }
      o << "]}";
    }
    o << "]}]}";
  }
  o << "\n    ]\n  }]\n}\n";
  return o.str();
}

}  // namespace pc::report
