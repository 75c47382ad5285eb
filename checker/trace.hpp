// Counterexamples a person can follow: a schedule re-run with descriptions
// on, filling Result's trace (each step's text, place and the barrier phase
// it completed), the violation at its last step or, for a deadlock, what
// every agent left waits for; and the states of --steps and --trace-html.
#pragma once

#include <vector>

#include "checker/model.hpp"
#include "checker/result.hpp"

namespace pc::check {

// `path` as taken by the search whose options are `opt` (its reductions
// decide which operations ran at once). With `snap_at` >= 0, also the state
// after that many trace steps (--steps).
void describe(const Model& m, const Options& opt, const std::vector<Action>& path, bool deadlock, Result& r,
              long long snap_at = -1);

}  // namespace pc::check
