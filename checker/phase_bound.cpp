#include "checker/phase_bound.hpp"

#include <algorithm>
#include <atomic>
#include <optional>
#include <string>
#include <unordered_map>

#include "spec/agent.hpp"
#include "spec/mbarrier.hpp"
#include "spec/named_barrier.hpp"

namespace pc::check {
namespace {

using ir::OpCode;

constexpr int budget = 512;    // instructions run per agent, over all its paths
constexpr int max_paths = 64;  // paths waiting to be run at once

// Each PhaseBounds's runs in the memo below carry its number, never reused.
std::atomic<std::uint64_t> next_owner{1};

// The runs already made by this thread, by agent and everything a run reads
// of the state: its pc and variables, F, and the phase parity of each
// barrier of F (what a wait by parity on it observes). Cleared when full.
struct Memo {
  struct Entry {
    bool ok = false;
    std::vector<std::int64_t> most;
    std::vector<std::uint64_t> future;
  };
  std::unordered_map<std::string, Entry> runs;
  std::string key;  // the key being looked up (runs(), which run() does not call)
};
constexpr std::size_t memo_limit = 1 << 14;
thread_local Memo memo;

}  // namespace

PhaseBounds::PhaseBounds(const Program& p) : p_(p), usable_(p.num_mbars() <= 64), owner_(next_owner++) {
  // The named-barrier slots: the one constant count every operation gives
  // each, whole_only where every one gives none (the whole CTA: the live
  // threads), 0 where two give different counts (an instance's count is its
  // first arrive's, which the order of the arrivals would decide), some give
  // none and others one, a count is not constant, or an id is not known.
  // AMD's workgroup barrier counts waves: none held.
  const int n = p.ctas * p.named_used;
  if (n == 0 || n > 64 || p.kernel->target == ir::Target::amd) return;
  std::vector<std::int64_t> per_slot(static_cast<std::size_t>(p.named_used), std::int64_t{1} << 40);
  for (const std::vector<Instr>& code : p.code)
    for (const Instr& in : code) {
      if (in.kind != InstrKind::op || !ir::op_uses_named_barrier(in.op->code)) continue;
      const ir::Op& op = *in.op;
      std::int64_t count = 0, id = 0;
      const bool count_known = op.count != ir::no_expr && is_constant(p, op.count) && (count = eval(p, op.count, nullptr)) > 0;
      // (__syncthreads has no id operand: barrier 0, PTX ISA bar)
      const bool id_known = op.id == ir::no_expr || (is_constant(p, op.id) && (id = eval(p, op.id, nullptr)) >= 0 && id < spec::named::num_ids);
      if (!id_known) return;  // any slot: none held
      const int slot = p.named_slot[static_cast<std::size_t>(id)];
      if (slot < 0) continue;
      std::int64_t& m = per_slot[static_cast<std::size_t>(slot)];
      const bool none_yet = m == (std::int64_t{1} << 40);
      // Surely the whole CTA (spec::named::whole_cta).
      const bool whole = ir::named_surely_whole(op, op.count != ir::no_expr && is_constant(p, op.count) && eval(p, op.count, nullptr) == 0);
      if (whole) m = none_yet || m == whole_only ? whole_only : 0;
      else m = !count_known || ir::named_may_be_whole(op, true) || m == whole_only || (!none_yet && m != count) ? 0 : count;
    }
  slots_ = n;
  slot_min_.resize(static_cast<std::size_t>(n));
  for (int c = 0; c < p.ctas; ++c)
    for (int k = 0; k < p.named_used; ++k) slot_min_[static_cast<std::size_t>(c * p.named_used + k)] = per_slot[static_cast<std::size_t>(k)];
}

namespace {

// One path of an agent's run: where it is, its variables (with which are
// not known), and the arrivals it has made on each barrier.
struct Path {
  int pc = 0;
  std::vector<std::int64_t> vars;
  std::vector<std::uint8_t> unknown;
  int unknowns = 0;  // how many of them
  std::vector<std::int64_t> arrived;  // per barrier, its arrivals; then its bytes completed
  // The agent on the cluster barrier: not arrived, arrived on an instance
  // that has completed (its wait passes), or on the current one.
  enum class Cluster : std::uint8_t { none, completed, current } cluster = Cluster::none;
  // Past the instruction the agent stands at: only there does the agent's
  // stage (arrived, waiting) apply, not where a loop brings the path back.
  bool started = false;
  bool operator==(const Path&) const = default;
};

}  // namespace

bool PhaseBounds::run(const State& s, int a, const Query::Frozen& frozen, bool held, std::int64_t* most, const Visitor& v,
                      std::uint64_t* future) const {
  const int mbars = p_.num_mbars(), width = most_width();
  std::fill_n(most, width, 0);
  const AgentState& ag = s.agents[static_cast<std::size_t>(a)];
  if (ag.exited) return true;
  const AgentInfo& info = p_.agents[static_cast<std::size_t>(a)];
  const std::vector<Instr>& code = p_.code[static_cast<std::size_t>(info.role)];
  const int n = static_cast<int>(code.size());
  const std::size_t base = static_cast<std::size_t>(p_.var_base[static_cast<std::size_t>(a)]);
  const std::size_t end = static_cast<std::size_t>(a) + 1 < p_.var_base.size()
                              ? static_cast<std::size_t>(p_.var_base[static_cast<std::size_t>(a) + 1])
                              : s.vars.size();
  auto unbound = [&] {
    std::fill_n(most, width, unbounded);
    return false;
  };

  // An exit lowers the threads a whole-CTA instance of its CTA waits for:
  // the same as its threads' arrivals there (spec::named::on_exit).
  auto exits = [&](Path& path) {
    if (slots_ == 0) return;
    const std::size_t at = 2 * static_cast<std::size_t>(mbars);
    for (int k = 0; k < p_.named_used; ++k) {
      const int slot = info.cta * p_.named_used + k;
      if (slot_min_[static_cast<std::size_t>(slot)] != whole_only) continue;
      std::int64_t& x = path.arrived[at + static_cast<std::size_t>(slot)];
      x = std::min(x + info.threads, unbounded);
    }
  };

  Path first;
  first.pc = ag.pc;
  first.vars.assign(s.vars.begin() + static_cast<std::ptrdiff_t>(base), s.vars.begin() + static_cast<std::ptrdiff_t>(end));
  first.unknown.assign(first.vars.size(), 0);
  first.arrived.assign(static_cast<std::size_t>(width), 0);
  // spec::cluster::Ticket: g + 1 for an arrive on instance g not yet waited.
  if (ag.cluster_ticket != 0)
    first.cluster = ag.cluster_ticket - 1 < s.cluster.generation ? Path::Cluster::completed : Path::Cluster::current;
  std::vector<Path> todo{std::move(first)};
  std::vector<Path> heads;  // paths seen at the target of a backward jump: a second visit adds nothing
  int steps = 0;

  while (!todo.empty()) {
    Path path = std::move(todo.back());
    todo.pop_back();
    auto value = [&](ir::ExprId e) -> std::optional<std::int64_t> {
      if (e == ir::no_expr) return std::nullopt;
      if (path.unknowns == 0) {
        try {
          return eval(p_, e, path.vars.data());
        } catch (const KernelError&) {
          return std::nullopt;
        }
      }
      return ir::fold(p_.exprs, e, [&](int v) -> std::optional<std::int64_t> {
        if (v < 0 || static_cast<std::size_t>(v) >= path.vars.size() || path.unknown[static_cast<std::size_t>(v)]) return std::nullopt;
        return path.vars[static_cast<std::size_t>(v)];
      }).value;
    };
    auto set_var = [&](int v, std::optional<std::int64_t> x) {
      if (v < 0 || static_cast<std::size_t>(v) >= path.vars.size()) return;
      path.unknowns += (x ? 0 : 1) - path.unknown[static_cast<std::size_t>(v)];
      path.unknown[static_cast<std::size_t>(v)] = !x;
      path.vars[static_cast<std::size_t>(v)] = x.value_or(0);
    };
    // The CTAs a reference names: its own, the one its expression gives, or
    // every CTA of the cluster.
    auto ctas = [&](ir::ExprId cta_expr, auto&& f) {
      if (cta_expr == ir::no_expr) return f(info.cta);
      const int first_cta = p_.grid_first(info.cta);
      const std::optional<std::int64_t> c = value(cta_expr);
      if (c && *c >= 0 && *c < p_.cluster_ctas) return f(first_cta + static_cast<int>(*c));
      for (int x = first_cta; x < first_cta + p_.cluster_ctas; ++x) f(x);
    };
    // The instances of a barrier reference in CTA c.
    auto instances = [&](const ir::Ref& r, int c, auto&& f) {
      const int size = p_.kernel->mbarriers[static_cast<std::size_t>(r.object)].size;
      const int first_m = c * p_.mbars_per_cta + p_.mbar_base[static_cast<std::size_t>(r.object)];
      const std::optional<std::int64_t> i = r.index == ir::no_expr ? std::optional<std::int64_t>(0) : value(r.index);
      if (i && *i >= 0 && *i < size) return f(first_m + static_cast<int>(*i));
      for (int x = 0; x < size; ++x) f(first_m + x);
    };
    // `count` arrivals (or, `bytes`, bytes completed) on the barriers r
    // names in the CTAs of the multicast mask, or of r.
    auto arrive = [&](const ir::Ref& r, ir::ExprId multicast, std::int64_t count, bool bytes = false) {
      const std::size_t at = bytes ? static_cast<std::size_t>(mbars) : 0;
      auto add = [&](int m) {
        std::int64_t& x = path.arrived[at + static_cast<std::size_t>(m)];
        x = std::min(x + count, unbounded);
      };
      if (multicast == ir::no_expr) return ctas(r.cta, [&](int c) { instances(r, c, add); });
      const std::optional<std::int64_t> mask = value(multicast);
      const int first_cta = p_.grid_first(info.cta);
      for (int c = first_cta; c < first_cta + p_.cluster_ctas; ++c)
        if (!mask || (*mask >> (c - first_cta) & 1)) instances(r, c, add);
    };
    auto visit = [&](const ir::Op& op) {
      v.visit(future, a, path.pc, &op, path.unknowns == 0 ? path.vars.data() : nullptr);
      ++path.pc;
    };
    bool ended = false;
    while (!ended) {
      if (++steps > budget || static_cast<int>(todo.size()) > max_paths) return unbound();
      if (path.pc >= n) {  // the exit
        v.visit(future, a, n, nullptr, nullptr);
        exits(path);
        break;
      }
      const Instr& in = code[static_cast<std::size_t>(path.pc)];
      // The instruction the agent stands at, in the stage it is in.
      const bool at_start = !path.started;
      path.started = true;
      switch (in.kind) {
        case InstrKind::assign:
          set_var(in.var, value(in.expr));
          ++path.pc;
          continue;
        case InstrKind::assert_true: ++path.pc; continue;
        case InstrKind::jump:
        case InstrKind::choose:
        case InstrKind::branch_false: {
          int next[2] = {in.kind == InstrKind::jump ? in.target : path.pc + 1, -1};
          if (in.kind == InstrKind::choose) next[1] = in.target;  // either way
          if (in.kind == InstrKind::branch_false) {
            const std::optional<std::int64_t> c = value(in.expr);
            if (c) next[0] = *c != 0 ? path.pc + 1 : in.target;
            else next[1] = in.target;
          }
          if (next[1] >= 0) {
            Path other = path;
            other.pc = next[1];
            todo.push_back(std::move(other));
          }
          const bool back = next[0] <= path.pc;
          path.pc = next[0];
          // A path repeats only where it loops on something it does not
          // know (a poll), or changes nothing (the budget ends that).
          if (back && path.unknowns > 0) {
            if (std::find(heads.begin(), heads.end(), path) != heads.end()) ended = true;
            else heads.push_back(path);
          }
          continue;
        }
        case InstrKind::op: break;
      }
      const ir::Op& op = *in.op;
      const ir::Footprint fp = ir::op_footprint(op.code);
      // A wait by parity on a barrier of F whose phase it must see complete
      // blocks for good; a test or try of one returns what it returns now.
      if (fp == ir::Footprint::mbar_wait) {
        std::optional<std::int64_t> observed;
        if (op.token_var < 0 && op.bar.object >= 0 && op.bar.cta == ir::no_expr) {
          const std::optional<std::int64_t> parity = op.parity == ir::no_expr ? std::optional<std::int64_t>(0) : value(op.parity);
          const int size = p_.kernel->mbarriers[static_cast<std::size_t>(op.bar.object)].size;
          const std::optional<std::int64_t> i = op.bar.index == ir::no_expr ? std::optional<std::int64_t>(0) : value(op.bar.index);
          if (parity && i && *i >= 0 && *i < size) {
            const int m = info.cta * p_.mbars_per_cta + p_.mbar_base[static_cast<std::size_t>(op.bar.object)] + static_cast<int>(*i);
            if (frozen.mbars >> m & 1) {
              const spec::Outcome o = spec::mbarrier::test_wait_parity(s.mbars[static_cast<std::size_t>(m)], static_cast<std::uint32_t>(*parity));
              if (o.violation == spec::Violation::none) observed = o.observed;
            }
          }
        }
        if (op.code == OpCode::mbar_wait && observed && *observed == 0) {
          ended = true;
          continue;
        }
        visit(op);
        if (op.dest_var >= 0) set_var(op.dest_var, observed);
        continue;
      }
      // A named barrier: the agent's threads arrive on its slot (any slot of
      // the CTA where the id is not known); a bar.sync or bar.red on a slot
      // of F then waits for good (its instance does not complete), as does
      // one the agent stands at having arrived (spec::agent stage: waiting).
      if (fp == ir::Footprint::barrier && slots_ > 0 && ir::op_family(op.code) != ir::OpFamily::amd) {
        const bool resumed = at_start && ag.stage == spec::agent::waiting;
        const bool waits = ir::op_has(op.code, ir::opf::named_wait);
        const std::optional<std::int64_t> id = op.id == ir::no_expr ? std::optional<std::int64_t>(0) : value(op.id);
        const int first_slot = info.cta * p_.named_used;
        int slot = -1;
        if (id && *id >= 0 && *id < spec::named::num_ids) slot = p_.named_slot[static_cast<std::size_t>(*id)];
        // A wait for an instance that has completed passes.
        if (resumed && waits && slot >= 0 && (frozen.named >> (first_slot + slot) & 1) &&
            s.named[static_cast<std::size_t>(first_slot + slot)].generation <= ag.ticket) {
          ended = true;
          continue;
        }
        if (!resumed) {
          const std::size_t at = 2 * static_cast<std::size_t>(mbars);
          for (int k = 0; k < p_.named_used; ++k) {
            if (slot >= 0 && k != slot) continue;
            std::int64_t& x = path.arrived[at + static_cast<std::size_t>(first_slot + k)];
            x = std::min(x + info.threads, unbounded);
          }
        }
        visit(op);
        if (!resumed && waits && slot >= 0 && (frozen.named >> (first_slot + slot) & 1)) ended = true;
        continue;
      }
      // Held, the cluster barrier's current instance does not complete: a
      // wait for it blocks for good. A wait for an instance that completed
      // passes; a wait with no arrive, or a second arrive, is misuse, whose
      // step ends the run too.
      if (fp == ir::Footprint::cluster && held) {
        // A cluster_sync the agent stands at having arrived (spec::agent
        // stage: waiting) has its wait alone left.
        const bool resumed = at_start && ag.stage == spec::agent::waiting;
        const bool arrives = op.code != OpCode::cluster_wait && !resumed, waits = op.code != OpCode::cluster_arrive;
        if (arrives) {
          visit(op);
          // A second arrive with no wait between is misuse: its step ends the run.
          if (path.cluster != Path::Cluster::none || waits) ended = true;  // cluster_sync: it waits for the instance it joined
          path.cluster = Path::Cluster::current;
          continue;
        }
        // A wait: for the current instance it blocks for good; with no arrive it is misuse.
        if (path.cluster == Path::Cluster::current) {
          ended = true;
          continue;
        }
        visit(op);
        if (path.cluster == Path::Cluster::none) ended = true;
        path.cluster = Path::Cluster::none;
        continue;
      }
      visit(op);
      if (fp == ir::Footprint::exit) {
        exits(path);
        break;
      }
      if (op.dest_var >= 0) set_var(op.dest_var, std::nullopt);  // a token, a value read, a query's answer
      if (op.bar.object < 0) continue;
      if (op.code == OpCode::mbar_init || op.code == OpCode::mbar_inval) {
        arrive(op.bar, ir::no_expr, unbounded);  // its phase may start again
        arrive(op.bar, ir::no_expr, unbounded, true);
        continue;
      }
      // Bytes completed on the barrier: an st.async's or complete-tx's
      // count; a TMA load's or a launch-control response's, not bounded.
      if (fp == ir::Footprint::async_store || op.code == OpCode::mbar_complete_tx) {
        const std::optional<std::int64_t> bytes = value(op.bytes);
        arrive(op.bar, ir::no_expr, bytes && *bytes >= 0 ? *bytes * lanes_of(op, info).count : unbounded, true);
      } else if (fp == ir::Footprint::tma_load || fp == ir::Footprint::clc_request) {
        arrive(op.bar, op.multicast, unbounded, true);
      }
      if (ir::op_has(op.code, ir::opf::thread_arrive)) {
        const std::optional<std::int64_t> count = op.count == ir::no_expr ? std::optional<std::int64_t>(1) : value(op.count);
        if (!count || *count < 0) return unbound();
        arrive(op.bar, ir::no_expr, *count * lanes_of(op, info).count);
      } else if (ir::op_has(op.code, ir::opf::async_arrive)) {
        // A tcgen05.commit arrives once on each barrier it names; a
        // cp.async.mbarrier.arrive once per lane.
        arrive(op.bar, op.multicast, op.code == OpCode::tcgen05_commit ? 1 : lanes_of(op, info).count);
      }
    }
    for (int m = 0; m < width; ++m) most[m] = std::max(most[m], path.arrived[static_cast<std::size_t>(m)]);
  }
  return true;
}

PhaseBounds::Query::Query(const PhaseBounds& b, const State& s, std::uint64_t movers, int width, const Visitor& v)
    : b_(b), s_(s), mbars_(b.p_.num_mbars()), width_(width), visitor_(v), movers_(movers) {
  for (int m = 0; m < mbars_ && m < 64; ++m) {
    const spec::mbarrier::State& st = s.mbars[static_cast<std::size_t>(m)];
    if (st.status == spec::mbarrier::Status::live && (st.pending > 0 || st.tx > 0)) initial_ |= std::uint64_t{1} << m;
  }
  // A named slot's instance in progress expects its count less what has
  // arrived; one not begun, the one count every operation gives the slot.
  pending_named_.assign(static_cast<std::size_t>(b.slots_), 0);
  for (int n = 0; n < b.slots_; ++n) {
    const spec::named::State& st = s.named[static_cast<std::size_t>(n)];
    const std::int64_t least = b.slot_min_[static_cast<std::size_t>(n)];
    if (least == whole_only) {
      // The whole CTA: its live threads less those arrived (spec::named::arrive's count).
      const std::int64_t live = live_threads(b.p_, s.agents, n / b.p_.named_used);
      pending_named_[static_cast<std::size_t>(n)] = live - st.arrived;
      if (pending_named_[static_cast<std::size_t>(n)] > 0) initial_named_ |= std::uint64_t{1} << n;
      continue;
    }
    if (least == 0 || st.whole_cta) continue;
    pending_named_[static_cast<std::size_t>(n)] = st.count > 0 ? std::int64_t{st.count} - st.arrived : least;
    if (pending_named_[static_cast<std::size_t>(n)] > 0) initial_named_ |= std::uint64_t{1} << n;
  }
  bound_.resize(static_cast<std::size_t>(b.most_width()));
}

PhaseBounds::Query::Runs& PhaseBounds::Query::runs(const Frozen& frozen, int agent) {
  const std::size_t agents = s_.agents.size();
  auto it = std::find_if(runs_.begin(), runs_.end(), [&](const Runs& r) { return r.frozen == frozen && r.held == held_; });
  if (it == runs_.end()) {
    Runs r;
    r.frozen = frozen;
    r.held = held_;
    r.done.assign(agents, 0);
    r.most.assign(agents * static_cast<std::size_t>(b_.most_width()), 0);
    r.future.assign(agents * static_cast<std::size_t>(width_), 0);
    runs_.push_back(std::move(r));
    it = runs_.end() - 1;
  }
  const std::size_t a = static_cast<std::size_t>(agent);
  if (it->done[a]) return *it;
  const std::size_t wide = static_cast<std::size_t>(b_.most_width());
  std::int64_t* most = it->most.data() + a * wide;
  std::uint64_t* future = it->future.data() + a * static_cast<std::size_t>(width_);
  // The memo's key: what the run reads of the state.
  const AgentState& ag = s_.agents[a];
  std::uint64_t parities = 0;
  for (int m = 0; m < mbars_; ++m)
    if (frozen.mbars >> m & 1) parities |= std::uint64_t{s_.mbars[static_cast<std::size_t>(m)].phase & 1u} << m;
  const std::size_t base = static_cast<std::size_t>(b_.p_.var_base[a]);
  const std::size_t end = a + 1 < b_.p_.var_base.size() ? static_cast<std::size_t>(b_.p_.var_base[a + 1]) : s_.vars.size();
  // Held, the run reads the agent's cluster ticket: none, on a completed
  // instance, on the current one; and its stage at a split-phase barrier.
  const std::uint64_t ticket = ag.cluster_ticket == 0 ? 0 : ag.cluster_ticket - 1 < s_.cluster.generation ? 1 : 2;
  // And, for a named wait it stands at, which slots of F have completed the
  // instance it joined (its wait passes there).
  std::uint64_t passed = 0;
  for (int n = 0; n < b_.slots_; ++n)
    if ((frozen.named >> n & 1) && s_.named[static_cast<std::size_t>(n)].generation > ag.ticket) passed |= std::uint64_t{1} << n;
  const std::uint64_t head[] = {b_.owner_, a, ag.pc, ag.exited, frozen.mbars, frozen.named, parities, ag.stage, passed, held_ ? 1u + ticket : 0u};
  // Built in the thread's buffer: a lookup that hits allocates nothing.
  std::string& key = memo.key;
  key.assign(reinterpret_cast<const char*>(head), sizeof head);
  key.append(reinterpret_cast<const char*>(s_.vars.data() + base), (end - base) * sizeof(std::int64_t));
  if (const auto hit = memo.runs.find(key); hit != memo.runs.end()) {
    std::copy(hit->second.most.begin(), hit->second.most.end(), most);
    std::copy(hit->second.future.begin(), hit->second.future.end(), future);
    it->done[a] = hit->second.ok ? 2 : 1;
    return *it;
  }
  const bool ok = b_.run(s_, agent, frozen, held_, most, visitor_, future);
  it->done[a] = ok ? 2 : 1;
  if (memo.runs.size() >= memo_limit) memo.runs.clear();
  memo.runs.emplace(key, Memo::Entry{ok, std::vector<std::int64_t>(most, most + wide), std::vector<std::uint64_t>(future, future + width_)});
  return *it;
}

void PhaseBounds::Query::bounds(const Frozen& frozen, std::uint64_t outside) {
  const Key key{outside, frozen, held_, true};
  if (bound_key_ == key) return;
  bound_key_ = key;
  const int agents = static_cast<int>(s_.agents.size());
  const int procs = agents + static_cast<int>(s_.pending.size());
  const std::size_t wide = static_cast<std::size_t>(b_.most_width());
  std::fill(bound_.begin(), bound_.end(), 0);
  for (int x = 0; x < procs && x < 64; ++x) {
    if (!(outside >> x & 1)) continue;
    if (x < agents) {
      // An agent that counts on no mbarrier adds to the named slots' bounds only.
      const bool mover = movers_ >> x & 1;
      if (!mover && frozen.named == 0) continue;
      const std::int64_t* row = runs(frozen, x).most.data() + static_cast<std::size_t>(x) * wide;
      for (std::size_t k = mover ? 0 : 2 * static_cast<std::size_t>(mbars_); k < wide; ++k)
        bound_[k] = std::min(bound_[k] + row[k], unbounded);
      continue;
    }
    const Pending& pe = s_.pending[static_cast<std::size_t>(x - agents)];
    if (pe.kind == PendingKind::tcgen05_arrive) bound_[pe.mbar] += 1;
    else if (pe.kind == PendingKind::cp_async_arrive) bound_[pe.mbar] += pe.bytes;
    else bound_[static_cast<std::size_t>(mbars_) + pe.mbar] += pe.bytes;  // a landing's bytes
  }
}

PhaseBounds::Query::Frozen PhaseBounds::Query::frozen(std::uint64_t outside) {
  if (!b_.usable_) return {};
  const Key key{outside, Frozen{}, held_, true};
  if (frozen_key_ == key) return frozen_answer_;
  Frozen frozen{initial_, initial_named_};
  while (frozen.mbars != 0 || frozen.named != 0) {
    bounds(frozen, outside);
    // A phase completes with no arrival and no byte pending: it cannot
    // while the arrivals are fewer than those pending, or the bytes that
    // may complete fewer than the tx-count (an expect-tx only raises it).
    // A named slot's instance likewise, by the threads it still expects.
    Frozen next;
    for (int k = 0; k < mbars_; ++k) {
      const spec::mbarrier::State& st = s_.mbars[static_cast<std::size_t>(k)];
      if ((frozen.mbars >> k & 1) && (bound_[static_cast<std::size_t>(k)] < st.pending ||
                                      (st.tx > 0 && bound_[static_cast<std::size_t>(mbars_ + k)] < st.tx)))
        next.mbars |= std::uint64_t{1} << k;
    }
    for (int n = 0; n < b_.slots_; ++n)
      if ((frozen.named >> n & 1) &&
          bound_[2 * static_cast<std::size_t>(mbars_) + static_cast<std::size_t>(n)] < pending_named_[static_cast<std::size_t>(n)])
        next.named |= std::uint64_t{1} << n;
    if (next == frozen) break;
    frozen = next;
  }
  frozen_key_ = key;
  frozen_answer_ = frozen;
  return frozen;
}

bool PhaseBounds::Query::quiet(int m, std::int64_t own, std::uint64_t outside) {
  if (!b_.usable_ || !(initial_ >> m & 1)) return false;
  const Frozen f = frozen(outside);
  if (!(f.mbars >> m & 1)) return false;
  bounds(f, outside);
  return bound_[static_cast<std::size_t>(m)] + own < s_.mbars[static_cast<std::size_t>(m)].pending;
}

bool PhaseBounds::Query::quiet_bytes(int m, std::int64_t own, std::uint64_t outside) {
  if (!b_.usable_ || !(initial_ >> m & 1)) return false;
  const Frozen f = frozen(outside);
  if (!(f.mbars >> m & 1)) return false;
  bounds(f, outside);
  return bound_[static_cast<std::size_t>(mbars_ + m)] + own < s_.mbars[static_cast<std::size_t>(m)].tx;
}

bool PhaseBounds::Query::quiet_named(int n, std::int64_t own, std::uint64_t outside) {
  if (!b_.usable_ || n < 0 || n >= b_.slots_ || !(initial_named_ >> n & 1)) return false;
  const Frozen f = frozen(outside);
  if (!(f.named >> n & 1)) return false;
  bounds(f, outside);
  // Every arrival, outside and own, lands in the instance in progress: it
  // completes at the last of them, in any order, or not at all.
  const std::int64_t total = bound_[2 * static_cast<std::size_t>(mbars_) + static_cast<std::size_t>(n)] + own;
  const std::int64_t pending = pending_named_[static_cast<std::size_t>(n)];
  if (total < pending) return true;
  if (total > pending || own == 0) return false;
  // Where own's step may complete it, no agent outside may be waiting on the
  // slot for an instance already complete: its wait would acquire this one's
  // releases (the slot's one sync object) and read its bar.red results
  // after the completion, and not before.
  const spec::named::State& st = s_.named[static_cast<std::size_t>(n)];
  const int agents = static_cast<int>(s_.agents.size());
  for (int x = 0; x < agents && x < 64; ++x) {
    const AgentState& ag = s_.agents[static_cast<std::size_t>(x)];
    if (!(outside >> x & 1) || ag.exited || ag.stage != spec::agent::waiting || st.generation <= ag.ticket) continue;
    const AgentInfo& info = b_.p_.agents[static_cast<std::size_t>(x)];
    if (info.cta * b_.p_.named_used > n || n >= (info.cta + 1) * b_.p_.named_used) continue;
    const std::vector<Instr>& code = b_.p_.code[static_cast<std::size_t>(info.role)];
    if (ag.pc < code.size() && code[ag.pc].kind == InstrKind::op && ir::op_uses_named_barrier(code[ag.pc].op->code)) return false;
  }
  return true;
}

const std::uint64_t* PhaseBounds::Query::future(const Frozen& frozen, int agent) {
  Runs& r = runs(frozen, agent);
  if (r.done[static_cast<std::size_t>(agent)] != 2) return nullptr;
  return r.future.data() + static_cast<std::size_t>(agent) * static_cast<std::size_t>(width_);
}

}  // namespace pc::check
