// --sarif as GitHub code scanning takes it: the output validates against a
// schema written here of the SARIF 2.1.0 structure (the objects, properties
// and types of the OASIS schema that check-kernel writes, unknown properties
// refused) with what code scanning demands on top (every rule with a short
// and a full description, help in text and markdown, tags; every result with
// a rule, a location and a fingerprint); fingerprints that follow the
// finding, not the schedule; URIs relative to %SRCROOT%; an inconclusive run
// as a failed invocation.
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>

#include "checker/report/rules.hpp"
#include "spec/violation.hpp"
#include "tests/cli_support.hpp"
#include "tests/json_mini.hpp"

namespace {

using namespace cli_support;

const char* const sarif_schema = R"schema({
  "type": "object",
  "required": ["version", "runs"],
  "additionalProperties": false,
  "properties": {
    "$schema": {"type": "string", "minLength": 1},
    "version": {"const": "2.1.0"},
    "runs": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/run"}}
  },
  "$defs": {
    "message": {"type": "object", "required": ["text"], "additionalProperties": false,
                "properties": {"text": {"type": "string", "minLength": 1}}},
    "multiformat": {"type": "object", "required": ["text", "markdown"], "additionalProperties": false,
                    "properties": {"text": {"type": "string", "minLength": 1}, "markdown": {"type": "string", "minLength": 1}}},
    "text_only": {"type": "object", "required": ["text"], "additionalProperties": false,
                  "properties": {"text": {"type": "string", "minLength": 1}}},
    "run": {
      "type": "object", "required": ["tool", "results", "invocations"], "additionalProperties": false,
      "properties": {
        "tool": {"type": "object", "required": ["driver"], "additionalProperties": false,
                 "properties": {"driver": {"$ref": "#/$defs/driver"}}},
        "invocations": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/invocation"}},
        "originalUriBaseIds": {"type": "object", "additionalProperties": {"$ref": "#/$defs/base"}},
        "results": {"type": "array", "items": {"$ref": "#/$defs/result"}}
      }
    },
    "driver": {
      "type": "object", "required": ["name", "version", "informationUri", "rules"], "additionalProperties": false,
      "properties": {
        "name": {"type": "string"}, "fullName": {"type": "string"}, "version": {"type": "string"},
        "informationUri": {"type": "string", "minLength": 1},
        "semanticVersion": {"type": "string", "pattern": "^[0-9]+\\.[0-9]+\\.[0-9]+$"},
        "rules": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/rule"}}
      }
    },
    "rule": {
      "type": "object", "required": ["id", "shortDescription", "fullDescription", "help", "helpUri", "properties"],
      "additionalProperties": false,
      "properties": {
        "id": {"type": "string", "pattern": "^[a-z0-9_]+$"}, "name": {"type": "string"},
        "helpUri": {"type": "string", "minLength": 1},
        "shortDescription": {"$ref": "#/$defs/text_only"}, "fullDescription": {"$ref": "#/$defs/text_only"},
        "help": {"$ref": "#/$defs/multiformat"},
        "properties": {"type": "object", "required": ["tags"],
                       "properties": {"tags": {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
                                      "precision": {"enum": ["very-high", "high", "medium", "low"]}}}
      }
    },
    "invocation": {
      "type": "object", "required": ["executionSuccessful"], "additionalProperties": false,
      "properties": {
        "executionSuccessful": {"type": "boolean"}, "exitCode": {"type": "integer"},
        "toolExecutionNotifications": {"type": "array", "items": {"$ref": "#/$defs/notification"}}
      }
    },
    "notification": {
      "type": "object", "required": ["message", "level"], "additionalProperties": false,
      "properties": {"message": {"$ref": "#/$defs/message"}, "level": {"enum": ["none", "note", "warning", "error"]},
                     "locations": {"type": "array", "items": {"$ref": "#/$defs/location"}}}
    },
    "base": {"type": "object", "required": ["uri"], "additionalProperties": false,
             "properties": {"uri": {"type": "string", "pattern": "^file://.*/$"}}},
    "result": {
      "type": "object", "required": ["ruleId", "ruleIndex", "level", "message", "locations", "partialFingerprints"],
      "additionalProperties": false,
      "properties": {
        "ruleId": {"type": "string"}, "ruleIndex": {"type": "integer", "minimum": 0},
        "level": {"enum": ["none", "note", "warning", "error"]}, "message": {"$ref": "#/$defs/message"},
        "locations": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/location"}},
        "partialFingerprints": {"type": "object", "additionalProperties": {"type": "string", "minLength": 1}},
        "codeFlows": {"type": "array", "items": {"$ref": "#/$defs/codeFlow"}},
        "relatedLocations": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/location"}}
      }
    },
    "codeFlow": {"type": "object", "required": ["threadFlows"], "additionalProperties": false,
                 "properties": {"threadFlows": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/threadFlow"}}}},
    "threadFlow": {"type": "object", "required": ["locations"], "additionalProperties": false,
                   "properties": {"id": {"type": "string", "minLength": 1},
                                  "locations": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/threadFlowLocation"}}}},
    "threadFlowLocation": {"type": "object", "required": ["location"], "additionalProperties": false,
                           "properties": {"executionOrder": {"type": "integer", "minimum": 1},
                                          "location": {"$ref": "#/$defs/location"}}},
    "location": {
      "type": "object", "required": ["physicalLocation"], "additionalProperties": false,
      "properties": {"id": {"type": "integer", "minimum": 0}, "physicalLocation": {"$ref": "#/$defs/physical"},
                     "message": {"$ref": "#/$defs/message"}}
    },
    "physical": {
      "type": "object", "required": ["artifactLocation", "region"], "additionalProperties": false,
      "properties": {
        "artifactLocation": {"type": "object", "required": ["uri"], "additionalProperties": false,
                             "properties": {"uri": {"type": "string", "minLength": 1, "pattern": "^(file:///|[^/])"},
                                            "uriBaseId": {"const": "%SRCROOT%"}}},
        "region": {"type": "object", "required": ["startLine", "startColumn"], "additionalProperties": false,
                   "properties": {"startLine": {"type": "integer", "minimum": 1}, "startColumn": {"type": "integer", "minimum": 1}}}
      }
    }
  }
})schema";

// Runs check-kernel in the repository root (the source root of its URIs).
Run run_in_root(const std::string& args) {
  const std::filesystem::path dir = temp_dir("cli_sarif_test");
  const std::string out = (dir / "stdout").string(), err = (dir / "stderr").string();
  const int st = std::system(("cd '" + src + "' && " + bin + " " + args + " >" + out + " 2>" + err).c_str());
  return Run{WIFEXITED(st) ? WEXITSTATUS(st) : -1, slurp(out), slurp(err)};
}

jsonmini::Value parse(const std::string& text) {
  jsonmini::Value v;
  REQUIRE(jsonmini::Reader(text).parse(v));
  return v;
}

const jsonmini::Value& run0(const jsonmini::Value& doc) { return doc.get("runs")->a.at(0); }

std::string fingerprint(const jsonmini::Value& result) {
  return result.get("partialFingerprints")->get("phasecheck/v1")->s;
}

}  // namespace

TEST_CASE("SARIF validates against the SARIF 2.1.0 structure and code scanning's demands") {
  const jsonmini::Value schema = parse(sarif_schema);
  const std::string unreached =
      temp_file("cli_sarif_test", "unreached.bk",
                "kernel unreached\nsmem t[1] bytes 16\nrole r warp:\n  if 1 > 2:\n    read t[0]\n  syncwarp\n");
  const std::string broken = temp_file("cli_sarif_test", "broken.bk", "kernel k\nrole r warp:\n  wiat\n");
  for (const std::string& args :
       {std::string("kernels/bugs/wrong_initial_parity.bk"), std::string("kernels/tlx_pingpong.bk"), unreached, broken,
        std::string("kernels/cutlass_tma_multicast.bk --max-states 10"),
        "kernels/tlx_pingpong.bk kernels/bugs/wrong_initial_parity.bk " + broken + " " + unreached}) {
    CAPTURE(args);
    const Run r = run_in_root(args + " --sarif");
    const jsonmini::Value doc = parse(r.out);
    CHECK(jsonmini::validate(doc, schema, schema) == "");
    // Every result names a rule of the driver, at its index.
    const auto& rules = run0(doc).get("tool")->get("driver")->get("rules")->a;
    for (const auto& res : run0(doc).get("results")->a) {
      const std::size_t i = static_cast<std::size_t>(res.get("ruleIndex")->n);
      REQUIRE(i < rules.size());
      CHECK(rules[i].get("id")->s == res.get("ruleId")->s);
    }
    CHECK(static_cast<int>(run0(doc).get("invocations")->a.at(0).get("exitCode")->n) == r.status);
  }
  // The schema is not vacuous: a rule without fullDescription, or a result
  // without a fingerprint, fails it.
  jsonmini::Value doc = parse(run_in_root("kernels/bugs/wrong_initial_parity.bk --sarif").out);
  jsonmini::Value no_full = doc;
  no_full.o["runs"].a[0].o["tool"].o["driver"].o["rules"].a[3].o.erase("fullDescription");
  CHECK(jsonmini::validate(no_full, schema, schema) != "");
  jsonmini::Value no_fp = doc;
  no_fp.o["runs"].a[0].o["results"].a[0].o.erase("partialFingerprints");
  CHECK(jsonmini::validate(no_fp, schema, schema) != "");
}

TEST_CASE("SARIF rules: every violation kind, each with the fix in its help and tags") {
  const jsonmini::Value doc = parse(run_in_root("kernels/tlx_pingpong.bk --sarif").out);
  const auto& rules = run0(doc).get("tool")->get("driver")->get("rules")->a;
  std::vector<std::string> ids = {"bad_input", "unreached_statement"};
#define PC_X(e, name, severity, doc) ids.emplace_back(name);
  PC_VIOLATIONS(PC_X)
#undef PC_X
  REQUIRE(rules.size() == ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    CAPTURE(ids[i]);
    CHECK(pc::report::rule_help(ids[i]) != nullptr);
    CHECK(rules[i].get("id")->s == ids[i]);
    CHECK(rules[i].get("help")->get("text")->s.find("Fix: ") != std::string::npos);
    CHECK(rules[i].get("help")->get("markdown")->s.find("**Fix**: ") != std::string::npos);
    CHECK(rules[i].get("properties")->get("tags")->a.size() >= 2);
  }
}

TEST_CASE("SARIF fingerprints follow the kernel, the kind and the location, not the schedule") {
  const std::string bad = "kernels/bugs/wrong_initial_parity.bk";
  const jsonmini::Value a = parse(run_in_root(bad + " --sarif").out);
  const jsonmini::Value b = parse(run_in_root(bad + " --sarif --no-reduction").out);
  const jsonmini::Value& ra = run0(a).get("results")->a.at(0);
  const jsonmini::Value& rb = run0(b).get("results")->a.at(0);
  // Another search mode, another replay token, the same alert.
  CHECK(ra.get("message")->get("text")->s.find("--replay v2.R.") != std::string::npos);
  CHECK(rb.get("message")->get("text")->s.find("--replay v2.N.") != std::string::npos);
  CHECK(fingerprint(ra) == fingerprint(rb));
  CHECK(fingerprint(ra).find("v2.") == std::string::npos);
  // Another finding, another fingerprint.
  const jsonmini::Value c = parse(run_in_root("kernels/bugs/tma_store_without_proxy_fence.bk --sarif").out);
  REQUIRE_FALSE(run0(c).get("results")->a.empty());
  CHECK(fingerprint(run0(c).get("results")->a.at(0)) != fingerprint(ra));
}

TEST_CASE("SARIF URIs: relative to %SRCROOT% under the working directory, absolute outside it") {
  const jsonmini::Value doc = parse(run_in_root("kernels/bugs/wrong_initial_parity.bk --sarif").out);
  const jsonmini::Value& art =
      *run0(doc).get("results")->a.at(0).get("locations")->a.at(0).get("physicalLocation")->get("artifactLocation");
  CHECK(art.get("uri")->s == "kernels/bugs/wrong_initial_parity.bk");
  CHECK(art.get("uriBaseId")->s == "%SRCROOT%");
  const std::string root = run0(doc).get("originalUriBaseIds")->get("%SRCROOT%")->get("uri")->s;
  CHECK(root.rfind("file:///", 0) == 0);
  CHECK(root.back() == '/');
  // The same file named by its absolute path is still under the root.
  const jsonmini::Value abs = parse(run_in_root(src + "/kernels/bugs/wrong_initial_parity.bk --sarif").out);
  CHECK(run0(abs).get("results")->a.at(0).get("locations")->a.at(0).get("physicalLocation")->get("artifactLocation")->get("uri")->s ==
        "kernels/bugs/wrong_initial_parity.bk");
  // A file outside it: an absolute file URI, no base.
  const std::string outside = temp_file("cli_sarif_test", "outside.bk", slurp(src + "/kernels/bugs/wrong_initial_parity.bk"));
  const jsonmini::Value o = parse(run_in_root(outside + " --sarif").out);
  const jsonmini::Value& oa =
      *run0(o).get("results")->a.at(0).get("locations")->a.at(0).get("physicalLocation")->get("artifactLocation");
  CHECK(oa.get("uri")->s.rfind("file:///", 0) == 0);
  CHECK(oa.get("uriBaseId") == nullptr);
}

TEST_CASE("SARIF: an inconclusive check is a failed invocation with a notification, never a clean run") {
  const Run r = run_in_root("kernels/cutlass_tma_multicast.bk --max-states 10 --sarif");
  CHECK(r.status == 3);
  const jsonmini::Value doc = parse(r.out);
  const jsonmini::Value& inv = run0(doc).get("invocations")->a.at(0);
  CHECK_FALSE(inv.get("executionSuccessful")->b);
  REQUIRE(inv.get("toolExecutionNotifications")->a.size() == 1);
  const jsonmini::Value& note = inv.get("toolExecutionNotifications")->a.at(0);
  CHECK(note.get("level")->s == "error");
  CHECK(note.get("message")->get("text")->s.find("inconclusive (max-states)") != std::string::npos);
  CHECK(note.get("message")->get("text")->s.find("nothing was proven") != std::string::npos);
  // A verified run is a successful one, with no notification.
  const jsonmini::Value ok = parse(run_in_root("kernels/tlx_pingpong.bk --sarif").out);
  CHECK(run0(ok).get("invocations")->a.at(0).get("executionSuccessful")->b);
  CHECK(run0(ok).get("invocations")->a.at(0).get("toolExecutionNotifications")->a.empty());
}

TEST_CASE("SARIF: unreached statements of a verified kernel are warnings at their lines") {
  const std::string file = temp_file("cli_sarif_test", "dead.bk",
                                     "kernel dead\nsmem t[1] bytes 16\nrole r warp:\n  if 1 > 2:\n    read t[0]\n"
                                     "    assert 0\n  syncwarp\n");
  const Run r = run_in_root(file + " --sarif");
  CHECK(r.status == 0);
  const jsonmini::Value doc = parse(r.out);
  const auto& results = run0(doc).get("results")->a;
  REQUIRE(results.size() == 2);
  for (const auto& x : results) {
    CHECK(x.get("ruleId")->s == "unreached_statement");
    CHECK(x.get("level")->s == "warning");
  }
  CHECK(results[0].get("message")->get("text")->s.find("this access is unreachable") != std::string::npos);
  CHECK(results[1].get("locations")->a.at(0).get("physicalLocation")->get("region")->get("startLine")->n == 6);
}

TEST_CASE("SARIF rules link to the documentation of their kind, the driver to the project's") {
  const jsonmini::Value doc = parse(run_in_root("kernels/tlx_pingpong.bk --sarif").out);
  const jsonmini::Value& driver = *run0(doc).get("tool")->get("driver");
  // Relative to the repository root, as the artifact locations are.
  REQUIRE(driver.get("informationUri") != nullptr);
  const std::string info = driver.get("informationUri")->s;
  CHECK(std::filesystem::exists(src + "/" + info));
  for (const auto& rule : driver.get("rules")->a) {
    const std::string id = rule.get("id")->s;
    CAPTURE(id);
    REQUIRE(rule.get("helpUri") != nullptr);
    const std::string uri = rule.get("helpUri")->s;
    CHECK(uri.rfind("docs/", 0) == 0);
    const std::size_t hash = uri.find('#');
    REQUIRE(hash != std::string::npos);
    // The page exists and holds the anchor, one per kind.
    const std::string page = slurp(src + "/" + uri.substr(0, hash));
    REQUIRE_FALSE(page.empty());
    const std::string anchor = uri.substr(hash + 1);
    CHECK(anchor.find(id) != std::string::npos);
    CHECK(page.find("id=\"" + anchor + "\"") != std::string::npos);
  }
}

TEST_CASE("SARIF: every refuted --symbolic claim is a result, not only the one the explicit search shows") {
  // tx_balance fails at every N but 2, smem_footprint at N = 8; N = 2 verifies.
  const std::string file = temp_file("cli_sarif_test", "claims.bk",
                                     "kernel claims\nparam N = 2 in 1..8\nsmem buf[N] bytes 32768\nmbarrier full[1] count 1\n"
                                     "role p warp:\n  one: arrive_expect_tx full[0] bytes 32768 * (N - 1)\n"
                                     "  one: tma_load buf[0] -> full[0]\nrole c warp:\n  wait full[0] parity 0\n");
  const Run js = run_in_root(file + " --symbolic --json");
  const Run r = run_in_root(file + " --symbolic --sarif");
  CHECK(r.status == 1);
  CHECK(js.status == 1);
  const jsonmini::Value claims = parse(js.out);
  const jsonmini::Value doc = parse(r.out);
  const jsonmini::Value schema = parse(sarif_schema);
  CHECK(jsonmini::validate(doc, schema, schema) == "");
  const auto& results = run0(doc).get("results")->a;
  int refuted = 0;
  for (const auto& c : claims.get("kernels")->a.at(0).get("symbolic")->a) {
    if (c.get("status")->s != "counterexample") continue;
    ++refuted;
    const std::string check = c.get("check")->s;
    const double line = c.get("location")->get("line")->n;
    CAPTURE(check);
    int found = 0;
    for (const auto& x : results)
      if (x.get("ruleId")->s == "symbolic_counterexample" && x.get("level")->s == "error" &&
          x.get("locations")->a.at(0).get("physicalLocation")->get("region")->get("startLine")->n == line &&
          x.get("message")->get("text")->s.find(check) != std::string::npos &&
          x.get("message")->get("text")->s.find("--param N=") != std::string::npos)
        ++found;
    CHECK(found == 1);
  }
  CHECK(refuted >= 2);
  // Each is its own alert.
  std::set<std::string> prints;
  for (const auto& x : results) CHECK(prints.insert(fingerprint(x)).second);
}
