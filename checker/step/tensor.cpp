// The tensor cores: wgmma and its groups (sm_90a), tcgen05 and tensor memory (sm_100a).
#include "checker/step/exec.hpp"

namespace pc::check::exec {

// A tensor-memory access by async unit `u` of this agent: the allocation must
// be live (spec::tmem::use), and the access ordered after its tcgen05.alloc:
// the alloc is a write by the allocating agent's lanes, the only lane writes
// tensor memory has, so a conflict with a lane's write is `tmem_unallocated`.
// Every other conflict is a race of the hb rules (spec/hb.hpp).
void Exec::tmem_access(const ir::Ref& r, int cta, hb::Kind k, hb::Threads issuers, hb::Unit u, std::uint16_t group,
                       const std::string& what, spec::tmem::Async op, spec::tmem::MmaPart part) {
  const int buf = buf_at(r, cta);
  const int slot = p_.tmem_slot[static_cast<std::size_t>(r.object)];
  if (const Violation v = spec::tmem::use(s_.tmem[static_cast<std::size_t>(cta)], slot); v != Violation::none)
    stop(v, what + " " + p_.buffer_name(buf) + " by " + me_.name + ": the tensor memory is not allocated (no tcgen05.alloc " +
                "of it is live)");
  const hb::Check c = unit_access(buf, k, hb::Proxy::generic, issuers, u, group, false, spec::tmem::after_own_unit(op), false, part);
  if (c.violation != Violation::none) {
    for (const AgentInfo& other : p_.agents)
      if (spec::tmem::conflict(c.other_was_write && other.hb.is_lane(c.other_thread)) != Violation::none) {
        info_.race_buf = buf;
        info_.race_other = c.other_thread;
        info_.race_other_write = true;
        stop(Violation::tmem_unallocated, what + " " + p_.buffer_name(buf) + " by " + p_.thread_name(c.issuer) +
                                              " is not ordered after the tcgen05.alloc by " + other.name +
                                              " (publish the address: a barrier, then tcgen05.fence::after_thread_sync)");
      }
  }
  race(c, what, buf);
}

// tcgen05.alloc / tcgen05.dealloc of a whole `tmem` declaration by one warp
// (spec/tmem.hpp). The alloc writes the allocation (as mbarrier.init writes
// its barrier: hb::overwrite by the warp's leader, which the warp's other
// lanes wait for, .sync.aligned); the dealloc must come after every access
// of it: a write of the warp's lanes whose conflicts are `tmem_dealloc_in_use`.
void Exec::tmem_alloc(const ir::Op& op, const Lanes& l, bool alloc) {
  const ir::BufferDecl& d = p_.kernel->buffers.at(static_cast<std::size_t>(op.tmem.object));
  const int slot = p_.tmem_slot[static_cast<std::size_t>(op.tmem.object)];
  const std::int64_t cols = d.cols * d.size;
  spec::tmem::Cta& t = s_.tmem[static_cast<std::size_t>(me_.cta)];
  const spec::tmem::Result r = alloc ? spec::tmem::alloc(t, slot, cols) : spec::tmem::dealloc(t, slot, cols);
  if (r.out.violation != Violation::none)
    stop(r.out.violation, alloc ? (t.relinquished ? me_.name + " allocates " + d.name + " after its CTA relinquished the permit to allocate"
                                   : spec::tmem::grows(t, cols)
                                       ? me_.name + " allocates " + std::to_string(cols) + " columns for " + d.name +
                                             " after its CTA allocated " + std::to_string(t.last_cols) +
                                             " (PTX ISA tcgen05.alloc: the number of columns allocated should not increase "
                                             "between any two allocations in the execution order within the CTA)"
                                       : me_.name + " allocates " + d.name + ", which is already allocated")
                                : me_.name + " deallocates " + d.name + ", which is not allocated");
  if (!r.out.enabled) {
    info_.enabled = false;  // blocks until enough columns are free
    return;
  }
  tmem_alloc_memory(op.tmem.object, me_.cta, me_, l.threads, 0, alloc);
  t = r.next;
  SAY(lanes_prefix(op) + (alloc ? "tcgen05_alloc " : "tcgen05_dealloc ") + d.name + " (" + std::to_string(cols) + " columns; " +
      std::to_string(t.used) + " of " + std::to_string(spec::tmem::columns) + " in use)");
}

// What an alloc or dealloc of declaration `object` does to the memory of CTA
// `cta`, by the warp `by`: the alloc writes the allocation (hb::overwrite by
// the warp's leader, which the other lanes wait for: .sync.aligned; `known`:
// the other warp of a pair collective, which knows it too); the dealloc is a
// write of the warp's lanes, and an access ordered before neither `by` nor
// `known` is `tmem_dealloc_in_use`.
void Exec::tmem_alloc_memory(int object, int cta, const AgentInfo& by, hb::Threads lanes, hb::Threads known, bool alloc) {
  const ir::BufferDecl& d = p_.kernel->buffers.at(static_cast<std::size_t>(object));
  const int first = cta * p_.buffers_per_cta + p_.buffer_base[static_cast<std::size_t>(object)];
  for (int e = 0; e < d.size; ++e) {
    if (!alloc) {
      hb::Access acc;
      acc.buf = first + e;
      acc.kind = hb::Kind::write;
      acc.issuers = lanes;
      acc.partial_units = partial_units(by, lanes);
      hb::Check c = hb::check_only(s_.mem, acc);
      if ((c.violation != Violation::none || c.warning != Violation::none) && known != 0) {
        acc.issuers = known;  // ordered before the other warp of the collective is enough
        const hb::Check k = hb::check_only(s_.mem, acc);
        if (k.violation == Violation::none && (k.warning == Violation::none || c.violation != Violation::none)) c = k;
      }
      if (c.violation != Violation::none) {
        info_.race_buf = first + e;
        info_.race_other = c.other_thread;
        info_.race_other_write = c.other_was_write;
        stop(Violation::tmem_dealloc_in_use, by.name + " deallocates " + p_.buffer_name(first + e) + " while the " +
                                                 (c.other_was_write ? "write" : "read") + " by " + p_.thread_name(c.other_thread) +
                                                 " is not ordered before it" +
                                                 ((acc.partial_units & hb::bit(c.other_thread))
                                                      ? " (each warp's wait orders only its own warp's loads and stores: "
                                                        "a barrier of the warps before the dealloc orders the others')"
                                                      : ""));
      }
      if (c.warning != Violation::none) race(c, "tcgen05.dealloc of", first + e);  // an overwrite ordered only across scopes: scope_war
    }
    hb::overwrite(s_.mem, first + e, issuer(Lanes{lanes}), known);
    hb::order(s_.mem, issuer(Lanes{lanes}), lanes);
  }
}

// A .cta_group::2 alloc, dealloc or relinquish_alloc_permit: a collective of
// one warp in each CTA of the pair, with no rendezvous
// (spec::tmem::pair_issue). The first warp to issue performs it in both
// CTAs (an alloc's or dealloc's write of both CTAs' memory parts, a dealloc
// checking every access of them first) and goes on; the second joins it,
// ordered after that write.
void Exec::tmem_pair(const ir::Op& op, const Lanes& l, spec::tmem::PairOp kind) {
  namespace tm = spec::tmem;
  const bool relinquish = kind == tm::PairOp::relinquish;
  const int object = op.tmem.object;
  const std::string what = std::string(ir::op_keyword(op.code)) +
                           (relinquish ? "" : " " + p_.kernel->buffers.at(static_cast<std::size_t>(object)).name) + " cta_group 2";
  const int peer_cta = tm::peer(me_.cta);
  const std::string peer_name = "CTA " + std::to_string(peer_cta);
  tm::Cta& mine = s_.tmem[static_cast<std::size_t>(me_.cta)];
  tm::Cta& peer = s_.tmem[static_cast<std::size_t>(peer_cta)];
  const int slot = relinquish ? 0 : p_.tmem_slot[static_cast<std::size_t>(object)];
  const ir::BufferDecl* d = relinquish ? nullptr : &p_.kernel->buffers.at(static_cast<std::size_t>(object));
  const std::int64_t cols = d ? d->cols * d->size : 0;
  const bool peer_exited = (s_.cta_exited >> peer_cta & 1u) != 0;
  const tm::PairResult r = tm::pair_issue(mine, peer, peer_exited, kind, slot, cols);
  if (r.out.violation != Violation::none) {
    std::string why;
    if (mine.pair != tm::PairOp::none)
      why = "CTA " + std::to_string(me_.cta) + "'s " + pair_name(mine.pair, mine.pair_which) + " cta_group 2 still waits for " + peer_name +
            "'s half (a dealloc before the peer's alloc completed fails every time: order them, e.g. with a cluster barrier)";
    else if (!r.first)
      why = "the collective it joins is " + peer_name + "'s " + pair_name(peer.pair, peer.pair_which) +
            " cta_group 2 (a pair's collectives match in issue order)";
    else if (peer_exited)
      why = peer_name + " has exited: its warps can no longer issue their half (the issuing warp must make sure they will)";
    else if (kind == tm::PairOp::alloc)
      why = d->name + " is already allocated or a CTA of the pair relinquished the permit or the allocation grows";
    else
      why = d->name + " is not allocated in both CTAs of the pair";
    stop(r.out.violation, me_.name + " issues " + what + ": " + why);
  }
  if (!r.out.enabled) {
    info_.enabled = false;  // this CTA's last collective waits for the peer's half, or columns lack
    return;
  }
  mine = r.mine;
  peer = r.peer;
  const int base = p_.buffer_base[static_cast<std::size_t>(std::max(object, 0))];
  if (!relinquish && r.first) {
    tmem_alloc_memory(object, me_.cta, me_, l.threads, 0, kind == tm::PairOp::alloc);
    tmem_alloc_memory(object, peer_cta, me_, l.threads, 0, kind == tm::PairOp::alloc);
  } else if (!relinquish) {
    // Joined: this warp is ordered after the first warp's write of each part.
    hb::Threads writers = 0;
    for (const AgentInfo& o : p_.agents)
      if (o.cta == peer_cta) writers |= o.hb.lanes();
    for (const int c : {me_.cta, peer_cta})
      for (int e = 0; e < d->size; ++e) hb::learn_write(s_.mem, c * p_.buffers_per_cta + base + e, writers, l.threads);
  }
  ++ag_.pc;
  if (!describe_) return;
  std::string said = what;
  if (r.first) {
    said += " performed in CTAs " + std::to_string(std::min(me_.cta, peer_cta)) + " and " + std::to_string(std::max(me_.cta, peer_cta)) +
            " (first of the pair; " + peer_name + "'s warp joins later, no wait)";
    if (kind == tm::PairOp::alloc) said += ": " + std::to_string(cols) + " columns; " + std::to_string(mine.used) + " of " + std::to_string(tm::columns) + " in use in each";
  } else {
    said += " joins " + peer_name + "'s";
  }
  SAY(said);
}

// "tcgen05_dealloc D" for a collective's op and allocation slot.
std::string Exec::pair_name(spec::tmem::PairOp k, int which) const {
  static const char* const names[] = {"", "tcgen05_alloc", "tcgen05_dealloc", "tcgen05_relinquish_alloc_permit"};
  std::string n = names[static_cast<int>(k)];
  if (k == spec::tmem::PairOp::relinquish) return n;
  for (std::size_t b = 0; b < p_.tmem_slot.size(); ++b)
    if (p_.tmem_slot[b] == which) n += " " + p_.kernel->buffers[b].name;
  return n;
}

// The agents of the warp group of agent `a` in a role split per warp (its
// four warps, `a` among them).
std::vector<int> Exec::warp_group_of(int a) const {
  const AgentInfo& me = p_.agents[static_cast<std::size_t>(a)];
  std::vector<int> g;
  for (std::size_t i = 0; i < p_.agents.size(); ++i) {
    const AgentInfo& o = p_.agents[i];
    if (o.role == me.role && o.cta == me.cta && o.instance == me.instance && o.warp / 4 == me.warp / 4) g.push_back(static_cast<int>(i));
  }
  return g;
}

// wgmma.mma_async in a role split per warp: one operation of the four warps
// of a warp group (PTX ISA wgmma.mma_async: ".sync ... .aligned: all threads
// in the warpgroup must execute the same wgmma.mma_async instruction"; the
// warpgroup performs the MMA collectively). Each warp joins it (stage 1) and
// goes on once all four have joined; the first to go on performs the reads,
// as the MMA unit of the warp group's first warp (the group's MMA is no one
// warp's: which warp goes on first changes no state), after what all four
// warps knew when they joined.
// Each warp's wgmma_wait retires them (above).
Exec::Pc Exec::wgmma_warps(const ir::Op& op) {
  auto join = [&] {
    wgmma_issue(op);
    (void)spec::async_group::issue(ag_.mma);
    ++ag_.collectives;
  };
  auto pass = [&](bool joined_now) {
    bool all = true, first = true;
    hb::Threads issuers = 0;
    for (const int w : warp_group_of(a_)) {
      issuers |= p_.agents[static_cast<std::size_t>(w)].hb.lanes();
      if (w == a_) continue;
      const AgentState& o = all_agents()[static_cast<std::size_t>(w)];
      if (o.collectives < ag_.collectives) all = false;  // not yet joined (or never will: it exited)
      else if (o.collectives > ag_.collectives || o.stage != spec::agent::waiting || o.pc != ag_.pc) first = false;  // it went on: performed
    }
    // The join is a step of its own, the last one's too: the joins
    // commute (none goes on), which the partial-order reduction uses
    // (checker/footprint.cpp, `quiet`).
    if (!all || joined_now) {
      if (joined_now) SAY(all ? "wgmma: joined, the last of its warp group" : "wgmma: joined; waits for the other warps of its warp group");
      return false;
    }
    std::string names;
    if (first) {
      const std::uint16_t group = ag_.mma.issued;
      for (const ir::Ref& r : op.bufs) {
        const int buf = buf_at(r, me_.cta);
        race(unit_access(buf, hb::Kind::read, hb::Proxy::async, issuers, hb::Unit::mma, group, false, false, false,
                         spec::tmem::MmaPart::none, false, warp_group_of(a_).front()),
             "wgmma read of", buf, true);
        if (describe_) names += (names.empty() ? "" : ", ") + p_.buffer_name(buf);
      }
    }
    SAY(first ? "wgmma read " + names + " (the warp group's, all four warps joined)" : std::string("wgmma: all four warps joined; goes on"));
    return true;
  };
  return split_phase(true, true, join, pass);
}

Exec::Pc Exec::on_wgmma_fence([[maybe_unused]] const ir::Op& op, [[maybe_unused]] const Lanes& l) {
  ag_.wgmma_fenced = spec::agent::wgmma_fenced_after_fence();
  ag_.wgmma_regs = spec::agent::regs_after_fence(ag_.wgmma_regs);
  SAY("wgmma_fence");
  return Pc::next;
}

// wgmma_regs: the agent's threads access the accumulator registers of its
// wgmmas, or the A fragments of those that take A from registers; a later
// wgmma that uses them needs a wgmma.fence first (rules::wgmma_issue).
Exec::Pc Exec::on_wgmma_regs(const ir::Op& op, [[maybe_unused]] const Lanes& l) {
  ag_.wgmma_regs = spec::agent::regs_after_access(ag_.wgmma_regs, op.regs);
  SAY(std::string("wgmma_regs ") + (op.regs & spec::agent::regs_acc ? "acc" : "") +
      (op.regs == (spec::agent::regs_acc | spec::agent::regs_a) ? ", " : "") + (op.regs & spec::agent::regs_a ? "a" : ""));
  return Pc::next;
}

// A wgmma.mma_async's issue: a wgmma.fence before the agent's first, and
// between its threads' accesses of the registers this one uses and it
// (PTX ISA wgmma.fence; rules::wgmma_issue).
void Exec::wgmma_issue(const ir::Op& op) {
  const std::uint8_t uses = spec::agent::wgmma_uses(op.regs & spec::agent::regs_a);
  const Violation v = rules::wgmma_issue(ag_.wgmma_fenced, ag_.wgmma_regs, uses);
  if (v == Violation::none) return;
  if (!ag_.wgmma_fenced) stop(v, me_.name + " issues its first wgmma with no wgmma.fence before it");
  const std::uint8_t unfenced = ag_.wgmma_regs & uses;
  const std::string what = unfenced == spec::agent::regs_acc ? "the accumulator registers (wgmma_regs acc)"
                           : unfenced == spec::agent::regs_a ? "the A-fragment registers (wgmma_regs a)"
                                                             : "the accumulator and A-fragment registers (wgmma_regs acc, a)";
  stop(v, me_.name + " issues a wgmma that uses " + what + ", which its threads accessed with no wgmma.fence since (PTX ISA " +
              "wgmma.fence: \"between a register access by a thread in the warpgroup and any wgmma.mma_async instruction that " +
              "accesses the same registers\")");
}

Exec::Pc Exec::on_wgmma(const ir::Op& op, const Lanes& l) {
  if (split_warps()) return wgmma_warps(op);
  wgmma_issue(op);
  const std::uint16_t group = spec::async_group::issue(ag_.mma);
  std::string names;
  for (const ir::Ref& r : op.bufs) {
    const int buf = buf_at(r, me_.cta);
    race(unit_access(buf, hb::Kind::read, hb::Proxy::async, l.threads, hb::Unit::mma, group, false), "wgmma read of", buf,
         true);
    if (describe_) names += (names.empty() ? "" : ", ") + p_.buffer_name(buf);
  }
  SAY("wgmma read " + names);
  return Pc::next;
}

Exec::Pc Exec::on_wgmma_commit([[maybe_unused]] const ir::Op& op, [[maybe_unused]] const Lanes& l) {
  spec::async_group::commit(ag_.mma);
  SAY("wgmma_commit");
  return Pc::next;
}

Exec::Pc Exec::on_wgmma_wait(const ir::Op& op, [[maybe_unused]] const Lanes& l) {
  // The groups' MMAs are the warp group's: in a role split per warp, one
  // warp performed each one's reads (wgmma_warps), and waiting for the
  // group waits for them (the warps' groups go in step: .sync.aligned).
  const std::uint16_t upto = spec::async_group::wait(ag_.mma, ev(op.n, 0));
  hb::retire(s_.mem, me_.hb.unit(hb::Unit::mma), upto, me_.hb.lanes());
  if (split_warps())
    for (const int w : warp_group_of(a_)) hb::retire(s_.mem, p_.agents[static_cast<std::size_t>(w)].hb.unit(hb::Unit::mma), upto, me_.hb.lanes());
  SAY("wgmma_wait " + std::to_string(ev(op.n, 0)));
  return Pc::next;
}

Exec::Pc Exec::on_tcgen05_mma(const ir::Op& op, [[maybe_unused]] const Lanes& l) {
  const std::uint8_t leader = issuer(l);
  tcgen05_issue("tcgen05.mma");
  // The group a later tcgen05.commit closes; no wait_group retires it.
  const auto group = static_cast<std::uint16_t>(ag_.mma.committed + 1);
  std::string names;
  // cta_group 2: the pair's MMA, its tensor memory (A operand, accumulator)
  // split between the two CTAs at the same columns (spec/tmem.hpp).
  const int pair_cta = spec::tmem::peer(me_.cta);
  if (op.cta_pair) require_peer(pair_cta, hb::bit(leader), "a cta_group 2 tcgen05.mma");
  for (const ir::Ref& r : op.bufs) {
    if (p_.tmem_slot[static_cast<std::size_t>(r.object)] >= 0) {  // A in tensor memory
      for (const int c : {me_.cta, pair_cta}) {
        if (c != me_.cta && !op.cta_pair) continue;
        tmem_access(r, c, hb::Kind::read, hb::bit(leader), hb::Unit::mma, group, "tcgen05.mma read of", spec::tmem::Async::mma,
                    spec::tmem::MmaPart::operand);
        if (describe_) names += (names.empty() ? "" : ", ") + p_.buffer_name(buf_at(r, c));
      }
      continue;
    }
    // A pair-CTA MMA (cta_group::2) reads operands in the peer CTA too: `BUF[i] @ c`.
    const int cta = target_cta(r);
    if (cta != me_.cta) require_peer(cta, hb::bit(leader), "a pair-CTA tcgen05.mma");
    const int buf = buf_at(r, cta);
    race(unit_access(buf, hb::Kind::read, hb::Proxy::async, hb::bit(leader), hb::Unit::mma, group, false),
         "tcgen05.mma read of", buf);
    if (describe_) names += (names.empty() ? "" : ", ") + p_.buffer_name(buf);
  }
  // The accumulator D = A*B+D in tensor memory: a write of the MMA unit.
  // An MMA is ordered after the same thread's earlier tcgen05.cp and shifts
  // and the MMAs of the same accumulator ("Pipelined tcgen05 instructions";
  // spec::tmem::pipelined).
  if (op.tmem.object >= 0)
    for (const int c : {me_.cta, pair_cta})
      if (c == me_.cta || op.cta_pair)
        tmem_access(op.tmem, c, hb::Kind::write, hb::bit(leader), hb::Unit::mma, group, "tcgen05.mma write of",
                    spec::tmem::Async::mma, spec::tmem::MmaPart::accumulator);
  SAY("tcgen05_mma read " + names +
      (op.tmem.object >= 0 ? " into " + p_.buffer_name(buf_at(op.tmem, me_.cta)) +
                                 (op.cta_pair ? " and " + p_.buffer_name(buf_at(op.tmem, pair_cta)) : "")
                           : ""));
  return Pc::next;
}

Exec::Pc Exec::on_tcgen05_cp(const ir::Op& op, [[maybe_unused]] const Lanes& l) {
  const std::uint8_t leader = issuer(l);
  // tcgen05.cp: shared memory to tensor memory, asynchronous, tracked by
  // the next tcgen05.commit as an MMA is (PTX ISA tcgen05.cp,
  // tcgen05.commit): the MMA unit's read of the source (async proxy) and
  // write of the destination, in the group the next commit closes.
  tcgen05_issue("tcgen05.cp");
  const auto group = static_cast<std::uint16_t>(ag_.mma.committed + 1);
  const int src = buf_at(op.bufs.at(0), me_.cta);
  race(unit_access(src, hb::Kind::read, hb::Proxy::async, hb::bit(leader), hb::Unit::mma, group, false), "tcgen05.cp read of",
       src);
  tmem_access(op.tmem, me_.cta, hb::Kind::write, hb::bit(leader), hb::Unit::mma, group, "tcgen05.cp write of",
              spec::tmem::Async::cp);
  SAY("tcgen05_cp " + p_.buffer_name(src) + " -> " + p_.buffer_name(buf_at(op.tmem, me_.cta)));
  return Pc::next;
}

// tcgen05.shift.down: the MMA unit shifts the rows of the tensor memory
// (reads and rewrites them: a write), asynchronously, in the group the next
// tcgen05.commit closes; with cta_group 2 in both CTAs of the pair (PTX ISA
// tcgen05.shift; spec/tmem.hpp, after_own_unit).
Exec::Pc Exec::on_tcgen05_shift(const ir::Op& op, const Lanes& l) {
  tcgen05_issue("tcgen05.shift");
  const std::uint8_t leader = issuer(l);
  const auto group = static_cast<std::uint16_t>(ag_.mma.committed + 1);
  const int pair_cta = spec::tmem::peer(me_.cta);
  if (op.cta_pair) require_peer(pair_cta, hb::bit(leader), "a cta_group 2 tcgen05.shift");
  for (const int c : {me_.cta, pair_cta})
    if (c == me_.cta || op.cta_pair)
      tmem_access(op.tmem, c, hb::Kind::write, hb::bit(leader), hb::Unit::mma, group, "tcgen05.shift of", spec::tmem::Async::shift);
  SAY("tcgen05_shift " + p_.buffer_name(buf_at(op.tmem, me_.cta)) +
      (op.cta_pair ? " and " + p_.buffer_name(buf_at(op.tmem, pair_cta)) : "") + " (in flight)");
  return Pc::next;
}

Exec::Pc Exec::on_tcgen05_ld(const ir::Op& op, [[maybe_unused]] const Lanes& l) {
  // Asynchronous: the agent's tensor-memory unit accesses the columns until
  // tcgen05.wait::ld / wait::st (or tcgen05.fence::before_thread_sync)
  // orders the access before the agent's lanes (PTX ISA tcgen05.ld,
  // tcgen05.st, tcgen05.wait).
  const bool ld = op.code == OpCode::tcgen05_ld;
  // `lanes Q`: every warp of the agent addresses quarter Q, which must be
  // its own (spec::tmem::lane_quarter; the parser asks for the placement).
  if (op.quarter != ir::no_expr && me_.warp_rank >= 0) {
    const std::int64_t q = ev(op.quarter);
    for (int w = 0; w < me_.warps; ++w)
      if (const Violation v = spec::tmem::lane_quarter(me_.warp_rank + w, q); v != Violation::none)
        stop(v, std::string(ld ? "tcgen05.ld" : "tcgen05.st") + " by " + me_.name + (me_.warps > 1 ? " (its warp " + std::to_string(w) + ")" : "") +
                    ", whose warp rank % 4 is " + std::to_string((me_.warp_rank + w) % 4) + ", addresses lanes " + std::to_string(32 * q) +
                    ".." + std::to_string(32 * q + 31) + ": a warp reaches only the lanes of its quarter, " +
                    std::to_string(32 * ((me_.warp_rank + w) % 4)) + ".." + std::to_string(32 * ((me_.warp_rank + w) % 4) + 31) +
                    " (PTX ISA, tcgen05 \"Access restrictions\")");
  }
  tcgen05_issue(ld ? "tcgen05.ld" : "tcgen05.st");
  std::string names;
  for (const ir::Ref& r : op.bufs) {
    tmem_access(r, me_.cta, ld ? hb::Kind::read : hb::Kind::write, me_.hb.lanes(), hb::Unit::tmem, 1,
                ld ? "tcgen05.ld of" : "tcgen05.st to", ld ? spec::tmem::Async::ld : spec::tmem::Async::st);
    if (describe_) names += (names.empty() ? "" : ", ") + p_.buffer_name(buf_at(r, me_.cta));
  }
  if (ld) ag_.wgmma_regs = spec::agent::regs_after_tmem_ld(ag_.wgmma_regs);  // its registers too, until tcgen05.wait::ld
  SAY(std::string(ld ? "tcgen05_ld " : "tcgen05_st ") + names + " (in flight)");
  return Pc::next;
}
Exec::Pc Exec::on_tcgen05_st(const ir::Op& op, const Lanes& l) { return on_tcgen05_ld(op, l); }

Exec::Pc Exec::on_tcgen05_wait_ld(const ir::Op& op, [[maybe_unused]] const Lanes& l) {
  const bool ld = op.code == OpCode::tcgen05_wait_ld;
  if (me_.warps > 1) hb::mark_warp_local(s_.mem, me_.hb.unit(hb::Unit::tmem), me_.hb.lanes());
  hb::retire_kind(s_.mem, me_.hb.unit(hb::Unit::tmem), ld ? hb::Kind::read : hb::Kind::write, me_.hb.lanes());
  if (ld) ag_.wgmma_regs = spec::agent::regs_after_wait_ld(ag_.wgmma_regs);
  SAY(ld ? "tcgen05.wait::ld" : "tcgen05.wait::st");
  return Pc::next;
}
Exec::Pc Exec::on_tcgen05_wait_st(const ir::Op& op, const Lanes& l) { return on_tcgen05_wait_ld(op, l); }

// tcgen05_regs: the agent's threads access the registers its tcgen05.ld
// operations write, which they hold only after tcgen05.wait::ld
// (rules::tmem_regs_access).
Exec::Pc Exec::on_tcgen05_regs([[maybe_unused]] const ir::Op& op, [[maybe_unused]] const Lanes& l) {
  if (const Violation v = rules::tmem_regs_access(ag_.wgmma_regs); v != Violation::none)
    stop(v, me_.name + "'s threads use the registers of a tcgen05.ld with no tcgen05.wait::ld since it (PTX ISA tcgen05.wait: "
                       "the wait blocks until the thread's prior tcgen05.ld operations have completed; before, the load may still "
                       "write them)");
  SAY("tcgen05_regs (the loads waited for)");
  return Pc::next;
}

Exec::Pc Exec::on_tcgen05_alloc(const ir::Op& op, [[maybe_unused]] const Lanes& l) {
  if (op.cta_pair) {  // tmem_pair moves the agent on itself
    tmem_pair(op, l, op.code == OpCode::tcgen05_alloc ? spec::tmem::PairOp::alloc : spec::tmem::PairOp::dealloc);
    return Pc::stay;
  }
  tmem_alloc(op, l, op.code == OpCode::tcgen05_alloc);
  return Pc::next;
}
Exec::Pc Exec::on_tcgen05_dealloc(const ir::Op& op, const Lanes& l) { return on_tcgen05_alloc(op, l); }

Exec::Pc Exec::on_tcgen05_relinquish(const ir::Op& op, [[maybe_unused]] const Lanes& l) {
  if (op.cta_pair && !s_.tmem.empty()) {
    tmem_pair(op, l, spec::tmem::PairOp::relinquish);
    return Pc::stay;
  }
  // (A kernel with no `tmem` declaration has no allocation to give up.)
  if (!s_.tmem.empty())
    s_.tmem[static_cast<std::size_t>(me_.cta)] = spec::tmem::relinquish(s_.tmem[static_cast<std::size_t>(me_.cta)]);
  SAY("tcgen05.relinquish_alloc_permit");
  return Pc::next;
}

Exec::Pc Exec::on_tcgen05_commit(const ir::Op& op, [[maybe_unused]] const Lanes& l) {
  const std::uint8_t leader = issuer(l);
  const std::int64_t mask = ev(op.multicast, own_bit());
  const std::uint16_t group = spec::async_group::commit(ag_.mma);
  std::string where;
  each_selected(mask, [&](int c) {
    if (c != me_.cta) require_alive(c, "a multicast tcgen05.commit");
    const int mbar = mbar_at(op.bar, c);
    require_init_visible(mbar, hb::Proxy::async, hb::bit(leader));
    if (c != me_.cta) require_started(c, hb::bit(leader), "a multicast tcgen05.commit");
    // It tracks the tcgen05 operations issued before it (PTX ISA,
    // tcgen05.commit): what it releases is fixed now.
    Pending pe{PendingKind::tcgen05_arrive, static_cast<std::uint8_t>(a_), ag_.pc, static_cast<std::uint16_t>(mbar), -1, 1,
               false, group, arrive_slot(op)};
    so::tcgen05_commit_issue(s_.mem, me_.hb.unit(hb::Unit::mma), hb::bit(leader), group, pe.slot, p_.tmem_buffers());
    s_.pending.insert(std::upper_bound(s_.pending.begin(), s_.pending.end(), pe), pe);
    if (describe_) where += (where.empty() ? "" : ", ") + p_.mbar_name(mbar);
  });
  SAY("tcgen05_commit -> " + where + " (arrives when the MMAs finish)");
  return Pc::next;
}

Exec::Pc Exec::on_tcgen05_fence_after(const ir::Op& op, [[maybe_unused]] const Lanes& l) {
  ag_.tc_synced = spec::agent::synced_after_fence();
  SAY(lanes_prefix(op) + "tcgen05.fence::after_thread_sync");
  return Pc::next;
}

Exec::Pc Exec::on_tcgen05_fence_before(const ir::Op& op, const Lanes& l) {
  // Orders the thread's prior asynchronous tcgen05 operations before its
  // later thread synchronization (PTX ISA tcgen05.fence): its tcgen05.ld
  // and tcgen05.st are ordered before the fencing lanes, so a later
  // release carries them. An MMA's or tcgen05.cp's accesses are ordered
  // by its tcgen05.commit (docs/spec.md, "Tensor memory"), and before a
  // pipelined MMA of another thread by the tcgen05 ordering its later
  // arrives and barriers carry, .relaxed ones included
  // (spec::sync_order::tcgen05_fence_before).
  // The unit of tcgen05.ld (its reads) and tcgen05.st (its writes).
  if (me_.warps > 1) hb::mark_warp_local(s_.mem, me_.hb.unit(hb::Unit::tmem), l.threads);
  for (const auto& [kind, async] : {std::pair{hb::Kind::read, spec::tmem::Async::ld}, std::pair{hb::Kind::write, spec::tmem::Async::st}})
    if (spec::tmem::before_thread_sync_orders(async)) hb::retire_kind(s_.mem, me_.hb.unit(hb::Unit::tmem), kind, l.threads);
  so::tcgen05_fence_before(s_.mem, l.threads, me_.hb.unit(hb::Unit::mma), p_.tmem_buffers());
  SAY(lanes_prefix(op) + "tcgen05.fence::before_thread_sync");
  return Pc::next;
}

}  // namespace pc::check::exec
