#include "checker/cli/place.hpp"

#include <cstdio>

#include "checker/dsl/parser.hpp"
#include "checker/report/report.hpp"

namespace pc::cli {

namespace {

std::string json(const place::Outcome& o, const std::string& path, int status) {
  using report::json_escape;
  std::string s = "{\n  \"file\": \"" + json_escape(path) + "\",\n  \"exit\": " + std::to_string(status);
  if (!o.errors.empty()) {
    s += ",\n  \"errors\": [";
    for (std::size_t i = 0; i < o.errors.size(); ++i)
      s += std::string(i ? ", " : "") + "{\"line\": " + std::to_string(o.errors[i].loc.line) +
           ", \"column\": " + std::to_string(o.errors[i].loc.col) + ", \"message\": \"" + json_escape(o.errors[i].message) + "\"}";
    return s + "]\n}\n";
  }
  if (!o.usage_error.empty()) return s + ",\n  \"error\": \"" + json_escape(o.usage_error) + "\"\n}\n";
  auto arr = [](const std::vector<std::string>& v) {
    std::string r = "[";
    for (std::size_t i = 0; i < v.size(); ++i) r += (i ? ", \"" : "\"") + report::json_escape(v[i]) + "\"";
    return r + "]";
  };
  s += ",\n  \"target\": \"" + o.target + "\",\n  \"barrier\": \"" + o.family + "\"";
  s += ",\n  \"hazard_windows\": " + std::to_string(o.hazards);
  s += ",\n  \"barriers\": [";
  for (std::size_t i = 0; i < o.barriers.size(); ++i) {
    const place::Barrier& b = o.barriers[i];
    s += std::string(i ? ",\n    " : "\n    ") + "{\"line\": " + std::to_string(b.line) + ", \"signal_line\": " +
         std::to_string(b.signal_line) + ", \"orders\": \"" + json_escape(b.hazards) + "\"}";
  }
  s += std::string(o.barriers.empty() ? "]" : "\n  ]");
  s += ",\n  \"count\": " + std::to_string(o.barriers.size());
  s += ",\n  \"greedy_count\": " + (o.greedy_applies ? std::to_string(o.greedy) : std::string("null"));
  s += ",\n  \"named_barriers\": " + arr(o.groups) + ",\n  \"choices\": " + arr(o.choices);
  s += ",\n  \"minimal\": " + std::string(o.minimal ? "true" : "false") + ",\n  \"minimal_proof\": \"" + json_escape(o.minimal_detail) + "\"";
  s += ",\n  \"input_barriers\": [";
  for (std::size_t i = 0; i < o.input_barriers.size(); ++i) s += (i ? ", " : "") + std::to_string(o.input_barriers[i]);
  s += "]";
  s += ",\n  \"points\": " + arr(o.points) + ",\n  \"skipped_points\": " + arr(o.skipped) +
       ",\n  \"unverified_points\": " + arr(o.unverified);
  s += ",\n  \"verification\": {\"verdict\": \"" + check::outcome_name(o.verification) + "\", \"states\": " +
       std::to_string(o.verification.states) + ", \"message\": \"" + json_escape(o.verification.message) + "\"}";
  char t[200];
  std::snprintf(t, sizeof t, ",\n  \"seconds\": {\"hazards\": %.6f, \"greedy\": %.6f, \"minimum\": %.6f, \"verification\": %.6f}",
                o.t_hazards, o.t_greedy, o.t_minimum, o.t_verify);
  s += t;
  s += ",\n  \"kernel\": \"" + json_escape(o.text) + "\",\n  \"diff\": \"" + json_escape(o.diff) + "\"\n}\n";
  return s;
}

}  // namespace

int place_barriers(const std::string& path, const place::Request& req, PlaceOutput out, bool quiet) {
  std::string source;
  {
    dsl::Parsed probe = dsl::parse_file(path, source, req.check.params);
    if (!probe.ok() && probe.errors.front().loc.line == 0) {  // unreadable
      place::Outcome o;
      o.errors = probe.errors;
      if (out == PlaceOutput::json) std::fputs(json(o, path, 2).c_str(), stdout);
      else std::fputs(render(probe.errors.front(), source).c_str(), stderr);
      return 2;
    }
  }
  place::Outcome o;
  int status = 0;
  try {
    o = place::place(source, path, req);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "check-kernel: internal error while placing barriers: %s\n", e.what());
    return 4;
  }
  if (!o.usage_error.empty()) status = 2;
  else if (!o.errors.empty()) status = 2;
  else if (o.defect) status = 4;
  else if (o.verification.verdict == check::Verdict::inconclusive) status = 3;
  if (out == PlaceOutput::json) {
    std::fputs(json(o, path, status).c_str(), stdout);
    return status;
  }
  if (!o.usage_error.empty()) {
    std::fprintf(stderr, "check-kernel: %s\n(try check-kernel --help)\n", o.usage_error.c_str());
    return 2;
  }
  if (!o.errors.empty()) {
    for (const Diagnostic& d : o.errors) std::fputs(render(d, source).c_str(), stderr);
    return 2;
  }
  if (o.defect) {
    std::fprintf(stderr,
                 "check-kernel: internal error: the barriers placed in %s do not verify (%s: %s); this is a defect of "
                 "--place-barriers, please report it. The placed kernel:\n%s",
                 path.c_str(), check::outcome_name(o.verification).c_str(), o.verification.message.c_str(), o.text.c_str());
    return 4;
  }
  if (!quiet) std::fputs((out == PlaceOutput::diff ? o.diff : o.text).c_str(), stdout);
  if (!quiet) {
    // The summary on stderr, so that stdout is the kernel (or the diff) alone.
    const std::string greedy = o.greedy_applies ? "the seed's greedy sweep places " + std::to_string(o.greedy)
                                                : std::string("the seed's greedy sweep takes kernels of one role");
    const std::string what = o.family == "split" ? "split barrier" : o.greedy_applies ? o.family : o.family + " statement";
    std::fprintf(stderr, "%s: %zu hazard%s%s, %zu %s%s (%s); %s\n", path.c_str(), o.hazards,
                 o.greedy_applies ? " window" : "", o.hazards == 1 ? "" : "s", o.barriers.size(), what.c_str(),
                 o.barriers.size() == 1 ? "" : "s",
                 o.minimal ? ("minimal: " + o.minimal_detail).c_str() : "minimality not proved", greedy.c_str());
    for (const std::string& g : o.groups) std::fprintf(stderr, "  named barrier %s\n", g.c_str());
    for (const std::string& c : o.choices) std::fprintf(stderr, "  %s\n", c.c_str());
    if (!o.barriers.empty()) std::fprintf(stderr, "  lines of the placed kernel (stdout):\n");
    for (const place::Barrier& b : o.barriers) {
      if (o.family == "split" && b.signal_line != b.line)
        std::fprintf(stderr, "  signal line %d, wait line %d: %s\n", b.signal_line, b.line, b.hazards.c_str());
      else
        std::fprintf(stderr, "  line %d: %s\n", b.line, b.hazards.c_str());
    }
    if (!o.input_barriers.empty()) {
      std::string l;
      for (const int x : o.input_barriers) l += (l.empty() ? "" : ", ") + std::to_string(x);
      std::fprintf(stderr, "  the input's %zu barrier%s (input line%s %s) %s taken out first\n", o.input_barriers.size(),
                   o.input_barriers.size() == 1 ? "" : "s", o.input_barriers.size() == 1 ? "" : "s", l.c_str(),
                   o.input_barriers.size() == 1 ? "was" : "were");
    }
    auto list = [](const std::vector<std::string>& v) {
      std::string s;
      for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
      return s;
    };
    if (!o.points.empty()) std::fprintf(stderr, "  placed for the given values and %s\n", list(o.points).c_str());
    for (const std::string& x : o.skipped) std::fprintf(stderr, "  not placed for %s\n", x.c_str());
    std::fprintf(stderr, "  the explicit search on the placed kernel: %s at the given values%s (%llu states in all)\n",
                 check::outcome_name(o.verification).c_str(), o.points.empty() ? "" : " and the others",
                 static_cast<unsigned long long>(o.verification.states));
    if (!o.unverified.empty()) std::fprintf(stderr, "  inconclusive at %s\n", list(o.unverified).c_str());
  }
  return status;
}

}  // namespace pc::cli
