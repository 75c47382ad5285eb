// The PTX front end's runs of reads made one step (checker/ptx/coalesce.hpp)
// keep verdicts: on generated kernels the coalesced kernel, searched with
// and without the reductions, gets the verdict of the kernel as written
// searched with none, and the same warning kinds when it verifies; so do
// generated warp groups' runs of wgmma. And the runs it makes: what merges,
// what stops a run. Buffers always accessed together, joined
// (checker/ptx/together.hpp), likewise, state for state.
#include <doctest/doctest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/program.hpp"
#include "checker/ptx/coalesce.hpp"
#include "checker/ptx/together.hpp"
#include "tests/kernel_generators.hpp"
#include "tests/tier.hpp"

using namespace pc;

namespace {

// The body of role 0 after coalescing, one line per operation: "read a[0] b[0]".
std::vector<std::string> runs_of(const std::string& body, int* removed = nullptr) {
  dsl::Parsed p = dsl::parse("kernel k\nsmem a[2] bytes 64\nsmem b bytes 64\nsmem c bytes 32 aliases a[0] offset 0\nmbarrier m[1] count 32\n"
                             "role r warp:\n" + body,
                             "k.bk");
  REQUIRE(p.ok());
  const int n = ptx::coalesce_reads(p.kernel);
  if (removed) *removed = n;
  std::vector<std::string> out;
  for (const ir::Stmt& s : p.kernel.roles.at(0).body) {
    std::string line(ir::op_keyword(s.op.code));
    if (s.op.lanes == ir::Lanes::one) line = "one " + line;
    for (const ir::Ref& r : s.op.bufs) line += " " + p.kernel.buffers.at(static_cast<std::size_t>(r.object)).name;
    out.push_back(line);
  }
  return out;
}

std::set<spec::Violation> warning_kinds(const check::Result& r) {
  std::set<spec::Violation> out;
  for (const check::Warning& w : r.warnings) out.insert(w.kind);
  return out;
}

}  // namespace

TEST_CASE("coalesce: a run of reads and consumes is one read and one consume") {
  int removed = 0;
  CHECK(runs_of("  all: read a[0]\n  all: consume a[0]\n  all: read b\n  all: read c\n  all: consume b\n", &removed) ==
        std::vector<std::string>{"read a b c", "consume a b"});
  CHECK(removed == 3);
  // A read of a buffer the run consumed starts a new run: that read is not
  // consumed by the consume before it. Any element of an array the run
  // consumed counts (the index is not compared).
  CHECK(runs_of("  all: read a[0]\n  all: consume a[0]\n  all: read a[0]\n  all: arrive m[0]\n") ==
        std::vector<std::string>{"read a", "consume a", "read a", "arrive"});
  CHECK(runs_of("  all: read a[0]\n  all: consume a[0]\n  all: read a[1]\n").size() == 3);
  // Other lanes, a value read, a store and any other operation end a run.
  CHECK(runs_of("  all: read a[0]\n  one: read a[1]\n").size() == 2);
  CHECK(runs_of("  all: read a[0]\n  v = read a[1]\n  all: read c\n").size() == 3);
  CHECK(runs_of("  all: read a[0]\n  one: write a[1]\n  all: read c\n").size() == 3);
  CHECK(runs_of("  all: read a[0]\n  syncwarp\n  all: read c\n").size() == 3);
  // Runs inside a loop's body.
  CHECK(runs_of("  for i in 0..2:\n    all: read a[i]\n    all: read c\n").size() == 1);
}

TEST_CASE("coalesce: generated kernels get the verdict of their runs as written") {
  std::mt19937 rng(20261205);
  int drawn = 0, compared = 0, verified = 0, merged = 0;
  for (int i = 0; i < 600; ++i) {
    const std::string text = testgen::read_runs_kernel(rng);
    CAPTURE(text);
    const dsl::Parsed p = dsl::parse(text, "gen.bk");
    if (!p.ok()) continue;  // a named barrier's count the roles cannot fill
    if (!tier::sample().take(drawn++)) continue;
    ir::Kernel runs = p.kernel;
    const int removed = ptx::coalesce_reads(runs);
    if (removed == 0) continue;
    ++merged;
    check::Options none;
    none.reduction = false;
    try {
      const check::Result plain = check::check(p.kernel, none);
      const check::Result one = check::check(runs, none);
      const check::Result reduced = check::check(runs, {});
      REQUIRE(plain.verdict != check::Verdict::inconclusive);
      CHECK(one.verdict == plain.verdict);
      CHECK(reduced.verdict == plain.verdict);
      if (plain.verdict == check::Verdict::verified) {
        ++verified;
        CHECK(warning_kinds(one) == warning_kinds(plain));
        CHECK(warning_kinds(reduced) == warning_kinds(plain));
        CHECK(one.states <= plain.states);
      }
      ++compared;
    } catch (const check::KernelError&) {
      // Past one of the model's capacities, as the CLI refuses it.
    }
  }
  MESSAGE(compared << " generated kernels with runs compared, " << verified << " verified");
  CHECK(compared >= tier::sample().scaled(250));
  CHECK(verified >= tier::sample().scaled(20));
}

TEST_CASE("coalesce: a warp group's consecutive wgmmas are one, and keep the verdict") {
  dsl::Parsed p = dsl::parse("kernel k\nsmem a[2] bytes 256\nrole g warpgroup:\n  wgmma_fence\n  wgmma read a[0]\n  wgmma read a[1]\n"
                             "  wgmma read a[0]\n  wgmma_regs a\n  wgmma_fence\n  wgmma read a[0] regs a\n  wgmma read a[1]\n  wgmma_commit\n"
                             "  wgmma_wait 0\n",
                             "k.bk");
  REQUIRE(p.ok());
  CHECK(ptx::coalesce_reads(p.kernel) == 2);
  std::vector<std::size_t> reads;  // the wgmmas left, by their buffers
  for (const ir::Stmt& s : p.kernel.roles.at(0).body)
    if (s.op.code == ir::OpCode::wgmma) reads.push_back(s.op.bufs.size());
  // a[0], a[1] and a[0] again (its index another expression); then A from
  // registers, which a shared-A wgmma does not join.
  CHECK(reads == std::vector<std::size_t>{3, 1, 1});

  std::mt19937 rng(20261207);
  int drawn = 0, compared = 0, verified = 0;
  for (int i = 0; i < 1600; ++i) {
    const std::string text = testgen::wgmma_warp_kernel(rng);
    CAPTURE(text);
    const dsl::Parsed g = dsl::parse(text, "gen.bk");
    if (!g.ok()) continue;
    if (!tier::sample().take(drawn++)) continue;
    ir::Kernel runs = g.kernel;
    if (ptx::coalesce_reads(runs) == 0) continue;
    check::Options none;
    none.reduction = false;
    try {
      const check::Result plain = check::check(g.kernel, none);
      const check::Result one = check::check(runs, none);
      const check::Result reduced = check::check(runs, {});
      REQUIRE(plain.verdict != check::Verdict::inconclusive);
      CHECK(one.verdict == plain.verdict);
      CHECK(reduced.verdict == plain.verdict);
      CHECK(check::outcome_name(one) == check::outcome_name(plain));
      if (plain.verdict == check::Verdict::verified) {
        ++verified;
        CHECK(warning_kinds(one) == warning_kinds(plain));
      }
      ++compared;
    } catch (const check::KernelError&) {
    }
  }
  MESSAGE(compared << " generated warp groups with runs of wgmma compared, " << verified << " verified");
  CHECK(compared >= tier::sample().scaled(40));
  CHECK(verified >= tier::sample().scaled(5));
}

// The buffers of a kernel, by name, after joining.
static std::vector<std::string> joined_names(const std::string& decls, const std::string& body, int* removed) {
  dsl::Parsed p = dsl::parse("kernel k\n" + decls + "mbarrier m[1] count 1\nrole r warp:\n" + body + "role s warp:\n  all: read a, b\n", "k.bk");
  REQUIRE(p.ok());
  *removed = ptx::join_buffers(p.kernel);
  std::vector<std::string> out;
  for (const ir::BufferDecl& b : p.kernel.buffers) out.push_back(b.name + ":" + std::to_string(b.bytes));
  return out;
}

TEST_CASE("together: buffers every operation names together are one") {
  int removed = 0;
  // a and b named together by each operation (role s reads both), c apart.
  CHECK(joined_names("smem a bytes 16\nsmem b bytes 32\nsmem c bytes 16\n",
                     "  all: write a, b, c\n  all: read b, a\n  one: consume c\n", &removed) ==
        std::vector<std::string>{"a +1:48", "c:16"});
  CHECK(removed == 1);
  // One operation names b alone.
  CHECK(joined_names("smem a bytes 16\nsmem b bytes 32\n", "  all: write a, b\n  all: read b\n", &removed).size() == 2);
  CHECK(removed == 0);
  // Named together everywhere, in any order: one buffer of all their bytes.
  dsl::Parsed p = dsl::parse("kernel k\nsmem a bytes 16\nsmem b bytes 32\nsmem d bytes 8\nsmem e[2] bytes 8\n"
                             "mbarrier m[1] count 1\nrole r warp:\n  all: write a, b, d, e[0]\n  one: arrive m[0]\n"
                             "role s warp:\n  wait m[0] parity 0\n  all: read d, a, b, e[0]\n  all: consume b, a, d, e[0]\n",
                             "k.bk");
  REQUIRE(p.ok());
  CHECK(ptx::join_buffers(p.kernel) == 2);
  REQUIRE(p.kernel.buffers.size() == 2);
  CHECK(p.kernel.buffers[0].name == "a +2");
  CHECK(p.kernel.buffers[0].bytes == 56);
  CHECK(p.kernel.buffers[1].name == "e");  // an array of two: apart
  for (const ir::Stmt& s : p.kernel.roles.at(1).body)
    if (s.op.code == ir::OpCode::read) CHECK(s.op.bufs.size() == 2);
  // A strong operation, an alias, a TMA: apart.
  CHECK(joined_names("smem a bytes 16\nsmem b bytes 16\n", "  all: atomic a, b\n  all: read a, b\n", &removed).size() == 2);
  CHECK(joined_names("smem a bytes 16\nsmem b bytes 16\nsmem c bytes 8 aliases a offset 0\n",
                     "  all: write a, b\n  all: read a, b\n", &removed).size() == 3);
  CHECK(joined_names("smem a bytes 16\nsmem b bytes 16\n",
                     "  one: arrive_expect_tx m[0] bytes 16\n  one: tma_load a -> m[0]\n  wait m[0] parity 0\n  all: write a, b\n",
                     &removed).size() == 2);
}

TEST_CASE("together: generated kernels with buffers joined get the verdict and the states of the kernel as written") {
  std::mt19937 rng(20261207);
  int drawn = 0, compared = 0, verified = 0;
  for (int i = 0; i < 800; ++i) {
    const std::string text = testgen::together_kernel(rng);
    CAPTURE(text);
    const dsl::Parsed p = dsl::parse(text, "gen.bk");
    REQUIRE(p.ok());
    if (!tier::sample().take(drawn++)) continue;
    ir::Kernel joined = p.kernel;
    if (ptx::join_buffers(joined) == 0) continue;
    check::Options none;
    none.reduction = false;
    const check::Result plain = check::check(p.kernel, none);
    const check::Result one = check::check(joined, none);
    const check::Result reduced = check::check(joined, {});
    const check::Result plain_reduced = check::check(p.kernel, {});
    REQUIRE(plain.verdict != check::Verdict::inconclusive);
    // The same search finds the same first violation (with the reductions,
    // another search order may find another first).
    CHECK(check::outcome_name(one) == check::outcome_name(plain));
    CHECK(check::outcome_name(reduced) == check::outcome_name(plain_reduced));
    CHECK(reduced.verdict == plain.verdict);
    if (plain.verdict == check::Verdict::verified) {
      ++verified;
      // One for one: the same states, with or without the reductions.
      CHECK(one.states == plain.states);
      CHECK(reduced.states == plain_reduced.states);
      CHECK(warning_kinds(one) == warning_kinds(plain));
      CHECK(warning_kinds(reduced) == warning_kinds(plain));
    }
    ++compared;
  }
  MESSAGE(compared << " generated kernels with buffers joined compared, " << verified << " verified");
  CHECK(compared >= tier::sample().scaled(150));
  CHECK(verified >= tier::sample().scaled(20));
}
