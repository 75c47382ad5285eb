#include "checker/place/roles.hpp"

#include <algorithm>
#include <cctype>
#include <functional>

namespace pc::place {

std::string channel_name(const ir::Kernel& k, const Channel& c) {
  return k.roles[static_cast<std::size_t>(c.from_role)].name + "_to_" + k.roles[static_cast<std::size_t>(c.to_role)].name;
}

const ir::Stmt* ring_loop(const Analysis& a, int slot) {
  const Slot& s = a.slots[static_cast<std::size_t>(slot)];
  for (const ir::Stmt& st : a.kernel->roles[static_cast<std::size_t>(s.role)].body)
    if (st.kind == ir::StmtKind::for_loop && &st.body == s.list) return &st;
  return nullptr;
}

namespace {

// A ring channel's stage at a slot: `v % S`, v the variable of the loop the
// slot is in (ring_loop; it counts the trips from 0).
std::string stage(const Analysis& a, int slot, const std::string& stages) {
  const ir::Stmt* loop = ring_loop(a, slot);
  const int role = a.slots[static_cast<std::size_t>(slot)].role;
  const std::string v = a.kernel->roles[static_cast<std::size_t>(role)].vars[static_cast<std::size_t>(loop->var)];
  return v + " % " + stages;
}

std::string trim(std::string t) {
  const std::size_t b = t.find_first_not_of(" \t"), e = t.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : t.substr(b, e - b + 1);
}

// The text of an operand that follows `word` on a line, up to a comment or
// the next keyword of the TMA load's syntax.
std::string operand_after(const std::string& line, const std::string& word) {
  const std::size_t at = line.find(" " + word + " ");
  if (at == std::string::npos) return "";
  std::string t = line.substr(at + word.size() + 2);
  for (const char* stop : {"#", " multicast ", " @ "})
    if (const std::size_t x = t.find(stop); x != std::string::npos) t = t.substr(0, x);
  return trim(t);
}

// The statements of a TMA load in a list, in order.
std::vector<const ir::Stmt*> tma_loads(const std::vector<ir::Stmt>& list) {
  std::vector<const ir::Stmt*> out;
  for (const ir::Stmt& s : list)
    if (s.kind == ir::StmtKind::op && s.op.code == ir::OpCode::tma_load) out.push_back(&s);
  return out;
}

// The bytes one trip's TMA loads of a list deliver, as text: each load's
// `bytes B`, or its buffer's declared element size.
std::string tma_bytes(const ir::Kernel& k, const std::vector<const ir::Stmt*>& loads, const std::vector<std::string>& lines) {
  std::string sum;
  for (const ir::Stmt* s : loads) {
    std::string b = operand_after(lines[static_cast<std::size_t>(s->loc.line - 1)], "bytes");
    if (b.empty()) {
      const ir::BufferDecl& d = k.buffers[static_cast<std::size_t>(s->op.bufs[0].object)];
      b = operand_after(lines[static_cast<std::size_t>(d.loc.line - 1)], "bytes");
    }
    if (b.empty()) b = std::to_string(k.buffers[static_cast<std::size_t>(s->op.bufs[0].object)].bytes);
    if (b.find(' ') != std::string::npos && loads.size() > 1) b = "(" + b + ")";
    sum += (sum.empty() ? "" : " + ") + b;
  }
  return sum;
}

// A TMA load's line with its mbarrier operand (`-> BAR` or `-> BAR[i]`) renamed.
std::string retarget_tma(const std::string& line, const std::string& bar) {
  const std::size_t arrow = line.find("->");
  if (arrow == std::string::npos) return line;
  std::size_t i = line.find_first_not_of(' ', arrow + 2);
  while (i < line.size() && (std::isalnum(static_cast<unsigned char>(line[i])) || line[i] == '_')) ++i;
  if (i < line.size() && line[i] == '[') {
    int depth = 0;
    for (; i < line.size(); ++i) {
      if (line[i] == '[') ++depth;
      if (line[i] == ']' && --depth == 0) {
        ++i;
        break;
      }
    }
  }
  return line.substr(0, arrow) + "-> " + bar + line.substr(i);
}

}  // namespace

RoleStatements role_statements(const Analysis& a, const ir::Kernel& k, const RolePlan& plan, const std::vector<std::string>& lines) {
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
    // A TMA channel's arrival is one lane's arrive_expect_tx per agent of its role.
    const ir::Role& from = k.roles[static_cast<std::size_t>(c->from_role)];
    const int agents = from.count * (from.per_warp ? ir::role_warps(from) : 1);
    const bool tma = !c->arrivals.empty() && !tma_loads(*a.slots[static_cast<std::size_t>(c->arrivals[0])].list).empty();
    out.declare.push_back("mbarrier " + name + "[" + (c->ring.empty() ? "1" : c->ring) + "] count " +
                          std::to_string(tma ? agents : a.role_threads[static_cast<std::size_t>(c->from_role)]));
    if (c->waits.empty() || !c->ring.empty()) continue;
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
        if (x == slot) {
          const std::string at = !c->ring.empty() ? stage(a, slot, c->ring) : "0";
          const std::string bar = channel_name(k, *c) + "[" + at + "]";
          const std::vector<const ir::Stmt*> loads = tma_loads(*a.slots[s].list);
          if (loads.empty()) {
            add(slot, {"all: arrive " + bar}, "arrive " + channel_name(k, *c), c->from_role, c->to_role);
            continue;
          }
          // Before the first load of the list: the expected bytes are set
          // before the loads complete any (PTX ISA mbarrier, "expect-tx
          // operation"). The phase completes when they have all landed.
          const int first = static_cast<int>(loads[0] - a.slots[s].list->data());
          int before = slot;
          for (std::size_t t = 0; t < a.slots.size(); ++t)
            if (a.slots[t].list == a.slots[s].list && a.slots[t].index == first) before = static_cast<int>(t);
          add(before, {"one: arrive_expect_tx " + bar + " bytes " + tma_bytes(k, loads, lines)}, "arrive_expect_tx " + channel_name(k, *c),
              c->from_role, c->to_role);
          for (const ir::Stmt* l : loads)
            out.replace.push_back({l->loc.line, retarget_tma(lines[static_cast<std::size_t>(l->loc.line - 1)], bar)});
        }
    for (const Channel* c : channels)
      for (const int x : c->waits)
        if (x == slot) {
          const std::string name = channel_name(k, *c);
          if (!c->ring.empty()) {
            // Use u = v / S of stage v % S waits for that stage's phase u, or
            // u - 1 where the stage starts free (PTX ISA mbarrier.test_wait:
            // a fresh barrier's parity 1 counts as complete).
            const std::string v = stage(a, slot, c->ring);
            const std::string var = v.substr(0, v.find(' '));
            const std::string use = "(" + var + " / " + c->ring + ")";
            add(slot, {"wait " + name + "[" + v + "] parity " + (c->initial > 0 ? "(" + use.substr(1, use.size() - 2) + " + 1) % 2" : use + " % 2")},
                "wait " + name, c->from_role, c->to_role);
            continue;
          }
          add(slot, {"wait " + name + "[0] parity phase_" + name, "phase_" + name + " = 1 - phase_" + name}, "wait " + name,
              c->from_role, c->to_role);
        }
    for (const int x : plan.named)
      if (x == slot) add(slot, {op[static_cast<std::size_t>(a.slots[s].role)]}, "bar_sync");
  }
  // The input's mbarriers that only its synchronization used (taken out, or
  // a TMA load's operand renamed above) go with it.
  std::vector<bool> used(k.mbarriers.size(), false);
  std::function<void(const std::vector<ir::Stmt>&)> mark = [&](const std::vector<ir::Stmt>& list) {
    for (const ir::Stmt& s : list) {
      mark(s.body);
      mark(s.else_body);
      if (s.kind != ir::StmtKind::op || s.op.bar.object < 0) continue;
      const bool renamed = std::any_of(out.replace.begin(), out.replace.end(), [&](const auto& r) { return r.first == s.loc.line; });
      if (!renamed) used[static_cast<std::size_t>(s.op.bar.object)] = true;
    }
  };
  for (const ir::Role& r : a.kernel->roles) mark(r.body);
  for (std::size_t m = 0; m < k.mbarriers.size(); ++m)
    if (!used[m] && !out.replace.empty()) out.drop.push_back(k.mbarriers[m].loc.line);
  return out;
}

}  // namespace pc::place
