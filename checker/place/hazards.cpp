#include "checker/place/hazards.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "checker/program.hpp"
#include "spec/async_group.hpp"

namespace pc::place {

using check::KernelError;
using ir::OpCode;
using ir::Stmt;
using ir::StmtKind;

const char* hazard_name(HazardKind k) {
  switch (k) {
    case HazardKind::raw: return "RAW";
    case HazardKind::war: return "WAR";
    case HazardKind::waw: return "WAW";
  }
  return "?";
}

int last_line(const Stmt& s) {
  int l = s.loc.line;
  for (const Stmt& b : s.body) l = std::max(l, last_line(b));
  for (const Stmt& b : s.else_body) l = std::max(l, last_line(b));
  return l;
}

namespace {

bool is_barrier(OpCode c) {
  return c == OpCode::s_barrier || c == OpCode::s_barrier_signal || c == OpCode::s_barrier_wait ||
         c == OpCode::bar_sync || c == OpCode::syncthreads;
}
// The point-to-point synchronization of several roles goes too: named
// barrier arrivals, mbarrier arrivals and waits.
bool is_role_sync(OpCode c) {
  return c == OpCode::bar_arrive || c == OpCode::mbar_arrive || c == OpCode::mbar_wait || c == OpCode::mbar_arrive_expect_tx ||
         c == OpCode::mbar_expect_tx;
}
bool is_strippable(OpCode c) { return is_barrier(c) || is_role_sync(c) || c == OpCode::s_waitcnt; }
// The buffer accesses of threads (read, write, AMD's global_load_lds): not
// the async units' copies, which the placer does not order.
bool is_access(OpCode c) {
  return ir::op_access(c) != ir::Access::none && (ir::op_family(c) == ir::OpFamily::memory || ir::op_family(c) == ir::OpFamily::amd);
}
// A pipeline's asynchronous operations (several roles, NVIDIA): a TMA load
// writes its buffer when it lands, which the placed mbarrier's tx-count
// tracks; a wgmma reads its operands until the wgmma_wait that retires its
// group. The wgmma group operations stay where they are.
bool is_pipeline_op(OpCode c) {
  return c == OpCode::tma_load || c == OpCode::wgmma || c == OpCode::wgmma_fence || c == OpCode::wgmma_commit ||
         c == OpCode::wgmma_wait || c == OpCode::wgmma_regs;
}

// Takes the barriers and waits out of a statement list; an `if` left with
// nothing in either branch goes too. Records what it removed.
void strip(std::vector<Stmt>& list, Analysis& a) {
  std::vector<Stmt> kept;
  for (Stmt& s : list) {
    if (s.kind == StmtKind::op && is_strippable(s.op.code)) {
      a.removed.push_back({s.loc.line, s.loc.line});
      if (s.op.code != OpCode::s_waitcnt && s.op.code != OpCode::s_barrier_wait) a.removed_barriers.push_back(s.loc.line);
      continue;
    }
    if (s.kind == StmtKind::either)
      throw KernelError("--place-barriers: an `either` (a choice of two ways) is not read here yet", s.loc);
    const int last = last_line(s);
    strip(s.body, a);
    strip(s.else_body, a);
    if (s.kind == StmtKind::if_else && s.body.empty() && s.else_body.empty()) {
      a.removed.push_back({s.loc.line, last});
      continue;
    }
    if (s.kind == StmtKind::if_else && s.body.empty())
      throw KernelError("--place-barriers: without its barriers this `if` has an empty branch; write the condition the other way round", s.loc);
    if (s.kind == StmtKind::for_loop && s.body.empty())
      throw KernelError("--place-barriers: without its barriers this loop has an empty body", s.loc);
    kept.push_back(std::move(s));
  }
  list = std::move(kept);
}

bool reads_var(const ir::Kernel& k, ir::ExprId e, const std::vector<bool>& tainted) {
  if (e == ir::no_expr) return false;
  const ir::Expr& x = k.exprs[static_cast<std::size_t>(e)];
  if (x.kind == ir::ExprKind::var) return tainted[static_cast<std::size_t>(x.var)];
  return reads_var(k, x.a, tainted) || reads_var(k, x.b, tainted);
}

// Variables whose value may differ between the agents of a CTA: `instance`,
// `warp`, and whatever is computed from them or assigned under a condition
// on them. Returns whether anything changed.
bool taint(const ir::Kernel& k, const std::vector<Stmt>& list, bool varying, std::vector<bool>& tainted) {
  bool changed = false;
  auto mark = [&](int v) {
    if (v >= 0 && !tainted[static_cast<std::size_t>(v)]) tainted[static_cast<std::size_t>(v)] = changed = true;
  };
  for (const Stmt& s : list) {
    switch (s.kind) {
      case StmtKind::assign:
        if (varying || reads_var(k, s.expr, tainted)) mark(s.var);
        break;
      case StmtKind::for_loop: {
        const bool v = varying || reads_var(k, s.lo, tainted) || reads_var(k, s.hi, tainted);
        if (v) mark(s.var);
        changed |= taint(k, s.body, v, tainted);
        break;
      }
      case StmtKind::if_else: {
        const bool v = varying || reads_var(k, s.expr, tainted);
        changed |= taint(k, s.body, v, tainted);
        changed |= taint(k, s.else_body, v, tainted);
        break;
      }
      case StmtKind::either:  // refused by strip, which runs first
        changed |= taint(k, s.body, true, tainted);
        changed |= taint(k, s.else_body, true, tainted);
        break;
      case StmtKind::op:
        if (s.op.dest_var >= 0 && varying) mark(s.op.dest_var);
        break;
      case StmtKind::assert_true: break;
    }
  }
  return changed;
}

// Numbers the slots of every list the agents of a CTA run alike, in source
// order (a slot before each statement, one after the last). `at` maps a
// list to the ids of its slots.
using SlotIds = std::map<const std::vector<Stmt>*, std::vector<int>>;
void number_slots(const ir::Kernel& k, const std::vector<Stmt>& list, bool varying, int depth, int role,
                  const std::vector<bool>& tainted, Analysis& a, SlotIds& at) {
  if (list.empty()) return;  // an absent `else`
  for (std::size_t i = 0; i <= list.size(); ++i) {
    if (!varying) {
      at[&list].push_back(static_cast<int>(a.slots.size()));
      a.slots.push_back(Slot{&list, static_cast<int>(i), depth, role});
    }
    if (i == list.size()) break;
    const Stmt& s = list[i];
    if (s.kind == StmtKind::for_loop)
      number_slots(k, s.body, varying || reads_var(k, s.lo, tainted) || reads_var(k, s.hi, tainted), depth + 1, role, tainted, a, at);
    if (s.kind == StmtKind::if_else) {
      const bool v = varying || reads_var(k, s.expr, tainted);
      number_slots(k, s.body, v, depth, role, tainted, a, at);
      number_slots(k, s.else_body, v, depth, role, tainted, a, at);
    }
  }
}

struct Event {
  int segment = 0;  // passes before it
  int trips = 0;    // loop trips its agent had begun
  int element = 0;  // hb::Memory buffer
  bool write = false, async = false;
  ir::Loc loc;
  int done = 0;     // passes before it is complete: a wgmma's read ends at the wgmma_wait that retires it
};

struct Run {
  const check::Program& p;
  const SlotIds& at;
  std::size_t max_passes;
  std::vector<std::int64_t> vars;
  std::vector<int> passes;
  std::vector<int> pass_trips;  // per pass, the loop trips begun
  std::vector<Event> events;
  int trips = 0;

  void pass(int slot) {
    if (passes.size() >= max_passes)
      throw KernelError("--place-barriers: the unrolled kernel passes more than " + std::to_string(max_passes) +
                            " program points; lower the trip counts with --param",
                        p.kernel->loc);
    passes.push_back(slot);
    pass_trips.push_back(trips);
  }

  void block(const std::vector<Stmt>& list, int cta) {
    const auto it = at.find(&list);
    const std::vector<int>* ids = it == at.end() ? nullptr : &it->second;
    for (std::size_t i = 0; i <= list.size(); ++i) {
      if (ids) pass((*ids)[i]);
      if (i == list.size()) break;
      const Stmt& s = list[i];
      switch (s.kind) {
        case StmtKind::assign: vars[static_cast<std::size_t>(s.var)] = check::eval(p, s.expr, vars.data()); break;
        case StmtKind::assert_true: break;
        case StmtKind::if_else: block(check::eval(p, s.expr, vars.data()) ? s.body : s.else_body, cta); break;
        case StmtKind::either: throw KernelError("--place-barriers: an `either` is not read here yet", s.loc);
        case StmtKind::for_loop:
          for (vars[static_cast<std::size_t>(s.var)] = check::eval(p, s.lo, vars.data());
               vars[static_cast<std::size_t>(s.var)] < check::eval(p, s.hi, vars.data()); ++vars[static_cast<std::size_t>(s.var)]) {
            ++trips;
            block(s.body, cta);
          }
          break;
        case StmtKind::op: op(s.op, cta); break;
      }
    }
  }

  // The agent's wgmma groups (spec::async_group) and its reads not yet
  // retired, with their group.
  spec::async_group::Groups groups{};
  std::vector<std::pair<std::size_t, std::uint16_t>> in_flight{};

  // The reads of the groups a wgmma_wait retires (or, at the end of the
  // role, all) are complete at the current pass.
  void retire(std::uint16_t upto) {
    std::erase_if(in_flight, [&](const auto& x) {
      if (x.second > upto) return false;
      events[x.first].done = static_cast<int>(passes.size());
      return true;
    });
  }

  void op(const ir::Op& o, int cta) {
    if (o.code == OpCode::wgmma_commit) spec::async_group::commit(groups);
    if (o.code == OpCode::wgmma_wait)
      retire(spec::async_group::wait(groups, o.n == ir::no_expr ? 0 : check::eval(p, o.n, vars.data())));
    for (const ir::Ref& r : o.bufs) {
      const ir::BufferDecl& b = p.kernel->buffers[static_cast<std::size_t>(r.object)];
      const std::int64_t i = r.index == ir::no_expr ? 0 : check::eval(p, r.index, vars.data());
      if (i < 0 || i >= b.size)
        throw KernelError("index " + std::to_string(i) + " is out of range for " + b.name + "[" + std::to_string(b.size) + "]", r.loc);
      const int element = cta * p.buffers_per_cta + p.buffer_base[static_cast<std::size_t>(r.object)] + static_cast<int>(i);
      events.push_back(Event{static_cast<int>(passes.size()), trips, element, ir::op_access(o.code) == ir::Access::write,
                             o.code == OpCode::global_load_lds, o.loc, static_cast<int>(passes.size())});
      if (o.code == OpCode::wgmma) in_flight.emplace_back(events.size() - 1, spec::async_group::issue(groups));
    }
  }
};

void check_ops(const std::vector<Stmt>& list, bool roles) {
  for (const Stmt& s : list) {
    if (s.kind == StmtKind::op) {
      if (!is_access(s.op.code) && !(roles && is_pipeline_op(s.op.code)))
        throw KernelError(std::string("--place-barriers places barriers between read, write and global_load_lds, and "
                                      "between the roles of an NVIDIA pipeline also around tma_load and wgmma; `") +
                              std::string(ir::op_keyword(s.op.code)) + "` is not one of them",
                          s.loc);
      if (s.op.code == OpCode::tma_load && (s.op.multicast != ir::no_expr || s.op.bar.cta != ir::no_expr))
        throw KernelError("--place-barriers places a TMA load's mbarrier in its own CTA; a multicast or a load for another CTA "
                          "needs the cluster's synchronization",
                          s.loc);
      for (const ir::Ref& r : s.op.bufs) {
        if (r.cta != ir::no_expr)
          throw KernelError("--place-barriers orders the accesses of one CTA; an access of another CTA's memory needs a cluster barrier", r.loc);
      }
    }
    check_ops(s.body, roles);
    check_ops(s.else_body, roles);
  }
}

// The latest accesses of one element by one agent, for the hazards of the next.
struct Last {
  int write = -1, access = -1, async = -1;  // segments
  ir::Loc write_loc, access_loc, async_loc;
  bool access_write = false;
};

}  // namespace

namespace {

// The hazards between the agents of one role in one CTA: `events[x]` and
// `passes` of its agents, `run` its pass list.
void within_role(Analysis& a, const check::Program& p, const std::vector<int>& agents,
                 std::vector<std::vector<Event>>& events, const std::vector<int>& passes, int run,
                 std::map<std::vector<int>, int>& known) {
  std::vector<std::vector<Last>> last(static_cast<std::size_t>(p.mem_buffers()), std::vector<Last>(agents.size()));
  std::vector<std::size_t> next(agents.size(), 0);
  for (int seg = 0; seg <= static_cast<int>(passes.size()); ++seg) {
    struct Here {
      std::size_t agent;
      const Event* e;
    };
    std::vector<Here> here;
    for (std::size_t x = 0; x < agents.size(); ++x)
      while (next[x] < events[x].size() && events[x][next[x]].segment == seg) here.push_back({x, &events[x][next[x]++]});
    auto conflicts = [&](int m, int n) {
      if (m == n) return true;
      for (const std::uint16_t o : p.aliases_of(m))
        if (o == n) return true;
      return false;
    };
    // Two agents' conflicting accesses with no pass between them: nothing can order them.
    for (std::size_t i = 0; i < here.size(); ++i)
      for (std::size_t j = 0; j < i; ++j) {
        const Here &x = here[i], &y = here[j];
        if (!(x.e->write || y.e->write) || !conflicts(x.e->element, y.e->element)) continue;
        if (x.agent == y.agent && !y.e->async) continue;
        if (a.unorderable.empty())
          a.unorderable.push_back(
              {"--place-barriers: " + p.agents[static_cast<std::size_t>(agents[y.agent])].name + " (line " +
                   std::to_string(y.e->loc.line) + ") and " + p.agents[static_cast<std::size_t>(agents[x.agent])].name +
                   " access " + p.buffer_name(x.e->element) +
                   ", one of them writing, with no point between them that every agent reaches: no barrier can order them",
               x.e->loc});
      }
    for (const Here& h : here) {
      const Event& e = *h.e;
      int from = -1;
      HazardKind kind = HazardKind::raw;
      ir::Loc ploc;
      std::size_t pagent = 0;
      bool gather = false;
      std::vector<int> elems{e.element};
      for (const std::uint16_t o : p.aliases_of(e.element))
        if (o < p.num_buffers()) elems.push_back(o);
      for (const int m : elems)
        for (std::size_t x = 0; x < agents.size(); ++x) {
          const Last& l = last[static_cast<std::size_t>(m)][x];
          auto take = [&](int seg2, const ir::Loc& loc, HazardKind kd, bool g) {
            if (seg2 > from) from = seg2, ploc = loc, kind = kd, pagent = x, gather = g;
          };
          if (l.async >= 0) take(l.async, l.async_loc, e.write ? HazardKind::waw : HazardKind::raw, true);
          if (x == h.agent) continue;
          if (e.write && l.access >= 0) take(l.access, l.access_loc, l.access_write ? HazardKind::waw : HazardKind::war, false);
          if (!e.write && l.write >= 0) take(l.write, l.write_loc, HazardKind::raw, false);
        }
      if (from < 0) continue;
      std::set<int> s;
      for (int q = from; q < seg; ++q) s.insert(passes[static_cast<std::size_t>(q)]);
      std::vector<int> slots(s.begin(), s.end());
      auto [it, fresh] = known.try_emplace(slots, -1);
      if (fresh) {
        Window w;
        w.slots = slots;
        w.key = slots;
        w.kind = kind;
        w.producer = ploc;
        w.consumer = e.loc;
        w.producer_agent = p.agents[static_cast<std::size_t>(agents[pagent])].name;
        w.consumer_agent = p.agents[static_cast<std::size_t>(agents[h.agent])].name;
        w.element = p.buffer_name(e.element);
        w.loop_carried = ploc.line > e.loc.line || (ploc.line == e.loc.line && ploc.col >= e.loc.col);
        w.gather = gather;
        it->second = static_cast<int>(a.windows.size());
        a.windows.push_back(std::move(w));
      }
      a.windows[static_cast<std::size_t>(it->second)].gather |= gather;
      a.spans.push_back(Span{run, from, seg, it->second});
    }
    for (const Here& h : here) {
      Last& l = last[static_cast<std::size_t>(h.e->element)][h.agent];
      l.access = seg, l.access_loc = h.e->loc, l.access_write = h.e->write;
      if (h.e->write) l.write = seg, l.write_loc = h.e->loc;
      if (h.e->async) l.async = seg, l.async_loc = h.e->loc;
    }
  }
}

// One role's agents in one CTA, run alone.
struct RoleRun {
  std::vector<int> agents;
  std::vector<std::vector<Event>> events;
  std::vector<int> passes, pass_trips;
};

// The hazards between roles in one CTA: every access in the order of its
// time (trips begun, role, the role's own order); each against the latest
// conflicting access of every other role. `base` is the CTA's first pass list.
void between_roles(Analysis& a, const check::Program& p, const std::vector<RoleRun>& roles, int base,
                   std::map<std::vector<int>, int>& known) {
  struct Timed {
    int trips, role, segment;
    std::size_t agent;
    const Event* e;
  };
  std::vector<Timed> all;
  for (std::size_t r = 0; r < roles.size(); ++r)
    for (std::size_t x = 0; x < roles[r].agents.size(); ++x)
      for (const Event& e : roles[r].events[x]) all.push_back({e.trips, static_cast<int>(r), e.segment, x, &e});
  std::stable_sort(all.begin(), all.end(), [](const Timed& x, const Timed& y) {
    return std::tie(x.trips, x.role, x.segment) < std::tie(y.trips, y.role, y.segment);
  });
  struct Latest {
    int write = -1, access = -1;
    ir::Loc write_loc, access_loc;
    bool access_write = false;
    int write_agent = 0, access_agent = 0;
  };
  std::vector<std::vector<Latest>> last(static_cast<std::size_t>(p.mem_buffers()), std::vector<Latest>(roles.size()));
  for (const Timed& t : all) {
    const Event& e = *t.e;
    std::vector<int> elems{e.element};
    for (const std::uint16_t o : p.aliases_of(e.element))
      if (o < p.num_buffers()) elems.push_back(o);
    for (std::size_t r = 0; r < roles.size(); ++r) {
      if (static_cast<int>(r) == t.role) continue;
      int from = -1, pagent = 0;
      ir::Loc ploc;
      HazardKind kind = HazardKind::raw;
      for (const int m : elems) {
        const Latest& l = last[static_cast<std::size_t>(m)][r];
        if (e.write && l.access > from) from = l.access, ploc = l.access_loc, pagent = l.access_agent, kind = l.access_write ? HazardKind::waw : HazardKind::war;
        if (!e.write && l.write > from) from = l.write, ploc = l.write_loc, pagent = l.write_agent, kind = HazardKind::raw;
      }
      if (from < 0) continue;
      const std::vector<int> key{-1, static_cast<int>(r), ploc.line, ploc.col, t.role, e.loc.line, e.loc.col};
      auto [it, fresh] = known.try_emplace(key, static_cast<int>(a.windows.size()));
      if (fresh) {
        Window w;
        w.key = key;
        w.kind = kind;
        w.producer = ploc;
        w.consumer = e.loc;
        w.producer_agent = p.agents[static_cast<std::size_t>(roles[r].agents[static_cast<std::size_t>(pagent)])].name;
        w.consumer_agent = p.agents[static_cast<std::size_t>(roles[static_cast<std::size_t>(t.role)].agents[t.agent])].name;
        w.element = p.buffer_name(e.element);
        w.loop_carried = false;
        a.windows.push_back(std::move(w));
      }
      a.cross.push_back(Cross{base + static_cast<int>(r), from, base + t.role, e.segment, it->second});
    }
    // As the earlier access of a hazard, an access counts until it is
    // complete (Event::done); a write until it is issued, its landing
    // tracked by the mbarrier of its channel (a TMA's tx-count).
    Latest& l = last[static_cast<std::size_t>(e.element)][static_cast<std::size_t>(t.role)];
    l.access = e.done, l.access_loc = e.loc, l.access_write = e.write, l.access_agent = static_cast<int>(t.agent);
    if (e.write) l.write = e.segment, l.write_loc = e.loc, l.write_agent = static_cast<int>(t.agent);
  }
}

// Roles joined by a hazard between them share a barrier group.
void group_roles(Analysis& a) {
  a.group.resize(static_cast<std::size_t>(a.roles));
  for (int r = 0; r < a.roles; ++r) a.group[static_cast<std::size_t>(r)] = r;
  auto find = [&](int r) {
    while (a.group[static_cast<std::size_t>(r)] != r) r = a.group[static_cast<std::size_t>(r)];
    return r;
  };
  for (const Cross& c : a.cross) {
    const int x = find(c.from_run % a.roles), y = find(c.to_run % a.roles);
    if (x != y) a.group[static_cast<std::size_t>(std::max(x, y))] = std::min(x, y);
  }
  for (int r = 0; r < a.roles; ++r) a.group[static_cast<std::size_t>(r)] = find(r);
}

}  // namespace

Analysis analyze(const ir::Kernel& input, std::size_t max_passes) {
  Analysis a;
  a.kernel = std::make_unique<ir::Kernel>(input);
  ir::Kernel& k = *a.kernel;
  if (k.roles.size() != 1 && k.target == ir::Target::amd)
    throw KernelError("--place-barriers takes a kernel of one role on AMD, whose agents all run its body (" +
                          std::to_string(k.roles.size()) + " roles here)",
                      k.roles.size() > 1 ? k.roles[1].loc : k.loc);
  a.roles = static_cast<int>(k.roles.size());
  SlotIds at;
  for (std::size_t r = 0; r < k.roles.size(); ++r) {
    ir::Role& role = k.roles[r];
    strip(role.body, a);
    if (role.body.empty())
      throw KernelError("--place-barriers: without its barriers role " + role.name +
                            " has nothing left to run; take the role out of the kernel",
                        role.loc);
    check_ops(role.body, k.roles.size() > 1 && k.target != ir::Target::amd);
    std::vector<bool> tainted(role.vars.size(), false);
    tainted[ir::var_instance] = tainted[ir::var_warp] = true;
    while (taint(k, role.body, false, tainted)) {
    }
    number_slots(k, role.body, false, 0, static_cast<int>(r), tainted, a, at);
  }

  const check::Program p = check::instantiate(k);
  a.role_threads.assign(k.roles.size(), 0);
  for (const check::AgentInfo& info : p.agents)
    if (info.cta == 0) a.role_threads[static_cast<std::size_t>(info.role)] += info.threads;
  std::map<std::vector<int>, int> known;  // window key -> window
  for (int cta = 0; cta < p.ctas; ++cta) {
    std::vector<RoleRun> runs(k.roles.size());
    for (std::size_t r = 0; r < k.roles.size(); ++r) {
      const ir::Role& role = k.roles[r];
      RoleRun& rr = runs[r];
      for (std::size_t ag = 0; ag < p.agents.size(); ++ag) {
        const check::AgentInfo& info = p.agents[ag];
        if (info.cta != cta || info.role != static_cast<int>(r)) continue;
        Run run{p, at, max_passes, std::vector<std::int64_t>(role.vars.size(), 0), {}, {}, {}};
        run.vars[ir::var_cta] = info.cta;
        run.vars[ir::var_instance] = info.instance;
        run.vars[ir::var_warp] = info.warp;
        run.block(role.body, cta);
        run.retire(std::numeric_limits<std::uint16_t>::max());  // never waited for: complete only at the role's end
        for (Event& e : run.events) a.gathers |= e.async;
        if (rr.agents.empty()) rr.passes = run.passes, rr.pass_trips = run.pass_trips;
        else if (run.passes != rr.passes)
          throw KernelError("--place-barriers: the agents of role " + role.name + " in CTA " + std::to_string(cta) +
                                " do not pass the same program points (a loop or condition depends on them in a way the analysis missed)",
                            role.loc);
        rr.agents.push_back(static_cast<int>(ag));
        rr.events.push_back(std::move(run.events));
      }
    }
    const int base = static_cast<int>(a.passes.size());
    for (std::size_t r = 0; r < runs.size(); ++r) {
      if (!runs[r].agents.empty())
        within_role(a, p, runs[r].agents, runs[r].events, runs[r].passes, base + static_cast<int>(r), known);
      a.passes.push_back(runs[r].passes);
      a.pass_trips.push_back(runs[r].pass_trips);
    }
    if (runs.size() > 1) between_roles(a, p, runs, base, known);
  }
  group_roles(a);
  return a;
}

void merge(Analysis& into, const Analysis& other) {
  if (other.slots.size() != into.slots.size() || other.roles != into.roles)
    throw std::logic_error("place::merge: the kernels' slots differ");
  std::map<std::vector<int>, int> known;
  for (std::size_t w = 0; w < into.windows.size(); ++w) known[into.windows[w].key] = static_cast<int>(w);
  std::vector<int> remap(other.windows.size());
  for (std::size_t w = 0; w < other.windows.size(); ++w) {
    auto [it, fresh] = known.try_emplace(other.windows[w].key, static_cast<int>(into.windows.size()));
    if (fresh) into.windows.push_back(other.windows[w]);
    else into.windows[static_cast<std::size_t>(it->second)].gather |= other.windows[w].gather;
    remap[w] = it->second;
  }
  const int runs = static_cast<int>(into.passes.size());
  into.passes.insert(into.passes.end(), other.passes.begin(), other.passes.end());
  into.pass_trips.insert(into.pass_trips.end(), other.pass_trips.begin(), other.pass_trips.end());
  for (Span s : other.spans) {
    s.cta += runs;
    s.window = remap[static_cast<std::size_t>(s.window)];
    into.spans.push_back(s);
  }
  for (Cross c : other.cross) {
    c.from_run += runs, c.to_run += runs;
    c.window = remap[static_cast<std::size_t>(c.window)];
    into.cross.push_back(c);
  }
  into.unorderable.insert(into.unorderable.end(), other.unorderable.begin(), other.unorderable.end());
  into.gathers |= other.gathers;
  group_roles(into);
}

std::vector<int> pass_counts(const Analysis& a, int run, int n) {
  std::vector<int> c(a.slots.size(), 0);
  const std::vector<int>& passes = a.passes[static_cast<std::size_t>(run)];
  for (int i = 0; i < n; ++i) ++c[static_cast<std::size_t>(passes[static_cast<std::size_t>(i)])];
  return c;
}

bool covers(const Analysis& a, const std::vector<int>& chosen) {
  std::vector<int> in(a.slots.size(), 0);  // barriers at each slot
  for (const int s : chosen) ++in[static_cast<std::size_t>(s)];
  for (const Window& w : a.windows) {
    if (w.slots.empty()) continue;  // between roles: below
    bool hit = false;
    for (const int s : w.slots) hit |= in[static_cast<std::size_t>(s)] > 0;
    if (!hit) return false;
  }
  auto barriers = [&](int run, int n) {
    int c = 0;
    const std::vector<int>& passes = a.passes[static_cast<std::size_t>(run)];
    for (int i = 0; i < n; ++i) c += in[static_cast<std::size_t>(passes[static_cast<std::size_t>(i)])];
    return c;
  };
  for (const Cross& c : a.cross)
    if (barriers(c.to_run, c.to) <= barriers(c.from_run, c.from)) return false;
  if (a.roles > 1)
    for (std::size_t base = 0; base < a.passes.size(); base += static_cast<std::size_t>(a.roles))
      for (int r = 1; r < a.roles; ++r) {
        const int g = a.group[static_cast<std::size_t>(r)];
        if (g == r) continue;
        const int first = static_cast<int>(base) + g, mine = static_cast<int>(base) + r;
        if (barriers(first, static_cast<int>(a.passes[static_cast<std::size_t>(first)].size())) !=
            barriers(mine, static_cast<int>(a.passes[static_cast<std::size_t>(mine)].size())))
          return false;
      }
  return true;
}

}  // namespace pc::place
