// JSON output of check-kernel; the schema is docs/check-kernel.schema.json.
#include <cstdio>
#include <sstream>

#include "checker/report/report.hpp"

namespace pc::report {

std::string json_escape(std::string_view s) {
  std::string o;
  o.reserve(s.size() + 2);
  for (char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      case '\r': o += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(c));
          o += buf;
        } else {
          o += c;
        }
    }
  }
  return o;
}

namespace {

std::string q(std::string_view s) { return "\"" + json_escape(s) + "\""; }

std::string loc(const std::string& file, ir::Loc l) {
  return "{\"file\": " + q(file) + ", \"line\": " + std::to_string(l.line) + ", \"column\": " + std::to_string(l.col) + "}";
}

std::string secs(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", s);
  return buf;
}

// Parameter values as an object: {"N": 3, "M": 5}.
std::string params(const std::vector<std::pair<std::string, std::int64_t>>& ps) {
  std::string o = "{";
  for (std::size_t i = 0; i < ps.size(); ++i) o += (i ? ", " : "") + q(ps[i].first) + ": " + std::to_string(ps[i].second);
  return o + "}";
}

const char* unreached_kind(check::UnreachedKind k) {
  switch (k) {
    case check::UnreachedKind::statement: return "statement";
    case check::UnreachedKind::access: return "access";
    case check::UnreachedKind::assertion: return "assert";
  }
  return "statement";
}

}  // namespace

std::string json(const std::vector<FileReport>& files, int exit_status) {
  std::ostringstream o;
  o << "{\n  \"tool\": \"check-kernel\",\n  \"format_version\": 1,\n  \"exit_code\": " << exit_status << ",\n  \"kernels\": [";
  for (std::size_t i = 0; i < files.size(); ++i) {
    const FileReport& f = files[i];
    const check::Result& r = f.result;
    o << (i ? ",\n" : "\n") << "    {\n      \"file\": " << q(f.file) << ",\n      \"kernel\": " << q(f.kernel)
      << ",\n      \"outcome\": " << q(outcome_name(f)) << ",\n      \"exit_code\": " << static_cast<int>(exit_of(f));
    if (!f.expect.empty())
      o << ",\n      \"expect\": " << q(f.expect) << ",\n      \"matches_expect\": " << (matches_expectation(f) ? "true" : "false");
    o << ",\n      \"params\": {";
    for (std::size_t p = 0; p < f.params.size(); ++p)
      o << (p ? ", " : "") << q(f.params[p].first) << ": " << f.params[p].second;
    o << "}";
    if (f.failed()) {
      o << ",\n      \"errors\": [";
      for (std::size_t d = 0; d < f.diagnostics.size(); ++d)
        o << (d ? ", " : "") << "{\"message\": " << q(f.diagnostics[d].message)
          << ", \"location\": " << loc(f.diagnostics[d].file, f.diagnostics[d].loc) << "}";
      o << "]\n    }";
      continue;
    }
    // With --sweep, the sweep's statistics (the result point's are under sweep.result_point).
    const bool sw = f.sweep.on;
    o << ",\n      \"verdict\": " << q(check::verdict_name(r.verdict)) << ",\n      \"stats\": {\"states\": "
      << (sw ? f.sweep.states : r.states) << ", \"transitions\": " << (sw ? f.sweep.transitions : r.transitions)
      << ", \"depth\": " << r.max_depth << ", \"seconds\": " << secs(sw ? f.sweep.seconds : r.seconds)
      << ", \"memory_bytes\": " << r.memory_bytes << "}";
    if (r.verdict == check::Verdict::inconclusive) o << ",\n      \"inconclusive_reason\": " << q(r.inconclusive_reason);
    if (!r.stop_detail.empty()) o << ",\n      \"inconclusive_detail\": " << q(r.stop_detail);
    if (r.profile.taken) o << ",\n      \"profile\": " << profile_json(f);
    o << ",\n      \"notes\": [";
    for (std::size_t n = 0; n < f.notes.size(); ++n) o << (n ? ", " : "") << q(f.notes[n]);
    for (std::size_t n = 0; n < r.notes.size(); ++n) o << (n || !f.notes.empty() ? ", " : "") << q(r.notes[n]);
    o << "]";
    if (!r.not_proved.empty()) o << ",\n      \"not_proved\": " << q(r.not_proved);
    if (!r.proved_for.empty()) o << ",\n      \"proved_for\": " << q(r.proved_for);
    if (!r.verified_at.empty()) o << ",\n      \"verified_at\": " << q(r.verified_at);
    o << ",\n      \"warnings\": [";
    for (std::size_t w = 0; w < r.warnings.size(); ++w) {
      const check::Warning& x = r.warnings[w];
      o << (w ? ", " : "") << "{\"kind\": " << q(spec::violation_name(x.kind)) << ", \"message\": " << q(x.message)
        << ", \"location\": " << loc(f.file, x.loc)
        << ", \"agent\": " << (x.agent >= 0 ? q(r.agents[static_cast<std::size_t>(x.agent)].name) : "null") << "}";
    }
    // The list is grouped by kind: a count per group.
    o << "],\n      \"warning_counts\": {";
    for (std::size_t w = 0; w < r.warnings.size();) {
      std::size_t e = w;
      while (e < r.warnings.size() && r.warnings[e].kind == r.warnings[w].kind) ++e;
      o << (w ? ", " : "") << q(spec::violation_name(r.warnings[w].kind)) << ": " << e - w;
      w = e;
    }
    o << "},\n      \"warnings_capped\": " << (r.warnings_capped ? "true" : "false");
    if (r.coverage) {
      o << ",\n      \"unreached\": [";
      for (std::size_t u = 0; u < r.unreached.size(); ++u) {
        const check::Unreached& x = r.unreached[u];
        o << (u ? ", " : "") << "{\"kind\": " << q(unreached_kind(x.kind)) << ", \"role\": " << q(x.role)
          << ", \"statement\": " << q(x.what) << ", \"location\": " << loc(f.file, x.loc) << "}";
      }
      o << "]";
    }
    if (r.snapshot.taken) {
      const check::Snapshot& sn = r.snapshot;
      o << ",\n      \"state\": {\"step\": " << sn.step << ", \"agents\": [";
      for (std::size_t a = 0; a < sn.agents.size(); ++a)
        o << (a ? ", " : "") << "{\"agent\": " << q(r.agents[static_cast<std::size_t>(sn.agents[a].agent)].name)
          << ", \"status\": " << q(sn.agents[a].status) << ", \"location\": " << loc(f.file, sn.agents[a].loc) << "}";
      o << "], \"objects\": [";
      for (std::size_t b = 0; b < sn.objects.size(); ++b)
        o << (b ? ", " : "") << "{\"name\": " << q(sn.objects[b].name) << ", \"state\": " << q(sn.objects[b].state) << "}";
      o << "], \"in_flight\": [";
      for (std::size_t e = 0; e < sn.in_flight.size(); ++e) o << (e ? ", " : "") << q(sn.in_flight[e]);
      o << "]}";
    }
    if (r.verdict == check::Verdict::violation) {
      o << ",\n      \"violation\": {\"kind\": " << q(spec::violation_name(r.violation)) << ", \"message\": " << q(r.message)
        << ", \"description\": " << q(spec::violation_doc(r.violation)) << ", \"location\": " << loc(f.file, r.loc)
        << ", \"agent\": " << (r.agent >= 0 ? q(r.agents[static_cast<std::size_t>(r.agent)].name) : "null")
        << ", \"replay\": " << (r.replay.empty() ? "null" : q(r.replay));
      if (r.earlier.step > 0)
        o << ", \"earlier\": {\"step\": " << r.earlier.step << ", \"location\": " << loc(f.file, r.earlier.loc)
          << ", \"agent\": " << (r.earlier.agent >= 0 ? q(r.agents[static_cast<std::size_t>(r.earlier.agent)].name) : "null")
          << ", \"thread\": " << q(r.earlier.thread) << ", \"kind\": " << q(r.earlier.write ? "write" : "read")
          << ", \"proxy\": " << q(r.earlier.proxy) << "}";
      if (!r.related.empty()) {
        o << ", \"related\": [";
        for (std::size_t i = 0; i < r.related.size(); ++i)
          o << (i ? ", " : "") << "{\"location\": " << loc(f.file, r.related[i].loc) << ", \"message\": " << q(r.related[i].message)
            << ", \"step\": " << (r.related[i].step > 0 ? std::to_string(r.related[i].step) : "null") << "}";
        o << "]";
      }
      o << "}";
      o << ",\n      \"agents\": [";
      for (std::size_t a = 0; a < r.agents.size(); ++a)
        o << (a ? ", " : "") << "{\"name\": " << q(r.agents[a].name) << ", \"role\": " << q(r.agents[a].role)
          << ", \"cta\": " << r.agents[a].cta << ", \"instance\": " << r.agents[a].instance << "}";
      o << "],\n      \"trace\": [";
      for (std::size_t t = 0; t < r.trace.size(); ++t) {
        const check::TraceStep& s = r.trace[t];
        o << (t ? ",\n        " : "\n        ") << "{\"step\": " << t + 1 << ", \"agent\": "
          << (s.agent >= 0 ? q(r.agents[static_cast<std::size_t>(s.agent)].name) : "null") << ", \"text\": " << q(s.text)
          << ", \"location\": " << loc(f.file, s.loc) << ", \"phase_completed\": " << (s.phase_completed ? q(s.object) : "null")
          << ", \"blocked\": " << (s.blocked ? "true" : "false") << "}";
      }
      o << "\n      ]";
    }
    if (f.sweep.on) {
      const Sweep& s = f.sweep;
      o << ",\n      \"sweep\": {\"points\": " << s.points << ", \"run\": " << s.run
        << ", \"sampled\": " << (s.sampled ? "true" : "false") << ", \"parameters\": [";
      for (std::size_t i = 0; i < s.axes.size(); ++i) o << (i ? ", " : "") << q(s.axes[i]);
      o << "], \"verified\": " << s.verified << ", \"violation\": " << s.violation << ", \"inconclusive\": " << s.inconclusive
        << ", \"bad_input\": " << s.bad_input << ", \"internal_error\": " << s.internal << ", \"states\": " << s.states
        << ", \"transitions\": " << s.transitions << ", \"seconds\": " << secs(s.seconds) << ", \"kinds\": [";
      for (std::size_t i = 0; i < s.kinds.size(); ++i) {
        const SweepKind& k = s.kinds[i];
        o << (i ? ", " : "") << "{\"outcome\": " << q(k.outcome) << ", \"points\": " << k.points << ", \"first\": "
          << params(k.first) << ", \"replay\": " << (k.replay.empty() ? "null" : q(k.replay)) << "}";
      }
      o << "], \"result_point\": {\"params\": " << params(s.shown) << ", \"states\": " << s.result_states
        << ", \"transitions\": " << s.result_transitions << ", \"seconds\": " << secs(s.result_seconds)
        << "}, \"first_failing\": ";
      if (s.failing.empty()) {
        o << "null";
      } else {
        o << "{\"outcome\": " << q(s.failing_outcome) << ", \"params\": " << params(s.failing) << "}";
      }
      o << "}";
    }
    if (!f.symbolic.empty()) {
      o << ",\n      \"symbolic\": [";
      for (std::size_t s = 0; s < f.symbolic.size(); ++s) {
        const SymbolicClaim& x = f.symbolic[s];
        o << (s ? ", " : "") << "{\"check\": " << q(x.check) << ", \"status\": " << q(x.status)
          << ", \"claim\": " << q(x.claim) << ", \"location\": " << loc(f.file, x.loc) << ", \"witness\": {";
        for (std::size_t w = 0; w < x.witness.size(); ++w) o << (w ? ", " : "") << q(x.witness[w].first) << ": " << x.witness[w].second;
        o << "}";
        if (!x.detail.empty()) o << ", \"detail\": " << q(x.detail);
        if (!x.reason.empty()) o << ", \"reason\": " << q(x.reason);
        if (!x.reproduce.empty()) o << ", \"reproduce\": " << q(x.reproduce);
        o << "}";
      }
      o << "]";
    }
    o << "\n    }";
  }
  o << "\n  ]\n}\n";
  return o.str();
}

}  // namespace pc::report
