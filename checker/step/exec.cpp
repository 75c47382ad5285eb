// The step of one agent: its next instruction, dispatched to the op's handler (one per op, in the file of its family), and its exit.
#include "checker/step/exec.hpp"

namespace pc::check::exec {

void Exec::exit_agent() {
  ag_.exited = true;
  SAY("exit");
  const spec::cluster::Result cr = spec::cluster::on_exit(s_.cluster, cluster_expected());
  s_.cluster = cr.next;
  so::cluster_exit(s_.mem, p_.cluster_syncs(me_.cta), cr.out.phase_completed);
  // A barrier without a thread count waits for the CTA's non-exited threads:
  // this exit may complete an instance in progress.
  for (int id = 0; id < spec::named::num_ids; ++id) {
    if (p_.named_slot[static_cast<std::size_t>(id)] < 0) continue;
    spec::named::State& st =
        s_.named[static_cast<std::size_t>(me_.cta * p_.named_used + p_.named_slot[static_cast<std::size_t>(id)])];
    const spec::named::Result r = spec::named::on_exit(st, static_cast<int>(live_threads(me_.cta)));
    st = r.next;
    so::barrier_exit(s_.mem, p_.named_sync(me_.cta, id), r.out.phase_completed);
  }
  if (!s_.amd.empty()) {
    spec::amd::Barrier& bar = s_.amd[static_cast<std::size_t>(me_.cta)];
    const std::uint32_t gen = bar.generation;
    bar = spec::amd::wave_exit(bar, ag_.wave);
    so::barrier_exit(s_.mem, p_.named_sync(me_.cta, 0), bar.generation != gen);
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
  if (p_.ctas > 1) remote_operations_done();
  if (!s_.tmem.empty())
    if (const Violation v = spec::tmem::cta_exit(s_.tmem[static_cast<std::size_t>(me_.cta)]); v != Violation::none)
      stop(v, "CTA " + std::to_string(me_.cta) + " exits with tensor memory still allocated (no tcgen05.dealloc)");
  if (!s_.tmem.empty() && spec::tmem::peer(me_.cta) < p_.ctas) {
    const int peer = spec::tmem::peer(me_.cta);
    const spec::tmem::Cta& theirs = s_.tmem[static_cast<std::size_t>(peer)];
    if (const Violation v = spec::tmem::pair_exit(theirs); v != Violation::none)
      stop(v, "CTA " + std::to_string(me_.cta) + " exits while CTA " + std::to_string(peer) + "'s " + pair_name(theirs.pair, theirs.pair_which) +
                  " cta_group 2 waits for its half (the peer CTA's warps must eventually participate)");
  }
  for (const Pending& pe : s_.pending) {
    rules::CtaExit e;
    e.async_targets = p_.mbar_cta(pe.mbar) == me_.cta || (pe.buf >= 0 && p_.buffer_cta(pe.buf) == me_.cta);
    if (const Violation v = rules::cta_exit(e); v != Violation::none)
      stop(v, "CTA " + std::to_string(me_.cta) + " exits while an async operation issued by " +
                                             p_.agents[pe.agent].name + " still targets " + p_.mbar_name(pe.mbar) +
                                             (pe.buf >= 0 ? " / " + p_.buffer_name(pe.buf) : ""));
  }
}

// The CTA's last thread exits: every operation of another CTA on its shared
// memory must be ordered before some thread of it (spec::sync_order::
// cta_end_ordered).
void Exec::remote_operations_done() {
  const int buf = p_.end_buffer(me_.cta);
  const hb::Threads mine = p_.cta_hb_threads(me_.cta);
  rules::CtaExit e;
  e.remote_unordered = !so::cta_end_ordered(s_.mem, buf, mine);
  const Violation v = rules::cta_exit(e);
  if (v == Violation::none) return;
  std::string who;
  for (const hb::Event& x : s_.mem.events)
    if (x.buf == buf && ((x.after | x.after_weak) & mine) == 0) {
      who = p_.thread_name(x.thread);
      break;
    }
  stop(v, "CTA " + std::to_string(me_.cta) + " exits while an operation of " + who +
              " on its shared memory (a remote arrive, expect_tx, complete_tx or access) may still be in flight: nothing "
              "orders it before any of CTA " + std::to_string(me_.cta) + "'s threads (an exit or a .relaxed arrive orders no "
              "memory operation). Wait for the phase it counts in (CUTLASS's producer_tail), or end both CTAs with a cluster_sync");
}

Exec::Pc Exec::on_exit([[maybe_unused]] const ir::Op& op, [[maybe_unused]] const Lanes& l) {
  exit_agent();
  return Pc::stay;
}

void Exec::op(const ir::Op& op) {
  const Lanes l = lanes_of(op, me_);
  // A wave's lanes run in lockstep (spec/amd.hpp): they are ordered among
  // themselves before every op, as __syncwarp orders a warp's.
  if (p_.kernel->target == ir::Target::amd && spec::amd::wave_lanes_in_lockstep) rules::syncwarp(s_.mem, me_.hb, me_.hb.lanes());
  Pc next = Pc::stay;
  switch (op.code) {
#define PC_X(e, ...)           \
  case OpCode::e:              \
    next = on_##e(op, l);      \
    break;
    PC_OPS(PC_X)
#undef PC_X
  }
  if (next == Pc::next) ++ag_.pc;
  // The table says which ops may leave the agent unable to move
  // (ir::opf::may_block); the search and the reductions rely on it.
  if (!info_.enabled && !ir::op_has(op.code, ir::opf::may_block)) blocked_unexpectedly(op);
}

void Exec::blocked_unexpectedly(const ir::Op& op) {
  throw InternalError("'" + std::string(ir::op_keyword(op.code)) + "' was not enabled, and checker/ops.hpp says it never blocks");
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
    case InstrKind::choose:
      // The first way of an `either` (Stepper::second_way takes the other).
      ++ag_.pc;
      SAY("either: takes the first way");
      return;
    case InstrKind::op:
      op(*in.op);
      return;
  }
}

// Programmatic dependent launch (`grids 2`): griddepcontrol.launch_dependents
// and griddepcontrol.wait (spec::sync_order::grid_wait).
Exec::Pc Exec::on_griddep_launch(const ir::Op& op, [[maybe_unused]] const Lanes& l) {
  // Scheduling only: the model lets the dependent grid run from the start
  // (spec::sync_order, "Programmatic dependent launch").
  SAY(lanes_prefix(op) + "griddepcontrol.launch_dependents (scheduling only: orders no memory)");
  return Pc::next;
}

Exec::Pc Exec::on_griddep_wait(const ir::Op& op, const Lanes& l) {
  const bool primary = p_.grid_of(me_.cta) == 0;
  bool done = true;
  for (int c = 0; c < p_.cluster_ctas; ++c) done &= (s_.cta_exited >> c & 1u) != 0;
  if (!so::grid_wait_enabled(primary, done)) {
    info_.enabled = false;
    return Pc::stay;
  }
  if (!primary) {
    hb::Threads before = 0;
    for (int c = 0; c < p_.cluster_ctas; ++c) before |= p_.cta_hb_threads(c);
    so::grid_wait(s_.mem, before, l.threads);
  }
  SAY(lanes_prefix(op) + "griddepcontrol.wait" + (primary ? " (no prerequisite grid: returns at once)" : " (the primary grid completed)"));
  return Pc::next;
}

}  // namespace pc::check::exec
