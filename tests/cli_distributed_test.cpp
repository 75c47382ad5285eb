// check-kernel --distributed under mpirun gives the result of one process:
// the same outcome, states, transitions, depth, violation, replay token,
// warnings and coverage, over corpus kernels and generated kernels, at 2
// ranks and at 4 (oversubscribed on a machine of fewer cores); a limit on
// any rank stops every rank (exit 3), memory is summed over the ranks, and
// the options it excludes are usage errors. Ranks of several threads
// (--threads) give the same result too. The CI tier compares the corpus's
// top folder, bugs/ and field/ at 2 ranks, the first two at 4 and at 2
// ranks of 2 threads, and a sample of the generated kernels; the full tier
// adds field/ at 4 and at 2x2, every generated kernel, the search without
// reductions (at 3 ranks), with --strict, and a scale-suite kernel.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "checker/dsl/parser.hpp"
#include "tests/cli_support.hpp"
#include "tests/json_mini.hpp"
#include "tests/kernel_generators.hpp"
#include "tests/tier.hpp"

using namespace cli_support;

namespace {

// mpirun as any user (a container's root included), with ranks beyond the
// machine's cores taking turns. Open MPI keeps some of its own allocations
// to the end, which the sanitized build's leak check would report.
std::string mpirun(int ranks) {
  return std::string("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ASAN_OPTIONS=detect_leaks=0 mpirun -np ") +
         std::to_string(ranks) + " --oversubscribe " + bin;
}

Run run_mpi(int ranks, const std::string& args) {
  const std::filesystem::path dir = temp_dir("distributed");
  const std::string out = (dir / "stdout").string(), err = (dir / "stderr").string();
  const int st = std::system((mpirun(ranks) + " " + args + " >" + out + " 2>" + err).c_str());
  return Run{WIFEXITED(st) ? WEXITSTATUS(st) : -1, slurp(out), slurp(err)};
}

jsonmini::Value parse_json(const std::string& text) {
  jsonmini::Value v;
  jsonmini::Reader r(text);
  REQUIRE_MESSAGE(r.parse(v), text.substr(0, 2000));
  return v;
}

// What must agree of one kernel's report: everything but the seconds and
// the memory.
std::string facts(const jsonmini::Value& k) {
  std::string s = "outcome " + jsonmini::text(k.get("outcome")) + ", exit " + jsonmini::text(k.get("exit_code"));
  if (const jsonmini::Value* st = k.get("stats"))
    s += ", states " + jsonmini::text(st->get("states")) + ", transitions " + jsonmini::text(st->get("transitions")) + ", depth " +
         jsonmini::text(st->get("depth"));
  s += ", violation " + jsonmini::text(k.get("violation")) + ", trace " + jsonmini::text(k.get("trace")) + ", warnings " +
       jsonmini::text(k.get("warnings")) + ", capped " + jsonmini::text(k.get("warnings_capped")) + ", unreached " +
       jsonmini::text(k.get("unreached")) + ", reason " + jsonmini::text(k.get("inconclusive_reason"));
  return s;
}

// The files checked by one process and by `ranks` ranks, compared; returns
// how many were compared and how many of them had a violation.
struct Tally {
  int kernels = 0, violations = 0;
};
Tally compare(const std::vector<std::string>& files, int ranks, const std::string& options = "") {
  std::string args = "--json " + options;
  for (const std::string& f : files) args += " " + f;
  // One process's result, once for each list and options.
  static std::map<std::string, Run> singles;
  auto at = singles.find(args);
  if (at == singles.end()) at = singles.emplace(args, run("distributed", args + " --threads 1")).first;
  const Run& one = at->second;
  const Run many = run_mpi(ranks, args + " --distributed");
  CAPTURE(ranks);
  CAPTURE(options);
  CAPTURE(many.err.substr(0, 3000));
  const jsonmini::Value a = parse_json(one.out), b = parse_json(many.out);
  CHECK(jsonmini::text(a.get("exit_code")) == jsonmini::text(b.get("exit_code")));
  const jsonmini::Value* ka = a.get("kernels");
  const jsonmini::Value* kb = b.get("kernels");
  REQUIRE(ka);
  REQUIRE(kb);
  REQUIRE(ka->a.size() == files.size());
  REQUIRE(kb->a.size() == files.size());
  Tally t;
  for (std::size_t i = 0; i < files.size(); ++i) {
    CAPTURE(files[i]);
    CHECK(facts(ka->a[i]) == facts(kb->a[i]));
    ++t.kernels;
    t.violations += jsonmini::text(ka->a[i].get("verdict")) == "violation";
  }
  return t;
}

std::vector<std::string> bk_files(const std::string& folder) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(src + "/" + folder))
    if (e.path().extension() == ".bk") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("distributed: the corpus gets the result of one process at 2 and 4 ranks") {
  // The sanitized build (memory errors, not verdicts: tests/tier.hpp) leaves
  // out field/, whose largest kernels take minutes under the sanitizers.
  std::vector<std::string> files = bk_files("kernels");
  for (const std::string& f : bk_files("kernels/bugs")) files.push_back(f);
  if (!pc::tier::sanitized)
    for (const std::string& f : bk_files("kernels/field")) files.push_back(f);
  Tally t = compare(files, 2);
  MESSAGE(t.kernels << " corpus kernels alike at 2 ranks, " << t.violations << " with a violation");
  CHECK(t.kernels > (pc::tier::sanitized ? 30 : 80));
  CHECK(t.violations > (pc::tier::sanitized ? 15 : 40));
  // 4 ranks, and 2 ranks of 2 threads, on the smaller kernels (the top
  // folder and bugs/); the full tier on field/ too (up to 75,000 states).
  std::vector<std::string> small = bk_files("kernels");
  for (const std::string& f : bk_files("kernels/bugs")) small.push_back(f);
  t = compare(small, 4);
  CHECK(t.kernels > 30);
  t = compare(small, 2, "--threads 2");
  CHECK(t.kernels > 30);
  if (!pc::tier::ci() && !pc::tier::sanitized) {
    compare(bk_files("kernels/field"), 4);
    compare(bk_files("kernels/field"), 2, "--threads 2");
    // Without reductions (the top folder and bugs/: field/'s largest reach
    // millions of states so), warnings as violations, and the scale suite's
    // 232,224-state FlashAttention-4 model.
    compare(small, 3, "--no-reduction");
    compare(files, 4, "--strict");
    compare({src + "/harnesses/bench/scale/fa4_sm100_fwd.bk"}, 4);
  }
}

TEST_CASE("distributed: generated kernels get the result of one process") {
  std::mt19937 rng(20261205);
  using namespace pc::testgen;
  std::vector<std::string> files;
  int drawn = 0;
  auto add = [&](const std::string& text) {
    if (!pc::dsl::parse(text, "gen.bk").ok()) return;
    if (!pc::tier::sample().take(drawn++)) return;
    files.push_back(temp_file("distributed", "gen" + std::to_string(files.size()) + ".bk", text));
  };
  for (int i = 0; i < 80; ++i) add(random_kernel(rng));
  for (int i = 0; i < 80; ++i) add(cluster_kernel(rng));
  for (int i = 0; i < 80; ++i) add(misc_kernel(rng));
  for (int i = 0; i < 80; ++i) add(async_pipeline(rng));
  for (int i = 0; i < 40; ++i) add(tmem_kernel(rng));
  for (int i = 0; i < 40; ++i) add(clc_kernel(rng));
  for (int i = 0; i < 40; ++i) add(warp_kernel(rng));
  for (int i = 0; i < 40; ++i) add(gated_arrivals_kernel(rng));
  for (int i = 0; i < 40; ++i) add(amd_kernel(rng));
  REQUIRE(!files.empty());
  const Tally two = compare(files, 2);
  const Tally four = compare(files, 4);
  CHECK(two.kernels == four.kernels);
  // Threads inside the ranks: the full tier (the CI tier has 2 ranks of 2
  // threads on the corpus).
  if (!pc::tier::ci()) {
    const Tally threads = compare(files, 2, "--threads 3");
    CHECK(two.kernels == threads.kernels);
  }
  MESSAGE(two.kernels << " generated kernels alike with one process and 2 and 4 ranks"
                      << std::string(pc::tier::ci() ? "" : " and 2 ranks of 3 threads") << ", " << two.violations
                      << " with a violation; " << pc::tier::sample_text());
  CHECK(two.kernels > pc::tier::sample().scaled(400));
  CHECK(two.violations > pc::tier::sample().scaled(100));
  CHECK(two.kernels - two.violations > pc::tier::sample().scaled(40));
  if (!pc::tier::ci() && !pc::tier::sanitized) compare(files, 2, "--no-reduction");
}

TEST_CASE("distributed: a violation's trace replays on one process") {
  const std::string bug = src + "/kernels/field/fa3_fwd_hdim64_3wg_bug_no_barrier_o.bk";
  const Run many = run_mpi(3, "--json --distributed " + bug);
  CHECK(many.status == 1);
  const jsonmini::Value v = parse_json(many.out);
  const jsonmini::Value& k = v.get("kernels")->a.at(0);
  const std::string token = jsonmini::text(k.get("violation")->get("replay"));
  REQUIRE(token.rfind("v2.", 0) == 0);
  const Run again = run("distributed", bug + " --replay " + token + " --json");
  CHECK(again.status == 1);
  const jsonmini::Value r = parse_json(again.out);
  CHECK(jsonmini::text(r.get("kernels")->a.at(0).get("outcome")) == "data_race");
}

TEST_CASE("distributed: limits stop every rank, memory is summed") {
  const std::string big = src + "/kernels/field/quack_rmsnorm_bwd_stas_dsmem.bk";
  const Run stopped = run_mpi(2, "--json --distributed --max-states 2000 " + big);
  CHECK(stopped.status == 3);
  const jsonmini::Value v = parse_json(stopped.out);
  const jsonmini::Value& k = v.get("kernels")->a.at(0);
  CHECK(jsonmini::text(k.get("inconclusive_reason")) == "max-states");
  CHECK(k.get("stats")->get("states")->n > 2000);
  CHECK(k.get("stats")->get("states")->n < 74631);
  // Each rank holds its own process's memory: over two ranks, more than one
  // process holds on the same small kernel.
  const Run one = run("distributed", "--json --threads 1 " + good);
  const Run two = run_mpi(2, "--json --distributed " + good);
  const double m1 = parse_json(one.out).get("kernels")->a.at(0).get("stats")->get("memory_bytes")->n;
  const double m2 = parse_json(two.out).get("kernels")->a.at(0).get("stats")->get("memory_bytes")->n;
  CHECK(m2 > 1.5 * m1);
}

TEST_CASE("distributed: what it excludes, and bad input, as one process says it") {
  for (const char* opt : {"--sweep", "--symbolic", "--profile-states", "--replay v2.R.0.0"}) {
    CAPTURE(opt);
    const Run r = run("distributed", std::string("--distributed ") + opt + " " + good);
    CHECK(r.status == 2);
    CHECK(r.err.find("--distributed") != std::string::npos);
  }
  const std::string broken = temp_file("distributed", "broken.bk", "kernel broken\nrole a warp:\n  wait nothing[0] parity 0\n");
  const Run one = run("distributed", broken);
  const Run many = run_mpi(2, "--distributed " + broken);
  CHECK(one.status == 2);
  CHECK(many.status == 2);
  // Rank 0 alone prints: the message once.
  CHECK(many.err.find(one.err) != std::string::npos);
  CHECK(many.err.find(one.err, many.err.find(one.err) + 1) == std::string::npos);
}
