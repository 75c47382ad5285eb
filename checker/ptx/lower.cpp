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
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

#include "checker/builder.hpp"
#include "checker/ir_rules.hpp"
#include "checker/ptx/coalesce.hpp"
#include "checker/ptx/front.hpp"
#include "checker/ptx/parse.hpp"
#include "checker/ptx/together.hpp"
#include "spec/tmem.hpp"

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
  std::map<Span, int> root;  // each set of overlapping ranges: the span of them all -> the declaration they lie in
};

// Declarations for a set of ranges of one space (shared, or one parameter's
// global memory).
// `bare`: ranges that only widen the sets they overlap (an mbarrier's bytes
// that data reuses), with no buffer of their own.
void declare(ir::KernelBuilder& kb, const std::set<Span>& ranges, ir::Space space,
             const std::function<std::string(Span)>& name, Memory& out, const std::set<Span>& bare = {}) {
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
      out.root[v[i]] = out.decl[v[i]];
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
      out.root[whole] = root;
      if (ranges.count(whole)) out.decl[whole] = root;
      for (std::size_t k = i; k < j; ++k)
        if (v[k] != whole && !bare.count(v[k])) out.decl[v[k]] = add(v[k], root);
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
  out.loaded_branches = x.loaded_branches;
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

  // An MMA's shared operands: the bytes its descriptors name (desc.hpp),
  // some of which another access of the kernel must touch (a copy or a
  // store fills them), else the descriptor names memory nothing fills.
  {
    std::set<std::pair<int, Span>> written;
    for (const WarpRun& w : x.warps)
      for (const Event& e : w.events)
        for (const Bytes& b : e.data)
          if (!b.global) written.insert({b.cta, {b.lo, b.hi}});
    for (WarpRun& w : x.warps)
      for (Event& e : w.events)
        for (const Bytes& d : e.desc) {
          const bool any = std::any_of(written.begin(), written.end(), [&](const auto& t) {
            return t.first == d.cta && t.second.first < d.hi && d.lo < t.second.second;
          });
          if (!any) {
            out.errors.push_back(Diagnostic{file, e.op.loc,
                                            "the MMA operand's shared bytes [" + std::to_string(d.lo) + ", " + std::to_string(d.hi) + ") (" +
                                                shared_name(d.lo) + ") are none that a copy, a store or a load of the kernel touches",
                                            true});
            return out;
          }
          e.data.push_back(d);
        }
  }

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
      }
      for (const Bytes& b : e.global) global[b.param].insert({b.lo, b.hi});
    }
  // Barrier memory reused as data (Triton's attention loads K into the
  // bytes of the barrier it loaded Q with, after mbarrier.inval): the
  // mbarrier lies over the data's allocation (ir::MbarrierDecl::alias), so
  // a data access of its bytes while it is live is barrier_memory_reuse,
  // and an init over a live one reinit_live_barrier (docs/dsl.md, "Memory
  // layout").
  std::set<Span> reused, bare;
  for (std::int64_t a : mbar_addr)
    for (const Span& sp : shared)
      if (sp.first < a + 8 && a < sp.second) reused.insert({a, a + 8});
  for (const Span& sp : reused)
    if (!shared.count(sp)) bare.insert(sp), shared.insert(sp);
  Memory smem;
  declare(kb, shared, ir::Space::shared,
          [&](Span s) { return span_name(s); }, smem, bare);
  for (const Span& sp : reused) {
    auto it = smem.root.upper_bound({sp.first, std::numeric_limits<std::int64_t>::max()});
    if (it == smem.root.begin()) throw std::logic_error("lower: an mbarrier's bytes in no allocation");
    --it;
    kb.kernel().mbarriers[static_cast<std::size_t>(mbar.at(sp.first))].alias = ir::Alias{it->second, false, 0, sp.first - it->first.first, {}};
  }
  std::map<int, Memory> gmem;
  for (const auto& [param, ranges] : global) {
    std::string pname = static_cast<std::size_t>(param) < fn.params.size() ? plain(fn.params[static_cast<std::size_t>(param)].name, fn.name)
                                                                           : "global" + std::to_string(param);
    {
      int base = static_cast<int>(fn.params.size());
      for (const Var& v : m.vars)
        if (v.space == Space::global && base++ == param) pname = v.name;
      if (const auto it = x.pointer_names.find(param); it != x.pointer_names.end()) pname = plain(it->second, fn.name);
    }
    declare(kb, ranges, ir::Space::global,
            [&](Span s) { return pname + "[" + std::to_string(s.first) + "," + std::to_string(s.second) + ")"; },
            gmem[param]);
  }

  // Tensor memory: each tcgen05.alloc site's columns, as instances of the
  // width of the ranges the kernel accesses where they tile the allocation
  // (an MMA's D per accumulator stage, the loads inside one), else one
  // instance of all its columns (more conflicts, none lost).
  struct TmemDecl {
    int decl = -1;
    std::int64_t width = 0;
  };
  std::vector<TmemDecl> tmem(x.tmem_allocs.size());
  for (std::size_t a = 0; a < x.tmem_allocs.size(); ++a) {
    const std::int64_t cols = x.tmem_allocs[a].cols;
    std::set<Span> ranges;
    for (const WarpRun& w : x.warps)
      for (const Event& e : w.events) {
        if (e.tmem.alloc == static_cast<int>(a) && (e.op.code == ir::OpCode::tcgen05_mma || e.op.code == ir::OpCode::tcgen05_cp))
          ranges.insert({e.tmem.lo, e.tmem.hi});
        for (const Event::Cols& cl : e.tmem_data)
          if (cl.alloc == static_cast<int>(a)) ranges.insert({cl.lo, cl.hi});
      }
    for (const Span& r : ranges)
      if (r.first < 0 || r.second > cols) {
        out.errors.push_back(Diagnostic{file, {}, "an access of columns [" + std::to_string(r.first) + ", " + std::to_string(r.second) +
                                                     ") of tensor memory allocated with " + std::to_string(cols) + " columns", true});
        return out;
      }
    // The components of overlapping ranges: one width, each at a multiple of it?
    std::int64_t width = 0;
    bool tiles = true;
    for (auto it = ranges.begin(); it != ranges.end();) {
      std::int64_t lo = it->first, hi = it->second;
      for (++it; it != ranges.end() && it->first < hi; ++it) hi = std::max(hi, it->second);
      if (width == 0) width = hi - lo;
      tiles = tiles && hi - lo == width && lo % width == 0;
    }
    if (!tiles || width == 0 || cols % width != 0) width = cols;
    const std::string name = "tmem" + std::to_string(a);
    tmem[a].decl = kb.buffer(name, static_cast<int>(cols / width), width * spec::tmem::bytes_per_column);
    kb.kernel().buffers.back().space = ir::Space::tensor;
    kb.kernel().buffers.back().cols = width;
    tmem[a].width = width;
  }
  // The instances columns [lo, hi) of an allocation lie in.
  auto tmem_refs = [&](const Event::Cols& cl, ir::Loc loc) {
    std::vector<ir::Ref> v;
    const TmemDecl& t = tmem.at(static_cast<std::size_t>(cl.alloc));
    for (std::int64_t i = cl.lo / t.width; i * t.width < cl.hi; ++i) v.push_back(ir::Ref{t.decl, kb.c(i), ir::no_expr, loc});
    return v;
  };

  // The arrive events whose tokens a wait of the warp uses.
  std::map<const WarpRun*, std::set<int>> waited;
  for (const WarpRun& w : x.warps)
    for (const Event& e : w.events)
      if (e.token >= 0) waited[&w].insert(e.token);
  // Warp w's i-th event as IR operations (one, but a single-buffer op over
  // several ranges is one per range); a token-making arrive gets a variable
  // of the role, the same for the same event of each warp of a split role.
  auto query_var = [&](std::map<int, int>& vars, int event, ir::Role& r) {
    auto it = vars.find(event);
    if (it == vars.end()) it = vars.emplace(event, ir::KernelBuilder::var(r, "clc" + std::to_string(vars.size()))).first;
    return it->second;
  };
  auto lowered = [&](const WarpRun& w, std::size_t i, std::map<int, int>& token_var, ir::Role& r) {
    const Event& e = w.events[i];
    ir::Op op = e.op;
    // A token no later wait of the warp uses is not kept: a variable no
    // operation reads changes nothing but the states' identity.
    const auto uses = waited.find(&w);
    const bool used = uses != waited.end() && uses->second.count(static_cast<int>(i)) != 0;
    if (e.makes_token && used && ir::op_has(op.code, ir::opf::returns)) {
      auto it = token_var.find(static_cast<int>(i));
      if (it == token_var.end())
        it = token_var.emplace(static_cast<int>(i), ir::KernelBuilder::var(r, "token" + std::to_string(token_var.size()))).first;
      op.dest_var = it->second;
    }
    if (e.token >= 0) op.token_var = token_var.at(e.token);
    // A cluster launch control query's answer: a variable of the role, which
    // the `if` of a branch on it reads (Event::Mark::query, clc.cpp).
    if (op.code == ir::OpCode::clc_query) op.dest_var = query_var(token_var, static_cast<int>(i), r);
    auto cta_of = [&](const Bytes& b) { return b.global || b.cta == w.cta ? ir::no_expr : kb.c(b.cta); };
    auto ref = [&](const Bytes& b) {
      const int d = b.global ? gmem[b.param].decl.at({b.lo, b.hi}) : smem.decl.at({b.lo, b.hi});
      return ir::Ref{d, ir::no_expr, cta_of(b), op.loc};
    };
    if (e.has_bar) op.bar = ir::Ref{mbar.at(e.bar.lo), ir::no_expr, cta_of(e.bar), op.loc};
    if (!e.global.empty()) op.global = ref(e.global.front());
    std::vector<ir::Op> ops;
    const bool one_buffer = ir::op_operands(op.code) == ir::Operands::buffer || op.code == ir::OpCode::tma_load;
    if (one_buffer && e.data.size() > 1) {
      for (const Bytes& b : e.data) {
        ops.push_back(op);
        ops.back().bufs = {ref(b)};
      }
      return ops;
    }
    for (const Bytes& b : e.data) op.bufs.push_back(ref(b));
    for (const Event::Cols& cl : e.tmem_data)
      for (const ir::Ref& r : tmem_refs(cl, op.loc)) op.bufs.push_back(r);
    if (e.tmem.alloc >= 0) {
      if (op.code == ir::OpCode::tcgen05_mma || op.code == ir::OpCode::tcgen05_cp || op.code == ir::OpCode::tcgen05_shift) {
        // (an MMA's D and a copy's columns are ranges the instances are cut
        // from, so each lies in one; a shift names one column)
        const std::vector<ir::Ref> d = tmem_refs(e.tmem, op.loc);
        if (d.size() != 1) throw std::logic_error("lower: an MMA's D in several tensor-memory instances");
        op.tmem = d.front();
      } else {
        op.tmem = ir::Ref{tmem.at(static_cast<std::size_t>(e.tmem.alloc)).decl, ir::no_expr, ir::no_expr, op.loc};
      }
    }
    ops.push_back(std::move(op));
    return ops;
  };
  // The same operation with the same operands (locations aside; constants
  // by value: each warp's are its own expressions).
  auto same_op = [&](const ir::Op& a, const ir::Op& b) {
    const auto& ex = kb.kernel().exprs;
    auto eq = [&](ir::ExprId x, ir::ExprId y) {
      if (x == ir::no_expr || y == ir::no_expr) return x == y;
      return ex[static_cast<std::size_t>(x)].value == ex[static_cast<std::size_t>(y)].value;
    };
    auto ref_eq = [&](const ir::Ref& x, const ir::Ref& y) { return x.object == y.object && eq(x.index, y.index) && eq(x.cta, y.cta); };
    if (a.code != b.code || a.lanes != b.lanes || !ref_eq(a.bar, b.bar) || a.bufs.size() != b.bufs.size() ||
        !ref_eq(a.global, b.global) || !eq(a.count, b.count) || !eq(a.bytes, b.bytes) || !eq(a.parity, b.parity) ||
        !eq(a.id, b.id) || !eq(a.n, b.n) || !eq(a.multicast, b.multicast) || !eq(a.mask, b.mask) || a.token_var != b.token_var ||
        a.dest_var != b.dest_var || a.sem != b.sem || a.scope != b.scope || a.no_complete != b.no_complete ||
        a.noinc != b.noinc || a.space != b.space || a.regs != b.regs)
      return false;
    for (std::size_t i = 0; i < a.bufs.size(); ++i)
      if (!ref_eq(a.bufs[i], b.bufs[i])) return false;
    return true;
  };
  auto stmt = [](ir::Op op) {
    ir::Stmt s;
    s.loc = op.loc;
    s.op = std::move(op);
    return s;
  };
  // Warp w's events `at` (indices, in order) as statements: a choice's
  // marks (Event::Mark) open an either, its second way, its end.
  auto statements = [&](const WarpRun& w, const std::vector<std::size_t>& at, std::map<int, int>& token_var, ir::Role& r) {
    std::vector<ir::Stmt> body;
    std::vector<std::vector<ir::Stmt>*> into{&body};
    std::vector<ir::Stmt> open;  // the eithers being built, innermost last
    open.reserve(at.size());     // no reallocation: `into` points into them
    for (const std::size_t i : at) {
      const Event& e = w.events[i];
      switch (e.mark) {
        case Event::Mark::either:
          open.push_back(ir::KernelBuilder::either({}, {}, e.op.loc));
          into.push_back(&open.back().body);
          continue;
        case Event::Mark::query: {
          // `if clcN == 1:` the way where the query answered "canceled", `else:` the other.
          const ir::ExprId cond = kb.bin(ir::BinOp::eq, kb.v(query_var(token_var, e.query, r)), kb.c(e.when ? 1 : 0));
          open.push_back(ir::KernelBuilder::if_else(cond, {}, {}, e.op.loc));
          into.push_back(&open.back().body);
          continue;
        }
        case Event::Mark::second: into.back() = &open.back().else_body; continue;
        case Event::Mark::end:
          into.pop_back();
          into.back()->push_back(std::move(open.back()));
          open.pop_back();
          continue;
        case Event::Mark::none: break;
      }
      for (ir::Op& op : lowered(w, i, token_var, r)) into.back()->push_back(stmt(std::move(op)));
    }
    return body;
  };

  // One role per warp; the four warps of a warp group that runs wgmma are
  // one role split per warp (each warp an agent: ir::Role::per_warp), so
  // that a wgmma is the warp group's one operation (docs/dsl.md, "Warps of a
  // role"): their operations in step, the same ones shared, the others each
  // under `if warp == k`.
  auto has_wgmma = [](const WarpRun& w) {
    for (const Event& e : w.events)
      if (ir::op_family(e.op.code) == ir::OpFamily::wgmma) return true;
    return false;
  };
  std::vector<bool> done(x.warps.size(), false);
  for (std::size_t wi = 0; wi < x.warps.size(); ++wi) {
    if (done[wi]) continue;
    const WarpRun& w = x.warps[wi];
    std::vector<const WarpRun*> group{&w};
    if (has_wgmma(w)) {
      const auto fail = [&](const std::string& why) {
        out.errors.push_back(Diagnostic{file, w.events.empty() ? ir::Loc{} : w.events.front().op.loc,
                                        "CTA " + std::to_string(w.cta) + " warp " + std::to_string(w.warp) + " runs wgmma: " + why,
                                        true});
      };
      if (w.warp % 4 != 0 || wi + 3 >= x.warps.size()) {
        fail("its warp group (warps " + std::to_string(w.warp / 4 * 4) + " to " + std::to_string(w.warp / 4 * 4 + 3) +
             ") is not whole in the block");
        return out;
      }
      auto anchors = [](const WarpRun& g) {
        std::vector<ir::OpCode> v;
        for (const Event& e : g.events)
          if (ir::op_family(e.op.code) == ir::OpFamily::wgmma) v.push_back(e.op.code);
        return v;
      };
      for (std::size_t k = 1; k < 4; ++k) {
        const WarpRun& o = x.warps[wi + k];
        if (o.cta != w.cta || anchors(o) != anchors(w)) {
          fail("the four warps of its warp group do not run the same wgmma operations in the same order (a wgmma is the "
               "warp group's one operation: PTX ISA wgmma, .aligned)");
          return out;
        }
        group.push_back(&o);
        done[wi + k] = true;
      }
    }
    done[wi] = true;
    const bool wg = group.size() == 4;
    ir::Role& r = kb.role(wg ? "wg" + std::to_string(w.warp / 4) : "warp" + std::to_string(w.warp),
                          wg ? ir::Granularity::warpgroup : ir::Granularity::warp, 1, x.cluster > 1 ? w.cta : -1);
    r.per_warp = wg;
    r.first_warp = w.warp;
    r.loc = ir::Loc{fn.at.line, fn.at.col};
    std::map<int, int> token_var;  // the warp's arrive event -> the role variable holding its token
    if (!wg) {
      std::vector<std::size_t> all(w.events.size());
      for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
      r.body = statements(w, all, token_var, r);
      continue;
    }
    // A warp group: each warp's operations lowered, in segments between its
    // wgmma operations (the same in all four: checked above). A wgmma is
    // the warp group's one operation, so none is inside a choice.
    std::vector<std::vector<std::vector<ir::Stmt>>> segs(4);  // warp -> segment -> statements
    std::vector<std::vector<ir::Op>> anchors(4);
    std::vector<std::map<int, int>> tokens(4);  // warps 1-3's own token variables (warp 0's are the role's)
    for (std::size_t k = 0; k < 4; ++k) {
      std::map<int, int>& mine = k == 0 ? token_var : tokens[k];
      std::vector<std::size_t> seg;
      int depth = 0;
      for (std::size_t i = 0; i < group[k]->events.size(); ++i) {
        const Event& e = group[k]->events[i];
        depth += e.mark == Event::Mark::either || e.mark == Event::Mark::query ? 1 : e.mark == Event::Mark::end ? -1 : 0;
        if (e.mark == Event::Mark::none && ir::op_family(e.op.code) == ir::OpFamily::wgmma) {
          if (depth > 0) {
            out.errors.push_back(Diagnostic{file, e.op.loc,
                                            "CTA " + std::to_string(group[k]->cta) + " warp " + std::to_string(group[k]->warp) +
                                                " runs this wgmma on one way of a choice (a branch on a loaded value): the "
                                                "warp group's one operation on one way only is not supported yet",
                                            true});
            return out;
          }
          segs[k].push_back(statements(*group[k], seg, mine, r));
          seg.clear();
          anchors[k].push_back(std::move(lowered(*group[k], i, mine, r).at(0)));
        } else {
          seg.push_back(i);
        }
      }
      segs[k].push_back(statements(*group[k], seg, mine, r));
    }
    // `if warp == 0: A0 else: if warp == 1: A1 ...`
    auto chain = [&](std::vector<std::vector<ir::Stmt>> per, ir::Loc loc) {
      std::vector<ir::Stmt> rest = std::move(per[3]);
      for (int k = 2; k >= 0; --k) {
        const ir::ExprId cond = kb.bin(ir::BinOp::eq, kb.v(ir::var_warp), kb.c(k));
        std::vector<ir::Stmt> one;
        one.push_back(ir::KernelBuilder::if_else(cond, std::move(per[static_cast<std::size_t>(k)]), std::move(rest), loc));
        rest = std::move(one);
      }
      return std::move(rest.front());
    };
    for (std::size_t g = 0; g < segs[0].size(); ++g) {
      // The segment: position by position where the four are as long, an
      // operation shared where all four are the same; else each warp's whole.
      // A segment with a choice is each warp's whole.
      bool aligned = true;
      for (std::size_t k = 0; k < 4; ++k) {
        aligned &= segs[k][g].size() == segs[0][g].size();
        for (const ir::Stmt& s : segs[k][g]) aligned &= s.kind == ir::StmtKind::op;
      }
      if (aligned) {
        for (std::size_t i = 0; i < segs[0][g].size(); ++i) {
          bool same = true;
          for (std::size_t k = 1; k < 4; ++k) same &= same_op(segs[k][g][i].op, segs[0][g][i].op);
          if (same) {
            r.body.push_back(segs[0][g][i]);
            continue;
          }
          std::vector<std::vector<ir::Stmt>> per(4);
          for (std::size_t k = 0; k < 4; ++k) per[k].push_back(segs[k][g][i]);
          r.body.push_back(chain(std::move(per), segs[0][g][i].loc));
        }
      } else {
        std::vector<std::vector<ir::Stmt>> per(4);
        ir::Loc loc;
        for (std::size_t k = 0; k < 4; ++k) {
          if (loc.line == 0 && !segs[k][g].empty()) loc = segs[k][g].front().loc;
          per[k] = segs[k][g];
        }
        r.body.push_back(chain(std::move(per), loc));
      }
      if (g + 1 == segs[0].size()) break;
      // The wgmma operation after the segment: the warp group's one.
      for (std::size_t k = 1; k < 4; ++k)
        if (!same_op(anchors[k][g], anchors[0][g])) {
          out.errors.push_back(Diagnostic{file, anchors[0][g].loc,
                                          "the warps of warp group " + std::to_string(w.warp / 4) +
                                              " run this wgmma operation with different operands: it is the warp group's one "
                                              "operation (PTX ISA wgmma: .aligned)",
                                          true});
          return out;
        }
      r.body.push_back(stmt(anchors[0][g]));
    }
  }
  // cp.async-groups are one thread's (ir::cp_async_lanes): a warp with
  // groups makes its cp.async operations with one lane.
  for (const ir::Role& r : kb.kernel().roles)
    if (const auto e = ir::cp_async_lanes(r.body)) {
      out.errors.push_back(Diagnostic{file, e->loc, r.name + ": " + e->message + " (not yet supported for several lanes)", true});
      return out;
    }
  ir::Kernel k = kb.build();
  k.name = fn.name;
  k.file = file;
  k.loc = ir::Loc{fn.at.line, fn.at.col};
  k.target = ir::Target::nvidia;
  k.cluster_ctas = x.cluster;
  k.cta_threads = x.block[0] * x.block[1] * x.block[2];
  k.clc_queue = launch.clc;
  if (launch.coalesce) {
    join_buffers(k);
    coalesce_reads(k);
  }
  out.kernel = std::move(k);
  return out;
}

}  // namespace pc::ptx
