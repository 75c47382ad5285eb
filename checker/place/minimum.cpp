// The exact minimum of a placement, by Z3 (checker/place/strategy.hpp).
#include <z3++.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "checker/place/strategy.hpp"

namespace pc::place {

namespace {

bool subset(const std::vector<int>& a, const std::vector<int>& b) {  // both sorted
  return std::includes(b.begin(), b.end(), a.begin(), a.end());
}

// The windows that matter: one that contains another is hit whenever that
// one is.
std::vector<const std::vector<int>*> minimal_windows(const Analysis& a) {
  std::vector<const std::vector<int>*> w;
  for (const Window& x : a.windows) w.push_back(&x.slots);
  std::sort(w.begin(), w.end(), [](const auto* x, const auto* y) { return x->size() < y->size(); });
  std::vector<const std::vector<int>*> kept;
  for (const auto* x : w) {
    bool implied = false;
    for (const auto* y : kept)
      if (subset(*y, *x)) {
        implied = true;
        break;
      }
    if (!implied) kept.push_back(x);
  }
  return kept;
}

// Pairwise disjoint windows, smallest first: each needs a barrier of its own.
std::vector<const std::vector<int>*> disjoint(const std::vector<const std::vector<int>*>& w, std::size_t slots) {
  std::vector<bool> used(slots, false);
  std::vector<const std::vector<int>*> out;
  for (const auto* x : w) {
    bool free = true;
    for (const int s : *x) free &= !used[static_cast<std::size_t>(s)];
    if (!free) continue;
    for (const int s : *x) used[static_cast<std::size_t>(s)] = true;
    out.push_back(x);
  }
  return out;
}

}  // namespace

Minimum minimum(const Analysis& a, const std::vector<int>& prefer) {
  Minimum m;
  if (a.windows.empty()) {
    m.proved = true;
    m.detail = "no hazards: no barrier is needed";
    return m;
  }
  const std::vector<const std::vector<int>*> windows = minimal_windows(a);
  const std::vector<const std::vector<int>*> packing = disjoint(windows, a.slots.size());
  z3::context c;
  std::vector<int> var(a.slots.size(), -1);
  std::vector<int> used;
  z3::expr_vector b(c);
  for (const auto* w : windows)
    for (const int s : *w)
      if (var[static_cast<std::size_t>(s)] < 0) {
        var[static_cast<std::size_t>(s)] = static_cast<int>(used.size());
        used.push_back(s);
        b.push_back(c.bool_const(("slot" + std::to_string(s)).c_str()));
      }
  auto cover = [&](auto& solver, const std::vector<const std::vector<int>*>& ws) {
    for (const auto* w : ws) {
      z3::expr_vector any(c);
      for (const int s : *w) any.push_back(b[static_cast<unsigned>(var[static_cast<std::size_t>(s)])]);
      solver.add(z3::mk_or(any));
    }
  };
  // Where as many windows are disjoint as the greedy placed barriers, the
  // greedy placement is a minimum, and those windows alone prove it; else
  // Z3's optimizer looks for fewer (at most a minute).
  m.slots = prefer;
  if (packing.size() == prefer.size()) {
    // The proof: no set of one slot fewer hits the disjoint windows.
    const int k = static_cast<int>(m.slots.size());
    z3::solver s(c);
    z3::params p(c);
    p.set("timeout", 60000u);
    s.set(p);
    cover(s, packing);
    std::vector<int> ones(b.size(), 1);
    s.add(z3::pble(b, ones.data(), k - 1));
    m.proved = s.check() == z3::unsat;
    const std::string fewer = std::to_string(k - 1) + " barrier" + (k - 1 == 1 ? "" : "s");
    m.detail = !m.proved ? "Z3 could not prove that " + fewer + " do not suffice"
               : packing.size() == a.windows.size()
                   ? "Z3: no placement of " + fewer + " orders the " + std::to_string(a.windows.size()) + " hazard window" +
                         (a.windows.size() == 1 ? "" : "s") + " (unsat)"
                   : "Z3: no placement of " + fewer + " orders " + std::to_string(packing.size()) +
                         " disjoint windows of the " + std::to_string(a.windows.size()) + " (unsat)";
  } else {
    z3::optimize opt(c);
    z3::params p(c);
    p.set("timeout", 60000u);
    opt.set(p);
    cover(opt, windows);
    z3::expr sum = c.int_val(0);
    for (unsigned i = 0; i < b.size(); ++i) sum = sum + z3::ite(b[i], c.int_val(1), c.int_val(0));
    opt.minimize(sum);
    if (opt.check() == z3::sat) {
      const z3::model model = opt.get_model();
      std::vector<int> best;
      for (unsigned i = 0; i < b.size(); ++i)
        if (model.eval(b[i], true).is_true()) best.push_back(used[i]);
      std::sort(best.begin(), best.end());
      if (best.size() < prefer.size()) m.slots = best;
      // sat from the optimizer is its optimum: no model with fewer.
      m.proved = true;
      const int k = static_cast<int>(m.slots.size());
      m.detail = "Z3's optimizer: no placement of " + std::to_string(k - 1) + " barrier" + (k - 1 == 1 ? "" : "s") +
                 " orders the " + std::to_string(windows.size()) + " windows that contain no other (optimum)";
    } else {
      m.detail = "Z3's optimizer found no optimum within a minute; the greedy placement is kept";
    }
  }
  return m;
}

RolesMinimum minimum_roles(const Analysis& a, int max_per_slot) {
  RolesMinimum out;
  Minimum& m = out.m;
  if (a.windows.empty()) {
    m.proved = true;
    m.detail = "no hazards: no barrier is needed";
    return out;
  }
  z3::context c;
  z3::optimize opt(c);
  z3::params p(c);
  p.set("timeout", 60000u);
  opt.set(p);
  // How many barriers at each slot (back to back: a role may need to pass
  // two generations of its group's barrier between two of its accesses).
  z3::expr_vector x(c);
  for (std::size_t s = 0; s < a.slots.size(); ++s) {
    x.push_back(c.int_const(("slot" + std::to_string(s)).c_str()));
    opt.add(x.back() >= 0 && x.back() <= max_per_slot);
  }
  // The barriers a pass list passes in its first n passes.
  auto passed = [&](int run, int n) {
    const std::vector<int> counts = pass_counts(a, run, n);
    z3::expr sum = c.int_val(0);
    for (std::size_t s = 0; s < counts.size(); ++s)
      if (counts[s]) sum = sum + x[static_cast<unsigned>(s)] * counts[s];
    return sum;
  };
  for (const Window& w : a.windows) {
    if (w.slots.empty()) continue;
    z3::expr_vector any(c);
    for (const int s : w.slots) any.push_back(x[static_cast<unsigned>(s)] > 0);
    opt.add(z3::mk_or(any));
  }
  std::set<std::tuple<int, int, int, int>> seen;
  for (const Cross& h : a.cross)
    if (seen.insert({h.from_run, h.from, h.to_run, h.to}).second) opt.add(passed(h.to_run, h.to) >= passed(h.from_run, h.from) + 1);
  for (std::size_t base = 0; base < a.passes.size(); base += static_cast<std::size_t>(a.roles))
    for (int r = 0; r < a.roles; ++r) {
      const int g = a.group[static_cast<std::size_t>(r)];
      if (g == r) continue;
      const int first = static_cast<int>(base) + g, mine = static_cast<int>(base) + r;
      opt.add(passed(first, static_cast<int>(a.passes[static_cast<std::size_t>(first)].size())) ==
              passed(mine, static_cast<int>(a.passes[static_cast<std::size_t>(mine)].size())));
    }
  z3::expr total = c.int_val(0);
  for (unsigned s = 0; s < x.size(); ++s) total = total + x[s];
  opt.minimize(total);
  const z3::check_result r = opt.check();
  if (r == z3::unsat) {
    out.impossible = true;
    m.detail = "no placement of named barriers orders these hazards with every role of a group passing its barrier "
               "equally often";
    return out;
  }
  if (r != z3::sat) {
    m.detail = "Z3's optimizer found no placement within a minute";
    out.impossible = true;
    return out;
  }
  const z3::model model = opt.get_model();
  for (unsigned s = 0; s < x.size(); ++s)
    for (int n = model.eval(x[s], true).get_numeral_int(); n > 0; --n) m.slots.push_back(static_cast<int>(s));
  m.proved = true;
  const int k = static_cast<int>(m.slots.size());
  m.detail = "Z3's optimizer: no placement of " + std::to_string(k - 1) + " barrier statement" + (k - 1 == 1 ? "" : "s") +
             " orders the " + std::to_string(a.windows.size()) + " hazards with every role of a group passing its " +
             "barrier equally often (optimum)";
  return out;
}

}  // namespace pc::place
