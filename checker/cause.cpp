#include "checker/cause.hpp"

#include <algorithm>
#include <string>
#include <tuple>

#include "spec/async_group.hpp"
#include "spec/rules.hpp"

namespace pc::check {
namespace {

using ir::OpCode;

// The operation at `loc` in agent a's code (null: none there, or not an operation).
const ir::Op* op_at(const Program& p, int a, ir::Loc loc) {
  for (const Instr& in : p.code[static_cast<std::size_t>(p.agents[static_cast<std::size_t>(a)].role)])
    if (in.kind == InstrKind::op && in.loc.line == loc.line && in.loc.col == loc.col) return in.op;
  return nullptr;
}

bool arrives(OpCode c) {
  switch (ir::op_phase(c)) {
    case ir::PhaseTerm::arrive:
    case ir::PhaseTerm::arrive_expect_tx:
    case ir::PhaseTerm::cp_async_arrive:
    case ir::PhaseTerm::commit: return true;
    case ir::PhaseTerm::none:
    case ir::PhaseTerm::expect_tx:
    case ir::PhaseTerm::complete_tx:
    case ir::PhaseTerm::copy_tx: return false;
  }
  return false;
}

bool any_arrives(const std::vector<ir::Stmt>& body, int decl) {
  for (const ir::Stmt& s : body) {
    if (s.kind == ir::StmtKind::op && s.op.bar.object == decl && arrives(s.op.code)) return true;
    if (any_arrives(s.body, decl) || any_arrives(s.else_body, decl)) return true;
  }
  return false;
}

// "line 15" or "lines 15, 16", each line once.
std::string lines_of(const std::vector<std::size_t>& lines) {
  std::string out = lines.size() == 1 ? "line " : "lines ";
  for (std::size_t i = 0; i < lines.size(); ++i) out += (i ? ", " : "") + std::to_string(lines[i]);
  return out;
}

template <class Marks>
std::string where(const Marks& marks) {
  std::vector<std::size_t> lines;
  for (const auto& m : marks)
    if (std::find(lines.begin(), lines.end(), static_cast<std::size_t>(m.loc.line)) == lines.end())
      lines.push_back(static_cast<std::size_t>(m.loc.line));
  return lines_of(lines);
}

template <class Marks>
std::int64_t total(const Marks& marks) {
  std::int64_t n = 0;
  for (const auto& m : marks) n += m.amount;
  return n;
}

}  // namespace

bool kernel_arrives_on(const ir::Kernel& k, int decl) {
  for (const ir::Role& r : k.roles)
    if (any_arrives(r.body, decl)) return true;
  return false;
}

Causes::Causes(const Program& p, const State& initial)
    : p_(p),
      last_(initial.mbars.begin(), initial.mbars.end()),
      phases_(initial.mbars.size()),
      issued_(p.agents.size()) {}

void Causes::observe(std::size_t step, int agent, ir::Loc loc, const State& after) {
  for (std::size_t m = 0; m < last_.size(); ++m) {
    const spec::mbarrier::State& was = last_[m];
    const spec::mbarrier::State& now = after.mbars[m];
    if (now == was) continue;
    Phase& ph = phases_[m];
    if (now.phase != was.phase || now.status != was.status) {
      ph = Phase{};
    } else {
      if (now.tx > was.tx) ph.expects.push_back({step, loc, std::int64_t(now.tx) - was.tx});
      if (now.tx < was.tx) ph.delivers.push_back({step, loc, std::int64_t(was.tx) - now.tx});
      if (now.pending < was.pending) ph.arrives.push_back({step, loc, std::int64_t(was.pending) - now.pending});
    }
    last_[m] = now;
  }
  if (agent < 0) return;
  const ir::Op* op = op_at(p_, agent, loc);
  if (op == nullptr) return;
  Issued& is = issued_[static_cast<std::size_t>(agent)];
  const Mark here{step, loc, 0};
  // A remote operation: the CTA-end pseudo-buffer of its target holds a
  // write by this agent that no thread of that CTA knows yet, made now
  // (a newer operation of the same thread replaces the older one's).
  bool remote = op->bar.cta != ir::no_expr;
  for (const ir::Ref& r : op->bufs) remote |= r.cta != ir::no_expr;
  if (p_.ctas > 1 && remote) {
    const AgentInfo& me = p_.agents[static_cast<std::size_t>(agent)];
    for (int c = 0; c < p_.ctas; ++c) {
      if (c == me.cta) continue;
      const int buf = p_.end_buffer(c);
      for (const spec::hb::Event& e : after.mem.events)
        if (e.buf == buf && me.hb.owns(e.thread) && e.after == spec::hb::bit(e.thread)) {
          if (is.remote.size() < static_cast<std::size_t>(p_.ctas)) is.remote.resize(static_cast<std::size_t>(p_.ctas));
          is.remote[static_cast<std::size_t>(c)] = here;
          break;
        }
    }
  }
  switch (op->code) {
    case OpCode::tma_store:
    case OpCode::tma_reduce: is.bulk = here; break;
    case OpCode::wgmma: is.mma = here; break;
    case OpCode::cp_async: is.cp = here; break;
    case OpCode::cp_async_commit:
    case OpCode::cp_async_wait_all:
      if (is.cp.step > 0) is.cp_committed = is.cp;
      break;
    default: break;
  }
}

void Causes::exit_pending(const State& before, int agent, Result& r) const {
  if (r.violation != spec::Violation::exit_with_pending || agent < 0) return;
  const AgentInfo& me = p_.agents[static_cast<std::size_t>(agent)];
  const std::vector<Instr>& code = p_.code[static_cast<std::size_t>(me.role)];
  const std::uint16_t pc = before.agents[static_cast<std::size_t>(agent)].pc;
  const bool exits = pc >= code.size() || (code[pc].kind == InstrKind::op && code[pc].op->code == OpCode::exit);
  if (!exits) return;  // an operation that targets a CTA already gone: located at itself
  // As the CTA's exit checks them (checker/step/exec.cpp, exit_agent): the
  // async groups of its agents, then the operations in flight that target it.
  ir::Loc cause;
  std::size_t step = 0;
  for (std::size_t i = 0; i < p_.agents.size() && step == 0; ++i) {
    if (p_.agents[i].cta != me.cta) continue;
    const AgentState& o = before.agents[i];
    const Issued& is = issued_[i];
    const Mark* m = spec::async_group::in_flight(o.bulk)                ? &is.bulk
                    : spec::async_group::in_flight(o.mma)               ? &is.mma
                    : spec::async_group::committed_in_flight(o.cp)      ? &is.cp_committed
                                                                          : nullptr;
    if (m == nullptr || m->step == 0) continue;
    cause = m->loc;
    step = m->step;
  }
  if (step == 0 && p_.ctas > 1) {
    // The CTA-end rule (step.cpp, remote_operations_done): the agent of the
    // first operation on this CTA that none of its threads knows.
    const spec::hb::Threads mine = p_.cta_hb_threads(me.cta);
    for (const spec::hb::Event& e : before.mem.events) {
      if (e.buf != p_.end_buffer(me.cta) || ((e.after | e.after_weak) & mine) != 0) continue;
      for (std::size_t i = 0; i < p_.agents.size() && step == 0; ++i) {
        const std::vector<Mark>& rm = issued_[i].remote;
        if (!p_.agents[i].hb.owns(e.thread) || rm.size() <= static_cast<std::size_t>(me.cta)) continue;
        const Mark& m = rm[static_cast<std::size_t>(me.cta)];
        if (m.step == 0) continue;
        cause = m.loc;
        step = m.step;
      }
      break;
    }
  }
  if (step == 0) {
    for (const Pending& pe : before.pending) {
      if (p_.mbar_cta(pe.mbar) != me.cta && (pe.buf < 0 || p_.buffer_cta(pe.buf) != me.cta)) continue;
      const AgentInfo& issuer = p_.agents[pe.agent];
      cause = p_.code[static_cast<std::size_t>(issuer.role)][pe.pc].loc;
      break;
    }
  }
  if (cause.line == 0) return;
  r.related.push_back({r.loc, "CTA " + std::to_string(me.cta) + " exits here (" + me.name + ", its last agent to exit)", r.trace.size()});
  r.loc = cause;
}

void Causes::explain(const State& s, int m, Result& r, std::string& why) const {
  const spec::mbarrier::State& b = s.mbars[static_cast<std::size_t>(m)];
  if (b.status != spec::mbarrier::Status::live) return;
  const Phase& ph = phases_[static_cast<std::size_t>(m)];
  const std::string name = p_.mbar_name(m);
  const std::string phase = " of phase " + std::to_string(b.phase);
  if (b.tx != 0) {
    const std::int64_t expected = total(ph.expects), delivered = total(ph.delivers);
    why += "; " + name + "'s tx-count stays at " + std::to_string(b.tx) + ": " + std::to_string(expected) + " bytes expected" +
           (ph.expects.empty() ? "" : " (" + where(ph.expects) + ")") + ", " + std::to_string(delivered) + " delivered" +
           (ph.delivers.empty() ? "" : " (" + where(ph.delivers) + ")");
    for (const Mark& e : ph.expects)
      r.related.push_back({e.loc, "expects " + std::to_string(e.amount) + " bytes on " + name + phase + "; " +
                                      std::to_string(delivered) + " of the " + std::to_string(expected) +
                                      " bytes expected are delivered: the cause",
                           e.step});
  }
  if (b.pending > 0 && !ph.arrives.empty()) {
    const std::int64_t made = total(ph.arrives);
    why += "; " + name + " has " + std::to_string(made) + " of the " + std::to_string(made + b.pending) + " arrivals" + phase +
           " (" + where(ph.arrives) + ")";
    for (const Mark& a : ph.arrives)
      r.related.push_back({a.loc, "arrives on " + name + phase + ": " + std::to_string(made) + " of the " +
                                      std::to_string(made + b.pending) + " arrivals it needs are made",
                           a.step});
  }
  if (b.pending > 0 && ph.arrives.empty() && !kernel_arrives_on(*p_.kernel, p_.mbar_decl(m)))
    why += "; hint: no operation in the kernel arrives on " + p_.kernel->mbarriers[static_cast<std::size_t>(p_.mbar_decl(m))].name +
           " (no arrive, arrive_expect_tx, cp_async_arrive or tcgen05_commit names it), so its phase never completes";
}

void Causes::deadlock(const Stepper& st, const State& s, Result& r) const {
  std::vector<int> seen;
  std::string why;
  for (std::size_t a = 0; a < s.agents.size(); ++a) {
    if (s.agents[a].exited) continue;
    const int m = st.waited_mbar(s, static_cast<int>(a));
    if (m < 0 || std::find(seen.begin(), seen.end(), m) != seen.end()) continue;
    seen.push_back(m);
    explain(s, m, r, why);
  }
  r.message += why;
}

std::optional<Result> smem_overflow(const ir::Kernel& k) {
  struct Decl {
    ir::Loc loc;
    std::string name;
    std::int64_t bytes = 0;
  };
  std::vector<Decl> decls;
  for (const ir::BufferDecl& b : k.buffers)  // a buffer that aliases another takes no memory of its own
    if (b.space == ir::Space::shared && b.alias.of < 0)
      decls.push_back({b.loc, b.name + "[" + std::to_string(b.size) + "]", static_cast<std::int64_t>(b.size) * b.bytes});
  for (const ir::MbarrierDecl& m : k.mbarriers)
    if (m.alias.of < 0)
      decls.push_back({m.loc, "mbarrier " + m.name + "[" + std::to_string(m.size) + "]", m.size * spec::rules::mbarrier_bytes});
  std::stable_sort(decls.begin(), decls.end(),
                   [](const Decl& a, const Decl& b) { return std::tie(a.loc.line, a.loc.col) < std::tie(b.loc.line, b.loc.col); });
  std::int64_t bytes = 0;
  for (const Decl& d : decls) bytes += d.bytes;
  const spec::Violation v = spec::rules::smem_footprint(bytes);
  if (v == spec::Violation::none) return std::nullopt;
  Result r;
  r.verdict = Verdict::violation;
  r.violation = v;
  r.loc = k.loc;
  r.message = "the shared memory of a CTA is " + std::to_string(bytes) + " bytes (buffers, 8 bytes per mbarrier): above " +
              std::to_string(spec::rules::smem_limit_sm90) + " (227 KiB, sm_90a)";
  std::int64_t sum = 0;
  bool past = false;
  for (const Decl& d : decls) {
    sum += d.bytes;
    const bool first_past = !past && spec::rules::smem_footprint(sum) != spec::Violation::none;
    if (first_past) {
      past = true;
      r.loc = d.loc;
      r.message += "; " + d.name + " (" + std::to_string(d.bytes) + " bytes) takes it past the limit: " + std::to_string(sum) +
                   " bytes with the declarations before it";
      continue;
    }
    if (d.bytes > 0) r.related.push_back({d.loc, d.name + ": " + std::to_string(d.bytes) + " bytes, " + std::to_string(sum) + " in all up to here", 0});
  }
  return r;
}

}  // namespace pc::check
