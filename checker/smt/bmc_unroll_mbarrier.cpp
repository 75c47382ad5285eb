// The unrolling of the operations on mbarriers and of plain memory accesses
// (bmc_fragment.hpp): read, write, init, inval, arrive, arrive_expect_tx,
// expect_tx, complete_tx, wait, fence_mbarrier_init.
#include "checker/smt/bmc_unroll.hpp"

#include "spec/mbarrier.hpp"
#include "spec/ordering.hpp"
#include "spec/rules.hpp"
#include "spec/amd.hpp"

namespace pc::smt::bmc::unrolling {

void Unroller::op_access(Step& s, const ir::Op& op, const check::Lanes& l) {
  // A value in shared memory (the explicit search's State::values) steers
  // what comes next: the unrolling follows no value.
  if (op.value != ir::no_expr) refuse(op, "write ... value");
  if (op.code == OpCode::read && op.dest_var >= 0) refuse(op, "r = read");
  const check::AgentInfo& me = agent_info();
  s.kind = StepKind::access;
  s.write = op.code == OpCode::write;
  s.spread = l.every ? me.parts + 1 : 0;
  for (const ir::Ref& r : op.bufs) {
    Step::Part part;
    const int c = cta(r);
    part.buf = buf(r, c);
    part.remote = remote(c);
    if (f_.amd) wave_ = spec::amd::lds_issue(wave_);  // step.cpp, access: an LDS instruction per buffer
    for (const int t : s.lanes) part.events.push_back(event(part.buf, s.write, t, s.spread, false));
    s.text += (s.parts.empty() ? " " : ", ") + f_.buffers[static_cast<std::size_t>(part.buf)];
    s.parts.push_back(part);
  }
}

void Unroller::op_arrive(Step& s, const ir::Op& op, const check::Lanes& l) {
  if (op.no_complete) refuse(op, "arrive nocomplete");
  s.kind = StepKind::arrive;
  const int c = cta(op.bar);
  s.remote = remote(c);
  s.mbar = mbar(op.bar, c);
  end_events(s);
  s.count = spec::rules::per_thread_total(ev(op.count, 1), l.count);
  s.units = check::arrive_units(*p_.kernel, l, agent_info());
  s.sync = spec::ordering::arrive_releases(op.sem);
  const auto scope = op.scope;
  s.into = channel(s.mbar, scope);
  // step.cpp, fence_forward: a fence_mbarrier_init's release (at
  // .cluster scope) goes with the arrive, at the pattern's scope.
  s.forward = channel(s.mbar, spec::ordering::pattern_scope(spec::ordering::Scope::cluster, scope));
  s.text += " " + f_.mbars[static_cast<std::size_t>(s.mbar)] + (op.sem == ir::Sem::relaxed ? " relaxed" : " release") +
            (op.scope == ir::Scope::cluster ? " cluster" : " cta");
  // What mb::arrive checks of its operands, in its order (step.cpp
  // first checks the expect-tx operand as written).
  if (op.code == OpCode::mbar_arrive_expect_tx) {
    const std::int64_t bytes = ev(op.bytes, 0);
    s.text += " bytes " + std::to_string(bytes);
    if (!mb::tx_operand_in_range(bytes)) s.raises = Violation::tx_out_of_range;
    s.tx = spec::rules::per_thread_total(bytes, l.count);
  }
  if (s.raises == Violation::none && (s.count < 1 || s.count > mb::max_count)) s.raises = Violation::bad_arrive_count;
  if (s.raises == Violation::none && !mb::tx_operand_in_range(s.tx)) s.raises = Violation::tx_out_of_range;
  s.text += " (count " + std::to_string(s.count) + ")";
}

void Unroller::op_init(Step& s, const ir::Op& op, const check::Lanes& l) {
  const check::AgentInfo& me = agent_info();
  // mb::init per executing thread, then the init's write of the
  // barrier's memory (step.cpp: hb::overwrite by the leader).
  s.kind = StepKind::init;
  s.mbar = mbar(op.bar);
  s.count = ev(op.count, 1);
  s.twice = l.count > 1;
  if (s.count < 1 || s.count > mb::max_count) s.raises = Violation::bad_init_count;
  Step::Part part;
  part.buf = f_.first_pseudo + s.mbar;
  part.events.push_back(event(part.buf, true, thread(me.hb.leader()), 0, false));
  s.parts.push_back(part);
  s.text += " " + f_.mbars[static_cast<std::size_t>(s.mbar)] + " count " + std::to_string(s.count);
}

void Unroller::op_inval(Step& s, const ir::Op& op, const check::Lanes& l) {
  const check::AgentInfo& me = agent_info();
  s.kind = StepKind::inval;
  s.mbar = mbar(op.bar);
  s.twice = l.count > 1;
  s.text += " " + f_.mbars[static_cast<std::size_t>(s.mbar)];
  // step.cpp, mbar_memory_write: where data is laid over the
  // barrier, the inval is a write of its memory by the leader.
  const int pseudo = f_.first_pseudo + s.mbar;
  if (!f_.aliases[static_cast<std::size_t>(pseudo)].empty()) {
    Step::Part part;
    part.buf = pseudo;
    part.events.push_back(event(pseudo, true, thread(me.hb.leader()), 0, false));
    s.parts.push_back(part);
  }
}

void Unroller::op_expect_tx(Step& s, const ir::Op& op, const check::Lanes& l) {
  s.kind = StepKind::expect_tx;
  const int c = cta(op.bar);
  s.remote = remote(c);
  s.mbar = mbar(op.bar, c);
  end_events(s);
  s.into = channel(s.mbar, op.scope);  // where its own landing is seen (step.cpp, on_mbar_expect_tx)
  const std::int64_t bytes = ev(op.bytes, 0);
  if (!mb::tx_operand_in_range(bytes)) s.raises = Violation::tx_out_of_range;
  s.tx = spec::rules::per_thread_total(bytes, l.count) * (op.code == OpCode::mbar_complete_tx ? -1 : 1);
  s.text += " " + f_.mbars[static_cast<std::size_t>(s.mbar)] + " bytes " + std::to_string(bytes);
}

void Unroller::op_fence_init(Step& s) {
  s.kind = StepKind::fence_init;
  Agent& ag = current_;
  if (ag.fence_sync < 0) ag.fence_sync = extra_sync();
}

void Unroller::op_wait(Step& s, const ir::Op& op) {
  s.kind = StepKind::wait;
  const int c = cta(op.bar);
  s.mbar = mbar(op.bar, c);
  s.raises = spec::rules::wait_target(c != current_.cta);
  s.parity = static_cast<int>(ev(op.parity, 0) & 1);
  s.sync = spec::ordering::wait_acquires(op.sem);
  s.cluster_scope = spec::rules::acquire_channels(op.scope).cluster_scope_strong;
  s.text += " " + f_.mbars[static_cast<std::size_t>(s.mbar)] + " parity " + std::to_string(s.parity) +
            (op.sem == ir::Sem::relaxed ? " relaxed" : " acquire") + (op.scope == ir::Scope::cluster ? " cluster" : " cta");
}

}  // namespace pc::smt::bmc::unrolling
