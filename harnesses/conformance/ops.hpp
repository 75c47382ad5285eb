// The operations of one mbarrier as codes, and their dispatch to
// spec/primitives.hpp. The same template runs on the device's mbarrier word
// (nvcc) and on the model (host), so the two sides cannot drift: the op
// sequences, the fixed sequences and the op litmus tests all go through it.
#pragma once

#include <cstdint>

#include "spec/portability.hpp"
#include "spec/primitives.hpp"

// apply_op is a host-device template instantiated with host-only (model) and
// device-only (hardware) barrier types; nvcc's cross-execution-space check
// does not apply to it.
#if defined(__CUDACC__) && !defined(__HIPCC__)
#define PC_EXEC_CHECK_DISABLE _Pragma("nv_exec_check_disable")
#else
#define PC_EXEC_CHECK_DISABLE
#endif

namespace pc::conformance {

enum SeqOp : std::uint32_t {
  op_observe = 0,  // nothing: just the parity observations
  op_arrive = 1,
  op_drop,
  op_expect,
  op_complete,
  op_arrive_tx,
  op_nocomplete,
  op_token_test,
  op_inval,
  op_try_wait,
  op_probe,  // test_wait.parity(0) as the op's value: one read of the barrier, so one state
             // (two tests, parity(0) then parity(1), can straddle another thread's completion)
};

inline constexpr const char* op_names[] = {"observe",     "arrive",        "arrive_drop",       "expect_tx",
                                           "complete_tx", "arrive_expect_tx", "arrive_nocomplete", "test_wait_token",
                                           "inval",       "try_wait",      "probe"};

[[nodiscard]] constexpr PC_HOST_DEVICE std::uint32_t op(std::uint32_t code, std::uint32_t arg) { return code << 24 | arg; }
[[nodiscard]] constexpr PC_HOST_DEVICE std::uint32_t op_code(std::uint32_t o) { return o >> 24; }
[[nodiscard]] constexpr PC_HOST_DEVICE std::uint32_t op_arg(std::uint32_t o) { return o & 0xffffff; }

struct Obs {
  std::uint32_t parity_bits;  // bit 0: test_wait.parity(0), bit 1: test_wait.parity(1), after the op
  std::uint32_t value;        // op-specific: pending_count of an arrive's token, or a token test
};

PC_EXEC_CHECK_DISABLE
template <class Bar>
PC_HOST_DEVICE std::uint32_t parities(Bar* bar) {
  return (prim::mbarrier_test_wait_parity(bar, 0) ? 1u : 0u) | (prim::mbarrier_test_wait_parity(bar, 1) ? 2u : 0u);
}

// The pending count an arrive's token holds, as the H100 answers it for
// every arrive form (the count before the arrive: test pending_count_token).
// The ISA defines it only for a .noComplete arrive's token, and the host
// model's mbarrier_pending_count records the others as undefined; these
// tests measure the hardware, so the model's side reads the count itself.
#if defined(__CUDACC__)
__device__ inline std::uint32_t token_count(std::uint64_t state) { return prim::mbarrier_pending_count(state); }
#endif
inline std::uint32_t token_count(const prim::ModelToken& t) {
  return static_cast<std::uint32_t>(spec::mbarrier::pending_count(t.token));
}

// One operation on the device barrier or on the model. Returns the op's value.
PC_EXEC_CHECK_DISABLE
template <class Bar, class Token>
PC_HOST_DEVICE std::uint32_t apply_op(Bar* bar, Token& token, std::uint32_t code, std::uint32_t arg) {
  switch (code) {
    case op_arrive: token = prim::mbarrier_arrive(bar, arg); return token_count(token);
    case op_drop: token = prim::mbarrier_arrive_drop(bar, arg); return token_count(token);
    case op_expect: prim::mbarrier_expect_tx(bar, arg); return 0;
    case op_complete: prim::mbarrier_complete_tx(bar, arg); return 0;
    case op_arrive_tx: token = prim::mbarrier_arrive_expect_tx(bar, arg); return token_count(token);
    case op_nocomplete: token = prim::mbarrier_arrive_nocomplete(bar, arg); return token_count(token);
    case op_token_test: return prim::mbarrier_test_wait(bar, token) ? 1 : 0;
    case op_inval: prim::mbarrier_inval(bar); return 0;
    case op_try_wait: return prim::mbarrier_try_wait_parity(bar, arg) ? 1 : 0;
    case op_probe: return prim::mbarrier_test_wait_parity(bar, 0) ? 1 : 0;
    default: return 0;
  }
}

// The software mbarrier has init, arrive and test_wait.parity only
// (spec/sw_mbarrier.hpp): arrive's value is the pending count before it, as
// the hardware's token gives.
PC_EXEC_CHECK_DISABLE
template <class Word>
PC_HOST_DEVICE std::uint32_t apply_sw_op(Word* word, std::uint32_t code, std::uint32_t arg) {
  switch (code) {
    case op_arrive: return prim::sw_mbarrier_pending_count(prim::sw_mbarrier_arrive(word, arg));
    case op_probe: return prim::sw_mbarrier_test_wait_parity(word, 0) ? 1u : 0u;
    default: return 0;
  }
}

}  // namespace pc::conformance
