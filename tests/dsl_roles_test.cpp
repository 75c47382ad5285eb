// Roles of any number of warps (`role NAME warps N`, docs/dsl.md "Roles"):
// the agents' warps and threads, per-warp lanes (`each:`, `syncwarp`) on N
// warps, the 1024-thread limit of a CTA, and a 16-warp kernel that fits the
// model's happens-before threads.
#include <doctest/doctest.h>

#include <string>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/program.hpp"
#include "tests/located_errors.hpp"

using namespace pc;

namespace {

std::string outcome(const std::string& text) {
  const dsl::Parsed p = dsl::parse(text, "roles.bk");
  const std::string first = p.errors.empty() ? std::string() : p.errors[0].message;
  CAPTURE(first);
  REQUIRE(p.ok());
  return check::outcome_name(check::check(p.kernel, check::Options{}));
}

}  // namespace

TEST_CASE("roles: 'warps N' gives agents of N warps") {
  const dsl::Parsed p = dsl::parse("kernel t\nrole pair warps 2 x 3:\n  exit\nrole big warps 8:\n  exit\n", "t.bk");
  REQUIRE(p.ok());
  CHECK(ir::role_warps(p.kernel.roles[0]) == 2);
  CHECK(p.kernel.roles[0].count == 3);
  const check::Program prog = check::instantiate(p.kernel);
  REQUIRE(prog.agents.size() == 4);
  CHECK(prog.agents[0].warps == 2);
  CHECK(prog.agents[0].threads == 64);
  CHECK(prog.agents[3].warps == 8);
  CHECK(prog.cta_threads[0] == 3 * 64 + 256);
}

TEST_CASE("roles: each: arrives once per warp, syncwarp orders no two warps, on any number of warps") {
  const std::string k = "kernel t\nsmem out bytes 4096\nmbarrier done count C\n"
                        "role producer warps 2:\n  all: write out\nSYNC  ARRIVE\n"
                        "role consumer warp:\n  wait done parity 0\n  all: read out\n";
  auto make = [&](const std::string& count, const std::string& sync, const std::string& arrive) {
    std::string s = k;
    s.replace(s.find("C\n"), 1, count);
    s.replace(s.find("SYNC"), 4, sync);
    s.replace(s.find("ARRIVE"), 6, arrive);
    return s;
  };
  CHECK(outcome(make("2", "", "each: arrive done\n")) == "data_race");                  // other lanes not ordered
  CHECK(outcome(make("2", "  syncwarp\n", "each: arrive done\n")) == "verified");       // each warp's leader releases its lanes
  CHECK(outcome(make("1", "  syncwarp\n", "one: arrive done\n")) == "data_race");       // warp 1 is not warp 0
  CHECK(outcome(make("1", "  bar_sync 1, 64\n", "one: arrive done\n")) == "verified");  // a barrier of the role's 64 threads
  // Each warp's arrive is its own: warp 0's completes phase 0 and warp 1's
  // phase 1 (spec::mbarrier::arrive_units); a consumer between the two reads
  // what warp 1 wrote unordered. Before the per-warp rule: arrival_underflow.
  CHECK(outcome(make("1", "  syncwarp\n", "each: arrive done\n")) == "data_race");
}

TEST_CASE("roles: at most 32 warps a role, 1024 threads a CTA, and the allocating warp alone") {
  testing::check_located_errors({
      {"33 warps", "kernel t\nrole r warps 33:\n  exit\n", 2, 14, "must be in 1..32"},
      {"1025 threads", "kernel t\nrole a warps 16:\n  exit\nrole b warps 17:\n  exit\n", 4, 6, "at most 1024 threads"},
      {"alloc by two warps", "kernel t\ntmem T cols 32\nrole r warps 2:\n  tcgen05_alloc T\n", 4, 3, "has 2 warps"},
  });
}

TEST_CASE("roles: sixteen single-warp agents at one barrier fit and verify") {
  const std::string k = "kernel t\nmbarrier bar count 16\nrole w warp x 16:\n  for k in 0 .. 2:\n    one: arrive bar\n"
                        "    wait bar parity k % 2\n";
  CHECK(outcome(k) == "verified");
}
