// Rules of spec/amd.hpp: s_barrier with s_waitcnt, gfx12 split barriers.
#include <doctest/doctest.h>

#include "spec/amd.hpp"

using namespace pc::spec;
using namespace pc::spec::amd;

TEST_CASE("amd: s_barrier completes when every wave has arrived, not before") {
  Barrier b = make_barrier(3);
  Wave w[3];
  for (int i = 0; i < 3; ++i) {
    Result r = s_barrier_arrive(b, w[i]);
    REQUIRE(r.out.ok());
    CHECK(r.out.phase_completed == (i == 2));
    b = r.barrier;
    w[i] = r.wave;
    if (i < 2) CHECK_FALSE(wait(b, w[i]).out.enabled);
  }
  for (Wave& x : w) {
    Result r = wait(b, x);
    CHECK(r.out.ok());
    CHECK_FALSE(r.wave.signaled);
  }
  CHECK(b.generation == 1);
  CHECK(b.arrived == 0);
}

TEST_CASE("amd: barrier reuse over many instances") {
  Barrier b = make_barrier(2);
  Wave w[2];
  for (std::uint32_t g = 0; g < 500; ++g) {
    for (Wave& x : w) {
      Result r = signal(b, x);
      REQUIRE(r.out.ok());
      CHECK(r.out.observed == g);
      b = r.barrier;
      x = r.wave;
    }
    for (Wave& x : w) {
      Result r = wait(b, x);
      REQUIRE(r.out.ok());
      x = r.wave;
    }
    CHECK(b.generation == g + 1);
  }
}

TEST_CASE("amd: s_barrier with LDS outstanding is amd_missing_waitcnt; after s_waitcnt lgkmcnt(0) it is fine") {
  Barrier b = make_barrier(2);
  Wave w = lds_issue(lds_issue(Wave{}));
  CHECK(w.lds_outstanding == 2);
  CHECK(s_barrier_arrive(b, w).out.violation == Violation::amd_missing_waitcnt);
  CHECK(signal(b, w).out.violation == Violation::amd_missing_waitcnt);  // gfx12 signal: same rule
  // s_waitcnt lgkmcnt(0) blocks until both complete.
  CHECK_FALSE(waitcnt_lgkm(w, 0).enabled);
  CHECK(waitcnt_lgkm(w, 2).enabled);
  w = lds_complete(w);
  CHECK_FALSE(waitcnt_lgkm(w, 0).enabled);
  CHECK(waitcnt_lgkm(w, 1).enabled);
  w = lds_complete(w);
  CHECK(waitcnt_lgkm(w, 0).enabled);
  CHECK(s_barrier_arrive(b, w).out.ok());
}

TEST_CASE("amd: LDS completion is an event that is only enabled while one is outstanding") {
  Wave w;
  CHECK_FALSE(lds_complete_enabled(w).enabled);
  w = lds_issue(w);
  CHECK(lds_complete_enabled(w).enabled);
  CHECK(lds_complete(w).lds_outstanding == 0);
}

TEST_CASE("amd: gfx12 s_barrier_wait without s_barrier_signal is split_barrier_misuse") {
  Barrier b = make_barrier(1);
  CHECK(wait(b, Wave{}).out.violation == Violation::split_barrier_misuse);
  Result r = signal(b, Wave{});
  REQUIRE(r.out.ok());
  CHECK(wait(r.barrier, r.wave).out.ok());
}

TEST_CASE("amd: a second signal before the wave's wait is split_barrier_misuse") {
  Barrier b = make_barrier(2);
  Result r = signal(b, Wave{});
  REQUIRE(r.out.ok());
  CHECK(signal(r.barrier, r.wave).out.violation == Violation::split_barrier_misuse);
}

TEST_CASE("amd: split barrier lets the wave work between signal and wait") {
  Barrier b = make_barrier(2);
  Result a = signal(b, Wave{});
  REQUIRE(a.out.ok());
  // Independent LDS work between signal and wait is allowed: the signal already happened.
  Wave busy = lds_issue(a.wave);
  Result other = signal(a.barrier, Wave{});
  REQUIRE(other.out.ok());
  CHECK(other.out.phase_completed);
  CHECK(wait(other.barrier, busy).out.ok());
}

TEST_CASE("amd: terminated waves are not waited for") {
  Barrier b = make_barrier(3);
  b = wave_exit(b, Wave{});
  CHECK(b.waves == 2);
  Result r = signal(b, Wave{});
  r = signal(r.barrier, Wave{});
  CHECK(r.out.phase_completed);

  // The last missing wave exits: the instance in progress completes.
  Barrier c = make_barrier(2);
  Result s = signal(c, Wave{});
  CHECK_FALSE(s.out.phase_completed);
  c = wave_exit(s.barrier, Wave{});
  CHECK(c.generation == 1);
  CHECK(wait(c, s.wave).out.ok());

  // A wave that signalled and exited without waiting takes its arrival with it.
  Barrier d = make_barrier(3);
  Result t = signal(d, Wave{});
  d = wave_exit(t.barrier, t.wave);
  CHECK(d.waves == 2);
  CHECK(d.arrived == 0);
  Result u = signal(d, Wave{});
  CHECK_FALSE(u.out.phase_completed);
  u = signal(u.barrier, Wave{});
  CHECK(u.out.phase_completed);
}

TEST_CASE("amd: each chip's wave size, barriers, LDS loads and counter limits") {
  CHECK(wave_size(Gfx::gfx90a) == 64);
  CHECK(wave_size(Gfx::gfx940) == 64);
  CHECK(wave_size(Gfx::gfx942) == 64);
  CHECK(wave_size(Gfx::gfx1200) == 32);
  CHECK(wave_size(Gfx::gfx1201) == 32);
  CHECK(wave_size(default_gfx) == 64);
  for (const Gfx g : {Gfx::gfx90a, Gfx::gfx940, Gfx::gfx942}) {
    CHECK_FALSE(has_split_barrier(g));
    CHECK(has_lds_dma(g));
    CHECK(max_vmcnt(g) == 63);
    CHECK(max_lgkmcnt(g) == 15);
  }
  for (const Gfx g : {Gfx::gfx1200, Gfx::gfx1201}) {
    CHECK(has_split_barrier(g));
    CHECK_FALSE(has_lds_dma(g));
    CHECK(max_vmcnt(g) == 63);
    CHECK(max_lgkmcnt(g) == 63);
  }
  // RDNA3 (gfx11): wave32, s_barrier only, no LDS-destination loads, 6-bit counters.
  for (const Gfx g : {Gfx::gfx1100, Gfx::gfx1101, Gfx::gfx1102}) {
    CHECK(wave_size(g) == 32);
    CHECK_FALSE(has_split_barrier(g));
    CHECK_FALSE(has_lds_dma(g));
    CHECK(max_vmcnt(g) == 63);
    CHECK(max_lgkmcnt(g) == 63);
  }
}

TEST_CASE("amd: s_waitcnt lgkmcnt(N) leaves at most N LDS instructions outstanding, the newest") {
  Wave w = lds_issue(lds_issue(lds_issue(Wave{})));
  CHECK(waitcnt(w, Waitcnt{no_wait, 5}).lds_outstanding == 3);  // nothing to wait for
  CHECK(waitcnt(w, Waitcnt{no_wait, no_wait}).lds_outstanding == 3);
  CHECK(waitcnt(w, Waitcnt{0, no_wait}).lds_outstanding == 3);  // vmcnt does not count LDS instructions
  w = waitcnt(w, Waitcnt{no_wait, 1});
  CHECK(w.lds_outstanding == 1);
  CHECK(waitcnt_lgkm(w, 1).enabled);
  CHECK(signal(make_barrier(2), w).out.violation == Violation::amd_missing_waitcnt);
  w = waitcnt(w, Waitcnt{no_wait, 0});
  CHECK(w.lds_outstanding == 0);
  CHECK(signal(make_barrier(2), w).out.ok());
}

TEST_CASE("amd: s_waitcnt vmcnt(N) completes gather-to-LDS loads oldest first; lgkmcnt leaves them") {
  Wave w;
  for (int i = 0; i < 4; ++i) w = vm_issue(w);
  CHECK(w.vm_issued == 4);
  CHECK(vm_outstanding(w) == 4);
  CHECK(waitcnt(w, Waitcnt{no_wait, 0}).vm_done == 0);  // lgkmcnt does not count them
  w = waitcnt(w, Waitcnt{1, no_wait});
  CHECK(w.vm_done == 3);  // loads 1..3 complete, load 4 may not be
  CHECK(vm_outstanding(w) == 1);
  w = waitcnt(w, Waitcnt{3, no_wait});
  CHECK(w.vm_done == 3);  // a looser wait undoes nothing
  w = vm_issue(w);
  CHECK(vm_outstanding(w) == 2);
  w = waitcnt(w, Waitcnt{0, 0});
  CHECK(w.vm_done == 5);
  CHECK(vm_outstanding(w) == 0);
  // Loads into LDS still in flight are not amd_missing_waitcnt at a barrier:
  // what they write is judged by the races it causes (docs/spec.md, "AMD").
  CHECK(signal(make_barrier(2), vm_issue(Wave{})).out.ok());
}
