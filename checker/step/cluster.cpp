// The cluster barrier (PTX ISA barrier.cluster) and cluster launch control (clusterlaunchcontrol).
#include "checker/step/exec.hpp"

namespace pc::check::exec {

Exec::Pc Exec::on_clc_try_cancel(const ir::Op& op, [[maybe_unused]] const Lanes& l) {
  const std::uint8_t leader = issuer(l);
  // clusterlaunchcontrol.try_cancel (spec/clc.hpp): the response is an
  // async-proxy write of the agent's TMA unit into each destination
  // CTA's buffer, completing 16 bytes of tx on its barrier when it lands.
  // Both answers are left pending; the first to land decides.
  if (const Violation v = spec::clc::issue(s_.clc, me_.cta); v != Violation::none)
    stop(v, me_.name + " issues clusterlaunchcontrol.try_cancel after its CTA observed a response that reported a failure");
  // The request's name: the smallest number no pending request uses, so
  // that equal states stay equal.
  auto taken = [&](std::uint16_t g) {
    return std::any_of(s_.pending.begin(), s_.pending.end(),
                       [&](const Pending& q) { return q.kind == PendingKind::clc_response && q.group == g; });
  };
  std::uint16_t req = 1;
  while (taken(req)) ++req;
  const std::int64_t mask = ev(op.multicast, own_bit());
  std::string where;
  each_selected(mask, [&](int c) {
    if (c != me_.cta) require_alive(c, "a multicast clusterlaunchcontrol.try_cancel");
    const int mbar = mbar_at(op.bar, c);
    const int buf = buf_at(op.bufs.at(0), c);
    require_init_visible(mbar, hb::Proxy::async, hb::bit(leader));
    if (c != me_.cta) require_started(c, hb::bit(leader), "a multicast clusterlaunchcontrol.try_cancel");
    race(unit_access(buf, hb::Kind::write, hb::Proxy::async, hb::bit(leader), hb::Unit::tma, 0, false, false, false,
                     spec::tmem::MmaPart::none, true),
         "try_cancel response into", buf);
    for (const bool canceled : {true, false}) {
      Pending pe{PendingKind::clc_response, static_cast<std::uint8_t>(a_), ag_.pc, static_cast<std::uint16_t>(mbar), buf,
                 spec::clc::response_bytes, false, req, 0, canceled};
      s_.pending.insert(std::upper_bound(s_.pending.begin(), s_.pending.end(), pe), pe);
    }
    if (describe_) where += (where.empty() ? "" : ", ") + p_.buffer_name(buf) + " -> " + p_.mbar_name(mbar);
  });
  SAY("clc_try_cancel " + where + " (in flight)");
  return Pc::next;
}

Exec::Pc Exec::on_clc_query(const ir::Op& op, const Lanes& l) {
  // ld.shared of the response, then query_cancel.is_canceled.
  const ir::Ref& r = op.bufs.at(0);
  access(r, hb::Kind::read, l);
  const int buf = buf_at(r, me_.cta);
  const std::int64_t v = s_.values.empty() ? 0 : s_.values[static_cast<std::size_t>(buf)];
  if (op.dest_var >= 0) vars()[static_cast<std::size_t>(op.dest_var)] = v;
  // "not canceled": the CTA has observed a failure (spec::clc::query).
  s_.clc = spec::clc::query(s_.clc, me_.cta, v != 0);
  SAY(lanes_prefix(op) + "clc_query " + p_.buffer_name(buf) + " -> " + (v ? "canceled (a new tile)" : "not canceled"));
  return Pc::next;
}

// barrier.cluster.arrive / .wait, and the two as one (cluster_sync): the
// arrive releases the lanes (unless .relaxed) and the thread's release
// patterns into the cluster barrier's sync objects; the wait acquires them
// (spec/cluster.hpp, spec::sync_order::cluster_arrive, cluster_pass).
Exec::Pc Exec::cluster_barrier(const ir::Op& op, const Lanes& l, bool arrives, bool waits) {
  auto arrive = [&] {
    const spec::cluster::Result r =
        spec::cluster::arrive(s_.cluster, ag_.cluster_ticket, static_cast<std::uint32_t>(me_.threads), cluster_expected());
    if (r.out.violation != Violation::none)
      stop(r.out.violation, me_.name + " arrives twice at the cluster barrier without waiting");
    // A release unless .relaxed, with the release patterns of the
    // thread's fences (spec::sync_order::cluster_arrive).
    so::cluster_arrive(s_.mem, l.threads, p_.cluster_syncs(me_.cta), op.sem, r.out.phase_completed, fences(),
                       p_.tmem_buffers());
    s_.cluster = r.next;
    ag_.cluster_ticket = r.ticket;
    if (describe_ && r.out.phase_completed) info_.completed = "cluster barrier instance complete";
    SAY(std::string(ir::op_keyword(op.code)) + (op.sem == ir::Sem::relaxed ? " relaxed" : "") + " (arrive)");
  };
  auto pass = [&](bool arrived_now) {
    // cluster_sync is barrier.cluster.arrive then barrier.cluster.wait: its
    // wait is a step of its own, after the arrive even where the arrive
    // completed the instance, so that the arrivals of one instance commute
    // (the last one's wait does not pass in its arrive's step:
    // docs/checker.md, "Reductions").
    if (arrived_now) return false;
    const spec::cluster::Result r = spec::cluster::wait(s_.cluster, ag_.cluster_ticket);
    if (r.out.violation != Violation::none)
      stop(r.out.violation, me_.name + " waits at the cluster barrier without having arrived");
    if (!r.out.enabled) return false;
    ag_.cluster_ticket = r.ticket;
    so::cluster_pass(s_.mem, me_.hb.lanes(), p_.cluster_syncs(me_.cta));
    thread_synchronized();
    if (describe_) SAY(std::string(ir::op_keyword(op.code)) + " resumes");
    return true;
  };
  return split_phase(arrives, waits, arrive, pass);
}

Exec::Pc Exec::on_cluster_arrive(const ir::Op& op, const Lanes& l) { return cluster_barrier(op, l, true, false); }
Exec::Pc Exec::on_cluster_sync(const ir::Op& op, const Lanes& l) { return cluster_barrier(op, l, true, true); }
Exec::Pc Exec::on_cluster_wait(const ir::Op& op, const Lanes& l) { return cluster_barrier(op, l, false, true); }

}  // namespace pc::check::exec
