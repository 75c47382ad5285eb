// Symbolic claims over parameter ranges and trip counts (checker/smt), and
// their agreement with the explicit search at the counterexample's values.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "checker/builder.hpp"
#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/smt/symbolic.hpp"
#include "tests/corpus_files.hpp"

using namespace pc;
using namespace pc::ir;

namespace {

// A producer expects BM*BK*2 bytes on full and loads A (BM*BK*2 bytes) and B
// (BN*BK*2 bytes): balanced only when the expect counts both loads.
Kernel gemm_stage(std::int64_t bm, bool with_b, bool expect_both) {
  KernelBuilder kb("stage");
  const int BM = kb.param("BM", bm, {64, 128, 256});
  const int BK = kb.param("BK", 64, {32, 64});
  const int BN = kb.param("BN", 128, {64, 128, 256});
  const ExprId a_bytes = kb.bin(BinOp::mul, kb.bin(BinOp::mul, kb.p(BM), kb.p(BK)), kb.c(2));
  const ExprId b_bytes = kb.bin(BinOp::mul, kb.bin(BinOp::mul, kb.p(BN), kb.p(BK)), kb.c(2));
  const int a = kb.buffer("A", 1, bm * 64 * 2, {}, a_bytes);
  const int b = kb.buffer("B", 1, 128 * 64 * 2, {}, b_bytes);
  const int full = kb.mbarrier("full", 1, 1);
  const ExprId expect = expect_both ? kb.bin(BinOp::add, a_bytes, b_bytes) : a_bytes;
  Role& p = kb.role("producer", Granularity::warp);
  p.body.push_back(KernelBuilder::op(OpCode::mbar_arrive_expect_tx).bar(full).bytes(expect).one());
  p.body.push_back(KernelBuilder::op(OpCode::tma_load).buf(a).bar(full));
  if (with_b) p.body.push_back(KernelBuilder::op(OpCode::tma_load).buf(b).bar(full));
  Role& c = kb.role("consumer", Granularity::warp);
  c.body.push_back(KernelBuilder::op(OpCode::mbar_wait).bar(full).parity(kb.c(0)));
  return kb.build();
}

const smt::Finding* find(const std::vector<smt::Finding>& fs, const std::string& check, smt::Status st) {
  for (const smt::Finding& f : fs)
    if (f.check == check && f.status == st) return &f;
  return nullptr;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

dsl::Parsed parse(const std::string& src, const std::string& file,
                  const std::vector<std::pair<std::string, std::int64_t>>& overrides = {}) {
  dsl::Parsed p = dsl::parse(src, file, overrides);
  REQUIRE_MESSAGE(p.ok(), (p.ok() ? "" : p.errors[0].message));
  return p;
}

std::string show(const std::vector<smt::Finding>& fs) {
  std::string s;
  for (const smt::Finding& f : fs)
    if (f.status != smt::Status::proven)
      s += f.check + " " + smt::status_name(f.status) + " line " + std::to_string(f.loc.line) + ": " + f.claim +
           (f.reason.empty() ? "" : " [" + f.reason + "]") + (f.detail.empty() ? "" : " {" + f.detail + "}") + "\n";
  return s;
}

// The explicit search at a counterexample's parameter values finds a violation.
void explicit_search_fails(const std::string& src, const std::string& file, const smt::Finding& f) {
  CAPTURE(smt::reproduce_command(f, file));
  dsl::Parsed p = parse(src, file, f.witness);
  const check::Result r = check::check(p.kernel, check::Options{});
  CHECK(r.verdict == check::Verdict::violation);
}

std::string base(const std::string& path) { return path.substr(path.find("/kernels/") + 1); }

}  // namespace

TEST_CASE("symbolic: tx balance is proven for every tile size when the expect counts both loads") {
  auto fs = smt::check_symbolic(gemm_stage(128, true, true));
  CAPTURE(show(fs));
  const smt::Finding* f = find(fs, "tx_balance", smt::Status::proven);
  REQUIRE(f != nullptr);
  for (const smt::Finding& x : fs) CHECK(x.status == smt::Status::proven);
  CHECK(find(fs, "arrival_count", smt::Status::proven) != nullptr);
  CHECK(find(fs, "tx_range", smt::Status::proven) != nullptr);
  CHECK(find(fs, "smem_footprint", smt::Status::proven) != nullptr);
}

TEST_CASE("symbolic: a missing operand gives a counterexample the explicit search confirms") {
  auto fs = smt::check_symbolic(gemm_stage(128, true, false));
  const smt::Finding* f = find(fs, "tx_balance", smt::Status::counterexample);
  REQUIRE(f != nullptr);
  CHECK(f->witness.size() == 3);
  CHECK(f->detail.find("bytes expected") != std::string::npos);
  // The explicit search at the same parameters fails too: the phase completes
  // when A lands, the consumer leaves, and the CTA exits with B in flight.
  check::Result r = check::check(gemm_stage(128, true, false), check::Options{});
  CHECK(r.verdict == check::Verdict::violation);
  CHECK(r.violation == spec::Violation::exit_with_pending);
}

TEST_CASE("symbolic: reproduce_command builds the explicit search's command line") {
  smt::Finding f;
  f.witness = {{"BM", 64}, {"BN", 128}};
  CHECK(smt::reproduce_command(f, "kernels/x.bk") == "check-kernel --param BM=64 --param BN=128 kernels/x.bk");
  f.witness.clear();
  CHECK(smt::reproduce_command(f, "k.bk") == "check-kernel k.bk");
}

TEST_CASE("symbolic: named-barrier participants and id collisions, for all parameter values") {
  auto make = [](bool same) {
    KernelBuilder kb("pingpong");
    const int W = kb.param("WARPS", 4, {2, 4, 8});
    const ExprId n = kb.bin(BinOp::mul, kb.p(W), kb.c(64));  // 2 x W warps
    const ExprId m = same ? kb.c(256) : n;
    Role& a = kb.role("a", Granularity::warpgroup);
    a.body.push_back(KernelBuilder::op(OpCode::bar_sync).id(kb.c(9)).count(m));
    Role& b = kb.role("b", Granularity::warpgroup);
    b.body.push_back(KernelBuilder::op(OpCode::bar_arrive).id(kb.c(9)).count(m));
    return kb.build();
  };
  auto good = smt::check_symbolic(make(true));
  CAPTURE(show(good));
  for (const smt::Finding& f : good) CHECK(f.status == smt::Status::proven);
  // 2 x W warps of threads is 256 only for W = 4: two warp groups take part.
  auto bad = smt::check_symbolic(make(false));
  const smt::Finding* f = find(bad, "named_participants", smt::Status::counterexample);
  REQUIRE(f != nullptr);
  REQUIRE(f->witness.size() == 1);
  CHECK(f->witness[0].second != 4);
}

TEST_CASE("symbolic: ids given by expressions collide across groups of different counts") {
  const std::string src =
      "kernel ids\nparam BASE = 1 in 1..14\n"
      "role a warpgroup x2:\n  bar_sync BASE + instance, 128\n"
      "role b warp:\n  bar_sync 2, 64\n"
      "role c warp:\n  bar_arrive 2, 64\n";
  auto fs = smt::check_symbolic(parse(src, "ids.bk").kernel);
  CAPTURE(show(fs));
  const smt::Finding* f = find(fs, "named_id", smt::Status::counterexample);
  REQUIRE(f != nullptr);
  REQUIRE(f->witness.size() == 1);
  CHECK((f->witness[0].second == 1 || f->witness[0].second == 2));
}

TEST_CASE("symbolic: a named barrier under a loop-dependent if is checked in the trips that take the branch") {
  // Before: one such use made every named-barrier claim not_checked ("depends
  // on a loop variable"). Now the loop variable is a trip the negation picks.
  auto src = [](const std::string& odd_count) {
    return "kernel branchy\nparam N = 4 in 1..8\n"
           "role a warp:\n  for k in 0 .. N:\n    if k % 2 == 0:\n      bar_arrive 1, 64\n"
           "    if k % 2 == 1:\n      bar_arrive 2, " + odd_count + "\n"
           "role b warp:\n  for k in 0 .. N:\n    if k % 2 == 0:\n      bar_sync 1, 64\n"
           "    if k % 2 == 1:\n      bar_sync 2, 64\n";
  };
  auto good = smt::check_symbolic(parse(src("64"), "branchy.bk").kernel);
  CAPTURE(show(good));
  int named = 0;
  for (const smt::Finding& f : good)
    if (f.check.rfind("named_", 0) == 0) {
      ++named;
      CHECK(f.status == smt::Status::proven);
    }
  CHECK(named == 6);  // named_count, named_id, and named_participants for each of the four uses
  // The odd trips' arrive says 96 threads where 64 take part; only those trips run it.
  auto bad = smt::check_symbolic(parse(src("96"), "branchy.bk").kernel);
  CAPTURE(show(bad));
  const smt::Finding* p = find(bad, "named_participants", smt::Status::counterexample);
  REQUIRE(p != nullptr);
  CHECK(p->loc.line == 8);
  CHECK(p->claim.find("its branch depends on the loop") != std::string::npos);
  CHECK(find(bad, "named_id", smt::Status::counterexample) != nullptr);
  CHECK(find(bad, "named_count", smt::Status::proven) != nullptr);
  for (const smt::Finding& f : bad) CHECK(f.status != smt::Status::not_checked);
  // A branch no trip takes uses nothing: `k > N` never holds in 0 .. N.
  auto never = smt::check_symbolic(parse("kernel never\nparam N = 4 in 1..8\n"
                                         "role a warp:\n  for k in 0 .. N:\n    if k > N:\n      bar_arrive 1, 96\n"
                                         "role b warp x 2:\n  bar_sync 1, 64\n", "never.bk").kernel);
  CAPTURE(show(never));
  for (const smt::Finding& f : never)
    if (f.check.rfind("named_", 0) == 0) CHECK(f.status == smt::Status::proven);
}

TEST_CASE("symbolic: what the encoding cannot express is named, with a reason") {
  // The index of the arrive is a value read in a loop: not followed.
  const std::string src =
      "kernel opaque\nparam N = 2 in 1..8\nmbarrier b[2] count 1\n"
      "role p warp:\n  x = 0\n  for k in 0 .. N:\n    x = (x + 1) % 2\n    one: arrive b[x]\n"
      "role q warp:\n  wait b[0] parity 0\n";
  auto fs = smt::check_symbolic(parse(src, "opaque.bk").kernel);
  const smt::Finding* f = find(fs, "arrival_count", smt::Status::not_checked);
  REQUIRE(f != nullptr);
  CHECK(f->reason.find("does not follow") != std::string::npos);
  for (const smt::Finding& x : fs) CHECK(x.status != smt::Status::counterexample);
}

TEST_CASE("symbolic: a role's count from a parameter with its placement written beside it") {
  // `x N at warp 1`: the count follows N; a parameter in the placement is
  // named, not followed.
  const std::string src =
      "kernel placed\nparam N = 2 in 1..4\nmbarrier done count N\n"
      "role p warp at warp 0:\n  wait done parity 0\n"
      "role c warp x N at warp 1:\n  one: arrive done\n";
  auto fs = smt::check_symbolic(parse(src, "placed.bk").kernel);
  CAPTURE(show(fs));
  CHECK(find(fs, "arrival_count", smt::Status::proven) != nullptr);
  for (const smt::Finding& f : fs) CHECK(f.status != smt::Status::not_checked);
  // One arrival short of the count for every N: refuted.
  std::string short_by_one = src;
  short_by_one.replace(short_by_one.find("count N"), 7, "count N + 1");
  auto bad = smt::check_symbolic(parse(short_by_one, "placed.bk").kernel);
  CHECK(find(bad, "arrival_count", smt::Status::counterexample) != nullptr);
  // The placement from a parameter: named.
  std::string moved = "kernel placed\nparam N = 2 in 1..4\nparam W = 1 in 1..2\nmbarrier done count N\n"
                      "role p warp at warp 0:\n  wait done parity 0\n"
                      "role c warp x N at warp W:\n  one: arrive done\n";
  auto named = smt::check_symbolic(parse(moved, "placed.bk").kernel);
  bool said = false;
  for (const smt::Finding& f : named) said |= f.reason.find("outside its instance count") != std::string::npos;
  CHECK(said);
}

TEST_CASE("symbolic: ring pipelines over every trip count, multicast per destination CTA, role counts from parameters") {
  struct Mutation {
    const char* file;
    const char* from;
    const char* to;
    const char* check;
  };
  // Each mutation of a correct corpus kernel is a byte or count bug: the
  // original proves the claim, the mutant refutes it, and the explicit search
  // at the witness fails.
  const Mutation ms[] = {
      {"kernels/field/fa3_fwd_pingpong.bk", "arrive_expect_tx full_v[sv] bytes KV", "arrive_expect_tx full_v[sv] bytes KV - 4096", "tx_balance"},
      {"kernels/field/cutlass_sm90_tma_ws_multicast.bk", "bytes A_BYTES + 2 * B_HALF", "bytes A_BYTES + B_HALF", "tx_balance"},
      {"kernels/cutlass_tma_multicast.bk", "mbarrier empty[STAGES] count 4", "mbarrier empty[STAGES] count 2", "arrival_count"},
      // One CTA's arrivals counted, not the pair's (a count off by the cluster size).
      {"kernels/mojo_pair_attention_no_split.bk", "mbarrier po_lo[1] count 512", "mbarrier po_lo[1] count 256", "arrival_count"},
      {"kernels/tlx_ws_gemm_hopper.bk", "arrive_expect_tx fullA[c * STAGES + s] bytes BM / 2 * BK * 2",
       "arrive_expect_tx fullA[c * STAGES + s] bytes BN / 2 * BK * 2", "tx_balance"},
      {"kernels/field/deepgemm_sm90_fp8_1d2d.bk", "count 8 * MATH_WGS", "count 16", "arrival_count"},
      {"kernels/field/cutlass_sm100_mixed_tma_cpasync.bk", "mbarrier full_b[STAGES] count 128", "mbarrier full_b[STAGES] count 96",
       "arrival_count"},
      {"kernels/tlx_pingpong.bk", "bar_arrive 10, 256", "bar_arrive 10, 128", "named_id"},
  };
  for (const Mutation& m : ms) {
    CAPTURE(m.file);
    const std::string path = std::string(PC_SOURCE_DIR) + "/" + m.file;
    const std::string src = slurp(path);
    auto orig = smt::check_symbolic(parse(src, path).kernel);
    CAPTURE(show(orig));
    CHECK(find(orig, m.check, smt::Status::proven) != nullptr);
    std::string mutant = src;
    const std::size_t at = mutant.find(m.from);
    REQUIRE(at != std::string::npos);
    mutant.replace(at, std::string(m.from).size(), m.to);
    auto fs = smt::check_symbolic(parse(mutant, path).kernel);
    CAPTURE(show(fs));
    const smt::Finding* f = find(fs, m.check, smt::Status::counterexample);
    REQUIRE(f != nullptr);
    explicit_search_fails(mutant, path, *f);
  }
}

// The corpus (kernels/, kernels/bugs/, kernels/field/): the byte and count bug
// classes are refuted by the claim of their class, with parameter values
// under which the explicit search fails; every other kernel gets no
// counterexample but the shared-memory ones listed (declared ranges whose
// largest configurations do not fit in 227 KiB); every claim is proven or
// named as not checked, with a reason.
TEST_CASE("symbolic: the corpus") {
  const std::map<std::string, std::string> bug_class = {
      {"kernels/bugs/arrive_count_mismatch.bk", "arrival_count"},
      {"kernels/bugs/arrive_count_depends_on_consumers.bk", "arrival_count"},
      {"kernels/bugs/seed003_block_guard_exit.bk", "arrival_count"},  // the exited warp never arrives
      {"kernels/bugs/producer_laps_consumer.bk", "arrival_count"},  // ROUNDS arrivals with no wait: more than one phase takes
      {"kernels/bugs/expect_tx_mismatch.bk", "tx_balance"},
      {"kernels/bugs/tx_bytes_depend_on_tile.bk", "tx_balance"},
      {"kernels/field/cutlass_sm100_2sm_umma_bug_expect_tx_full_b.bk", "tx_balance"},
      {"kernels/field/deepgemm_sm90_fp8_1d2d_bug_expect_tx_local_only.bk", "tx_balance"},
      {"kernels/field/quack_rmsnorm_bwd_stas_dsmem_bug_expect_tx_local.bk", "tx_balance"},  // 8 bytes expected, 16 stored
      {"kernels/bugs/named_count_too_large.bk", "named_participants"},
      {"kernels/bugs/named_id_shared_by_two_groups.bk", "named_id"},
      {"kernels/bugs/user_barrier_id0.bk", "named_id"},
      {"kernels/field/fa3_fwd_hdim64_3wg_bug_two_wg_scheduler.bk", "named_id"},  // WG3 arrives on QueryEmpty's id
      // The .bk twins of the CUDA kernels of kernels/cuda (docs/ptx.md).
      {"kernels/cuda/ws_ring_bug_empty_count.bk", "arrival_count"},
      {"kernels/cuda/seed003_warp_bug_arrive_expect_tx.bk", "arrival_count"},
      {"kernels/cuda/cluster_multicast_bug_expect_tx_local.bk", "tx_balance"},
      {"kernels/cuda/seed003_spread_bug_one_expect.bk", "tx_balance"},  // lane 0 expects 128 bytes, four lanes load 512
      {"kernels/cuda/pingpong_bug_turn_count.bk", "named_participants"},
  };
  int proven = 0, refuted = 0, not_checked = 0, found = 0, data_dependent = 0;
  for (const std::string& path : corpus_files()) {
    const std::string name = base(path);
    CAPTURE(name);
    const std::string src = slurp(path);
    const dsl::Parsed p = parse(src, path);
    const auto fs = smt::check_symbolic(p.kernel);
    CAPTURE(show(fs));
    // A kernel that leaves its tile loop on a cluster-launch-control answer,
    // or on a value read back from shared memory (a scheduler's tile index),
    // has trip counts no parameter gives: the encoding follows no such value
    // (issue: trip counts read from the hardware), and must say so.
    const bool data_trips = src.find("clc_try_cancel") != std::string::npos || src.find("= read ") != std::string::npos ||
                            src.find("= one: read ") != std::string::npos;
    for (const smt::Finding& f : fs) {
      CHECK(f.status != smt::Status::unknown);
      if (f.status == smt::Status::not_checked) CHECK_FALSE(f.reason.empty());
      if (data_trips && f.status == smt::Status::not_checked) {
        // Or a request issued both before the loop and in it (CCCL's
        // for_each_canceled_block: a do-while whose first request comes
        // before it), whose phases the encoding cannot number.
        CHECK_MESSAGE((f.reason.find("a value the encoding does not follow") != std::string::npos ||
                       f.reason.find("both inside and outside its loop") != std::string::npos),
                      f.reason);
        ++data_dependent;
        continue;
      }
      proven += f.status == smt::Status::proven;
      refuted += f.status == smt::Status::counterexample;
      not_checked += f.status == smt::Status::not_checked;
    }
    auto it = bug_class.find(name);
    std::set<std::string> allowed;
    if (it != bug_class.end()) {
      allowed.insert(it->second);
      // An id shared by groups of different counts also has uses whose count
      // differs from the threads that use the id.
      if (it->second == "named_id") allowed.insert("named_participants");
      const smt::Finding* f = find(fs, it->second, smt::Status::counterexample);
      REQUIRE(f != nullptr);
      ++found;
      // The witness names every parameter with declared values, and the
      // explicit search at those values fails (a deadlock, a race or a
      // barrier misuse: what the byte or count error leads to).
      std::size_t free = 0;
      for (const ir::Param& par : p.kernel.params) free += par.lo <= par.hi || !par.candidates.empty();
      CHECK(f->witness.size() == free);
      explicit_search_fails(src, path, *f);
    }
    for (const smt::Finding& f : fs)
      if (f.status == smt::Status::counterexample) CHECK_MESSAGE(allowed.count(f.check), f.check);
  }
  CHECK(found == static_cast<int>(bug_class.size()));
  MESSAGE("corpus claims: " << proven << " proven, " << refuted << " refuted, " << not_checked << " not checked; "
                            << data_dependent << " not checked for trip counts read from cluster launch control or shared memory");
  CHECK(proven > 5 * (refuted + not_checked));
}

TEST_CASE("symbolic: shared memory past 227 KiB is refuted with the values, and the explicit search reports it there") {
  const std::string text = "kernel fit\nparam S = 2 in 1..8\nsmem buf[S] bytes 32768\nmbarrier full[S] count 1\n"
                           "role w warp:\n  one: write buf[0]\n";
  const dsl::Parsed p = parse(text, "fit.bk");
  const auto fs = smt::check_symbolic(p.kernel);
  const smt::Finding* f = find(fs, "smem_footprint", smt::Status::counterexample);
  REQUIRE(f != nullptr);
  REQUIRE(f->witness.size() == 1);
  CHECK(f->witness[0].second == 8);  // 8 x 32 KiB + 64 bytes of barriers: the only value that does not fit
  CHECK(check::check(p.kernel, {}).verdict == check::Verdict::verified);  // S = 2 fits
  const dsl::Parsed at = dsl::parse(text, "fit.bk", {{"S", f->witness[0].second}});
  REQUIRE(at.ok());
  const check::Result r = check::check(at.kernel, {});
  CHECK(r.violation == spec::Violation::smem_overflow);
  CHECK(r.message.find("262208 bytes") != std::string::npos);
}

TEST_CASE("symbolic: ring_phase, the corpus pipelines' waits are instances of the ring-buffer phase theorem") {
  // proofs/ring_buffer_phase.cpp proves, for every S and use k, that the
  // parity (k / S + c) % 2 of stage k % S is the phase of that stage's barrier
  // at use k. Here each pipelined wait of these kernels is shown (by Z3, for
  // every parameter value and trip count) to be of that form, so the
  // theorem's conclusion holds for it beyond the trip counts the explicit
  // search runs.
  for (const char* file : {"kernels/tlx_ws_gemm_hopper.bk", "kernels/tlx_producer_consumer.bk", "kernels/cutlass_tma_multicast.bk",
                           "kernels/field/cutlass_sm100_mixed_tma_cpasync.bk", "kernels/field/deepgemm_sm100_bf16_2cta.bk"}) {
    CAPTURE(file);
    const std::string path = std::string(PC_SOURCE_DIR) + "/" + file;
    const auto fs = smt::check_symbolic(parse(slurp(path), path).kernel);
    CAPTURE(show(fs));
    int proven = 0;
    for (const smt::Finding& f : fs)
      if (f.check == "ring_phase") {
        CHECK(f.status == smt::Status::proven);
        proven += f.status == smt::Status::proven;
      }
    CHECK(proven >= 2);
  }
  // The producer's waits are one phase ahead (b3), the consumer's not (b2).
  const std::string path = std::string(PC_SOURCE_DIR) + "/kernels/tlx_ws_gemm_hopper.bk";
  const auto fs = smt::check_symbolic(parse(slurp(path), path).kernel);
  int ahead = 0, behind = 0;
  for (const smt::Finding& f : fs) {
    ahead += f.check == "ring_phase" && f.claim.find("(u / S + 1) % 2") != std::string::npos;
    behind += f.check == "ring_phase" && f.claim.find("(u / S + 0) % 2") != std::string::npos;
  }
  CHECK(ahead == 2);
  CHECK(behind == 2);
}

// A consumer whose parity was planted as a producer's: the claim is proven
// (the wait has the producer's shape) and must say that it proves the shape
// only, which a user read as the bug's absence (issue 63).
TEST_CASE("symbolic: ring_phase names the shape it proves and leaves the role to the explicit search") {
  const std::string src =
      "kernel planted\nparam ITERS = 4 in 1..16\nsmem t[2] bytes 256\nmbarrier full[2] count 1\nmbarrier empty[2] count 1\n"
      "role p warp:\n  for k in 0 .. ITERS:\n    wait empty[k % 2] parity (k / 2 + 1) % 2\n"
      "    one: arrive_expect_tx full[k % 2] bytes 256\n    one: tma_load t[k % 2] -> full[k % 2]\n"
      "role c warp:\n  for k in 0 .. ITERS:\n    wait full[k % 2] parity (k / 2 + 1) % 2\n    all: read t[k % 2]\n"
      "    one: arrive empty[k % 2]\n";
  const dsl::Parsed p = parse(src, "planted.bk");
  const auto fs = smt::check_symbolic(p.kernel);
  CAPTURE(show(fs));
  int producer_shapes = 0;
  for (const smt::Finding& f : fs) {
    if (f.check != "ring_phase" || f.status != smt::Status::proven) continue;
    producer_shapes += f.claim.find("has the shape of a ring's producer wait") != std::string::npos;
    CHECK(f.claim.find("The shape only: whether this role should wait so") != std::string::npos);
  }
  CHECK(producer_shapes == 2);  // the producer's wait, and the consumer's planted one
  CHECK(check::check(p.kernel, check::Options{}).verdict == check::Verdict::violation);
}

TEST_CASE("symbolic: ring_phase, a wait the theorem does not cover is named, not refuted") {
  // A two-stage ring whose consumer flips its parity every use (k % 2, not
  // (k / 2) % 2): not an instance, and the explicit search finds the bug.
  const std::string src =
      "kernel flip\nparam ITERS = 4 in 1..16\nsmem t[2] bytes 256\nmbarrier full[2] count 1\nmbarrier empty[2] count 1\n"
      "role p warp:\n  for k in 0 .. ITERS:\n    wait empty[k % 2] parity (k / 2 + 1) % 2\n"
      "    one: arrive_expect_tx full[k % 2] bytes 256\n    one: tma_load t[k % 2] -> full[k % 2]\n"
      "role c warp:\n  for k in 0 .. ITERS:\n    wait full[k % 2] parity k % 2\n    all: read t[k % 2]\n"
      "    one: arrive empty[k % 2]\n";
  const dsl::Parsed p = parse(src, "flip.bk");
  const auto fs = smt::check_symbolic(p.kernel);
  CAPTURE(show(fs));
  int proven = 0, named = 0;
  for (const smt::Finding& f : fs) {
    CHECK(f.status != smt::Status::counterexample);
    if (f.check != "ring_phase") continue;
    proven += f.status == smt::Status::proven;
    if (f.status == smt::Status::not_checked) {
      ++named;
      CHECK(f.loc.line == 13);
      CHECK(f.reason.find("no count of its loops' trips") != std::string::npos);
    }
  }
  CHECK(proven == 1);  // the producer's wait
  CHECK(named == 1);
  CHECK(check::check(p.kernel, check::Options{}).verdict == check::Verdict::violation);
  // A parity carried across trips in a variable is not followed, and says so.
  const std::string carried =
      "kernel carried\nparam ITERS = 4 in 1..16\nsmem t[1] bytes 256\nmbarrier full[1] count 1\n"
      "role p warp:\n  for k in 0 .. ITERS:\n    one: arrive_expect_tx full[0] bytes 256\n    one: tma_load t[0] -> full[0]\n"
      "role c warp:\n  ph = 0\n  for k in 0 .. ITERS:\n    wait full[0] parity ph\n    ph = 1 - ph\n";
  const auto cs = smt::check_symbolic(parse(carried, "carried.bk").kernel);
  const smt::Finding* f = find(cs, "ring_phase", smt::Status::not_checked);
  REQUIRE(f != nullptr);
  CHECK(f->reason.find("does not follow") != std::string::npos);
}
