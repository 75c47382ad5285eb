#include "checker/step.hpp"

#include <algorithm>

#include "spec/ordering.hpp"
#include "spec/rules.hpp"

namespace pc::check {
namespace {

using ir::OpCode;
using spec::Violation;
namespace hb = spec::hb;
namespace mb = spec::mbarrier;
namespace ord = spec::ordering;
namespace rules = spec::rules;

ord::Sem to_sem(ir::Sem s) { return static_cast<ord::Sem>(s); }
ord::Scope to_scope(ir::Scope s) { return static_cast<ord::Scope>(s); }

// A state token in a .bk variable: the phase in bits 32..61, the .noComplete
// flag in bit 62, the pending count in bits 0..31.
std::int64_t encode_token(const spec::mbarrier::Token& t) {
  return (std::int64_t(t.phase & 0x3fffffffu) << 32) | (std::int64_t(t.no_complete) << 62) | std::uint32_t(t.pending);
}
spec::mbarrier::Token decode_token(std::int64_t v) {
  return spec::mbarrier::Token{static_cast<std::uint32_t>((v >> 32) & 0x3fffffff), static_cast<std::int32_t>(v & 0xffffffff),
                               ((v >> 62) & 1) != 0};
}

// The semantics and scope an arrive or wait has, defaults spelled out (PTX
// ISA mbarrier.arrive: .release and .cta by default; test_wait/try_wait:
// .acquire and .cta), so that a trace shows what a scope bug rests on.
std::string scope_text(const ir::Op& op, bool arrive) {
  std::string t = op.sem == ir::Sem::relaxed ? " relaxed" : arrive ? " release" : " acquire";
  return t + (op.scope == ir::Scope::cluster ? " cluster" : " cta");
}

// Whether mbarrier instance `mbar`'s initialisation is visible to a use by
// `issuers` through `proxy` (rules::init_use over the hb check of the use).
rules::InitUse init_use_of(const Program& p, const hb::Memory& mem, int mbar, hb::Proxy proxy, hb::Threads issuers) {
  // No op writes this barrier's memory: no event to conflict with (what
  // check_only finds on a buffer without events).
  if (p.mbar_memory_written[static_cast<std::size_t>(mbar)] == 0) return rules::init_use(hb::Check{});
  hb::Access acc;
  acc.buf = p.mbar_pseudo_buffer(mbar);
  acc.proxy = proxy;
  acc.issuers = issuers;
  return rules::init_use(hb::check_only(mem, acc));
}

// The sync object of mbarrier instance `mbar` that a release of `scope`
// goes into (ordering::release_channel): the one every acquire synchronises
// with, or, from another CTA, the one of its scope; -1 where there is none.
int channel_sync(const Program& p, int mbar, ord::Scope scope, bool remote) {
  switch (ord::release_channel(scope, remote)) {
    case ord::Channel::any_scope: return p.mbar_sync(mbar);
    case ord::Channel::cluster_scope: return p.mbar_cluster_sync[static_cast<std::size_t>(mbar)];
    case ord::Channel::too_narrow: break;
  }
  return p.mbar_weak_sync[static_cast<std::size_t>(mbar)];
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
  [[noreturn]] void stop(Violation v, const std::string& msg) { throw Stop{v, msg}; }

  // Its own CTA (always in the cluster) where the operand names none.
  int target_cta(const ir::Ref& r) { return check::target_cta(p_, r, vars(), me_.cta); }
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
    return cta * p_.buffers_per_cta + p_.buffer_base[static_cast<std::size_t>(r.object)] + element(r, d.size, d.name);
  }
  // A free sync object of this agent's arrival pool (Program::arrive_slot_first),
  // holding from now what the arrival being issued releases.
  std::uint8_t arrive_slot(const ir::Op& op) {
    const int first = p_.arrive_slot_first[static_cast<std::size_t>(a_)];
    for (int slot = first; slot < first + p_.arrive_slot_count[static_cast<std::size_t>(a_)]; ++slot) {
      bool used = false;
      for (const Pending& q : s_.pending)
        used |= (q.kind == PendingKind::tcgen05_arrive || q.kind == PendingKind::cp_async_arrive || q.kind == PendingKind::st_async) &&
                q.agent == a_ && q.slot == slot;
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
    if (info_.warning != Violation::none) return;
    info_.warning = v;
    info_.warning_message = msg;
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
    hb::complete_all(s_.mem, p_.mbar_syncs(mbar));
    if (describe_)
      info_.completed = p_.mbar_name(mbar) + " phase " + std::to_string(s_.mbars[static_cast<std::size_t>(mbar)].phase - 1) +
                        " complete";
  }
  void access(const ir::Ref& r, hb::Kind k, const Lanes& l);
  // `every`: the access was made by every lane (named by the agent alone).
  void race(const hb::Check& c, const std::string& what, int buf, bool every = false);
  // An access of an async unit of this agent (TMA, MMA, cp.async, st.async
  // and red.async: `atomic`), issued by `issuers`.
  hb::Check unit_access(int buf, hb::Kind k, hb::Proxy proxy, hb::Threads issuers, hb::Unit u, std::uint16_t group,
                        bool every, bool after_own_unit = false, bool atomic = false) {
    require_no_live_mbarrier(buf, k, proxy == hb::Proxy::async ? "the async proxy" : "an async copy or store");
    hb::Access acc;
    acc.after_own_unit = after_own_unit;
    acc.atomic = atomic;
    acc.buf = buf;
    acc.aliases = p_.aliases_of(buf);
    acc.kind = k;
    acc.proxy = proxy;
    acc.issuers = issuers;
    acc.spread = every ? static_cast<std::uint8_t>(me_.parts + 1) : 0;
    acc.unit = me_.hb.unit(u);
    acc.group = group;
    if (describe_) info_.accesses.push_back({hb::bit(me_.hb.unit(u)), buf, k == hb::Kind::write, proxy});
    return hb::access(s_.mem, acc);
  }
  int channel_sync(int mbar, ord::Scope scope, bool remote) const { return check::channel_sync(p_, mbar, scope, remote); }
  // An arrive after this agent's release fences forms a release pattern with
  // each (PTX ISA, Memory Consistency Model, "Release and acquire patterns"):
  // what a fence released goes where a release of the pattern's scope goes.
  void fence_forward(int mbar, bool remote, ord::Scope arrive_scope) {
    const Program::Fences& f = p_.fences[static_cast<std::size_t>(a_)];
    for (const auto& [from, scope] : {std::pair{f.release_cluster, ord::Scope::cluster}, std::pair{f.release_cta, ord::Scope::cta}}) {
      if (from < 0) continue;
      if (const int to = channel_sync(mbar, ord::pattern_scope(scope, arrive_scope), remote); to >= 0)
        hb::forward(s_.mem, from, to);
    }
  }
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
                   const std::string& what, spec::tmem::Async op);
  void tmem_alloc(const ir::Op& op, bool alloc);
  void tmem_alloc_memory(int object, int cta, const AgentInfo& by, hb::Threads known, bool alloc);
  [[nodiscard]] const AgentInfo* pair_waiter(int cta) const;
  void tmem_pair(const ir::Op& op, spec::tmem::PairOp kind);
  // A tcgen05 operation issued after a thread synchronization with no
  // tcgen05.fence::after_thread_sync between: the `tcgen05_unfenced` warning.
  void tcgen05_issue(const char* what) {
    if (const Violation v = rules::tcgen05_issue(ag_.tc_synced); v != Violation::none)
      warn(v, me_.name + " issues " + what + " after a thread synchronization with no tcgen05.fence::after_thread_sync "
                         "between (PTX ISA, tcgen05 memory consistency model)");
  }
  void mbar_arrive(const ir::Op& op, const Lanes& l);
  void mbar_wait(const ir::Op& op, const Lanes& l, bool blocking);
  void named(const ir::Op& op, int id, std::int64_t count, bool wait);
  void amd_barrier(const ir::Op& op, bool signal, bool wait);
  void retire(Groups& g, std::int64_t n, hb::Unit u, hb::Threads to);
  [[nodiscard]] bool split_warps() const { return p_.kernel->roles[static_cast<std::size_t>(me_.role)].per_warp; }
  [[nodiscard]] std::vector<int> warp_group_of(int a) const;
  void wgmma_warps(const ir::Op& op);
  std::uint32_t live_threads(int cta) const {
    std::uint32_t live = 0;
    const Part<AgentState>& all = all_agents();
    for (std::size_t i = 0; i < all.size(); ++i)
      if (!all[i].exited && (cta < 0 || p_.agents[i].cta == cta)) live += static_cast<std::uint32_t>(p_.agents[i].threads);
    return live;
  }
  void exit_agent();
  void op(const ir::Op& op);
};

void Exec::race(const hb::Check& c, const std::string& what, int buf, bool every) {
  if (c.violation == Violation::none && c.warning == Violation::none) return;
  info_.race_buf = c.other_buf;
  info_.race_other = c.other_thread;
  info_.race_other_write = c.other_was_write;
  info_.race_other_proxy = c.other_proxy;
  // Accesses of two buffers that share bytes name both ranges.
  const std::string other = p_.thread_name(c.other_thread);
  const std::string of_other = c.other_buf == buf                 ? ""
                               : c.other_buf >= p_.num_buffers() ? " of " + p_.mem_name(c.other_buf) + " (its mbarrier.init or inval)"
                                                                 : " of " + p_.mem_name(c.other_buf);
  const std::string mine = what + " " + (c.other_buf != buf ? p_.mem_name(buf) : p_.buffer_name(buf)) + " by " +
                           (every ? me_.name : p_.thread_name(c.issuer));
  const Violation v = c.violation != Violation::none ? c.violation : c.warning;
  std::string msg;
  switch (v) {
    case Violation::proxy_race:
      msg = mine + " (async proxy) is not ordered after the generic write" + of_other + " by " + other +
            ": no fence.proxy.async between them";
      break;
    case Violation::cross_proxy_war:
      msg = mine + " (async proxy) overwrites what " + other + " read" + of_other +
            " through the generic proxy, with no fence.proxy.async after those reads";
      break;
    case Violation::scope_race:
    case Violation::scope_war:
      msg = mine + " is ordered after the earlier " + (c.other_was_write ? "write" : "read") + of_other + " by " + other +
            " only through a release and an acquire in different CTAs whose scopes do not include each other: use "
            "a .release.cluster arrive and an .acquire.cluster wait";
      break;
    default:
      msg = mine + " is not ordered after the earlier " + (c.other_was_write ? "write" : "read") + of_other + " by " + other;
  }
  if (c.violation != Violation::none) stop(c.violation, msg);
  warn(c.warning, msg);
}

void Exec::access(const ir::Ref& r, hb::Kind k, const Lanes& l) {
  const int cta = target_cta(r);
  if (cta != me_.cta) require_alive(cta, "a distributed shared memory access");
  const int buf = buf_at(r, cta);
  require_no_live_mbarrier(buf, k, "generic proxy");
  hb::Access acc;
  acc.buf = buf;
  acc.aliases = p_.aliases_of(buf);
  acc.kind = k;
  acc.issuers = l.threads;
  acc.spread = l.every ? static_cast<std::uint8_t>(me_.parts + 1) : 0;
  if (describe_) info_.accesses.push_back({l.threads, buf, k == hb::Kind::write, hb::Proxy::generic});
  race(hb::access(s_.mem, acc), k == hb::Kind::write ? "write of" : "read of", buf, l.every);
  if (p_.kernel->target == ir::Target::amd) ag_.wave = spec::amd::lds_issue(ag_.wave);
}

// A tensor-memory access by async unit `u` of this agent: the allocation must
// be live (spec::tmem::use), and the access ordered after its tcgen05.alloc:
// the alloc is a write by the allocating agent's lanes, the only lane writes
// tensor memory has, so a conflict with a lane's write is `tmem_unallocated`.
// Every other conflict is a race of the hb rules (spec/hb.hpp).
void Exec::tmem_access(const ir::Ref& r, int cta, hb::Kind k, hb::Threads issuers, hb::Unit u, std::uint16_t group,
                       const std::string& what, spec::tmem::Async op) {
  const int buf = buf_at(r, cta);
  const int slot = p_.tmem_slot[static_cast<std::size_t>(r.object)];
  if (const Violation v = spec::tmem::use(s_.tmem[static_cast<std::size_t>(cta)], slot); v != Violation::none)
    stop(v, what + " " + p_.buffer_name(buf) + " by " + me_.name + ": the tensor memory is not allocated (no tcgen05.alloc " +
                "of it is live)");
  const hb::Check c = unit_access(buf, k, hb::Proxy::generic, issuers, u, group, false, spec::tmem::after_own_unit(op));
  if (c.violation != Violation::none) {
    for (const AgentInfo& other : p_.agents)
      if (spec::tmem::conflict(c.other_was_write && other.hb.is_lane(c.other_thread)) != Violation::none) {
        info_.race_buf = buf;
        info_.race_other = c.other_thread;
        info_.race_other_write = true;
        stop(Violation::tmem_unallocated, what + " " + p_.buffer_name(buf) + " by " + p_.thread_name(c.issuer) +
                                              " is not ordered after the tcgen05.alloc by " + other.name +
                                              " (publish the address: a barrier, then tcgen05.fence::after_thread_sync)");
      }
  }
  race(c, what, buf);
}

// tcgen05.alloc / tcgen05.dealloc of a whole `tmem` declaration by one warp
// (spec/tmem.hpp). The alloc writes the allocation (as mbarrier.init writes
// its barrier: hb::overwrite by the warp's leader, which the warp's other
// lanes wait for, .sync.aligned); the dealloc must come after every access
// of it: a write of the warp's lanes whose conflicts are `tmem_dealloc_in_use`.
void Exec::tmem_alloc(const ir::Op& op, bool alloc) {
  const ir::BufferDecl& d = p_.kernel->buffers.at(static_cast<std::size_t>(op.tmem.object));
  const int slot = p_.tmem_slot[static_cast<std::size_t>(op.tmem.object)];
  const std::int64_t cols = d.cols * d.size;
  spec::tmem::Cta& t = s_.tmem[static_cast<std::size_t>(me_.cta)];
  const spec::tmem::Result r = alloc ? spec::tmem::alloc(t, slot, cols) : spec::tmem::dealloc(t, slot, cols);
  if (r.out.violation != Violation::none)
    stop(r.out.violation, alloc ? (t.relinquished ? me_.name + " allocates " + d.name + " after its CTA relinquished the permit to allocate"
                                                  : me_.name + " allocates " + d.name + ", which is already allocated")
                                : me_.name + " deallocates " + d.name + ", which is not allocated");
  if (!r.out.enabled) {
    info_.enabled = false;  // blocks until enough columns are free
    return;
  }
  tmem_alloc_memory(op.tmem.object, me_.cta, me_, 0, alloc);
  t = r.next;
  SAY(std::string(alloc ? "tcgen05_alloc " : "tcgen05_dealloc ") + d.name + " (" + std::to_string(cols) + " columns; " +
      std::to_string(t.used) + " of " + std::to_string(spec::tmem::columns) + " in use)");
}

// What an alloc or dealloc of declaration `object` does to the memory of CTA
// `cta`, by the warp `by`: the alloc writes the allocation (hb::overwrite by
// the warp's leader, which the other lanes wait for: .sync.aligned; `known`:
// the other warp of a pair collective, which knows it too); the dealloc is a
// write of the warp's lanes, and an access ordered before neither `by` nor
// `known` is `tmem_dealloc_in_use`.
void Exec::tmem_alloc_memory(int object, int cta, const AgentInfo& by, hb::Threads known, bool alloc) {
  const ir::BufferDecl& d = p_.kernel->buffers.at(static_cast<std::size_t>(object));
  const int first = cta * p_.buffers_per_cta + p_.buffer_base[static_cast<std::size_t>(object)];
  for (int e = 0; e < d.size; ++e) {
    if (!alloc) {
      hb::Access acc;
      acc.buf = first + e;
      acc.kind = hb::Kind::write;
      acc.issuers = by.hb.lanes();
      hb::Check c = hb::check_only(s_.mem, acc);
      if ((c.violation != Violation::none || c.warning != Violation::none) && known != 0) {
        acc.issuers = known;  // ordered before the other warp of the collective is enough
        const hb::Check k = hb::check_only(s_.mem, acc);
        if (k.violation == Violation::none && (k.warning == Violation::none || c.violation != Violation::none)) c = k;
      }
      if (c.violation != Violation::none) {
        info_.race_buf = first + e;
        info_.race_other = c.other_thread;
        info_.race_other_write = c.other_was_write;
        stop(Violation::tmem_dealloc_in_use, by.name + " deallocates " + p_.buffer_name(first + e) + " while the " +
                                                 (c.other_was_write ? "write" : "read") + " by " + p_.thread_name(c.other_thread) +
                                                 " is not ordered before it");
      }
      if (c.warning != Violation::none) race(c, "tcgen05.dealloc of", first + e);  // an overwrite ordered only across scopes: scope_war
    }
    hb::overwrite(s_.mem, first + e, by.hb.leader(), known);
    hb::order(s_.mem, by.hb.leader(), by.hb.lanes());
  }
}

// The agent of CTA `cta` waiting in a cta_group 2 collective (at most one:
// a CTA's next collective waits until its last one returned).
const AgentInfo* Exec::pair_waiter(int cta) const {
  for (std::size_t a = 0; a < p_.agents.size(); ++a) {
    const AgentInfo& info = p_.agents[a];
    const AgentState& ag = all_agents()[a];
    if (info.cta != cta || ag.stage != 1 || ag.exited) continue;
    const std::vector<Instr>& code = p_.code[static_cast<std::size_t>(info.role)];
    if (ag.pc >= code.size() || code[ag.pc].kind != InstrKind::op) continue;
    const ir::OpCode c = code[ag.pc].op->code;
    if (code[ag.pc].op->cta_pair && (c == OpCode::tcgen05_alloc || c == OpCode::tcgen05_dealloc || c == OpCode::tcgen05_relinquish))
      return &info;
  }
  return nullptr;
}

// A .cta_group::2 alloc, dealloc or relinquish_alloc_permit: a collective of
// one warp in each CTA of the pair (spec::tmem::pair_issue). The first warp
// waits (stage 1); the second performs it in both CTAs, each CTA's memory
// part by that CTA's warp and known to both; the first then returns.
void Exec::tmem_pair(const ir::Op& op, spec::tmem::PairOp kind) {
  namespace tm = spec::tmem;
  const bool relinquish = kind == tm::PairOp::relinquish;
  const int object = op.tmem.object;
  const std::string what = std::string(ir::op_keyword(op.code)) +
                           (relinquish ? "" : " " + p_.kernel->buffers.at(static_cast<std::size_t>(object)).name) + " cta_group 2";
  const int peer_cta = tm::peer(me_.cta);
  tm::Cta& mine = s_.tmem[static_cast<std::size_t>(me_.cta)];
  tm::Cta& peer = s_.tmem[static_cast<std::size_t>(peer_cta)];
  if (ag_.stage == 1) {
    if (!tm::pair_returns(mine)) {
      info_.enabled = false;  // the peer CTA's warp has not issued its half yet
      return;
    }
    mine = tm::pair_return(mine);
    ag_.stage = 0;
    ++ag_.pc;
    SAY(what + " returns (CTA " + std::to_string(peer_cta) + "'s warp performed it for the pair)");
    return;
  }
  const int slot = relinquish ? 0 : p_.tmem_slot[static_cast<std::size_t>(object)];
  const ir::BufferDecl* d = relinquish ? nullptr : &p_.kernel->buffers.at(static_cast<std::size_t>(object));
  const std::int64_t cols = d ? d->cols * d->size : 0;
  const tm::PairResult r = tm::pair_issue(mine, peer, kind, slot, cols);
  if (r.out.violation != Violation::none) {
    auto name_of = [&](tm::PairOp k, int which) -> std::string {
      static const char* const names[] = {"", "tcgen05_alloc", "tcgen05_dealloc", "tcgen05_relinquish_alloc_permit"};
      std::string n = names[static_cast<int>(k)];
      if (k == tm::PairOp::relinquish) return n;
      for (std::size_t b = 0; b < p_.tmem_slot.size(); ++b)
        if (p_.tmem_slot[b] == which) n += " " + p_.kernel->buffers[b].name;
      return n;
    };
    const bool mismatch = peer.pair != kind || (!relinquish && peer.pair_which != slot);
    stop(r.out.violation,
         mismatch ? me_.name + " issues " + what + ", and the collective it joins is CTA " + std::to_string(peer_cta) + "'s " +
                        name_of(peer.pair, peer.pair_which) + " cta_group 2 (a pair's collectives match in issue order)"
         : kind == tm::PairOp::alloc
             ? me_.name + " issues " + what + " while " + d->name + " is already allocated or a CTA of the pair relinquished the permit"
             : me_.name + " issues " + what + " while " + d->name + " is not allocated in both CTAs of the pair");
  }
  if (!r.out.enabled) {
    info_.enabled = false;  // an earlier collective of this CTA is unanswered, or columns lack in a CTA of the pair
    return;
  }
  if (!r.performed) {
    mine = r.mine;
    ag_.stage = 1;
    SAY(what + " issued: waits for CTA " + std::to_string(peer_cta) + "'s warp");
    return;
  }
  const AgentInfo* waiter = pair_waiter(peer_cta);
  if (waiter == nullptr) throw std::logic_error("a cta_group 2 collective with no waiting warp in the peer CTA");
  mine = r.mine;
  peer = r.peer;
  if (!relinquish) {
    tmem_alloc_memory(object, me_.cta, me_, waiter->hb.lanes(), kind == tm::PairOp::alloc);
    tmem_alloc_memory(object, peer_cta, *waiter, me_.hb.lanes(), kind == tm::PairOp::alloc);
  }
  ++ag_.pc;
  SAY(what + " performed in CTAs " + std::to_string(std::min(me_.cta, peer_cta)) + " and " +
      std::to_string(std::max(me_.cta, peer_cta)) + " with " + waiter->name +
      (d ? " (" + std::to_string(cols) + " columns; " + std::to_string(mine.used) + " of " + std::to_string(tm::columns) +
               " in use in each)"
         : ""));
}

void Exec::mbar_arrive(const ir::Op& op, const Lanes& l) {
  const int cta = target_cta(op.bar);
  const bool remote = cta != me_.cta;
  if (remote) require_alive(cta, "a remote mbarrier arrive");
  const int mbar = mbar_at(op.bar, cta);
  require_init_visible(mbar, hb::Proxy::generic, l.threads);
  mb::ArriveArgs args;
  args.count = rules::per_thread_total(ev(op.count, 1), l.count);
  args.drop = op.code == OpCode::mbar_arrive_drop;
  args.no_complete = op.no_complete;
  if (op.code == OpCode::mbar_arrive_expect_tx || (args.drop && op.bytes != ir::no_expr)) {
    if (!mb::tx_operand_in_range(ev(op.bytes, 0))) mbar_fail(mbar, Violation::tx_out_of_range);
    args.expect_tx = rules::per_thread_total(ev(op.bytes, 0), l.count);
  }
  mb::State& st = s_.mbars[static_cast<std::size_t>(mbar)];
  const mb::Token tok = mb::token_before(st);
  const mb::Result r = mb::arrive(st, args);
  if (r.out.violation != Violation::none) mbar_fail(mbar, r.out.violation);
  st = r.next;
  const int sync = channel_sync(mbar, to_scope(op.scope), remote);
  if (sync >= 0 && ord::arrive_releases(to_sem(op.sem))) hb::release(s_.mem, l.threads, sync);
  fence_forward(mbar, remote, to_scope(op.scope));
  if (r.out.phase_completed) phase_done(mbar);
  if (op.dest_var >= 0) {
    mb::Token held = tok;
    held.no_complete = args.no_complete;
    vars()[static_cast<std::size_t>(op.dest_var)] = encode_token(held);
  }
  SAY(lanes_prefix(op) + std::string(ir::op_keyword(op.code)) + " " + p_.mbar_name(mbar) + scope_text(op, true) + " count " +
      std::to_string(args.count) + (args.expect_tx ? " tx " + std::to_string(args.expect_tx) : "") + " (pending " +
      std::to_string(tok.pending) + " -> " + std::to_string(r.next.pending) + ")");
}

// A wait, test or try by the lanes `l` (`one:` or `each:`: only the leader
// lanes wait and acquire; the agent as a whole blocks with them, and its
// other lanes are ordered after the phase only through a syncwarp or a
// barrier after it: docs/spec.md).
void Exec::mbar_wait(const ir::Op& op, const Lanes& l, bool blocking) {
  const int cta = target_cta(op.bar);
  const int mbar = mbar_at(op.bar, cta);
  if (const Violation v = rules::wait_target(cta != me_.cta); v != Violation::none)
    stop(v, "a wait on " + p_.mbar_name(mbar) + ", an mbarrier of another CTA");
  require_init_visible(mbar, hb::Proxy::generic, l.threads);
  const mb::State& st = s_.mbars[static_cast<std::size_t>(mbar)];
  spec::Outcome o;
  const bool by_token = op.token_var >= 0;
  if (by_token) {
    const std::int64_t v = vars()[static_cast<std::size_t>(op.token_var)];
    o = mb::test_wait_token(st, decode_token(v));
  } else {
    o = mb::test_wait_parity(st, static_cast<std::uint32_t>(ev(op.parity, 0)));
  }
  if (o.violation != Violation::none) mbar_fail(mbar, o.violation);
  if (blocking && o.observed == 0) {
    info_.enabled = false;
    return;
  }
  std::string lapped;
  if (o.observed == 1) {
    // Lapping is judged by its effects (a deadlock or a race, found exactly);
    // a trace says where a waiter passed a barrier two or more phases past
    // the phase it last observed, which explains such an effect.
    if (describe_) {
      // A describing stepper's states keep the phases seen (Stepper::initial).
      if (s_.last_seen.size() != p_.agents.size() * static_cast<std::size_t>(p_.num_mbars()))
        throw InternalError("a trace described from a state without the phases its agents last observed");
      std::uint32_t& last = s_.last_seen[static_cast<std::size_t>(a_ * p_.num_mbars() + mbar)];
      if (!by_token && mb::parity_aliased(last, st.phase))
        lapped = " [lapped: the barrier is " + std::to_string(st.phase - last) + " phases past phase " +
                 std::to_string(last) + " that " + me_.name + " last observed]";
      last = st.phase;
    }
    // The release channels the wait synchronises with (rules::acquire_channels).
    auto strong_for = [&](bool cluster) {
      hb::Syncs strong = hb::Syncs{1} << p_.mbar_sync(mbar);
      if (const int c = p_.mbar_cluster_sync[static_cast<std::size_t>(mbar)]; c >= 0 && cluster) strong |= hb::Syncs{1} << c;
      return strong;
    };
    const bool cluster = rules::acquire_channels(to_scope(op.scope)).cluster_scope_strong;
    ag_.tc_synced |= p_.has_tcgen05_mma;
    if (ord::wait_acquires(to_sem(op.sem))) {
      if (describe_) info_.acquired = p_.mbar_name(mbar);
      // A .cta wait and another CTA's .cluster release: not morally strong,
      // but ordered as the field relies on and the H100 does (rules::
      // acquire_channels, cta_acquires_cluster_release): a warning where it
      // orders something. A .cta release from another CTA orders nothing
      // (`after_weak`: scope_race on a read, scope_war on an overwrite).
      hb::Syncs strong = strong_for(cluster), weak = 0;
      const rules::AcquireChannels ch = rules::acquire_channels(to_scope(op.scope));
      if (const int c = p_.mbar_cluster_sync[static_cast<std::size_t>(mbar)]; c >= 0 && !cluster && ch.cluster_release_trusted) {
        const hb::Syncs narrow = hb::Syncs{1} << c;
        if (hb::acquire_orders(s_.mem, l.threads, narrow))
          warn(Violation::scope_cta_acquire,
               me_.name + "'s " + std::string(ir::op_keyword(op.code)) + " on " + p_.mbar_name(mbar) +
                   " at .cta scope acquires what another CTA released at .cluster scope (a remote arrive, st.async or "
                   "red.async), which the ISA does not make synchronize (the H100 orders it; docs/spec.md \"Stances\"): "
                   "wait with .acquire.cluster");
        strong |= narrow;
      }
      if (const int w = p_.mbar_weak_sync[static_cast<std::size_t>(mbar)]; w >= 0) weak |= hb::Syncs{1} << w;
      hb::acquire(s_.mem, l.threads, strong, weak);
    } else if (const Program::Fences& f = p_.fences[static_cast<std::size_t>(a_)]; f.seen_cta >= 0) {
      // A relaxed wait: a later fence.acq_rel/sc makes it an acquire pattern
      // of the narrower scope (ordering::pattern_scope).
      hb::observe(s_.mem, strong_for(false), f.seen_cta);
      hb::observe(s_.mem, strong_for(rules::acquire_channels(ord::pattern_scope(ord::Scope::cluster, to_scope(op.scope))).cluster_scope_strong),
                  f.seen_cluster);
    }
  }
  if (op.dest_var >= 0) vars()[static_cast<std::size_t>(op.dest_var)] = o.observed;
  SAY(lanes_prefix(op) + std::string(ir::op_keyword(op.code)) + " " + p_.mbar_name(mbar) +
      (by_token ? " token" : " parity " + std::to_string(ev(op.parity, 0))) + scope_text(op, false) + " -> " +
      (o.observed ? "complete" : "not complete") + " (barrier at phase " + std::to_string(st.phase) + ")" + lapped);
}

void Exec::named(const ir::Op& op, int id, std::int64_t count, bool wait) {
  namespace nb = spec::named;
  const nb::Red red = static_cast<nb::Red>(op.red);
  if (ag_.stage == 0) {
    nb::ArriveArgs args;
    args.id = id;
    args.count = count;
    args.threads = me_.threads;
    args.cta_threads = p_.cta_threads[static_cast<std::size_t>(me_.cta)];
    args.live_threads = live_threads(me_.cta);
    args.red = red;
    args.predicate = ev(op.n, 0) != 0;
    args.id0_whole_cta = p_.id0_whole_cta;
    if (Violation v = nb::check_operands(args); v != Violation::none)
      stop(v, "named barrier " + std::to_string(id) + " with thread count " + std::to_string(count) + ": " +
                  std::string(spec::violation_doc(v)));
    const int sync = p_.named_sync(me_.cta, id);
    nb::State& st = s_.named[static_cast<std::size_t>(me_.cta * p_.named_used + p_.named_slot[static_cast<std::size_t>(id)])];
    const nb::Result r = nb::arrive(st, args);
    if (r.out.violation != Violation::none)
      stop(r.out.violation, "named barrier " + std::to_string(id) + ": " + me_.name + " arrives with count " +
                                std::to_string(count) + " while " + std::to_string(st.arrived) + " of " +
                                std::to_string(st.count) + " threads have arrived");
    st = r.next;
 hb::release(s_.mem, me_.hb.lanes(), sync);
    if (r.out.phase_completed) {
      hb::complete(s_.mem, sync);
      if (describe_) info_.completed = "named barrier " + std::to_string(id) + " instance complete";
    }
    SAY(std::string(ir::op_keyword(op.code)) + " " + std::to_string(id) + ", " + std::to_string(count ? count : args.cta_threads) +
        " (" + std::to_string(r.out.phase_completed ? st.count : st.arrived) + " arrived)");
    ag_.ticket = static_cast<std::uint32_t>(r.out.observed);
    if (!wait) {
      ++ag_.pc;
      return;
    }
    ag_.stage = 1;
    if (!r.out.phase_completed) return;  // the agent now waits; a later step resumes it
  }
  const nb::State& st = s_.named[static_cast<std::size_t>(me_.cta * p_.named_used + p_.named_slot[static_cast<std::size_t>(id)])];
  const spec::Outcome o = nb::wait(st, ag_.ticket, red, me_.threads);
  if (!o.enabled) {
    info_.enabled = false;
    return;
  }
  hb::acquire(s_.mem, me_.hb.lanes(), hb::Syncs{1} << p_.named_sync(me_.cta, id));
  ag_.tc_synced |= p_.has_tcgen05_mma;
  if (op.dest_var >= 0) vars()[static_cast<std::size_t>(op.dest_var)] = o.observed;
  if (describe_ && info_.text.empty()) SAY(std::string(ir::op_keyword(op.code)) + " " + std::to_string(id) + " resumes");
  ag_.stage = 0;
  ++ag_.pc;
}

// The AMD workgroup barrier (spec/amd.hpp). Its happens-before: the LDS
// operations a wave completed before signalling (s_waitcnt) are visible to the
// waves that pass the wait, which the model draws as a release at the signal
// and an acquire at the wait (docs/spec.md, "AMD").
void Exec::amd_barrier(const ir::Op& op, bool signal, bool wait) {
  namespace amd = spec::amd;
  if (p_.kernel->target != ir::Target::amd)
    throw KernelError(std::string(ir::op_keyword(op.code)) + " needs `target amd`", op.loc);
  amd::Barrier& bar = s_.amd[static_cast<std::size_t>(me_.cta)];
  const int sync = p_.named_sync(me_.cta, 0);
  bool signalled_now = false;
  if (signal && ag_.stage == 0) {
    const amd::Result r = amd::signal(bar, ag_.wave);
    if (r.out.violation == Violation::amd_missing_waitcnt)
      stop(r.out.violation, me_.name + " reaches " + std::string(ir::op_keyword(op.code)) +
                                " with LDS operations outstanding: s_waitcnt lgkmcnt(0) first");
    if (r.out.violation != Violation::none)
      stop(r.out.violation, me_.name + " signals the workgroup barrier twice without waiting");
    hb::release(s_.mem, me_.hb.lanes(), sync);
    bar = r.barrier;
    ag_.wave = r.wave;
    if (r.out.phase_completed) {
      hb::complete(s_.mem, sync);
      if (describe_) info_.completed = "workgroup barrier instance complete";
    }
    SAY(std::string(ir::op_keyword(op.code)) + " (" + std::to_string(bar.arrived) + " of " + std::to_string(bar.waves) +
        " waves)");
    if (!wait) {
      ++ag_.pc;
      return;
    }
    ag_.stage = 1;
    signalled_now = true;
  }
  const amd::Result r = amd::wait(bar, ag_.wave);
  if (r.out.violation != Violation::none)
    stop(r.out.violation, me_.name + " waits on the split barrier without a preceding s_barrier_signal");
  if (!r.out.enabled) {
    info_.enabled = signalled_now;
    return;
  }
  ag_.wave = r.wave;
  hb::acquire(s_.mem, me_.hb.lanes(), hb::Syncs{1} << sync);
  ag_.stage = 0;
  if (!signalled_now) SAY(std::string(ir::op_keyword(op.code)) + " resumes");
  ++ag_.pc;
}

// The agents of the warp group of agent `a` in a role split per warp (its
// four warps, `a` among them).
std::vector<int> Exec::warp_group_of(int a) const {
  const AgentInfo& me = p_.agents[static_cast<std::size_t>(a)];
  std::vector<int> g;
  for (std::size_t i = 0; i < p_.agents.size(); ++i) {
    const AgentInfo& o = p_.agents[i];
    if (o.role == me.role && o.cta == me.cta && o.instance == me.instance && o.warp / 4 == me.warp / 4) g.push_back(static_cast<int>(i));
  }
  return g;
}

// wgmma.mma_async in a role split per warp: one operation of the four warps
// of a warp group (PTX ISA wgmma.mma_async: ".sync ... .aligned: all threads
// in the warpgroup must execute the same wgmma.mma_async instruction"; the
// warpgroup performs the MMA collectively). Each warp joins it (stage 1) and
// goes on once all four have joined; the first to go on performs its reads,
// as its warp's MMA unit, after what all four warps knew when they joined.
// Each warp's wgmma_wait retires them (above).
void Exec::wgmma_warps(const ir::Op& op) {
  bool joined_now = false;
  if (ag_.stage == 0) {
    if (const Violation v = rules::wgmma_issue(ag_.wgmma_fenced); v != Violation::none)
      stop(v, me_.name + " issues its first wgmma with no wgmma.fence before it");
    (void)spec::async_group::issue(ag_.mma);
    ++ag_.collectives;
    ag_.stage = 1;
    joined_now = true;
  }
  bool all = true, first = true;
  hb::Threads issuers = 0;
  for (const int w : warp_group_of(a_)) {
    issuers |= p_.agents[static_cast<std::size_t>(w)].hb.lanes();
    if (w == a_) continue;
    const AgentState& o = all_agents()[static_cast<std::size_t>(w)];
    if (o.collectives < ag_.collectives) all = false;  // not yet joined (or never will: it exited)
    else if (o.collectives > ag_.collectives || o.stage != 1 || o.pc != ag_.pc) first = false;  // it went on: performed
  }
  if (!all) {
    info_.enabled = joined_now;  // joining alone is progress
    if (joined_now) SAY("wgmma: joined; waits for the other warps of its warp group");
    return;
  }
  std::string names;
  if (first) {
    const std::uint16_t group = ag_.mma.issued;
    for (const ir::Ref& r : op.bufs) {
      const int buf = buf_at(r, me_.cta);
      race(unit_access(buf, hb::Kind::read, hb::Proxy::async, issuers, hb::Unit::mma, group, false), "wgmma read of", buf, true);
      if (describe_) names += (names.empty() ? "" : ", ") + p_.buffer_name(buf);
    }
  }
  SAY(first ? "wgmma read " + names + " (the warp group's, all four warps joined)" : std::string("wgmma: all four warps joined; goes on"));
  ag_.stage = 0;
  ++ag_.pc;
}

void Exec::retire(Groups& g, std::int64_t n, hb::Unit u, hb::Threads to) {
  hb::retire(s_.mem, me_.hb.unit(u), spec::async_group::wait(g, n), to);
}

void Exec::exit_agent() {
  ag_.exited = true;
  SAY("exit");
  const spec::cluster::Result cr = spec::cluster::on_exit(s_.cluster, live_threads(-1));
  s_.cluster = cr.next;
  if (cr.out.phase_completed) hb::complete(s_.mem, p_.cluster_sync());
  // A barrier without a thread count waits for the CTA's non-exited threads:
  // this exit may complete an instance in progress.
  for (int id = 0; id < spec::named::num_ids; ++id) {
    if (p_.named_slot[static_cast<std::size_t>(id)] < 0) continue;
    spec::named::State& st =
        s_.named[static_cast<std::size_t>(me_.cta * p_.named_used + p_.named_slot[static_cast<std::size_t>(id)])];
    const spec::named::Result r = spec::named::on_exit(st, static_cast<int>(live_threads(me_.cta)));
    st = r.next;
    if (r.out.phase_completed) hb::complete(s_.mem, p_.named_sync(me_.cta, id));
  }
  if (!s_.amd.empty()) {
    spec::amd::Barrier& bar = s_.amd[static_cast<std::size_t>(me_.cta)];
    const std::uint32_t gen = bar.generation;
    bar = spec::amd::wave_exit(bar, ag_.wave);
    if (bar.generation != gen) hb::complete(s_.mem, p_.named_sync(me_.cta, 0));
  }
  bool cta_done = true;
  const Part<AgentState>& all = all_agents();
  for (std::size_t i = 0; i < all.size(); ++i)
    if (p_.agents[i].cta == me_.cta && !all[i].exited) cta_done = false;
  if (!cta_done) return;
  s_.cta_exited |= 1u << me_.cta;
  // The CTA's shared memory goes with it: no async group of its threads may
  // still read it (a TMA store not waited for with wait_group.read, a wgmma
  // not waited for).
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (p_.agents[i].cta != me_.cta) continue;
    const AgentState& other = all[i];
    rules::CtaExit e;
    e.store_reads_in_flight = spec::async_group::in_flight(other.bulk);
    e.mma_reads_in_flight = spec::async_group::in_flight(other.mma);
    e.copy_writes_in_flight = spec::async_group::committed_in_flight(other.cp);
    if (const Violation v = rules::cta_exit(e); v != Violation::none)
      stop(v, "CTA " + std::to_string(me_.cta) + " exits while " + p_.agents[i].name + "'s " +
                  (e.store_reads_in_flight ? "TMA store may still read" : e.mma_reads_in_flight ? "MMA may still read" : "cp.async may still write") +
                  " its shared memory (no wait for its group)");
  }
  if (!s_.tmem.empty())
    if (const Violation v = spec::tmem::cta_exit(s_.tmem[static_cast<std::size_t>(me_.cta)]); v != Violation::none)
      stop(v, "CTA " + std::to_string(me_.cta) + " exits with tensor memory still allocated (no tcgen05.dealloc)");
  for (const Pending& pe : s_.pending) {
    rules::CtaExit e;
    e.async_targets = p_.mbar_cta(pe.mbar) == me_.cta || (pe.buf >= 0 && p_.buffer_cta(pe.buf) == me_.cta);
    if (const Violation v = rules::cta_exit(e); v != Violation::none)
      stop(v, "CTA " + std::to_string(me_.cta) + " exits while an async operation issued by " +
                                             p_.agents[pe.agent].name + " still targets " + p_.mbar_name(pe.mbar) +
                                             (pe.buf >= 0 ? " / " + p_.buffer_name(pe.buf) : ""));
  }
}

void Exec::op(const ir::Op& op) {
  const Lanes l = lanes_of(op, me_);
  const std::uint8_t leader = me_.hb.leader();
  if (p_.kernel->target == ir::Target::amd && spec::amd::wave_lanes_in_lockstep)
    for (int w = 0; w < me_.warps; ++w) {
      hb::order(s_.mem, me_.hb.leader(w), hb::bit(me_.hb.rest(w)));
      hb::order(s_.mem, me_.hb.rest(w), hb::bit(me_.hb.leader(w)));
    }
  switch (op.code) {
    case OpCode::read:
    case OpCode::write:
      for (const ir::Ref& r : op.bufs) access(r, op.code == OpCode::write ? hb::Kind::write : hb::Kind::read, l);
      SAY(lanes_prefix(op) + std::string(ir::op_keyword(op.code)) + " " +
          (op.bufs.empty() ? "" : p_.buffer_name(buf_at(op.bufs[0], target_cta(op.bufs[0])))));
      break;
    case OpCode::mbar_init: {
      // Each executing thread initialises the barrier (PTX ISA mbarrier.init
      // is per thread): with `all:` or `each:` the second one re-initialises
      // a live barrier.
      const int mbar = mbar_at(op.bar, me_.cta);
      mb::State& st = s_.mbars[static_cast<std::size_t>(mbar)];
      for (int i = 0; i < l.count; ++i) {
        const mb::Result r = mb::init(st, ev(op.count, 1));
        if (r.out.violation != Violation::none)
          stop(r.out.violation, p_.mbar_name(mbar) + ": " + std::string(spec::violation_doc(r.out.violation)) +
                                    (i > 0 ? " (" + std::to_string(l.count) + " threads of " + me_.name + " each execute mbarrier.init)" : ""));
        st = r.next;
      }
      mbar_memory_write(mbar, leader, true);
      hb::overwrite(s_.mem, p_.mbar_pseudo_buffer(mbar), leader);
      SAY(lanes_prefix(op) + "init " + p_.mbar_name(mbar) + " count " + std::to_string(st.expected));
      break;
    }
    case OpCode::mbar_arrive:
    case OpCode::mbar_arrive_drop:
    case OpCode::mbar_arrive_expect_tx: mbar_arrive(op, l); break;
    case OpCode::mbar_expect_tx:
    case OpCode::mbar_complete_tx: {
      const int cta = target_cta(op.bar);
      if (cta != me_.cta) require_alive(cta, "a remote mbarrier operation");
      const int mbar = mbar_at(op.bar, cta);
      require_init_visible(mbar, hb::Proxy::generic, l.threads);
      mb::State& st = s_.mbars[static_cast<std::size_t>(mbar)];
      if (!mb::tx_operand_in_range(ev(op.bytes, 0))) mbar_fail(mbar, Violation::tx_out_of_range);
      const std::int64_t bytes = rules::per_thread_total(ev(op.bytes, 0), l.count);
      const mb::Result r = op.code == OpCode::mbar_expect_tx ? mb::expect_tx(st, bytes) : mb::complete_tx(st, bytes);
      if (r.out.violation != Violation::none) mbar_fail(mbar, r.out.violation);
      st = r.next;
      if (r.out.phase_completed) phase_done(mbar);
      SAY(lanes_prefix(op) + std::string(ir::op_keyword(op.code)) + " " + p_.mbar_name(mbar) + " bytes " + std::to_string(bytes) +
          " (tx " + std::to_string(st.tx) + ")");
      break;
    }
    case OpCode::mbar_wait: mbar_wait(op, l, true); break;
    case OpCode::mbar_test_wait:
    case OpCode::mbar_try_wait: mbar_wait(op, l, false); break;
    case OpCode::mbar_pending_count: {
      const std::int64_t v = op.token_var >= 0 ? vars()[static_cast<std::size_t>(op.token_var)] : 0;
      const mb::Token tok = decode_token(v);
      if (const Violation u = mb::check_pending_count(tok); u != Violation::none)
        stop(u, me_.name + " reads pending_count from the state of an arrive without nocomplete (the PTX ISA leaves it undefined)");
      const std::int64_t n = mb::pending_count(tok);
      if (op.dest_var >= 0) vars()[static_cast<std::size_t>(op.dest_var)] = n;
      SAY("pending_count -> " + std::to_string(n));
      break;
    }
    case OpCode::mbar_inval: {
      // Per thread too: a second thread's inval finds the barrier invalid.
      const int mbar = mbar_at(op.bar, me_.cta);
      mb::State& st = s_.mbars[static_cast<std::size_t>(mbar)];
      for (int i = 0; i < l.count; ++i) {
        const mb::Result r = mb::inval(st);
        if (r.out.violation != Violation::none) mbar_fail(mbar, r.out.violation);
        st = r.next;
      }
      mbar_memory_write(mbar, leader, false);
      SAY(lanes_prefix(op) + "inval " + p_.mbar_name(mbar));
      break;
    }
    case OpCode::fence_mbarrier_init:
      // fence.mbarrier_init.release.cluster: the thread's prior inits become
      // visible to the async proxy, and are released at cluster scope by the
      // thread's later (even relaxed) arrives (PTX ISA membar/fence:
      // "fence.mbarrier_init is a light-weight fence ... with .release
      // semantics at .cluster scope" for prior mbarrier.init operations).
      hb::proxy_fence(s_.mem, l.threads, p_.num_buffers(), p_.mem_buffers());
      hb::release_range(s_.mem, l.threads, p_.fences[static_cast<std::size_t>(a_)].release_cluster, p_.num_buffers(),
                        p_.mem_buffers());
      SAY(lanes_prefix(op) + "fence.mbarrier_init.release.cluster");
      break;
    case OpCode::bar_sync:
    case OpCode::bar_red:
      named(op, static_cast<int>(ev(op.id, 0)), ev(op.count, 0), true);
      return;
    case OpCode::bar_arrive: named(op, static_cast<int>(ev(op.id, 0)), ev(op.count, 0), false); return;
    case OpCode::syncthreads: named(op, 0, 0, true); return;
    case OpCode::s_barrier: amd_barrier(op, true, true); return;
    case OpCode::s_barrier_signal: amd_barrier(op, true, false); return;
    case OpCode::s_barrier_wait: amd_barrier(op, false, true); return;
    case OpCode::s_waitcnt: {
      // spec/amd.hpp, waitcnt; the gather-to-LDS loads it covers are ordered
      // before the wave's lanes.
      ag_.wave = spec::amd::waitcnt(ag_.wave, waitcnt_operands(p_, op, vars()));
      hb::retire(s_.mem, me_.hb.unit(hb::Unit::cp_async), ag_.wave.vm_done, me_.hb.lanes());
      SAY("s_waitcnt" + (op.n == ir::no_expr ? "" : " vmcnt(" + std::to_string(ev(op.n)) + ")") +
          (op.count == ir::no_expr ? "" : " lgkmcnt(" + std::to_string(ev(op.count)) + ")"));
      break;
    }
    case OpCode::global_load_lds: {
      // A load into LDS, counted by VM_CNT (spec/amd.hpp, vm_issue): its write
      // is the async unit's until an s_waitcnt vmcnt covers it.
      ag_.wave = spec::amd::vm_issue(ag_.wave);
      const int buf = buf_at(op.bufs.at(0), me_.cta);
      race(unit_access(buf, hb::Kind::write, hb::Proxy::generic, l.threads, hb::Unit::cp_async, ag_.wave.vm_issued, l.every),
           "gather-to-LDS load into", buf, l.every);
      SAY(lanes_prefix(op) + "global_load_lds " + p_.buffer_name(buf) + " (vmcnt " +
          std::to_string(spec::amd::vm_outstanding(ag_.wave)) + ")");
      break;
    }
    case OpCode::syncwarp:
      rules::syncwarp(s_.mem, me_.hb);
      SAY("syncwarp");
      break;
    case OpCode::tma_load: {
      const ir::Ref& dst = op.bufs.at(0);
      const std::int64_t mask = ev(op.multicast, std::int64_t(1) << me_.cta);
      const std::int64_t bytes = ev(op.bytes, p_.kernel->buffers.at(static_cast<std::size_t>(dst.object)).bytes);
      if (const Violation v = rules::bulk_copy_size(bytes); v != Violation::none)
        stop(v, "a TMA load of " + std::to_string(bytes) + " bytes: " + std::string(spec::violation_doc(v)));
      std::string where;
      for (int c = 0; c < p_.ctas; ++c) {
        if (!rules::selects(mask, c)) continue;
        if (c != me_.cta) require_alive(c, "a multicast TMA load");
        const int bar_cta = rules::signalled_cta(c, op.bar.cta == ir::no_expr ? -1 : target_cta(op.bar));
        const int mbar = mbar_at(op.bar, bar_cta);
        const int buf = buf_at(dst, c);
        require_init_visible(mbar, hb::Proxy::async, hb::bit(leader));
        race(unit_access(buf, hb::Kind::write, hb::Proxy::async, hb::bit(leader), hb::Unit::tma, 0, false), "TMA load into", buf);
        Pending pe{PendingKind::tma_load, static_cast<std::uint8_t>(a_), ag_.pc, static_cast<std::uint16_t>(mbar), buf,
                   static_cast<std::int32_t>(bytes), false, 0};
        s_.pending.insert(std::upper_bound(s_.pending.begin(), s_.pending.end(), pe), pe);
        if (describe_) where += (where.empty() ? "" : ", ") + p_.buffer_name(buf) + " -> " + p_.mbar_name(mbar);
      }
      SAY("tma_load " + where + " (" + std::to_string(bytes) + " bytes, in flight)");
      break;
    }
    // cp.reduce.async.bulk.global.shared::cta.bulk_group: for shared memory
    // the same as a TMA store, an async-proxy read of its source (PTX ISA
    // "Proxies": cp{.reduce}.async.bulk operations are performed in the async
    // proxy) in the current bulk async-group (cp.reduce.async.bulk: ".bulk_group
    // ... Bulk async-group based" completion).
    case OpCode::tma_store:
    case OpCode::tma_reduce: {
      const std::uint16_t group = spec::async_group::issue(ag_.bulk);
      for (const ir::Ref& r : op.bufs) {
        const int buf = buf_at(r, me_.cta);
        race(unit_access(buf, hb::Kind::read, hb::Proxy::async, hb::bit(leader), hb::Unit::bulk, group, false),
             op.code == OpCode::tma_reduce ? "TMA reduce from" : "TMA store from", buf);
      }
      SAY(std::string(ir::op_keyword(op.code)) + " " + (op.bufs.empty() ? std::string() : p_.buffer_name(buf_at(op.bufs[0], me_.cta))));
      break;
    }
    case OpCode::bulk_commit_group:
      spec::async_group::commit(ag_.bulk);
      SAY("commit_group");
      break;
    case OpCode::bulk_wait_group:
    case OpCode::bulk_wait_group_read:
      // The copies complete on their own: waiting never blocks for ever; what
      // it adds is order from the retired groups' reads to this thread.
      // Only the waiting thread is ordered after the retired groups' reads
      // (cp.async.bulk.wait_group: "cause the executing thread to wait").
      retire(ag_.bulk, ev(op.n, 0), hb::Unit::bulk, hb::bit(leader));
      SAY(std::string(ir::op_keyword(op.code)) + " " + std::to_string(ev(op.n, 0)));
      break;
    case OpCode::cp_async: {
      // It joins the lanes' open cp.async-group (PTX ISA cp.async.commit_group:
      // "batches all prior cp.async instructions initiated by the executing
      // thread but not committed").
      const std::uint16_t group = spec::async_group::issue(ag_.cp);
      std::string names;
      for (const ir::Ref& r : op.bufs) {
        const int buf = buf_at(r, me_.cta);
        race(unit_access(buf, hb::Kind::write, hb::Proxy::generic, l.threads, hb::Unit::cp_async, group, l.every),
             "cp.async into", buf, l.every);
        if (describe_) names += (names.empty() ? " " : ", ") + p_.buffer_name(buf);
      }
      SAY(lanes_prefix(op) + "cp_async" + names + " (in flight)");
      break;
    }
    // cp.async.commit_group, cp.async.wait_group N, cp.async.wait_all (=
    // commit_group; wait_group 0): "Writes performed by cp.async operations are
    // made visible to the executing thread only after ... the completion of
    // cp.async.wait_group on the cp.async-group in which the cp.async belongs"
    // (PTX ISA cp.async.wait_group). The copies complete on their own, so the
    // wait never blocks for ever; it orders the retired groups' writes before
    // the waiting lane (the one lane that issued them: the front end requires
    // `one:` on all of them in the role).
    case OpCode::cp_async_commit:
      spec::async_group::commit(ag_.cp);
      SAY(lanes_prefix(op) + "cp_async_commit");
      break;
    case OpCode::cp_async_wait:
    case OpCode::cp_async_wait_all: {
      const std::int64_t n = op.code == OpCode::cp_async_wait ? ev(op.n, 0) : 0;
      if (op.code == OpCode::cp_async_wait_all) spec::async_group::commit(ag_.cp);
      retire(ag_.cp, n, hb::Unit::cp_async, l.threads);
      SAY(lanes_prefix(op) + std::string(ir::op_keyword(op.code)) + (op.code == OpCode::cp_async_wait ? " " + std::to_string(n) : ""));
      break;
    }
    case OpCode::cp_async_mbarrier_arrive: {
      const int mbar = mbar_at(op.bar, me_.cta);
      require_init_visible(mbar, hb::Proxy::generic, l.threads);
      if (!op.noinc) {
        mb::State& st = s_.mbars[static_cast<std::size_t>(mbar)];
        for (int i = 0; i < l.count; ++i) {
          const mb::Result r = mb::increment_pending(st);
          if (r.out.violation != Violation::none) mbar_fail(mbar, r.out.violation);
          st = r.next;
        }
      }
      // It tracks the cp.async operations issued before it (PTX ISA,
      // cp.async.mbarrier.arrive): what it releases is fixed now.
      Pending pe{PendingKind::cp_async_arrive, static_cast<std::uint8_t>(a_), ag_.pc, static_cast<std::uint16_t>(mbar), -1,
                 l.count, op.noinc, 0, arrive_slot(op)};
      hb::release_unit(s_.mem, me_.hb.unit(hb::Unit::cp_async), 0, pe.slot);
      s_.pending.insert(std::upper_bound(s_.pending.begin(), s_.pending.end(), pe), pe);
      SAY(lanes_prefix(op) + "cp_async_arrive " + p_.mbar_name(mbar) + (op.noinc ? " noinc" : ""));
      break;
    }
    case OpCode::st_async:
    case OpCode::red_async: {
      // st.async / red.async into CTA c's shared memory (spec/ordering.hpp,
      // st_async_release_scope): each executing thread's store (red.async:
      // atomic reduction) is a generic-proxy write in flight, made by the
      // agent's TMA unit (its writes into shared memory that land later);
      // when it lands it completes its bytes on the barrier in c, releasing
      // at .cluster scope the write and what the issuers knew at the issue
      // (held until then in a sync object of the agent's arrival pool).
      const bool red = op.code == OpCode::red_async;
      const int cta = target_cta(op.bar);
      if (red && !rules::red_async_target_valid(cta, me_.cta))
        throw KernelError("red_async into the issuing CTA's own shared memory is undefined (PTX ISA red.async: the CTA of the "
                          "destination is \"different from the CTA of the executing thread\")",
                          op.loc);
      if (cta != me_.cta) require_alive(cta, red ? "red.async" : "st.async");
      const int buf = buf_at(op.bufs.at(0), cta);
      const int mbar = mbar_at(op.bar, cta);
      require_init_visible(mbar, hb::Proxy::generic, l.threads);
      const std::int64_t per = ev(op.bytes, 0);
      if (!(red ? rules::red_async_bytes_valid(per) : rules::st_async_bytes_valid(per)))
        throw KernelError(std::string(red ? "red_async reduces 4 or 8" : "st_async stores 4, 8 or 16") + " bytes per thread, not " +
                              std::to_string(per),
                          op.loc);
      const std::uint8_t unit = me_.hb.unit(hb::Unit::tma);
      race(unit_access(buf, hb::Kind::write, hb::Proxy::generic, l.threads, hb::Unit::tma, 0, l.every, false, red),
           red ? "red.async into" : "st.async into", buf, l.every);
      Pending pe{PendingKind::st_async, static_cast<std::uint8_t>(a_), ag_.pc, static_cast<std::uint16_t>(mbar), buf,
                 static_cast<std::int32_t>(rules::per_thread_total(per, l.count)), false, 0, arrive_slot(op)};
      hb::release(s_.mem, l.threads, pe.slot);
      hb::release_write(s_.mem, buf, unit, pe.slot);
      s_.pending.insert(std::upper_bound(s_.pending.begin(), s_.pending.end(), pe), pe);
      SAY(lanes_prefix(op) + (red ? "red_async " : "st_async ") + p_.buffer_name(buf) + " -> " + p_.mbar_name(mbar) + " (" +
          std::to_string(pe.bytes) + " bytes, in flight)");
      break;
    }
    case OpCode::wgmma_fence:
      ag_.wgmma_fenced = true;
      SAY("wgmma_fence");
      break;
    case OpCode::wgmma: {
      if (split_warps()) {  // wgmma_warps moves the agent on itself
        wgmma_warps(op);
        return;
      }
      if (const Violation v = rules::wgmma_issue(ag_.wgmma_fenced); v != Violation::none)
        stop(v, me_.name + " issues its first wgmma with no wgmma.fence before it");
      const std::uint16_t group = spec::async_group::issue(ag_.mma);
      std::string names;
      for (const ir::Ref& r : op.bufs) {
        const int buf = buf_at(r, me_.cta);
        race(unit_access(buf, hb::Kind::read, hb::Proxy::async, l.threads, hb::Unit::mma, group, false), "wgmma read of", buf,
             true);
        if (describe_) names += (names.empty() ? "" : ", ") + p_.buffer_name(buf);
      }
      SAY("wgmma read " + names);
      break;
    }
    case OpCode::wgmma_commit:
      spec::async_group::commit(ag_.mma);
      SAY("wgmma_commit");
      break;
    case OpCode::wgmma_wait: {
      // The groups' MMAs are the warp group's: in a role split per warp, one
      // warp performed each one's reads (wgmma_warps), and waiting for the
      // group waits for them (the warps' groups go in step: .sync.aligned).
      const std::uint16_t upto = spec::async_group::wait(ag_.mma, ev(op.n, 0));
      hb::retire(s_.mem, me_.hb.unit(hb::Unit::mma), upto, me_.hb.lanes());
      if (split_warps())
        for (const int w : warp_group_of(a_)) hb::retire(s_.mem, p_.agents[static_cast<std::size_t>(w)].hb.unit(hb::Unit::mma), upto, me_.hb.lanes());
      SAY("wgmma_wait " + std::to_string(ev(op.n, 0)));
      break;
    }
    case OpCode::tcgen05_mma: {
      tcgen05_issue("tcgen05.mma");
      // The group a later tcgen05.commit closes; no wait_group retires it.
      const auto group = static_cast<std::uint16_t>(ag_.mma.committed + 1);
      std::string names;
      // cta_group 2: the pair's MMA, its tensor memory (A operand, accumulator)
      // split between the two CTAs at the same columns (spec/tmem.hpp).
      const int pair_cta = spec::tmem::peer(me_.cta);
      if (op.cta_pair) require_alive(pair_cta, "a cta_group 2 tcgen05.mma");
      for (const ir::Ref& r : op.bufs) {
        if (p_.tmem_slot[static_cast<std::size_t>(r.object)] >= 0) {  // A in tensor memory
          for (const int c : {me_.cta, pair_cta}) {
            if (c != me_.cta && !op.cta_pair) continue;
            tmem_access(r, c, hb::Kind::read, hb::bit(leader), hb::Unit::mma, group, "tcgen05.mma read of", spec::tmem::Async::mma);
            if (describe_) names += (names.empty() ? "" : ", ") + p_.buffer_name(buf_at(r, c));
          }
          continue;
        }
        // A pair-CTA MMA (cta_group::2) reads operands in the peer CTA too: `BUF[i] @ c`.
        const int cta = target_cta(r);
        if (cta != me_.cta) require_alive(cta, "a pair-CTA tcgen05.mma");
        const int buf = buf_at(r, cta);
        race(unit_access(buf, hb::Kind::read, hb::Proxy::async, hb::bit(leader), hb::Unit::mma, group, false),
             "tcgen05.mma read of", buf);
        if (describe_) names += (names.empty() ? "" : ", ") + p_.buffer_name(buf);
      }
      // The accumulator D = A*B+D in tensor memory: a write of the MMA unit.
      // An MMA after the same thread's MMAs and tcgen05.cp on the same tensor
      // memory is ordered after them ("Pipelined tcgen05 instructions").
      if (op.tmem.object >= 0)
        for (const int c : {me_.cta, pair_cta})
          if (c == me_.cta || op.cta_pair)
            tmem_access(op.tmem, c, hb::Kind::write, hb::bit(leader), hb::Unit::mma, group, "tcgen05.mma write of",
                        spec::tmem::Async::mma);
      SAY("tcgen05_mma read " + names +
          (op.tmem.object >= 0 ? " into " + p_.buffer_name(buf_at(op.tmem, me_.cta)) +
                                     (op.cta_pair ? " and " + p_.buffer_name(buf_at(op.tmem, pair_cta)) : "")
                               : ""));
      break;
    }
    case OpCode::tcgen05_cp: {
      // tcgen05.cp: shared memory to tensor memory, asynchronous, tracked by
      // the next tcgen05.commit as an MMA is (PTX ISA tcgen05.cp,
      // tcgen05.commit): the MMA unit's read of the source (async proxy) and
      // write of the destination, in the group the next commit closes.
      tcgen05_issue("tcgen05.cp");
      const auto group = static_cast<std::uint16_t>(ag_.mma.committed + 1);
      const int src = buf_at(op.bufs.at(0), me_.cta);
      race(unit_access(src, hb::Kind::read, hb::Proxy::async, hb::bit(leader), hb::Unit::mma, group, false), "tcgen05.cp read of",
           src);
      tmem_access(op.tmem, me_.cta, hb::Kind::write, hb::bit(leader), hb::Unit::mma, group, "tcgen05.cp write of",
                  spec::tmem::Async::cp);
      SAY("tcgen05_cp " + p_.buffer_name(src) + " -> " + p_.buffer_name(buf_at(op.tmem, me_.cta)));
      break;
    }
    case OpCode::tcgen05_ld:
    case OpCode::tcgen05_st: {
      // Asynchronous: the agent's tensor-memory unit accesses the columns until
      // tcgen05.wait::ld / wait::st (or tcgen05.fence::before_thread_sync)
      // orders the access before the agent's lanes (PTX ISA tcgen05.ld,
      // tcgen05.st, tcgen05.wait).
      const bool ld = op.code == OpCode::tcgen05_ld;
      tcgen05_issue(ld ? "tcgen05.ld" : "tcgen05.st");
      std::string names;
      for (const ir::Ref& r : op.bufs) {
        tmem_access(r, me_.cta, ld ? hb::Kind::read : hb::Kind::write, me_.hb.lanes(), hb::Unit::tmem, 1,
                    ld ? "tcgen05.ld of" : "tcgen05.st to", ld ? spec::tmem::Async::ld : spec::tmem::Async::st);
        if (describe_) names += (names.empty() ? "" : ", ") + p_.buffer_name(buf_at(r, me_.cta));
      }
      SAY(std::string(ld ? "tcgen05_ld " : "tcgen05_st ") + names + " (in flight)");
      break;
    }
    case OpCode::tcgen05_wait_ld:
    case OpCode::tcgen05_wait_st: {
      const bool ld = op.code == OpCode::tcgen05_wait_ld;
      hb::retire_kind(s_.mem, me_.hb.unit(hb::Unit::tmem), ld ? hb::Kind::read : hb::Kind::write, me_.hb.lanes());
      SAY(ld ? "tcgen05.wait::ld" : "tcgen05.wait::st");
      break;
    }
    case OpCode::clc_try_cancel: {
      // clusterlaunchcontrol.try_cancel (spec/clc.hpp): the response is an
      // async-proxy write of the agent's TMA unit into each destination
      // CTA's buffer, completing 16 bytes of tx on its barrier when it lands.
      // Both answers are left pending; the first to land decides.
      if (const Violation v = spec::clc::issue(s_.clc); v != Violation::none)
        stop(v, me_.name + " issues clusterlaunchcontrol.try_cancel after a response of the cluster reported a failure");
      // The request's name: the smallest number no pending request uses, so
      // that equal states stay equal.
      auto taken = [&](std::uint16_t g) {
        return std::any_of(s_.pending.begin(), s_.pending.end(),
                           [&](const Pending& q) { return q.kind == PendingKind::clc_response && q.group == g; });
      };
      std::uint16_t req = 1;
      while (taken(req)) ++req;
      const std::int64_t mask = ev(op.multicast, std::int64_t(1) << me_.cta);
      std::string where;
      for (int c = 0; c < p_.ctas; ++c) {
        if (!rules::selects(mask, c)) continue;
        if (c != me_.cta) require_alive(c, "a multicast clusterlaunchcontrol.try_cancel");
        const int mbar = mbar_at(op.bar, c);
        const int buf = buf_at(op.bufs.at(0), c);
        require_init_visible(mbar, hb::Proxy::async, hb::bit(leader));
        race(unit_access(buf, hb::Kind::write, hb::Proxy::async, hb::bit(leader), hb::Unit::tma, 0, false),
             "try_cancel response into", buf);
        for (const bool canceled : {true, false}) {
          Pending pe{PendingKind::clc_response, static_cast<std::uint8_t>(a_), ag_.pc, static_cast<std::uint16_t>(mbar), buf,
                     spec::clc::response_bytes, false, req, 0, canceled};
          s_.pending.insert(std::upper_bound(s_.pending.begin(), s_.pending.end(), pe), pe);
        }
        if (describe_) where += (where.empty() ? "" : ", ") + p_.buffer_name(buf) + " -> " + p_.mbar_name(mbar);
      }
      SAY("clc_try_cancel " + where + " (in flight)");
      break;
    }
    case OpCode::clc_query: {
      // ld.shared of the response, then query_cancel.is_canceled.
      const ir::Ref& r = op.bufs.at(0);
      access(r, hb::Kind::read, l);
      const int buf = buf_at(r, me_.cta);
      const std::int64_t v = s_.clc_value.empty() ? 0 : s_.clc_value[static_cast<std::size_t>(buf)];
      if (op.dest_var >= 0) vars()[static_cast<std::size_t>(op.dest_var)] = v;
      SAY(lanes_prefix(op) + "clc_query " + p_.buffer_name(buf) + " -> " + (v ? "canceled (a new tile)" : "not canceled"));
      break;
    }
    case OpCode::tcgen05_alloc:
    case OpCode::tcgen05_dealloc:
      if (op.cta_pair) {  // tmem_pair moves the agent on itself
        tmem_pair(op, op.code == OpCode::tcgen05_alloc ? spec::tmem::PairOp::alloc : spec::tmem::PairOp::dealloc);
        return;
      }
      tmem_alloc(op, op.code == OpCode::tcgen05_alloc);
      break;
    case OpCode::tcgen05_relinquish:
      if (op.cta_pair && !s_.tmem.empty()) {
        tmem_pair(op, spec::tmem::PairOp::relinquish);
        return;
      }
      // (A kernel with no `tmem` declaration has no allocation to give up.)
      if (!s_.tmem.empty())
        s_.tmem[static_cast<std::size_t>(me_.cta)] = spec::tmem::relinquish(s_.tmem[static_cast<std::size_t>(me_.cta)]);
      SAY("tcgen05.relinquish_alloc_permit");
      break;
    case OpCode::tcgen05_commit: {
      const std::int64_t mask = ev(op.multicast, std::int64_t(1) << me_.cta);
      const std::uint16_t group = spec::async_group::commit(ag_.mma);
      std::string where;
      for (int c = 0; c < p_.ctas; ++c) {
        if (!rules::selects(mask, c)) continue;
        if (c != me_.cta) require_alive(c, "a multicast tcgen05.commit");
        const int mbar = mbar_at(op.bar, c);
        require_init_visible(mbar, hb::Proxy::async, hb::bit(leader));
        // It tracks the tcgen05 operations issued before it (PTX ISA,
        // tcgen05.commit): what it releases is fixed now.
        Pending pe{PendingKind::tcgen05_arrive, static_cast<std::uint8_t>(a_), ag_.pc, static_cast<std::uint16_t>(mbar), -1, 1,
                   false, group, arrive_slot(op)};
        hb::release_unit(s_.mem, me_.hb.unit(hb::Unit::mma), group, pe.slot);
        s_.pending.insert(std::upper_bound(s_.pending.begin(), s_.pending.end(), pe), pe);
        if (describe_) where += (where.empty() ? "" : ", ") + p_.mbar_name(mbar);
      }
      SAY("tcgen05_commit -> " + where + " (arrives when the MMAs finish)");
      break;
    }
    case OpCode::tcgen05_fence_after:
      ag_.tc_synced = false;
      SAY(lanes_prefix(op) + "tcgen05.fence::after_thread_sync");
      break;
    case OpCode::tcgen05_fence_before:
      // Orders the thread's prior asynchronous tcgen05 operations before its
      // later thread synchronization (PTX ISA tcgen05.fence): its tcgen05.ld
      // and tcgen05.st are ordered before the fencing lanes, so a later
      // release carries them. An MMA's or tcgen05.cp's accesses are ordered
      // by its tcgen05.commit (docs/spec.md, "Tensor memory").
      // The unit of tcgen05.ld (its reads) and tcgen05.st (its writes).
      for (const auto& [kind, async] : {std::pair{hb::Kind::read, spec::tmem::Async::ld}, std::pair{hb::Kind::write, spec::tmem::Async::st}})
        if (spec::tmem::before_thread_sync_orders(async)) hb::retire_kind(s_.mem, me_.hb.unit(hb::Unit::tmem), kind, l.threads);
      SAY(lanes_prefix(op) + "tcgen05.fence::before_thread_sync");
      break;
    case OpCode::fence_acq_rel:
    case OpCode::fence_sc: {
      // fence.acq_rel / fence.sc (PTX ISA membar/fence; fence.sc is also
      // acq_rel): a release fence for the thread's later arrives (release
      // patterns, fence_forward) and an acquire fence for what its earlier
      // relaxed waits observed (acquire patterns), at the fence's scope.
      const Program::Fences& f = p_.fences[static_cast<std::size_t>(a_)];
      const bool cluster = op.scope == ir::Scope::cluster;
      hb::release(s_.mem, l.threads, cluster ? f.release_cluster : f.release_cta);
      hb::acquire(s_.mem, l.threads, hb::Syncs{1} << (cluster ? f.seen_cluster : f.seen_cta));
      SAY(lanes_prefix(op) + (op.code == OpCode::fence_sc ? "fence.sc." : "fence.acq_rel.") + (cluster ? "cluster" : "cta"));
      break;
    }
    case OpCode::fence_proxy_async:
      hb::proxy_fence(s_.mem, l.threads);
      SAY(lanes_prefix(op) + "fence.proxy.async");
      break;
    case OpCode::cluster_arrive:
    case OpCode::cluster_sync:
    case OpCode::cluster_wait: {
      bool arrived_now = false;
      if (op.code != OpCode::cluster_wait && ag_.stage == 0) {
        const spec::cluster::Result r =
            spec::cluster::arrive(s_.cluster, ag_.cluster_ticket, static_cast<std::uint32_t>(me_.threads), live_threads(-1));
        if (r.out.violation != Violation::none)
          stop(r.out.violation, me_.name + " arrives twice at the cluster barrier without waiting");
        if (ord::cluster_arrive_releases(to_sem(op.sem))) hb::release(s_.mem, l.threads, p_.cluster_sync());
        // A release pattern with a .cluster fence (fence.mbarrier_init or
        // fence.acq_rel/sc.cluster). A .cta fence's pattern would reach only
        // this CTA's waiters, which the one cluster sync object cannot tell
        // apart: not forwarded (docs/spec.md, "Fences").
        if (const int f = p_.fences[static_cast<std::size_t>(a_)].release_cluster; f >= 0)
          hb::forward(s_.mem, f, p_.cluster_sync());
        s_.cluster = r.next;
        ag_.cluster_ticket = r.ticket;
        if (r.out.phase_completed) {
          hb::complete(s_.mem, p_.cluster_sync());
          if (describe_) info_.completed = "cluster barrier instance complete";
        }
        SAY(std::string(ir::op_keyword(op.code)) + (op.sem == ir::Sem::relaxed ? " relaxed" : "") + " (arrive)");
        if (op.code == OpCode::cluster_arrive) break;
        ag_.stage = 1;
        arrived_now = true;
      }
      const spec::cluster::Result r = spec::cluster::wait(s_.cluster, ag_.cluster_ticket);
      if (r.out.violation != Violation::none)
        stop(r.out.violation, me_.name + " waits at the cluster barrier without having arrived");
      if (!r.out.enabled) {
        info_.enabled = arrived_now;  // the arrive alone was progress
        return;
      }
      ag_.cluster_ticket = r.ticket;
      hb::acquire(s_.mem, me_.hb.lanes(), hb::Syncs{1} << p_.cluster_sync());
      ag_.tc_synced |= p_.has_tcgen05_mma;
      ag_.stage = 0;
      if (describe_ && !arrived_now) SAY(std::string(ir::op_keyword(op.code)) + " resumes");
      break;
    }
    case OpCode::exit:
      exit_agent();
      return;
  }
  ++ag_.pc;
}

void Exec::run() {
  const std::vector<Instr>& code = p_.code[static_cast<std::size_t>(me_.role)];
  if (ag_.pc >= code.size()) {
    info_.loc = p_.kernel->roles[static_cast<std::size_t>(me_.role)].loc;
    exit_agent();
    return;
  }
  const Instr& in = code[ag_.pc];
  info_.loc = in.loc;
  switch (in.kind) {
    case InstrKind::assign:
      run_control(p_, ag_, vars(), in);
      SAY(p_.kernel->roles[static_cast<std::size_t>(me_.role)].vars[static_cast<std::size_t>(in.var)] + " = " +
          std::to_string(vars()[static_cast<std::size_t>(in.var)]));
      return;
    case InstrKind::jump:
    case InstrKind::branch_false: run_control(p_, ag_, vars(), in); return;
    case InstrKind::assert_true:
      if (ev(in.expr) == 0) stop(Violation::assertion_failed, me_.name + ": assertion does not hold");
      ++ag_.pc;
      SAY("assert holds");
      return;
    case InstrKind::op:
      op(*in.op);
      return;
  }
}

}  // namespace

State Stepper::initial() const {
  State s;
  Shape sh;
  sh.agents = p_.agents.size();
  for (std::size_t i = 0; i < p_.agents.size(); ++i)
    sh.vars += p_.kernel->roles[static_cast<std::size_t>(p_.agents[i].role)].vars.size();
  sh.last_seen = p_.agents.size() * static_cast<std::size_t>(phases_kept());
  sh.mbars = static_cast<std::size_t>(p_.num_mbars());
  sh.named = static_cast<std::size_t>(p_.ctas * p_.named_used);
  sh.amd = p_.kernel->target == ir::Target::amd ? static_cast<std::size_t>(p_.ctas) : 0;
  sh.tmem = p_.tmem_decls > 0 ? static_cast<std::size_t>(p_.ctas) : 0;
  sh.clc_value = p_.has_clc ? static_cast<std::size_t>(p_.num_buffers()) : 0;
  s.reshape(sh);
  for (std::size_t i = 0; i < p_.agents.size(); ++i) {
    const AgentInfo& info = p_.agents[i];
    s.vars[static_cast<std::size_t>(p_.var_base[i] + ir::var_cta)] = info.cta;
    s.vars[static_cast<std::size_t>(p_.var_base[i] + ir::var_instance)] = info.instance;
    s.vars[static_cast<std::size_t>(p_.var_base[i] + ir::var_warp)] = info.warp;
  }
  for (int m = 0; m < p_.num_mbars(); ++m) {
    const std::int64_t count = p_.kernel->mbarriers[static_cast<std::size_t>(p_.mbar_decl(m))].count;
    if (count > 0) {
      const mb::Result r = mb::init(mb::State{}, count);
      if (r.out.violation != Violation::none)
        throw KernelError("mbarrier '" + p_.mbar_name(m) + "': count must be 1..2^20-1",
                          p_.kernel->mbarriers[static_cast<std::size_t>(p_.mbar_decl(m))].loc);
      s.mbars[static_cast<std::size_t>(m)] = r.next;
    }
  }
  for (std::size_t cta = 0; cta < s.amd.size(); ++cta) {
    int waves = 0;
    for (const AgentInfo& a : p_.agents) waves += a.cta == static_cast<int>(cta);
    s.amd[cta] = spec::amd::make_barrier(static_cast<std::uint16_t>(waves));
  }
  s.clc.queue = static_cast<std::uint16_t>(p_.kernel->clc_queue);
  s.mem.buffers = p_.mem_buffers();
  return s;
}

void StepInfo::clear() {
  // Every member is reset here: one added must be added here too (the size
  // of the members as they are today on a 64-bit target).
  static_assert(sizeof(void*) != 8 || sizeof(StepInfo) == 216, "StepInfo changed: reset the new member in StepInfo::clear");
  enabled = true;
  violation = Violation::none;
  message.clear();
  text.clear();
  completed.clear();
  acquired.clear();
  warning = Violation::none;
  warning_message.clear();
  loc = ir::Loc{};
  accesses.clear();
  race_buf = -1;
  race_other = 0;
  race_other_write = false;
  race_other_proxy = hb::Proxy::generic;
  reads_others = false;
}

void Stepper::agent_step(State& s, int a, StepInfo& info) const {
  info.clear();
  Exec e(p_, describe_, strict_, s, a, info);
  try {
    e.run();
  } catch (const Stop& st) {
    info.violation = st.v;
    info.message = st.msg;
  }
}

StepInfo Stepper::agent_step(State& s, int a) const {
  StepInfo info;
  agent_step(s, a, info);
  return info;
}

StepInfo Stepper::pending_step(State& s, int i) const {
  StepInfo info;
  const Pending pe = s.pending[static_cast<std::size_t>(i)];
  // The tcgen05.commit arrivals of one thread come in the order of the
  // commits (each tracks all prior tcgen05 operations of the thread, PTX ISA
  // tcgen05.commit): a later one waits for the earlier ones.
  if (pe.kind == PendingKind::tcgen05_arrive) {
    std::uint16_t earliest = 0;
    for (const Pending& q : s.pending)
      if (q.kind == PendingKind::tcgen05_arrive && q.agent == pe.agent && (earliest == 0 || q.group < earliest)) earliest = q.group;
    if (!spec::rules::commit_may_land(pe.group, earliest)) {
      info.enabled = false;
      return info;
    }
  }
  // A request's answer: decided by its first response to land (spec/clc.hpp);
  // the other destinations' responses then give the same answer.
  bool decides = false;
  if (pe.kind == PendingKind::clc_response) {
    for (const Pending& q : s.pending)
      decides |= q.kind == PendingKind::clc_response && q.group == pe.group && q.canceled != pe.canceled;
    if (decides && !spec::clc::may_answer(s.clc, pe.canceled)) {
      info.enabled = false;
      return info;
    }
  }
  s.pending.erase(s.pending.begin() + i);
  if (decides) {
    s.clc = spec::clc::decide(s.clc, pe.canceled);
    std::erase_if(s.pending, [&](const Pending& q) {
      return q.kind == PendingKind::clc_response && q.group == pe.group && q.canceled != pe.canceled;
    });
  }
  info.loc = p_.code[static_cast<std::size_t>(p_.agents[pe.agent].role)][pe.pc].loc;
  const int cta = p_.mbar_cta(pe.mbar);
  if (const Violation v = spec::rules::target_alive((s.cta_exited & (1u << cta)) != 0); v != Violation::none) {
    info.violation = v;
    info.message = "an async operation of " + p_.agents[pe.agent].name + " completes on " + p_.mbar_name(pe.mbar) +
                   " after CTA " + std::to_string(cta) + " exited";
    return info;
  }
  mb::State& st = s.mbars[pe.mbar];
  mb::Result r;
  if (pe.kind == PendingKind::st_async) {
    r = mb::complete_tx(st, pe.bytes);
    if (r.out.violation == Violation::none) {
      const bool remote = p_.agents[pe.agent].cta != cta;
      hb::move(s.mem, pe.slot, channel_sync(p_, pe.mbar, ord::st_async_release_scope, remote));
    }
  } else if (pe.kind == PendingKind::tma_load || pe.kind == PendingKind::clc_response) {
    r = mb::complete_tx(st, pe.bytes);
    if (r.out.violation == Violation::none)
      hb::release_write(s.mem, pe.buf, p_.agents[pe.agent].hb.unit(hb::Unit::tma), p_.mbar_sync(pe.mbar));
    if (pe.kind == PendingKind::clc_response) s.clc_value[static_cast<std::size_t>(pe.buf)] = pe.canceled;
  } else {
    hb::move(s.mem, pe.slot, p_.mbar_sync(pe.mbar));
    r = mb::arrive(st, mb::ArriveArgs{pe.bytes, false, false, 0});
  }
  if (r.out.violation != Violation::none) {
    info.violation =
        spec::rules::uninitialized_use(r.out.violation, p_.mbar_has_init[static_cast<std::size_t>(p_.mbar_decl(pe.mbar))]);
    info.message = "async completion on " + p_.mbar_name(pe.mbar) + ": " + std::string(spec::violation_doc(r.out.violation)) +
                   (pe.kind == PendingKind::tma_load ? " (TMA load of " + std::to_string(pe.bytes) + " bytes)" : "");
    return info;
  }
  st = r.next;
  if (r.out.phase_completed) {
    hb::complete_all(s.mem, p_.mbar_syncs(pe.mbar));
    if (describe_) info.completed = p_.mbar_name(pe.mbar) + " phase " + std::to_string(st.phase - 1) + " complete";
  }
  if (describe_) {
    const std::string who = p_.agents[pe.agent].name;
    switch (pe.kind) {
      case PendingKind::tma_load:
        info.text = "TMA load by " + who + " lands in " + p_.buffer_name(pe.buf) + ": complete_tx " + std::to_string(pe.bytes) +
                    " on " + p_.mbar_name(pe.mbar) + " (tx " + std::to_string(st.tx) + ")";
        break;
      case PendingKind::tcgen05_arrive:
        info.text = "tcgen05 MMAs of " + who + " finish: arrive on " + p_.mbar_name(pe.mbar);
        break;
      case PendingKind::cp_async_arrive:
        info.text = "cp.async copies of " + who + " finish: arrive on " + p_.mbar_name(pe.mbar);
        break;
      case PendingKind::st_async:
        info.text = std::string(p_.code[static_cast<std::size_t>(p_.agents[pe.agent].role)][pe.pc].op->code == OpCode::red_async
                                    ? "red.async"
                                    : "st.async") +
                    " by " + who + " lands in " + p_.buffer_name(pe.buf) + ": complete_tx " + std::to_string(pe.bytes) +
                    " on " + p_.mbar_name(pe.mbar) + " (tx " + std::to_string(st.tx) + ", release cluster)";
        break;
      case PendingKind::clc_response:
        info.text = "try_cancel response of " + who + " lands in " + p_.buffer_name(pe.buf) + " (" +
                    (pe.canceled ? "canceled: a new tile" : "not canceled") + "): complete_tx 16 on " + p_.mbar_name(pe.mbar) +
                    " (tx " + std::to_string(st.tx) + ")";
        break;
    }
  }
  return info;
}

Stepper::Stepper(const Program& p, bool describe, bool strict) : p_(p), describe_(describe), strict_(strict) {
  block_tests_.resize(p.code.size());
  for (std::size_t r = 0; r < p.code.size(); ++r)
    for (const Instr& in : p.code[r]) {
      BlockTest t;
      if (in.kind == InstrKind::op) {
        const ir::Op& op = *in.op;
        t.op = &op;
        if (op.code == OpCode::mbar_wait && op.token_var < 0 && op.bar.cta == ir::no_expr && op.bar.object >= 0 &&
            (op.bar.index == ir::no_expr || is_constant(p, op.bar.index))) {
          const ir::MbarrierDecl& d = p.kernel->mbarriers[static_cast<std::size_t>(op.bar.object)];
          // An index that cannot be evaluated, or outside the array, is for
          // the step to report: never surely blocked.
          std::int64_t i = -1;
          try {
            i = op.bar.index == ir::no_expr ? 0 : eval(p, op.bar.index, nullptr);
          } catch (const KernelError&) {
          }
          if (i >= 0 && i < d.size) {
            t.kind = BlockTest::Kind::wait_fixed;
            t.mbar = p.mbar_base[static_cast<std::size_t>(op.bar.object)] + static_cast<int>(i);
          }
        } else if (op.code == OpCode::mbar_wait || op.code == OpCode::bar_sync || op.code == OpCode::bar_red ||
                   op.code == OpCode::syncthreads) {
          t.kind = BlockTest::Kind::other;
        }
      }
      block_tests_[r].push_back(t);
    }
}

bool Stepper::surely_blocked(const State& s, int a) const {
  const AgentState& ag = s.agents[static_cast<std::size_t>(a)];
  if (ag.exited) return true;
  const AgentInfo& info = p_.agents[static_cast<std::size_t>(a)];
  const std::vector<BlockTest>& tests = block_tests_[static_cast<std::size_t>(info.role)];
  if (ag.pc >= tests.size()) return false;
  const BlockTest& t = tests[ag.pc];
  if (t.kind == BlockTest::Kind::none) return false;
  if (t.kind == BlockTest::Kind::other) return surely_blocked_op(s, a, *t.op);
  // A wait by parity on the CTA's own mbarrier at a fixed index.
  return wait_blocked(s, a, *t.op, info.cta * p_.mbars_per_cta + t.mbar);
}

bool Stepper::wait_blocked(const State& s, int a, const ir::Op& op, int m) const {
  const mb::State& st = s.mbars[static_cast<std::size_t>(m)];
  if (st.status != mb::Status::live) return false;
  // The phase test first (the cheaper one): the init test below decides
  // only where the phase would block. A parity that cannot be evaluated
  // is for the step to report.
  std::int64_t parity = 0;
  try {
    if (op.parity != ir::no_expr) parity = eval(p_, op.parity, s.vars.data() + p_.var_base[static_cast<std::size_t>(a)]);
  } catch (const KernelError&) {
    return false;
  }
  const spec::Outcome o = mb::test_wait_parity(st, static_cast<std::uint32_t>(parity));
  if (o.violation != Violation::none || o.observed != 0) return false;
  // The wait's step would report an init not ordered before it (the
  // same test as Exec::require_init_visible), not block.
  return p_.mbar_memory_written[static_cast<std::size_t>(m)] == 0 ||
         init_use_of(p_, s.mem, m, hb::Proxy::generic, lanes_of(op, p_.agents[static_cast<std::size_t>(a)]).threads) ==
             rules::InitUse::visible;
}

bool Stepper::surely_blocked_op(const State& s, int a, const ir::Op& op) const {
  const AgentState& ag = s.agents[static_cast<std::size_t>(a)];
  const AgentInfo& info = p_.agents[static_cast<std::size_t>(a)];
  const std::int64_t* vars = s.vars.data() + p_.var_base[static_cast<std::size_t>(a)];
  switch (op.code) {
    case OpCode::mbar_wait: {
      if (op.token_var >= 0 || op.bar.cta != ir::no_expr || op.bar.object < 0) return false;
      const ir::MbarrierDecl& d = p_.kernel->mbarriers[static_cast<std::size_t>(op.bar.object)];
      const std::int64_t i = op.bar.index == ir::no_expr ? 0 : eval(p_, op.bar.index, vars);
      if (i < 0 || i >= d.size) return false;
      return wait_blocked(s, a, op, info.cta * p_.mbars_per_cta + p_.mbar_base[static_cast<std::size_t>(op.bar.object)] + static_cast<int>(i));
    }
    case OpCode::bar_sync:
    case OpCode::bar_red:
    case OpCode::syncthreads: {
      if (ag.stage != 1) return false;
      const int id = op.code == OpCode::bar_sync || op.code == OpCode::bar_red ? static_cast<int>(eval(p_, op.id, vars)) : 0;
      if (id < 0 || id >= spec::named::num_ids || p_.named_slot[static_cast<std::size_t>(id)] < 0) return false;
      const spec::named::State& st =
          s.named[static_cast<std::size_t>(info.cta * p_.named_used + p_.named_slot[static_cast<std::size_t>(id)])];
      return !spec::named::wait(st, ag.ticket, spec::named::Red::none, info.threads).enabled;
    }
    case OpCode::read:
    case OpCode::write:
    case OpCode::mbar_init:
    case OpCode::mbar_arrive:
    case OpCode::mbar_arrive_drop:
    case OpCode::mbar_arrive_expect_tx:
    case OpCode::mbar_expect_tx:
    case OpCode::mbar_complete_tx:
    case OpCode::mbar_test_wait:
    case OpCode::mbar_try_wait:
    case OpCode::mbar_pending_count:
    case OpCode::mbar_inval:
    case OpCode::fence_mbarrier_init:
    case OpCode::bar_arrive:
    case OpCode::syncwarp:
    case OpCode::tma_load:
    case OpCode::tma_store:
    case OpCode::tma_reduce:
    case OpCode::bulk_commit_group:
    case OpCode::bulk_wait_group:
    case OpCode::bulk_wait_group_read:
    case OpCode::cp_async:
    case OpCode::cp_async_mbarrier_arrive:
    case OpCode::cp_async_commit:
    case OpCode::cp_async_wait:
    case OpCode::cp_async_wait_all:
    case OpCode::st_async:
    case OpCode::red_async:
    case OpCode::wgmma_fence:
    case OpCode::wgmma:
    case OpCode::wgmma_commit:
    case OpCode::wgmma_wait:
    case OpCode::tcgen05_mma:
    case OpCode::tcgen05_commit:
    case OpCode::tcgen05_fence_before:
    case OpCode::tcgen05_fence_after:
    case OpCode::tcgen05_alloc:
    case OpCode::tcgen05_dealloc:
    case OpCode::tcgen05_relinquish:
    case OpCode::tcgen05_ld:
    case OpCode::tcgen05_st:
    case OpCode::tcgen05_wait_ld:
    case OpCode::tcgen05_wait_st:
    case OpCode::tcgen05_cp:
    case OpCode::clc_try_cancel:
    case OpCode::clc_query:
    case OpCode::fence_proxy_async:
    case OpCode::fence_acq_rel:
    case OpCode::fence_sc:
    case OpCode::cluster_arrive:
    case OpCode::cluster_wait:
    case OpCode::cluster_sync:
    case OpCode::s_waitcnt:
    case OpCode::global_load_lds:
    case OpCode::s_barrier:
    case OpCode::s_barrier_signal:
    case OpCode::s_barrier_wait:
    case OpCode::exit: return false;
  }
  return false;  // an op code outside the enum
}

[[gnu::cold, gnu::noinline]] void not_control() { throw InternalError("run_control: not an assignment or control flow"); }

bool private_op(ir::OpCode c) {
  switch (c) {
    case OpCode::syncwarp:
    case OpCode::fence_proxy_async:
    case OpCode::fence_acq_rel:
    case OpCode::fence_sc:
    case OpCode::fence_mbarrier_init:
    case OpCode::wgmma_fence:
    case OpCode::wgmma_commit:
    case OpCode::wgmma_wait:
    case OpCode::bulk_commit_group:
    case OpCode::bulk_wait_group:
    case OpCode::bulk_wait_group_read:
    case OpCode::cp_async_commit:
    case OpCode::cp_async_wait:
    case OpCode::cp_async_wait_all:
    case OpCode::tcgen05_fence_before:
    case OpCode::tcgen05_fence_after:
    case OpCode::tcgen05_wait_ld:
    case OpCode::tcgen05_wait_st:
    case OpCode::s_waitcnt: return true;
    case OpCode::tcgen05_alloc:
    case OpCode::tcgen05_dealloc:
    case OpCode::tcgen05_relinquish:
    case OpCode::tcgen05_ld:
    case OpCode::tcgen05_st:
    case OpCode::tcgen05_cp:
    case OpCode::clc_try_cancel:
    case OpCode::clc_query:
    case OpCode::read:
    case OpCode::write:
    case OpCode::mbar_init:
    case OpCode::mbar_arrive:
    case OpCode::mbar_arrive_drop:
    case OpCode::mbar_arrive_expect_tx:
    case OpCode::mbar_expect_tx:
    case OpCode::mbar_complete_tx:
    case OpCode::mbar_wait:
    case OpCode::mbar_test_wait:
    case OpCode::mbar_try_wait:
    case OpCode::mbar_pending_count:
    case OpCode::mbar_inval:
    case OpCode::bar_sync:
    case OpCode::bar_arrive:
    case OpCode::bar_red:
    case OpCode::syncthreads:
    case OpCode::tma_load:
    case OpCode::tma_store:
    case OpCode::tma_reduce:
    case OpCode::cp_async:
    case OpCode::cp_async_mbarrier_arrive:
    case OpCode::st_async:
    case OpCode::red_async:
    case OpCode::wgmma:
    case OpCode::tcgen05_mma:
    case OpCode::tcgen05_commit:
    case OpCode::cluster_arrive:
    case OpCode::cluster_wait:
    case OpCode::cluster_sync:
    case OpCode::global_load_lds:
    case OpCode::s_barrier:
    case OpCode::s_barrier_signal:
    case OpCode::s_barrier_wait:
    case OpCode::exit: return false;
  }
  return false;  // an op code outside the enum
}

ir::Loc Stepper::loc_of(const State& s, int a) const {
  const AgentState& ag = s.agents[static_cast<std::size_t>(a)];
  const AgentInfo& info = p_.agents[static_cast<std::size_t>(a)];
  const std::vector<Instr>& code = p_.code[static_cast<std::size_t>(info.role)];
  if (ag.pc >= code.size()) return p_.kernel->roles[static_cast<std::size_t>(info.role)].loc;
  return code[ag.pc].loc;
}

std::string Stepper::describe_blocked(const State& s, int a) const {
  const AgentState& ag = s.agents[static_cast<std::size_t>(a)];
  const AgentInfo& info = p_.agents[static_cast<std::size_t>(a)];
  const std::vector<Instr>& code = p_.code[static_cast<std::size_t>(info.role)];
  if (ag.pc >= code.size() || code[ag.pc].kind != InstrKind::op) return info.name + " is blocked";
  const ir::Op& op = *code[ag.pc].op;
  std::string what = std::string(ir::op_keyword(op.code));
  if (op.bar.object >= 0) {
    const int m = p_.mbar_base[static_cast<std::size_t>(op.bar.object)] + static_cast<int>(op.bar.index == ir::no_expr ? 0 : eval(p_, op.bar.index, s.vars.data() + p_.var_base[static_cast<std::size_t>(a)])) +
                  info.cta * p_.mbars_per_cta;
    if (m >= 0 && m < p_.num_mbars()) {
      const mb::State& st = s.mbars[static_cast<std::size_t>(m)];
      what += " " + p_.mbar_name(m);
      if (op.parity != ir::no_expr) what += " parity " + std::to_string(eval(p_, op.parity, s.vars.data() + p_.var_base[static_cast<std::size_t>(a)]));
      what += " (barrier at phase " + std::to_string(st.phase) + ", pending " + std::to_string(st.pending) + ", tx " +
              std::to_string(st.tx) + ")";
    }
  } else if (op.id != ir::no_expr) {
    what += " " + std::to_string(eval(p_, op.id, s.vars.data() + p_.var_base[static_cast<std::size_t>(a)]));
  } else if (op.code == OpCode::wgmma && ag.stage == 1) {
    what += " (joined; waits for the other warps of its warp group)";
  } else if (op.cta_pair && op.code != OpCode::tcgen05_mma && op.code != OpCode::tcgen05_commit) {
    if (op.tmem.object >= 0) what += " " + p_.kernel->buffers[static_cast<std::size_t>(op.tmem.object)].name;
    what += " cta_group 2 (" + std::string(ag.stage == 1 ? "waits for" : "cannot issue before the last collective of") + " CTA " +
            std::to_string(ag.stage == 1 ? spec::tmem::peer(info.cta) : info.cta) + (ag.stage == 1 ? "'s warp to issue its half)" : " returns, or columns lack)");
  }
  return info.name + " waits at " + what + " (line " + std::to_string(code[ag.pc].loc.line) + ")";
}

}  // namespace pc::check
