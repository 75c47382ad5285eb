#include "checker/ptx/exec.hpp"

#include <algorithm>

#include "checker/ptx/warp.hpp"

namespace pc::ptx {
namespace {

void error(Execution& x, const std::string& file, Where at, const std::string& msg) {
  x.errors.push_back(Diagnostic{file, ir::Loc{at.line, at.col}, msg, at.line > 0});
}

std::string entries(const Module& m) {
  std::string s;
  for (const Function& f : m.functions)
    if (f.entry) s += (s.empty() ? "" : ", ") + f.name;
  return s.empty() ? "none" : s;
}

}  // namespace

Execution execute(const Module& m, const Launch& launch, const std::string& file, ir::KernelBuilder& kb) {
  Execution x;
  const Function* fn = nullptr;
  int n_entries = 0;
  for (const Function& f : m.functions) n_entries += f.entry;
  if (launch.entry.empty()) {
    if (n_entries != 1) {
      error(x, file, {}, "the module has " + std::to_string(n_entries) + " kernels (" + entries(m) + "): choose one with --entry NAME");
      return x;
    }
    for (const Function& f : m.functions)
      if (f.entry) fn = &f;
  } else {
    fn = m.find(launch.entry);
    if (!fn || !fn->entry) {
      error(x, file, {}, "no kernel (.entry) named '" + launch.entry + "' (the module has: " + entries(m) + ")");
      return x;
    }
  }
  x.entry = fn;
  for (int d = 0; d < 3; ++d) x.block[d] = launch.block[0] > 0 ? std::max(1, launch.block[d]) : std::max(1, fn->reqntid[d]);
  if (launch.block[0] <= 0 && fn->reqntid[0] <= 0) {
    error(x, file, fn->at, "the block size is not known: give --block X[,Y,Z] (the kernel has no .reqntid or .maxntid)");
    return x;
  }
  if (launch.block[0] <= 0 && fn->reqntid[0] > 0)
    x.notes.push_back("block " + std::to_string(x.block[0]) + "x" + std::to_string(x.block[1]) + "x" + std::to_string(x.block[2]) +
                      " from the kernel's .reqntid/.maxntid (--block sets another)");
  const int threads = x.block[0] * x.block[1] * x.block[2];
  if (threads <= 0 || threads > 1024) {
    error(x, file, fn->at, "a block of " + std::to_string(threads) + " threads: a CTA has 1 to 1024 (PTX ISA, \"Thread Hierarchy\")");
    return x;
  }
  x.cluster = launch.cluster > 0 ? launch.cluster : std::max(1, fn->cluster[0]) * std::max(1, fn->cluster[1]) * std::max(1, fn->cluster[2]);
  if (x.cluster > 16) {
    error(x, file, fn->at, "a cluster of " + std::to_string(x.cluster) + " CTAs: the model checks clusters of up to 16");
    return x;
  }
  // The grid: the cluster along x, or --grid, whose x is a whole number of
  // clusters; the cluster checked is its first (blocks 0 .. cluster - 1).
  for (int d = 0; d < 3; ++d) x.grid[d] = launch.grid[0] > 0 ? std::max(1, launch.grid[d]) : d == 0 ? x.cluster : 1;
  if (x.grid[0] % x.cluster != 0) {
    error(x, file, fn->at, "a grid of " + std::to_string(x.grid[0]) + " CTAs along x is no whole number of clusters of " +
                               std::to_string(x.cluster) + " (PTX ISA, \"Cluster of Cooperative Thread Arrays\")");
    return x;
  }
  if (launch.grid[0] > 0 && x.grid[0] * x.grid[1] * x.grid[2] > x.cluster)
    x.notes.push_back("grid " + std::to_string(x.grid[0]) + "x" + std::to_string(x.grid[1]) + "x" + std::to_string(x.grid[2]) +
                      ": the cluster of blocks 0 to " + std::to_string(x.cluster - 1) + " is checked, the others' CTAs are not modelled");

  Context ctx;
  ctx.module = &m;
  ctx.fn = fn;
  ctx.launch = launch;
  for (int d = 0; d < 3; ++d) ctx.block[d] = x.block[d];
  ctx.threads = threads;
  ctx.cluster = x.cluster;
  for (int d = 0; d < 3; ++d) ctx.grid[d] = x.grid[d];
  ctx.file = file;
  ctx.kb = &kb;
  ctx.errors = &x.errors;
  ctx.notes = &x.notes;
  // Shared memory: the static variables in order, each at its alignment,
  // then the dynamic (extern) ones, all at one offset past them.
  std::vector<const Var*> shared;
  for (const Var& v : m.vars)
    if (v.space == Space::shared) shared.push_back(&v);
  for (const Var& v : fn->vars) shared.push_back(&v);
  std::int64_t at = 0;
  int dyn_align = 16;
  for (const Var* v : shared) {
    if (v->is_extern) {
      dyn_align = std::max(dyn_align, v->align);
      continue;
    }
    at = (at + v->align - 1) / std::max(1, v->align) * std::max(1, v->align);
    ctx.shared_addr[v->name] = at;
    x.shared_vars.emplace_back(v->name, at);
    at += v->bytes;
  }
  x.static_smem = at;
  at = (at + dyn_align - 1) / dyn_align * dyn_align;
  for (const Var* v : shared)
    if (v->is_extern) {
      ctx.shared_addr[v->name] = at;
      x.shared_vars.emplace_back(v->name, at);
    }
  int base = static_cast<int>(fn->params.size());
  for (const Var& v : m.vars)
    if (v.space == Space::global) ctx.global_base[v.name] = base++;
  ctx.next_base = base;
  ctx.pointer_names = &x.pointer_names;
  ctx.cfg = analyse(*fn);

  const int warps = (threads + 31) / 32;
  // A warp may read where a tcgen05.alloc writes its address before the
  // warp that allocates has run: where the kernel allocates, the first pass
  // runs every warp (an error of one does not stop the others), and where
  // such a read came first, the warps run again knowing every alloc site
  // (the second pass meets no new one: the warps run the same code).
  const bool allocates = std::any_of(fn->code.begin(), fn->code.end(), [](const Instr& in) {
    return in.parts.size() > 1 && in.parts[0] == "tcgen05" && in.parts[1] == "alloc";
  });
  const Context start = ctx;
  const std::size_t notes = x.notes.size();
  for (int pass = 0;; ++pass) {
    const bool discover = allocates && pass == 0;
    // The errors a single pass reports: the first failing warp's, or, where
    // it stopped at a tensor-memory address no alloc gave, a later warp's
    // (an alloc the front end refused, say) where one fails otherwise.
    std::vector<Diagnostic> first, cause;
    bool first_unfollowed = false;
    for (int c = 0; c < x.cluster && (first.empty() || discover); ++c)
      for (int w = 0; w < warps && (first.empty() || discover); ++w) {
        WarpRun run;
        Warp warp(ctx, c, w);
        ctx.tmem_unfollowed = false;
        const std::size_t before = x.errors.size();
        if (warp.run(run)) x.warps.push_back(std::move(run));
        if (x.errors.size() == before) continue;
        std::vector<Diagnostic> mine(x.errors.begin() + static_cast<std::ptrdiff_t>(before), x.errors.end());
        if (first.empty()) {
          first = mine;
          first_unfollowed = ctx.tmem_unfollowed;
        } else if (cause.empty() && !ctx.tmem_unfollowed) cause = mine;
      }
    const bool failed = !first.empty();
    if (discover && ctx.tmem_late) {
      std::vector<Execution::TmemAlloc> allocs = std::move(ctx.tmem_allocs);
      ctx = start;
      ctx.tmem_allocs = std::move(allocs);
      x.warps.clear();
      x.errors.clear();
      x.notes.resize(notes);
      x.pointer_names.clear();
      continue;
    }
    if (failed) x.errors = first_unfollowed && !cause.empty() ? cause : first;
    break;
  }
  x.tmem_allocs = ctx.tmem_allocs;
  if (x.ok())
    if (auto d = check_stored_values(ctx, x.warps, file)) x.errors.push_back(std::move(*d));
  if (x.ok()) same_value_stores(ctx, x.warps);
  if (x.ok())
    for (const auto& [line, ways] : launch.assume)
      if (!ctx.assumed.count(line))
        error(x, file, {}, "--assume " + std::to_string(line) + ": no warp reached line " + std::to_string(line) +
                               " with a guard it does not know (a branch or guarded instruction on a value loaded from memory)");
  x.loaded_branches = note_either(ctx, x.notes);
  if (ctx.clc_branches > 0)
    x.notes.push_back("cluster launch control: " + std::to_string(ctx.clc_branches) + " branch" + (ctx.clc_branches == 1 ? "" : "es") +
                      " on a query's answer, each the model's `if` on that answer (a new tile, or none); at most " +
                      std::to_string(launch.clc) + " answer" + (launch.clc == 1 ? " is" : "s are") +
                      " a new tile (--clc N: the clusters waiting to launch)");
  return x;
}

}  // namespace pc::ptx
