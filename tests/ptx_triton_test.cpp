// PTX as Triton writes it (docs/ptx.md, "Triton and Gluon"). The project's
// own Gluon kernels (harnesses/triton, compiled by Triton 3.6 on a GPU
// machine with harnesses/triton/regen.sh; their PTX and metadata are in
// tests/data/triton) checked as a user checks them, `check-kernel NAME.ptx
// --meta NAME.json`: the warp-specialized ring verifies, and the bug planted
// in its Python source is caught at a line of that source. And the pieces
// of Triton's warp-specialization dispatch, in hand-written PTX: brx.idx on
// a byte the default partition stored before a barrier of the whole CTA.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "checker/explore.hpp"
#include "checker/ptx/front.hpp"
#include "tests/cli_support.hpp"
#include "tests/kernel_text.hpp"
#include "tests/ptx_checks.hpp"

using namespace pc;
using namespace pc::testing::ptx_checks;

namespace {

const std::string test = "ptx_triton";
const std::string data = cli_support::src + "/tests/data/triton/";

// Two warps. Warp 0 (the default partition) stores the task index of each
// warp into `state` (STORE), and both pass barrier 1 of the whole CTA; warp
// 1 loads its byte (LOAD, right after the barrier) and jumps through brx.idx:
// task 0 writes `out` and leaves; task 1 leaves at once. Warp 0 then
// writes `out` after the second barrier.
std::string dispatch(const std::string& store, const std::string& load) {
  return R"(
.version 8.7
.target sm_90a
.address_size 64
.shared .align 4 .b8 state[4];
.shared .align 4 .b8 out[64];
.visible .entry ws()
.reqntid 64, 1, 1
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<20>;
	mov.u32 	%r1, %tid.x;
	shr.u32 	%r2, %r1, 5;
	setp.ne.s32 	%p1, %r2, 0;
	@%p1 bra 	WORKER;
)" + store + R"(
	barrier.sync 	1;
	barrier.sync 	1;
	st.shared.u32 	[out+4], 7;
	ret;
WORKER:
	barrier.sync 	1;
)" + load + R"(
	ld.shared.u8 	%r4, [state+1];
	$L_brx_0: .branchtargets
		TASK0,
		TASK1;
	brx.idx 	%r4, $L_brx_0;
TASK0:
	st.shared.u32 	[out], 1;
	barrier.sync 	1;
	ret;
TASK1:
	barrier.sync 	1;
	ret;
}
)";
}

}  // namespace

TEST_CASE("ptx triton: a worker warp's task index read from what the default partition stored before the barrier") {
  // Task 0 for warp 1: its write of out[0, 4) and warp 0's of out[4, 8) do not overlap.
  const std::string store0 = "\tst.shared.u32 \t[state], 0;";
  CHECK(outcome(dispatch(store0, "")) == "verified");
  // Every lane of warp 0 stores the same word: no race among them (they are
  // one warp's), and warp 1's read is ordered after it by the barrier.
  const ptx::Loaded k = load(dispatch(store0, ""));
  REQUIRE(k.ok());
  // Task 1 (the byte at state+1 is 1): warp 1 leaves without writing.
  CHECK(outcome(dispatch("\tst.shared.u32 \t[state], 256;", "")) == "verified");
  // An index past the list: a located error.
  const ptx::Loaded past = load(dispatch("\tst.shared.u32 \t[state], 512;", ""));
  REQUIRE(!past.ok());
  CHECK(first_error(past).find("takes entry 2 of a list of 2") != std::string::npos);
  // A synchronization between the barrier and the load: the value is not
  // followed (another order could have shown a later store), so brx.idx
  // cannot be read.
  const ptx::Loaded synced = load(dispatch(store0, "\tfence.acq_rel.cta;"));
  REQUIRE(!synced.ok());
  CHECK(first_error(synced).find("index of 'brx.idx'") != std::string::npos);
  // No store before the barrier: data, not followed.
  const ptx::Loaded none = load(dispatch("", ""));
  REQUIRE(!none.ok());
  CHECK(first_error(none).find("index of 'brx.idx'") != std::string::npos);
}

TEST_CASE("ptx triton: several warps storing the same known value do not race; different values do") {
  // Four warps each store one word to `flag` (VALUE: %r3), a barrier, then
  // each reads it.
  auto k = [](const std::string& value) {
    return std::string(R"(
.version 8.7
.target sm_90a
.address_size 64
.shared .align 4 .b8 flag[4];
.visible .entry same()
.reqntid 128, 1, 1
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<20>;
	mov.u32 	%r1, %tid.x;
	shr.u32 	%r2, %r1, 5;
)") + value + R"(
	st.shared.u32 	[flag], %r3;
	bar.sync 	0;
	ld.shared.u32 	%r5, [flag];
	ret;
}
)";
  };
  CHECK(outcome(k("\tmov.u32 \t%r3, 5;")) == "verified");
  CHECK(outcome(k("\tadd.u32 \t%r3, %r2, 5;")) == "data_race");  // each warp its own value
}

TEST_CASE("ptx triton: an address stored whole before the barrier is that address for the warp that loads it") {
  // Warp 0 stores a generic address of `buf` into `cap` (Triton's captures
  // for the worker partitions: the tensor-memory address, a pointer), both
  // warps pass barrier 1 of the CTA, warp 1 loads `cap` and writes through
  // it; warp 0 reads `buf` (READ: after the second barrier, or before it).
  auto k = [](const std::string& value, bool read_after) {
    const std::string read = "\tld.shared.u32 \t%r5, [buf];";
    return std::string(R"(
.version 8.7
.target sm_90a
.address_size 64
.shared .align 8 .b8 cap[8];
.shared .align 4 .b8 buf[64];
.visible .entry cap_addr()
.reqntid 64, 1, 1
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<20>;
	.reg .b64 	%rd<8>;
	mov.u32 	%r1, %tid.x;
	shr.u32 	%r2, %r1, 5;
	setp.ne.s32 	%p1, %r2, 0;
	@%p1 bra 	WORKER;
	mov.u64 	%rd1, buf;
	cvta.shared.u64 	%rd2, %rd1;
)") + value + R"(
	st.shared.u64 	[cap], %rd2;
	barrier.sync 	1;
)" + (read_after ? "" : read) + R"(
	barrier.sync 	1;
)" + (read_after ? read : "") + R"(
	ret;
WORKER:
	barrier.sync 	1;
	ld.shared.u64 	%rd3, [cap];
	st.u32 	[%rd3], 1;
	barrier.sync 	1;
	ret;
}
)";
  };
  CHECK(outcome(k("", true)) == "verified");
  // Read before the second barrier: it races warp 1's write, which is of buf.
  CHECK(outcome(k("", false)) == "data_race");
  // Each lane a different address (buf plus its lane's offset): not one
  // address, so warp 1's store address is not known: a located error.
  const ptx::Loaded each = load(k("\tmul.wide.u32 \t%rd4, %r1, 0;\n\tadd.u64 \t%rd2, %rd2, %rd4;\n\tand.b32 \t%r3, %r1, 1;\n\tmul.wide.u32 \t%rd5, %r3, 4;\n\tadd.u64 \t%rd2, %rd2, %rd5;", true));
  REQUIRE(!each.ok());
  CHECK(first_error(each).find("st.u32") != std::string::npos);
}

// A Gluon kernel from tests/data/triton checked as a user checks it (with
// its metadata): NAME verifies with a warning of each kind in `warnings`,
// which --strict makes errors; BUG (the bug planted in the Python source)
// is a data_race reported at each of the Python `lines`.
static void gluon_pair(const std::string& name, const std::vector<std::string>& warnings, const std::string& bug,
                const std::vector<std::string>& lines, const std::string& options = "") {
  using cli_support::run;
  const std::string meta = data + name + ".ptx --meta " + data + name + ".json" + options;
  const cli_support::Run ok = run(test, meta);
  CAPTURE(ok.out);
  CAPTURE(ok.err);
  CHECK(ok.status == 0);
  CHECK(ok.out.find("VERIFIED") != std::string::npos);
  for (const std::string& w : warnings) CHECK_MESSAGE(ok.out.find(w) != std::string::npos, w);
  const cli_support::Run b = run(test, data + bug + ".ptx --meta " + data + bug + ".json" + options);
  CAPTURE(b.out);
  CHECK(b.status == 1);
  CHECK(b.out.find("VIOLATION data_race") != std::string::npos);
  for (const std::string& l : lines) CHECK_MESSAGE(b.out.find("harnesses/triton/" + l + ":") != std::string::npos, l);
  // --strict: the warnings are errors.
  CHECK(run(test, meta + " --strict").status == 1);
}

TEST_CASE("ptx triton: the project's Gluon ring, compiled by Triton, with its metadata") {
  // Triton inits the barriers, passes a barrier of the CTA, and another warp's
  // TMA completes on them with no proxy fence: the stance's warning. The bug
  // planted in the Python source (the stage released before it is read): a
  // race, its read at the Python line that loads the tile.
  gluon_pair("gluon_ring", {"async_init_unfenced"}, "gluon_ring_bug_release_before_read", {"gluon_ring.py:41"});
}

TEST_CASE("ptx triton: the project's Gluon tcgen05 matmul (Blackwell), compiled by Triton, with its metadata") {
  // The workers load the tensor-memory address the default partition stored
  // before the dispatch barrier; the MMA warp commits to a zero-extended
  // shared::cta address; Triton lays the A ring over the word tcgen05.alloc
  // wrote, with no proxy fence: the cross_proxy_waw warning. The bug planted
  // in the Python source (the accumulator loaded with no wait on acc_bar):
  // the load races the MMA, both at their Python lines.
  gluon_pair("gluon_tc_gemm", {"warning cross_proxy_waw", "async_init_unfenced"}, "gluon_tc_gemm_bug_no_acc_wait",
             {"gluon_tc_gemm.py:65", "gluon_tc_gemm.py:55"});
}

TEST_CASE("ptx triton: the Gluon ping-pong (consumers of one warp, and of four), compiled by Triton, with its metadata") {
  // Each consumer stages its tile through the scratch buffer in 16 vector
  // stores of 32 lanes' ranges and reads it back in one load: ranges always
  // accessed together are one buffer (checker/ptx/together.hpp), which keeps
  // the kernel within the partial-order reduction's resources, so the search
  // ends in a few hundred states (--max-states bounds it here). The bug
  // planted in the Python source (the turn passed before the scratch is
  // loaded back): the load at gluon_pingpong.py:48 races the other
  // consumer's store at :45.
  for (const std::string name : {"gluon_pingpong", "gluon_pingpong_wg"}) {
    CAPTURE(name);
    gluon_pair(name, {"async_init_unfenced"}, name + "_bug_turn_before_load", {"gluon_pingpong.py:48", "gluon_pingpong.py:45"},
               " --max-states 20000");
  }
}
