// The named-barrier claims (named_count, named_participants, named_id) and
// the shared-memory footprint (symbolic.hpp).
#include "checker/smt/symbolic_sym.hpp"

#include <algorithm>
#include <tuple>

#include "spec/named_barrier.hpp"

namespace pc::smt::sym {

void Sym::named_claims(std::vector<Finding>& out) {
  std::vector<Use> uses;
  for (std::size_t r = 0; r < occs_.size(); ++r)
    for (const Occ& o : occs_[r])
      if (is_named(o.op->code)) uses.push_back({&o, static_cast<int>(r)});
  if (uses.empty()) return;
  const std::string count_claim = "every named-barrier thread count is a warp multiple in 32..1024 and every id is in 0..15";
  const std::string id_claim = "no two uses of one named-barrier id in a CTA give different thread counts";
  auto all_not_checked = [&](const std::string& reason) {
    out.push_back(not_checked("named_count", count_claim, uses[0].o->op->loc, reason));
    for (const Use& u : uses) out.push_back(not_checked("named_participants", participants_claim(*u.o), u.o->op->loc, reason));
    out.push_back(not_checked("named_id", id_claim, uses[0].o->op->loc, reason));
  };
  if (!decl_problem_.empty()) return all_not_checked(decl_problem_);
  try {
    const std::vector<AgentUse> au = agent_uses(uses);
    named_count_claim(uses, au, count_claim, out);
    named_participants_claims(uses, au, out);
    named_id_claim(uses, au, id_claim, out);
  } catch (const NotChecked& n) {
    all_not_checked(n.reason);
  }
}

std::string Sym::participants_claim(const Occ& o) const {
  return "the thread count of " + std::string(ir::op_keyword(o.op->code)) + " at line " + std::to_string(o.op->loc.line) +
         " equals the threads of the agents that use its id" +
         (trip_dependent(o) ? " (in every trip that runs it: its branch depends on the loop)" : "");
}

bool Sym::trip_dependent(const Occ& o) const {
  std::set<std::string> cs = consts({o.guard, o.id, o.count});
  std::set<unsigned> seen;
  for (const Loop& l : o.loops) {  // an inner loop's bounds may read an outer variable
    consts(l.lo, cs, seen);
    consts(l.hi, cs, seen);
  }
  return std::any_of(cs.begin(), cs.end(), [](const std::string& n) { return n.rfind("L!", 0) == 0; });
}

z3::expr Sym::trips(const Occ& o, Subst& s, z3::expr_vector* vars) {
  z3::expr in = c_.bool_val(true);
  const bool fresh = trip_dependent(o);
  for (const Loop& l : o.loops) {
    const z3::expr lo = subst(l.lo, s), hi = subst(l.hi, s);
    if (!fresh) {
      in = in && lo < hi;
      continue;
    }
    const z3::expr v = c_.int_const(("T!" + std::to_string(trips_++)).c_str());
    s.push_back({l.var, v});
    in = in && lo <= v && v < hi;
    if (vars != nullptr) vars->push_back(v);
  }
  return in;
}

// One agent's use of each named-barrier operation: whether it happens, its
// id, its count.
std::vector<Sym::AgentUse> Sym::agent_uses(const std::vector<Use>& uses) {
  std::vector<AgentUse> au;
  std::map<int, z3::expr> whole;  // the threads of each CTA
  for (int a = 0; a < k_.cluster_ctas * k_.grids; ++a) {
    z3::expr t = c_.int_val(0);
    for (std::size_t r = 0; r < k_.roles.size(); ++r) {
      const auto cs = ctas_of(static_cast<int>(r));
      if (std::find(cs.begin(), cs.end(), a) != cs.end()) t = t + role_count(static_cast<int>(r)) * threads(static_cast<int>(r));
    }
    whole.emplace(a, k_.cta_threads > 0 ? c_.int_val(k_.cta_threads) : t);
  }
  for (const Use& u : uses) {
    const Occ& o = *u.o;
    std::vector<z3::expr> rel = {o.guard, o.id, o.count};
    for (const Loop& l : o.loops) {
      rel.push_back(l.lo);
      rel.push_back(l.hi);
    }
    std::set<std::string> cs;
    std::set<unsigned> seen;
    for (const z3::expr& e : rel) consts(e, cs, seen);
    if (has_unknown(cs))
      throw NotChecked{"whether line " + std::to_string(o.op->loc.line) +
                       " runs, or its id or count, depends on a value the encoding does not follow (such as `warp`)"};
    for (const Copy& cp : copies(u.role, true)) {
      Subst s = {{role_cta_[static_cast<std::size_t>(u.role)], c_.int_val(cp.cta)},
                 {role_inst_[static_cast<std::size_t>(u.role)], cp.inst}};
      const z3::expr in = trips(o, s, nullptr);
      const z3::expr used = cp.present && in && subst(o.guard, s);
      const bool sync0 = o.op->code == OpCode::syncthreads;
      const bool expl = !sync0 && o.has_count;
      au.push_back(AgentUse{&o, u.role, cp.cta, cp.present, used, sync0 ? c_.int_val(0) : subst(o.id, s),
                            expl ? subst(o.count, s) : whole.at(cp.cta), expl});
    }
  }
  return au;
}

// Threads of the agents of CTA a that use id I.
z3::expr Sym::participants(const std::vector<Use>& uses, int a, const z3::expr& I) {
    z3::expr sum = c_.int_val(0);
    for (std::size_t r = 0; r < k_.roles.size(); ++r) {
      for (const Copy& cp : copies(static_cast<int>(r), true)) {
        if (cp.cta != a) continue;
        // The agent (role r, this instance) uses id I somewhere.
        z3::expr any = c_.bool_val(false);
        for (const Use& u : uses) {
          if (u.role != static_cast<int>(r)) continue;
          const Occ& o = *u.o;
          Subst s = {{role_cta_[r], c_.int_val(a)}, {role_inst_[r], cp.inst}};
          z3::expr_vector vars(c_);
          const z3::expr in = trips(o, s, &vars);
          const z3::expr id = o.op->code == OpCode::syncthreads ? c_.int_val(0) : subst(o.id, s);
          const z3::expr here = in && subst(o.guard, s) && id == I;
          // In some trip: the agent uses the id if any trip takes the branch.
          any = any || (vars.empty() ? here : z3::exists(vars, here));
        }
        sum = sum + z3::ite(cp.present && any, c_.int_val(threads(static_cast<int>(r))), c_.int_val(0));
      }
    }
    return sum;
}

// named_count
void Sym::named_count_claim(const std::vector<Use>& uses, const std::vector<AgentUse>& au, const std::string& count_claim,
                            std::vector<Finding>& out) {
  z3::expr bad = c_.bool_val(false);
  for (const AgentUse& x : au) {
    z3::expr wrong = x.id < 0 || x.id >= spec::named::num_ids;
    if (x.explicit_count)
      wrong = wrong || x.count < spec::named::warp_size || x.count > 1024 || z3::mod(x.count, spec::named::warp_size) != 0;
    bad = bad || (x.used && wrong);
  }
  Finding f;
  f.check = "named_count";
  f.claim = count_claim;
  f.loc = uses[0].o->op->loc;
  const Solved s = solve(bad);
  if (s.model)
    for (const AgentUse& x : au)
      if (value(*s.model, z3::ite(x.used, c_.int_val(1), c_.int_val(0))) == 1) {
        const std::int64_t id = value(*s.model, x.id), n = value(*s.model, x.count);
        if (id < 0 || id >= spec::named::num_ids || (x.explicit_count && (n < 32 || n > 1024 || n % 32 != 0))) {
          f.loc = x.o->op->loc;
          break;
        }
      }
  finish(f, s, out, [&, this](const z3::model& m) {
    for (const AgentUse& x : au)
      if (value(m, z3::ite(x.used, c_.int_val(1), c_.int_val(0))) == 1 && x.o->op->loc.line == f.loc.line)
        return "line " + std::to_string(x.o->op->loc.line) + ": id " + std::to_string(value(m, x.id)) + ", " +
               std::to_string(value(m, x.count)) + " threads";
    return std::string();
  });
}

// Whether some agent of CTA a waits on id I (its use is not a bar_arrive).
z3::expr Sym::waited(const std::vector<AgentUse>& au, int a, const z3::expr& I) {
    z3::expr any = c_.bool_val(false);
    for (const AgentUse& y : au)
      if (y.cta == a && y.o->op->code != OpCode::bar_arrive) any = any || (y.used && y.id == I);
    return any;
}

// named_participants, per operation. A barrier instance that no thread
// waits for (only bar_arrive uses of the id run) blocks nobody: the
// claim is about ids that some agent of the CTA waits on.
void Sym::named_participants_claims(const std::vector<Use>& uses, const std::vector<AgentUse>& au, std::vector<Finding>& out) {
  for (const Use& u : uses) {
    z3::expr bad = c_.bool_val(false);
    std::vector<std::pair<const AgentUse*, z3::expr>> parts;
    for (const AgentUse& x : au) {
      if (x.o != u.o) continue;
      const z3::expr p = participants(uses, x.cta, x.id);
      parts.emplace_back(&x, p);
      bad = bad || (x.used && x.count != p && waited(au, x.cta, x.id));
    }
    Finding f;
    f.check = "named_participants";
    f.claim = participants_claim(*u.o);
    f.loc = u.o->op->loc;
    finish(f, solve(bad), out, [&, this](const z3::model& m) {
      for (const auto& [x, p] : parts)
        if (value(m, z3::ite(x->used && x->count != p && waited(au, x->cta, x->id), c_.int_val(1), c_.int_val(0))) == 1)
          return "CTA " + std::to_string(x->cta) + ", id " + std::to_string(value(m, x->id)) + ": count " +
                 std::to_string(value(m, x->count)) + ", " + std::to_string(value(m, p)) + " threads use it";
      return std::string();
    });
  }
}

// named_id
void Sym::named_id_claim(const std::vector<Use>& uses, const std::vector<AgentUse>& au, const std::string& id_claim,
                         std::vector<Finding>& out) {
  z3::expr bad = c_.bool_val(false);
  std::vector<std::tuple<const AgentUse*, const AgentUse*, z3::expr>> pairs;
  for (std::size_t i = 0; i < au.size(); ++i)
    for (std::size_t j = i + 1; j < au.size(); ++j) {
      if (au[i].cta != au[j].cta) continue;
      const z3::expr clash = au[i].used && au[j].used && au[i].id == au[j].id && au[i].count != au[j].count;
      pairs.emplace_back(&au[i], &au[j], clash);
      bad = bad || clash;
    }
  Finding f;
  f.check = "named_id";
  f.claim = id_claim;
  f.loc = uses[0].o->op->loc;
  const Solved s = solve(bad);
  std::string det;
  if (s.model)
    for (const auto& [a, b, clash] : pairs)
      if (value(*s.model, z3::ite(clash, c_.int_val(1), c_.int_val(0))) == 1) {
        f.loc = b->o->op->loc;
        det = "id " + std::to_string(value(*s.model, a->id)) + " in CTA " + std::to_string(a->cta) + ": " +
              std::to_string(value(*s.model, a->count)) + " threads at line " + std::to_string(a->o->op->loc.line) + ", " +
              std::to_string(value(*s.model, b->count)) + " at line " + std::to_string(b->o->op->loc.line);
        break;
      }
  finish(f, s, out, [&](const z3::model&) { return det; });
}

void Sym::smem_claim(std::vector<Finding>& out) {
  if (k_.buffers.empty() && k_.mbarriers.empty()) return;
  const std::string claim = "the shared memory of a CTA (buffers, 8 bytes per mbarrier) fits in " +
                            std::to_string(smem_limit_sm90) + " bytes (227 KiB, sm_90a)";
  if (k_.target != ir::Target::nvidia) {
    out.push_back(not_checked("smem_footprint", claim, k_.loc, "the limit of an AMD target is not encoded"));
    return;
  }
  if (!decl_problem_.empty()) {
    out.push_back(not_checked("smem_footprint", claim, k_.loc, decl_problem_));
    return;
  }
  z3::expr total = c_.int_val(0);
  for (std::size_t b = 0; b < k_.buffers.size(); ++b) {
    const ir::BufferDecl& d = k_.buffers[b];
    if (d.space != ir::Space::shared) continue;  // tensor memory is not shared memory
    if (d.alias.of >= 0) continue;                // laid over memory counted with its allocation
    const z3::expr n = buf_size_[b] ? expr(*buf_size_[b], {}) : c_.int_val(d.size);
    const z3::expr bytes = d.bytes_expr != ir::no_expr ? expr(d.bytes_expr, {}) : c_.int_val(static_cast<int64_t>(d.bytes));
    total = total + n * bytes;
  }
  for (std::size_t m = 0; m < k_.mbarriers.size(); ++m) {
    if (k_.mbarriers[m].alias.of >= 0) continue;  // placed in memory counted with its allocation
    const z3::expr n = mbar_size_[m] ? expr(*mbar_size_[m], {}) : c_.int_val(k_.mbarriers[m].size);
    total = total + n * c_.int_val(static_cast<int64_t>(mbarrier_bytes));
  }
  Finding f;
  f.check = "smem_footprint";
  f.claim = claim;
  f.loc = k_.loc;
  finish(f, solve(total > c_.int_val(static_cast<int64_t>(smem_limit_sm90))), out,
         [&, this](const z3::model& m) { return std::to_string(value(m, total)) + " bytes per CTA"; });
}

}  // namespace pc::smt::sym
