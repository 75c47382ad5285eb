// The kernels the bounded SMT search (bmc.hpp) covers, unrolled. In this
// fragment the only operation whose result flows into a variable is
// clc_query, so an agent runs a tree of operations: the unrolling evaluates
// each agent's loops, branches, assignments and operands at the kernel's
// parameter values, and at each clc_query it unrolls the rest twice, once
// for a response that says "canceled" and once for one that does not. Its
// steps are laid out in preorder (Step::end, Step::next_false), and the
// search chooses the order and, through the responses' answers, the path.
//
// Covered: NVIDIA kernels on a cluster of CTAs and AMD kernels on one
// workgroup, roles whose warps run together, and these operations with their
// operands (an operand of another CTA, `@ c`, included): read, write, consume, init,
// inval, arrive, arrive_expect_tx (at either scope), expect_tx, complete_tx,
// wait (parity, at either scope), tma_load (multicast included), st_async,
// tma_store, tma_reduce, commit_group, wait_group(_read), wgmma_fence, wgmma_regs, wgmma,
// wgmma_commit, wgmma_wait, cp_async, cp_async_commit, cp_async_wait(_all),
// cp_async_arrive, tcgen05_alloc, tcgen05_dealloc,
// tcgen05_relinquish_alloc_permit (cta_group 2 included), tcgen05_mma,
// tcgen05_commit, tcgen05_ld, tcgen05_st, tcgen05_wait_ld, tcgen05_wait_st,
// tcgen05_fence_after_thread_sync, tcgen05_fence_before_thread_sync,
// bar_sync, bar_arrive, syncthreads, syncwarp,
// cluster_arrive, cluster_wait, cluster_sync, fence_proxy_async,
// fence_mbarrier_init, and on AMD global_load_lds, s_waitcnt, s_barrier,
// s_barrier_signal, s_barrier_wait; clc_try_cancel and clc_query (cluster
// launch control, spec/clc.hpp); exit, assert. Anything else is refused
// with its line.
//
// Sync objects (spec/hb.hpp) are numbered: mbarrier instance m is m, named
// slot i is mbarriers + i, and the others (Fragment::extra_syncs: each
// agent's fence_mbarrier_init release, an mbarrier's channels for releases
// from other CTAs, the cluster barrier, each st.async's own release until it
// lands) follow, as `extra` indices.
//
// An AMD wave's counters (spec/amd.hpp, Wave) depend on its own sequence
// alone, so the unrolling keeps them: what a signal or a wait finds wrong
// with them is the step's own violation, and an s_waitcnt is a step that
// orders the wave's lanes after the gather-to-LDS loads it covers.
//
// A bulk or wgmma async-group's number depends on its agent's own sequence
// alone (spec/async_group.hpp), so the unrolling numbers them: a commit, a
// wgmma_fence or a wgmma_regs changes nothing another agent sees and is no
// step; a wait is
// a step that orders the waiting threads after the retired groups' reads.
// A tcgen05.commit or cp.async.mbarrier.arrive is a step that releases what
// its unit has done into a sync object of its own; its arrive-on lands
// later, as a TMA load does (Fragment::tmas). tcgen05.fence::after_thread_sync
// only decides the tcgen05_unfenced warning, so it is no step either (nor,
// in a kernel with no tensor memory, before_thread_sync and
// relinquish_alloc_permit).
//
// An mbarrier's initialisation is a write of its memory (Program's pseudo
// buffer), whose visibility to each use is checked as in step.cpp: the
// pseudo buffers follow the kernel's buffers in Fragment::buffers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "checker/ir.hpp"
#include "spec/violation.hpp"

namespace pc::smt::bmc {

// Where a release goes, besides an extra sync object's index
// (Fragment::extra_syncs): the mbarrier's own sync object, or none.
inline constexpr int own_sync = -1;
inline constexpr int no_sync = -2;

enum class StepKind : std::uint8_t {
  access, init, inval, arrive, expect_tx, wait, tma_load, st_async, async_arrive, unit_access, retire, bar_sync,
  amd_barrier, cluster_barrier, syncwarp, proxy_fence, consume, fence_init, tmem_alloc, tmem_pair, clc_cancel, clc_query, fail, exit,
  done  // where an exit leads: the agent has exited (no step)
};

// One access of a buffer by one thread (a lane class of an agent, or its TMA
// unit for a load): the events of spec/hb.hpp, one per static occurrence.
struct Event {
  int buf = 0;
  bool write = false;
  int thread = 0;   // a local thread number (Fragment::threads)
  int spread = 0;   // hb::Access::spread: non-zero for an access by every lane of an agent
  bool async = false;
  int group = 0;    // an async unit's read: its async-group (hb::Event::group)
};

struct Step {
  StepKind kind = StepKind::exit;
  // The steps after this one on some path are those up to `end` (the
  // preorder's subtree). An agent goes on from step i to i + 1, but from a
  // clc_query whose response says "not canceled" to next_false.
  int end = 0;
  int next_false = -1;
  // exit: a TMA store or wgmma of the agent may still read shared memory, or
  // a cp.async write it (step.cpp, rules::CtaExit); AMD: it exits with a
  // signal not waited for (spec/amd.cpp, wave_exit). Each depends on the path.
  bool in_flight = false;
  bool signaled = false;
  ir::Loc loc;
  std::string text;               // the operation as written, operands evaluated: "all: write a[0]"
  spec::Violation raises = spec::Violation::none;  // what its operands alone make it raise (a count out of range)
  // access: the buffers in order, each with its events (one per lane class);
  // init: its write of the barrier's memory
  struct Part {
    int buf = 0;
    int remote = -1;  // the CTA the buffer is in, where another (it must not have exited)
    int mbar = -1;    // tma_load: the barrier this copy completes on
    bool write = false;  // unit_access: this part is a write (Step::write: every part is)
    bool overwrite = false;  // tma_load, clc_cancel: an async write that reads nothing (hb::Access::overwrite)
    std::vector<int> events;
  };
  std::vector<Part> parts;
  bool write = false;
  int spread = 0;
  std::vector<int> lanes;         // the executing lane classes (local threads)
  // init, inval, arrive, expect_tx, wait, st_async: the mbarrier instance
  // (async_arrive: each part's `mbar`, one part per destination CTA)
  int mbar = -1;
  // arrive, expect_tx, st_async: the CTA it targets when another (it must
  // not have exited: rules::target_alive), else -1
  int remote = -1;
  // arrive, expect_tx on another CTA: the operation's events, one per lane
  // class, in that CTA's end pseudo-buffer (first_end; spec::sync_order::
  // remote_operation), and (arrive) the channel it is seen through
  std::vector<int> end_events;
  // arrive: the sync object it releases into (an extra index, own_sync or
  // no_sync: ordering::release_channel); and where the agent's
  // fence_mbarrier_init release goes with it (step.cpp, fence_forward)
  int into = own_sync;
  int forward = no_sync;
  int units = 1;                  // arrive: the units that arrive each on their own (check::arrive_units), count / units each
  std::int64_t count = 0;         // arrive: arrivals in all; init: the count; bar_sync: the thread count (0: the CTA's live threads);
                                  // async_arrive: the pending count it adds now (cp.async.mbarrier.arrive without noinc)
  std::int64_t tx = 0;            // arrive, expect_tx: expect-tx in all (complete_tx: negative); tma_load: bytes
  bool twice = false;             // init, inval: executed by more than one thread (the second finds it live, or invalid)
  bool sync = true;               // arrive: releases; wait: acquires (the op's .sem)
  bool cluster_scope = false;     // wait: at .cluster scope
  int parity = 0;                 // wait
  std::vector<int> tmas;          // tma_load, async_arrive, clc_cancel: one per destination CTA, st_async: its index in Fragment::tmas
  int unit = -1;                  // tma_load, unit_access, retire, async_arrive: the agent's async unit (a local thread)
  bool after_own = false;         // unit_access: ordered after the unit's own earlier accesses (spec::tmem::after_own_unit)
  int only = -1;                  // retire: only the unit's reads (0) or writes (1); -1: both
  // tmem_alloc, tmem_pair (spec/tmem.hpp): the operation, the allocation
  // (its bit), its columns. The parts: each element of the allocation in the
  // agent's CTA, each with the event of its write by the agent's leader;
  // tmem_pair: then each element in the peer CTA, written by the same
  // leader (the first dealloc of a pair frees both).
  int tmem_op = 0;                // spec::tmem::PairOp
  int slot = -1;
  std::int64_t cols = 0;
  bool async_proxy = true;        // unit_access: through the async proxy (a gather-to-LDS load: the generic one;
                                  // a part in tensor memory is always the generic one's);
                                  // async_arrive: the barrier's use is the async proxy's (tcgen05.commit)
  bool signal = false;            // amd_barrier: signals (s_barrier, s_barrier_signal); `wait`: waits
  int upto = 0;                   // retire: the groups up to this one are complete; async_arrive: the unit's
                                  // accesses in groups up to this one are tracked (0: all of them)
  std::vector<int> to;            // retire: the threads ordered after them
  int named = -1;                 // bar_sync: the named-barrier slot
  bool wait = true;               // bar_sync: false for bar_arrive (arrives, does not wait); cluster_barrier: waits
  bool arrive = true;             // cluster_barrier: arrives
  std::vector<std::pair<int, int>> warps;  // syncwarp: (leader, other lanes) of each warp
};

// An async operation that lands later: a TMA load's copy into one CTA, or
// an st.async, whose complete-tx comes when it lands; or the arrive-on of a
// tcgen05.commit or cp.async.mbarrier.arrive (step.cpp, Pending), which
// arrives when the operations it tracks finish.
struct Tma {
  int agent = 0;
  int step = 0;    // its index in the agent's steps
  int event = 0;   // -1: an arrive-on, which writes nothing
  int mbar = 0;
  std::int64_t bytes = 0;
  std::int64_t arrivals = 0;  // an arrive-on: its arrivals (then `slot` holds what it releases)
  int commit = 0;  // a tcgen05.commit's group: it lands after the agent's earlier commits (rules::commit_may_land)
  // st.async, an arrive-on: the extra sync object its issue released into,
  // moved into `into` (an extra index, or own_sync) when it lands. A TMA
  // load (slot -1) releases its write into `into` when it lands (the channel
  // of a .cluster release from its issuer's CTA: ordering::copy_release_scope);
  // a launch-control response into the barrier's own.
  int slot = -1;
  int into = own_sync;
  // A clusterlaunchcontrol.try_cancel response (spec/clc.hpp): its request,
  // whose answer the first of its responses to land decides; -1 otherwise.
  int request = -1;
};

struct Agent {
  std::string name;
  int cta = 0;
  int threads = 32;
  int warps = 1;            // its warps, which arrive on a named barrier each on their own
  int fence_sync = -1;      // with a fence_mbarrier_init: the extra sync object its releases go into
  std::vector<int> lanes;      // its lane classes (local threads)
  // AMD: the (leader, other lanes) of each wave, ordered both ways at each
  // of its instructions (spec/amd.hpp, wave_lanes_in_lockstep); whether it
  // exits with a signal not waited for (spec/amd.cpp, wave_exit).
  std::vector<std::pair<int, int>> lockstep;
  std::vector<Step> steps;  // in preorder; each path ends with an exit, then a done step
  std::vector<int> ends;    // the done steps
};

struct Fragment {
  std::string refused;                // non-empty: not covered, why and where
  std::vector<Agent> agents;
  std::vector<std::string> threads;   // names
  std::vector<Event> events;
  std::vector<Tma> tmas;
  std::vector<std::string> buffers, mbars;
  // Per buffer, the others that share bytes with it (`aliases`: Program::aliases_of),
  // whose accesses each access of it is checked against (spec/hb.cpp, check_only).
  std::vector<std::vector<int>> aliases;
  // Per buffer, the aliases a write of it overwrites whole (Program::covers).
  std::vector<std::vector<int>> covers;
  std::vector<std::int64_t> mbar_count;  // each instance's arrival count (0: not initialised at launch)
  std::vector<bool> mbar_kernel_inits;   // per instance: the kernel initialises its declaration somewhere
  std::vector<int> mbar_cta, buffer_cta; // the CTA each instance, each buffer (pseudo ones included) is in
  // Tensor memory: per buffer, its allocation's bit (Program::tmem_slot; -1:
  // shared memory), each allocation's columns, how many there are (0: the
  // kernel declares none), and per local thread whether it is a lane (the
  // others are async units): a lane's write of tensor memory is its
  // allocation's (spec::tmem::conflict).
  std::vector<int> buffer_slot;
  std::vector<std::int64_t> slot_cols;
  int tmem_slots = 0;
  std::vector<bool> lane;
  // Per mbarrier instance that another CTA arrives on or stores into: the
  // extra sync objects of releases from another CTA at .cluster scope and
  // of those at a scope that does not reach it (-1 where none: Program's).
  std::vector<int> mbar_cluster_sync, mbar_weak_sync;
  int first_pseudo = 0;                  // buffers[first_pseudo + m]: mbarrier m's memory
  // buffers[first_start + c]: CTA c's start (Program::start_buffer, in a
  // cluster of two or more CTAs), written by start_event[c] (-1: a CTA with
  // no agent) and known at the outset to its threads (thread_cta).
  int first_start = 0;
  std::vector<int> start_event;
  // buffers[first_end + c]: the other CTAs' operations on CTA c, which its
  // last exit must follow (Program::end_buffer, in a cluster of two or more)
  int first_end = 0;
  std::vector<int> thread_cta;           // per local thread, its CTA
  int extra_syncs = 0;
  int cluster_sync = -1;                 // the cluster barrier's extra sync object (-1: one CTA)
  int ctas = 1;
  std::vector<int> named_ids, named_cta; // slot -> id, CTA
  bool amd = false;                      // the workgroup barrier is named slot 0
  // Cluster launch control: the clusters waiting to launch (`clc N`) and
  // the try_cancel requests (Tma::request).
  std::int64_t clc_queue = 0;
  int clc_requests = 0;
};

// Throws check::KernelError as instantiating the kernel does.
[[nodiscard]] Fragment unroll(const ir::Kernel& k);

}  // namespace pc::smt::bmc
