// The IR of abstract kernels: what the DSL front end produces and the explorer
// consumes. It holds no semantics: it names objects, operations and control flow.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "checker/ops.hpp"
#include "spec/amd.hpp"
#include "spec/named_barrier.hpp"
#include "spec/ordering.hpp"

namespace pc::ir {

struct Loc {
  int line = 0;  // 1-based; 0 = unknown
  int col = 0;
};

// ---- integer expressions, stored in the kernel's arena ----
using ExprId = std::int32_t;  // index into Kernel::exprs; -1 = absent
inline constexpr ExprId no_expr = -1;

enum class ExprKind : std::uint8_t { constant, var, unary, binary };
enum class UnOp : std::uint8_t { neg, lnot };
// shl / shr: shifts by 0..62 (an arithmetic right shift).
enum class BinOp : std::uint8_t { add, sub, mul, div, mod, shl, shr, bxor, band, bor, lt, le, gt, ge, eq, ne, land, lor };

struct Expr {
  ExprKind kind = ExprKind::constant;
  UnOp un = UnOp::neg;
  BinOp bin = BinOp::add;
  std::int64_t value = 0;  // constant
  int param = -1;          // constant: the parameter it stands for (index into Kernel::params), if any
  int var = -1;            // var: index into the role's variables
  ExprId a = no_expr, b = no_expr;
  Loc loc;
};

// Variables every role has, at these indices.
inline constexpr int var_cta = 0;       // the agent's CTA in its cluster, 0-based
inline constexpr int var_instance = 1;  // the agent's index among its role's instances in that CTA
inline constexpr int var_warp = 2;      // the agent's warp in its role instance (0 where the role is not split per warp)
inline constexpr int num_builtin_vars = 3;

// ---- declared objects ----
struct Param {
  std::string name;
  std::int64_t value = 0;                 // the value used by the explicit search
  std::vector<std::int64_t> candidates;   // optional set of values for symbolic checks (`in {a, b}`)
  std::int64_t lo = 1, hi = 0;            // optional range for symbolic checks (`in lo..hi`); empty when lo > hi
  Loc loc;
};

// Where a buffer lives: shared memory (`smem`), tensor memory (`tmem`,
// sm_100a: columns of 128 lanes x 32 bits, allocated with tcgen05.alloc), or
// global memory (`gmem`: one instance for every CTA of every grid).
enum class Space : std::uint8_t { shared, tensor, global };

// `aliases BASE[i] [offset O]`: a declaration that lies over memory declared
// before it (checker/layout.hpp), element 0 at BASE[i]'s first byte plus O,
// element k k elements after it. `of` -1: its own allocation.
struct Alias {
  int of = -1;               // index into Kernel::buffers, or Kernel::mbarriers when `mbar`
  bool mbar = false;
  std::int64_t index = 0, offset = 0;
  Loc loc;                   // of BASE, for errors
};

struct BufferDecl {
  std::string name;
  int size = 1;              // array length
  std::int64_t bytes = 0;    // bytes of one element (tensor memory: 512 per column)
  ExprId bytes_expr = no_expr;  // the expression it came from, for symbolic checks (checker/smt)
  Loc loc;
  Space space = Space::shared;
  std::int64_t cols = 0;     // tensor memory: columns of one element
  Alias alias;
  // `tensormap NAME[n]`: a tensor map (CUtensorMap, 128 bytes) in global
  // memory, which TMA copies read through the tensormap proxy (`map`).
  bool tensormap = false;
};

struct MbarrierDecl {
  std::string name;
  int size = 1;               // array length
  std::int64_t count = 0;     // > 0: initialised with this count before any agent starts (and made visible)
                              // 0: left uninitialised; the kernel must `init` it
  Loc loc;
  Alias alias;                // an mbarrier placed in memory declared before it (never with a count)
};

// A reference to an element of a buffer or mbarrier array, optionally in another CTA.
struct Ref {
  int object = -1;           // index into Kernel::buffers or Kernel::mbarriers
  ExprId index = no_expr;    // absent: element 0
  ExprId cta = no_expr;      // absent: the agent's own CTA (`@ e` in the DSL)
  Loc loc;
};

// each: the elected lane of every warp; rest: every lane of each warp but its
// elected lane (a branch on the lane index that leaves the leader out);
// mask: the lanes of Op::lane_mask in each warp (`lanes M:`, a lane test
// such as `lane % 4 == 0` or `lane < nW`).
enum class Lanes : std::uint8_t { all, one, each, rest, mask };
// The memory-ordering qualifiers and bar.red's operation are spec's own
// (spec/ordering.hpp, spec/named_barrier.hpp); `standard`: the PTX default.
using Sem = spec::ordering::Sem;
using Scope = spec::ordering::Scope;
using ProxySpace = spec::ordering::ProxySpace;
using Red = spec::named::Red;

struct Op {
  OpCode code = OpCode::exit;
  Lanes lanes = Lanes::all;
  Loc loc;
  Ref bar;                    // mbarrier operand
  std::vector<Ref> bufs;      // buffer operands
  ExprId count = no_expr;     // arrive count, init count, named-barrier thread count, s_waitcnt lgkmcnt
  ExprId bytes = no_expr;     // tx bytes
  ExprId parity = no_expr;    // wait parity
  ExprId id = no_expr;        // named-barrier id
  ExprId n = no_expr;         // wait_group N, bar_red predicate, s_waitcnt vmcnt
  ExprId multicast = no_expr; // CTA bit mask for multicast TMA loads / tcgen05.commit
  ExprId value = no_expr;     // write: the value it stores, which a `r = read` returns (State::values)
  ExprId mask = no_expr;      // syncwarp, elect_sync: the member mask (absent: the whole warp)
  ExprId quarter = no_expr;   // tcgen05_ld / tcgen05_st `lanes Q`: the tensor-memory lane quarter addressed (absent: each warp its own)
  Ref tmem;                   // tensor-memory destination (tcgen05_mma `into`, tcgen05_cp) or allocation (alloc/dealloc)
  Ref global;                 // global memory: a TMA load's source (`from`), a TMA store's destination (`to`); object -1: none
  Ref tmap;                   // a tensor map: what a TMA copy reads through the tensormap proxy (`map`), or what
                              // fence_proxy_tensormap acquire names; object -1: none
  int token_var = -1;         // wait/test_wait/pending_count by token: the variable holding it
  int dest_var = -1;          // variable receiving what the operation observed (test_wait, tokens, bar_red)
  Sem sem = Sem::standard;
  Scope scope = Scope::standard;
  Red red = Red::none;
  bool no_complete = false;
  bool noinc = false;
  bool lane0 = false;         // written under `if lane == 0:` (the elected lane of each warp)
  std::uint64_t lane_mask = 0;  // Lanes::mask: the executing lanes of each warp (bit i: lane i; never 0x1, the full warp
                                // or the full warp less lane 0, which are each:, all: and rest:)
  std::int8_t warp = -1;      // `warp K:`: executed by warp K of a multi-warp agent only (-1: by the lanes `lanes` says)
  bool cta_pair = false;      // tcgen05 `cta_group 2`: the CTA pair's collective or pair-CTA operation (spec/tmem.hpp)
  ProxySpace space = ProxySpace::all;  // fence_proxy_async: the state space it is restricted to
  std::uint8_t regs = 0;      // wgmma_regs: the registers the threads access; wgmma: regs_a where A is in registers (spec::agent)
};

// A named barrier given no thread count: all threads of the CTA take part
// (__syncthreads, or bar.sync with no b operand; spec::named::ArriveArgs::no_count).
[[nodiscard]] inline bool named_no_count(const Op& op) { return op.code == OpCode::syncthreads || op.count == no_expr; }
// Whether a named-barrier op may be one for every thread of the CTA
// (spec::named::whole_cta): no count, or a bar.sync's count that may be 0.
// `nonzero`: the count is known not to be 0.
[[nodiscard]] inline bool named_may_be_whole(const Op& op, bool nonzero) {
  return named_no_count(op) || (op.code == OpCode::bar_sync && !nonzero);
}

// Whether a named-barrier op is surely one for every thread of the CTA: no
// count, or a bar.sync's count known to be 0 (`zero`).
[[nodiscard]] inline bool named_surely_whole(const Op& op, bool zero) {
  return named_no_count(op) || (op.code == OpCode::bar_sync && zero);
}

// either: a choice the kernel's code does not decide (a branch on a value
// loaded from memory, the order of the lanes' arrives on different
// mbarriers): the agent takes `body` or `else_body`, each a successor of its
// own (docs/dsl.md, "either"; docs/checker.md, "Choices").
enum class StmtKind : std::uint8_t { op, assign, for_loop, if_else, assert_true, either };

struct Stmt {
  StmtKind kind = StmtKind::op;
  Loc loc;
  Op op;                      // op
  int var = -1;               // assign target; for-loop variable
  ExprId expr = no_expr;      // assign value; if / assert condition
  ExprId lo = no_expr, hi = no_expr;  // for v in lo .. hi (hi exclusive)
  std::vector<Stmt> body;     // for body; if-then; either's first way
  std::vector<Stmt> else_body;  // else; either's second way (`or:`)
};

enum class Granularity : std::uint8_t { warp, warpgroup };
// A warp group is four warps (PTX ISA, "Warpgroup"; on AMD, four waves).
[[nodiscard]] constexpr int warps_of(Granularity g) { return g == Granularity::warp ? 1 : 4; }
[[nodiscard]] constexpr int threads_of(Granularity g, int warp_size) { return warps_of(g) * warp_size; }

struct Role {
  std::string name;
  Granularity granularity = Granularity::warp;
  int warps = 0;              // `warps N`: a role of N warps (1..32) executing together; 0: as its granularity says
  int count = 1;              // instances per CTA it is placed on
  int cta = -1;               // -1: every CTA of the cluster; else the CTAs cta .. cta_end - 1
  int cta_end = -1;           // `on cta K` is K .. K+1; `on cta K..M` is K .. M (M excluded)
  int first_warp = -1;        // `at warp W`: the rank in its CTA of the role's first warp (instance i's: W + i x its warps); -1: not given
  // The body reads `warp`: each warp of an instance is an agent of its own
  // (docs/dsl.md, "Warps of a role"); otherwise the warps run the body together.
  bool per_warp = false;
  std::vector<std::string> vars;  // variable names; the first num_builtin_vars are builtins
  std::vector<Stmt> body;
  Loc loc;
  // Whether the role has agents in CTA `c`.
  [[nodiscard]] bool placed_on(int c) const { return cta < 0 || (c >= cta && c < (cta_end < 0 ? cta + 1 : cta_end)); }
};

// The warps of each agent of a role.
[[nodiscard]] constexpr int role_warps(const Role& r) { return r.warps > 0 ? r.warps : warps_of(r.granularity); }

enum class Target : std::uint8_t { nvidia, amd };

struct Kernel {
  std::string name;
  std::string file;
  Target target = Target::nvidia;
  spec::amd::Gfx gfx = spec::amd::default_gfx;  // the AMD chip (target amd only)
  std::vector<Param> params;
  int cluster_ctas = 1;
  // `grids 2`: the kernel launched twice, the second launch a dependent of
  // the first with programmatic dependent launch (griddepcontrol); each grid
  // is one cluster.
  int grids = 1;
  Loc grids_loc;
  int cta_threads = 0;        // 0: the sum of its roles' threads
  // Every lane of a warp its own lane class of happens-before (spec::hb::
  // AgentThreads), where the model keeps a class per set of lanes that always
  // execute together: the reference the tests compare the classes with
  // (docs/spec.md, "Lane classes"). Never set by a front end.
  bool lanes_apart = false;
  // Every state token with the pending count before its arrive, where the
  // model keeps it only where something may read it (Program::
  // token_pending): the reference the tests compare with. Never set by a
  // front end.
  bool tokens_whole = false;
  // Every agent only the async units its code makes accesses by (the rest
  // one spare thread), where the model gives each all five unless the
  // kernel needs more threads of happens-before than it holds (check::
  // instantiate): the layout tests compare the two. Never set by a front end.
  bool units_compact = false;
  int clc_queue = 0;          // `clc N`: clusters waiting to launch that clc_try_cancel may take (spec/clc.hpp)
  std::vector<BufferDecl> buffers;
  std::vector<MbarrierDecl> mbarriers;
  std::vector<Role> roles;
  std::vector<Expr> exprs;
  std::string expect;         // the `# expect:` line, if any ("verified" or a violation name)
  Loc loc;
};

// Lanes per warp: 32 on NVIDIA (PTX ISA, "Thread Hierarchy": a warp is 32
// threads), the chip's wave size on AMD (spec/amd.hpp, wave_size).
[[nodiscard]] constexpr int warp_size(const Kernel& k) {
  return k.target == Target::amd ? spec::amd::wave_size(k.gfx) : 32;
}

}  // namespace pc::ir
