#include "spec/named_barrier.hpp"

namespace pc::spec::named {

bool whole_cta(const ArriveArgs& a) { return a.no_count || (a.sync && a.count == 0); }

Violation check_operands(const ArriveArgs& a) {
  if (a.id < 0 || a.id >= num_ids) return Violation::named_id_out_of_range;
  if (whole_cta(a)) return Violation::none;
  if (a.count <= 0 || a.count % warp_size != 0) return Violation::named_count_not_warp_multiple;
  if (a.id == 0 && a.id0_whole_cta && a.cta_threads > 0 && a.count != a.cta_threads) return Violation::named_id0_clash;
  return Violation::none;
}

namespace {
Result settle(State s, Outcome o) {
  if (s.arrived > 0 && s.arrived >= s.count) {
    s.generation += 1;
    s.last_popc = s.acc_popc;
    s.last_and = s.acc_and;
    s.last_or = s.acc_or;
    s.count = 0;
    s.arrived = 0;
    s.whole_cta = false;
    s.kind = 0;
    s.acc_popc = 0;
    s.acc_and = 1;
    s.acc_or = 0;
    o.phase_completed = true;
  }
  return {s, o};
}
}  // namespace

Result arrive(State s, const ArriveArgs& a) {
  if (Violation v = check_operands(a); v != Violation::none) return {s, Outcome::fail(v)};
  const bool whole = whole_cta(a);
  const std::int64_t count = whole ? (a.live_threads >= 0 ? a.live_threads : a.cta_threads) : a.count;
  // One thread count per instance. The ISA has no sentence that says so: PTX ISA bar/barrier only says
  // "Different warps may execute different forms of the barrier{.cta} instruction using the same barrier
  // name and thread count", and "Care must be taken to keep a warp from executing more barrier{.cta}
  // instructions than intended ... prior to the reset of the barrier" (more threads than counted).
  if (s.arrived > 0 && (s.whole_cta != whole || (!whole && s.count != count)))
    return {s, Outcome::fail(Violation::named_count_mismatch)};
  if (s.arrived + a.threads > count) return {s, Outcome::fail(Violation::named_count_mismatch)};
  // PTX ISA, bar: "barrier{.cta}.red should not be intermixed with barrier{.cta}.sync or
  // barrier{.cta}.arrive using the same active barrier. Execution in this case is
  // unpredictable."
  const std::uint8_t kind = a.red == Red::none ? 1 : 2;
  if (s.arrived > 0 && s.kind != kind) return {s, Outcome::fail(Violation::named_red_mixed)};
  s.kind = kind;
  Outcome o;
  o.observed = s.generation;
  s.whole_cta = whole;
  s.count = static_cast<std::uint16_t>(count);
  s.arrived = static_cast<std::uint16_t>(s.arrived + a.threads);
  if (a.red != Red::none) {
    s.acc_popc = static_cast<std::uint16_t>(s.acc_popc + (a.predicate ? a.threads : 0));
    s.acc_and = static_cast<std::uint8_t>(s.acc_and & (a.predicate ? 1 : 0));
    s.acc_or = static_cast<std::uint8_t>(s.acc_or | (a.predicate ? 1 : 0));
  }
  return settle(s, o);
}

WarpsResult arrive_warps(State s, const ArriveArgs& a, int warps) {
  auto whole = [&](const ArriveArgs& args, int n) {
    const Result r = arrive(s, args);
    return WarpsResult{r.next, r.out, r.out.violation == Violation::none ? n : 0};
  };
  if (warps <= 1 || a.red != Red::none || check_operands(a) != Violation::none) return whole(a, warps);
  const std::int64_t count = whole_cta(a) ? (a.live_threads >= 0 ? a.live_threads : a.cta_threads) : a.count;
  if (s.arrived + a.threads <= count) return whole(a, warps);
  const int per_warp = a.threads / warps;
  const std::int64_t fit = (count - s.arrived) / per_warp;
  // No warp fits (an instance of another count in progress): the arrive's own failure.
  if (fit <= 0) return whole(a, warps);
  ArriveArgs part = a;
  part.threads = static_cast<int>(fit) * per_warp;
  return whole(part, static_cast<int>(fit));
}

Result on_exit(State s, int live) {
  if (!s.whole_cta || s.arrived == 0) return {s, Outcome{}};
  s.count = static_cast<std::uint16_t>(live);
  return settle(s, Outcome{});
}

Outcome wait(const State& s, std::uint32_t joined, Red red, int /*threads*/) {
  if (s.generation <= joined) return Outcome::blocked();
  Outcome o;
  switch (red) {
    case Red::none: o.observed = 0; break;
    case Red::popc: o.observed = s.last_popc; break;
    case Red::and_: o.observed = s.last_and; break;
    case Red::or_: o.observed = s.last_or; break;
  }
  return o;
}

}  // namespace pc::spec::named
