// The partial-order reduction between agents (checker/footprint.hpp) keeps
// verdicts: over the corpus and over generated kernels (more than 5,000,
// mixing every async completion), the search with it finds a violation
// exactly when the search without it does, and when the search with no
// reduction at all does; for a verified kernel it never stores more states.
// On the corpus, whose kernels hold one bug each, the search without it gives
// the `# expect:` outcome, which the corpus test demands of the searches with
// every reduction and with none. Every
// reduced search runs with --check-reduction: at each state it reduces, the
// steps it keeps commute with those it leaves out, or the test fails with an
// InternalError. The tier decides which generated kernels are compared
// (tests/tier.hpp, sample()).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/program.hpp"
#include "tests/corpus_files.hpp"
#include "tests/corpus_searches.hpp"
#include "tests/kernel_generators.hpp"
#include "tests/tier.hpp"

using namespace pc;
using namespace pc::testgen;

namespace {

using check::outcome_name;

check::Result run(const ir::Kernel& k, bool partial_order, bool check_reduction = true, std::uint64_t cap = 0) {
  check::Options o;
  o.partial_order = partial_order;
  o.check_reduction = partial_order && check_reduction;  // kept steps commute with those left out (InternalError if not)
  o.max_states = cap ? cap : 2'000'000;
  return check::check(k, o);
}

// Every op code that occurs in a kernel (the reduction check covers what the
// generators write).
void collect_ops(const std::vector<ir::Stmt>& body, std::set<ir::OpCode>& seen) {
  for (const ir::Stmt& st : body) {
    if (st.kind == ir::StmtKind::op) seen.insert(st.op.code);
    collect_ops(st.body, seen);
    collect_ops(st.else_body, seen);
  }
}
std::set<ir::OpCode> generated_ops;  // over every generated kernel that parsed

std::map<std::string, int> kinds;  // outcomes of the generated kernels, for the test's message

bool agree_parsed(const dsl::Parsed& p, int& violations, int& verified, int& reduced);

// The kinds may differ: each search stops at the first violation of its own
// graph, and one bug often shows as several kinds (a wrong parity: a race in
// one order, a deadlock in another); the reduced search's schedule must
// replay to the kind it reported, so that kind is real.
int drawn = 0;  // generated kernels that parsed, compared or not (tier::sample)

bool agree(const std::string& text, int& violations, int& verified, int& reduced) {
  CAPTURE(text);
  const dsl::Parsed p = dsl::parse(text, "gen.bk");
  if (!p.ok()) return false;  // e.g. a named barrier count the roles cannot fill
  for (const ir::Role& role : p.kernel.roles) collect_ops(role.body, generated_ops);
  if (!tier::sample().take(drawn++)) return true;
  // A kernel past one of the model's capacities (more async arrivals of one
  // agent in flight than its pool holds) is refused, as the CLI refuses it.
  try {
    return agree_parsed(p, violations, verified, reduced);
  } catch (const check::KernelError&) {
    return false;
  }
}

bool agree_parsed(const dsl::Parsed& p, int& violations, int& verified, int& reduced) {
  const check::Result a = run(p.kernel, true), b = run(p.kernel, false);
  check::Options none;
  none.reduction = false;
  const check::Result c = check::check(p.kernel, none);
  REQUIRE(a.verdict != check::Verdict::inconclusive);
  CHECK(a.verdict == b.verdict);
  CHECK(a.verdict == c.verdict);
  // A search for a violation stops at the first one, which the two searches
  // may reach at different depths; a complete search must store no more.
  if (a.verdict == check::Verdict::verified) CHECK(a.states <= b.states);
  // Coverage is the same under the reductions (docs/checker.md, "Coverage").
  if (a.verdict == check::Verdict::verified && c.verdict == check::Verdict::verified) {
    auto lines = [](const check::Result& r) {
      std::vector<int> out;
      for (const check::Unreached& u : r.unreached) out.push_back(u.loc.line);
      return out;
    };
    CHECK(lines(a) == lines(c));
    CHECK(lines(b) == lines(c));
  }
  if (a.verdict == check::Verdict::violation) {
    // The schedule found under the reduction is a real one: it replays.
    check::Options replay;
    replay.replay = a.replay;
    const check::Result again = check::check(p.kernel, replay);
    CHECK(outcome_name(again) == outcome_name(a));
  }
  (a.verdict == check::Verdict::violation ? violations : verified) += 1;
  ++kinds[outcome_name(b)];
  reduced += a.verdict == check::Verdict::verified && a.states < b.states;
  return true;
}

}  // namespace

// The corpus's kernels that the tier compares (tests/tier.hpp).
TEST_CASE("corpus: the partial-order reduction keeps the verdicts and violation kinds") {
  std::uint64_t without = 0, checked = 0;
  int capped = 0, compared = 0;
  for (const std::string& file : corpus_files()) {
    CAPTURE(file);
    const corpus::Kernel& k = corpus::kernel(file);
    REQUIRE(k.parsed.ok());
    if (!corpus::compared(k)) continue;
    ++compared;
    // The search with every reduction is the corpus test's: it gives the
    // `# expect:` outcome and stores no more states than the search without
    // any (corpus_test.cpp). The one without the partial-order reduction must
    // give that outcome too.
    check::Options no_por = corpus::reduced_options();
    no_por.partial_order = false;
    const check::Result& b = corpus::search(k, no_por);
    if (b.verdict != check::Verdict::inconclusive) {
      CHECK(outcome_name(b) == k.ir().expect);
    } else {
      REQUIRE(tier::corpus_cap() > 0);  // a cap (sanitized build) is the only reason to stop
      ++capped;
    }
    without += b.states;
    // --check-reduction over the first states of each kernel (breadth
    // first: every schedule up to some depth; tier::check_reduction_states);
    // all of the smaller ones.
    check::Options o = corpus::reduced_options();
    o.check_reduction = true;
    o.max_states = tier::check_reduction_states();
    const check::Result& c = corpus::search(k, o);
    checked += c.states;
    if (c.verdict != check::Verdict::inconclusive) CHECK(outcome_name(c) == k.ir().expect);
  }
  MESSAGE(compared << " corpus kernels; their states without partial-order reduction: " << without << "; " << checked
                   << " of them checked by --check-reduction; " << capped << " kernels stopped at the sanitized build's cap");
  CHECK(compared >= 40);
}

TEST_CASE("partial-order reduction: generated kernels, a violation found with it exactly when without it") {
  std::mt19937 rng(20261122);
  int violations = 0, verified = 0, reduced = 0;
  for (int i = 0; i < 400; ++i) agree(random_kernel(rng), violations, verified, reduced);
  for (int i = 0; i < 300; ++i) agree(chained_kernel(rng), violations, verified, reduced);
  int parsed = 0;
  for (int i = 0; i < 400; ++i) parsed += agree(cluster_kernel(rng), violations, verified, reduced);
  CHECK(parsed > 200);
  for (int i = 0; i < 150; ++i) CHECK(agree(pipeline_kernel(rng), violations, verified, reduced));
  int async_parsed = 0;
  for (int i = 0; i < 2600; ++i) async_parsed += agree(async_kernel(rng), violations, verified, reduced);

  for (int i = 0; i < 1200; ++i) CHECK(agree(async_pipeline(rng), violations, verified, reduced));
  int misc_parsed = 0;
  for (int i = 0; i < 800; ++i) misc_parsed += agree(misc_kernel(rng), violations, verified, reduced);
  MESSAGE(misc_parsed << " of 800 random kernels of the other operations parse");
  CHECK(misc_parsed > 500);
  for (int i = 0; i < 300; ++i) CHECK(agree(amd_kernel(rng), violations, verified, reduced));
  int tmem_parsed = 0;
  for (int i = 0; i < 400; ++i) tmem_parsed += agree(tmem_kernel(rng), violations, verified, reduced);
  CHECK(tmem_parsed > 350);
  int pair_parsed = 0;
  for (int i = 0; i < 300; ++i) pair_parsed += agree(tmem_pair_kernel(rng), violations, verified, reduced);
  CHECK(pair_parsed > 250);
  int clc_parsed = 0;
  for (int i = 0; i < 300; ++i) clc_parsed += agree(clc_kernel(rng), violations, verified, reduced);
  CHECK(clc_parsed > 250);
  int warp_parsed = 0;
  for (int i = 0; i < 300; ++i) warp_parsed += agree(warp_kernel(rng), violations, verified, reduced);
  CHECK(warp_parsed > 280);
  int wgmma_warps_parsed = 0;
  for (int i = 0; i < 200; ++i) wgmma_warps_parsed += agree(wgmma_warp_kernel(rng), violations, verified, reduced);
  CHECK(wgmma_warps_parsed > 190);
  int layout_parsed = 0;
  for (int i = 0; i < 400; ++i) layout_parsed += agree(layout_kernel(rng), violations, verified, reduced);
  CHECK(layout_parsed > 350);
  int grid_parsed = 0;
  for (int i = 0; i < 300; ++i) grid_parsed += agree(grid_kernel(rng), violations, verified, reduced);
  CHECK(grid_parsed > 250);
  int tmap_parsed = 0;
  const int tmap_verified = verified, tmap_violations = violations;
  for (int i = 0; i < 300; ++i) tmap_parsed += agree(tensormap_kernel(rng), violations, verified, reduced);
  CHECK(tmap_parsed > 250);
  MESSAGE("tensor-map kernels: " << verified - tmap_verified << " verified, " << violations - tmap_violations << " with a violation");
  CHECK(verified - tmap_verified >= tier::sample().scaled(20));  // 37 of 300 in the full tier
  CHECK(violations - tmap_violations >= tier::sample().scaled(150));
  // Arrivals from processes outside the set, bounded by their runs
  // (checker/phase_bound.hpp).
  const int gated_verified = verified, gated_violations = violations;
  for (int i = 0; i < 600; ++i) CHECK(agree(gated_arrivals_kernel(rng), violations, verified, reduced));
  MESSAGE("gated-arrival kernels: " << verified - gated_verified << " verified, " << violations - gated_violations << " with a violation");
  CHECK(verified - gated_verified >= tier::sample().scaled(150));
  CHECK(violations - gated_violations >= tier::sample().scaled(100));
  // Rounds of the cluster barrier over many agents, a role split per warp
  // among them: the reduction holds an instance that an agent of the set has
  // not arrived on (checker/phase_bound.hpp).
  const int rounds_verified = verified, rounds_violations = violations;
  int rounds_parsed = 0;
  for (int i = 0; i < 250; ++i) rounds_parsed += agree(cluster_rounds_kernel(rng), violations, verified, reduced);
  MESSAGE("cluster-round kernels: " << rounds_parsed << " of 250 parse, " << verified - rounds_verified << " verified, "
                                    << violations - rounds_violations << " with a violation");
  CHECK(rounds_parsed > 240);
  CHECK(verified - rounds_verified >= tier::sample().scaled(150));
  CHECK(violations - rounds_violations >= tier::sample().scaled(30));
  // Rounds of named barriers over many agents, a role split per warp among
  // them: the reduction counts on a slot whose instance the arrivals from
  // outside the set cannot complete (checker/phase_bound.hpp).
  const int named_verified = verified, named_violations = violations;
  int named_parsed = 0;
  for (int i = 0; i < 250; ++i) named_parsed += agree(named_rounds_kernel(rng), violations, verified, reduced);
  MESSAGE("named-round kernels: " << named_parsed << " of 250 parse, " << verified - named_verified << " verified, "
                                  << violations - named_violations << " with a violation");
  CHECK(named_parsed > 240);
  CHECK(verified - named_verified >= tier::sample().scaled(150));
  CHECK(violations - named_violations >= tier::sample().scaled(30));
  // Rings in the shape of libcu++'s cuda::barrier (wait(arrive()) by state
  // token), with epilogues of buffers each consumer writes alone: tokens
  // that hold the phase alone count (Program::token_pending), and buffers
  // only one agent touches need no resource (footprint.cpp, shared_buffers).
  const int ring_verified = verified, ring_violations = violations;
  int ring_parsed = 0;
  for (int i = 0; i < 300; ++i) ring_parsed += agree(token_ring_kernel(rng), violations, verified, reduced);
  MESSAGE("token-ring kernels: " << ring_parsed << " of 300 parse, " << verified - ring_verified << " verified, "
                                 << violations - ring_violations << " with a violation");
  CHECK(ring_parsed > 290);
  CHECK(verified - ring_verified >= tier::sample().scaled(120));  // 190 and 110 of 300 in the full tier on 2026-12-06
  CHECK(violations - ring_violations >= tier::sample().scaled(80));
  // The footprints of the reduction (checker/footprint.cpp) are checked against
  // the steps' execution by --check-reduction on these kernels: every
  // operation must occur in them, so that a footprint cannot drift unseen
  // (the full tier compares every one; the CI tier's rotating sample may
  // leave out the few kernels of a rare operation, as offset 7 of 8 left out
  // every fence_release at 9800782).
  std::string missing;
  for (int c = 0; c < ir::op_count; ++c)
    if (!generated_ops.count(static_cast<ir::OpCode>(c)))
      missing += " " + std::string(ir::op_keyword(static_cast<ir::OpCode>(c)));
  CHECK_MESSAGE(missing.empty(), "operations no generated kernel has:" << missing);
  MESSAGE(async_parsed << " of 2600 random async kernels parse");
  CHECK(async_parsed > 2000);
  std::string seen;
  for (const auto& [kind, n] : kinds) seen += " " + kind + ":" + std::to_string(n);
  MESSAGE("outcomes without the reduction:" << seen);
  MESSAGE(violations << " generated kernels with a violation, " << verified << " verified (" << reduced
                     << " of them with fewer states under the reduction)");
  MESSAGE(tier::sample_text());
  CHECK(violations > tier::sample().scaled(100));
  CHECK(verified > tier::sample().scaled(200));
  CHECK(reduced > tier::sample().scaled(100));
}

// Choices (an `either`): an agent's second way is kept with the agent, and
// a choose step, which writes only the agent's pc, is taken alone.
TEST_CASE("partial-order reduction: generated kernels with choices, a violation found with it exactly when without it") {
  std::mt19937 rng(20261206);
  int violations = 0, verified = 0, reduced = 0, parsed = 0;
  for (int i = 0; i < 400; ++i) parsed += agree(either_kernel(rng), violations, verified, reduced);
  MESSAGE("kernels with choices: " << parsed << " of 400 parse, " << verified << " verified, " << violations
                                   << " with a violation, " << reduced << " reduced");
  CHECK(parsed > 380);
  CHECK(verified >= tier::sample().scaled(40));
  CHECK(violations >= tier::sample().scaled(100));
  CHECK(reduced >= tier::sample().scaled(20));
}

TEST_CASE("partial-order reduction: a step that an async event in flight can disable is not taken alone") {
  // The consumer's first wait is enabled once phase 0 completes; if the TMA
  // load lands first, phase 1 completes too and the wait for parity 0 then
  // waits for phase 2, which never comes: a deadlock in one order only. The
  // producer's remaining code (its exit) does not touch m, so only the
  // pending event's footprint keeps the wait from being taken alone.
  const dsl::Parsed p = dsl::parse(
      "kernel pend\nsmem buf[1] bytes 256\nmbarrier m[1] count 1\n"
      "role producer warp:\n  one: arrive m[0]\n  one: arrive_expect_tx m[0] bytes 256\n  one: tma_load buf[0] -> m[0]\n"
      "role consumer warp:\n  wait m[0] parity 0\n  wait m[0] parity 1\n",
      "pend.bk");
  REQUIRE(p.ok());
  CHECK(outcome_name(run(p.kernel, true)) == "deadlock");
  CHECK(outcome_name(run(p.kernel, false)) == "deadlock");
}

TEST_CASE("partial-order reduction: an async arrival releases what was issued before it, in either order") {
  // The arrival of a cp.async.mbarrier.arrive (or tcgen05.commit) tracks the
  // operations issued before it: the later cp.async of b (tcgen05.mma read
  // of b) is not covered. Its landing used to release the unit's knowledge at
  // the time it landed, so the reduction, which let it land after the later
  // issue, verified the first kernel while the plain search found the race.
  const char* kernels[] = {
      "kernel cpa\nsmem a[1] bytes 256\nsmem b[1] bytes 256\nmbarrier full[1] count 1\nmbarrier flag[1] count 1\n"
      "role prod warp:\n  one: cp_async a[0]\n  one: cp_async_arrive full[0] noinc\n  one: cp_async b[0]\n  one: arrive flag[0]\n"
      "role cons warp:\n  wait flag[0] parity 0\n  wait full[0] parity 0\n  one: read b[0]\n",
      "kernel tc\nsmem a[1] bytes 256\nsmem b[1] bytes 256\nmbarrier full[1] count 1\nmbarrier flag[1] count 1\n"
      "role prod warp:\n  one: tcgen05_mma read a[0]\n  one: tcgen05_commit full[0]\n  one: tcgen05_mma read b[0]\n  one: arrive flag[0]\n"
      "role cons warp:\n  wait flag[0] parity 0\n  wait full[0] parity 0\n  one: write b[0]\n"};
  for (const char* text : kernels) {
    CAPTURE(text);
    const dsl::Parsed p = dsl::parse(text, "arrival.bk");
    REQUIRE(p.ok());
    check::Options none;
    none.reduction = false;
    CHECK(outcome_name(run(p.kernel, true)) == "data_race");
    CHECK(outcome_name(check::check(p.kernel, none)) == "data_race");
    // Fixed: the consumer touches only a, which the arrival covers.
    std::string fixed = text;
    const std::string tail = fixed.substr(fixed.rfind("  one: "));
    fixed.replace(fixed.rfind("  one: "), tail.size(), tail.substr(0, tail.size() - 5) + "a[0]\n");
    const dsl::Parsed q = dsl::parse(fixed, "arrival_fixed.bk");
    REQUIRE(q.ok());
    CHECK(outcome_name(run(q.kernel, true)) == "verified");
    CHECK(outcome_name(check::check(q.kernel, none)) == "verified");
  }
}

TEST_CASE("partial-order reduction: counting on a quiet barrier keeps the verdict, and reduces") {
  // docs/checker.md, "Counting on an mbarrier" and the cluster barrier: steps
  // that only add to a barrier's counts commute while nothing outside the
  // set can complete its phase. Each kernel comes in a correct form and in a
  // form whose bug shows in some orders of the counting steps only (a phase
  // completed by one landing of two; a read one cluster barrier too early).
  struct Case {
    const char* text;
    const char* bug;  // the correct form's text replaced by the buggy one
    const char* fix;
    const char* kind;
  };
  const Case cases[] = {
      {"kernel q\ncluster 2\nsmem x[1] bytes 256\n"
       "role a warp:\n  cluster_sync\n  all: write x[0]\n  cluster_sync\n"
       "role b warp:\n  cluster_sync\n  cluster_sync\n  all: read x[0]\n"
       "role c warp x2:\n  cluster_sync\n  cluster_sync\n",
       "  cluster_sync\n  all: read x[0]\n", "  cluster_sync\n  cluster_sync\n  all: read x[0]\n", "data_race"},
      {"kernel m\nsmem t[2] bytes 1024\nmbarrier full[1] count 1\n"
       "role p warp:\n  one: arrive_expect_tx full[0] bytes 2048\n  one: tma_load t[0] -> full[0]\n  one: tma_load t[1] -> full[0]\n"
       "role c warp x2:\n  wait full[0] parity 0\n  all: read t[0]\n  all: read t[1]\n",
       "bytes 1024", "bytes 2048", "data_race"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    const dsl::Parsed good = dsl::parse(c.text, "quiet.bk");
    REQUIRE(good.ok());
    std::string text = c.text;
    const std::size_t at = text.find(c.fix);
    REQUIRE(at != std::string::npos);
    text.replace(at, std::string(c.fix).size(), c.bug);
    const dsl::Parsed bad = dsl::parse(text, "quiet_bug.bk");
    REQUIRE(bad.ok());
    check::Options none;
    none.reduction = false;
    const check::Result reduced = run(good.kernel, true), plain = check::check(good.kernel, none);
    CHECK(outcome_name(reduced) == "verified");
    CHECK(outcome_name(plain) == "verified");
    const check::Result without_por = run(good.kernel, false);
    CHECK(reduced.states < without_por.states);
    MESSAGE(reduced.states << " states with the reduction, " << without_por.states << " without partial order");
    CHECK(outcome_name(run(bad.kernel, true)) == c.kind);
    CHECK(outcome_name(check::check(bad.kernel, none)) == c.kind);
  }
}

// A buffer laid over an mbarrier: the arrive on the barrier counts on it,
// and through the alias on the buffer, which is no mbarrier: the quiet-count
// test (footprint.cpp) read past the barriers' states there (found by the
// sanitized CI tier on a generated layout kernel, this one cut down).
TEST_CASE("partial-order reduction: an arrive on a barrier a buffer is laid over") {
  const std::string text =
      "kernel over\nmbarrier z[2] count 1\nsmem F bytes 16 aliases z[0]\nsmem A bytes 256\n"
      "role r0 warp:\n  fence_proxy_async\n  one: arrive z[0]\n"
      "role r1 warp:\n  all: write A\n  one: arrive z[1]\n  one: arrive z[0]\n";
  const dsl::Parsed p = dsl::parse(text, "over.bk");
  REQUIRE(p.ok());
  check::Options none;
  none.reduction = false;
  CHECK(check::outcome_name(check::check(p.kernel, check::Options{})) == check::outcome_name(check::check(p.kernel, none)));
}

// Consumers that each arrive once per trip on a barrier the producer waits
// on before it hands out the next trip (a tile scheduler's pattern): the
// arrivals of the consumers outside a set cannot complete the phase while a
// member still has to arrive, so they commute with the member's
// (checker/phase_bound.hpp). Each planted bug (an extra arrival in the first
// trip; a read after the release) shows in some orders only, and is found.
TEST_CASE("partial-order reduction: arrivals from outside the set, bounded by their runs") {
  const std::string good =
      "kernel handout\nsmem buf[1] bytes 256\nmbarrier full[1] count 1\nmbarrier empty[1] count 4\n"
      "role producer warp:\n  for i in 0..3:\n    wait empty[0] parity (i + 1) % 2\n    one: write buf[0]\n    one: arrive full[0]\n"
      "role consumer warp x4:\n  for i in 0..3:\n    wait full[0] parity i % 2\n    one: read buf[0]\n    one: arrive empty[0]\n";
  const dsl::Parsed p = dsl::parse(good, "handout.bk");
  REQUIRE(p.ok());
  check::Options por;
  por.symmetry = false;
  por.check_reduction = true;
  check::Options plain = por;
  plain.partial_order = false;
  plain.check_reduction = false;
  const check::Result a = check::check(p.kernel, por), b = check::check(p.kernel, plain);
  CHECK(outcome_name(a) == "verified");
  CHECK(outcome_name(b) == "verified");
  MESSAGE(a.states << " states with partial order, " << b.states << " without (no symmetry)");
  CHECK(a.states * 10 < b.states);
  const std::pair<const char*, const char*> bugs[] = {
      {"    one: arrive empty[0]\n", "    one: arrive empty[0]\n    if i == 0:\n      one: arrive empty[0]\n"},
      {"    one: read buf[0]\n    one: arrive empty[0]\n", "    one: arrive empty[0]\n    one: read buf[0]\n"},
  };
  for (const auto& [from, to] : bugs) {
    std::string text = good;
    const std::size_t at = text.rfind(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, std::string(from).size(), to);
    CAPTURE(text);
    const dsl::Parsed q = dsl::parse(text, "handout_bug.bk");
    REQUIRE(q.ok());
    const check::Result x = check::check(q.kernel, por), y = check::check(q.kernel, plain);
    CHECK(x.verdict == check::Verdict::violation);
    CHECK(y.verdict == check::Verdict::violation);
  }
}

// An agent outside the set that has still to issue a TMA load completes
// bytes on its barrier: its run bounds them (unbounded), so the landing it
// will leave is not taken to keep the tx-count above 0. Counting only the
// agents that may arrive let the consumer's wait with the wrong parity,
// which passes before the load lands and blocks after, be taken alone
// (--check-reduction on the corpus found it: kernels/bugs/wrong_initial_parity.bk).
TEST_CASE("partial-order reduction: bytes an outside agent has still to issue keep a wait from being taken alone") {
  const dsl::Parsed p = dsl::parse(
      "kernel wp\nsmem tile[1] bytes 4096\nmbarrier full[1] count 1\n"
      "role producer warp:\n  one: arrive_expect_tx full[0] bytes 4096\n  one: tma_load tile[0] -> full[0]\n"
      "role consumer warp:\n  wait full[0] parity 1\n  all: read tile[0]\n",
      "wp.bk");
  REQUIRE(p.ok());
  CHECK(outcome_name(run(p.kernel, true)) == "data_race");  // with --check-reduction
  CHECK(outcome_name(run(p.kernel, false)) == "data_race");
}

// A state token holds the pending count before its arrive only where
// something may read it (Program::token_pending): against the reference
// that keeps it in every token (ir::Kernel::tokens_whole), the same
// verdicts, and no more states, on generated rings of the libcu++ barrier's
// shape. A verified ring whose tokens hold the phase alone stores fewer.
TEST_CASE("partial-order reduction: state tokens hold the phase alone where nothing reads the pending count, against every token whole") {
  std::mt19937 rng(20261206);
  int compared = 0, fewer = 0;
  for (int i = 0; i < 200; ++i) {
    const std::string text = testgen::token_ring_kernel(rng);
    CAPTURE(text);
    dsl::Parsed p = dsl::parse(text, "tok.bk");
    REQUIRE(p.ok());
    if (!tier::sample().take(i)) continue;
    for (const bool reduction : {true, false}) {
      check::Options o;
      o.threads = 1;
      o.reduction = reduction;
      p.kernel.tokens_whole = false;
      const check::Result a = check::check(p.kernel, o);
      p.kernel.tokens_whole = true;
      const check::Result b = check::check(p.kernel, o);
      REQUIRE(a.verdict != check::Verdict::inconclusive);
      CHECK(a.verdict == b.verdict);
      if (a.verdict == check::Verdict::violation) {
        // The schedule found replays to the kind reported, on the kernel as it is checked.
        p.kernel.tokens_whole = false;
        check::Options replay;
        replay.replay = a.replay;
        CHECK(check::outcome_name(check::check(p.kernel, replay)) == check::outcome_name(a));
      } else {
        CHECK(a.states <= b.states);
        fewer += a.states < b.states;
      }
    }
    ++compared;
  }
  MESSAGE(compared << " generated rings compared; " << fewer << " searches stored fewer states with the tokens' phase alone");
  // The count is kept where something may read it: mbarrier.pending_count,
  // or an expression of the token's variable.
  const std::string base = "kernel k\nmbarrier m count 2\nrole a warp:\n  t = one: arrive m nocomplete\n";
  for (const auto& [tail, kept] : std::vector<std::pair<std::string, bool>>{
           {"  one: wait m token t\n", false}, {"  n = pending_count t\n", true}, {"  x = t + 1\n", true}, {"  u = t\n  n = pending_count u\n", true}}) {
    CAPTURE(tail);
    const dsl::Parsed q = dsl::parse(base + tail + "role b warp:\n  one: arrive m\n", "kept.bk");
    REQUIRE(q.ok());
    CHECK(check::instantiate(q.kernel).token_pending == kept);
  }
  CHECK(compared >= tier::sample().scaled(100));
  CHECK(fewer >= tier::sample().scaled(50));
}

// A buffer only one agent touches with plain accesses needs no resource in
// the footprints (footprint.cpp, shared_buffers): a kernel whose warps each
// store 600 buffers of their own (a compiled epilogue: more buffers than the
// resource sets hold) is reduced, and --check-reduction holds; where two
// warps store one buffer, the race is found.
TEST_CASE("partial-order reduction: thousands of buffers, each one warp's own") {
  auto kernel = [](int neighbour) {
    std::string k = "kernel epilogue\nsmem tile bytes 1024\nmbarrier full count 1\n";
    for (int w = 0; w < 4; ++w) k += "gmem out" + std::to_string(w) + "[600] bytes 16\n";
    k += "role producer warp:\n  one: arrive_expect_tx full bytes 1024\n  one: tma_load tile -> full\n"
         "role consumer warp x 4:\n  wait full parity 0\n  all: read tile\n  for i in 0 .. 600:\n";
    for (int w = 0; w < 4; ++w) k += "    if instance == " + std::to_string(w) + ":\n      all: write out" + std::to_string(w) + "[i]\n";
    if (neighbour >= 0) k += "    if instance == " + std::to_string(neighbour) + ":\n      all: write out0[i]\n";
    return k;
  };
  const dsl::Parsed p = dsl::parse(kernel(-1), "epilogue.bk");
  REQUIRE(p.ok());
  check::Options o;
  o.threads = 1;
  o.check_reduction = true;
  const check::Result r = check::check(p.kernel, o);
  CHECK(r.verdict == check::Verdict::verified);
  MESSAGE("four warps' epilogues of 600 stores each: " << r.states << " states");
  CHECK(r.states < 10'000);
  const dsl::Parsed q = dsl::parse(kernel(2), "overlap.bk");
  REQUIRE(q.ok());
  o.check_reduction = false;
  CHECK(check::outcome_name(check::check(q.kernel, o)) == "data_race");
}

TEST_CASE("partial-order reduction: __syncthreads is barrier 0 to the outside runs' bounds, as bar_sync 0 is") {
  // The bounds of the named slots (phase_bound.cpp) took an op with no id
  // operand for one on any slot, so a kernel with __syncthreads had none:
  // the tcgen05 GEMM tile's twin stored 2,879 states with __syncthreads and
  // 220 with bar_sync 0, the same barrier (PTX ISA bar: __syncthreads is
  // barrier 0 for the whole CTA). Now the same, and still checked against
  // the steps left out, in the correct kernel and in a planted bug.
  for (const char* name : {"tc_gemm", "tc_gemm_bug_release_before_wait_ld"}) {
    CAPTURE(name);
    std::ifstream in(std::string(PC_SOURCE_DIR) + "/kernels/cuda/" + name + ".bk");
    std::stringstream text;
    text << in.rdbuf();
    std::string sync = text.str(), bar = sync;
    REQUIRE(sync.find("  syncthreads\n") != std::string::npos);
    for (std::size_t at; (at = bar.find("  syncthreads\n")) != std::string::npos;) bar.replace(at, 14, "  bar_sync 0\n");
    const dsl::Parsed a = dsl::parse(sync, "sync.bk"), b = dsl::parse(bar, "bar.bk");
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    const check::Result ra = run(a.kernel, true), rb = run(b.kernel, true);
    CHECK(outcome_name(ra) == outcome_name(rb));
    CHECK(outcome_name(ra) == outcome_name(run(a.kernel, false)));
    if (ra.verdict == check::Verdict::verified) CHECK(ra.states == rb.states);
  }
}
