// check-kernel on .ptx files as a user runs it (docs/ptx.md): exit codes,
// JSON, the source line of a trace step, a replay that repeats the launch
// options, and usage errors for options that do not go with the file.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tests/cli_support.hpp"
#include "tests/ptx_text.hpp"

using namespace cli_support;

namespace {

const std::string test = "cli_ptx";

// The handoff of ptx_text.hpp with its .reqntid taken out (the block then
// comes from --block) and `.loc` lines pointing into a source file.
std::string with_lines(const std::string& ptx, const std::string& source) {
  std::string t = pc::testing::with(ptx, ".reqntid 64, 1, 1\n", "");
  t = pc::testing::with(t, "\tld.shared.f32", "\t.loc\t1 4 3\n\tld.shared.f32");
  t = pc::testing::with(t, "\tst.shared.f32", "\t.loc\t1 2 3\n\tst.shared.f32");
  return t + "\t.file\t1 \"" + source + "\"\n";
}

}  // namespace

TEST_CASE("cli ptx: verdicts, source lines, replay and usage") {
  const std::string src = temp_file(test, "handoff.cu", "// handoff\n  tile[lane] = 1.0f;  // the store\n  arrive(bar);\n  x = tile[lane];  // the load\n");
  const std::string ok = temp_file(test, "ok.ptx", with_lines(pc::testing::handoff_ptx(pc::testing::produce, pc::testing::wait), src));
  const std::string bad = temp_file(test, "bad.ptx", with_lines(pc::testing::handoff_ptx(pc::testing::produce, ""), src));

  // No block size given and none in the kernel: bad input, naming --block.
  const Run none = run(test, ok);
  CHECK(none.status == 2);
  CHECK(none.err.find("--block") != std::string::npos);

  const Run fine = run(test, ok + " --block 64 --json");
  CHECK(fine.status == 0);
  CHECK(fine.out.find("\"verified\"") != std::string::npos);

  const Run race = run(test, bad + " --block 64");
  CHECK(race.status == 1);
  CHECK(race.out.find("VIOLATION data_race") != std::string::npos);
  // The location names the PTX line and the source line, and the trace shows the source's text.
  CHECK(race.out.find("(" + src + ":4:3)") != std::string::npos);
  CHECK(race.out.find("x = tile[lane];  // the load") != std::string::npos);
  // The replay command carries the launch options and runs as printed.
  const std::size_t at = race.out.find("replay: check-kernel ");
  REQUIRE(at != std::string::npos);
  const std::string cmd = race.out.substr(at + 21, race.out.find('\n', at) - at - 21);
  CHECK(cmd.find("--block 64 --replay ") != std::string::npos);
  const Run again = run(test, cmd);
  CHECK(again.status == 1);
  CHECK(again.out.find("VIOLATION data_race") != std::string::npos);
  // With --no-reduction (a warp's runs of reads apart) and --grid, the
  // replay carries them too.
  const Run plain = run(test, bad + " --block 64 --grid 4 --no-reduction");
  CHECK(plain.status == 1);
  const std::size_t pat = plain.out.find("replay: check-kernel ");
  REQUIRE(pat != std::string::npos);
  const std::string pcmd = plain.out.substr(pat + 21, plain.out.find('\n', pat) - pat - 21);
  CHECK(pcmd.find("--grid 4") != std::string::npos);
  CHECK(pcmd.find("--no-reduction") != std::string::npos);
  CHECK(run(test, pcmd).status == 1);

  // The trace page shows the source line too.
  const std::string page = (temp_dir(test) / "trace.html").string();
  CHECK(run(test, bad + " --block 64 --trace-html " + page).status == 1);
  CHECK(slurp(page).find("x = tile[lane];  // the load") != std::string::npos);

  // Options that do not go with the file.
  CHECK(run(test, cli_support::good + " --block 64").status == 2);
  CHECK(run(test, ok + " --block 64 --sweep").status == 2);
  CHECK(run(test, ok + " --block 64 --param N=1").status == 2);
  CHECK(run(test, ok + " --block 0").status == 2);
  CHECK(run(test, ok + " --block 64 --cluster 17").status == 2);
  CHECK(run(test, ok + " --block 64 --grid 0").status == 2);
  CHECK(run(test, ok + " --block 64 --cluster 2 --grid 3").status == 2);
  CHECK(run(test, cli_support::good + " --grid 2").status == 2);
  CHECK(run(test, ok + " --block 64 --arg N").status == 2);
  CHECK(run(test, ok + " --block 64 --entry nope").status == 2);

  // A branch on a loaded value: read both ways, and a note says so, under
  // the verdict line and in the JSON's `notes`.
  const std::string past = "\tld.shared.u32 \t%r8, [%r7];\n\tsetp.eq.u32 \t%p3, %r8, 0;\n\t@%p3 bra \tDONE;\n";
  const std::string branchy = temp_file(test, "branchy.ptx", pc::testing::handoff_ptx(pc::testing::produce, pc::testing::wait + past));
  const Run noted = run(test, branchy + " --block 64");
  CHECK(noted.status == 0);
  CHECK(noted.out.find("VERIFIED") < noted.out.find("\n  note: 1 branch on a value loaded from memory read both ways"));
  CHECK(noted.out.find("line " ) != std::string::npos);
  CHECK(noted.out.find("'@%p3 bra DONE'") != std::string::npos);
  const Run noted_json = run(test, branchy + " --block 64 --json");
  CHECK(noted_json.out.find("\"notes\": [\"1 branch on a value loaded from memory") != std::string::npos);
  CHECK(fine.out.find("\"notes\": []") != std::string::npos);

  // --assume: the way of a branch on a loaded flag that skips an arrive;
  // the replay repeats it; malformed values are usage errors.
  const std::string flag = "\tld.param.u64 \t%rd1, [handoff_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n"
                           "\tld.global.u32 \t%r8, [%rd2];\n\tsetp.eq.u32 \t%p3, %r8, 0;\n"
                           "\t@%p3 bra \tSKIPA;\n\tmbarrier.arrive.release.cta.shared::cta.b64 \t_, [%r2];\nSKIPA:\n";
  const std::string arriving = pc::testing::handoff_ptx(pc::testing::produce, flag + pc::testing::wait);
  int line = 1;
  for (std::size_t i = 0; i < arriving.find("\t@%p3 bra \tSKIPA"); ++i) line += arriving[i] == '\n';
  const std::string skip = temp_file(test, "skip.ptx", arriving);
  const std::string L = std::to_string(line);
  // Without it, both ways: a choice of the warp, said in a note and in the
  // trace; the way that arrives races, and its replay replays it.
  const Run unassumed = run(test, skip);
  CHECK(unassumed.status == 1);
  CHECK(unassumed.out.find("note: 1 branch or guard on a value loaded from memory whose ways synchronize") != std::string::npos);
  CHECK(unassumed.out.find("either: takes the second way") != std::string::npos);  // the branch not taken: the arrive
  const std::size_t uat = unassumed.out.find("replay: check-kernel ");
  REQUIRE(uat != std::string::npos);
  CHECK(run(test, unassumed.out.substr(uat + 21, unassumed.out.find('\n', uat) - uat - 21)).status == 1);
  const Run held = run(test, skip + " --assume " + L + "=1");
  CHECK(held.status == 0);
  CHECK(held.out.find("note: 1 guard on a value loaded from memory taken as --assume gives") != std::string::npos);
  const Run arrives = run(test, skip + " --assume " + L + "=0");
  CHECK(arrives.status == 1);
  const std::size_t rat = arrives.out.find("replay: check-kernel ");
  REQUIRE(rat != std::string::npos);
  const std::string rcmd = arrives.out.substr(rat + 21, arrives.out.find('\n', rat) - rat - 21);
  CHECK(rcmd.find("--assume " + L + "=0") != std::string::npos);
  CHECK(run(test, rcmd).status == 1);
  for (const std::string& bad_assume : std::vector<std::string>{"5", "x=1", "5=2", "5=1,,0", "0=1", "5=", L + "=1 --assume " + L + "=0"}) {
    const Run u = run(test, skip + " --assume " + bad_assume);
    CAPTURE(bad_assume);
    CHECK(u.status == 2);
    CHECK(u.err.find("--assume") != std::string::npos);
  }
  CHECK(run(test, cli_support::good + " --assume 5=1").status == 2);

  // An instruction outside the subset: located on stderr, exit 2.
  const std::string odd = temp_file(test, "odd.ptx", pc::testing::with(pc::testing::handoff_ptx(pc::testing::produce, pc::testing::wait), "\tret;", "\tbrkpt.foo \t%r1;\n\tret;"));
  const Run e = run(test, odd);
  CHECK(e.status == 2);
  CHECK(e.err.find(odd + ":") != std::string::npos);
  CHECK(e.err.find("brkpt.foo") != std::string::npos);
}

TEST_CASE("cli ptx: --meta reads the launch from Triton's metadata") {
  const std::string src = temp_file(test, "meta.cu", "// handoff\n  tile[lane] = 1.0f;\n  arrive(bar);\n  x = tile[lane];\n");
  const std::string ok = temp_file(test, "meta_ok.ptx", with_lines(pc::testing::handoff_ptx(pc::testing::produce, pc::testing::wait), src));
  const std::string bad = temp_file(test, "meta_bad.ptx", with_lines(pc::testing::handoff_ptx(pc::testing::produce, ""), src));
  // As Triton writes it: two warps, no shared memory beyond the kernel's,
  // a cluster of one, and keys the front end does not need.
  const std::string meta = temp_file(test, "handoff.json",
                                     "{\n \"name\": \"handoff\",\n \"num_warps\": 2,\n \"num_stages\": 3,\n \"shared\": 0,\n"
                                     " \"cluster_dims\": [1, 1, 1],\n \"target\": {\"backend\": \"cuda\", \"arch\": 90, \"warp_size\": 32},\n"
                                     " \"debug\": false, \"ptx_version\": null\n}\n");
  const Run fine = run(test, ok + " --meta " + meta + " --json");
  CHECK(fine.status == 0);
  CHECK(fine.out.find("\"verified\"") != std::string::npos);
  // The replay repeats it.
  const Run race = run(test, bad + " --meta " + meta);
  CHECK(race.status == 1);
  const std::size_t at = race.out.find("replay: check-kernel ");
  REQUIRE(at != std::string::npos);
  const std::string cmd = race.out.substr(at + 21, race.out.find('\n', at) - at - 21);
  CHECK(cmd.find("--meta " + meta) != std::string::npos);
  CHECK(run(test, cmd).status == 1);
  // An option given wins: 96 threads, a third warp that neither stores nor
  // reads, still verified; a name the module lacks is the usual error.
  CHECK(run(test, ok + " --meta " + meta + " --block 96").status == 0);
  const std::string other = temp_file(test, "other.json", "{\"name\": \"nope\", \"num_warps\": 2}");
  CHECK(run(test, ok + " --meta " + other).status == 2);
  CHECK(run(test, ok + " --meta " + other + " --entry handoff").status == 0);
  // Bad metadata: bad input (exit 2), located in the JSON file.
  const std::string broken = temp_file(test, "broken.json", "{\n \"num_warps\": 2,\n \"shared\" 0\n}\n");
  const Run b = run(test, ok + " --meta " + broken);
  CHECK(b.status == 2);
  CHECK(b.err.find(broken + ":3:11:") != std::string::npos);
  const std::string wrong = temp_file(test, "wrong.json", "{\"num_warps\": \"four\"}");
  const Run w = run(test, ok + " --meta " + wrong);
  CHECK(w.status == 2);
  CHECK(w.err.find("num_warps") != std::string::npos);
  CHECK(run(test, ok + " --meta " + temp_dir(test).string() + "/absent.json").status == 2);
  CHECK(run(test, ok + " --meta").status == 2);
  CHECK(run(test, cli_support::good + " --meta " + meta).status == 2);  // a .bk file
}

TEST_CASE("cli ptx: --clc takes the clusters waiting to launch, with a .ptx file only") {
  const std::string ok = temp_file(test, "clc_ok.ptx", pc::testing::handoff_ptx(pc::testing::produce, pc::testing::wait));
  CHECK(run(test, ok + " --clc 2").status == 0);
  const Run big = run(test, ok + " --clc 256");
  CHECK(big.status == 2);
  CHECK(big.err.find("--clc needs") != std::string::npos);
  CHECK(run(test, ok + " --clc two").status == 2);
  CHECK(run(test, good + " --clc 1").status == 2);  // a .bk file declares `clc N`
}
