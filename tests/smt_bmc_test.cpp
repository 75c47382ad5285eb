// Cross-engine agreement (docs/checker.md, "The second engine"): the bounded
// SMT search (checker/smt/bmc.hpp), which encodes the rules it uses apart
// from step.cpp, and the explicit search give the same verdicts on generated
// kernels and on the corpus kernels in its fragment: a kernel verifies in
// one exactly when it verifies in the other, and the violation kind the
// explicit search reports is one the SMT search reaches too.
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/smt/bmc.hpp"
#include "tests/corpus_files.hpp"
#include "tests/kernel_generators.hpp"

using namespace pc;

namespace {

struct Agreement {
  bool covered = false;
  bool bounded = false;  // the SMT search stopped at its depth: only its runs compared
  bool agree = true;
  std::string why;  // a disagreement, in words
  check::Verdict explicit_verdict = check::Verdict::verified;
};

const char* name(smt::BmcResult::Verdict v) {
  switch (v) {
    case smt::BmcResult::Verdict::verified: return "verified";
    case smt::BmcResult::Verdict::violation: return "violation";
    case smt::BmcResult::Verdict::not_covered: return "not covered";
    case smt::BmcResult::Verdict::bounded: return "no violation within its depth";
  }
  return "?";
}

std::string trace_of(const smt::BmcResult& r) {
  std::string t;
  for (const std::string& line : r.trace) t += "\n  " + line;
  return t;
}

Agreement compare(const ir::Kernel& k, int max_depth = 0) {
  Agreement a;
  smt::BmcOptions opt;
  opt.max_depth = max_depth;
  const smt::BmcResult any = smt::bounded_search(k, opt);
  if (any.verdict == smt::BmcResult::Verdict::not_covered) {
    a.why = any.reason;
    return a;
  }
  a.covered = true;
  const check::Result e = check::check(k, check::Options{});
  a.explicit_verdict = e.verdict;
  if (e.verdict == check::Verdict::inconclusive) {
    a.agree = false;
    a.why = "the explicit search is inconclusive";
    return a;
  }
  const bool e_bad = e.verdict == check::Verdict::violation;
  const bool s_bad = any.verdict == smt::BmcResult::Verdict::violation;
  if (any.verdict == smt::BmcResult::Verdict::bounded) {
    // Runs of up to max_depth steps hold no violation: the explicit search
    // must not find one in them. Its traces count steps otherwise (local
    // steps merged), so a violation it finds is compared by kind only.
    a.bounded = true;
    if (e_bad) {
      a.agree = false;
      a.why = "the explicit search finds " + std::string(spec::violation_name(e.violation)) +
              ", the SMT search none within its depth";
    }
    return a;
  }
  if (e_bad != s_bad) {
    a.agree = false;
    a.why = std::string("explicit: ") + check::verdict_name(e.verdict) +
            (e_bad ? std::string(" ") + std::string(spec::violation_name(e.violation)) + " (" + e.message + ")" : "") +
            "; SMT: " + name(any.verdict) + (s_bad ? " " + std::string(spec::violation_name(any.kind)) + trace_of(any) : "");
    return a;
  }
  if (e_bad && any.kind != e.violation) {
    smt::BmcOptions only;
    only.only = e.violation;
    const smt::BmcResult same = smt::bounded_search(k, only);
    if (same.verdict != smt::BmcResult::Verdict::violation) {
      a.agree = false;
      a.why = std::string("explicit: ") + std::string(spec::violation_name(e.violation)) + " (" + e.message +
              "); the SMT search reaches " + std::string(spec::violation_name(any.kind)) + " but not that kind";
    }
  }
  return a;
}

}  // namespace

TEST_CASE("engines agree: the bounded SMT search and the explicit search on generated kernels") {
  std::mt19937 rng(20261126);
  int verified = 0, violations = 0, unreduced = 0;
  for (int i = 0; i < 300; ++i) {
    const std::string text = i % 2 == 0 ? testgen::fragment_kernel(rng) : testgen::fragment_ring(rng);
    // Under the sanitizers one pair in compared_stride (both generators).
    if ((i / 2) % testgen::compared_stride != 0) continue;
    const dsl::Parsed p = dsl::parse(text, "gen.bk");
    REQUIRE_MESSAGE(p.ok(), text);
    const Agreement a = compare(p.kernel);
    CAPTURE(text);
    CAPTURE(a.why);
    REQUIRE(a.covered);
    CHECK(a.agree);
    (a.explicit_verdict == check::Verdict::verified ? verified : violations) += 1;
    // The peephole reduction against the search without it (one kernel in 5).
    if ((verified + violations) % 5 == 1) {
      smt::BmcOptions plain_opt;
      plain_opt.reduction = false;
      const smt::BmcResult reduced = smt::bounded_search(p.kernel), plain = smt::bounded_search(p.kernel, plain_opt);
      CHECK(reduced.verdict == plain.verdict);
      if (plain.verdict == smt::BmcResult::Verdict::violation) {
        smt::BmcOptions kind;
        kind.only = plain.kind;
        CHECK(smt::bounded_search(p.kernel, kind).verdict == smt::BmcResult::Verdict::violation);
      }
      ++unreduced;
    }
  }
  CHECK(unreduced >= 60 / testgen::compared_stride);
  MESSAGE(verified << " verified and " << violations << " violations, both engines");
  CHECK(verified >= 20 / testgen::compared_stride);
  CHECK(violations >= 60 / testgen::compared_stride);
}

// The corpus's kernels are larger than the generated ones: the SMT search
// takes runs of up to this many steps, every run of all but seed003_manual
// (four warps, 44 transitions; each further step costs about twice the last).
constexpr int corpus_depth = 26;

TEST_CASE("engines agree: the corpus kernels in the fragment") {
  int covered = 0;
  std::string outside, bounded;
  for (const std::string& file : corpus_files()) {
    std::string source;
    const dsl::Parsed p = dsl::parse_file(file, source, {});
    if (!p.ok()) continue;  // the corpus test reports it
    const Agreement a = compare(p.kernel, corpus_depth);
    CAPTURE(file);
    CAPTURE(a.why);
    if (!a.covered) {
      outside += "\n  " + file.substr(file.find("kernels/")) + ": " + a.why;
      continue;
    }
    ++covered;
    CHECK(a.agree);
    if (a.bounded) bounded += "\n  " + file.substr(file.find("kernels/"));
  }
  MESSAGE(covered << " corpus kernels compared; runs of up to " << corpus_depth << " steps only:" << bounded
                  << "\nnot covered:" << outside);
  CHECK(covered >= 1);
}

TEST_CASE("engines agree: a deadlock and a race, with their steps") {
  const std::string head = "kernel t\nsmem buf[1] bytes 256\nmbarrier full[1] count 1\n";
  // The consumer waits for a phase no one completes.
  const dsl::Parsed hang = dsl::parse(head + "role p warp:\n  one: write buf[0]\nrole c warp:\n  wait full[0] parity 0\n", "t.bk");
  REQUIRE(hang.ok());
  const smt::BmcResult d = smt::bounded_search(hang.kernel);
  CHECK(d.verdict == smt::BmcResult::Verdict::violation);
  CHECK(d.kind == spec::Violation::deadlock);
  REQUIRE(!d.trace.empty());
  CHECK(d.trace.back().find("deadlock") != std::string::npos);
  // The consumer reads before the producer's arrive orders the write.
  const dsl::Parsed race = dsl::parse(
      head + "role p warp:\n  one: write buf[0]\n  one: arrive full[0]\nrole c warp:\n  one: read buf[0]\n  wait full[0] parity 0\n",
      "t.bk");
  REQUIRE(race.ok());
  const smt::BmcResult r = smt::bounded_search(race.kernel);
  CHECK(r.kind == spec::Violation::data_race);
  CHECK(r.depth == 1);  // the write, then the read
  CAPTURE(r.trace.back());
  CHECK(r.trace.back().find("c: one: read buf[0] (line 8) -> data_race") != std::string::npos);
  // With the read after the wait, both engines verify.
  const dsl::Parsed ok = dsl::parse(
      head + "role p warp:\n  one: write buf[0]\n  one: arrive full[0]\nrole c warp:\n  wait full[0] parity 0\n  one: read buf[0]\n",
      "t.bk");
  REQUIRE(ok.ok());
  CHECK(smt::bounded_search(ok.kernel).verdict == smt::BmcResult::Verdict::verified);
  CHECK(check::check(ok.kernel, check::Options{}).verdict == check::Verdict::verified);
  // What it does not cover is named, with the line.
  const dsl::Parsed init = dsl::parse("kernel t\nmbarrier m[1]\nrole p warp:\n  one: init m[0] count 1\n", "t.bk");
  REQUIRE(init.ok());
  const smt::BmcResult n = smt::bounded_search(init.kernel);
  CHECK(n.verdict == smt::BmcResult::Verdict::not_covered);
  CHECK(n.reason.find("line 2") != std::string::npos);
}
