// The statements that synchronize a kernel of several roles (NVIDIA,
// docs/placement.md "Several roles"): a named barrier per group of roles
// (bar_sync ID, COUNT), or for a group of two roles, producer/consumer
// pairs of mbarriers (pairs.hpp).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "checker/place/pairs.hpp"
#include "checker/place/rewrite.hpp"

namespace pc::place {

struct RolePlan {
  std::vector<int> named;                    // slots of the groups that use their named barrier
  std::vector<std::pair<int, Pairs>> pairs;  // group -> its channels
};

struct RoleStatements {
  std::vector<Insert> inserts;
  std::vector<std::string> declare;  // the channels' mbarrier declarations
  std::vector<std::string> groups;   // per named barrier: "ID, COUNT: roles"
  // Per insert: the slot it synchronizes at (-1: a phase variable set at its
  // role's start), and what it is ("bar_sync", "arrive NAME", "wait NAME").
  std::vector<int> slot;
  std::vector<std::string> what;
  std::vector<int> window_role_from, window_role_to;  // per insert: the channel's roles (-1 for a bar_sync)
  std::vector<std::pair<int, std::string>> replace;   // lines changed: a TMA load's mbarrier operand
  std::vector<int> drop;                              // declarations of mbarriers nothing uses any more
};

// `lines`: the text placed (the expressions of byte counts are taken from it).
// A channel from a role that issues TMA loads is their mbarrier: its arrival
// is `one: arrive_expect_tx` of the bytes the role's loads deliver per trip,
// before the first of them, and their `-> BAR` names it.
[[nodiscard]] RoleStatements role_statements(const Analysis& a, const ir::Kernel& k, const RolePlan& plan,
                                             const std::vector<std::string>& lines);

// The loop of a role's body whose body a slot lies in, at the top of the
// role (the loop of a ring's stages), or null.
[[nodiscard]] const ir::Stmt* ring_loop(const Analysis& a, int slot);

// A channel's mbarrier name: "<from>_to_<to>".
[[nodiscard]] std::string channel_name(const ir::Kernel& k, const Channel& c);

}  // namespace pc::place
