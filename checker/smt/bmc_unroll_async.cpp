// The unrolling of the async copies and groups (bmc_fragment.hpp): TMA
// loads, stores and reductions, st.async, wgmma, cp.async and its
// mbarrier arrive, tcgen05.commit, the group waits, and cluster launch
// control's try_cancel and query.
#include "checker/smt/bmc_unroll.hpp"

#include "spec/async_group.hpp"
#include "spec/clc.hpp"
#include "spec/ordering.hpp"
#include "spec/rules.hpp"

namespace pc::smt::bmc::unrolling {

void Unroller::op_clc_cancel(Step& s, const ir::Op& op, int index) {
  const check::AgentInfo& me = agent_info();
  // step.cpp: the response is the TMA unit's async-proxy write of 16
  // bytes into each destination CTA's buffer, completing tx on that
  // CTA's barrier when it lands (spec/clc.hpp); one request.
  s.kind = StepKind::clc_cancel;
  const ir::Ref& dst = op.bufs.at(0);
  const std::int64_t mask = ev(op.multicast, std::int64_t{1} << current_.cta);
  s.tx = spec::clc::response_bytes;
  s.unit = thread(me.hb.unit(hb::Unit::tma));
  s.lanes = {thread(me.hb.leader())};
  s.write = true;
  const int request = f_.clc_requests++;
  for (int c = 0; c < p_.ctas; ++c) {
    if (!spec::rules::selects(mask, c)) continue;
    Step::Part part;
    part.buf = buf(dst, c);
    part.remote = remote(c);
    part.mbar = mbar(op.bar, c);
    part.overwrite = true;
    part.events.push_back(event(part.buf, true, s.unit, 0, true));
    s.tmas.push_back(static_cast<int>(f_.tmas.size()));
    Tma t{a_, index, part.events[0], part.mbar, s.tx};
    t.request = request;
    f_.tmas.push_back(t);
    s.text += (s.parts.empty() ? " " : ", ") + f_.buffers[static_cast<std::size_t>(part.buf)] + " -> " +
              f_.mbars[static_cast<std::size_t>(part.mbar)];
    s.parts.push_back(part);
  }
}

void Unroller::op_clc_query(Step& s, const ir::Op& op, const check::Lanes& l) {
  const check::AgentInfo& me = agent_info();
  // step.cpp: ld.shared of the response (a read by the executing
  // lanes), then query_cancel.is_canceled; the unrolling goes on
  // along both answers (run).
  s.kind = StepKind::clc_query;
  s.spread = l.every ? me.parts + 1 : 0;
  Step::Part part;
  part.buf = buf(op.bufs.at(0));
  for (const int t : s.lanes) part.events.push_back(event(part.buf, false, t, s.spread, false));
  s.text += " " + f_.buffers[static_cast<std::size_t>(part.buf)];
  s.parts.push_back(part);
}

void Unroller::op_tma_load(Step& s, const ir::Op& op, int index) {
  const check::AgentInfo& me = agent_info();
  // step.cpp: a copy into each CTA the multicast mask selects (its
  // own where none), each completing on that CTA's barrier (or on
  // the one `@ c` names: rules::signalled_cta).
  s.kind = StepKind::tma_load;
  const ir::Ref& dst = op.bufs.at(0);
  const std::int64_t mask = ev(op.multicast, std::int64_t{1} << current_.cta);
  s.tx = ev(op.bytes, p_.kernel->buffers.at(static_cast<std::size_t>(dst.object)).bytes);
  s.raises = spec::rules::bulk_copy_size(s.tx);
  s.unit = thread(me.hb.unit(hb::Unit::tma));
  s.lanes = {thread(me.hb.leader())};
  s.write = true;
  const int named_cta = op.bar.cta == ir::no_expr ? -1 : cta(op.bar);
  for (int c = 0; c < p_.ctas; ++c) {
    if (!spec::rules::selects(mask, c)) continue;
    Step::Part part;
    part.buf = buf(dst, c);
    part.remote = remote(c);
    part.mbar = mbar(op.bar, spec::rules::signalled_cta(c, named_cta));
    part.overwrite = true;
    part.events.push_back(event(part.buf, true, s.unit, 0, true));
    s.tmas.push_back(static_cast<int>(f_.tmas.size()));
    Tma t{a_, index, part.events[0], part.mbar, s.tx};
    t.into = channel(part.mbar, spec::ordering::copy_release_scope);  // step.cpp, sync_order::tma_load_lands
    f_.tmas.push_back(t);
    s.text += (s.parts.empty() ? " " : ", ") + f_.buffers[static_cast<std::size_t>(part.buf)] + " -> " +
              f_.mbars[static_cast<std::size_t>(part.mbar)];
    s.parts.push_back(part);
  }
  s.text += " (" + std::to_string(s.tx) + " bytes)";
}

void Unroller::op_st_async(Step& s, const ir::Op& op, const check::Lanes& l, int index) {
  const check::AgentInfo& me = agent_info();
  // step.cpp: each executing thread's store is a generic-proxy write
  // by the agent's TMA unit, in flight; its issue releases the
  // issuers' knowledge and the write into a sync object of its own,
  // moved where a .cluster release goes when it lands (its complete-tx).
  const int c = cta(op.bar);
  const std::int64_t per = ev(op.bytes, 0);
  if (!spec::rules::st_async_bytes_valid(per)) refuse(op, "st_async of " + std::to_string(per) + " bytes per thread");
  s.kind = StepKind::st_async;
  s.remote = remote(c);
  s.mbar = mbar(op.bar, c);
  s.write = true;
  s.spread = l.every ? me.parts + 1 : 0;
  s.unit = thread(me.hb.unit(hb::Unit::tma));
  s.tx = spec::rules::per_thread_total(per, l.count);
  Step::Part part;
  part.buf = buf(op.bufs.at(0), c);
  part.remote = s.remote;
  part.mbar = s.mbar;
  part.events.push_back(event(part.buf, true, s.unit, 0, false));
  s.parts.push_back(part);
  Tma t{a_, index, part.events[0], s.mbar, s.tx};
  t.slot = extra_sync();
  t.into = channel(s.mbar, spec::ordering::st_async_release_scope);
  s.tmas.push_back(static_cast<int>(f_.tmas.size()));
  f_.tmas.push_back(t);
  s.text += " " + f_.buffers[static_cast<std::size_t>(part.buf)] + " -> " + f_.mbars[static_cast<std::size_t>(s.mbar)] + " (" +
            std::to_string(s.tx) + " bytes)";
}

void Unroller::op_unit_read(Step& s, const ir::Op& op) {
  const check::AgentInfo& me = agent_info();
  // step.cpp: the async unit's read of each source, in the agent's
  // open group; a wgmma's issued by every lane, a store's by the leader.
  const bool mma = op.code == OpCode::wgmma;
  const std::uint8_t uses = spec::agent::wgmma_uses(op.regs & spec::agent::regs_a);
  if (mma && spec::rules::wgmma_issue(wgmma_fenced_, wgmma_regs_, uses) != Violation::none) {
    s.kind = StepKind::fail;
    s.raises = spec::rules::wgmma_issue(wgmma_fenced_, wgmma_regs_, uses);
    s.text += wgmma_fenced_ ? " (registers its threads accessed, wgmma_regs, with no wgmma_fence since)" : " (no wgmma_fence before it)";
    return;
  }
  s.kind = StepKind::unit_access;
  const int group = spec::async_group::issue(mma ? mma_ : bulk_);
  s.unit = thread(me.hb.unit(mma ? hb::Unit::mma : hb::Unit::bulk));
  if (!mma) s.lanes = {thread(me.hb.leader())};
  unit_parts(s, op, false, true, group);
}

void Unroller::op_async_arrive(Step& s, const ir::Op& op, const check::Lanes& l, int index) {
  const check::AgentInfo& me = agent_info();
  // step.cpp: an arrive-on that lands when the operations it tracks
  // finish (Pending): a tcgen05.commit's, by the leader, on the
  // barrier of each CTA its mask selects, tracks the MMA unit's groups
  // up to the one it closes; a cp.async.mbarrier.arrive's, on its own
  // CTA's barrier, every copy of the cp_async unit, with one arrival
  // per thread (and, without noinc, as many pending counts added now).
  const bool tc = op.code == OpCode::tcgen05_commit;
  s.kind = StepKind::async_arrive;
  s.async_proxy = tc;
  s.unit = thread(me.hb.unit(tc ? hb::Unit::mma : hb::Unit::cp_async));
  if (tc) {
    s.lanes = {thread(me.hb.leader())};
    s.upto = spec::async_group::commit(mma_);
  } else if (!op.noinc) {
    s.count = l.count;
  }
  const std::int64_t mask = tc ? ev(op.multicast, std::int64_t{1} << current_.cta) : std::int64_t{1} << current_.cta;
  for (int c = 0; c < p_.ctas; ++c) {
    if (!spec::rules::selects(mask, c)) continue;
    Step::Part part;
    part.remote = remote(c);
    part.mbar = mbar(op.bar, c);
    Tma t{a_, index, -1, part.mbar, 0};
    t.arrivals = tc ? 1 : l.count;
    t.commit = tc ? s.upto : 0;
    t.slot = extra_sync();
    s.tmas.push_back(static_cast<int>(f_.tmas.size()));
    f_.tmas.push_back(t);
    s.text += (s.parts.empty() ? " " : ", ") + f_.mbars[static_cast<std::size_t>(part.mbar)];
    s.parts.push_back(part);
  }
  if (op.noinc) s.text += " noinc";
}

void Unroller::op_group_wait(Step& s, const ir::Op& op) {
  const check::AgentInfo& me = agent_info();
  // step.cpp: hb::retire; the wgmma groups order the agent's lanes, a
  // bulk wait the waiting (leader) thread.
  const bool mma = op.code == OpCode::wgmma_wait;
  s.kind = StepKind::retire;
  s.upto = spec::async_group::wait(mma ? mma_ : bulk_, ev(op.n, 0));
  s.unit = thread(me.hb.unit(mma ? hb::Unit::mma : hb::Unit::bulk));
  s.to = mma ? threads(me.hb.lanes()) : std::vector<int>{thread(me.hb.leader())};
  s.text += " " + std::to_string(ev(op.n, 0)) + " (groups up to " + std::to_string(s.upto) + " complete)";
}

void Unroller::op_cp_async(Step& s, const ir::Op& op, const check::Lanes& l) {
  const check::AgentInfo& me = agent_info();
  // step.cpp: each copy is the cp_async unit's generic-proxy write in
  // the lanes' open cp.async-group.
  s.kind = StepKind::unit_access;
  s.write = true;
  s.async_proxy = false;
  s.spread = l.every ? me.parts + 1 : 0;
  s.unit = thread(me.hb.unit(hb::Unit::cp_async));
  const int group = spec::async_group::issue(cp_);
  unit_parts(s, op, true, false, group);
}

void Unroller::op_cp_async_wait(Step& s, const ir::Op& op) {
  const check::AgentInfo& me = agent_info();
  // step.cpp: wait_all is a commit, then wait_group 0; the retired
  // groups' writes are ordered before the waiting lanes.
  const std::int64_t n = op.code == OpCode::cp_async_wait ? ev(op.n, 0) : 0;
  if (op.code == OpCode::cp_async_wait_all) (void)spec::async_group::commit(cp_);
  s.kind = StepKind::retire;
  s.upto = spec::async_group::wait(cp_, n);
  s.unit = thread(me.hb.unit(hb::Unit::cp_async));
  s.to = s.lanes;
  s.text += " (groups up to " + std::to_string(s.upto) + " complete)";
}

}  // namespace pc::smt::bmc::unrolling
