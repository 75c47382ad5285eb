// --prove (docs/checker.md, "Every trip count"), its part of the language
// module: one search for every value of a trip-count parameter N. N becomes
// a variable of every role, undecided at the start (every check `k < N`
// passes); the trip oracle, a process of the model, decides it at one more
// than the highest trip an agent has entered. The key that lets the search
// close is a reduction (checker/reduce/trips.hpp); checker/smt/trips.cpp
// proves what it needs.
#pragma once

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

// N, undecided: every trip check passes.
inline constexpr std::int64_t trip_undecided = std::int64_t{1} << 50;
// The variable standing for N in every role of the kernel trip_kernel makes.
inline constexpr int trip_var = ir::num_builtin_vars;

// What the key shifts, as checker/smt/trips.cpp derived and proved it.
struct TripShift {
  int param = -1;                  // the trip-count parameter (index into Kernel::params)
  std::int64_t period = 1;         // P
  std::int64_t threshold = 0;      // T: the least counter a shifted key keeps
  std::int64_t least = 1;          // the smallest N (the parameter's declared lower bound)
  // Per role: its trip loop's counter (a variable of trip_kernel's roles; -1:
  // none), and the variables shifted with their coefficients (the counter 1).
  std::vector<int> counter;
  std::vector<std::vector<std::pair<int, std::int64_t>>> shifted;
};

// The search met a state the proof does not cover (a shifted variable below
// zero): the verdict is "not proved", with the reason.
struct NotProved : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The kernel with N a variable of every role (index trip_var; the variables
// after it move up by one), read wherever N was.
[[nodiscard]] ir::Kernel trip_kernel(const ir::Kernel& k, int param);

// The shift's data per agent of a program of trip_kernel's kernel.
struct TripPlan {
  bool active = false;
  TripShift shift;
  std::vector<int> counter;                                        // per agent: index into State::vars, -1
  std::vector<std::vector<std::pair<int, std::int64_t>>> shifted;  // per agent: (index into State::vars, coefficient)
  std::vector<std::pair<int, int>> loop;                           // per agent: its trip loop's code, [branch, end)
};
[[nodiscard]] TripPlan make_trip_plan(const Program& p, const std::shared_ptr<const TripShift>& shift);

// The initial state's N: undecided.
void trip_start(const TripPlan& plan, const Program& p, State& s);
// The trip oracle: N := M + 1, M the highest trip any agent has entered;
// false if N is decided already or M + 1 is below the least N.
bool trip_decide(const TripPlan& plan, const Program& p, State& s);
}  // namespace pc::check
