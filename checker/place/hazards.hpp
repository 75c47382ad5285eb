// The hazards of a kernel whose shared-memory accesses carry no barriers
// (check-kernel --place-barriers, docs/placement.md): the program points where
// a barrier could go, and each pair of conflicting accesses by different
// agents as the set of those points that would order it.
//
// The kernel is run once per agent at its parameter values, each loop
// unrolled (so a loop-carried hazard is one more pair of accesses, as the
// seed's "walk the body twice" has it, at every trip). A slot is a point
// between statements that every agent of a CTA reaches alike (no enclosing
// condition reads `instance` or `warp`); the agents of a CTA pass the same
// slots in the same order, and a hazard between an access after pass `from`
// began and one before pass `to` is ordered by a barrier at any pass in
// [from, to). Which accesses conflict (two agents, the same bytes, a write
// among them; a gather-to-LDS load also against its own agent until it is
// waited for) is what spec/hb.hpp calls a race; the placements are verified
// by the explicit search, which applies spec/ itself.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "checker/ir.hpp"

namespace pc::place {

struct Slot {
  const std::vector<ir::Stmt>* list = nullptr;  // the statement list it lies in
  int index = 0;                                // before list[index]; list->size(): after the last
  int depth = 0;                                // enclosing loops
  int role = 0;                                 // whose body
};

enum class HazardKind : std::uint8_t { raw, war, waw };
[[nodiscard]] const char* hazard_name(HazardKind k);

// The dynamic form of a hazard between agents of one role: in pass list
// `cta` (one role of a CTA at one point of the parameters), a barrier at a
// pass p with from <= p < to orders it.
struct Span {
  int cta = 0;
  int from = 0, to = 0;
  int window = 0;  // index into Analysis::windows
};

// A hazard between two roles (kernels of several roles, NVIDIA): the
// producer after `from` passes of pass list `from_run`, the consumer after
// `to` passes of `to_run` (the same CTA and point). Barriers of one group
// complete together, the k-th of each role with the k-th of the others, so
// it is ordered when the consumer's role has passed more of them before the
// consumer than the producer's role before the producer.
struct Cross {
  int from_run = 0, from = 0;
  int to_run = 0, to = 0;
  int window = 0;
};

// A hazard as placement sees it: the set of slots that would order it, with
// the first pair of accesses that gave it (for the report).
struct Window {
  std::vector<int> slots;  // sorted, distinct (empty for a hazard between roles)
  std::vector<int> key;    // what makes it distinct: the slots, or the two roles and accesses
  HazardKind kind = HazardKind::raw;
  ir::Loc producer, consumer;
  std::string producer_agent, consumer_agent, element;
  bool loop_carried = false;  // the producer's statement comes at or after the consumer's
  bool gather = false;        // the producer is a gather-to-LDS load (the barrier needs vmcnt(0))
};

struct Analysis {
  std::unique_ptr<ir::Kernel> kernel;   // the input without its barriers (slots point into it)
  struct Lines {
    int first = 0, last = 0;
  };
  std::vector<Lines> removed;            // the barrier and s_waitcnt statements taken out of the input (with an
                                         // `if` left empty by it)
  std::vector<int> removed_barriers;     // of those, the barriers (s_barrier, signal/wait pairs count once, bar_sync)
  std::vector<Slot> slots;
  int roles = 1;
  // Per run (CTA, then the CTAs of merged parameter points) and role (index
  // run * roles + role): the slot of each pass.
  std::vector<std::vector<int>> passes;
  std::vector<std::vector<int>> pass_trips;  // the same shape: the loop trips begun at each pass
  std::vector<Window> windows;           // distinct hazards
  std::vector<Span> spans;               // every hazard within a role, in order of its consumer
  std::vector<Cross> cross;              // every hazard between roles
  std::vector<int> group;                // per role: its barrier group (roles joined by hazards between them)
  std::vector<int> role_threads;         // per role: its threads in one CTA
  bool gathers = false;                  // some agent issues global_load_lds
  // Conflicts between two agents with no pass between them: no barrier can
  // order them (the first found; the caller reports it).
  struct Unorderable {
    std::string message;
    ir::Loc loc;
  };
  std::vector<Unorderable> unorderable;
};

// Throws check::KernelError (located) for a kernel it cannot place barriers
// in: more than one role on AMD, operations other than read, write,
// global_load_lds and barriers, or an unrolling longer than `max_passes`.
//
// Between roles nothing in the program says which access is meant to come
// first, so the roles are taken to run trip by trip: an access's time is the
// number of loop trips its role has begun, then the role's place in the
// kernel, then the order of the role's own statements (docs/placement.md,
// "Several roles").
[[nodiscard]] Analysis analyze(const ir::Kernel& k, std::size_t max_passes = 2'000'000);

// Adds the hazards of the same kernel at other parameter values (the same
// slots): its windows join these by slot set, its passes and spans follow
// as runs after these CTAs'.
void merge(Analysis& into, const Analysis& other);

// The last source line of a statement, nested bodies included.
[[nodiscard]] int last_line(const ir::Stmt& s);

// Whether a barrier at each of `chosen` slots (a slot given twice: two back
// to back) orders every hazard (and, with
// several roles, every role of a group passes its group's barriers equally
// often in every run, else the kernel would hang).
[[nodiscard]] bool covers(const Analysis& a, const std::vector<int>& chosen);

// How often each slot is passed in the first `n` passes of a pass list.
[[nodiscard]] std::vector<int> pass_counts(const Analysis& a, int run, int n);

}  // namespace pc::place
