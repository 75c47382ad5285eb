#include "checker/profile.hpp"

#include "checker/search/profile.hpp"

#include <algorithm>
#include <utility>

namespace pc::check {
namespace {

// The `for` statements of a body, nested ones included: (variable, line).
void for_loops(const std::vector<ir::Stmt>& body, std::vector<std::pair<int, ir::Loc>>& out) {
  for (const ir::Stmt& s : body) {
    if (s.kind == ir::StmtKind::for_loop) out.emplace_back(s.var, s.loc);
    for_loops(s.body, out);
    for_loops(s.else_body, out);
  }
}

}  // namespace

ProfileCounts::ProfileCounts(const Program& p, const Owners& o, const State& init) : p_(p), o_(o), scratch_(init) {
  pcs_.resize(p.agents.size());
  for (std::size_t a = 0; a < p.agents.size(); ++a) {
    const int role = p.agents[a].role;
    const std::vector<Instr>& code = p.code[static_cast<std::size_t>(role)];
    pcs_[a].assign(code.size() + 1, 0);
    // A loop is flattened as `v = lo; top: if !(v < hi) goto end; body;
    // v = v + 1; goto top; end:` (program.cpp), each at the `for`'s location.
    std::vector<std::pair<int, ir::Loc>> fors;
    for_loops(p.kernel->roles[static_cast<std::size_t>(role)].body, fors);
    for (std::size_t i = 0; i + 1 < code.size(); ++i) {
      const Instr& set = code[i];
      const Instr& top = code[i + 1];
      if (set.kind != InstrKind::assign || top.kind != InstrKind::branch_false || top.target <= static_cast<int>(i)) continue;
      for (const auto& [var, loc] : fors)
        if (var == set.var && loc.line == set.loc.line && loc.col == set.loc.col && top.loc.line == loc.line && top.loc.col == loc.col)
          loops_.push_back(Loop{static_cast<int>(a), var, static_cast<std::uint32_t>(i + 1), static_cast<std::uint32_t>(top.target), loc.line});
    }
  }
  phases_.resize(std::min(init.mbars.size(), static_cast<std::size_t>(p.num_mbars())));
  trips_.resize(loops_.size());
}

void ProfileCounts::count(std::string_view bytes) {
  deserialize(bytes.data(), o_, scratch_);
  count(scratch_);
}

void ProfileCounts::count(const State& s) {
  ++states_;
  for (std::size_t a = 0; a < pcs_.size(); ++a) {
    const AgentState& ag = s.agents[a];
    std::vector<std::uint64_t>& at = pcs_[a];
    ++at[ag.exited ? at.size() - 1 : std::min<std::size_t>(ag.pc, at.size() - 1)];
  }
  for (std::size_t m = 0; m < phases_.size(); ++m) ++phases_[m][s.mbars[m].phase];
  for (std::size_t l = 0; l < loops_.size(); ++l) {
    const Loop& x = loops_[l];
    const AgentState& ag = s.agents[static_cast<std::size_t>(x.agent)];
    if (ag.exited || ag.pc < x.begin || ag.pc >= x.end) continue;
    ++trips_[l][s.vars[static_cast<std::size_t>(p_.var_base[static_cast<std::size_t>(x.agent)] + x.var)]];
  }
}

void ProfileCounts::merge(const ProfileCounts& other) {
  states_ += other.states_;
  for (std::size_t a = 0; a < pcs_.size(); ++a)
    for (std::size_t i = 0; i < pcs_[a].size(); ++i) pcs_[a][i] += other.pcs_[a][i];
  for (std::size_t m = 0; m < phases_.size(); ++m)
    for (const auto& [k, n] : other.phases_[m]) phases_[m][k] += n;
  for (std::size_t l = 0; l < trips_.size(); ++l)
    for (const auto& [k, n] : other.trips_[l]) trips_[l][k] += n;
}

StateProfile ProfileCounts::result() const {
  StateProfile out;
  out.taken = true;
  out.states = states_;
  // Per agent and line (the pcs of one line together; line 0: exited).
  for (std::size_t a = 0; a < pcs_.size(); ++a) {
    const std::vector<Instr>& code = p_.code[static_cast<std::size_t>(p_.agents[a].role)];
    std::unordered_map<int, std::uint64_t> lines;
    for (std::size_t i = 0; i < pcs_[a].size(); ++i)
      if (pcs_[a][i] > 0) lines[i < code.size() ? code[i].loc.line : 0] += pcs_[a][i];
    for (const auto& [line, n] : lines) out.lines.push_back({static_cast<int>(a), line, n});
  }
  std::sort(out.lines.begin(), out.lines.end(), [](const StateProfile::Line& x, const StateProfile::Line& y) {
    if (x.states != y.states) return x.states > y.states;
    return x.agent != y.agent ? x.agent < y.agent : x.line < y.line;
  });
  for (std::size_t m = 0; m < phases_.size(); ++m) {
    std::vector<std::pair<std::uint32_t, std::uint64_t>> v(phases_[m].begin(), phases_[m].end());
    std::sort(v.begin(), v.end());
    for (const auto& [phase, n] : v) out.phases.push_back({p_.mbar_name(static_cast<int>(m)), phase, n});
  }
  for (std::size_t l = 0; l < loops_.size(); ++l) {
    const Loop& x = loops_[l];
    const ir::Role& role = p_.kernel->roles[static_cast<std::size_t>(p_.agents[static_cast<std::size_t>(x.agent)].role)];
    std::vector<std::pair<std::int64_t, std::uint64_t>> v(trips_[l].begin(), trips_[l].end());
    std::sort(v.begin(), v.end());
    for (const auto& [value, n] : v) out.trips.push_back({x.agent, role.vars[static_cast<std::size_t>(x.var)], x.line, value, n});
  }
  return out;
}

Profiler::Profiler(const Program& p, const Owners& o, const State& init) : counts_(std::make_unique<ProfileCounts>(p, o, init)) {}
Profiler::~Profiler() = default;
void Profiler::count(std::string_view bytes) { counts_->count(bytes); }
void Profiler::count(const State& s) { counts_->count(s); }
void Profiler::merge(const Profiler& other) { counts_->merge(*other.counts_); }
StateProfile Profiler::result() const { return counts_->result(); }

}  // namespace pc::check
