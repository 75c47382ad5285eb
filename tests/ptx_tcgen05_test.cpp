// The PTX front end's tcgen05 (docs/ptx.md, "Tensor memory"): the address
// tcgen05.alloc writes to shared memory followed into the MMA, loads and
// dealloc that use it; the MMA's columns from its instruction descriptor;
// a load's lane quarter from its address; the located errors for what it
// does not read yet. The project's tcgen05 GEMM compiled by nvcc is in
// ptx_kernels_test.cpp.
#include <doctest/doctest.h>

#include <string>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/ptx/emit_bk.hpp"
#include "checker/ptx/front.hpp"
#include "tests/kernel_text.hpp"
#include "tests/ptx_checks.hpp"

using namespace pc;

namespace {

// Two warps. Warp 1 allocates 64 columns (their address into `slot`);
// after bar.sync 0 every warp reads `slot` (warp 0 before warp 1's alloc in
// the order the front end runs the warps). Warp 0's lane 0 stores the
// operand tile, fences it for the async proxy, issues one MMA (N = 64, M =
// 128: IDESC) into the columns and commits it to `bar`; warp 1 waits, loads
// its lane quarter (QUARTER: 32 << 16 for lanes 32-63), WAITs and frees the
// columns.
const std::string tc = R"(
.version 8.7
.target sm_100a
.address_size 64
.shared .align 8 .b64 bar;
.shared .align 4 .b32 slot;
.shared .align 128 .b8 tile[256];
.visible .entry tc()
.reqntid 64, 1, 1
{
	.reg .pred 	%p<8>;
	.reg .b32 	%r<20>;
	.reg .b64 	%rd<8>;
	mov.u32 	%r1, %tid.x;
	shr.u32 	%r2, %r1, 5;
	mov.u32 	%r4, bar;
	mov.u32 	%r5, slot;
	mov.u32 	%r6, tile;
	setp.ne.u32 	%p1, %r1, 0;
	@%p1 bra 	INIT_DONE;
	mbarrier.init.shared::cta.b64 	[%r4], 1;
	fence.mbarrier_init.release.cluster;
INIT_DONE:
	setp.ne.u32 	%p2, %r2, 1;
	@%p2 bra 	ALLOC_DONE;
	tcgen05.alloc.GROUP.sync.aligned.shared::cta.b32 	[%r5], 64;
	tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
ALLOC_DONE:
	tcgen05.fence::before_thread_sync;
	bar.sync 	0;
	tcgen05.fence::after_thread_sync;
	ld.shared.u32 	%r7, [%r5];
	setp.ne.u32 	%p3, %r2, 0;
	@%p3 bra 	CONSUMER;
	@%p1 bra 	DONE;
	st.shared.v4.u32 	[%r6], {%r1, %r1, %r1, %r1};
	fence.proxy.async.shared::cta;
	cvt.u64.u32 	%rd1, %r6;
	shr.u64 	%rd2, %rd1, 4;
	and.b64 	%rd3, %rd2, 16383;
	or.b64 	%rd4, %rd3, 70368744177664;
	mov.b32 	%r8, IDESC;
	setp.ne.u32 	%p4, %r1, 0;
	tcgen05.mma.cta_group::1.kind::f16 	[%r7], %rd4, %rd4, %r8, %p4;
	tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 	[%r4];
	bra.uni 	DONE;
CONSUMER:
	mbarrier.try_wait.parity.shared::cta.b64 	%p5, [%r4], 0;
	@!%p5 bra 	CONSUMER;
	tcgen05.fence::after_thread_sync;
	add.u32 	%r9, %r7, QUARTER;
	tcgen05.ld.sync.aligned.32x32b.x2.b32 	{%r10, %r11}, [%r9];
	WAIT
	tcgen05.dealloc.cta_group::1.sync.aligned.b32 	%r7, 64;
DONE:
	ret;
}
)";

std::string kernel(const std::string& quarter = "2097152", const std::string& wait = "tcgen05.wait::ld.sync.aligned;",
                   const std::string& idesc = "135267472", const std::string& group = "cta_group::1") {
  return testing::with(testing::with(testing::with(testing::with(tc, "QUARTER", quarter), "WAIT", wait), "IDESC", idesc), "GROUP", group);
}

using namespace testing::ptx_checks;

}  // namespace

TEST_CASE("ptx tcgen05: the alloc's address followed into the MMA, the loads and the dealloc") {
  const ptx::Loaded k = load(kernel());
  CAPTURE(first_error(k));
  REQUIRE(k.ok());
  // One tensor-memory declaration of the 64 columns the MMA's D takes.
  int tensor = 0;
  for (const ir::BufferDecl& b : k.kernel.buffers)
    if (b.space == ir::Space::tensor) {
      ++tensor;
      CHECK(b.size == 1);
      CHECK(b.cols == 64);
    }
  CHECK(tensor == 1);
  // Warp 1's operations, in order; the load of its lane quarter 1.
  std::vector<ir::OpCode> codes;
  for (const ir::Stmt& s : k.kernel.roles.at(1).body) {
    codes.push_back(s.op.code);
    if (s.op.code == ir::OpCode::tcgen05_ld) CHECK(k.kernel.exprs.at(static_cast<std::size_t>(s.op.quarter)).value == 1);
  }
  const std::vector<ir::OpCode> want{ir::OpCode::tcgen05_alloc, ir::OpCode::write, ir::OpCode::tcgen05_relinquish};
  REQUIRE(codes.size() > want.size());
  CHECK(std::vector<ir::OpCode>(codes.begin(), codes.begin() + 3) == want);
  CHECK(std::count(codes.begin(), codes.end(), ir::OpCode::tcgen05_dealloc) == 1);
  CHECK(outcome(kernel()) == "verified");
  // --emit-bk reads back into the same search.
  const dsl::Parsed back = dsl::parse(ptx::emit_bk(k.kernel, "tc.ptx"), "tc.emitted.bk");
  CAPTURE(back.errors.empty() ? "" : back.errors[0].message);
  REQUIRE(back.ok());
  CHECK(check::check(back.kernel, {}).states == check::check(k.kernel, {}).states);
  // The commit with no state space, its mbarrier's shared::cta address
  // zero-extended to 64 bits (as Triton writes it): the same barrier, the
  // same search.
  std::string zext = kernel();
  const std::string commit = "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 \t[%r4];";
  REQUIRE(zext.find(commit) != std::string::npos);
  zext.replace(zext.find(commit), commit.size(), "cvt.u64.u32 \t%rd5, %r4;\n\ttcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 \t[%rd5];");
  const ptx::Loaded z = load(zext);
  CAPTURE(first_error(z));
  REQUIRE(z.ok());
  CHECK(check::check(z.kernel, {}).states == check::check(k.kernel, {}).states);
  CHECK(outcome(zext) == "verified");
}

TEST_CASE("ptx tcgen05: the model's rules apply to the PTX") {
  // Warp 1 addresses lanes 0-31, another warp's quarter.
  CHECK(outcome(kernel("0")) == "tmem_lane_quarter");
  // No tcgen05.wait::ld: the dealloc frees columns its own load may still read.
  CHECK(outcome(kernel("2097152", "")) == "tmem_dealloc_in_use");
  // The load's registers used before the wait: tcgen05_regs, the load may
  // still write them; after it, not (their tags cleared by the wait).
  const std::string use = "add.u32 \t%r12, %r10, %r11;";
  const std::string wait = "tcgen05.wait::ld.sync.aligned;";
  CHECK(outcome(kernel("2097152", use + "\n\t" + wait)) == "async_group_misuse");
  const std::string after = kernel("2097152", wait + "\n\t" + use);
  CHECK(outcome(after) == "verified");
  const ptx::Loaded k = load(after);
  REQUIRE(k.ok());
  for (const ir::Role& r : k.kernel.roles)
    for (const ir::Stmt& s : r.body) CHECK(s.op.code != ir::OpCode::tcgen05_regs);
}

TEST_CASE("ptx tcgen05: what the front end does not read is a located error") {
  auto error = [](const std::string& text) {
    const ptx::Loaded k = load(text);
    REQUIRE(!k.ok());
    CHECK(k.errors[0].loc.line > 0);
    return k.errors[0].message;
  };
  // The pair's alloc in a cluster of one CTA.
  CHECK(error(kernel("2097152", "tcgen05.wait::ld.sync.aligned;", "135267472", "cta_group::2")).find("CTA pair") != std::string::npos);
  // A D of N = 0 columns.
  CHECK(error(kernel("2097152", "tcgen05.wait::ld.sync.aligned;", "134217728")).find("N = 0") != std::string::npos);
  // A load 16 lanes into the quarter with a 32-lane shape.
  CHECK(error(kernel("3145728")).find("lane quarter") != std::string::npos);
  // An address the alloc did not write: the slot's neighbour.
  const std::string other = testing::with(kernel(), "ld.shared.u32 \t%r7, [%r5];", "ld.shared.u32 \t%r7, [%r5+256];");
  CHECK(error(other).find("not one the front end follows") != std::string::npos);
}

namespace {

// A cluster of two CTAs, two warps each. Each CTA's thread 0 initialises
// `bar` and stores its operand tile, fenced for the async proxy; warp 1 of
// each CTA joins the pair's alloc of 64 columns. After a cluster barrier,
// thread 0 of CTA 0 issues the pair's MMA (M = 256: each CTA's tile and
// half of D) and commits it to `bar` in both CTAs; warp 1 of each waits,
// loads its lane quarter and, after the FINAL cluster barrier, joins the
// pair's dealloc.
const std::string pair_text = R"(
.version 8.7
.target sm_100a
.address_size 64
.shared .align 8 .b64 bar;
.shared .align 4 .b32 slot;
.shared .align 128 .b8 tile[256];
.visible .entry pair()
.reqntid 64, 1, 1
.reqnctapercluster 2, 1, 1
{
	.reg .pred 	%p<8>;
	.reg .b16 	%rs<4>;
	.reg .b32 	%r<20>;
	.reg .b64 	%rd<8>;
	mov.u32 	%r1, %tid.x;
	shr.u32 	%r2, %r1, 5;
	mov.u32 	%r3, %cluster_ctarank;
	mov.u32 	%r4, bar;
	mov.u32 	%r5, slot;
	mov.u32 	%r6, tile;
	setp.ne.u32 	%p1, %r1, 0;
	@%p1 bra 	INIT_DONE;
	mbarrier.init.shared::cta.b64 	[%r4], 1;
	fence.mbarrier_init.release.cluster;
	st.shared.v4.u32 	[%r6], {%r1, %r1, %r1, %r1};
	fence.proxy.async.shared::cta;
INIT_DONE:
	setp.ne.u32 	%p2, %r2, 1;
	@%p2 bra 	ALLOC_DONE;
	tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 	[%r5], 64;
	tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;
ALLOC_DONE:
	tcgen05.fence::before_thread_sync;
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	tcgen05.fence::after_thread_sync;
	ld.shared.u32 	%r7, [%r5];
	setp.ne.u32 	%p3, %r2, 0;
	@%p3 bra 	CONSUMER;
	setp.ne.u32 	%p6, %r3, 0;
	or.pred 	%p7, %p1, %p6;
	@%p7 bra 	DONE;
	cvt.u64.u32 	%rd1, %r6;
	shr.u64 	%rd2, %rd1, 4;
	and.b64 	%rd3, %rd2, 16383;
	or.b64 	%rd4, %rd3, 70368744177664;
	mov.b32 	%r8, 269485200;
	setp.ne.u32 	%p4, %r1, 0;
	tcgen05.mma.cta_group::2.kind::f16 	[%r7], %rd4, %rd4, %r8, %p4;
	mov.b16 	%rs1, 3;
	tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 	[%r4], %rs1;
	bra.uni 	DONE;
CONSUMER:
	mbarrier.try_wait.parity.shared::cta.b64 	%p5, [%r4], 0;
	@!%p5 bra 	CONSUMER;
	tcgen05.fence::after_thread_sync;
	add.u32 	%r9, %r7, 2097152;
	tcgen05.ld.sync.aligned.32x32b.x2.b32 	{%r10, %r11}, [%r9];
	tcgen05.wait::ld.sync.aligned;
	tcgen05.fence::before_thread_sync;
DONE:
	FINAL
	@%p2 bra 	END;
	tcgen05.fence::after_thread_sync;
	tcgen05.dealloc.cta_group::2.sync.aligned.b32 	%r7, 64;
END:
	ret;
}
)";

const std::string final_barrier = "barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;";

}  // namespace

TEST_CASE("ptx tcgen05: the CTA pair's alloc, MMA, commit and dealloc (.cta_group::2)") {
  const std::string ok = testing::with(pair_text, "FINAL", final_barrier);
  const ptx::Loaded k = load(ok);
  CAPTURE(first_error(k));
  REQUIRE(k.ok());
  CHECK(k.kernel.cluster_ctas == 2);
  // The pair's MMA reads the tile of both CTAs, each a collective of the pair.
  bool mma = false;
  for (const ir::Role& r : k.kernel.roles)
    for (const ir::Stmt& s : r.body) {
      if (ir::op_family(s.op.code) == ir::OpFamily::tcgen05 && s.op.code != ir::OpCode::tcgen05_ld &&
          s.op.code != ir::OpCode::tcgen05_wait_ld && s.op.code != ir::OpCode::tcgen05_fence_before &&
          s.op.code != ir::OpCode::tcgen05_fence_after)
        CHECK(s.op.cta_pair);
      if (s.op.code != ir::OpCode::tcgen05_mma) continue;
      mma = true;
      REQUIRE(s.op.bufs.size() == 4);  // A and B (the same tile here), each in both CTAs
      CHECK(s.op.bufs[1].cta != ir::no_expr);
    }
  CHECK(mma);
  CHECK(outcome(ok) == "verified");
  const dsl::Parsed back = dsl::parse(ptx::emit_bk(k.kernel, "pair.ptx"), "pair.emitted.bk");
  CAPTURE(back.errors.empty() ? "" : back.errors[0].message);
  REQUIRE(back.ok());
  CHECK(check::check(back.kernel, {}).states == check::check(k.kernel, {}).states);
  // Without the cluster barrier before the dealloc, the first CTA's dealloc
  // frees both halves, and the other's warp may load its own after it.
  CHECK(outcome(testing::with(pair_text, "FINAL", "")) == "tmem_unallocated");
  // A cluster of one CTA has no pair.
  ptx::Launch one;
  one.cluster = 1;
  const ptx::Loaded single = load(ok, one);
  REQUIRE(!single.ok());
  CHECK(single.errors[0].message.find("CTA pair") != std::string::npos);
}

TEST_CASE("ptx tcgen05: a copy from shared memory into tensor memory, and a shift") {
  // The first kernel with a tcgen05.cp of the tile into columns 0-7 where
  // its MMA was: warp 1 loads them after the commit.
  const std::string mma = "tcgen05.mma.cta_group::1.kind::f16 \t[%r7], %rd4, %rd4, %r8, %p4;";
  const std::string cp = testing::with(kernel(), mma, "tcgen05.cp.cta_group::1.128x256b \t[%r7], %rd4;");
  const ptx::Loaded k = load(cp);
  CAPTURE(first_error(k));
  REQUIRE(k.ok());
  bool copy = false;
  for (const ir::Stmt& s : k.kernel.roles.at(0).body) copy |= s.op.code == ir::OpCode::tcgen05_cp;
  CHECK(copy);
  for (const ir::BufferDecl& b : k.kernel.buffers)
    if (b.space == ir::Space::tensor) CHECK(b.cols == 8);  // the copy's 8 columns, 8 instances of them
  CHECK(outcome(cp) == "verified");
  const dsl::Parsed back = dsl::parse(ptx::emit_bk(k.kernel, "cp.ptx"), "cp.emitted.bk");
  CAPTURE(back.errors.empty() ? "" : back.errors[0].message);
  REQUIRE(back.ok());
  CHECK(check::check(back.kernel, {}).states == check::check(k.kernel, {}).states);
  // Warp 1 loads without waiting for the commit: its load races the copy.
  const std::string no_wait = testing::with(cp, "mbarrier.try_wait.parity.shared::cta.b64 \t%p5, [%r4], 0;\n\t@!%p5 bra \tCONSUMER;", "");
  CHECK(outcome(no_wait) != "verified");
  // A shift of the MMA's columns before the MMA, tracked by the same commit
  // (tcgen05.shift -> tcgen05.mma is a pipelined pair: spec/tmem.hpp).
  const std::string shift = "tcgen05.shift.cta_group::1.down \t[%r7];";
  const ptx::Loaded ks = load(testing::with(kernel(), mma, shift + "\n\t" + mma));
  CAPTURE(first_error(ks));
  REQUIRE(ks.ok());
  CHECK(outcome(testing::with(kernel(), mma, shift + "\n\t" + mma)) == "verified");
  // After the MMA, with no commit waited for between, the shift is
  // reported: the model's stance (docs/spec.md, "Tensor memory").
  CHECK(outcome(testing::with(kernel(), mma, mma + "\n\t" + shift)) == "data_race");
}
