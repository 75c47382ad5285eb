// One transition of the global state: an agent executes its next instruction,
// or a pending async event completes. Every rule applied here is a call into
// spec/; this file only resolves operands and routes effects.
#pragma once

#include <string>

#include "checker/program.hpp"
#include "checker/state.hpp"
#include "checker/trips.hpp"
#include "spec/violation.hpp"

namespace pc::check {

// An access a step made, recorded only when describing (a trace): the
// threads that made it (lane classes or an async unit), so that a race can
// name the step of its earlier access.
struct AccessNote {
  spec::hb::Threads threads = 0;
  int buf = -1;
  bool write = false;
  spec::hb::Proxy proxy = spec::hb::Proxy::generic;
};

struct StepInfo {
  bool enabled = true;
  spec::Violation violation = spec::Violation::none;
  std::string message;        // violation detail (filled only when describing)
  std::string text;           // what happened (filled only when describing)
  std::string completed;      // the barrier whose phase completed, if any (when describing)
  std::string acquired;       // a wait or test that passed with acquire semantics: its mbarrier (when describing)
  spec::Violation warning = spec::Violation::none;  // a warning kind the step raised (spec::is_warning)
  std::string warning_message;
  // A second warning of another kind at the same step (a tcgen05.mma with no
  // tcgen05.fence::after_thread_sync after a barrier that is also
  // mma_not_pipelined), so that neither hides the other.
  spec::Violation warning2 = spec::Violation::none;
  std::string warning2_message;
  ir::Loc loc;
  std::vector<AccessNote> accesses;  // when describing
  // A race (or a warning of a race kind): the buffer of the earlier access (the
  // racing access's own or one it shares bytes with) and that access's thread.
  int race_buf = -1;
  std::uint8_t race_other = 0;
  bool race_other_write = false;
  spec::hb::Proxy race_other_proxy = spec::hb::Proxy::generic;
  // The step read another agent's part of the state (Exec::other): its
  // outcome is not a function of the agent's own part and the parts no
  // agent owns, so StepCache does not keep it.
  bool reads_others = false;
  // Back to a fresh StepInfo's values, keeping the strings' buffers: the
  // search reuses one per thread instead of building and moving one per step.
  void clear();
};

class Stepper {
 public:
  // `strict`: a warning kind stops the step as a violation (--strict).
  // `trips` (--prove): an agent at a gate that N's lower bound does not open
  // does not move (trip_gate_open).
  Stepper(const Program& p, bool describe, bool strict = false, const TripPlan* trips = nullptr);

  // The initial state. The phases each agent last observed per mbarrier
  // (State::last_seen) say only where a trace's wait passed a lapped phase:
  // a describing stepper keeps them, the search's keeps none (its states
  // carry no field it never reads).
  [[nodiscard]] State initial() const;
  // The phases kept per agent in this stepper's states: every mbarrier's
  // when describing, else none (Owners' stride).
  [[nodiscard]] int phases_kept() const { return describe_ ? p_.num_mbars() : 0; }
  // Agent `a` executes its next instruction. Not enabled: the state is unchanged
  // in meaning (the caller discards it).
  [[nodiscard]] StepInfo agent_step(State& s, int a) const;
  // The same, into `info` (cleared first).
  void agent_step(State& s, int a, StepInfo& info) const;
  // Agent `a`, at a choose instruction (an `either`), takes its second way
  // (its agent_step takes the first); not enabled anywhere else.
  void second_way(State& s, int a, StepInfo& info) const;
  // Whether agent `a` is at a choose instruction (its second way may be taken).
  [[nodiscard]] bool at_choice(const State& s, int a) const {
    const AgentState& ag = s.agents[static_cast<std::size_t>(a)];
    const std::vector<Instr>& code = p_.code[static_cast<std::size_t>(p_.agents[static_cast<std::size_t>(a)].role)];
    return !ag.exited && ag.pc < code.size() && code[ag.pc].kind == InstrKind::choose;
  }
  // Pending event `i` (index into s.pending) completes.
  [[nodiscard]] StepInfo pending_step(State& s, int i) const;
  // An async arrival of pe.agent has landed: its sync object is free.
  void free_slot(State& s, const Pending& pe) const;
  // Whether the agent's next step touches only what is its own: its
  // variables and control flow, and with `private_ops` also its fences and its
  // async-group bookkeeping. Such a step is always enabled, never fails and
  // commutes with every other.
  [[nodiscard]] bool next_is_local(const State& s, int a, bool private_ops) const { return next_local(s, a, private_ops) != nullptr; }
  // The agent's next instruction if its step is local (as next_is_local), else null.
  [[nodiscard]] const Instr* next_local(const State& s, int a, bool private_ops) const;
  // Runs `in`, agent a's next instruction, an assignment or control flow (not
  // an operation: is_control), as agent_step would, without describing it.
  void control_step(State& s, int a, const Instr& in) const;
  // True only when agent `a`'s next step is certainly not enabled (it waits
  // on a barrier whose phase or instance has not completed): the search skips
  // it without copying the state. False when unsure.
  [[nodiscard]] bool surely_blocked(const State& s, int a) const;
  // Why agent `a` cannot move (for a deadlock report).
  [[nodiscard]] std::string describe_blocked(const State& s, int a) const;
  // The mbarrier instance agent `a`'s next operation names, if it is an
  // mbarrier wait (-1: none), as describe_blocked reads it.
  [[nodiscard]] int waited_mbar(const State& s, int a) const;
  [[nodiscard]] ir::Loc loc_of(const State& s, int a) const;

  [[nodiscard]] const Program& program() const { return p_; }

 private:
  // What surely_blocked reads of an instruction, decided once per kernel:
  // a wait by parity on an mbarrier of the agent's own CTA at a fixed index
  // (`mbar`: its instance within the CTA), another instruction it looks at
  // (`other`: a wait of another form, a named barrier), or none.
  struct BlockTest {
    enum class Kind : std::uint8_t { none, wait_fixed, other } kind = Kind::none;
    int mbar = 0;
    const ir::Op* op = nullptr;
  };
  // The mbarrier instance `op` (agent a's, with an mbarrier operand) names in its own CTA.
  [[nodiscard]] int bar_of(const State& s, int a, const ir::Op& op) const;
  // surely_blocked's test of the forms `other` names.
  [[nodiscard]] bool surely_blocked_op(const State& s, int a, const ir::Op& op) const;
  // Whether agent a's wait by parity `op` on mbarrier instance m surely blocks.
  [[nodiscard]] bool wait_blocked(const State& s, int a, const ir::Op& op, int m) const;
  // Whether agent a waits at a closed gate of --prove.
  [[nodiscard]] bool gated(const State& s, int a) const { return trips_ != nullptr && !trip_gate_open(*trips_, p_, s, a); }
  const Program& p_;
  bool describe_;
  bool strict_;
  const TripPlan* trips_ = nullptr;  // active plans only
  std::vector<std::vector<BlockTest>> block_tests_;  // per role, per instruction
};

// Throws the InternalError of run_control given an operation (out of line).
[[noreturn]] void not_control();

// Runs agent ag's assignment or control flow `in` (not an operation:
// is_control) on its variables `vars`. Inline, as control_step: the search
// runs one to three of them after most steps.
inline void run_control(const Program& p, AgentState& ag, std::int64_t* vars, const Instr& in) {
  const auto value = [&] { return in.expr == ir::no_expr ? 0 : eval(p, in.expr, vars); };
  switch (in.kind) {
    case InstrKind::assign:
      vars[static_cast<std::size_t>(in.var)] = value();
      ++ag.pc;
      return;
    case InstrKind::jump: ag.pc = static_cast<std::uint16_t>(in.target); return;
    case InstrKind::branch_false:
      ag.pc = value() != 0 ? static_cast<std::uint16_t>(ag.pc + 1) : static_cast<std::uint16_t>(in.target);
      return;
    case InstrKind::assert_true:
    case InstrKind::choose:
    case InstrKind::op: break;
  }
  not_control();
}

inline void Stepper::control_step(State& s, int a, const Instr& in) const {
  run_control(p_, s.agents[static_cast<std::size_t>(a)], s.vars.data() + p_.var_base[static_cast<std::size_t>(a)], in);
  // --prove over nested loops: a pass of the outer loop begins with its own N.
  if (trips_ != nullptr && trips_->shift.nested && in.kind == InstrKind::assign) {
    const auto ai = static_cast<std::size_t>(a);
    const std::vector<Instr>& code = p_.code[static_cast<std::size_t>(p_.agents[ai].role)];
    trip_pass_begins(*trips_, p_, s, ai, static_cast<std::size_t>(&in - code.data()));
  }
}

// Inline: the search asks it after every step, and again after each local
// step it runs.
inline const Instr* Stepper::next_local(const State& s, int a, bool private_ops) const {
  const AgentState& ag = s.agents[static_cast<std::size_t>(a)];
  if (ag.exited) return nullptr;
  const std::vector<Instr>& code = p_.code[static_cast<std::size_t>(p_.agents[static_cast<std::size_t>(a)].role)];
  if (ag.pc >= code.size()) return nullptr;
  const Instr& in = code[ag.pc];
  if (is_control(in.kind)) return gated(s, a) ? nullptr : &in;
  // A member mask (syncwarp mask M, or the full mask by default where some
  // lanes alone execute it) may be wrong (warp_mask_misuse): such a step can
  // fail, so it is not run as a local one.
  return in.kind == InstrKind::op && private_ops && ir::op_private(in.op->code) && in.op->mask == ir::no_expr &&
                 (in.op->code != ir::OpCode::syncwarp || in.op->lanes == ir::Lanes::all)
             ? &in
             : nullptr;
}

}  // namespace pc::check
