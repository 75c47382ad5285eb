// What the processes outside a persistent set can still do, run ahead from
// the state, for the partial-order reduction (checker/footprint.cpp;
// docs/checker.md, "Runs of the processes outside the set").
//
// Each outside agent is run ahead from where it is, alone, on its own
// variables: along every path of its code (a value it cannot know, from a
// query, a read or a token, takes both branches) it counts the arrivals of
// each step on each mbarrier (an arrive's count times its lanes; a
// tcgen05.commit's or a cp.async.mbarrier.arrive's arrival at its issue) and
// the bytes it completes on it (an st.async's or complete-tx's; a TMA load's
// or a launch-control request's, not bounded), and visits each step's
// footprint. A path ends at its exit, or where it waits by
// parity on a barrier of the frozen set F whose phase it must see complete;
// everything else (other blocking operations, barriers outside F) is taken
// to pass, which only adds paths.
//
// The cluster barrier likewise: where a member of the set is a live agent
// that has not arrived on the barrier's current instance, no step outside the
// set completes it (it waits for every non-exited thread of the cluster:
// spec/cluster.hpp), so a run held there (Query::hold_cluster) ends at a wait
// that must see the current instance complete (the wait of an arrive on it,
// made in the run or before), and never arrives on the next one.
//
// Named barriers likewise (F's named part): a slot whose instance in
// progress the outside runs' arrivals cannot complete (they stay below its
// threads still expected, or, with none arrived yet, below the one count
// every operation gives the slot) holds, and a run ends at a bar.sync
// or bar.red on it (its wait for that instance). A slot every operation
// gives no count (the whole CTA: `__syncthreads`, `bar.sync 0`) expects the
// CTA's live threads less those arrived, and an exit counts as its threads'
// arrivals there (an exit lowers what the instance waits for:
// spec::named::on_exit); a slot some operations give a count and others
// none is never held.
//
// F is valid for a set of outside processes when, for each of its barriers,
// their runs' arrivals and the arrivals in flight among them stay below its
// pending count, or their bytes and those of the landings in flight among
// them stay below its tx-count. Then no run of their steps completes a phase
// of F: the first step that did would lie on paths the runs took (every
// barrier of F still in its phase before it), so the arrivals or bytes before
// it and its own are at most the bound, below what is pending (an expect-tx
// only raises the tx-count). So the steps of such a run are
// on the runs' paths: their footprints are the processes' futures, and an
// mbarrier of F is not completed by them, with what a member adds where that
// keeps below its pending count. The greatest valid F is found from every
// live barrier with arrivals or bytes pending, dropping each whose bounds
// reach what is pending until none does. A valid F stays valid for fewer outside
// processes. An init or inval of a barrier on some path bounds nothing on
// it; a count not known, or more paths than the budget, bounds nothing.
#pragma once

#include <cstdint>
#include <vector>

#include "checker/program.hpp"
#include "checker/state.hpp"

namespace pc::check {

// Larger than any pending count: no bound.
inline constexpr std::int64_t unbounded = std::int64_t{1} << 40;

class PhaseBounds {
 public:
  explicit PhaseBounds(const Program& p);

  // False where the kernel has more mbarrier instances than a mask holds.
  [[nodiscard]] bool usable() const { return usable_; }

  // What a run visits, into a future's footprint: each step it takes (vars:
  // the path's variables, nullptr where one is not known), and each exit
  // (op nullptr).
  struct Visitor {
    virtual void visit(std::uint64_t* future, int agent, int pc, const ir::Op* op, const std::int64_t* vars) const = 0;

   protected:
    ~Visitor() = default;
  };

  // One state's runs, for any set of outside processes (agents 0..n-1, then
  // the pending events). The runs depend only on F and are kept across sets.
  class Query {
   public:
    // `movers`: the agents that may count on (arrive, complete bytes), init
    // or inval an mbarrier from where they are (the others add nothing to a
    // bound). `width`:
    // the words of a future, which `v` fills.
    Query(const PhaseBounds& b, const State& s, std::uint64_t movers, int width, const Visitor& v);
    // F: the mbarrier instances (bit m), and the named-barrier slots (bit
    // cta * named_used + slot), whose phase or instance the outside runs do
    // not complete.
    struct Frozen {
      std::uint64_t mbars = 0, named = 0;
      bool operator==(const Frozen&) const = default;
    };
    // The greatest F valid for the processes `outside`.
    [[nodiscard]] Frozen frozen(std::uint64_t outside);
    // Whether the phase of mbarrier instance m cannot complete by the steps
    // of the processes `outside` alone, with `own` more arrivals added at
    // any point.
    [[nodiscard]] bool quiet(int m, std::int64_t own, std::uint64_t outside);
    // Whether the tx-count of mbarrier instance m stays above 0 by the steps
    // of the processes `outside` alone, with `own` more bytes completed at
    // any point.
    [[nodiscard]] bool quiet_bytes(int m, std::int64_t own, std::uint64_t outside);
    // Whether named-barrier slot n's instance in progress takes the
    // arrivals of the processes `outside` and `own` more threads without
    // completing before the last of them (so that none goes on to the next
    // instance), and cannot complete by their steps alone.
    [[nodiscard]] bool quiet_named(int n, std::int64_t own, std::uint64_t outside);
    // Everything agent a may do in runs of outside steps where F is `frozen`
    // (valid for them): nullptr where its run bounds nothing.
    [[nodiscard]] const std::uint64_t* future(const Frozen& frozen, int agent);
    // From now on, runs end at a wait on the cluster barrier's current
    // instance (`on`: a member of every set asked about is a live agent that
    // has not arrived on it), or take every cluster wait to pass.
    void hold_cluster(bool on) { held_ = on; }

   private:
    const PhaseBounds& b_;
    const State& s_;
    int mbars_ = 0, width_ = 0;
    const Visitor& visitor_;
    std::uint64_t movers_ = 0;
    std::uint64_t initial_ = 0;  // F's start: the live barriers with arrivals pending
    std::uint64_t initial_named_ = 0;  // and the named slots with a known count
    std::vector<std::int64_t> pending_named_;  // per named slot: the threads its instance still expects
    bool held_ = false;          // hold_cluster
    struct Runs {
      Frozen frozen;
      bool held = false;
      std::vector<std::uint8_t> done;    // per agent: 1 run, 2 run and bounded
      std::vector<std::int64_t> most;    // per agent and barrier: the most arrivals (bytes; named-slot threads) along any path
      std::vector<std::uint64_t> future; // per agent: the union of its paths' footprints
    };
    std::vector<Runs> runs_;  // per F tried in this state
    Runs& runs(const Frozen& frozen, int agent);
    // The bounds for `outside` under `frozen`, into bound_.
    void bounds(const Frozen& frozen, std::uint64_t outside);
    std::vector<std::int64_t> bound_;
    // What bound_ and the last frozen() answer were computed for: a set's
    // closure asks about the same outside processes for many barriers.
    struct Key {
      std::uint64_t outside = 0;
      Frozen frozen;
      bool held = false, valid = false;
      bool operator==(const Key&) const = default;
    };
    Key bound_key_, frozen_key_;
    Frozen frozen_answer_;
  };

 private:
  const Program& p_;
  bool usable_ = false;
  // Named-barrier slots (cta * named_used + slot), where at most 64: the
  // constant count every operation gives each (whole_only: every one gives
  // none; 0: two differ, one may give none, or one is not known), and how
  // many there are (0: none held).
  static constexpr std::int64_t whole_only = -1;
  std::vector<std::int64_t> slot_min_;
  int slots_ = 0;
  [[nodiscard]] int most_width() const { return 2 * p_.num_mbars() + slots_; }
  std::uint64_t owner_ = 0;  // names its runs in the thread's memo (phase_bound.cpp)
  // Runs agent a ahead from where it is in s, F as `frozen`: the most
  // arrivals on each barrier along any path into most[0..num_mbars), each
  // step's footprint through v into future; `held`: the cluster barrier's
  // current instance does not complete (Query::hold_cluster). False where it
  // bounds nothing.
  bool run(const State& s, int a, const Query::Frozen& frozen, bool held, std::int64_t* most, const Visitor& v,
           std::uint64_t* future) const;
};

}  // namespace pc::check
