// Producer/consumer pairs in place of a group's named barrier (NVIDIA, a
// group of two roles, docs/placement.md "Producer/consumer pairs"): each
// direction in which the roles hand data over is a channel, an mbarrier the
// source role arrives on and the destination role waits on. Unlike a
// bar_sync, neither role waits at a point where the other's hazards do not
// need it.
#pragma once

#include <string>
#include <vector>

#include "checker/place/hazards.hpp"

namespace pc::place {

struct Channel {
  int from_role = 0, to_role = 0;
  int initial = 0;              // phases complete at the start (1: the first wait returns at once, a free buffer)
  std::string ring;             // a ring of mbarriers, one per stage: the stage count as the kernel writes it
                                // (empty: one mbarrier); see ring_pairs
  std::vector<int> arrivals;    // slots of from_role (repeated: back to back)
  std::vector<int> waits;       // slots of to_role
};

struct Pairs {
  std::vector<Channel> channels;  // the channels used (one or two)
  bool optimum = false;           // Z3's optimum under the counting (not one found after a blocked optimum)
};

// Whether a group (a root of Analysis::group) has two roles, hazards between
// them, and none among one role's own warps (those need a barrier of the
// role, which a pair does not give).
[[nodiscard]] bool pairs_apply(const Analysis& a, int group);

// The fewest arrive and wait statements such that every hazard between the
// group's two roles is ordered by the counting of hazards.hpp (the j-th wait
// of a channel completes after `j - initial` arrivals of every agent of its
// source role), every wait is matched by an arrival in every run, and the
// trip-by-trip schedule runs without blocking (each wait's arrivals come
// before it in that order). Other
// solutions than those in `blocked` (placements that failed the explicit
// search). `found` false when there is none (or Z3 ran out of its minute).
struct PairsResult {
  bool found = false;
  Pairs pairs;
  std::vector<int> key;  // the solution's values, for blocking it
  int statements = 0;    // arrivals and waits
};
[[nodiscard]] PairsResult minimum_pairs(const Analysis& a, int group, const std::vector<std::vector<int>>& blocked);

// The same pair as a ring (docs/placement.md, "Rings"): where the roles'
// buffers are used in turn, `buf[v % S]` in trip v of a loop
// `for v in 0 .. N` at the top of each role, each channel becomes S mbarriers,
// one per stage, trip v using stage v % S; a channel whose first wait was
// free (initial 1, a free buffer) starts each stage free. The same
// statements at the same slots: the source role may run S trips ahead
// instead of one. `found` false where a channel has more than one arrival
// or wait, or one outside `ring_slots` (the bodies of such loops).
[[nodiscard]] PairsResult ring_pairs(const PairsResult& pair, const std::vector<bool>& ring_slots, const std::string& stages);

}  // namespace pc::place
