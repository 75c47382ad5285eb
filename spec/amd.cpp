#include "spec/amd.hpp"

namespace pc::spec::amd {
namespace {

// The instance completes when every live wave has signalled; it is then
// ready for the next use (CDNA3 ISA, S_BARRIER).
Barrier settle(Barrier b, Outcome& o) {
  if (b.waves > 0 && b.arrived >= b.waves) {
    b.generation += 1;
    b.arrived = 0;
    o.phase_completed = true;
  }
  return b;
}

}  // namespace

Barrier make_barrier(std::uint16_t waves) { return Barrier{waves, 0, 0}; }

Wave lds_issue(Wave w) {
  w.lds_outstanding += 1;
  return w;
}

Outcome lds_complete_enabled(const Wave& w) {
  return w.lds_outstanding > 0 ? Outcome{} : Outcome::blocked();
}

Wave lds_complete(Wave w) {
  if (w.lds_outstanding > 0) w.lds_outstanding -= 1;
  return w;
}

Outcome waitcnt_lgkm(const Wave& w, std::uint32_t n) {
  return w.lds_outstanding <= n ? Outcome{} : Outcome::blocked();
}

Wave vm_issue(Wave w) {
  w.vm_issued = static_cast<std::uint16_t>(w.vm_issued + 1);
  return w;
}

Wave waitcnt(Wave w, Waitcnt n) {
  while (!waitcnt_lgkm(w, n.lgkm).enabled) w = lds_complete(w);
  if (vm_outstanding(w) > n.vm) w.vm_done = static_cast<std::uint16_t>(w.vm_issued - n.vm);
  return w;
}

Result signal(Barrier b, Wave w) {
  if (w.signaled) return {b, w, Outcome::fail(Violation::split_barrier_misuse)};
  if (w.lds_outstanding > 0) return {b, w, Outcome::fail(Violation::amd_missing_waitcnt)};
  Outcome o;
  o.observed = b.generation;
  w.signaled = true;
  w.joined = b.generation;
  b.arrived = static_cast<std::uint16_t>(b.arrived + 1);
  b = settle(b, o);
  return {b, w, o};
}

Result wait(Barrier b, Wave w) {
  if (!w.signaled) return {b, w, Outcome::fail(Violation::split_barrier_misuse)};
  if (b.generation <= w.joined) return {b, w, Outcome::blocked()};
  w.signaled = false;
  return {b, w, Outcome{}};
}

Result s_barrier_arrive(Barrier b, Wave w) { return signal(b, w); }

Barrier wave_exit(Barrier b, const Wave& w) {
  if (b.waves > 0) b.waves = static_cast<std::uint16_t>(b.waves - 1);
  // A wave that signalled the instance in progress and ended without waiting:
  // its arrival leaves with it, else the instance would complete one wave
  // short (the barrier now waits for one wave fewer). Model choice; the ISA
  // text does not cover a signal followed by s_endpgm.
  if (w.signaled && w.joined == b.generation && b.arrived > 0)
    b.arrived = static_cast<std::uint16_t>(b.arrived - 1);
  Outcome ignored;
  return settle(b, ignored);
}

}  // namespace pc::spec::amd
