// Runs of plain reads, one step (docs/ptx.md, "Reads made one step"): nvcc
// unrolls a warp's loop over a tile into one load instruction per chunk, and
// the front end gives each chunk's bytes a buffer of their own, so a warp
// that sums a 4 KiB stage makes 16 reads and 16 consumes where a hand
// translation writes `all: read stage[s]` and `all: consume stage[s]`. Each
// run of consecutive read and consume operations of one role, by the same
// lanes, on the agent's own CTA, becomes one read of all the run's buffers
// followed by one consume of the buffers the run consumes.
//
// Why it keeps every verdict: the model's race checks are by happens-before,
// and an agent's threads know the same between two of its operations with no
// operation of theirs between (a read or a consume releases and acquires
// nothing). Another agent's step X that comes between two reads of the run is
// ordered with each of them the same way, so a race X makes with one read it
// makes whichever side of the merged step it takes, and X was enabled before
// the run began (a read or a consume enables nothing: no wait, no count,
// no value another agent reads). No state in which every agent is blocked
// is lost: inside a run the agent is enabled. A consume marks the reads of
// its buffer made before it (spec::hb::consume); a run stops before a read
// of a buffer it has already consumed, so a read consumed after the merge was
// consumed before it. Reads that give a value (`r = read`), stores, remote
// CTAs' memory (the CTA start and end checks order those by steps) and other
// operations are left as they are.
//
// Runs of wgmma, likewise: nvcc issues a stage's K slices as one
// wgmma.mma_async each (four of m64nNk16 for a 64-element K tile), which a
// hand translation writes as one `wgmma read`. Consecutive wgmmas of one
// role, by the same threads, with the same A (shared or registers) and the
// agent's own CTA's buffers, become one wgmma of all their buffers. Each is
// a join of the warp group's four warps that registers async reads in the
// open wgmma group; between two of the run a warp does nothing else, so
// another agent's step there is ordered with both reads alike (the reads are
// pending until a wgmma.wait_group either way), the later wgmma's checks
// (its fence, its registers) see what the earlier one's saw, and inside the
// run every warp is enabled or joined.
//
// Checked against the uncoalesced kernel on generated kernels and on the
// project's CUDA kernels (tests/ptx_coalesce_test.cpp, ptx_kernels_test.cpp);
// `--no-reduction` turns it off.
#pragma once

#include "checker/ir.hpp"

namespace pc::ptx {

// Coalesces every role's runs (of reads, of wgmmas) in place; returns the
// operations removed.
int coalesce_reads(ir::Kernel& k);

}  // namespace pc::ptx
