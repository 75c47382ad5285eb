#include "checker/snapshot.hpp"

#include <string>

namespace pc::check {
namespace {

std::string mbarrier_state(const spec::mbarrier::State& m) {
  switch (m.status) {
    case spec::mbarrier::Status::uninitialized: return "not initialised";
    case spec::mbarrier::Status::invalidated: return "invalidated";
    case spec::mbarrier::Status::live: break;
  }
  return "phase " + std::to_string(m.phase) + " (parity " + std::to_string(m.phase & 1) + "), pending " +
         std::to_string(m.pending) + " of " + std::to_string(m.expected) + ", tx " + std::to_string(m.tx);
}

std::string pending_kind(PendingKind k) {
  switch (k) {
    case PendingKind::tma_load: return "TMA load";
    case PendingKind::tcgen05_arrive: return "tcgen05.commit arrival";
    case PendingKind::cp_async_arrive: return "cp.async arrival";
    case PendingKind::st_async: return "st.async";
    case PendingKind::clc_response: return "try_cancel response";
  }
  return "async event";
}

}  // namespace

Snapshot snapshot(const Stepper& st, const State& s, std::size_t step) {
  const Program& p = st.program();
  Snapshot out;
  out.taken = true;
  out.step = step;
  for (int a = 0; a < static_cast<int>(s.agents.size()); ++a) {
    Position pos;
    pos.agent = a;
    const AgentState& ag = s.agents[static_cast<std::size_t>(a)];
    if (ag.exited) {
      pos.status = "exited";
    } else if (ag.pc >= p.code[static_cast<std::size_t>(p.agents[static_cast<std::size_t>(a)].role)].size()) {
      pos.status = "at the end of its code: it exits next";
    } else {
      pos.loc = st.loc_of(s, a);
      pos.status = st.surely_blocked(s, a) ? "blocked: " + st.describe_blocked(s, a) : "ready";
    }
    out.agents.push_back(pos);
  }
  for (int m = 0; m < p.num_mbars(); ++m)
    out.objects.push_back({p.mbar_name(m), mbarrier_state(s.mbars[static_cast<std::size_t>(m)])});
  for (int id = 0; id < static_cast<int>(p.named_slot.size()); ++id) {
    if (p.named_slot[static_cast<std::size_t>(id)] < 0) continue;
    for (int cta = 0; cta < p.ctas; ++cta) {
      const std::size_t i = static_cast<std::size_t>(cta * p.named_used + p.named_slot[static_cast<std::size_t>(id)]);
      if (i >= s.named.size()) continue;
      const spec::named::State& n = s.named[i];
      std::string state = std::to_string(n.generation) + " instances completed";
      if (n.arrived > 0)
        state += ", " + std::to_string(n.arrived) + " of " + (n.whole_cta ? std::string("the CTA's") : std::to_string(n.count)) +
                 " threads arrived";
      out.objects.push_back({"named barrier " + std::to_string(id) + (p.ctas > 1 ? "@cta" + std::to_string(cta) : ""), state});
    }
  }
  if (p.ctas > 1)
    out.objects.push_back({"cluster barrier", std::to_string(s.cluster.generation) + " instances completed, " +
                                                  std::to_string(s.cluster.arrived) + " threads arrived"});
  for (std::size_t c = 0; c < s.amd.size(); ++c)
    out.objects.push_back({"s_barrier" + (p.ctas > 1 ? "@cta" + std::to_string(c) : std::string()),
                           std::to_string(s.amd[c].generation) + " instances completed, " + std::to_string(s.amd[c].arrived) +
                               " of " + std::to_string(s.amd[c].waves) + " waves signalled"});
  for (const Pending& e : s.pending) {
    const AgentInfo& issuer = p.agents[e.agent];
    const std::vector<Instr>& code = p.code[static_cast<std::size_t>(issuer.role)];
    std::string what = pending_kind(e.kind);
    if (e.buf >= 0) what += " into " + p.buffer_name(e.buf);
    what += " on " + p.mbar_name(e.mbar);
    if (e.kind == PendingKind::tma_load) what += " (" + std::to_string(e.bytes) + " bytes)";
    if (e.kind == PendingKind::clc_response) what += e.canceled ? " (if canceled)" : " (if not canceled)";
    what += " from " + issuer.name;
    if (e.pc < code.size()) what += ", line " + std::to_string(code[e.pc].loc.line);
    out.in_flight.push_back(what);
  }
  return out;
}

}  // namespace pc::check
