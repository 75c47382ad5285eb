#include "checker/ir_rules.hpp"

#include <cstdio>

namespace pc::ir {

std::optional<TextError> cp_async_lanes(const std::vector<Stmt>& body) {
  std::vector<const Op*> ops;
  bool groups = false;
  auto walk = [&](auto& self, const std::vector<Stmt>& b) -> void {
    for (const Stmt& s : b) {
      if (s.kind == StmtKind::op && op_family(s.op.code) == OpFamily::cp_async && s.op.code != OpCode::cp_async_mbarrier_arrive) {
        ops.push_back(&s.op);
        groups |= s.op.code != OpCode::cp_async;
      }
      self(self, s.body);
      self(self, s.else_body);
    }
  };
  walk(walk, body);
  if (!groups) return std::nullopt;
  for (const Op* o : ops)
    if (o->lanes != Lanes::one)
      return TextError{o->loc,
                       "cp.async-groups are per thread and the model follows one thread's: '" + std::string(op_keyword(o->code)) +
                           "' here is several lanes' in an agent that commits or waits cp.async-groups (the lane that issues the "
                           "copies commits and waits them; a barrier then orders the other lanes)",
                       o->code};
  return std::nullopt;
}

std::string lanes_word(const Op& op) {
  switch (op.lanes) {
    case Lanes::one: return "one:";
    case Lanes::each: return "each:";
    case Lanes::rest: return "rest:";
    case Lanes::all: return "all:";
    case Lanes::mask: break;
  }
  char text[32];
  std::snprintf(text, sizeof text, "lanes 0x%llx:", static_cast<unsigned long long>(op.lane_mask));
  return text;
}

}  // namespace pc::ir
