#include "spec/mbarrier.hpp"

namespace pc::spec::mbarrier {
namespace {

// PTX ISA, "Phase completion of the mbarrier object": the current phase
// completes when the pending arrival count and the tx-count both reach zero;
// the pending count is then reloaded with the expected count.
Result settle(State s, Outcome o, bool no_complete) {
  if (s.pending == 0 && s.tx == 0) {
    if (no_complete) return {s, Outcome::fail(Violation::nocomplete_would_complete)};
    s.phase += 1;
    s.pending = s.expected;
    o.phase_completed = true;
  }
  return {s, o};
}

bool tx_in_range(std::int64_t tx) { return tx >= -max_tx && tx <= max_tx; }

}  // namespace

Violation check_live(const State& s) {
  switch (s.status) {
    case Status::uninitialized: return Violation::uninitialized_barrier;
    case Status::invalidated: return Violation::invalidated_barrier;
    case Status::live: return Violation::none;
  }
  return Violation::uninitialized_barrier;
}

Result init(State s, std::int64_t count) {
  if (s.status == Status::live) return {s, Outcome::fail(Violation::reinit_live_barrier)};
  if (count < 1 || count > max_count) return {s, Outcome::fail(Violation::bad_init_count)};
  s.status = Status::live;
  s.phase = 0;
  s.expected = static_cast<std::int32_t>(count);
  s.pending = s.expected;
  s.tx = 0;
  return {s, Outcome{}};
}

Token token_before(const State& s) { return Token{s.phase, s.pending}; }

Result arrive(State s, const ArriveArgs& a) {
  if (Violation v = check_live(s); v != Violation::none) return {s, Outcome::fail(v)};
  if (a.count < 1 || a.count > max_count) return {s, Outcome::fail(Violation::bad_arrive_count)};
  Outcome o;
  o.observed = s.phase;
  // arrive.expect_tx: "performs an expect-tx operation prior to the arrive-on operation".
  const std::int64_t tx = std::int64_t(s.tx) + a.expect_tx;
  if (!tx_operand_in_range(a.expect_tx) || !tx_in_range(tx)) return {s, Outcome::fail(Violation::tx_out_of_range)};
  // Over-arrival (more arrivals than pending) is not given a meaning by the ISA
  // beyond "Contents of the mbarrier object" ("The valid range of each of the counts": the pending arrival count's
  // minimum is 0, the expected arrival count's 1); the model calls it a violation (see docs/spec.md, "open
  // points"). A failing operation leaves the state as it was.
  if (s.pending - a.count < 0) return {s, Outcome::fail(Violation::arrival_underflow)};
  if (a.drop && s.expected - a.count < 0) return {s, Outcome::fail(Violation::arrival_underflow)};
  // PTX ISA, "Contents of the mbarrier object": the expected arrival count's
  // valid range starts at 1 (PTX ISA 9.1); later editions say it in
  // mbarrier.arrive_drop: "If the decrement causes the expected arrivals
  // count to be zero, the behavior is undefined."
  if (a.drop && s.expected - a.count == 0) return {s, Outcome::fail(Violation::expected_count_zero)};
  s.tx = static_cast<std::int32_t>(tx);
  if (a.drop) s.expected -= static_cast<std::int32_t>(a.count);
  s.pending -= static_cast<std::int32_t>(a.count);
  return settle(s, o, a.no_complete);
}

ThreadsResult arrive_units(State s, const ArriveArgs& a, int units, bool stop_short) {
  const bool operands_ok = a.count >= 1 && a.count <= max_count && tx_operand_in_range(a.expect_tx);
  if (units <= 1 || !operands_ok || check_live(s) != Violation::none) {
    // One unit, or the first unit fails on its operands or the object.
    const Result r = arrive(s, a);
    return {r.next, r.out, r.out.violation == Violation::none ? 1 : 0};
  }
  // Where the units do not reach the pending count, no unit but the last
  // can take it to zero, and the tx-count moves one way: the units'
  // arrive-ons add up to one arrive of their total, in range throughout if
  // at the end.
  const std::int64_t tx_all = std::int64_t(s.tx) + a.expect_tx * units;
  if (a.count * units < s.pending || (a.count * units == s.pending && !(stop_short && tx_all == 0))) {
    if (!tx_in_range(tx_all)) return {s, Outcome::fail(Violation::tx_out_of_range), 0};
    State t = s;
    t.tx = static_cast<std::int32_t>(tx_all);
    ArriveArgs all = a;
    all.count = a.count * units;
    all.expect_tx = 0;
    const Result r = arrive(t, all);
    if (r.out.violation != Violation::none) return {s, r.out, 0};
    return {r.next, r.out, units};
  }
  // Up to the phase's completion: one unit at a time, up to the one that
  // completes it (or fails), or the one before it.
  const State before = s;
  Outcome first;
  first.observed = s.phase;
  for (int i = 0; i < units; ++i) {
    if (stop_short && i > 0 && s.pending == a.count && std::int64_t(s.tx) + a.expect_tx == 0 && !a.no_complete && !a.drop)
      return {s, first, i, true};
    const Result r = arrive(s, a);
    if (r.out.violation != Violation::none) return {before, r.out, 0};
    s = r.next;
    if (r.out.phase_completed) {
      first.phase_completed = true;
      return {s, first, i + 1};
    }
  }
  return {s, first, units};
}

Result expect_tx(State s, std::int64_t bytes) {
  if (Violation v = check_live(s); v != Violation::none) return {s, Outcome::fail(v)};
  const std::int64_t tx = std::int64_t(s.tx) + bytes;
  if (!tx_operand_in_range(bytes) || !tx_in_range(tx)) return {s, Outcome::fail(Violation::tx_out_of_range)};
  s.tx = static_cast<std::int32_t>(tx);
  return settle(s, Outcome{}, false);
}

Result complete_tx(State s, std::int64_t bytes) {
  if (Violation v = check_live(s); v != Violation::none) return {s, Outcome::fail(v)};
  const std::int64_t tx = std::int64_t(s.tx) - bytes;
  if (!tx_operand_in_range(bytes) || !tx_in_range(tx)) return {s, Outcome::fail(Violation::tx_out_of_range)};
  s.tx = static_cast<std::int32_t>(tx);
  return settle(s, Outcome{}, false);
}

Outcome test_wait_parity(const State& s, std::uint32_t parity) {
  if (Violation v = check_live(s); v != Violation::none) return Outcome::fail(v);
  Outcome o;
  o.observed = (s.phase & 1u) != (parity & 1u) ? 1 : 0;
  return o;
}

Outcome test_wait_token(const State& s, Token t) {
  if (Violation v = check_live(s); v != Violation::none) return Outcome::fail(v);
  if (!token_current_or_preceding(s, t)) return Outcome::fail(Violation::stale_token);
  Outcome o;
  // The token's phase is the current one (false) or the one just completed (true).
  o.observed = ((s.phase ^ t.phase) & 1u) != 0 ? 1 : 0;
  return o;
}

Outcome try_wait_parity(const State& s, std::uint32_t parity) {
  Outcome o = test_wait_parity(s, parity);
  if (o.violation == Violation::none && o.observed == 0) o.enabled = false;
  return o;
}

std::int64_t pending_count(Token t) { return t.pending; }

Violation check_pending_count(Token t) { return t.no_complete ? Violation::none : Violation::pending_count_undefined; }

Result increment_pending(State s) {
  if (Violation v = check_live(s); v != Violation::none) return {s, Outcome::fail(v)};
  if (s.pending + 1 > max_count) return {s, Outcome::fail(Violation::bad_arrive_count)};
  s.pending += 1;
  return {s, Outcome{}};
}

Result inval(State s) {
  if (s.status == Status::uninitialized) return {s, Outcome::fail(Violation::uninitialized_barrier)};
  if (s.status == Status::invalidated) return {s, Outcome::fail(Violation::invalidated_barrier)};
  s.status = Status::invalidated;
  return {s, Outcome{}};
}

}  // namespace pc::spec::mbarrier
