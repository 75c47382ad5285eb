// check-kernel options beyond the basics of cli_test.cpp: --quiet, --param
// values written as in a .bk file, the progress line, and the documentation
// of every option (--help and docs/cli.md list the same ones).
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "tests/cli_support.hpp"

namespace {

using namespace cli_support;

Run run(const std::string& args) { return cli_support::run("cli_options_test", args); }

std::string temp_file(const std::string& name, const std::string& content) {
  return cli_support::temp_file("cli_options_test", name, content);
}

// Options (words starting with "--") in a text.
std::set<std::string> options_in(const std::string& text) {
  std::set<std::string> out;
  for (std::size_t at = text.find("--"); at != std::string::npos; at = text.find("--", at + 2)) {
    std::size_t end = at + 2;
    while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '-')) ++end;
    if (end > at + 2 && std::isalpha(static_cast<unsigned char>(text[at + 2]))) out.insert(text.substr(at, end - at));
    at = end - 2;
  }
  return out;
}

}  // namespace

TEST_CASE("--quiet prints nothing on stdout; the exit status tells; input errors still on stderr") {
  const Run v = run(good + " --quiet");
  CHECK(v.status == 0);
  CHECK(v.out.empty());
  CHECK(v.err.empty());
  const Run x = run(bad + " -q");
  CHECK(x.status == 1);
  CHECK(x.out.empty());
  const Run b = run(temp_file("q.bk", "kernel k\nrole r warp:\n  wiat\n") + " --quiet");
  CHECK(b.status == 2);
  CHECK(b.out.empty());
  CHECK(b.err.find("q.bk:3:3: error: unknown operation 'wiat' (did you mean 'wait'?)") != std::string::npos);
  CHECK(run(good + " --quiet --progress").status == 2);
  CHECK(run(good + " " + bad + " --quiet --check-expect").status == 0);
}

TEST_CASE("text output: verdict line with states, time and the expectation; errors on stderr") {
  const Run v = run(good);
  CHECK(v.out.find("tlx_pingpong: VERIFIED (") != std::string::npos);
  CHECK(v.out.find(" states, ") != std::string::npos);
  CHECK(v.out.find("[as expected]") != std::string::npos);
  const Run m = run(temp_file("mismatch.bk", "# expect: deadlock\nkernel k\nrole r warp:\n  syncwarp\n") + " --check-expect");
  CHECK(m.status == 1);
  CHECK(m.out.find("[EXPECTED deadlock]") != std::string::npos);
  CHECK(m.out.find("expectation not met") != std::string::npos);
  const Run e = run(temp_file("err.bk", "kernel k\n"));
  CHECK(e.status == 2);
  CHECK(e.out.empty());
  CHECK(e.err.find("err.bk:1:1: error: kernel 'k' has no role") != std::string::npos);
}

TEST_CASE("--param takes values as a .bk file writes them, and they change the kernel") {
  const std::string k = temp_file("p.bk",
                                  "kernel p\nparam N = 2 in 1..16\nmbarrier b[N] count 1\n"
                                  "role r warp:\n  for i in 0 .. N:\n    one: arrive b[i]\n  assert N != 0x10\n");
  CHECK(run(k).status == 0);
  CHECK(run(k + " --param N=3").status == 0);
  CHECK(run(k + " --param N=0x3").status == 0);
  CHECK(run(k + " --param N=16").status == 1);  // the assert: 16 == 0x10
  CHECK(run(k + " --param N=0x10").status == 1);
  CHECK(run(k + " --param N=17").status == 2);  // outside 1..16
  const Run big = run(k + " --param N=4611686018427387905");
  CHECK(big.status == 2);
  CHECK(big.err.find("at most 2^62") != std::string::npos);
  CHECK(run(k + " --param N=1.5").status == 2);
  CHECK(run(k + " --param N=").status == 2);
  CHECK(run(k + " --param").status == 2);
  const Run unknown = run(k + " --param M=2");
  CHECK(unknown.status == 2);
  CHECK(unknown.err.find("no such parameter (did you mean 'N'?)") != std::string::npos);
}

TEST_CASE("bad input is the worst exit status over several files") {
  const std::string broken = temp_file("broken.bk", "kernel k\nrole r warp:\n  wait\n");
  const std::string slow = src + "/kernels/cutlass_tma_multicast.bk --max-states 10";
  CHECK(run(bad + " " + slow).status == 3);
  CHECK(run(broken + " " + slow).status == 2);
  CHECK(run(good + " " + broken + " " + bad).status == 2);
}

TEST_CASE("--help and docs/cli.md describe the same options, exit codes and progress line") {
  const Run h = run("--help");
  REQUIRE(h.status == 0);
  std::ifstream in(src + "/docs/cli.md");
  std::stringstream s;
  s << in.rdbuf();
  const std::string doc = s.str();
  const std::set<std::string> in_help = options_in(h.out), in_doc = options_in(doc);
  CHECK(in_help.size() >= 15);
  for (const std::string& o : in_help) CHECK_MESSAGE(in_doc.count(o), (o + " is in --help but not in docs/cli.md"));
  for (const std::string& o : in_doc) CHECK_MESSAGE(in_help.count(o), (o + " is in docs/cli.md but not in --help"));
  for (const char* word : {"exit status", "0 verified", "1 violation", "2 bad input", "3 inconclusive"})
    CHECK_MESSAGE(h.out.find(word) != std::string::npos, word);
  CHECK(doc.find("progress: N states") != std::string::npos);
}

// A search of millions of states (the scale suite's Hopper GEMM, which does
// not finish in minutes: docs/benchmarks.md), stopped by --timeout
// after the first progress line: one thread and two print the same line,
// whole lines only (two threads never write one at once), and the search
// ends inconclusive on the limit, exit 3.
TEST_CASE("--progress prints whole progress lines every 3 seconds, on one thread and on several") {
  const std::string big = src + "/harnesses/bench/scale/hopper_multicast_gemm_2wg.bk --param K_TILES=64 --param TILES=4";
  for (const char* threads : {"1", "2"}) {
    CAPTURE(threads);
    const Run r = run(big + " --progress --timeout 4.5 --threads " + threads);
    CHECK(r.status == 3);
    CHECK(r.out.find("INCONCLUSIVE") != std::string::npos);
    CHECK(r.out.find("timeout") != std::string::npos);
    std::istringstream lines(r.err);
    int progress = 0;
    for (std::string line; std::getline(lines, line);) {
      unsigned long long states = 0, rate = 0, depth = 0, queue = 0;
      double mib = 0;
      char end = 0;
      CHECK_MESSAGE(std::sscanf(line.c_str(), "progress: %llu states, %llu states/s, depth %llu, queue %llu, memory %lf MiB%c",
                                &states, &rate, &depth, &queue, &mib, &end) == 5,
                    line);
      CHECK(states > 0);
      CHECK(depth > 0);
      CHECK(mib > 1);
      ++progress;
    }
    CHECK(progress == 1);
  }
}
