// Shared-memory accesses, races, and the fences (memory and proxy fences).
#include "checker/step/exec.hpp"

#include <limits>

namespace pc::check::exec {

void Exec::race(const hb::Check& c, const std::string& what, int buf, bool every) {
  if (c.violation == Violation::none && c.warning == Violation::none) return;
  info_.race_buf = c.other_buf;
  info_.race_other = c.other_thread;
  info_.race_other_write = c.other_was_write;
  info_.race_other_proxy = c.other_proxy;
  // Accesses of two buffers that share bytes name both ranges.
  const std::string other = p_.access_name(c.other_thread, c.other_spread != 0);
  const std::string of_other = c.other_buf == buf                 ? ""
                               : c.other_buf >= p_.num_buffers() ? " of " + p_.mem_name(c.other_buf) + " (its mbarrier.init or inval)"
                                                                 : " of " + p_.mem_name(c.other_buf);
  const std::string mine = what + " " + (c.other_buf != buf ? p_.mem_name(buf) : p_.buffer_name(buf)) + " by " +
                           (every ? me_.name : p_.thread_name(c.issuer));
  const Violation v = c.violation != Violation::none ? c.violation : c.warning;
  std::string msg;
  switch (v) {
    case Violation::proxy_race:
      if (static_cast<std::size_t>(buf) < p_.tensormap_buffer.size() && p_.tensormap_buffer[static_cast<std::size_t>(buf)]) {
        const std::string map = p_.buffer_name(buf);
        msg = mine + " (tensormap proxy) is not ordered after the generic write by " + other +
              (c.other_thread == p_.host_thread
                   ? ": the tensormap proxy is not acquired at kernel start (PTX ISA, Memory Consistency Model, "
                     "Synchronizes-with); put 'fence_proxy_tensormap acquire " + map + "' before the copy, in its thread or "
                     "ordered before it"
                   : ": a tensor map written in the generic proxy reaches the tensormap proxy through a release proxy fence "
                     "after the write (fence_proxy_tensormap release, or tensormap_cp_fenceproxy) and an acquire proxy "
                     "fence before the copy ('fence_proxy_tensormap acquire " + map + "'), ordered by happens-before");
        break;
      }
      msg = mine + " (async proxy) is not ordered after the generic write" + of_other + " by " + other +
            (static_cast<std::size_t>(buf) < p_.global_buffer_flag.size() && p_.global_buffer_flag[static_cast<std::size_t>(buf)]
                 ? ": no fence.proxy.async that reaches global memory between them (fence_proxy_async, or "
                   "fence_proxy_async global: the shared_cta and shared_cluster forms order shared memory only)"
                 : ": no fence.proxy.async between them");
      break;
    case Violation::cross_proxy_waw:
      msg = mine + " (async proxy) overwrites the generic write" + of_other + " by " + other +
            ", which is ordered before it in the generic proxy only: no fence.proxy.async between them (the PTX ISA asks "
            "for one; the copy's data always won on the H100: harness test generic_write_then_tma_overwrite)";
      break;
    case Violation::cross_proxy_war:
      msg = mine + " (async proxy) overwrites what " + other + " read" + of_other +
            " through the generic proxy: those reads are not known to be consumed at the release that orders them "
            "before it, and no fence.proxy.async follows them (the H100 returns the new data to loads still in "
            "flight at the release: harness test generic_read_then_tma_overwrite); put fence_proxy_async after the "
            "reads, or `consume` their values before releasing";
      break;
    case Violation::scope_race:
    case Violation::scope_war:
      msg = mine + " is ordered after the earlier " + (c.other_was_write ? "write" : "read") + of_other + " by " + other +
            " only through a release and an acquire in different CTAs whose scopes do not include each other: use "
            "a .release.cluster arrive and an .acquire.cluster wait";
      break;
    default:
      msg = mine + " is not ordered after the earlier " + (c.other_was_write ? "write" : "read") + of_other + " by " + other;
      // A tensor map rewritten while a copy may still read it.
      if (!c.other_was_write && static_cast<std::size_t>(c.other_buf) < p_.tensormap_buffer.size() &&
          p_.tensormap_buffer[static_cast<std::size_t>(c.other_buf)])
        msg += " (a TMA copy reads its tensor map while it is in flight: before rewriting the map, wait for the copy: a "
               "load's mbarrier, or commit_group then wait_group_read in the issuing thread; a store's bulk group)";
      // Two MMAs on different accumulators (spec::tmem::pipelined).
      if (v == Violation::mma_not_pipelined)
        msg += " (two tcgen05.mma are a pipelined pair only on the same accumulator: commit the earlier one and "
               "wait for its mbarrier before this one uses its tensor memory)";
      // Two grids (`grids 2`): only griddepcontrol.wait orders the primary's
      // accesses before the dependent's.
      if (p_.grids > 1)
        for (const AgentInfo& a : p_.agents)
          if (a.hb.owns(c.other_thread) && p_.grid_of(a.cta) != p_.grid_of(me_.cta))
            msg += " (the primary grid's accesses are ordered before the dependent grid's only by a griddep_wait of the "
                   "dependent, directly or through happens-before: put griddep_wait before the access)";
  }
  if (c.violation != Violation::none) stop(c.violation, msg);
  warn(c.warning, msg);
}

void Exec::access(const ir::Ref& r, hb::Kind k, const Lanes& l, bool atomic) {
  const int cta = target_cta(r);
  if (cta != me_.cta) require_peer(cta, l.threads, "a distributed shared memory access");
  const int buf = buf_at(r, cta);
  require_no_live_mbarrier(buf, k, "generic proxy");
  hb::Access acc;
  acc.buf = buf;
  acc.aliases = p_.aliases_of(buf);
  acc.covered = p_.covered_by(buf);
  acc.kind = k;
  acc.atomic = atomic;
  acc.issuers = l.threads;
  acc.partial_units = partial_units(me_, l.threads);
  acc.spread = l.every ? static_cast<std::uint8_t>(me_.parts + 1) : 0;
  if (describe_) info_.accesses.push_back({l.threads, buf, k == hb::Kind::write, hb::Proxy::generic});
  race(hb::access(s_.mem, acc), k == hb::Kind::write ? "write of" : "read of", buf, l.every);
  if (cta != me_.cta) remote_operation(cta, l.threads, -1);
  if (p_.kernel->target == ir::Target::amd) ag_.wave = spec::amd::lds_issue(ag_.wave);
}

Exec::Pc Exec::on_read(const ir::Op& op, const Lanes& l) {
  // An access of several buffers reports a race, or a warning, at the
  // operand it concerns (a PTX front end's run of reads is one step whose
  // operands keep their own lines: checker/ptx/coalesce.hpp).
  const bool several = op.bufs.size() > 1;
  const ir::Loc at = info_.loc;
  ir::Loc keep = at;
  for (const ir::Ref& r : op.bufs) {
    if (several && r.loc.line > 0) info_.loc = r.loc;
    const bool warned = info_.warning != Violation::none;
    access(r, op.code == OpCode::write ? hb::Kind::write : hb::Kind::read, l);
    if (!warned && info_.warning != Violation::none) keep = info_.loc;
  }
  info_.loc = keep;
  // A value stored, or read back: the read returns the last value stored in
  // the interleaving, which is the write it is ordered after, since a read
  // not ordered after a write of its bytes stopped above as a race (a
  // race-free program is sequentially consistent: PTX ISA, Memory
  // Consistency Model, "Axioms": Coherence and Causality order the writes a
  // read may observe).
  if (op.value != ir::no_expr || op.dest_var >= 0) {
    const std::size_t buf = static_cast<std::size_t>(buf_at(op.bufs[0], target_cta(op.bufs[0])));
    if (op.value != ir::no_expr) {
      const std::int64_t v = ev(op.value);
      if (v < 0 || v > std::numeric_limits<std::int32_t>::max())
        throw KernelError("the value stored in " + p_.buffer_name(static_cast<int>(buf)) + " is " + std::to_string(v) +
                              ": a stored value is 0..2^31-1",
                          op.loc);
      s_.values[buf] = static_cast<std::int32_t>(v);
    }
    if (op.dest_var >= 0) vars()[static_cast<std::size_t>(op.dest_var)] = s_.values[buf];
  }
  SAY(lanes_prefix(op) + std::string(ir::op_keyword(op.code)) + " " + buffer_names(op));
  return Pc::next;
}
Exec::Pc Exec::on_write(const ir::Op& op, const Lanes& l) { return on_read(op, l); }

// A strong operation (PTX ISA, Memory Consistency Model, "Strong
// operations": atom, red, and ld/st .relaxed, .acquire, .release,
// .volatile): morally strong with another at a scope that includes both
// threads, which never forms a data race ("Data races": conflicting
// operations that are not morally strong), while it conflicts with a plain
// access as a write (atomic) or a read (atomic_load) does. The model's
// scope is the cluster, so each is at .cluster scope or wider; its ordering
// (.acquire, .release) is not used (docs/spec.md: fewer orderings, so more
// conflicts, none lost).
Exec::Pc Exec::on_atomic(const ir::Op& op, const Lanes& l) {
  for (const ir::Ref& r : op.bufs) access(r, op.code == OpCode::atomic ? hb::Kind::write : hb::Kind::read, l, true);
  SAY(lanes_prefix(op) + std::string(ir::op_keyword(op.code)) + " " + buffer_names(op));
  return Pc::next;
}
Exec::Pc Exec::on_atomic_load(const ir::Op& op, const Lanes& l) { return on_atomic(op, l); }

Exec::Pc Exec::on_consume(const ir::Op& op, const Lanes& l) {
  // The lanes use what their reads of each buffer loaded: those reads are
  // complete from here on (spec::hb::consume).
  for (const ir::Ref& r : op.bufs) hb::consume(s_.mem, buf_at(r, target_cta(r)), l.threads);
  SAY(lanes_prefix(op) + "consume " + buffer_names(op));
  return Pc::next;
}

Exec::Pc Exec::on_fence_acq_rel(const ir::Op& op, const Lanes& l) {
  // fence.acq_rel / fence.sc: a release fence for the thread's later
  // arrives and an acquire fence for what its earlier relaxed waits
  // observed, at the fence's scope (spec::sync_order::fence_acq_rel).
  so::fence_acq_rel(s_.mem, l.threads, op.scope, fences());
  SAY(lanes_prefix(op) + (op.code == OpCode::fence_sc ? "fence.sc." : "fence.acq_rel.") +
      (op.scope == ir::Scope::cluster ? "cluster" : "cta"));
  return Pc::next;
}
Exec::Pc Exec::on_fence_sc(const ir::Op& op, const Lanes& l) { return on_fence_acq_rel(op, l); }

// fence.release / fence.acquire (PTX ISA 8.6): one half of fence.acq_rel
// each, the .sync_restrict forms restricted to shared memory
// (spec::sync_order::fence_release, fence_acquire).
Exec::Pc Exec::on_fence_release(const ir::Op& op, const Lanes& l) {
  const so::CtaMemory own = own_memory();
  so::fence_release(s_.mem, l.threads, op.scope, fences(), op.space == ir::ProxySpace::shared_cta ? &own : nullptr,
                    p_.outside_shared_buffers());
  SAY(lanes_prefix(op) + "fence.release" + (op.space == ir::ProxySpace::shared_cta ? ".sync_restrict::shared::cta" : "") +
      (op.scope == ir::Scope::cluster ? ".cluster" : ".cta"));
  return Pc::next;
}
Exec::Pc Exec::on_fence_acquire(const ir::Op& op, const Lanes& l) {
  const bool restricted = op.space == ir::ProxySpace::shared_cluster;
  so::fence_acquire(s_.mem, l.threads, op.scope, fences(), restricted, p_.outside_shared_buffers());
  SAY(lanes_prefix(op) + "fence.acquire" + (restricted ? ".sync_restrict::shared::cluster" : "") +
      (op.scope == ir::Scope::cluster ? ".cluster" : ".cta"));
  return Pc::next;
}

so::CtaMemory Exec::own_memory() const {
  const int c = me_.cta;
  return {c * p_.buffers_per_cta, (c + 1) * p_.buffers_per_cta, p_.mbar_pseudo_buffer(c * p_.mbars_per_cta),
          p_.mbar_pseudo_buffer((c + 1) * p_.mbars_per_cta), p_.tensormap_buffers(), p_.global_buffers()};
}

// Tensor maps (spec::sync_order, "Tensor maps: the tensormap proxy").
int Exec::tensormap_read(const ir::Op& op, std::uint8_t issuer, hb::Unit unit, std::uint16_t group) {
  if (op.tmap.object < 0) return -1;
  const int buf = buf_at(op.tmap, me_.cta);
  race(unit_access(buf, hb::Kind::read, hb::Proxy::async, hb::bit(issuer), unit, group, false), "tensor-map read of", buf);
  return buf;
}

// fence.proxy.tensormap::generic.release / .acquire [map], 128.
Exec::Pc Exec::on_fence_proxy_tensormap(const ir::Op& op, const Lanes& l) {
  if (op.sem == ir::Sem::release) {
    if (p_.host_thread >= 0)
      so::tensormap_release(s_.mem, l.threads, p_.tensormap_buffers(), static_cast<std::uint8_t>(p_.host_thread));
    SAY(lanes_prefix(op) + "fence.proxy.tensormap::generic.release");
    return Pc::next;
  }
  const int buf = buf_at(op.tmap, me_.cta);
  so::tensormap_acquire(s_.mem, l.threads, buf, static_cast<std::uint8_t>(p_.host_thread));
  SAY(lanes_prefix(op) + "fence.proxy.tensormap::generic.acquire [" + p_.buffer_name(buf) + "], 128");
  return Pc::next;
}

// tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release
// .sync.aligned, which every lane of a warp executes: one copy of the
// 128-byte tensor map per warp, from shared memory to global memory, then the
// release proxy fence, made by the warp's elected lane in the model (the
// other lanes are ordered after neither: a TMA copy of another lane that
// uses the map needs a synchronization, as one of another warp does).
Exec::Pc Exec::on_tensormap_cp_fenceproxy(const ir::Op& op, const Lanes& l) {
  const Lanes copier{l.threads & me_.leader_lanes, 1, false};
  access(op.bufs.at(0), hb::Kind::read, copier);
  access(op.tmap, hb::Kind::write, copier);
  so::tensormap_release(s_.mem, copier.threads, p_.tensormap_buffers(), static_cast<std::uint8_t>(p_.host_thread));
  SAY(lanes_prefix(op) + "tensormap.cp_fenceproxy " + p_.buffer_name(buf_at(op.bufs[0], me_.cta)) + " => " +
      p_.buffer_name(buf_at(op.tmap, me_.cta)));
  return Pc::next;
}

// fence.proxy.async{.space}, and the one-way generic-to-async forms, which
// the model orders as the two-way fence restricted to their state space
// (spec::sync_order::proxy_fence; docs/spec.md, "Happens-before and proxies").
Exec::Pc Exec::on_fence_proxy_async(const ir::Op& op, const Lanes& l) {
  so::proxy_fence(s_.mem, l.threads, op.space, own_memory());
  static const char* const spaces[] = {"", ".global", ".shared::cta", ".shared::cluster"};
  if (op.sem == ir::Sem::release) SAY(lanes_prefix(op) + "fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster");
  else if (op.sem == ir::Sem::acquire)
    SAY(lanes_prefix(op) + "fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster");
  else SAY(lanes_prefix(op) + "fence.proxy.async" + spaces[static_cast<int>(op.space)]);
  return Pc::next;
}

}  // namespace pc::check::exec
