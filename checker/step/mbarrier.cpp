// mbarrier objects (PTX ISA mbarrier): init, the arrive forms, expect_tx and complete_tx, the waits, inval.
#include "checker/step/exec.hpp"

namespace pc::check::exec {

bool Exec::mbar_arrive(const ir::Op& op, const Lanes& l) {
  const int cta = target_cta(op.bar);
  const bool remote = cta != me_.cta;
  if (remote) require_alive(cta, "a remote mbarrier arrive");
  const int mbar = mbar_at(op.bar, cta);
  require_init_visible(mbar, hb::Proxy::generic, l.threads);
  // The units that arrive each on their own (spec::mbarrier::arrive_units):
  // on NVIDIA each warp's executing threads together, on AMD each lane.
  const bool by_lane = !mb::warp_arrives_as_one(p_.kernel->target == ir::Target::amd);
  const int units = check::arrive_units(*p_.kernel, l, me_);
  const int per_unit = l.count / units;
  mb::ArriveArgs args;
  args.count = ev(op.count, 1) * per_unit;
  args.drop = op.code == OpCode::mbar_arrive_drop;
  args.no_complete = op.no_complete;
  if (op.code == OpCode::mbar_arrive_expect_tx || (args.drop && op.bytes != ir::no_expr)) {
    if (!mb::tx_operand_in_range(ev(op.bytes, 0))) mbar_fail(mbar, Violation::tx_out_of_range);
    args.expect_tx = ev(op.bytes, 0) * per_unit;
  }
  const int before = ag_.arrived, left = units - before;
  mb::State& st = s_.mbars[static_cast<std::size_t>(mbar)];
  const mb::Token tok = mb::token_before(st);
  const mb::ThreadsResult r = mb::arrive_units(st, args, left, p_.max_unit_arrival > args.count);
  if (r.out.violation != Violation::none) mbar_fail(mbar, r.out.violation);
  // The barrier's own rules first: an init not ordered before the use, or not
  // made yet, is the finding (an init known implies the start known).
  if (remote) {
    require_started(cta, l.threads, "a remote mbarrier arrive");
    remote_operation(cta, l.threads, so::mbar_release_sync(mbar_channels(p_, mbar), op.scope, true));
  }
  st = r.next;
  const bool last = r.arrived == left;
  if (last && (me_.warps == 1 || me_.every_warp(l.threads))) {
    so::mbar_arrive(s_.mem, l.threads, mbar_channels(p_, mbar), op.sem, op.scope, remote, fences(), p_.tmem_buffers());
  } else if (last) {
    // Some of a multi-warp agent's warps (`one:`, `warp K:`): what they know,
    // but not the accesses of the agent's units that are each warp's own
    // (tcgen05.ld/st, cp.async: hb::Quorum::per_warp_units), which a wait by
    // every warp orders before every lane while the warps left out may not
    // have issued theirs yet.
    hb::Quorum some{l.threads, me_.hb, false, 0};
    some.per_warp_units = me_.hb.per_warp_units();
    so::mbar_arrive(s_.mem, some, mbar_channels(p_, mbar), op.sem, op.scope, remote, fences(), p_.tmem_buffers());
  } else {
    // Any r.arrived of the instruction's units arrive on this phase (and,
    // where the part stopped short, the next one too): what each such part
    // surely releases (hb::Quorum). Another unit may complete the phase
    // where the part stopped; that phase then holds one unit fewer than
    // released here, as when that unit had arrived first, which the search
    // explores too and releases for exactly.
    hb::Quorum part{l.threads, me_.hb, by_lane, units - r.arrived - (r.stopped ? 1 : 0)};
    part.per_warp_units = me_.hb.per_warp_units();
    so::mbar_arrive(s_.mem, part, mbar_channels(p_, mbar), op.sem, op.scope, remote, fences(), p_.tmem_buffers());
  }
  if (r.out.phase_completed) phase_done(mbar);
  ag_.arrived = last ? 0 : static_cast<std::uint16_t>(before + r.arrived);
  // The state token: the phase the first part arrived on (a thread of a
  // later part holds the next phase's; the agent's variable is one).
  if (op.dest_var >= 0 && before == 0) {
    mb::Token held = tok;
    held.no_complete = args.no_complete;
    if (!p_.token_pending) held.pending = 0;  // nothing reads it (Program::token_pending)
    vars()[static_cast<std::size_t>(op.dest_var)] = encode_token(held);
  }
  const auto units_text = [&](int n) { return std::to_string(n) + (by_lane ? " thread" : " warp") + (n == 1 ? "" : "s"); };
  SAY(lanes_prefix(op) + std::string(ir::op_keyword(op.code)) + " " + p_.mbar_name(mbar) + scope_text(op, true) + " count " +
      std::to_string(args.count * r.arrived) + (args.expect_tx ? " tx " + std::to_string(args.expect_tx * r.arrived) : "") +
      (last && before == 0 ? "" : std::string(by_lane ? ", threads " : ", warps ") + std::to_string(before + 1) + ".." +
                                      std::to_string(before + r.arrived) + " of " + std::to_string(units)) +
      " (pending " + std::to_string(tok.pending) + " -> " +
      // A completed phase reloads the pending count: the arrive took it to 0.
      (r.out.phase_completed ? "0, phase " + std::to_string(r.next.phase - 1) + " completes" : std::to_string(r.next.pending)) +
      (last ? ")"
            : "; the other " + units_text(left - r.arrived) + " arrive" + (left - r.arrived == 1 ? "s " : " ") +
                  (r.stopped ? "next, the first of them completing the phase)" : "on the next phase)")));
  return last;
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
    // The channels the wait acquires (or, relaxed, observes for a later
    // fence), and the scope_cta_acquire stance's warning where it orders
    // something only by the stance (spec::sync_order::mbar_wait).
    thread_synchronized();
    const so::MbarAcquire acq = so::mbar_wait(mbar_channels(p_, mbar), op.sem, op.scope);
    if (describe_ && acq.acquires) info_.acquired = p_.mbar_name(mbar);
    if (const Violation v = so::mbar_wait_stance(s_.mem, l.threads, acq, p_.ctas > 1 ? p_.end_buffer(0) : -1); v != Violation::none)
      warn(v, me_.name + "'s " + std::string(ir::op_keyword(op.code)) + " on " + p_.mbar_name(mbar) +
                  " at .cta scope acquires what another CTA released at .cluster scope (a remote arrive, st.async, "
                  "red.async or a TMA load's complete-tx), which the ISA does not make synchronize (the H100 orders it; docs/spec.md \"Stances\"): "
                  "wait with .acquire.cluster");
    so::mbar_wait_passes(s_.mem, l.threads, acq, fences(), p_.tmem_buffers());
  }
  if (op.dest_var >= 0) vars()[static_cast<std::size_t>(op.dest_var)] = o.observed;
  SAY(lanes_prefix(op) + std::string(ir::op_keyword(op.code)) + " " + p_.mbar_name(mbar) +
      (by_token ? " token" : " parity " + std::to_string(ev(op.parity, 0))) + scope_text(op, false) + " -> " +
      (o.observed ? "complete" : "not complete") + " (barrier at phase " + std::to_string(st.phase) + ")" + lapped);
}

Exec::Pc Exec::on_mbar_init(const ir::Op& op, const Lanes& l) {
  const std::uint8_t leader = issuer(l);
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
  return Pc::next;
}

Exec::Pc Exec::on_mbar_arrive(const ir::Op& op, const Lanes& l) { return mbar_arrive(op, l) ? Pc::next : Pc::stay; }
Exec::Pc Exec::on_mbar_arrive_drop(const ir::Op& op, const Lanes& l) { return on_mbar_arrive(op, l); }
Exec::Pc Exec::on_mbar_arrive_expect_tx(const ir::Op& op, const Lanes& l) { return on_mbar_arrive(op, l); }

Exec::Pc Exec::on_mbar_expect_tx(const ir::Op& op, const Lanes& l) {
  const int cta = target_cta(op.bar);
  if (cta != me_.cta) require_alive(cta, "a remote mbarrier operation");
  const int mbar = mbar_at(op.bar, cta);
  require_init_visible(mbar, hb::Proxy::generic, l.threads);
  mb::State& st = s_.mbars[static_cast<std::size_t>(mbar)];
  if (!mb::tx_operand_in_range(ev(op.bytes, 0))) mbar_fail(mbar, Violation::tx_out_of_range);
  const std::int64_t bytes = rules::per_thread_total(ev(op.bytes, 0), l.count);
  const mb::Result r = op.code == OpCode::mbar_expect_tx ? mb::expect_tx(st, bytes) : mb::complete_tx(st, bytes);
  if (r.out.violation != Violation::none) mbar_fail(mbar, r.out.violation);
  if (cta != me_.cta) {
    require_started(cta, l.threads, "a remote mbarrier operation");
    remote_operation(cta, l.threads, so::mbar_release_sync(mbar_channels(p_, mbar), op.scope, true));
  }
  st = r.next;
  if (r.out.phase_completed) phase_done(mbar);
  SAY(lanes_prefix(op) + std::string(ir::op_keyword(op.code)) + " " + p_.mbar_name(mbar) + " bytes " + std::to_string(bytes) +
      " (tx " + std::to_string(st.tx) + ")");
  return Pc::next;
}
Exec::Pc Exec::on_mbar_complete_tx(const ir::Op& op, const Lanes& l) { return on_mbar_expect_tx(op, l); }

Exec::Pc Exec::on_mbar_wait(const ir::Op& op, const Lanes& l) {
  mbar_wait(op, l, true);
  return Pc::next;
}

Exec::Pc Exec::on_mbar_test_wait(const ir::Op& op, const Lanes& l) {
  mbar_wait(op, l, false);
  return Pc::next;
}
Exec::Pc Exec::on_mbar_try_wait(const ir::Op& op, const Lanes& l) { return on_mbar_test_wait(op, l); }

Exec::Pc Exec::on_mbar_pending_count(const ir::Op& op, [[maybe_unused]] const Lanes& l) {
  const std::int64_t v = op.token_var >= 0 ? vars()[static_cast<std::size_t>(op.token_var)] : 0;
  const mb::Token tok = decode_token(v);
  if (const Violation u = mb::check_pending_count(tok); u != Violation::none)
    stop(u, me_.name + " reads pending_count from the state of an arrive without nocomplete (the PTX ISA leaves it undefined)");
  const std::int64_t n = mb::pending_count(tok);
  if (op.dest_var >= 0) vars()[static_cast<std::size_t>(op.dest_var)] = n;
  SAY("pending_count -> " + std::to_string(n));
  return Pc::next;
}

Exec::Pc Exec::on_mbar_inval(const ir::Op& op, const Lanes& l) {
  const std::uint8_t leader = issuer(l);
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
  return Pc::next;
}

Exec::Pc Exec::on_fence_mbarrier_init(const ir::Op& op, const Lanes& l) {
  // fence.mbarrier_init.release.cluster: the thread's prior inits become
  // visible to the async proxy, and are released at cluster scope by the
  // thread's later (even relaxed) arrives (PTX ISA membar/fence:
  // "fence.mbarrier_init is a light-weight fence ... with .release
  // semantics at .cluster scope" for prior mbarrier.init operations).
  so::fence_mbarrier_init(s_.mem, l.threads, p_.num_buffers(), p_.num_buffers() + p_.num_mbars(), fences());
  SAY(lanes_prefix(op) + "fence.mbarrier_init.release.cluster");
  return Pc::next;
}

}  // namespace pc::check::exec
