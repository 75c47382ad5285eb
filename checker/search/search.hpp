// The search back ends: breadth-first over what successors.hpp gives, on one
// thread (breadth_first.cpp), level by level on several (parallel.cpp), or
// over the ranks of an MPI job (mpi/distributed.cpp). All
// number the states in the order one thread finds them, so the ids, the
// parent links and the first violation are the same (docs/checker.md,
// "Parallel search"). Visited states are 64-bit fingerprints (visited.hpp);
// the levels are kept compressed (frontier.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "checker/coverage.hpp"
#include "checker/result.hpp"
#include "checker/successors.hpp"
#include "checker/visited.hpp"

namespace pc::check {

struct SearchRun {
  const Successors& next;
  const Options& opt;
  Coverage* coverage = nullptr;  // marks of the instructions run (null: none kept)
  Links* links = nullptr;        // parent links, for the trace of a violation (null: none kept)
  std::uint64_t max_depth = ~std::uint64_t{0};
  bool profile = false;          // count where the states come from (Result::profile)
};

struct Searched {
  Result r;                 // states, transitions, max_depth, memory_bytes, warnings; no verdict
  Found found;              // the first violation in the one-thread order
  std::string stop_reason;  // the limit that stopped the search ("timeout", "max-states", "max-memory", "interrupted")
};

// The level being written keeps its frames uncompressed within the visited
// table's bytes divided by this (Frames::raw_budget): with the level being
// read, at most half the table's size more memory, no zstd on a level that
// small.
inline constexpr std::uint64_t raw_share = 4;

[[nodiscard]] Searched breadth_first(const SearchRun& run);
[[nodiscard]] Searched parallel_breadth_first(const SearchRun& run, unsigned threads);
// --swarm: `searches` randomized depth-first searches with bitstate hashing
// (swarm.cpp), on `threads` threads; with a violation, its schedule.
struct Swarmed {
  Searched s;                  // states stored over the searches, transitions, the deepest depth; found; a limit
  std::vector<Action> path;    // with s.found: the schedule from the initial state (the violating action last)
  std::uint64_t truncated = 0; // successors not taken for being past max_depth
};
[[nodiscard]] Swarmed swarm(const SearchRun& run, unsigned searches, unsigned threads);

// Over the ranks of an MPI job (mpi/distributed.cpp), `threads` threads in
// each: every rank calls it and gets the same result, that of one thread.
// Set when MPI starts (MpiSession, in a library of its own); null without it.
extern Searched (*distributed_breadth_first)(const SearchRun& run, unsigned threads);

}  // namespace pc::check
