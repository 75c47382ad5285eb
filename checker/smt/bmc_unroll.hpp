// The unrolling of bmc_fragment.hpp, shared by its files: the class that
// unrolls one agent at a time (bmc_fragment.cpp: the control flow and the
// dispatch over the operations; bmc_unroll_*.cpp: the operations, one file
// per family). Private to checker/smt.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "checker/program.hpp"
#include "checker/smt/bmc_fragment.hpp"
#include "spec/agent.hpp"
#include "spec/amd.hpp"
#include "spec/async_group.hpp"
#include "spec/mbarrier.hpp"
#include "spec/ordering.hpp"

namespace pc::smt::bmc::unrolling {

namespace hb = spec::hb;
namespace mb = spec::mbarrier;
using check::Instr;
using check::InstrKind;
using ir::OpCode;
using spec::Violation;

// The most instructions one agent's unrolling runs (a loop this long is
// past what a bounded search of every interleaving can take anyway).
inline constexpr int max_instructions = 4096;

struct Refused {
  std::string why;
};

class Unroller {
 public:
  Unroller(const check::Program& p, Fragment& f) : p_(p), f_(f) {}

  void agent(int a);
  // Each CTA's start (spec::sync_order::cta_starts): a write of its start
  // buffer by its first agent's leader, after every agent is unrolled.
  void starts();

  // Unrolls the agent's code from `pc` (its n-th instruction) to an exit,
  // appending the steps in preorder: at a clc_query that keeps its answer,
  // the path of a "canceled" response first, then the other's.
  void run(std::size_t pc, int n);

  // What the unrolling of one path keeps, for the other path of a clc_query.
  struct Context {
    std::vector<std::int64_t> vars;
    spec::async_group::Groups bulk, mma, cp;
    spec::amd::Wave wave;
    bool wgmma_fenced = false, cluster_joined = false;
    std::uint8_t wgmma_regs = 0;
  };
  Context save() const { return {vars_, bulk_, mma_, cp_, wave_, wgmma_fenced_, cluster_joined_, wgmma_regs_}; }
  void restore(const Context& c) {
    vars_ = c.vars;
    bulk_ = c.bulk;
    mma_ = c.mma;
    cp_ = c.cp;
    wave_ = c.wave;
    wgmma_fenced_ = c.wgmma_fenced;
    cluster_joined_ = c.cluster_joined;
    wgmma_regs_ = c.wgmma_regs;
  }

 private:
  const check::Program& p_;
  Fragment& f_;
  int a_ = 0;
  Agent current_;  // the agent being unrolled
  const std::vector<Instr>* code_ = nullptr;  // its role's code
  ir::Loc exit_loc_;  // where it exits when its code ends
  spec::async_group::Groups bulk_, mma_, cp_;  // its async-groups (step.cpp: AgentState::bulk, mma, cp)
  spec::amd::Wave wave_;                  // AMD: its counters and split-barrier state
  bool wgmma_fenced_ = false;
  std::uint8_t wgmma_regs_ = 0;  // its threads' register accesses since its last wgmma_fence (step.cpp: AgentState::wgmma_regs)
  bool cluster_joined_ = false;  // arrived at the cluster barrier and not yet waited (spec/cluster.hpp, Ticket)

  // The operations no other agent sees: a wgmma_fence, a wgmma_regs, a commit,
  // tcgen05.fence::after_thread_sync (step.cpp: the tcgen05_unfenced
  // warning's state), and in a kernel with no tensor memory
  // before_thread_sync (no tcgen05.ld or tcgen05.st to order) and
  // relinquish_alloc_permit (no allocation to give up).
  void agent_local(const ir::Op& op) {
    if (op.code == OpCode::tcgen05_fence_after || op.code == OpCode::tcgen05_fence_before || op.code == OpCode::tcgen05_relinquish)
      return;
    if (op.code == OpCode::wgmma_fence) {
      wgmma_fenced_ = spec::agent::wgmma_fenced_after_fence();
      wgmma_regs_ = spec::agent::regs_after_fence(wgmma_regs_);
    } else if (op.code == OpCode::wgmma_regs) {
      wgmma_regs_ = spec::agent::regs_after_access(wgmma_regs_, op.regs);
    } else (void)spec::async_group::commit(op.code == OpCode::wgmma_commit ? mma_ : op.code == OpCode::cp_async_commit ? cp_ : bulk_);
  }
  std::vector<std::int64_t> vars_;
  std::map<int, int> local_;  // hb thread -> local thread

  std::int64_t ev(ir::ExprId e, std::int64_t otherwise = 0) const {
    return e == ir::no_expr ? otherwise : check::eval(p_, e, vars_.data());
  }
  [[noreturn]] void refuse(const ir::Op& op, const std::string& what) const {
    throw Refused{"line " + std::to_string(op.loc.line) + ": " + what};
  }
  int thread(std::uint8_t t) {
    const auto it = local_.find(t);
    if (it != local_.end()) return it->second;
    const int n = static_cast<int>(f_.threads.size());
    f_.threads.push_back(p_.thread_name(t));
    int cta = 0;
    for (const check::AgentInfo& a : p_.agents)
      if (a.hb.owns(t)) cta = a.cta;
    f_.thread_cta.push_back(cta);
    local_.emplace(t, n);
    return n;
  }
  std::vector<int> threads(hb::Threads mask) {
    std::vector<int> out;
    for (int t = 0; t < hb::max_threads; ++t)
      if (mask & hb::bit(static_cast<std::uint8_t>(t))) out.push_back(thread(static_cast<std::uint8_t>(t)));
    return out;
  }
  int element(const ir::Ref& r, int size) const {
    const std::int64_t i = ev(r.index, 0);
    if (i < 0 || i >= size) throw check::KernelError("index " + std::to_string(i) + " is outside its array", r.loc);
    return static_cast<int>(i);
  }
  // The CTA an operand names (its own where none).
  int cta(const ir::Ref& r) const { return check::target_cta(p_, r, vars_.data(), current_.cta); }
  // That CTA where it is another (it must still be there), else -1.
  int remote(int c) const { return c == current_.cta ? -1 : c; }
  int mbar(const ir::Ref& r, int c) const {
    const ir::MbarrierDecl& d = p_.kernel->mbarriers.at(static_cast<std::size_t>(r.object));
    return c * p_.mbars_per_cta + p_.mbar_base[static_cast<std::size_t>(r.object)] + element(r, d.size);
  }
  int mbar(const ir::Ref& r) const { return mbar(r, cta(r)); }
  int buf(const ir::Ref& r, int c) const {
    const ir::BufferDecl& d = p_.kernel->buffers.at(static_cast<std::size_t>(r.object));
    return c * p_.buffers_per_cta + p_.buffer_base[static_cast<std::size_t>(r.object)] + element(r, d.size);
  }
  // An operand of the agent's own CTA (the others' are not covered for the
  // operations that use this).
  int buf(const ir::Ref& r) const {
    if (r.cta != ir::no_expr) throw Refused{"line " + std::to_string(r.loc.line) + ": this operation on another CTA's buffer (@)"};
    return buf(r, current_.cta);
  }
  // The sync object a release of `scope` by this agent into mbarrier `m`
  // goes into (step.cpp, channel_sync; ordering::release_channel): the
  // barrier's own (own_sync), an extra index, or no_sync.
  int channel(int m, spec::ordering::Scope scope) const {
    switch (spec::ordering::release_channel(scope, f_.mbar_cta[static_cast<std::size_t>(m)] != current_.cta)) {
      case spec::ordering::Channel::any_scope: return own_sync;
      case spec::ordering::Channel::cluster_scope: return or_none(f_.mbar_cluster_sync[static_cast<std::size_t>(m)]);
      case spec::ordering::Channel::too_narrow: break;
    }
    return or_none(f_.mbar_weak_sync[static_cast<std::size_t>(m)]);
  }
  static int or_none(int extra) { return extra >= 0 ? extra : no_sync; }
  int extra_sync() { return f_.extra_syncs++; }
  int event(int b, bool write, int thread, int spread, bool async) {
    f_.events.push_back(Event{b, write, thread, spread, async});
    return static_cast<int>(f_.events.size()) - 1;
  }
  // A remote mbarrier operation's events in its CTA's end pseudo-buffer
  // (Step::end_events).
  void end_events(Step& s) {
    if (s.remote < 0) return;
    for (const int t : s.lanes) s.end_events.push_back(event(f_.first_end + s.remote, true, t, 0, false));
  }

  // The async unit s.unit's access of each buffer of `op` in `group`
  // (step.cpp, unit_access: one event per buffer). `others`: operands of
  // another CTA (`@ c`) are covered, and that CTA must not have exited.
  void unit_parts(Step& s, const ir::Op& op, bool write, bool async, int group, bool others = false) {
    for (const ir::Ref& r : op.bufs) {
      Step::Part part;
      if (others) {
        const int c = cta(r);
        part.buf = buf(r, c);
        part.remote = remote(c);
      } else {
        part.buf = buf(r);
      }
      part.events.push_back(event(part.buf, write, s.unit, 0, async));
      f_.events.back().group = group;
      s.text += (s.parts.empty() ? " " : ", ") + f_.buffers[static_cast<std::size_t>(part.buf)];
      s.parts.push_back(part);
    }
    s.text += " (group " + std::to_string(group) + ")";
  }
  const check::AgentInfo& agent_info() const { return p_.agents[static_cast<std::size_t>(a_)]; }

  // One operation as a step (bmc_fragment.cpp), through one of these, per
  // family.
  Step op(const ir::Op& op, int index);
  void op_access(Step& s, const ir::Op& op, const check::Lanes& l);  // read, write
  void op_arrive(Step& s, const ir::Op& op, const check::Lanes& l);  // mbar_arrive, mbar_arrive_expect_tx
  void op_init(Step& s, const ir::Op& op, const check::Lanes& l);  // mbar_init
  void op_inval(Step& s, const ir::Op& op, const check::Lanes& l);  // mbar_inval
  void op_expect_tx(Step& s, const ir::Op& op, const check::Lanes& l);  // mbar_expect_tx, mbar_complete_tx
  void op_fence_init(Step& s);  // fence_mbarrier_init
  void op_wait(Step& s, const ir::Op& op);  // mbar_wait
  void op_clc_cancel(Step& s, const ir::Op& op, int index);  // clc_try_cancel
  void op_clc_query(Step& s, const ir::Op& op, const check::Lanes& l);  // clc_query
  void op_tma_load(Step& s, const ir::Op& op, int index);  // tma_load
  void op_st_async(Step& s, const ir::Op& op, const check::Lanes& l, int index);  // st_async
  void op_unit_read(Step& s, const ir::Op& op);  // wgmma, tma_store, tma_reduce
  void op_async_arrive(Step& s, const ir::Op& op, const check::Lanes& l, int index);  // tcgen05_commit, cp_async_mbarrier_arrive
  void op_group_wait(Step& s, const ir::Op& op);  // wgmma_wait, bulk_wait_group, bulk_wait_group_read
  void op_cp_async(Step& s, const ir::Op& op, const check::Lanes& l);  // cp_async
  void op_cp_async_wait(Step& s, const ir::Op& op);  // cp_async_wait, cp_async_wait_all
  void op_tcgen05_mma(Step& s, const ir::Op& op);  // tcgen05_mma
  void op_tcgen05_ld_st(Step& s, const ir::Op& op);  // tcgen05_ld, tcgen05_st
  void op_tcgen05_retire(Step& s, const ir::Op& op);  // tcgen05_wait_ld, tcgen05_wait_st, tcgen05_fence_before
  void op_tcgen05_alloc(Step& s, const ir::Op& op);  // tcgen05_alloc, tcgen05_dealloc, tcgen05_relinquish
  void op_named_barrier(Step& s, const ir::Op& op);  // bar_sync, bar_arrive, syncthreads
  void op_global_load_lds(Step& s, const ir::Op& op, const check::Lanes& l);  // global_load_lds
  void op_s_waitcnt(Step& s, const ir::Op& op);  // s_waitcnt
  void op_s_barrier(Step& s, const ir::Op& op);  // s_barrier, s_barrier_signal, s_barrier_wait
  void op_cluster_barrier(Step& s, const ir::Op& op);  // cluster_arrive, cluster_wait, cluster_sync
  void op_syncwarp(Step& s);  // syncwarp
  void op_consume(Step& s, const ir::Op& op);  // consume
};

}  // namespace pc::smt::bmc::unrolling
