// check-kernel as a user runs it: exit codes, the text, JSON (validated
// against docs/check-kernel.schema.json), SARIF and HTML outputs, and bad
// or hostile input.
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "tests/cli_support.hpp"
#include "tests/json_mini.hpp"

namespace {

using namespace cli_support;

// check-kernel's stdout followed by its stderr.
struct Merged {
  int status = -1;
  std::string out;
};

Merged run(const std::string& args) {
  const cli_support::Run r = cli_support::run("cli_test", args);
  return Merged{r.status, r.out + r.err};
}

std::string temp_file(const std::string& name, const std::string& content) {
  return cli_support::temp_file("cli_test", name, content);
}

}  // namespace

TEST_CASE("exit codes: 0 verified, 1 violation, 2 bad input, 3 inconclusive, worst of several") {
  CHECK(run(good).status == 0);
  CHECK(run(bad).status == 1);
  CHECK(run(temp_file("broken.bk", "kernel k\nrole r warp:\n  wait nothing[0] parity 0\n")).status == 2);
  CHECK(run(src + "/kernels/cutlass_tma_multicast.bk --max-states 10").status == 3);
  CHECK(run(good + " " + bad).status == 1);
  CHECK(run(good + " " + bad + " " + src + "/kernels/cutlass_tma_multicast.bk --max-states 10").status == 3);
  CHECK(run(good + " /nonexistent/file.bk").status == 2);
  CHECK(run(good + " " + bad + " --check-expect").status == 0);
}

TEST_CASE("usage errors and help") {
  CHECK(run("--help").status == 0);
  CHECK(run("--help").out.find("exit status") != std::string::npos);
  CHECK(run("--version").status == 0);
  CHECK(run("").status == 2);
  CHECK(run(good + " --frobnicate").status == 2);
  CHECK(run(good + " --max-states -5").status == 2);
  CHECK(run(good + " --param NOPE").status == 2);
  CHECK(run(good + " --param NOPE=1").status == 2);
  CHECK(run(good + " --param ITERS=1000").status == 2);  // outside its declared range
  CHECK(run(good + " --param ITERS=2").status == 0);
  CHECK(run(good + " --json --sarif").status == 2);
}

TEST_CASE("the text report names the violation, the line, the trace and a replay that reproduces it") {
  const Merged r = run(bad);
  CHECK(r.out.find("VIOLATION data_race") != std::string::npos);
  CHECK(r.out.find("wrong_initial_parity.bk:16:3") != std::string::npos);
  CHECK(r.out.find("trace (") != std::string::npos);
  const std::size_t at = r.out.find("--replay ");
  REQUIRE(at != std::string::npos);
  const std::string token = r.out.substr(at + 9, r.out.find('\n', at) - at - 9);
  const Merged again = run(bad + " --replay " + token);
  CHECK(again.status == 1);
  CHECK(again.out.find("VIOLATION data_race") != std::string::npos);
  CHECK(run(good + " --replay " + token).status == 2);  // another kernel's token
  CHECK(run(bad + " --replay v1.R.zz").status == 2);
}

TEST_CASE("the text report gives the rule's statement ('why') only where the message does not already say it") {
  CHECK(run(bad).out.find("  why: two accesses to one buffer") != std::string::npos);
  const std::string lap = temp_file("lap.bk",
                                    "kernel lap\nmbarrier full[1] count 1\nrole p warp:\n  one: arrive full[0]\n"
                                    "  one: arrive_expect_tx full[0] bytes 16\n  one: arrive full[0]\n");
  const Merged r = run(lap);
  CHECK(r.out.find("VIOLATION arrival_underflow") != std::string::npos);
  CHECK(r.out.find("an arrive would take the pending arrival count below zero") != std::string::npos);
  CHECK(r.out.find("  why:") == std::string::npos);
}

TEST_CASE("--json validates against docs/check-kernel.schema.json") {
  jsonmini::Value schema;
  REQUIRE(jsonmini::Reader(slurp(src + "/docs/check-kernel.schema.json")).parse(schema));
  const std::string broken = temp_file("broken2.bk", "kernel k\nrole r warp:\n  bogus_op\n");
  for (const std::string& args : {good, bad, broken, src + "/kernels/cutlass_tma_multicast.bk --max-states 10",
                                  src + "/kernels/tlx_ws_gemm_hopper.bk --symbolic", good + " " + bad + " " + broken,
                                  good + " --profile-states", src + "/kernels/cutlass_tma_multicast.bk --max-states 10 --profile-states"}) {
    CAPTURE(args);
    const Merged r = run(args + " --json");
    jsonmini::Value v;
    REQUIRE(jsonmini::Reader(r.out).parse(v));
    CHECK(jsonmini::validate(v, schema, schema) == "");
    REQUIRE(v.get("exit_code"));
    CHECK(static_cast<int>(v.get("exit_code")->n) == r.status);
  }
  // The schema is not vacuous: a document missing a required field fails.
  jsonmini::Value doc;
  REQUIRE(jsonmini::Reader(R"({"tool": "check-kernel", "format_version": 1, "kernels": []})").parse(doc));
  CHECK(jsonmini::validate(doc, schema, schema) != "");
}

TEST_CASE("--sarif is SARIF 2.1.0 with results at the right lines") {
  const Merged r = run(good + " " + bad + " --sarif");
  jsonmini::Value v;
  REQUIRE(jsonmini::Reader(r.out).parse(v));
  CHECK(v.get("version")->s == "2.1.0");
  REQUIRE(v.get("$schema"));
  const jsonmini::Value& run0 = v.get("runs")->a.at(0);
  CHECK(run0.get("tool")->get("driver")->get("name")->s == "check-kernel");
  const auto& results = run0.get("results")->a;
  REQUIRE(results.size() == 1);
  CHECK(results[0].get("ruleId")->s == "data_race");
  const jsonmini::Value* region = results[0].get("locations")->a.at(0).get("physicalLocation")->get("region");
  CHECK(region->get("startLine")->n == 16);
  bool rule_listed = false;
  for (const auto& rule : run0.get("tool")->get("driver")->get("rules")->a) rule_listed |= rule.get("id")->s == "data_race";
  CHECK(rule_listed);
  CHECK_FALSE(results[0].get("codeFlows")->a.at(0).get("threadFlows")->a.at(0).get("locations")->a.empty());
}

TEST_CASE("--trace-html writes a well-formed page: a lane per agent plus async, both accesses of the race marked, steps linked to lines") {
  const std::string out = (std::filesystem::temp_directory_path() / "phasecheck_trace.html").string();
  REQUIRE(run(bad + " --trace-html " + out).status == 1);
  const std::string html = slurp(out);
  const std::string table = html.substr(html.find("<table class=\"trace\""), html.find("</table>") - html.find("<table class=\"trace\""));
  auto count = [](const std::string& in, const std::string& needle) {
    std::size_t n = 0;
    for (std::size_t at = in.find(needle); at != std::string::npos; at = in.find(needle, at + 1)) ++n;
    return n;
  };
  CHECK(count(table, "class=\"lane-group\"") == 3);  // producer, consumer, async events
  CHECK(count(table, "race-later violation\"") == 1);
  CHECK(count(table, "race-earlier") == 1);
  CHECK(count(table, "<td class=\"step") == 4);
  CHECK(count(table, "<a href=\"#L") == 4);
  CHECK(html.find("id=\"L16\"") != std::string::npos);
  // Balanced tags (void elements and self-closing ones aside; the contents
  // of <style> and <script> are raw text).
  std::vector<std::string> stack;
  bool balanced = true;
  for (std::size_t at = html.find('<'); at != std::string::npos && balanced; at = html.find('<', at + 1)) {
    const std::size_t end = html.find('>', at);
    REQUIRE(end != std::string::npos);
    std::string tag = html.substr(at + 1, end - at - 1);
    if (tag.empty() || tag[0] == '!' || tag.back() == '/') continue;
    const bool closing = tag[0] == '/';
    std::string name = tag.substr(closing ? 1 : 0, tag.find_first_of(" \n", closing ? 1 : 0) - (closing ? 1 : 0));
    if (name == "meta" || name == "br" || name == "input") continue;
    if (!closing) stack.push_back(name);
    else if (stack.empty() || stack.back() != name) balanced = false;
    else stack.pop_back();
    if (!closing && (name == "style" || name == "script")) {
      const std::size_t close = html.find("</" + name + ">", end);
      REQUIRE(close != std::string::npos);
      at = close - 1;
    }
  }
  CHECK(balanced);
  CHECK(stack.empty());
}

TEST_CASE("bad and hostile input: a clear error with file:line:column, exit 2, never a crash") {
  struct Case {
    std::string name, content, expect;
  };
  std::string deep = "kernel deep\nrole r warp:\n";
  for (int i = 0; i < 100; ++i) deep += std::string(2 * (i + 1), ' ') + "if 1:\n";
  deep += std::string(202, ' ') + "syncwarp\n";
  std::string deep_expr = "kernel e\nparam P = " + std::string(5000, '(') + "1" + std::string(5000, ')') + "\nrole r warp:\n  syncwarp\n";
  const Case cases[] = {
      {"unterminated.bk", "kernel k\nrole r warp:\n", ":3:1: error: expected an indented block"},
      {"huge.bk", "kernel k\nparam P = 99999999999999999999999\nrole r warp:\n  syncwarp\n", "number too large"},
      {"unknown.bk", "kernel k\nmbarrier full[2] count 1\nrole r warp:\n  wait fulll[0] parity 0\n", "did you mean 'full'"},
      {"parity.bk", "kernel k\nmbarrier b[1] count 1\nrole r warp:\n  wait b[0] parity 2\n", "parity must be 0 or 1"},
      {"index.bk", "kernel k\nmbarrier b[2] count 1\nrole r warp:\n  one: arrive b[5]\n", "index 5 is outside b[2]"},
      {"lanes.bk", "kernel k\nmbarrier b[1] count 1\nrole r warp:\n  one: syncthreads\n", "remove 'one:'"},
      {"tabs.bk", "kernel k\nrole r warp:\n\tsyncwarp\n", "not tabs"},
      {"nokernel.bk", "role r warp:\n  syncwarp\n", "declares no kernel"},
      {"deep.bk", deep, "nested too deeply"},
      {"deepexpr.bk", deep_expr, "nested too deeply"},
      {"count.bk", "kernel k\nmbarrier b[1] count 0\nrole r warp:\n  syncwarp\n", "must be in 1..1048575"},
      {"expect.bk", "# expect: sometimes\nkernel k\nrole r warp:\n  syncwarp\n", "expected 'verified' or a violation name"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const Merged r = run(temp_file(c.name, c.content));
    CHECK(r.status == 2);
    CHECK(r.out.find(c.expect) != std::string::npos);
    CHECK(r.out.find(c.name + ":") != std::string::npos);
  }
  // A caret under the column.
  const Merged caret = run(temp_file("caret.bk", "kernel k\nrole r warp:\n  wait nothing[0] parity 0\n"));
  CHECK(caret.out.find("    wait nothing[0] parity 0\n         ^") != std::string::npos);
  CHECK(caret.out.find("empty body") == std::string::npos);  // no follow-on error
  // 10 MB of garbage, and random binary bytes.
  const Merged big = run(temp_file("big.bk", std::string(10u << 20, 'x')));
  CHECK(big.status == 2);
  std::mt19937 rng(7);
  std::string noise(1 << 16, '\0');
  for (char& ch : noise) ch = static_cast<char>(rng());
  CHECK(run(temp_file("noise.bk", noise)).status == 2);
  CHECK(run(temp_file("huge_file.bk", std::string(17u << 20, '#'))).out.find("larger than 16 MiB") != std::string::npos);
}

TEST_CASE("the README's example: its kernel gives exactly the output the README shows (timings aside)") {
  const std::string readme = slurp(src + "/README.md");
  const std::size_t k0 = readme.find("# expect: verified\nkernel handoff");
  REQUIRE(k0 != std::string::npos);
  const std::string kernel = readme.substr(k0, readme.find("```", k0) - k0);
  const std::size_t o0 = readme.find("$ build/check-kernel handoff.bk\n");
  REQUIRE(o0 != std::string::npos);
  const std::size_t body = readme.find('\n', o0) + 1;
  std::string shown = readme.substr(body, readme.find("```", body) - body);
  const std::filesystem::path dir = temp_dir("cli_test_readme");
  std::ofstream(dir / "handoff.bk", std::ios::binary) << kernel;
  const std::string out = (dir / "out").string();
  const int st = std::system(("cd '" + dir.string() + "' && '" + bin + "' handoff.bk > '" + out + "' 2>&1").c_str());
  CHECK(WEXITSTATUS(st) == 1);
  std::string got = slurp(out);
  // The time differs from run to run.
  auto untimed = [](std::string t) {
    const std::size_t at = t.find(" s)");
    const std::size_t comma = t.rfind(", ", at);
    if (at != std::string::npos && comma != std::string::npos) t.replace(comma, at - comma, ", T");
    return t;
  };
  CHECK(untimed(got) == untimed(shown));
}
