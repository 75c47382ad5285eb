// The unrolling of the barriers (bmc_fragment.hpp): named barriers, the
// cluster barrier, syncwarp, and on AMD the workgroup barrier, s_waitcnt
// and global_load_lds.
#include "checker/smt/bmc_unroll.hpp"

#include <algorithm>

#include "spec/amd.hpp"
#include "spec/cluster.hpp"
#include "spec/named_barrier.hpp"
#include "spec/ordering.hpp"

namespace pc::smt::bmc::unrolling {

void Unroller::op_named_barrier(Step& s, const ir::Op& op) {
  const check::AgentInfo& me = agent_info();
  s.kind = StepKind::bar_sync;
  s.wait = op.code != OpCode::bar_arrive;
  const int id = op.code == OpCode::syncthreads ? 0 : static_cast<int>(ev(op.id, 0));
  s.count = op.code == OpCode::syncthreads ? 0 : ev(op.count, 0);
  spec::named::ArriveArgs args;
  args.id = id;
  args.count = s.count;
  args.no_count = ir::named_no_count(op);
  args.sync = op.code == OpCode::bar_sync;  // a count of 0 is the whole CTA, as s.count 0 is here
  args.threads = me.threads;
  args.cta_threads = p_.cta_threads[static_cast<std::size_t>(current_.cta)];
  args.id0_whole_cta = p_.id0_whole_cta;
  s.raises = spec::named::check_operands(args);
  if (s.raises == Violation::none) {
    int slot = -1;
    for (std::size_t i = 0; i < f_.named_ids.size(); ++i)
      if (f_.named_ids[i] == id && f_.named_cta[i] == current_.cta) slot = static_cast<int>(i);
    if (slot < 0) {
      slot = static_cast<int>(f_.named_ids.size());
      f_.named_ids.push_back(id);
      f_.named_cta.push_back(current_.cta);
    }
    s.named = slot;
  }
  s.text = std::string(s.wait ? "bar_sync " : "bar_arrive ") + std::to_string(id) + (s.count ? ", " + std::to_string(s.count) : "");
}

void Unroller::op_global_load_lds(Step& s, const ir::Op& op, const check::Lanes& l) {
  const check::AgentInfo& me = agent_info();
  // step.cpp: a gather into LDS, the cp_async unit's generic-proxy
  // write, numbered by VM_CNT (spec/amd.hpp, vm_issue).
  wave_ = spec::amd::vm_issue(wave_);
  s.kind = StepKind::unit_access;
  s.write = true;
  s.async_proxy = false;
  s.spread = l.every ? me.parts + 1 : 0;
  s.unit = thread(me.hb.unit(hb::Unit::cp_async));
  Step::Part part;
  part.buf = buf(op.bufs.at(0));
  part.events.push_back(event(part.buf, true, s.unit, 0, false));
  f_.events.back().group = wave_.vm_issued;
  s.text += " " + f_.buffers[static_cast<std::size_t>(part.buf)] + " (load " + std::to_string(wave_.vm_issued) + ")";
  s.parts.push_back(part);
}

void Unroller::op_s_waitcnt(Step& s, const ir::Op& op) {
  const check::AgentInfo& me = agent_info();
  // spec/amd.hpp, waitcnt; then hb::retire of the loads it covers.
  wave_ = spec::amd::waitcnt(wave_, check::waitcnt_operands(p_, op, vars_.data()));
  s.kind = StepKind::retire;
  s.upto = wave_.vm_done;
  s.unit = thread(me.hb.unit(hb::Unit::cp_async));
  s.to = threads(me.hb.lanes());
  s.text += " (loads up to " + std::to_string(s.upto) + " complete)";
}

void Unroller::op_s_barrier(Step& s, const ir::Op& op) {
  // spec/amd.cpp, signal and wait: what they check of the wave's own
  // counters and split state is decided here; the barrier's instance
  // is the search's (named slot 0).
  s.kind = StepKind::amd_barrier;
  s.signal = op.code != OpCode::s_barrier_wait;
  s.wait = op.code != OpCode::s_barrier_signal;
  spec::amd::Barrier any;
  if (s.signal) {
    const spec::amd::Result r = spec::amd::signal(any, wave_);
    s.raises = r.out.violation;
    wave_ = r.wave;
  }
  if (s.wait && s.raises == Violation::none) {
    any.generation = wave_.joined + 1;
    const spec::amd::Result r = spec::amd::wait(any, wave_);
    s.raises = r.out.violation;
    wave_ = r.wave;
  }
  s.named = 0;
}

void Unroller::op_cluster_barrier(Step& s, const ir::Op& op) {
  // spec/cluster.cpp: whether the agent arrives twice, or waits
  // without arriving, depends on its own sequence alone (its Ticket).
  s.kind = StepKind::cluster_barrier;
  s.arrive = op.code != OpCode::cluster_wait;
  s.wait = op.code != OpCode::cluster_arrive;
  s.sync = spec::ordering::cluster_arrive_releases(op.sem);
  spec::cluster::State any;
  spec::cluster::Ticket ticket = cluster_joined_ ? 1 : 0;
  if (s.arrive) {
    const spec::cluster::Result r = spec::cluster::arrive(any, ticket, 1, 2);
    s.raises = r.out.violation;
    ticket = r.ticket;
  }
  if (s.wait && s.raises == Violation::none) {
    any.generation = ticket;
    const spec::cluster::Result r = spec::cluster::wait(any, ticket);
    s.raises = r.out.violation;
    ticket = r.ticket;
  }
  cluster_joined_ = ticket != 0;
  if (op.sem == ir::Sem::relaxed) s.text += " relaxed";
}

void Unroller::op_syncwarp(Step& s) {
  const check::AgentInfo& me = agent_info();
  s.kind = StepKind::syncwarp;
  // The warps whose elected lane and other lanes both execute it
  // (spec::rules::syncwarp).
  auto in = [&](int t) { return std::find(s.lanes.begin(), s.lanes.end(), t) != s.lanes.end(); };
  for (int w = 0; w < me.warps; ++w)
    if (in(thread(me.hb.leader(w))) && in(thread(me.hb.cell(w, 1)))) s.warps.emplace_back(thread(me.hb.leader(w)), thread(me.hb.cell(w, 1)));
}

// step.cpp, on_consume: the buffers whose reads by the lanes are used (no
// access of memory: a CTA that has exited is not checked).
void Unroller::op_consume(Step& s, const ir::Op& op) {
  s.kind = StepKind::consume;
  for (const ir::Ref& r : op.bufs) {
    Step::Part part;
    part.buf = buf(r, cta(r));
    s.text += (s.parts.empty() ? " " : ", ") + f_.buffers[static_cast<std::size_t>(part.buf)];
    s.parts.push_back(part);
  }
}

}  // namespace pc::smt::bmc::unrolling
