// Cluster launch control (sm_100a): PTX ISA clusterlaunchcontrol.try_cancel
// and clusterlaunchcontrol.query_cancel.
//
// try_cancel asks the hardware to cancel the launch of a cluster that has not
// started yet and hand its coordinates to the running one. It is asynchronous:
// a 16-byte response is written to shared memory by the async proxy (of every
// CTA of the cluster with .multicast::cluster::all), completing tx on an
// mbarrier there (.mbarrier::complete_tx::bytes). The response says whether a
// cluster was cancelled (query_cancel.is_canceled). Which answer comes is not
// the kernel's to choose: the model explores both while clusters may still be
// waiting to launch (the kernel declares how many: `clc N`), and a failure
// once none is left. Once a response of the cluster reported a failure, a
// further try_cancel is undefined: "requesting subsequent try_cancel after a
// failure is undefined" (ThunderKittens' B200 kernels, quoting the PTX ISA's
// clusterlaunchcontrol.try_cancel).
#pragma once

#include <compare>
#include <cstdint>

#include "spec/violation.hpp"

namespace pc::spec::clc {

// The response's size (PTX ISA: try_cancel's destination is a .b128).
inline constexpr std::int32_t response_bytes = 16;

struct State {
  std::uint16_t queue = 0;      // clusters still waiting to launch that a request may take
  std::uint16_t requests = 0;   // requests issued so far (names each one's pending responses)
  bool failed = false;          // a response of the cluster reported a failure
  auto operator<=>(const State&) const = default;
};

// Issuing a request: undefined after a failure was reported (`clc_misuse`).
[[nodiscard]] constexpr Violation issue(const State& s) { return s.failed ? Violation::clc_misuse : Violation::none; }

// Whether a response saying `canceled` may be the answer to a request now: a
// cancellation needs a cluster left to take; a failure may come at any time
// (the waiting clusters may be launched elsewhere first).
[[nodiscard]] constexpr bool may_answer(const State& s, bool canceled) { return !canceled || s.queue > 0; }

// The answer to a request is decided (its first response lands).
[[nodiscard]] constexpr State decide(State s, bool canceled) {
  if (canceled) --s.queue;
  else s.failed = true;
  return s;
}

}  // namespace pc::spec::clc
