// check-kernel --place-barriers as a user runs it: the placed kernel on
// stdout (it checks as verified), the diff, JSON, and bad input or requests
// as located errors with exit 2.
#include <doctest/doctest.h>

#include <string>

#include "tests/cli_support.hpp"
#include "tests/json_mini.hpp"

using namespace cli_support;

namespace {

const std::string raw_war =
    "# expect: data_race\n"
    "kernel k\n"
    "target amd gfx942\n"
    "param ITERS = 3 in 1..8\n"
    "smem s[2] bytes 256\n"
    "role wave warp x 4:\n"
    "  for i in 0 .. ITERS:\n"
    "    if instance == 0:\n"
    "      all: write s[0]\n"
    "    all: read s[0]\n";

}  // namespace

TEST_CASE("--place-barriers prints a kernel that verifies, and a summary on stderr") {
  const std::string in = temp_file("cli_place", "k.bk", raw_war);
  const Run r = run("cli_place", "--place-barriers " + in);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("s_barrier") != std::string::npos);
  CHECK(r.out.find("# expect: verified") != std::string::npos);
  CHECK(r.err.find("2 s_barriers") != std::string::npos);
  CHECK(r.err.find("minimal") != std::string::npos);
  const std::string placed = temp_file("cli_place", "placed.bk", r.out);
  const Run v = run("cli_place", placed + " --check-expect --brief");
  CHECK(v.status == 0);
  // The diff adds exactly the barriers and waits.
  const Run d = run("cli_place", "--place-barriers --diff " + in);
  REQUIRE(d.status == 0);
  CHECK(d.out.rfind("--- ", 0) == 0);
  CHECK(d.out.find("+    s_barrier\n") != std::string::npos);
  CHECK(d.out.find("-# expect: data_race\n+# expect: verified\n") != std::string::npos);
}

TEST_CASE("--place-barriers --json reports the placement, its proof and its verification") {
  const std::string in = temp_file("cli_place", "k.bk", raw_war);
  const Run r = run("cli_place", "--place-barriers --json --target gfx1200 " + in);
  REQUIRE(r.status == 0);
  jsonmini::Value j;
  REQUIRE(jsonmini::Reader(r.out).parse(j));
  auto field = [&](const jsonmini::Value& v, const std::string& k) -> const jsonmini::Value& {
    REQUIRE(v.get(k));
    return *v.get(k);
  };
  CHECK(field(j, "target").s == "gfx1200");
  CHECK(field(j, "barrier").s == "split");
  CHECK(field(j, "count").n == 2);
  CHECK(field(j, "minimal").b);
  CHECK(field(field(j, "verification"), "verdict").s == "verified");
  CHECK(field(j, "kernel").s.find("target amd gfx1200") != std::string::npos);
  CHECK(field(j, "kernel").s.find("s_barrier_signal") != std::string::npos);
}

TEST_CASE("--place-barriers: bad input and requests are errors with exit 2") {
  // Split barriers on a chip that has none: located at the target line.
  const std::string in = temp_file("cli_place", "k.bk", raw_war);
  Run r = run("cli_place", "--place-barriers --barrier split " + in);
  CHECK(r.status == 2);
  CHECK(r.err.find(":3:1: error: --barrier split: gfx942 has no split barrier") != std::string::npos);
  // RDNA3 has s_barrier only: placed for it, the kernel gets s_barrier; split is refused.
  r = run("cli_place", "--place-barriers --target gfx1100 " + in);
  CHECK(r.status == 0);
  CHECK(r.out.find("target amd gfx1100") != std::string::npos);
  CHECK(r.out.find("s_barrier\n") != std::string::npos);
  CHECK(r.out.find("s_barrier_signal") == std::string::npos);
  r = run("cli_place", "--place-barriers --target gfx1100 --barrier split " + in);
  CHECK(r.status == 2);
  CHECK(r.err.find("gfx1100 has no split barrier") != std::string::npos);
  // An access to a buffer not declared: the parser's located error.
  const std::string unknown = temp_file("cli_place", "u.bk", raw_war + "    all: read t[0]\n");
  r = run("cli_place", "--place-barriers " + unknown);
  CHECK(r.status == 2);
  CHECK(r.err.find("u.bk:11:") != std::string::npos);
  // An operation placement does not handle.
  const std::string tma = temp_file("cli_place", "t.bk",
                                    "kernel t\nsmem s[1] bytes 256\nrole w warp x 2:\n"
                                    "  all: read s[0]\n  fence_proxy_async\n");
  r = run("cli_place", "--place-barriers " + tma);
  CHECK(r.status == 2);
  CHECK(r.err.find("t.bk:5:") != std::string::npos);
  CHECK(r.err.find("`fence_proxy_async` is not one of them") != std::string::npos);
  // Two roles on AMD (s_barrier is the whole workgroup's).
  const std::string roles = temp_file("cli_place", "r.bk",
                                      "kernel r\ntarget amd gfx942\nsmem s[1] bytes 256\nrole a warp:\n  all: write s[0]\nrole b warp:\n  all: read s[0]\n");
  r = run("cli_place", "--place-barriers " + roles);
  CHECK(r.status == 2);
  CHECK(r.err.find("r.bk:6:") != std::string::npos);
  CHECK(r.err.find("one role on AMD") != std::string::npos);
  // A role left with nothing once its synchronization is taken out.
  const std::string empty = temp_file("cli_place", "e.bk",
                                      "kernel e\ntarget nvidia\nsmem t[1] bytes 256\nmbarrier m[1] count 32\nrole p warp:\n"
                                      "  all: write t[0]\n  all: arrive m[0]\nrole q warp:\n  wait m[0] parity 0\n");
  r = run("cli_place", "--place-barriers " + empty);
  CHECK(r.status == 2);
  CHECK(r.err.find("e.bk:8:6: error: --place-barriers: without its barriers role q has nothing left") != std::string::npos);
  // Requests.
  CHECK(run("cli_place", "--place-barriers --target gfx999 " + in).status == 2);
  CHECK(run("cli_place", "--place-barriers " + in + " " + in).status == 2);
  CHECK(run("cli_place", "--diff " + in).status == 2);
  CHECK(run("cli_place", "--place-barriers --barrier both " + in).status == 2);
  CHECK(run("cli_place", "--place-barriers " + src + "/no/such.bk").status == 2);
}

TEST_CASE("--place-barriers --json, several roles: a producer/consumer pair, or named barriers per group") {
  const std::string in = temp_file("cli_place", "roles.bk",
                                   "kernel roles\ntarget nvidia\nsmem t[1] bytes 256\nrole p warp:\n  all: write t[0]\n"
                                   "role c warp x 2:\n  all: read t[0]\n");
  auto placed = [&](const std::string& options, jsonmini::Value& j) {
    const Run r = run("cli_place", "--place-barriers --json " + options + in);
    REQUIRE(r.status == 0);
    REQUIRE(jsonmini::Reader(r.out).parse(j));
    CHECK(j.get("greedy_count")->t == jsonmini::Value::T::null);
    CHECK(j.get("verification")->get("verdict")->s == "verified");
    CHECK(j.get("count")->n == 2);
  };
  jsonmini::Value j;
  placed("", j);  // by default, the pair, with the choice explained
  CHECK(j.get("barrier")->s == "mbarrier");
  CHECK(j.get("named_barriers")->a.empty());
  REQUIRE(j.get("choices")->a.size() == 1);
  CHECK(j.get("choices")->a[0].s.find("p and c: a producer/consumer pair, mbarrier p_to_c") == 0);
  CHECK(j.get("kernel")->s.find("mbarrier p_to_c[1] count 32") != std::string::npos);
  CHECK(j.get("kernel")->s.find("wait p_to_c[0] parity phase_p_to_c") != std::string::npos);
  jsonmini::Value named;
  placed("--barrier monolithic ", named);
  CHECK(named.get("barrier")->s == "bar_sync");
  REQUIRE(named.get("named_barriers")->a.size() == 1);
  CHECK(named.get("named_barriers")->a[0].s == "1, 96: p c");
  CHECK(named.get("kernel")->s.find("bar_sync 1, 96") != std::string::npos);
  // A pair needs two roles.
  const std::string one = temp_file("cli_place", "one.bk", "kernel one\ntarget nvidia\nsmem t[1] bytes 256\nrole w warp x 2:\n"
                                                            "  if instance == 0:\n    all: write t[0]\n  all: read t[0]\n");
  const Run r = run("cli_place", "--place-barriers --barrier pair " + one);
  CHECK(r.status == 2);
  CHECK(r.err.find("one.bk:4:6: error: --barrier pair") != std::string::npos);
}
