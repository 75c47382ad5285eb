// The PTX front end (docs/ptx.md) on PTX written here: each warp an agent,
// SIMT divergence and reconvergence, polling loops as blocking waits, bytes
// as buffers, and located errors for what it does not read. The project's
// own CUDA kernels, compiled by nvcc, are checked in ptx_kernels_test.cpp.
#include <doctest/doctest.h>

#include <string>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/ptx/emit_bk.hpp"
#include "checker/ptx/front.hpp"
#include "tests/kernel_text.hpp"
#include "tests/ptx_checks.hpp"
#include "tests/ptx_text.hpp"

using namespace pc;

namespace {

using testing::handoff_ptx;
using testing::produce;
using testing::wait;

std::string kernel(const std::string& p, const std::string& w) { return handoff_ptx(p, w); }

using namespace testing::ptx_checks;

}  // namespace

TEST_CASE("ptx: a warp's stores and arrivals, another warp's polling wait and loads") {
  CHECK(outcome(kernel(produce, wait)) == "verified");
  // No wait: the loads race with the stores.
  CHECK(outcome(kernel(produce, "")) == "data_race");
  // Waiting for parity 1 of a fresh barrier passes at once: the same race.
  CHECK(outcome(kernel(produce, testing::with(wait, "[%r2], 0;", "[%r2], 1;"))) == "data_race");
  // Only lane 0 arrives, with a count of 1: the phase never completes.
  const std::string lane0 =
      "\tst.shared.f32 \t[%r7], 0f3F800000;\n"
      "\tsetp.eq.u32 \t%p3, %r4, 0;\n"
      "\t@%p3 mbarrier.arrive.release.cta.shared::cta.b64 \t_, [%r2];\n";
  CHECK(outcome(kernel(lane0, wait)) == "deadlock");
  // Lane 0 arrives for the warp (count 32) without __syncwarp: the other
  // lanes' stores are not ordered before its release.
  const std::string lane0_all = testing::with(lane0, "[%r2];", "[%r2], 32;");
  CHECK(outcome(kernel(lane0_all, wait)) == "data_race");
  // With bar.warp.sync before it: verified.
  CHECK(outcome(kernel(testing::with(lane0_all, "\tsetp.eq", "\tbar.warp.sync \t-1;\n\tsetp.eq"), wait)) == "verified");
}

TEST_CASE("ptx: the agents, buffers and barriers the front end builds") {
  const ptx::Loaded k = load(kernel(produce, wait));
  REQUIRE(k.ok());
  REQUIRE(k.kernel.roles.size() == 2);
  CHECK(k.kernel.roles[0].name == "warp0");
  CHECK(k.kernel.roles[1].name == "warp1");
  REQUIRE(k.kernel.mbarriers.size() == 1);
  CHECK(k.kernel.mbarriers[0].name == "bar");
  // The tile's 128 bytes: one buffer, written by warp 0 and read by warp 1.
  REQUIRE(k.kernel.buffers.size() == 1);
  CHECK(k.kernel.buffers[0].name == "tile[0,128)");
  CHECK(k.kernel.buffers[0].bytes == 128);
  CHECK(k.kernel.cta_threads == 64);
  // The polling loop is one blocking wait; warp 0's init is by lane 0.
  const auto& body1 = k.kernel.roles[1].body;
  int waits = 0;
  for (const ir::Stmt& s : body1) waits += s.op.code == ir::OpCode::mbar_wait;
  CHECK(waits == 1);
  CHECK(k.kernel.roles[0].body.at(0).op.code == ir::OpCode::mbar_init);
  CHECK(k.kernel.roles[0].body.at(0).op.lanes == ir::Lanes::one);
}

TEST_CASE("ptx: overlapping byte ranges alias each other") {
  // The consumer reads only the first 64 bytes, with 16 lanes: a range
  // inside the producer's 128, so the two buffers alias.
  const std::string half = "\tsetp.lt.u32 \t%p1, %r4, 16;\n" + wait + "\t@%p1 ld.shared.f32 \t%f1, [%r7];\n";
  const std::string text = testing::with(kernel(produce, half), "\tld.shared.f32 \t%f1, [%r7];\nDONE:", "DONE:");
  const ptx::Loaded k = load(text);
  REQUIRE(k.ok());
  REQUIRE(k.kernel.buffers.size() == 2);
  CHECK(k.kernel.buffers[1].alias.of == 0);
  CHECK(outcome(text) == "verified");
  CHECK(outcome(testing::with(text, "LOOP:\n\tmbarrier.try_wait.parity.acquire.cta.shared::cta.b64 \t%p3, [%r2], 0;\n\t@!%p3 bra \tLOOP;\n", "")) ==
        "data_race");
}

TEST_CASE("ptx: barrier memory reused as data: the mbarrier lies over the data") {
  // After its wait and load, the consumer's lane 0 invalidates the barrier
  // and stores into its bytes, as Triton's attention loads K into the bytes
  // of the barrier it loaded Q with: the mbarrier is declared over the
  // bytes the data names.
  const std::string reuse = "\tsetp.ne.u32 \t%p1, %r4, 0;\n\t@%p1 bra \tDONE;\n\tmbarrier.inval.shared::cta.b64 \t[%r2];\n"
                            "\tst.shared.u32 \t[%r2], 7;\nDONE:\n";
  const std::string ok = testing::with(kernel(produce, wait), "DONE:\n", reuse);
  const ptx::Loaded k = load(ok);
  REQUIRE(k.ok());
  REQUIRE(k.kernel.mbarriers.size() == 1);
  CHECK(k.kernel.mbarriers[0].alias.of >= 0);
  CHECK(outcome(ok) == "verified");
  // Without the inval the store writes a live barrier's bytes.
  CHECK(outcome(testing::with(ok, "\tmbarrier.inval.shared::cta.b64 \t[%r2];\n", "")) == "barrier_memory_reuse");
}

TEST_CASE("ptx: global memory through a pointer parameter; overlapping ranges are one buffer") {
  // Each producer lane also stores its word at param_0 + 4 * lane; the
  // consumer warp reads 16 bytes at param_0 with one lane: a range that
  // overlaps four of them, so the global ranges [0,128) and [0,16) become
  // one buffer (global memory is not laid out in the model).
  const std::string addr = "\tld.param.u64 \t%rd1, [handoff_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n"
                           "\tmul.wide.u32 \t%rd3, %r4, 4;\n\tadd.s64 \t%rd4, %rd2, %rd3;\n";
  const std::string store = addr + "\tst.global.f32 \t[%rd4], 0f3F800000;\n" + produce;
  const std::string read = wait + addr + "\tsetp.eq.u32 \t%p1, %r4, 0;\n\t@%p1 ld.global.v4.f32 \t{%f1, %f1, %f1, %f1}, [%rd2];\n";
  const ptx::Loaded k = load(kernel(store, read));
  REQUIRE(k.ok());
  int global = 0;
  for (const ir::BufferDecl& b : k.kernel.buffers)
    if (b.space == ir::Space::global) {
      ++global;
      CHECK(b.name == "param_0[0,128)");
      CHECK(b.alias.of < 0);
    }
  CHECK(global == 1);
  CHECK(outcome(kernel(store, read)) == "verified");
  // Without the wait the global read races with the stores.
  CHECK(outcome(kernel(store, addr + "\tsetp.eq.u32 \t%p1, %r4, 0;\n\t@%p1 ld.global.v4.f32 \t{%f1, %f1, %f1, %f1}, [%rd2];\n")) ==
        "data_race");
}

TEST_CASE("ptx: what the front end does not read is a located error") {
  // An instruction outside the subset.
  const ptx::Loaded a = load(testing::with(kernel(produce, wait), "\tret;", "\tbrkpt.foo \t%r1;\n\tret;"));
  REQUIRE(!a.ok());
  CHECK(first_error(a).find("brkpt.foo") != std::string::npos);
  CHECK(a.errors[0].loc.line > 0);
  // A try_wait whose failing path writes memory before trying again.
  const std::string busy = "LOOP:\n"
                           "\tmbarrier.try_wait.parity.acquire.cta.shared::cta.b64 \t%p3, [%r2], 0;\n"
                           "\t@%p3 bra \tOUT;\n"
                           "\tst.shared.f32 \t[%r7], 0f00000000;\n"
                           "\tbra.uni \tLOOP;\n"
                           "OUT:\n";
  const ptx::Loaded b = load(kernel(produce, busy));
  REQUIRE(!b.ok());
  CHECK(first_error(b).find("not in a polling loop") != std::string::npos);
  CHECK(first_error(b).find("st.shared.f32") != std::string::npos);
  // An exit guarded by a loaded value.
  const std::string loaded = "\tld.shared.u32 \t%r8, [%r7];\n\tsetp.eq.u32 \t%p3, %r8, 0;\n\t@%p3 ret;\n";
  const ptx::Loaded c = load(kernel(produce, wait + loaded));
  REQUIRE(!c.ok());
  CHECK(first_error(c).find("does not know") != std::string::npos);
  // Syntax: an unknown register, located.
  const ptx::Loaded d = load(testing::with(kernel(produce, wait), "\tret;", "\tmov.u32 \t%q1, 0;\n\tret;"));
  REQUIRE(!d.ok());
  CHECK(first_error(d).find("unknown register '%q1'") != std::string::npos);
  CHECK(d.errors[0].loc.line > 0);
  CHECK(d.errors[0].loc.col > 0);
  // No block size: the kernel has none and none was given.
  const ptx::Loaded e = load(testing::with(kernel(produce, wait), ".reqntid 64, 1, 1\n", ""));
  CHECK(first_error(e).find("--block") != std::string::npos);
  ptx::Launch l;
  l.block[0] = 64;
  CHECK(load(testing::with(kernel(produce, wait), ".reqntid 64, 1, 1\n", ""), l).ok());
  // cp.async-groups committed by every lane: the model follows one thread's groups.
  const std::string copies = "\tld.param.u64 \t%rd1, [handoff_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n"
                             "\tcp.async.ca.shared.global \t[%r7], [%rd2], 4;\n\tcp.async.commit_group;\n\tcp.async.wait_group \t0;\n";
  CHECK(first_error(load(kernel(copies + produce, wait))).find("cp.async-groups") != std::string::npos);
  // A bar.warp.sync whose member mask is not its executing lanes: not read
  // yet, and said so (lanes 0-15 execute it with the full mask).
  const std::string some = "\tsetp.lt.u32 \t%p3, %r4, 16;\n\t@%p3 bar.warp.sync \t-1;\n";
  CHECK(first_error(load(kernel(some, wait))).find("member mask is not the executing lanes") != std::string::npos);
}

TEST_CASE("ptx: some lanes of a warp arriving together are its `lanes M:` lanes") {
  // Lanes 0-15 arrive (until the lane classes: "not read yet"); 16 arrivals
  // leave 16 of the barrier's 32 pending.
  const std::string some = "\tst.shared.f32 \t[%r7], 0f3F800000;\n\tbar.warp.sync \t-1;\n\tsetp.lt.u32 \t%p3, %r4, 16;\n"
                           "\t@%p3 mbarrier.arrive.release.cta.shared::cta.b64 \t_, [%r2];\n";
  const ptx::Loaded k = load(kernel(some, wait));
  const std::string err = first_error(k);
  CAPTURE(err);
  REQUIRE(k.ok());
  CHECK(ptx::emit_bk(k.kernel, "test.ptx").find("lanes 0xffff: arrive bar") != std::string::npos);
  CHECK(outcome(kernel(some, wait)) == "deadlock");
  // Both halves, each on its side of a lane test: 16 + 16 arrivals.
  const std::string halves = "\tst.shared.f32 \t[%r7], 0f3F800000;\n\tbar.warp.sync \t-1;\n\tsetp.lt.u32 \t%p3, %r4, 16;\n"
                             "\t@%p3 bra \tLOW;\n\tmbarrier.arrive.release.cta.shared::cta.b64 \t_, [%r2];\n\tbra.uni \tJOIN;\n"
                             "LOW:\n\tmbarrier.arrive.release.cta.shared::cta.b64 \t_, [%r2];\nJOIN:\n";
  CHECK(outcome(kernel(halves, wait)) == "verified");
}

TEST_CASE("ptx: --arg gives an integer parameter, and a trip count follows it") {
  // A loop over `n` (param 1) of arrivals and waits on a barrier of count
  // 32: warp 0 arrives n times, warp 1 waits for n phases.
  const std::string loop = R"(
.version 8.0
.target sm_90a
.address_size 64
.shared .align 8 .b64 bar;
.visible .entry loop(.param .u64 loop_param_0, .param .u32 loop_param_1)
.reqntid 64, 1, 1
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<12>;
	ld.param.u32 	%r9, [loop_param_1];
	mov.u32 	%r1, %tid.x;
	mov.u32 	%r2, bar;
	setp.ne.u32 	%p1, %r1, 0;
	@%p1 bra 	SKIP;
	mbarrier.init.shared::cta.b64 	[%r2], 32;
	fence.mbarrier_init.release.cluster;
SKIP:
	bar.sync 	0;
	shr.u32 	%r3, %r1, 5;
	mov.u32 	%r10, 0;
	setp.ne.u32 	%p2, %r3, 0;
	@%p2 bra 	CONSUMER;
PROD:
	setp.ge.s32 	%p3, %r10, %r9;
	@%p3 bra 	DONE;
	mbarrier.arrive.release.cta.shared::cta.b64 	_, [%r2];
	add.s32 	%r10, %r10, 1;
	bra.uni 	PROD;
CONSUMER:
	setp.ge.s32 	%p3, %r10, %r9;
	@%p3 bra 	DONE;
	and.b32 	%r11, %r10, 1;
WAIT:
	mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 	%p1, [%r2], %r11;
	@!%p1 bra 	WAIT;
	add.s32 	%r10, %r10, 1;
	bra.uni 	CONSUMER;
DONE:
	ret;
}
)";
  ptx::Launch l;
  l.args = {{"param_1", 3}};
  const ptx::Loaded k = load(loop, l);
  REQUIRE(k.ok());
  int waits = 0;
  for (const ir::Stmt& s : k.kernel.roles[1].body) waits += s.op.code == ir::OpCode::mbar_wait;
  CHECK(waits == 3);
  // Warp 0 never waits, so at 3 trips it completes phases 0, 1 and 2 before
  // warp 1's first wait, which then waits for parity 0 of phase 3: the
  // trip count decides the verdict.
  CHECK(outcome(loop, l) == "deadlock");
  l.args = {{"1", 1}};  // by index
  CHECK(outcome(loop, l) == "verified");
  // Without the value the branch on it is not known.
  CHECK(first_error(load(loop)).find("--arg") != std::string::npos);
}

TEST_CASE("ptx: a wait on a state token, with a spin counter and a timer backoff") {
  // The consumer warp arrives too (count 64) and waits on its own arrive's
  // token, as libcu++'s cuda::barrier does: a spin counter for the first 16
  // tries, then a timer (unknown to the front end) choosing a backoff.
  const std::string token_wait =
      "\tmbarrier.arrive.shared::cta.b64 \t%rd1, [%r2];\n"
      "\tmov.u32 \t%r8, 0;\n"
      "\tmov.u64 \t%rd2, %globaltimer;\n"
      "\tbra.uni \tTRY;\n"
      "AGAIN:\n"
      "\tadd.s32 \t%r8, %r8, 1;\n"
      "TRY:\n"
      "\tmbarrier.try_wait.shared.b64 \t%p3, [%r2], %rd1;\n"
      "\t@%p3 bra \tWAITED;\n"
      "\tsetp.lt.s32 \t%p1, %r8, 16;\n"
      "\t@%p1 bra \tAGAIN;\n"
      "\tmov.u64 \t%rd3, %globaltimer;\n"
      "\tsub.s64 \t%rd4, %rd3, %rd2;\n"
      "\tsetp.lt.s64 \t%p2, %rd4, 4000;\n"
      "\t@%p2 bra \tTRY;\n"
      "\tnanosleep.u32 \t1000;\n"
      "\tbra.uni \tTRY;\n"
      "WAITED:\n";
  const std::string text = testing::with(kernel(produce, token_wait), "[%r2], 32;", "[%r2], 64;");
  const ptx::Loaded k = load(text);
  REQUIRE(k.ok());
  const auto& body = k.kernel.roles[1].body;
  int waits = 0;
  for (const ir::Stmt& s : body)
    if (s.op.code == ir::OpCode::mbar_wait) {
      ++waits;
      CHECK(s.op.token_var >= 0);
    }
  CHECK(waits == 1);
  CHECK(outcome(text) == "verified");
  // The producer's arrive missing: the phase never completes.
  CHECK(outcome(testing::with(text, "\tmbarrier.arrive.release.cta.shared::cta.b64 \t_, [%r2];\n", "")) == "deadlock");
  // Reading the spin counter after the loop: it may end with any count.
  const ptx::Loaded c = load(testing::with(text, "WAITED:\n", "WAITED:\n\tadd.s32 \t%r9, %r8, 1;\n"));
  REQUIRE(!c.ok());
  CHECK(first_error(c).find("spin counter") != std::string::npos);
  // A token from another barrier's arrive is refused.
  const ptx::Loaded d = load(testing::with(text, "%p3, [%r2], %rd1;", "%p3, [%r6], %rd1;"));
  REQUIRE(!d.ok());
}

TEST_CASE("ptx: a tensor TMA load, its box from --box") {
  // Lane 0 of warp 0 arms `bar` for 128 bytes and loads a box of the tensor
  // map parameter 0 (a __grid_constant__ CUtensorMap: its address) into
  // `tile`; warp 1 waits and reads.
  const std::string tma = R"(
.version 8.0
.target sm_90a
.address_size 64
.shared .align 8 .b64 bar;
.shared .align 128 .b8 tile[128];
.visible .entry tma(.param .align 64 .b8 tma_param_0[128])
.reqntid 64, 1, 1
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<12>;
	.reg .b64 	%rd<4>;
	.reg .f32 	%f<2>;
	mov.u32 	%r1, %tid.x;
	mov.u32 	%r2, bar;
	mov.u32 	%r6, tile;
	setp.ne.u32 	%p1, %r1, 0;
	@%p1 bra 	SKIP;
	mbarrier.init.shared::cta.b64 	[%r2], 1;
	fence.mbarrier_init.release.cluster;
SKIP:
	bar.sync 	0;
	shr.u32 	%r3, %r1, 5;
	setp.ne.u32 	%p2, %r3, 0;
	@%p2 bra 	CONSUMER;
	@%p1 bra 	DONE;
	mov.u64 	%rd1, tma_param_0;
	mov.u32 	%r4, 0;
	mbarrier.arrive.expect_tx.shared::cta.b64 	_, [%r2], BYTES;
	cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes 	[%r6], [%rd1, {%r4, %r4}], [%r2];
	bra.uni 	DONE;
CONSUMER:
	mbarrier.try_wait.parity.shared::cta.b64 	%p3, [%r2], 0;
	@!%p3 bra 	CONSUMER;
	and.b32 	%r5, %r1, 31;
	shl.b32 	%r7, %r5, 2;
	add.u32 	%r8, %r6, %r7;
	ld.shared.f32 	%f1, [%r8];
DONE:
	ret;
}
)";
  const std::string ok = testing::with(tma, "BYTES", "128");
  ptx::Launch l;
  l.boxes = {{"0", 128}};
  CHECK(outcome(ok, l) == "verified");
  // Arming 64 bytes for a 128-byte box: the tx-count ends at -64, so the
  // phase never completes.
  CHECK(outcome(testing::with(tma, "BYTES", "64"), l) == "deadlock");
  // The box named by the parameter's PTX name.
  l.boxes = {{"tma_param_0", 128}};
  const ptx::Loaded k = load(ok, l);
  REQUIRE(k.ok());
  bool tma_load = false;
  for (const ir::Stmt& s : k.kernel.roles[0].body) tma_load |= s.op.code == ir::OpCode::tma_load;
  CHECK(tma_load);
  // No --box: the error names it.
  CHECK(first_error(load(ok)).find("--box 0=") != std::string::npos);
}

TEST_CASE("ptx: a warp group's wgmma: the four warps one role split per warp, the operand from its descriptor") {
  // Warp 4 stores a tile (with or without fence.proxy.async) and arrives;
  // warps 0-3, a warp group, wait, fence (or not), and run one wgmma whose
  // descriptors start at the tile (bits 13-0: the address >> 4), then read
  // the accumulator.
  const std::string wg = R"(.version 8.0
.target sm_90a
.address_size 64
.shared .align 8 .b64 bar;
.shared .align 128 .b8 tile[128];
.visible .entry wg(.param .u64 wg_param_0)
.reqntid 160, 1, 1
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<12>;
	.reg .b64 	%rd<6>;
	.reg .f32 	%f<4>;
	mov.u32 	%r1, %tid.x;
	mov.u32 	%r2, bar;
	mov.u32 	%r6, tile;
	setp.ne.u32 	%p1, %r1, 0;
	@%p1 bra 	SKIP;
	mbarrier.init.shared::cta.b64 	[%r2], 32;
	fence.mbarrier_init.release.cluster;
SKIP:
	bar.sync 	0;
	shr.u32 	%r3, %r1, 5;
	and.b32 	%r5, %r1, 31;
	setp.ne.u32 	%p2, %r3, 4;
	@%p2 bra 	CONSUMER;
	shl.b32 	%r7, %r5, 2;
	add.u32 	%r8, %r6, %r7;
	st.shared.f32 	[%r8], 0f3F800000;
PROXYFENCE
	mbarrier.arrive.shared::cta.b64 	_, [%r2];
	bra.uni 	DONE;
CONSUMER:
	mbarrier.try_wait.parity.shared::cta.b64 	%p3, [%r2], 0;
	@!%p3 bra 	CONSUMER;
	shr.u32 	%r9, %r6, 4;
	cvt.u64.u32 	%rd5, %r9;
	mov.f32 	%f1, 0f00000000;
WGFENCE
	wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 	{%f1, %f2}, %rd5, %rd5, 1, 1, 1, 0, 0;
	wgmma.commit_group.sync.aligned;
	wgmma.wait_group.sync.aligned 	0;
	add.f32 	%f3, %f1, %f2;
DONE:
	ret;
}
)";
  auto variant = [&](const char* proxy, const char* fence) {
    return testing::with(testing::with(wg, "PROXYFENCE\n", proxy), "WGFENCE\n", fence);
  };
  const std::string ok = variant("\tfence.proxy.async.shared::cta;\n", "\twgmma.fence.sync.aligned;\n");
  const ptx::Loaded k = load(ok);
  REQUIRE(k.ok());
  REQUIRE(k.kernel.roles.size() == 2);
  CHECK(k.kernel.roles[0].name == "wg0");
  CHECK(k.kernel.roles[0].per_warp);
  int wgmma = 0, regs = 0;
  for (const ir::Stmt& s : k.kernel.roles[0].body) {
    if (s.op.code == ir::OpCode::wgmma) {
      ++wgmma;
      REQUIRE(!s.op.bufs.empty());
      CHECK(k.kernel.buffers[static_cast<std::size_t>(s.op.bufs[0].object)].name == "tile[0,128)");
    }
    regs += s.op.code == ir::OpCode::wgmma_regs;
  }
  CHECK(wgmma == 1);  // once, shared by the four warps (not under `if warp == k`)
  CHECK(regs == 1);   // the accumulator read after the wait
  CHECK(outcome(ok) == "verified");
  CHECK(outcome(variant("", "\twgmma.fence.sync.aligned;\n")) == "proxy_race");
  CHECK(outcome(variant("\tfence.proxy.async.shared::cta;\n", "")) == "async_group_misuse");
  // --emit-bk reads back into the same search.
  const dsl::Parsed back = dsl::parse(ptx::emit_bk(k.kernel, "wg.ptx"), "wg.bk");
  REQUIRE(back.ok());
  CHECK(check::check(back.kernel, {}).states == check::check(k.kernel, {}).states);
  // Warps 5 and 6 run wgmma too, their warp group (4-7) not whole: refused.
  CHECK(first_error(load(testing::with(ok, ".reqntid 160, 1, 1", ".reqntid 224, 1, 1"))).find("is not whole") != std::string::npos);
  // After the wgmma, an arrive guarded by a loaded value: a choice of each
  // warp of the group (its segment is each warp's own), read back as well.
  const std::string guarded = testing::with(ok, "\tadd.f32 \t%f3, %f1, %f2;\n",
                                            "\tadd.f32 \t%f3, %f1, %f2;\n\tld.shared.u32 \t%r10, [%r6];\n\tsetp.eq.u32 \t%p3, %r10, 0;\n"
                                            "\t@%p3 mbarrier.arrive.shared::cta.b64 \t_, [%r2];\n");
  const ptx::Loaded c = load(guarded);
  CAPTURE(first_error(c));
  REQUIRE(c.ok());
  const std::string cbk = ptx::emit_bk(c.kernel, "wg.ptx");
  CAPTURE(cbk);
  CHECK(cbk.find("either:") != std::string::npos);
  CHECK(outcome(guarded) == "verified");
  const dsl::Parsed cback = dsl::parse(cbk, "wg.bk");
  REQUIRE(cback.ok());
  CHECK(check::check(cback.kernel, {}).states == check::check(c.kernel, {}).states);
}

TEST_CASE("ptx: a struct parameter's fields: --arg NAME+OFFSET, vector loads, and the error that asks for one") {
  // The trip count is the second u32 of a struct passed by value, read with
  // ld.param.v2 through the parameter's address.
  const std::string loop = R"(
.version 8.0
.target sm_90a
.address_size 64
.shared .align 8 .b64 bar;
.visible .entry st(.param .align 8 .b8 st_param_0[16])
.reqntid 32, 1, 1
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<12>;
	.reg .b64 	%rd<4>;
	mov.u64 	%rd1, st_param_0;
	ld.param.v2.u32 	{%r8, %r9}, [%rd1+0];
	mov.u32 	%r2, bar;
	mov.u32 	%r1, %tid.x;
	setp.eq.u32 	%p2, %r1, 0;
	@%p2 mbarrier.init.shared::cta.b64 	[%r2], 32;
	bar.warp.sync 	-1;
	mov.u32 	%r10, 0;
LOOP:
	setp.ge.s32 	%p3, %r10, %r9;
	@%p3 bra 	DONE;
	mbarrier.arrive.shared::cta.b64 	_, [%r2];
	and.b32 	%r11, %r10, 1;
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 	%p1, [%r2], %r11;
	@!%p1 bra 	WAIT;
	add.s32 	%r10, %r10, 1;
	bra.uni 	LOOP;
DONE:
	ret;
}
)";
  const std::string err = first_error(load(loop));
  CHECK(err.find("depends on parameter param_0 at byte 4") != std::string::npos);
  CHECK(err.find("--arg 0+4=VALUE") != std::string::npos);
  ptx::Launch l;
  l.args = {{"0+4", 3}};
  const ptx::Loaded k = load(loop, l);
  REQUIRE(k.ok());
  int waits = 0;
  for (const ir::Stmt& s : k.kernel.roles[0].body) waits += s.op.code == ir::OpCode::mbar_wait;
  CHECK(waits == 3);
  CHECK(outcome(loop, l) == "verified");
}

TEST_CASE("ptx: lanes 1-31 of a warp are its `rest:` lanes") {
  // Lane 0 stores and arrives on one side of a lane test, lanes 1-31 on the
  // other (two arrive instructions, as a compiler may give each side its
  // own tail): 1 + 31 arrivals complete the phase of count 32.
  const std::string apart =
      "\tst.shared.f32 \t[%r7], 0f3F800000;\n"
      "\tsetp.ne.u32 \t%p3, %r4, 0;\n"
      "\t@%p3 bra \tREST;\n"
      "\tmbarrier.arrive.release.cta.shared::cta.b64 \t_, [%r2];\n"
      "\tbra.uni \tJOIN;\n"
      "REST:\n"
      "\tmbarrier.arrive.release.cta.shared::cta.b64 \t_, [%r2];\n"
      "JOIN:\n";
  CHECK(outcome(kernel(apart, wait)) == "verified");
  const ptx::Loaded k = load(kernel(apart, wait));
  REQUIRE(k.ok());
  const std::string bk = ptx::emit_bk(k.kernel, "test.ptx");
  CHECK(bk.find("rest: arrive bar") != std::string::npos);
  CHECK(bk.find("one: arrive bar") != std::string::npos);
  // Only lanes 1-31 arrive: one arrival stays pending.
  const std::string rest_only = testing::with(apart, "\tmbarrier.arrive.release.cta.shared::cta.b64 \t_, [%r2];\n\tbra.uni", "\tbra.uni");
  CHECK(outcome(kernel(rest_only, wait)) == "deadlock");
}

TEST_CASE("ptx: a label belongs to its block, as inline asm's LAB_WAIT does") {
  // Two inline-asm polling loops that each name LAB_WAIT and DONE in their
  // own { } block (CUTLASS's ClusterBarrier::wait): each branch goes to its
  // own block's label.
  const std::string loop =
      "\t{\n\t.reg .pred P1;\n\tLAB_WAIT:\n"
      "\tmbarrier.try_wait.parity.acquire.cta.shared::cta.b64 P1, [%r2], 0;\n"
      "\t@P1 bra DONE;\n\tbra LAB_WAIT;\n\tDONE:\n\t}\n";
  CHECK(outcome(kernel(produce, loop + loop)) == "verified");
  // A branch to a label only another block has is an unknown label.
  const std::string stray = "\t{\n\tINNER:\n\t}\n\tbra.uni \tINNER;\n";
  CHECK(first_error(load(kernel(produce, wait + stray))).find("unknown label 'INNER'") != std::string::npos);
}

TEST_CASE("ptx: a try_wait whose failure goes on to a polling loop of the same phase is one wait") {
  // CUTLASS's consumer_try_wait, then consumer_wait's loop where it failed:
  // the failing path reaches another wait of the same mbarrier and parity,
  // a polling loop of its own, after which the warp goes on as after the
  // first one's success.
  const std::string tried =
      "\tmbarrier.try_wait.parity.acquire.cta.shared::cta.b64 \t%p3, [%r2], 0;\n"
      "\tselp.b32 \t%r9, 1, 0, %p3;\n"
      "\tsetp.ne.s32 \t%p0, %r9, 0;\n"
      "\t@%p0 bra \tTRIED;\n"
      "\t{\n\t.reg .pred P1;\n\tLAB_WAIT:\n"
      "\tmbarrier.try_wait.parity.acquire.cta.shared::cta.b64 P1, [%r2], 0;\n"
      "\t@P1 bra DONE;\n\tbra LAB_WAIT;\n\tDONE:\n\t}\n"
      "TRIED:\n";
  CHECK(outcome(kernel(produce, tried)) == "verified");
  const ptx::Loaded k = load(kernel(produce, tried));
  REQUIRE(k.ok());
  CHECK(ptx::emit_bk(k.kernel, "test.ptx").find("wait bar parity 0") != std::string::npos);
  // The second wait is for another phase: no polling loop.
  const ptx::Loaded other = load(kernel(produce, testing::with(tried, "P1, [%r2], 0;", "P1, [%r2], 1;")));
  CHECK(first_error(other).find("not in a polling loop") != std::string::npos);
  // The failing path stores before it waits again.
  const ptx::Loaded busy = load(kernel(produce, testing::with(tried, "\t{\n", "\tst.shared.f32 \t[%r7], 0f00000000;\n\t{\n")));
  CHECK(first_error(busy).find("not in a polling loop") != std::string::npos);
  // After the second wait the warp does more than after the first's success
  // (a store only the failing side makes).
  const ptx::Loaded elsewhere =
      load(kernel(produce, testing::with(tried, "\t}\nTRIED:\n", "\t}\n\tst.shared.f32 \t[%r7], 0f00000000;\nTRIED:\n")));
  CHECK(first_error(elsewhere).find("does not go on as after") != std::string::npos);
}

TEST_CASE("ptx: mov packs and unpacks vectors of integers exactly") {
  // The barrier's address split into the halves of a 64-bit value and put
  // back together (as CUTLASS builds a wgmma descriptor).
  const std::string split =
      "\tcvt.u64.u32 \t%rd3, %r2;\n"
      "\tor.b64 \t%rd3, %rd3, 4294967296;\n"
      "\tmov.b64 \t{%r8, %r9}, %rd3;\n"
      "\tmov.b64 \t%rd4, {%r8, %r9};\n"
      "\tcvt.u32.u64 \t%r8, %rd4;\n"
      "\tst.shared.f32 \t[%r7], 0f3F800000;\n"
      "\tmbarrier.arrive.release.cta.shared::cta.b64 \t_, [%r8];\n";
  CHECK(outcome(kernel(split, wait)) == "verified");
  // The high half is 1: the producer arrives at shared address 1, not on
  // the consumer's barrier.
  CHECK(outcome(kernel(testing::with(split, "[%r8];", "[%r9];"), wait)) != "verified");
}

TEST_CASE("ptx: --grid gives %nctaid, and the grid's first cluster is checked") {
  // A persistent producer: tiles ctaid.x, ctaid.x + nctaid.x, ... below 2,
  // each a store and an arrive (count 32). Alone in its grid the CTA makes
  // both, and the second store races with the consumer's loads after the
  // first phase; in a grid of 2 it makes one.
  const std::string tiles =
      "\tmov.u32 \t%r9, %ctaid.x;\n"
      "TILE:\n"
      "\tsetp.ge.u32 \t%p0, %r9, 2;\n"
      "\t@%p0 bra \tTILES_DONE;\n"
      "\tst.shared.f32 \t[%r7], 0f3F800000;\n"
      "\tmbarrier.arrive.release.cta.shared::cta.b64 \t_, [%r2];\n"
      "\tmov.u32 \t%r8, %nctaid.x;\n"
      "\tadd.u32 \t%r9, %r9, %r8;\n"
      "\tbra.uni \tTILE;\n"
      "TILES_DONE:\n";
  CHECK(outcome(kernel(tiles, wait)) == "data_race");
  ptx::Launch two;
  two.grid[0] = 2;
  CHECK(outcome(kernel(tiles, wait), two) == "verified");
  const ptx::Loaded k = load(kernel(tiles, wait), two);
  REQUIRE(k.ok());
  bool said = false;
  for (const std::string& n : k.notes) said = said || n.find("grid 2x1x1") != std::string::npos;
  CHECK(said);
  // A grid that is no whole number of clusters.
  ptx::Launch odd;
  odd.cluster = 2;
  odd.grid[0] = 3;
  CHECK(first_error(load(kernel(tiles, wait), odd)).find("no whole number of clusters") != std::string::npos);
}

TEST_CASE("ptx: a 64-bit parameter not given, used as an integer, asks for its --arg") {
  // Read as a pointer of its own; multiplied (a divisor's magic number) and
  // compared, it decides a branch: the error names the --arg, through the
  // multiply, the conversion and the select.
  const std::string uses =
      "\tld.param.u64 \t%rd1, [handoff_param_0];\n"
      "\tmul.hi.u64 \t%rd2, %rd1, 3;\n"
      "\tcvt.u32.u64 \t%r8, %rd2;\n"
      "\tsetp.eq.u32 \t%p3, %r8, 0;\n"
      "\tselp.b32 \t%r9, 1, 2, %p3;\n"
      "\tsetp.eq.u32 \t%p0, %r9, 1;\n"
      "\t@%p0 bra \tDONE;\n";
  const ptx::Loaded k = load(kernel(uses + produce, wait));
  CHECK(first_error(k).find("give --arg 0=VALUE") != std::string::npos);
  ptx::Launch given;
  given.args.emplace_back("0", 0);
  CHECK(outcome(kernel(uses + produce, wait), given) == "deadlock");  // 0: the producer skips its arrive
  ptx::Launch other;
  other.args.emplace_back("0", static_cast<std::int64_t>(1ull << 63));  // 3 x 2^63: a high half of 1
  CHECK(outcome(kernel(uses + produce, wait), other) == "verified");
}

// The accesses of a kernel the front end built, as "LINE:read" and
// "LINE:write" in program order per role, each with its buffers' count.
std::string accesses(const ptx::Loaded& l) {
  std::string out;
  for (const ir::Role& r : l.kernel.roles)
    for (const ir::Stmt& st : r.body)
      if (st.kind == ir::StmtKind::op && (st.op.code == ir::OpCode::read || st.op.code == ir::OpCode::write))
        out += r.name + ":" + std::to_string(st.op.loc.line) + ":" + (st.op.code == ir::OpCode::read ? "read" : "write") + "x" +
               std::to_string(st.op.bufs.size()) + " ";
  return out;
}

// A branch on a value loaded from memory: both ways read, their accesses
// taken together, with a note (checker/ptx/either.cpp).
TEST_CASE("ptx: a branch on a loaded value is read both ways") {
  const std::string flag = "\tld.param.u64 \t%rd1, [handoff_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n"
                           "\tld.global.u32 \t%r8, [%rd2];\n\tsetp.eq.u32 \t%p3, %r8, 0;\n";
  // After the wait, a branch past the load: verified, and said so.
  const std::string past = "\tld.shared.u32 \t%r8, [%r7];\n\tsetp.eq.u32 \t%p3, %r8, 0;\n\t@%p3 bra \tDONE;\n";
  const ptx::Loaded a = load(kernel(produce, wait + past));
  CAPTURE(first_error(a));
  REQUIRE(a.ok());
  CHECK(a.loaded_branches == 1);
  int noted = 0;
  for (const std::string& n : a.notes) noted += n.rfind("1 branch on a value loaded from memory read both ways", 0) == 0;
  CHECK(noted == 1);
  CHECK(outcome(kernel(produce, wait + past)) == "verified");
  // A store before the wait on either way of a branch on a global flag
  // races with the producer's store: found whichever way makes it.
  const std::string taken = flag + "\t@%p3 bra \tSKIPW;\n\tst.shared.f32 \t[%r7], 0f00000000;\nSKIPW:\n";
  CHECK(outcome(kernel(produce, taken + wait)) == "data_race");
  const std::string other = flag + "\t@!%p3 bra \tSKIPW;\n\tst.shared.f32 \t[%r7], 0f00000000;\nSKIPW:\n";
  CHECK(outcome(kernel(produce, other + wait)) == "data_race");
  // The store after the wait on one way: verified.
  CHECK(outcome(kernel(produce, wait + taken)) == "verified");
  // Nested: each way's accesses once, the taken way's first.
  const std::string nested = flag + "\t@%p3 bra \tOUTER;\n\tst.shared.f32 \t[%r7], 0f00000000;\n"
                             "\tld.global.u32 \t%r9, [%rd2+4];\n\tsetp.eq.u32 \t%p1, %r9, 0;\n\t@%p1 bra \tOUTER;\n"
                             "\tst.global.u32 \t[%rd2+8], 0;\nOUTER:\n\tst.global.u32 \t[%rd2+12], 0;\n";
  const ptx::Loaded n = load(kernel(produce, wait + nested));
  CAPTURE(first_error(n));
  REQUIRE(n.ok());
  const std::string at = accesses(n);
  CAPTURE(at);
  const auto line_of = [&](const std::string& text) {
    const std::string all = kernel(produce, wait + nested);
    int line = 1;
    for (std::size_t i = 0; i < all.find(text); ++i) line += all[i] == '\n';
    return std::to_string(line);
  };
  CHECK(at.find("warp1:" + line_of("\tld.global.u32 \t%r8") + ":readx1 warp1:" + line_of("\tst.shared.f32 \t[%r7], 0f0000") +
                ":writex1 warp1:" + line_of("\tld.global.u32 \t%r9") + ":readx1 warp1:" + line_of("\tst.global.u32 \t[%rd2+8]") +
                ":writex1 warp1:" + line_of("\tst.global.u32 \t[%rd2+12]") + ":writex1") != std::string::npos);
  CHECK(at.find("x0") == std::string::npos);
  CHECK(n.loaded_branches == 2);
  // A way that synchronizes: a choice of the warp (docs/dsl.md, "Choices"),
  // each way explored: the consumer's own arrivals complete the phase
  // before the producer's store on the way that arrives, a race; the other
  // way alone is verified (--assume, below).
  const std::string arrive = flag + "\t@%p3 bra \tSKIPA;\n\tmbarrier.arrive.release.cta.shared::cta.b64 \t_, [%r2];\nSKIPA:\n";
  const ptx::Loaded b = load(kernel(produce, arrive + wait));
  CAPTURE(first_error(b));
  REQUIRE(b.ok());
  CHECK(ptx::emit_bk(b.kernel, "test.ptx").find("either:") != std::string::npos);
  int chosen = 0;
  for (const std::string& x : b.notes)
    chosen += x.rfind("1 branch or guard on a value loaded from memory whose ways synchronize", 0) == 0 &&
              x.find("'@%p3 bra SKIPA'") != std::string::npos;
  CHECK(chosen == 1);
  CHECK(outcome(kernel(produce, arrive + wait)) == "data_race");
  // A loop whose exit depends on a loaded value: a located error.
  const std::string spin = "\tld.param.u64 \t%rd1, [handoff_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\nSPIN:\n"
                           "\tld.global.u32 \t%r8, [%rd2];\n\tsetp.eq.u32 \t%p3, %r8, 0;\n\t@%p3 bra \tSPIN;\n";
  const ptx::Loaded c = load(kernel(produce, spin + wait));
  REQUIRE(!c.ok());
  CHECK(first_error(c).find("a loop whose trips depend on such a value") != std::string::npos);
  // The hint names the way that stays in the loop: taken here.
  CHECK(first_error(c).find("=1,1,0 says which way it goes") != std::string::npos);
  // A loop left by the taken way: the hint stays with 0.
  const std::string out = "\tld.param.u64 \t%rd1, [handoff_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\nSPIN:\n"
                          "\tld.global.u32 \t%r8, [%rd2];\n\tsetp.eq.u32 \t%p3, %r8, 0;\n\t@%p3 bra \tOUT;\n\tbra.uni \tSPIN;\nOUT:\n";
  const ptx::Loaded c2 = load(kernel(produce, out + wait));
  REQUIRE(!c2.ok());
  CHECK(first_error(c2).find("=0,0,1 says which way it goes") != std::string::npos);
  // A register the ways leave with different values is not known after
  // them: an address computed from it is an error.
  const std::string offset = flag + "\tmov.u32 \t%r9, 0;\n\t@%p3 bra \tSKIPM;\n\tmov.u32 \t%r9, 4;\nSKIPM:\n\tadd.u32 \t%r7, %r7, %r9;\n";
  const ptx::Loaded d = load(kernel(produce, offset + wait));
  REQUIRE(!d.ok());
  CHECK(first_error(d).find("address") != std::string::npos);
  CHECK(first_error(d).find("does not know") != std::string::npos);
  // Where they leave it with the same value, it is known.
  const std::string same = flag + "\tmov.u32 \t%r9, 0;\n\t@%p3 bra \tSKIPM;\n\tmov.u32 \t%r9, 0;\nSKIPM:\n\tadd.u32 \t%r7, %r7, %r9;\n";
  CHECK(outcome(kernel(produce, same + wait)) == "verified");
}

// A failed assert aborts the kernel: reached for the launch, a located
// error that says so; on a way of a branch on a loaded value, that way is
// left out (the asserts are assumed to hold), with a note.
TEST_CASE("ptx: an assert of the kernel, failed for the launch or on a way of a loaded branch") {
  const std::string flag = "\tld.param.u64 \t%rd1, [handoff_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n"
                           "\tld.global.u32 \t%r8, [%rd2];\n\tsetp.eq.u32 \t%p3, %r8, 0;\n";
  const std::string fail = "\t{\n\t.param .b64 param0;\n\tst.param.b64 \t[param0+0], 0;\n\tcall.uni \n\t__assertfail, \n\t(\n\tparam0\n\t);\n\t}\n";
  auto with_extern = [](const std::string& k) {
    return testing::with(k, ".visible .entry", ".extern .func __assertfail\n(\n\t.param .b64 __assertfail_param_0\n)\n;\n.visible .entry");
  };
  const ptx::Loaded a = load(with_extern(kernel(produce, fail + wait)));
  REQUIRE(!a.ok());
  CHECK(first_error(a).find("an assert of the kernel fails for this launch") != std::string::npos);
  // On one way of a branch on a loaded flag: that way left out, the other read.
  const std::string guarded = flag + "\t@%p3 bra \tOKA;\n" + fail + "OKA:\n";
  const ptx::Loaded b = load(with_extern(kernel(produce, guarded + wait)));
  CAPTURE(first_error(b));
  REQUIRE(b.ok());
  int noted = 0;
  for (const std::string& n : b.notes) noted += n.rfind("1 assert of the kernel assumed to hold", 0) == 0;
  CHECK(noted == 1);
  CHECK(outcome(with_extern(kernel(produce, guarded + wait))) == "verified");
  // The way that holds goes on: a store on it before the wait still races.
  const std::string racy = flag + "\t@%p3 bra \tOKB;\n" + fail + "OKB:\n\tst.shared.f32 \t[%r7], 0f00000000;\n";
  CHECK(outcome(with_extern(kernel(produce, racy + wait))) == "data_race");
}

// An instruction other than a branch guarded by a loaded value: its
// accesses as if every such lane made them, a register it may write not
// known after it, a synchronization a located error.
TEST_CASE("ptx: an instruction guarded by a loaded value") {
  const std::string flag = "\tld.param.u64 \t%rd1, [handoff_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n"
                           "\tld.global.u32 \t%r8, [%rd2];\n\tsetp.eq.u32 \t%p3, %r8, 0;\n";
  const std::string store = flag + "\t@%p3 st.shared.f32 \t[%r7], 0f00000000;\n";
  CHECK(outcome(kernel(produce, store + wait)) == "data_race");
  CHECK(outcome(kernel(produce, wait + store)) == "verified");
  const ptx::Loaded a = load(kernel(produce, store + wait));
  CHECK(a.loaded_branches == 0);
  int noted = 0;
  for (const std::string& n : a.notes)
    noted += n.rfind("1 instruction guarded by a value loaded from memory", 0) == 0 && n.find("'@%p3 st.shared.f32'") != std::string::npos;
  CHECK(noted == 1);
  // A guarded arrive: a choice of the warp between arriving and not (the
  // arriving way completes the phase before the producer's store: a race).
  const std::string arrive = flag + "\t@%p3 mbarrier.arrive.release.cta.shared::cta.b64 \t_, [%r2];\n";
  const ptx::Loaded b = load(kernel(produce, arrive + wait));
  CAPTURE(first_error(b));
  REQUIRE(b.ok());
  const std::string bk = ptx::emit_bk(b.kernel, "test.ptx");
  CAPTURE(bk);
  CHECK(bk.find("either:") != std::string::npos);
  CHECK(outcome(kernel(produce, arrive + wait)) == "data_race");
  // Arriving after the wait on one way only: verified (both ways explored).
  CHECK(outcome(kernel(produce, wait + arrive)) == "verified");
  const std::string offset = flag + "\tmov.u32 \t%r9, 0;\n\t@%p3 mov.u32 \t%r9, 4;\n\tadd.u32 \t%r7, %r7, %r9;\n";
  const ptx::Loaded d = load(kernel(produce, offset + wait));
  REQUIRE(!d.ok());
  CHECK(first_error(d).find("does not know") != std::string::npos);
  const std::string same = flag + "\tmov.u32 \t%r9, 0;\n\t@%p3 mov.u32 \t%r9, 0;\n\tadd.u32 \t%r7, %r7, %r9;\n";
  CHECK(outcome(kernel(produce, same + wait)) == "verified");
}

// --assume LINE=WAYS: the user says which way a guard on a loaded value
// goes, each time a warp reaches it, so ways that synchronize and loops on
// loaded values are read as the user's runs go; a note says so.
TEST_CASE("ptx: --assume gives the way of a guard on a loaded value") {
  const std::string flag = "\tld.param.u64 \t%rd1, [handoff_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n"
                           "\tld.global.u32 \t%r8, [%rd2];\n\tsetp.eq.u32 \t%p3, %r8, 0;\n";
  const auto line_of = [](const std::string& all, const std::string& text) {
    REQUIRE(all.find(text) != std::string::npos);
    int line = 1;
    for (std::size_t i = 0; i < all.find(text); ++i) line += all[i] == '\n';
    return line;
  };
  auto assuming = [](int line, std::vector<bool> ways) {
    ptx::Launch l;
    l.assume[line] = std::move(ways);
    return l;
  };
  // The consumer warp arrives on the producer's barrier unless the flag
  // says not to: taken (no arrive), verified; not taken, its arrivals
  // complete the phase before the producer's store.
  const std::string arrive = flag + "\t@%p3 bra \tSKIPA;\n\tmbarrier.arrive.release.cta.shared::cta.b64 \t_, [%r2];\nSKIPA:\n";
  const std::string k = kernel(produce, arrive + wait);
  const int at = line_of(k, "\t@%p3 bra \tSKIPA");
  CHECK(outcome(k, assuming(at, {true})) == "verified");
  CHECK(outcome(k, assuming(at, {false})) == "data_race");
  const ptx::Loaded a = load(k, assuming(at, {true}));
  REQUIRE(a.ok());
  CHECK(a.loaded_branches == 0);
  int noted = 0;
  for (const std::string& n : a.notes)
    noted += n.rfind("1 guard on a value loaded from memory taken as --assume gives", 0) == 0 &&
             n.find("line " + std::to_string(at) + " '@%p3 bra SKIPA'") != std::string::npos;
  CHECK(noted == 1);
  // Without it, both ways (a choice): the race of the way that arrives.
  CHECK(outcome(k) == "data_race");
  // A guarded arrive: 1 runs it, 0 does not.
  const std::string guarded = flag + "\t@%p3 mbarrier.arrive.release.cta.shared::cta.b64 \t_, [%r2];\n";
  const std::string g = kernel(produce, guarded + wait);
  const int gat = line_of(g, "\t@%p3 mbarrier.arrive");
  CHECK(outcome(g, assuming(gat, {true})) == "data_race");
  CHECK(outcome(g, assuming(gat, {false})) == "verified");
  // A loop on a loaded value: back twice, then out (three loads), and the
  // store in its body before the wait races each time.
  const std::string spin = "\tld.param.u64 \t%rd1, [handoff_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\nSPIN:\n"
                           "\tld.global.u32 \t%r8, [%rd2];\n\tsetp.eq.u32 \t%p3, %r8, 0;\n\t@%p3 bra \tSPIN;\n";
  const std::string s = kernel(produce, spin + wait);
  const int sat = line_of(s, "\t@%p3 bra \tSPIN");
  ptx::Launch apart = assuming(sat, {true, true, false});
  apart.coalesce = false;  // each load its own step
  const ptx::Loaded c = load(s, apart);
  CAPTURE(first_error(c));
  REQUIRE(c.ok());
  const std::string acc = accesses(c);
  CAPTURE(acc);
  const std::string load_at = "warp1:" + std::to_string(line_of(s, "\tld.global.u32 \t%r8")) + ":read";
  int loads = 0;
  for (std::size_t i = acc.find(load_at); i != std::string::npos; i = acc.find(load_at, i + 1)) ++loads;
  CHECK(loads == 3);
  CHECK(outcome(s, assuming(sat, {true, true, false})) == "verified");
  // An assumption no warp reaches with an unknown guard is an error, not ignored.
  const ptx::Loaded d = load(kernel(produce, wait), assuming(sat - 1, {true}));
  CAPTURE(first_error(d));
  REQUIRE(!d.ok());
  CHECK(first_error(d).find("--assume " + std::to_string(sat - 1) + ": no warp reached line") != std::string::npos);
  CHECK(outcome(kernel(produce, wait)) == "verified");
}

// ldmatrix and stmatrix: each row's 16 bytes at the address of the lane
// that gives it (lanes 0-7 for .x1, all 32 for .x4); griddepcontrol as the
// model's griddep operations.
TEST_CASE("ptx: ldmatrix and stmatrix rows, griddepcontrol") {
  // Row addresses: tile + 16 * lane (lanes 0-7 within the 128-byte tile;
  // the others past it, which .x1 does not read).
  const std::string rows = "\tshl.b32 \t%r9, %r4, 4;\n\tadd.u32 \t%r9, %r6, %r9;\n";
  const std::string x1 = rows + "\tldmatrix.sync.aligned.m8n8.x1.shared.b16 \t{%r8}, [%r9];\n\tadd.u32 \t%r8, %r8, 1;\n";
  CHECK(outcome(kernel(produce, wait + x1)) == "verified");
  CHECK(outcome(kernel(produce, x1 + wait)) == "data_race");
  // .x4 with every lane's row inside the tile (lane & 7), transposed.
  const std::string wrapped = "\tand.b32 \t%r9, %r4, 7;\n\tshl.b32 \t%r9, %r9, 4;\n\tadd.u32 \t%r9, %r6, %r9;\n";
  const std::string x4 = wrapped + "\tldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 \t{%r1, %r3, %r5, %r8}, [%r9];\n";
  CHECK(outcome(kernel(produce, wait + x4)) == "verified");
  CHECK(outcome(kernel(produce, x4 + wait)) == "data_race");
  const ptx::Loaded a = load(kernel(produce, wait + x4));
  REQUIRE(a.ok());
  CHECK(accesses(a).find("warp1:") != std::string::npos);
  // .x4 with lanes 8-31 past the tile: their rows are read too, so the
  // range is 512 bytes (past the 128-byte variable).
  const std::string past = rows + "\tldmatrix.sync.aligned.m8n8.x4.shared.b16 \t{%r1, %r3, %r5, %r8}, [%r9];\n";
  const ptx::Loaded b = load(kernel(produce, wait + past));
  const std::string bk_b = b.ok() ? ptx::emit_bk(b.kernel, "t.ptx") : first_error(b);
  const ptx::Loaded c = load(kernel(produce, wait + x1));
  REQUIRE(c.ok());
  const std::string bk_c = ptx::emit_bk(c.kernel, "t.ptx");
  CAPTURE(bk_b);
  CAPTURE(bk_c);
  CHECK(bk_b.find("tile[0,512)") != std::string::npos);
  CHECK(bk_c.find("512") == std::string::npos);
  // stmatrix writes the rows: after the wait the producer's stores are
  // ordered before it; before the wait it races with them.
  const std::string st = wrapped + "\tstmatrix.sync.aligned.m8n8.x2.shared.b16 \t[%r9], {%r1, %r3};\n";
  CHECK(outcome(kernel(produce, wait + st)) == "verified");
  CHECK(outcome(kernel(produce, st + wait)) == "data_race");
  const ptx::Loaded d = load(kernel(produce, wait + "\tldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 \t{%r1, %r3}, [%r7];\n"));
  REQUIRE(!d.ok());
  CHECK(first_error(d).find("other than .m8n8") != std::string::npos);
  // griddepcontrol: the model's griddep_wait and griddep_launch, which a
  // one-grid kernel passes at once.
  const std::string pdl = "\tgriddepcontrol.wait;\n" + produce + "\tgriddepcontrol.launch_dependents;\n";
  CHECK(outcome(kernel(pdl, wait)) == "verified");
  const ptx::Loaded e = load(kernel(pdl, wait));
  REQUIRE(e.ok());
  const std::string bk_e = ptx::emit_bk(e.kernel, "t.ptx");
  CAPTURE(bk_e);
  CHECK(bk_e.find("griddep_wait") != std::string::npos);
  CHECK(bk_e.find("griddep_launch") != std::string::npos);
}

// atom, red and strong loads and stores: the model's atomic and
// atomic_load, which never race with each other and race with plain
// accesses; their .acquire/.release ordering not used, with a note.
TEST_CASE("ptx: atomics and strong loads and stores") {
  const std::string red = "\tred.shared.add.u32 \t[%r7], 1;\n\tmbarrier.arrive.release.cta.shared::cta.b64 \t_, [%r2];\n";
  const std::string atom = "\tatom.shared.add.u32 \t%r9, [%r7], 1;\n";
  // Both warps update the words atomically, unordered: no race.
  CHECK(outcome(kernel(red, atom + wait)) == "verified");
  // An atomic against the producer's plain store: a race before the wait, none after.
  CHECK(outcome(kernel(produce, atom + wait)) == "data_race");
  CHECK(outcome(kernel(produce, wait + atom)) == "verified");
  // A strong load is a read: with another read no conflict, with the plain store a race.
  const std::string acquire = "\tld.acquire.gpu.shared.u32 \t%r9, [%r7];\n";
  CHECK(outcome(kernel(produce, acquire + wait)) == "data_race");
  CHECK(outcome(kernel(red, "\tld.relaxed.gpu.shared.u32 \t%r9, [%r7];\n" + wait)) == "verified");
  CHECK(outcome(kernel(red, "\tld.volatile.shared.u32 \t%r9, [%r7];\n" + wait)) == "verified");
  CHECK(outcome(kernel(red, "\tst.release.gpu.shared.u32 \t[%r7], %r1;\n" + wait)) == "verified");
  const ptx::Loaded a = load(kernel(produce, acquire + wait));
  REQUIRE(a.ok());
  int noted = 0;
  for (const std::string& n : a.notes)
    noted += n.rfind("1 strong operation with .acquire or .release semantics read as relaxed", 0) == 0 &&
             n.find("'ld.acquire.gpu.shared.u32'") != std::string::npos;
  CHECK(noted == 1);
  const std::string bk = ptx::emit_bk(load(kernel(red, atom + wait)).kernel, "t.ptx");
  CAPTURE(bk);
  CHECK(bk.find("all: atomic tile_0_128") != std::string::npos);
  CHECK(bk.find("all: atomic_load") == std::string::npos);
  // A .cta-scoped one in a cluster of two CTAs: a located error.
  ptx::Launch two;
  two.cluster = 2;
  const ptx::Loaded b = load(kernel(produce, "\tatom.cta.shared.add.u32 \t%r9, [%r7], 1;\n" + wait), two);
  REQUIRE(!b.ok());
  CHECK(first_error(b).find(".cta-scoped strong operation in a cluster of 2 CTAs") != std::string::npos);
  // On a way of a branch on a loaded value, an atomic is an access.
  const std::string flag = "\tld.param.u64 \t%rd1, [handoff_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n"
                           "\tld.global.u32 \t%r8, [%rd2];\n\tsetp.eq.u32 \t%p3, %r8, 0;\n";
  CHECK(outcome(kernel(red, flag + "\t@%p3 bra \tSKIPR;\n\tred.shared.add.u32 \t[%r7], 1;\nSKIPR:\n" + wait)) == "verified");
  CHECK(outcome(kernel(produce, flag + "\t@%p3 bra \tSKIPR;\n\tred.shared.add.u32 \t[%r7], 1;\nSKIPR:\n" + wait)) == "data_race");
}

// A commit or wait of the bulk async-groups by every lane (CUDA code that
// calls it from every thread) is the leader's: the other lanes have no
// groups, so their wait orders nothing for them.
TEST_CASE("ptx: a bulk wait_group by every lane is the leader lane's") {
  const std::string store =
      "\tld.param.u64 \t%rd1, [handoff_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n"
      "\tsetp.ne.u32 \t%p2, %r4, 0;\n\t@%p2 bra \tSKIPST;\n"
      "\tcp.async.bulk.global.shared::cta.bulk_group \t[%rd2], [%r6], 128;\n\tcp.async.bulk.commit_group;\nSKIPST:\n"
      "\tcp.async.bulk.wait_group.read 0;\n";
  const std::string rewrite = "\tst.shared.f32 \t[%r7], 0f3F800000;\n";
  // Lanes 1-31 rewrite the tile the leader's TMA store may still read.
  CHECK(outcome(kernel(store + rewrite + "\tmbarrier.arrive.release.cta.shared::cta.b64 \t_, [%r2];\n", wait)) == "data_race");
  // A warp barrier after the leader's wait orders the store's read before the others' writes.
  CHECK(outcome(kernel(store + "\tbar.warp.sync \t-1;\n" + rewrite + "\tmbarrier.arrive.release.cta.shared::cta.b64 \t_, [%r2];\n",
                       wait)) == "verified");
  const ptx::Loaded a = load(kernel(store + rewrite + "\tmbarrier.arrive.release.cta.shared::cta.b64 \t_, [%r2];\n", wait));
  REQUIRE(a.ok());
  const std::string bk = ptx::emit_bk(a.kernel, "t.ptx");
  CAPTURE(bk);
  CHECK(bk.find("\n  wait_group_read 0") != std::string::npos);  // the leader's (a bulk group op has no lane prefix)
  CHECK(bk.find("all: wait_group_read") == std::string::npos);
}

TEST_CASE("ptx: lanes that arrive on different mbarriers, in every order") {
  // Lanes 0 and 1 arrive on bar and on the mbarrier 8 bytes after it (each
  // of count 1), after the warp's stores and a bar.warp.sync; the consumer
  // waits for both, then reads: one arrive per mbarrier, in both orders.
  std::string text = kernel(
      "\tst.shared.f32 \t[%r7], 0f3F800000;\n\tbar.warp.sync \t-1;\n\tsetp.lt.u32 \t%p3, %r4, 2;\n\tshl.b32 \t%r8, %r4, 3;\n"
      "\tadd.u32 \t%r9, %r2, %r8;\n\t@%p3 mbarrier.arrive.release.cta.shared::cta.b64 \t_, [%r9];\n",
      "W1:\n\tmbarrier.try_wait.parity.acquire.cta.shared::cta.b64 \t%p3, [%r2], 0;\n\t@!%p3 bra \tW1;\n"
      "W2:\n\tmbarrier.try_wait.parity.acquire.cta.shared::cta.b64 \t%p3, [%r2+8], 0;\n\t@!%p3 bra \tW2;\n");
  text = testing::with(text, "\tmbarrier.init.shared::cta.b64 \t[%r2], 32;\n",
              "\tmbarrier.init.shared::cta.b64 \t[%r2], 1;\n\tmbarrier.init.shared::cta.b64 \t[%r2+8], 1;\n");
  const ptx::Loaded k = load(text);
  CAPTURE(first_error(k));
  REQUIRE(k.ok());
  const std::string bk = ptx::emit_bk(k.kernel, "test.ptx");
  CAPTURE(bk);
  CHECK(bk.find("either:") != std::string::npos);
  CHECK(bk.find("or:") != std::string::npos);
  CHECK(outcome(text) == "verified");
  // Without the bar.warp.sync the other lanes' stores are not released: a race.
  CHECK(outcome(testing::with(text, "\tbar.warp.sync \t-1;\n", "")) == "data_race");
  // Five mbarriers (lanes 0-4): more orders than the front end gives.
  const ptx::Loaded five = load(testing::with(text, "\tsetp.lt.u32 \t%p3, %r4, 2;\n", "\tsetp.lt.u32 \t%p3, %r4, 5;\n"));
  CHECK(first_error(five).find("arrive on 5 different mbarriers") != std::string::npos);
}

TEST_CASE("ptx: twenty warps, past 128 threads of happens-before with every async unit, are read") {
  // One producer warp and 19 consumer warps, each an agent: 140 threads with
  // all five async units per warp, 41 with the ones they use (the producer's
  // none: it stores and arrives; docs/spec.md, "Lane classes").
  const std::string wide = testing::with(kernel(produce, wait), ".reqntid 64, 1, 1", ".reqntid 640, 1, 1");
  const ptx::Loaded k = load(wide);
  CAPTURE(first_error(k));
  REQUIRE(k.ok());
  CHECK(k.kernel.roles.size() == 20);
  // With the reductions (without them, 19 waiting warps are past the state cap).
  CHECK(check::outcome_name(check::check(k.kernel, {})) == "verified");
  const ptx::Loaded bug = load(testing::with(wide, "[%r2], 0;", "[%r2], 1;"));
  REQUIRE(bug.ok());
  CHECK(check::outcome_name(check::check(bug.kernel, {})) == "data_race");
}
