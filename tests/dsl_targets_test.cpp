// Targets in the .bk front end (docs/dsl.md, "Targets"): `target amd CHIP`,
// the wave size each chip gives a `warp`, and every operation rejected at
// parse time (file:line:col, exit 2) on a target or chip that lacks it.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "checker/dsl/parser.hpp"
#include "checker/ops.hpp"
#include "checker/program.hpp"
#include "tests/cli_support.hpp"
#include "tests/op_samples.hpp"

using namespace pc;
using op_samples::all_ops;
using op_samples::kernel_with;
using op_samples::sample;

namespace {

dsl::Parsed parse(const std::string& src) { return dsl::parse(src, "t.bk"); }

std::string errors_of(const dsl::Parsed& p) {
  std::string s;
  for (const dsl::Diagnostic& d : p.errors)
    s += std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": " + d.message + "\n";
  return s;
}

}  // namespace

TEST_CASE("targets: the chip sets the wave size of a warp and a warp group") {
  struct Case {
    const char* target;
    spec::amd::Gfx gfx;
    int lanes;
  };
  const Case cases[] = {
      {"amd gfx90a", spec::amd::Gfx::gfx90a, 64},   {"amd gfx940", spec::amd::Gfx::gfx940, 64},
      {"amd gfx942", spec::amd::Gfx::gfx942, 64},   {"amd gfx1200", spec::amd::Gfx::gfx1200, 32},
      {"amd gfx1201", spec::amd::Gfx::gfx1201, 32}, {"amd", spec::amd::default_gfx, 64},
      {"amd gfx1100", spec::amd::Gfx::gfx1100, 32}, {"amd gfx1101", spec::amd::Gfx::gfx1101, 32},
      {"amd gfx1102", spec::amd::Gfx::gfx1102, 32},
  };
  for (const Case& c : cases) {
    const std::string target = c.target;
    CAPTURE(target);
    const dsl::Parsed p = parse("kernel t\ntarget " + std::string(c.target) +
                                "\nrole w warp:\n  exit\nrole g warpgroup:\n  exit\n");
    REQUIRE(errors_of(p) == "");
    CHECK(p.kernel.target == ir::Target::amd);
    CHECK(p.kernel.gfx == c.gfx);
    CHECK(ir::warp_size(p.kernel) == c.lanes);
    const check::Program prog = check::instantiate(p.kernel);
    REQUIRE(prog.agents.size() == 2);
    CHECK(prog.agents[0].threads == c.lanes);
    CHECK(prog.agents[0].warps == 1);
    CHECK(prog.agents[1].threads == 4 * c.lanes);
    CHECK(prog.agents[1].warps == 4);
    CHECK(prog.cta_threads[0] == 5 * c.lanes);
  }
  const dsl::Parsed nv = parse("kernel t\nrole w warp:\n  exit\nrole g warpgroup:\n  exit\n");
  REQUIRE(nv.ok());
  CHECK(ir::warp_size(nv.kernel) == 32);
  CHECK(check::instantiate(nv.kernel).agents[1].threads == 128);
}

TEST_CASE("targets: every operation parses on the targets that have it and is rejected on the others") {
  // What each target has, written out here rather than taken from
  // ir::op_target, so that the test checks the table.
  const std::set<std::string> amd_only = {"s_waitcnt", "s_barrier", "global_load_lds", "s_barrier_signal", "s_barrier_wait"};
  const std::set<std::string> on_amd = {"read", "write", "consume", "init", "arrive", "wait", "exit", "s_waitcnt", "s_barrier"};
  const std::set<std::string> cdna_only = {"global_load_lds"};
  const std::set<std::string> gfx12_only = {"s_barrier_signal", "s_barrier_wait"};
  const char* targets[] = {"nvidia", "amd gfx90a", "amd gfx940", "amd gfx942", "amd gfx1100", "amd gfx1102",
                           "amd gfx1200", "amd gfx1201", "amd"};
  int rejected = 0;
  for (const ir::OpCode c : all_ops()) {
    const std::string kw(ir::op_keyword(c));
    const std::string stmt = sample(c);
    for (const std::string target : targets) {
      CAPTURE(kw);
      CAPTURE(target);
      const bool nvidia = target == "nvidia";
      const bool gfx12 = target.find("gfx12") != std::string::npos, gfx11 = target.find("gfx11") != std::string::npos;
      const bool has = nvidia ? !amd_only.count(kw)
                              : on_amd.count(kw) || (cdna_only.count(kw) && !gfx12 && !gfx11) || (gfx12_only.count(kw) && gfx12);
      const dsl::Parsed p = parse(kernel_with(target, stmt));
      if (has) {
        CHECK(errors_of(p) == "");
        continue;
      }
      ++rejected;
      REQUIRE(p.errors.size() == 1);
      CHECK(p.errors[0].loc.line == 8);
      CHECK(p.errors[0].loc.col == static_cast<int>(stmt.find(kw)) + 3);
      const std::string& m = p.errors[0].message;
      if (nvidia) CHECK(m.find("is an AMD instruction: declare 'target amd'") != std::string::npos);
      else if (!amd_only.count(kw)) CHECK(m.find("is a PTX (NVIDIA) operation, not under 'target amd'") != std::string::npos);
      else if (gfx12_only.count(kw)) CHECK(m.find("is the gfx12 split barrier") != std::string::npos);
      else if (gfx11) CHECK(m.find("(RDNA3) has no load with an LDS destination") != std::string::npos);
      else CHECK(m.find("has no load with an LDS destination") != std::string::npos);
    }
  }
  // The PTX-only operations on 8 AMD spellings, 5 AMD ones on NVIDIA, the
  // split barrier's 2 on 4 CDNA spellings and 2 gfx11 ones, gather-to-LDS on
  // 2 gfx11 and 2 gfx12 ones.
  std::size_t ptx_only = 0;
  for (const ir::OpCode c : all_ops()) ptx_only += !on_amd.count(std::string(ir::op_keyword(c))) && !amd_only.count(std::string(ir::op_keyword(c)));
  CHECK(ptx_only >= 52);
  CHECK(rejected == static_cast<int>(ptx_only) * 8 + 5 + 2 * 6 + 4);
}

TEST_CASE("targets: AMD forms of the software mbarrier, clusters, counters and chips") {
  struct Case {
    const char* name;
    std::string source;
    int line, col;
    const char* message;
  };
  const std::string amd = "amd gfx942";
  const Case cases[] = {
      {"arrive token", kernel_with(amd, "t = one: arrive full[0]"), 8, 12, "no state token: its arrive returns nothing"},
      {"arrive nocomplete", kernel_with(amd, "one: arrive full[0] release cta nocomplete"), 8, 8, "no .noComplete arrive"},
      {"arrive release", kernel_with(amd, "one: arrive full[0] release"), 8, 8, "drop the release/relaxed"},
      {"arrive cluster", kernel_with(amd, "one: arrive full[0] cluster"), 8, 8, "drop the release/relaxed"},
      {"wait token", kernel_with(amd, "t = 0\n  wait full[0] token t"), 9, 3, "no state token: wait by 'parity P'"},
      {"wait acquire", kernel_with(amd, "wait full[0] parity 0 acquire"), 8, 3, "drop the acquire/relaxed"},
      {"remote arrive", kernel_with(amd, "one: arrive full[0] @ 0"), 8, 25, "AMD has no clusters"},
      {"remote read", kernel_with(amd, "read A[0] @ 0"), 8, 15, "AMD has no clusters"},
      {"cluster", "kernel t\ntarget amd\ncluster 2\nrole r warp:\n  exit\n", 3, 1, "AMD has no thread-block clusters"},
      {"lgkmcnt range gfx9", kernel_with(amd, "s_waitcnt lgkmcnt(16)"), 8, 21, "lgkmcnt is 16; on gfx942 it must be in 0..15"},
      {"vmcnt range", kernel_with(amd, "s_waitcnt vmcnt(64)"), 8, 19, "vmcnt is 64; on gfx942 it must be in 0..63"},
      {"lgkmcnt range gfx12", kernel_with("amd gfx1200", "s_waitcnt lgkmcnt(64)"), 8, 21, "on gfx1200 it must be in 0..63"},
      {"bare s_waitcnt", kernel_with(amd, "s_waitcnt"), 8, 3, "s_waitcnt needs the counters to wait for"},
      {"counter twice", kernel_with(amd, "s_waitcnt vmcnt(1) vmcnt(2)"), 8, 22, "vmcnt is given twice"},
      {"other counter", kernel_with(amd, "s_waitcnt expcnt(0)"), 8, 13, "it takes vmcnt(N) and/or lgkmcnt(N)"},
      {"unknown chip", kernel_with("amd gfx1030", "exit"), 2, 12, "unknown AMD chip 'gfx1030'"},
      {"chip on nvidia", kernel_with("nvidia gfx942", "exit"), 2, 15, "expected end of line"},
      {"target twice", "kernel t\ntarget amd\ntarget amd gfx1200\nrole r warp:\n  exit\n", 3, 1, "'target' is declared twice"},
      {"target after the roles", "kernel t\nrole r warp:\n  s_barrier_wait\ntarget amd gfx90a\n", 3, 3,
       "gfx90a (CDNA) has s_barrier only"},
  };
  for (const Case& c : cases) {
    const std::string name = c.name;
    CAPTURE(name);
    const dsl::Parsed p = parse(c.source);
    REQUIRE_FALSE(p.errors.empty());
    CHECK(p.errors[0].loc.line == c.line);
    CHECK(p.errors[0].loc.col == c.col);
    CHECK_MESSAGE(p.errors[0].message.find(c.message) != std::string::npos, p.errors[0].message);
  }
  // The forms the software mbarrier has, and a counter at its chip's limit.
  CHECK(errors_of(parse(kernel_with(amd, "each: arrive full[0] count 1\n  wait full[0] parity 0"))) == "");
  CHECK(errors_of(parse(kernel_with(amd, "s_waitcnt lgkmcnt(15) & vmcnt(63)"))) == "");
  CHECK(errors_of(parse(kernel_with("amd gfx1201", "s_waitcnt lgkmcnt(63), vmcnt(0)"))) == "");
  // RDNA3: gfx11's S_WAITCNT has 6-bit counters.
  CHECK(errors_of(parse(kernel_with("amd gfx1100", "s_waitcnt lgkmcnt(63), vmcnt(63)"))) == "");
  CHECK(errors_of(parse(kernel_with("amd gfx1100", "s_waitcnt lgkmcnt(64)"))) != "");
}

TEST_CASE("targets: check-kernel exits 2 with file:line:col on an operation the target lacks") {
  const std::string f = cli_support::temp_file("dsl_targets", "tma_on_amd.bk",
                                               kernel_with("amd gfx942", "one: tma_load A[0] -> full[0]"));
  const cli_support::Run r = cli_support::run("dsl_targets", f);
  CHECK(r.status == 2);
  CHECK(r.err.find("tma_on_amd.bk:8:8: error: 'tma_load' is a PTX (NVIDIA) operation") != std::string::npos);
}
