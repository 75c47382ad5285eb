// PTX written by hand for the PTX front end's tests (ptx_front_test.cpp,
// cli_ptx_test.cpp).
#pragma once

#include <string>

#include "tests/kernel_text.hpp"

namespace pc::testing {

// A producer warp's lanes each write their word of `tile` and arrive on
// `bar` (count 32); the consumer warp waits for phase 0 and reads the words.
// WAIT is the consumer's wait; PRODUCE the producer's store and arrive.
inline const std::string handoff = R"(
.version 8.0
.target sm_90a
.address_size 64

.shared .align 8 .b64 bar;
.shared .align 16 .b8 tile[128];

.visible .entry handoff(
	.param .u64 handoff_param_0
)
.reqntid 64, 1, 1
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<10>;
	.reg .f32 	%f<2>;
	.reg .b64 	%rd<6>;
	mov.u32 	%r1, %tid.x;
	mov.u32 	%r2, bar;
	setp.ne.u32 	%p1, %r1, 0;
	@%p1 bra 	SKIP_INIT;
	mbarrier.init.shared::cta.b64 	[%r2], 32;
	fence.mbarrier_init.release.cluster;
SKIP_INIT:
	bar.sync 	0;
	and.b32 	%r4, %r1, 31;
	shl.b32 	%r5, %r4, 2;
	mov.u32 	%r6, tile;
	add.u32 	%r7, %r6, %r5;
	shr.u32 	%r3, %r1, 5;
	setp.ne.u32 	%p2, %r3, 0;
	@%p2 bra 	CONSUMER;
PRODUCE
	bra.uni 	DONE;
CONSUMER:
WAIT
	ld.shared.f32 	%f1, [%r7];
DONE:
	ret;
}
)";

inline const std::string produce =
    "\tst.shared.f32 \t[%r7], 0f3F800000;\n"
    "\tmbarrier.arrive.release.cta.shared::cta.b64 \t_, [%r2];\n";
inline const std::string wait =
    "LOOP:\n"
    "\tmbarrier.try_wait.parity.acquire.cta.shared::cta.b64 \t%p3, [%r2], 0;\n"
    "\t@!%p3 bra \tLOOP;\n";

inline std::string handoff_ptx(const std::string& p, const std::string& w) {
  return with(with(handoff, "PRODUCE\n", p), "WAIT\n", w);
}


}  // namespace pc::testing
