#include "checker/place/roles.hpp"

#include <algorithm>

namespace pc::place {

std::string channel_name(const ir::Kernel& k, const Channel& c) {
  return k.roles[static_cast<std::size_t>(c.from_role)].name + "_to_" + k.roles[static_cast<std::size_t>(c.to_role)].name;
}

RoleStatements role_statements(const Analysis& a, const ir::Kernel& k, const RolePlan& plan) {
  RoleStatements out;
  auto add = [&](int slot, std::vector<std::string> lines, std::string what, int from = -1, int to = -1) {
    out.inserts.push_back({slot, std::move(lines)});
    out.slot.push_back(slot);
    out.what.push_back(std::move(what));
    out.window_role_from.push_back(from);
    out.window_role_to.push_back(to);
  };
  // Named barriers: ids from 1 (0 is __syncthreads'), in the order of their
  // groups' first slot; the count is every thread of the group's roles.
  std::vector<int> id(static_cast<std::size_t>(a.roles), 0);
  int next = 1;
  for (const int s : plan.named) {
    const int g = a.group[static_cast<std::size_t>(a.slots[static_cast<std::size_t>(s)].role)];
    if (!id[static_cast<std::size_t>(g)]) id[static_cast<std::size_t>(g)] = next++;
  }
  std::vector<std::string> op(static_cast<std::size_t>(a.roles));
  for (int g = 0; g < a.roles; ++g) {
    if (!id[static_cast<std::size_t>(g)]) continue;
    int count = 0;
    std::string members;
    for (int r = 0; r < a.roles; ++r)
      if (a.group[static_cast<std::size_t>(r)] == g) {
        count += a.role_threads[static_cast<std::size_t>(r)];
        members += " " + k.roles[static_cast<std::size_t>(r)].name;
      }
    const std::string o = "bar_sync " + std::to_string(id[static_cast<std::size_t>(g)]) + ", " + std::to_string(count);
    for (int r = 0; r < a.roles; ++r)
      if (a.group[static_cast<std::size_t>(r)] == g) op[static_cast<std::size_t>(r)] = o;
    out.groups.push_back(std::to_string(id[static_cast<std::size_t>(g)]) + ", " + std::to_string(count) + ":" + members);
  }
  // Channels: the phase variable starts at the channel's free phases (a wait
  // for parity 1 on a fresh mbarrier returns at once: PTX ISA, mbarrier
  // phases; the corpus's tlx_producer_consumer) and flips after each wait.
  std::vector<const Channel*> channels;
  for (const auto& [g, pairs] : plan.pairs)
    for (const Channel& c : pairs.channels) channels.push_back(&c);
  for (const Channel* c : channels) {
    const std::string name = channel_name(k, *c);
    out.declare.push_back("mbarrier " + name + "[1] count " + std::to_string(a.role_threads[static_cast<std::size_t>(c->from_role)]));
    if (c->waits.empty()) continue;
    int first = -1;  // the destination role's first slot (before its first statement)
    for (std::size_t s = 0; s < a.slots.size() && first < 0; ++s)
      if (a.slots[s].role == c->to_role) first = static_cast<int>(s);
    out.inserts.push_back({first, {"phase_" + name + " = " + std::to_string(c->initial)}});
    out.slot.push_back(-1);
    out.what.push_back("");
    out.window_role_from.push_back(-1);
    out.window_role_to.push_back(-1);
  }
  // Slot by slot: a role's arrivals before its waits (it releases what it
  // holds before it blocks), then its named barriers.
  for (std::size_t s = 0; s < a.slots.size(); ++s) {
    const int slot = static_cast<int>(s);
    for (const Channel* c : channels)
      for (const int x : c->arrivals)
        if (x == slot) add(slot, {"all: arrive " + channel_name(k, *c) + "[0]"}, "arrive " + channel_name(k, *c), c->from_role, c->to_role);
    for (const Channel* c : channels)
      for (const int x : c->waits)
        if (x == slot) {
          const std::string name = channel_name(k, *c);
          add(slot, {"wait " + name + "[0] parity phase_" + name, "phase_" + name + " = 1 - phase_" + name}, "wait " + name,
              c->from_role, c->to_role);
        }
    for (const int x : plan.named)
      if (x == slot) add(slot, {op[static_cast<std::size_t>(a.slots[s].role)]}, "bar_sync");
  }
  return out;
}

}  // namespace pc::place
