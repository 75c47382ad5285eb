// A counterexample as a self-contained HTML page: an inline SVG timeline with
// one lane per agent and one for async events, each operation a box in order,
// phase completions as diamonds, the violating step highlighted, and every box
// linked to its line in the source listing below it.
#include <sstream>

#include "checker/report/report.hpp"

namespace pc::report {
namespace {

std::string esc(std::string_view s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

}  // namespace

std::string html(const FileReport& f) {
  const check::Result& r = f.result;
  const int lanes = static_cast<int>(r.agents.size()) + 1;  // agents, then async
  const int step_w = 150, lane_h = 44, left = 190, top = 30;
  const int steps = static_cast<int>(r.trace.size());
  const int width = left + std::max(1, steps) * step_w + 20, height = top + lanes * lane_h + 20;
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>" << esc(f.kernel) << ": "
    << esc(outcome_name(f)) << "</title>\n<style>\n"
    << "body{font-family:sans-serif;margin:1em}svg{border:1px solid #ccc;background:#fff}\n"
    << ".lane-label{font-size:12px;font-weight:bold}.lane{fill:#f6f6f6}.step rect{fill:#dbe9ff;stroke:#4a78c2}\n"
    << ".step text{font-size:10px}.step.violation rect{fill:#ffd0d0;stroke:#c00;stroke-width:3}\n"
    << ".step.blocked rect{fill:#ffe9c4;stroke:#c80}.phase{fill:#2a2}\n"
    << "pre.src{background:#f8f8f8;padding:.5em}pre.src span{display:block}pre.src span:target{background:#ffec99}\n"
    << "</style></head><body>\n<h1>" << esc(f.kernel) << ": " << esc(outcome_name(f)) << "</h1>\n<p class=\"message\">"
    << esc(f.file) << ":" << r.loc.line << ":" << r.loc.col << ": " << esc(r.message) << "</p>\n<p>replay: <code>"
    << esc(r.replay) << "</code></p>\n";
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height << "\" viewBox=\"0 0 "
    << width << ' ' << height << "\">\n";
  for (int l = 0; l < lanes; ++l) {
    const int y = top + l * lane_h;
    const std::string label = l + 1 < lanes ? r.agents[static_cast<std::size_t>(l)].name : "async events";
    o << "<g class=\"lane-group\" data-lane=\"" << l << "\"><rect class=\"lane\" x=\"0\" y=\"" << y << "\" width=\"" << width
      << "\" height=\"" << lane_h - 4 << "\"/><text class=\"lane-label\" x=\"6\" y=\"" << y + 24 << "\">" << esc(label)
      << "</text></g>\n";
  }
  // The violating step: the last one, or every blocked step of a deadlock.
  for (int i = 0; i < steps; ++i) {
    const check::TraceStep& t = r.trace[static_cast<std::size_t>(i)];
    const int lane = t.agent >= 0 ? t.agent : lanes - 1;
    const int x = left + i * step_w, y = top + lane * lane_h + 4;
    const bool violating = t.blocked || (i + 1 == steps && r.violation != spec::Violation::deadlock);
    std::string cls = "step";
    if (violating) cls += " violation";
    if (t.blocked) cls += " blocked";
    std::string shown = t.text.size() > 24 ? t.text.substr(0, 23) + "\u2026" : t.text;
    o << "<a href=\"#L" << t.loc.line << "\"><g class=\"" << cls << "\" data-step=\"" << i + 1 << "\" data-line=\""
      << t.loc.line << "\"><title>step " << i + 1 << ", " << esc(f.file) << ":" << t.loc.line << ": " << esc(t.text)
      << "</title><rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << step_w - 10 << "\" height=\"" << lane_h - 14
      << "\" rx=\"4\"/><text x=\"" << x + 4 << "\" y=\"" << y + 18 << "\">" << esc(shown) << "</text></g></a>\n";
    if (t.phase_completed) {
      const int cx = x + step_w - 10, cy = y - 2;
      o << "<polygon class=\"phase\" points=\"" << cx << ',' << cy - 6 << ' ' << cx + 6 << ',' << cy << ' ' << cx << ','
        << cy + 6 << ' ' << cx - 6 << ',' << cy << "\"><title>" << esc(t.object) << "</title></polygon>\n";
    }
  }
  o << "</svg>\n<h2>Source</h2>\n<pre class=\"src\">";
  std::istringstream src(f.source);
  std::string line;
  for (int n = 1; std::getline(src, line); ++n) o << "<span id=\"L" << n << "\">" << n << "  " << esc(line) << "</span>";
  o << "</pre>\n</body></html>\n";
  return o.str();
}

}  // namespace pc::report
