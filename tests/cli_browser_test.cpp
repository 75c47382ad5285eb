// The --trace-html page as a browser reads it: headless Chromium runs it and
// dumps its DOM (the slider's panel filled, the layout measured by the page's
// script) and takes a screenshot. Without `chromium` these fail: ./dev test
// installs it (a run by hand without it can leave them out with
// --test-case-exclude="headless Chromium*").
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/cli_support.hpp"

namespace {

using namespace cli_support;

std::size_t count(const std::string& text, const std::string& needle, std::size_t from = 0,
                  std::size_t to = std::string::npos) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle, from); at != std::string::npos && at < to; at = text.find(needle, at + 1)) ++n;
  return n;
}

bool have_chromium() { return std::system("command -v chromium >/dev/null 2>&1") == 0; }


// Runs check-kernel --trace-html on a corpus kernel and Chromium on the page:
// its DOM after the page's script ran, and optionally a screenshot.
struct Page {
  std::string html, dom;
};
// `probe`, a script of the test's own, runs after the page's script (it is
// put before </body> of a copy of the page) and can record what it measures
// in attributes of <body>.
Page open_page(const std::string& kernel, const std::string& png = "", const std::string& probe = "") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "phasecheck_cli_browser_test";
  std::filesystem::create_directories(dir);
  const std::string name = std::filesystem::path(kernel).stem().string();
  const std::string page = (dir / (name + ".html")).string(), dom_path = (dir / (name + ".dom")).string();
  // From the source tree, so that the page names the kernel by its path in the repository.
  const int st = std::system(("cd " + src + " && " + bin + " " + kernel + " --trace-html " + page + " >/dev/null").c_str());
  REQUIRE(WIFEXITED(st));
  REQUIRE(WEXITSTATUS(st) == 1);
  const std::string chrome = "timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-background-networking "
                             "--hide-scrollbars --window-size=1400,900 ";
  std::string opened = page;
  if (!probe.empty()) {
    std::string text = slurp(page);
    const std::size_t end = text.rfind("</body>");
    REQUIRE(end != std::string::npos);
    text.insert(end, "<script>" + probe + "</script>\n");
    opened = (dir / (name + ".probed.html")).string();
    std::ofstream(opened, std::ios::binary) << text;
  }
  const int b = std::system((chrome + "--dump-dom file://" + opened + " >" + dom_path + " 2>/dev/null").c_str());
  REQUIRE(WIFEXITED(b));
  REQUIRE(WEXITSTATUS(b) == 0);
  if (!png.empty()) {
    const int c = std::system((chrome + "--screenshot=" + png + " file://" + opened + " >/dev/null 2>&1").c_str());
    REQUIRE(WIFEXITED(c));
    REQUIRE(WEXITSTATUS(c) == 0);
  }
  return Page{slurp(page), slurp(dom_path)};
}

// A number of the page's data-layout attribute (the page's script writes it).
long layout(const std::string& dom, const std::string& key) {
  const std::string k = "&quot;" + key + "&quot;:";
  const std::size_t at = dom.find(k);
  REQUIRE(at != std::string::npos);
  return std::strtol(dom.c_str() + at + k.size(), nullptr, 10);
}

// The value of <body>'s attribute `name` in a dumped DOM ("" when absent).
std::string body_attr(const std::string& dom, const std::string& name) {
  const std::size_t body = dom.find("<body");
  if (body == std::string::npos) return "";
  const std::size_t close = dom.find('>', body);
  const std::string k = " " + name + "=\"";
  const std::size_t at = dom.find(k, body);
  if (at == std::string::npos || at > close) return "";
  const std::size_t from = at + k.size();
  return dom.substr(from, dom.find('"', from) - from);
}

}  // namespace

TEST_CASE("headless Chromium: the trace page has lanes, barrier tracks, a legend and a step slider") {
  REQUIRE_MESSAGE(have_chromium(), "chromium is not installed (./dev test installs it)");
  // A race: both accesses marked, the earlier one named above the table.
  const Page race = open_page("kernels/bugs/tma_store_without_proxy_fence.bk");
  for (const char* what : {"class=\"lane-label\"", "class=\"track\"", "class=\"legend\"", "id=\"step\"", "id=\"zoom\"",
                           "race-earlier", "race-later", "id=\"trace-data\""}) {
    CAPTURE(std::string(what));
    CHECK(count(race.html, what) > 0);
    CHECK(count(race.dom, what) == count(race.html, what));
  }
  // Every step links to its line (the panel below adds links of its own).
  CHECK(count(race.dom, "<a href=\"#L") >= count(race.html, "<a href=\"#L"));
  CHECK(race.dom.find("the earlier access: step") != std::string::npos);
  // The slider's panel was filled by the script: a row per agent with its source line.
  const std::size_t at = race.dom.find("<div id=\"at\">");
  REQUIRE(at != std::string::npos);
  CHECK(race.dom.find("<th>agent</th>", at) != std::string::npos);
  const bool statuses = race.dom.find("in flight", at) != std::string::npos || race.dom.find("ready", at) != std::string::npos;
  CHECK(statuses);
  // A deadlock: every blocked agent marked.
  const Page dead = open_page("kernels/bugs/seed003_block_guard_exit.bk");
  CHECK(count(dead.dom, "class=\"step blocked") >= 1);
  CHECK(count(dead.dom, "class=\"step blocked") == count(dead.html, "class=\"step blocked"));
  CHECK(dead.dom.find("blocked:") != std::string::npos);
  CHECK(count(dead.dom, "<span id=\"L") == count(dead.html, "<span id=\"L"));
}

TEST_CASE("headless Chromium: a long trace (over 30 steps) stays within bounds, labels on screen") {
  REQUIRE_MESSAGE(have_chromium(), "chromium is not installed (./dev test installs it)");
  // PHASECHECK_SCREENSHOT=path keeps the screenshot (the README's image:
  // PHASECHECK_SCREENSHOT=docs/img/trace-page.png build/tests/phasecheck_tests -tc="*long trace*").
  const char* keep = std::getenv("PHASECHECK_SCREENSHOT");
  const std::string png = keep ? std::string(keep) : (std::filesystem::temp_directory_path() / "phasecheck_trace_page.png").string();
  const Page p = open_page("kernels/field/deepgemm_sm90_fp8_1d2d_bug_expect_tx_local_only.bk", png);
  const std::size_t steps = count(p.html, "<td class=\"step");
  CHECK(steps >= 30);
  // Release-to-acquire edges: one arrow per wait that acquired a phase completion of the trace.
  const std::size_t edges = count(p.html, "data-from=\"");
  CHECK(edges > 0);
  CHECK(count(p.dom, "class=\"edge\"") == edges);
  // The table is at most about 125 px per step (the old page: 150) at the default zoom, and the
  // lane labels start inside the window.
  CHECK(layout(p.dom, "table_width") <= static_cast<long>(steps) * 125 + 200);
  CHECK(layout(p.dom, "labels_left") >= 0);
  CHECK(layout(p.dom, "labels_right") <= 400);
  CHECK(layout(p.dom, "viewport") == 1400);
  // The screenshot: a PNG of the window's size (IHDR width and height, big endian).
  const std::string img = slurp(png);
  REQUIRE(img.size() > 24);
  CHECK(img.substr(1, 3) == "PNG");
  auto be32 = [&](std::size_t o) {
    return (static_cast<unsigned>(static_cast<unsigned char>(img[o])) << 24) | (static_cast<unsigned char>(img[o + 1]) << 16) |
           (static_cast<unsigned char>(img[o + 2]) << 8) | static_cast<unsigned char>(img[o + 3]);
  };
  CHECK(be32(16) == 1400);
  CHECK(be32(20) == 900);
}

namespace {

// The test's probe of the trace page as the browser laid it out: which
// marked steps (the violation, a race's earlier access) lie outside the
// visible part of the table (right of the sticky lane labels, inside the
// window), whether they fit there together, the barrier tracks drawn and
// those without a cell, the labels whose full text is in no title, and boxes
// drawn (a background or a border) with nothing in them.
constexpr const char* probe = R"((function(){
  var set = function(k, v){ document.body.setAttribute('data-probe-' + k, String(v)); };
  var box = document.querySelector('.scroll'), b = box.getBoundingClientRect(), edge = b.left;
  document.querySelectorAll('tbody th.lane-label').forEach(function(l){ edge = Math.max(edge, l.getBoundingClientRect().right); });
  var marks = document.querySelectorAll('td.step.violation, td.step.race-earlier'), hidden = [], lo = Infinity, hi = -Infinity;
  marks.forEach(function(c){
    var r = c.getBoundingClientRect();
    lo = Math.min(lo, r.left); hi = Math.max(hi, r.right);
    if (r.left < edge - 1 || r.right > b.right + 1 || r.top < 0 || r.bottom > window.innerHeight) hidden.push(c.dataset.step);
  });
  set('marks', marks.length); set('hidden', hidden.join(' ')); set('fit', hi - lo <= b.right - edge ? 1 : 0);
  set('scroll-left', box.scrollLeft);
  var tracks = [], empty = [];
  document.querySelectorAll('tr.track').forEach(function(t){
    tracks.push(t.dataset.object);
    var cells = Array.prototype.filter.call(t.querySelectorAll('td'), function(d){ return d.textContent.trim() !== ''; });
    if (cells.length === 0) empty.push(t.dataset.object);
  });
  set('tracks', tracks.join('|')); set('empty-tracks', empty.join('|'));
  var untitled = [];
  document.querySelectorAll('tbody th.lane-label, td.step, td.state').forEach(function(e){
    var c = e.cloneNode(true);
    c.querySelectorAll('a').forEach(function(a){ a.remove(); });
    var text = c.textContent.trim();
    if (text && (e.getAttribute('title') || '').indexOf(text) < 0) untitled.push(text);
  });
  set('untitled', untitled.length); set('untitled-first', untitled.slice(0, 3).join('|'));
  var empties = [];
  document.querySelectorAll('body *').forEach(function(e){
    if (/^(script|style|input|svg|br)$/i.test(e.tagName) || e.closest('svg')) return;
    var r = e.getBoundingClientRect(), s = getComputedStyle(e);
    if (r.width < 1 || r.height < 1 || s.visibility === 'hidden') return;
    var drawn = s.backgroundColor !== 'rgba(0, 0, 0, 0)' || ['Top', 'Right', 'Bottom', 'Left'].some(function(side){
      return parseFloat(s['border' + side + 'Width']) > 0 && s['border' + side + 'Style'] !== 'none'; });
    if (drawn && e.textContent.trim() === '' && !e.querySelector('input, svg, img, canvas'))
      empties.push(e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className ? '.' + e.className : ''));
  });
  set('empty-boxes', empties.join('|'));
  var d = document.getElementById('details');
  set('details', d ? d.textContent.replace(/\s+/g, ' ').trim() : '');
})();)";

// A pipeline of two stages over six trips whose consumer skips its wait on
// the last: a race about 60 steps in. Its named barrier's id is computed, so
// the kernel has all 16 named barriers, of which the trace touches two.
constexpr const char* long_race = R"(# expect: data_race
kernel long_pipeline
param K_TILES = 6
smem A[2] bytes 1024
mbarrier full[2] count 1
mbarrier empty[2] count 1

role producer warp:
  for k in 0 .. K_TILES:
    s = k % 2
    wait empty[s] parity (k / 2 + 1) % 2
    all: write A[s]
    syncwarp
    one: arrive full[s]
    bar_sync 1 + k % 2, 64

role consumer warp:
  for k in 0 .. K_TILES:
    s = k % 2
    if k + 1 < K_TILES:
      wait full[s] parity (k / 2) % 2
    all: read A[s]
    syncwarp
    one: arrive empty[s]
    bar_sync 1 + k % 2, 64
)";

}  // namespace

TEST_CASE("headless Chromium: a 60-step trace opens at its violation, with only the barriers it touches") {
  REQUIRE_MESSAGE(have_chromium(), "chromium is not installed (./dev test installs it)");
  const std::string kernel = temp_file("cli_browser_test", "long_pipeline.bk", long_race);
  const Page p = open_page(kernel, "", probe);
  const std::size_t steps = count(p.html, "<td class=\"step");
  CHECK(steps >= 55);
  CHECK(steps <= 70);
  CHECK(count(p.html, " race-earlier") == 1);
  // Scrolled to the violation: both accesses of the race in view, as they fit.
  CHECK(body_attr(p.dom, "data-probe-marks") == "2");
  CHECK(body_attr(p.dom, "data-probe-fit") == "1");
  CHECK(body_attr(p.dom, "data-probe-hidden") == "");
  CHECK(std::strtol(body_attr(p.dom, "data-probe-scroll-left").c_str(), nullptr, 10) > 0);
  // A track for each barrier the trace touches (both stages' full and empty,
  // named barriers 1 and 2), none of the 14 named barriers it does not; none empty.
  CHECK(body_attr(p.dom, "data-probe-tracks") == "full[0]|full[1]|empty[0]|empty[1]|named barrier 1|named barrier 2");
  CHECK(body_attr(p.dom, "data-probe-empty-tracks") == "");
  // Every lane label, step and track cell has its full text in its title.
  CHECK(body_attr(p.dom, "data-probe-untitled") == "0");
  CAPTURE(body_attr(p.dom, "data-probe-untitled-first"));
  // No empty box: the details panel shows the race's two steps at load.
  CHECK(body_attr(p.dom, "data-probe-empty-boxes") == "");
  const std::string details = body_attr(p.dom, "data-probe-details");
  CAPTURE(details);
  CHECK(details.find("step " + std::to_string(steps)) != std::string::npos);
  CHECK(details.find("earlier access") != std::string::npos);
}
