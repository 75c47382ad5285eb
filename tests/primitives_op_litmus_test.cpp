// The op litmus suite of harnesses/conformance: every test is defined by the
// model in each interleaving, the software mbarrier's model agrees with the
// hardware mbarrier's, and the allowed sets hold the outcomes that make each
// test worth running on a GPU.
#include <doctest/doctest.h>

#include "harnesses/conformance/op_litmus.hpp"

using namespace pc::conformance;

TEST_CASE("op litmus: defined in every interleaving, nonempty allowed set") {
  for (const OpLitmus& t : op_litmus_suite()) {
    CAPTURE(t.name);
    REQUIRE(t.a.size() <= op_litmus_max_ops);
    REQUIRE(t.b.size() <= op_litmus_max_ops);
    const Allowed2 a = op_litmus_allowed(t);
    CHECK(a.undefined == 0);
    CHECK(!a.outcomes.empty());
    if (t.software) {
      const Allowed2 s = op_litmus_allowed(t, true);
      CHECK(s.software_differs == 0);
      CHECK(s.outcomes == a.outcomes);
    }
  }
}

TEST_CASE("op litmus: complete_tx first leaves the phase open, either order completes it once") {
  const std::vector<OpLitmus> suite = op_litmus_suite();
  const OpLitmus& t = suite[0];
  REQUIRE(std::string(t.name) == "tx_expect_vs_complete");
  const Allowed2 a = op_litmus_allowed(t);
  bool b_saw_open = false, b_saw_done = false;
  for (const auto& [key, n] : a.outcomes) {
    CHECK((key & 3u) == 1u);  // finally phase 0 complete: test_wait.parity(0) true
    const std::uint32_t b_probe = static_cast<std::uint32_t>(key >> 2) & 15u;
    b_saw_open |= b_probe == 0u;
    b_saw_done |= b_probe == 1u;
  }
  CHECK(b_saw_open);
  CHECK(b_saw_done);
}

TEST_CASE("op litmus: outcome text names every value") {
  const OpLitmus t = op_litmus_suite()[3];
  const std::uint32_t a[] = {2, 1}, b[] = {1, 0, 1, 1};
  CHECK(op_litmus_outcome_text(t, op_litmus_key(a, 2, b, 4, 1)) == "A: 2 w0=1 B: 1 w0=0 1 w0=1 final w0=1");
}
