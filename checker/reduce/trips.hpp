// --prove's key (docs/checker.md, "Every trip count"): the visited set stores
// a state by a key, as symmetry does, that shifts the trip counters, the
// variables linear in them and N down by a multiple of the period P, keeps
// mbarrier phases by parity, async-group numbers relative to their least, and
// named-barrier tickets as waiting or not. checker/smt/trips.cpp proves, with
// Z3, that every expression of the kernel gives the same value in a state and
// in its shift; docs/checker.md gives the argument that states of one key
// then have the same violations.
#pragma once

#include "checker/program.hpp"
#include "checker/state.hpp"
#include "checker/trips.hpp"

namespace pc::check {

// s made into its key state. Throws NotProved where a shifted variable would
// be negative (the proof covers those that are not).
void trip_key(const TripPlan& plan, const Program& p, State& s);

}  // namespace pc::check
