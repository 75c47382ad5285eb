// The exact minimum of a placement, by Z3 (checker/place/strategy.hpp).
#include <z3++.h>

#include <algorithm>

#include "checker/place/strategy.hpp"

namespace pc::place {

Minimum minimum(const Analysis& a, const std::vector<int>& prefer) {
  Minimum m;
  if (a.windows.empty()) {
    m.proved = true;
    m.detail = "no hazards: no barrier is needed";
    return m;
  }
  z3::context c;
  std::vector<int> used;  // the slots some window names
  for (const Window& w : a.windows) used.insert(used.end(), w.slots.begin(), w.slots.end());
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  std::vector<int> var(a.slots.size(), -1);
  z3::expr_vector b(c);
  for (std::size_t i = 0; i < used.size(); ++i) {
    var[static_cast<std::size_t>(used[i])] = static_cast<int>(i);
    b.push_back(c.bool_const(("slot" + std::to_string(used[i])).c_str()));
  }
  auto cover = [&](auto& solver) {
    for (const Window& w : a.windows) {
      z3::expr_vector any(c);
      for (const int s : w.slots) any.push_back(b[static_cast<unsigned>(var[static_cast<std::size_t>(s)])]);
      solver.add(z3::mk_or(any));
    }
  };
  z3::optimize opt(c);
  cover(opt);
  z3::expr sum = c.int_val(0);
  for (unsigned i = 0; i < b.size(); ++i) sum = sum + z3::ite(b[i], c.int_val(1), c.int_val(0));
  opt.minimize(sum);
  if (opt.check() != z3::sat) {
    m.detail = "Z3 found no placement (unexpected)";
    m.slots = prefer;
    return m;
  }
  const z3::model model = opt.get_model();
  std::vector<int> best;
  for (unsigned i = 0; i < b.size(); ++i)
    if (model.eval(b[i], true).is_true()) best.push_back(used[i]);
  m.slots = best.size() == prefer.size() ? prefer : best;
  // The proof: no set of one slot fewer orders every hazard.
  const int k = static_cast<int>(m.slots.size());
  z3::solver s(c);
  cover(s);
  std::vector<int> ones(b.size(), 1);
  s.add(z3::pble(b, ones.data(), k - 1));
  const z3::check_result r = s.check();
  m.proved = r == z3::unsat;
  m.detail = m.proved ? "Z3: no placement of " + std::to_string(k - 1) + " barrier" + (k - 1 == 1 ? "" : "s") +
                            " orders the " + std::to_string(a.windows.size()) + " hazard window" +
                            (a.windows.size() == 1 ? "" : "s") + " (unsat)"
                      : "Z3 could not prove that " + std::to_string(k - 1) + " barriers do not suffice";
  return m;
}

}  // namespace pc::place
