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
Page open_page(const std::string& kernel, const std::string& png = "") {
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
  const int b = std::system((chrome + "--dump-dom file://" + page + " >" + dom_path + " 2>/dev/null").c_str());
  REQUIRE(WIFEXITED(b));
  REQUIRE(WEXITSTATUS(b) == 0);
  if (!png.empty()) {
    const int c = std::system((chrome + "--screenshot=" + png + " file://" + page + " >/dev/null 2>&1").c_str());
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

TEST_CASE("headless Chromium: a 36-step trace stays within bounds, labels on screen") {
  REQUIRE_MESSAGE(have_chromium(), "chromium is not installed (./dev test installs it)");
  // PHASECHECK_SCREENSHOT=path keeps the screenshot (the README's image:
  // PHASECHECK_SCREENSHOT=docs/img/trace-page.png build/tests/phasecheck_tests -tc="*36-step*").
  const char* keep = std::getenv("PHASECHECK_SCREENSHOT");
  const std::string png = keep ? std::string(keep) : (std::filesystem::temp_directory_path() / "phasecheck_trace_page.png").string();
  const Page p = open_page("kernels/field/deepgemm_sm90_fp8_1d2d_bug_expect_tx_local_only.bk", png);
  CHECK(count(p.html, "<td class=\"step") == 36);
  // Release-to-acquire edges: one arrow per wait that acquired a phase completion of the trace.
  const std::size_t edges = count(p.html, "data-from=\"");
  CHECK(edges > 0);
  CHECK(count(p.dom, "class=\"edge\"") == edges);
  // The table is at most about 125 px per step (the old page: 150) at the default zoom, and the
  // lane labels start inside the window.
  CHECK(layout(p.dom, "table_width") <= 36 * 125 + 200);
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
