// Async groups: bulk async-groups (PTX ISA cp.async.bulk.commit_group,
// cp.async.bulk.wait_group[.read]), cp.async-groups of non-bulk cp.async
// (cp.async.commit_group, cp.async.wait_group, cp.async.wait_all: "An empty
// cp.async-group is considered to be trivially complete"), wgmma groups (wgmma.commit_group,
// wgmma.wait_group) and the groups of tcgen05 operations a tcgen05.commit
// closes. Operations issued join the open group; commit closes it;
// `wait_group N` waits until at most the N most recent committed groups are
// pending, and it does so for the executing thread only (PTX ISA,
// cp.async.bulk.wait_group: "cp.async.bulk.wait_group instruction will cause the
// executing thread to wait until only N or fewer of the most recent bulk
// async-groups are pending and all the prior bulk async-groups committed by the
// executing threads are complete."). The operations finish on their own, so
// a wait never blocks for ever: what it adds is order from the finished
// groups' accesses to the waiting thread.
//
// Groups are numbered from 1; an access of an async unit carries the number of
// its group (spec/hb.hpp, Event::group), so any number of groups may be in
// flight and a wait retires exactly the groups the ISA says.
#pragma once

#include <compare>
#include <cstdint>

namespace pc::spec::async_group {

struct Groups {
  std::uint16_t committed = 0;  // closed groups; the open group is committed + 1
  std::uint16_t issued = 0;     // the highest group an operation was issued in (0: none)
  std::uint16_t retired = 0;    // every group up to this one is known complete
  auto operator<=>(const Groups&) const = default;
};

// The group an operation issued now joins (the open group).
[[nodiscard]] constexpr std::uint16_t issue(Groups& g) {
  g.issued = static_cast<std::uint16_t>(g.committed + 1);
  return g.issued;
}

// commit_group: closes the open group; returns its number.
constexpr std::uint16_t commit(Groups& g) { return ++g.committed; }

// wait_group N: every group older than the N most recent committed ones has
// completed. Returns the highest group now known complete (0: none). PTX ISA,
// cp.async.wait_group: "cp.async.wait_group instruction will cause executing
// thread to wait till only N or fewer of the most recent cp.async-groups are
// pending and all the prior cp.async-groups committed by the executing threads
// are complete."; cp.async.bulk.wait_group the same of bulk async-groups (above).
[[nodiscard]] constexpr std::uint16_t wait(Groups& g, std::int64_t n) {
  const std::int64_t upto = std::int64_t(g.committed) - (n < 0 ? 0 : n);
  if (upto > g.retired) g.retired = static_cast<std::uint16_t>(upto);
  return g.retired;
}

// Whether an issued operation's group has not been waited for: its accesses
// may still be in progress (a CTA must not exit then: rules::cta_exit,
// `exit_with_pending`; no PTX ISA sentence about async groups says so).
[[nodiscard]] constexpr bool in_flight(const Groups& g) { return g.issued > g.retired; }

// The same for cp.async-groups, whose copies count only once committed: a
// committed group with copies not waited for (PTX ISA cp.async.wait_group:
// "An empty cp.async-group is considered to be trivially complete"; copies
// never committed are tracked by cp.async.mbarrier.arrive, if at all).
[[nodiscard]] constexpr bool committed_in_flight(const Groups& g) {
  return (g.issued < g.committed ? g.issued : g.committed) > g.retired;
}

}  // namespace pc::spec::async_group
