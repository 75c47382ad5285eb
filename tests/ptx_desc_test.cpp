// Matrix descriptors to the bytes an MMA reads (checker/ptx/desc.hpp): the
// canonical layouts for descriptors made by spec/primitives.hpp's encoders,
// and through PTX, a wgmma whose A spans two TMA copies races with the one
// it does not wait for (reading only the buffer its start address lies in,
// the front end missed it before).
#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "checker/ptx/desc.hpp"
#include "spec/primitives.hpp"
#include "tests/kernel_text.hpp"
#include "tests/ptx_checks.hpp"

using namespace pc;
using ptx::DescFormat;
using prim::Swizzle;
using Spans = std::vector<std::pair<std::int64_t, std::int64_t>>;

namespace {

Spans bytes(std::uint64_t desc, DescFormat f, ptx::Operand2d op) {
  const ptx::DescBytes d = ptx::descriptor_bytes(desc, f, op);
  CAPTURE(d.error);
  REQUIRE(d.error.empty());
  return d.spans;
}

}  // namespace

TEST_CASE("descriptors: K-major, no swizzle: 8x16-byte core matrices, LBO along K, SBO along M") {
  // 128 rows of 16 BF16 (32 bytes): two core matrices per 8 rows, LBO 128
  // apart, groups SBO 256 apart: 4096 bytes from 1024.
  const std::uint64_t d = prim::tcgen05_desc_bits(1024, 128, 256, Swizzle::none);
  CHECK(bytes(d, DescFormat::tcgen05, {128, 16, 16, true}) == Spans{{1024, 5120}});
  // N = 64 rows: half of it.
  CHECK(bytes(d, DescFormat::tcgen05, {64, 16, 16, true}) == Spans{{1024, 3072}});
  // SBO 512: the groups apart, each its two core matrices.
  Spans apart;
  for (int g = 0; g < 8; ++g) apart.emplace_back(1024 + g * 512, 1024 + g * 512 + 256);
  CHECK(bytes(prim::tcgen05_desc_bits(1024, 128, 512, Swizzle::none), DescFormat::tcgen05, {64, 16, 16, true}) == apart);
  // LBO 0, SBO 0 (a one-core-matrix operand): its 128 bytes.
  CHECK(bytes(prim::wgmma_desc_bits(256, 0, 0, Swizzle::none), DescFormat::wgmma, {64, 16, 16, true}) == Spans{{256, 384}});
}

TEST_CASE("descriptors: K-major, 128-byte swizzle: whole 128-byte rows, SBO between 8-row groups") {
  // 64 rows (wgmma's A) at 2048, SBO 1024: 8 KB. The k-th K slice of 32
  // bytes starts 32k bytes in; it reads parts of the same rows (the
  // swizzle moves chunks within a row), so the same bytes.
  for (std::uint32_t k = 0; k < 4; ++k) {
    CAPTURE(k);
    CHECK(bytes(prim::wgmma_desc_bits(2048 + 32 * k, 16, 1024, Swizzle::b128), DescFormat::wgmma, {64, 16, 16, true}) == Spans{{2048, 10240}});
  }
  // tcgen05's 128-byte mode (2), 128 rows: 16 KB.
  CHECK(bytes(prim::tcgen05_desc_bits(0, 16, 1024, Swizzle::b128), DescFormat::tcgen05, {128, 16, 16, true}) == Spans{{0, 16384}});
  // 64-byte swizzle, rows of 64 bytes, SBO 512; FP8 K = 32 is 32 bytes too.
  CHECK(bytes(prim::wgmma_desc_bits(4096, 16, 512, Swizzle::b64), DescFormat::wgmma, {16, 32, 8, true}) == Spans{{4096, 5120}});
  // 32-byte swizzle, 8 rows: one 256-byte atom.
  CHECK(bytes(prim::tcgen05_desc_bits(512, 16, 256, Swizzle::b32), DescFormat::tcgen05, {8, 16, 16, true}) == Spans{{512, 768}});
}

TEST_CASE("descriptors: MN-major: rows of the swizzle's width along M or N, LBO between them, SBO between 8-row K groups") {
  // B of N = 128 BF16 (256 bytes: two 128-byte rows) and K = 16 (two groups
  // of 8), 128-byte swizzle, LBO 8192, SBO 1024: four 1 KB atoms' rows.
  CHECK(bytes(prim::wgmma_desc_bits(0, 8192, 1024, Swizzle::b128), DescFormat::wgmma, {128, 16, 16, false}) ==
        Spans{{0, 2048}, {8192, 10240}});
  // No swizzle: 16-byte columns SBO apart, 8 K rows of 16 bytes, K groups LBO apart.
  CHECK(bytes(prim::wgmma_desc_bits(0, 128, 256, Swizzle::none), DescFormat::wgmma, {16, 16, 16, false}) == Spans{{0, 512}});
  CHECK(bytes(prim::wgmma_desc_bits(0, 1024, 128, Swizzle::none), DescFormat::wgmma, {16, 16, 16, false}) ==
        Spans{{0, 256}, {1024, 1280}});
}

TEST_CASE("descriptors: what the ISA reserves or the front end does not read is an error") {
  CHECK(!ptx::descriptor_bytes(prim::tcgen05_desc_bits(0, 16, 1024, Swizzle::none) | (std::uint64_t{3} << 61), DescFormat::tcgen05,
                               {128, 16, 16, true})
             .error.empty());
  CHECK(!ptx::descriptor_bytes(prim::tcgen05_desc_bits(0, 16, 1024, Swizzle::none) | (std::uint64_t{1} << 52), DescFormat::tcgen05,
                               {128, 16, 16, true})
             .error.empty());
}

TEST_CASE("ptx: a wgmma whose A spans two copies reads both (desc.hpp)") {
  // Warp 4's lane 0 copies A's two halves (4 KB each, 128-byte swizzled
  // rows) with two bulk copies completing on bar0 and bar1; the warp group
  // (warps 0-3) waits for WAITS and runs one wgmma m64n8k16 whose A is all
  // 64 rows (SBO 1024: 8 KB) and B the first 8.
  const std::string wg = R"(.version 8.0
.target sm_90a
.address_size 64
.shared .align 8 .b64 bar0;
.shared .align 8 .b64 bar1;
.shared .align 1024 .b8 tile[8192];
.visible .entry wg(.param .u64 wg_param_0)
.reqntid 160, 1, 1
{
	.reg .pred 	%p<6>;
	.reg .b32 	%r<16>;
	.reg .b64 	%rd<10>;
	.reg .f32 	%f<4>;
	mov.u32 	%r1, %tid.x;
	mov.u32 	%r2, bar0;
	mov.u32 	%r3, bar1;
	mov.u32 	%r6, tile;
	setp.ne.u32 	%p1, %r1, 0;
	@%p1 bra 	SKIP;
	mbarrier.init.shared::cta.b64 	[%r2], 1;
	mbarrier.init.shared::cta.b64 	[%r3], 1;
	fence.mbarrier_init.release.cluster;
SKIP:
	bar.sync 	0;
	shr.u32 	%r4, %r1, 5;
	and.b32 	%r5, %r1, 31;
	setp.ne.u32 	%p2, %r4, 4;
	@%p2 bra 	CONSUMER;
	setp.ne.u32 	%p3, %r5, 0;
	@%p3 bra 	DONE;
	ld.param.u64 	%rd1, [wg_param_0];
	add.u64 	%rd2, %rd1, 4096;
	add.u32 	%r7, %r6, 4096;
	mbarrier.arrive.expect_tx.shared::cta.b64 	_, [%r2], 4096;
	cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes 	[%r6], [%rd1], 4096, [%r2];
	mbarrier.arrive.expect_tx.shared::cta.b64 	_, [%r3], 4096;
	cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes 	[%r7], [%rd2], 4096, [%r3];
	bra.uni 	DONE;
CONSUMER:
	mbarrier.try_wait.parity.shared::cta.b64 	%p4, [%r2], 0;
	@!%p4 bra 	CONSUMER;
WAIT1
	cvt.u64.u32 	%rd5, %r6;
	shr.u64 	%rd6, %rd5, 4;
	or.b64 	%rd7, %rd6, 4611686293305360384;
	mov.f32 	%f1, 0f00000000;
	wgmma.fence.sync.aligned;
	wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 	{%f1, %f2}, %rd7, %rd7, 1, 1, 1, 0, 0;
	wgmma.commit_group.sync.aligned;
	wgmma.wait_group.sync.aligned 	0;
	add.f32 	%f3, %f1, %f2;
DONE:
	ret;
}
)";
  // 4611686293305360384 = 1 << 62 (128-byte swizzle) | (1024 >> 4) << 32 (SBO) | (16 >> 4) << 16 (LBO).
  static_assert(prim::wgmma_desc_bits(0, 16, 1024, Swizzle::b128) == 4611686293305360384ull);
  const std::string both = testing::with(wg, "WAIT1\n",
                                         "WAIT1_LOOP:\n\tmbarrier.try_wait.parity.shared::cta.b64 \t%p5, [%r3], 0;\n\t@!%p5 bra \tWAIT1_LOOP;\n");
  const std::string first_only = testing::with(wg, "WAIT1\n", "");
  using namespace testing::ptx_checks;
  const ptx::Loaded k = load(both);
  CAPTURE(first_error(k));
  REQUIRE(k.ok());
  // A's bytes are both copies' (two buffers), not the first's only.
  int wgmma_bufs = 0;
  for (const ir::Stmt& s : k.kernel.roles[0].body)
    if (s.op.code == ir::OpCode::wgmma) wgmma_bufs = static_cast<int>(s.op.bufs.size());
  CHECK(wgmma_bufs >= 2);
  CHECK(outcome(both) == "verified");
  CHECK(outcome(first_only) == "data_race");
}
