// The PTX front end's executor: each warp of each CTA runs the entry's code
// for the launch given on the command line, its 32 lanes together (SIMT:
// a divergent branch runs each side with its lanes, and they reconverge at
// the branch's immediate post-dominator). Values that decide control flow,
// addresses and the operands of synchronization are computed exactly per
// lane; loaded data and floating-point values are unknown (sliced away).
// What comes out is each warp's synchronization and memory operations in
// program order, as IR operations whose memory is still byte ranges;
// checker/ptx/lower.cpp names the objects. docs/ptx.md is the user's view.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "checker/builder.hpp"
#include "checker/diagnostic.hpp"
#include "checker/ptx/module.hpp"

namespace pc::ptx {

// The launch the kernel is checked for (check-kernel's --entry, --block,
// --cluster, --smem-bytes, --arg).
struct Launch {
  std::string entry;                 // empty: the module's only .entry
  int block[3] = {0, 0, 0};          // 0 in x: not given (the entry's .reqntid, if any)
  int cluster = 0;                   // CTAs in the cluster (0: the entry's .reqnctapercluster, else 1)
  int grid[3] = {0, 0, 0};           // CTAs in the grid (0 in x: one cluster); the first cluster is checked
  std::int64_t smem_bytes = -1;      // dynamic shared memory (-1: what the kernel touches)
  std::vector<std::pair<std::string, std::int64_t>> args;  // integer parameters by name
  // Tensor maps by parameter (name, suffix or index): the bytes of one box,
  // which a cp.async.bulk.tensor copies (--box).
  std::vector<std::pair<std::string, std::int64_t>> boxes;
  // The boxes of the kernel's tensor descriptors in parameter order (the
  // 128-byte .b8 parameters: Triton's `tensordesc_meta`, --meta), where
  // --box names none.
  std::vector<std::int64_t> desc_boxes;
  // Each run of a warp's plain reads and consumes made one step
  // (coalesce.hpp); check-kernel's --no-reduction leaves them apart.
  bool coalesce = true;
  // --assume LINE=WAYS: at the branch (or guarded instruction) of PTX line
  // LINE, whose guard some lanes do not know (a value loaded from memory),
  // whether it holds, per time a warp reaches it (the last repeats).
  std::map<int, std::vector<bool>> assume;
  // --clc N: clusters waiting to launch that clusterlaunchcontrol.try_cancel
  // may take (ir::Kernel::clc_queue, spec/clc.hpp).
  int clc = 0;
};

// A span of bytes: in shared memory (of CTA `cta` of the cluster) or in the
// global memory a pointer parameter points to (`param`).
struct Bytes {
  bool global = false;
  int cta = 0;                       // shared: the CTA whose memory it is
  int param = -1;                    // global: the pointer parameter
  std::int64_t lo = 0, hi = 0;       // [lo, hi)
  friend bool operator==(const Bytes&, const Bytes&) = default;
};

// One operation of a warp: the IR op with everything but its objects, and
// the bytes its operands name.
struct Event {
  ir::Op op;
  std::vector<Bytes> data;           // the buffer bytes it reads or writes (empty: none)
  std::vector<Bytes> global;         // a TMA's global side (load source, store destination)
  bool has_bar = false;
  Bytes bar;                         // the mbarrier's 8 bytes
  int lane = -1;                     // executed by one lane: which
  bool makes_token = false;          // an arrive whose state token the warp keeps
  int token = -1;                    // a wait on a token: the warp's event that made it
  std::vector<Bytes> desc;           // wgmma, tcgen05.mma, tcgen05.cp: the shared bytes their descriptors name (desc.hpp)
  // Tensor memory: columns [lo, hi) of tcgen05.alloc number `alloc`
  // (Context::tmem_allocs). `tmem`: an MMA's D, or the allocation an alloc
  // or dealloc names; `tmem_data`: what a tcgen05.ld or .st accesses, an
  // MMA's A in tensor memory.
  struct Cols {
    int alloc = -1;
    std::int64_t lo = 0, hi = 0;
    friend bool operator==(const Cols&, const Cols&) = default;
  };
  Cols tmem;
  std::vector<Cols> tmem_data;
  // Not an operation but the structure of a choice (ir::StmtKind::either):
  // the events between `either` and `second` are its first way, those from
  // there to `end` its second; choices nest.
  // `query` opens `if` on the model's answer to a cluster launch control
  // query (the warp's clc_query event `query`, Warp::clc_branch): its first
  // way where the answer is `when` (1: canceled, a new tile), then
  // `second`, the other, `end`.
  enum class Mark : std::uint8_t { none, either, query, second, end };
  Mark mark = Mark::none;
  int query = -1;
  bool when = true;
};

struct WarpRun {
  int cta = 0, warp = 0;
  std::vector<Event> events;
};

struct Execution {
  std::vector<WarpRun> warps;
  int block[3] = {1, 1, 1};
  int cluster = 1;
  int grid[3] = {1, 1, 1};           // the launch's grid in CTAs (the cluster, where --grid gives none)
  std::int64_t static_smem = 0;      // bytes of the module's and entry's .shared variables
  std::vector<std::pair<std::string, std::int64_t>> shared_vars;  // name, first byte (the extern one last)
  const Function* entry = nullptr;
  std::vector<Diagnostic> errors;
  std::vector<std::string> notes;    // what the user should know of how it was read
  int loaded_branches = 0;           // branches on values loaded from memory, read both ways (either.cpp)
  int clc_branches = 0;              // branches on the answers of cluster launch control queries (clc_branch)
  std::map<int, std::string> pointer_names;  // global bases past the parameters and variables: "params+640"
  // tcgen05.alloc sites: the shared address each writes the columns' address
  // to, and the columns (Context::tmem_allocs).
  struct TmemAlloc {
    std::int64_t slot = 0;
    std::int64_t cols = 0;
  };
  std::vector<TmemAlloc> tmem_allocs;
  [[nodiscard]] bool ok() const { return errors.empty(); }
};

// Runs every warp of the cluster. Constants go into `kb`'s expression arena.
[[nodiscard]] Execution execute(const Module& m, const Launch& launch, const std::string& file, ir::KernelBuilder& kb);

}  // namespace pc::ptx
