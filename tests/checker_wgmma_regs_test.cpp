// The wgmma.fence register rule (docs/spec.md, the wgmma row; spec::agent
// regs_*, rules::wgmma_issue): wgmma.fence "must be issued by all warps of the
// warpgroup ... Between a register access by a thread in the warpgroup and
// any wgmma.mma_async instruction that accesses the same registers, either as
// accumulator or input register containing fragments of matrix A, except when
// these are accumulator register accesses across multiple wgmma.mma_async
// instructions of the same shape" (PTX ISA wgmma.fence). Both engines.
#include <doctest/doctest.h>

#include <string>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/smt/bmc.hpp"
#include "spec/agent.hpp"
#include "spec/rules.hpp"
#include "tests/agreed_check.hpp"
#include "tests/kernel_text.hpp"

using namespace pc;
using spec::Violation;

namespace {

std::string outcome(const std::string& text) { return testing::agreed_outcome(text); }

// The bounded SMT search's verdict: "verified", the violation's name, or
// what it did not cover.
std::string bmc(const std::string& text) {
  const dsl::Parsed p = dsl::parse(text, "test.bk");
  REQUIRE(p.ok());
  const smt::BmcResult r = smt::bounded_search(p.kernel);
  if (r.verdict == smt::BmcResult::Verdict::violation) return std::string(spec::violation_name(r.kind));
  if (r.verdict == smt::BmcResult::Verdict::not_covered) return "not covered: " + r.reason;
  return "verified";
}

using testing::with;

// A warp group computes S = Q K^T, then O += P V with P in registers; REGS
// stands for the threads' accesses between (the softmax writing P, the O
// rescale), FENCE for the fence before the P V wgmma.
const std::string attention =
    "kernel t\nsmem q bytes 1024\nsmem k bytes 1024\nsmem v bytes 1024\n"
    "role mma warpgroup:\n"
    "  wgmma_fence\n  wgmma read q, k\n  wgmma_commit\n  wgmma_wait 0\n"
    "REGS"
    "FENCE"
    "  wgmma read v PV\n  wgmma_commit\n  wgmma_wait 0\n";

std::string make(const std::string& regs, bool fence, const std::string& pv = "regs a") {
  return with(with(with(attention, "REGS", regs), "FENCE", fence ? "  wgmma_fence\n" : ""), "PV", pv);
}

}  // namespace

TEST_CASE("spec: wgmma.fence orders the threads' register accesses before the wgmmas that use those registers") {
  namespace agent = spec::agent;
  namespace rules = spec::rules;
  std::uint8_t regs = 0;
  CHECK(rules::wgmma_issue(true, regs, agent::wgmma_uses(true)) == Violation::none);
  regs = agent::regs_after_access(regs, agent::regs_acc);
  // Every wgmma uses its accumulator.
  CHECK(rules::wgmma_issue(true, regs, agent::wgmma_uses(false)) == Violation::async_group_misuse);
  regs = agent::regs_after_fence();
  CHECK(rules::wgmma_issue(true, regs, agent::wgmma_uses(false)) == Violation::none);
  // A's fragments in registers matter only to a wgmma that takes A from them.
  regs = agent::regs_after_access(regs, agent::regs_a);
  CHECK(rules::wgmma_issue(true, regs, agent::wgmma_uses(false)) == Violation::none);
  CHECK(rules::wgmma_issue(true, regs, agent::wgmma_uses(true)) == Violation::async_group_misuse);
  // The first wgmma still needs a fence before it.
  CHECK(rules::wgmma_issue(false, 0, agent::wgmma_uses(false)) == Violation::async_group_misuse);
}

TEST_CASE("wgmma registers: an accumulator rescale, then wgmma_fence, then the wgmma verifies; without the fence it is async_group_misuse") {
  CHECK(outcome(make("  wgmma_regs acc\n", true)) == "verified");
  CHECK(outcome(make("  wgmma_regs acc\n", false)) == "async_group_misuse");
  CHECK(outcome(make("  wgmma_regs acc\n", false, "")) == "async_group_misuse");  // A from shared memory: the accumulator still
  CHECK(bmc(make("  wgmma_regs acc\n", true)) == "verified");
  CHECK(bmc(make("  wgmma_regs acc\n", false)) == "async_group_misuse");
  // The message names the registers and cites the ISA.
  const dsl::Parsed p = dsl::parse(make("  wgmma_regs acc\n", false), "test.bk");
  REQUIRE(p.ok());
  const check::Result r = check::check(p.kernel, check::Options{});
  CHECK(r.message.find("accumulator registers") != std::string::npos);
  CHECK(r.message.find("PTX ISA wgmma.fence") != std::string::npos);
}

TEST_CASE("wgmma registers: P written as register A of the next wgmma needs a wgmma_fence before it") {
  CHECK(outcome(make("  wgmma_regs a\n", true)) == "verified");
  CHECK(outcome(make("  wgmma_regs a\n", false)) == "async_group_misuse");
  CHECK(outcome(make("  wgmma_regs acc, a\n", false)) == "async_group_misuse");
  CHECK(bmc(make("  wgmma_regs a\n", false)) == "async_group_misuse");
  // A wgmma that reads A from shared memory does not use P's registers: it
  // needs no fence for them, and the P V wgmma after it still does.
  const std::string qk_between = with(make("  wgmma_regs a\n", false), "  wgmma read v regs a\n",
                                      "  wgmma read q, k\n  wgmma read v regs a\n");
  CHECK(outcome(with(make("  wgmma_regs a\n", false), "  wgmma read v regs a\n", "  wgmma read q, k\n")) == "verified");
  CHECK(outcome(qk_between) == "async_group_misuse");
  const dsl::Parsed p = dsl::parse(make("  wgmma_regs a\n", false), "test.bk");
  REQUIRE(p.ok());
  CHECK(check::check(p.kernel, check::Options{}).message.find("A-fragment registers") != std::string::npos);
}

TEST_CASE("wgmma registers: wgmmas chained on one accumulator with no thread access between need no fence") {
  const std::string chained = with(make("", false), "  wgmma read v regs a\n", "  wgmma read v regs a\n  wgmma read v regs a\n");
  CHECK(outcome(chained) == "verified");
  CHECK(bmc(chained) == "verified");
  // A fence clears what came before it for every later wgmma.
  CHECK(outcome(with(make("  wgmma_regs acc, a\n", true), "  wgmma read v regs a\n",
                     "  wgmma read v regs a\n  wgmma read q, k\n  wgmma read v regs a\n")) == "verified");
}

TEST_CASE("wgmma registers: in a role split per warp each warp's accesses need its own fence") {
  const std::string split =
      "kernel t\nsmem v bytes 1024\n"
      "role mma warpgroup:\n"
      "  x = warp\n"
      "  wgmma_fence\n  wgmma read v\n  wgmma_commit\n  wgmma_wait 0\n"
      "  wgmma_regs acc\nFENCE"
      "  wgmma read v\n  wgmma_commit\n  wgmma_wait 0\n";
  CHECK(outcome(with(split, "FENCE", "  wgmma_fence\n")) == "verified");
  CHECK(outcome(with(split, "FENCE", "")) == "async_group_misuse");
}

TEST_CASE("wgmma registers: the parser takes acc and a, and rejects anything else") {
  CHECK(dsl::parse(make("  wgmma_regs a, acc\n", true), "t.bk").ok());
  CHECK_FALSE(dsl::parse(make("  wgmma_regs b\n", true), "t.bk").ok());
  CHECK_FALSE(dsl::parse(make("  wgmma_regs\n", true), "t.bk").ok());
  CHECK_FALSE(dsl::parse(make("", true, "regs acc"), "t.bk").ok());
}

TEST_CASE("tcgen05.ld registers: a use before tcgen05.wait::ld is async_group_misuse, after it verifies") {
  namespace agent = spec::agent;
  namespace rules = spec::rules;
  // The rule: a load in flight until its wait; a wgmma.fence does not wait for it.
  std::uint8_t regs = agent::regs_after_tmem_ld(0);
  CHECK(rules::tmem_regs_access(regs) == Violation::async_group_misuse);
  CHECK(rules::tmem_regs_access(agent::regs_after_fence(regs)) == Violation::async_group_misuse);
  regs = agent::regs_after_wait_ld(regs);
  CHECK(rules::tmem_regs_access(regs) == Violation::none);
  // The wgmma rule does not see it: the fence clears the wgmma registers only.
  CHECK(rules::wgmma_issue(true, agent::regs_after_tmem_ld(0), agent::wgmma_uses(true)) == Violation::none);
  // A kernel: one warp allocates, MMAs into the accumulator, commits; the
  // other waits, loads its lane quarter and uses the registers (USE) around
  // its tcgen05.wait::ld.
  const std::string k = R"(kernel ldregs
tmem acc cols 32
smem a bytes 256
mbarrier full
role mma warp at warp 0:
  tcgen05_alloc acc
  one: init full count 1
  one: fence_mbarrier_init
  all: tcgen05_fence_before_thread_sync
  syncthreads
  all: tcgen05_fence_after_thread_sync
  one: write a
  fence_proxy_async
  tcgen05_mma read a into acc
  tcgen05_commit full
  bar_sync 1, 64
  all: tcgen05_fence_after_thread_sync
  tcgen05_dealloc acc
role epi warp at warp 1:
  all: tcgen05_fence_before_thread_sync
  syncthreads
  all: tcgen05_fence_after_thread_sync
  wait full parity 0
  all: tcgen05_fence_after_thread_sync
  tcgen05_ld acc
BEFORE  tcgen05_wait_ld
AFTER  all: tcgen05_fence_before_thread_sync
  bar_sync 1, 64
)";
  auto make_ld = [&](const char* before, const char* after) {
    return testing::with(testing::with(k, "BEFORE", before), "AFTER", after);
  };
  CHECK(testing::agreed_outcome(make_ld("", "  tcgen05_regs\n")) == "verified");
  CHECK(testing::agreed_outcome(make_ld("  tcgen05_regs\n", "")) == "async_group_misuse");
  const dsl::Parsed p = dsl::parse(make_ld("  tcgen05_regs\n", ""), "test.bk");
  REQUIRE(p.ok());
  const check::Result r = check::check(p.kernel, check::Options{});
  CHECK(r.message.find("no tcgen05.wait::ld since it") != std::string::npos);
}
