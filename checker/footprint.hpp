// What each step may read and write, for the partial-order reduction between
// agents (checker/reduce/partial_order.cpp, docs/checker.md "Reductions"). A
// footprint is two sets of resources, those a step reads and those it writes:
// an mbarrier instance, a buffer instance, a named-barrier slot of one CTA,
// the liveness of one CTA (what exits and what targets a CTA from outside or
// through async operations), the cluster barrier, the order of an agent's
// tcgen05.commit arrivals, a CTA's tensor-memory allocations and, apart,
// its allocation permit and pair collective, cluster launch control and,
// apart, the failures each CTA observed, and a marker that an arrive on the
// cluster barrier reads. Two steps of different agents that write nothing the other
// reads or writes commute and cannot change each other's enabledness or
// outcome: every other part of the state they touch is their own (variables,
// control state, their own threads' columns of happens-before; see
// docs/checker.md for the case analysis of spec/hb).
//
// The footprint of the step an agent is about to take is exact (its indices
// are evaluated); what other agents may do later is static and coarse (an
// index or CTA that depends on a variable stands for every one), or, where
// that keeps more than one step, the union over the runs of each agent from
// where it is (checker/phase_bound.hpp): larger than the truth is safe, it
// only reduces less.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "checker/phase_bound.hpp"
#include "checker/program.hpp"
#include "checker/state.hpp"

namespace pc::check {

class Footprints {
 public:
  explicit Footprints(const Program& p);

  // False when the kernel has more resources than the sets hold: no reduction.
  [[nodiscard]] bool usable() const { return words_ > 0; }
  // Why not, for the user: "" where usable.
  [[nodiscard]] std::string unusable_reason() const;

  // A persistent set at s, as a mask over the processes (agents 0..n-1,
  // then the pending events): the enabled next steps of the processes in it
  // are the only successors that need to be stored. `seeds`: the processes
  // that may be enabled (the others surely are not). Built from each seed,
  // the smallest; 0 when every live process is needed (or the kernel has
  // more than 64 processes).
  [[nodiscard]] std::uint64_t persistent(const State& s, std::uint64_t seeds) const;

 private:
  class FutureVisitor;
  const Program& p_;
  int words_ = 0;      // 64-bit words per set of resources; 0 when unusable
  int mbar_base_ = 0, buf_base_ = 0, named_base_ = 0, alive_base_ = 0, cluster_ = 0, commits_base_ = 0, tmem_base_ = 0, tmem_pair_base_ = 0, clc_ = 0, clc_seen_ = 0, cluster_join_ = 0, wgmma_join_ = 0, count_ = 0;
  // Per buffer instance, its resource; -1 where it needs none: no agent
  // touches it, or one agent only, with plain reads and writes (no async
  // operation, no alias another touches), which commute with every other
  // process's step (private_buffers).
  std::vector<int> buf_res_;
  std::vector<int> code_base_;          // per agent: its first row in step_ and future_
  std::vector<std::uint64_t> step_;     // per agent and pc (pc == code size: the exit at the end)
  std::vector<std::uint64_t> future_;   // the union over every pc reachable from this one, with the async events each issues
  std::vector<int> cta_of_;             // per agent: its CTA
  std::vector<int> group_first_;        // per agent: the first agent of its warp group (a role split per warp), else itself
  [[nodiscard]] int group_first(int agent) const { return group_first_[static_cast<std::size_t>(agent)]; }
  std::vector<bool> cluster_arrive_;    // per agent: its code has a cluster_arrive (an arrive with no wait)
  std::vector<bool> whole_slot_;        // per named slot: an exit may complete it (used with no thread count, or AMD's)
  std::vector<bool> whole_only_;        // per named slot: every op on it is for the whole CTA (no count, or bar.sync's 0), none AMD's
  PhaseBounds phases_;                  // arrivals from outside the set (`quiet`)

  // A footprint: four parts of words_ words each, of resources read,
  // written (a write also reads), counted on and arrived on. The last two
  // are an mbarrier's: an op that counts (an arrive, expect-tx or
  // complete-tx, a landing) changes only the pending count, the tx-count and
  // what the phase releases, all sums, and commutes with another that counts
  // and with a wait as long as the phase does not complete
  // (persistent(), `quiet`); one that arrives also counts and may lower the
  // pending count. A write is any other change (init, inval, an arrive whose
  // state token is kept).
  enum Part { read_part = 0, write_part = 1, count_part = 2, arrive_part = 3, parts = 4 };
  using Set = std::uint64_t*;
  // The footprint of `agent` at `pc` in step_ or future_.
  template <class V>
  auto row(V& v, int agent, int pc) const {
    return v.data() + static_cast<std::size_t>(code_base_[static_cast<std::size_t>(agent)] + pc) * static_cast<std::size_t>(parts * words_);
  }
  // A resource < 0 is none: a buffer instance only one agent touches (buf_res_).
  void mark(Set set, Part part, int resource) const {
    if (resource >= 0) set[part * words_ + resource / 64] |= std::uint64_t{1} << (resource % 64);
  }
  // The resource of buffer instance `inst`, or -1 (buf_res_).
  [[nodiscard]] int buf(int inst) const { return buf_res_[static_cast<std::size_t>(inst)]; }
  void reads(Set set, int resource) const { mark(set, read_part, resource); }
  void writes(Set set, int resource) const { mark(set, write_part, resource); }
  void counts(Set set, int resource) const { mark(set, count_part, resource); }
  void arrives(Set set, int resource) const { mark(set, count_part, resource), mark(set, arrive_part, resource); }
  void all(Set set) const;
  // With `vars` (the agent's variables now) every index and CTA expression is
  // evaluated; without, only constant ones, and the rest stand for all. With
  // `events`, also what the async events the op leaves behind touch when
  // they land (part of the agent's future, not of its step).
  void op_footprint(const ir::Op& op, int agent, const std::int64_t* vars, bool events, Set set) const;
  // At most how many arrivals an arrive op makes (its count times the lanes
  // that execute it); -1 when that is not known.
  [[nodiscard]] std::int64_t max_arrivals(const ir::Op& op, int agent, const std::int64_t* vars) const;
  // An exit's, but the liveness of its CTA and the reads of its tensor
  // memory's allocator, which only the last one of the CTA's agents to exit
  // makes (persistent() adds them where that may be).
  void exit_footprint(int cta, Set set) const;
  // Whether footprint `set` writes what the last exit of CTA `cta` reads
  // (its tensor-memory allocator, and its peer's collective in flight).
  [[nodiscard]] bool last_exit_reads(int cta, const std::uint64_t* set) const;
  void pending_footprint(const Pending& e, Set set) const;
  // Buffers and mbarriers that share bytes (Program::aliases) touch each
  // other: the resources of the aliases of every member join the set.
  std::vector<std::pair<int, std::vector<int>>> alias_res_;
  void close_aliases(Set set) const;
  [[nodiscard]] bool known(ir::ExprId e, const std::int64_t* vars, std::int64_t& value) const;
  // An expression of constants and the agent's builtins only.
  [[nodiscard]] bool builtin_only(ir::ExprId e) const;
  // Per buffer instance, whether it needs a resource (footprint.cpp).
  [[nodiscard]] std::vector<bool> shared_buffers();
  // While the static rows are built: the agent's builtins (the rest 0); an
  // expression with another variable is not known from them.
  std::vector<std::int64_t> builtins_;
  // The CTAs a reference may name: its own, the known one, or all.
  template <class F>
  void ctas_of(ir::ExprId cta_expr, int own, const std::int64_t* vars, F&& f) const;
};

}  // namespace pc::check
