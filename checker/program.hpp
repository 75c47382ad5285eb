// A kernel instantiated for the explorer: agents placed on CTAs, object arrays
// expanded into instances, and each role's structured body flattened into code
// with jumps. No semantics here, only names and numbers.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "checker/expr.hpp"
#include "checker/ir.hpp"
#include "spec/amd.hpp"
#include "spec/hb.hpp"
#include "spec/sync_order.hpp"

namespace pc::check {

// An error in a kernel that is only found when it is instantiated or run
// (an index out of range, a division by zero): bad input, exit 2.
struct KernelError : std::invalid_argument {
  ir::Loc loc;
  KernelError(const std::string& what, ir::Loc l) : std::invalid_argument(what), loc(l) {}
};

// A defect of the checker found while it runs (a reduction that does not
// hold where --check-reduction tests it): not a verdict, exit 4.
struct InternalError : std::logic_error {
  using std::logic_error::logic_error;
};

// choose: the agent's own step goes on at pc + 1 (the first way of an
// `either`), its alternative (Model::apply) at `target` (the second).
enum class InstrKind : std::uint8_t { op, assign, jump, branch_false, assert_true, choose };
// An assignment or control flow: it reads and writes only the agent's own
// variables and pc, and is always enabled.
constexpr bool is_control(InstrKind k) { return k == InstrKind::assign || k == InstrKind::jump || k == InstrKind::branch_false; }

struct Instr {
  InstrKind kind = InstrKind::op;
  const ir::Op* op = nullptr;  // op
  int var = -1;                // assign target
  ir::ExprId expr = ir::no_expr;
  int target = -1;             // jump / branch_false destination; choose: the second way
  ir::Loc loc;
};

struct AgentInfo {
  int role = 0;
  int cta = 0;
  int instance = 0;
  int warp = 0;                // its warp in the role instance (a role split per warp, ir::Role::per_warp)
  int parts = 0;               // the agent whose index names the parts its `all:` lanes own (hb::Access::spread):
                               // itself, or warp 0 of its instance in a role split per warp
  int threads = 32;
  int warps = 1;
  int warp_rank = -1;          // the rank of its first warp in its CTA, where the role's placement gives it (-1: not known)
  spec::hb::AgentThreads hb;   // its threads in happens-before (lane classes per warp, async units)
  // hb's lane classes, as lanes_of returns them (set with hb by instantiate):
  // all of them, the leader's, and each warp's leader.
  spec::hb::Threads all_lanes = 0, leader_lane = 0, leader_lanes = 0;
  // The lanes of each of hb's lane classes (bit i: lane i), the same in each
  // warp (instantiate: lane 0, then the other lanes split by the role's lane masks).
  std::uint64_t cell_masks[spec::hb::max_cells] = {};
  std::string name;
  // Warp w's lane classes that hold a lane of `mask` (the mask is a union of classes).
  [[nodiscard]] spec::hb::Threads cells_of(std::uint64_t mask, int w) const;
  // The lanes of warp w among the lane classes `t` (bit i: lane i).
  [[nodiscard]] std::uint64_t lanes_in_warp(spec::hb::Threads t, int w) const;
  // Whether the lane classes `t` hold a lane of every warp.
  [[nodiscard]] bool every_warp(spec::hb::Threads t) const;
};

// The lanes that execute an operation, as lane classes of happens-before
// (the op's lane policy, and `one:` / `each:` / `all:` where it has a choice).
struct Lanes {
  spec::hb::Threads threads = 0;  // the lane classes
  int count = 1;                  // how many hardware threads execute it
  bool every = false;             // every lane: each on its own part of a buffer
};
[[nodiscard]] Lanes lanes_of(const ir::Op& op, const AgentInfo& a);
// The units of an arrive by the lanes `l` that arrive each on their own
// (spec::mbarrier::arrive_units): each warp's executing lanes together on
// NVIDIA, each lane on AMD. l.count is a multiple of it.
[[nodiscard]] int arrive_units(const ir::Kernel& k, const Lanes& l, const AgentInfo& a);

// An expression in a form eval computes without walking its tree: most
// expressions of a kernel are a variable, a constant, or a variable and a
// constant joined by one operator (`k % 2`, `k + 1`, `k < n`). Found from
// Program::exprs by compile_exprs; `tree` for any other.
struct FastExpr {
  // A variable `op` the constant k, for each operator with a form.
  enum class Kind : std::uint8_t { tree, constant, var, add, sub, div, mod, lt, le, gt, ge, eq, ne };
  Kind kind = Kind::tree;
  std::int32_t var = -1;  // var, and every operator
  std::int64_t k = 0;     // constant, and every operator
};

struct Program {
  const ir::Kernel* kernel = nullptr;
  std::vector<ir::Expr> exprs;              // the kernel's, plus loop increments and bounds
  std::vector<FastExpr> fast;               // per expression, its form for eval (compile_exprs; empty: every one a tree)
  std::vector<std::vector<Instr>> code;     // per role
  std::vector<AgentInfo> agents;
  std::vector<int> var_base;                // per agent: its first variable in State::vars
  // Every CTA of every grid: CTA c is rank c % cluster_ctas of the cluster
  // of grid c / cluster_ctas (`grids 2`: two grids of one cluster each).
  int ctas = 1;
  int cluster_ctas = 1, grids = 1;
  [[nodiscard]] int grid_of(int cta) const { return cta / cluster_ctas; }
  [[nodiscard]] int grid_first(int cta) const { return cta - cta % cluster_ctas; }
  // How messages name CTA `cta`: "" in a one-CTA kernel, "@cta1", and
  // "@grid1" where each grid is one CTA.
  [[nodiscard]] std::string cta_suffix(int cta) const {
    if (ctas == 1) return "";
    return grids > 1 && cluster_ctas == 1 ? "@grid" + std::to_string(cta) : "@cta" + std::to_string(cta);
  }
  std::vector<int> cta_threads;             // per CTA
  bool has_tcgen05_mma = false;             // some role issues an async tcgen05 operation (mma, cp, ld, st: the tcgen05 fence rule matters)
  // Tensor memory: per buffer declaration, its allocation's bit in
  // spec::tmem::Cta::allocated (-1 for shared memory); how many there are.
  std::vector<int> tmem_slot;
  int tmem_decls = 0;
  // Per hb::Memory buffer, 1 for tensor memory and for a CTA's start (empty
  // in a kernel with neither): the buffers whose events' `after_async` is an
  // execution ordering, which .relaxed arrives and waits carry (spec/hb.hpp,
  // Event: the tcgen05 ordering; spec::sync_order::cta_start_known).
  std::vector<std::uint8_t> tmem_buffer;
  [[nodiscard]] std::span<const std::uint8_t> tmem_buffers() const { return tmem_buffer; }
  // Per hb::Memory buffer, 1 for a tensor map (`tensormap`; empty in a kernel
  // with none): the buffers whose events' `after_async` is the tensormap
  // proxy's ordering (spec::sync_order::tensormap_release), which
  // fence.proxy.async does not reach. `host_thread`: the thread of
  // happens-before, no agent's, that wrote them before the launch (-1: none).
  std::vector<std::uint8_t> tensormap_buffer;
  [[nodiscard]] std::span<const std::uint8_t> tensormap_buffers() const { return tensormap_buffer; }
  int host_thread = -1;
  // Per hb::Memory buffer, 1 for an instance of global memory (`gmem`,
  // `tensormap`; empty in a kernel with none), which no fence restricted to
  // shared memory reaches; and 1 for every buffer outside shared memory
  // (global memory, tensor memory and the CTAs' start records, as
  // tmem_buffer), which the .sync_restrict fences leave alone.
  std::vector<std::uint8_t> global_buffer_flag, outside_shared;
  [[nodiscard]] std::span<const std::uint8_t> global_buffers() const { return global_buffer_flag; }
  [[nodiscard]] std::span<const std::uint8_t> outside_shared_buffers() const { return outside_shared; }
  bool has_choice = false;                  // some role has an `either` (a choose instruction: Model::apply's alternatives)
  bool has_clc = false;                     // some role issues clusterlaunchcontrol.try_cancel
  bool has_values = false;                  // some write stores a value, or some read returns one (State::values)
  // A state token holds the pending count before its arrive only where
  // something may read it (mbarrier.pending_count, or an expression of the
  // token's variable); elsewhere it holds the phase and .noComplete alone,
  // so that two arrives that complete no phase leave the same tokens in
  // either order (step/mbarrier.cpp; the footprints count such arrives).
  bool token_pending = true;
  bool id0_whole_cta = false;               // some op uses barrier 0 for the whole CTA (syncthreads, or id 0 (or an id not known) with no count)

  // Object instances, numbered CTA-major: instance = cta * per_cta + base[decl] + index.
  std::vector<int> buffer_base, mbar_base;
  int buffers_per_cta = 0, mbars_per_cta = 0;
  std::vector<bool> mbar_has_init;          // per declaration: the kernel has an init op on it
  // Per mbarrier instance: 1 where an op of the kernel may write its
  // pseudo-buffer (an mbarrier.init or mbarrier.inval of its declaration;
  // step.cpp, the only writers of hb events there). Where it is 0 the
  // pseudo-buffer holds no event in any state, so its initialisation is
  // visible to every use (step.cpp, init_use_of: the same answer, without
  // the search through the events; tests/checker_step_reuse_test.cpp). An
  // inval writes the memory only where a buffer is laid over the barrier,
  // and such a barrier has an init in the kernel (the parser refuses one
  // initialised at launch), so counting the inval changes nothing today; it
  // keeps the flag true to step.cpp's writers all the same.
  std::vector<std::uint8_t> mbar_memory_written;
  // The largest count one unit's arrive-on of the kernel adds (an arrive's
  // `count`, times a warp's lanes for an `all:` arrive on NVIDIA; where a
  // variable computes it: no bound). A group's arrive that completes a phase
  // stops one unit short where some arrive-on could add more than one of its
  // units (spec::mbarrier::arrive_units, `stop_short`).
  std::int64_t max_unit_arrival = 1;

  // Synchronisation objects for happens-before: mbarrier instances, then the
  // named-barrier ids in use per CTA, then the cluster barrier.
  std::vector<int> named_slot;              // id -> slot, -1 if unused
  int named_used = 0;
  int sync_count = 0;
  // Per mbarrier instance that may receive arrivals from another CTA, two more
  // sync objects (-1 where it never does): releases from another CTA at
  // .cluster scope, which only a .cluster acquire synchronises with, and at
  // .cta scope, which none does (kept to name a scope race).
  std::vector<int> mbar_cluster_sync, mbar_weak_sync;
  // Per agent, the sync objects of its fences (-1 where its role has none of
  // that kind): what its release fences released at .cluster scope
  // (fence.mbarrier_init, fence.acq_rel/sc.cluster) and at .cta scope,
  // forwarded by its later arrives (a release pattern); and what its relaxed
  // waits observed through channels a .cta or a .cluster acquire reaches, for
  // a later fence.acq_rel/sc to acquire (an acquire pattern).
  using Fences = spec::sync_order::Fences;
  std::vector<Fences> fences;
  // Per agent whose role has tcgen05.commit or cp.async.mbarrier.arrive: its
  // pool of sync objects (first, count; count 0 where it has none). Each
  // pending arrival holds one: what the arrive releases is fixed when the
  // commit or arrive is issued, and moved into the mbarrier when it lands
  // (step.cpp, pending_step).
  std::vector<int> arrive_slot_first, arrive_slot_count;

  [[nodiscard]] int num_buffers() const { return buffers_per_cta * ctas; }
  [[nodiscard]] int num_mbars() const { return mbars_per_cta * ctas; }
  // hb::Memory holds the data buffers, then one pseudo-buffer per mbarrier
  // instance standing for its initialisation, then in a cluster of two or
  // more CTAs one per CTA standing for its start (spec::sync_order::cta_starts)
  // and one per CTA holding the other CTAs' operations on it, which its end
  // must follow (spec::sync_order::remote_operation).
  [[nodiscard]] int mem_buffers() const { return num_buffers() + num_mbars() + (ctas > 1 ? 2 * ctas : 0); }
  [[nodiscard]] int mbar_pseudo_buffer(int mbar) const { return num_buffers() + mbar; }
  [[nodiscard]] int start_buffer(int cta) const { return num_buffers() + num_mbars() + cta; }
  [[nodiscard]] int end_buffer(int cta) const { return num_buffers() + num_mbars() + ctas + cta; }
  // Every hb thread (lane classes and async units) of the agents of CTA `cta`.
  [[nodiscard]] spec::hb::Threads cta_hb_threads(int cta) const {
    spec::hb::Threads t = 0;
    for (const AgentInfo& a : agents)
      if (a.cta == cta)
        for (int i = 0; i < a.hb.count(); ++i) t |= spec::hb::bit(static_cast<std::uint8_t>(a.hb.base + i));
    return t;
  }
  [[nodiscard]] int mbar_sync(int mbar) const { return mbar; }
  // Per hb::Memory buffer, the others of its CTA that share bytes with it
  // (checker/layout.hpp); empty when no declaration aliases another.
  std::vector<std::vector<std::uint16_t>> aliases;
  [[nodiscard]] std::span<const std::uint16_t> aliases_of(int mem_buf) const {
    if (aliases.empty()) return {};
    return aliases[static_cast<std::size_t>(mem_buf)];
  }
  // Per hb::Memory buffer, the data buffers among its aliases whose bytes
  // all lie in its own: a write of it overwrites them whole (hb::Access::covered).
  std::vector<std::vector<std::uint16_t>> covers;
  [[nodiscard]] std::span<const std::uint16_t> covered_by(int mem_buf) const {
    if (covers.empty()) return {};
    return covers[static_cast<std::size_t>(mem_buf)];
  }
  // "v[1] (smem_v bytes [8192, 16384))": an hb::Memory buffer and, where it
  // shares bytes with another, its range in its allocation.
  [[nodiscard]] std::string mem_name(int mem_buf) const;
  [[nodiscard]] int named_sync(int cta, int id) const {
    return num_mbars() + cta * named_used + named_slot[static_cast<std::size_t>(id)];
  }
  [[nodiscard]] int cluster_sync() const { return num_mbars() + ctas * named_used; }
  // Per CTA, the cluster barrier's channel of .cta release patterns (empty
  // where no role has both a .cta release fence and a cluster arrive):
  // spec::sync_order::ClusterSyncs.
  std::vector<int> cluster_cta_sync;
  [[nodiscard]] spec::sync_order::ClusterSyncs cluster_syncs(int cta) const {
    spec::sync_order::ClusterSyncs c{cluster_sync(), -1, 0};
    for (std::size_t i = 0; i < cluster_cta_sync.size(); ++i) c.cta_channels |= spec::hb::Syncs{1} << cluster_cta_sync[i];
    if (!cluster_cta_sync.empty()) c.own_cta = cluster_cta_sync[static_cast<std::size_t>(cta)];
    return c;
  }
  // Every sync object an mbarrier instance's phase completion completes.
  [[nodiscard]] spec::hb::Syncs mbar_syncs(int mbar) const;

  [[nodiscard]] std::string buffer_name(int inst) const;
  // A thread of happens-before in words: "consumer#1 (leader lane of warp 0)".
  [[nodiscard]] std::string thread_name(std::uint8_t t) const;
  // The thread of an access in words; `every`: the access was made by every
  // lane of t's agent (`all:`), named as the agent's, "wave#0 (the whole
  // wave)", not as the lane class t.
  [[nodiscard]] std::string access_name(std::uint8_t t, bool every) const;
  [[nodiscard]] std::string mbar_name(int inst) const;
  [[nodiscard]] int mbar_decl(int inst) const;
  [[nodiscard]] int buffer_decl(int inst) const;
  [[nodiscard]] int mbar_cta(int inst) const { return inst / mbars_per_cta; }
  [[nodiscard]] int buffer_cta(int inst) const { return inst / buffers_per_cta; }
  // Element `element` of buffer declaration `decl` as CTA `cta` names it: a
  // global buffer (`gmem`) has one instance, CTA 0's, for every CTA.
  [[nodiscard]] bool global_decl(int decl) const {
    return kernel->buffers[static_cast<std::size_t>(decl)].space == ir::Space::global;
  }
  [[nodiscard]] int buffer_at(int cta, int decl, int element) const {
    return (global_decl(decl) ? 0 : cta) * buffers_per_cta + buffer_base[static_cast<std::size_t>(decl)] + element;
  }
  [[nodiscard]] bool global_buffer(int inst) const { return inst < num_buffers() && global_decl(buffer_decl(inst)); }
};

// Throws KernelError for a kernel the explorer cannot instantiate.
[[nodiscard]] Program instantiate(const ir::Kernel& k);

// The threads of CTA `cta` (-1: of every CTA) whose agents have not exited,
// in `agents` (a state's agents, or a part of them, by agent index).
template <class Agents>
[[nodiscard]] std::uint32_t live_threads(const Program& p, const Agents& agents, int cta) {
  std::uint32_t live = 0;
  for (std::size_t i = 0; i < agents.size(); ++i)
    if (!agents[i].exited && (cta < 0 || p.agents[i].cta == cta)) live += static_cast<std::uint32_t>(p.agents[i].threads);
  return live;
}

// A rule of spec/ that the kernel's text breaks whatever the schedule,
// checked before any search (by both engines): the violation, where, and why.
struct TextViolation {
  spec::Violation kind = spec::Violation::none;
  ir::Loc loc;
  std::string message;
};
// The tcgen05 instructions that take `cta_group` (the op table's opf::pair)
// must all give the same value (spec::tmem::same_cta_group); none: they do.
[[nodiscard]] TextViolation cta_group_mix(const ir::Kernel& k);

// True if the expression reads no variable (its value is the same for every agent).
[[nodiscard]] bool is_constant(const Program& p, ir::ExprId e);

// Sets p.fast from p.exprs (instantiate does; a Program built by hand may).
void compile_exprs(Program& p);

// The range of integer values, as of numbers in a .bk file: a result
// outside -value_limit..value_limit is an overflow error (checker/expr.hpp).
inline constexpr std::int64_t value_limit = ir::value_limit;

// Integer expressions over an agent's variables, by walking the tree.
// Throws KernelError on division by zero, an overflow or a bad shift.
[[nodiscard]] std::int64_t eval_tree(const Program& p, ir::ExprId e, const std::int64_t* vars);

// The same value and errors as eval_tree, a fast form computed inline where
// the expression has one and its result needs no error (any other case, an
// error included, is eval_tree's: tests/dsl_errors_test.cpp compares both
// with exact arithmetic).
[[nodiscard]] inline std::int64_t eval(const Program& p, ir::ExprId e, const std::int64_t* vars) {
  const auto i = static_cast<std::size_t>(e);
  if (i >= p.fast.size()) return eval_tree(p, e, vars);
  const FastExpr& f = p.fast[i];
  std::int64_t r = 0;
  switch (f.kind) {
    case FastExpr::Kind::tree: return eval_tree(p, e, vars);
    case FastExpr::Kind::constant: return f.k;
    case FastExpr::Kind::var: return vars[f.var];
    // compile_exprs gives division and remainder a form only by 1..2^62:
    // neither divides by zero, a remainder is in range, and a quotient is
    // out of range only where the variable is (divided by 1).
    case FastExpr::Kind::mod: return vars[f.var] % f.k;
    case FastExpr::Kind::div: r = vars[f.var] / f.k; break;
    case FastExpr::Kind::add:
      if (__builtin_add_overflow(vars[f.var], f.k, &r)) return eval_tree(p, e, vars);
      break;
    case FastExpr::Kind::sub:
      if (__builtin_sub_overflow(vars[f.var], f.k, &r)) return eval_tree(p, e, vars);
      break;
    case FastExpr::Kind::lt: return vars[f.var] < f.k;
    case FastExpr::Kind::le: return vars[f.var] <= f.k;
    case FastExpr::Kind::gt: return vars[f.var] > f.k;
    case FastExpr::Kind::ge: return vars[f.var] >= f.k;
    case FastExpr::Kind::eq: return vars[f.var] == f.k;
    case FastExpr::Kind::ne: return vars[f.var] != f.k;
  }
  // The tree reports a result out of range.
  return r <= value_limit && r >= -value_limit ? r : eval_tree(p, e, vars);
}

// Throws the KernelError of a CTA index outside the cluster (out of line).
[[noreturn]] void cta_outside(const Program& p, const ir::Ref& r, std::int64_t c);

// The CTA an operand names (`@ c`), or `own` where it names none. Throws
// KernelError for a CTA outside the cluster.
[[nodiscard]] inline int target_cta(const Program& p, const ir::Ref& r, const std::int64_t* vars, int own) {
  if (r.cta == ir::no_expr) return own;
  const std::int64_t c = eval(p, r.cta, vars);
  if (c < 0 || c >= p.cluster_ctas) cta_outside(p, r, c);
  return p.grid_first(own) + static_cast<int>(c);
}

// How a trace names the lanes that execute an operation (lanes_of): "one: ",
// "each: ", "all: ", or nothing where they are the operation's default.
[[nodiscard]] std::string lanes_prefix(const ir::Op& op);

// The counters an s_waitcnt waits for, evaluated (spec::amd::no_wait where
// it names none). Throws KernelError for one outside the target's range.
[[nodiscard]] spec::amd::Waitcnt waitcnt_operands(const Program& p, const ir::Op& op, const std::int64_t* vars);

}  // namespace pc::check
