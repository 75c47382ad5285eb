// The reports of check-kernel against each other and against the standards
// they follow: the HTML timeline is well-formed and agrees with the JSON
// trace (a lane per agent plus one for async events, a box per step, the
// violating steps highlighted, every box linked to an existing source line),
// source text is escaped, and SARIF locations are URI references.
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli_support.hpp"
#include "tests/json_mini.hpp"

namespace {

using namespace cli_support;

const std::filesystem::path tmp = temp_dir("cli_report_test");

// Runs check-kernel; its stdout into `out`, its stderr dropped.
int run(const std::string& args, std::string& out) {
  const Run r = cli_support::run("cli_report_test", args);
  out = r.out;
  return r.status;
}

// A strict reading of the page as XML-like markup: every tag closed in order
// (void elements excepted), attribute values quoted, every '&' an entity;
// the contents of <script> and <style> are raw text up to their end tag.
// Returns "" or what is wrong.
struct Element {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attrs;
};

std::string check_markup(const std::string& html, std::vector<Element>& opened) {
  static const std::set<std::string> void_elements = {"meta", "br", "link", "img", "hr", "input"};
  std::vector<std::string> stack;
  std::size_t i = 0;
  while (i < html.size()) {
    if (html[i] == '&') {
      const std::size_t semi = html.find(';', i);
      if (semi == std::string::npos || semi - i > 8) return "bare '&' at " + std::to_string(i);
      const std::string ent = html.substr(i, semi - i + 1);
      if (ent != "&amp;" && ent != "&lt;" && ent != "&gt;" && ent != "&quot;" && ent.rfind("&#", 0) != 0)
        return "unknown entity " + ent;
      i = semi + 1;
      continue;
    }
    if (html[i] != '<') {
      if (html[i] == '>') return "bare '>' at " + std::to_string(i);
      ++i;
      continue;
    }
    if (html.compare(i, 9, "<!DOCTYPE") == 0) {
      i = html.find('>', i) + 1;
      continue;
    }
    std::size_t j = i + 1;
    const bool closing = j < html.size() && html[j] == '/';
    if (closing) ++j;
    const std::size_t name_end = html.find_first_of(" \n/>", j);
    if (name_end == std::string::npos) return "unterminated tag";
    Element e{html.substr(j, name_end - j), {}};
    if (e.name.empty()) return "empty tag name at " + std::to_string(i);
    j = name_end;
    bool self_closing = false;
    for (;;) {
      while (j < html.size() && (html[j] == ' ' || html[j] == '\n')) ++j;
      if (j >= html.size()) return "unterminated tag " + e.name;
      if (html[j] == '>') break;
      if (html.compare(j, 2, "/>") == 0) {
        self_closing = true;
        ++j;
        break;
      }
      const std::size_t eq = html.find('=', j);
      if (eq == std::string::npos || html[eq + 1] != '"') return "unquoted attribute in " + e.name;
      const std::size_t close = html.find('"', eq + 2);
      if (close == std::string::npos) return "unterminated attribute in " + e.name;
      const std::string value = html.substr(eq + 2, close - eq - 2);
      if (value.find('<') != std::string::npos) return "'<' in an attribute of " + e.name;
      e.attrs.emplace_back(html.substr(j, eq - j), value);
      j = close + 1;
    }
    i = j + 1;
    if (closing) {
      if (stack.empty() || stack.back() != e.name) return "</" + e.name + "> closes " + (stack.empty() ? "nothing" : stack.back());
      stack.pop_back();
    } else {
      opened.push_back(e);
      if (!self_closing && !void_elements.count(e.name)) stack.push_back(e.name);
      // Raw text (as an HTML parser reads it): up to the element's end tag,
      // which must not occur early.
      if (e.name == "script" || e.name == "style") {
        const std::size_t end = html.find("</" + e.name + ">", i);
        if (end == std::string::npos) return "unterminated <" + e.name + ">";
        i = end;
      }
    }
  }
  return stack.empty() ? "" : "unclosed <" + stack.back() + ">";
}

std::string attr(const Element& e, const std::string& name) {
  for (const auto& [n, v] : e.attrs)
    if (n == name) return v;
  return "";
}

}  // namespace

TEST_CASE("the HTML trace page agrees with the JSON trace, for a race and for a deadlock") {
  for (const std::string kernel : {"bugs/wrong_initial_parity", "bugs/named_count_too_large", "bugs/consumer_laps_producer"}) {
    CAPTURE(kernel);
    const std::string file = src + "/kernels/" + kernel + ".bk";
    const std::string page_path = (tmp / "trace.html").string();
    std::string json_text, text;
    REQUIRE(run(file + " --json", json_text) == 1);
    std::filesystem::remove(page_path);
    REQUIRE(run(file + " --trace-html " + page_path, text) == 1);
    jsonmini::Value doc;
    REQUIRE(jsonmini::Reader(json_text).parse(doc));
    const jsonmini::Value& k = doc.get("kernels")->a.at(0);
    const std::size_t agents = k.get("agents")->a.size();
    const auto& trace = k.get("trace")->a;
    std::size_t blocked = 0;
    for (const auto& s : trace) blocked += s.get("blocked")->b;
    const bool deadlock = k.get("outcome")->s == "deadlock";

    const std::string html = slurp(page_path);
    std::vector<Element> els;
    CHECK(check_markup(html, els) == "");
    std::size_t lanes = 0, steps = 0, violating = 0, phase_markers = 0;
    std::set<std::string> ids, links;
    for (const Element& e : els) {
      const std::string cls = attr(e, "class");
      lanes += cls == "lane-group";
      steps += cls.rfind("step", 0) == 0;
      violating += cls.find("violation") != std::string::npos;
      phase_markers += cls.rfind("step", 0) == 0 && cls.find(" phase") != std::string::npos;
      if (!attr(e, "id").empty()) ids.insert(attr(e, "id"));
      if (e.name == "a") links.insert(attr(e, "href"));
    }
    CHECK(lanes == agents + 1);
    CHECK(steps == trace.size());
    CHECK(violating == (deadlock ? blocked : 1));
    std::size_t completions = 0;
    for (const auto& s : trace) completions += s.get("phase_completed")->t != jsonmini::Value::T::null;
    CHECK(phase_markers == completions);
    CHECK_FALSE(links.empty());
    for (const std::string& l : links) {
      REQUIRE(l.size() > 1);
      CHECK_MESSAGE(ids.count(l.substr(1)), l);  // every box links to a line of the listing
    }
    // Self-contained: the page's own data and script, nothing loaded.
    CHECK(html.find("<table class=\"trace\"") != std::string::npos);
    CHECK(html.find(" src=\"") == std::string::npos);
    CHECK(html.find("href=\"http") == std::string::npos);
    CHECK(html.find("<link") == std::string::npos);
    CHECK(html.find("url(http") == std::string::npos);
  }
}

TEST_CASE("source text and names are escaped in the HTML page") {
  std::filesystem::create_directories(tmp);
  const std::string file = (tmp / "esc.bk").string();
  std::ofstream(file) << slurp(src + "/kernels/bugs/wrong_initial_parity.bk")
                      << "# <script>alert(\"x\")</script> & <b>bold</b>\n";
  const std::string page_path = (tmp / "esc.html").string();
  std::string out;
  REQUIRE(run(file + " --trace-html " + page_path, out) == 1);
  const std::string html = slurp(page_path);
  std::vector<Element> els;
  CHECK(check_markup(html, els) == "");
  // The page's two scripts (its data and its code), none from the source.
  std::size_t scripts = 0;
  for (const Element& e : els) scripts += e.name == "script";
  CHECK(scripts == 2);
  CHECK(html.find("alert(\"x\")</script>") == std::string::npos);
  CHECK(html.find("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;") != std::string::npos);
}

TEST_CASE("SARIF: driver version, URI-encoded artifact locations, a code flow step per trace step") {
  std::filesystem::create_directories(tmp);
  const std::string file = (tmp / "with space#1.bk").string();
  std::ofstream(file) << slurp(src + "/kernels/bugs/wrong_initial_parity.bk");
  std::string out;
  REQUIRE(run("'" + file + "' --sarif", out) == 1);
  jsonmini::Value v;
  REQUIRE(jsonmini::Reader(out).parse(v));
  const jsonmini::Value& run0 = v.get("runs")->a.at(0);
  REQUIRE(run0.get("tool")->get("driver")->get("version"));
  const jsonmini::Value& result = run0.get("results")->a.at(0);
  CHECK(result.get("level")->s == "error");
  const std::string uri = result.get("locations")->a.at(0).get("physicalLocation")->get("artifactLocation")->get("uri")->s;
  CHECK(uri.find("with%20space%231.bk") != std::string::npos);
  CHECK(uri.find(' ') == std::string::npos);
  std::string json_text;
  REQUIRE(run("'" + file + "' --json", json_text) == 1);
  jsonmini::Value j;
  REQUIRE(jsonmini::Reader(json_text).parse(j));
  // One thread flow per agent; together they hold every trace step once,
  // each with its place in the schedule.
  std::vector<jsonmini::Value> flow;
  std::set<double> order;
  for (const auto& tf : result.get("codeFlows")->a.at(0).get("threadFlows")->a) {
    CHECK_FALSE(tf.get("id")->s.empty());
    for (const auto& step : tf.get("locations")->a) {
      flow.push_back(step);
      order.insert(step.get("executionOrder")->n);
    }
  }
  CHECK(flow.size() == j.get("kernels")->a.at(0).get("trace")->a.size());
  CHECK(order.size() == flow.size());
  CHECK(*order.begin() == 1);
  // The race's earlier access is a related location, and the JSON names it.
  REQUIRE(result.get("relatedLocations"));
  const jsonmini::Value* earlier = j.get("kernels")->a.at(0).get("violation")->get("earlier");
  REQUIRE(earlier);
  CHECK(earlier->get("step")->n >= 1);
  CHECK(earlier->get("kind")->s == "write");
  CHECK(result.get("relatedLocations")->a.at(0).get("physicalLocation")->get("region")->get("startLine")->n ==
        earlier->get("location")->get("line")->n);
  for (const auto& step : flow) {
    const jsonmini::Value* region = step.get("location")->get("physicalLocation")->get("region");
    CHECK(region->get("startLine")->n >= 1);
    CHECK(region->get("startColumn")->n >= 1);
    CHECK_FALSE(step.get("location")->get("message")->get("text")->s.empty());
  }
  // A verified kernel has no results; bad input is a result at its line.
  REQUIRE(run(src + "/kernels/tlx_pingpong.bk --sarif", out) == 0);
  jsonmini::Value none;
  REQUIRE(jsonmini::Reader(out).parse(none));
  CHECK(none.get("runs")->a.at(0).get("results")->a.empty());
  const std::string broken = (tmp / "broken.bk").string();
  std::ofstream(broken) << "kernel k\nrole r warp:\n  wiat\n";
  REQUIRE(run(broken + " --sarif", out) == 2);
  jsonmini::Value b;
  REQUIRE(jsonmini::Reader(out).parse(b));
  const jsonmini::Value& bad = b.get("runs")->a.at(0).get("results")->a.at(0);
  CHECK(bad.get("ruleId")->s == "bad_input");
  CHECK(bad.get("locations")->a.at(0).get("physicalLocation")->get("region")->get("startLine")->n == 3);
}

namespace {

// An MMA warp that issues `mmas` tcgen05 MMAs after its wait with no
// tcgen05.fence::after_thread_sync: each is an instance of the warning
// tcgen05_unfenced at its own line.
std::string unfenced(int mmas) {
  std::string k = "kernel unfenced\nsmem a[1] bytes 4096\nmbarrier full[1] count 1\nmbarrier done[1] count 1\n"
                  "role load warp:\n  one: arrive_expect_tx full[0] bytes 4096\n  one: tma_load a[0] -> full[0]\n"
                  "role mma warp:\n  wait full[0] parity 0\n";
  for (int i = 0; i < mmas; ++i) k += "  tcgen05_mma read a[0]\n";
  return k + "  tcgen05_commit done[0]\n  wait done[0] parity 0\n";
}

}  // namespace

TEST_CASE("every instance of a warning kind is listed, grouped by kind with a count, in text, JSON and SARIF") {
  const std::string file = (tmp / "unfenced.bk").string();
  std::ofstream(file) << unfenced(2);
  std::string out;
  // A warning changes no verdict and no exit status.
  CHECK(run(file, out) == 0);
  CAPTURE(out);
  CHECK(out.find("VERIFIED, 2 warnings") != std::string::npos);
  CHECK(out.find("  warning tcgen05_unfenced (2 instances):\n") != std::string::npos);
  CHECK(out.find(file + ":10:3: ") != std::string::npos);
  CHECK(out.find(file + ":11:3: ") != std::string::npos);
  CHECK(run(file + " --json", out) == 0);
  jsonmini::Value doc;
  REQUIRE(jsonmini::Reader(out).parse(doc));
  const jsonmini::Value& k = doc.get("kernels")->a.at(0);
  REQUIRE(k.get("warnings")->a.size() == 2);
  CHECK(k.get("warnings")->a[0].get("location")->get("line")->n == 10);
  CHECK(k.get("warnings")->a[1].get("location")->get("line")->n == 11);
  REQUIRE(k.get("warning_counts") != nullptr);
  REQUIRE(k.get("warnings_capped") != nullptr);
  CHECK(k.get("warning_counts")->get("tcgen05_unfenced")->n == 2);
  CHECK_FALSE(k.get("warnings_capped")->b);
  CHECK(run(file + " --sarif", out) == 0);
  REQUIRE(jsonmini::Reader(out).parse(doc));
  std::set<double> lines;
  for (const auto& x : doc.get("runs")->a.at(0).get("results")->a) {
    CHECK(x.get("ruleId")->s == "tcgen05_unfenced");
    CHECK(x.get("level")->s == "warning");
    lines.insert(x.get("locations")->a.at(0).get("physicalLocation")->get("region")->get("startLine")->n);
  }
  CHECK(lines == std::set<double>{10, 11});
  // --strict still stops at the first, as a violation.
  CHECK(run(file + " --strict", out) == 1);
}

TEST_CASE("warning instances past the cap: the first 100 listed, and the report says there were more") {
  const std::string file = (tmp / "unfenced_many.bk").string();
  std::ofstream(file) << unfenced(105);
  std::string out;
  CHECK(run(file + " --json", out) == 0);
  jsonmini::Value doc;
  REQUIRE(jsonmini::Reader(out).parse(doc));
  const jsonmini::Value& k = doc.get("kernels")->a.at(0);
  REQUIRE(k.get("warnings")->a.size() == 100);
  REQUIRE(k.get("warnings_capped") != nullptr);
  CHECK(k.get("warnings_capped")->b);
  CHECK(k.get("warnings")->a.back().get("location")->get("line")->n == 109);
  CHECK(run(file, out) == 0);
  CHECK(out.find("VERIFIED, more than 100 warnings") != std::string::npos);
  CHECK(out.find("the first 100 instances listed") != std::string::npos);
  // The same list on several threads.
  std::string many;
  CHECK(run(file + " --json --threads 3", many) == 0);
  jsonmini::Value doc3;
  REQUIRE(jsonmini::Reader(many).parse(doc3));
  const auto& w1 = k.get("warnings")->a;
  const auto& w3 = doc3.get("kernels")->a.at(0).get("warnings")->a;
  REQUIRE(w3.size() == w1.size());
  for (std::size_t i = 0; i < w1.size(); ++i)
    CHECK(w3[i].get("location")->get("line")->n == w1[i].get("location")->get("line")->n);
}

TEST_CASE("--brief: one line per finding, file:line:col: kind: message") {
  std::string out;
  CHECK(run(bad + " --brief", out) == 1);
  CHECK(out == bad + ":16:3: data_race: read of tile[0] by consumer is not ordered after the earlier write by producer (TMA load)\n");
  const std::string file = (tmp / "unfenced.bk").string();
  std::ofstream(file) << unfenced(2);
  CHECK(run(file + " --brief", out) == 0);
  CAPTURE(out);
  std::istringstream lines(out);
  int n = 0;
  for (std::string line; std::getline(lines, line); ++n)
    CHECK(line.rfind(file + ":" + std::to_string(10 + n) + ":3: tcgen05_unfenced: ", 0) == 0);
  CHECK(n == 2);
  // A clean kernel: its verdict, one line.
  CHECK(run(good + " --brief", out) == 0);
  CHECK(out.find("VERIFIED") != std::string::npos);
  CHECK(std::count(out.begin(), out.end(), '\n') == 1);
}
