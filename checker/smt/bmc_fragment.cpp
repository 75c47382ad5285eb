#include "checker/smt/bmc_fragment.hpp"

#include <algorithm>
#include <functional>

#include "checker/smt/bmc_unroll.hpp"

namespace pc::smt::bmc {
namespace unrolling {

void Unroller::starts() {
  f_.start_event.assign(static_cast<std::size_t>(p_.ctas), -1);
  if (p_.ctas < 2) return;
  for (int c = 0; c < p_.ctas; ++c)
    for (const check::AgentInfo& a : p_.agents)
      if (a.cta == c) {
        f_.start_event[static_cast<std::size_t>(c)] = event(f_.first_start + c, true, thread(a.hb.leader()), 0, false);
        break;
      }
}

void Unroller::agent(int a) {
  const check::AgentInfo& info = p_.agents[static_cast<std::size_t>(a)];
  const ir::Role& role = p_.kernel->roles[static_cast<std::size_t>(info.role)];
  if (role.per_warp) throw Refused{"role " + role.name + " is split per warp (line " + std::to_string(role.loc.line) + ")"};
  a_ = a;
  current_ = Agent{};
  Agent& out = current_;
  out.name = info.name;
  out.cta = info.cta;
  out.threads = info.threads;
  out.warps = info.warps;
  cluster_joined_ = false;
  vars_.assign(role.vars.size(), 0);
  bulk_ = {};
  mma_ = {};
  cp_ = {};
  wave_ = {};
  wgmma_fenced_ = false;
  out.lanes = threads(info.hb.lanes());
  if (f_.amd && spec::amd::wave_lanes_in_lockstep)
    for (int w = 0; w < info.warps; ++w) out.lockstep.emplace_back(thread(info.hb.leader(w)), thread(info.hb.cell(w, 1)));
  vars_[ir::var_cta] = info.cta;
  vars_[ir::var_instance] = info.instance;
  vars_[ir::var_warp] = info.warp;
  code_ = &p_.code[static_cast<std::size_t>(info.role)];
  exit_loc_ = role.loc;
  run(0, 0);
  f_.agents.push_back(std::move(out));
}

void Unroller::run(std::size_t pc, int n) {
  Agent& out = current_;
  const std::vector<Instr>& code = *code_;
  std::vector<int> mine;  // the steps this call appends itself (their subtree ends where it returns)
  ir::Loc exit_loc = exit_loc_;
  bool forked = false;  // the paths of a clc_query's answers took the rest
  for (; pc < code.size(); ++n) {
    if (n > max_instructions || static_cast<int>(out.steps.size()) > max_instructions)
      throw Refused{out.name + " runs more than " + std::to_string(max_instructions) + " instructions"};
    const Instr& in = code[pc];
    switch (in.kind) {
      case InstrKind::assign: vars_[static_cast<std::size_t>(in.var)] = ev(in.expr); ++pc; break;
      case InstrKind::jump: pc = static_cast<std::size_t>(in.target); break;
      case InstrKind::branch_false: pc = ev(in.expr) != 0 ? pc + 1 : static_cast<std::size_t>(in.target); break;
      case InstrKind::choose: throw Refused{out.name + " has an either (a choice of two ways), which --bmc does not read yet"};
      case InstrKind::assert_true:
        if (ev(in.expr) == 0) {
          Step s;
          s.kind = StepKind::fail;
          s.loc = in.loc;
          s.text = "assert (does not hold)";
          s.raises = Violation::assertion_failed;
          mine.push_back(static_cast<int>(out.steps.size()));
          out.steps.push_back(s);
        }
        ++pc;
        break;
      case InstrKind::op:
        if (in.op->code == OpCode::exit) {
          pc = code.size();  // the agent ends here (step.cpp: exit_agent)
          exit_loc = in.loc;
          break;
        }
        if (in.op->code == OpCode::wgmma_fence || in.op->code == OpCode::wgmma_regs || in.op->code == OpCode::wgmma_commit ||
            in.op->code == OpCode::bulk_commit_group || in.op->code == OpCode::cp_async_commit ||
            in.op->code == OpCode::tcgen05_fence_after ||
            ((in.op->code == OpCode::tcgen05_fence_before || in.op->code == OpCode::tcgen05_relinquish) && f_.tmem_slots == 0)) {
          agent_local(*in.op);
          ++pc;
          break;
        }
        mine.push_back(static_cast<int>(out.steps.size()));
        out.steps.push_back(op(*in.op, static_cast<int>(out.steps.size())));
        if (in.op->code == OpCode::clc_query && in.op->dest_var >= 0) {
          // Both answers, each with the rest of the code (spec/clc.hpp:
          // which comes is not the kernel's to choose).
          const std::size_t q = out.steps.size() - 1;
          const Context saved = save();
          vars_[static_cast<std::size_t>(in.op->dest_var)] = 1;
          run(pc + 1, n + 1);
          restore(saved);
          vars_[static_cast<std::size_t>(in.op->dest_var)] = 0;
          out.steps[q].next_false = static_cast<int>(out.steps.size());
          run(pc + 1, n + 1);
          restore(saved);
          pc = code.size();
          forked = true;
          break;
        }
        ++pc;
        break;
    }
  }
  if (!forked) {
    // step.cpp, the CTA's exit (rules::CtaExit): a store's or wgmma's read
    // not waited for, or a committed cp.async-group's write.
    Step exit;
    exit.kind = StepKind::exit;
    exit.loc = exit_loc;
    exit.text = "exit";
    exit.in_flight = spec::async_group::in_flight(bulk_) || spec::async_group::in_flight(mma_) ||
                     spec::async_group::committed_in_flight(cp_);
    exit.signaled = wave_.signaled;
    mine.push_back(static_cast<int>(out.steps.size()));
    out.steps.push_back(exit);
    Step done;
    done.kind = StepKind::done;
    done.loc = exit_loc;
    done.text = "exited";
    out.ends.push_back(static_cast<int>(out.steps.size()));
    mine.push_back(static_cast<int>(out.steps.size()));
    out.steps.push_back(done);
  }
  for (const int i : mine) out.steps[static_cast<std::size_t>(i)].end = static_cast<int>(out.steps.size());
}

Step Unroller::op(const ir::Op& op, int index) {
  const check::AgentInfo& me = p_.agents[static_cast<std::size_t>(a_)];
  const check::Lanes l = check::lanes_of(op, me);
  Step s;
  s.loc = op.loc;
  s.lanes = threads(l.threads);
  s.text = check::lanes_prefix(op) + std::string(ir::op_keyword(op.code));
  if (ir::op_has(op.code, ir::opf::no_bmc)) refuse(op, std::string("operation '") + std::string(ir::op_keyword(op.code)) + "'");
  // `warp K:` (a warp of a multi-warp agent): its issuer is that warp's
  // elected lane, which the encoding's one-lane operations do not take.
  if (op.warp >= 0) refuse(op, "an operation of one warp of a multi-warp role ('warp K:')");
  if (op.quarter != ir::no_expr) refuse(op, "a tensor-memory lane quarter ('lanes Q')");
  if ((op.dest_var >= 0 && op.code != OpCode::clc_query) || op.token_var >= 0)
    refuse(op, "an operation whose result is kept in a variable");
  switch (op.code) {
    case OpCode::read:
    case OpCode::write: op_access(s, op, l); return s;
    case OpCode::mbar_arrive:
    case OpCode::mbar_arrive_expect_tx: op_arrive(s, op, l); return s;
    case OpCode::mbar_init: op_init(s, op, l); return s;
    case OpCode::mbar_inval: op_inval(s, op, l); return s;
    case OpCode::mbar_expect_tx:
    case OpCode::mbar_complete_tx: op_expect_tx(s, op, l); return s;
    case OpCode::fence_mbarrier_init: op_fence_init(s); return s;
    case OpCode::mbar_wait: op_wait(s, op); return s;
    case OpCode::clc_try_cancel: op_clc_cancel(s, op, index); return s;
    case OpCode::clc_query: op_clc_query(s, op, l); return s;
    case OpCode::tma_load: op_tma_load(s, op, index); return s;
    case OpCode::st_async: op_st_async(s, op, l, index); return s;
    case OpCode::bar_sync:
    case OpCode::bar_arrive:
    case OpCode::syncthreads: op_named_barrier(s, op); return s;
    case OpCode::wgmma:
    case OpCode::tma_store:
    case OpCode::tma_reduce: op_unit_read(s, op); return s;
    case OpCode::tcgen05_mma: op_tcgen05_mma(s, op); return s;
    case OpCode::tcgen05_ld:
    case OpCode::tcgen05_st: op_tcgen05_ld_st(s, op); return s;
    case OpCode::tcgen05_wait_ld:
    case OpCode::tcgen05_wait_st:
    case OpCode::tcgen05_fence_before: op_tcgen05_retire(s, op); return s;
    case OpCode::tcgen05_alloc:
    case OpCode::tcgen05_dealloc:
    case OpCode::tcgen05_relinquish: op_tcgen05_alloc(s, op); return s;
    case OpCode::tcgen05_commit:
    case OpCode::cp_async_mbarrier_arrive: op_async_arrive(s, op, l, index); return s;
    case OpCode::wgmma_wait:
    case OpCode::bulk_wait_group:
    case OpCode::bulk_wait_group_read: op_group_wait(s, op); return s;
    case OpCode::global_load_lds: op_global_load_lds(s, op, l); return s;
    case OpCode::cp_async: op_cp_async(s, op, l); return s;
    case OpCode::cp_async_wait:
    case OpCode::cp_async_wait_all: op_cp_async_wait(s, op); return s;
    case OpCode::s_waitcnt: op_s_waitcnt(s, op); return s;
    case OpCode::s_barrier:
    case OpCode::s_barrier_signal:
    case OpCode::s_barrier_wait: op_s_barrier(s, op); return s;
    case OpCode::cluster_arrive:
    case OpCode::cluster_wait:
    case OpCode::cluster_sync: op_cluster_barrier(s, op); return s;
    case OpCode::syncwarp:
      if (op.mask != ir::no_expr) refuse(op, "a syncwarp with a member mask");
      if (op.lanes != ir::Lanes::all) refuse(op, "a syncwarp of some lanes (its full default mask is checked by the explicit search)");
      op_syncwarp(s);
      return s;
    case OpCode::fence_proxy_async:
      if (op.space == ir::ProxySpace::global || op.space == ir::ProxySpace::shared_cta)
        refuse(op, "a proxy fence restricted to a state space");
      s.kind = StepKind::proxy_fence;
      return s;
    case OpCode::consume: op_consume(s, op); return s;
    // Refused above (the table's no_bmc column), or taken before (run: the
    // commits, fences and exit).
    case OpCode::atomic:
    case OpCode::atomic_load:
    case OpCode::mbar_arrive_drop:
    case OpCode::mbar_test_wait:
    case OpCode::mbar_try_wait:
    case OpCode::mbar_pending_count:
    case OpCode::bar_red:
    case OpCode::red_async:
    case OpCode::tcgen05_cp:
    case OpCode::tcgen05_shift:
    case OpCode::tcgen05_regs:
    case OpCode::fence_acq_rel:
    case OpCode::fence_sc:
    case OpCode::fence_release:
    case OpCode::fence_acquire:
    case OpCode::fence_proxy_tensormap:
    case OpCode::tensormap_cp_fenceproxy:
    case OpCode::griddep_launch:
    case OpCode::griddep_wait:
    case OpCode::elect_sync:
    case OpCode::wgmma_fence:
    case OpCode::wgmma_regs:
    case OpCode::wgmma_commit:
    case OpCode::bulk_commit_group:
    case OpCode::cp_async_commit:
    case OpCode::tcgen05_fence_after:
    case OpCode::exit:
      break;
  }
  throw check::InternalError("the bounded check reached '" + std::string(ir::op_keyword(op.code)) + "', which it does not unroll");
}

}  // namespace unrolling

using unrolling::Refused;
using unrolling::Unroller;

namespace {

void each_op(const std::vector<ir::Stmt>& body, const std::function<void(const ir::Op&)>& f) {
  for (const ir::Stmt& st : body) {
    if (st.kind == ir::StmtKind::op) f(st.op);
    each_op(st.body, f);
    each_op(st.else_body, f);
  }
}

// The tcgen05 ordering across threads (spec/hb.hpp, Event: after_async of
// tensor-memory events; hb::tc_fence, tc_release, tc_acquire) is not
// encoded: a kernel where it can order something is refused, with its
// reason. It orders something only through a .relaxed barrier operation
// (an arrive of a role with tcgen05.fence::before_thread_sync, or a wait in
// a kernel with that fence or a tcgen05.commit). Not declined: a pipelined MMA of another thread ordered
// only by a fence and a .release barrier after an MMA not waited for (the
// engines may differ there).
std::string tcgen05_ordering_used(const ir::Kernel& k, const check::Program& p) {
  if (p.tmem_decls == 0) return {};
  bool fenced_relaxed_arrive = false, relaxed_wait = false, fence_before = false, commit = false;
  for (const ir::Role& role : k.roles) {
    bool fence = false, relaxed_arrive = false;
    each_op(role.body, [&](const ir::Op& op) {
      const bool arrive = ir::op_has(op.code, ir::opf::thread_arrive) || op.code == ir::OpCode::cluster_arrive ||
                          op.code == ir::OpCode::cluster_sync;
      const bool wait = op.code == ir::OpCode::mbar_wait || op.code == ir::OpCode::mbar_test_wait || op.code == ir::OpCode::mbar_try_wait;
      relaxed_arrive |= arrive && op.sem == ir::Sem::relaxed;
      relaxed_wait |= wait && op.sem == ir::Sem::relaxed;
      fence |= op.code == ir::OpCode::tcgen05_fence_before;
      commit |= op.code == ir::OpCode::tcgen05_commit;
    });
    fence_before |= fence;
    fenced_relaxed_arrive |= fence && relaxed_arrive;
  }
  if (fenced_relaxed_arrive || (relaxed_wait && (fence_before || commit)))
    return "a .relaxed barrier operation with tcgen05.fence::before_thread_sync or tcgen05.commit in the kernel (the tcgen05 "
           "ordering across threads, spec/hb.hpp, is not encoded)";
  return {};
}

}  // namespace

Fragment unroll(const ir::Kernel& k) {
  Fragment f;
  const check::Program p = check::instantiate(k);
  if (k.target == ir::Target::amd) {
    f.amd = true;
    f.named_ids.push_back(0);  // the workgroup barrier
    f.named_cta.push_back(0);
  }
  f.ctas = p.ctas;
  f.clc_queue = k.clc_queue;
  f.tmem_slots = p.tmem_decls;
  f.slot_cols.assign(static_cast<std::size_t>(p.tmem_decls), 0);
  for (std::size_t d = 0; d < k.buffers.size(); ++d)
    if (p.tmem_slot[d] >= 0) f.slot_cols[static_cast<std::size_t>(p.tmem_slot[d])] = k.buffers[d].cols * k.buffers[d].size;
  for (int b = 0; b < p.num_buffers(); ++b) {
    f.buffer_slot.push_back(p.tmem_slot[static_cast<std::size_t>(p.buffer_decl(b))]);
    f.buffers.push_back(p.buffer_name(b));
    f.buffer_cta.push_back(p.buffer_cta(b));
    f.aliases.emplace_back(p.aliases_of(b).begin(), p.aliases_of(b).end());
    f.covers.emplace_back(p.covered_by(b).begin(), p.covered_by(b).end());
  }
  f.first_pseudo = p.num_buffers();
  for (int m = 0; m < p.num_mbars(); ++m) {
    f.buffers.push_back("the memory of " + p.mem_name(p.mbar_pseudo_buffer(m)));
    f.buffer_slot.push_back(-1);
    f.aliases.emplace_back(p.aliases_of(p.mbar_pseudo_buffer(m)).begin(), p.aliases_of(p.mbar_pseudo_buffer(m)).end());
    f.covers.emplace_back();
    f.mbars.push_back(p.mbar_name(m));
    const std::size_t decl = static_cast<std::size_t>(p.mbar_decl(m));
    f.mbar_count.push_back(std::max<std::int64_t>(k.mbarriers[decl].count, 0));
    f.mbar_kernel_inits.push_back(p.mbar_has_init[decl]);
    f.mbar_cta.push_back(p.mbar_cta(m));
    f.buffer_cta.push_back(p.mbar_cta(m));
    // Program's channels of releases from other CTAs (step.cpp, channel_sync).
    const std::size_t mi = static_cast<std::size_t>(m);
    f.mbar_cluster_sync.push_back(p.mbar_cluster_sync[mi] >= 0 ? f.extra_syncs++ : -1);
    f.mbar_weak_sync.push_back(p.mbar_weak_sync[mi] >= 0 ? f.extra_syncs++ : -1);
  }
  // Per CTA of a cluster, its start and then its end pseudo-buffers (Program's order).
  f.first_start = static_cast<int>(f.buffers.size());
  f.first_end = f.first_start + (p.ctas > 1 ? p.ctas : 0);
  for (const bool end : {false, true})
    for (int c = 0; c < (p.ctas > 1 ? p.ctas : 0); ++c) {
      f.buffers.push_back(p.mem_name(end ? p.end_buffer(c) : p.start_buffer(c)));
      f.buffer_slot.push_back(-1);
      f.aliases.emplace_back();
      f.covers.emplace_back();
      f.buffer_cta.push_back(c);
    }
  if (p.ctas > 1) f.cluster_sync = f.extra_syncs++;
  // Lane classes other than lane 0 and the other lanes (`lanes M:`): the
  // encoding pairs each warp's two classes (syncwarp, AMD's lockstep).
  for (const check::AgentInfo& a : p.agents)
    if (a.hb.cells != 2) {
      Fragment out;
      out.refused = "a lane mask ('lanes M:') that splits a warp into more than two lane classes (the explicit search's only)";
      return out;
    }
  if (const std::string why = tcgen05_ordering_used(k, p); !why.empty()) {
    Fragment out;
    out.refused = why;
    return out;
  }
  // A .relaxed mbarrier wait and bar.sync in one role: the stance's acquire
  // (spec::sync_order::bar_sync_acquire) is the explicit search's only.
  for (const ir::Role& role : k.roles) {
    bool relaxed_wait = false, bar_wait = false;
    each_op(role.body, [&](const ir::Op& op) {
      relaxed_wait |= ir::op_footprint(op.code) == ir::Footprint::mbar_wait && op.sem == ir::Sem::relaxed;
      bar_wait |= ir::op_has(op.code, ir::opf::named_wait) && ir::op_family(op.code) == ir::OpFamily::named;
    });
    if (relaxed_wait && bar_wait) {
      Fragment out;
      out.refused = "a .relaxed mbarrier wait and bar.sync in one role (bar.sync as the acquire of what the wait observed, "
                    "docs/spec.md \"Stances\", is not encoded)";
      return out;
    }
  }
  // Global memory and a second grid (programmatic dependent launch) are the
  // explicit search's only.
  bool global = k.grids > 1;
  for (const ir::BufferDecl& b : k.buffers) global |= b.space == ir::Space::global;
  if (global) {
    Fragment out;
    out.refused = "global memory ('gmem', 'tensormap') or a second grid ('grids 2'), which the bounded engine does not encode";
    return out;
  }
  try {
    Unroller u(p, f);
    for (int a = 0; a < static_cast<int>(p.agents.size()); ++a) u.agent(a);
    u.starts();
    f.lane.assign(f.threads.size(), false);
    for (const Agent& a : f.agents)
      for (const int t : a.lanes) f.lane[static_cast<std::size_t>(t)] = true;
  } catch (const Refused& r) {
    Fragment out;
    out.refused = r.why;
    return out;
  }
  return f;
}

}  // namespace pc::smt::bmc
