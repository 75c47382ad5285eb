// A bounded SMT search for deadlocks and races: a second engine, apart from
// the explicit search, for cross-engine agreement (docs/checker.md, "The
// second engine"). The kernel is unrolled at its parameter values
// (bmc_fragment.hpp); Z3 then chooses the interleaving, one step per
// transition, and asks at each depth whether a violation or a deadlock is
// reachable. Its encoding of the rules it uses (spec/mbarrier.cpp,
// spec/named_barrier.cpp, spec/hb.cpp: the events' happens-before sets,
// releases, completions and acquires, the proxies) is a second expression
// of them, written against spec/ independently of step.cpp; the agreement
// test (tests/smt_bmc_test.cpp) checks it against the explicit search on
// generated and corpus kernels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "checker/ir.hpp"
#include "spec/violation.hpp"

namespace pc::smt {

struct BmcOptions {
  // Look only for this kind (Violation::deadlock for deadlocks); none: any.
  spec::Violation only = spec::Violation::none;
  // The peephole partial-order reduction (bmc.cpp); the agreement test
  // compares the search with and without it.
  bool reduction = true;
  // Search runs of at most this many steps (0: every run, to its end).
  int max_depth = 0;
  // Z3's resource limit for each depth's checks (its "rlimit", counted
  // alike on every machine; 0: none). Out of it, the result is `bounded`
  // at the depth before.
  std::uint64_t budget = 0;
};

struct BmcResult {
  // bounded: no violation in runs of up to max_depth steps, and some run
  // goes on past it.
  enum class Verdict : std::uint8_t { verified, violation, not_covered, bounded };
  Verdict verdict = Verdict::verified;
  spec::Violation kind = spec::Violation::none;
  std::string reason;              // not covered: what, with its line; bounded by the budget: where
  int depth = 0;                   // violation: the steps before it; verified: the longest run; bounded: max_depth
  std::vector<std::string> trace;  // violation: one line per step, then what fails
};

// The kernel at its parameter values. Throws check::KernelError for a kernel
// that cannot be instantiated.
[[nodiscard]] BmcResult bounded_search(const ir::Kernel& k, const BmcOptions& opt = {});

}  // namespace pc::smt
