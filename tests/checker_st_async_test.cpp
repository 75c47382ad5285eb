// st.async into a peer CTA's shared memory with mbarrier::complete_tx
// (docs/spec.md, "st.async"; spec/ordering.hpp st_async_release_scope): the
// store lands later, completes its bytes on the barrier in the CTA it names,
// and releases at .cluster scope the store and what the issuer knew when it
// issued it; the consumer needs a .cluster acquire. Bad input is a located
// error, exit 2.
#include <doctest/doctest.h>

#include <string>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
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
