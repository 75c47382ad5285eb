// The warps' events as an IR kernel (front.hpp). Each warp is an agent of
// its own (a role of one warp placed on its CTA), so every warp's arrivals,
// waits and accesses interleave as the hardware's may. Memory is declared
// from what the kernel touches: each distinct byte range a warp or an async
// copy accesses is a buffer, and ranges that share bytes alias the largest
// of them (or a range spanning them all), so the model's conflicts are the
// bytes' conflicts (checker/layout.hpp).
#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>

#include "checker/builder.hpp"
#include "checker/ptx/front.hpp"
#include "checker/ptx/parse.hpp"

namespace pc::ptx {
namespace {

// `_ZZ7ws_ringE4full` -> `full`; `ws_ring_param_1` -> `param_1`; others as they are.
std::string plain(const std::string& s, const std::string& entry) {
  if (s.rfind("_ZZ", 0) == 0) {
    const std::size_t e = s.rfind('E');
    if (e != std::string::npos) {
      std::size_t i = e + 1;
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
      if (i < s.size()) return s.substr(i);
    }
  }
  if (s.size() > entry.size() + 1 && s.compare(0, entry.size() + 1, entry + "_") == 0) return s.substr(entry.size() + 1);
  return s;
}

using Span = std::pair<std::int64_t, std::int64_t>;

struct Memory {
  std::map<Span, int> decl;  // range -> buffer declaration
};

// Declarations for a set of ranges of one space (shared, or one parameter's
// global memory).
void declare(ir::KernelBuilder& kb, const std::set<Span>& ranges, ir::Space space,
             const std::function<std::string(Span)>& name, Memory& out) {
  std::vector<Span> v(ranges.begin(), ranges.end());
  std::size_t i = 0;
  while (i < v.size()) {
    // A component: ranges that overlap, transitively.
    std::size_t j = i + 1;
    std::int64_t hi = v[i].second;
    while (j < v.size() && v[j].first < hi) hi = std::max(hi, v[j++].second);
    const Span whole{v[i].first, hi};
    auto add = [&](Span sp, int of) {
      const int d = kb.buffer(name(sp), 1, sp.second - sp.first);
      ir::BufferDecl& bd = kb.kernel().buffers.back();
      bd.space = space;
      if (of >= 0) bd.alias = ir::Alias{of, false, 0, sp.first - whole.first, {}};
      return d;
    };
    if (j - i == 1) {
      out.decl[v[i]] = add(v[i], -1);
    } else if (space == ir::Space::global) {
      // Global memory is not laid out in the model (no aliases): ranges
      // that share bytes are one buffer, their union. An access of part of
      // it conflicts with every access of the union (more conflicts, none
      // lost); disjoint ranges stay apart.
      const int d = add(whole, -1);
      for (std::size_t k = i; k < j; ++k) out.decl[v[k]] = d;
    } else {
      // The allocation the others lie in: the range spanning them all, or
      // one no access names.
      const int root = add(whole, -1);
      if (ranges.count(whole)) out.decl[whole] = root;
      for (std::size_t k = i; k < j; ++k)
        if (v[k] != whole) out.decl[v[k]] = add(v[k], root);
    }
    i = j;
  }
}

}  // namespace

bool is_ptx_path(const std::string& path) { return path.size() > 4 && path.compare(path.size() - 4, 4, ".ptx") == 0; }

bool parse_dims(const std::string& s, int out[3]) {
  out[0] = out[1] = out[2] = 1;
  int d = 0;
  std::size_t i = 0;
  while (i <= s.size() && d < 3) {
    const std::size_t j = std::min(s.find(',', i), s.size());
    if (j == i) return false;
    int v = 0;
    for (std::size_t k = i; k < j; ++k) {
      if (!std::isdigit(static_cast<unsigned char>(s[k])) || v > 100000) return false;
      v = v * 10 + (s[k] - '0');
    }
    if (v <= 0) return false;
    out[d++] = v;
    i = j + 1;
    if (j == s.size()) return true;
  }
  return false;
}

Loaded load(std::string_view text, const std::string& file, const Launch& launch) {
  Loaded out;
  ParsedModule pm = parse(text, file);
  if (!pm.ok()) {
    out.errors = std::move(pm.errors);
    return out;
  }
  const Module& m = pm.module;
  ir::KernelBuilder kb("");
  Execution x = execute(m, launch, file, kb);
  out.notes = x.notes;
  if (!x.ok()) {
    out.errors = std::move(x.errors);
    return out;
  }
  const Function& fn = *x.entry;
  // Source lines.
  for (const Instr& in : fn.code) {
    if (in.at.src_file < 0 || static_cast<std::size_t>(in.at.src_file) >= m.files.size()) continue;
    if (out.origin.size() <= static_cast<std::size_t>(in.at.line)) out.origin.resize(static_cast<std::size_t>(in.at.line) + 1);
    out.origin[static_cast<std::size_t>(in.at.line)] = Origin{m.files[static_cast<std::size_t>(in.at.src_file)], in.at.src_line, in.at.src_col};
  }

  // Names of shared bytes: the variable they lie in, and the offset in it.
  auto shared_name = [&](std::int64_t lo) {
    std::string var = "smem";
    std::int64_t base = 0;
    for (const auto& [n, a] : x.shared_vars)
      if (a <= lo && a >= base) var = plain(n, fn.name), base = a;
    return lo == base ? var : var + "+" + std::to_string(lo - base);
  };

  // "smem_raw[128,1152)": the bytes, from the variable they start in.
  auto span_name = [&](Span s) {
    std::string var = "smem";
    std::int64_t base = 0;
    for (const auto& [n, a] : x.shared_vars)
      if (a <= s.first && a >= base) var = plain(n, fn.name), base = a;
    return var + "[" + std::to_string(s.first - base) + "," + std::to_string(s.second - base) + ")";
  };
  // mbarriers, by address.
  std::map<std::int64_t, int> mbar;
  std::set<std::int64_t> mbar_addr;
  for (const WarpRun& w : x.warps)
    for (const Event& e : w.events)
      if (e.has_bar) mbar_addr.insert(e.bar.lo);
  for (std::int64_t a : mbar_addr) mbar[a] = kb.mbarrier(shared_name(a), 1, 0);

  // Data ranges.
  std::set<Span> shared;
  std::map<int, std::set<Span>> global;
  for (const WarpRun& w : x.warps)
    for (const Event& e : w.events) {
      for (const Bytes& b : e.data) {
        if (b.global) {
          global[b.param].insert({b.lo, b.hi});
          continue;
        }
        shared.insert({b.lo, b.hi});
        for (std::int64_t a : mbar_addr)
          if (b.lo < a + 8 && a < b.hi && out.errors.empty())
            out.errors.push_back(Diagnostic{file, e.op.loc,
                                            "shared bytes [" + std::to_string(b.lo) + ", " + std::to_string(b.hi) +
                                                ") accessed as data hold the mbarrier at " + shared_name(a) +
                                                ": barrier memory reused as data is not supported by the PTX front end yet",
                                            true});
      }
      for (const Bytes& b : e.global) global[b.param].insert({b.lo, b.hi});
    }
  if (!out.errors.empty()) return out;
  Memory smem;
  declare(kb, shared, ir::Space::shared,
          [&](Span s) { return span_name(s); }, smem);
  std::map<int, Memory> gmem;
  for (const auto& [param, ranges] : global) {
    std::string pname = static_cast<std::size_t>(param) < fn.params.size() ? plain(fn.params[static_cast<std::size_t>(param)].name, fn.name)
                                                                           : "global" + std::to_string(param);
    for (const Var& v : m.vars)
      if (v.space == Space::global && param >= static_cast<int>(fn.params.size())) pname = v.name;
    declare(kb, ranges, ir::Space::global,
            [&](Span s) { return pname + "[" + std::to_string(s.first) + "," + std::to_string(s.second) + ")"; },
            gmem[param]);
  }

  // cp.async-groups are per thread (PTX ISA cp.async.commit_group: "creates
  // a new cp.async-group per thread"; cp.async.wait_group makes the writes
  // visible "to the executing thread"), and the model follows one thread's
  // groups per agent: a warp with groups makes its cp.async operations with
  // one lane (as the .bk front end asks, docs/dsl.md "cp.async-groups"). An
  // agent-wide group would order every lane after every lane's copies,
  // hiding a missing __syncthreads.
  for (const WarpRun& w : x.warps) {
    bool groups = false;
    for (const Event& e : w.events)
      groups |= e.op.code == ir::OpCode::cp_async_commit || e.op.code == ir::OpCode::cp_async_wait ||
                e.op.code == ir::OpCode::cp_async_wait_all;
    if (!groups) continue;
    for (const Event& e : w.events)
      if (ir::op_family(e.op.code) == ir::OpFamily::cp_async && e.op.code != ir::OpCode::cp_async_mbarrier_arrive &&
          e.op.lanes != ir::Lanes::one) {
        out.errors.push_back(Diagnostic{file, e.op.loc,
                                        "CTA " + std::to_string(w.cta) + " warp " + std::to_string(w.warp) + ": '" +
                                            std::string(ir::op_keyword(e.op.code)) +
                                            "' by several lanes of a warp that commits or waits cp.async-groups: the groups "
                                            "are per thread and the model follows one thread's, so the front end reads a "
                                            "warp's cp.async copies, commits and waits made by one lane (not yet supported "
                                            "for several)",
                                        true});
        return out;
      }
  }

  // One role per warp.
  for (const WarpRun& w : x.warps) {
    ir::Role& r = kb.role("warp" + std::to_string(w.warp), ir::Granularity::warp, 1, x.cluster > 1 ? w.cta : -1);
    r.first_warp = w.warp;
    r.loc = ir::Loc{fn.at.line, fn.at.col};
    std::map<int, int> token_var;  // the warp's arrive event -> the role variable holding its token
    for (std::size_t i = 0; i < w.events.size(); ++i) {
      const Event& e = w.events[i];
      ir::Op op = e.op;
      if (e.makes_token && ir::op_has(op.code, ir::opf::returns)) {
        const int v = ir::KernelBuilder::var(r, "token" + std::to_string(token_var.size()));
        token_var[static_cast<int>(i)] = v;
        op.dest_var = v;
      }
      if (e.token >= 0) op.token_var = token_var.at(e.token);
      auto cta_of = [&](const Bytes& b) { return b.global || b.cta == w.cta ? ir::no_expr : kb.c(b.cta); };
      auto ref = [&](const Bytes& b) {
        const int d = b.global ? gmem[b.param].decl.at({b.lo, b.hi}) : smem.decl.at({b.lo, b.hi});
        return ir::Ref{d, ir::no_expr, cta_of(b), op.loc};
      };
      if (e.has_bar) op.bar = ir::Ref{mbar.at(e.bar.lo), ir::no_expr, cta_of(e.bar), op.loc};
      if (!e.global.empty()) op.global = ref(e.global.front());
      const bool one_buffer = ir::op_operands(op.code) == ir::Operands::buffer || op.code == ir::OpCode::tma_load;
      if (one_buffer && e.data.size() > 1) {
        for (const Bytes& b : e.data) {
          ir::Stmt part;
          part.loc = op.loc;
          part.op = op;
          part.op.bufs = {ref(b)};
          r.body.push_back(std::move(part));
        }
        continue;
      }
      for (const Bytes& b : e.data) op.bufs.push_back(ref(b));
      ir::Stmt s;
      s.kind = ir::StmtKind::op;
      s.loc = op.loc;
      s.op = std::move(op);
      r.body.push_back(std::move(s));
    }
  }
  ir::Kernel k = kb.build();
  k.name = fn.name;
  k.file = file;
  k.loc = ir::Loc{fn.at.line, fn.at.col};
  k.target = ir::Target::nvidia;
  k.cluster_ctas = x.cluster;
  k.cta_threads = x.block[0] * x.block[1] * x.block[2];
  out.kernel = std::move(k);
  return out;
}

}  // namespace pc::ptx
