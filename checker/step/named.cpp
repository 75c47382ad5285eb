// Named barriers (PTX ISA bar.sync, bar.arrive, bar.red), __syncthreads and __syncwarp.
#include <cstdio>

#include "checker/step/exec.hpp"

namespace pc::check::exec {

// The operands of a named barrier's arrive by `threads` of the agent's
// threads, checked (spec::named::check_operands).
spec::named::ArriveArgs Exec::named_operands(const ir::Op& op, int id, std::int64_t count, int threads) {
  spec::named::ArriveArgs args;
  args.id = id;
  args.count = count;
  args.no_count = ir::named_no_count(op);
  args.sync = op.code == OpCode::bar_sync;
  args.threads = threads;
  args.cta_threads = p_.cta_threads[static_cast<std::size_t>(me_.cta)];
  args.live_threads = live_threads(me_.cta);
  args.red = op.red;
  args.predicate = ev(op.n, 0) != 0;
  args.id0_whole_cta = p_.id0_whole_cta;
  if (Violation v = spec::named::check_operands(args); v != Violation::none)
    stop(v, "named barrier " + std::to_string(id) + " with thread count " + std::to_string(count) + ": " + std::string(spec::violation_doc(v)));
  return args;
}

// An arrive whose thread count differs from the instance's in progress.
void Exec::named_mismatch(Violation v, int id, std::int64_t count, const spec::named::State& st) {
  stop(v, "named barrier " + std::to_string(id) + ": " + me_.name + " arrives with count " + std::to_string(count) + " while " +
              std::to_string(st.arrived) + " of " + std::to_string(st.count) + " threads have arrived");
}

// A named barrier's arrive (spec/named_barrier.hpp, arrive: the operands'
// rules, then the count) releases the agent's lanes into the barrier's sync
// object; its wait passes once the instance the agent joined completes, and
// acquires what the instance released.
Exec::Pc Exec::named(const ir::Op& op, int id, std::int64_t count, bool wait) {
  namespace nb = spec::named;
  const nb::Red red = op.red;
  // The barrier's sync object and state, read once check_operands passed the id.
  auto sync = [&] { return p_.named_sync(me_.cta, id); };
  auto state = [&]() -> nb::State& {
    return s_.named[static_cast<std::size_t>(me_.cta * p_.named_used + p_.named_slot[static_cast<std::size_t>(id)])];
  };
  auto arrive = [&] {
    if (wait) relaxed_wait_acquire(op, id);
    const nb::ArriveArgs args = named_operands(op, id, count, me_.threads);
    nb::State& st = state();
    const nb::Result r = nb::arrive(st, args);
    if (r.out.violation != Violation::none) named_mismatch(r.out.violation, id, count, st);
    // The threads arrived at the instance with this arrive (a completed
    // instance is reset: its count is what arrived).
    const int arrived = st.arrived + me_.threads;
    st = r.next;
    so::barrier_arrive(s_.mem, me_.hb.lanes(), sync(), true, r.out.phase_completed);
    if (describe_ && r.out.phase_completed) info_.completed = "named barrier " + std::to_string(id) + " instance complete";
    SAY(std::string(ir::op_keyword(op.code)) + " " + std::to_string(id) + ", " + std::to_string(count ? count : args.cta_threads) +
        (r.out.phase_completed ? " (completes: " + std::to_string(arrived) + " of " + std::to_string(arrived) + " arrived)"
                               : " (" + std::to_string(arrived) + " arrived)"));
    ag_.ticket = spec::agent::ticket_after_arrive(r.out.observed);
  };
  // The wait is a step of its own after the arrive, even where the arrive
  // completed the instance, so that the arrivals of one instance commute
  // (docs/checker.md, "Counting on a named barrier").
  auto pass = [&](bool arrived_now) {
    if (arrived_now) return false;
    const spec::Outcome o = nb::wait(state(), ag_.ticket, red, me_.threads);
    if (!o.enabled) return false;
    so::barrier_pass_warps(s_.mem, me_.hb.lanes(), sync(), false, me_.hb.per_warp_units());
    thread_synchronized();
    if (op.dest_var >= 0) vars()[static_cast<std::size_t>(op.dest_var)] = o.observed;
    if (describe_ && info_.text.empty()) SAY(std::string(ir::op_keyword(op.code)) + " " + std::to_string(id) + " resumes");
    return true;
  };
  if (me_.warps > 1 && red == nb::Red::none) return named_warps(op, id, count, wait);
  return split_phase(true, wait, arrive, pass);
}

// A named barrier by an agent of several warps (docs/spec.md, "Per-warp
// named-barrier arrivals"): its warps arrive each on their own
// (spec::named::arrive_warps). Where they all fit in the instance in
// progress this is Exec::named's one arrive; where they do not, each step
// arrives the warps up to the one that completes an instance, releasing
// what any that many of the agent's warps surely know (which warps arrive
// first is the hardware's choice), and the agent stays at the instruction
// (AgentState::arrived: the warps arrived so far) until every warp has
// arrived. It then waits for the last instance it joined; after a split
// (AgentState::arrived = warps until it passes) the pass acquires nothing
// (spec::sync_order::barrier_pass_warps).
Exec::Pc Exec::named_warps(const ir::Op& op, int id, std::int64_t count, bool wait) {
  namespace nb = spec::named;
  const int n = me_.warps;
  auto sync = [&] { return p_.named_sync(me_.cta, id); };
  // The barrier's state, read once named_operands passed the id (as in Exec::named).
  auto state = [&]() -> nb::State& {
    return s_.named[static_cast<std::size_t>(me_.cta * p_.named_used + p_.named_slot[static_cast<std::size_t>(id)])];
  };
  bool arrived_now = false;
  if (ag_.stage == 0) {
    arrived_now = true;
    if (wait && ag_.arrived == 0) relaxed_wait_acquire(op, id);
    const int before = ag_.arrived, left = n - before;
    const nb::ArriveArgs args = named_operands(op, id, count, left * (me_.threads / n));
    nb::State& st = state();
    const nb::WarpsResult r = nb::arrive_warps(st, args, left);
    if (r.out.violation != Violation::none) named_mismatch(r.out.violation, id, count, st);
    const bool last = r.warps == left;
    const int arrived = st.arrived + r.warps * (me_.threads / n);
    st = r.next;
    if (last && before == 0) {
      so::barrier_arrive(s_.mem, me_.hb.lanes(), sync(), true, r.out.phase_completed);
    } else {
      hb::Quorum part{me_.all_lanes, me_.hb, false, n - r.warps};
      part.per_warp_units = me_.hb.per_warp_units();
      so::barrier_arrive_part(s_.mem, part, sync(), r.out.phase_completed);
    }
    if (describe_ && r.out.phase_completed) info_.completed = "named barrier " + std::to_string(id) + " instance complete";
    SAY(std::string(ir::op_keyword(op.code)) + " " + std::to_string(id) + ", " + std::to_string(count ? count : args.cta_threads) +
        (last && before == 0 ? "" : ", warps " + std::to_string(before + 1) + ".." + std::to_string(before + r.warps) + " of " + std::to_string(n)) +
        (r.out.phase_completed ? " (completes: " + std::to_string(arrived) + " of " + std::to_string(arrived) + " arrived)"
                               : " (" + std::to_string(arrived) + " arrived)") +
        (last ? "" : "; the other " + std::to_string(left - r.warps) + " warps arrive on the next instance"));
    if (!last) {
      ag_.arrived = static_cast<std::uint16_t>(before + r.warps);
      return Pc::stay;
    }
    ag_.ticket = spec::agent::ticket_after_arrive(r.out.observed);
    ag_.arrived = before == 0 ? 0 : static_cast<std::uint16_t>(n);
    if (!wait) {
      ag_.arrived = 0;
      return Pc::next;
    }
    ag_.stage = spec::agent::after_arrive(true);
  }
  // The wait: a step of its own (as in Exec::named).
  if (arrived_now) return Pc::stay;
  const spec::Outcome o = nb::wait(state(), ag_.ticket, nb::Red::none, me_.threads);
  if (!o.enabled) {
    info_.enabled = false;
    return Pc::stay;
  }
  so::barrier_pass_warps(s_.mem, me_.hb.lanes(), sync(), ag_.arrived != 0, me_.hb.per_warp_units());
  ag_.arrived = 0;
  thread_synchronized();
  if (describe_ && info_.text.empty()) SAY(std::string(ir::op_keyword(op.code)) + " " + std::to_string(id) + " resumes");
  ag_.stage = spec::agent::after_pass();
  return Pc::next;
}

// bar.sync / bar.red / __syncthreads after a .relaxed mbarrier wait: the
// acquire of what the wait observed, by the stance (spec::sync_order::
// bar_sync_acquire), with the bar_sync_acquire warning where it orders
// something.
void Exec::relaxed_wait_acquire(const ir::Op& op, int id) {
  if (so::bar_sync_acquire(s_.mem, me_.hb.lanes(), fences().seen_cta, p_.tmem_buffers()))
    warn(Violation::bar_sync_acquire,
         me_.name + "'s " + std::string(ir::op_keyword(op.code)) + " " + std::to_string(id) +
             " orders what its earlier .relaxed mbarrier wait observed before its later accesses: the PTX ISA makes no "
             "acquire pattern of a relaxed wait and bar.sync (the field relies on it, CCCL's for_each_canceled_block; the "
             "H200 never showed stale data: docs/spec.md \"Stances\"). Wait with .acquire, or put fence_acquire cta after the wait");
}

Exec::Pc Exec::on_bar_sync(const ir::Op& op, [[maybe_unused]] const Lanes& l) {
  return named(op, static_cast<int>(ev(op.id, 0)), ev(op.count, 0), true);
}
Exec::Pc Exec::on_bar_red(const ir::Op& op, const Lanes& l) { return on_bar_sync(op, l); }

Exec::Pc Exec::on_bar_arrive(const ir::Op& op, [[maybe_unused]] const Lanes& l) {
  return named(op, static_cast<int>(ev(op.id, 0)), ev(op.count, 0), false);
}

Exec::Pc Exec::on_syncthreads(const ir::Op& op, [[maybe_unused]] const Lanes& l) {
  return named(op, 0, 0, true);
}

// The member mask of bar.warp.sync and elect.sync against the lanes of each
// warp that execute it (spec::rules::warp_mask).
void Exec::check_warp_mask(const ir::Op& op, const Lanes& l) {
  const std::uint64_t full = (std::uint64_t{1} << ir::warp_size(*p_.kernel)) - 1;
  const std::int64_t mask = ev(op.mask, static_cast<std::int64_t>(full));
  for (int w = 0; w < me_.warps; ++w) {
    const std::uint64_t executing = me_.lanes_in_warp(l.threads, w);
    if (executing == 0) continue;
    if (const Violation v = rules::warp_mask(static_cast<std::uint64_t>(mask), executing); v != Violation::none) {
      char text[64];
      std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(mask));
      const bool outside = (executing & ~static_cast<std::uint64_t>(mask)) != 0;
      char lanes[64];
      std::snprintf(lanes, sizeof lanes, "lanes 0x%llx", static_cast<unsigned long long>(executing));
      stop(v, me_.name + "'s " + std::string(ir::op_keyword(op.code)) + " has member mask " + text + ", but " +
                  (executing == 1 ? "only lane 0" : executing == full ? "every lane" : executing == (full & ~std::uint64_t{1}) ? "every lane but lane 0" : lanes) + " of warp " + std::to_string(w) + (executing == 1 ? " executes it: " : " execute it: ") +
                  (outside ? "an executing lane is not in the mask (\"undefined if the executing thread is not in the membermask\")"
                           : "a lane of the mask never executes it (it waits \"until all threads corresponding to membermask\" "
                             "execute it)") +
                  "; give the mask of exactly the lanes that execute it (0x1 for lane 0 alone, 0xffffffff for the warp, M under 'lanes M:')");
    }
  }
}

Exec::Pc Exec::on_syncwarp(const ir::Op& op, const Lanes& l) {
  // No mask: the full mask, which some lanes alone (`one:`, `rest:`,
  // `lanes M:`) do not match.
  check_warp_mask(op, l);
  rules::syncwarp(s_.mem, me_.hb, l.threads);
  SAY(lanes_prefix(op) + "syncwarp");
  return Pc::next;
}

// elect.sync: the lanes of the mask synchronise and one is elected (the
// model's `one:` lane); it orders no memory (the ISA states no memory
// ordering for it), so only its member mask is checked.
Exec::Pc Exec::on_elect_sync(const ir::Op& op, const Lanes& l) {
  check_warp_mask(op, l);
  SAY(lanes_prefix(op) + "elect.sync");
  return Pc::next;
}

}  // namespace pc::check::exec
