// Replay as a user pastes it: a token carries its --param values, so the
// printed command runs as printed; a token that does not fit the kernel and
// its parameters is rejected with a message; --steps N prints the state
// after N steps of the trace.
#include <doctest/doctest.h>

#include <string>

#include "tests/cli_support.hpp"
#include "tests/json_mini.hpp"

namespace {

using namespace cli_support;

Run run(const std::string& args) { return cli_support::run("cli_replay_test", args); }

// A race only when N > 2: the arrive that orders it is left out.
const std::string kernel =
    "kernel gated\nparam N = 1 in 1..4\nsmem tile[1] bytes 16\nmbarrier full[1] count 1\n"
    "role producer warp:\n  one: write tile[0]\n  if N <= 2:\n    one: arrive full[0]\n"
    "role consumer warp:\n  wait full[0] parity 0\n  read tile[0]\n";

// The command after "replay: " in the text report.
std::string replay_command(const std::string& out) {
  const std::size_t at = out.find("  replay: check-kernel ");
  REQUIRE(at != std::string::npos);
  const std::size_t from = at + std::string("  replay: check-kernel ").size();
  return out.substr(from, out.find('\n', from) - from);
}

}  // namespace

TEST_CASE("the printed replay command carries the --param values and runs as printed") {
  const std::string file = temp_file("cli_replay_test", "gated.bk", kernel);
  CHECK(run(file).status == 0);
  const Run found = run(file + " --param N=3");
  REQUIRE(found.status == 1);
  const std::string cmd = replay_command(found.out);
  CHECK(cmd.find(".N=3") != std::string::npos);
  CHECK(cmd.find("--param") == std::string::npos);
  const Run again = run(cmd);
  CHECK(again.status == 1);
  CHECK(again.out.find("VIOLATION deadlock") != std::string::npos);
  // Given again with the same value it is the same replay; another value is a usage error.
  CHECK(run(cmd + " --param N=3").status == 1);
  const Run other = run(cmd + " --param N=4");
  CHECK(other.status == 2);
  CHECK(other.err.find("the token was made with --param N=3, not N=4") != std::string::npos);
}

TEST_CASE("a token that does not fit the kernel and its parameters is rejected with a message") {
  const std::string file = temp_file("cli_replay_test", "gated2.bk", kernel);
  const std::string cmd = replay_command(run(file + " --param N=3").out);
  const std::string token = cmd.substr(cmd.find("--replay ") + 9);
  // The token without its values: made for other parameter values.
  const std::string bare = token.substr(0, token.rfind(".N=3"));
  const Run r = run(file + " --replay " + bare);
  CHECK(r.status == 2);
  CHECK(r.err.find("the replay token does not match this kernel and its parameters") != std::string::npos);
  CHECK(r.err.find("parameters N=1") != std::string::npos);
  // Another kernel.
  CHECK(run(bad + " --replay " + token).status == 2);
  // An old token, a malformed one.
  const Run old = run(bad + " --replay v1.R.526f9178.0-0-1-1");
  CHECK(old.status == 2);
  CHECK(old.err.find("older format (v1") != std::string::npos);
  CHECK(run(bad + " --replay v2.R.526f9178.0-0-1-1.N").status == 2);
  CHECK(run(bad + " --replay v2.R.526f9178.0-0-").status == 2);
}

// A token printed by an earlier version replays on this one: the one
// docs/cli.md shows for kernels/bugs/wrong_initial_parity.bk (the kernel
// tag is taken from the initial state as a trace describes it, which the
// search's states no longer match in shape: docs/checker.md, "State
// storage").
TEST_CASE("a token printed before still replays: the one docs/cli.md shows") {
  const Run r = run(bad + " --replay v2.R.db8da9ad.0-0-1-1");
  CHECK(r.status == 1);
  CHECK(r.out.find("VIOLATION data_race") != std::string::npos);
  CHECK(r.out.find("replay: check-kernel " + bad + " --replay v2.R.db8da9ad.0-0-1-1") != std::string::npos);
}

TEST_CASE("--replay TOKEN --steps N prints each agent's line and each barrier's state after step N") {
  const Run full = run(bad);
  const std::string cmd = replay_command(full.out);
  const Run r = run(cmd + " --steps 2");
  CHECK(r.status == 1);  // the verdict of the whole schedule
  CHECK(r.out.find("trace (the first 2 of 4 steps):") != std::string::npos);
  CHECK(r.out.find("     3  consumer") == std::string::npos);
  CHECK(r.out.find("state after step 2:") != std::string::npos);
  CHECK(r.out.find("producer          at the end of its code") != std::string::npos);
  CHECK(r.out.find("consumer          line 15 (wait full[0] parity 1): ready") != std::string::npos);
  CHECK(r.out.find("full[0]           phase 0 (parity 0), pending 0 of 1, tx 4096") != std::string::npos);
  CHECK(r.out.find("in flight: TMA load into tile[0] on full[0] (4096 bytes) from producer, line 12") != std::string::npos);
  // Step 0 is the initial state: the barrier still expects its arrival.
  const Run zero = run(cmd + " --steps 0");
  CHECK(zero.out.find("full[0]           phase 0 (parity 0), pending 1 of 1, tx 0") != std::string::npos);
  // After step 3 the wait has passed: the consumer is at its read.
  CHECK(run(cmd + " --steps 3").out.find("consumer          line 16 (all: read tile[0]): ready") != std::string::npos);
  // In JSON, under "state".
  jsonmini::Value v;
  REQUIRE(jsonmini::Reader(run(cmd + " --steps 2 --json").out).parse(v));
  const jsonmini::Value* state = v.get("kernels")->a.at(0).get("state");
  REQUIRE(state);
  CHECK(state->get("step")->n == 2);
  CHECK(state->get("objects")->a.at(0).get("state")->s == "phase 0 (parity 0), pending 0 of 1, tx 4096");
  // Past the end, or without --replay: errors.
  const Run past = run(cmd + " --steps 9");
  CHECK(past.status == 2);
  CHECK(past.err.find("--steps 9: the schedule has 4 steps") != std::string::npos);
  CHECK(run(bad + " --steps 1").status == 2);
}

TEST_CASE("--steps on a schedule that ends without a violation shows its state too") {
  const std::string file = temp_file("cli_replay_test", "gated3.bk", kernel);
  const std::string cmd = replay_command(run(file + " --param N=3").out);
  // The deadlock's schedule, replayed with N=1 given: a mismatch, not a silent other run.
  CHECK(run(cmd + " --param N=1").status == 2);
  const Run r = run(cmd + " --steps 1");
  CHECK(r.out.find("state after step 1:") != std::string::npos);
}
