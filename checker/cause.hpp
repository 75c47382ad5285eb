// Where a finding's cause is, when that is not where it shows: a CTA's exit
// with a TMA store, a wgmma or a cp.async-group still in flight is located at
// the operation never waited for, the exit a related location; a
// shared-memory overflow at the declaration that takes the CTA past the
// limit, the others related; a deadlocked wait on an mbarrier whose
// tx-count or pending count never reaches zero names the bytes expected and
// delivered and the arrivals made, with the arrive_expect_tx (expect_tx,
// arrive) operations of that phase as related locations, or says that no
// operation of the kernel arrives on the barrier. The rules stay in spec/:
// this file reads the states a trace passes through and only chooses the
// places to report (Result::loc, Result::related) and adds words.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "checker/result.hpp"
#include "checker/state.hpp"
#include "checker/step.hpp"

namespace pc::check {

// Watches the steps of a trace while describe() (trace.cpp) replays it.
class Causes {
 public:
  Causes(const Program& p, const State& initial);
  // Trace step `step` (1-based) of `agent` (-1: an async event) at `loc` ran; `after` is the state after it.
  void observe(std::size_t step, int agent, ir::Loc loc, const State& after);
  // `agent`'s step from `before` raised r.violation: where it is exit_with_pending
  // raised by the CTA's exit, r is located at the operation still in flight.
  void exit_pending(const State& before, int agent, Result& r) const;
  // The deadlock in `s` (r.message already says what each agent waits for):
  // why the phases its waits wait for never complete.
  void deadlock(const Stepper& st, const State& s, Result& r) const;

 private:
  struct Mark {
    std::size_t step = 0;
    ir::Loc loc;
    std::int64_t amount = 0;  // bytes expected or delivered, or arrivals
  };
  // What the trace did in the current phase of one mbarrier instance.
  struct Phase {
    std::vector<Mark> expects, delivers, arrives;
  };
  // The agent's last operation issued into each of its async groups.
  struct Issued {
    Mark bulk, mma, cp;
    Mark cp_committed;  // the last cp.async before the agent's last cp.async commit
    // Per CTA, the agent's last synchronous operation on it from another
    // CTA (a remote arrive, expect_tx, complete_tx or access: the CTA-end
    // rule, spec::sync_order::remote_operation); empty until one.
    std::vector<Mark> remote;
  };
  void explain(const State& s, int m, Result& r, std::string& why) const;
  const Program& p_;
  std::vector<spec::mbarrier::State> last_;
  std::vector<Phase> phases_;
  std::vector<Issued> issued_;
};

// The kernel's shared memory past a CTA's limit (spec::rules::smem_footprint):
// the violation, located at the declaration that takes it past, the others
// that take memory as related locations; none when it fits.
[[nodiscard]] std::optional<Result> smem_overflow(const ir::Kernel& k);

// Whether any operation of the kernel arrives on mbarrier declaration `decl`
// (an arrive of any form, cp.async.mbarrier.arrive, tcgen05.commit).
[[nodiscard]] bool kernel_arrives_on(const ir::Kernel& k, int decl);

}  // namespace pc::check
