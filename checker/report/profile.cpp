// --profile-states (docs/cli.md, "Where the states come from"): the counts
// of check::StateProfile as text and as JSON.
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "checker/report/report.hpp"

namespace pc::report {
namespace {

// The top contributors the text lists, and the values it lists per row.
constexpr std::size_t top_lines = 10;
constexpr std::size_t row_values = 12;

std::string share(std::uint64_t n, std::uint64_t of) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", of ? 100.0 * static_cast<double>(n) / static_cast<double>(of) : 0.0);
  return buf;
}

std::string line_name(int line) { return line > 0 ? "line " + std::to_string(line) : "exited"; }

std::string q(std::string_view s) { return "\"" + json_escape(s) + "\""; }

// A row of "value: states" pairs, at most row_values of them.
template <class Pairs>
std::string row(const Pairs& v) {
  std::string o;
  std::size_t k = 0;
  for (const auto& [key, n] : v) {
    if (k == row_values) {
      o += ", ... " + std::to_string(v.size() - k) + " more";
      break;
    }
    o += (k++ ? ", " : "") + key + ": " + std::to_string(n);
  }
  return o;
}

}  // namespace

std::string profile_text(const FileReport& f) {
  const check::Result& r = f.result;
  const check::StateProfile& p = r.profile;
  if (!p.taken) return {};
  auto agent = [&](int a) { return a >= 0 && static_cast<std::size_t>(a) < r.agents.size() ? r.agents[static_cast<std::size_t>(a)].name : "?"; };
  std::ostringstream o;
  o << "  profile: " << p.states << " states stored" << (p.of.empty() ? "" : " by " + p.of)
    << "; in each, every agent is at a line, every mbarrier at a phase\n";
  o << "    top agent lines (the states in which the agent is at that line):\n";
  for (std::size_t i = 0; i < p.lines.size() && i < top_lines; ++i) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "      %-24s %-10s %12llu states (%s)\n", agent(p.lines[i].agent).c_str(),
                  line_name(p.lines[i].line).c_str(), static_cast<unsigned long long>(p.lines[i].states),
                  share(p.lines[i].states, p.states).c_str());
    o << buf;
  }
  // Per agent, its lines in source order.
  std::map<int, std::map<int, std::uint64_t>> per_agent;
  for (const check::StateProfile::Line& l : p.lines) per_agent[l.agent][l.line > 0 ? l.line : 1 << 30] = l.states;
  o << "    states per agent and line:\n";
  for (const auto& [a, lines] : per_agent) {
    std::vector<std::pair<std::string, std::uint64_t>> v;
    for (const auto& [line, n] : lines) v.emplace_back(line == 1 << 30 ? "exited" : std::to_string(line), n);
    o << "      " << agent(a) << ": " << row(v) << '\n';
  }
  if (!p.phases.empty()) {
    o << "    states per mbarrier phase:\n";
    for (std::size_t i = 0; i < p.phases.size();) {
      std::vector<std::pair<std::string, std::uint64_t>> v;
      std::size_t e = i;
      for (; e < p.phases.size() && p.phases[e].mbarrier == p.phases[i].mbarrier; ++e)
        v.emplace_back(std::to_string(p.phases[e].phase), p.phases[e].states);
      o << "      " << p.phases[i].mbarrier << ": phase " << row(v) << '\n';
      i = e;
    }
  }
  if (!p.trips.empty()) {
    o << "    states per loop trip (while the agent is in the loop):\n";
    for (std::size_t i = 0; i < p.trips.size();) {
      const check::StateProfile::Trip& t = p.trips[i];
      std::vector<std::pair<std::string, std::uint64_t>> v;
      std::size_t e = i;
      for (; e < p.trips.size() && p.trips[e].agent == t.agent && p.trips[e].line == t.line && p.trips[e].var == t.var; ++e)
        v.emplace_back(std::to_string(p.trips[e].value), p.trips[e].states);
      o << "      " << agent(t.agent) << " " << t.var << " (line " << t.line << "): " << row(v) << '\n';
      i = e;
    }
  }
  return o.str();
}

std::string profile_json(const FileReport& f) {
  const check::Result& r = f.result;
  const check::StateProfile& p = r.profile;
  auto agent = [&](int a) { return a >= 0 && static_cast<std::size_t>(a) < r.agents.size() ? q(r.agents[static_cast<std::size_t>(a)].name) : std::string("null"); };
  std::ostringstream o;
  o << "{\"states\": " << p.states << (p.of.empty() ? "" : ", \"of\": " + q(p.of)) << ", \"lines\": [";
  for (std::size_t i = 0; i < p.lines.size(); ++i)
    o << (i ? ", " : "") << "{\"agent\": " << agent(p.lines[i].agent) << ", \"line\": " << p.lines[i].line
      << ", \"states\": " << p.lines[i].states << "}";
  o << "], \"phases\": [";
  for (std::size_t i = 0; i < p.phases.size(); ++i)
    o << (i ? ", " : "") << "{\"mbarrier\": " << q(p.phases[i].mbarrier) << ", \"phase\": " << p.phases[i].phase
      << ", \"states\": " << p.phases[i].states << "}";
  o << "], \"trips\": [";
  for (std::size_t i = 0; i < p.trips.size(); ++i)
    o << (i ? ", " : "") << "{\"agent\": " << agent(p.trips[i].agent) << ", \"var\": " << q(p.trips[i].var)
      << ", \"line\": " << p.trips[i].line << ", \"value\": " << p.trips[i].value << ", \"states\": " << p.trips[i].states << "}";
  o << "]}";
  return o.str();
}

}  // namespace pc::report
