// The mbarrier claims (symbolic.hpp): arrival_count, tx_balance, count_range,
// tx_range per barrier, and ring_phase per wait in a loop.
#include "checker/smt/symbolic_sym.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "checker/smt/encode.hpp"
#include "spec/clc.hpp"
#include "spec/mbarrier.hpp"

namespace pc::smt::sym {

std::optional<Sym::Ring> Sym::ring(const z3::expr& idx) {
  auto as_mod = [&](const z3::expr& e) -> std::optional<std::pair<z3::expr, z3::expr>> {
    auto it = mods_.find(e.id());
    if (it == mods_.end()) return std::nullopt;
    return it->second;
  };
  if (auto m = as_mod(idx)) return Ring{c_.int_val(0), m->first, m->second};
  if (idx.is_app() && idx.decl().decl_kind() == Z3_OP_ADD && idx.num_args() == 2) {
    if (auto m = as_mod(idx.arg(1))) return Ring{idx.arg(0), m->first, m->second};
    if (auto m = as_mod(idx.arg(0))) return Ring{idx.arg(1), m->first, m->second};
  }
  return std::nullopt;
}

bool Sym::has_unknown(const z3::expr& e) {
  if (e.is_const()) return e.decl().name().str().rfind('?', 0) == 0;
  if (!e.is_app()) return false;
  for (unsigned i = 0; i < e.num_args(); ++i)
    if (has_unknown(e.arg(i))) return true;
  return false;
}

void Sym::ring_phase_claim(const Occ& o, std::vector<Finding>& out) {
  const OpCode code = o.op->code;
  if (!o.has_parity || o.loops.empty() ||
      (code != OpCode::mbar_wait && code != OpCode::mbar_test_wait && code != OpCode::mbar_try_wait))
    return;
  const ir::MbarrierDecl& d = k_.mbarriers[static_cast<std::size_t>(o.op->bar.object)];
  const std::string claim = "the wait on " + d.name + " is use u of a ring of S barriers: stage u % S, parity (u / S + c) % 2 "
                            "(proofs/README.md (b)), for every trip count and parameter value";
  const std::string where = "line " + std::to_string(o.op->loc.line);
  if (has_unknown(o.parity) || has_unknown(o.idx)) {
    out.push_back(not_checked("ring_phase", claim, o.op->loc,
                              "its parity or barrier index depends on a value the encoding does not follow (one carried "
                              "across trips, or read from the hardware)"));
    return;
  }
  z3::expr in_loops = o.guard;
  for (const Loop& l : o.loops) in_loops = in_loops && l.lo <= l.var && l.var < l.hi;
  for (const Loop& l : o.loops)
    if (has_unknown(l.lo) || has_unknown(l.hi)) {
      out.push_back(not_checked("ring_phase", claim, o.op->loc,
                                "a loop around it has trip counts that depend on a value the encoding does not follow"));
      return;
    }
  const std::optional<Ring> rg = ring(o.idx);
  const bool single = !rg && d.size == 1;
  if (!rg && !single) {
    out.push_back(not_checked("ring_phase", claim, o.op->loc,
                              "its barrier index is not a ring position (OFF + X % S) and its barrier is not a single one"));
    return;
  }
  // Candidate use counts: each non-empty set of its loops (at most the
  // innermost three), linearized.
  const std::size_t n = std::min<std::size_t>(o.loops.size(), 3), first = o.loops.size() - n;
  for (unsigned mask = 1; mask < (1u << n); ++mask) {
    z3::expr u = c_.int_val(0);
    for (std::size_t i = 0; i < n; ++i) {
      if (!(mask & (1u << i))) continue;
      const Loop& l = o.loops[first + i];
      u = u * (l.hi - l.lo) + (l.var - l.lo);
    }
    const z3::expr S = single ? c_.int_val(1) : rg->s;
    const z3::expr stage_ok = single ? c_.bool_val(true) : z3::mod(rg->x, S) == z3::mod(u, S);
    for (int c = 0; c < 2; ++c) {
      const z3::expr phase_ok = z3::mod(o.parity, 2) == z3::mod(u / S + c, 2);
      const Solved r = solve(in_loops && S >= 1 && !(stage_ok && phase_ok));
      if (r.status != Status::proven) continue;
      Finding f;
      f.status = Status::proven;
      f.check = "ring_phase";
      // What is proven is the wait's shape, one of the theorem's two: not
      // that the role should wait that way (a planted wrong parity can have
      // the other shape). The message says so (issue 63: "proven" read as
      // the bug's absence).
      f.claim = "the wait on " + d.name + " (" + where + ") has the shape of a ring's " + (c ? "producer" : "consumer") +
                " wait: use u of a ring of " + (single ? std::string("1") : rg->s.to_string()) + " barrier" + (single ? "" : "s") +
                ": stage u % S, parity (u / S + " + std::to_string(c) + ") % 2, " +
                (c ? "passing at once on each stage's first use, then waiting for the phase of use u - S (proofs/README.md (b), b3)"
                   : "waiting for the phase of use u (proofs/README.md (b), b2)") +
                ", for every trip count and parameter value. The shape only: whether this role should wait so (" +
                (c ? "a producer waits for a slot to be freed" : "a consumer waits for a slot to be filled") +
                ") is the explicit search's to decide";
      f.loc = o.op->loc;
      out.push_back(std::move(f));
      return;
    }
  }
  out.push_back(not_checked("ring_phase", claim, o.op->loc,
                            "no count of its loops' trips gives its stage and parity as the theorem's (a ring used across "
                            "several loops, or a parity of another form)"));
}

void Sym::barrier_claims(int b, std::vector<Finding>& out) {
  const ir::MbarrierDecl& d = k_.mbarriers[static_cast<std::size_t>(b)];
  std::vector<const Occ*> contrib, inits, waits;
  for (const auto& role_occs : occs_)
    for (const Occ& o : role_occs) {
      if (o.op->bar.object != b) continue;
      if (contributes(o.op->code)) {
        contrib.push_back(&o);
      } else if (o.op->code == OpCode::mbar_init) {
        inits.push_back(&o);
      } else if (ir::op_operands(o.op->code) == ir::Operands::wait) {
        waits.push_back(&o);
      }
    }
  bool any_arrival = false, any_tx = false, any_drop = false;
  contribution_kinds(contrib, any_arrival, any_tx, any_drop);
  const std::string name = d.name;
  const std::string arrival_claim = "every phase of " + name + " (each element, each CTA) gets as many arrivals as its count";
  const std::string tx_claim = "in every phase of " + name + " (each element, each CTA) the bytes expected equal the bytes its copies deliver";
  const std::string count_claim = "the count of " + name + " and the arrive counts on it are in 1..2^20-1";
  const std::string range_claim = "the tx-count of every phase of " + name + " stays within -(2^20-1)..2^20-1";
  if (contrib.empty()) {
    if (!waits.empty())
      out.push_back(not_checked("arrival_count", arrival_claim, d.loc, "no operation arrives on it or completes bytes on it"));
    return;
  }
  auto all_not_checked = [&](const std::string& reason) {
    if (any_arrival) out.push_back(not_checked("arrival_count", arrival_claim, d.loc, reason));
    if (any_arrival) out.push_back(not_checked("count_range", count_claim, d.loc, reason));
    if (any_tx) out.push_back(not_checked("tx_balance", tx_claim, d.loc, reason));
    if (any_tx) out.push_back(not_checked("tx_range", range_claim, d.loc, reason));
  };
  if (!decl_problem_.empty()) return all_not_checked(decl_problem_);
  try {
    // The count each phase needs.
    std::optional<z3::expr> need;
    std::string need_problem;
    needed_count(b, inits, need, need_problem);
    // The phases: the ring shape (index OFF + X % S, phase X / S) or one
    // phase per iteration of the innermost blocking loop (index constant in it).
    bool none_ring = true;
    const std::vector<std::optional<Ring>> rings = phases(contrib, waits, none_ring);
    if (any_drop) {
      bool single_phase = none_ring;
      for (const Occ* o : contrib) single_phase &= ticket_loop(*o) == nullptr && !any_spread_blocking(*o);
      if (!single_phase) need_problem = "arrive_drop lowers the count of later phases: only a barrier used for one phase is encoded";
    }
    // The probe: element E, phase Q, CTA C.
    const z3::expr E = c_.int_const("E!"), Q = c_.int_const("Q!"), C = c_.int_const("C!");
    z3::expr probe = Q >= 0 && C >= 0 && C < k_.cluster_ctas * k_.grids;
    std::vector<Term> terms;
    for (std::size_t i = 0; i < contrib.size(); ++i) add_terms(*contrib[i], rings[i], E, Q, C, terms);
    z3::expr exists = c_.bool_val(false), A = c_.int_val(0), X = c_.int_val(0), D = c_.int_val(0),
             counts_ok = c_.bool_val(true), txs_ok = c_.bool_val(true);
    for (const Term& t : terms) {
      exists = exists || t.exists;
      A = A + z3::ite(t.exists, t.arrivals, c_.int_val(0));
      X = X + z3::ite(t.exists, t.expected, c_.int_val(0));
      D = D + z3::ite(t.exists, t.delivered, c_.int_val(0));
      counts_ok = counts_ok && z3::implies(t.exists, t.count_ok);
      txs_ok = txs_ok && z3::implies(t.exists, t.tx_ok);
    }
    auto where = [&, this](const z3::model& m) {
      std::ostringstream o;
      o << name << "[" << value(m, E) << "] in CTA " << value(m, C) << ", phase " << value(m, Q);
      return o.str();
    };
    if (any_arrival) {
      if (!need_problem.empty()) {
        out.push_back(not_checked("arrival_count", arrival_claim, d.loc, need_problem));
        out.push_back(not_checked("count_range", count_claim, d.loc, need_problem));
      } else {
        Finding f;
        f.check = "arrival_count";
        f.claim = arrival_claim;
        f.loc = d.loc;
        finish(f, solve(probe && exists && A != *need), out, [&, this](const z3::model& m) {
          return where(m) + ": " + std::to_string(value(m, A)) + " arrivals, count " + std::to_string(value(m, *need));
        });
        Finding g;
        g.check = "count_range";
        g.claim = count_claim;
        g.loc = d.loc;
        const std::int64_t mc = mb::max_count;
        finish(g, solve((*need < 1 || *need > c_.int_val(static_cast<int64_t>(mc))) || (probe && !counts_ok)), out,
               [&, this](const z3::model& m) { return "count " + std::to_string(value(m, *need)) + " at " + where(m); });
      }
    }
    if (any_tx) {
      Finding f;
      f.check = "tx_balance";
      f.claim = tx_claim;
      f.loc = first_tx_loc(contrib);
      finish(f, solve(probe && exists && X != D), out, [&, this](const z3::model& m) {
        return where(m) + ": " + std::to_string(value(m, X)) + " bytes expected, " + std::to_string(value(m, D)) + " delivered";
      });
      Finding g;
      g.check = "tx_range";
      g.claim = range_claim;
      g.loc = f.loc;
      const z3::expr mt = c_.int_val(static_cast<int64_t>(mb::max_tx));
      finish(g, solve(probe && exists && (X > mt || D > mt || !txs_ok)), out, [&, this](const z3::model& m) {
        return where(m) + ": " + std::to_string(value(m, X)) + " bytes expected, " + std::to_string(value(m, D)) + " delivered";
      });
    }
  } catch (const NotChecked& n) {
    all_not_checked(n.reason);
  }
}

// What the contributions to a barrier bring: arrivals, tx bytes, drops.
void Sym::contribution_kinds(const std::vector<const Occ*>& contrib, bool& any_arrival, bool& any_tx, bool& any_drop) {
  for (const Occ* o : contrib) {
    switch (ir::op_phase(o->op->code)) {
      case ir::PhaseTerm::expect_tx:
      case ir::PhaseTerm::copy_tx: any_tx = true; break;
      // complete_tx's bytes; st.async's and red.async's count as arrivals here.
      case ir::PhaseTerm::complete_tx:
        if (o->op->code == OpCode::mbar_complete_tx) any_tx = true;
        else any_arrival = true;
        break;
      case ir::PhaseTerm::arrive_expect_tx: any_tx = any_arrival = true; break;
      case ir::PhaseTerm::arrive:
        any_arrival = true;
        if (o->op->code == OpCode::mbar_arrive_drop) {
          any_drop = true;
          any_tx |= o->has_bytes;
        }
        break;
      case ir::PhaseTerm::cp_async_arrive:
      case ir::PhaseTerm::commit:
      case ir::PhaseTerm::none: any_arrival = true; break;
    }
  }
}

// The count each phase of mbarrier b needs, or why it is not known.
void Sym::needed_count(int b, const std::vector<const Occ*>& inits, std::optional<z3::expr>& need, std::string& need_problem) {
  const ir::MbarrierDecl& d = k_.mbarriers[static_cast<std::size_t>(b)];
  if (d.count > 0) {
    need = mbar_count_[static_cast<std::size_t>(b)] ? expr(*mbar_count_[static_cast<std::size_t>(b)], {})
                                                    : c_.int_val(static_cast<int64_t>(d.count));
    if (!inits.empty()) need_problem = "it is declared with a count and initialised again by `init`";
  } else if (inits.empty()) {
    need_problem = "no `init` gives it a count";
  } else {
    for (const Occ* i : inits) {
      const auto cs = consts({i->count});
      for (const std::string& n : cs)
        if (n.find('!') != std::string::npos || n[0] == '?') need_problem = "its `init` count depends on the role's variables";
      if (!need) need = i->count;
      else if (!valid(*need == i->count)) need_problem = "its `init` operations give different counts";
    }
  }
}

// How the contributions to a barrier number its phases: each one's ring
// shape, all of them rings or none (none_ring); NotChecked where the phases
// cannot be matched.
std::vector<std::optional<Sym::Ring>> Sym::phases(const std::vector<const Occ*>& contrib, const std::vector<const Occ*>& waits,
                                                  bool& none_ring) {
  std::vector<std::optional<Ring>> rings;
  bool all_ring = true;
  none_ring = true;
  for (const Occ* o : contrib) {
    rings.push_back(ring(o->idx));
    all_ring &= rings.back().has_value();
    none_ring &= !rings.back().has_value();
  }
  if (!all_ring && !none_ring)
    throw NotChecked{"some operations index it as a ring (X % S) and some do not: the phases cannot be matched"};
  if (all_ring) {
    for (std::size_t i = 1; i < rings.size(); ++i)
      if (!valid(rings[i]->s == rings[0]->s)) throw NotChecked{"its ring operations use different moduli"};
    if (!valid(rings[0]->s > 0)) throw NotChecked{"the ring modulus may be 0 or negative"};
  } else {
    // Per role, all contributions in one scope (one loop nest level), and
    // no wait on it between two of them in one iteration.
    std::map<int, const Loop*> scope;
    for (const Occ* o : contrib) {
      const Loop* t = ticket_loop(*o);
      auto [it, fresh] = scope.emplace(o->role, t);
      if (!fresh && (it->second == nullptr) != (t == nullptr))
        throw NotChecked{"role " + k_.roles[static_cast<std::size_t>(o->role)].name +
                         " contributes to it both inside and outside its loop: the phases cannot be numbered"};
      if (!fresh && t && it->second->var.id() != t->var.id())
        throw NotChecked{"role " + k_.roles[static_cast<std::size_t>(o->role)].name + " contributes to it from two loops"};
    }
    for (const Occ* w : waits) {
      int lo = 1 << 30, hi = -1;
      for (const Occ* o : contrib)
        if (o->role == w->role && same_scope(*o, *w)) {
          lo = std::min(lo, o->seq);
          hi = std::max(hi, o->seq);
        }
      if (w->seq > lo && w->seq < hi)
        throw NotChecked{"role " + k_.roles[static_cast<std::size_t>(w->role)].name +
                         " waits on it between two of its contributions: they feed different phases"};
    }
  }
  return rings;
}

ir::Loc Sym::first_tx_loc(const std::vector<const Occ*>& contrib) const {
  for (const Occ* o : contrib)
    if (ir::op_phase(o->op->code) == ir::PhaseTerm::arrive_expect_tx || ir::op_phase(o->op->code) == ir::PhaseTerm::expect_tx)
      return o->op->loc;
  return contrib.front()->op->loc;
}

const Loop* Sym::ticket_loop(const Occ& o) const {
  const Loop* t = nullptr;
  for (const Loop& l : o.loops)
    if (l.blocks) {
      if (t) throw NotChecked{"an operation on it sits in two nested blocking loops: its phases are not numbered"};
      t = &l;
    }
  return t;
}

bool Sym::any_spread_blocking(const Occ& o) const {
  return std::any_of(o.loops.begin(), o.loops.end(), [](const Loop& l) { return l.blocks; });
}

bool Sym::same_scope(const Occ& a, const Occ& b) {
  const Loop* ta = nullptr;
  const Loop* tb = nullptr;
  for (const Loop& l : a.loops)
    if (l.blocks) ta = &l;
  for (const Loop& l : b.loops)
    if (l.blocks) tb = &l;
  if (!ta || !tb) return !ta && !tb;
  return ta->var.id() == tb->var.id();
}

void Sym::add_terms(const Occ& o, const std::optional<Ring>& rg, const z3::expr& E, const z3::expr& Q, const z3::expr& C,
                    std::vector<Term>& terms) {
  const int r = o.role;
  const z3::expr cta_c = role_cta_[static_cast<std::size_t>(r)], inst_c = role_inst_[static_cast<std::size_t>(r)];
  const ir::Op& op = *o.op;
  z3::expr bytes = o.bytes;
  if (op.code == OpCode::tma_load && !o.has_bytes) {
    const ir::BufferDecl& bd = k_.buffers.at(static_cast<std::size_t>(op.bufs.at(0).object));
    bytes = bd.bytes_expr != ir::no_expr ? expr(bd.bytes_expr, {}) : c_.int_val(static_cast<int64_t>(bd.bytes));
  }
  std::vector<z3::expr> rel = {o.guard, o.idx, o.cta, o.count, bytes, o.mask};
  for (const Loop& l : o.loops) {
    rel.push_back(l.lo);
    rel.push_back(l.hi);
  }
  std::set<std::string> used;
  {
    std::set<unsigned> seen;
    for (const z3::expr& e : rel) consts(e, used, seen);
  }
  if (has_unknown(used))
    throw NotChecked{"line " + std::to_string(op.loc.line) + " depends on a value the encoding does not follow (set in a loop or a branch, read from a barrier, or the warp of a role split per warp)"};
  const bool by_instance = has(used, inst_c);
  for (const Copy& cp : copies(r, by_instance)) {
    Subst base = {{cta_c, c_.int_val(cp.cta)}};
    if (by_instance) base.emplace_back(inst_c, cp.inst);
    // Which loops number the phases (tickets) and which are summed (spread).
    std::optional<z3::expr> x;
    std::vector<const Loop*> tickets;
    if (rg) {
      x = subst(rg->x, base);
      const auto xs = consts({*x});
      for (const Loop& l : o.loops)
        if (has(xs, l.var)) tickets.push_back(&l);
    } else if (const Loop* t = ticket_loop(o)) {
      tickets.push_back(t);
    }
    // The ticket loops' variables as functions of the probe.
    Subst tick;
    z3::expr ok = c_.bool_val(true);
    if (rg) {
      const z3::expr s = subst(rg->s, base), off = subst(rg->off, base);
      const auto os = consts({off});
      for (const Loop* t : tickets)
        if (has(os, t->var)) throw NotChecked{"the ring offset of line " + std::to_string(op.loc.line) + " moves with the phase"};
      ok = ok && E - off >= 0 && E - off < s;
      const z3::expr xstar = Q * s + (E - off);
      invert(*x, xstar, tickets, tick, ok, op.loc);
    } else {
      if (!tickets.empty() && has(used, tickets[0]->var) && has(consts({o.idx}), tickets[0]->var))
        throw NotChecked{"line " + std::to_string(op.loc.line) + " indexes it by its loop variable without a ring (X % S)"};
      ok = ok && subst(o.idx, base) == E;
      if (tickets.empty()) ok = ok && Q == 0;
      else {
        tick.emplace_back(tickets[0]->var, tickets[0]->lo + Q);
      }
    }
    // The other loops: summed by unrolling when the operation depends on
    // their variable, else counted by their trip count.
    std::vector<std::pair<const Loop*, bool>> spread;  // loop, unrolled
    for (const Loop& l : o.loops) {
      if (std::any_of(tickets.begin(), tickets.end(), [&](const Loop* t) { return t == &l; })) continue;
      bool dep = has(used, l.var);
      spread.emplace_back(&l, dep);
    }
    // Enumerate the unrolled loops' iterations.
    std::vector<Subst> its = {{}};
    std::vector<z3::expr> its_ok = {c_.bool_val(true)};
    for (const auto& [l, unroll] : spread) {
      if (!unroll) continue;
      const z3::expr trips = subst(l->hi - l->lo, base);
      const auto ts = consts({trips});
      bool loopdep = false;
      for (const Loop& m : o.loops) loopdep |= has(ts, m.var);
      if (loopdep) throw NotChecked{"the trip count of a loop around line " + std::to_string(op.loc.line) + " moves with an outer loop"};
      const auto nmax = bound(trips);
      if (!nmax) throw NotChecked{"a loop around line " + std::to_string(op.loc.line) + " may run more than 64 times and the operation depends on its variable"};
      std::vector<Subst> next;
      std::vector<z3::expr> next_ok;
      for (std::size_t i = 0; i < its.size(); ++i)
        for (std::int64_t j = 0; j < *nmax; ++j) {
          Subst s = its[i];
          s.emplace_back(l->var, l->lo + c_.int_val(static_cast<int64_t>(j)));
          next.push_back(s);
          next_ok.push_back(its_ok[i] && c_.int_val(static_cast<int64_t>(j)) < l->hi - l->lo);
        }
      its = std::move(next);
      its_ok = std::move(next_ok);
    }
    for (std::size_t i = 0; i < its.size(); ++i) {
      Subst all = base;
      all.insert(all.end(), tick.begin(), tick.end());
      all.insert(all.end(), its[i].begin(), its[i].end());
      iteration_terms(o, cp, bytes, all, tickets, spread, ok, its_ok[i], C, terms);
    }
  }
}

// The terms of one copy of the operation in one iteration of its unrolled
// loops (`all` substitutes their variables, the copy's and the tickets'):
// `ok` and `it_ok` say that it feeds the probed phase and that the
// iteration runs, the spread loops not unrolled multiply it.
void Sym::iteration_terms(const Occ& o, const Copy& cp, const z3::expr& bytes, const Subst& all,
                          const std::vector<const Loop*>& tickets, const std::vector<std::pair<const Loop*, bool>>& spread,
                          const z3::expr& ok, const z3::expr& it_ok, const z3::expr& C, std::vector<Term>& terms) {
  const ir::Op& op = *o.op;
  auto S = [&](const z3::expr& e) { return subst(e, all); };
  z3::expr mult = cp.weight;
  for (const auto& [l, unroll] : spread)
    if (!unroll) mult = mult * z3::ite(S(l->hi) > S(l->lo), S(l->hi) - S(l->lo), c_.int_val(0));
  z3::expr ex = cp.present && S(ok) && S(it_ok) && S(o.guard);
  for (const Loop* t : tickets) ex = ex && S(t->lo) <= S(t->var) && S(t->var) < S(t->hi);
  for (const auto& [l, unroll] : spread)
    if (unroll) ex = ex && S(l->lo) <= S(l->var) && S(l->var) < S(l->hi);
  const z3::expr lanes_e = c_.int_val(lanes(o));
  const z3::expr zero = c_.int_val(0);
  const z3::expr mc = c_.int_val(static_cast<int64_t>(mb::max_count)), mt = c_.int_val(static_cast<int64_t>(mb::max_tx));
  const z3::expr own = c_.int_val(cp.cta);
  const z3::expr target = o.has_cta ? S(o.cta) : own;
  const z3::expr yes = c_.bool_val(true);
  auto push = [&](const z3::expr& hit, const z3::expr& arr, const z3::expr& exp, const z3::expr& del, const z3::expr& cok,
                  const z3::expr& tok) { terms.push_back(Term{ex && hit, arr * mult, exp * mult, del * mult, cok, tok});
  };
  switch (ir::op_phase(op.code)) {
    case ir::PhaseTerm::arrive: {
      const z3::expr n = o.has_count ? S(o.count) : c_.int_val(1);
      const z3::expr tx = o.has_bytes ? S(o.bytes) : zero;
      push(target == C, n * lanes_e, tx * lanes_e, zero, n >= 1 && n <= mc, tx >= 0 && tx <= mt);
      break;
    }
    case ir::PhaseTerm::arrive_expect_tx:
      push(target == C, lanes_e, S(o.bytes) * lanes_e, zero, yes, S(o.bytes) >= 0 && S(o.bytes) <= mt);
      break;
    case ir::PhaseTerm::expect_tx:
      push(target == C, zero, S(o.bytes) * lanes_e, zero, yes, S(o.bytes) >= 0 && S(o.bytes) <= mt);
      break;
    // complete_tx; each executing thread's st.async store or red.async
    // reduction completes its bytes (PTX ISA st.async, red.async).
    case ir::PhaseTerm::complete_tx:
      push(target == C, zero, zero, S(o.bytes) * lanes_e, yes, S(o.bytes) >= 0 && S(o.bytes) <= mt);
      break;
    case ir::PhaseTerm::cp_async_arrive:
      // Without .noinc it raises the pending count by the arrivals it
      // brings (PTX ISA cp.async.mbarrier.arrive): zero net.
      push(own == C, op.noinc ? lanes_e : zero, zero, zero, yes, yes);
      break;
    // A TMA load's bytes, a launch-control response's 16 bytes (spec/clc.hpp),
    // a commit's arrival: in each destination CTA.
    case ir::PhaseTerm::copy_tx:
    case ir::PhaseTerm::commit: {
      const bool commit = ir::op_phase(op.code) == ir::PhaseTerm::commit;
      const z3::expr b_ = commit                               ? zero
                          : op.code == OpCode::clc_try_cancel ? c_.int_val(int64_t{spec::clc::response_bytes})
                                                               : S(bytes);
      const z3::expr arr = commit ? c_.int_val(1) : zero;
      for (int dst = 0; dst < k_.cluster_ctas * k_.grids; ++dst) {  // (`grids 2` has no multicast and no `@`)
        const z3::expr sel = o.has_mask ? z3::mod(truncating_div(S(o.mask), c_.int_val(int64_t(1) << dst)), 2) == 1
                                        : c_.bool_val(dst == cp.cta);
        // The barrier a copy signals: the destination's, or the one named
        // with `@` (spec/rules.hpp signalled_cta); a commit's: the destination's.
        const z3::expr bar_cta = op.code == OpCode::tma_load && o.has_cta ? target : c_.int_val(dst);
        push(sel && bar_cta == C, arr, zero, b_, yes, b_ >= 0 && b_ <= mt);
      }
      break;
    }
    case ir::PhaseTerm::none: break;  // not a contribution (contributes): no term
  }
}

void Sym::invert(const z3::expr& x, const z3::expr& xstar, const std::vector<const Loop*>& tickets, Subst& tick, z3::expr& ok,
                 ir::Loc loc) {
  const std::string at = "line " + std::to_string(loc.line);
  const auto xs = consts({x});
  for (const std::string& n : xs)
    if (n.rfind("L!", 0) == 0 &&
        std::none_of(tickets.begin(), tickets.end(), [&](const Loop* t) { return t->var.decl().name().str() == n; }))
      throw NotChecked{"the ring ticket of " + at + " names a loop variable of another scope"};
  auto at_values = [&](std::vector<std::int64_t> vals) {
    Subst s;
    for (std::size_t i = 0; i < tickets.size(); ++i) s.emplace_back(tickets[i]->var, c_.int_val(static_cast<int64_t>(vals[i])));
    return subst(x, s).simplify();
  };
  if (tickets.empty()) {
    ok = ok && x == xstar;
    return;
  }
  if (tickets.size() == 1) {
    const Loop& l = *tickets[0];
    const z3::expr beta = at_values({0});
    const z3::expr alpha = (at_values({1}) - beta).simplify();
    if (!valid(x == alpha * l.var + beta)) throw NotChecked{"the ring ticket of " + at + " is not linear in its loop variable"};
    if (!valid(alpha != 0)) throw NotChecked{"the ring ticket of " + at + " may not move with its loop"};
    ok = ok && z3::mod(xstar - beta, alpha) == 0;
    tick.emplace_back(l.var, (xstar - beta) / alpha);
    return;
  }
  if (tickets.size() == 2) {
    const Loop& u = *tickets[0];
    const Loop& v = *tickets[1];
    const z3::expr beta = at_values({0, 0});
    const z3::expr au = (at_values({1, 0}) - beta).simplify(), av = (at_values({0, 1}) - beta).simplify();
    std::int64_t one = 0;
    if (!av.is_numeral_i64(one) || one != 1)
      throw NotChecked{"the ring ticket of " + at + " does not step by 1 in its inner loop"};
    if (!valid(x == au * u.var + v.var + beta)) throw NotChecked{"the ring ticket of " + at + " is not linear in its loops"};
    const auto vb = consts({v.lo, v.hi});
    if (has(vb, u.var)) throw NotChecked{"the inner loop of " + at + " has bounds that move with the outer loop"};
    if (!valid(au > 0 && v.hi - v.lo <= au))
      throw NotChecked{"the ring ticket of " + at + " is not one-to-one over its two loops"};
    const z3::expr dd = xstar - beta - v.lo;
    tick.emplace_back(u.var, dd / au);
    tick.emplace_back(v.var, v.lo + z3::mod(dd, au));
    return;
  }
  throw NotChecked{"the ring ticket of " + at + " runs over more than two loops"};
}

}  // namespace pc::smt::sym
