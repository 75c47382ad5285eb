// Producer/consumer pairs by Z3 (checker/place/pairs.hpp).
#include "checker/place/pairs.hpp"

#include <z3++.h>

namespace pc::place {

namespace {

// The group's two roles, in kernel order; false if it has another number.
bool two_roles(const Analysis& a, int group, int& r0, int& r1) {
  r0 = r1 = -1;
  int n = 0;
  for (int r = 0; r < a.roles; ++r)
    if (a.group[static_cast<std::size_t>(r)] == group) (n++ == 0 ? r0 : r1) = r;
  return n == 2;
}

}  // namespace

bool pairs_apply(const Analysis& a, int group) {
  int r0 = 0, r1 = 0;
  if (!two_roles(a, group, r0, r1)) return false;
  for (const Window& w : a.windows) {
    if (w.slots.empty()) continue;
    const int role = a.slots[static_cast<std::size_t>(w.slots.front())].role;
    if (role == r0 || role == r1) return false;
  }
  for (const Cross& c : a.cross)
    if (a.group[static_cast<std::size_t>(c.from_run % a.roles)] == group) return true;
  return false;
}

PairsResult ring_pairs(const PairsResult& pair, const std::vector<bool>& ring_slots, const std::string& stages) {
  PairsResult r = pair;
  for (Channel& c : r.pairs.channels) {
    const bool once = c.arrivals.size() == 1 && c.waits.size() == 1;
    if (!once || !ring_slots[static_cast<std::size_t>(c.arrivals[0])] || !ring_slots[static_cast<std::size_t>(c.waits[0])]) {
      r.found = false;
      return r;
    }
    c.ring = stages;
  }
  return r;
}

PairsResult minimum_pairs(const Analysis& a, int group, const std::vector<std::vector<int>>& blocked) {
  PairsResult out;
  int r0 = 0, r1 = 0;
  if (!two_roles(a, group, r0, r1)) return out;
  const int from_role[2] = {r0, r1}, to_role[2] = {r1, r0};
  z3::context c;
  z3::optimize opt(c);
  z3::params p(c);
  p.set("timeout", 60000u);
  opt.set(p);
  // Per channel and slot: arrivals (at the source role's slots) and waits
  // (at the destination's), up to two back to back; 0 elsewhere.
  const std::size_t n = a.slots.size();
  std::vector<std::vector<z3::expr>> arr(2), wt(2);
  z3::expr_vector all(c);  // every variable, in the key's order
  z3::expr total = c.int_val(0);
  for (int ch = 0; ch < 2; ++ch)
    for (int kind = 0; kind < 2; ++kind) {
      auto& v = kind == 0 ? arr[static_cast<std::size_t>(ch)] : wt[static_cast<std::size_t>(ch)];
      const int role = kind == 0 ? from_role[ch] : to_role[ch];
      for (std::size_t s = 0; s < n; ++s) {
        if (a.slots[s].role != role) {
          v.push_back(c.int_val(0));
          continue;
        }
        z3::expr x = c.int_const(("c" + std::to_string(ch) + (kind ? "w" : "a") + std::to_string(s)).c_str());
        opt.add(x >= 0 && x <= 2);
        v.push_back(x);
        all.push_back(x);
        total = total + x;
      }
    }
  z3::expr initial[2] = {c.int_const("init0"), c.int_const("init1")};
  for (const z3::expr& i : initial) {
    opt.add(i >= 0 && i <= 1);
    all.push_back(i);
  }
  auto passed = [&](const std::vector<z3::expr>& v, int run, int upto) {
    const std::vector<int> counts = pass_counts(a, run, upto);
    z3::expr sum = c.int_val(0);
    for (std::size_t s = 0; s < counts.size(); ++s)
      if (counts[s]) sum = sum + v[s] * counts[s];
    return sum;
  };
  for (const Cross& h : a.cross) {
    const int fr = h.from_run % a.roles;
    if (a.group[static_cast<std::size_t>(fr)] != group) continue;
    const std::size_t ch = fr == r0 ? 0 : 1;
    opt.add(passed(wt[ch], h.to_run, h.to) - initial[ch] >= passed(arr[ch], h.from_run, h.from) + 1);
  }
  // Every wait is matched by arrivals, in every run.
  for (std::size_t base = 0; base < a.passes.size(); base += static_cast<std::size_t>(a.roles))
    for (std::size_t ch = 0; ch < 2; ++ch) {
      const int src = static_cast<int>(base) + from_role[ch], dst = static_cast<int>(base) + to_role[ch];
      opt.add(passed(wt[ch], dst, static_cast<int>(a.passes[static_cast<std::size_t>(dst)].size())) - initial[ch] <=
              passed(arr[ch], src, static_cast<int>(a.passes[static_cast<std::size_t>(src)].size())));
    }
  // The trip-by-trip schedule that gives the hazards their order runs
  // without blocking: at each pass of the destination role, its waits so
  // far (this pass's included) are matched by arrivals the source role made
  // before that point of the schedule (trips begun, then role order).
  for (std::size_t base = 0; base < a.passes.size(); base += static_cast<std::size_t>(a.roles))
    for (std::size_t ch = 0; ch < 2; ++ch) {
      const int src = static_cast<int>(base) + from_role[ch], dst = static_cast<int>(base) + to_role[ch];
      const std::vector<int>& st = a.pass_trips[static_cast<std::size_t>(src)];
      const std::vector<int>& dt = a.pass_trips[static_cast<std::size_t>(dst)];
      std::size_t q = 0;
      for (std::size_t pass = 0; pass < dt.size(); ++pass) {
        while (q < st.size() && (st[q] < dt[pass] || (st[q] == dt[pass] && from_role[ch] < to_role[ch]))) ++q;
        opt.add(passed(wt[ch], dst, static_cast<int>(pass) + 1) - initial[ch] <= passed(arr[ch], src, static_cast<int>(q)));
      }
    }
  for (const std::vector<int>& key : blocked) {
    z3::expr_vector differs(c);
    for (unsigned i = 0; i < all.size() && i < key.size(); ++i) differs.push_back(all[i] != key[i]);
    opt.add(z3::mk_or(differs));
  }
  opt.minimize(total);
  if (opt.check() != z3::sat) return out;
  const z3::model m = opt.get_model();
  for (unsigned i = 0; i < all.size(); ++i) out.key.push_back(m.eval(all[i], true).get_numeral_int());
  for (std::size_t ch = 0; ch < 2; ++ch) {
    Channel k;
    k.from_role = from_role[ch], k.to_role = to_role[ch];
    k.initial = m.eval(initial[ch], true).get_numeral_int();
    for (std::size_t s = 0; s < n; ++s) {
      for (int x = m.eval(arr[ch][s], true).get_numeral_int(); x > 0; --x) k.arrivals.push_back(static_cast<int>(s));
      for (int x = m.eval(wt[ch][s], true).get_numeral_int(); x > 0; --x) k.waits.push_back(static_cast<int>(s));
    }
    if (!k.arrivals.empty() || !k.waits.empty()) out.pairs.channels.push_back(std::move(k));
  }
  out.found = true;
  out.pairs.optimum = blocked.empty();
  out.statements = 0;
  for (const Channel& ch : out.pairs.channels) out.statements += static_cast<int>(ch.arrivals.size() + ch.waits.size());
  return out;
}

}  // namespace pc::place
