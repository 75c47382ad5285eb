// --profile-states (where the states come from), Ctrl-C (SIGINT: the verdict
// so far, inconclusive "interrupted", exit 3) and the limits' messages (which
// limit stopped the search, the default state cap, how to raise it).
#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "tests/cli_support.hpp"
#include "tests/json_mini.hpp"

extern char** environ;

namespace {

using namespace cli_support;

Run run(const std::string& args) { return cli_support::run("cli_profile_test", args); }

const jsonmini::Value& kernel0(const jsonmini::Value& doc) { return doc.get("kernels")->a.at(0); }

std::uint64_t num(const jsonmini::Value* v) { return v ? static_cast<std::uint64_t>(v->n) : ~std::uint64_t{0}; }

// A profile's counts, comparable across runs.
using Counts = std::map<std::tuple<std::string, std::string, std::int64_t>, std::uint64_t>;
Counts counts(const jsonmini::Value& profile) {
  Counts c;
  for (const jsonmini::Value& l : profile.get("lines")->a)
    c[{"line", l.get("agent")->s, static_cast<std::int64_t>(l.get("line")->n)}] = num(l.get("states"));
  for (const jsonmini::Value& p : profile.get("phases")->a)
    c[{"phase", p.get("mbarrier")->s, static_cast<std::int64_t>(p.get("phase")->n)}] = num(p.get("states"));
  for (const jsonmini::Value& t : profile.get("trips")->a)
    c[{"trip " + t.get("var")->s + "@" + std::to_string(static_cast<int>(t.get("line")->n)), t.get("agent")->s,
       static_cast<std::int64_t>(t.get("value")->n)}] = num(t.get("states"));
  return c;
}

// Every state is counted once: each agent is at one line in it, each
// mbarrier at one phase.
void check_sums(const jsonmini::Value& k) {
  const jsonmini::Value* p = k.get("profile");
  REQUIRE(p);
  const std::uint64_t states = num(k.get("stats")->get("states"));
  CHECK(num(p->get("states")) == states);
  std::map<std::string, std::uint64_t> per_agent, per_barrier;
  for (const jsonmini::Value& l : p->get("lines")->a) per_agent[l.get("agent")->s] += num(l.get("states"));
  for (const jsonmini::Value& x : p->get("phases")->a) per_barrier[x.get("mbarrier")->s] += num(x.get("states"));
  CHECK(!per_agent.empty());
  if (const jsonmini::Value* agents = k.get("agents")) CHECK(per_agent.size() == agents->a.size());
  for (const auto& [a, n] : per_agent) CHECK_MESSAGE(n == states, a);
  for (const auto& [b, n] : per_barrier) CHECK_MESSAGE(n == states, b);
}

}  // namespace

TEST_CASE("--profile-states counts each stored state once, the same on any number of threads, and changes nothing else") {
  for (const std::string& args : {good, bad, src + "/kernels/tlx_ws_gemm_hopper.bk", src + "/kernels/cutlass_tma_multicast.bk --max-states 500"}) {
    CAPTURE(args);
    std::vector<Counts> seen;
    for (const char* threads : {"1", "3"}) {
      CAPTURE(threads);
      const Run plain = run(args + " --json --threads " + std::string(threads));
      const Run prof = run(args + " --json --profile-states --threads " + std::string(threads));
      CHECK(prof.status == plain.status);
      jsonmini::Value a, b;
      REQUIRE(jsonmini::Reader(plain.out).parse(a));
      REQUIRE(jsonmini::Reader(prof.out).parse(b));
      const jsonmini::Value &ka = kernel0(a), &kb = kernel0(b);
      CHECK(ka.get("outcome")->s == kb.get("outcome")->s);
      CHECK(!ka.get("profile"));
      if (ka.get("outcome")->s != "inconclusive") {  // where a limit stops threads, the point it stops at may differ
        CHECK(num(ka.get("stats")->get("states")) == num(kb.get("stats")->get("states")));
        CHECK(num(ka.get("stats")->get("transitions")) == num(kb.get("stats")->get("transitions")));
        if (ka.get("violation")) CHECK(ka.get("violation")->get("replay")->s == kb.get("violation")->get("replay")->s);
      }
      check_sums(kb);
      if (kb.get("outcome")->s != "inconclusive") seen.push_back(counts(*kb.get("profile")));
    }
    if (seen.size() == 2) CHECK(seen[0] == seen[1]);
  }
  // Text: the top agent lines, per agent, per barrier phase, per loop trip.
  const Run t = run(src + "/kernels/tlx_ws_gemm_hopper.bk --profile-states");
  CHECK(t.status == 0);
  for (const char* part : {"profile: ", "top agent lines", "states per agent and line:", "states per mbarrier phase:",
                           "states per loop trip", ": phase 0: "})
    CHECK_MESSAGE(t.out.find(part) != std::string::npos, part);
  // A loop's trips are counted where the agent is in it.
  jsonmini::Value j;
  REQUIRE(jsonmini::Reader(run(src + "/kernels/tlx_ws_gemm_hopper.bk --profile-states --json").out).parse(j));
  CHECK(!kernel0(j).get("profile")->get("trips")->a.empty());
  // Nothing without the option; no profile for a replay (no search).
  CHECK(run(good).out.find("profile:") == std::string::npos);
  CHECK(run(bad + " --replay v2.R.db8da9ad.0-0-1-1 --profile-states").status == 2);
}

TEST_CASE("an inconclusive search says which limit stopped it and how to raise it; --help names the default state cap") {
  const Run r = run(src + "/kernels/cutlass_tma_multicast.bk --max-states 10");
  CHECK(r.status == 3);
  CHECK(r.out.find("INCONCLUSIVE: max-states reached") != std::string::npos);
  CHECK(r.out.find("more than 10 states, the --max-states given: raise it with --max-states N") != std::string::npos);
  const Run tt = run(src + "/harnesses/bench/scale/hopper_multicast_gemm_2wg.bk --param K_TILES=64 --param TILES=4 --timeout 0.5 --threads 1");
  CHECK(tt.status == 3);
  CHECK(tt.out.find("the search ran past the --timeout of 0.5 s: raise it with --timeout S") != std::string::npos);
  jsonmini::Value j;
  REQUIRE(jsonmini::Reader(run(src + "/kernels/cutlass_tma_multicast.bk --max-states 10 --json").out).parse(j));
  REQUIRE(kernel0(j).get("inconclusive_detail"));
  CHECK(kernel0(j).get("inconclusive_detail")->s.find("--max-states") != std::string::npos);
  // The default cap, in --help and docs/cli.md.
  const Run h = run("--help");
  CHECK(h.out.find("default cap is 50000000 states") != std::string::npos);
  CHECK(slurp(src + "/docs/cli.md").find("50000000") != std::string::npos);
}

TEST_CASE("a kernel past the partial-order reduction's resources is searched without it, and the report says so") {
  // 2,148 buffer instances that two agents touch, each a resource: more
  // than the sets hold.
  const std::string k = temp_file("cli_profile_test", "wide.bk",
                                  "kernel wide\nsmem b[1024] bytes 16\nsmem c[1024] bytes 16\nsmem d[100] bytes 16\n"
                                  "mbarrier m[1] count 1\nrole w warp:\n  for i in 0 .. 1024:\n    all: write b[i], c[i]\n"
                                  "  for i in 0 .. 100:\n    all: write d[i]\n  syncwarp\n  one: arrive m[0]\n"
                                  "role r warp:\n  wait m[0] parity 0\n  for i in 0 .. 1024:\n    all: read b[i], c[i]\n"
                                  "  for i in 0 .. 100:\n    all: read d[i]\n");
  const Run r = run(k + " --max-states 2000");
  CHECK(r.status == 3);
  CHECK(r.out.find("note: the partial-order reduction is off: the kernel has ") != std::string::npos);
  CHECK(r.out.find("more than the 2048 its sets hold") != std::string::npos);
  jsonmini::Value j;
  REQUIRE(jsonmini::Reader(run(k + " --max-states 2000 --json").out).parse(j));
  REQUIRE(kernel0(j).get("notes"));
  REQUIRE(kernel0(j).get("notes")->a.size() == 1);
  CHECK(kernel0(j).get("notes")->a[0].s.find("partial-order reduction is off") != std::string::npos);
  // Asked for no reduction, or within the sets: no note.
  CHECK(run(k + " --max-states 2000 --no-reduction").out.find("note:") == std::string::npos);
  CHECK(run(src + "/kernels/cutlass_tma_multicast.bk").out.find("partial-order reduction is off") == std::string::npos);
}

// A search of millions of states (the scale suite's Hopper GEMM, which does
// not finish in minutes: docs/benchmarks.md), interrupted after a
// second: the verdict so far, with its states and the profile, exit 3.
TEST_CASE("Ctrl-C (SIGINT) stops the search and reports it inconclusive, interrupted, exit 3") {
  for (const char* threads : {"1", "2"}) {
    CAPTURE(threads);
    const std::filesystem::path dir = temp_dir("cli_profile_test");
    const std::string out = (dir / "sigint.out").string(), err = (dir / "sigint.err").string();
    const std::string kernel = src + "/harnesses/bench/scale/hopper_multicast_gemm_2wg.bk";
    std::vector<std::string> args = {bin, kernel, "--param", "K_TILES=64", "--param", "TILES=4", "--profile-states", "--threads", threads};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    // SIGINT as the default disposition, whatever the test runner's is.
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    sigset_t def;
    sigemptyset(&def);
    sigaddset(&def, SIGINT);
    posix_spawnattr_setsigdefault(&at, &def);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF);
    pid_t pid = 0;
    REQUIRE(posix_spawn(&pid, bin.c_str(), &fa, &at, argv.data(), environ) == 0);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    std::this_thread::sleep_for(std::chrono::milliseconds(1000));
    kill(pid, SIGINT);
    int st = 0;
    REQUIRE(waitpid(pid, &st, 0) == pid);
    REQUIRE(WIFEXITED(st));
    CHECK(WEXITSTATUS(st) == 3);
    const std::string text = slurp(out);
    CHECK(text.find("INCONCLUSIVE: interrupted (") != std::string::npos);
    CHECK(text.find("interrupted (SIGINT) after ") != std::string::npos);
    const std::size_t at_states = text.find(" states, ");
    REQUIRE(at_states != std::string::npos);
    CHECK(std::isdigit(static_cast<unsigned char>(text[at_states - 1])));
    CHECK(text.find("profile: ") != std::string::npos);
  }
}
