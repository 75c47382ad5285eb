// A software mbarrier in one 64-bit word of shared memory (LDS), as TLX
// implements its memory barriers on AMD GPUs, which have no mbarrier in
// hardware (TLX barrier design notes, "Memory Barriers": arrive decrements the
// count and, on reaching zero, flips the phase and reloads the expected count;
// wait spins while the barrier's phase equals the waiter's local phase).
//
// Its observable behaviour equals spec/mbarrier.hpp for init, arrive (with a
// count, no tx) and test_wait.parity: tests/spec_sw_mbarrier_test.cpp checks
// it over all short op sequences and small counts, and proofs/ proves it for
// every state within the field ranges.
//
// Every function is a pure constexpr function of the word, callable from host
// and device: the device side loads the word, computes arrive(word, n) and
// publishes it with an atomic compare-and-swap (release), retrying on failure;
// a waiter polls the word with acquire loads until test_wait_parity is true.
// Memory ordering is therefore the device's job, not this header's.
//
// Bit layout (bit 0 is the least significant):
//
//   63            40 39            20 19             0
//  +----------------+----------------+----------------+
//  |  phase (24)    |  reload (20)   |  pending (20)  |
//  +----------------+----------------+----------------+
//
//  pending  arrivals still missing in the current phase (spec: State::pending)
//  reload   arrivals expected in each phase, the init count (State::expected)
//  phase    completed phases modulo 2^24; bit 40 is the parity that waiters
//           test (spec: State::phase, whose parity is all the hardware shows)
//
// 20 bits hold the PTX ISA count range 1..2^20-1 (mbarrier "Contents of the
// mbarrier object"). The phase keeps 24 bits rather than one so that a debug
// build can tell how far a barrier has moved past a waiter (parity aliasing),
// at no cost to the word's size.
#pragma once

#include <cstdint>

#include "spec/portability.hpp"

namespace pc::spec::sw_mbarrier {

inline constexpr int pending_shift = 0;
inline constexpr int reload_shift = 20;
inline constexpr int phase_shift = 40;
inline constexpr int count_bits = 20;
inline constexpr int phase_bits = 24;
inline constexpr std::uint64_t count_mask = (std::uint64_t{1} << count_bits) - 1;
inline constexpr std::uint64_t phase_mask = (std::uint64_t{1} << phase_bits) - 1;
inline constexpr std::uint32_t max_count = (1u << count_bits) - 1;  // = mbarrier::max_count

struct Fields {
  std::uint32_t pending = 0;
  std::uint32_t reload = 0;
  std::uint32_t phase = 0;  // modulo 2^24
  constexpr bool operator==(const Fields&) const = default;
};

[[nodiscard]] constexpr PC_HOST_DEVICE std::uint64_t pack(Fields f) {
  return (std::uint64_t(f.pending) & count_mask) << pending_shift |
         (std::uint64_t(f.reload) & count_mask) << reload_shift |
         (std::uint64_t(f.phase) & phase_mask) << phase_shift;
}

[[nodiscard]] constexpr PC_HOST_DEVICE Fields unpack(std::uint64_t word) {
  return Fields{static_cast<std::uint32_t>(word >> pending_shift & count_mask),
                static_cast<std::uint32_t>(word >> reload_shift & count_mask),
                static_cast<std::uint32_t>(word >> phase_shift & phase_mask)};
}

[[nodiscard]] constexpr PC_HOST_DEVICE std::uint32_t pending(std::uint64_t word) {
  return static_cast<std::uint32_t>(word >> pending_shift & count_mask);
}
[[nodiscard]] constexpr PC_HOST_DEVICE std::uint32_t reload(std::uint64_t word) {
  return static_cast<std::uint32_t>(word >> reload_shift & count_mask);
}
[[nodiscard]] constexpr PC_HOST_DEVICE std::uint32_t phase(std::uint64_t word) {
  return static_cast<std::uint32_t>(word >> phase_shift & phase_mask);
}
[[nodiscard]] constexpr PC_HOST_DEVICE std::uint32_t phase_parity(std::uint64_t word) {
  return static_cast<std::uint32_t>(word >> phase_shift & 1u);
}

// Same range as mbarrier.init and the arrive count: 1..2^20-1. PTX ISA,
// mbarrier.init: "The valid range of values for the operand count is [1, ...,
// 2^20 - 1]."; mbarrier.arrive: "The value of the operand count must be in the
// range as specified in Contents of the mbarrier object."
[[nodiscard]] constexpr PC_HOST_DEVICE bool valid_count(std::int64_t count) {
  return count >= 1 && count <= max_count;
}

// mbarrier.init: phase 0, pending = reload = count. Precondition: valid_count(count).
[[nodiscard]] constexpr PC_HOST_DEVICE std::uint64_t init(std::uint32_t count) {
  return pack(Fields{count, count, 0});
}

// The arrive is defined (the spec reports no violation) when the count is in
// range (valid_count above) and does not exceed the pending arrivals;
// over-arrival is arrival_underflow in the spec (docs/spec.md, "Open points"):
// no PTX ISA sentence names it beyond "Contents of the mbarrier object", whose
// valid range of the pending arrival count starts at 0; the H100 faults
// (harness tests over_arrival, over_arrival_second).
[[nodiscard]] constexpr PC_HOST_DEVICE bool arrive_valid(std::uint64_t word, std::int64_t count) {
  return valid_count(count) && count <= pending(word);
}

// The arrive-on operation: pending -= count; when pending reaches zero the
// phase completes (PTX ISA, "Phase completion of the mbarrier object"): the
// phase advances, flipping its parity, and pending is reloaded. There is no
// tx-count: AMD has no TMA whose bytes would complete a phase.
// Precondition: arrive_valid(word, count).
[[nodiscard]] constexpr PC_HOST_DEVICE std::uint64_t arrive(std::uint64_t word, std::uint32_t count) {
  Fields f = unpack(word);
  f.pending -= count;
  if (f.pending == 0) {
    f.phase = (f.phase + 1) & static_cast<std::uint32_t>(phase_mask);
    f.pending = f.reload;
  }
  return pack(f);
}

// mbarrier.test_wait.parity: true iff the phase with this parity has
// completed, i.e. the current phase's parity differs. TLX's wait spins
// "while local_phase == barrier.phase", the same test.
[[nodiscard]] constexpr PC_HOST_DEVICE bool test_wait_parity(std::uint64_t word, std::uint32_t parity) {
  return phase_parity(word) != (parity & 1u);
}

// --- TLX's AMD lowering -------------------------------------------------------
// TLX barrier design notes, table of arrive counts: "tlx.barrier_arrive on AMD:
// num_warps that execute tlx.barrier_arrive; one thread per wave(warp)
// increments the barrier count". So a barrier is initialised with the number of
// arriving waves and each wave arrives once, by one lane, with count 1.

// The init count of a barrier on which `arriving_waves` waves call barrier_arrive.
[[nodiscard]] constexpr PC_HOST_DEVICE std::uint32_t amd_init_count(std::uint32_t arriving_waves) {
  return arriving_waves;
}
// Whether this lane of its wave performs the wave's arrive: the first lane.
[[nodiscard]] constexpr PC_HOST_DEVICE bool amd_arriving_lane(std::uint32_t lane_in_wave) {
  return lane_in_wave == 0;
}
// The arrive that one wave performs.
[[nodiscard]] constexpr PC_HOST_DEVICE std::uint64_t amd_wave_arrive(std::uint64_t word) {
  return arrive(word, 1);
}

}  // namespace pc::spec::sw_mbarrier
