// The kernels the bounded SMT search (bmc.hpp) covers, unrolled. In this
// fragment no operation's result flows into a variable, so every agent runs
// one fixed sequence of operations whatever the interleaving: the unrolling
// evaluates each agent's loops, branches, assignments and operands once, at
// the kernel's parameter values, and the search only chooses the order.
//
// Covered: NVIDIA kernels on one CTA, roles whose warps run together, and
// these operations with their operands: read, write, arrive,
// arrive_expect_tx, wait (parity), tma_load (no multicast), bar_sync,
// bar_arrive, syncthreads, syncwarp, fence_proxy_async, exit, assert.
// Anything else is refused with its line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "checker/ir.hpp"
#include "spec/violation.hpp"

namespace pc::smt::bmc {

enum class StepKind : std::uint8_t { access, arrive, wait, tma_load, bar_sync, syncwarp, proxy_fence, fail, exit };

// One access of a buffer by one thread (a lane class of an agent, or its TMA
// unit for a load): the events of spec/hb.hpp, one per static occurrence.
struct Event {
  int buf = 0;
  bool write = false;
  int thread = 0;   // a local thread number (Fragment::threads)
  int spread = 0;   // hb::Access::spread: non-zero for an access by every lane of an agent
  bool async = false;
};

struct Step {
  StepKind kind = StepKind::exit;
  ir::Loc loc;
  std::string text;               // the operation as written, operands evaluated: "all: write a[0]"
  spec::Violation raises = spec::Violation::none;  // what its operands alone make it raise (a count out of range)
  // access: the buffers in order, each with its events (one per lane class)
  struct Part {
    int buf = 0;
    std::vector<int> events;
  };
  std::vector<Part> parts;
  bool write = false;
  int spread = 0;
  std::vector<int> lanes;         // the executing lane classes (local threads)
  // arrive, wait, tma_load: the mbarrier instance
  int mbar = -1;
  std::int64_t count = 0;         // arrive: arrivals in all; bar_sync: the thread count (0: the CTA's live threads)
  std::int64_t tx = 0;            // arrive: expect-tx in all; tma_load: bytes
  bool sync = true;               // arrive: releases; wait: acquires (the op's .sem)
  int parity = 0;                 // wait
  int tma = -1;                   // tma_load: its index in Fragment::tmas
  int unit = -1;                  // tma_load: the agent's TMA unit (a local thread)
  int named = -1;                 // bar_sync: the named-barrier slot
  bool wait = true;               // bar_sync: false for bar_arrive (arrives, does not wait)
  std::vector<std::pair<int, int>> warps;  // syncwarp: (leader, other lanes) of each warp
};

struct Tma {
  int agent = 0;
  int step = 0;    // its index in the agent's steps
  int event = 0;
  int mbar = 0;
  std::int64_t bytes = 0;
};

struct Agent {
  std::string name;
  int threads = 32;
  std::vector<Step> steps;  // the last is its exit
};

struct Fragment {
  std::string refused;                // non-empty: not covered, why and where
  std::vector<Agent> agents;
  std::vector<std::string> threads;   // names
  std::vector<Event> events;
  std::vector<Tma> tmas;
  std::vector<std::string> buffers, mbars;
  std::vector<std::int64_t> mbar_count;  // each instance's arrival count (initialised at launch)
  std::vector<int> named_ids;            // slot -> id
  int cta_threads = 0;
};

// Throws check::KernelError as instantiating the kernel does.
[[nodiscard]] Fragment unroll(const ir::Kernel& k);

}  // namespace pc::smt::bmc
