// AMD targets and workgroup barriers: the wave size and counters of each chip,
// s_barrier with the s_waitcnt it needs for LDS, the gfx12 split barrier
// (s_barrier_signal / s_barrier_wait), and gather-to-LDS loads counted by
// VM_CNT. Pure functions, as in spec/mbarrier.hpp. Sources:
//  - AMD "CDNA3 Instruction Set Architecture" (gfx940/gfx942; the "AMD Instinct
//    MI200 (CDNA2) Instruction Set Architecture" says the same for gfx90a),
//    chapter 1 and "Wavefront" terminology: a wavefront is 64 work-items
//    executed together; S_BARRIER ("synchronize waves within a threadgroup");
//    S_WAITCNT and "Data Dependency Resolution" (VM_CNT counts outstanding
//    vector memory instructions, LGKM_CNT outstanding LDS, GDS, constant
//    (scalar memory) and message instructions; the wave waits until each
//    counter is at or below its operand; VM_CNT 6 bits, 0..63, and LGKM_CNT
//    4 bits, 0..15, in the SIMM16 of S_WAITCNT); the LDS-destination forms of
//    the buffer and global loads (MUBUF "LDS" bit, GLOBAL_LOAD_LDS_*: the data
//    is written into LDS rather than into VGPRs, and the load counts against
//    VM_CNT until it is written);
//  - AMD "RDNA3 Instruction Set Architecture" (gfx1100, gfx1101, gfx1102):
//    waves of 32 or 64 work-items, chosen per program; S_BARRIER only (no
//    split barrier); S_WAITCNT with VM_CNT and LGKM_CNT 6 bits each, 0..63
//    (SIMM16 bits 15:10 and 9:4; LLVM "AMDGPU" assembler syntax, gfx11
//    waitcnt); no LDS-destination loads;
//  - AMD "RDNA4 Instruction Set Architecture" (gfx1200, gfx1201): waves of 32
//    or 64 work-items, chosen per program; S_BARRIER_SIGNAL, S_BARRIER_WAIT;
//    S_WAIT_LOADCNT (LOAD_CNT, the load part of VM_CNT) and S_WAIT_DSCNT
//    (DS_CNT, the LDS part of LGKM_CNT), each 6 bits, 0..63;
//  - LLVM "AMDGPUUsage", processor table and memory model: gfx10 and later
//    compile for wave32 unless wavefrontsize64 is asked for, gfx9 targets are
//    wave64 only; LDS DMA (gather-to-LDS) loads "need a wait on vmcnt before
//    LDS written can be accessed";
//  - LLVM "AMDGPU Execution Synchronization": "Barriers only synchronize
//    execution and do not affect the visibility of memory operations between
//    threads"; LLVM "AMDGPUUsage", memory model: a workgroup release before a
//    barrier is an s_waitcnt lgkmcnt(0) (gfx12: s_wait_dscnt 0).
// The software mbarrier that TLX builds in LDS is spec/sw_mbarrier.hpp.
#pragma once

#include <compare>
#include <cstdint>

#include "spec/outcome.hpp"

namespace pc::spec::amd {

// ---- targets ----------------------------------------------------------------
// The AMD chips a kernel may name (`target amd gfx942`). CDNA: gfx90a (MI200,
// CDNA2), gfx940 and gfx942 (MI300, CDNA3). RDNA3: gfx1100, gfx1101, gfx1102
// (Radeon RX 7000 / PRO W7000). RDNA4: gfx1200, gfx1201.
enum class Gfx : std::uint8_t { gfx90a, gfx940, gfx942, gfx1200, gfx1201, gfx1100, gfx1101, gfx1102 };
// `target amd` without a chip: gfx942 (MI300X, CDNA3), the datacenter part
// among these; a kernel that needs another chip's wave size or its split
// barrier names that chip.
inline constexpr Gfx default_gfx = Gfx::gfx942;

[[nodiscard]] constexpr bool is_gfx12(Gfx g) { return g == Gfx::gfx1200 || g == Gfx::gfx1201; }
[[nodiscard]] constexpr bool is_gfx11(Gfx g) { return g == Gfx::gfx1100 || g == Gfx::gfx1101 || g == Gfx::gfx1102; }
// RDNA (gfx10 and later): the chips of this model that are not CDNA.
[[nodiscard]] constexpr bool is_rdna(Gfx g) { return is_gfx11(g) || is_gfx12(g); }

// Lanes per wave. CDNA (gfx9 family): 64, the only wave size ("a wavefront of
// 64 work-items", CDNA3 ISA). RDNA3 and RDNA4 run wave32 and wave64; the
// model takes wave32, what the compiler emits for gfx11 and gfx12 unless
// -mwavefrontsize64 is given (LLVM AMDGPUUsage: wavefrontsize64 is off by
// default on gfx10+), and what HIP's warpSize is there.
[[nodiscard]] constexpr int wave_size(Gfx g) { return is_rdna(g) ? 32 : 64; }

// The split barrier S_BARRIER_SIGNAL / S_BARRIER_WAIT is gfx12's (RDNA4 ISA);
// the CDNA and RDNA3 ISAs have S_BARRIER only.
[[nodiscard]] constexpr bool has_split_barrier(Gfx g) { return is_gfx12(g); }

// Loads with an LDS destination (MUBUF with the LDS bit, GLOBAL_LOAD_LDS_*):
// CDNA has them (CDNA3 ISA, "Global Load LDS" and the MUBUF LDS bit); the RDNA4
// buffer and global loads have no LDS-destination form, nor have RDNA3's (LLVM: no
// vmem-to-lds-load-insts on gfx11/gfx12).
[[nodiscard]] constexpr bool has_lds_dma(Gfx g) { return !is_rdna(g); }

// The largest operand of each counter in a wait. gfx9 S_WAITCNT: vmcnt 0..63
// (SIMM16 bits 15:14 and 3:0), lgkmcnt 0..15 (bits 11:8). gfx11 S_WAITCNT:
// vmcnt 0..63 (bits 15:10), lgkmcnt 0..63 (bits 9:4). gfx12
// S_WAIT_LOADCNT and S_WAIT_DSCNT: 0..63 each.
[[nodiscard]] constexpr std::uint32_t max_vmcnt(Gfx) { return 63; }
[[nodiscard]] constexpr std::uint32_t max_lgkmcnt(Gfx g) { return is_rdna(g) ? 63 : 15; }

[[nodiscard]] constexpr const char* gfx_name(Gfx g) {
  switch (g) {
    case Gfx::gfx90a: return "gfx90a";
    case Gfx::gfx940: return "gfx940";
    case Gfx::gfx942: return "gfx942";
    case Gfx::gfx1200: return "gfx1200";
    case Gfx::gfx1201: return "gfx1201";
    case Gfx::gfx1100: return "gfx1100";
    case Gfx::gfx1101: return "gfx1101";
    case Gfx::gfx1102: return "gfx1102";
  }
  return "?";
}

// ---- waves --------------------------------------------------------------------
// The lanes of a wave are one instruction stream: each instruction is issued
// once for the whole wave, the EXEC mask turning lanes off, never reordering
// them (CDNA3 ISA, "Program Flow Control" and the wavefront terminology), and
// the LDS executes one wave's instructions in issue order. So what one lane
// of a wave did before an instruction, the wave's other lanes are ordered
// after: the model orders the lane classes of each wave at every instruction,
// which an NVIDIA warp needs __syncwarp for. (HIP has no __syncwarp; the .bk
// `syncwarp` is NVIDIA's.)
inline constexpr bool wave_lanes_in_lockstep = true;

// One wave's view. Memory instructions complete asynchronously and in order
// within each counter; the wave's counters count those issued and not yet
// complete:
//  - LGKM_CNT (gfx12: DS_CNT): LDS instructions (ds_read, ds_write, ds
//    atomics) and scalar memory loads; the model issues the LDS ones (a .bk
//    `read`/`write` of shared memory);
//  - VM_CNT (gfx12: LOAD_CNT and STORE_CNT): vector memory loads and stores,
//    and loads into LDS (gather-to-LDS: buffer_load ... lds,
//    global_load_lds_*), which count against VM_CNT until their data is in
//    LDS (LLVM: "VMEM load and DS store, so it shall use vmcnt"); the model
//    issues the gather-to-LDS ones (`global_load_lds`).
// The VM loads are numbered from 1 in issue order: load i is complete once
// vm_done >= i, so the number of a load tells whether a wait covered it.
struct Wave {
  std::uint32_t lds_outstanding = 0;
  std::uint32_t joined = 0;    // generation of the instance it signalled
  std::uint16_t vm_issued = 0; // VM_CNT instructions issued (the last one's number)
  std::uint16_t vm_done = 0;   // every one up to this number has completed
  bool signaled = false;       // signalled the barrier and has not waited yet
  // Always zero: the type has no padding, so that its bytes are its value
  // (the checker hashes them).
  std::uint8_t unused[3] = {};
  auto operator<=>(const Wave&) const = default;
};

[[nodiscard]] constexpr std::uint32_t vm_outstanding(const Wave& w) {
  return static_cast<std::uint32_t>(w.vm_issued - w.vm_done);
}

// The operands of one s_waitcnt: the most instructions of each counter that
// may remain outstanding; no_wait for a counter the instruction leaves alone
// (LLVM assembler: a counter not written is its largest value, which waits
// for nothing).
inline constexpr std::uint32_t no_wait = 0xffffffffu;
struct Waitcnt {
  std::uint32_t vm = no_wait;
  std::uint32_t lgkm = no_wait;
};

// The workgroup barrier (s_barrier, and on gfx12 the workgroup barrier -1 of
// s_barrier_signal/s_barrier_wait).
struct Barrier {
  std::uint16_t waves = 0;       // waves still alive in the workgroup: those the barrier waits for
  std::uint16_t arrived = 0;     // waves that signalled the instance in progress
  std::uint32_t generation = 0;  // completed instances
  auto operator<=>(const Barrier&) const = default;
};

struct Result {
  Barrier barrier;
  Wave wave;
  Outcome out;  // observed: the generation joined (signal) or 0
};

[[nodiscard]] Barrier make_barrier(std::uint16_t waves);

// An LDS instruction (ds_read, ds_write, ds atomics) issued: LGKM_CNT += 1.
[[nodiscard]] Wave lds_issue(Wave w);
// The oldest outstanding LDS instruction completes (LDS returns in order, so
// the counter alone describes which ones are done). Blocked when none is outstanding.
[[nodiscard]] Outcome lds_complete_enabled(const Wave& w);
[[nodiscard]] Wave lds_complete(Wave w);

// s_waitcnt lgkmcnt(n) (gfx12: s_wait_dscnt n): enabled once at most n LDS
// instructions are outstanding.
[[nodiscard]] Outcome waitcnt_lgkm(const Wave& w, std::uint32_t n);

// A gather-to-LDS load issued: VM_CNT += 1. Returns the wave; the load's
// number is the new vm_issued.
[[nodiscard]] Wave vm_issue(Wave w);

// s_waitcnt vmcnt(v) lgkmcnt(l) (gfx12: s_wait_loadcnt v; s_wait_dscnt l):
// the wave waits until at most v VM_CNT and at most l LGKM_CNT instructions
// are outstanding. Each counter's instructions complete on their own and in
// issue order (in-order counters: CDNA3 ISA, "Data Dependency Resolution"),
// so the wait never blocks for ever: the oldest complete first. Returns the
// wave after the wait: lds_outstanding <= l, vm_outstanding <= v, and
// vm_done the number of the newest load known complete.
[[nodiscard]] Wave waitcnt(Wave w, Waitcnt n);

// The signal half of a barrier: s_barrier_signal -1 on gfx12, and the arrival
// part of s_barrier on every target. The barrier does not wait for the wave's
// LDS instructions, so any still outstanding may be unfinished when other waves
// pass the barrier: amd_missing_waitcnt (they must be waited for with
// s_waitcnt lgkmcnt(0) first). AMD CDNA4 ISA, S_BARRIER: "Barrier instructions
// do not wait for any counters to go to zero before issuing. If the barrier is
// being used to protect an outstanding memory operation use the appropriate
// S_WAITCNT instruction before the barrier." The model asks it of every LDS
// instruction outstanding at the signal, whether or not the barrier protects
// it, and applies it to gfx12's s_barrier_signal with s_wait_dscnt.
// A second signal before the wave's wait is split_barrier_misuse: the model
// gives one wave one arrival per instance (no AMD ISA sentence found for it).
[[nodiscard]] Result signal(Barrier b, Wave w);

// The wait half: s_barrier_wait -1 on gfx12, the waiting part of s_barrier.
// A wait with no signal before it is split_barrier_misuse (the model's rule: no
// AMD ISA sentence found for it); otherwise it is enabled once the instance the
// wave joined has completed.
[[nodiscard]] Result wait(Barrier b, Wave w);

// s_barrier: signal, then wait, as one instruction (CDNA3 ISA, S_BARRIER:
// "Synchronize waves within a threadgroup."). The explorer runs it as
// signal() followed by wait() of the same wave, which blocks in between.
[[nodiscard]] Result s_barrier_arrive(Barrier b, Wave w);

// A wave ends (s_endpgm). "If some waves in the threadgroup have already
// terminated, this waits on only the surviving waves" (CDNA3 ISA, S_BARRIER):
// the barrier expects one wave fewer, which may complete the instance in progress.
[[nodiscard]] Barrier wave_exit(Barrier b, const Wave& w);

}  // namespace pc::spec::amd
