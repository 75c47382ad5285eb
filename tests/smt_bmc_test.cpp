// Cross-engine agreement (docs/checker.md, "The second engine"): the bounded
// SMT search (checker/smt/bmc.hpp), which encodes the rules it uses apart
// from step.cpp, and the explicit search give the same verdicts on generated
// kernels and on the corpus kernels in its fragment: a kernel verifies in
// one exactly when it verifies in the other, and the violation kind the
// explicit search reports is one the SMT search reaches too.
#include <doctest/doctest.h>

#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/smt/bmc.hpp"
#include "checker/smt/bmc_fragment.hpp"
#include "tests/corpus_files.hpp"
#include "tests/corpus_searches.hpp"
#include "tests/kernel_generators.hpp"
#include "tests/op_samples.hpp"
#include "tests/tier.hpp"

using namespace pc;

namespace {

struct Agreement {
  bool covered = false;
  bool bounded = false;  // the SMT search stopped at its depth: only its runs compared
  bool beyond = false;   // bounded, and the explicit search's violation needs more steps than it took
  bool capped = false;   // the explicit search stopped at the cap it was given: nothing compared
  bool agree = true;
  std::string why;  // a disagreement, in words
  check::Verdict explicit_verdict = check::Verdict::verified;
  spec::Violation explicit_kind = spec::Violation::none;
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

// The explicit searches of a kernel: check::check, or the corpus's shared
// searches (tests/corpus_searches.hpp).
using Explicit = std::function<check::Result(const check::Options&)>;

// `cap`: the explicit search stops after this many states (0: none), and a
// kernel it does not finish within them is not compared.
Agreement compare(const ir::Kernel& k, int max_depth = 0, std::uint64_t budget = 0, std::uint64_t cap = 0,
                  const Explicit& search = {}) {
  const Explicit run = search ? search : Explicit([&k](const check::Options& o) { return check::check(k, o); });
  Agreement a;
  smt::BmcOptions opt;
  opt.max_depth = max_depth;
  opt.budget = budget;
  const smt::BmcResult any = smt::bounded_search(k, opt);
  if (any.verdict == smt::BmcResult::Verdict::not_covered) {
    a.why = any.reason;
    return a;
  }
  a.covered = true;
  check::Options first;
  first.threads = 1;
  if (cap > 0) first.max_states = cap;
  const check::Result e = run(first);
  a.explicit_verdict = e.verdict;
  a.explicit_kind = e.violation;
  if (e.verdict == check::Verdict::inconclusive && cap > 0 && e.inconclusive_reason == "max-states") {
    a.capped = true;
    a.why = "the explicit search stopped after " + std::to_string(cap) + " states";
    return a;
  }
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
    // The explicit search without reductions finds a shortest run to its
    // violation, one transition per step; the SMT search takes no more
    // steps for the same run (a commit or a wgmma_fence is no step there).
    // Within the depth the SMT search reached, it must find it too.
    a.bounded = true;
    if (e_bad) {
      check::Options plain;
      plain.threads = 1;
      plain.reduction = false;
      // Under the sanitizers it stops after tier::corpus_cap() states:
      // then nothing more is compared.
      if (tier::corpus_cap() > 0) plain.max_states = tier::corpus_cap();
      const check::Result shortest = run(plain);
      const std::size_t steps = shortest.trace.size();
      if (shortest.verdict == check::Verdict::inconclusive) {
        a.beyond = true;
        a.why = "its search without reductions stopped at its limit";
      } else if (shortest.verdict != check::Verdict::violation || steps <= static_cast<std::size_t>(any.depth)) {
        a.agree = false;
        a.why = "the explicit search finds " + std::string(spec::violation_name(e.violation)) + " (" +
                std::to_string(steps) + " steps without reductions), the SMT search none in " + std::to_string(any.depth) +
                " steps";
      } else {
        a.beyond = true;
        a.why = std::string(spec::violation_name(e.violation)) + " after " + std::to_string(steps) + " steps";
      }
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
    only.max_depth = max_depth;
    only.budget = budget;
    const smt::BmcResult same = smt::bounded_search(k, only);
    if (same.verdict != smt::BmcResult::Verdict::violation) {
      a.agree = false;
      a.why = std::string("explicit: ") + std::string(spec::violation_name(e.violation)) + " (" + e.message +
              "); the SMT search reaches " + std::string(spec::violation_name(any.kind)) + " but not that kind";
    }
  }
  return a;
}

// What the comparisons of one generator's kernels found.
struct Tally {
  int verified = 0, violations = 0, unreduced = 0, declined = 0;
  std::map<std::string, int> kinds;  // the explicit search's verdicts
  [[nodiscard]] std::string text() const {
    std::string t = std::to_string(verified) + " verified and " + std::to_string(violations) + " violations, both engines (" +
                    std::to_string(declined) + " not covered: a part of a group's arrival):";
    for (const auto& [kind, n] : kinds) t += " " + kind + " " + std::to_string(n);
    return t;
  }
};

// Compares the engines on one generated kernel; on one in five, also the
// SMT search's peephole reduction against the search without it.
void compare_generated(const std::string& text, Tally& t) {
  const dsl::Parsed p = dsl::parse(text, "gen.bk");
  REQUIRE_MESSAGE(p.ok(), text);
  const Agreement a = compare(p.kernel);
  CAPTURE(text);
  CAPTURE(a.why);
  // A multi-warp agent's arrival that may complete a phase or a named
  // barrier's instance with part of its warps is outside the fragment
  // (docs/checker.md): the per-thread arrivals test compares it with the
  // per-warp reference instead.
  if (!a.covered && a.why.find("with part of its threads") != std::string::npos) {
    ++t.declined;
    return;
  }
  REQUIRE(a.covered);
  CHECK(a.agree);
  const bool verified = a.explicit_verdict == check::Verdict::verified;
  (verified ? t.verified : t.violations) += 1;
  t.kinds[verified ? "verified" : std::string(spec::violation_name(a.explicit_kind))] += 1;
  if ((t.verified + t.violations) % 5 != 1) return;
  // The search without the reduction within a budget of Z3's resources (the
  // same on every machine): a cluster kernel with a start and an end
  // barrier and three agents took it 300 s (the reduced search 31 s); one
  // that runs out of it is not compared.
  smt::BmcOptions plain_opt;
  plain_opt.reduction = false;
  plain_opt.budget = 10'000'000;
  const smt::BmcResult plain = smt::bounded_search(p.kernel, plain_opt);
  if (plain.verdict == smt::BmcResult::Verdict::bounded) return;
  const smt::BmcResult reduced = smt::bounded_search(p.kernel);
  CHECK(reduced.verdict == plain.verdict);
  if (plain.verdict == smt::BmcResult::Verdict::violation) {
    smt::BmcOptions kind;
    kind.only = plain.kind;
    CHECK(smt::bounded_search(p.kernel, kind).verdict == smt::BmcResult::Verdict::violation);
  }
  ++t.unreduced;
}

// Compares the engines on `count` kernels of a generator that takes a
// change (0: none), each change in turn (i % 9): a sample of one kernel in
// tier::sample().stride (prime to 9) still has them all.
template <class Generator>
Tally compare_changes(unsigned seed, int count, Generator generate) {
  std::mt19937 rng(seed);
  Tally t;
  for (int i = 0; i < count; ++i) {
    const std::string text = generate(rng, i % 9);
    if (!tier::sample().take(i)) continue;
    compare_generated(text, t);
  }
  MESSAGE(t.text());
  return t;
}

}  // namespace

TEST_CASE("engines agree: the bounded SMT search and the explicit search on generated kernels") {
  std::mt19937 rng(20261126);
  Tally t;
  for (int i = 0; i < 600; ++i) {
    const std::string text = i % 4 == 0   ? testgen::fragment_kernel(rng)
                             : i % 4 == 1 ? testgen::fragment_ring(rng)
                             : i % 4 == 2 ? testgen::fragment_init(rng)
                                          : testgen::fragment_amd(rng);
    // A sample of the rounds (tests/tier.hpp), each with every generator.
    if (!tier::sample().take(i / 4)) continue;
    compare_generated(text, t);
  }
  MESSAGE(t.text());
  CHECK(t.unreduced >= tier::sample().scaled(60));
  CHECK(t.verified >= tier::sample().scaled(20));
  CHECK(t.violations >= tier::sample().scaled(60));
}

TEST_CASE("engines agree: the bounded SMT search and the explicit search on generated clusters") {
  std::mt19937 rng(20261127);
  Tally t;
  for (int i = 0; i < 120; ++i) {
    const std::string text = i % 2 == 0 ? testgen::fragment_cluster(rng) : testgen::fragment_cluster_handoff(rng);
    if (!tier::sample().take(i / 2)) continue;
    compare_generated(text, t);
  }
  MESSAGE(t.text());
  CHECK(t.unreduced >= tier::sample().scaled(12));
  CHECK(t.verified >= tier::sample().scaled(20));
  CHECK(t.violations >= tier::sample().scaled(40));
}

// Issue 61, one stance per edge: chains of handoffs across the CTAs with a
// .cta release into another CTA somewhere (hb::Event::released_weak, the
// encoder's relw and visw).
TEST_CASE("engines agree: the bounded SMT search and the explicit search on chains across CTAs") {
  std::mt19937 rng(20261202);
  Tally t;
  for (int i = 0; i < 80; ++i) {
    const std::string text = testgen::fragment_scope_chain(rng);
    if (!tier::sample().take(i)) continue;
    compare_generated(text, t);
  }
  MESSAGE(t.text());
  CHECK(t.verified >= tier::sample().scaled(40));
  CHECK(t.kinds["scope_race"] >= tier::sample().scaled(8));
}

TEST_CASE("engines agree: the bounded SMT search and the explicit search on generated cp.async handoffs") {
  Tally t = compare_changes(20261128, 60, testgen::fragment_cp_async);
  CHECK(t.verified >= tier::sample().scaled(12));
  CHECK(t.violations >= tier::sample().scaled(40));
  CHECK(t.kinds["data_race"] >= tier::sample().scaled(40));
  CHECK(t.kinds["exit_with_pending"] >= tier::sample().scaled(2));
}

TEST_CASE("engines agree: the bounded SMT search and the explicit search on mbarriers laid over memory") {
  Tally t = compare_changes(20261129, 48, testgen::fragment_overlay);
  CHECK(t.verified >= tier::sample().scaled(10));
  CHECK(t.kinds["barrier_memory_reuse"] >= tier::sample().scaled(8));
  CHECK(t.kinds["data_race"] >= tier::sample().scaled(8));
}

TEST_CASE("engines agree: the bounded SMT search and the explicit search on generated tcgen05 pipelines") {
  Tally t = compare_changes(20261130, 36, testgen::fragment_tcgen05);
  // The pair's kernels (one shape in four) have no cluster barrier first:
  // peer_not_started in both engines (testgen::fragment_tcgen05), where five
  // of them verified until the CTA-start rule (issue 61).
  CHECK(t.verified >= tier::sample().scaled(8));
  CHECK(t.kinds["peer_not_started"] >= tier::sample().scaled(4));
  CHECK(t.violations >= tier::sample().scaled(20));
  CHECK(t.kinds["data_race"] >= tier::sample().scaled(10));
  CHECK(t.kinds["deadlock"] >= tier::sample().scaled(8));
  CHECK(t.kinds["proxy_race"] >= tier::sample().scaled(3));
}

TEST_CASE("engines agree: the bounded SMT search and the explicit search on generated tensor memory") {
  Tally t = compare_changes(20261201, 45, testgen::fragment_tmem);
  CHECK(t.verified >= tier::sample().scaled(5));
  CHECK(t.kinds["tmem_misuse"] >= tier::sample().scaled(10));
  CHECK(t.kinds["tmem_unallocated"] >= tier::sample().scaled(4));
  // Mutations 2 and 6 (no wait before the dealloc, none for the load): the
  // search reports the first violation of its shortest path, and where the
  // dealloc can come before the MMA is issued that is tmem_unallocated (the
  // MMA into freed memory); the full tier finds tmem_dealloc_in_use in 5 of
  // its 45 kernels (the floor of 8 failed there since 55a0d45 or earlier).
  CHECK(t.kinds["tmem_dealloc_in_use"] >= tier::sample().scaled(4));
  CHECK(t.kinds["tmem_not_deallocated"] >= tier::sample().scaled(4));
  CHECK(t.kinds["deadlock"] >= tier::sample().scaled(4));
}

TEST_CASE("engines agree: the bounded SMT search and the explicit search on generated cluster launch control") {
  Tally t = compare_changes(20261202, 36, testgen::fragment_clc);
  CHECK(t.verified >= tier::sample().scaled(16));
  CHECK(t.kinds["data_race"] >= tier::sample().scaled(4));
  CHECK(t.kinds["deadlock"] >= tier::sample().scaled(8));
  CHECK(t.kinds["clc_misuse"] >= tier::sample().scaled(2));
  CHECK(t.kinds["exit_with_pending"] >= tier::sample().scaled(2));
}

// The corpus's kernels are larger than the generated ones, and the SMT
// search's cost grows about twofold per step on a kernel of four warps: it
// takes runs of up to this many steps, within this budget of Z3 resources
// per depth (BmcOptions::budget, the same on every machine; about 2 s here).
// A kernel whose file has `# engines size: NAME=VALUE ...` lines is compared
// at those sizes instead of its defaults: fewer warps, where the budget
// would otherwise end the search before its bug. Where the explicit search's
// violation takes more steps than the SMT search reached (the attention
// kernels' races come after a hundred), the kernel is compared in the runs
// the SMT search took and listed. The explicit searches are the corpus's
// shared ones (tests/corpus_searches.hpp). The full tier compares every
// kernel in the fragment, the CI tier a sample of them that rotates with
// the commit (tests/tier.hpp). Under the sanitizers, which look for memory
// errors rather than verdicts, the budget is a fifth, and the explicit
// search stops after tier::corpus_cap() states (a kernel it does not finish
// is listed, not compared): the plain run compares each kernel to the end
// of its search and as far as the full budget goes.
constexpr int corpus_depth = 26;
#ifdef PC_SANITIZED
constexpr std::uint64_t corpus_budget = 1'000'000;
#else
constexpr std::uint64_t corpus_budget = 5'000'000;
#endif

// The corpus kernels (each at its engines sizes) in the SMT search's
// fragment on 2026-12-02: a change that narrows the fragment fails here
// (refusing clusters, for one, leaves 69).
constexpr int corpus_in_fragment = 90;

TEST_CASE("corpus: the two engines agree on the kernels in the fragment") {
  int in_fragment = 0, compared = 0;
  std::string outside, bounded, capped;
  for (const std::string& file : corpus_files()) {
    std::vector<ParamValues> sizes = corpus_sizes(file, "# engines size:");
    if (sizes.empty()) sizes.emplace_back();  // its defaults
    for (const ParamValues& size : sizes) {
      const corpus::Kernel& k = corpus::kernel(file, size);
      CAPTURE(file);
      CAPTURE(k.at);
      REQUIRE_MESSAGE(k.parsed.ok(), "the corpus test reports it");
      const std::string name = file.substr(file.find("kernels/")) + " at " + k.at;
      const smt::bmc::Fragment f = smt::bmc::unroll(k.ir());
      if (!f.refused.empty()) {
        outside += "\n  " + name + ": " + f.refused;
        continue;
      }
      if (!tier::sample().take(in_fragment++)) continue;
      const Agreement a = compare(k.ir(), corpus_depth, corpus_budget, tier::corpus_cap(),
                                  [&k](const check::Options& o) { return corpus::search(k, o); });
      CAPTURE(a.why);
      REQUIRE(a.covered);  // the fragment, as above
      if (a.capped) {
        REQUIRE(tier::corpus_cap() > 0);  // a cap (sanitized build) is the only reason to stop
        capped += "\n  " + name;
        continue;
      }
      ++compared;
      CHECK(a.agree);
      if (a.bounded) bounded += "\n  " + name + (a.beyond ? " (the explicit search: " + a.why + ")" : "");
    }
  }
  MESSAGE(in_fragment << " corpus kernels in the fragment, " << compared << " compared (" << tier::sample_text()
                      << "); runs of up to " << corpus_depth << " steps, or as far as the budget went, only:" << bounded
                      << "\nnot covered:" << outside << "\nthe explicit search capped (sanitized build):" << capped);
  CHECK(in_fragment >= corpus_in_fragment);
  // Every kernel of the sample is compared, but where a cap stops the
  // explicit search (sanitized build).
  if (tier::corpus_cap() == 0) CHECK(compared >= in_fragment / tier::sample().stride);
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
  // Generic writes, a barrier, another warp's TMA load over them with no
  // proxy fence: a warning in the explicit search (cross_proxy_waw), which
  // the SMT search does not raise; with the writer's barrier left out, both
  // find the writes' race.
  const std::string waw = "kernel v\nsmem tile[1] bytes 4096\nmbarrier full[1] count 1\nrole w warp:\n  all: write tile[0]\n"
                          "  syncthreads\nrole l warp:\n  syncthreads\n  one: arrive_expect_tx full[0] bytes 4096\n"
                          "  one: tma_load tile[0] -> full[0]\n  wait full[0] parity 0\n";
  const dsl::Parsed over = dsl::parse(waw, "t.bk");
  REQUIRE(over.ok());
  CHECK(smt::bounded_search(over.kernel).verdict == smt::BmcResult::Verdict::verified);
  const check::Result ow = check::check(over.kernel, check::Options{});
  CHECK(ow.verdict == check::Verdict::verified);
  REQUIRE(ow.warnings.size() == 1);
  CHECK(ow.warnings[0].kind == spec::Violation::cross_proxy_waw);
  std::string unordered = waw;
  for (const std::string cut : {"  all: write tile[0]\n  syncthreads\n", "  syncthreads\n  one: arrive"}) {
    const std::size_t at = unordered.find(cut);
    REQUIRE(at != std::string::npos);
    unordered.replace(at, cut.size(), cut.substr(0, cut.find('\n') + 1) == "  syncthreads\n" ? "  one: arrive" : "  all: write tile[0]\n");
  }
  const dsl::Parsed racy = dsl::parse(unordered, "t.bk");
  REQUIRE(racy.ok());
  CHECK(smt::bounded_search(racy.kernel).kind == spec::Violation::data_race);
  CHECK(check::check(racy.kernel, check::Options{}).violation == spec::Violation::data_race);
  // What it does not cover is named, with the line.
  const dsl::Parsed fence = dsl::parse("kernel t\nmbarrier m[1] count 1\nrole p warp:\n  fence_acq_rel cta\n", "t.bk");
  REQUIRE(fence.ok());
  const smt::BmcResult n = smt::bounded_search(fence.kernel);
  CHECK(n.verdict == smt::BmcResult::Verdict::not_covered);
  CHECK(n.reason.find("line 4") != std::string::npos);
}

TEST_CASE("cluster barrier: an agent that arrives and exits with no wait leaves the instance waiting for the others") {
  // spec::cluster::exited_counted: a arrives and exits; b passes only once
  // c has arrived, after its write. Until issue 61 a's exit completed the
  // instance while c had not arrived (its arrival was counted, its threads
  // no longer expected): b read before c's write, a data_race that the
  // hardware cannot produce.
  const std::string head = "kernel t\ncluster 2\nsmem d bytes 64\nrole a warp on cta 0:\n  cluster_arrive\n"
                           "role b warp on cta 0:\n  cluster_sync\n  one: read d\nrole c warp on cta 0:\n";
  for (const bool late : {false, true}) {
    const dsl::Parsed p = dsl::parse(head + (late ? "  cluster_sync\n  one: write d\n" : "  one: write d\n  cluster_sync\n"), "t.bk");
    REQUIRE(p.ok());
    const Agreement a = compare(p.kernel);
    CAPTURE(late);
    CAPTURE(a.why);
    REQUIRE(a.covered);
    CHECK(a.agree);
    CHECK(a.explicit_kind == (late ? spec::Violation::data_race : spec::Violation::none));
    check::Options plain;
    plain.reduction = false;
    CHECK(check::check(p.kernel, plain).violation == a.explicit_kind);
  }
}

TEST_CASE("fragment: the bounded check refuses exactly the operations the op table marks no_bmc") {
  // One statement of each op, in a kernel of its target: refused by name
  // exactly where the table's column says so (checker/ops.hpp, opf::no_bmc).
  int refused = 0;
  for (const ir::OpCode c : op_samples::all_ops()) {
    const std::string kw(ir::op_keyword(c));
    CAPTURE(kw);
    const ir::OpTarget t = ir::op_target(c);
    const std::string target = t == ir::OpTarget::both || t == ir::OpTarget::nvidia ? "nvidia"
                               : t == ir::OpTarget::amd_gfx12                       ? "amd gfx1200"
                                                                                    : "amd gfx942";
    const dsl::Parsed p = dsl::parse(op_samples::kernel_with(target, op_samples::sample(c)), "t.bk");
    REQUIRE(p.ok());
    const smt::bmc::Fragment f = smt::bmc::unroll(p.kernel);
    CAPTURE(f.refused);
    // The tensor-map operations' samples name a `tensormap`, which the
    // bounded engine refuses as a declaration (global memory) before it
    // reaches an operation; the table marks them no_bmc all the same (a
    // release fence needs no map).
    if (c == ir::OpCode::fence_proxy_tensormap || c == ir::OpCode::tensormap_cp_fenceproxy) {
      CHECK(f.refused.find("'tensormap'") != std::string::npos);
      CHECK(ir::op_has(c, ir::opf::no_bmc));
      ++refused;
      continue;
    }
    const bool by_name = f.refused.find("operation '" + kw + "'") != std::string::npos;
    CHECK(by_name == ir::op_has(c, ir::opf::no_bmc));
    // An op the check unrolls is refused for nothing in its sample but
    // (test_wait and the like) a result kept in a variable.
    if (!ir::op_has(c, ir::opf::no_bmc) && !ir::op_has(c, ir::opf::result_required)) CHECK(f.refused.empty());
    refused += by_name;
  }
  CHECK(refused > 0);
}
