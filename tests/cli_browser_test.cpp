// The --trace-html page as a browser reads it: headless Chromium parses it
// and dumps its DOM, which must hold the same lanes and steps as the file,
// all inside the SVG (an HTML parser moves misplaced elements out of it).
// Skipped, with a message, where no `chromium` is installed.
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

}  // namespace

TEST_CASE("headless Chromium reads the trace page with every lane and step inside the SVG") {
  if (!have_chromium()) {
    MESSAGE("chromium not installed: browser check skipped");
    return;
  }
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "phasecheck_cli_browser_test";
  std::filesystem::create_directories(dir);
  for (const char* kernel : {"wrong_initial_parity", "named_count_too_large"}) {
    CAPTURE(kernel);
    const std::string page = (dir / (std::string(kernel) + ".html")).string();
    const std::string dom_path = (dir / (std::string(kernel) + ".dom")).string();
    const int st = std::system((bin + " " + src + "/kernels/bugs/" + kernel + ".bk --trace-html " + page + " >/dev/null").c_str());
    REQUIRE(WIFEXITED(st));
    REQUIRE(WEXITSTATUS(st) == 1);
    const int b = std::system(("timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-background-networking "
                               "--dump-dom file://" + page + " >" + dom_path + " 2>/dev/null").c_str());
    REQUIRE(WIFEXITED(b));
    REQUIRE(WEXITSTATUS(b) == 0);
    const std::string html = slurp(page), dom = slurp(dom_path);
    REQUIRE_FALSE(dom.empty());
    const std::size_t svg = dom.find("<svg"), svg_end = dom.find("</svg>");
    REQUIRE(svg != std::string::npos);
    REQUIRE(svg_end != std::string::npos);
    const std::size_t hsvg = html.find("<svg"), hsvg_end = html.find("</svg>");
    for (const char* what : {"class=\"lane-group\"", "class=\"step", "class=\"step violation", "<title>", "<a href=\"#L"}) {
      CAPTURE(what);
      CHECK(count(html, what, hsvg, hsvg_end) > 0);
      CHECK(count(dom, what, svg, svg_end) == count(html, what, hsvg, hsvg_end));
    }
    CHECK(count(dom, "<span id=\"L") == count(html, "<span id=\"L"));
  }
}
