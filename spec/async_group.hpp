// Async groups: bulk async-groups (PTX ISA cp.async.bulk.commit_group,
// cp.async.bulk.wait_group[.read]) and wgmma groups (wgmma.commit_group,
// wgmma.wait_group). Operations issued join the open group; commit closes it;
// `wait_group N` waits until at most the N most recent committed groups are
// pending ("all prior bulk async-groups ... complete"). The operations finish
// on their own, so a wait never blocks for ever: what it adds is order from
// the finished groups' accesses to the waiting thread.
//
// The model keeps two async units per kind (spec/hb.hpp lanes): groups
// alternate between them, so that `wait_group 1` can retire the older group
// while the newer stays in flight. A unit is retired only when every group
// that used it is old enough: never more order than the ISA gives.
#pragma once

#include <compare>
#include <cstdint>

namespace pc::spec::async_group {

struct Groups {
  std::uint16_t committed = 0;        // closed groups; the open group has this number
  std::uint16_t last[2] = {0, 0};     // per unit: one past the highest group that used it (0: idle)
  auto operator<=>(const Groups&) const = default;
};

// The unit (0 or 1) that an operation issued now uses; marks it in use.
[[nodiscard]] constexpr int issue(Groups& g) {
  const int unit = g.committed % 2;
  g.last[unit] = static_cast<std::uint16_t>(g.committed + 1);
  return unit;
}

// commit_group: closes the open group.
constexpr void commit(Groups& g) { ++g.committed; }

// wait_group N: the units whose groups are all older than the N most recent
// committed ones are retired (bit u of the result); they become idle.
[[nodiscard]] constexpr unsigned wait(Groups& g, std::int64_t n) {
  unsigned retired = 0;
  for (int u = 0; u < 2; ++u) {
    if (g.last[u] != 0 && std::int64_t(g.last[u]) <= std::int64_t(g.committed) - n) {
      retired |= 1u << u;
      g.last[u] = 0;
    }
  }
  return retired;
}

}  // namespace pc::spec::async_group
