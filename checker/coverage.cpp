#include "checker/coverage.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

namespace pc::check {
namespace {

// The statement in short, from the IR: "read tile", "wait full", "x = ...".
std::string statement(const Program& p, const ir::Role& role, const Instr& in) {
  switch (in.kind) {
    case InstrKind::op: {
      std::string s(ir::op_keyword(in.op->code));
      if (in.op->bar.object >= 0 && in.op->bar.object < static_cast<int>(p.kernel->mbarriers.size()))
        s += " " + p.kernel->mbarriers[static_cast<std::size_t>(in.op->bar.object)].name;
      for (const ir::Ref& b : in.op->bufs)
        if (b.object >= 0 && b.object < static_cast<int>(p.kernel->buffers.size()))
          s += " " + p.kernel->buffers[static_cast<std::size_t>(b.object)].name;
      return s;
    }
    case InstrKind::assign:
      return in.var >= 0 && in.var < static_cast<int>(role.vars.size()) ? role.vars[static_cast<std::size_t>(in.var)] + " = ..."
                                                                          : "assignment";
    case InstrKind::jump:
    case InstrKind::branch_false: return "if/for";
    case InstrKind::choose: return "either";
    case InstrKind::assert_true: return "assert";
  }
  return "statement";
}

}  // namespace

Coverage::Coverage(const Program& p) : p_(p) {
  std::size_t n = 0;
  for (const std::vector<Instr>& code : p.code) {
    role_base_.push_back(n);
    n += code.size() + 1;  // one more: an agent at the end of its code
  }
  for (const AgentInfo& a : p.agents) base_.push_back(role_base_[static_cast<std::size_t>(a.role)]);
  hit_.assign(n, 0);
}

std::vector<Unreached> Coverage::unreached() const {
  std::vector<Unreached> out;
  std::vector<bool> placed(p_.code.size(), false);  // roles with an agent: the others run nowhere
  for (const AgentInfo& a : p_.agents) placed[static_cast<std::size_t>(a.role)] = true;
  for (std::size_t r = 0; r < p_.code.size(); ++r) {
    const ir::Role& role = p_.kernel->roles[r];
    const std::vector<Instr>& code = p_.code[r];
    // A statement is run when any of its instructions is (a loop is several).
    std::map<std::pair<int, int>, std::size_t> first;  // (line, col) -> first instruction
    std::map<std::pair<int, int>, bool> ran;
    for (std::size_t pc = 0; pc < code.size(); ++pc) {
      const std::pair<int, int> at{code[pc].loc.line, code[pc].loc.col};
      first.emplace(at, pc);
      ran[at] = ran[at] || (placed[r] && hit_[role_base_[r] + pc] != 0);
    }
    for (const auto& [at, pc] : first) {
      if (ran[at]) continue;
      const Instr& in = code[pc];
      Unreached u;
      u.loc = in.loc;
      u.role = role.name;
      u.what = statement(p_, role, in);
      u.kind = in.kind == InstrKind::assert_true                       ? UnreachedKind::assertion
               : in.kind == InstrKind::op && ir::op_access(in.op->code) != ir::Access::none ? UnreachedKind::access
                                                                       : UnreachedKind::statement;
      out.push_back(u);
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Unreached& a, const Unreached& b) {
    return std::tie(a.loc.line, a.loc.col) < std::tie(b.loc.line, b.loc.col);
  });
  return out;
}

}  // namespace pc::check
