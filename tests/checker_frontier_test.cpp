// The compressed frontier (checker/frontier.cpp) gives back every state's
// bytes exactly, in the order put, whatever their sizes and however frames are
// cut; the search's states compress; the memory figures read the process.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/frontier.hpp"
#include "checker/visited.hpp"

using namespace pc;

namespace {

// States like the search's: a common body with a few bytes changed, now and
// then a run inserted (shifting the rest), and odd sizes (empty, one frame's
// worth, more than a frame).
std::vector<std::string> sample_states(std::mt19937& rng, std::size_t n) {
  std::string body(700, '\0');
  for (char& c : body) c = static_cast<char>(rng() % 7);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n; ++i) {
    std::string s = body;
    for (int k = 0; k < 5; ++k) s[rng() % s.size()] = static_cast<char>(rng());
    if (rng() % 4 == 0) s.insert(rng() % s.size(), std::string(rng() % 40, static_cast<char>(rng())));
    switch (rng() % 50) {
      case 0: s.clear(); break;
      case 1: s.assign(check::Frames::frame_raw_bytes, 'x'); break;
      case 2: s.assign(check::Frames::frame_raw_bytes * 2 + 3, static_cast<char>(rng())); break;
      default: break;
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

TEST_CASE("frontier: every state comes back exactly, in order and by reference") {
  std::mt19937 rng(11);
  for (const std::size_t n : {std::size_t{1}, std::size_t{31}, std::size_t{32}, std::size_t{33}, std::size_t{1000}}) {
    CAPTURE(n);
    const std::vector<std::string> states = sample_states(rng, n);
    check::Frames f;
    std::vector<check::StateRef> refs;
    for (const std::string& s : states) refs.push_back(f.put(s, 3));
    f.seal();
    CHECK(f.frames() >= (n + check::Frames::frame_states - 1) / check::Frames::frame_states);
    // In order, as the one-thread search reads a level.
    check::FrameReader in_order;
    check::StateRef at{0, 0, 3};
    for (std::size_t i = 0; i < n; ++i) {
      CHECK(at.frame == refs[i].frame);
      CHECK(at.slot == refs[i].slot);
      CHECK(refs[i].writer == 3);
      CHECK(std::string(in_order.get(f, at)) == states[i]);
      at = f.after(at);
    }
    // Out of order, as the threads of the parallel search read a level.
    check::FrameReader any;
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = rng() % n;
      CHECK(std::string(any.get(f, refs[i])) == states[i]);
    }
    // Cleared and reused: the old states are gone, the new ones come back,
    // though the reader last held frame 0 of this very writer.
    (void)any.get(f, refs[0]);
    f.clear();
    CHECK(f.frames() == 0);
    const check::StateRef r = f.put("again", 0);
    f.seal();
    CHECK(r.frame == 0);
    CHECK(std::string(any.get(f, r)) == "again");
  }
}

TEST_CASE("frontier: frames kept raw within the budget, the rest compressed, all come back") {
  std::mt19937 rng(13);
  const std::vector<std::string> states = sample_states(rng, 600);
  std::uint64_t raw = 0;
  for (const std::string& s : states) raw += s.size();
  for (const std::uint64_t budget : {std::uint64_t{0}, raw / 3, raw * 2}) {
    CAPTURE(budget);
    check::Frames f;
    f.raw_budget(budget);
    std::vector<check::StateRef> refs;
    for (const std::string& s : states) refs.push_back(f.put(s, 0));
    f.seal();
    check::FrameReader in_order, any;
    check::StateRef at{0, 0, 0};
    for (std::size_t i = 0; i < states.size(); ++i) {
      CHECK(std::string(in_order.get(f, at)) == states[i]);
      at = f.after(at);
    }
    for (int k = 0; k < 2000; ++k) {
      const std::size_t i = rng() % states.size();
      CHECK(std::string(any.get(f, refs[i])) == states[i]);
    }
    // Stored: all compressed (several times smaller), some frames raw, or all raw.
    if (budget == 0) CHECK(f.compressed_bytes() * 4 < f.raw_bytes());
    if (budget == raw / 3) {
      CHECK(f.compressed_bytes() > budget / 2);
      CHECK(f.compressed_bytes() < f.raw_bytes() / 2);
    }
    if (budget == raw * 2) CHECK(f.compressed_bytes() == f.raw_bytes());
    // Cleared, the budget starts again: the refilled frames are raw.
    f.clear();
    const check::StateRef r = f.put(states[1], 0);
    f.seal();
    CHECK(std::string(any.get(f, r)) == states[1]);
    if (budget > 0) CHECK(f.compressed_bytes() == f.raw_bytes());
  }
}

TEST_CASE("frontier: a frame is read only once sealed") {
  check::Frames f;
  const check::StateRef r = f.put("open", 0);
  check::FrameReader in;
  CHECK_THROWS(in.get(f, r));
  f.seal();
  CHECK(std::string(in.get(f, r)) == "open");
}

TEST_CASE("frontier: states of a level compress, and the figures are the process's") {
  std::mt19937 rng(5);
  const std::vector<std::string> states = sample_states(rng, 2000);
  check::Frames f;
  std::uint64_t raw = 0;
  for (const std::string& s : states) {
    (void)f.put(s, 0);
    raw += s.size();
  }
  f.seal();
  CHECK(f.raw_bytes() >= raw);
  // Siblings differ in a few bytes: a frame of them compresses several times.
  CHECK(f.compressed_bytes() * 4 < f.raw_bytes());
  CHECK(f.bytes() < raw / 2);
#ifdef __linux__
  // A search reports the peak resident memory of the process during it.
  const std::uint64_t now = check::resident_bytes();
  CHECK(now > 0);
  CHECK(check::peak_resident_bytes() >= now);
  std::string src;
  const dsl::Parsed p = dsl::parse_file(std::string(PC_SOURCE_DIR) + "/kernels/tlx_ws_gemm_hopper.bk", src);
  REQUIRE(p.ok());
  check::Options o;
  o.threads = 1;
  const check::Result r = check::check(p.kernel, o);
  // The whole process: its code and libraries are resident too.
  CHECK(r.memory_bytes > std::uint64_t{1} << 20);
#endif
}

// The visited set (checker/visited.hpp) through its growth: from 4,096 slots
// to tables that ask for huge pages (2 MiB and more: ZeroWords), every
// fingerprint is found again and none appears that was not added.
TEST_CASE("visited set: fingerprints kept through every growth, small tables and huge-page ones") {
  std::mt19937_64 rng(11);
  check::FingerprintSet set;
  std::vector<std::uint64_t> added;
  std::set<std::uint64_t> truth;
  // Random fingerprints, and runs of neighbours (which share slots).
  for (std::size_t i = 0; added.size() < 300000; ++i) {
    const std::uint64_t base = rng() | 2;  // 0 and 1 are one slot's key (0 marks an empty slot)
    for (std::uint64_t k = 0; k < (i % 3 == 0 ? 4 : 1); ++k) added.push_back(base + 2 * k);
  }
  std::size_t fresh = 0;
  for (std::size_t i = 0; i < added.size(); ++i) {
    const bool was = truth.count(added[i]) > 0;
    const bool inserted = set.insert(added[i]);
    CHECK(inserted == !was);
    truth.insert(added[i]);
    fresh += inserted;
    // Now and then, an earlier one again: found, not added twice.
    if (i % 97 == 0) CHECK_FALSE(set.insert(added[rng() % (i + 1)]));
  }
  CHECK(set.size() == truth.size());
  CHECK(fresh == truth.size());
  // The table grew past 2 MiB (where it asks for huge pages).
  CHECK(set.bytes() > (std::size_t{2} << 20));
  for (std::uint64_t fp : added) CHECK_FALSE(set.insert(fp));
  // Others are new.
  std::size_t others = 0;
  for (int k = 0; k < 1000; ++k) {
    const std::uint64_t fp = rng() | 2;
    if (truth.count(fp)) continue;
    CHECK(set.insert(fp));
    ++others;
  }
  CHECK(others > 990);
}

// The visited set keeps its runs in order, without wrapping past its last
// slot: fingerprints that share first slots at the top of the range (whose
// run is longer than the room past the last first slot, which then
// doubles), and a few under and between them, are each found, once.
TEST_CASE("visited set: a run at the table's end longer than the room past it") {
  check::FingerprintSet set;
  std::vector<std::uint64_t> top;
  for (std::uint64_t k = 0; k < 5000; ++k) top.push_back(~std::uint64_t{0} - 2 * k);
  for (std::uint64_t fp : top) CHECK(set.insert(fp));
  CHECK(set.size() == top.size());
  for (std::uint64_t fp : top) CHECK_FALSE(set.insert(fp));
  // Between them (odd distances from the top), below them, and 0 (which is
  // 1's slot key) beside 1.
  for (std::uint64_t k = 0; k < 100; ++k) CHECK(set.insert(~std::uint64_t{0} - 2 * k - 1));
  CHECK(set.insert(std::uint64_t{1} << 63));
  CHECK(set.insert(1));
  CHECK_FALSE(set.insert(0));
  CHECK(set.size() == top.size() + 102);
  for (std::uint64_t fp : top) CHECK_FALSE(set.insert(fp));
  for (std::uint64_t k = 0; k < 100; ++k) CHECK_FALSE(set.insert(~std::uint64_t{0} - 2 * k - 1));
}

// The parallel search's table (SharedFingerprintSet), used as the search
// uses it: threads insert at once until the table asks for room (the
// inserts it refused, `full`, and the ones not yet tried are kept aside),
// the table grows (its parts moved by threads at once, the old table's
// pages given back as they are moved: it reaches 12 MiB), and the threads
// go on. It starts at one line, so that it is full again and again. Each fingerprint is `fresh` for exactly one insert, its
// owner is the smallest key any insert gave it in the level, and a level's
// owners are final for the next one (above its floor: `seen`, not
// `lowered`).
TEST_CASE("visited set: the parallel table, filled from threads at once, full, grown, and owned by the least key") {
  constexpr unsigned threads = 4;
  std::mt19937_64 rng(5);
  std::vector<std::uint64_t> fps(600000);
  for (std::uint64_t& fp : fps) fp = rng();
  fps[7] = 0;  // 0 and 1 are one slot's key: both are never given
  // The key each thread gives each fingerprint (above the level's floor, 0).
  auto key = [&](unsigned t, std::size_t i) { return static_cast<std::uint32_t>(1 + (i * 7 + t * 13) % 1000); };
  std::vector<std::uint32_t> least(fps.size());
  for (std::size_t i = 0; i < fps.size(); ++i) {
    least[i] = key(0, i);
    for (unsigned t = 1; t < threads; ++t) least[i] = std::min(least[i], key(t, i));
  }
  check::SharedFingerprintSet set(1);
  std::atomic<std::uint64_t> fresh{0};
  std::vector<std::vector<std::size_t>> aside(threads);
  std::vector<std::vector<std::size_t>> todo(threads);
  for (unsigned t = 0; t < threads; ++t) {
    for (std::size_t i = 0; i < fps.size(); ++i) todo[t].push_back(i);
    std::shuffle(todo[t].begin(), todo[t].end(), rng);
  }
  int grown = 0;
  for (bool left = true; left;) {
    std::vector<std::thread> team;
    for (unsigned t = 0; t < threads; ++t)
      team.emplace_back([&, t] {
        std::uint64_t mine = 0;
        for (std::size_t k = 0; k < todo[t].size(); ++k) {
          // As the search: the count told, and room asked for, every chunk
          // (of 64 here).
          if (k % 64 == 0) {
            set.added(std::exchange(mine, 0));
            if (set.wants_room()) {
              aside[t].insert(aside[t].end(), todo[t].begin() + static_cast<std::ptrdiff_t>(k), todo[t].end());
              break;
            }
          }
          const std::size_t i = todo[t][k];
          const auto put = set.insert(fps[i], key(t, i), 0);
          mine += put == check::SharedFingerprintSet::Put::fresh;
          fresh += put == check::SharedFingerprintSet::Put::fresh;
          if (put == check::SharedFingerprintSet::Put::full) aside[t].push_back(i);
        }
        set.added(mine);
      });
    for (std::thread& th : team) th.join();
    left = false;
    for (unsigned t = 0; t < threads; ++t) {
      todo[t] = std::exchange(aside[t], {});
      left |= !todo[t].empty();
    }
    if (!set.wants_room()) continue;
    set.start_growing(7);
    std::vector<std::thread> movers;
    for (unsigned t = 0; t < 3; ++t)
      movers.emplace_back([&, t] {
        for (unsigned part = t; part < 7; part += 3) set.move(part);
      });
    for (std::thread& th : movers) th.join();
    set.finish_growing();
    ++grown;
  }
  CHECK(grown > 8);
  CHECK(fresh == fps.size());
  CHECK(set.size() == fps.size());
  for (std::size_t i = 0; i < fps.size(); ++i) CHECK(set.owner(fps[i]) == least[i]);
  CHECK(set.owner(1) == set.owner(0));
  CHECK(set.owner(rng() | 1) == ~std::uint32_t{0});
  // The next level (floor 1000): its keys are larger and leave the owners
  // be; among its new fingerprints, the least key stays.
  using Put = check::SharedFingerprintSet::Put;
  CHECK(set.insert(fps[3], 1001, 1000) == Put::seen);
  CHECK(set.insert(fps[3], 1, 1000) == Put::seen);
  CHECK(set.owner(fps[3]) == least[3]);
  std::uint64_t fp = rng();
  while (set.owner(fp) != ~std::uint32_t{0}) fp = rng();
  Put first = set.insert(fp, 1500, 1000);
  while (first == Put::full) {
    set.start_growing(1);
    set.move(0);
    set.finish_growing();
    first = set.insert(fp, 1500, 1000);
  }
  CHECK(first == Put::fresh);
  CHECK(set.insert(fp, 1600, 1000) == Put::seen);
  CHECK(set.insert(fp, 1200, 1000) == Put::lowered);
  CHECK(set.insert(fp, 1200, 1000) == Put::seen);
  CHECK(set.owner(fp) == 1200);
}
