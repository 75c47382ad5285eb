// The mbarrier object: PTX ISA, "Parallel Synchronization and Communication
// Instructions: mbarrier" (cited below by instruction or sub-section title). Every function here is pure: it
// takes a state and returns the next state with an Outcome. Memory ordering
// (release/acquire) is not here but in spec/hb.hpp; spec/rules.hpp composes them.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>

#include "spec/outcome.hpp"

namespace pc::spec::mbarrier {

// PTX ISA mbarrier.init: "The valid range of values for the operand count is [1, ..., 2^20 - 1]"; "Contents of
// the mbarrier object": "The valid range of each of the counts" is, for the expected arrival count, 1 to 2^20 - 1,
// for the pending arrival count 0 to 2^20 - 1, and for the tx-count -(2^20 - 1) to 2^20 - 1.
inline constexpr std::int32_t max_count = (1 << 20) - 1;
inline constexpr std::int32_t max_tx = (1 << 20) - 1;
// The txCount operand of expect_tx / complete_tx / arrive.expect_tx (per
// executing thread): 0 .. 2^20-1 (libcu++ cuda::device::barrier_expect_tx,
// precondition "0 <= transaction_count_update <= (1 << 20) - 1", which lowers
// to mbarrier.expect_tx; the tx-count range above). Outside it:
// `tx_out_of_range`. H100: harness tests `expect_tx_operand_2pow20`,
// `complete_tx_operand_2pow20` (docs/conformance/findings.md).
[[nodiscard]] constexpr bool tx_operand_in_range(std::int64_t bytes) { return bytes >= 0 && bytes <= max_tx; }

enum class Status : std::uint8_t { uninitialized, live, invalidated };

struct State {
  Status status = Status::uninitialized;
  std::uint32_t phase = 0;     // completed phases; the hardware exposes only its parity
  std::int32_t expected = 0;   // arrivals expected in each later phase (arrive_drop lowers it)
  std::int32_t pending = 0;    // arrivals still missing in the current phase
  std::int32_t tx = 0;         // tx-count of the current phase; negative when complete_tx came first
  auto operator<=>(const State&) const = default;
};

// The opaque 64-bit state that mbarrier.arrive returns: "captures the phase of
// the mbarrier object prior to the arrive-on operation" (PTX ISA, mbarrier.arrive).
struct Token {
  std::uint32_t phase = 0;
  std::int32_t pending = 0;  // pending count before the arrive: what mbarrier.pending_count reads
  bool no_complete = false;  // returned by an arrive with .noComplete
  auto operator<=>(const Token&) const = default;
};

struct Result {
  State next;
  Outcome out;
};

// PTX ISA, mbarrier.init: sets the expected and pending count to `count`,
// the phase to 0 and the tx-count to 0. Re-initialising a live object is
// `reinit_live_barrier` (PTX ISA mbarrier.init: "The behavior of performing an mbarrier.init operation on a
// memory location containing a valid mbarrier object is undefined"); a count outside the range above is
// `bad_init_count` ("The value of operand count must be in the range as specified in Contents of the mbarrier object").
[[nodiscard]] Result init(State s, std::int64_t count);

struct ArriveArgs {
  std::int64_t count = 1;      // PTX ISA, mbarrier.arrive: optional count, default 1; "The value of the operand
                               // count must be in the range as specified in Contents of the mbarrier object"
  bool drop = false;           // arrive_drop: also lowers the expected count (PTX ISA, mbarrier.arrive_drop);
                               // to zero is `expected_count_zero`
  bool no_complete = false;    // .noComplete: "must not cause the mbarrier to complete its current phase,
                               // otherwise the behavior is undefined" (PTX ISA mbarrier.arrive)
  std::int64_t expect_tx = 0;  // .expect_tx: an expect-tx operation before the arrive-on
};
// The arrive-on operation (PTX ISA, "Arrive-on operation on mbarrier object"),
// with the variants of mbarrier.arrive and mbarrier.arrive_drop.
// Outcome.observed is the Token's phase (see token_of()).
[[nodiscard]] Result arrive(State s, const ArriveArgs& a);
[[nodiscard]] Token token_before(const State& s);

// The arrive-on operations of one arrive instruction executed by `units`
// units that arrive each on their own, each with the operands `a` (the
// count and .expect_tx of all its threads together). PTX ISA
// mbarrier.arrive: the instruction "performs an arrive-on operation" per
// executing thread. The unit is a warp on NVIDIA: the H200 takes the arrive
// of a warp's threads as one, so a warp whose threads would complete the
// phase in the middle over-arrives (the kernel faults), while the warps of
// a warp group complete a phase at a warp's end and the others arrive on
// the next phase (harness test group_arrive_past_pending,
// docs/conformance/h200-2026-12-02-group-arrive.md). It is a lane on AMD,
// whose software mbarrier (spec/sw_mbarrier.hpp) takes each lane's atomic
// on its own. The units arrive one after another, in any order: the phase
// completes at the unit that takes the pending count (and the tx-count) to
// zero, and the units after it arrive on the next phase. The result holds
// the units up to and including that one (`arrived`, all of them when no
// phase completes before the last): the caller lets the rest arrive in a
// later step, since any other operation of the kernel may come between
// (docs/spec.md, "Per-thread arrivals"). Every unit's arrive is arrive() (a
// violation is the first unit's that fails); before the last unit nothing
// can complete a phase but an arrive.
// `stop_short`: the part ends one unit before the one that completes the
// phase (`stopped`), where the pending count is one unit's count: another
// arrive-on of a larger count may come there (and over-arrive), which it
// cannot before the part or after the phase completed.
// Whether a warp's executing threads arrive as one unit (arrive_units): the
// hardware mbarrier on NVIDIA (H200, harness test group_arrive_past_pending),
// not AMD's software mbarrier, whose every lane's compare-and-swap is its own
// (spec/sw_mbarrier.hpp).
[[nodiscard]] constexpr bool warp_arrives_as_one(bool software_mbarrier) { return !software_mbarrier; }
struct ThreadsResult {
  State next;
  Outcome out;       // observed: the phase before the first arrive of the part
  int arrived = 0;   // units of this part
  bool stopped = false;
};
[[nodiscard]] ThreadsResult arrive_units(State s, const ArriveArgs& per_unit, int units, bool stop_short = false);

// PTX ISA, "expect-tx operation": tx-count += bytes.
[[nodiscard]] Result expect_tx(State s, std::int64_t bytes);
// PTX ISA, "complete-tx operation": tx-count -= bytes; may complete the phase.
[[nodiscard]] Result complete_tx(State s, std::int64_t bytes);

// PTX ISA, mbarrier.test_wait/mbarrier.try_wait with .parity: true iff the phase whose
// parity is `parity` has completed, that is the current phase's parity differs.
// On a fresh barrier parity(1) is true and parity(0) false (H100, harness test
// fresh_parity; the ISA: "the immediately preceding phase" of phase 0 counts as complete).
[[nodiscard]] Outcome test_wait_parity(const State& s, std::uint32_t parity);
// PTX ISA mbarrier.test_wait/try_wait: "The test_wait and try_wait operations
// are valid only for: the current incomplete phase, for which waitComplete
// returns False. the immediately preceding phase, for which waitComplete
// returns True." A state token names its arrive's phase: valid iff that phase
// is the barrier's current one or the one before it.
[[nodiscard]] constexpr bool token_current_or_preceding(const State& s, Token t) {
  return s.phase == t.phase || s.phase == t.phase + 1;
}
// test_wait with the token of an earlier arrive: true iff the token's phase
// completed. A token two or more phases old (or from before a re-init, where
// its phase is not the new object's 0 or 1: the model keeps no object identity) is
// `stale_token`: the ISA leaves it undefined, though the H100 answers by the
// phase's parity (harness tests op_sequences and token_two_phases_later).
[[nodiscard]] Outcome test_wait_token(const State& s, Token t);
// try_wait: like test_wait, but when the phase is incomplete the thread may be
// suspended, and it returns false only after a time limit (same section). For an
// explorer, a wait loop around try_wait is enabled exactly when test_wait is true.
[[nodiscard]] Outcome try_wait_parity(const State& s, std::uint32_t parity);

// Parity aliasing: a thread that last observed the barrier at phase
// `last_seen` passes a parity wait when the barrier is at `phase`. Two or more
// phases later, the parity it tested stood for a later phase than the one it
// meant (test_wait.parity sees only the parity: PTX ISA mbarrier.test_wait;
// H100, harness test op_sequences). The waiter lost a phase: parity_alias.
[[nodiscard]] constexpr bool parity_aliased(std::uint32_t last_seen, std::uint32_t phase) {
  return phase >= last_seen + 2;
}

// PTX ISA, mbarrier.pending_count: the pending arrival count held in a Token.
[[nodiscard]] std::int64_t pending_count(Token t);
// PTX ISA, mbarrier.pending_count: "The state operand is a 64-bit register that must be the result of a prior
// mbarrier.arrive.noComplete or mbarrier.arrive_drop.noComplete instruction. Otherwise, the behavior is
// undefined." (the H100 returns the pending count
// before the arrive, harness test pending_count_token, but the ISA does not
// promise it): `pending_count_undefined`.
[[nodiscard]] Violation check_pending_count(Token t);

// PTX ISA, cp.async.mbarrier.arrive: "the pending count of the mbarrier
// object is incremented by 1 prior to the asynchronous arrive-on operation"
// unless .noinc is given. This is that increment, done when the instruction
// is issued; the arrive itself is an ordinary arrive() when the copies land.
// "The pending count of the mbarrier object after the increment should not exceed the limit as mentioned in
// Contents of the mbarrier object. Otherwise, the behavior is undefined.": `bad_arrive_count`.
[[nodiscard]] Result increment_pending(State s);

// PTX ISA, mbarrier.inval: the object may be reused as memory or re-initialised.
[[nodiscard]] Result inval(State s);

// A data access (any proxy) to the object's memory. PTX ISA, mbarrier.inval:
// "An mbarrier object must be invalidated before using its memory location
// for any other purpose." A live object's memory: `barrier_memory_reuse`;
// never initialised or invalidated, it is memory like any other.
[[nodiscard]] constexpr Violation data_use(const State& s) {
  return s.status == Status::live ? Violation::barrier_memory_reuse : Violation::none;
}

// mbarrier.init of an object whose bytes hold another object `other` (two
// mbarriers placed at one address). PTX ISA, mbarrier.init: "The behavior of
// performing an mbarrier.init operation on a memory location containing a
// valid mbarrier object is undefined; invalidate the mbarrier object using
// mbarrier.inval first, before repurposing the memory location for any other
// purpose, including another mbarrier object."
[[nodiscard]] constexpr Violation init_over(const State& other) {
  return other.status == Status::live ? Violation::reinit_live_barrier : Violation::none;
}

// Validity of any operation other than init on the object. PTX ISA mbarrier.inval: "Performing any mbarrier
// operation except mbarrier.init on a memory location that does not contain a valid mbarrier object, results in
// undefined behaviour." Never initialised: `uninitialized_barrier`; invalidated: `invalidated_barrier`.
[[nodiscard]] Violation check_live(const State& s);

}  // namespace pc::spec::mbarrier

template <>
struct std::hash<pc::spec::mbarrier::State> {
  std::size_t operator()(const pc::spec::mbarrier::State& s) const noexcept {
    std::uint64_t h = static_cast<std::uint64_t>(s.status) * 0x9E3779B97F4A7C15ull;
    for (std::uint64_t v : {std::uint64_t(s.phase), std::uint64_t(std::uint32_t(s.expected)),
                            std::uint64_t(std::uint32_t(s.pending)), std::uint64_t(std::uint32_t(s.tx))})
      h = (h ^ v) * 0x100000001B3ull;
    return static_cast<std::size_t>(h);
  }
};
