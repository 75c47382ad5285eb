#include "checker/ptx/cfg.hpp"

#include <algorithm>
#include <string>

namespace pc::ptx {
namespace {

// Instructions with no destination register: the first operand is read.
bool writes_first(const Instr& in) {
  const std::string& m = in.parts[0];
  static const char* const none[] = {"st", "red", "bar", "barrier", "fence", "membar", "cp", "bra", "brx", "ret", "exit",
                                     "call", "prefetch", "prefetchu", "trap", "nanosleep", "setmaxnreg", "griddepcontrol",
                                     "stmatrix", "discard", "applypriority", "pmevent", "brkpt", "tensormap", "wgmma",
                                     "cp.async", "multimem"};
  for (const char* x : none)
    if (m == x) return false;
  if (m == "mbarrier" && in.parts.size() > 1) {
    const std::string& s = in.parts[1];
    return s != "init" && s != "expect_tx" && s != "complete_tx" && s != "inval";
  }
  if (m == "tcgen05") return in.parts.size() > 1 && in.parts[1] == "ld";
  return !in.args.empty();
}

void add_regs(const Operand& o, std::vector<int>& out) {
  if (o.kind == Operand::Kind::reg) {
    out.push_back(o.reg);
    if (o.reg2 >= 0) out.push_back(o.reg2);
  } else if (o.kind == Operand::Kind::addr && o.reg >= 0) {
    out.push_back(o.reg);
  } else if (o.kind == Operand::Kind::vec) {
    for (const Operand& e : o.elems) add_regs(e, out);
  }
}

std::vector<int> successors(const Function& f, int i) {
  const Instr& in = f.code[static_cast<std::size_t>(i)];
  const int n = static_cast<int>(f.code.size());
  const std::string& m = in.parts[0];
  std::vector<int> s;
  if (m == "brx") {
    for (int t : in.targets) s.push_back(t >= 0 ? t : n);
    if (in.guard >= 0 || in.targets.empty()) s.push_back(i + 1);
  } else if (m == "bra") {
    s.push_back(in.target_index >= 0 ? in.target_index : n);
    if (in.guard >= 0) s.push_back(i + 1);
  } else if (m == "ret" || m == "exit" || m == "trap") {
    s.push_back(n);
    if (in.guard >= 0) s.push_back(i + 1);
  } else {
    s.push_back(i + 1);
  }
  return s;
}

}  // namespace

std::vector<int> uses_of(const Instr& in) {
  std::vector<int> u;
  const bool first = writes_first(in);
  for (std::size_t i = first ? 1 : 0; i < in.args.size(); ++i) add_regs(in.args[i], u);
  if (in.guard >= 0) u.push_back(in.guard);
  return u;
}

std::vector<int> defs_of(const Instr& in) {
  std::vector<int> d;
  if (!writes_first(in)) return d;
  add_regs(in.args[0], d);
  return d;
}

Cfg analyse(const Function& f) {
  const int n = static_cast<int>(f.code.size());
  Cfg c;
  c.exit_node = n;
  std::vector<std::vector<int>> succ(static_cast<std::size_t>(n) + 1), pred(static_cast<std::size_t>(n) + 1);
  for (int i = 0; i < n; ++i) {
    succ[static_cast<std::size_t>(i)] = successors(f, i);
    for (int s : succ[static_cast<std::size_t>(i)]) pred[static_cast<std::size_t>(std::min(s, n))].push_back(i);
  }
  // Post-dominators: dominators of the reverse graph from the exit (Cooper,
  // Harvey and Kennedy, "A Simple, Fast Dominance Algorithm").
  std::vector<int> order, number(static_cast<std::size_t>(n) + 1, -1);
  {
    std::vector<std::pair<int, std::size_t>> stack{{n, 0}};
    std::vector<char> seen(static_cast<std::size_t>(n) + 1, 0);
    seen[static_cast<std::size_t>(n)] = 1;
    while (!stack.empty()) {
      auto& [v, k] = stack.back();
      const auto& ps = pred[static_cast<std::size_t>(v)];
      if (k < ps.size()) {
        const int w = ps[k++];
        if (!seen[static_cast<std::size_t>(w)]) {
          seen[static_cast<std::size_t>(w)] = 1;
          stack.emplace_back(w, 0);
        }
      } else {
        number[static_cast<std::size_t>(v)] = static_cast<int>(order.size());
        order.push_back(v);
        stack.pop_back();
      }
    }
  }
  std::vector<int> idom(static_cast<std::size_t>(n) + 1, -1);
  idom[static_cast<std::size_t>(n)] = n;
  auto intersect = [&](int a, int b) {
    while (a != b) {
      while (number[static_cast<std::size_t>(a)] < number[static_cast<std::size_t>(b)]) a = idom[static_cast<std::size_t>(a)];
      while (number[static_cast<std::size_t>(b)] < number[static_cast<std::size_t>(a)]) b = idom[static_cast<std::size_t>(b)];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const int v = *it;
      if (v == n) continue;
      int d = -1;
      for (int s : succ[static_cast<std::size_t>(v)]) {
        const int w = std::min(s, n);
        if (idom[static_cast<std::size_t>(w)] < 0) continue;
        d = d < 0 ? w : intersect(w, d);
      }
      if (d != idom[static_cast<std::size_t>(v)]) {
        idom[static_cast<std::size_t>(v)] = d;
        changed = true;
      }
    }
  }
  c.ipdom.assign(idom.begin(), idom.begin() + n);

  // Liveness, backwards to a fixed point.
  const std::size_t words = (f.regs.size() + 63) / 64 + 1;
  c.live_in.assign(static_cast<std::size_t>(n), std::vector<std::uint64_t>(words, 0));
  std::vector<std::vector<int>> uses(static_cast<std::size_t>(n)), kills(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const Instr& in = f.code[static_cast<std::size_t>(i)];
    uses[static_cast<std::size_t>(i)] = uses_of(in);
    if (in.guard < 0) kills[static_cast<std::size_t>(i)] = defs_of(in);  // a guarded write may leave the old value
  }
  std::vector<std::uint64_t> out(words);
  for (bool changed = true; changed;) {
    changed = false;
    for (int i = n - 1; i >= 0; --i) {
      std::fill(out.begin(), out.end(), 0);
      for (int s : succ[static_cast<std::size_t>(i)])
        if (s < n)
          for (std::size_t w = 0; w < words; ++w) out[w] |= c.live_in[static_cast<std::size_t>(s)][w];
      for (int r : kills[static_cast<std::size_t>(i)]) out[static_cast<std::size_t>(r) / 64] &= ~(std::uint64_t{1} << (r % 64));
      for (int r : uses[static_cast<std::size_t>(i)]) out[static_cast<std::size_t>(r) / 64] |= std::uint64_t{1} << (r % 64);
      if (out != c.live_in[static_cast<std::size_t>(i)]) {
        c.live_in[static_cast<std::size_t>(i)] = out;
        changed = true;
      }
    }
  }
  return c;
}

}  // namespace pc::ptx
