// What a check of one kernel produces: the verdict, and for a violation the
// trace that reaches it. Output formats (text, JSON, SARIF, HTML) read this.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "checker/ir.hpp"
#include "spec/violation.hpp"

namespace pc::check {

struct TripShift;  // checker/trips.hpp

enum class Verdict : std::uint8_t { verified, violation, inconclusive };

// The verdict contract, in one place: what each outcome exits with, and
// which outcome wins over several files. check-kernel's exit status, the
// JSON `exit_code` and the text summary all come from here.
//
// Exit statuses are a contract (docs/cli.md): only ever extended.
enum class Exit : int { verified = 0, violation = 1, bad_input = 2, inconclusive = 3, internal = 4 };

// How a file's check ended when it reached no verdict: its input was bad (a
// parse error, a KernelError), or the checker itself failed (InternalError or
// any other exception: a defect, "please report").
enum class Failure : std::uint8_t { none, bad_input, internal };

[[nodiscard]] constexpr Exit exit_of(Verdict v) {
  switch (v) {
    case Verdict::verified: return Exit::verified;
    case Verdict::violation: return Exit::violation;
    case Verdict::inconclusive: return Exit::inconclusive;
  }
  return Exit::internal;
}

[[nodiscard]] constexpr Exit exit_of(Failure f, Verdict v) {
  switch (f) {
    case Failure::none: return exit_of(v);
    case Failure::bad_input: return Exit::bad_input;
    case Failure::internal: return Exit::internal;
  }
  return Exit::internal;
}

// Over several files the status is the worst: internal error, then bad
// input, then inconclusive, then violation, then verified.
[[nodiscard]] constexpr int severity(Exit e) {
  switch (e) {
    case Exit::verified: return 0;
    case Exit::violation: return 1;
    case Exit::inconclusive: return 2;
    case Exit::bad_input: return 3;
    case Exit::internal: return 4;
  }
  return 4;
}

[[nodiscard]] constexpr Exit worst(Exit a, Exit b) { return severity(b) > severity(a) ? b : a; }

// The outcome in the words of the text summary.
[[nodiscard]] constexpr const char* exit_name(Exit e) {
  switch (e) {
    case Exit::verified: return "verified";
    case Exit::violation: return "with a violation";
    case Exit::bad_input: return "bad input";
    case Exit::inconclusive: return "inconclusive";
    case Exit::internal: return "internal error";
  }
  return "?";
}

[[nodiscard]] constexpr const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::verified: return "verified";
    case Verdict::violation: return "violation";
    case Verdict::inconclusive: return "inconclusive";
  }
  return "?";
}

// One step of a counterexample: an agent's operation, or an async event.
struct TraceStep {
  int agent = -1;            // index into Result::agents; -1: an async event
  std::string text;          // e.g. "one: arrive full[1] (phase 3 -> 4)"
  ir::Loc loc;               // source line of the operation (of its issue, for async events)
  bool phase_completed = false;
  std::string object;        // the barrier whose phase completed, if any
  std::string acquired;      // a wait or test that passed with acquire semantics: its mbarrier
  bool blocked = false;      // the final step of a deadlock: this agent is blocked here
};

// The earlier of a race's two accesses, as the trace shows it.
struct EarlierAccess {
  std::size_t step = 0;      // 1-based index into Result::trace; 0: not found in the trace
  ir::Loc loc;
  int agent = -1;            // index into Result::agents
  std::string thread;        // the lane class or async unit, e.g. "consumer@cta1 (async MMA)"
  bool write = false;
  std::string proxy;         // "generic" or "async"
};

// A place besides a finding's own location that explains it: the
// declarations a shared-memory overflow adds up, where the CTA exits with an
// operation in flight, the arrive_expect_tx whose bytes a deadlocked wait
// never sees delivered. Text prints each as a `note:` line, JSON under
// `violation.related`, SARIF as a relatedLocation.
struct Related {
  ir::Loc loc;
  std::string message;
  std::size_t step = 0;      // 1-based index into Result::trace; 0: not a step of the trace (a declaration)
};

struct Agent {
  std::string name;          // e.g. "consumer#1@cta0"
  std::string role;
  int cta = 0;
  int instance = 0;
};

// A finding of a warning kind (spec::is_warning): the search went on past it.
struct Warning {
  spec::Violation kind = spec::Violation::none;
  std::string message;
  ir::Loc loc;
  int agent = -1;
};

// Instances of a warning kind are told apart by their location: a report
// lists the first finding at each, at most max_warnings of them.
inline constexpr std::size_t max_warnings = 100;
[[nodiscard]] inline bool same_instance(const Warning& a, const Warning& b) {
  return a.kind == b.kind && a.loc.line == b.loc.line && a.loc.col == b.loc.col;
}

// A statement that no interleaving executed (coverage of a verified search).
enum class UnreachedKind : std::uint8_t { statement, access, assertion };

struct Unreached {
  UnreachedKind kind = UnreachedKind::statement;
  ir::Loc loc;
  std::string role;
  std::string what;          // the statement in short: "read tile[0]", "assert", "x = ..."
};

// The state after some steps of a replayed schedule (--replay TOKEN --steps N).
struct Position {
  int agent = 0;             // index into Result::agents
  ir::Loc loc;               // the statement it is at (line 0: exited)
  std::string status;        // "exited", "at: wait full[0] parity 1", "blocked: ..."
};

struct ObjectState {
  std::string name;          // "full[0]", "named barrier 1@cta0", "cluster barrier"
  std::string state;         // "phase 1 (parity 1), pending 1 of 1, tx 0"
};

struct Snapshot {
  bool taken = false;
  std::size_t step = 0;      // trace steps done (0: the initial state)
  std::vector<Position> agents;
  std::vector<ObjectState> objects;
  std::vector<std::string> in_flight;  // pending async events, in words
};

// Where a search's states come from (--profile-states): of the states
// stored, how many have each agent at each line, each mbarrier at each
// phase, each agent's loop variable at each value while the agent is in
// that loop. Counted once per state, when it is first stored.
struct StateProfile {
  struct Line {
    int agent = 0;             // index into Result::agents
    int line = 0;              // 0: the agent has exited (or is at the end of its code)
    std::uint64_t states = 0;
  };
  struct Phase {
    std::string mbarrier;      // "full[0]", "empty[1]@cta1"
    std::uint32_t phase = 0;   // completed phases
    std::uint64_t states = 0;
  };
  struct Trip {
    int agent = 0;
    std::string var;           // the loop variable
    int line = 0;              // the loop's `for` line
    std::int64_t value = 0;
    std::uint64_t states = 0;
  };
  bool taken = false;
  // The search counted where it is not the result's: --prove's, which
  // stopped at a limit before it closed (the result is then the explicit
  // search's at the given value).
  std::string of;
  std::uint64_t states = 0;    // the states counted: every state stored
  std::vector<Line> lines;     // the most states first (then by agent, line)
  std::vector<Phase> phases;   // by barrier, then phase
  std::vector<Trip> trips;     // by agent, loop, then value
};

struct Result {
  Verdict verdict = Verdict::verified;
  // The first finding of each warning kind at each location (none under
  // `strict`), grouped by kind (the kinds in the order the search met them),
  // at most max_warnings; warnings_capped: the search met more.
  std::vector<Warning> warnings;
  bool warnings_capped = false;
  spec::Violation violation = spec::Violation::none;
  std::string message;       // one line: what went wrong, where
  ir::Loc loc;               // the violating operation
  int agent = -1;            // the violating agent (-1: none / global)
  EarlierAccess earlier;     // a race: the other access (step 0 when none)
  std::vector<Related> related;  // further places that explain the violation (checker/cause.hpp)
  std::vector<Agent> agents;
  std::vector<TraceStep> trace;
  std::string replay;        // token that re-runs exactly this schedule (--replay)
  std::string inconclusive_reason;  // "max-states", "timeout", "max-memory", "interrupted"
  // Which limit stopped an inconclusive search, at what value, and how to
  // raise it ("the search stored more than 50000000 states, the default
  // --max-states: ..."); empty where none did.
  std::string stop_detail;
  // --prove: the trip count of the violation's schedule (-1: none); for a
  // proof, what it covers ("every K_TILES >= 1"); for none, why
  // ("not proved for every K_TILES: ..."; inconclusive_reason "not-proved",
  // or the limit the search stopped at before it closed).
  std::int64_t trip_value = -1;
  std::string proved_for;
  std::string not_proved;
  // --prove, when the proof does not cover the kernel and the explicit
  // search at the given value verifies: that value ("K_TILES=2").
  std::string verified_at;
  std::uint64_t states = 0;  // distinct states stored
  std::uint64_t transitions = 0;
  std::uint64_t max_depth = 0;
  double seconds = 0;
  std::uint64_t memory_bytes = 0;  // state storage
  // Agent steps whose outcome the step cache held (checker/step_cache.hpp):
  // not run again, their successors' fingerprints taken from it.
  std::uint64_t step_cache_hits = 0;
  // States expanded from their bytes alone, the cache answering for every
  // agent (neither loaded nor stepped).
  std::uint64_t step_cache_states = 0;
  bool coverage = false;     // `unreached` is known (a verified search, not a replay)
  std::vector<Unreached> unreached;  // statements no interleaving executed, in source order
  Snapshot snapshot;         // with Options::steps
  // With Options::record_states: the initial state, then the state after each
  // trace step (after the operations the reduction runs with it), one more
  // than the trace's steps.
  std::vector<Snapshot> step_states;
  StateProfile profile;      // with Options::profile_states
  // What the user should know of how the search ran: a reduction asked for
  // that the kernel is too large for ("the partial-order reduction is off:
  // ..."). Printed with the input's notes.
  std::vector<std::string> notes;
};

// What a `# expect:` line names: "verified", "inconclusive", or the violation.
[[nodiscard]] inline std::string outcome_name(const Result& r) {
  switch (r.verdict) {
    case Verdict::verified: return "verified";
    case Verdict::inconclusive: return "inconclusive";
    case Verdict::violation: return std::string(spec::violation_name(r.violation));
  }
  return "?";
}

struct Options {
  // An agent's private operations run at once, merged into its next step:
  // what a step of a schedule (a replay token's 'R') includes.
  [[nodiscard]] bool merges_private() const { return reduction && private_steps; }
  bool reduction = true;             // partial-order and symmetry reductions
  bool partial_order = true;         // with `reduction`: also between shared steps of different agents
  // With `reduction`, each reduction on its own can be turned off (the
  // tests' floors on what each removes, tests/reduction_floor_test.cpp):
  bool symmetry = true;              // a state stored by its canonical representative (reduce/symmetry.hpp)
  bool private_steps = true;         // an agent's private operations run at once (reduce/local.hpp)
  // The state cap: --max-states, by default 50 million (docs/cli.md).
  std::uint64_t max_states = 50'000'000;
  std::uint64_t max_memory_mb = 8192;
  double timeout_s = 0;              // 0: none
  std::string replay;                // non-empty: follow this schedule only
  bool progress = false;             // a progress line on stderr every few seconds
  bool strict = false;               // warning kinds are violations (--strict)
  bool check_reduction = false;      // test the partial-order reduction where it applies (--check-reduction); InternalError if it fails
  // Agent steps kept and reused where the same agent part meets the same
  // shared parts (checker/step_cache.hpp; --no-step-cache turns it off).
  bool step_cache = true;
  bool check_step_cache = false;     // every reused step taken again and compared (tests); InternalError if it differs
  // Parameter values given on the command line (--param): replay tokens carry
  // them, so that a printed replay command runs as printed.
  std::vector<std::pair<std::string, std::int64_t>> params;
  long long steps = -1;              // with `replay`: the state after this many trace steps (--steps)
  // Threads of the search (--threads): 0, all cores (std::thread::hardware_concurrency);
  // 1, the one-thread search. Any number gives the result of one thread (docs/checker.md).
  unsigned threads = 0;
  // The search over the ranks of an MPI job (--distributed, under mpirun;
  // checker/search/mpi/distributed.cpp), `threads` threads a rank (0: one).
  bool distributed = false;
  // --swarm N: N randomized depth-first searches with bitstate hashing, a
  // bug hunt (checker/search/swarm.cpp); 0: the exhaustive search.
  unsigned swarm = 0;
  // With swarm: the deepest schedule a search follows (--max-depth).
  std::uint64_t swarm_depth = 10000;
  // With threads: a breadth-first level of fewer states is expanded by one
  // thread (the same code, without waking the others). Tests set 1.
  std::uint32_t parallel_min_level = 64;
  // With threads: the visited table's first size in cache lines, 0 for its
  // own. Tests set 1, so that it grows often and its inserts run out of room.
  std::uint32_t parallel_table_lines = 0;
  // Keep the state after every trace step in Result::step_states (--trace-html).
  bool record_states = false;
  // Count where the stored states come from (StateProfile; --profile-states).
  bool profile_states = false;
  // --prove: one search for every value of a trip-count parameter
  // (checker/trips.hpp), as checker/smt/trips.cpp proved the shift.
  std::shared_ptr<const TripShift> trips;
};

}  // namespace pc::check
