// The unrolling of the tensor-memory operations (bmc_fragment.hpp):
// tcgen05.mma, ld, st, wait::ld, wait::st, fence::before_thread_sync,
// alloc, dealloc, relinquish_alloc_permit.
#include "checker/smt/bmc_unroll.hpp"

#include "spec/async_group.hpp"
#include "spec/tmem.hpp"

namespace pc::smt::bmc::unrolling {

void Unroller::op_tcgen05_mma(Step& s, const ir::Op& op) {
  const check::AgentInfo& me = agent_info();
  // step.cpp: the MMA unit's reads of the operands, issued by the
  // leader, in the group the next tcgen05.commit closes: an async-proxy
  // read of each shared-memory operand (another CTA's with `@ c`, which
  // must not have exited), a read of an A operand in tensor memory and
  // a write of the accumulator, in both CTAs of a pair-CTA MMA, each
  // ordered after the unit's earlier accesses (spec::tmem::after_own_unit).
  s.kind = StepKind::unit_access;
  s.unit = thread(me.hb.unit(hb::Unit::mma));
  s.lanes = {thread(me.hb.leader())};
  s.after_own = spec::tmem::after_own_unit(spec::tmem::Async::mma);
  const int pair = spec::tmem::peer(current_.cta);
  if (op.cta_pair) {
    if (pair >= p_.ctas) refuse(op, "a cta_group 2 operation with no peer CTA");
    s.remote = remote(pair);
  }
  const int group = mma_.committed + 1;
  auto add = [&](int b, bool write, bool tensor, int remote_cta) {
    Step::Part part;
    part.buf = b;
    part.remote = remote_cta;
    part.write = write;
    part.events.push_back(event(b, write, s.unit, 0, !tensor));
    f_.events.back().group = group;
    s.text += (s.parts.empty() ? " " : ", ") + f_.buffers[static_cast<std::size_t>(b)];
    s.parts.push_back(part);
  };
  for (const ir::Ref& r : op.bufs) {
    if (p_.tmem_slot[static_cast<std::size_t>(r.object)] < 0) {
      const int c = cta(r);
      add(buf(r, c), false, false, remote(c));
    } else {
      // The encoding orders an MMA after every earlier access of its unit;
      // the pipelined pairs order it after an earlier MMA only on the same
      // accumulator (spec::tmem::pipelined), which it does not follow.
      refuse(op, "a tcgen05.mma with its A operand in tensor memory (the pipelined pairs of one accumulator are the explicit search's only)");
    }
  }
  if (op.tmem.object >= 0) {
    s.text += " into";
    for (const int c : {current_.cta, pair})
      if (c == current_.cta || op.cta_pair) add(buf(op.tmem, c), true, true, -1);
  }
  s.text += " (group " + std::to_string(group) + ")";
}

void Unroller::op_tcgen05_ld_st(Step& s, const ir::Op& op) {
  const check::AgentInfo& me = agent_info();
  // step.cpp: the tensor-memory unit's access for the agent's lanes,
  // in flight until tcgen05.wait::ld / wait::st or
  // tcgen05.fence::before_thread_sync (its events' group is 1).
  const bool st = op.code == OpCode::tcgen05_st;
  s.kind = StepKind::unit_access;
  s.unit = thread(me.hb.unit(hb::Unit::tmem));
  s.lanes = threads(me.hb.lanes());
  s.async_proxy = false;
  s.write = st;
  for (const ir::Ref& r : op.bufs) {
    if (p_.tmem_slot[static_cast<std::size_t>(r.object)] < 0) refuse(op, "tcgen05.ld or tcgen05.st of shared memory");
    Step::Part part;
    part.buf = buf(r);
    part.events.push_back(event(part.buf, st, s.unit, 0, false));
    f_.events.back().group = 1;
    s.text += (s.parts.empty() ? " " : ", ") + f_.buffers[static_cast<std::size_t>(part.buf)];
    s.parts.push_back(part);
  }
}

void Unroller::op_tcgen05_retire(Step& s, const ir::Op& op) {
  const check::AgentInfo& me = agent_info();
  // step.cpp: hb::retire_kind of the tensor-memory unit's reads
  // (wait::ld), writes (wait::st) or both (fence::before_thread_sync,
  // spec::tmem::before_thread_sync_orders) for the lanes.
  s.kind = StepKind::retire;
  s.unit = thread(me.hb.unit(hb::Unit::tmem));
  s.upto = 1;
  s.only = op.code == OpCode::tcgen05_wait_ld ? 0 : op.code == OpCode::tcgen05_wait_st ? 1 : -1;
  s.to = op.code == OpCode::tcgen05_fence_before ? s.lanes : threads(me.hb.lanes());
}

void Unroller::op_tcgen05_alloc(Step& s, const ir::Op& op) {
  const check::AgentInfo& me = agent_info();
  // spec/tmem.hpp: alloc, dealloc, relinquish by one warp, or with
  // cta_group 2 a collective of one warp in each CTA of the pair
  // (step.cpp, tmem_alloc and tmem_pair).
  namespace tm = spec::tmem;
  const bool relinquish = op.code == OpCode::tcgen05_relinquish;
  s.tmem_op = static_cast<int>(op.code == OpCode::tcgen05_alloc     ? tm::PairOp::alloc
                               : op.code == OpCode::tcgen05_dealloc ? tm::PairOp::dealloc
                                                                    : tm::PairOp::relinquish);
  s.kind = op.cta_pair ? StepKind::tmem_pair : StepKind::tmem_alloc;
  s.lanes = threads(me.hb.lanes());
  const ir::BufferDecl* d = relinquish ? nullptr : &p_.kernel->buffers.at(static_cast<std::size_t>(op.tmem.object));
  if (d != nullptr) {
    s.slot = p_.tmem_slot[static_cast<std::size_t>(op.tmem.object)];
    s.cols = d->cols * d->size;
    s.text += " " + d->name;
  }
  // The allocation's elements in CTA c, each written by `leader`.
  auto elements = [&](int c, int leader) {
    for (int e = 0; e < d->size; ++e) {
      Step::Part part;
      part.buf = c * p_.buffers_per_cta + p_.buffer_base[static_cast<std::size_t>(op.tmem.object)] + e;
      part.events.push_back(event(part.buf, true, leader, 0, false));
      s.parts.push_back(part);
    }
  };
  if (d != nullptr) elements(current_.cta, thread(me.hb.leader()));
  if (!op.cta_pair) return;
  s.text += " cta_group 2";
  const int pair = tm::peer(current_.cta);
  if (pair >= p_.ctas) refuse(op, "a cta_group 2 operation with no peer CTA");
  if (d != nullptr) elements(pair, thread(me.hb.leader()));
}

}  // namespace pc::smt::bmc::unrolling
