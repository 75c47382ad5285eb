// One warp of the PTX executor (exec.hpp): its lanes' registers, its SIMT
// reconvergence stack, and what it has done so far. Internal to the front
// end: warp.cpp runs the control flow and the integer instructions, sync.cpp
// turns the synchronization and memory instructions into events.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "checker/builder.hpp"
#include "checker/ptx/cfg.hpp"
#include "checker/ptx/desc.hpp"
#include "checker/ptx/exec.hpp"
#include "checker/ptx/value.hpp"

namespace pc::ptx {

// What every warp of the launch shares.
struct Context {
  const Module* module = nullptr;
  const Function* fn = nullptr;
  Cfg cfg;
  Launch launch;
  int block[3] = {1, 1, 1};
  int threads = 0;
  int cluster = 1;
  int grid[3] = {1, 1, 1};
  std::string file;
  ir::KernelBuilder* kb = nullptr;
  std::map<std::string, std::int64_t> shared_addr;   // .shared variable -> its first byte
  std::map<std::string, int> global_base;            // .global variable -> its base (after the parameters)
  std::vector<Diagnostic>* errors = nullptr;
  std::vector<std::string>* notes = nullptr;
  // Pointers read from a parameter at an offset (a struct passed by value):
  // (parameter, offset) -> the base of the global memory it points to, and
  // each such base's name (Execution::pointer_names).
  std::map<std::pair<int, std::int64_t>, int> field_pointer;
  std::map<int, std::string>* pointer_names = nullptr;
  int next_base = 0;
  // Branches on loaded values read both ways, and instructions guarded by
  // one that made accesses (either.cpp): their lines and text, for the notes.
  std::vector<std::pair<int, std::string>> either_branches, either_guards;
  std::vector<std::pair<int, std::string>> either_choices;  // the branches whose ways synchronize: a choice of the warp
  std::vector<std::pair<int, std::string>> either_asserts;  // a way left out: the assert it fails, at its line
  std::map<int, std::string> assumed;      // the --assume lines reached with a guard not known: their text
  // Strong operations with .acquire/.release semantics read without their
  // ordering (sync.cpp, strong_op): their lines and text, for a note.
  std::vector<std::pair<int, std::string>> unordered_strong;
  // tcgen05.alloc sites (tcgen05.cpp), by the shared address each writes
  // the columns' address to: a 32-bit load from there is that address. A
  // warp that read such an address before the alloc was met sets
  // `tmem_late`, and the warps run again knowing it (exec.cpp).
  std::vector<Execution::TmemAlloc> tmem_allocs;
  std::set<std::int64_t> word_reads;  // shared addresses of 32-bit loads
  bool tmem_late = false;
  int clc_branches = 0;  // branches on cluster launch control answers read (clc.cpp)
  // Shared-memory stores (st.shared) of every warp so far, per lane, with
  // the storing warp's epoch (barriers of the whole CTA passed; -1: not
  // known), and the loads whose value was read from them (epoch.cpp).
  struct SharedStore {
    int cta = 0;
    std::int64_t lo = 0;
    std::vector<int> bytes;  // -1: not known
    bool known = false;
    int warp = 0;            // warp + 1000 * its CTA
    int epoch = -1;
    int line = 0;
    int event = -1;          // the storing warp's write event (-1: on a way of a branch read both ways)
    // An address stored whole (one element: a tensor-memory address, a
    // pointer), which a load of exactly these bytes reads as that address.
    Val whole;
  };
  std::vector<SharedStore> shared_stores;
  struct StoredRead {
    int cta = 0;
    std::int64_t lo = 0, hi = 0;
    int epoch = 0, reader = 0;
    Val value;
    Where at;
  };
  std::vector<StoredRead> stored_reads;
  bool tmem_unfollowed = false;  // a warp stopped at a tensor-memory address no alloc gave (tmem_addr)
};

// Each load whose value was read from another warp's stores (epoch.cpp)
// read the same from every warp's stores, and no other write touches its
// bytes: else the error to report.
[[nodiscard]] std::optional<Diagnostic> check_stored_values(const Context& ctx, const std::vector<WarpRun>& warps, const std::string& file);

// The stores of one known value that other warps store to the same bytes
// too: morally strong writes (epoch.cpp).
void same_value_stores(const Context& ctx, std::vector<WarpRun>& warps);

// The notes of the branches and guards on loaded values read (either.cpp);
// the number of distinct branches.
int note_either(const Context& ctx, std::vector<std::string>& notes);

// A failure that stops the warp (and the front end): bad or unsupported input at `at`.
struct Stop {
  Where at;
  std::string message;
};

// A call of __assertfail (a failed assert) on a way of a branch on a loaded
// value (Warp::either leaves that way out).
struct AssertFails {
  Where at;
};

// A polling loop's failing path that reaches a wait of the same phase (the
// same mbarrier, parity or token, semantics and scope): CUTLASS's
// consumer_try_wait, then consumer_wait's loop when it failed.
struct SameWait {};

class Warp {
 public:
  Warp(Context& c, int cta, int warp);
  // Runs to the end; false (with an error in the context) where it stopped.
  bool run(WarpRun& out);

  // ---- for sync.cpp ----
  Context& ctx;
  const int cta, warp;
  // Lanes of the warp that exist (a block whose size is no multiple of 32 has a partial last warp).
  std::uint32_t present = 0;
  std::vector<Val> regs;                   // lane * nregs + register
  int nregs = 0;
  // Register `reg` of `lane`, to be written: within a probe, its value at the
  // probe's start is journaled first (probe keeps its states as differences).
  Val& slot(int lane, int reg) {
    return slot_at(static_cast<std::size_t>(lane) * static_cast<std::size_t>(nregs) + static_cast<std::size_t>(reg));
  }
  // The same by its index in `regs`; within the ways of a branch on an
  // unknown value, its value before is logged too (either.cpp, undo_).
  Val& slot_at(std::size_t i) {
    if (journaling_ && !journaled_[i]) {
      journaled_[i] = 1;
      journal_.emplace_back(i, regs[i]);
    }
    if (either_depth_ > 0) undo_.emplace_back(i, regs[i]);
    return regs[i];
  }
  [[nodiscard]] Val get(int lane, const Operand& o, Type t) const;
  void set(int lane, const Operand& o, Val v);
  // The address an [addr] operand names, for one lane.
  [[nodiscard]] Val address(int lane, const Operand& o) const;
  // The value of operand o, the same in every lane of `lanes`, as an integer: or a Stop.
  [[nodiscard]] std::int64_t uniform(const Instr& in, std::uint32_t lanes, std::size_t arg, const char* what) const;
  // The bytes [a, a + width) in the state space the instruction names, for one lane.
  [[nodiscard]] Bytes bytes_at(const Instr& in, int lane, const Operand& o, std::int64_t width) const;
  // The union of every lane's bytes, as sorted, merged ranges.
  [[nodiscard]] std::vector<Bytes> lane_bytes(const Instr& in, std::uint32_t lanes, const Operand& o, std::int64_t width) const;
  // An event by the lanes `lanes` (sets its lane class, or stops where the front end cannot express them).
  void emit(const Instr& in, std::uint32_t lanes, Event ev);
  // The structure of a choice in the warp's events (Event::Mark).
  void mark(const Instr& in, Event::Mark m);
  // An mbarrier.arrive whose lanes name different mbarriers (`targets`: each
  // mbarrier's bytes and its lanes): `ev` by each lane group, in every order
  // (a choice of orders: the ISA orders no lane's arrive before another's).
  void arrive_orders(const Instr& in, const std::vector<std::pair<Bytes, std::uint32_t>>& targets, const Event& ev);
  // Lanes of this warp as the model numbers them (its leader lane as lane 0).
  [[nodiscard]] std::uint64_t model_lanes(std::uint32_t lanes) const;
  [[noreturn]] void stop(const Instr& in, const std::string& msg) const;
  ir::ExprId c(std::int64_t v) { return ctx.kb->c(v); }
  // wgmma.fence, .commit_group, .wait_group, .mma_async (sync.cpp).
  void wgmma(const Instr& in, std::uint32_t lanes);
  // Marks the registers of operand o in lane `lane` as a wgmma's (Val::wgmma).
  void tag_wgmma(int lane, const Operand& o, std::uint8_t which);
  // The wgmma registers `in` touches in `lanes`: the model's wgmma_regs first.
  void wgmma_regs(const Instr& in, std::uint32_t lanes);
  // tcgen05.wait::ld: the registers its loads wrote are the threads' again.
  void tmem_ld_waited();
  // A cp.async.bulk.tensor or cp.reduce.async.bulk.tensor (sync.cpp).
  void tensor_copy(const Instr& in, std::uint32_t lanes);
  // A strong operation's scope and semantics (sync.cpp): a Stop where the
  // model cannot read its scope; its ordering noted where it has one.
  void strong_op(const Instr& in);
  // An event the warp made: its epoch and whether it synchronized since (epoch.cpp).
  void after_event(const Event& e);
  // A st.shared by `lanes`: each lane's bytes and value, for later loads of other warps (epoch.cpp).
  void record_store(const Instr& in, std::uint32_t lanes, const Operand& addr, const Operand& value, std::int64_t width);
  // What a load by `lane` right after a barrier of the whole CTA reads, where
  // other warps' stores before that barrier say it (epoch.cpp).
  [[nodiscard]] std::optional<Val> stored_value(const Instr& in, int lane, const Operand& addr, std::int64_t width);
  // clusterlaunchcontrol.* (clc.cpp).
  void clc(const Instr& in, std::uint32_t lanes);
  // tcgen05.* (tcgen05.cpp).
  void tcgen05(const Instr& in, std::uint32_t lanes);
  // The tensor-memory address operand `o`, the same in each of `lanes`.
  [[nodiscard]] Val tmem_addr(const Instr& in, std::uint32_t lanes, const Operand& o) const;
  // The shared bytes of this CTA (and, for a pair MMA, of its peer) that
  // the descriptor operand `k` names for `operand` (desc.hpp); the
  // descriptor's value the same in every lane.
  [[nodiscard]] std::vector<Bytes> desc_bytes(const Instr& in, std::uint32_t lanes, std::size_t k, DescFormat format, const Operand2d& operand,
                                              bool pair) const;
  // Runs a synchronization or memory instruction (sync.cpp); false where it is none.
  bool sync(const Instr& in, std::uint32_t lanes);
  // The loads whose data `in` reads in `lanes`: each is consumed (ir consume) first.
  void consume_uses(const Instr& in, std::uint32_t lanes);
  // A pointer parameter's (or field's) value used as an integer: the
  // parameter's bytes, not given (Val::param_bytes); any other value as it is.
  [[nodiscard]] Val as_param(const Val& v) const;
  // The registers of `lanes` that operand `o` writes get the data of load event `load`.
  void loaded(int lane, const Operand& o, int load);

 private:
  struct Entry {
    int pc = 0;
    std::uint32_t mask = 0;
    int rpc = 0;
    friend bool operator==(const Entry&, const Entry&) = default;
  };
  void step();
  // A branch taken by the lanes `g` of the top entry: a jump, a fall-through, or a split.
  void branch(const Instr& in, std::uint32_t g, int to = -1);
  // A branch the lanes `unknown` may take or not (a predicate from loaded
  // data): both ways read, to where they meet again (either.cpp).
  void either(const Instr& in, std::uint32_t taken, std::uint32_t unknown);
  // Where --assume gives the guard of `in` (Launch::assume): the lanes
  // `unknown` added to `g` where it holds this time; false where it gives none.
  bool assumed(const Instr& in, std::uint32_t& g, std::uint32_t unknown);
  // Runs a non-branch instruction in the lanes `g` of the top entry, whose lanes are `mask`.
  void execute(const Instr& in, std::uint32_t g, std::uint32_t mask);
  // Another instruction the lanes `unknown` may execute or not: run as if
  // they did, then weighed (either.cpp): what it wrote in those lanes before,
  // and where the warp's events were.
  struct Maybe {
    std::vector<std::pair<std::size_t, Val>> old;  // register slot, its value
    std::size_t events = 0;
  };
  [[nodiscard]] Maybe maybe_before(const Instr& in, std::uint32_t unknown) const;
  void maybe_after(const Instr& in, const Maybe& before);
  // The instruction `in` of the top entry (lanes `mask`), run by the lanes
  // `g` and maybe by the lanes `unknown` (either.cpp): where it synchronizes,
  // a choice of the warp between both and `g` alone; else maybe_after's.
  void maybe(const Instr& in, std::uint32_t g, std::uint32_t unknown, std::uint32_t mask);
  // One way of such a branch or guard, as it left the warp (either.cpp):
  // its events after the warp's first `n0`, the register slots it wrote
  // with their values there (sorted by slot), and the rest of the state.
  struct Way {
    std::vector<std::pair<std::size_t, Val>> changed;
    std::vector<Event> events;
    std::vector<std::uint32_t> load_lanes;
    int single = -1;
    std::uint8_t seen = 0;
    std::vector<int> stale;
    int epoch = 0;
    bool synced = false;
  };
  // The warp's state but its registers and events: taken into a way (its
  // events from n0 moved out), and put back to run the next way.
  [[nodiscard]] Way way_from(std::size_t n0);
  void restore(const Way& start, std::size_t n0);
  // One way alone, as it ran (regs holding the state before it): its state,
  // its events after the warp's first n0, the registers it wrote.
  void take(Way& w, std::size_t n0);
  // The two ways after the warp's first n0 events, `regs` holding the state
  // before them: one after the other, or as a choice between marks; a
  // register the ways leave different is not known after them.
  // With `query` (the warp's clc_query event), not a choice but the model's
  // `if` on that query's answer: a where it is 1, b where it is 0 (clc.cpp).
  void join(const Instr& in, Way& a, Way& b, std::size_t n0, bool choice, int query = -1);
  // A branch whose guard is a cluster launch control query's answer in the
  // lanes `unknown` (Val::clc): they take it where the answer is `when`
  // (clc.cpp).
  void clc_branch(const Instr& in, std::uint32_t taken, std::uint32_t unknown, int query, bool when);
  // Pops the entries whose lanes are done or reconverged; false when none is left.
  bool advance();
  void exit_lanes(std::uint32_t lanes);
  void arith(const Instr& in, std::uint32_t lanes);
  void wait_loop(const Instr& in, std::uint32_t lanes);
  // The wait an mbarrier.try_wait/test_wait instruction makes (sync.cpp).
  Event wait_event(const Instr& in, std::uint32_t lanes);
  std::optional<std::string> probe(int pc, std::uint32_t lanes, std::vector<int>& stale);
  // Where a polling loop's failing path reached a wait of the same phase
  // (probe, SameWait): the state there, at that wait.
  struct Retry {
    std::vector<Val> regs;
    std::vector<Entry> stack;
  };
  // The wait just probed, in `lanes`, whose failing paths reached the waits of
  // `retries`: each of those is a polling loop, and after it the warp goes
  // on as after this wait's success (the same instruction next, the same
  // live registers); else why not. `pred`: the wait's result operand.
  std::optional<std::string> check_retries(std::uint32_t lanes, const Operand& pred, const std::vector<Retry>& retries);
  // From the current state, in probing mode: the state before the first
  // instruction that makes an event or waits (an empty stack: the warp
  // ends), or nothing (a branch on a value the front end does not know, a
  // path too long).
  std::optional<Retry> run_to_event();
  [[nodiscard]] Val special(int lane, const std::string& name) const;
  // ld.param: the value of the parameter bytes `o` names in lane `lane`.
  [[nodiscard]] Val param(const Instr& in, const Operand& o, int lane, Type t);
 public:
  // The parameter a name given on the command line names (the PTX name, its
  // suffix after the kernel's name, or its index), or -1; `NAME+OFF` names
  // the bytes at OFF of a parameter (a field of a struct passed by value),
  // and `off` receives OFF.
  [[nodiscard]] int param_named(const std::string& n, std::int64_t* off = nullptr) const;
  // A tensor copy's bytes: the box of the tensor map its operand points to (--box).
  [[nodiscard]] std::int64_t box_bytes(const Instr& in, const Operand& map, std::uint32_t lanes) const;

 private:

  std::vector<Entry> stack_;
  WarpRun* out_ = nullptr;
  bool probing_ = false;
  std::optional<std::string> probe_stop_;  // why a probe's path is no polling loop
  std::int64_t steps_ = 0;
  int single_lane_ = -1;                   // the lane of the warp's single-lane operations so far
  std::uint8_t regs_seen_ = 0;             // wgmma registers accessed since the last wgmma.fence (emitted once)
  std::vector<int> stale_;                 // registers a polling loop may leave with other values (probe)
  const Event* same_wait_ = nullptr;       // the wait being probed: a failing path may retry it through another instruction
  std::vector<Retry> retries_;             // where the failing paths did (probe)
  // A probe's register states, as the slots that differ from the state at
  // its start (sorted by slot): the journal gives that state's values.
  using Delta = std::vector<std::pair<std::size_t, Val>>;
  [[nodiscard]] Delta delta() const;
  void load_delta(const Delta& d);
  // Slot i's value in the state d.
  [[nodiscard]] const Val& value_in(const Delta& d, std::size_t i) const;
  bool journaling_ = false;
  std::vector<std::pair<std::size_t, Val>> journal_;  // slot, its value at the probe's start
  std::vector<char> journaled_;                       // per slot
  std::vector<std::uint32_t> load_lanes_;  // per event: the lanes of a load whose data is not yet used (0: none, or used)
  std::vector<int> either_at_;             // the branches on unknown values being read both ways (either), innermost last
  std::vector<int> either_way_;            // for each: the way being read (0 taken, 1 not)
  int either_depth_ = 0;                   // how many such ways are being read
  int clc_canceled_ = 0;                   // the clc_branch ways being read where a query answered "canceled"
  int epoch_ = 0;                          // barriers of the whole CTA passed (-1: not known, after ways that differ)
  bool synced_ = false;                    // an operation other than a plain access since the last of them
  std::map<int, int> assume_visits_;       // --assume lines: the times this warp reached each (assumed)
  std::vector<std::pair<std::size_t, Val>> undo_;  // within them: each register slot written, its value before
};

}  // namespace pc::ptx
