// Generators of random kernels for the tests that compare searches (the
// partial-order reduction against none, several threads against one): each
// returns the text of a .bk kernel drawn from `rng`.
#pragma once

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "tests/kernel_text.hpp"

namespace pc::testgen {

// Three in four generated cluster kernels start every role with a
// cluster_sync, so that their CTAs are known to have started before any
// operation on another CTA (as the kernels they imitate ensure); the rest
// do not, and may reach peer_not_started.
inline std::string maybe_started(const std::string& k, std::mt19937& rng) {
  return rng() % 4 == 0 ? k : pc::testing::started(k);
}

// A producer and four interchangeable consumers around a two-slot ring, for
// `trips` trips: symmetry's case (the threads test, the reductions' floors).
inline std::string four_consumers(int trips) {
  const std::string n = std::to_string(trips);
  return "kernel sym\nsmem buf[2] bytes 512\nmbarrier full[2] count 1\nmbarrier empty[2] count 4\n"
         "role producer warp:\n  for i in 0.." + n + ":\n"
         "    wait empty[i % 2] parity ((i / 2) + 1) % 2\n"
         "    one: arrive_expect_tx full[i % 2] bytes 512\n"
         "    one: tma_load buf[i % 2] -> full[i % 2]\n"
         "role consumer warp x4:\n  for i in 0.." + n + ":\n"
         "    wait full[i % 2] parity (i / 2) % 2\n"
         "    one: read buf[i % 2]\n"
         "    fence_proxy_async\n"
         "    one: arrive empty[i % 2]\n";
}

// The objects of random_kernel and fragment_kernel: buffers a[0] and b[0],
// mbarriers m[0], m[1] (count `m_count`) and n[0] (count 1).
inline std::string two_buffers_head(const std::string& name, int m_count) {
  return "kernel " + name + "\nsmem a[1] bytes 256\nsmem b[1] bytes 256\nmbarrier m[2] count " + std::to_string(m_count) +
         "\nmbarrier n[1] count 1\n";
}
inline constexpr const char* two_buffers_bars[] = {"m[0]", "m[1]", "n[0]"};
inline constexpr const char* two_buffers_bufs[] = {"a[0]", "b[0]"};

// A random kernel: two CTAs' worth of objects in one CTA, three roles, each a
// short sequence of operations on two mbarriers and two buffers, some in a
// loop. Most are wrong in some way; what matters is that both searches agree.
inline std::string random_kernel(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  std::string k = two_buffers_head("gen", 1 + pick(2));
  for (int r = 0; r < 3; ++r) {
    k += "role r" + std::to_string(r) + " warp:\n";
    const bool loop = pick(3) == 0;
    const std::string ind = loop ? "    " : "  ";
    if (loop) k += "  for i in 0..2:\n";
    const int ops = 2 + pick(3);
    for (int i = 0; i < ops; ++i) {
      const std::string bar = two_buffers_bars[pick(3)], buf = two_buffers_bufs[pick(2)];
      switch (pick(9)) {
        case 0: k += ind + "one: arrive " + bar + "\n"; break;
        case 1: k += ind + "wait " + bar + " parity " + std::to_string(pick(2)) + "\n"; break;
        case 2: k += ind + "one: write " + buf + "\n"; break;
        case 3: k += ind + "all: read " + buf + "\n"; break;
        case 4: k += ind + "one: arrive_expect_tx " + bar + " bytes 256\n"; break;
        case 5: k += ind + "one: tma_load " + buf + " -> " + bar + "\n"; break;
        case 6: k += ind + "bar_sync 1, 64\n"; break;
        case 7: k += ind + "syncwarp\n"; break;
        default: k += ind + "one: tma_store " + buf + "\n"; break;
      }
    }
  }
  return k;
}

// A kernel of mostly independent roles, so that many verify: role r works on
// its own buffer o[r], arrives once on its own barrier m[r], and may wait for
// role r-1's barrier and then read role r-1's buffer (a race when r-1 writes
// it again after arriving).
inline std::string chained_kernel(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  std::string k = "kernel chain\nsmem o[3] bytes 256\nmbarrier m[3] count 1\n";
  for (int r = 0; r < 3; ++r) {
    const std::string me = std::to_string(r), prev = std::to_string(r - 1);
    k += "role r" + me + " warp:\n";
    const int ops = 2 + pick(4), arrive_at = pick(ops + 1), wait_at = r > 0 && pick(2) ? pick(ops + 1) : -1;
    for (int i = 0; i <= ops; ++i) {
      if (i == wait_at) k += "  wait m[" + prev + "] parity 0\n  one: read o[" + prev + "]\n";
      if (i == arrive_at) k += "  one: arrive m[" + me + "]\n";
      if (i == ops) break;
      switch (pick(4)) {
        case 0: k += "  one: write o[" + me + "]\n"; break;
        case 1: k += "  one: read o[" + me + "]\n"; break;
        case 2: k += "  syncwarp\n"; break;
        default: k += "  fence_proxy_async\n"; break;
      }
    }
  }
  return k;
}

// chained_kernel's roles with choices (`either: ... or: ...`): each role's
// arrive, its wait and read of role r-1's buffer, and its own accesses
// placed by each way of an either on its own (one way may arrive after a
// write the other does before it, or not arrive: a deadlock), some inside
// a loop of two trips, some nested.
inline std::string either_kernel(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  std::string k = "kernel choices\nsmem o[3] bytes 256\nmbarrier m[3] count " + std::to_string(pick(4) ? 1 : 2) + "\n";
  for (int r = 0; r < 3; ++r) {
    const std::string me = std::to_string(r), prev = std::to_string(r - 1);
    k += "role r" + me + " warp:\n";
    const bool loop = pick(4) == 0;
    const std::string ind = loop ? "    " : "  ";
    if (loop) k += "  for i in 0..2:\n";
    // One way: the role's sequence, its arrive (and wait) placed at random.
    auto way = [&](const std::string& in, bool nest) {
      std::string w;
      const int ops = 1 + pick(3), arrive_at = pick(3) ? ops : pick(ops + 2), wait_at = r > 0 && pick(2) ? pick(ops + 1) : -1;
      for (int i = 0; i <= ops; ++i) {
        if (i == wait_at) w += in + "wait m[" + prev + "] parity 0\n" + in + "one: read o[" + prev + "]\n";
        if (i == arrive_at) w += in + "one: arrive m[" + me + "]\n";
        if (i == ops) break;
        switch (pick(nest ? 5 : 4)) {
          case 0: w += in + "one: write o[" + me + "]\n"; break;
          case 1: w += in + "one: read o[" + me + "]\n"; break;
          case 2: w += in + "syncwarp\n"; break;
          case 3: w += in + "fence_proxy_async\n"; break;
          default:
            w += in + "either:\n" + in + "  one: write o[" + me + "]\n" + in + "or:\n" + in + "  one: read o[" + me + "]\n";
            break;
        }
      }
      return w;
    };
    if (pick(4) == 0) k += ind + "one: write o[" + me + "]\n";
    k += ind + "either:\n" + way(ind + "  ", true) + ind + "or:\n" + way(ind + "  ", true);
    if (pick(3) == 0) k += ind + "all: read o[" + me + "]\n";
  }
  return k;
}

// Two CTAs of a cluster: remote arrives, multicast loads and commits, the
// cluster barrier, cp.async arrivals, named barriers and early exits.
inline std::string cluster_kernel(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  std::string k = "kernel cl\ncluster 2\nsmem a[1] bytes 256\nsmem b[1] bytes 256\n";
  k += "mbarrier m[2] count " + std::to_string(1 + pick(2)) + "\n";
  for (int r = 0; r < 2 + pick(2); ++r) {
    k += "role r" + std::to_string(r) + " warp" + (pick(2) ? " on cta " + std::to_string(pick(2)) : "") + ":\n";
    const int ops = 2 + pick(4);
    for (int i = 0; i < ops; ++i) {
      const std::string bar = "m[" + std::to_string(pick(2)) + "]", buf = pick(2) ? "a[0]" : "b[0]";
      const std::string peer = std::to_string(pick(2));
      switch (pick(13)) {
        case 0: k += "  one: arrive " + bar + " @ " + peer + " release cluster\n"; break;
        case 1: k += "  wait " + bar + " parity " + std::to_string(pick(2)) + "\n"; break;
        case 2: k += "  one: arrive_expect_tx " + bar + " bytes 256\n"; break;
        case 3: k += "  one: tma_load " + buf + " -> " + bar + " multicast 3\n"; break;
        case 4: k += "  one: tma_load " + buf + " -> " + bar + "\n"; break;
        case 5: k += "  cluster_sync\n"; break;
        case 6: k += "  cp_async " + buf + "\n  cp_async_arrive " + bar + "\n"; break;
        case 7: k += "  one: read " + buf + " @ " + peer + "\n"; break;
        case 8: k += "  one: write " + buf + "\n"; break;
        case 9: k += "  bar_sync 1, 64\n"; break;
        case 10: k += "  one: tcgen05_commit " + bar + " multicast 3\n"; break;
        case 11:
          // st.async to either CTA, or red.async to the other one.
          k += std::string(pick(2) ? "  one:" : "  all:") +
               (pick(2) ? " st_async " + buf + " @ " + peer + " -> " + bar + " bytes " + (pick(2) ? "4" : "16")
                        : " red_async " + buf + " @ 1 - cta -> " + bar + " bytes 4") +
               "\n" + (pick(2) ? "  wait " + bar + " parity 0 cluster\n" : "");
          break;
        default: k += "  one: arrive " + bar + "\n"; break;
      }
    }
    if (pick(4) == 0) k += "  exit\n";
  }
  return maybe_started(k, rng);
}

// The operations the other generators leave out: an mbarrier's life (init,
// its fence, inval), expect_tx / complete_tx, arrive_drop, test_wait,
// try_wait, token waits and pending_count, named barriers in every form
// (bar_arrive, bar_red, syncthreads), the split cluster barrier and the
// tcgen05 fences, over one or two CTAs.
inline std::string misc_kernel(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const bool two = pick(3) == 0;
  std::string k = "kernel misc\n";
  if (two) k += "cluster 2\n";
  k += "smem a[1] bytes 256\nmbarrier m[2] count " + std::to_string(1 + pick(2)) + "\nmbarrier z[1]\n";
  const int roles = 2 + pick(2);
  for (int r = 0; r < roles; ++r) {
    k += "role r" + std::to_string(r) + " warp:\n";
    const int ops = 2 + pick(4);
    for (int i = 0; i < ops; ++i) {
      const std::string bar = pick(3) == 0 ? "z[0]" : "m[" + std::to_string(pick(2)) + "]";
      const std::string parity = std::to_string(pick(2));
      switch (pick(20)) {
        case 0: k += std::string(pick(4) ? "  one: init" : "  all: init") + " z[0] count 1\n"; break;
        case 1: k += "  one: fence_mbarrier_init\n"; break;
        case 2: k += "  one: inval " + bar + "\n"; break;
        case 3: k += "  one: expect_tx " + bar + " bytes 16\n"; break;
        case 4: k += "  one: complete_tx " + bar + " bytes 16\n"; break;
        case 5: k += "  one: arrive_drop " + bar + "\n"; break;
        case 6: k += "  r = test_wait " + bar + " parity " + parity + "\n"; break;
        case 7: k += "  r = try_wait " + bar + " parity " + parity + (pick(2) ? " relaxed" : "") + "\n"; break;
        case 8:
          k += "  t = arrive " + bar + (pick(2) ? " nocomplete" : "") + "\n  c = pending_count t\n";
          if (pick(2)) k += "  wait " + bar + " token t\n";
          break;
        case 9: k += "  bar_arrive 1, 64\n"; break;
        case 10: k += "  bar_sync 1, 64\n"; break;
        case 11: k += "  p = bar_red popc 2, 64, 1\n"; break;
        case 12: k += "  syncthreads\n"; break;
        case 13: k += "  cluster_arrive" + std::string(pick(2) ? " relaxed" : "") + "\n"; break;
        case 14: k += "  cluster_wait\n"; break;
        case 15: k += "  " + std::string(pick(2) ? "tcgen05_fence_before_thread_sync" : "tcgen05_fence_after_thread_sync") + "\n"; break;
        case 16: k += "  one: tcgen05_mma read a[0]\n"; break;
        case 17: k += std::string(pick(3) ? "  wait " : "  one: wait ") + bar + " parity " + parity + "\n"; break;
        case 18: k += "  one: write a[0]\n"; break;
        default: k += "  one: arrive " + bar + "\n"; break;
      }
    }
  }
  return two ? maybe_started(k, rng) : k;
}

// Tensor memory: warps allocating, accessing (tcgen05.ld/st, tcgen05.cp,
// an MMA's accumulator and A operand) and deallocating two allocations that
// do not always fit together (so alloc blocks), with commits, waits, fences
// and named barriers placed at random.
inline std::string tmem_kernel(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  std::string k = "kernel tmemgen\nsmem s[1] bytes 256\ntmem T[2] cols 128\ntmem U cols " +
                  std::string(pick(2) ? "256" : "512") + "\nmbarrier m[2] count 1\nmbarrier ready count 1\n";
  const int roles = 2 + pick(2);
  for (int r = 0; r < roles; ++r) {
    k += "role r" + std::to_string(r) + " warp:\n";
    // Mostly the usual shape: the first warp allocates and publishes, the
    // others wait for it; now and then not.
    if (r == 0 && pick(4) != 0) k += "  tcgen05_alloc T\n" + std::string(pick(2) ? "  one: arrive ready\n" : "");
    if (r != 0 && pick(4) != 0) k += "  wait ready parity 0\n" + std::string(pick(3) ? "  tcgen05_fence_after_thread_sync\n" : "");
    const int ops = 2 + pick(5);
    for (int i = 0; i < ops; ++i) {
      const std::string t = pick(6) == 0 ? "U" : "T[" + std::to_string(pick(2)) + "]";
      const std::string bar = "m[" + std::to_string(pick(2)) + "]";
      switch (pick(16)) {
        case 0: k += "  tcgen05_alloc " + std::string(pick(4) ? "U" : "T") + "\n"; break;
        case 1: k += "  tcgen05_dealloc " + std::string(pick(4) ? "U" : "T") + "\n"; break;
        case 2: k += "  one: tcgen05_commit " + bar + "\n  wait " + bar + " parity 0\n"; break;
        case 3: k += pick(3) ? "  tcgen05_wait_ld\n  tcgen05_fence_before_thread_sync\n" : "  tcgen05_relinquish_alloc_permit\n"; break;
        // (a use of the loads' registers in some slots, before the wait or
        // after it: the same random draws)
        case 4: k += "  tcgen05_ld " + t + "\n" + (i % 4 == 3 ? "  tcgen05_regs\n" : ""); break;
        case 5: k += "  tcgen05_st " + t + "\n"; break;
        case 6: k += "  tcgen05_wait_ld\n" + std::string(i % 2 == 1 ? "  tcgen05_regs\n" : ""); break;
        case 7: k += "  tcgen05_wait_st\n"; break;
        // (tcgen05.shift in every third slot of it: the same random draws)
        case 8: k += (i % 3 == 2 ? "  one: tcgen05_shift " + t : "  one: tcgen05_cp s[0] -> " + t) + "\n"; break;
        case 9: k += "  one: tcgen05_mma read s[0]" + std::string(pick(2) ? ", T[1]" : "") + " into " + t + "\n"; break;
        case 10: k += "  one: tcgen05_commit " + bar + "\n"; break;
        case 11: k += "  wait " + bar + " parity 0\n"; break;
        case 12: k += "  bar_sync 1, 64\n"; break;
        case 13: k += "  tcgen05_fence_before_thread_sync\n"; break;
        case 14: k += "  tcgen05_fence_after_thread_sync\n"; break;
        default: k += "  one: arrive " + bar + "\n"; break;
      }
    }
    if (r == 0 && pick(2)) k += "  tcgen05_dealloc T\n";
  }
  // A kernel that never allocates a buffer it accesses is bad input (a parse
  // error); an alloc no interleaving reaches keeps such runs checkable.
  k += "  if instance == 1:\n    tcgen05_alloc T\n    tcgen05_alloc U\n";
  return k;
}

// Tensor memory of a CTA pair (cta_group 2): warps of both CTAs issuing
// collective allocs, deallocs and relinquishes (matched or not, alone or
// with a single-CTA alloc), pair MMAs from either CTA into both halves,
// multicast commits, tcgen05.ld of a half, waits, barriers and remote arrives.
inline std::string tmem_pair_kernel(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  std::string k = "kernel tmempair\ncluster 2\nsmem s[1] bytes 256\ntmem T cols 128\ntmem U cols " +
                  std::string(pick(2) ? "256" : "512") + "\nmbarrier m[2] count 1\n";
  const int roles = 2;
  for (int r = 0; r < roles; ++r) {
    k += "role r" + std::to_string(r) + " warp:\n";
    if (r == 0 && pick(4) != 0) k += "  tcgen05_alloc T cta_group 2\n";
    const int ops = 2 + pick(4);
    for (int i = 0; i < ops; ++i) {
      const std::string t = pick(4) == 0 ? "U" : "T";
      const std::string bar = "m[" + std::to_string(pick(2)) + "]";
      // An operation of one CTA's warp, or (empty) of both.
      const std::string only = pick(3) == 0 ? "" : "if cta == " + std::to_string(pick(2)) + ":\n  ";
      const std::string in = only.empty() ? "  " : "  " + only + "  ";
      switch (pick(13)) {
        case 0: k += "  tcgen05_alloc " + t + " cta_group 2\n"; break;
        case 1: k += "  tcgen05_dealloc " + t + " cta_group 2\n"; break;
        case 2: k += "  tcgen05_relinquish_alloc_permit cta_group 2\n"; break;
        case 3: k += in + "tcgen05_alloc " + t + "\n"; break;
        case 4: k += in + "one: tcgen05_mma read s[0], s[0] @ (cta + 1) % 2 into " + t + " cta_group 2\n"; break;
        case 5: k += "  one: tcgen05_commit " + bar + " multicast 3 cta_group 2\n"; break;
        case 6: k += "  wait " + bar + " parity 0\n  tcgen05_fence_after_thread_sync\n"; break;
        case 7: k += "  tcgen05_ld " + t + "\n"; break;
        case 8: k += "  tcgen05_wait_ld\n"; break;
        case 9: k += "  bar_sync 1, 64\n"; break;
        case 10: k += "  one: arrive " + bar + " @ (cta + 1) % 2\n"; break;
        case 11: k += "  tcgen05_fence_before_thread_sync\n"; break;
        default: k += "  one: arrive " + bar + "\n"; break;
      }
    }
    if (r == 0 && pick(2)) k += "  tcgen05_dealloc T cta_group 2\n";
  }
  k += "  if instance == 1:\n    tcgen05_alloc T cta_group 2\n    tcgen05_alloc U cta_group 2\n";  // (as in tmem_kernel; one cta_group, as every tcgen05 instruction of a kernel must give)
  return maybe_started(k, rng);
}

// Two grids with programmatic dependent launch (`grids 2`): roles that read
// and write global buffers (their own grid's, the other grid's, one both
// read), store to them with TMA and wait with or without `.read`, wait for
// the primary grid (griddep_wait) and trigger the dependent's launch, at
// random.
inline std::string grid_kernel(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  std::string k = "kernel g\ngrids 2\ngmem x[3] bytes 4096\nsmem s[2] bytes 4096\nmbarrier full count 1\n";
  for (int r = 0; r < 2; ++r) {
    k += "role r" + std::to_string(r) + " warp:\n";
    const int ops = 2 + pick(4);
    for (int o = 0; o < ops; ++o) {
      const std::string g = pick(2) ? "x[grid]" : "x[grid + 1]";
      switch (pick(9)) {
        case 7: {
          // Member masks, right (0x1 for lane 0, the full mask for the
          // warp) and wrong, and the one-way fences (here, so that the
          // other generators' draws stay as they were).
          static const char* const others[] = {"  one: elect_sync mask 1\n", "  elect_sync\n", "  one: elect_sync\n",
                                               "  syncwarp mask 0xffffffff\n", "  syncwarp mask 0xffff\n",
                                               "  fence_release cta\n", "  one: fence_release cluster shared_cta\n",
                                               "  fence_acquire cta\n", "  one: fence_acquire cluster shared_cluster\n",
                                               "  one: fence_proxy_async release\n", "  one: fence_proxy_async acquire\n"};
          k += others[pick(11)];
          break;
        }
        case 0: k += pick(2) ? "  griddep_wait\n" : "  one: griddep_wait\n"; break;
        case 1: k += "  one: read " + g + "\n"; break;
        case 2: k += "  one: write " + g + "\n"; break;
        case 3: k += "  one: griddep_launch\n"; break;
        case 4:
          k += "  one: tma_store s[" + std::to_string(r) + "] to " + g + "\n  commit_group\n  " +
               (pick(2) ? "wait_group 0\n" : "wait_group_read 0\n");
          break;
        case 5: k += "  one: read x[2]\n"; break;
        case 6:
          k += r == 0 ? "  one: arrive_expect_tx full bytes 4096\n  one: tma_load s[0] -> full from " + g + "\n"
                      : "  wait full parity 0\n  one: read s[0]\n";
          break;
        default: k += "  bar_sync 1, 64\n"; break;
      }
    }
  }
  return k;
}

// Tensor maps (`tensormap`): written by the threads and by
// tensormap_cp_fenceproxy, released and acquired with the tensormap proxy
// fences (or, wrongly, with fence_proxy_async), read by TMA loads and stores
// through `map`, with barriers between roles placed at random; the second
// role sometimes has two interchangeable instances (symmetry, with the
// host's thread of happens-before in the states it renames).
inline std::string tensormap_kernel(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  std::string k = "kernel tmapgen\nsmem a bytes 4096\nsmem s bytes 128\ntensormap m[2]\nmbarrier full count 1\n";
  bool loaded = false;
  for (int r = 0; r < 2; ++r) {
    k += "role r" + std::to_string(r) + " warp" + (r == 1 && pick(2) ? " x 2" : "") + ":\n";
    const int ops = 2 + pick(5);
    for (int o = 0; o < ops; ++o) {
      const std::string map = "m[" + std::to_string(pick(2)) + "]";
      switch (pick(12)) {
        case 0: k += "  one: write s\n  syncwarp\n  tensormap_cp_fenceproxy s to " + map + "\n"; break;
        case 1: k += "  one: write " + map + "\n"; break;
        case 2: k += "  one: read " + map + "\n"; break;
        case 3: k += pick(2) ? "  fence_proxy_tensormap release\n" : "  one: fence_proxy_tensormap release gpu\n"; break;
        case 4: k += pick(2) ? "  fence_proxy_tensormap acquire " + map + "\n" : "  one: fence_proxy_tensormap acquire " + map + " sys\n"; break;
        case 5:
          if (r == 0 && !loaded) {
            loaded = true;
            k += "  one: arrive_expect_tx full bytes 4096\n  one: tma_load a -> full map " + map + "\n";
          } else {
            k += "  wait full parity 0\n";
          }
          break;
        case 6: k += "  one: tma_store a map " + map + "\n  one: commit_group\n  one: wait_group_read 0\n"; break;
        case 7: k += "  fence_proxy_async\n"; break;
        case 8: k += "  syncwarp\n"; break;
        default: k += "  syncthreads\n"; break;
      }
    }
  }
  return k;
}

// Memory laid out with aliases: a buffer over part of a two-stage array
// (where it lands and how long it is drawn at random, so it overlaps one
// stage, both or only part of one), a buffer over the bytes of two
// mbarriers and an mbarrier over one of them, accessed by lanes (plain and
// atomic), TMA loads and MMAs, with barriers, fences,
// syncwarps, inits and invals placed at random.
inline std::string layout_kernel(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const int o_bytes = 256 * (1 + pick(6));               // 256 .. 1536
  const int o_at = pick(2), o_off = 256 * pick(3);       // clamped below to the 2048 bytes of A
  const int room = 2048 - 1024 * o_at - o_off;
  const int bytes = o_bytes <= room ? o_bytes : room;
  const bool z_live = pick(3) != 0;  // the barriers under F initialised before start
  std::string k = "kernel layoutgen\nsmem A[2] bytes 1024\nsmem O bytes " + std::to_string(bytes) + " aliases A[" +
                  std::to_string(o_at) + "] offset " + std::to_string(o_off) +
                  "\nmbarrier m[2] count 1\nmbarrier z[2]" + (z_live ? " count 1" : "") + "\nsmem F bytes " +
                  std::string(pick(2) ? "16 aliases z[0]" : "8 aliases z[1]") + "\nmbarrier y aliases z[1]\n";
  const int roles = 2 + pick(2);
  for (int r = 0; r < roles; ++r) {
    k += "role r" + std::to_string(r) + " warp:\n";
    const int ops = 2 + pick(5);
    for (int i = 0; i < ops; ++i) {
      const std::string buf = pick(3) == 0 ? "O" : pick(4) == 0 ? "F" : "A[" + std::to_string(pick(2)) + "]";
      const std::string bar = "m[" + std::to_string(pick(2)) + "]";
      const std::string z = pick(4) == 0 ? "y" : "z[" + std::to_string(pick(2)) + "]";
      switch (pick(16)) {
        case 14: k += "  all: atomic " + buf + "\n"; break;
        case 15: k += "  one: atomic_load " + buf + "\n"; break;
        case 0: k += "  one: write " + buf + "\n"; break;
        case 1: k += "  one: read " + buf + "\n"; break;
        case 2: k += "  all: write " + buf + "\n"; break;
        case 3: k += "  all: read " + buf + "\n"; break;
        case 4: k += "  one: arrive_expect_tx " + bar + " bytes 256\n  one: tma_load " + buf + " -> " + bar + " bytes 256\n"; break;
        case 5: k += "  wait " + bar + " parity 0\n"; break;
        case 6: k += std::string(z_live ? "  one: inval " + z + "\n" : "") + "  one: init " + z + " count 1\n"; break;
        case 7: k += "  one: inval " + z + "\n"; break;
        case 8: k += "  fence_proxy_async\n"; break;
        case 9: k += "  syncwarp\n"; break;
        case 10: k += "  bar_sync 1, 64\n"; break;
        case 11:
          k += std::string(pick(2) ? "  one: tma_store " : "  one: tma_reduce ") + buf + "\n  one: commit_group\n" +
               (pick(2) ? "  one: wait_group_read 0\n" : "");
          break;
        case 12: k += "  one: arrive " + z + "\n"; break;
        default: k += "  one: arrive " + bar + "\n"; break;
      }
    }
  }
  return k;
}

// Cluster launch control: a scheduler warp requesting work into a ring of
// responses (multicast over two CTAs now and then), warps waiting for them,
// reading them and releasing the slot, with a random number of clusters left
// and now and then a step left out (the expect_tx, the proxy fence, the
// release, the exit on a failed response).
inline std::string clc_kernel(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const bool two = pick(3) == 0;
  const int stages = 1 + pick(2);
  const int trips = 1 + pick(3);
  const int consumers = 1 + pick(2);
  std::string k = "kernel clcgen\n" + std::string(two ? "cluster 2\n" : "") + "clc " + std::to_string(pick(3)) + "\n";
  k += "smem resp[" + std::to_string(stages) + "] bytes 16\n";
  k += "mbarrier full[" + std::to_string(stages) + "] count 1\n";
  k += "mbarrier empty[" + std::to_string(stages) + "] count " + std::to_string(consumers * (two ? 2 : 1) + 1) + "\n";
  const std::string mc = two ? " multicast 3" : "";
  const bool skip = pick(3) == 0;
  auto maybe = [&](const std::string& line) { return skip && pick(4) == 0 ? std::string() : line; };
  k += "role sched warp on cta 0:\n  go = 1\n  for i in 0.." + std::to_string(trips) + ":\n    s = i % " +
       std::to_string(stages) + "\n    if go == 1:\n";
  k += "      wait empty[s] parity (i / " + std::to_string(stages) + " + 1) % 2\n";
  k += maybe("      one: arrive_expect_tx full[s] bytes 16\n") +
       (two ? maybe("      one: arrive_expect_tx full[s] @ 1 bytes 16\n") : "");
  k += "      one: clc_try_cancel resp[s] -> full[s]" + mc + "\n";
  k += "      wait full[s] parity (i / " + std::to_string(stages) + ") % 2\n";
  k += "      go = clc_query resp[s]\n";
  k += maybe("      fence_proxy_async\n");
  k += "      " + std::string(pick(6) == 0 ? "all: " : "one: ") + "arrive empty[s] @ 0\n";
  for (int c = 0; c < consumers; ++c) {
    k += "role w" + std::to_string(c) + " warp:\n  go = 1\n  for i in 0.." + std::to_string(trips) + ":\n    s = i % " +
         std::to_string(stages) + "\n    if go == 1:\n";
    k += "      wait full[s] parity (i / " + std::to_string(stages) + ") % 2\n";
    k += "      go = clc_query resp[s]\n";
    k += maybe("      fence_proxy_async\n");
    k += maybe("      one: arrive empty[s] @ 0\n");
  }
  return two ? maybe_started(k, rng) : k;
}

// AMD: waves writing and reading LDS, s_waitcnt, s_barrier, on gfx942
// global_load_lds and vmcnt, on gfx1200 the split barrier, now and then a wait
// left out.
inline std::string amd_kernel(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  // CDNA (gather-to-LDS, vmcnt) or gfx12 (split barrier): no chip has both.
  const bool gfx12 = pick(2) == 0;
  std::string k = std::string("kernel amdgen\ntarget amd ") + (gfx12 ? "gfx1200" : "gfx942") + "\nsmem lds[2] bytes 256\n";
  const int roles = 2 + pick(2);
  for (int r = 0; r < roles; ++r) {
    k += "role w" + std::to_string(r) + " warp:\n";
    const int ops = 2 + pick(5);
    for (int i = 0; i < ops; ++i) {
      const std::string buf = "lds[" + std::to_string(pick(2)) + "]";
      switch (pick(8)) {
        case 0: k += "  all: write " + buf + "\n"; break;
        case 1: k += "  all: read " + buf + "\n"; break;
        case 2: k += "  s_waitcnt lgkmcnt(" + std::to_string(pick(2)) + ")\n"; break;
        case 3: k += "  s_barrier\n"; break;
        case 4: k += gfx12 ? "  s_barrier_signal\n" : "  global_load_lds " + buf + "\n"; break;
        case 5: k += gfx12 ? "  s_barrier_wait\n" : "  s_waitcnt vmcnt(" + std::to_string(pick(2)) + ")\n"; break;
        case 6: k += gfx12 ? "  s_waitcnt lgkmcnt(0)\n" : "  s_waitcnt vmcnt(0) lgkmcnt(0)\n"; break;
        default: k += "  s_waitcnt lgkmcnt(0)\n  s_barrier\n"; break;
      }
    }
  }
  return k;
}

// A ring-buffer pipeline per CTA (1 or 2 CTAs): a producer and C consumers,
// S stages, N iterations, optionally framed by cluster barriers and with a
// bug now and then (a wrong parity, a missing empty wait, a short count).
inline std::string pipeline_kernel(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const int ctas = 1 + pick(2), consumers = 1 + pick(2), stages = 1 + pick(2), iters = 1 + pick(3);
  const int bug = pick(8);  // 0..2: a bug; otherwise none
  const bool frame = ctas > 1 && pick(2);
  const std::string S = std::to_string(stages);
  std::string k = "kernel pipe\n";
  if (ctas > 1) k += "cluster 2\n";
  k += "smem buf[" + S + "] bytes 512\nmbarrier full[" + S + "] count 1\n";
  k += "mbarrier empty[" + S + "] count " + std::to_string(bug == 2 ? consumers + 1 : consumers) + "\n";
  k += "role producer warp:\n";
  if (frame) k += "  cluster_sync\n";
  k += "  for i in 0.." + std::to_string(iters) + ":\n";
  if (bug != 1) k += "    wait empty[i % " + S + "] parity ((i / " + S + ") + 1) % 2\n";
  k += "    one: arrive_expect_tx full[i % " + S + "] bytes 512\n";
  k += "    one: tma_load buf[i % " + S + "] -> full[i % " + S + "]\n";
  if (frame) k += "  cluster_sync\n";
  k += "role consumer warp x" + std::to_string(consumers) + ":\n";
  if (frame) k += "  cluster_sync\n";
  k += "  for i in 0.." + std::to_string(iters) + ":\n";
  k += "    wait full[i % " + S + "] parity " + (bug == 0 ? "(i / " + S + " + 1) % 2" : "(i / " + S + ") % 2") + "\n";
  if (pick(2)) k += "    fence_proxy_async\n";
  k += "    one: read buf[i % " + S + "]\n";
  const int use = pick(3);  // the read's value used before the release, after it, or not at all
  if (use == 1) k += "    one: consume buf[i % " + S + "]\n";
  k += "    one: arrive empty[i % " + S + "]\n";
  if (use == 2) k += "    one: consume buf[i % " + S + "]\n";
  if (frame) k += "  cluster_sync\n";
  return ctas > 1 ? maybe_started(k, rng) : k;
}

// Every async completion the model has, mixed at random over one or two
// CTAs: TMA loads (multicast too) and stores with bulk groups, cp.async with
// mbarrier arrivals, wgmma groups, tcgen05 commits (multicast too), remote
// arrives at either scope, relaxed waits and acq_rel/sc fences, proxy
// fences and plain accesses. Mostly wrong.
inline std::string async_kernel(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const bool two = pick(2);
  std::string k = "kernel mix\n";
  if (two) k += "cluster 2\n";
  k += "smem a[1] bytes 256\nsmem b[1] bytes 256\nmbarrier m[2] count " + std::to_string(1 + pick(2)) + "\n";
  const int roles = 2 + pick(2);
  for (int r = 0; r < roles; ++r) {
    // One agent per role (pinned to a CTA), so that the unreduced search stays small.
    const bool wg = pick(3) == 0;  // wgmma needs a warp group
    k += "role r" + std::to_string(r) + (wg ? " warpgroup" : " warp") + (two ? " on cta " + std::to_string(pick(2)) : "") + ":\n";
    const bool loop = pick(4) == 0;
    const std::string ind = loop ? "    " : "  ";
    if (loop) k += "  for i in 0..2:\n";
    const int ops = 2 + pick(4);
    for (int i = 0; i < ops; ++i) {
      const std::string bar = "m[" + std::to_string(pick(2)) + "]", buf = pick(2) ? "a[0]" : "b[0]";
      const std::string peer = two ? " @ " + std::to_string(pick(2)) : "";
      switch (pick(19)) {
        case 18: {
          const int g = pick(3);
          k += ind + (g == 0 ? "one: cp_async_commit\n" : g == 1 ? "one: cp_async_wait " + std::to_string(pick(2)) + "\n" : "one: cp_async_wait_all\n");
          break;
        }
        case 16: k += ind + (pick(2) ? "fence_acq_rel cta\n" : "one: fence_sc cluster\n"); break;
        case 17: k += ind + "wait " + bar + " parity " + std::to_string(pick(2)) + " relaxed" + (two && pick(2) ? " cluster" : "") + "\n"; break;
        case 0: k += ind + "one: tma_load " + buf + " -> " + bar + (two && pick(2) ? " multicast 3" : "") + "\n"; break;
        case 1: k += ind + "one: arrive_expect_tx " + bar + " bytes 256\n"; break;
        case 2: k += ind + "wait " + bar + " parity " + std::to_string(pick(2)) + (two && pick(2) ? " acquire cluster" : "") + "\n"; break;
        case 3: k += ind + "one: tma_store " + buf + "\n" + ind + "one: commit_group\n"; break;
        case 4: k += ind + "one: wait_group" + (pick(2) ? "_read " : " ") + std::to_string(pick(2)) + "\n"; break;
        case 5: k += ind + "one: cp_async " + buf + "\n"; break;
        case 6: k += ind + "one: cp_async_arrive " + bar + (pick(2) ? " noinc" : "") + "\n"; break;
        case 7:
          k += wg ? ind + "wgmma_fence\n" + ind + "wgmma read " + buf + "\n" + ind + "wgmma_commit\n" : ind + "one: read " + buf + "\n";
          break;
        case 8: k += wg ? ind + "wgmma_wait " + std::to_string(pick(2)) + "\n" : ind + "fence_proxy_async\n"; break;
        case 9: k += (pick(2) ? ind + "tcgen05_fence_after_thread_sync\n" : "") + ind + "one: tcgen05_mma read " + buf + "\n"; break;
        case 10: k += ind + "one: tcgen05_commit " + bar + (two && pick(2) ? " multicast 3" : "") + "\n"; break;
        case 11: k += ind + "one: arrive " + bar + peer + (pick(3) == 0 ? " release cluster" : pick(2) ? " relaxed cluster" : "") + "\n"; break;
        case 12: k += ind + (pick(2) ? "one: write " : "all: write ") + buf + "\n"; break;
        case 13: k += ind + (pick(2) ? "one: read " : "all: read ") + buf + "\n"; break;
        case 14: k += ind + "fence_proxy_async\n"; break;
        default: k += ind + "syncwarp\n"; break;
      }
    }
  }
  return two ? maybe_started(k, rng) : k;
}

// A pipeline whose stages are filled and drained by async operations of
// random kinds: TMA or cp.async fills, wgmma or tcgen05 reads with the
// empty barrier released by an arrive or a tcgen05.commit, so that many
// verify; now and then a fence or a wait is left out.
inline std::string async_pipeline(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const int stages = 1 + pick(2), iters = 1 + pick(3), fill = pick(2), drain = pick(3), bug = pick(6);
  const std::string S = std::to_string(stages), slot = "[i % " + S + "]";
  std::string k = "kernel apipe\nsmem buf[" + S + "] bytes 512\nmbarrier full[" + S + "] count 1\n";
  k += "mbarrier empty[" + S + "] count 1\n";
  k += "role producer warp:\n  for i in 0.." + std::to_string(iters) + ":\n";
  if (bug != 0) k += "    wait empty" + slot + " parity ((i / " + S + ") + 1) % 2\n";
  if (fill == 0) {
    k += "    one: arrive_expect_tx full" + slot + " bytes 512\n    one: tma_load buf" + slot + " -> full" + slot + "\n";
  } else {
    k += "    one: cp_async buf" + slot + "\n    one: cp_async_arrive full" + slot + " noinc\n";
  }
  k += "role consumer warp" + std::string(drain == 0 ? "group" : "") + ":\n  for i in 0.." + std::to_string(iters) + ":\n";
  k += "    wait full" + slot + " parity (i / " + S + ") % 2\n";
  if (fill == 1 && bug != 1) k += "    fence_proxy_async\n";
  if (drain == 0) {
    k += "    wgmma_fence\n    wgmma read buf" + slot + "\n    wgmma_commit\n";
    if (bug != 2) k += "    wgmma_wait 0\n";
    k += "    one: arrive empty" + slot + "\n";
  } else if (drain == 1) {
    k += "    one: tcgen05_mma read buf" + slot + "\n    one: tcgen05_commit empty" + slot + "\n";
    if (bug == 2) k += "    one: write buf" + slot + "\n";
  } else {
    k += "    one: read buf" + slot + "\n";
    if (bug == 2) k += "    one: arrive empty" + slot + "\n    one: read buf" + slot + "\n";
    else k += "    one: arrive empty" + slot + "\n";
  }
  return k;
}

// Roles split per warp (docs/dsl.md, "Warps of a role"): a role of two warps
// (one or two instances) whose body branches on `warp`, beside a plain warp,
// over one barrier and two buffers: one-lane operations outside the branches
// (warp 0's), `if lane == 0:` (each warp's lane 0), named barriers counted per
// warp, a warp that arrives where the other syncs, all-lane writes of the
// instance's parts. Many deadlock or race; both searches must agree.
inline std::string warp_kernel(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const int inst = 1 + pick(2);
  std::string k = "kernel wk\nsmem a[3] bytes 256\nmbarrier m[1] count " + std::to_string(1 + pick(3)) + "\n";
  const std::string all = std::to_string(64 * inst + 32), split = std::to_string(64 * inst);
  k += "role s warps 2" + std::string(inst > 1 ? " x 2" : "") + ":\n";
  k += "  if warp == " + std::to_string(pick(2)) + ":\n    one: write a[2]\n";
  const int ops = 2 + pick(3);
  for (int i = 0; i < ops; ++i) switch (pick(9)) {
      case 0: k += "  if warp == " + std::to_string(pick(2)) + ":\n    wait m[0] parity 0\n"; break;
      case 1: k += "  one: arrive m[0]\n"; break;
      case 2: k += "  if lane == 0:\n    arrive m[0]\n"; break;
      case 3: k += "  bar_sync 1, " + all + "\n"; break;
      case 4: k += "  all: write a[instance]\n"; break;
      case 5: k += "  if warp == 1:\n    bar_arrive 2, " + split + "\n  else:\n    bar_sync 2, " + split + "\n"; break;
      case 6: k += "  all: read a[" + std::to_string(pick(3)) + "]\n"; break;
      case 7: k += "  if warp == 0:\n    one: tma_store a[instance]\n    commit_group\n    wait_group_read " + std::to_string(pick(2)) + "\n"; break;
      default: k += "  syncwarp\n"; break;
    }
  k += "role p warp:\n";
  const int pops = 1 + pick(3);
  for (int i = 0; i < pops; ++i) switch (pick(5)) {
      case 0: k += "  wait m[0] parity " + std::to_string(pick(2)) + "\n"; break;
      case 1: k += "  one: arrive m[0]\n"; break;
      case 2: k += "  bar_sync 1, " + all + "\n"; break;
      case 3: k += "  one: write a[" + std::to_string(pick(3)) + "]\n"; break;
      default: k += "  all: read a[" + std::to_string(pick(3)) + "]\n"; break;
    }
  return k;
}

// A warp group split per warp that issues wgmma (one operation of its four
// warps), with waits, commits, per-warp branches and releases, against a
// producer warp that loads and writes the operands.
inline std::string wgmma_warp_kernel(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  std::string k = "kernel wgk\nsmem a[2] bytes 256\nmbarrier m[2] count 1\nrole g warpgroup:\n  wgmma_fence\n";
  const int ops = 2 + pick(3);
  for (int i = 0; i < ops; ++i) switch (pick(10)) {
      case 0: k += "  wgmma read a[" + std::to_string(pick(2)) + "]\n"; break;
      case 7: k += std::string("  wgmma_regs ") + (pick(3) == 0 ? "acc, a" : pick(2) ? "acc" : "a") + "\n"; break;
      case 8: k += (pick(2) ? "  wgmma_fence\n" : "") + std::string("  wgmma read a[") + std::to_string(pick(2)) + "] regs a\n"; break;
      case 1: k += "  wgmma_commit\n"; break;
      case 2: k += "  wgmma_wait " + std::to_string(pick(2)) + "\n"; break;
      case 3: k += "  if warp == " + std::to_string(pick(4)) + ":\n    one: arrive m[" + std::to_string(pick(2)) + "]\n"; break;
      case 4: k += "  wait m[" + std::to_string(pick(2)) + "] parity 0\n"; break;
      case 5: k += "  if warp == " + std::to_string(pick(4)) + ":\n    all: write a[" + std::to_string(pick(2)) + "]\n    fence_proxy_async\n"; break;
      case 6: k += "  wgmma read a[0], a[1]\n  wgmma_commit\n"; break;
      default: k += "  if warp == 0:\n    syncwarp\n"; break;
    }
  k += "  wgmma_commit\n  wgmma_wait 0\n  if warp == 1:\n    syncwarp\n";
  k += "role p warp:\n";
  const int pops = 1 + pick(3);
  for (int i = 0; i < pops; ++i) switch (pick(4)) {
      case 0: k += "  wait m[" + std::to_string(pick(2)) + "] parity 0\n"; break;
      case 1: k += "  one: arrive m[" + std::to_string(pick(2)) + "]\n"; break;
      case 2: k += "  one: arrive_expect_tx m[1] bytes 256\n  one: tma_load a[" + std::to_string(pick(2)) + "] -> m[1]\n"; break;
      default: k += "  one: write a[" + std::to_string(pick(2)) + "]\n"; break;
    }
  return k;
}

// A kernel of one role (three agents) whose shared-memory reads and writes
// carry no barriers (check-kernel --place-barriers): accesses by index
// constant, per agent or per trip, some under `if instance == c` or a
// uniform `if k == 1`, in loops nested two deep; gather-to-LDS loads on
// gfx942. `target` 0: gfx942, 1: gfx1200, 2: nvidia.
inline std::string placement_kernel(std::mt19937& rng, int target) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  std::string k = "kernel gen\n";
  k += target == 0 ? "target amd gfx942\n" : target == 1 ? "target amd gfx1200\n" : "target nvidia\n";
  k += "smem s[4] bytes 256\nrole w warp x 3:\n";
  const char* loop_vars[] = {"k", "j"};
  auto index = [&](int loops, bool own) -> std::string {
    if (own) {
      switch (pick(loops ? 3 : 2)) {
        case 0: return "instance";
        case 1: return "(instance + 1) % 3";
        default: return "(instance + " + std::string(loop_vars[loops - 1]) + ") % 3";
      }
    }
    switch (pick(loops ? 4 : 2)) {
      case 0: return std::to_string(pick(4));
      case 1: return "instance";
      case 2: return std::string(loop_vars[loops - 1]) + " % 2";
      default: return "2 + " + std::string(loop_vars[loops - 1]) + " % 2";
    }
  };
  auto access = [&](const std::string& ind, int loops, bool alone) {
    if (target == 0 && pick(5) == 0) return ind + "global_load_lds s[" + index(loops, !alone) + "]\n";
    if (pick(2)) return ind + "all: read s[" + index(loops, false) + "]\n";
    return ind + "all: write s[" + index(loops, !alone) + "]\n";
  };
  auto block = [&](auto& self, const std::string& ind, int depth, int loops) -> std::string {
    std::string b;
    const int n = 2 + pick(3);
    for (int i = 0; i < n; ++i) {
      const int c = pick(8);
      if (c == 0 && depth < 2) {
        b += ind + "for " + loop_vars[loops] + " in 0 .. 2:\n" + self(self, ind + "  ", depth + 1, loops + 1);
      } else if (c == 1) {
        b += ind + "if instance == " + std::to_string(pick(3)) + ":\n" + access(ind + "  ", loops, true);
        if (pick(2)) b += access(ind + "  ", loops, true);
      } else if (c == 2 && loops > 0) {
        b += ind + "if " + loop_vars[loops - 1] + " == 1:\n" + access(ind + "  ", loops, false);
      } else {
        b += access(ind, loops, false);
      }
    }
    return b;
  };
  return k + block(block, "  ", 0, 0);
}

// The fragment the bounded SMT search covers (checker/smt/bmc_fragment.hpp):
// one CTA, warps or warp groups, arrives, expect-tx, parity waits, TMA
// loads, named barriers (bar_sync, bar_arrive), syncwarp, proxy fences,
// init and inval of barriers initialised at launch, fence_mbarrier_init,
// early exits and accesses by one lane or all, some in a loop. Most are wrong in some way; what matters is that the engines agree.
inline std::string fragment_kernel(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  std::string k = two_buffers_head("frag", 1 + pick(2));
  const int roles = 2 + pick(2);
  for (int r = 0; r < roles; ++r) {
    k += "role r" + std::to_string(r) + (pick(5) == 0 ? " warpgroup:\n" : " warp:\n");
    const bool loop = pick(3) == 0;
    const std::string ind = loop ? "    " : "  ";
    if (loop) k += "  for i in 0..2:\n";
    const int ops = 2 + pick(3);
    for (int i = 0; i < ops; ++i) {
      const std::string bar = two_buffers_bars[pick(3)], buf = two_buffers_bufs[pick(2)];
      switch (pick(17)) {
        case 0: k += ind + "one: arrive " + bar + "\n"; break;
        case 1: k += ind + "wait " + bar + " parity " + (loop && pick(2) ? "i % 2" : std::to_string(pick(2))) + "\n"; break;
        case 2: k += ind + "one: write " + buf + "\n"; break;
        case 3: k += ind + "all: read " + buf + "\n"; break;
        case 4: k += ind + "one: arrive_expect_tx " + bar + " bytes " + (pick(3) ? "256" : "512") + "\n"; break;
        case 5: k += ind + "one: tma_load " + buf + " -> " + bar + "\n"; break;
        case 6: k += ind + "bar_sync 1, " + (pick(2) ? "64" : "96") + "\n"; break;
        case 7: k += ind + "syncwarp\n"; break;
        case 8: k += ind + "all: write " + buf + "\n"; break;
        case 9: k += ind + "one: read " + buf + "\n"; break;
        case 10: k += ind + "one: wait " + bar + " parity " + std::to_string(pick(2)) + "\n"; break;
        case 11: k += ind + "bar_arrive 1, 64\n"; break;
        case 12: k += ind + "fence_proxy_async\n"; break;
        case 13: k += ind + "one: expect_tx " + bar + " bytes 256\n"; break;
        case 14: k += ind + (pick(2) ? "one: inval " + bar : "one: init " + bar + " count 1") + "\n"; break;
        case 15: k += ind + "one: fence_mbarrier_init\n"; break;
        default: k += ind + (pick(4) ? "one: arrive " : "all: arrive ") + bar + "\n"; break;
      }
    }
    if (pick(6) == 0) k += "  exit\n  one: read a[0]\n";  // what comes after an exit never runs
  }
  return k;
}

// A two-stage TMA ring of N trips, with one of its synchronisations changed
// or not: mostly correct, so that the engines also agree on what verifies.
inline std::string fragment_ring(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const int mutation = pick(10);
  auto line = [&](int id, const std::string& text, const std::string& changed) {
    return mutation == id ? changed : text;
  };
  std::string k = "kernel ring\nparam N = " + std::to_string(1 + pick(4)) +
                  "\nsmem buf[2] bytes 256\nmbarrier full[2] count 1\nmbarrier empty[2] count " +
                  std::string(mutation == 9 ? "2" : "1") + "\n";
  k += "role producer warp:\n  for k in 0 .. N:\n";
  k += line(1, "    wait empty[k % 2] parity (k / 2 + 1) % 2\n", "");
  k += line(2, "    one: arrive_expect_tx full[k % 2] bytes 256\n", "    one: arrive_expect_tx full[k % 2] bytes 128\n");
  k += line(3, "    one: tma_load buf[k % 2] -> full[k % 2]\n", "    one: tma_load buf[(k + 1) % 2] -> full[k % 2]\n");
  k += "role consumer warp:\n  for k in 0 .. N:\n";
  k += line(4, "    wait full[k % 2] parity (k / 2) % 2\n", "    wait full[k % 2] parity k % 2\n");
  k += line(5, "    all: read buf[k % 2]\n", "    all: read buf[k % 2]\n    one: write buf[k % 2]\n");
  k += line(6, "    one: arrive empty[k % 2]\n", "    all: arrive empty[k % 2]\n");
  if (mutation == 7) k += "    syncwarp\n";
  if (mutation == 8) k += "  bar_sync 1, 64\nrole other warp:\n  bar_sync 1, 64\n";
  return k;
}

// A TMA handoff whose barrier the kernel initialises, by the producer or
// the consumer, with one of twelve changes or none: a missing fence or
// barrier, a wrong count, a second init, an inval too early or twice, an
// init that never comes, a re-init without inval, a copy completed by a
// thread's complete_tx, or a producer that exits early. Some are wrong,
// some only warn (the async proxy's use of its own thread's unfenced init).
inline std::string fragment_init(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const int mutation = pick(13);
  const bool by_producer = pick(2) == 0;
  const bool split_tx = pick(2) == 0;  // expect_tx, then a plain arrive
  const std::string fence = mutation == 1 ? "" : pick(3) == 0 ? "  fence_proxy_async\n" : "  one: fence_mbarrier_init\n";
  // Both roles then meet twice at `done` (count 2): a second phase.
  const bool two_phases = pick(3) == 0;
  const std::string init = mutation == 7 ? ""
                           : std::string("  ") + (mutation == 4 ? "all" : "one") + ": init full[0] count " +
                                 (mutation == 3 ? "2" : "1") + "\n  one: init done[0] count 2\n" + fence;
  const std::string meet = two_phases ? "  one: arrive done[0]\n  wait done[0] parity 0\n  one: arrive done[0]\n  wait done[0] parity 1\n" : "";
  const std::string sync = mutation == 2 ? "" : pick(2) ? "  syncthreads\n" : "  bar_sync 1, 64\n";
  std::string k = "kernel init\nsmem buf[1] bytes 256\nmbarrier full[1]\nmbarrier done[1]\n";
  k += "role producer warp:\n" + (by_producer ? init : "") + sync;
  if (mutation == 12) k += "  exit\n";
  if (split_tx) k += "  one: expect_tx full[0] bytes 256\n  one: arrive full[0]\n";
  else k += "  one: arrive_expect_tx full[0] bytes 256\n";
  if (mutation == 10) k += "  one: write buf[0]\n  one: complete_tx full[0] bytes 256\n";
  else k += "  one: tma_load buf[0] -> full[0]\n";
  k += meet;
  k += "role consumer warp:\n" + (by_producer ? "" : init) + sync + meet;
  if (mutation == 5) k += "  one: inval full[0]\n";
  k += "  wait full[0] parity 0\n  all: read buf[0]\n";
  if (mutation == 6) k += "  all: inval full[0]\n";
  if (mutation == 8) k += "  one: inval full[0]\n  one: init full[0] count 1\n";
  if (mutation == 9) k += "  one: init full[0] count 1\n";
  if (mutation == 11) k += "  one: inval full[0]\n  wait full[0] parity 1\n";
  return k;
}

// An AMD workgroup of two waves (gfx942, or gfx1200 with its split barrier)
// over two LDS buffers: writes and reads by every lane, gathers into LDS
// (gfx942), s_waitcnt of either counter, barriers, a branch on the wave and
// an early exit. Many race or misuse a barrier.
inline std::string fragment_amd(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const bool gfx12 = pick(2) == 0;
  std::string k = std::string("kernel amd\ntarget amd ") + (gfx12 ? "gfx1200" : "gfx942") +
                  "\nsmem x[3] bytes 256\nsmem y[1] bytes 256\nrole wave warp x 2:\n";
  const std::string ind = "  ";
  const int ops = 3 + pick(3);
  for (int i = 0; i < ops; ++i) {
    const std::string buf = pick(2) ? "x[instance]" : pick(2) ? "x[0]" : "y[0]";
    const std::string guard = pick(4) == 0 ? "if instance == 0:\n" + ind + "  " : "";
    switch (pick(9)) {
      case 0: k += ind + guard + "all: write " + buf + "\n"; break;
      case 1: k += ind + guard + "all: read " + buf + "\n"; break;
      case 2: k += ind + (gfx12 ? "all: write " : guard + "global_load_lds ") + buf + "\n"; break;
      case 3: k += ind + guard + "s_waitcnt vmcnt(" + std::to_string(pick(2)) + ")\n"; break;
      case 4: k += ind + guard + "s_waitcnt lgkmcnt(0)\n"; break;
      case 5:
        if (gfx12 && pick(2)) k += ind + "s_barrier_signal\n" + (pick(4) ? ind + "s_barrier_wait\n" : "");
        else k += ind + "s_barrier\n";
        break;
      case 6: k += ind + "s_waitcnt lgkmcnt(0)\n" + ind + "s_barrier\n"; break;
      case 7: k += ind + "s_waitcnt vmcnt(0) lgkmcnt(0)\n" + ind + "s_barrier\n"; break;
      default: k += ind + guard + "all: read " + buf + "\n"; break;
    }
  }
  if (pick(5) == 0) k += "  if instance == 1:\n    exit\n  s_waitcnt lgkmcnt(0)\n  s_barrier\n  all: read y[0]\n";
  return k;
}

// Two CTAs of a cluster in the second engine's fragment: remote arrives at
// either scope, waits at either scope, multicast loads, st.async into
// either CTA, the cluster barrier (whole or split), accesses of the other
// CTA's buffers, named barriers and early exits. Two roles, at most one of
// them on both CTAs (three agents).
inline std::string fragment_cluster(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  std::string k = "kernel fc\ncluster 2\nsmem a[1] bytes 256\nsmem b[1] bytes 256\n";
  k += "mbarrier m[2] count " + std::to_string(1 + pick(2)) + "\n";
  const int both = pick(3);  // the role on both CTAs (2: none)
  for (int r = 0; r < 2; ++r) {
    k += "role r" + std::to_string(r) + " warp" + (both == r ? "" : " on cta " + std::to_string(pick(2))) + ":\n";
    const int ops = 2 + pick(3);
    for (int i = 0; i < ops; ++i) {
      const std::string bar = "m[" + std::to_string(pick(2)) + "]", buf = pick(2) ? "a[0]" : "b[0]";
      const std::string peer = pick(2) ? std::to_string(pick(2)) : "1 - cta";
      const std::string scope = pick(2) ? " cluster" : " cta";
      switch (pick(12)) {
        case 0: k += "  one: arrive " + bar + " @ " + peer + " release" + scope + "\n"; break;
        case 1: k += "  wait " + bar + " parity " + std::to_string(pick(2)) + (pick(2) ? " acquire" + scope : "") + "\n"; break;
        case 2: k += "  one: arrive_expect_tx " + bar + " bytes 256\n"; break;
        case 3: k += "  one: tma_load " + buf + " -> " + bar + (pick(2) ? " multicast 3" : "") + "\n"; break;
        case 4: k += pick(2) ? "  cluster_sync\n" : "  cluster_arrive" + std::string(pick(2) ? " relaxed" : "") + "\n  cluster_wait\n"; break;
        case 5: k += std::string(pick(2) ? "  all:" : "  one:") + " read " + buf + " @ " + peer + "\n"; break;
        case 6: k += "  all: write " + buf + (pick(2) ? " @ " + peer : "") + "\n"; break;
        case 7: k += "  bar_sync 1, 32\n"; break;
        case 8:
          k += std::string(pick(2) ? "  one:" : "  all:") + " st_async " + buf + " @ " + peer + " -> " + bar + " bytes " +
               (pick(2) ? "4" : "16") + "\n";
          break;
        case 9: k += "  syncwarp\n"; break;
        default: k += "  one: arrive " + bar + "\n"; break;
      }
    }
    if (pick(5) == 0) k += "  exit\n";
  }
  return maybe_started(k, rng);
}

// A handoff between the two CTAs of a cluster, one of four kinds, correct
// or with one of nine mutations: data written into the peer's buffer then a
// remote arrive; an st.async into the peer; a multicast TMA load each CTA
// expects its half of; a barrier the kernel initialises, published to the
// peer through the cluster barrier. Each starts with a cluster barrier (but
// for the ninth mutation) that shows both CTAs have started, and ends with
// one that keeps a CTA from leaving while its peer may still use its memory.
inline std::string fragment_cluster_handoff(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const int kind = pick(4);
  const int mutation = pick(2) == 0 ? 0 : 1 + pick(9);
  const std::string wait_scope = mutation == 1 ? " acquire cta" : pick(2) ? " acquire cluster" : "";
  const std::string tail = mutation == 2 ? "" : pick(2) ? "  cluster_sync\n" : "  cluster_arrive\n  cluster_wait\n";
  std::string k = "kernel hand\ncluster 2\nsmem buf[1] bytes 256\nmbarrier full[1]";
  k += kind == 2 ? " count 1\n" : kind == 3 ? "\n" : " count 1\n";
  switch (kind) {
    case 0:  // write the peer's buffer, then arrive on its barrier
      k += "role sender warp on cta 0:\n  all: write buf[0] @ 1\n";
      if (mutation != 3) k += "  syncwarp\n";
      k += std::string("  one: arrive full[0] @ 1 ") + (mutation == 4 ? "release cta" : "release cluster") + "\n" + tail;
      k += "role receiver warp on cta 1:\n  wait full[0] parity 0" + wait_scope + "\n  all: read buf[0]\n";
      if (mutation == 5) k += "  all: write buf[0] @ 0\n";
      k += tail;
      break;
    case 1:  // st.async into the peer
      k += "role sender warp on cta 0:\n";
      if (mutation == 3) k += "  all: write buf[0] @ 1\n";
      k += std::string("  ") + (pick(2) ? "one" : "all") + ": st_async buf[0] @ 1 -> full[0] bytes 16\n";
      k += std::string("  one: arrive_expect_tx full[0] @ 1 bytes ") + (mutation == 4 ? "16" : "0") + " release cluster\n" + tail;
      k += "role receiver warp on cta 1:\n";
      if (mutation != 6) k += "  one: expect_tx full[0] bytes " + std::string(pick(2) ? "16" : "512") + "\n";
      k += "  wait full[0] parity 0" + wait_scope + "\n  all: read buf[0]\n" + tail;
      break;
    case 2:  // a multicast load from CTA 0, each CTA's barrier expecting it
      k += "role producer warp on cta 0:\n";
      if (mutation != 3) k += "  one: tma_load buf[0] -> full[0] multicast 3\n";
      else k += "  one: tma_load buf[0] -> full[0]\n";
      k += tail;
      k += "role consumer warp:\n  one: arrive_expect_tx full[0] bytes 256\n";
      k += "  wait full[0] parity 0" + wait_scope + "\n  all: read buf[0]\n";
      if (mutation == 4) k += "  all: write buf[0]\n";
      k += tail;
      break;
    default:  // a barrier initialised in the kernel, then used from the peer
      k += "role worker warp:\n  one: init full[0] count 1\n";
      if (mutation != 3) k += "  one: fence_mbarrier_init\n";
      k += mutation == 4 ? "" : std::string("  cluster_arrive") + (pick(2) ? " relaxed" : "") + "\n  cluster_wait\n";
      k += std::string("  one: arrive full[0] @ 1 - cta release ") + (mutation == 5 ? "cta" : "cluster") + "\n";
      k += "  wait full[0] parity 0" + wait_scope + "\n" + tail;
      break;
  }
  if (mutation == 7) k += "  exit\n";
  if (mutation == 8) k += "  one: arrive full[0] @ 1 - cta\n";
  return mutation == 9 ? k : pc::testing::started(k);  // 9: no cluster barrier first (peer_not_started)
}

// A chain of handoffs across the two CTAs of a cluster (issue 61, one
// stance per edge): agent 0 accesses q, then each agent waits for the one
// before it and arrives on the next one's barrier (in that agent's CTA,
// remote or not) at a random scope; agents along the chain may access q too,
// and the last one does. A .cta release into another CTA anywhere in the
// chain leaves the later accesses ordered only through a scope too narrow
// (scope_race for a read of a write, the scope_war warning for an
// overwrite); a second, local path through `side` may order them all the same.
inline std::string fragment_scope_chain(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  // Three agents: two hops, the .cta edge first or second. A fourth made the
  // bounded search's runs deep (with the start barrier, 40 s a kernel).
  const int n = 3;
  std::vector<int> cta(static_cast<std::size_t>(n));
  for (int& c : cta) c = pick(2);
  const int qcta = pick(2);
  const bool side = pick(3) == 0;  // agent 0 also arrives on `side`, the last agent waits for it
  std::string k = "kernel chain\ncluster 2\nsmem q bytes 64\n";
  for (int i = 0; i + 1 < n; ++i) k += "mbarrier b" + std::to_string(i) + " count 1\n";
  if (side) k += "mbarrier side count 1\n";
  auto access = [&](bool last) {
    const bool write = pick(2) == 0;
    return std::string("  ") + (pick(2) ? "one:" : "all:") + (write ? " write" : " read") + " q @ " + std::to_string(qcta) + "\n" +
           (last || pick(2) ? "" : "  syncwarp\n");
  };
  for (int i = 0; i < n; ++i) {
    const std::string me = std::to_string(cta[static_cast<std::size_t>(i)]);
    k += "role a" + std::to_string(i) + " warp on cta " + me + ":\n";
    if (i > 0) {
      k += "  wait b" + std::to_string(i - 1) + " parity 0" + (pick(2) ? " acquire cluster" : "") + "\n";
      if (i + 1 == n && side) k += "  wait side parity 0 acquire cluster\n";
    }
    if (i == 0 || i + 1 == n || pick(3) == 0) k += access(i + 1 == n);
    if (i == 0 || i + 1 < n) k += "  syncwarp\n";
    if (i == 0 && side) k += "  one: arrive side @ " + std::to_string(cta.back()) + " release cluster\n";
    if (i + 1 < n)
      k += "  one: arrive b" + std::to_string(i) + " @ " + std::to_string(cta[static_cast<std::size_t>(i + 1)]) + " release" +
           (pick(2) ? " cta" : " cluster") + "\n";
    k += "  cluster_arrive\n  cluster_wait\n";
  }
  return pc::testing::started(k);
}

// A cp.async handoff in the second engine's fragment: copies into one or
// two buffers in one or two cp.async-groups, a wait for them, then a named
// barrier or an mbarrier to the readers; or every warp of one role copies
// its own buffer and reads the other's after __syncthreads, for N trips (the
// FlashAttention-2 shape). `mutation` 1 to 8 is one change: no commit, no
// wait, a wait that leaves the last group in flight, a read or a write of a
// buffer a copy may still write, a last group the CTA exits without waiting
// for, an arrive the consumer does not wait for, or a wait_all in place of
// the commits and the wait (still correct); 0 none. The caller picks it,
// so that any sample of the kernels it draws in turn has each change.
inline std::string fragment_cp_async(std::mt19937& rng, int mutation) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const bool two = pick(2) == 0;
  std::string k = "kernel cpa\nparam N = " + std::to_string(1 + pick(2)) + "\nsmem buf[2] bytes 256\nmbarrier full[1] count 1\n";
  auto copies = [&](const std::string& ind, const std::string& first, const std::string& second) {
    std::string c = ind + "one: cp_async " + first + "\n";
    if (mutation != 1 && mutation != 8) c += ind + "one: cp_async_commit\n";
    if (two) c += ind + "one: cp_async " + second + "\n" + (mutation == 8 ? "" : ind + "one: cp_async_commit\n");
    if (mutation == 4) c += ind + "all: read " + first + "\n";
    if (mutation == 8) c += ind + "one: cp_async_wait_all\n";
    else if (mutation == 3) c += ind + "one: cp_async_wait 1\n";
    else if (mutation != 2) c += ind + "one: cp_async_wait 0\n";
    return c;
  };
  // Mutation 6: one more group, committed, that no one waits for.
  auto last_group = [&](const std::string& b) { return mutation == 6 ? "  one: cp_async " + b + "\n  one: cp_async_commit\n" : ""; };
  if (pick(3) == 0) {  // every warp copies its own buffer, then reads the other's
    k += "role w warp x 2:\n  for k in 0 .. N:\n";
    k += copies("    ", "buf[instance]", "buf[instance]");
    if (mutation == 5) k += "    all: write buf[1 - instance]\n";
    k += mutation == 7 ? "    syncwarp\n" : "    syncthreads\n";
    k += "    all: read buf[1 - instance]\n    syncthreads\n";
    return k + last_group("buf[instance]");
  }
  const int sync = pick(3);
  k += "role producer warp:\n" + copies("  ", "buf[0]", "buf[1]");
  k += sync == 0 ? "  bar_sync 1, 64\n" : sync == 1 ? "  syncthreads\n" : "  one: arrive full[0]\n";
  k += "role consumer warp:\n";
  if (mutation == 5) k += "  one: write buf[0]\n";
  if (sync == 2) k += mutation == 7 ? "" : "  wait full[0] parity 0\n";
  else k += mutation == 7 ? "  bar_arrive 1, 64\n" : sync == 0 ? "  bar_sync 1, 64\n" : "  syncthreads\n";
  k += std::string("  all: read buf[") + (two ? "1" : "0") + "]\n";
  return k + last_group("buf[0]");
}
// A tcgen05 pipeline in the second engine's fragment (shared-memory operands
// only): a producer fills S stages by TMA (in one CTA, or in both CTAs of a
// pair, each half signalling CTA 0's barrier) or by cp.async with
// cp.async.mbarrier.arrive (with or without noinc), an MMA warp on CTA 0
// waits for each stage, reads it with tcgen05.mma and frees it with a
// tcgen05.commit (multicast to the pair), then commits once more to `done`,
// which an epilogue in each CTA waits for before it writes a stage. N trips
// (one in a pair).
// `mutation` 1 to 8 is one change: the commit that frees a stage before its
// MMA, no wait for a full stage, no wait for `done`, a `done` barrier that
// wants two arrivals, the commit to `done` after the first MMA only, no
// fence.proxy.async between cp.async's writes and the MMA (TMA: no
// tcgen05 fence, a warning only), the pair's second epilogue not waiting,
// or a count the arrivals do not match; 0 none (as fragment_cp_async).
inline std::string fragment_tcgen05(std::mt19937& rng, int mutation) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const int shape = pick(4);  // 0: TMA in a pair (the SMT search's costliest), 1: TMA in one CTA, 2 and 3: cp.async
  const bool pair = shape == 0, cp = shape >= 2, noinc = cp && pick(2) == 0;
  const std::string mc = pair ? " multicast 3" : "";
  const int n = pair ? 1 : 1 + pick(2), stages = pair ? 1 : 1 + pick(2);  // a pair of one trip: the SMT search's size
  std::string k = "kernel tc\nparam N = " + std::to_string(n) + "\nparam S = " + std::to_string(stages) +
                  "\n" + (pair ? "cluster 2\n" : "") + "smem a[S] bytes 256\n";
  k += std::string("mbarrier full[S] count ") + (cp ? "32" : "1") + "\nmbarrier empty[S] count 1\nmbarrier done[1] count " +
       (mutation == 4 ? "2" : "1") + "\n";
  k += "role producer warp:\n  for k in 0 .. N:\n    s = k % S\n    wait empty[s] parity (k / S + 1) % 2\n";
  if (cp) {
    k += "    all: cp_async a[s]\n    all: cp_async_arrive full[s]" + std::string(noinc ? " noinc" : "") + "\n";
    if (noinc == (mutation == 8)) k += "    all: arrive full[s]\n";  // mutation 8: one too many, or one too few
  } else {
    const int bytes = (pair ? 512 : 256) / (mutation == 8 ? 2 : 1);
    k += std::string(pair ? "    if cta == 0:\n      one: arrive_expect_tx full[s] bytes " : "    one: arrive_expect_tx full[s] bytes ") +
         std::to_string(bytes) + "\n    one: tma_load a[s] -> full[s]" + (pair ? " @ 0" : "") + "\n";
  }
  k += "role mma warp on cta 0:\n  for k in 0 .. N:\n    s = k % S\n";
  if (mutation != 2) k += "    wait full[s] parity (k / S) % 2\n";
  if (cp && mutation != 6) k += "    all: fence_proxy_async\n";
  if (cp || mutation != 6) k += "    tcgen05_fence_after_thread_sync\n";
  if (mutation == 1) k += "    tcgen05_commit empty[s]" + mc + "\n";
  k += std::string("    tcgen05_mma read a[s]") + (pair ? ", a[s] @ 1" : "") + "\n";
  if (mutation != 1) k += "    tcgen05_commit empty[s]" + mc + "\n";
  if (mutation == 5) k += "    if k == 0:\n      tcgen05_commit done[0]" + mc + "\n";
  else k += "  tcgen05_commit done[0]" + mc + "\n";
  k += "role epilogue warp:\n";
  if (mutation == 7 && pair) k += "  if cta == 0:\n    wait done[0] parity 0\n";
  else if (mutation != 3) k += "  wait done[0] parity 0\n";
  // A pair's kernel has no cluster barrier first: its CTA-pair operations
  // are peer_not_started (a start barrier makes the second engine's search
  // too deep for the agreement test; the explicit search checks the pair
  // with one in tests/checker_tmem_test.cpp and the corpus).
  return k + "  all: write a[0]\n";
}

// Tensor memory in the second engine's fragment. In one CTA: an allocator
// warp allocates `acc`, writes its address to shared memory and publishes
// it with an arrive on `pub` (to the MMA warp) and a named barrier (to the
// epilogue); the MMA warp writes the accumulator with tcgen05.mma and
// commits to `full`; the epilogue waits for it, reads the
// accumulator with tcgen05.ld, waits for the load (tcgen05.wait::ld or
// tcgen05.fence::before_thread_sync) and arrives on `done`, which the
// allocator waits for before it deallocates. In a pair of CTAs: one warp
// per CTA allocates with cta_group 2 collectives, CTA 0's writes both
// halves of the accumulator with a pair-CTA MMA and commits to both CTAs,
// each reads its half, and a cluster barrier comes before the dealloc.
// `mutation` 1 to 8 is one change: the accumulator used before the
// address is known (one CTA: a relaxed arrive on `pub`, which orders
// nothing, so the MMA comes after the alloc in time but not in
// happens-before; a pair: the MMA before the alloc), no wait before the
// dealloc, no dealloc, an alloc twice, the permit relinquished before the
// alloc, no wait for the load, a second allocation that does not fit before
// the first is freed, and in one CTA a tcgen05.st of the accumulator before
// the load is waited for (in a pair: CTA 1's warp relinquishes where CTA
// 0's allocates); 0 none (as fragment_cp_async).
inline std::string fragment_tmem(std::mt19937& rng, int mutation) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const bool pair = pick(3) == 0;
  const std::string wait_ld = pick(2) == 0 ? "tcgen05_fence_before_thread_sync\n" : "tcgen05_wait_ld\n";
  std::string k = "kernel tm\n" + std::string(pair ? "cluster 2\n" : "") + "smem a bytes 256\nsmem ptr bytes 4\n";
  k += std::string("tmem acc cols ") + (mutation == 7 ? "512" : "64") + "\n" + (mutation == 7 ? "tmem more cols 32\n" : "");
  k += "mbarrier full count 1\nmbarrier done count 32\n";
  if (!pair) k += "mbarrier pub count 1\n";
  if (pair) {
    const std::string mma = "  if cta == 0:\n    tcgen05_mma read a, a @ 1 into acc cta_group 2\n    tcgen05_commit full multicast 3 cta_group 2\n";
    k += "role w warp:\n";
    if (mutation == 5) k += "  tcgen05_relinquish_alloc_permit cta_group 2\n";
    if (mutation == 8) k += "  if cta == 1:\n    tcgen05_relinquish_alloc_permit cta_group 2\n";
    if (mutation == 1) k += mma;
    k += "  tcgen05_alloc acc cta_group 2\n";
    if (mutation == 4) k += "  tcgen05_alloc acc cta_group 2\n";
    if (mutation == 7) k += "  tcgen05_alloc more cta_group 2\n";
    // Each CTA's alloc ordered before the pair's MMA into its half (no
    // rendezvous: spec::tmem::pair_issue).
    k += "  cluster_sync\n";
    if (mutation != 1) k += mma;
    k += "  wait full parity 0\n  tcgen05_fence_after_thread_sync\n  tcgen05_ld acc\n";
    if (mutation != 6) k += "  " + wait_ld;
    if (mutation != 2) k += "  cluster_sync\n";
    if (mutation != 3) k += "  tcgen05_dealloc acc cta_group 2\n";
    return pc::testing::started(k);
  }
  k += "role alloc warp:\n";
  if (mutation == 5) k += "  tcgen05_relinquish_alloc_permit\n";
  k += "  tcgen05_alloc acc\n";
  if (mutation == 4) k += "  tcgen05_alloc acc\n";
  if (mutation == 7) k += "  tcgen05_alloc more\n";
  k += std::string("  one: write ptr\n  one: arrive pub") + (mutation == 1 ? " relaxed" : "") + "\n  bar_sync 1, 64\n";
  if (mutation != 2) k += "  wait done parity 0\n  tcgen05_fence_after_thread_sync\n";
  if (mutation != 3) k += "  tcgen05_dealloc acc\n";
  k += "role mma warp:\n";
  k += mutation == 1 ? "  wait pub parity 0\n" : "  wait pub parity 0\n  all: read ptr\n";
  k += "  tcgen05_fence_after_thread_sync\n  tcgen05_mma read a into acc\n  tcgen05_commit full\n";
  k += "role epilogue warp:\n  bar_sync 1, 64\n  wait full parity 0\n  tcgen05_fence_after_thread_sync\n  tcgen05_ld acc\n";
  if (mutation == 8) k += "  tcgen05_st acc\n";
  if (mutation != 6) k += "  " + wait_ld;
  return k + "  all: arrive done\n";
}

// Cluster launch control in the second engine's fragment, as CUTLASS's
// sm100 persistent scheduler has it (kernels/field/cutlass_sm100_clc_gemm.bk):
// a scheduler warp of CTA 0 requests work into a ring of responses
// (multicast to both CTAs of a pair now and then) and stops at a failed one;
// a worker warp (in a pair, CTA 1's) waits for each response, reads it,
// fences and releases the slot on CTA 0's barrier (every lane arrives), and
// stops at a failure too; the scheduler waits for the last releases before
// it exits (producer_tail). The clusters left (`clc N`) are drawn, so that
// runs end by a failure or by the trip count. `mutation` 1 to 8 is one
// change: no proxy fence after the worker's read, a release by one lane of
// the worker, a scheduler that ignores a failed response (clc_misuse where
// a failure can come), no producer tail, a worker waiting for the wrong
// phase, no expect_tx, a worker that releases before it reads, a worker that
// never stops; 0 none (as fragment_cp_async). Two agents: a third takes the
// SMT search minutes.
inline std::string fragment_clc(std::mt19937& rng, int mutation) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const bool two = pick(3) == 0;
  const int stages = 1 + pick(2);
  const int trips = 1 + pick(2);
  const std::string S = std::to_string(stages);
  std::string k = "kernel clcfrag\n" + std::string(two ? "cluster 2\n" : "") + "clc " + std::to_string(pick(3)) + "\n";
  k += "smem resp[" + S + "] bytes 16\nmbarrier full[" + S + "] count 1\nmbarrier empty[" + S + "] count 64\n";
  auto loop = [&](const std::string& go) {
    return "  go = 1\n  n = 0\n  for i in 0.." + std::to_string(trips) + ":\n    if " + go + " == 1:\n      s = n % " + S + "\n";
  };
  const std::string release = "      all: arrive empty[s] @ 0\n";
  k += "role sched warp on cta 0:\n" + loop(mutation == 3 ? "1" : "go");
  k += "      wait empty[s] parity (n / " + S + " + 1) % 2\n";
  if (mutation != 6) k += std::string("      one: arrive_expect_tx full[s] bytes 16\n") + (two ? "      one: arrive_expect_tx full[s] @ 1 bytes 16\n" : "");
  k += std::string("      one: clc_try_cancel resp[s] -> full[s]") + (two ? " multicast 3" : "") + "\n";
  k += "      wait full[s] parity (n / " + S + ") % 2\n      go = clc_query resp[s]\n      fence_proxy_async\n" + release + "      n = n + 1\n";
  if (mutation != 4) k += "  for j in 0.." + S + ":\n    wait empty[(n + j) % " + S + "] parity ((n + j) / " + S + " + 1) % 2\n";
  k += std::string("role w warp") + (two ? " on cta 1" : "") + ":\n" + loop(mutation == 8 ? "1" : "go");
  k += "      wait full[s] parity (n / " + S + (mutation == 5 ? " + 1" : "") + ") % 2\n";
  if (mutation == 7) k += release;
  k += "      go = clc_query resp[s]\n";
  if (mutation != 1) k += "      fence_proxy_async\n";
  if (mutation == 2) k += "      one: arrive empty[s] @ 0\n";
  else if (mutation != 7) k += release;
  return two ? pc::testing::started(k + "      n = n + 1\n") : k + "      n = n + 1\n";
}

// An mbarrier laid over memory (`aliases`), in the second engine's
// fragment: a producer initialises it and a consumer waits on it, then the
// bytes are reused for data once the barrier is invalidated and a barrier
// orders the inval before the reuse. `mutation` 1 to 8 is one change: no
// inval, no barrier between the inval and the reuse, data written before the
// init and not ordered before it, an init over a second live barrier at the
// same bytes, a read of the bytes while the barrier is live, the reuse by
// the async proxy (a TMA load), an inval twice, or an access of bytes next
// to the barrier (still correct); 0 none (as fragment_cp_async).
inline std::string fragment_overlay(std::mt19937& rng, int mutation) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const std::string sync = pick(2) ? "  bar_sync 1, 64\n" : "  syncthreads\n";
  std::string k = "kernel overlay\nsmem arena bytes 512\nmbarrier bar[1] aliases arena\nmbarrier two[1] aliases arena\n"
                  "smem d bytes 256 aliases arena\nsmem e bytes 256 aliases arena offset 256\nmbarrier full[1] count 1\n";
  k += "role producer warp:\n";
  if (mutation == 3) k += "  all: write d\n";
  else k += sync;
  k += "  one: init bar[0] count 1\n  one: fence_mbarrier_init\n";
  if (mutation == 4) k += "  one: init two[0] count 1\n";
  k += sync + "  one: arrive bar[0]\n";
  if (mutation == 5) k += "  all: read d\n";
  if (mutation == 8) k += "  all: write e\n";
  k += sync;
  if (mutation != 1) k += std::string("  ") + (mutation == 7 ? "all" : "one") + ": inval bar[0]\n";
  if (mutation != 2) k += sync;
  if (mutation == 6) k += "  one: arrive_expect_tx full[0] bytes 256\n  one: tma_load d -> full[0]\n  wait full[0] parity 0\n";
  else k += "  all: write d\n";
  k += "role consumer warp:\n" + (mutation == 3 ? std::string() : sync) + sync + "  wait bar[0] parity 0\n" + sync;
  if (mutation != 2) k += sync;
  k += pick(2) ? "  all: read e\n" : "";
  return k;
}

// Arrivals of several warps that may complete a phase in the middle
// (spec::mbarrier::arrive_units): a role `g` of W warps writes, then
// executes one arrive by `each:` (a lane per warp) or `all:` lanes, and
// two one-warp roles arrive, wait and read, on barriers whose counts make
// a phase complete with part of g's warps. `split`: g's arrive under
// `if warp >= 0:`, so that each warp of g is an agent and arrives in its own
// step, in every order: the per-warp reference. g's body ends with its
// arrive, so that its warps differ in nothing else.
inline std::string group_arrive_kernel(std::mt19937& rng, bool split) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  static constexpr int counts[] = {1, 2, 3, 4, 32, 33, 34, 64, 65, 96};
  const int warps = 2 + pick(2);
  std::string k = "kernel group\nsmem x[2] bytes 256\nmbarrier m[2] count " + std::to_string(counts[pick(10)]) +
                  "\nmbarrier n[1] count " + std::to_string(counts[pick(4)]) + "\n";
  k += "role g warps " + std::to_string(warps) + ":\n";
  if (pick(3) != 0) k += "  all: write x[0]\n";
  if (pick(2) == 0) k += "  one: write x[1]\n";
  switch (pick(4)) {
    case 0: k += "  syncwarp\n"; break;
    case 1: k += "  bar_sync 1, " + std::to_string(32 * warps) + "\n"; break;
    default: break;
  }
  const std::string bar = pick(3) == 0 ? "n[0]" : "m[0]";
  const std::string arrive = std::string(pick(2) ? "each" : "all") + ": arrive " + bar + (pick(4) == 0 ? " count 2" : "") + "\n";
  k += split ? "  if warp >= 0:\n    " + arrive : "  " + arrive;
  for (int r = 0; r < 2; ++r) {
    k += "role o" + std::to_string(r) + " warp:\n";
    const int ops = 2 + pick(3);
    for (int i = 0; i < ops; ++i) {
      const std::string b = pick(3) == 0 ? "n[0]" : "m[" + std::to_string(pick(2)) + "]";
      const std::string x = "x[" + std::to_string(pick(2)) + "]";
      switch (pick(7)) {
        case 0: k += "  one: arrive " + b + "\n"; break;
        case 1: k += "  all: arrive " + b + "\n"; break;
        case 2:
        case 3: k += "  wait " + b + " parity " + std::to_string(pick(2)) + "\n"; break;
        case 4: k += "  one: read " + x + "\n"; break;
        case 5: k += "  all: read " + x + "\n"; break;
        default: k += "  one: write " + x + "\n"; break;
      }
    }
  }
  return k;
}

// As group_arrive_kernel, but every phase completes: g's arrive and o0's
// add up to K phases of m[0] (K odd, so that o1's wait for parity 0 passes
// whenever it runs), and o1 waits, then reads what g wrote: a race exactly
// where phase 0 may complete before every warp of g that knows the write
// has arrived.
inline std::string group_arrive_balanced(std::mt19937& rng, bool split) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const int warps = 2 + pick(2);
  std::string g = "role g warps " + std::to_string(warps) + ":\n";
  const int writes = pick(3);
  if (writes != 1) g += "  all: write x[0]\n";
  if (writes != 0) g += "  one: write x[0]\n";
  switch (pick(4)) {
    case 0: g += "  syncwarp\n"; break;
    case 1: g += "  bar_sync 1, " + std::to_string(32 * warps) + "\n"; break;
    default: break;
  }
  const bool each = pick(2) == 0;
  const int per = 1 + pick(2);
  const std::string arrive = std::string(each ? "each" : "all") + ": arrive m[0]" + (per > 1 ? " count 2" : "") + "\n";
  g += split ? "  if warp >= 0:\n    " + arrive : "  " + arrive;
  // A warp's arrive-ons are one (spec::mbarrier::arrive_units): a phase of
  // a few of g's warps' arrivals, K phases in all (K odd), the rest o0's
  // arrives of at most a phase each.
  const long unit = each ? per : 32 * per, mine = unit * warps;
  const long count = unit * (1 + pick(warps)) + (pick(4) == 0 ? pick(3) : 0);
  long phases = 1;
  while (phases * count < mine) phases += 2;
  phases += 2 * pick(2);
  std::string o0 = "role o0 warp:\n";
  for (long rest = phases * count - mine; rest > 0;) {
    const long c = std::min(rest, pick(2) ? unit : 1 + static_cast<long>(pick(static_cast<int>(count))));
    o0 += c == 1 ? "  one: arrive m[0]\n" : "  one: arrive m[0] count " + std::to_string(c) + "\n";
    rest -= c;
  }
  if (o0 == "role o0 warp:\n") o0 += "  syncwarp\n";
  std::string k = "kernel balanced\nsmem x[1] bytes 256\nmbarrier m[1] count " + std::to_string(count) + "\n";
  k += g + o0 + "role o1 warp:\n  wait m[0] parity 0\n" + (pick(2) ? "  one: read x[0]\n" : "  all: read x[0]\n");
  return k;
}

// A warp group's wgmma: one step of the warp-group agent, its four warps in
// step (docs/spec.md, "Beyond the sentence": wgmma .sync). `split`: g's
// arrive under `if warp >= 0:`, so that each warp of g is an agent
// throughout (a role that reads `warp` is one agent per warp) and the wgmma
// one operation its four warps join: the per-warp reference. Role g
// (a warp group) writes its operand a[0] (with or without the proxy fence),
// issues wgmmas reading a[0] and a[1] (with or without wgmma_fence, commits
// and waits in some order), and around them arrives on m (each warp's lane,
// or all lanes) and meets p at a named barrier; role p waits on m,
// then overwrites a[0] or a[1] and reads them.
inline std::string wgmma_group_kernel(std::mt19937& rng, bool split) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  // (`one:` is the role's one elected lane, which the split form makes each
  // warp's: not the same kernel.)
  static constexpr const char* arrives[] = {"each: arrive m", "all: arrive m"};
  // Half the kernels keep the order a correct pipeline has (the fences, the
  // arrive after the wait, a count of the arrivals g makes); the others
  // drop or move a piece at random.
  const bool careful = pick(2) == 0;
  auto keep = [&](int odds) { return careful || pick(odds) != 0; };
  const int kind = pick(2);
  const std::string arrive = arrives[kind];
  std::vector<std::string> body;
  if (pick(3) != 0) {
    body.push_back("all: write a[0]");
    if (keep(4)) body.push_back("all: fence_proxy_async");
  }
  if (pick(2) == 0) body.push_back("bar_sync 1, 160");
  if (keep(6)) body.push_back("wgmma_fence");
  const int mmas = 1 + pick(2);
  const int arrive_at = careful ? mmas + 1 : pick(mmas + 2);  // before the i-th wgmma, or after the wait
  bool committed = true;
  for (int i = 0; i < mmas; ++i) {
    if (arrive_at == i) body.push_back(arrive);
    body.push_back("wgmma read a[" + std::to_string(pick(2)) + "]");
    committed = keep(4);
    if (committed) body.push_back("wgmma_commit");
  }
  if (arrive_at == mmas) body.push_back(arrive);
  if (keep(4) || !committed) {
    if (!committed) body.push_back("wgmma_commit");
    body.push_back("wgmma_wait 0");
  }
  if (pick(2) == 0) body.push_back(std::string(pick(2) ? "one" : "all") + ": read a[" + std::to_string(pick(2)) + "]");
  if (arrive_at == mmas + 1) body.push_back(arrive);
  if (!careful && pick(3) == 0) body.push_back(std::string(pick(2) ? "one" : "all") + ": read a[" + std::to_string(pick(2)) + "]");
  const bool named = std::find(body.begin(), body.end(), "bar_sync 1, 160") != body.end();
  static constexpr int odd_counts[] = {1, 2, 129, 5};
  const int count = careful || pick(3) != 0 ? (kind == 0 ? 4 : 128) : odd_counts[pick(4)];
  std::string k = "kernel wgmma_group\nsmem a[2] bytes 1024\nmbarrier m count " + std::to_string(count) + "\n";
  k += "role g warpgroup:\n";
  for (const std::string& line : body) k += (split && line == arrive ? "  if warp >= 0:\n    " : "  ") + line + "\n";
  k += "role p warp:\n";
  if (named) k += "  bar_sync 1, 160\n";
  k += "  wait m parity 0\n";
  k += std::string("  ") + (pick(2) ? "one" : "all") + ": write a[" + std::to_string(pick(2)) + "]\n";
  if (pick(2) == 0) k += "  one: read a[" + std::to_string(pick(2)) + "]\n";
  return k;
}

// Named-barrier arrivals of several warps that may complete an instance in
// the middle (spec::named::arrive_warps): a role `g` of W warps accesses x,
// then executes one bar_sync (or bar_arrive) of barrier 1, whose count is
// c warps; two one-warp roles arrive on it too (bar_arrive, or bar_sync for
// their last), in all a multiple of c warps or one warp short (a deadlock),
// and access x before and after. `split`: g's barrier under `if warp >= 0:`,
// so that each warp of g is an agent and arrives in its own step, in every
// order: the per-warp reference. After its barrier g only reads, so that its
// warps in step (the compact form) can wait for nothing the per-warp form
// lets one warp do first.
inline std::string group_named_kernel(std::mt19937& rng, bool split) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const int warps = 2 + pick(3), c = 1 + pick(warps + 1);
  int others = c - warps % c;  // the two other roles' arrivals: the last instance's rest
  if (others == c && pick(2)) others = 0;
  if (others == 0 && warps % c == 0) others += c * pick(2);
  if (pick(8) == 0) others = std::max(0, others - 1);  // one warp short: the last instance never completes
  const std::string bar = std::to_string(32 * c);
  std::string k = "kernel named_group\nsmem x[2] bytes 256\n";
  k += "role g warps " + std::to_string(warps) + ":\n";
  if (pick(3) != 0) k += "  all: write x[0]\n";
  if (pick(2) == 0) k += "  one: write x[1]\n";
  if (pick(4) == 0) k += "  syncwarp\n";
  const std::string sync = std::string(pick(4) == 0 ? "bar_arrive" : "bar_sync") + " 1, " + bar + "\n";
  k += split ? "  if warp >= 0:\n    " + sync : "  " + sync;
  for (int i = pick(3); i > 0; --i) k += std::string("  ") + (pick(2) ? "one" : "all") + ": read x[" + std::to_string(pick(2)) + "]\n";
  const int first = pick(others + 1);
  for (int r = 0; r < 2; ++r) {
    const int n = r == 0 ? first : others - first;
    k += "role o" + std::to_string(r) + " warp:\n";
    if (pick(2) == 0) k += "  one: write x[" + std::to_string(pick(2)) + "]\n";
    for (int i = 0; i < n; ++i) k += std::string("  ") + (i + 1 == n && pick(2) ? "bar_sync" : "bar_arrive") + " 1, " + bar + "\n";
    if (pick(2) == 0) k += std::string("  ") + (pick(2) ? "one" : "all") + ": read x[" + std::to_string(pick(2)) + "]\n";
    if (n == 0) k += "  syncwarp\n";
  }
  return k;
}

// A multi-warp role with operations of one of its warps (`warp K:`, the
// whole warp or its elected lane: writes, reads, arrives) among the whole
// role's (reads, waits, syncwarp, a named barrier with a one-warp role),
// and that one-warp role arriving, waiting, reading and writing. With
// `split` the same kernel with the multi-warp role run per warp (each
// `warp K: X` written `if warp == K: X`): the reference.
inline std::string warp_prefix_kernel(std::mt19937& rng, bool split) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const int warps = 2 + pick(2);
  const std::string counts[] = {"1", "2", "32", "33", "64"};
  std::string k = "kernel warp_prefix\nsmem x[2] bytes 256\nmbarrier m[2] count " + counts[pick(5)] + "\n";
  const int syncs = pick(3) == 0 ? 1 : 0;
  const std::string bar = "bar_sync 1, " + std::to_string(32 * warps + 32) + "\n";
  // The role's bulk async-group operations are one warp's (docs/dsl.md).
  const int store_warp = pick(warps);
  auto in_warp = [&](std::string& out, int w, const std::string& op) {
    out += split ? "  if warp == " + std::to_string(w) + ":\n    " + op + "\n" : "  warp " + std::to_string(w) + ": " + op + "\n";
  };
  auto warp_op = [&](std::string& out) {
    const int w = pick(warps);
    const std::string one = pick(2) ? "one: " : "";
    switch (pick(4)) {
      case 0: in_warp(out, w, one + "write x[" + std::to_string(pick(2)) + "]"); break;
      case 1: in_warp(out, w, one + "read x[" + std::to_string(pick(2)) + "]"); break;
      case 2: in_warp(out, w, one + "arrive m[" + std::to_string(pick(2)) + "]"); break;
      default:  // a TMA store of its elected lane, committed, maybe waited for
        in_warp(out, store_warp, "one: tma_store x[" + std::to_string(pick(2)) + "]");
        in_warp(out, store_warp, "one: commit_group");
        if (pick(2)) in_warp(out, store_warp, "one: wait_group_read 0");
        break;
    }
  };
  k += "role g warps " + std::to_string(warps) + ":\n";
  std::string body;
  warp_op(body);
  int synced = 0;
  for (int i = 1 + pick(4); i > 0; --i) {
    switch (pick(6)) {
      case 0: body += "  " + std::string(pick(2) ? "all" : "one") + ": read x[" + std::to_string(pick(2)) + "]\n"; break;
      case 1: body += "  wait m[" + std::to_string(pick(2)) + "] parity 0\n"; break;
      case 2: body += "  syncwarp\n"; break;
      case 3:
        if (synced < syncs) {
          body += "  " + bar;
          ++synced;
          break;
        }
        [[fallthrough]];
      default: warp_op(body); break;
    }
  }
  for (; synced < syncs; ++synced) body += "  " + bar;
  if (body.find("tma_store") != std::string::npos && pick(2)) in_warp(body, store_warp, "one: wait_group_read 0");
  k += body + "role o warp:\n";
  for (int i = 1 + pick(3), s = 0; i > 0 || s < syncs; --i) {
    if (i <= 0 || (s < syncs && pick(3) == 0)) {
      k += "  " + bar;
      ++s;
      continue;
    }
    switch (pick(4)) {
      case 0: k += "  one: arrive m[" + std::to_string(pick(2)) + "]\n"; break;
      case 1: k += "  wait m[" + std::to_string(pick(2)) + "] parity 0\n"; break;
      case 2: k += "  one: write x[" + std::to_string(pick(2)) + "]\n"; break;
      default: k += "  all: read x[" + std::to_string(pick(2)) + "]\n"; break;
    }
  }
  return k;
}


// Runs of reads and consumes around a one-slot ring (the PTX front end's
// coalescing, checker/ptx/coalesce.hpp): a producer fills a[0] (by TMA or
// by stores) and b[0], releases `full`, then waits `empty` and overwrites
// a[0] by TMA or by a store; two consumers wait `full` (and the TMA's
// barrier), read and consume a[0], b[0] and `c` (the first 128 bytes of
// a[0]) in runs by all lanes or by one, maybe fence the proxies, and arrive
// on `empty`. Each ordering is left out at random, so some kernels race (a
// cross-proxy overwrite of reads not consumed, a read before the fill) and
// many verify; what matters is that the kernel with its runs made one step
// agrees with the kernel as written.
inline std::string read_runs_kernel(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  static constexpr const char* bufs[] = {"a[0]", "b[0]", "c"};
  static constexpr const char* lanes[] = {"all: ", "one: "};
  auto run = [&](const std::string& ind) {
    std::string k;
    const std::string who = lanes[pick(2)];
    for (int n = 1 + pick(5); n > 0; --n)
      k += ind + (pick(5) == 0 ? lanes[pick(2)] : who) + (pick(5) < 2 ? "consume " : "read ") + bufs[pick(3)] + "\n";
    return k;
  };
  const bool tma = pick(2) == 0, refill_tma = pick(2) == 0;
  std::string k =
      "kernel runs\nsmem a[1] bytes 256\nsmem b[1] bytes 256\nsmem c bytes 128 aliases a[0] offset 0\n"
      "mbarrier full[1] count 1\nmbarrier empty[1] count 2\nmbarrier f[2] count 1\n";
  k += "role p warp:\n";
  if (pick(3) == 0) k += run("  ");
  k += tma ? "  one: arrive_expect_tx f[0] bytes 256\n  one: tma_load a[0] -> f[0]\n" : "  one: write a[0]\n";
  k += "  one: write b[0]\n";
  if (pick(4) == 0) k += "  fence_proxy_async\n";
  k += "  one: arrive full[0]\n";
  if (pick(5) != 0) k += "  wait empty[0] parity 0\n";
  k += refill_tma ? "  one: arrive_expect_tx f[1] bytes 256\n  one: tma_load a[0] -> f[1]\n  wait f[1] parity 0\n"
                  : "  one: write a[0]\n";
  for (int r = 0; r < 2; ++r) {
    k += "role q" + std::to_string(r) + " warp:\n";
    if (pick(6) != 0) k += "  wait full[0] parity 0\n";
    if (tma && pick(6) != 0) k += "  wait f[0] parity 0\n";
    const bool loop = pick(4) == 0;
    const std::string ind = loop ? "    " : "  ";
    if (loop) k += "  for i in 0..2:\n";
    for (int n = 1 + pick(3); n > 0; --n) {
      k += run(ind);
      if (pick(4) == 0) k += ind + "syncwarp\n";
    }
    if (pick(4) == 0) k += "  fence_proxy_async\n";
    if (pick(8) != 0) k += "  one: arrive empty[0]\n";
  }
  return k;
}

// Buffers always accessed together (the PTX front end's joining,
// checker/ptx/together.hpp): a producer and two consumers hand work over
// through `full` and `empty`, each writing, reading or consuming units of
// buffers: the pairs x[0] and y[0] (shared arrays), z and w (shared), g and
// h (global), each pair named by one operation, by all lanes or one, and at
// times one member alone, by a TMA load or next to a buffer that aliases it,
// which keeps the pair apart. Each wait is left out at random, so many
// kernels race and many verify; what matters is that the kernel with its
// pairs joined agrees with the kernel as written, state for state.
inline std::string together_kernel(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  static constexpr const char* units[] = {"x[0], y[0]", "z, w", "g, h", "y[0], x[0]", "x[0]", "w", "h", "x[0], y[0], z, w"};
  static constexpr const char* kinds[] = {"write ", "read ", "consume "};
  static constexpr const char* lanes[] = {"all: ", "one: "};
  auto ops = [&](int n) {
    std::string k;
    for (; n > 0; --n) {
      const int u = pick(10);
      k += std::string("  ") + lanes[pick(2)] + kinds[pick(3)] + units[u < 4 ? u : u < 8 ? pick(3) : 4 + pick(4)] + "\n";
    }
    return k;
  };
  const bool tma = pick(4) == 0, alias = pick(5) == 0;
  std::string k = "kernel together\nsmem x[1] bytes 64\nsmem y[1] bytes 64\nsmem z bytes 32\nsmem w bytes 32\n";
  if (alias) k += "smem v bytes 16 aliases y[0] offset 16\n";
  k += "gmem g bytes 64\ngmem h bytes 64\nmbarrier full[1] count 1\nmbarrier empty[1] count 2\nmbarrier f[1] count 1\n";
  k += "role p warp:\n" + ops(1 + pick(3));
  if (tma) k += "  one: arrive_expect_tx f[0] bytes 64\n  one: tma_load x[0] -> f[0]\n  wait f[0] parity 0\n";
  k += "  one: arrive full[0]\n";
  if (pick(4) != 0) k += "  wait empty[0] parity 0\n";
  k += ops(1 + pick(2));
  for (int r = 0; r < 2; ++r) {
    k += "role q" + std::to_string(r) + " warp:\n";
    if (pick(5) != 0) k += "  wait full[0] parity 0\n";
    k += ops(1 + pick(3));
    if (alias && pick(2) == 0) k += "  all: read v\n";
    k += "  one: arrive empty[0]\n";
  }
  return k;
}

// Arrivals that processes outside a persistent set may make
// (checker/phase_bound.hpp): a producer hands out work through `full`
// (count 1, in each CTA) only once every consumer has arrived on CTA 0's
// `empty` (`one:` or `all:`; in a cluster of two, the consumers of CTA 1
// arrive remotely and read nothing), and each consumer arrives once per trip
// between waits on `full`, as a tile scheduler's consumers do. They may also
// count on `done`, which the producer waits on before it exits. Mostly
// correct; the bugs arrive twice in a trip, expect one arrival too few,
// release before the read, or skip a wait.
inline std::string gated_arrivals_kernel(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const bool two = pick(2);
  const int consumers = 1 + pick(two ? 2 : 3), iters = 1 + pick(2), per = pick(2) ? 32 : 1;
  const int bug = pick(10);  // 0..4: a bug; otherwise none
  const bool done = pick(2);
  const int all = consumers * (two ? 2 : 1);
  const std::string lanes = per == 32 ? "all: " : "one: ", at0 = two ? " @ 0" : "";
  std::string k = "kernel gated\n";
  if (two) k += "cluster 2\n";
  k += "smem buf[1] bytes 256\nmbarrier full[1] count 1\n";
  k += "mbarrier empty[1] count " + std::to_string(all * per - (bug == 1 && all * per > 1 ? 1 : 0)) + "\n";
  if (done) k += "mbarrier done[1] count " + std::to_string(all) + "\n";
  k += std::string("role producer warp") + (two ? " on cta 0" : "") + ":\n";
  if (two) k += "  cluster_sync\n";
  k += "  for i in 0.." + std::to_string(iters) + ":\n";
  k += std::string("    ") + (bug == 3 ? "if i == 0:\n      " : "") + "wait empty[0] parity (i + 1) % 2\n";
  k += "    one: write buf[0]\n";
  k += "    one: arrive full[0]" + at0 + "\n";
  if (two) k += "    one: arrive full[0] @ 1\n";
  if (done) k += "  wait done[0] parity 0\n";
  if (two) k += "  cluster_sync\n";
  k += "role consumer warp x" + std::to_string(consumers) + ":\n";
  if (two) k += "  cluster_sync\n";
  k += "  for i in 0.." + std::to_string(iters) + ":\n";
  k += std::string("    ") + (bug == 4 ? "if instance != 0:\n      " : "") + "wait full[0] parity i % 2\n";
  const std::string read = two ? "    if cta == 0:\n      " + lanes + "read buf[0]\n" : "    " + lanes + "read buf[0]\n";
  if (bug != 2) k += read;
  k += "    " + lanes + "arrive empty[0]" + at0 + "\n";
  if (bug == 0) k += "    if i == 0:\n      " + lanes + "arrive empty[0]" + at0 + "\n";
  if (bug == 2) k += read;
  if (done) k += "  one: arrive done[0]" + at0 + "\n";
  if (two) k += "  cluster_sync\n";
  return k;
}

// A role's body (lines indented by two) one level deeper, under `test`:
// each warp of the role that passes it is an agent of its own.
inline std::string under(const std::string& test, const std::string& body) {
  std::string deeper = "  " + test + "\n";
  std::size_t at = 0;
  while (at < body.size()) {
    const std::size_t end = body.find('\n', at);
    deeper += "  " + body.substr(at, end - at + 1);
    at = end + 1;
  }
  return deeper;
}

// The cluster barrier among many agents (the partial-order reduction's
// hold on its instance: checker/phase_bound.hpp): two CTAs, two or three
// roles, one of them of two warps that may be split per warp (its body reads
// `warp`), each running rounds of the cluster barrier (cluster_sync, or
// cluster_arrive, a read of its own buffer, cluster_wait; some rounds in a
// loop) that alternate writes of the role's own buffer with reads of the
// others' in either CTA, so that each round's barrier orders them; early
// exits. Three in four are correct by construction; the rest place the work
// at random, relax an arrive (which orders nothing), arrive twice or skip a
// round.
inline std::string cluster_rounds_kernel(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const bool sound = pick(4) != 0;
  const int roles = 2 + pick(2), rounds = 1 + pick(3);
  std::string k = "kernel rounds\ncluster 2\nsmem a[" + std::to_string(roles) + "] bytes 256\n";
  std::vector<bool> loops;  // the rounds run twice in a loop, the same in every role
  for (int i = 0; i < rounds; ++i) loops.push_back(pick(5) == 0);
  for (int r = 0; r < roles; ++r) {
    const bool warps = r == 0 && pick(3) != 0, split = warps && pick(3) != 0;
    k += "role r" + std::to_string(r) + (warps ? " warps 2" : " warp") + ":\n";
    const std::string own = "a[" + std::to_string(r) + "]";
    std::string body;
    auto work = [&](int round, const std::string& in) {
      const int kind = sound ? round % 2 : pick(3);
      const std::string other = "a[" + std::to_string((r + 1 + pick(roles - 1)) % roles) + "]";
      // Split per warp, each warp's leader would write: two writers.
      if (kind == 0) body += in + (split ? "one: read " : "one: write ") + own + "\n";
      else if (kind == 1) body += in + "one: read " + other + (pick(2) ? " @ 1 - cta" : "") + "\n";
    };
    for (int i = 0; i < rounds; ++i) {
      const bool loop = loops[static_cast<std::size_t>(i)];
      const std::string in = loop ? "    " : "  ";
      if (loop) body += "  for t in 0 .. 2:\n";
      work(loop ? 1 : i, in);  // a loop's rounds read (a write would meet the next trip's reads)
      if (pick(2)) {
        body += in + "cluster_sync\n";
      } else {
        body += in + "cluster_arrive" + (!sound && pick(2) ? " relaxed" : "") + "\n";
        if (pick(2)) body += in + "one: read " + own + "\n";
        if (sound || pick(8) != 0) body += in + "cluster_wait\n";
      }
      if (!sound && pick(10) == 0) body += in + "cluster_arrive\n";
    }
    if (pick(5) == 0) body += "  exit\n";
    // Under a test of `warp` that each warp passes (or, one time in four,
    // that only warp 0 passes).
    if (split) body = under(pick(4) ? "if warp >= 0:" : "if warp == 0:", body);
    if (!sound && rounds > 1 && pick(4) == 0) {
      // A round skipped: the cluster barrier's instances no longer line up.
      const std::size_t at = body.find("cluster_sync\n");
      if (at != std::string::npos) body.replace(at, 13, "one: read " + own + "\n");
    }
    k += body;
  }
  return maybe_started(k, rng);
}

// Named barriers among many agents (the partial-order reduction's count on
// a named slot: checker/phase_bound.hpp): one CTA, a role of two or four
// warps that may be split per warp (its body reads `warp`) and one or two
// one-warp roles, each running rounds of `bar_sync ID, N` (or a bar.red)
// over all their threads, some in a loop, that alternate writes of the
// role's own buffer with reads of the others'; one time in three the
// rounds are for the whole CTA (no count), and a role may exit after any
// round. Three in four are correct by construction; the rest give a count
// that two roles fill (more arrive than it takes), let a role only arrive
// (bar_arrive orders it after no one), skip a round, use a second id, or
// give a count on the whole CTA's id.
inline std::string named_rounds_kernel(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const bool sound = pick(4) != 0;
  const int roles = 2 + pick(2), rounds = 1 + pick(3), big = pick(2) ? 2 : 4;
  const int threads = 32 * big + 32 * (roles - 1);
  std::string k = "kernel named_rounds\nsmem a[" + std::to_string(roles) + "] bytes 256\n";
  std::vector<bool> loops, red;  // per round, the same in every role: in a loop; a bar.red
  for (int i = 0; i < rounds; ++i) {
    loops.push_back(pick(5) == 0);
    red.push_back(pick(4) == 0);
  }
  // One time in three the rounds are for the whole CTA (`syncthreads`,
  // `bar_sync 1` with no count or a count of 0), whose instances wait for
  // the live threads: a role may exit after any round.
  const int whole = pick(3) == 0 ? 1 + pick(3) : 0;
  const std::string whole_op = whole == 1 ? "syncthreads" : whole == 2 ? "bar_sync 1" : "bar_sync 1, 0";
  for (int r = 0; r < roles; ++r) {
    const bool split = r == 0 && pick(3) != 0;
    const int stop = whole && pick(3) == 0 ? pick(rounds) : rounds;  // exits after this many rounds
    k += "role r" + std::to_string(r) + (r == 0 ? " warps " + std::to_string(big) : std::string(" warp")) + ":\n";
    const std::string own = "a[" + std::to_string(r) + "]";
    std::string body;
    for (int i = 0; i < rounds; ++i) {
      if (i == stop) {
        body += "  exit\n";
        break;
      }
      const bool loop = loops[static_cast<std::size_t>(i)];
      const std::string in = loop ? "    " : "  ";
      if (loop) body += "  for t in 0 .. 2:\n";
      const std::string other = "a[" + std::to_string((r + 1 + pick(roles - 1)) % roles) + "]";
      if ((loop ? 1 : i) % 2 == 0 && sound) body += in + (split ? "one: read " : "one: write ") + own + "\n";
      else if (sound || pick(3)) body += in + "one: read " + other + "\n";
      else body += in + (split ? "one: read " : "one: write ") + own + "\n";
      const int id = !sound && pick(6) == 0 ? 2 : 1;
      const int count = !sound && pick(5) == 0 ? 64 : threads;
      const std::string operands = std::to_string(id) + ", " + std::to_string(count);
      switch (sound ? 0 : pick(8)) {
        case 1: body += in + "bar_arrive " + operands + "\n"; break;
        case 2: break;  // a round skipped
        case 3:
          if (whole) {  // a count on the whole CTA's id: mixed
            body += in + "bar_sync " + (whole == 1 ? "0" : "1") + ", " + std::to_string(threads) + "\n";
            break;
          }
          [[fallthrough]];
        default:
          if (whole) body += in + whole_op + "\n";
          else body += in + (red[static_cast<std::size_t>(i)] ? "p = bar_red popc " + operands + ", 1\n" : "bar_sync " + operands + "\n");
          break;
      }
    }
    if (split) body = under("if warp >= 0:", body);
    k += body;
  }
  return k;
}

// A TMA ring in the shape of libcu++'s cuda::barrier, `bar.wait(bar.arrive())`:
// every consumer thread arrives on full[s] with a state token and waits on
// that token (full counts the consumer threads and the producer's
// arrive_expect_tx), and releases empty[s], which the producer's thread
// arrives on and waits by token too (empty counts the same; the consumers
// arrive on each empty[s] once at the start). The consumers write buffers
// of their own (shared and global: an epilogue, each consumer its part) and,
// in one kernel in three, a staging buffer the first writes and all read
// after a barrier. One
// kernel in two has a planted bug: a release before the read, a count one
// short, a write of a neighbour's part, or a wait on the wrong phase. State
// tokens that hold the phase alone (Program::token_pending) and buffers only
// one agent touches (footprint.cpp, shared_buffers) are what it exercises.
inline std::string token_ring_kernel(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const int consumers = 2 + pick(2), tiles = 1 + pick(3);
  const int bug = pick(2) ? 0 : 1 + pick(4);
  const bool staging = pick(3) == 0;
  const std::string c = std::to_string(consumers);
  const std::string count = std::to_string(32 * consumers + (bug == 2 ? 0 : 1));
  std::string k = "kernel tokring\nsmem stage[2] bytes 256\nsmem own[" + c + "] bytes 64\ngmem out[" + c + "] bytes 128\n";
  if (staging) k += "smem staged bytes 128\n";
  k += "mbarrier full[2] count " + count + "\nmbarrier empty[2] count " + count + "\n";
  k += "role producer warp:\n  for k in 0 .. " + std::to_string(tiles) + ":\n    s = k % 2\n";
  k += "    t = one: arrive empty[s]\n    one: wait empty[s] token t\n";
  k += "    one: arrive_expect_tx full[s] bytes 256\n    one: tma_load stage[s] -> full[s]\n";
  if (staging) k += "  syncthreads\n";
  k += "role consumer warp x " + c + ":\n  for s in 0 .. 2:\n    all: arrive empty[s]\n";
  k += "  for k in 0 .. " + std::to_string(tiles) + ":\n    s = k % 2\n    t = all: arrive full[s]\n";
  k += bug == 4 ? "    wait full[s] parity (k / 2 + 1) % 2\n" : "    wait full[s] token t\n";
  if (bug == 1) k += "    all: arrive empty[s]\n";
  k += "    all: read stage[s]\n    all: write own[instance]\n";
  if (bug != 1) k += "    all: arrive empty[s]\n";
  k += bug == 3 ? "  all: write out[(instance + 1) % " + c + "]\n" : "  all: write out[instance]\n";
  if (staging) k += "  if instance == 0:\n    all: write staged\n  syncthreads\n  all: read staged\n";
  return k;
}

}  // namespace pc::testgen
