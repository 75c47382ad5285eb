// --prove (docs/checker.md, "Every trip count"), its part of the language
// module: one search for every value of a trip-count parameter N. N becomes
// a variable of every role, undecided at the start (every check `k < N`
// passes) with a lower bound L; the trip oracle, two processes of the model,
// decides it at the least value the runs so far allow, or raises L by one.
// An agent that would read N through a comparison (`if k + 1 < N`) while N
// is undecided and L does not settle the comparison waits at that gate until
// the oracle decides or raises. The key that lets the search close is a
// reduction (checker/reduce/trips.hpp); checker/smt/trips.cpp proves what it
// needs.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "checker/ir.hpp"
#include "checker/program.hpp"
#include "checker/state.hpp"

namespace pc::check {

// N, undecided with lower bound L, is trip_undecided + L: every trip check
// passes, and a comparison that L settles has N's value for every N >= L.
inline constexpr std::int64_t trip_undecided = std::int64_t{1} << 50;
[[nodiscard]] inline bool trip_is_undecided(std::int64_t n) { return n >= trip_undecided / 2; }
// The variable standing for N in every role of the kernel trip_kernel makes.
inline constexpr int trip_var = ir::num_builtin_vars;
// Nested trip loops (`for t in lo .. C:` around `for k in lo .. N:`): each
// pass of the outer loop has its own N (trip_var: the agent's pass's), all of
// one residue modulo P; N's value outside a comparison reads trip_class, that
// residue's least value at or above N's least, known once pass 0 has decided.
inline constexpr int trip_class = ir::num_builtin_vars + 1;
// And, from trip_table, each pass's N (the first agent's copy is the table;
// -1: no agent has begun the pass), which an agent that begins a pass takes.
inline constexpr int trip_table = ir::num_builtin_vars + 2;

// What the key shifts, as checker/smt/trips.cpp derived and proved it.
struct TripShift {
  int param = -1;                  // the trip-count parameter (index into Kernel::params)
  std::int64_t period = 1;         // P
  std::int64_t threshold = 0;      // T: the least counter a shifted key keeps
  std::int64_t least = 1;          // the smallest N (the parameter's declared lower bound)
  // Per role: its trip loop's counter (a variable of trip_kernel's roles; -1:
  // none), and the variables shifted with their coefficients (the counter's
  // is its scale).
  std::vector<int> counter;
  std::vector<std::vector<std::pair<int, std::int64_t>>> shifted;
  // Per role: the trip loop's bound is scale * N (`for i in 0 .. TILES * N`).
  std::vector<std::int64_t> scale;
  // Per role: the `if`s around its trip loop (condition, branch taken: true
  // for the body), which read only an agent's CTA, instance and warp: an
  // agent whose values fail one does not run the loop.
  std::vector<std::vector<std::pair<ir::ExprId, bool>>> guards;
  // Nested trip loops: per role, the outer loop's counter (-1: none) and its
  // first value and bound (constants), and the variables that equal the
  // real run's up to a multiple of P at or above 0 (values computed from
  // trip_class: `base = t * N`), which the key requires to be at or above 0.
  bool nested = false;
  int passes = 1;  // the outer loops' largest count
  std::vector<int> outer;
  std::vector<std::int64_t> outer_lo, outer_hi;
  std::vector<std::vector<int>> modular;
};

// The search met a state the proof does not cover (a shifted variable below
// zero): the verdict is "not proved", with the reason.
struct NotProved : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The kernel with N a variable of every role (index trip_var; the variables
// after it move up by one), read wherever N was. Nested (passes > 0):
// trip_class too, read wherever N is read other than by a comparison
// `x REL a * N + r` (a >= 1) or as a loop's bound, and the table of passes'
// N (the variables after trip_var move up by 2 + passes).
[[nodiscard]] ir::Kernel trip_kernel(const ir::Kernel& k, int param, int passes = 0);

// A comparison `other REL side` that reads N, where side is a * N + R
// (a >= 1; R and other do not read N): its value is the same for every
// N >= floor((other - R) / a) + 1, its threshold.
struct TripThreshold {
  ir::ExprId other = ir::no_expr;
  ir::ExprId side = ir::no_expr;
  std::int64_t scale = 1;  // a
};

// Whether e reads N (trip_var).
[[nodiscard]] bool trip_reads(const std::vector<ir::Expr>& ex, ir::ExprId e);
// The comparisons through which e reads N, appended to out; false if e reads
// N other than through a comparison `other REL a * N + R` (a >= 1).
[[nodiscard]] bool trip_thresholds(const std::vector<ir::Expr>& ex, ir::ExprId e, std::vector<TripThreshold>& out);

// The shift's data per agent of a program of trip_kernel's kernel.
struct TripPlan {
  bool active = false;
  TripShift shift;
  std::vector<int> counter;                                        // per agent: index into State::vars, -1 (none, or it does not run it)
  std::vector<std::int64_t> scale;                                 // per agent: its trip loop's scale
  std::vector<std::vector<std::pair<int, std::int64_t>>> shifted;  // per agent: (index into State::vars, coefficient)
  std::vector<std::pair<int, int>> loop;                           // per agent: its trip loop's code, [branch, end)
  // Nested: per agent, its outer loop's counter (index into State::vars; -1:
  // none) and code [branch, end), and its modular variables (State::vars).
  std::vector<int> outer;
  std::vector<std::pair<int, int>> outer_loop;
  std::vector<std::vector<int>> modular;
  // Per role, per instruction: an assignment to the outer counter (a pass begins).
  std::vector<std::vector<char>> pass_hook;
  // Per role, per instruction: the comparisons through which an assignment
  // or a branch reads N (none: not a gate). The trip loop's own branch is none.
  std::vector<std::vector<std::vector<TripThreshold>>> gates;
  // Per role, per instruction (and one past the end): the variables that may
  // be read before they are assigned from there (a bit per variable, as
  // words); the key does not shift a dead variable, it sets it to 0.
  std::vector<std::vector<std::vector<std::uint64_t>>> live;
  // Per role, per kind of async group (bulk, mma, cp.async): whether its
  // code waits for groups of that kind (a wait_group), which compares their
  // accesses' groups with the groups it retires (checker/reduce/trips.cpp).
  std::vector<std::array<char, 3>> group_waits;
};
// Whether variable v (of its role) of agent a may be read before it is
// assigned from where a is.
[[nodiscard]] bool trip_live(const TripPlan& plan, const Program& p, const State& s, std::size_t a, int v);
[[nodiscard]] TripPlan make_trip_plan(const Program& p, const std::shared_ptr<const TripShift>& shift);

// The initial state's N: undecided, at least the least N.
void trip_start(const TripPlan& plan, const Program& p, State& s);
// Whether agent a may take its next instruction: false only where it is a
// gate, N is undecided, and the lower bound the agent knows (L, and one more
// than its trip) is below a comparison's threshold.
[[nodiscard]] bool trip_gate_open(const TripPlan& plan, const Program& p, const State& s, int a);
// The trip oracle's first process: N := the least value the state allows
// (L, and one more than the highest trip entered); false if N is decided
// already, or no agent has entered the least N's last trip and none waits at
// a gate.
bool trip_decide(const TripPlan& plan, const Program& p, State& s);
// Its second: L := that least value plus one (N is larger); false if N is
// decided or no agent waits at a gate.
bool trip_raise(const TripPlan& plan, const Program& p, State& s);
// One more than the trip agent a has entered, in N's units (floor(k /
// scale) + 1), into bound, where a is inside its trip loop's body; else false.
bool trip_entered(const TripPlan& plan, const State& s, std::size_t a, std::int64_t& bound);
// N's lower bound in an undecided state (L, and one more than the highest
// trip entered), or N where it is decided: of the lowest pass an agent is in
// (nested loops; the one pass otherwise).
[[nodiscard]] std::int64_t trip_least(const TripPlan& plan, const Program& p, const State& s);
// Nested: pass q's N in the table.
[[nodiscard]] inline std::int64_t& trip_pass_n(const Program& p, State& s, int q) {
  return s.vars[static_cast<std::size_t>(p.var_base[0] + trip_table + q)];
}
[[nodiscard]] inline std::int64_t trip_pass_n(const Program& p, const State& s, int q) {
  return s.vars[static_cast<std::size_t>(p.var_base[0] + trip_table + q)];
}
// The same for pass q.
[[nodiscard]] std::int64_t trip_least_of(const TripPlan& plan, const Program& p, const State& s, int q);
// The pass agent a is in: its outer counter less the first value inside
// the outer loop, 0 before it (and for a single trip loop), -1 past it or
// where a runs no trip loop.
[[nodiscard]] int trip_pass(const TripPlan& plan, const Program& p, const State& s, std::size_t a);
// The pass the oracle's next decision or raise is for (-1: none).
[[nodiscard]] int trip_oracle_pass(const TripPlan& plan, const Program& p, const State& s, bool decide);
// Nested: agent a has just assigned its outer counter at instruction pc. A
// new pass takes the N of an agent already in it, or an undecided N of the
// class (its lower bound the least value of the class at or above N's least).
void trip_pass_begins(const TripPlan& plan, const Program& p, State& s, std::size_t a, std::size_t pc);
}  // namespace pc::check
