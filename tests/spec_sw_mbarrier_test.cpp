// The software mbarrier (spec/sw_mbarrier.hpp) against spec/mbarrier.hpp: same
// observable behaviour for init, arrive and test_wait.parity.
#include <doctest/doctest.h>

#include <vector>

#include "spec/mbarrier.hpp"
#include "spec/sw_mbarrier.hpp"

namespace mb = pc::spec::mbarrier;
namespace sw = pc::spec::sw_mbarrier;
using pc::spec::Violation;

namespace {

// The abstraction from a word to the spec's state. The word keeps the phase
// modulo 2^24, so phases are compared modulo 2^24.
bool refines(std::uint64_t word, const mb::State& s) {
  return s.status == mb::Status::live && s.tx == 0 && sw::pending(word) == std::uint32_t(s.pending) &&
         sw::reload(word) == std::uint32_t(s.expected) && sw::phase(word) == (s.phase & sw::phase_mask);
}

// Runs one op sequence (arrive counts) on both and compares after every step.
void run_both(std::uint32_t count, const std::vector<std::uint32_t>& arrives) {
  std::uint64_t w = sw::init(count);
  mb::Result r = mb::init(mb::State{}, count);
  REQUIRE(r.out.ok());
  mb::State s = r.next;
  for (std::uint32_t n : arrives) {
    for (std::uint32_t p : {0u, 1u}) REQUIRE(sw::test_wait_parity(w, p) == (mb::test_wait_parity(s, p).observed == 1));
    mb::Result a = mb::arrive(s, {.count = n});
    REQUIRE(sw::arrive_valid(w, n) == a.out.ok());
    if (!a.out.ok()) {
      REQUIRE(a.out.violation == Violation::arrival_underflow);
      return;  // the sequence has left defined behaviour; both sides agree on that
    }
    const std::uint64_t next = sw::arrive(w, n);
    REQUIRE((sw::phase(next) != sw::phase(w)) == a.out.phase_completed);
    w = next;
    s = a.next;
    REQUIRE(refines(w, s));
  }
}

}  // namespace

TEST_CASE("sw mbarrier: pack and unpack are inverse within the field ranges") {
  for (std::uint32_t v : {0u, 1u, 2u, 1000u, sw::max_count - 1, sw::max_count}) {
    const sw::Fields f{v, sw::max_count - v, v * 7u & std::uint32_t(sw::phase_mask)};
    CHECK(sw::unpack(sw::pack(f)) == f);
  }
  CHECK(sw::pack({sw::max_count, sw::max_count, std::uint32_t(sw::phase_mask)}) == ~std::uint64_t{0});
  CHECK(sw::pack({1, 0, 0}) == 1u);
  CHECK(sw::pack({0, 1, 0}) == std::uint64_t{1} << 20);
  CHECK(sw::pack({0, 0, 1}) == std::uint64_t{1} << 40);
  CHECK(sw::max_count == std::uint32_t(mb::max_count));
}

TEST_CASE("sw mbarrier: fresh barrier reads like the hardware (parity(1) true, parity(0) false)") {
  const std::uint64_t w = sw::init(4);
  CHECK(sw::test_wait_parity(w, 1));
  CHECK_FALSE(sw::test_wait_parity(w, 0));
  CHECK(sw::pending(w) == 4);
  CHECK(sw::reload(w) == 4);
}

TEST_CASE("sw mbarrier: arrive decrements, completes at zero, reloads") {
  std::uint64_t w = sw::init(2);
  w = sw::arrive(w, 1);
  CHECK(sw::pending(w) == 1);
  CHECK(sw::phase(w) == 0);
  w = sw::arrive(w, 1);
  CHECK(sw::pending(w) == 2);
  CHECK(sw::phase(w) == 1);
  CHECK(sw::test_wait_parity(w, 0));
  CHECK_FALSE(sw::test_wait_parity(w, 1));
  CHECK_FALSE(sw::arrive_valid(w, 3));  // over-arrival
  CHECK(sw::arrive_valid(w, 2));
  CHECK_FALSE(sw::arrive_valid(w, 0));
  CHECK_FALSE(sw::valid_count(0));
  CHECK_FALSE(sw::valid_count(std::int64_t(sw::max_count) + 1));
  CHECK(sw::valid_count(sw::max_count));
}

TEST_CASE("sw mbarrier: the phase wraps modulo 2^24 and its parity keeps alternating") {
  std::uint64_t w = sw::pack({1, 1, std::uint32_t(sw::phase_mask)});
  CHECK(sw::phase_parity(w) == 1);
  w = sw::arrive(w, 1);
  CHECK(sw::phase(w) == 0);
  CHECK(sw::phase_parity(w) == 0);
  CHECK(sw::pending(w) == 1);
  CHECK(sw::reload(w) == 1);  // no carry into the neighbouring field
}

TEST_CASE("sw mbarrier: TLX AMD lowering, one lane per wave arrives, count = arriving waves") {
  constexpr std::uint32_t waves = 4;
  std::uint64_t w = sw::init(sw::amd_init_count(waves));
  int arrivals = 0;
  for (std::uint32_t wave = 0; wave < waves; ++wave)
    for (std::uint32_t lane = 0; lane < 64; ++lane)
      if (sw::amd_arriving_lane(lane)) {
        CHECK_FALSE(sw::test_wait_parity(w, 0));
        w = sw::amd_wave_arrive(w);
        ++arrivals;
      }
  CHECK(arrivals == int(waves));
  CHECK(sw::test_wait_parity(w, 0));
  CHECK(sw::pending(w) == waves);
}

TEST_CASE("sw mbarrier equals spec mbarrier on every arrive sequence up to length 7, counts 1..5") {
  // Arrive counts 1..3 cover count == pending, count < pending and count > pending.
  std::vector<std::uint32_t> seq;
  int sequences = 0;
  auto rec = [&](auto&& self, std::uint32_t count, std::size_t len) -> void {
    run_both(count, seq);
    ++sequences;
    if (len == 0) return;
    for (std::uint32_t n = 1; n <= 3; ++n) {
      seq.push_back(n);
      self(self, count, len - 1);
      seq.pop_back();
    }
  };
  for (std::uint32_t count = 1; count <= 5; ++count) rec(rec, count, 7);
  CHECK(sequences == 5 * (1 + 3 + 9 + 27 + 81 + 243 + 729 + 2187));
}

TEST_CASE("sw mbarrier equals spec mbarrier over many phases at the largest count") {
  std::uint64_t w = sw::init(sw::max_count);
  mb::State s = mb::init(mb::State{}, mb::max_count).next;
  for (int k = 0; k < 64; ++k) {
    for (std::uint32_t n : {sw::max_count - 1, 1u}) {
      mb::Result a = mb::arrive(s, {.count = n});
      REQUIRE(a.out.ok());
      w = sw::arrive(w, n);
      s = a.next;
      REQUIRE(refines(w, s));
    }
    CHECK(sw::test_wait_parity(w, std::uint32_t(k) & 1u));
  }
}
