// Lane classes (docs/spec.md, "Lane classes"): `lanes M:` runs an operation
// on the lanes of M in each warp, and the model keeps one thread of
// happens-before per set of lanes that always execute together (lane 0, then
// the other lanes split by the role's masks). Until issue 62 a warp had two
// classes (lane 0 and lanes 1-31) and no other subset could be written: the
// kernels below were bad input. The classes are checked against the
// reference, every lane its own class (ir::Kernel::lanes_apart), on
// generated kernels: the same verdict and the same number of states.
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/smt/bmc.hpp"
#include "tests/agreed_check.hpp"
#include "tests/tier.hpp"

using namespace pc;
using testing::agreed_check;

namespace {

std::string outcome(const std::string& text) { return check::outcome_name(agreed_check(text)); }

std::string first_error(const std::string& text) {
  const dsl::Parsed p = dsl::parse(text, "test.bk");
  return p.errors.empty() ? "" : p.errors[0].message;
}

// The outcome and states with the lane classes and with every lane apart.
struct Both {
  std::string classes, apart;
  std::uint64_t classes_states = 0, apart_states = 0;
};

Both both(const std::string& text) {
  dsl::Parsed p = dsl::parse(text, "gen.bk");
  REQUIRE(p.ok());
  check::Options o;
  o.threads = 1;
  const check::Result a = check::check(p.kernel, o);
  p.kernel.lanes_apart = true;
  const check::Result b = check::check(p.kernel, o);
  return {check::outcome_name(a), check::outcome_name(b), a.states, b.states};
}

// PyTorch's blockReduce (aten/src/ATen/native/cuda/block_reduce.cuh,
// BlockReduce): every warp's lane 0 writes its partial result, a barrier,
// then the first nW lanes of warp 0 read the partials and combine them,
// after __syncwarp((1 << nW) - 1) in the shared-buffer form.
const std::string reduce_head =
    "kernel reduce\nsmem partial[4] bytes 4\nsmem result bytes 4\n"
    "role block warpgroup:\n  each: write partial[warp]\n  syncthreads\n  if warp == 0:\n"
    "    lanes 0xf: read partial[0], partial[1], partial[2], partial[3]\n    lanes 0xf: write result\n";

}  // namespace

TEST_CASE("lane classes: a syncwarp of the first four lanes orders them, and only them") {
  CHECK(outcome(reduce_head + "    lanes 0xf: syncwarp mask 0xf\n    one: read result\n") == "verified");
  // Without the syncwarp lane 0 reads what lanes 1-3 wrote unordered.
  const check::Result r = agreed_check(reduce_head + "    one: read result\n");
  CHECK(check::outcome_name(r) == "data_race");
  CHECK(r.message.find("lanes 0xe") != std::string::npos);
  // The mask must be the executing lanes ("undefined if the executing thread
  // is not in the membermask"; it waits for every lane of the mask).
  const check::Result m = agreed_check(reduce_head + "    lanes 0xf: syncwarp mask 0x7\n    one: read result\n");
  CHECK(check::outcome_name(m) == "warp_mask_misuse");
  CHECK(m.message.find("lanes 0xf of warp 0 execute it") != std::string::npos);
  CHECK(outcome(reduce_head + "    lanes 0xf: syncwarp mask 0x1f\n    one: read result\n") == "warp_mask_misuse");
  // A lane outside the mask's syncwarp is not ordered: lane 4 reads.
  CHECK(outcome(reduce_head + "    lanes 0xf: syncwarp mask 0xf\n    lanes 0x10: read result\n") == "data_race");
  // The whole warp's syncwarp orders every class.
  CHECK(outcome(reduce_head + "    syncwarp\n    all: read result\n") == "verified");
}

TEST_CASE("lane classes: an arrive by the lanes of a mask counts them, one arrive-on per warp") {
  // Seed 003's spread64 shape: the lanes lane % 4 == 0 each expect a chunk.
  const std::string head = "kernel spread\nsmem tile bytes 512\nmbarrier bar count ";
  const std::string body = "\nrole w warp:\n  lanes 0x11111111: arrive_expect_tx bar bytes 64\n  one: tma_load tile -> bar bytes 512\n"
                           "  wait bar parity 0\n  all: read tile\n";
  CHECK(outcome(head + "8" + body) == "verified");
  CHECK(outcome(head + "9" + body) == "deadlock");
  // Eight arrivals on seven pending: the warp's lanes arrive as one, past the count.
  CHECK(outcome(head + "7" + body) == "arrival_underflow");
  // 448 bytes expected for a 512-byte load: the transaction count goes negative.
  const std::string short_tx = "\nrole w warp:\n  lanes 0x1111111: arrive_expect_tx bar bytes 64\n  one: tma_load tile -> bar bytes 512\n"
                               "  wait bar parity 0\n  all: read tile\n";
  CHECK(outcome(head + "7" + short_tx) != "verified");
  // A warp group: 4 lanes of each of its 4 warps, 16 arrivals.
  const std::string group = "kernel g\nsmem a bytes 64\nmbarrier m count 16\nrole p warpgroup:\n  lanes 0xf0: write a\n"
                            "  lanes 0xf0: arrive m\nrole c warp:\n  wait m parity 0\n  all: read a\n";
  CHECK(outcome(group) == "verified");
  // The lanes that arrive release what they know: lane 0 wrote, lanes 4-7 arrive.
  const std::string other = "kernel g\nsmem a bytes 64\nmbarrier m count 4\nrole p warp:\n  one: write a\n"
                            "  lanes 0xf0: arrive m\nrole c warp:\n  wait m parity 0\n  all: read a\n";
  CHECK(outcome(other) == "data_race");
  CHECK(outcome("kernel g\nsmem a bytes 64\nmbarrier m count 4\nrole p warp:\n  one: write a\n  syncwarp\n"
                "  lanes 0xf0: arrive m\nrole c warp:\n  wait m parity 0\n  all: read a\n") == "verified");
}

TEST_CASE("lane classes: TMA loads of lanes other than the elected one") {
  // Seed 003's spread variant: four lanes each expect and load a quarter
  // (kernels/cuda/seed003_spread.cu and its twin). Lane 8's copy is issued
  // by lane 8's class: ordered after what those lanes know.
  const std::string head = "kernel s\nsmem t bytes 256\nsmem q[2] bytes 128 aliases t\nmbarrier bar count 32\nrole w warp:\n";
  const std::string loads = "  one: tma_load q[0] -> bar\n  lanes 0x100: tma_load q[1] -> bar\n  all: arrive bar\n"
                            "  wait bar parity 0\n  all: read t\n";
  CHECK(outcome(head + "  lanes 0x101: expect_tx bar bytes 128\n" + loads) == "verified");
  CHECK(outcome(head + "  one: expect_tx bar bytes 128\n" + loads) == "data_race");
  // Lane 8's copy overwrites what lane 8 read: ordered by program order (a
  // proxy fence missing, as for the elected lane's own copy); what lane 0
  // read is not ordered before lane 8's copy at all.
  CHECK(outcome(head + "  lanes 0x100: read q[1]\n  lanes 0x101: expect_tx bar bytes 128\n" + loads) == "cross_proxy_war");
  CHECK(outcome(head + "  one: read q[1]\n  lanes 0x101: expect_tx bar bytes 128\n" + loads) == "data_race");
}

TEST_CASE("lane classes: warp K: lanes M:, and the masks that are other prefixes") {
  const std::string head = "kernel g\nsmem a bytes 64\nmbarrier m count 4\n";
  CHECK(outcome(head + "role p warpgroup:\n  warp 2: lanes 0xf: write a\n  warp 2: lanes 0xf: arrive m\n"
                       "role c warp:\n  wait m parity 0\n  all: read a\n") == "verified");
  // Lane 0 of each warp is `each:`, the full mask `all:`, and the full mask
  // less lane 0 `rest:` (the same states as the prefix).
  auto states = [](const std::string& text) {
    const dsl::Parsed p = dsl::parse(text, "test.bk");
    REQUIRE(p.ok());
    return check::check(p.kernel, check::Options{}).states;
  };
  const std::string r = "role p warpgroup:\n  PFX write a\n  syncwarp\n  all: read a\n";
  auto with = [&](const std::string& pfx) { return head + r.substr(0, r.find("PFX")) + pfx + r.substr(r.find("PFX") + 3); };
  CHECK(states(with("lanes 0x1:")) == states(with("each:")));
  CHECK(states(with("lanes 0xffffffff:")) == states(with("all:")));
  CHECK(states(with("lanes 0xfffffffe:")) == states(with("rest:")));
  // The warps of the group read what the other warps' lanes wrote: only a
  // barrier of the warps would order it; in a role of one warp the syncwarp does.
  CHECK(outcome(with("lanes 0x6:")) == "data_race");
  CHECK(outcome(head + "role p warp:\n  lanes 0x6: write a\n  syncwarp\n  all: read a\n") == "verified");
  CHECK(outcome(head + "role p warp:\n  lanes 0x6: write a\n  lanes 0x7: syncwarp mask 0x7\n  all: read a\n") == "data_race");
}

TEST_CASE("lane classes: bad masks and prefixes are located errors") {
  const std::string head = "kernel g\nsmem a bytes 64\nmbarrier m count 1\nrole p warp:\n";
  CHECK(first_error(head + "  lanes 0: write a\n").find("lane mask is 0; it must be in 1..4294967295") != std::string::npos);
  CHECK(first_error(head + "  lanes 0x100000000: write a\n").find("lane mask") != std::string::npos);
  CHECK(first_error(head + "  lanes 0xf: tma_load a -> m bytes 64\n").find("issued by one elected lane") != std::string::npos);
  // A TMA load may be one other lane's; another leader operation may not
  // (the thread's async groups are the elected lane's).
  CHECK(first_error(head + "  lanes 0x100: tma_load a -> m bytes 64\n").empty());
  CHECK(first_error(head + "  lanes 0x100: commit_group\n").find("issued by one elected lane") != std::string::npos);
  CHECK(first_error(head + "  lanes 0xf: syncthreads\n").find("whole warp or warp group together: remove 'lanes 0xf:'") !=
        std::string::npos);
  CHECK(first_error("kernel g\nsmem a bytes 64\nrole p warpgroup:\n  warp 1: lanes 0xfffffffe: write a\n")
            .find("one warp's lanes but its elected lane") != std::string::npos);
  CHECK(first_error(head + "  lanes 0xf write a\n").find("expected ':' after the lane mask") != std::string::npos);
  CHECK(first_error(head + "  lanes 0xf\n").find("expected ':' after the lane mask") != std::string::npos);
  // More classes than a warp holds: each of 33 masks would split further,
  // but a warp has 32 lanes; 9 single lanes and the rest fit.
  std::string many = head;
  for (int i = 1; i < 10; ++i) many += "  lanes " + std::to_string(1 << i) + ": write a\n";
  CHECK(first_error(many).empty());
  CHECK(outcome(many) == "data_race");
}

TEST_CASE("lane classes: the same verdict and states as every lane apart, on generated kernels") {
  std::mt19937 rng(20261206);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const std::vector<std::string> masks = {"0xf", "0x11111111", "0xf0", "0x3", "0x80000001", "0xfffe"};
  int compared = 0, verified = 0, drawn = 0;
  for (int i = 0; i < 300; ++i) {
    // One or two roles of one warp, or one of two warps and one of one.
    const int roles = 1 + pick(2);
    const std::string m1 = masks[static_cast<std::size_t>(pick(6))], m2 = masks[static_cast<std::size_t>(pick(6))];
    std::string body;
    int arrivals = 0;
    for (int r = 0; r < roles; ++r) {
      const int warps = r == 0 && pick(3) == 0 ? 2 : 1;
      body += "role r" + std::to_string(r) + (warps == 2 ? " warps 2" : " warp") + ":\n";
      const int n = 2 + pick(5);
      for (int s = 0; s < n; ++s) {
        const int which = pick(4);
        const std::string mask = which == 0 ? "" : which == 1 ? m1 : which == 2 ? m2 : "1";
        const std::string pfx = which == 0 ? "all:" : which == 3 ? (warps == 1 ? "one:" : "each:") : "lanes " + mask + ":";
        const unsigned long long bits = which == 0 ? 0xffffffffULL : std::stoull(mask, nullptr, 0);
        const int lanes = __builtin_popcountll(bits);
        switch (pick(7)) {
          case 0: body += "  " + pfx + " write " + (pick(2) ? "a" : "b") + "\n"; break;
          case 1: body += "  " + pfx + " read " + (pick(2) ? "a" : "b") + "\n"; break;
          case 2: {
            char text[24];
            std::snprintf(text, sizeof text, "0x%llx", pick(5) == 0 ? bits >> 1 | 1 : bits);
            body += "  " + pfx + " syncwarp mask " + text + "\n";
            break;
          }
          case 3:
            body += "  " + pfx + " arrive m\n";
            arrivals += lanes * warps;
            break;
          case 4: body += "  " + std::string(pick(2) ? "one: " : "") + "wait m parity 0\n"; break;
          case 5: body += "  syncwarp\n"; break;
          default: body += "  " + pfx + " consume " + (pick(2) ? "a" : "b") + "\n"; break;
        }
      }
    }
    const int count = arrivals == 0 ? 1 : pick(3) == 0 ? 1 + pick(arrivals + 1) : arrivals;
    const std::string text = "kernel g\nsmem a bytes 64\nsmem b bytes 64\nmbarrier m count " + std::to_string(count) + "\n" + body;
    if (!dsl::parse(text, "gen.bk").ok()) continue;
    if (!tier::sample().take(drawn++)) continue;
    CAPTURE(text);
    const Both b = both(text);
    CHECK(b.classes == b.apart);
    CHECK(b.classes_states == b.apart_states);
    ++compared;
    verified += b.classes == "verified";
  }
  MESSAGE(compared << " generated kernels with lane masks: the same verdict and states with every lane apart, " << verified
                   << " verified");
  CHECK(compared > tier::sample().scaled(200));
  CHECK(verified > tier::sample().scaled(20));
}
