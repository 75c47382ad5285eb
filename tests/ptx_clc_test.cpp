// The PTX front end's cluster launch control (checker/ptx/clc.cpp; docs/ptx.md,
// "Cluster launch control"): try_cancel as the model's request, the query of
// a loaded response as its clc_query, and the tile loop on the query's answer
// read once per answer that can be "canceled" (--clc N), whichever form the
// compiler gives the branch (the predicate, its negation, a 0/1 integer
// compared with 0). The project's CLC kernel compiled by nvcc is in
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
using namespace pc::testing::ptx_checks;

namespace {

// Two warps. Lane 0 of warp 0 waits until the slot is free (empty, 64
// arrivals), arms `full` and requests; both warps wait on `full`, load the
// response (RELEASE_FIRST: after releasing the slot), query it (USE), fence
// the read for the next request's async write, release the slot, and leave
// the loop where no cluster was canceled (EXIT).
std::string clc_ptx(const std::string& use, const std::string& exit, bool release_first = false) {
  const std::string read = "\t{ .reg .b128 r; ld.shared.b128 r, [resp]; "
                           "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p5, r; }\n" + use +
                           "\tfence.proxy.async.shared::cta;\n";
  const std::string release = "\tmbarrier.arrive.release.cta.shared::cta.b64 %rd3, [empty], 1;\n";
  return R"(
.version 8.7
.target sm_100a
.address_size 64
.shared .align 16 .b8 resp[16];
.shared .align 8 .b64 full;
.shared .align 8 .b64 empty;
.visible .entry clc()
.reqntid 64, 1, 1
{
	.reg .pred 	%p<8>;
	.reg .b32 	%r<40>;
	.reg .b64 	%rd<8>;
	mov.u32 	%r1, %tid.x;
	setp.ne.s32 	%p1, %r1, 0;
	@%p1 bra 	INIT_DONE;
	mbarrier.init.shared::cta.b64 	[full], 1;
	mbarrier.init.shared::cta.b64 	[empty], 64;
	fence.mbarrier_init.release.cluster;
INIT_DONE:
	bar.sync 	0;
	mov.b32 	%r34, 0;
LOOP:
	setp.ne.s32 	%p2, %r1, 0;
	@%p2 bra 	REQ_DONE;
	not.b32 	%r14, %r34;
	and.b32 	%r5, %r14, 1;
WAIT_EMPTY:
	mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 	%p3, [empty], %r5;
	@!%p3 bra 	WAIT_EMPTY;
	mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 	%rd2, [full], 16;
	clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [resp], [full];
REQ_DONE:
	and.b32 	%r6, %r34, 1;
WAIT_FULL:
	mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 	%p4, [full], %r6;
	@!%p4 bra 	WAIT_FULL;
)" + (release_first ? release + read : read + release) +
         exit + R"(
	add.s32 	%r34, %r34, 1;
	bra.uni 	LOOP;
DONE:
	ret;
}
)";
}

ptx::Launch clc_launch(int n) {
  ptx::Launch l;
  l.clc = n;
  return l;
}

check::Result search(const std::string& text, int n) {
  const ptx::Loaded k = load(text, clc_launch(n));
  CAPTURE(first_error(k));
  REQUIRE(k.ok());
  return check::check(k.kernel, {});
}

}  // namespace

TEST_CASE("ptx clc: the tile loop read once per answer that can be a new tile") {
  const std::string text = clc_ptx("", "\t@!%p5 bra \tDONE;\n");
  std::uint64_t before = 0;
  for (int n = 0; n <= 3; ++n) {
    CAPTURE(n);
    const ptx::Loaded k = load(text, clc_launch(n));
    CAPTURE(first_error(k));
    REQUIRE(k.ok());
    CHECK(k.kernel.clc_queue == n);
    const check::Result r = check::check(k.kernel, {});
    CHECK(check::outcome_name(r) == "verified");
    CHECK(r.states > before);  // one more request and answer each time
    before = r.states;
    // The loop on the answer is the model's `if` on the query's variable:
    // none where no cluster waits, one level per answer that can be a new tile.
    const std::string bk = ptx::emit_bk(k.kernel, "clc.ptx");
    int ifs = 0;
    for (std::size_t at = bk.find("if clc"); at != std::string::npos; at = bk.find("if clc", at + 1)) ++ifs;
    CHECK(ifs == 2 * n);  // both warps
    const dsl::Parsed back = dsl::parse(bk, "clc.emitted.bk");
    REQUIRE(back.ok());
    const check::Result rb = check::check(back.kernel, {});
    CHECK(check::outcome_name(rb) == "verified");
    CHECK(rb.states == r.states);
    // The plain search agrees.
    check::Options plain;
    plain.reduction = false;
    CHECK(check::outcome_name(check::check(k.kernel, plain)) == "verified");
  }
}

TEST_CASE("ptx clc: the answer through setp, selp and not, either sense") {
  const std::uint64_t states = search(clc_ptx("", "\t@!%p5 bra \tDONE;\n"), 2).states;
  // The compiler's forms of `if (!canceled) break;`: the answer as 0/1 compared with 0,
  // its negation, the negation as 0/1 compared with 0.
  const std::string forms[][2] = {
      {"\tselp.u32 \t%r25, 1, 0, %p5;\n\tsetp.eq.s32 \t%p6, %r25, 0;\n", "\t@%p6 bra \tDONE;\n"},
      {"\tnot.pred \t%p6, %p5;\n", "\t@%p6 bra \tDONE;\n"},
      {"\tselp.u32 \t%r25, 0, 1, %p5;\n\tsetp.ne.s32 \t%p6, %r25, 0;\n", "\t@%p6 bra \tDONE;\n"},
      {"\tselp.u32 \t%r25, 1, 0, %p5;\n\tsetp.ne.s32 \t%p6, %r25, 1;\n", "\t@%p6 bra \tDONE;\n"},
  };
  for (const auto& f : forms) {
    CAPTURE(f[0]);
    const check::Result r = search(clc_ptx(f[0], f[1]), 2);
    CHECK(check::outcome_name(r) == "verified");
    CHECK(r.states == states);
  }
}

TEST_CASE("ptx clc: the slot released before the response is read is a race") {
  const check::Result r = search(clc_ptx("", "\t@!%p5 bra \tDONE;\n", true), 2);
  CHECK(check::outcome_name(r) == "data_race");
  // Where no cluster waits, the one request is answered before any next: no race.
  CHECK(check::outcome_name(search(clc_ptx("", "\t@!%p5 bra \tDONE;\n", true), 0)) == "verified");
}

TEST_CASE("ptx clc: what the front end does not read is a located error") {
  // A query of a response that was not loaded from shared memory.
  std::string text = clc_ptx("", "\t@!%p5 bra \tDONE;\n");
  const std::string loaded = "ld.shared.b128 r, [resp];";
  text.replace(text.find(loaded), loaded.size(), "mov.b128 r, {%rd2, %rd3};");
  const ptx::Loaded k = load(text, clc_launch(1));
  REQUIRE(!k.ok());
  CHECK(first_error(k).find("not one this warp loaded from shared memory") != std::string::npos);
  CHECK(k.errors[0].loc.line > 0);
  // Other clusterlaunchcontrol forms.
  std::string other = clc_ptx("", "\t@!%p5 bra \tDONE;\n");
  const std::string req = "clusterlaunchcontrol.try_cancel.async";
  other.replace(other.find(req), req.size(), "clusterlaunchcontrol.other.async");
  const ptx::Loaded o = load(other, clc_launch(1));
  REQUIRE(!o.ok());
  CHECK(first_error(o).find("not supported by the PTX front end yet") != std::string::npos);
}
