// The protocol state an agent carries from one operation to the next: where
// it stands in an instruction that arrives and then waits, and the fences the
// tensor-core rules read. Pure functions of the fields' values; the explorer
// keeps the fields in its agent state (checker/state.hpp, AgentState) and
// writes what these return.
#pragma once

#include <cstdint>

namespace pc::spec::agent {

// --- Instructions that arrive, then wait ------------------------------------------

// bar.sync and bar.red: "In addition to signaling its arrival at the barrier,
// the barrier{.cta}.red and barrier{.cta}.sync instructions causes executing
// thread to wait for non-exited threads of all other warps participating in the
// barrier to arrive." (PTX ISA, "bar, barrier"); so do barrier.cluster.arrive
// then .wait as one (cluster_sync), s_barrier (AMD ISA, S_BARRIER: "Synchronize
// waves within a threadgroup."), a warp's part of a warp-group wgmma.mma_async
// (PTX ISA wgmma.mma_async: "The mandatory .sync qualifier indicates that
// wgmma.mma_async instruction causes the executing thread to wait until all
// threads in the warp execute the same wgmma.mma_async instruction before
// resuming execution." and "The mandatory .aligned qualifier indicates that all
// threads in the warpgroup must execute the same wgmma.mma_async instruction.";
// that a warp waits for the other warps of its warp group is the model's,
// docs/spec.md: the ISA's .sync names the warp only) and the first warp of a
// .cta_group::2 tcgen05 collective (PTX ISA tcgen05, "Issue Granularity": "the
// first warp to perform the operation could block until the the [sic] second
// warp in the Peer CTA also performs the operation"). The agent's stage: `ready` before
// the arrive, `waiting` after it until the wait passes.
inline constexpr std::uint8_t ready = 0;
inline constexpr std::uint8_t waiting = 1;

// Whether this step performs the instruction's arrive: it has one, and the
// agent has not arrived yet.
[[nodiscard]] constexpr bool arrives_now(std::uint8_t stage, bool arrives) { return arrives && stage == ready; }
// The stage after the arrive: waiting where the instruction waits too, else
// the instruction is done (PTX ISA, "bar, barrier": "barrier{.cta}.arrive does
// not cause executing thread to wait for threads of other participating
// warps."; PTX ISA, barrier.cluster: "barrier.cluster.arrive instruction marks
// warps' arrival at barrier without causing executing thread to wait for
// threads of other participating warps."; s_barrier_signal).
[[nodiscard]] constexpr std::uint8_t after_arrive(bool waits) { return waits ? waiting : ready; }
// The stage once the wait passed: the instruction is done.
[[nodiscard]] constexpr std::uint8_t after_pass() { return ready; }

// The named-barrier instance the agent waits for: the one its arrive joined
// (spec/named_barrier.hpp: arrive's observed value; wait's `joined`).
[[nodiscard]] constexpr std::uint32_t ticket_after_arrive(std::int64_t joined) { return static_cast<std::uint32_t>(joined); }

// --- Tensor-core fences -----------------------------------------------------------

// PTX ISA wgmma.fence: "The wgmma.fence instruction must be issued by all warps
// of the warpgroup at the following locations: Before the first
// wgmma.mma_async operation in a warpgroup. ... Otherwise, the behavior is
// undefined." Once the agent executed one, its wgmmas are fenced
// (rules::wgmma_issue reads it).
[[nodiscard]] constexpr bool wgmma_fenced_after_fence() { return true; }

// The registers a wgmma.mma_async shares with its threads: "Only the
// accumulator register and the input registers containing the fragments of
// matrix A require this ordering." (PTX ISA wgmma.fence); a wgmma.fence is
// needed "Between a register access by a thread in the warpgroup and any
// wgmma.mma_async instruction that accesses the same registers". The model names no
// register: `regs_acc` stands for the accumulator registers of the agent's
// wgmmas, `regs_a` for the A fragments of those that take A from registers.
// The agent keeps the set its threads accessed since its last wgmma.fence
// (`wgmma_regs acc|a`, docs/dsl.md); rules::wgmma_issue reads it.
inline constexpr std::uint8_t regs_acc = 1;
inline constexpr std::uint8_t regs_a = 2;
// A thread access of registers `which`: not ordered before a later wgmma
// until a wgmma.fence ("establishes an ordering between prior accesses to any
// warpgroup registers and subsequent accesses to the same registers by a
// wgmma.mma_async instruction").
[[nodiscard]] constexpr std::uint8_t regs_after_access(std::uint8_t unfenced, std::uint8_t which) {
  return static_cast<std::uint8_t>(unfenced | which);
}
// wgmma.fence: every prior register access is ordered before the later
// wgmmas (a tcgen05.ld still in flight stays so: regs_tmem_ld).
[[nodiscard]] constexpr std::uint8_t regs_after_fence(std::uint8_t regs = 0);
// tcgen05.ld is asynchronous (PTX ISA tcgen05.ld): its destination
// registers hold what it loads once it has completed, and tcgen05.wait::ld
// blocks the executing thread until all its prior tcgen05.ld operations have
// completed (PTX ISA tcgen05.wait). A thread access of them before the wait
// reads, or overwrites, registers the load may still write (CUTLASS's
// fence_view_async_tmem_load is that wait, before any use; docs/spec.md,
// "tcgen05.ld registers"). `regs_tmem_ld` in the agent's
// register state: a tcgen05.ld of its not yet waited for; the model names no
// register, so `tcgen05_regs` (docs/dsl.md) stands for a use of those the
// loads write.
inline constexpr std::uint8_t regs_tmem_ld = 4;
[[nodiscard]] constexpr std::uint8_t regs_after_tmem_ld(std::uint8_t regs) { return static_cast<std::uint8_t>(regs | regs_tmem_ld); }
[[nodiscard]] constexpr std::uint8_t regs_after_wait_ld(std::uint8_t regs) {
  return static_cast<std::uint8_t>(regs & ~regs_tmem_ld);
}
constexpr std::uint8_t regs_after_fence(std::uint8_t regs) { return static_cast<std::uint8_t>(regs & regs_tmem_ld); }
// The registers a wgmma accesses: its accumulator always, A's fragments when
// it takes A from registers. A wgmma's own accumulator accesses set nothing:
// "except when these are accumulator register accesses across multiple
// wgmma.mma_async instructions of the same shape. In the latter case, an
// ordering guarantee is provided by default" (the shape is not modelled).
[[nodiscard]] constexpr std::uint8_t wgmma_uses(bool a_in_registers) {
  return static_cast<std::uint8_t>(regs_acc | (a_in_registers ? regs_a : 0));
}

// A thread synchronization (an mbarrier wait or test that observed a
// completion, bar.sync / bar.red resuming, barrier.cluster.wait) orders the
// thread's later asynchronous tcgen05 operations after it only through a
// tcgen05.fence::after_thread_sync (PTX ISA, "Memory Consistency Model for
// 5th generation of TensorCore operations", "Specialized Inter-thread
// Synchronization for tcgen05 instructions": "An asynchronous tcgen05
// operation subsequent to a tcgen05.fence::after_thread_sync is ordered after
// all the prior tcgen05 and the execution ordering operations."; the same
// section also says "The standard memory consistency model synchronization
// mechanisms also apply to the tcgen05 family of instructions"): after one
// the agent is `synced` until that fence, and
// rules::tcgen05_issue warns for an operation issued meanwhile. Followed only
// in a kernel with asynchronous tcgen05 operations (`tcgen05_in_kernel`):
// elsewhere nothing reads it, and states that differ only there stay equal.
[[nodiscard]] constexpr bool synced_after_thread_sync(bool synced, bool tcgen05_in_kernel) { return synced || tcgen05_in_kernel; }
// tcgen05.fence::after_thread_sync: the synchronization is fenced.
[[nodiscard]] constexpr bool synced_after_fence() { return false; }

}  // namespace pc::spec::agent
