// Async copies and their groups: TMA and bulk copies, bulk async-groups, cp.async, st.async and red.async.
#include "checker/step/exec.hpp"

namespace pc::check::exec {

void Exec::retire(Groups& g, std::int64_t n, hb::Unit u, hb::Threads to) {
  hb::retire(s_.mem, me_.hb.unit(u), spec::async_group::wait(g, n), to);
}

Exec::Pc Exec::on_tma_load(const ir::Op& op, [[maybe_unused]] const Lanes& l) {
  const std::uint8_t leader = issuer(l);
  // Its tensor map: read by the TMA unit while the copy is in flight, in the
  // thread's open bulk async-group (Exec::tensormap_read).
  const int map = tensormap_read(op, leader, hb::Unit::tma, static_cast<std::uint16_t>(ag_.bulk.committed + 1));
  const ir::Ref& dst = op.bufs.at(0);
  const std::int64_t mask = ev(op.multicast, own_bit());
  const std::int64_t bytes = ev(op.bytes, p_.kernel->buffers.at(static_cast<std::size_t>(dst.object)).bytes);
  if (const Violation v = rules::bulk_copy_size(bytes); v != Violation::none)
    stop(v, "a TMA load of " + std::to_string(bytes) + " bytes: " + std::string(spec::violation_doc(v)));
  std::string where;
  // The global source (`from`): read by the agent's TMA unit in the async
  // proxy when the copy is issued, ordered after what the issuer knows.
  // The model does not retire this read at the copy's completion: a later
  // write of the source is ordered after it only through griddepcontrol.wait
  // (docs/spec.md, "Global memory").
  if (op.global.object >= 0) {
    const int src = buf_at(op.global, me_.cta);
    race(unit_access(src, hb::Kind::read, hb::Proxy::async, hb::bit(leader), hb::Unit::tma, 0, false), "TMA load from", src);
    if (describe_) where = p_.buffer_name(src) + " => ";
  }
  each_selected(mask, [&](int c) {
    if (c != me_.cta) require_alive(c, "a multicast TMA load");
    const int bar_cta = rules::signalled_cta(c, op.bar.cta == ir::no_expr ? -1 : target_cta(op.bar));
    const int mbar = mbar_at(op.bar, bar_cta);
    const int buf = buf_at(dst, c);
    require_init_visible(mbar, hb::Proxy::async, hb::bit(leader));
    if (c != me_.cta) require_started(c, hb::bit(leader), "a multicast TMA load");
    if (bar_cta != me_.cta && bar_cta != c) require_peer(bar_cta, hb::bit(leader), "a TMA load's complete-tx");
    race(unit_access(buf, hb::Kind::write, hb::Proxy::async, hb::bit(leader), hb::Unit::tma, 0, false, false, false,
                     spec::tmem::MmaPart::none, true),
         "TMA load into", buf);
    Pending pe{PendingKind::tma_load, static_cast<std::uint8_t>(a_), ag_.pc, static_cast<std::uint16_t>(mbar), buf,
               static_cast<std::int32_t>(bytes), false, static_cast<std::uint16_t>(map + 1)};
    s_.pending.insert(std::upper_bound(s_.pending.begin(), s_.pending.end(), pe), pe);
    if (describe_) where += (where.empty() || where.back() == ' ' ? "" : ", ") + p_.buffer_name(buf) + " -> " + p_.mbar_name(mbar);
  });
  SAY("tma_load " + where + " (" + std::to_string(bytes) + " bytes, in flight)");
  return Pc::next;
}

  // cp.reduce.async.bulk.global.shared::cta.bulk_group: for shared memory
  // the same as a TMA store, an async-proxy read of its source (PTX ISA
  // "Proxies": cp{.reduce}.async.bulk operations are performed in the async
  // proxy) in the current bulk async-group (cp.reduce.async.bulk: ".bulk_group
  // ... Bulk async-group based" completion).
Exec::Pc Exec::on_tma_store(const ir::Op& op, [[maybe_unused]] const Lanes& l) {
  const std::uint8_t leader = issuer(l);
  const std::uint16_t group = spec::async_group::issue(ag_.bulk);
  // Its tensor map: read by the bulk unit in the store's group, as its source.
  (void)tensormap_read(op, leader, hb::Unit::bulk, group);
  for (const ir::Ref& r : op.bufs) {
    const int buf = buf_at(r, me_.cta);
    race(unit_access(buf, hb::Kind::read, hb::Proxy::async, hb::bit(leader), hb::Unit::bulk, group, false),
         op.code == OpCode::tma_reduce ? "TMA reduce from" : "TMA store from", buf);
  }
  // The global destination (`to`): written by the bulk unit in the async
  // proxy, in the same bulk async-group; `wait_group` orders the write before
  // the waiting thread, `wait_group.read` only the reads of the source
  // (cp.async.bulk.wait_group: ".read ... until all the bulk async operations
  // in the specified bulk async-group have completed reading from their
  // source locations").
  std::string to;
  if (op.global.object >= 0) {
    const int dst = buf_at(op.global, me_.cta);
    race(unit_access(dst, hb::Kind::write, hb::Proxy::async, hb::bit(leader), hb::Unit::bulk, group, false, false, false,
                     spec::tmem::MmaPart::none, op.code != OpCode::tma_reduce),
         op.code == OpCode::tma_reduce ? "TMA reduce into" : "TMA store into", dst);
    if (describe_) to = " to " + p_.buffer_name(dst);
  }
  SAY(std::string(ir::op_keyword(op.code)) + " " + (op.bufs.empty() ? std::string() : p_.buffer_name(buf_at(op.bufs[0], me_.cta))) + to);
  return Pc::next;
}
Exec::Pc Exec::on_tma_reduce(const ir::Op& op, const Lanes& l) { return on_tma_store(op, l); }

Exec::Pc Exec::on_bulk_commit_group([[maybe_unused]] const ir::Op& op, [[maybe_unused]] const Lanes& l) {
  spec::async_group::commit(ag_.bulk);
  SAY("commit_group");
  return Pc::next;
}

Exec::Pc Exec::on_bulk_wait_group(const ir::Op& op, [[maybe_unused]] const Lanes& l) {
  const std::uint8_t leader = issuer(l);
  // The copies complete on their own: waiting never blocks for ever; what
  // it adds is order from the retired groups to this thread
  // (spec::sync_order::bulk_wait).
  const std::uint16_t upto = spec::async_group::wait(ag_.bulk, ev(op.n, 0));
  so::bulk_wait(s_.mem, me_.hb.unit(hb::Unit::bulk), me_.hb.unit(hb::Unit::tma), upto, hb::bit(leader),
                op.code == OpCode::bulk_wait_group_read);
  SAY(std::string(ir::op_keyword(op.code)) + " " + std::to_string(ev(op.n, 0)));
  return Pc::next;
}
Exec::Pc Exec::on_bulk_wait_group_read(const ir::Op& op, const Lanes& l) { return on_bulk_wait_group(op, l); }

Exec::Pc Exec::on_cp_async(const ir::Op& op, const Lanes& l) {
  // It joins the lanes' open cp.async-group (PTX ISA cp.async.commit_group:
  // "batches all prior cp.async instructions initiated by the executing
  // thread but not committed").
  const std::uint16_t group = spec::async_group::issue(ag_.cp);
  std::string names;
  for (const ir::Ref& r : op.bufs) {
    const int buf = buf_at(r, me_.cta);
    race(unit_access(buf, hb::Kind::write, hb::Proxy::generic, l.threads, hb::Unit::cp_async, group, l.every),
         "cp.async into", buf, l.every);
    if (describe_) names += (names.empty() ? " " : ", ") + p_.buffer_name(buf);
  }
  SAY(lanes_prefix(op) + "cp_async" + names + " (in flight)");
  return Pc::next;
}

  // cp.async.commit_group, cp.async.wait_group N, cp.async.wait_all (=
  // commit_group; wait_group 0): "Writes performed by cp.async operations are
  // made visible to the executing thread only after ... the completion of
  // cp.async.wait_group on the cp.async-group in which the cp.async belongs"
  // (PTX ISA cp.async.wait_group). The copies complete on their own, so the
  // wait never blocks for ever; it orders the retired groups' writes before
  // the waiting lane (the one lane that issued them: the front end requires
  // `one:` on all of them in the role).
Exec::Pc Exec::on_cp_async_commit(const ir::Op& op, [[maybe_unused]] const Lanes& l) {
  spec::async_group::commit(ag_.cp);
  SAY(lanes_prefix(op) + "cp_async_commit");
  return Pc::next;
}

Exec::Pc Exec::on_cp_async_wait(const ir::Op& op, const Lanes& l) {
  const std::int64_t n = op.code == OpCode::cp_async_wait ? ev(op.n, 0) : 0;
  if (op.code == OpCode::cp_async_wait_all) spec::async_group::commit(ag_.cp);
  if (me_.warps > 1) hb::mark_warp_local(s_.mem, me_.hb.unit(hb::Unit::cp_async), l.threads);
  retire(ag_.cp, n, hb::Unit::cp_async, l.threads);
  SAY(lanes_prefix(op) + std::string(ir::op_keyword(op.code)) + (op.code == OpCode::cp_async_wait ? " " + std::to_string(n) : ""));
  return Pc::next;
}
Exec::Pc Exec::on_cp_async_wait_all(const ir::Op& op, const Lanes& l) { return on_cp_async_wait(op, l); }

Exec::Pc Exec::on_cp_async_mbarrier_arrive(const ir::Op& op, const Lanes& l) {
  const int mbar = mbar_at(op.bar, me_.cta);
  require_init_visible(mbar, hb::Proxy::generic, l.threads);
  if (!op.noinc) {
    mb::State& st = s_.mbars[static_cast<std::size_t>(mbar)];
    for (int i = 0; i < l.count; ++i) {
      const mb::Result r = mb::increment_pending(st);
      if (r.out.violation != Violation::none) mbar_fail(mbar, r.out.violation);
      st = r.next;
    }
  }
  // It tracks the cp.async operations issued before it (PTX ISA,
  // cp.async.mbarrier.arrive): what it releases is fixed now, and none of
  // the lanes' own accesses (spec::sync_order::cp_async_arrive_issue).
  Pending pe{PendingKind::cp_async_arrive, static_cast<std::uint8_t>(a_), ag_.pc, static_cast<std::uint16_t>(mbar), -1,
             l.count, op.noinc, 0, arrive_slot(op)};
  so::cp_async_arrive_issue(s_.mem, me_.hb.unit(hb::Unit::cp_async), l.threads, pe.slot);
  s_.pending.insert(std::upper_bound(s_.pending.begin(), s_.pending.end(), pe), pe);
  SAY(lanes_prefix(op) + "cp_async_arrive " + p_.mbar_name(mbar) + (op.noinc ? " noinc" : ""));
  return Pc::next;
}

Exec::Pc Exec::on_st_async(const ir::Op& op, const Lanes& l) {
  // st.async / red.async into CTA c's shared memory (spec/ordering.hpp,
  // st_async_release_scope): each executing thread's store (red.async:
  // atomic reduction) is a generic-proxy write in flight, made by the
  // agent's TMA unit (its writes into shared memory that land later);
  // when it lands it completes its bytes on the barrier in c, releasing
  // at .cluster scope the write and what the issuers knew at the issue
  // (held until then in a sync object of the agent's arrival pool).
  const bool red = op.code == OpCode::red_async;
  const int cta = target_cta(op.bar);
  if (red && !rules::red_async_target_valid(cta, me_.cta))
    throw KernelError("red_async into the issuing CTA's own shared memory is undefined (PTX ISA red.async: the CTA of the "
                      "destination is \"different from the CTA of the executing thread\")",
                      op.loc);
  if (cta != me_.cta) require_alive(cta, red ? "red.async" : "st.async");
  const int buf = buf_at(op.bufs.at(0), cta);
  const int mbar = mbar_at(op.bar, cta);
  require_init_visible(mbar, hb::Proxy::generic, l.threads);
  if (cta != me_.cta) require_started(cta, l.threads, red ? "red.async" : "st.async");
  const std::int64_t per = ev(op.bytes, 0);
  if (!(red ? rules::red_async_bytes_valid(per) : rules::st_async_bytes_valid(per)))
    throw KernelError(std::string(red ? "red_async reduces 4 or 8" : "st_async stores 4, 8 or 16") + " bytes per thread, not " +
                          std::to_string(per),
                      op.loc);
  const std::uint8_t unit = me_.hb.unit(hb::Unit::tma);
  race(unit_access(buf, hb::Kind::write, hb::Proxy::generic, l.threads, hb::Unit::tma, 0, l.every, false, red),
       red ? "red.async into" : "st.async into", buf, l.every);
  Pending pe{PendingKind::st_async, static_cast<std::uint8_t>(a_), ag_.pc, static_cast<std::uint16_t>(mbar), buf,
             static_cast<std::int32_t>(rules::per_thread_total(per, l.count)), false, 0, arrive_slot(op)};
  so::st_async_issue(s_.mem, l.threads, buf, unit, pe.slot);
  s_.pending.insert(std::upper_bound(s_.pending.begin(), s_.pending.end(), pe), pe);
  SAY(lanes_prefix(op) + (red ? "red_async " : "st_async ") + p_.buffer_name(buf) + " -> " + p_.mbar_name(mbar) + " (" +
      std::to_string(pe.bytes) + " bytes, in flight)");
  return Pc::next;
}
Exec::Pc Exec::on_red_async(const ir::Op& op, const Lanes& l) { return on_st_async(op, l); }

}  // namespace pc::check::exec
