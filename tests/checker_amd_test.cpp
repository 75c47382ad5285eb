// The explorer on AMD kernels: the chip's wave size changes verdicts where it
// must, s_waitcnt waits per counter with any count (lgkmcnt for LDS
// instructions, vmcnt for gather-to-LDS loads), and a wave's lanes are one
// instruction stream. Each kernel is checked with and without reductions, and
// with the reduction checked where it applies.
#include <doctest/doctest.h>

#include <string>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"

using namespace pc;

namespace {

// The verdict as docs/spec.md names it: "verified" or the violation.
std::string verdict_of(const std::string& src) {
  const dsl::Parsed p = dsl::parse(src, "amd.bk");
  REQUIRE(p.ok());
  std::string got;
  for (const bool reduction : {true, false}) {
    check::Options o;
    o.reduction = reduction;
    o.check_reduction = reduction;
    const check::Result r = check::check(p.kernel, o);
    const std::string v =
        r.verdict == check::Verdict::violation ? std::string(spec::violation_name(r.violation)) : check::verdict_name(r.verdict);
    if (!got.empty()) CHECK(v == got);
    got = v;
  }
  return got;
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const std::size_t at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("AMD wave size: a barrier count written for 32-lane waves completes two phases on a 64-lane chip") {
  // Every lane of the producer wave arrives (TLX arrives once per wave; this
  // kernel counts lanes): 32 arrivals on a 32-lane wave, 64 on CDNA, each
  // lane's its own on the software mbarrier (spec::mbarrier::arrive_units):
  // two phases complete, and the consumer's parity-0 wait passes only
  // between them (a deadlock where it comes later). Before the per-lane
  // rule: arrival_underflow.
  const std::string k =
      "kernel lanes\n"
      "TARGET\n"
      "smem tile bytes 256\n"
      "mbarrier full count 32\n"
      "role producer warp:\n"
      "  all: write tile\n"
      "  all: arrive full\n"
      "role consumer warp:\n"
      "  wait full parity 0\n"
      "  all: read tile\n";
  CHECK(verdict_of(replace(k, "TARGET", "target nvidia")) == "verified");
  CHECK(verdict_of(replace(k, "TARGET", "target amd gfx1200")) == "verified");
  CHECK(verdict_of(replace(k, "TARGET", "target amd gfx1201")) == "verified");
  CHECK(verdict_of(replace(k, "TARGET", "target amd gfx1100")) == "verified");
  CHECK(verdict_of(replace(k, "TARGET", "target amd gfx90a")) == "deadlock");
  CHECK(verdict_of(replace(k, "TARGET", "target amd gfx942")) == "deadlock");
  CHECK(verdict_of(replace(k, "TARGET", "target amd")) == "deadlock");
  // Counted for 64 lanes it is the other way round: a 32-lane wave leaves
  // the phase incomplete and the consumer waits for ever.
  const std::string k64 = replace(k, "count 32", "count 64");
  CHECK(verdict_of(replace(k64, "TARGET", "target amd gfx942")) == "verified");
  CHECK(verdict_of(replace(k64, "TARGET", "target amd gfx1200")) == "deadlock");
}

TEST_CASE("AMD: the lanes of a wave are ordered without syncwarp; an NVIDIA warp's are not") {
  const std::string k =
      "kernel leader\n"
      "TARGET\n"
      "smem tile bytes 256\n"
      "mbarrier full count 1\n"
      "role producer warp:\n"
      "  all: write tile\n"
      "  one: arrive full\n"
      "role consumer warp:\n"
      "  wait full parity 0\n"
      "  all: read tile\n";
  CHECK(verdict_of(replace(k, "TARGET", "target amd gfx942")) == "verified");
  CHECK(verdict_of(replace(k, "TARGET", "target amd gfx1200")) == "verified");
  CHECK(verdict_of(replace(k, "TARGET", "target nvidia")) == "data_race");
}

TEST_CASE("AMD s_waitcnt lgkmcnt(N): a barrier with LDS writes still counted is amd_missing_waitcnt") {
  const std::string k =
      "kernel lgkm\n"
      "target amd gfx942\n"
      "smem a bytes 256\n"
      "smem b bytes 256\n"
      "role wave warp x 2:\n"
      "  if instance == 0:\n"
      "    all: write a\n"
      "    all: write b\n"
      "    WAIT\n"
      "  s_barrier\n"
      "  all: read a\n"
      "  all: read b\n";
  CHECK(verdict_of(replace(k, "WAIT", "s_waitcnt lgkmcnt(0)")) == "verified");
  CHECK(verdict_of(replace(k, "WAIT", "s_waitcnt lgkmcnt(1)")) == "amd_missing_waitcnt");
  CHECK(verdict_of(replace(k, "WAIT", "s_waitcnt lgkmcnt(2)")) == "amd_missing_waitcnt");
  // vmcnt does not wait for LDS instructions.
  CHECK(verdict_of(replace(k, "WAIT", "s_waitcnt vmcnt(0)")) == "amd_missing_waitcnt");
  CHECK(verdict_of(replace(k, "WAIT", "s_waitcnt vmcnt(0) & lgkmcnt(0)")) == "verified");
  // The same on gfx12 (s_wait_dscnt), with the split barrier.
  const std::string split = replace(replace(k, "gfx942", "gfx1200"), "  s_barrier\n", "  s_barrier_signal\n  s_barrier_wait\n");
  CHECK(verdict_of(replace(split, "WAIT", "s_waitcnt lgkmcnt(1)")) == "amd_missing_waitcnt");
  CHECK(verdict_of(replace(split, "WAIT", "s_waitcnt lgkmcnt(0)")) == "verified");
}

TEST_CASE("AMD s_waitcnt vmcnt(N): a gather-to-LDS load not waited for is a data race, in order") {
  // Three loads into three buffers; the wait leaves N of them outstanding,
  // the newest ones (VM_CNT is in order); the other wave reads the oldest
  // two after the barrier.
  const std::string k =
      "kernel vm\n"
      "target amd gfx942\n"
      "smem t[3] bytes 1024\n"
      "role wave warp x 2:\n"
      "  if instance == 0:\n"
      "    global_load_lds t[0]\n"
      "    global_load_lds t[1]\n"
      "    global_load_lds t[2]\n"
      "    WAIT\n"
      "  s_barrier\n"
      "  if instance == 1:\n"
      "    all: read t[0]\n"
      "    all: read t[1]\n";
  CHECK(verdict_of(replace(k, "WAIT", "s_waitcnt vmcnt(0)")) == "verified");
  CHECK(verdict_of(replace(k, "WAIT", "s_waitcnt vmcnt(1)")) == "verified");  // t[2] is not read
  CHECK(verdict_of(replace(k, "WAIT", "s_waitcnt vmcnt(2)")) == "data_race");  // t[1] may not have landed
  CHECK(verdict_of(replace(k, "WAIT", "s_waitcnt lgkmcnt(0)")) == "data_race");  // lgkmcnt does not count them
  // A later, looser wait does not undo an earlier one.
  CHECK(verdict_of(replace(k, "WAIT", "s_waitcnt vmcnt(1)\n    s_waitcnt vmcnt(3)")) == "verified");
  // The loading wave's own read needs the wait as much.
  const std::string own =
      "kernel own\n"
      "target amd gfx90a\n"
      "smem t[2] bytes 1024\n"
      "role wave warp:\n"
      "  global_load_lds t[0]\n"
      "  global_load_lds t[1]\n"
      "  WAIT\n"
      "  all: read t[0]\n";
  CHECK(verdict_of(replace(own, "WAIT", "s_waitcnt vmcnt(1)")) == "verified");
  CHECK(verdict_of(replace(own, "WAIT", "s_waitcnt vmcnt(2)")) == "data_race");
}
