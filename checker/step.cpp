#include "checker/step.hpp"

#include <algorithm>

#include "checker/step/exec.hpp"

namespace pc::check {

// The step's helpers and names (checker/step/exec.hpp).
using namespace exec;  // NOLINT(google-build-using-namespace)

State Stepper::initial() const {
  State s;
  Shape sh;
  sh.agents = p_.agents.size();
  for (std::size_t i = 0; i < p_.agents.size(); ++i)
    sh.vars += p_.kernel->roles[static_cast<std::size_t>(p_.agents[i].role)].vars.size();
  sh.last_seen = p_.agents.size() * static_cast<std::size_t>(phases_kept());
  sh.mbars = static_cast<std::size_t>(p_.num_mbars());
  sh.named = static_cast<std::size_t>(p_.ctas * p_.named_used);
  sh.amd = p_.kernel->target == ir::Target::amd ? static_cast<std::size_t>(p_.ctas) : 0;
  sh.tmem = p_.tmem_decls > 0 ? static_cast<std::size_t>(p_.ctas) : 0;
  sh.values = p_.has_clc || p_.has_values ? static_cast<std::size_t>(p_.num_buffers()) : 0;
  s.reshape(sh);
  for (std::size_t i = 0; i < p_.agents.size(); ++i) {
    const AgentInfo& info = p_.agents[i];
    s.vars[static_cast<std::size_t>(p_.var_base[i] + ir::var_cta)] = info.cta;
    s.vars[static_cast<std::size_t>(p_.var_base[i] + ir::var_instance)] = info.instance;
    s.vars[static_cast<std::size_t>(p_.var_base[i] + ir::var_warp)] = info.warp;
  }
  for (int m = 0; m < p_.num_mbars(); ++m) {
    const std::int64_t count = p_.kernel->mbarriers[static_cast<std::size_t>(p_.mbar_decl(m))].count;
    if (count > 0) {
      const mb::Result r = mb::init(mb::State{}, count);
      if (r.out.violation != Violation::none)
        throw KernelError("mbarrier '" + p_.mbar_name(m) + "': count must be 1..2^20-1",
                          p_.kernel->mbarriers[static_cast<std::size_t>(p_.mbar_decl(m))].loc);
      s.mbars[static_cast<std::size_t>(m)] = r.next;
    }
  }
  for (std::size_t cta = 0; cta < s.amd.size(); ++cta) {
    int waves = 0;
    for (const AgentInfo& a : p_.agents) waves += a.cta == static_cast<int>(cta);
    s.amd[cta] = spec::amd::make_barrier(static_cast<std::uint16_t>(waves));
  }
  s.clc.queue = static_cast<std::uint16_t>(p_.kernel->clc_queue);
  s.mem.buffers = p_.mem_buffers();
  if (p_.ctas > 1)
    for (int c = 0; c < p_.ctas; ++c) {
      int first = -1;
      for (std::size_t a = 0; a < p_.agents.size() && first < 0; ++a)
        if (p_.agents[a].cta == c) first = static_cast<int>(a);
      if (first >= 0)
        so::cta_starts(s.mem, p_.start_buffer(c), p_.agents[static_cast<std::size_t>(first)].hb.leader(), p_.cta_hb_threads(c));
    }
  if (p_.host_thread >= 0) {
    spec::hb::Threads lanes = 0;
    for (const AgentInfo& a : p_.agents) lanes |= a.all_lanes;
    so::tensormaps_at_launch(s.mem, p_.tensormap_buffers(), static_cast<std::uint8_t>(p_.host_thread), lanes);
  }
  return s;
}

void StepInfo::clear() {
  // Every member is reset here: one added must be added here too (the size
  // of the members as they are today on a 64-bit target).
  static_assert(sizeof(void*) != 8 || sizeof(StepInfo) == 256, "StepInfo changed: reset the new member in StepInfo::clear");
  enabled = true;
  violation = Violation::none;
  message.clear();
  text.clear();
  completed.clear();
  acquired.clear();
  warning = Violation::none;
  warning_message.clear();
  warning2 = Violation::none;
  warning2_message.clear();
  loc = ir::Loc{};
  accesses.clear();
  race_buf = -1;
  race_other = 0;
  race_other_write = false;
  race_other_proxy = hb::Proxy::generic;
  reads_others = false;
}

void Stepper::agent_step(State& s, int a, StepInfo& info) const {
  info.clear();
  if (gated(s, a)) {
    info.enabled = false;
    return;
  }
  Exec e(p_, describe_, strict_, s, a, info);
  try {
    e.run();
  } catch (const Stop& st) {
    info.violation = st.v;
    info.message = st.msg;
  }
}

void Stepper::second_way(State& s, int a, StepInfo& info) const {
  info.clear();
  AgentState& ag = s.agents[static_cast<std::size_t>(a)];
  const std::vector<Instr>& code = p_.code[static_cast<std::size_t>(p_.agents[static_cast<std::size_t>(a)].role)];
  if (ag.exited || ag.pc >= code.size() || code[ag.pc].kind != InstrKind::choose || gated(s, a)) {
    info.enabled = false;
    return;
  }
  info.loc = code[ag.pc].loc;
  ag.pc = static_cast<std::uint16_t>(code[ag.pc].target);
  if (describe_) info.text = "either: takes the second way (or:)";
}

StepInfo Stepper::agent_step(State& s, int a) const {
  StepInfo info;
  agent_step(s, a, info);
  return info;
}

// An async arrival's sync object is free again (its release moved to the
// barrier): the agent's others above it are numbered one lower, so that the
// objects in flight are always the first of the agent's pool, in the order
// of their issue (Exec::arrive_slot takes the next). Which landed first then
// names nothing differently: an issue and another's landing commute, as the
// partial-order reduction takes them to (checker/footprint.cpp).
void Stepper::free_slot(State& s, const Pending& pe) const {
  const int end = p_.arrive_slot_first[pe.agent] + p_.arrive_slot_count[pe.agent];
  spec::hb::renumber_down(s.mem, pe.slot, end);
  for (Pending& q : s.pending) q = after_landing(q, pe);
}

StepInfo Stepper::pending_step(State& s, int i) const {
  StepInfo info;
  const Pending pe = s.pending[static_cast<std::size_t>(i)];
  // The tcgen05.commit arrivals of one thread come in the order of the
  // commits (each tracks all prior tcgen05 operations of the thread, PTX ISA
  // tcgen05.commit): a later one waits for the earlier ones.
  if (pe.kind == PendingKind::tcgen05_arrive) {
    std::uint16_t earliest = 0;
    for (const Pending& q : s.pending)
      if (q.kind == PendingKind::tcgen05_arrive && q.agent == pe.agent && (earliest == 0 || q.group < earliest)) earliest = q.group;
    if (!spec::rules::commit_may_land(pe.group, earliest)) {
      info.enabled = false;
      return info;
    }
  }
  // A request's answer: decided by its first response to land (spec/clc.hpp);
  // the other destinations' responses then give the same answer.
  bool decides = false;
  if (pe.kind == PendingKind::clc_response) {
    for (const Pending& q : s.pending)
      decides |= q.kind == PendingKind::clc_response && q.group == pe.group && q.canceled != pe.canceled;
    if (decides && !spec::clc::may_answer(s.clc, pe.canceled)) {
      info.enabled = false;
      return info;
    }
  }
  s.pending.erase(s.pending.begin() + i);
  if (decides) {
    s.clc = spec::clc::decide(s.clc, pe.canceled);
    std::erase_if(s.pending, [&](const Pending& q) {
      return q.kind == PendingKind::clc_response && q.group == pe.group && q.canceled != pe.canceled;
    });
  }
  info.loc = p_.code[static_cast<std::size_t>(p_.agents[pe.agent].role)][pe.pc].loc;
  const int cta = p_.mbar_cta(pe.mbar);
  if (const Violation v = spec::rules::target_alive((s.cta_exited & (1u << cta)) != 0); v != Violation::none) {
    info.violation = v;
    info.message = "an async operation of " + p_.agents[pe.agent].name + " completes on " + p_.mbar_name(pe.mbar) +
                   " after CTA " + std::to_string(cta) + " exited";
    return info;
  }
  mb::State& st = s.mbars[pe.mbar];
  mb::Result r;
  if (pe.kind == PendingKind::st_async) {
    r = mb::complete_tx(st, pe.bytes);
    if (r.out.violation == Violation::none) {
      const bool remote = p_.agents[pe.agent].cta != cta;
      so::st_async_lands(s.mem, pe.slot, mbar_channels(p_, pe.mbar), remote);
      free_slot(s, pe);
    }
  } else if (pe.kind == PendingKind::tma_load) {
    r = mb::complete_tx(st, pe.bytes);
    // Its tensor map (Pending::group: the map's buffer + 1), and whether
    // another load of the agent reading it is still in flight.
    const int map = pe.group > 0 ? pe.group - 1 : -1;
    bool map_read_by_another = false;
    for (const Pending& q : s.pending)
      if (q.kind == PendingKind::tma_load && q.agent == pe.agent && q.group == pe.group) map_read_by_another = true;
    if (r.out.violation == Violation::none)
      so::tma_load_lands(s.mem, pe.buf, p_.agents[pe.agent].hb.unit(hb::Unit::tma), mbar_channels(p_, pe.mbar),
                         p_.agents[pe.agent].cta != cta, map, map_read_by_another);
  } else if (pe.kind == PendingKind::clc_response) {
    r = mb::complete_tx(st, pe.bytes);
    if (r.out.violation == Violation::none)
      so::copy_lands(s.mem, pe.buf, p_.agents[pe.agent].hb.unit(hb::Unit::tma), p_.mbar_sync(pe.mbar));
    if (pe.kind == PendingKind::clc_response) s.values[static_cast<std::size_t>(pe.buf)] = pe.canceled;
  } else {
    so::arrival_lands(s.mem, pe.slot, p_.mbar_sync(pe.mbar));
    free_slot(s, pe);
    r = mb::arrive(st, mb::ArriveArgs{pe.bytes, false, false, 0});
  }
  if (r.out.violation != Violation::none) {
    info.violation =
        spec::rules::uninitialized_use(r.out.violation, p_.mbar_has_init[static_cast<std::size_t>(p_.mbar_decl(pe.mbar))]);
    info.message = "async completion on " + p_.mbar_name(pe.mbar) + ": " + std::string(spec::violation_doc(r.out.violation)) +
                   (pe.kind == PendingKind::tma_load ? " (TMA load of " + std::to_string(pe.bytes) + " bytes)" : "");
    return info;
  }
  st = r.next;
  if (r.out.phase_completed) {
    so::phase_completes(s.mem, p_.mbar_syncs(pe.mbar));
    if (describe_) info.completed = p_.mbar_name(pe.mbar) + " phase " + std::to_string(st.phase - 1) + " complete";
  }
  if (describe_) {
    const std::string who = p_.agents[pe.agent].name;
    switch (pe.kind) {
      case PendingKind::tma_load:
        info.text = "TMA load by " + who + " lands in " + p_.buffer_name(pe.buf) + ": complete_tx " + std::to_string(pe.bytes) +
                    " on " + p_.mbar_name(pe.mbar) + " (tx " + std::to_string(st.tx) + ")";
        break;
      case PendingKind::tcgen05_arrive:
        info.text = "tcgen05 MMAs of " + who + " finish: arrive on " + p_.mbar_name(pe.mbar);
        break;
      case PendingKind::cp_async_arrive:
        info.text = "cp.async copies of " + who + " finish: arrive on " + p_.mbar_name(pe.mbar);
        break;
      case PendingKind::st_async:
        info.text = std::string(p_.code[static_cast<std::size_t>(p_.agents[pe.agent].role)][pe.pc].op->code == OpCode::red_async
                                    ? "red.async"
                                    : "st.async") +
                    " by " + who + " lands in " + p_.buffer_name(pe.buf) + ": complete_tx " + std::to_string(pe.bytes) +
                    " on " + p_.mbar_name(pe.mbar) + " (tx " + std::to_string(st.tx) + ", release cluster)";
        break;
      case PendingKind::clc_response:
        info.text = "try_cancel response of " + who + " lands in " + p_.buffer_name(pe.buf) + " (" +
                    (pe.canceled ? "canceled: a new tile" : "not canceled") + "): complete_tx 16 on " + p_.mbar_name(pe.mbar) +
                    " (tx " + std::to_string(st.tx) + ")";
        break;
    }
  }
  return info;
}

Stepper::Stepper(const Program& p, bool describe, bool strict, const TripPlan* trips)
    : p_(p), describe_(describe), strict_(strict), trips_(trips != nullptr && trips->active ? trips : nullptr) {
  block_tests_.resize(p.code.size());
  for (std::size_t r = 0; r < p.code.size(); ++r)
    for (const Instr& in : p.code[r]) {
      BlockTest t;
      if (in.kind == InstrKind::op) {
        const ir::Op& op = *in.op;
        t.op = &op;
        if (op.code == OpCode::mbar_wait && op.token_var < 0 && op.bar.cta == ir::no_expr && op.bar.object >= 0 &&
            (op.bar.index == ir::no_expr || is_constant(p, op.bar.index))) {
          const ir::MbarrierDecl& d = p.kernel->mbarriers[static_cast<std::size_t>(op.bar.object)];
          // An index that cannot be evaluated, or outside the array, is for
          // the step to report: never surely blocked.
          std::int64_t i = -1;
          try {
            i = op.bar.index == ir::no_expr ? 0 : eval(p, op.bar.index, nullptr);
          } catch (const KernelError&) {
          }
          if (i >= 0 && i < d.size) {
            t.kind = BlockTest::Kind::wait_fixed;
            t.mbar = p.mbar_base[static_cast<std::size_t>(op.bar.object)] + static_cast<int>(i);
          }
        } else if (op.code == OpCode::mbar_wait || ir::op_has(op.code, ir::opf::named_wait)) {
          t.kind = BlockTest::Kind::other;
        }
      }
      block_tests_[r].push_back(t);
    }
}

bool Stepper::surely_blocked(const State& s, int a) const {
  const AgentState& ag = s.agents[static_cast<std::size_t>(a)];
  if (ag.exited || gated(s, a)) return true;
  const AgentInfo& info = p_.agents[static_cast<std::size_t>(a)];
  const std::vector<BlockTest>& tests = block_tests_[static_cast<std::size_t>(info.role)];
  if (ag.pc >= tests.size()) return false;
  const BlockTest& t = tests[ag.pc];
  if (t.kind == BlockTest::Kind::none) return false;
  if (t.kind == BlockTest::Kind::other) return surely_blocked_op(s, a, *t.op);
  // A wait by parity on the CTA's own mbarrier at a fixed index.
  return wait_blocked(s, a, *t.op, info.cta * p_.mbars_per_cta + t.mbar);
}

bool Stepper::wait_blocked(const State& s, int a, const ir::Op& op, int m) const {
  const mb::State& st = s.mbars[static_cast<std::size_t>(m)];
  if (st.status != mb::Status::live) return false;
  // The phase test first (the cheaper one): the init test below decides
  // only where the phase would block. A parity that cannot be evaluated
  // is for the step to report.
  std::int64_t parity = 0;
  try {
    if (op.parity != ir::no_expr) parity = eval(p_, op.parity, s.vars.data() + p_.var_base[static_cast<std::size_t>(a)]);
  } catch (const KernelError&) {
    return false;
  }
  const spec::Outcome o = mb::test_wait_parity(st, static_cast<std::uint32_t>(parity));
  if (o.violation != Violation::none || o.observed != 0) return false;
  // The wait's step would report an init not ordered before it (the
  // same test as Exec::require_init_visible), not block.
  return p_.mbar_memory_written[static_cast<std::size_t>(m)] == 0 ||
         init_use_of(p_, s.mem, m, hb::Proxy::generic, lanes_of(op, p_.agents[static_cast<std::size_t>(a)]).threads) ==
             rules::InitUse::visible;
}

bool Stepper::surely_blocked_op(const State& s, int a, const ir::Op& op) const {
  const AgentState& ag = s.agents[static_cast<std::size_t>(a)];
  const AgentInfo& info = p_.agents[static_cast<std::size_t>(a)];
  const std::int64_t* vars = s.vars.data() + p_.var_base[static_cast<std::size_t>(a)];
  if (op.code == OpCode::mbar_wait) {
    if (op.token_var >= 0 || op.bar.cta != ir::no_expr || op.bar.object < 0) return false;
    const ir::MbarrierDecl& d = p_.kernel->mbarriers[static_cast<std::size_t>(op.bar.object)];
    const std::int64_t i = op.bar.index == ir::no_expr ? 0 : eval(p_, op.bar.index, vars);
    if (i < 0 || i >= d.size) return false;
    return wait_blocked(s, a, op, info.cta * p_.mbars_per_cta + p_.mbar_base[static_cast<std::size_t>(op.bar.object)] + static_cast<int>(i));
  }
  if (!ir::op_has(op.code, ir::opf::named_wait) || ag.stage != spec::agent::waiting) return false;
  const int id = op.code == OpCode::syncthreads ? 0 : static_cast<int>(eval(p_, op.id, vars));
  if (id < 0 || id >= spec::named::num_ids || p_.named_slot[static_cast<std::size_t>(id)] < 0) return false;
  const spec::named::State& st = s.named[static_cast<std::size_t>(info.cta * p_.named_used + p_.named_slot[static_cast<std::size_t>(id)])];
  return !spec::named::wait(st, ag.ticket, spec::named::Red::none, info.threads).enabled;
}

[[gnu::cold, gnu::noinline]] void not_control() { throw InternalError("run_control: not an assignment or control flow"); }


ir::Loc Stepper::loc_of(const State& s, int a) const {
  const AgentState& ag = s.agents[static_cast<std::size_t>(a)];
  const AgentInfo& info = p_.agents[static_cast<std::size_t>(a)];
  const std::vector<Instr>& code = p_.code[static_cast<std::size_t>(info.role)];
  if (ag.pc >= code.size()) return p_.kernel->roles[static_cast<std::size_t>(info.role)].loc;
  return code[ag.pc].loc;
}

int Stepper::bar_of(const State& s, int a, const ir::Op& op) const {
  const AgentInfo& info = p_.agents[static_cast<std::size_t>(a)];
  return p_.mbar_base[static_cast<std::size_t>(op.bar.object)] +
         static_cast<int>(op.bar.index == ir::no_expr ? 0 : eval(p_, op.bar.index, s.vars.data() + p_.var_base[static_cast<std::size_t>(a)])) +
         info.cta * p_.mbars_per_cta;
}

int Stepper::waited_mbar(const State& s, int a) const {
  const AgentState& ag = s.agents[static_cast<std::size_t>(a)];
  const std::vector<Instr>& code = p_.code[static_cast<std::size_t>(p_.agents[static_cast<std::size_t>(a)].role)];
  if (ag.pc >= code.size() || code[ag.pc].kind != InstrKind::op) return -1;
  const ir::Op& op = *code[ag.pc].op;
  if (op.bar.object < 0 || op.code != ir::OpCode::mbar_wait) return -1;
  const int m = bar_of(s, a, op);
  return m >= 0 && m < p_.num_mbars() ? m : -1;
}

std::string Stepper::describe_blocked(const State& s, int a) const {
  const AgentState& ag = s.agents[static_cast<std::size_t>(a)];
  const AgentInfo& info = p_.agents[static_cast<std::size_t>(a)];
  const std::vector<Instr>& code = p_.code[static_cast<std::size_t>(info.role)];
  if (gated(s, a))
    return info.name + " waits for the trip oracle to decide " + p_.kernel->params[static_cast<std::size_t>(trips_->shift.param)].name +
           " or raise its lower bound (line " + std::to_string(code[ag.pc].loc.line) + ")";
  if (ag.pc >= code.size() || code[ag.pc].kind != InstrKind::op) return info.name + " is blocked";
  const ir::Op& op = *code[ag.pc].op;
  std::string what = std::string(ir::op_keyword(op.code));
  if (op.bar.object >= 0) {
    const int m = bar_of(s, a, op);
    if (m >= 0 && m < p_.num_mbars()) {
      const mb::State& st = s.mbars[static_cast<std::size_t>(m)];
      what += " " + p_.mbar_name(m);
      if (op.parity != ir::no_expr) what += " parity " + std::to_string(eval(p_, op.parity, s.vars.data() + p_.var_base[static_cast<std::size_t>(a)]));
      what += " (barrier at phase " + std::to_string(st.phase) + ", pending " + std::to_string(st.pending) + ", tx " +
              std::to_string(st.tx) + ")";
    }
  } else if (op.id != ir::no_expr) {
    what += " " + std::to_string(eval(p_, op.id, s.vars.data() + p_.var_base[static_cast<std::size_t>(a)]));
  } else if (op.code == OpCode::wgmma && ag.stage == spec::agent::waiting) {
    what += " (joined; waits for the other warps of its warp group)";
  } else if (op.cta_pair && op.code != OpCode::tcgen05_mma && op.code != OpCode::tcgen05_commit) {
    if (op.tmem.object >= 0) what += " " + p_.kernel->buffers[static_cast<std::size_t>(op.tmem.object)].name;
    what += " cta_group 2 (CTA " + std::to_string(info.cta) + "'s last collective waits for CTA " + std::to_string(spec::tmem::peer(info.cta)) +
            "'s half, or columns lack)";
  }
  return info.name + " waits at " + what + " (line " + std::to_string(code[ag.pc].loc.line) + ")";
}

}  // namespace pc::check
