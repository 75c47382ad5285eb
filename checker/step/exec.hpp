// The explorer's step of one agent, as a class shared by the files of
// checker/step/: Exec resolves an operation's operands against the state,
// calls the rule of spec/ for it, and writes the trace text. One handler per
// op of the table (checker/ops.hpp), each in the file of its family.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "checker/step.hpp"
#include "spec/agent.hpp"
#include "spec/ordering.hpp"
#include "spec/rules.hpp"
#include "spec/sync_order.hpp"

namespace pc::check::exec {

using ir::OpCode;
using spec::Violation;
namespace hb = spec::hb;
namespace mb = spec::mbarrier;
namespace ord = spec::ordering;
namespace rules = spec::rules;
namespace so = spec::sync_order;


// A state token in a .bk variable: the phase in bits 32..61, the .noComplete
// flag in bit 62, the pending count in bits 0..31.
inline std::int64_t encode_token(const spec::mbarrier::Token& t) {
  return (std::int64_t(t.phase & 0x3fffffffu) << 32) | (std::int64_t(t.no_complete) << 62) | std::uint32_t(t.pending);
}
inline spec::mbarrier::Token decode_token(std::int64_t v) {
  return spec::mbarrier::Token{static_cast<std::uint32_t>((v >> 32) & 0x3fffffff), static_cast<std::int32_t>(v & 0xffffffff),
                               ((v >> 62) & 1) != 0};
}

// The semantics and scope an arrive or wait has, defaults spelled out (PTX
// ISA mbarrier.arrive: .release and .cta by default; test_wait/try_wait:
// .acquire and .cta), so that a trace shows what a scope bug rests on.
inline std::string scope_text(const ir::Op& op, bool arrive) {
  std::string t = op.sem == ir::Sem::relaxed ? " relaxed" : arrive ? " release" : " acquire";
  return t + (op.scope == ir::Scope::cluster ? " cluster" : " cta");
}

// Whether mbarrier instance `mbar`'s initialisation is visible to a use by
// `issuers` through `proxy` (rules::init_use over the hb check of the use).
inline rules::InitUse init_use_of(const Program& p, const hb::Memory& mem, int mbar, hb::Proxy proxy, hb::Threads issuers) {
  // No op writes this barrier's memory: no event to conflict with (what
  // check_only finds on a buffer without events).
  if (p.mbar_memory_written[static_cast<std::size_t>(mbar)] == 0) return rules::init_use(hb::Check{});
  hb::Access acc;
  acc.buf = p.mbar_pseudo_buffer(mbar);
  acc.proxy = proxy;
  acc.issuers = issuers;
  return rules::init_use(hb::check_only(mem, acc));
}

// The sync objects of mbarrier instance `mbar`, one per release channel
// (spec::sync_order::MbarSyncs).
inline so::MbarSyncs mbar_channels(const Program& p, int mbar) {
  return so::MbarSyncs{p.mbar_sync(mbar), p.mbar_cluster_sync[static_cast<std::size_t>(mbar)],
                       p.mbar_weak_sync[static_cast<std::size_t>(mbar)]};
}

// An assignment or control flow (is_control): the agent's variables and pc.
// An absent expression reads 0, as Exec::ev reads it.
// What an operation failed with, as an exception internal to this file: the
// step stops and reports it.
struct Stop {
  Violation v;
  std::string msg;
};

class Exec {
 public:
  Exec(const Program& p, bool describe, bool strict, State& s, int a, StepInfo& info)
      : p_(p), describe_(describe), strict_(strict), s_(s), a_(a), ag_(s.agents[static_cast<std::size_t>(a)]),
        info_(info), me_(p.agents[static_cast<std::size_t>(a)]) {}

  void run();

 private:
  // What a handler leaves of the agent's pc: `next` moves it past the op,
  // `stay` keeps it there (a split-phase op waiting, or one that moved it
  // itself).
  enum class Pc : bool { stay, next };
  const Program& p_;
  bool describe_;
  bool strict_ = false;
  State& s_;
  int a_;
  AgentState& ag_;
  StepInfo& info_;
  const AgentInfo& me_;

  std::int64_t* vars() const { return s_.vars.data() + p_.var_base[static_cast<std::size_t>(a_)]; }
  // Every agent's AgentState, to read another's: each read of s_.agents
  // but the agent's own (ag_) goes through here, so that the step says it
  // read outside its own part and the parts no agent owns
  // (StepInfo::reads_others; StepCache keeps only steps that did not).
  const Part<AgentState>& all_agents() const {
    info_.reads_others = true;
    return s_.agents;
  }
  std::int64_t ev(ir::ExprId e, std::int64_t dflt = 0) const {
    return e == ir::no_expr ? dflt : eval(p_, e, vars());
  }
  // Descriptions are built only when describing (a trace), never in the search.
#define SAY(...)                          \
  do {                                    \
    if (describe_) info_.text = __VA_ARGS__; \
  } while (0)
  // The thread that issues a one-lane operation executed by the lanes `l`:
  // the elected lane of warp 0, or of warp K (`warp K:`), the lowest of
  // them (spec::hb::AgentThreads numbers each warp's elected lane first).
  [[nodiscard]] static std::uint8_t issuer(const Lanes& l) {
    const auto low = static_cast<std::uint64_t>(l.threads);
    return static_cast<std::uint8_t>(low != 0 ? __builtin_ctzll(low) : 64 + __builtin_ctzll(static_cast<std::uint64_t>(l.threads >> 64)));
  }
  [[noreturn]] void stop(Violation v, const std::string& msg) { throw Stop{v, msg}; }

  // Its own CTA (always in the cluster) where the operand names none.
  int target_cta(const ir::Ref& r) { return check::target_cta(p_, r, vars(), me_.cta); }
  // The buffer operands' names, "a[0], b[1]" (for a description).
  std::string buffer_names(const ir::Op& op) {
    std::string s;
    for (const ir::Ref& r : op.bufs) s += (s.empty() ? "" : ", ") + p_.buffer_name(buf_at(r, target_cta(r)));
    return s;
  }
  // The error is thrown out of line, so that the lookup stays small enough
  // to inline (it runs in most steps).
  [[noreturn, gnu::cold, gnu::noinline]] static void outside(std::int64_t i, const std::string& name, int size, ir::Loc loc) {
    throw KernelError("index " + std::to_string(i) + " is outside " + name + "[" + std::to_string(size) + "]", loc);
  }
  int element(const ir::Ref& r, int size, const std::string& name) {
    const std::int64_t i = ev(r.index, 0);
    if (i < 0 || i >= size) outside(i, name, size, r.loc);
    return static_cast<int>(i);
  }
  int mbar_at(const ir::Ref& r, int cta) {
    const ir::MbarrierDecl& d = p_.kernel->mbarriers.at(static_cast<std::size_t>(r.object));
    return cta * p_.mbars_per_cta + p_.mbar_base[static_cast<std::size_t>(r.object)] + element(r, d.size, d.name);
  }
  int buf_at(const ir::Ref& r, int cta) {
    const ir::BufferDecl& d = p_.kernel->buffers.at(static_cast<std::size_t>(r.object));
    return p_.buffer_at(cta, r.object, element(r, d.size, d.name));
  }
  // The CTAs of the agent's cluster a multicast mask selects (bit i: rank i).
  template <class F>
  void each_selected(std::int64_t mask, F&& f) {
    const int first = p_.grid_first(me_.cta);
    for (int c = first; c < first + p_.cluster_ctas; ++c)
      if (rules::selects(mask, c - first)) f(c);
  }
  [[nodiscard]] std::int64_t own_bit() const { return std::int64_t(1) << (me_.cta - p_.grid_first(me_.cta)); }
  // A free sync object of this agent's arrival pool (Program::arrive_slot_first),
  // holding from now what the arrival being issued releases.
  std::uint8_t arrive_slot(const ir::Op& op) {
    const int first = p_.arrive_slot_first[static_cast<std::size_t>(a_)];
    for (int slot = first; slot < first + p_.arrive_slot_count[static_cast<std::size_t>(a_)]; ++slot) {
      bool used = false;
      for (const Pending& q : s_.pending)
        used |= holds_slot(q.kind) && q.agent == a_ && q.slot == slot;
      if (!used) return static_cast<std::uint8_t>(slot);
    }
    throw KernelError(me_.name + " has more than " + std::to_string(p_.arrive_slot_count[static_cast<std::size_t>(a_)]) +
                          " tcgen05.commit / cp.async.mbarrier.arrive arrivals in flight: the model holds that many per agent",
                      op.loc);
  }

  void require_alive(int cta, const std::string& what) {
    if (const Violation v = rules::target_alive((s_.cta_exited & (1u << cta)) != 0); v != Violation::none)
      stop(v, what + " targets CTA " + std::to_string(cta) + ", which has already exited");
  }
  // The CTA must be known to the issuing threads `by` to have started
  // (rules::target_started, spec::sync_order::cta_start_known).
  void require_started(int cta, hb::Threads by, const std::string& what) {
    if (rules::target_started(so::cta_start_known(s_.mem, p_.start_buffer(cta), by)) == Violation::none) return;
    peer_not_started(cta, what);
  }
  [[gnu::cold, gnu::noinline]] void peer_not_started(int cta, const std::string& what) {
    const std::string c = "CTA " + std::to_string(cta);
    stop(Violation::peer_not_started,
         what + " targets " + c + ", which may not have started: no synchronisation orders " + c + "'s start before it (CUDA C++ " +
             "Programming Guide, Distributed Shared Memory: \"Accessing data in distributed shared memory requires all the " +
             "thread blocks to exist\"); a cluster_sync in both CTAs before it, or a wait for an arrive that " + c + " made, orders it");
  }
  // A synchronous operation of the threads `by` on CTA `cta`, another one:
  // that CTA's end must follow it (spec::sync_order::remote_operation);
  // `sync`: the channel a wait that sees the operation acquires (-1: none).
  void remote_operations_done();
  void remote_operation(int cta, hb::Threads by, int sync) { so::remote_operation(s_.mem, p_.end_buffer(cta), by, sync); }
  // Both: an operation on another CTA of the cluster.
  void require_peer(int cta, hb::Threads by, const std::string& what) {
    require_alive(cta, what);
    require_started(cta, by, what);
  }

  // The mbarrier's initialisation must be visible to this use (PTX ISA,
  // mbarrier.init + fence.mbarrier_init; docs/spec.md "Initialisation").
  // The async proxy's use of a barrier that the same thread initialised with
  // no proxy fence between is a warning (docs/spec.md, "Stances").
  void require_init_visible(int mbar, hb::Proxy proxy, hb::Threads issuers) {
    const rules::InitUse use = init_use_of(p_, s_.mem, mbar, proxy, issuers);
    if (use != rules::InitUse::visible) init_not_visible(use, mbar, proxy);
  }
  // Out of line, so that the test above inlines where it runs (most steps).
  [[gnu::cold, gnu::noinline]] void init_not_visible(rules::InitUse use, int mbar, hb::Proxy proxy) {
    switch (use) {
      case rules::InitUse::visible: return;
      case rules::InitUse::unfenced_own_init:
        warn(Violation::async_init_unfenced,
             p_.mbar_name(mbar) + " is used by the async proxy (complete-tx) right after " + me_.name +
                 " initialised it, with no fence.mbarrier_init or fence.proxy.async between");
        return;
      case rules::InitUse::unfenced_init:
        warn(Violation::async_init_unfenced,
             p_.mbar_name(mbar) + " is used by the async proxy (complete-tx) after another thread's init of it, which a barrier "
                                  "orders before this use but no fence.mbarrier_init or fence.proxy.async made visible to the async proxy");
        return;
      case rules::InitUse::unordered: break;
    }
    stop(Violation::unsynchronized_init,
           p_.mbar_name(mbar) + " is used" + (proxy == hb::Proxy::async ? " by the async proxy" : "") +
               " before its mbarrier.init is ordered before this use" +
               (proxy == hb::Proxy::async ? " (fence.mbarrier_init / fence.proxy.async, then a barrier)" : ""));
  }
  // A finding that rests on a point the field relies on (spec::is_warning):
  // recorded, and the step goes on; with --strict it stops the search.
  void warn(Violation v, const std::string& msg) {
    if (strict_) stop(v, msg);
    if (info_.warning == Violation::none) {
      info_.warning = v;
      info_.warning_message = msg;
    } else if (info_.warning != v && info_.warning2 == Violation::none) {
      info_.warning2 = v;
      info_.warning2_message = msg;
    }
  }
  // A barrier that is used but never initialised is "uninitialized"; if the
  // kernel does initialise it somewhere, the use merely came first: the init
  // is not ordered before it.
  [[noreturn]] void mbar_fail(int mbar, Violation v) {
    if (rules::uninitialized_use(v, p_.mbar_has_init[static_cast<std::size_t>(p_.mbar_decl(mbar))]) != v)
      stop(Violation::unsynchronized_init, p_.mbar_name(mbar) + " is used before the mbarrier.init that initialises it");
    stop(v, p_.mbar_name(mbar) + ": " + std::string(spec::violation_doc(v)));
  }
  void phase_done(int mbar) {
    so::phase_completes(s_.mem, p_.mbar_syncs(mbar));
    if (describe_)
      info_.completed = p_.mbar_name(mbar) + " phase " + std::to_string(s_.mbars[static_cast<std::size_t>(mbar)].phase - 1) +
                        " complete";
  }
  void access(const ir::Ref& r, hb::Kind k, const Lanes& l, bool atomic = false);
  // A TMA copy's tensor map (`map`), read through the tensormap proxy by the
  // copy's async unit `unit` (in bulk async-group `group`) while the copy is
  // in flight (docs/spec.md, "Tensor maps"), ordered after what `issuer`
  // knows at the issue: its buffer, or -1 where the copy names no map.
  int tensormap_read(const ir::Op& op, std::uint8_t issuer, hb::Unit unit, std::uint16_t group);
  // `every`: the access was made by every lane (named by the agent alone).
  void race(const hb::Check& c, const std::string& what, int buf, bool every = false);
  // An access of an async unit of this agent (TMA, MMA, cp.async, st.async
  // and red.async: `atomic`), issued by `issuers`.
  hb::Check unit_access(int buf, hb::Kind k, hb::Proxy proxy, hb::Threads issuers, hb::Unit u, std::uint16_t group,
                        bool every, bool after_own_unit = false, bool atomic = false,
                        spec::tmem::MmaPart mma = spec::tmem::MmaPart::none, bool overwrite = false, int unit_agent = -1) {
    require_no_live_mbarrier(buf, k, proxy == hb::Proxy::async ? "the async proxy" : "an async copy or store");
    hb::Access acc;
    acc.after_own_unit = after_own_unit;
    acc.mma = static_cast<std::uint8_t>(mma);
    acc.atomic = atomic;
    acc.overwrite = overwrite;
    acc.buf = buf;
    acc.aliases = p_.aliases_of(buf);
    acc.covered = p_.covered_by(buf);
    acc.kind = k;
    acc.proxy = proxy;
    acc.issuers = issuers;
    acc.spread = every ? static_cast<std::uint8_t>(me_.parts + 1) : 0;
    acc.unit = unit_agent < 0 ? unit_thread(u) : p_.agents[static_cast<std::size_t>(unit_agent)].hb.unit(u);
    acc.group = group;
    acc.partial_units = partial_units(me_, issuers);
    if (describe_) info_.accesses.push_back({hb::bit(acc.unit), buf, k == hb::Kind::write, proxy});
    return hb::access(s_.mem, acc);
  }
  // The thread of the agent's async unit u. An access by a unit the layout
  // left out (check::instantiate, access_unit) is a defect of the checker.
  std::uint8_t unit_thread(hb::Unit u) const {
    if (!me_.hb.has_unit(u))
      throw InternalError(me_.name + " makes an access by an async unit its thread layout left out (check::access_unit)");
    return me_.hb.unit(u);
  }
  // hb::Access::partial_units: agent `a`'s per-warp units where `lanes`
  // leave out some of its warps.
  static hb::Threads partial_units(const AgentInfo& a, hb::Threads lanes) {
    return a.every_warp(lanes) ? hb::Threads{0} : a.hb.per_warp_units();
  }
  // The sync objects of this agent's fences (spec::sync_order::Fences).
  const so::Fences& fences() const { return p_.fences[static_cast<std::size_t>(a_)]; }
  // The agent's own CTA's shared memory: its data buffers and mbarriers.
  so::CtaMemory own_memory() const;
  void check_warp_mask(const ir::Op& op, const Lanes& l);
  void relaxed_wait_acquire(const ir::Op& op, int id);
  // A data access to bytes that hold a live mbarrier object (a buffer laid
  // over an mbarrier with `aliases`): `barrier_memory_reuse` (spec/mbarrier.hpp,
  // data_use). Its conflicts with the barrier's init and inval are races.
  void require_no_live_mbarrier(int buf, hb::Kind k, const char* by) {
    for (const std::uint16_t other : p_.aliases_of(buf)) {
      if (other < p_.num_buffers()) continue;
      const int mbar = other - p_.num_buffers();
      if (const Violation v = mb::data_use(s_.mbars[static_cast<std::size_t>(mbar)]); v != Violation::none)
        stop(v, std::string(k == hb::Kind::write ? "write of " : "read of ") + p_.mem_name(buf) + " by " + me_.name + " (" + by +
                    ") uses the memory of " + p_.mem_name(other) +
                    ", a live mbarrier object: mbarrier.inval it first (PTX ISA, mbarrier.inval)");
    }
  }
  // mbarrier.init and mbarrier.inval write the object's 8 bytes: where a
  // buffer is laid over them, its accesses must be ordered before (a race).
  void mbar_memory_write(int mbar, std::uint8_t leader, bool init) {
    const int pseudo = p_.mbar_pseudo_buffer(mbar);
    for (const std::uint16_t other : p_.aliases_of(pseudo)) {
      if (init && other >= p_.num_buffers())
        if (const Violation v = mb::init_over(s_.mbars[static_cast<std::size_t>(other - p_.num_buffers())]); v != Violation::none)
          stop(v, "mbarrier.init of " + p_.mem_name(pseudo) + " by " + me_.name + ": its bytes hold " + p_.mem_name(other) +
                      ", a live mbarrier object (mbarrier.inval it first)");
      hb::Access acc;
      acc.buf = other;
      acc.kind = hb::Kind::write;
      acc.issuers = hb::bit(leader);
      const hb::Check c = hb::check_only(s_.mem, acc);
      if (c.violation == Violation::none) continue;
      info_.race_buf = other;
      info_.race_other = c.other_thread;
      info_.race_other_write = c.other_was_write;
      info_.race_other_proxy = c.other_proxy;
      stop(Violation::data_race, std::string(init ? "mbarrier.init of " : "mbarrier.inval of ") + p_.mem_name(pseudo) + " by " +
                                     p_.thread_name(leader) + " is not ordered after the earlier " +
                                     (c.other_was_write ? "write" : "read") + " of " + p_.mem_name(other) + " by " +
                                     p_.thread_name(c.other_thread));
    }
    if (!init && !p_.aliases_of(pseudo).empty()) hb::overwrite(s_.mem, pseudo, leader);
  }
  // A tensor-memory access (docs/spec.md, "Tensor memory").
  void tmem_access(const ir::Ref& r, int cta, hb::Kind k, hb::Threads issuers, hb::Unit u, std::uint16_t group,
                   const std::string& what, spec::tmem::Async op, spec::tmem::MmaPart part = spec::tmem::MmaPart::none);
  void tmem_alloc(const ir::Op& op, const Lanes& l, bool alloc);
  void tmem_alloc_memory(int object, int cta, const AgentInfo& by, hb::Threads lanes, hb::Threads known, bool alloc);
  [[nodiscard]] std::string pair_name(spec::tmem::PairOp k, int which) const;
  void tmem_pair(const ir::Op& op, const Lanes& l, spec::tmem::PairOp kind);
  // A tcgen05 operation issued after a thread synchronization with no
  // tcgen05.fence::after_thread_sync between: the `tcgen05_unfenced` warning.
  // A thread synchronization of this agent (spec::agent::synced_after_thread_sync).
  void thread_synchronized() { ag_.tc_synced = spec::agent::synced_after_thread_sync(ag_.tc_synced, p_.has_tcgen05_mma); }
  void tcgen05_issue(const char* what) {
    if (const Violation v = rules::tcgen05_issue(ag_.tc_synced); v != Violation::none)
      warn(v, me_.name + " issues " + what + " after a thread synchronization with no tcgen05.fence::after_thread_sync "
                         "between (PTX ISA, tcgen05 memory consistency model)");
  }
  // Arrives the threads of `l` not yet arrived; false when a part of them
  // completed a phase and the rest arrive in the agent's next step
  // (AgentState::arrived).
  bool mbar_arrive(const ir::Op& op, const Lanes& l);
  void mbar_wait(const ir::Op& op, const Lanes& l, bool blocking);
  Pc named(const ir::Op& op, int id, std::int64_t count, bool wait);
  spec::named::ArriveArgs named_operands(const ir::Op& op, int id, std::int64_t count, int threads);
  [[noreturn]] void named_mismatch(Violation v, int id, std::int64_t count, const spec::named::State& st);
  Pc named_warps(const ir::Op& op, int id, std::int64_t count, bool wait);
  Pc amd_barrier(const ir::Op& op, bool signal, bool wait);
  Pc cluster_barrier(const ir::Op& op, const Lanes& l, bool arrive, bool wait);
  // Split-phase control, for the ops whose arrive and wait are one
  // instruction (bar.sync, s_barrier, barrier.cluster, a warp's part of a
  // wgmma in a role split per warp): at stage 0 the agent arrives
  // (`arrive()`, when the op arrives), then, when it waits, it waits at
  // stage 1 until `pass(arrived_now)` returns true, which performs what
  // passing does. An arrive whose wait cannot pass yet is a step of its own
  // (progress); a wait that cannot pass is not enabled.
  template <class Arrive, class Pass>
  Pc split_phase(bool arrives, bool waits, Arrive&& arrive, Pass&& pass) {
    bool arrived_now = false;
    if (spec::agent::arrives_now(ag_.stage, arrives)) {
      arrive();
      ag_.stage = spec::agent::after_arrive(waits);
      if (!waits) return Pc::next;
      arrived_now = true;
    }
    if (!pass(arrived_now)) {
      info_.enabled = arrived_now;
      return Pc::stay;
    }
    ag_.stage = spec::agent::after_pass();
    return Pc::next;
  }
  void retire(Groups& g, std::int64_t n, hb::Unit u, hb::Threads to);
  [[nodiscard]] bool split_warps() const { return p_.kernel->roles[static_cast<std::size_t>(me_.role)].per_warp; }
  [[nodiscard]] std::vector<int> warp_group_of(int a) const;
  Pc wgmma_warps(const ir::Op& op);
  void wgmma_issue(const ir::Op& op);  // the wgmma.fence rules (tensor.cpp)
  // The threads the cluster barrier's instance in progress waits for, as
  // spec::cluster::arrive counts them: the non-exited ones, and the exited
  // ones whose arrive it counts (spec::cluster::exited_counted).
  std::uint32_t cluster_expected() const {
    std::uint32_t n = 0;
    const Part<AgentState>& all = all_agents();
    for (std::size_t i = 0; i < all.size(); ++i)
      if (!all[i].exited || spec::cluster::exited_counted(s_.cluster, all[i].cluster_ticket))
        n += static_cast<std::uint32_t>(p_.agents[i].threads);
    return n;
  }
  std::uint32_t live_threads(int cta) const { return check::live_threads(p_, all_agents(), cta); }
  void exit_agent();
  void op(const ir::Op& op);
  [[noreturn, gnu::cold, gnu::noinline]] static void blocked_unexpectedly(const ir::Op& op);
  // One handler per op (checker/ops.hpp), in the file of its family
  // (checker/step/FAMILY.cpp); op() dispatches on the table.
#define PC_X(e, ...) Pc on_##e(const ir::Op& op, const Lanes& l);
  PC_OPS(PC_X)
#undef PC_X
};

}  // namespace pc::check::exec
