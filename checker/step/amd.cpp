// AMD: the workgroup barrier (s_barrier, the gfx12 split barrier), s_waitcnt and loads into LDS.
#include "checker/step/exec.hpp"

namespace pc::check::exec {

// The AMD workgroup barrier (spec/amd.hpp). Its happens-before: the LDS
// operations a wave completed before signalling (s_waitcnt) are visible to the
// waves that pass the wait, which the model draws as a release at the signal
// and an acquire at the wait (docs/spec.md, "AMD").
Exec::Pc Exec::amd_barrier(const ir::Op& op, bool signal, bool wait) {
  namespace amd = spec::amd;
  if (p_.kernel->target != ir::Target::amd)
    throw KernelError(std::string(ir::op_keyword(op.code)) + " needs `target amd`", op.loc);
  amd::Barrier& bar = s_.amd[static_cast<std::size_t>(me_.cta)];
  const int sync = p_.named_sync(me_.cta, 0);
  auto arrive = [&] {
    const amd::Result r = amd::signal(bar, ag_.wave);
    if (r.out.violation == Violation::amd_missing_waitcnt)
      stop(r.out.violation, me_.name + " reaches " + std::string(ir::op_keyword(op.code)) +
                                " with LDS operations outstanding: s_waitcnt lgkmcnt(0) first");
    if (r.out.violation != Violation::none)
      stop(r.out.violation, me_.name + " signals the workgroup barrier twice without waiting");
    so::barrier_arrive(s_.mem, me_.hb.lanes(), sync, true, r.out.phase_completed);
    bar = r.barrier;
    ag_.wave = r.wave;
    if (describe_ && r.out.phase_completed) info_.completed = "workgroup barrier instance complete";
    SAY(std::string(ir::op_keyword(op.code)) + " (" + std::to_string(bar.arrived) + " of " + std::to_string(bar.waves) +
        " waves)");
  };
  auto pass = [&](bool signalled_now) {
    const amd::Result r = amd::wait(bar, ag_.wave);
    if (r.out.violation != Violation::none)
      stop(r.out.violation, me_.name + " waits on the split barrier without a preceding s_barrier_signal");
    if (!r.out.enabled) return false;
    ag_.wave = r.wave;
    so::barrier_pass(s_.mem, me_.hb.lanes(), sync);
    if (!signalled_now) SAY(std::string(ir::op_keyword(op.code)) + " resumes");
    return true;
  };
  return split_phase(signal, wait, arrive, pass);
}

Exec::Pc Exec::on_s_barrier(const ir::Op& op, [[maybe_unused]] const Lanes& l) {
  return amd_barrier(op, true, true);
}

Exec::Pc Exec::on_s_barrier_signal(const ir::Op& op, [[maybe_unused]] const Lanes& l) {
  return amd_barrier(op, true, false);
}

Exec::Pc Exec::on_s_barrier_wait(const ir::Op& op, [[maybe_unused]] const Lanes& l) {
  return amd_barrier(op, false, true);
}

Exec::Pc Exec::on_s_waitcnt(const ir::Op& op, [[maybe_unused]] const Lanes& l) {
  // spec/amd.hpp, waitcnt; the gather-to-LDS loads it covers are ordered
  // before the wave's lanes.
  ag_.wave = spec::amd::waitcnt(ag_.wave, waitcnt_operands(p_, op, vars()));
  hb::retire(s_.mem, me_.hb.unit(hb::Unit::cp_async), ag_.wave.vm_done, me_.hb.lanes());
  SAY("s_waitcnt" + (op.n == ir::no_expr ? "" : " vmcnt(" + std::to_string(ev(op.n)) + ")") +
      (op.count == ir::no_expr ? "" : " lgkmcnt(" + std::to_string(ev(op.count)) + ")"));
  return Pc::next;
}

Exec::Pc Exec::on_global_load_lds(const ir::Op& op, const Lanes& l) {
  // A load into LDS, counted by VM_CNT (spec/amd.hpp, vm_issue): its write
  // is the async unit's until an s_waitcnt vmcnt covers it.
  ag_.wave = spec::amd::vm_issue(ag_.wave);
  const int buf = buf_at(op.bufs.at(0), me_.cta);
  race(unit_access(buf, hb::Kind::write, hb::Proxy::generic, l.threads, hb::Unit::cp_async, ag_.wave.vm_issued, l.every),
       "gather-to-LDS load into", buf, l.every);
  SAY(lanes_prefix(op) + "global_load_lds " + p_.buffer_name(buf) + " (vmcnt " +
      std::to_string(spec::amd::vm_outstanding(ag_.wave)) + ")");
  return Pc::next;
}

}  // namespace pc::check::exec
