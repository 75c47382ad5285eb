// A counterexample as a self-contained HTML page (no network): a table with
// one row per agent, one for async events and one track per barrier that the
// trace touches, one column per step sized by its content (zoomable), lane
// labels that stay on screen, the race's two accesses or the deadlock's
// blocked agents highlighted and scrolled into view when the page opens,
// full text on hover and in a details panel (the violation's steps at load,
// a clicked step after), a legend, a step slider showing every agent's line
// and every touched barrier's state at that step (Result::step_states), and
// the source with a line anchor per line.
#include <algorithm>
#include <cctype>
#include <sstream>
#include <vector>

#include "checker/report/report.hpp"

namespace pc::report {
namespace {

// "kernel.cu:19:9: the source line" for a compiled kernel's line n, or "".
std::string origin_text(const FileReport& f, int n) {
  if (n <= 0 || static_cast<std::size_t>(n) >= f.origin.size() || f.origin[static_cast<std::size_t>(n)].where.empty()) return "";
  const SourceLine& o = f.origin[static_cast<std::size_t>(n)];
  return o.where + (o.text.empty() ? "" : ": " + o.text);
}


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

// JSON inside <script>: no "</" may close the element early.
std::string script_json(std::string_view s) {
  std::string j = "\"" + json_escape(s) + "\"";
  std::string o;
  for (std::size_t i = 0; i < j.size(); ++i) {
    if (j[i] == '<') o += "\\u003c";
    else o += j[i];
  }
  return o;
}

constexpr const char* style = R"(body{font-family:sans-serif;margin:1em;--w:9em}
.scroll{overflow-x:auto;border:1px solid #ccc;max-width:100%;position:relative}
svg.edges{position:absolute;left:0;top:0;pointer-events:none;overflow:visible}line.edge{stroke:#2a2;stroke-width:1.5}
table.trace{border-collapse:separate;border-spacing:2px;font-size:12px}
table.trace th.lane-label{position:sticky;left:0;z-index:2;background:#eef;text-align:left;white-space:nowrap;padding:2px 6px;
max-width:14em;overflow:hidden;text-overflow:ellipsis}
table.trace tr.track th.lane-label{background:#efe;font-weight:normal;font-style:italic}
table.trace thead th{font-weight:normal;color:#666}
td.step{background:#dbe9ff;border:1px solid #4a78c2;border-radius:4px;max-width:var(--w);overflow:hidden;text-overflow:ellipsis;
white-space:nowrap;padding:2px 4px;cursor:pointer}
td.state{color:#255;max-width:var(--w);overflow:hidden;text-overflow:ellipsis;white-space:nowrap;padding:2px 4px;cursor:pointer}
td.step.phase{border-right:4px solid #2a2}
td.step.violation,td.step.race-later{background:#ffd0d0;border:3px solid #c00}
td.step.race-earlier{background:#ffe0f0;border:3px dashed #c00}
td.step.blocked{background:#ffe9c4;border:3px solid #c80}
td.step.current,td.state.current{outline:2px solid #000}
.legend span{display:inline-block;padding:1px 6px;margin-right:6px;border-radius:4px;font-size:12px}
#details{white-space:pre-wrap;overflow-wrap:anywhere;background:#f4f4f4;padding:.5em;font-family:monospace;font-size:12px}
#at table{font-size:12px}#at td{padding:1px 8px}
pre.src{background:#f8f8f8;padding:.5em}pre.src span{display:block}pre.src span:target{background:#ffec99}
)";

// The slider: the state after the chosen step, and the step's cells outlined.
constexpr const char* script = R"(
(function(){
  var data = JSON.parse(document.getElementById('trace-data').textContent);
  var slider = document.getElementById('step'), at = document.getElementById('at'), shown = document.getElementById('step-shown');
  var esc = function(s){ return s.replace(/[&<>]/g, function(c){ return {'&':'&amp;','<':'&lt;','>':'&gt;'}[c]; }); };
  function show(n){
    shown.textContent = n === 0 ? 'the initial state' : 'after step ' + n;
    var st = data.states[n], h = '<table><tr><th>agent</th><th>line</th><th>source</th><th>status</th></tr>';
    if (st) {
      st.agents.forEach(function(a){
        h += '<tr><td>' + esc(data.agents[a.agent]) + '</td><td>' + (a.line ? '<a href="#L' + a.line + '">' + a.line + '</a>' : '') +
             '</td><td><code>' + esc(a.line ? (data.source[a.line - 1] || '') : '') + '</code></td><td>' + esc(a.status) + '</td></tr>';
      });
      data.touched.forEach(function(b){ var o = st.objects[b];
        if (o) h += '<tr><td>' + esc(o.name) + '</td><td></td><td></td><td>' + esc(o.state) + '</td></tr>'; });
      var others = st.objects.length - data.touched.length;
      if (others > 0) h += '<tr><td colspan="4">' + others + ' barrier' + (others > 1 ? 's' : '') + ' the trace does not touch</td></tr>';
      st.in_flight.forEach(function(e){ h += '<tr><td>in flight</td><td></td><td></td><td>' + esc(e) + '</td></tr>'; });
    }
    at.innerHTML = h + '</table>';
    document.querySelectorAll('.current').forEach(function(c){ c.classList.remove('current'); });
    document.querySelectorAll('[data-step="' + n + '"]').forEach(function(c){ c.classList.add('current'); });
  }
  slider.addEventListener('input', function(){ show(+slider.value); });
  // The details panel: the full text of the clicked step (wrapped) with its
  // source line, or a barrier's state; at load the violation's steps.
  var details = document.getElementById('details');
  function detail(c){
    if (c.classList.contains('state')) return c.parentNode.dataset.object + ' after step ' + c.dataset.step + ': ' + c.title;
    var src = (data.source[+c.dataset.line - 1] || '').trim(), agent = c.parentNode.querySelector('th').title;
    var org = (data.origin[+c.dataset.line - 1] || '');
    return c.title.replace(/^(step \d+), /, '$1 (' + agent + '), ') + (src ? '\n    | ' + src : '') + (org ? '\n    | ' + org : '');
  }
  document.querySelectorAll('td.step, td.state').forEach(function(c){
    c.addEventListener('click', function(){
      details.textContent = detail(c);
      slider.value = c.dataset.step; show(+c.dataset.step);
    });
  });
  var marked = Array.prototype.slice.call(document.querySelectorAll('td.step.race-earlier, td.step.violation'));
  marked.sort(function(a, b){ return a.dataset.step - b.dataset.step; });
  details.textContent = marked.length ? marked.map(detail).join('\n') : 'click a step for its full text';
  document.getElementById('zoom').addEventListener('input', function(e){
    document.body.style.setProperty('--w', e.target.value + 'em');
  });
  show(+slider.value);
  // Release-to-acquire edges: from the step that completed a phase to each
  // wait that acquired it, drawn over the table.
  var box = document.querySelector('.scroll'), ns = 'http://www.w3.org/2000/svg';
  var svg = document.createElementNS(ns, 'svg'), tb = document.querySelector('table.trace');
  svg.setAttribute('class', 'edges'); svg.setAttribute('width', tb.scrollWidth); svg.setAttribute('height', tb.scrollHeight);
  svg.innerHTML = '<defs><marker id="head" markerWidth="8" markerHeight="8" refX="7" refY="4" orient="auto">' +
    '<path d="M0,0 L8,4 L0,8 z" fill="#2a2"/></marker></defs>';
  var origin = tb.getBoundingClientRect();
  document.querySelectorAll('td.step[data-from]').forEach(function(to){
    var from = document.querySelector('td.step[data-step="' + to.dataset.from + '"]');
    if (!from) return;
    var a = from.getBoundingClientRect(), b = to.getBoundingClientRect(), l = document.createElementNS(ns, 'line');
    l.setAttribute('class', 'edge'); l.setAttribute('marker-end', 'url(#head)');
    l.setAttribute('x1', a.right - origin.left); l.setAttribute('y1', a.top + a.height / 2 - origin.top);
    l.setAttribute('x2', b.left - origin.left); l.setAttribute('y2', b.top + b.height / 2 - origin.top);
    svg.appendChild(l);
  });
  box.appendChild(svg);
  // Open at the violation: the last marked step (the violating one, or the
  // last blocked agent) at the right edge of the table's box, which shows a
  // race's earlier access too where the two fit beside the lane labels.
  if (marked.length) {
    var last = marked[marked.length - 1].getBoundingClientRect(), inbox = box.getBoundingClientRect();
    box.scrollLeft = Math.max(0, last.right - inbox.left + box.scrollLeft + 12 - box.clientWidth);
    if (last.bottom > window.innerHeight) window.scrollBy(0, last.bottom - window.innerHeight + 12);
  }
  // For tests and tools: the layout as the browser made it.
  var labels = document.querySelectorAll('th.lane-label'), left = Infinity, right = -Infinity;
  labels.forEach(function(l){ var r = l.getBoundingClientRect(); left = Math.min(left, r.left); right = Math.max(right, r.right); });
  var t = document.querySelector('table.trace').getBoundingClientRect();
  document.body.setAttribute('data-layout', JSON.stringify({table_width: Math.round(t.width), labels_left: Math.round(left),
    labels_right: Math.round(right), viewport: window.innerWidth, scroll_left: Math.round(box.scrollLeft)}));
})();
)";

// Whether a step's text names a barrier: the name, not part of a longer one
// ("full[1]" is not in "full[1]@cta1", "named barrier 1" not in "named barrier 12").
bool names(const std::string& text, const std::string& name) {
  auto part = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '[' || c == '@'; };
  for (std::size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    const std::size_t end = at + name.size();
    const bool before = at == 0 || !part(text[at - 1]);
    const bool after = end == text.size() || (name.back() == ']' ? text[end] != '@' : !part(text[end]));
    if (before && after) return true;
  }
  return false;
}

// Barrier b's track: for each step its state after the step where the step
// changed it or names the barrier, else "".
std::vector<std::string> track_cells(const check::Result& r, std::size_t b) {
  std::vector<std::string> cells(r.trace.size());
  if (r.step_states.empty() || b >= r.step_states.front().objects.size()) return cells;
  const std::string& name = r.step_states.front().objects[b].name;
  std::string prev = r.step_states.front().objects[b].state;
  for (std::size_t i = 0; i < r.trace.size(); ++i) {
    const bool after = i + 1 < r.step_states.size() && b < r.step_states[i + 1].objects.size();
    const std::string now = after ? r.step_states[i + 1].objects[b].state : prev;
    if (now != prev || names(r.trace[i].text, name)) cells[i] = now;
    prev = now;
  }
  return cells;
}

// The barriers the trace touches: those whose track has a cell.
std::vector<std::size_t> touched_barriers(const check::Result& r) {
  std::vector<std::size_t> out;
  if (r.step_states.empty()) return out;
  for (std::size_t b = 0; b < r.step_states.front().objects.size(); ++b) {
    const std::vector<std::string> cells = track_cells(r, b);
    if (std::any_of(cells.begin(), cells.end(), [](const std::string& c) { return !c.empty(); })) out.push_back(b);
  }
  return out;
}

void embed_data(std::ostringstream& o, const FileReport& f) {
  const check::Result& r = f.result;
  o << "<script type=\"application/json\" id=\"trace-data\">{\"agents\": [";
  for (std::size_t a = 0; a < r.agents.size(); ++a) o << (a ? "," : "") << script_json(r.agents[a].name);
  o << "], \"touched\": [";
  const std::vector<std::size_t> touched = touched_barriers(r);
  for (std::size_t b = 0; b < touched.size(); ++b) o << (b ? "," : "") << touched[b];
  o << "], \"source\": [";
  std::istringstream src(f.source);
  std::string line;
  int lines = 0;
  for (bool first = true; std::getline(src, line); first = false, ++lines) o << (first ? "" : ",") << script_json(line);
  // A compiled kernel's lines: the source line each came from ("" where none).
  o << "], \"origin\": [";
  for (int n = 1; n <= lines; ++n) o << (n > 1 ? "," : "") << script_json(origin_text(f, n));
  o << "], \"states\": [";
  for (std::size_t i = 0; i < r.step_states.size(); ++i) {
    const check::Snapshot& s = r.step_states[i];
    o << (i ? ",\n" : "\n") << "{\"agents\": [";
    for (std::size_t a = 0; a < s.agents.size(); ++a)
      o << (a ? "," : "") << "{\"agent\": " << s.agents[a].agent << ", \"line\": " << s.agents[a].loc.line
        << ", \"status\": " << script_json(s.agents[a].status) << "}";
    o << "], \"objects\": [";
    for (std::size_t b = 0; b < s.objects.size(); ++b)
      o << (b ? "," : "") << "{\"name\": " << script_json(s.objects[b].name) << ", \"state\": " << script_json(s.objects[b].state) << "}";
    o << "], \"in_flight\": [";
    for (std::size_t e = 0; e < s.in_flight.size(); ++e) o << (e ? "," : "") << script_json(s.in_flight[e]);
    o << "]}";
  }
  o << "]}</script>\n";
}

// The step's classes: the race's two accesses, the violation, blocked agents.
std::string step_class(const check::Result& r, std::size_t i) {
  const check::TraceStep& t = r.trace[i];
  const std::size_t steps = r.trace.size();
  std::string cls = "step";
  if (t.phase_completed) cls += " phase";
  if (t.blocked) cls += " blocked violation";
  const bool race = r.earlier.step > 0;
  if (race && i + 1 == r.earlier.step) cls += " race-earlier";
  if (i + 1 == steps && !t.blocked && r.violation != spec::Violation::deadlock) cls += race ? " race-later violation" : " violation";
  return cls;
}

// The release-to-acquire edge into step i: a wait that passed with acquire
// semantics observed the latest completion of its barrier's phase before it
// (1-based step; 0: none).
std::size_t acquired_from(const check::Result& r, std::size_t i) {
  const std::string& b = r.trace[i].acquired;
  if (b.empty()) return 0;
  for (std::size_t j = i; j-- > 0;)
    if (r.trace[j].phase_completed && r.trace[j].object.rfind(b + " phase ", 0) == 0) return j + 1;
  return 0;
}

void table(std::ostringstream& o, const FileReport& f) {
  const check::Result& r = f.result;
  const std::size_t steps = r.trace.size();
  o << "<div class=\"scroll\"><table class=\"trace\"><thead><tr><th class=\"lane-label\">step</th>";
  for (std::size_t i = 0; i < steps; ++i) o << "<th>" << i + 1 << "</th>";
  o << "</tr></thead><tbody>\n";
  const int lanes = static_cast<int>(r.agents.size()) + 1;  // agents, then async events
  for (int l = 0; l < lanes; ++l) {
    const std::string label = l + 1 < lanes ? r.agents[static_cast<std::size_t>(l)].name : "async events";
    o << "<tr class=\"lane-group\" data-lane=\"" << l << "\"><th class=\"lane-label\" title=\"" << esc(label) << "\">" << esc(label)
      << "</th>";
    for (std::size_t i = 0; i < steps; ++i) {
      const check::TraceStep& t = r.trace[i];
      const int lane = t.agent >= 0 ? t.agent : lanes - 1;
      if (lane != l) {
        o << "<td></td>";
        continue;
      }
      std::string title = "step " + std::to_string(i + 1) + ", " + f.file + ":" + std::to_string(t.loc.line) + ": " + t.text;
      const std::size_t from = acquired_from(r, i);
      if (from > 0) title += " [acquires the phase completed at step " + std::to_string(from) + "]";
      if (t.phase_completed) title += " [phase of " + t.object + " completed]";
      if (r.earlier.step == i + 1) title += " [the race's earlier access]";
      o << "<td class=\"" << step_class(r, i) << "\" data-step=\"" << i + 1 << "\" data-line=\"" << t.loc.line << "\" title=\""
        << esc(title) << "\"" << (from > 0 ? " data-from=\"" + std::to_string(from) + "\"" : std::string()) << "><a href=\"#L" << t.loc.line << "\">" << t.loc.line << "</a> " << esc(t.text) << "</td>";
    }
    o << "</tr>\n";
  }
  // A track per barrier the trace touches: its state after each step where
  // it changed or where the step names it (a wait that passed, a blocked
  // agent); a barrier the trace never touches gets no track.
  for (std::size_t b : touched_barriers(r)) {
    const std::string& name = r.step_states.front().objects[b].name;
    o << "<tr class=\"track\" data-object=\"" << esc(name) << "\"><th class=\"lane-label\" title=\"" << esc(name) << "\">"
      << esc(name) << "</th>";
    const std::vector<std::string> cells = track_cells(r, b);
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (cells[i].empty()) o << "<td></td>";
      else o << "<td class=\"state\" data-step=\"" << i + 1 << "\" title=\"" << esc(cells[i]) << "\">" << esc(cells[i]) << "</td>";
    }
    o << "</tr>\n";
  }
  o << "</tbody></table></div>\n";
}

}  // namespace

std::string html(const FileReport& f) {
  const check::Result& r = f.result;
  const std::size_t steps = r.trace.size();
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>" << esc(f.kernel) << ": "
    << esc(outcome_name(f)) << "</title>\n<style>\n" << style << "</style></head><body>\n<h1>" << esc(f.kernel) << ": "
    << esc(outcome_name(f)) << "</h1>\n<p class=\"message\">" << esc(f.file) << ":" << r.loc.line << ":" << r.loc.col << ": "
    << esc(r.message) << "</p>\n";
  if (r.earlier.step > 0)
    o << "<p class=\"race\">the earlier access: step " << r.earlier.step << ", line " << r.earlier.loc.line << ", "
      << esc(r.earlier.thread) << " (" << (r.earlier.write ? "write" : "read") << ", " << esc(r.earlier.proxy)
      << " proxy); the later: step " << steps << "</p>\n";
  o << "<p>replay: <code>" << esc(r.replay) << "</code></p>\n"
    << "<p class=\"legend\">legend: <span style=\"background:#dbe9ff\">a step</span>"
       "<span style=\"background:#dbe9ff;border-right:4px solid #2a2\">completes a barrier phase</span>"
       "<span style=\"background:#ffe0f0;border:2px dashed #c00\">the race's earlier access</span>"
       "<span style=\"background:#ffd0d0;border:2px solid #c00\">the violating step</span>"
       "<span style=\"background:#ffe9c4;border:2px solid #c80\">blocked (deadlock)</span>"
       "<span style=\"color:#2a2\">&#8594; release to acquire (a wait that observed that phase completion)</span>"
       "<span style=\"color:#255;font-style:italic\">barrier tracks: state where a step changed or named it</span></p>\n"
    << "<p><label>zoom <input type=\"range\" id=\"zoom\" min=\"4\" max=\"40\" value=\"9\"></label> "
       "(click a step or a barrier's state for its full text below)</p>\n";
  table(o, f);
  o << "<p id=\"details\"></p>\n<h2>State at a step</h2>\n<p><input type=\"range\" id=\"step\" min=\"0\" max=\""
    << (r.step_states.empty() ? 0 : r.step_states.size() - 1) << "\" value=\"" << (r.step_states.empty() ? 0 : r.step_states.size() - 1)
    << "\" style=\"width:60%\"> <span id=\"step-shown\"></span></p>\n<div id=\"at\"></div>\n";
  embed_data(o, f);
  o << "<h2>Source</h2>\n<pre class=\"src\">";
  std::istringstream src(f.source);
  std::string line;
  for (int n = 1; std::getline(src, line); ++n) {
    const std::string org = origin_text(f, n);
    o << "<span id=\"L" << n << "\">" << n << "  " << esc(line) << (org.empty() ? "" : "    // " + esc(org)) << "</span>";
  }
  o << "</pre>\n<script>" << script << "</script>\n</body></html>\n";
  return o.str();
}

}  // namespace pc::report
