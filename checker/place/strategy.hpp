// Where the barriers go: the seed's greedy sweep for monolithic barriers, the
// exact minimum (Z3), and for split barriers the signal of each wait
// (docs/placement.md).
#pragma once

#include <string>
#include <vector>

#include "checker/place/hazards.hpp"

namespace pc::place {

// Seed 002's minimize_placement_strategy on the exact hazards: hazards in
// the order of their consumers; one not yet ordered gets a barrier right
// before its consumer. Slots, sorted.
[[nodiscard]] std::vector<int> greedy(const Analysis& a);

// The fewest slots that order every hazard (a minimum hitting set, by Z3's
// optimizer), and a proof that one fewer cannot: Z3 finds the windows
// unsatisfiable with at most `size - 1` barriers. Where the minimum is the
// size of `prefer`, `prefer` is kept (the greedy's, nearer the consumers).
struct Minimum {
  std::vector<int> slots;
  bool proved = false;    // no placement of slots.size() - 1 barriers orders every hazard
  std::string detail;     // how, in words
};
[[nodiscard]] Minimum minimum(const Analysis& a, const std::vector<int>& prefer);

// Several roles (NVIDIA named barriers, one per group of roles): the fewest
// barrier statements such that every hazard within a role has one in its
// window, every hazard between roles is ordered (hazards.hpp, Cross), and
// the roles of a group pass their group's barrier equally often in every
// run. A slot may hold up to `max_per_slot` barriers back to back (its slot
// repeated in the result). By Z3's optimizer; `impossible` when no placement
// does.
struct RolesMinimum {
  Minimum m;
  bool impossible = false;
};
[[nodiscard]] RolesMinimum minimum_roles(const Analysis& a, int max_per_slot = 3);

// Split barriers (gfx12 s_barrier_signal / s_barrier_wait): each wait's
// signal. signal[i] is the slot of waits[i]'s signal, in the wait's own
// statement list, at or before it (at it: the signal right before the wait).
struct Split {
  std::vector<int> waits;
  std::vector<int> signals;
};
// Whether every agent's signals and waits alternate (signal, then its wait)
// and each hazard lies around one pair: its producer before the signal, its
// consumer after the wait.
[[nodiscard]] bool valid(const Analysis& a, const Split& s);
// Starting from each signal right before its wait, moves each signal as early
// as its list allows while the placement stays valid; where several
// positions are valid, the one with the most passes between signal and wait.
[[nodiscard]] Split early_signals(const Analysis& a, const std::vector<int>& waits);

}  // namespace pc::place
