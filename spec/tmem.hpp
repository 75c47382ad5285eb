// Tensor memory (sm_100a and later): PTX ISA, "Tensor Memory" (128 lanes of
// 512 columns of 32-bit cells per CTA) and the allocation instructions
// tcgen05.alloc, tcgen05.dealloc, tcgen05.relinquish_alloc_permit.
//
// The accesses themselves (tcgen05.mma writing its accumulator, tcgen05.cp,
// tcgen05.ld/st) are happens-before accesses of spec/hb.hpp by the issuing
// agent's async units; their ordering rules are in docs/spec.md ("Tensor
// memory") and applied in checker/step.cpp. This file holds the per-CTA
// allocation state and its rules.
#pragma once

#include <compare>
#include <cstdint>

#include "spec/outcome.hpp"

namespace pc::spec::tmem {

// PTX ISA "Tensor Memory": 512 columns per CTA, each column 128 lanes of 32
// bits: 512 bytes per column.
inline constexpr std::int64_t columns = 512;
inline constexpr std::int64_t bytes_per_column = 128 * 4;

// .cta_group::1 and .cta_group::2 (PTX ISA tcgen05, "CTA Pair"): one CTA, or
// the pair of CTAs whose ranks differ in bit 0 (peer() below).
inline constexpr int max_cta_group = 2;

// The model's limit, not the ISA's: Cta::allocated below holds one bit per
// tensor-memory declaration of the kernel.
inline constexpr int max_allocations = 32;

// tcgen05.alloc nCols. PTX ISA tcgen05.alloc: "The number of columns must be a
// power of 2. The operand nCols must be within the range [32, 512]."
[[nodiscard]] constexpr bool valid_alloc_columns(std::int64_t n) {
  return n >= 32 && n <= columns && (n & (n - 1)) == 0;
}

// One CTA's tensor memory: the columns allocated, which allocations (one bit
// per tensor-memory declaration of the kernel) hold them, and whether the CTA
// gave up its permit to allocate.
// An allocation-management instruction with .cta_group::2, which two warps
// perform together (pair_issue below).
enum class PairOp : std::uint8_t { none, alloc, dealloc, relinquish };

struct Cta {
  std::uint16_t used = 0;
  std::uint32_t allocated = 0;
  bool relinquished = false;
  std::uint16_t last_cols = 0;  // the columns of the CTA's last tcgen05.alloc (0: none yet)
  // The .cta_group::2 collective this CTA's warp issued first, whose half
  // the peer CTA's warp has not issued yet (pair_issue below).
  PairOp pair = PairOp::none;
  std::uint8_t pair_which = 0;
  auto operator<=>(const Cta&) const = default;
};
static_assert(sizeof(Cta::allocated) * 8 == max_allocations);

struct Result {
  Cta next;
  Outcome out;
};

// tcgen05.alloc of allocation `which` (a bit index) of `cols` columns:
//  - after tcgen05.relinquish_alloc_permit: "it is illegal for a CTA to
//    perform tcgen05.alloc after any of its constituent threads execute
//    tcgen05.relinquish_alloc_permit": `tmem_misuse`;
//  - a declaration that is already allocated: the model holds one live
//    allocation per declaration (its address), and a second one would lose
//    the first, which then cannot be deallocated: `tmem_misuse` (the model's
//    limit; no ISA sentence forbids a second allocation);
//  - more columns than the CTA's previous allocation (grows() below):
//    `tmem_misuse`;
//  - fewer free columns than asked: "The tcgen05.alloc blocks if the
//    requested amount of Tensor Memory is not available and unblocks as soon
//    as the requested amount of Tensor Memory becomes available for
//    allocation."
// PTX ISA tcgen05.alloc: "The number of columns allocated should not increase
// between any two allocations in the execution order within the CTA." The
// model reads "should not" as a requirement (docs/spec.md, tensor memory).
[[nodiscard]] constexpr bool grows(const Cta& c, std::int64_t cols) { return c.last_cols != 0 && cols > c.last_cols; }
[[nodiscard]] constexpr Result alloc(Cta c, int which, std::int64_t cols) {
  if (c.relinquished || (c.allocated >> which & 1u) || grows(c, cols)) return {c, Outcome::fail(Violation::tmem_misuse)};
  if (c.used + cols > columns) return {c, Outcome::blocked()};
  c.used = static_cast<std::uint16_t>(c.used + cols);
  c.allocated |= 1u << which;
  c.last_cols = static_cast<std::uint16_t>(cols);
  return {c, Outcome{}};
}

// tcgen05.dealloc of allocation `which`: "the operand taddr must point to a
// previous Tensor Memory allocation" (PTX ISA tcgen05.dealloc): else
// `tmem_misuse`.
[[nodiscard]] constexpr Result dealloc(Cta c, int which, std::int64_t cols) {
  if (!(c.allocated >> which & 1u)) return {c, Outcome::fail(Violation::tmem_misuse)};
  c.used = static_cast<std::uint16_t>(c.used - cols);
  c.allocated &= ~(1u << which);
  return {c, Outcome{}};
}

// tcgen05.relinquish_alloc_permit: no later tcgen05.alloc in the CTA (PTX ISA
// tcgen05.alloc: "Instruction tcgen05.relinquish_alloc_permit specifies that the
// CTA of the executing thread is relinquishing the right to allocate Tensor
// Memory."; alloc() above reports the later alloc).
[[nodiscard]] constexpr Cta relinquish(Cta c) {
  c.relinquished = true;
  return c;
}

// An access of allocation `which` needs it live: PTX ISA "Tensor Memory
// Allocation": "The Tensor Memory is dynamically allocated. The Tensor Memory
// must be allocated by a single warp in a CTA using the Tensor Memory Allocation
// and Management Instructions."; an address is one tcgen05.alloc wrote ("writes
// the address of the allocated Tensor Memory into shared memory", PTX ISA
// tcgen05.alloc). An access before the allocation or after its tcgen05.dealloc
// is `tmem_unallocated`: no ISA sentence names such an access undefined.
[[nodiscard]] constexpr Violation use(const Cta& c, int which) {
  return (c.allocated >> which & 1u) ? Violation::none : Violation::tmem_unallocated;
}

// ---- .cta_group::2: the CTA pair ----
//
// PTX ISA, tcgen05 "Issue Granularity" (Table 46): with .cta_group::2,
// tcgen05.alloc, tcgen05.dealloc and tcgen05.relinquish_alloc_permit are
// "issue[d] from two warps, one in each of the current CTA and its Peer CTA,
// in order to collectively perform the operation, i.e., the first warp to
// perform the operation could block until the second warp in the Peer CTA
// also performs the operation"; tcgen05.alloc: "the issuing warp must make
// sure that peer CTA is launched and its warps eventually participate in
// collective operations"; tcgen05.mma, .cp and .commit are issued by "a
// single thread from the CTA-Pair" and "the peer CTA should be active and
// should not have exited". tcgen05.dealloc with .cta_group::2: "issuing warp and
// peer CTA warp must synchronize Tensor Memory accesses before attempting to
// collectively deallocate the Tensor Memory" and "tcgen05.dealloc may block to
// collectively performs the deallocation with the other peer CTA's warp".
// The pair's accumulator is split between the two
// CTAs' tensor memory at the same columns, so an MMA writes both.
//
// The model takes no rendezvous (docs/spec.md, "The CTA pair's collectives";
// we have no sm_100 device to test it):
//  - The first warp to issue performs the operation in both CTAs and goes
//    on (public evidence: on sm_103a the first CTA's alloc and dealloc ran
//    before the peer's alloc completed, NVIDIA/cutlass#3435; a 2-CTA alloc
//    reaches the peer CTA's shared memory, NVIDIA/cutlass#3316). Its alloc
//    is a write of both CTAs' parts, by the first warp; the second warp's
//    issue joins it and orders the second warp after that write (the
//    allocation it answers). Nothing else is ordered between the two warps:
//    a peer's use of the memory before the dealloc must be ordered by the
//    kernel (triton-lang/triton#9498, Dao-AILab/flash-attention#2312).
//  - The first dealloc frees both CTAs' columns: every access of either
//    part must be ordered before that warp.
//  - Halves match in issue order: the second must be the same operation on
//    the same allocation, else `tmem_misuse`. A CTA's warp runs at most one
//    collective ahead of its peer: a next alloc or relinquish waits until
//    the peer's warp has joined the last (the ISA's "could block"); a
//    dealloc issued while the peer has not joined its CTA's last collective
//    is `tmem_misuse` (no ISA sentence: a dealloc before the peer's alloc
//    completed failed every time, NVIDIA/cutlass#3435).
//  - The peer's warps must eventually participate: the first half of a
//    collective whose peer CTA has exited, and a CTA exiting while its
//    peer's collective waits for its half, are `tmem_misuse`.

// The peer of CTA `cta`: the CTA pair is two CTAs whose %cluster_ctarank
// differ only in bit 0 (PTX ISA, tcgen05 "CTA Pair": "Any 2 CTAs within the
// cluster whose %cluster_ctarank differs by the last bit only is said to form a
// CTA pair.").
[[nodiscard]] constexpr int peer(int cta) { return cta ^ 1; }

struct PairResult {
  Cta mine, peer;
  Outcome out;         // blocked: this CTA's last collective waits for the peer's half, or columns lack
  bool first = false;  // this issue is the first of a new collective: it performed it
};

// Whether a warp of the CTA whose state is `mine` issues the second half of
// a collective: its peer's warp issued the first, and its own CTA has none
// waiting (pair_issue below joins it to the peer's).
[[nodiscard]] constexpr bool joins_peer(Cta mine, Cta peer) { return mine.pair == PairOp::none && peer.pair != PairOp::none; }

// The issue of `op` on allocation `which` (`cols` columns) by a warp of the
// CTA whose state is `mine`, whose peer CTA is `peer` (`peer_exited`: all of
// its threads have exited). Its violations, and the sentences they rest on,
// are listed above: a first half whose peer CTA has exited ("the issuing warp
// must make sure that peer CTA is launched and its warps eventually
// participate in collective operations"), halves that do not match ("one warp
// from each of the peer CTAs must collectively perform the allocation and
// de-allocation", PTX ISA tcgen05.alloc), a dealloc ahead of the peer (no ISA
// sentence), and those of alloc() and dealloc().
[[nodiscard]] constexpr PairResult pair_issue(Cta mine, Cta peer, bool peer_exited, PairOp op, int which, std::int64_t cols) {
  if (mine.pair != PairOp::none)
    return {mine, peer, op == PairOp::dealloc ? Outcome::fail(Violation::tmem_misuse) : Outcome::blocked()};
  if (joins_peer(mine, peer)) {  // the second: it joins the peer's
    if (peer.pair != op || (op != PairOp::relinquish && peer.pair_which != which))
      return {mine, peer, Outcome::fail(Violation::tmem_misuse)};
    peer.pair = PairOp::none;
    peer.pair_which = 0;
    return {mine, peer, Outcome{}, false};
  }
  if (peer_exited) return {mine, peer, Outcome::fail(Violation::tmem_misuse), true};
  Result a{mine, Outcome{}}, b{peer, Outcome{}};
  if (op == PairOp::alloc) {
    a = alloc(mine, which, cols);
    b = alloc(peer, which, cols);
  } else if (op == PairOp::dealloc) {
    a = dealloc(mine, which, cols);
    b = dealloc(peer, which, cols);
  } else {
    a.next = relinquish(mine);
    b.next = relinquish(peer);
  }
  if (a.out.violation != Violation::none) return {mine, peer, a.out, true};
  if (b.out.violation != Violation::none) return {mine, peer, b.out, true};
  if (!a.out.enabled || !b.out.enabled) return {mine, peer, Outcome::blocked(), true};
  a.next.pair = op;
  a.next.pair_which = static_cast<std::uint8_t>(op == PairOp::relinquish ? 0 : which);
  return {a.next, b.next, Outcome{}, true};
}

// The last thread of a CTA exits: its peer's warp issued a collective whose
// half this CTA never will (`tmem_misuse`; PTX ISA tcgen05.alloc: "the issuing
// warp must make sure that peer CTA is launched and its warps eventually
// participate in collective operations").
[[nodiscard]] constexpr Violation pair_exit(const Cta& peer) {
  return peer.pair != PairOp::none ? Violation::tmem_misuse : Violation::none;
}

// "All tcgen05 instructions within a kernel must specify the same value for
// the .cta_group qualifier" (PTX ISA tcgen05.alloc / tcgen05.dealloc /
// tcgen05.relinquish_alloc_permit). A kernel's tcgen05 instruction with
// `cta_group` `value` after one with `first`: `tmem_misuse` where they
// differ. tcgen05.commit tracks only the operations of its own .cta_group
// (PTX ISA tcgen05.commit: "The instruction tcgen05.commit.cta_group::1 tracks
// for the completion of all prior asynchronous tcgen05 operations with
// .cta_group::1 issued by the current thread."), so a mixed kernel is not only
// illegal: its commits may not track its MMAs.
[[nodiscard]] constexpr Violation same_cta_group(int first, int value) {
  return first == value ? Violation::none : Violation::tmem_misuse;
}

// A tcgen05.ld or tcgen05.st by the warp of rank `warp_rank` in its CTA,
// addressing the lanes of quarter `quarter` (lanes 32 * quarter to
// 32 * quarter + 31). PTX ISA, tcgen05, "Access restrictions": "The Tensor
// Memory of a CTA is divided into 4 equal chunks such that each warp of a
// warpgroup in the CTA can access a chunk of the Tensor Memory. A lane of the
// Tensor Memory can be accessed by a single warp in the warpgroup." (warp 0
// of a warpgroup lanes 0-31, warp 1 32-63, warp 2 64-95, warp 3 96-127); a
// warpgroup is "a set of four contiguous warps such that the warp-rank of the
// first warp is a multiple of 4" ("Warpgroup"). Another quarter:
// `tmem_lane_quarter`.
[[nodiscard]] constexpr Violation lane_quarter(int warp_rank, std::int64_t quarter) {
  return quarter == warp_rank % 4 ? Violation::none : Violation::tmem_lane_quarter;
}

// The asynchronous tcgen05 operations of one thread, for the ordering rules below.
enum class Async : std::uint8_t { mma, cp, shift, ld, st };

// Whether an operation's tensor-memory accesses are ordered after the same
// thread's earlier accesses in its async unit (the MMA unit holds a thread's
// tcgen05.mma and tcgen05.cp). PTX ISA, tcgen05 memory consistency model,
// "Pipelined tcgen05 instructions": "some specific pairs of the asynchronous
// tcgen05 instructions form tcgen05 pipelines, where in the two asynchronous
// operations are guaranteed to execute in the same order as the instructions
// that issued them", among them "tcgen05.mma.cta_group::N ->
// tcgen05.mma.cta_group::N (same N and accumulator and shape)" and
// "tcgen05.copy.cta_group::N -> tcgen05.mma.cta_group::N (same N)". So an MMA
// is ordered after the earlier accesses of its MMA unit (and, through the
// tcgen05 ordering, of another thread's: "Pipelined instructions, different
// thread") that a pipelined pair covers (pipelined() below): a tcgen05.cp's
// or shift's, and an earlier MMA's accumulator where it is this MMA's
// accumulator too. An MMA that reads as its A operand the tensor memory an
// earlier MMA wrote as its accumulator, or accumulates into tensor memory an
// earlier MMA read as its A operand, is not ordered after it: it needs the
// earlier MMA's completion (its commit's arrive-on, waited for). The shape
// and N are not followed (one shape per accumulator, as kernels have it).
// Until issue 62 an MMA was ordered after every earlier access of its unit (a
// miss: the A operand read of the accumulator just written verified). A
// tcgen05.cp is not ordered after an earlier MMA (no such pair), nor are
// ld/st after anything of their own.
// tcgen05.shift (PTX ISA tcgen05.shift: "an asynchronous instruction which
// initiates the shifting of 32-byte elements downwards across all the rows,
// except the last, by one row", in the MMA unit: tcgen05.commit tracks it) is
// in the pairs tcgen05.shift -> tcgen05.mma (an MMA after it is ordered, as
// above), tcgen05.shift -> tcgen05.cp.4x256b and tcgen05.mma -> tcgen05.shift.
// A shift is not ordered after an earlier shift or tcgen05.cp: it is taken as
// ordered after none (an MMA then a shift of the same tensor memory with no
// commit waited for between is reported: docs/spec.md, "Tensor memory").
[[nodiscard]] constexpr bool after_own_unit(Async later) { return later == Async::mma; }

// Which part of its instruction an access of the MMA unit is (hb::Event::mma).
enum class MmaPart : std::uint8_t { none = 0, accumulator = 1, operand = 2 };
// Whether a later MMA's access (`later`: its accumulator or an operand read)
// is ordered after an earlier access of an MMA unit (`earlier`) that it
// conflicts with, `same_buffer` when the two are of one buffer: a tcgen05.cp
// or shift before it always (MmaPart::none), an MMA only as the chain of one
// accumulator (above).
[[nodiscard]] constexpr bool pipelined(MmaPart earlier, MmaPart later, bool same_buffer) {
  if (earlier == MmaPart::none) return true;
  return earlier == MmaPart::accumulator && later == MmaPart::accumulator && same_buffer;
}

// What tcgen05.fence::before_thread_sync orders before the fencing thread's
// later synchronization (PTX ISA tcgen05, "Specialized Inter-thread
// Synchronization for tcgen05 instructions": "An asynchronous tcgen05 operation
// prior to a tcgen05.fence::before_thread_sync is ordered before all subsequent
// tcgen05 and the execution ordering operations."), as accesses the fencing
// lanes then release with their next arrive or bar: its tcgen05.ld and
// tcgen05.st (this function). The fence orders the thread's MMAs, copies and
// shifts too, by another path: the accesses of its MMA unit still running are
// carried by its later arrives and barriers of any .sem and ordered before a
// pipelined consumer of the thread that observes them (another thread's MMA:
// "Pipelined instructions, different thread", spec::sync_order::
// tcgen05_fence_before), not before a tcgen05.ld, which needs their completion
// (tcgen05.commit's arrive-on: "Non-pipelined instructions"). So every prior
// async tcgen05 operation is ordered, none stricter than the ISA; the sweep of
// issue 62 read this function alone as stricter.
[[nodiscard]] constexpr bool before_thread_sync_orders(Async op) { return op == Async::ld || op == Async::st; }

// A tensor-memory access in conflict (spec/hb.hpp) with an earlier write by a
// lane: lanes write tensor memory only through tcgen05.alloc (tcgen05.st is
// an access of the agent's tensor-memory unit, not of its lanes), so the
// access is not ordered after the allocation that gave it its address:
// `tmem_unallocated` (PTX ISA tcgen05.alloc "writes the address of the
// allocated Tensor Memory into shared memory at the location specified by
// address operand dst", and "The store operation in tcgen05.alloc is treated as
// a weak memory operation in the Memory Consistency Model": using the address
// needs that write observed). Any other conflict is the race the hb rules name.
[[nodiscard]] constexpr Violation conflict(bool earlier_is_lane_write) {
  return earlier_is_lane_write ? Violation::tmem_unallocated : Violation::none;
}

// "All of the Tensor Memory that was allocated using tcgen05.alloc
// instruction in a kernel, must be explicitly deallocated using
// tcgen05.dealloc before the kernel exits" (PTX ISA tcgen05.alloc): a CTA whose
// threads have all exited with columns allocated is `tmem_not_deallocated`,
// checked at the CTA's exit rather than the kernel's, and the same verdict: once
// a CTA's threads have exited, no thread can deallocate its columns (a
// .cta_group::1 dealloc acts on the issuer's CTA; the .cta_group::2 one's first
// warp frees both halves, and a CTA that exits without issuing its half of
// the collective is `tmem_misuse`, pair_exit), so they stay allocated when the
// kernel exits. The earlier check names the CTA and its exit in the trace.
[[nodiscard]] constexpr Violation cta_exit(const Cta& c) {
  return c.allocated != 0 ? Violation::tmem_not_deallocated : Violation::none;
}

}  // namespace pc::spec::tmem
