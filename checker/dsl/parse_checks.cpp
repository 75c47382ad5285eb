// Checks of an operation once its operands are read (memory spaces, constant
// operands, the forms PTX spells, the target's operations) and of the whole
// kernel once the file is read (threads per CTA, tensor memory allocated).
#include "checker/dsl/parser_impl.hpp"

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "checker/ir_rules.hpp"
#include "spec/amd.hpp"
#include "spec/clc.hpp"
#include "spec/named_barrier.hpp"
#include "spec/rules.hpp"

namespace pc::dsl::detail {

// Which memory each buffer operand may be in: tensor memory only for the
// tcgen05 operations on it (and an MMA's A operand), shared memory for the
// rest; `@ CTA` is for shared memory (distributed shared memory).
void Parser::check_spaces(const ir::Op& op) {
  const std::string kw(ir::op_keyword(op.code));
  auto is_tmem = [&](const ir::Ref& r) { return k_.buffers[static_cast<std::size_t>(r.object)].space == ir::Space::tensor; };
  auto name_of = [&](const ir::Ref& r) { return k_.buffers[static_cast<std::size_t>(r.object)].name; };
  const bool tmem_op = ir::op_operands(op.code) == ir::Operands::tmem_buffers;
  for (const ir::Ref& r : op.bufs) {
    if (tmem_op && !is_tmem(r))
      fail(r.loc, "'" + kw + "' accesses tensor memory, and '" + name_of(r) + "' is shared memory: declare it 'tmem " +
                      name_of(r) + " cols C'");
    if (!tmem_op && op.code != OpCode::tcgen05_mma && is_tmem(r))
      fail(r.loc, "'" + name_of(r) + "' is tensor memory: '" + kw +
                      "' accesses shared memory (tensor memory is accessed with tcgen05_ld, tcgen05_st, tcgen05_cp and tcgen05_mma)");
    if (is_tmem(r) && r.cta != ir::no_expr)
      fail(k_.exprs[static_cast<std::size_t>(r.cta)].loc, "'" + name_of(r) + "' is tensor memory, which has no '@ CTA' (the model's "
                                                         "tensor memory is the CTA's own)");
  }
  if (op.tmem.object >= 0 && !is_tmem(op.tmem))
    fail(op.tmem.loc, "'" + name_of(op.tmem) + "' is shared memory; '" + kw + "' needs a tensor-memory buffer ('tmem " +
                          name_of(op.tmem) + " cols C')");
  // Global memory (`gmem`): the threads' loads and stores, a TMA load's
  // source and a TMA store's destination; one instance for every CTA.
  auto is_global = [&](const ir::Ref& r) { return k_.buffers[static_cast<std::size_t>(r.object)].space == ir::Space::global; };
  const bool thread_access = op.code == OpCode::read || op.code == OpCode::write || op.code == OpCode::consume ||
                             op.code == OpCode::atomic || op.code == OpCode::atomic_load;
  auto is_tmap = [&](const ir::Ref& r) { return k_.buffers[static_cast<std::size_t>(r.object)].tensormap; };
  if (op.code == OpCode::tensormap_cp_fenceproxy && !op.bufs.empty() && is_global(op.bufs[0]))
    fail(op.bufs[0].loc, "tensormap_cp_fenceproxy copies from shared memory (tensormap.cp_fenceproxy.global.shared::cta): '" +
                             name_of(op.bufs[0]) + "' is global memory");
  for (const ir::Ref& r : op.bufs) {
    if (!is_global(r)) continue;
    // Tensor maps (`tensormap`): the threads read and write them
    // (tensormap.replace on global memory); TMA copies read them through
    // `map`, tensormap_cp_fenceproxy writes them.
    if (!thread_access && is_tmap(r))
      fail(r.loc, "'" + name_of(r) + "' is a tensor map: '" + kw + "' cannot access it (threads read and write it; a TMA copy "
                      "reads it with 'map'; tensormap_cp_fenceproxy copies into it)");
    if (!thread_access)
      fail(r.loc, "'" + name_of(r) + "' is global memory: '" + kw + "' accesses shared memory here (a TMA load reads global "
                      "memory with 'from', a TMA store writes it with 'to')");
    if (r.cta != ir::no_expr)
      fail(k_.exprs[static_cast<std::size_t>(r.cta)].loc, "'" + name_of(r) + "' is global memory, which has no '@ CTA' (one "
                                                         "instance for every CTA)");
  }
  if (op.global.object >= 0 && !is_global(op.global))
    fail(op.global.loc, "'" + name_of(op.global) + "' is not global memory: declare it 'gmem " + name_of(op.global) + " bytes B'");
  // A TMA copy's tensor map (`map`), fence_proxy_tensormap acquire's and
  // tensormap_cp_fenceproxy's destination: a `tensormap`, never data.
  if (op.tmap.object >= 0 && !is_tmap(op.tmap))
    fail(op.tmap.loc, "'" + name_of(op.tmap) + "' is not a tensor map: declare it 'tensormap " + name_of(op.tmap) + "'");
  if (op.global.object >= 0 && is_tmap(op.global))
    fail(op.global.loc, "'" + name_of(op.global) + "' is a tensor map, not data: a TMA copy reads it with 'map " + name_of(op.global) + "'");
}

// One rule, one verdict (docs/dsl.md): an operand whose range a
// spec rule checks when the operation runs, with a violation of its own
// (spec/violation.hpp), is left to the checker also when it is a constant,
// so that `bar_sync 1, 48` and `t = 48` then `bar_sync 1, t` get the same
// verdict: the mbarrier counts (bad_init_count, bad_arrive_count), the tx
// byte operands (tx_out_of_range), a TMA load's bytes (bad_copy_size), the
// named-barrier id (named_id_out_of_range) and a thread count that is not a
// multiple of the warp size (named_count_not_warp_multiple). What no run-time
// rule checks stays an error here: the limits below.
void Parser::check_operands(const ir::Op& op) {
  if (op.code != OpCode::bar_red && op.code != OpCode::s_waitcnt) check_range(op.n, "the number of pending groups", 0, max_number);
  check_range(op.multicast, "the multicast CTA mask", 1, (std::int64_t{1} << k_.cluster_ctas) - 1);
  check_range(op.mask, "a member mask (32 bits, one per lane)", 0, 0xffffffffLL);
  check_range(op.quarter, "a tensor-memory lane quarter (lanes 32Q .. 32Q + 31)", 0, 3);
  // Counts of mbarrier ops: spec::mbarrier::init and arrive, when they run.
  // A named barrier's id and its count's warp multiple (0 included):
  // spec::named::check_operands, when they run. A count above the threads a
  // CTA may have names threads that cannot be.
  if (ir::op_is_named_barrier(op.code)) {
    if (auto v = op.count == ir::no_expr ? std::nullopt : const_value(op.count); v && *v > spec::rules::max_cta_threads)
      fail(k_.exprs[static_cast<std::size_t>(op.count)].loc,
           "a named-barrier thread count is " + std::to_string(*v) + ": a CTA has at most " +
               std::to_string(spec::rules::max_cta_threads) + " threads");
  }
  // try_cancel writes a .b128 response (PTX ISA clusterlaunchcontrol.try_cancel).
  if (op.code == OpCode::clc_try_cancel && !op.bufs.empty()) {
    const ir::BufferDecl& b = k_.buffers[static_cast<std::size_t>(op.bufs[0].object)];
    if (b.bytes != spec::clc::response_bytes)
      fail(op.bufs[0].loc, "clc_try_cancel writes a " + std::to_string(spec::clc::response_bytes) + "-byte response, and '" + b.name +
                               "' has " + std::to_string(b.bytes) + " bytes per element: declare it 'smem " + b.name + "[N] bytes " +
                               std::to_string(spec::clc::response_bytes) + "'");
  }
  // A bulk copy moves a multiple of 16 bytes (PTX ISA, cp.async.bulk: its
  // size operand; ptxas: "expected to be multiple of 16", at most
  // spec::rules::max_bulk_copy_bytes). A tma_load's `bytes` operand is checked
  // when it runs (bad_copy_size); the size of a buffer a bulk copy moves whole
  // is a declaration's, checked here.
  const bool whole_buffer = op.code == OpCode::tma_store || op.code == OpCode::tma_reduce ||
                            (op.code == OpCode::tma_load && op.bytes == ir::no_expr);
  if (whole_buffer && !op.bufs.empty()) {
    const ir::BufferDecl& b = k_.buffers[static_cast<std::size_t>(op.bufs[0].object)];
    if (spec::rules::bulk_copy_size(b.bytes) != spec::Violation::none)
      fail(op.bufs[0].loc, std::string(ir::op_keyword(op.code)) + " copies all of '" + b.name + "', " + std::to_string(b.bytes) +
                               " bytes: PTX cp.async.bulk copies a multiple of 16 bytes, at most " +
                               std::to_string(spec::rules::max_bulk_copy_bytes) + "; declare it a multiple of 16" +
                               (op.code == OpCode::tma_load ? " or give 'bytes B'" : ""));
  }
}

// Forms that parse but that no PTX instruction spells: ptxas rejects them
// (tests/isa_limits_test.cpp assembles each with ptxas). PTX ISA sections:
// mbarrier.arrive and mbarrier.arrive_drop (the syntax of their forms), bar,
// barrier (barrier{.cta}.arrive).
void Parser::check_isa_form(const ir::Op& op, const OptionLocs& at, ir::Loc loc) {
  const bool arrive = ir::op_operands(op.code) == ir::Operands::arrive;
  if (arrive) {
    const bool drop = op.code == OpCode::mbar_arrive_drop;
    const bool tx = op.code == OpCode::mbar_arrive_expect_tx || (drop && op.bytes != ir::no_expr);
    const std::string ptx = std::string(drop ? "mbarrier.arrive_drop" : "mbarrier.arrive") + (tx ? ".expect_tx" : "");
    const bool remote = op.bar.cta != ir::no_expr;
    // mbarrier.arrive{...}.shared::cluster.b64 _, [addr] ...: no state.
    if (remote && op.dest_var >= 0)
      fail(k_.exprs[static_cast<std::size_t>(op.bar.cta)].loc,
           "an arrive on a barrier '@ CTA' returns no state: PTX " + ptx +
               " on .shared::cluster takes only the sink '_' as its destination; drop '" +
               role_->vars[static_cast<std::size_t>(op.dest_var)] + " =' or arrive on the agent's own barrier");
    // .expect_tx forms take [addr], txCount and no count.
    if (tx && op.count != ir::no_expr)
      fail(at.count, "PTX " + ptx + " has no count operand (it counts one arrival); drop 'count', or add an 'arrive ... count N' for the other arrivals");
    // mbarrier.arrive{_drop}.noComplete{.release}{.cta}{.shared{::cta}}.b64 state, [addr], count.
    if (op.no_complete) {
      const std::string allowed = "PTX allows .noComplete only as " + std::string(drop ? "mbarrier.arrive_drop" : "mbarrier.arrive") +
                                  ".noComplete.release.cta on the agent's own barrier (.shared::cta)";
      if (remote) fail(at.nocomplete, "'nocomplete' on a barrier '@ CTA': " + allowed + "; drop '@ CTA' or 'nocomplete'");
      if (op.sem == ir::Sem::relaxed) fail(at.nocomplete, "'nocomplete' with 'relaxed': " + allowed + "; drop 'relaxed'");
      if (op.scope == ir::Scope::cluster) fail(at.nocomplete, "'nocomplete' with 'cluster': " + allowed + "; write 'cta' or drop it");
      if (tx) fail(at.nocomplete, "'nocomplete' with 'bytes': " + allowed + ", not with .expect_tx; drop 'bytes' or 'nocomplete'");
    }
  }
  // barrier{.cta}.arrive a, b: "a non-zero thread count is required".
  if (op.code == OpCode::bar_arrive && op.count == ir::no_expr)
    fail(loc, "bar_arrive needs a thread count: PTX barrier.arrive requires its operand b (only barrier.sync may leave it "
              "out, for the whole CTA); write 'bar_arrive ID, THREADS'");
}

// cp.async-groups are one thread's (ir::cp_async_lanes, which the PTX
// front end applies too): the .bk fix is a `one:` prefix.
void Parser::check_cp_async_lanes(const std::vector<ir::Stmt>& body) {
  if (const auto e = ir::cp_async_lanes(body))
    target_error(e->loc, e->message + ": write 'one: " + std::string(ir::op_keyword(e->code)) +
                             "', or track the copies with cp_async_arrive");
}

// The bulk async-groups are per thread (PTX ISA cp.async.bulk.commit_group:
// "creates a new per-thread bulk async-group"; cp.async.bulk.wait_group:
// "cause the executing thread to wait"), and an agent's bulk unit tracks one
// thread's: in a multi-warp role, every TMA store or reduce, commit_group
// and wait_group is the elected lane of one warp (warp 0's without a
// `warp K:` prefix).
void Parser::check_bulk_thread(const std::vector<ir::Stmt>& body) {
  const ir::Op* first = nullptr;
  auto warp_of = [](const ir::Op& o) { return o.warp < 0 ? 0 : static_cast<int>(o.warp); };
  auto walk = [&](auto& self, const std::vector<ir::Stmt>& b) -> void {
    for (const ir::Stmt& s : b) {
      const OpCode c = s.op.code;
      if (s.kind == ir::StmtKind::op && (c == OpCode::tma_store || c == OpCode::tma_reduce || c == OpCode::bulk_commit_group ||
                                          c == OpCode::bulk_wait_group || c == OpCode::bulk_wait_group_read)) {
        if (first == nullptr) {
          first = &s.op;
        } else if (warp_of(s.op) != warp_of(*first)) {
          target_error(s.loc, "bulk async-groups are per thread and the role's are warp " + std::to_string(warp_of(*first)) +
                                  "'s (its '" + std::string(ir::op_keyword(first->code)) + "' at line " +
                                  std::to_string(first->loc.line) + "): '" + std::string(ir::op_keyword(s.op.code)) +
                                  "' here is warp " + std::to_string(warp_of(s.op)) +
                                  "'s; give every TMA store, commit_group and wait_group of the role the same 'warp K:'");
          return;
        }
      }
      self(self, s.body);
      self(self, s.else_body);
    }
  };
  walk(walk, body);
}

// The operations of each target (ir::op_target; docs/dsl.md, "Targets"),
// checked once the whole file is read, since `target` may come after the roles.
void Parser::check_target(const std::vector<ir::Stmt>& body) {
  for (const ir::Stmt& s : body) {
    if (s.kind == ir::StmtKind::op) check_target_op(s.op);
    check_target(s.body);
    check_target(s.else_body);
  }
}

namespace {

// What AMD has instead of a PTX operation, by the operation's family
// (ir::op_family): the message of its target error.
std::string amd_has_instead(OpCode c) {
  switch (ir::op_family(c)) {
    case ir::OpFamily::named:
      return ir::op_is_named_barrier(c) ? "AMD has no named barriers; the workgroup barrier is s_barrier"
                                        : "a wave's lanes run in lockstep, one instruction stream: nothing to write";
    case ir::OpFamily::bulk:
    case ir::OpFamily::cp_async:
      return "AMD has no TMA, bulk copies, cp.async, st.async or red.async; a copy into LDS is global_load_lds, waited for with "
             "s_waitcnt vmcnt(N)";
    case ir::OpFamily::mbarrier:
      return "AMD has no mbarrier in hardware; the software mbarrier (an LDS word) has init, arrive and wait ... parity only";
    case ir::OpFamily::cluster: return "AMD has no thread-block clusters";
    case ir::OpFamily::wgmma: return "AMD has no asynchronous MMA reading shared memory (its MFMA/WMMA read registers)";
    case ir::OpFamily::tcgen05: return "AMD has no tensor memory or asynchronous MMA (Blackwell's tcgen05)";
    case ir::OpFamily::clc: return "AMD has no cluster launch control";
    case ir::OpFamily::fence: return "PTX fences have no AMD instruction of their own here; order LDS with s_waitcnt and a barrier";
    case ir::OpFamily::memory:
    case ir::OpFamily::amd:
    case ir::OpFamily::control: break;  // on every target
  }
  return "";
}

}  // namespace

void Parser::check_target_op(const ir::Op& op) {
  const std::string kw(ir::op_keyword(op.code));
  // `grids 2` models each grid as one CTA: the cluster barrier and cluster
  // launch control, which need the cluster's other CTAs, are not modelled there.
  const ir::OpFamily family = ir::op_family(op.code);
  if (k_.grids > 1 && (family == ir::OpFamily::cluster || family == ir::OpFamily::clc))
    errors_.push_back({file_, op.loc, "'" + kw + "' with 'grids 2' is not modelled: each grid is one CTA there (use "
                                      "syncthreads or a named barrier for the CTA's threads)"});
  // Nor another CTA: each grid is one CTA, its own.
  if (k_.grids > 1) {
    bool other = op.multicast != ir::no_expr || op.bar.cta != ir::no_expr;
    for (const ir::Ref& r : op.bufs) other |= r.cta != ir::no_expr;
    if (other)
      errors_.push_back({file_, op.loc, "'" + kw + "' names another CTA ('@ CTA' or 'multicast'), which 'grids 2' does not "
                                        "model: each grid is one CTA"});
  }
  const bool amd = k_.target == ir::Target::amd;
  const std::string chip = spec::amd::gfx_name(k_.gfx);
  switch (ir::op_target(op.code)) {
    case ir::OpTarget::both: break;
    case ir::OpTarget::nvidia:
      if (amd) {
        const std::string why = amd_has_instead(op.code);
        target_error(op.loc, "'" + kw + "' is a PTX (NVIDIA) operation, not under 'target amd': " + why);
      }
      return;
    case ir::OpTarget::amd:
    case ir::OpTarget::amd_cdna:
    case ir::OpTarget::amd_gfx12:
      if (!amd) {
        target_error(op.loc, "'" + kw + "' is an AMD instruction: declare 'target amd' (the kernel is 'target nvidia')");
        return;
      }
      if (ir::op_target(op.code) == ir::OpTarget::amd_gfx12 && !spec::amd::has_split_barrier(k_.gfx))
        target_error(op.loc, "'" + kw + "' is the gfx12 split barrier (RDNA4 ISA); " + chip +
                                 (spec::amd::is_gfx11(k_.gfx) ? " (RDNA3)" : " (CDNA)") +
                                 " has s_barrier only: write s_barrier, or declare 'target amd gfx1200'");
      if (ir::op_target(op.code) == ir::OpTarget::amd_cdna && !spec::amd::has_lds_dma(k_.gfx))
        target_error(op.loc, "'" + kw + "' loads into LDS, which CDNA has (gfx90a, gfx940, gfx942); " + chip +
                                 (spec::amd::is_gfx11(k_.gfx) ? " (RDNA3)" : " (RDNA4)") + " has no load with an LDS destination");
      break;
  }
  if (!amd) return;
  // On AMD: no clusters, so no `@ CTA`; the software mbarrier's forms only.
  if (op.bar.object >= 0 && op.bar.cta != ir::no_expr)
    target_error(k_.exprs[static_cast<std::size_t>(op.bar.cta)].loc, "'@ CTA' names a CTA of a cluster: AMD has no clusters");
  for (const ir::Ref& r : op.bufs)
    if (r.cta != ir::no_expr)
      target_error(k_.exprs[static_cast<std::size_t>(r.cta)].loc, "'@ CTA' names a CTA of a cluster: AMD has no clusters");
  const std::string sw = "the software mbarrier (spec/sw_mbarrier.hpp) has ";
  if (op.code == OpCode::mbar_arrive) {
    if (op.dest_var >= 0) target_error(op.loc, sw + "no state token: its arrive returns nothing; drop the assignment");
    if (op.no_complete) target_error(op.loc, sw + "no .noComplete arrive: drop 'nocomplete'");
    if (op.sem != ir::Sem::standard || op.scope != ir::Scope::standard)
      target_error(op.loc, sw + "one arrive, a release compare-and-swap at workgroup scope: drop the release/relaxed and "
                                "cta/cluster options");
  }
  if (op.code == OpCode::mbar_wait) {
    if (op.token_var >= 0) target_error(op.loc, sw + "no state token: wait by 'parity P'");
    if (op.sem != ir::Sem::standard || op.scope != ir::Scope::standard)
      target_error(op.loc, sw + "one wait, acquire loads at workgroup scope: drop the acquire/relaxed and cta/cluster options");
  }
  if (op.code == OpCode::s_waitcnt) {
    // gfx9 S_WAITCNT: vmcnt 0..63, lgkmcnt 0..15; gfx12 S_WAIT_LOADCNT and
    // S_WAIT_DSCNT: 0..63 (spec/amd.hpp, max_vmcnt, max_lgkmcnt).
    for (const auto& [e, what, hi] : {std::tuple{op.n, "vmcnt", spec::amd::max_vmcnt(k_.gfx)},
                                      std::tuple{op.count, "lgkmcnt", spec::amd::max_lgkmcnt(k_.gfx)}}) {
      if (e == ir::no_expr) continue;
      if (auto v = const_value(e); v && (*v < 0 || *v > static_cast<std::int64_t>(hi)))
        target_error(k_.exprs[static_cast<std::size_t>(e)].loc, std::string(what) + " is " + std::to_string(*v) + "; on " +
                                                                     chip + " it must be in 0.." + std::to_string(hi));
    }
  }
}

// `cta threads = N` states the CTA's size. The roles placed on a CTA are
// its threads the model runs; they cannot be more than N. Fewer is allowed:
// the others are threads the kernel does not model, which take part in no
// barrier (as threads that exit at once; docs/dsl.md).
void Parser::check_cta_threads() {
  if (!errors_.empty() || silenced_ > 0) return;
  // A CTA has at most spec::rules::max_cta_threads threads (PTX ISA %ntid;
  // CUDA C++ Programming Guide, "Technical Specifications"; AMD: per workgroup).
  constexpr int max_threads = spec::rules::max_cta_threads;
  for (int cta = 0; cta < k_.cluster_ctas && k_.cta_threads <= 0; ++cta) {
    int threads = 0;
    const ir::Role* last = nullptr;
    for (const ir::Role& r : k_.roles)
      if (r.placed_on(cta)) {
        threads += ir::role_warps(r) * ir::warp_size(k_) * r.count;
        if (threads > max_threads && !last) last = &r;
      }
    if (last) {
      errors_.push_back({file_, last->loc,
                         "the roles on CTA " + std::to_string(cta) + " have " + std::to_string(threads) +
                             " threads with role '" + last->name + "': a CTA has at most " + std::to_string(max_threads) + " threads (" +
                             std::to_string(max_threads / ir::warp_size(k_)) + " warps)"});
      return;
    }
  }
  if (k_.cta_threads <= 0) return;
  for (int cta = 0; cta < k_.cluster_ctas; ++cta) {
    int threads = 0;
    std::string parts;
    for (const ir::Role& r : k_.roles) {
      if (!r.placed_on(cta)) continue;
      const int t = ir::role_warps(r) * ir::warp_size(k_) * r.count;
      threads += t;
      parts += (parts.empty() ? "" : ", ") + r.name + " " + std::to_string(t);
    }
    if (threads <= k_.cta_threads) continue;
    errors_.push_back({file_, cta_threads_loc_,
                       "cta threads = " + std::to_string(k_.cta_threads) + ", but the roles on CTA " + std::to_string(cta) +
                           " have " + std::to_string(threads) + " threads (" + parts +
                           "): a CTA cannot run more threads than it has; raise the count, or drop the line (the CTA "
                           "then has its roles' threads)"});
    return;
  }
}

// A tensor-memory buffer that some operation accesses and no tcgen05_alloc
// anywhere allocates: every such access is tmem_unallocated, whatever the
// interleaving, so it is bad input (the first access, located).
void Parser::check_tmem_allocated() {
  std::vector<bool> allocated(k_.buffers.size(), false);
  std::vector<const ir::Ref*> accesses;
  auto walk = [&](auto&& self, const std::vector<ir::Stmt>& body) -> void {
    for (const ir::Stmt& st : body) {
      self(self, st.body);
      self(self, st.else_body);
      if (st.kind != ir::StmtKind::op) continue;
      const ir::Op& op = st.op;
      if (op.code == OpCode::tcgen05_alloc && op.tmem.object >= 0) allocated[static_cast<std::size_t>(op.tmem.object)] = true;
      if (ir::op_operands(op.code) == ir::Operands::tmem_alloc) continue;
      for (const ir::Ref& r : op.bufs) accesses.push_back(&r);
      if (op.tmem.object >= 0) accesses.push_back(&op.tmem);
    }
  };
  for (const ir::Role& r : k_.roles) walk(walk, r.body);
  std::vector<bool> told(k_.buffers.size(), false);
  for (const ir::Ref* r : accesses) {
    const auto b = static_cast<std::size_t>(r->object);
    if (b >= k_.buffers.size() || k_.buffers[b].space != ir::Space::tensor || allocated[b] || told[b]) continue;
    told[b] = true;
    errors_.push_back({file_, r->loc, "tensor memory '" + k_.buffers[b].name + "' is accessed but never allocated: add 'tcgen05_alloc " +
                                          k_.buffers[b].name + "' (one warp; then publish it with a barrier)"});
  }
}

}  // namespace pc::dsl::detail
