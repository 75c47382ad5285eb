#include "checker/smt/bmc.hpp"

#include <z3++.h>

#include <algorithm>
#include <cstdio>
#include <initializer_list>
#include <memory>
#include <utility>

#include "checker/program.hpp"
#include "checker/smt/bmc_encoder.hpp"
#include "checker/smt/bmc_fragment.hpp"

namespace pc::smt {
namespace {

using bmc::Fragment;
using bmc::encoding::and2;
using bmc::encoding::Case;
using bmc::encoding::each_field;
using bmc::encoding::Encoder;
using bmc::encoding::Exprs;
using bmc::encoding::or2;
using bmc::encoding::Raise;
using bmc::encoding::State;
using spec::Violation;

// At most one of `x`, in clauses: pairwise for a few (the quickest on the
// agreement test's generated kernels), else a sequential counter (C. Sinz,
// "Towards an Optimal CNF Encoding of Boolean Cardinality Constraints", CP
// 2005), where `some` says that one of x[0..i] holds. Z3 4.8.12's own `atmost`
// (a pseudo-Boolean constraint) answered unsat, in this incremental use, for
// a depth a run did reach: the search stopped there and called a kernel
// with an invalidated-barrier use "verified" (a generated kernel of the
// agreement test).
void at_most_one(z3::solver& solver, const z3::expr_vector& x, const std::string& prefix) {
  z3::context& c = solver.ctx();
  if (x.size() <= 32) {
    for (unsigned i = 0; i < x.size(); ++i)
      for (unsigned j = i + 1; j < x.size(); ++j) solver.add(!x[i] || !x[j]);
    return;
  }
  z3::expr some = x[0];
  for (unsigned i = 1; i < x.size(); ++i) {
    solver.add(!some || !x[i]);
    if (i + 1 == x.size()) break;
    const z3::expr next = c.bool_const((prefix + std::to_string(i)).c_str());
    solver.add(!some || next);
    solver.add(!x[i] || next);
    some = next;
  }
}

// The peephole reduction (Wang, Yang, Kahlon, Gupta, "Peephole Partial
// Order Reduction", TACAS 2008): two adjacent steps of different processes
// that touch no common object (one writing it) commute, so every run is
// equivalent to one where such a pair comes in process order, reaching
// the same states; the search takes only those. `before[i]`: the cases
// that may not come right before case i. The case list is the same at
// every depth.
std::vector<std::vector<int>> reduction_order(Encoder& enc, const State& s) {
  std::vector<std::vector<int>> before;
  const std::vector<Case> proto = enc.cases(s);
  auto meets = [](const std::vector<int>& x, const std::vector<int>& y) {
    for (const int a : x)
      for (const int b : y)
        if (a == b) return true;
    return false;
  };
  before.resize(proto.size());
  for (std::size_t i = 0; i < proto.size(); ++i)
    for (std::size_t j = 0; j < proto.size(); ++j) {
      const Case& first = proto[j];
      const Case& second = proto[i];
      if (second.proc >= first.proc) continue;
      if (meets(first.writes, second.writes) || meets(first.writes, second.reads) || meets(second.writes, first.reads)) continue;
      before[i].push_back(static_cast<int>(j));
    }
  return before;
}

// A violation found at `depth`: the steps the model takes to it, then what
// fails (a deadlock where no raise holds).
void report(const z3::model& model, int depth, const std::vector<std::vector<z3::expr>>& picks,
            const std::vector<std::vector<std::string>>& texts, const std::vector<Case>& cases,
            const std::vector<std::pair<std::size_t, const Raise*>>& which, BmcResult& out) {
  out.verdict = BmcResult::Verdict::violation;
  out.depth = depth;
  for (int d = 0; d < depth; ++d) {
    const std::vector<z3::expr>& pick = picks[static_cast<std::size_t>(d)];
    for (std::size_t i = 0; i < pick.size(); ++i)
      if (!pick[i].is_false() && model.eval(pick[i], true).is_true())
        out.trace.push_back(texts[static_cast<std::size_t>(d)][i]);
  }
  out.kind = Violation::deadlock;
  for (const auto& [i, r] : which)
    if (model.eval(cases[i].guard && r->when, true).is_true()) {
      if (r->declines) {
        out.verdict = BmcResult::Verdict::not_covered;
        out.trace.clear();
        out.reason = "at depth " + std::to_string(depth) + ", " + cases[i].text +
                     " may complete a phase with part of its threads (the explicit search lets the others arrive later)";
        return;
      }
      out.kind = r->kind;
      out.trace.push_back(cases[i].text + " -> " + std::string(spec::violation_name(r->kind)));
      break;
    }
  if (out.kind == Violation::deadlock) out.trace.push_back("no step is enabled: deadlock");
}

// The next state: each field a fresh constant equal to what the chosen
// case makes of it.
State next_state(z3::solver& solver, int depth, const State& s, const std::vector<Case>& cases,
                 const std::vector<std::size_t>& live, const std::vector<z3::expr>& pick) {
  z3::context& c = solver.ctx();
  State next = s;
  std::vector<Exprs*> mine;
  std::vector<const Exprs*> old;
  each_field(next, [&](Exprs& v) { mine.push_back(&v); });
  each_field(std::as_const(s), [&](const Exprs& v) { old.push_back(&v); });
  std::vector<std::vector<const Exprs*>> per_case(cases.size());
  for (const std::size_t i : live)
    each_field(std::as_const(cases[i].next), [&](const Exprs& v) { per_case[i].push_back(&v); });
  int fresh = 0;
  std::vector<std::size_t> writers;  // the live cases that do not share the field with s
  for (std::size_t fld = 0; fld < mine.size(); ++fld) {
    writers.clear();
    for (const std::size_t i : live)
      if (!per_case[i][fld]->shares(*old[fld])) writers.push_back(i);
    if (writers.empty()) continue;
    for (std::size_t x = 0; x < old[fld]->size(); ++x) {
      const z3::expr& was = (*old[fld])[x];
      z3::expr value = was;
      bool changed = false;
      for (std::size_t k = writers.size(); k-- > 0;) {
        const std::size_t i = writers[k];
        const z3::expr& after = (*per_case[i][fld])[x];
        if (z3::eq(after, was)) continue;
        value = z3::ite(pick[i], after, value);
        changed = true;
      }
      if (!changed) continue;
      const z3::expr v = c.constant(("s" + std::to_string(depth) + "_" + std::to_string(fresh++)).c_str(), was.get_sort());
      solver.add(v == value);
      (*mine[fld])[x] = v;
    }
  }
  return next;
}

}  // namespace

BmcResult bounded_search(const ir::Kernel& k, const BmcOptions& opt) {
  BmcResult out;
  const Fragment f = bmc::unroll(k);
  if (!f.refused.empty()) {
    out.verdict = BmcResult::Verdict::not_covered;
    out.reason = f.refused;
    return out;
  }
  // explore.cpp, check: the kernel's text against spec::tmem::same_cta_group, before any schedule.
  if (const check::TextViolation t = check::cta_group_mix(k);
      t.kind != spec::Violation::none && (opt.only == spec::Violation::none || opt.only == t.kind)) {
    out.verdict = BmcResult::Verdict::violation;
    out.kind = t.kind;
    out.trace.push_back("line " + std::to_string(t.loc.line) + ": " + t.message);
    return out;
  }
  Encoder enc(f);
  z3::context& c = enc.ctx();
  z3::solver solver(c);
  // The budget is Z3's resource count, the same on every machine: a check
  // that runs out of it ends the search at the depth before.
  if (opt.budget > 0) {
    z3::params limit(c);
    limit.set("rlimit", static_cast<unsigned>(opt.budget));
    solver.set(limit);
  }
  auto out_of_budget = [&](int depth) {
    out.verdict = BmcResult::Verdict::bounded;
    out.depth = depth - 1;
    out.reason = "its budget ran out at depth " + std::to_string(depth);
    return out;
  };
  // Every run ends within this many steps: each step moves an agent on, lands
  // a load, or parks an agent at a bar_sync it then leaves.
  int bound = static_cast<int>(f.tmas.size());
  for (const bmc::Agent& a : f.agents) bound += 2 * static_cast<int>(a.steps.size());
  State s = enc.initial();
  std::vector<std::vector<int>> before;
  if (opt.reduction) before = reduction_order(enc, s);
  // Per depth, per case, the Boolean that it is the step taken there
  // (false where the case cannot be enabled at that depth); its text.
  std::vector<std::vector<z3::expr>> picks;
  std::vector<std::vector<std::string>> texts;
  auto wanted = [&](Violation v) { return opt.only == Violation::none || opt.only == v; };
  const int last = opt.max_depth > 0 && opt.max_depth < bound ? opt.max_depth : bound;
  for (int depth = 0; depth <= last; ++depth) {
    std::vector<Case> cases = enc.cases(s);
    // The cases that may be enabled at this depth (an agent is at most
    // `depth` steps on: the others' guards are the literal false).
    std::vector<std::size_t> live;
    for (std::size_t i = 0; i < cases.size(); ++i)
      if (!cases[i].guard.is_false()) live.push_back(i);
    z3::expr any_enabled = c.bool_val(false);
    for (const std::size_t i : live) any_enabled = or2(any_enabled, cases[i].guard);
    // What can go wrong from this state: a deadlock, or an enabled step
    // that raises a violation.
    z3::expr_vector bad(c);
    std::vector<std::pair<std::size_t, const Raise*>> which;
    if (wanted(Violation::deadlock)) bad.push_back(!any_enabled && !enc.all_exited(s));
    for (const std::size_t i : live)
      for (const Raise& r : cases[i].raises)
        if ((r.declines || wanted(r.kind)) && !r.when.is_false()) {
          bad.push_back(and2(cases[i].guard, r.when));
          which.emplace_back(i, &r);
        }
    const z3::expr flag = c.bool_const(("bad" + std::to_string(depth)).c_str());
    solver.add(z3::implies(flag, z3::mk_or(bad)));
    z3::expr_vector assume(c);
    assume.push_back(flag);
    const z3::check_result found = solver.check(assume);
    if (found == z3::unknown) return out_of_budget(depth);
    if (found == z3::sat) {
      report(solver.get_model(), depth, picks, texts, cases, which, out);
      return out;
    }
    solver.add(!flag);
    // Take one enabled step that raises nothing.
    std::vector<z3::expr> pick(cases.size(), c.bool_val(false));
    z3::expr_vector taken(c), one(c);
    std::vector<std::string> names;
    for (const Case& x : cases) names.push_back(x.text);
    for (const std::size_t i : live) {
      pick[i] = c.bool_const(("step" + std::to_string(depth) + "_" + std::to_string(i)).c_str());
      one.push_back(pick[i]);
      z3::expr ok = cases[i].guard;
      for (const Raise& r : cases[i].raises) ok = and2(ok, !r.when);
      taken.push_back(pick[i] && ok);
    }
    solver.add(z3::mk_or(taken));
    at_most_one(solver, one, "one" + std::to_string(depth) + "_");
    if (!before.empty() && !picks.empty()) {
      const std::vector<z3::expr>& prev = picks.back();
      for (const std::size_t i : live)
        for (const int j : before[i])
          if (!prev[static_cast<std::size_t>(j)].is_false()) solver.add(!pick[i] || !prev[static_cast<std::size_t>(j)]);
    }
    const z3::check_result goes_on = solver.check();
    if (goes_on == z3::unknown) return out_of_budget(depth);
    if (goes_on != z3::sat) {
      out.depth = depth;
      return out;  // every run has ended, none wrong
    }
    if (depth == last) break;
    State next = next_state(solver, depth, s, cases, live, pick);
    picks.push_back(std::move(pick));
    texts.push_back(std::move(names));
    s = next;
  }
  // Some run goes on past the depth asked for: nothing is said of it.
  out.depth = last;
  out.verdict = BmcResult::Verdict::bounded;
  return out;
}

}  // namespace pc::smt
