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
// once none is left. A further try_cancel is undefined only once the issuing
// CTA has observed a failure: "If the executing CTA has already observed the
// completion of a clusterlaunchcontrol.try_cancel instruction as failed, then
// the behavior of issuing a subsequent clusterlaunchcontrol.try_cancel
// instruction is undefined" (PTX ISA clusterlaunchcontrol.try_cancel). A CTA
// observes the completion as failed when a thread of it reads the response
// and query_cancel.is_canceled says false (`clc_query` answering 0); a failed
// response that has landed and that no thread of the CTA has queried yet
// does not count, so a second request may be in flight when the first fails.
#pragma once

#include <compare>
#include <cstdint>

#include "spec/cluster.hpp"
#include "spec/violation.hpp"

namespace pc::spec::clc {

// The response's size (PTX ISA: try_cancel's destination is a .b128).
inline constexpr std::int32_t response_bytes = 16;

struct State {
  std::uint16_t queue = 0;      // clusters still waiting to launch that a request may take
  std::uint16_t requests = 0;   // requests issued so far (names each one's pending responses)
  std::uint16_t failed_seen = 0;  // one bit per CTA: a thread of it queried a response that said "not canceled"
  auto operator<=>(const State&) const = default;
};
static_assert(sizeof(State::failed_seen) * 8 >= cluster::max_ctas);

// Issuing a request from CTA `cta`: undefined once that CTA observed a
// failure (`clc_misuse`). PTX ISA, clusterlaunchcontrol.try_cancel: "If the
// executing CTA has already observed the completion of a
// clusterlaunchcontrol.try_cancel instruction as failed, then the behavior of
// issuing a subsequent clusterlaunchcontrol.try_cancel instruction is
// undefined." What counts as observing is the model's reading (query below):
// the ISA does not define it.
[[nodiscard]] constexpr Violation issue(const State& s, int cta) {
  return (s.failed_seen >> cta & 1u) ? Violation::clc_misuse : Violation::none;
}

// A thread of CTA `cta` queried a response (query_cancel.is_canceled): a
// "not canceled" answer is the CTA's observation of a failure (the model's
// reading of "observed the completion ... as failed", above).
[[nodiscard]] constexpr State query(State s, int cta, bool canceled) {
  if (!canceled) s.failed_seen = static_cast<std::uint16_t>(s.failed_seen | 1u << cta);
  return s;
}

// Whether a response saying `canceled` may be the answer to a request now: a
// cancellation needs a cluster left to take; a failure may come at any time
// (the waiting clusters may be launched elsewhere first).
[[nodiscard]] constexpr bool may_answer(const State& s, bool canceled) { return !canceled || s.queue > 0; }

// The answer to a request is decided (its first response lands): a
// cancellation takes a cluster; a failure changes nothing until a CTA
// observes it (query above).
[[nodiscard]] constexpr State decide(State s, bool canceled) {
  if (canceled) --s.queue;
  return s;
}

}  // namespace pc::spec::clc
