// SARIF 2.1.0 (OASIS, "Static Analysis Results Interchange Format"): one run,
// one rule per violation kind, one result per violation with its location and
// the trace as a code flow; bad input is reported as an error-level result too.
#include <cctype>
#include <cstdio>
#include <cstring>
#include <set>
#include <sstream>

#include "checker/report/report.hpp"

namespace pc::report {
namespace {

std::string q(std::string_view s) { return "\"" + json_escape(s) + "\""; }

// artifactLocation.uri is a URI reference (RFC 3986): a file name as given,
// with the characters a URI reserves or forbids percent-encoded.
std::string uri(std::string_view path) {
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

std::string location(const std::string& file, ir::Loc l, std::string_view message = {}) {
  std::string s = "{\"physicalLocation\": {\"artifactLocation\": {\"uri\": " + q(uri(file)) + "}, \"region\": {\"startLine\": " +
                  std::to_string(l.line > 0 ? l.line : 1) + ", \"startColumn\": " + std::to_string(l.col > 0 ? l.col : 1) + "}}";
  if (!message.empty()) s += ", \"message\": {\"text\": " + q(message) + "}";
  return s + "}";
}

}  // namespace

std::string sarif(const std::vector<FileReport>& files, int exit_status) {
  (void)exit_status;
  std::ostringstream o;
  o << "{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n  \"version\": \"2.1.0\",\n  \"runs\": [{\n"
    << "    \"tool\": {\"driver\": {\"name\": \"check-kernel\", \"version\": \"" << tool_version << "\", \"rules\": [";
  // Every violation kind is a rule; its index is its place in the list.
  bool first = true;
  o << "\n      {\"id\": \"bad_input\", \"shortDescription\": {\"text\": \"the .bk file could not be read or parsed\"}}";
  first = false;
#define PC_X(e, name, doc) \
  o << ",\n      {\"id\": \"" name "\", \"shortDescription\": {\"text\": " << q(doc) << "}}";
  PC_VIOLATIONS(PC_X)
#undef PC_X
  (void)first;
  o << "\n    ]}},\n    \"results\": [";
  bool any = false;
  for (const FileReport& f : files) {
    if (f.failed()) {
      for (const Diagnostic& d : f.diagnostics) {
        o << (any ? "," : "") << "\n      {\"ruleId\": \"bad_input\", \"level\": \"error\", \"message\": {\"text\": "
          << q(d.message) << "}, \"locations\": [" << location(d.file, d.loc) << "]}";
        any = true;
      }
      continue;
    }
    const check::Result& r = f.result;
    for (const check::Warning& w : r.warnings) {
      o << (any ? "," : "") << "\n      {\"ruleId\": " << q(spec::violation_name(w.kind))
        << ", \"level\": \"warning\", \"message\": {\"text\": " << q(f.kernel + ": " + w.message) << "}, \"locations\": ["
        << location(f.file, w.loc) << "]}";
      any = true;
    }
    if (r.verdict != check::Verdict::violation) continue;
    o << (any ? "," : "") << "\n      {\"ruleId\": " << q(spec::violation_name(r.violation))
      << ", \"level\": \"error\", \"message\": {\"text\": " << q(f.kernel + ": " + r.message) << "}, \"locations\": ["
      << location(f.file, r.loc) << "], \"partialFingerprints\": {\"replay\": " << q(r.replay) << "}"
      << ", \"codeFlows\": [{\"threadFlows\": [{\"locations\": [";
    for (std::size_t i = 0; i < r.trace.size(); ++i) {
      const check::TraceStep& t = r.trace[i];
      const std::string who = t.agent >= 0 ? r.agents[static_cast<std::size_t>(t.agent)].name : "async";
      o << (i ? ", " : "") << "{\"location\": " << location(f.file, t.loc, who + ": " + t.text) << "}";
    }
    o << "]}]}]}";
    any = true;
  }
  o << "\n    ]\n  }]\n}\n";
  return o.str();
}

}  // namespace pc::report
