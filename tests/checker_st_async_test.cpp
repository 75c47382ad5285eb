// st.async into a peer CTA's shared memory with mbarrier::complete_tx
// (docs/spec.md, "st.async"; spec/ordering.hpp st_async_release_scope): the
// store lands later, completes its bytes on the barrier in the CTA it names,
// and releases at .cluster scope the store and what the issuer knew when it
// issued it; the consumer needs a .cluster acquire. Bad input is a located
// error, exit 2.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/model.hpp"
#include "checker/program.hpp"
#include "spec/rules.hpp"
#include "tests/agreed_check.hpp"
#include "tests/kernel_text.hpp"
#include "tests/located_errors.hpp"

using namespace pc;

namespace {

check::Result run(const std::string& text) { return testing::agreed_check(text); }
std::string outcome(const std::string& text) { return testing::agreed_outcome(text); }

using testing::with;

// CTA 0's warp stores 4 bytes per lane into CTA 1's buffer; CTA 1's warp
// expects the 128 bytes and reads them.
const std::string push =
    "kernel t\ncluster 2\nsmem buf bytes 128\nsmem note bytes 16\nmbarrier full count 1\n"
    "role prod warp on cta 0:\n  BEFORE  all: st_async buf @ 1 -> full bytes 4\nAFTER"
    "role cons warp on cta 1:\n  one: arrive_expect_tx full bytes EXPECT\n  wait full parity 0 SCOPE\n  all: read buf\nREAD";

std::string make(const std::string& scope, const std::string& expect = "128", const std::string& before = "",
                 const std::string& after = "", const std::string& read = "") {
  std::string t = with(push, "SCOPE", scope);
  t = with(t, "EXPECT", expect);
  t = with(t, "  BEFORE", before);
  t = with(t, "AFTER", after);
  return testing::started(with(t, "READ", read));
}

}  // namespace

TEST_CASE("spec: st.async stores 4, 8 or 16 bytes per thread and releases at cluster scope") {
  CHECK(spec::rules::st_async_bytes_valid(4));
  CHECK(spec::rules::st_async_bytes_valid(8));
  CHECK(spec::rules::st_async_bytes_valid(16));
  CHECK_FALSE(spec::rules::st_async_bytes_valid(2));
  CHECK_FALSE(spec::rules::st_async_bytes_valid(32));
  CHECK(spec::ordering::st_async_release_scope == spec::ordering::Scope::cluster);
}

TEST_CASE("st.async: the landing completes tx on the peer's barrier and a .cluster wait acquires the store") {
  CHECK(outcome(make("cluster")) == "verified");
  // The release is at .cluster scope from another CTA: a .cta acquire is not
  // morally strong with it, ordered by the stance of docs/spec.md with the
  // warning scope_cta_acquire (quack, CUTLASS example 93 wait this way).
  CHECK(outcome(make("")) == "verified");
  // Fewer bytes expected than stored: the phase can complete before every store landed.
  CHECK(outcome(make("cluster", "64")) != "verified");
  // More expected than stored: the phase never completes.
  CHECK(outcome(make("cluster", "256")) == "deadlock");
}

TEST_CASE("st.async: its release carries what the issuer knew when it issued it, nothing later") {
  CHECK(outcome(make("cluster", "128", "  one: write note @ 1\n", "", "  one: read note\n")) == "verified");
  const check::Result late = run(make("cluster", "128", "", "  one: write note @ 1\n", "  one: read note\n"));
  CHECK(check::outcome_name(late) == "data_race");
  CHECK_MESSAGE(late.message.find("note") != std::string::npos, late.message);
}

TEST_CASE("st.async: a barrier the consumer initialises must be visible to the producer first") {
  const std::string k = testing::started(
      "kernel t\ncluster 2\nsmem buf bytes 16\nmbarrier full\n"
      "role prod warp on cta 0:\n  SYNC  one: st_async buf @ 1 -> full bytes 16\n"
      "role cons warp on cta 1:\n  one: init full count 1\n  fence_mbarrier_init\n  one: arrive_expect_tx full bytes 16\n"
      "  SYNC  wait full parity 0 cluster\n  one: read buf\n");
  std::string synced = k, unsynced = k;
  for (int i = 0; i < 2; ++i) {
    synced = with(synced, "  SYNC", "  cluster_sync\n");
    unsynced = with(unsynced, "  SYNC", "");
  }
  CHECK(outcome(synced) == "verified");
  CHECK(outcome(unsynced) == "unsynchronized_init");
}

TEST_CASE("st.async: bad input is a located error") {
  testing::check_located_errors({
      {"one CTA", "kernel t\nsmem buf bytes 16\nmbarrier full count 1\nrole w warp:\n  one: st_async buf -> full bytes 16\n", 5,
       17, "a cluster of more than one CTA"},
      {"bytes", "kernel t\ncluster 2\nsmem buf bytes 16\nmbarrier full count 1\nrole w warp:\n  one: st_async buf @ 1 -> full bytes 12\n",
       6, 39, "4, 8 or 16 bytes per thread"},
      {"no arrow", "kernel t\ncluster 2\nsmem buf bytes 16\nmbarrier full count 1\nrole w warp:\n  one: st_async buf @ 1 full bytes 4\n",
       6, 25, "'->'"},
      {"amd", "kernel t\ntarget amd\nsmem buf bytes 16\nmbarrier full count 1\nrole w warp:\n  st_async buf -> full bytes 4\n", 6, 3,
       "st.async"},
  });
}

TEST_CASE("red.async: atomic reductions of two CTAs into a third's buffer do not race with each other") {
  const std::string k = testing::started(
      "kernel t\ncluster 3\nsmem sum bytes 8\nmbarrier full count 1\n"
      "role prod warp on cta 0..2:\n  one: OP sum @ 2 -> full bytes 4\n"
      "role cons warp on cta 2:\n  one: arrive_expect_tx full bytes 8\n  wait full parity 0 cluster\n  one: read sum\n");
  CHECK(outcome(with(k, "OP", "red_async")) == "verified");
  // Plain stores of two CTAs into the same bytes are unordered with each other.
  CHECK(outcome(with(k, "OP", "st_async")) == "data_race");
  // A plain read of the reduced word before the wait races with the reductions.
  CHECK(outcome(with(with(k, "OP", "red_async"), "  wait full parity 0 cluster\n", "  one: read sum\n  wait full parity 0 cluster\n")) ==
        "data_race");
}

TEST_CASE("red.async: into the issuing CTA is undefined, bad input") {
  const dsl::Parsed p = dsl::parse(
      "kernel t\ncluster 2\nsmem sum bytes 4\nmbarrier full count 1\nrole w warp:\n  one: red_async sum @ cta -> full bytes 4\n",
      "red.bk");
  REQUIRE(p.ok());
  CHECK_THROWS_AS(check::check(p.kernel, check::Options{}), check::KernelError);
  testing::check_located_errors({
      {"no CTA", "kernel t\ncluster 2\nsmem sum bytes 4\nmbarrier full count 1\nrole w warp:\n  one: red_async sum -> full bytes 4\n", 6,
       18, "name it with '@ CTA'"},
      {"bytes", "kernel t\ncluster 2\nsmem sum bytes 4\nmbarrier full count 1\nrole w warp:\n  one: red_async sum @ 1 -> full bytes 16\n",
       6, 40, "4 or 8 bytes per thread"},
  });
}

// The sync object that holds an st.async's release until it lands is a name
// (checker/step.cpp, free_slot): those in flight are numbered by their issue,
// so a state reached by the first store landing before the second is issued
// is the state reached by the second issued before the first lands. The
// partial-order reduction takes the two to commute (checker/footprint.cpp).
TEST_CASE("st.async: an issue and an earlier store's landing reach one state in either order") {
  const std::string text = testing::started(
      "kernel t\ncluster 2\nsmem a bytes 128\nsmem b bytes 128\nsmem c bytes 128\n"
      "mbarrier fa count 1\nmbarrier fb count 1\nmbarrier fc count 1\n"
      "role prod warp on cta 0:\n  all: st_async a @ 1 -> fa bytes 4\n  all: st_async b @ 1 -> fb bytes 4\n"
      "  all: st_async c @ 1 -> fc bytes 4\n"
      "role cons warp on cta 1:\n  one: arrive_expect_tx fa bytes 128\n  one: arrive_expect_tx fb bytes 128\n"
      "  one: arrive_expect_tx fc bytes 128\n  wait fa parity 0 cluster\n  wait fb parity 0 cluster\n"
      "  wait fc parity 0 cluster\n  all: read a\n  all: read b\n  all: read c\n");
  const dsl::Parsed p = dsl::parse(text, "t.bk");
  REQUIRE(p.ok());
  const check::Model m(p.kernel, false);
  REQUIRE(m.agents() == 2);
  auto step = [&](check::State& s, int x) {
    check::StepInfo info;
    REQUIRE(m.apply(s, x, info));
    REQUIRE(info.violation == spec::Violation::none);
  };
  auto stores = [](const check::State& s) {
    int n = 0;
    for (const check::Pending& e : s.pending) n += e.kind == check::PendingKind::st_async;
    return n;
  };
  // Both warps through the cluster barrier, the consumer's expects made,
  // then the producer's first two stores issued.
  // The consumer goes first wherever it can (it blocks at its first wait).
  check::State s = m.initial();
  for (int i = 0; i < 40 && stores(s) < 2; ++i) {
    check::StepInfo info;
    check::State t = s;
    if (m.apply(t, 1, info)) {
      REQUIRE(info.violation == spec::Violation::none);
      s = t;
      continue;
    }
    step(s, 0);
  }
  REQUIRE(stores(s) == 2);
  REQUIRE(s.pending[0].slot != s.pending[1].slot);
  const int first = s.pending[0].slot < s.pending[1].slot ? 0 : 1;  // the store to `a`, issued first
  // The first store lands, then the third is issued; and the other way round.
  check::State lands_first = s, issues_first = s;
  step(lands_first, m.agents() + first);
  step(lands_first, 0);
  step(issues_first, 0);
  REQUIRE(stores(issues_first) == 3);
  // The first store's event, found by its value in the state after the issue.
  int event = -1;
  for (std::size_t i = 0; i < issues_first.pending.size(); ++i)
    if (issues_first.pending[i] == s.pending[static_cast<std::size_t>(first)]) event = m.agents() + static_cast<int>(i);
  REQUIRE(event >= 0);
  step(issues_first, event);
  CHECK(lands_first == issues_first);
  // The two stores left hold the pool's first two sync objects.
  int lowest = 255, highest = 0;
  for (const check::Pending& e : lands_first.pending) {
    lowest = std::min<int>(lowest, e.slot);
    highest = std::max<int>(highest, e.slot);
  }
  CHECK(highest == lowest + 1);
}
