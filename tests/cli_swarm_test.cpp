// check-kernel --swarm N (checker/search/swarm.cpp): randomized depth-first
// searches with bitstate hashing find each known-bug kernel of the corpus
// (bugs/, field/'s bug twins, the top folder) with the violation kind its
// '# expect:' line names, within the default budget, with a trace that
// replays on the exhaustive search's engine; on the correct kernels they say
// "inconclusive" (reason "swarm", exit 3), never "verified".
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/cli_support.hpp"
#include "tests/json_mini.hpp"
#include "tests/tier.hpp"

using namespace cli_support;

namespace {

jsonmini::Value parse_json(const std::string& text) {
  jsonmini::Value v;
  jsonmini::Reader r(text);
  REQUIRE_MESSAGE(r.parse(v), text.substr(0, 2000));
  return v;
}

// The corpus; in the sanitized build (memory errors, not verdicts), its bug
// kernels only: each correct kernel is searched whole by every search.
std::vector<std::string> corpus() {
  std::vector<std::string> out;
  for (const char* folder : {"kernels", "kernels/bugs", "kernels/field"})
    for (const auto& e : std::filesystem::directory_iterator(src + "/" + folder))
      if (e.path().extension() == ".bk" && (!pc::tier::sanitized || e.path().string().find("bug") != std::string::npos))
        out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("swarm: the corpus's bugs are found, its correct kernels are not proven") {
  const std::vector<std::string> files = corpus();
  std::string args = "--json --swarm 4 --threads 2";
  for (const std::string& f : files) args += " " + f;
  const Run r = run("swarm", args);
  const jsonmini::Value v = parse_json(r.out);
  const jsonmini::Value* kernels = v.get("kernels");
  REQUIRE(kernels);
  REQUIRE(kernels->a.size() == files.size());
  int found = 0, other = 0, unproven = 0;
  for (const jsonmini::Value& k : kernels->a) {
    const std::string file = jsonmini::text(k.get("file")), expect = jsonmini::text(k.get("expect"));
    const std::string outcome = jsonmini::text(k.get("outcome"));
    CAPTURE(file);
    if (expect == "verified") {
      // Two of bugs/ are found by --symbolic only (verified at their values).
      CHECK(outcome == "inconclusive");
      CHECK(jsonmini::text(k.get("inconclusive_reason")) == "swarm");
      CHECK(jsonmini::text(k.get("inconclusive_detail")).find("not a proof") != std::string::npos);
      ++unproven;
      continue;
    }
    // A bug often shows as several kinds, and a walk stops at the first it
    // meets (deepgemm_sm90_fp8_1d2d_bug_expect_tx_local_only: the data_race
    // of its `expect`, or the deadlock of its tx-count left below 0): any
    // violation, which must replay; the `expect` kind on most.
    CHECK(outcome != "verified");
    CHECK(outcome != "inconclusive");
    if (outcome == "verified" || outcome == "inconclusive") continue;
    if (outcome == expect) ++found;
    else ++other;
    // The trace replays to the same violation on one process.
    const std::string token = jsonmini::text(k.get("violation")->get("replay"));
    const Run again = run("swarm", file + " --json --replay " + token);
    CHECK(again.status == 1);
    CHECK(jsonmini::text(parse_json(again.out).get("kernels")->a.at(0).get("outcome")) == outcome);
  }
  MESSAGE(found << " bug kernels found by the swarm with their expected kind, " << other << " with another violation, "
                << unproven << " kernels left inconclusive");
  CHECK(other <= 3);
  CHECK(found >= 50);
  CHECK(unproven > (pc::tier::sanitized ? 1 : 30));
}

TEST_CASE("swarm: a bug the exhaustive search does not reach in minutes") {
  // The scale suite's 2-CTA Blackwell GEMM with a planted bug: inconclusive
  // after 240 s of the breadth-first search, found at once by the swarm.
  const std::string bug = src + "/harnesses/bench/scale/blackwell_2cta_clc_gemm_bug_release_before_wait_ld.bk";
  const Run r = run("swarm", bug + " --json --swarm 2 --threads 1 --timeout 120");
  CHECK(r.status == 1);
  const jsonmini::Value v = parse_json(r.out);
  const jsonmini::Value& k = v.get("kernels")->a.at(0);
  CHECK(jsonmini::text(k.get("outcome")) == "tmem_dealloc_in_use");
  const Run again = run("swarm", bug + " --json --replay " + jsonmini::text(k.get("violation")->get("replay")));
  CHECK(again.status == 1);
}

TEST_CASE("swarm: its text says it is not a proof, and what it excludes") {
  const Run r = run("swarm", good + " --swarm 2");
  CHECK(r.status == 3);
  CHECK(r.out.find("INCONCLUSIVE: the swarm found no violation") != std::string::npos);
  CHECK(r.out.find("not a proof") != std::string::npos);
  for (const char* opt : {"--distributed", "--sweep", "--coverage", "--prove N", "--profile-states"}) {
    CAPTURE(opt);
    const Run bad = run("swarm", std::string("--swarm 2 ") + opt + " " + good);
    CHECK(bad.status == 2);
    CHECK(bad.err.find("--swarm") != std::string::npos);
  }
  CHECK(run("swarm", "--swarm 0 " + good).status == 2);
  CHECK(run("swarm", "--swarm-depth 10 " + good).status == 2);
  // A depth too small to reach the bug: nothing found, and the steps not taken said.
  const Run shallow = run("swarm", bad + " --swarm 2 --swarm-depth 1");
  CHECK(shallow.status == 3);
  CHECK(shallow.out.find("past the depth of 1 not taken") != std::string::npos);
}
