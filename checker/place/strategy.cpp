#include "checker/place/strategy.hpp"

#include <algorithm>
#include <cstdint>

namespace pc::place {

std::vector<int> greedy(const Analysis& a) {
  std::vector<std::size_t> order(a.spans.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    const Span &p = a.spans[x], &q = a.spans[y];
    return p.cta != q.cta ? p.cta < q.cta : p.to < q.to;
  });
  std::vector<bool> chosen(a.slots.size(), false);
  std::vector<int> out;
  for (const std::size_t i : order) {
    const Span& s = a.spans[i];
    bool hit = false;
    for (const int slot : a.windows[static_cast<std::size_t>(s.window)].slots) hit |= chosen[static_cast<std::size_t>(slot)];
    if (hit) continue;
    const int slot = a.passes[static_cast<std::size_t>(s.cta)][static_cast<std::size_t>(s.to - 1)];
    chosen[static_cast<std::size_t>(slot)] = true;
    out.push_back(slot);
  }
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

struct Pair {
  int signal = 0, wait = 0;  // passes
};

// The signal/wait pairs of one CTA in pass order, or false where they do not
// alternate. At one pass: waits whose signal came earlier, then signals,
// then the waits signalled at this very pass.
bool pairs_of(const Split& s, const std::vector<int>& passes, std::vector<Pair>& out, std::vector<long long>* gap) {
  out.clear();
  int open = -1, open_at = 0;
  for (std::size_t p = 0; p < passes.size(); ++p) {
    const int slot = passes[p];
    for (std::size_t w = 0; w < s.waits.size(); ++w) {
      if (s.waits[w] != slot || s.signals[w] == slot) continue;
      if (open != static_cast<int>(w)) return false;
      out.push_back({open_at, static_cast<int>(p)});
      if (gap) (*gap)[w] += static_cast<long long>(p) - open_at;
      open = -1;
    }
    for (std::size_t w = 0; w < s.waits.size(); ++w) {
      if (s.signals[w] != slot) continue;
      if (open >= 0) return false;
      open = static_cast<int>(w), open_at = static_cast<int>(p);
      if (s.waits[w] == slot) {
        out.push_back({open_at, static_cast<int>(p)});
        open = -1;
      }
    }
  }
  return open < 0;
}

bool valid_with_gap(const Analysis& a, const Split& s, std::vector<long long>* gap) {
  std::vector<std::vector<Pair>> pairs(a.passes.size());
  for (std::size_t c = 0; c < a.passes.size(); ++c)
    if (!pairs_of(s, a.passes[c], pairs[c], gap)) return false;
  for (const Span& sp : a.spans) {
    const std::vector<Pair>& ps = pairs[static_cast<std::size_t>(sp.cta)];
    const auto it = std::lower_bound(ps.begin(), ps.end(), sp.from, [](const Pair& x, int v) { return x.signal < v; });
    if (it == ps.end() || it->wait >= sp.to) return false;
  }
  return true;
}

}  // namespace

bool valid(const Analysis& a, const Split& s) { return valid_with_gap(a, s, nullptr); }

Split early_signals(const Analysis& a, const std::vector<int>& waits) {
  Split s{waits, waits};
  for (std::size_t w = 0; w < waits.size(); ++w) {
    const Slot& at = a.slots[static_cast<std::size_t>(waits[w])];
    int best = waits[w];
    long long best_gap = -1;
    // The slots of the wait's list, from the first to the wait's own.
    for (std::size_t id = 0; id < a.slots.size(); ++id) {
      const Slot& c = a.slots[id];
      if (c.list != at.list || c.index > at.index) continue;
      Split t = s;
      t.signals[w] = static_cast<int>(id);
      std::vector<long long> gap(waits.size(), 0);
      if (!valid_with_gap(a, t, &gap)) continue;
      if (gap[w] > best_gap) best_gap = gap[w], best = static_cast<int>(id);
    }
    s.signals[w] = best;
  }
  return s;
}

}  // namespace pc::place
