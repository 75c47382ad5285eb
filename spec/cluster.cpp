#include "spec/cluster.hpp"

namespace pc::spec::cluster {
namespace {
Result settle(State s, Ticket t, Outcome o, std::uint32_t expected) {
  if (s.arrived > 0 && s.arrived >= expected) {
    s.generation += 1;
    s.arrived = 0;
    o.phase_completed = true;
  }
  return {s, t, o};
}
}  // namespace

Result arrive(State s, Ticket t, std::uint32_t threads, std::uint32_t expected) {
  if (t != 0) return {s, t, Outcome::fail(Violation::cluster_barrier_misuse)};
  const Ticket joined = s.generation + 1;
  s.arrived += threads;
  return settle(s, joined, Outcome{}, expected);
}

Result wait(State s, Ticket t) {
  if (t == 0) return {s, t, Outcome::fail(Violation::cluster_barrier_misuse)};
  if (s.generation < t) return {s, t, Outcome::blocked()};
  return {s, 0, Outcome{}};
}

Result on_exit(State s, std::uint32_t expected) { return settle(s, 0, Outcome{}, expected); }

}  // namespace pc::spec::cluster
