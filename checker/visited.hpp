// The set of visited states: 64-bit fingerprints (hash compaction, as in
// SPIN's hash-compact mode) in one open-addressing table. Two distinct states
// share a fingerprint with probability about n^2 / 2^65 for n states (for a
// billion states, under 3%; for ten million, 3e-6).
//
// The table holds 8 bytes per slot (and 1,024 slots or more past its last
// first slot), grows by half at 85% load, and so stays between 9.4 and 15
// bytes per stored state. Parent links for traces are kept
// only by the second, trace-building pass (Links), up to the violation's depth.
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <cstdint>
#include <memory>
#include <new>
#include <thread>
#include <utility>
#include <vector>

namespace pc::check {

// A zero-filled array of 64-bit words from the kernel (mmap): its pages
// come zeroed (no fill pass), and a table of at least 2 MiB asks for huge
// pages (madvise), so that a probe at a random slot does not walk the page
// tables first: in a virtual machine a walk costs as much as the probe's
// cache miss, and the search probes once per transition (docs/checker.md,
// "State storage").
class ZeroWords {
 public:
  ZeroWords() = default;
  explicit ZeroWords(std::size_t n) : n_(n) {
    const std::size_t bytes = std::max<std::size_t>(n * sizeof(std::uint64_t), 1);
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    if (bytes >= (std::size_t{2} << 20)) (void)madvise(p, bytes, MADV_HUGEPAGE);  // advice: refused, it is the usual pages
#endif
    p_ = static_cast<std::uint64_t*>(p);
  }
  ZeroWords(ZeroWords&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  ZeroWords& operator=(ZeroWords&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }
  ZeroWords(const ZeroWords&) = delete;
  ZeroWords& operator=(const ZeroWords&) = delete;
  ~ZeroWords() {
    if (p_) munmap(p_, std::max<std::size_t>(n_ * sizeof(std::uint64_t), 1));
  }
  [[nodiscard]] std::size_t size() const { return n_; }
  std::uint64_t& operator[](std::size_t i) { return p_[i]; }
  const std::uint64_t& operator[](std::size_t i) const { return p_[i]; }

 private:
  std::uint64_t* p_ = nullptr;
  std::size_t n_ = 0;
};

// The table is kept in order (an ordered hash table, Amble and Knuth 1974):
// a fingerprint's first slot is monotone in its value (multiply-shift), and
// every run of filled slots holds its fingerprints in increasing order, each
// at or after its first slot. So the layout depends only on the set held,
// not on the order of inserts: a probe for a fingerprint, found or not,
// stops at the first slot holding one at least as large (or none), after
// about (1 + 1/(1 - load))/2 slots. (In plain linear probing, a fingerprint
// lands at the end of its run, and the search looks again most for the ones
// it found last: at W=8 P=40 on the barrier family, 7.3 slots a probe; 2.3
// in order.) Nothing wraps: the table has room past its last first slot, and its
// last slot stays empty to end every probe.
class FingerprintSet {
 public:
  FingerprintSet() : table_(initial + room + probe), n_(initial), room_(room), end_(initial + room), most_(initial * 85 / 100) {}

  // Adds a fingerprint; false if it was already there. (The probe inline,
  // the search's one call per transition; the add out of line.)
  [[gnu::always_inline]] bool insert(std::uint64_t fp) {
    fp += fp == 0;  // 0 marks an empty slot
    const std::uint64_t* t = &table_[0];
    // Past the smaller ones (an empty slot's 0 - 1 is the largest word),
    // four slots at a time without a branch on each: from fp's first slot
    // on, the slots below fp are a prefix (a run is in order, and a later
    // run's fingerprints have later first slots, so are larger).
    std::size_t i = slot(fp, n_);
    for (;;) {
      const std::size_t below = static_cast<std::size_t>(t[i] - 1 < fp - 1) + (t[i + 1] - 1 < fp - 1) +
                                (t[i + 2] - 1 < fp - 1) + (t[i + 3] - 1 < fp - 1);
      i += below;
      if (below < 4) break;
    }
    if (t[i] == fp) return false;
    add(fp, i);
    return true;
  }
  // Asks the cache for fp's first slot: an insert of fp soon after finds it
  // there (the table is far larger than the cache; most inserts miss).
  // (As an asm statement on x86-64: GCC 12 dropped the builtin's prefetch
  // where the search inlines this.)
  void prefetch(std::uint64_t fp) const {
    const std::uint64_t* at = &table_[slot(fp == 0 ? 1 : fp, n_)];
#if defined(__x86_64__)
    asm volatile("prefetcht0 %0" : : "m"(*at));
#else
    __builtin_prefetch(at);
#endif
  }
  [[nodiscard]] std::uint64_t size() const { return size_; }
  [[nodiscard]] std::uint64_t bytes() const { return table_.size() * sizeof(std::uint64_t); }

 private:
  static constexpr std::size_t initial = std::size_t{1} << 12;
  // Slots past the last first slot, at first: a run that reaches the
  // table's end doubles them (at 85% load, a run of a thousand is rare
  // beyond any table's size; fingerprints that crowd the top of the range
  // do not make the table grow without end).
  static constexpr std::size_t room = 1024;
  // Words past the slots, always empty: a probe reads four slots at once.
  static constexpr std::size_t probe = 4;
  // Lemire's multiply-shift range reduction: any table size, no modulo, and
  // monotone in fp.
  static std::size_t slot(std::uint64_t fp, std::size_t n) {
    return static_cast<std::size_t>((static_cast<__uint128_t>(fp) * n) >> 64);
  }
  // Puts fp, not in the set, at slot i (where the probe for it stopped):
  // the rest of its run moves up one slot. Where that would fill the last
  // slot, or the table is full, it grows first and fp is put again.
  [[gnu::noinline]] void add(std::uint64_t fp, std::size_t i) {
    std::uint64_t* t = &table_[0];
    std::size_t j = i;
    while (t[j] != 0) ++j;
    if (size_ + 1 <= most_ && j + 1 < end_) {
      std::memmove(t + i + 1, t + i, (j - i) * sizeof(std::uint64_t));
      t[i] = fp;
      ++size_;
      return;
    }
    if (size_ + 1 > most_) grow(n_ + n_ / 2, room_);
    else grow(n_, room_ * 2);
    insert(fp);
  }
  // A table of n first slots and r slots past them. The old table, read in
  // order, is the set in increasing order: each fingerprint goes to its
  // first slot or just past the one before it. Should the table's end be
  // reached, the room past it doubles. (Out of line: the search inlines
  // insert.)
  [[gnu::noinline]] void grow(std::size_t n, std::size_t r) {
    for (;; r *= 2) {
      ZeroWords next(n + r + probe);
      std::size_t at = 0;
      bool fits = true;
      for (std::size_t k = 0; k < end_ && fits; ++k) {
        const std::uint64_t fp = table_[k];
        if (fp == 0) continue;
        at = std::max(at, slot(fp, n));
        fits = at + 1 < n + r;
        if (fits) next[at++] = fp;
      }
      if (!fits) continue;
      std::swap(next, table_);
      n_ = n;
      room_ = r;
      end_ = n + r;
      most_ = n * 85 / 100;
      return;
    }
  }
  ZeroWords table_;
  std::size_t n_;        // the first slots: [0, n_)
  std::size_t room_;     // the slots past them
  std::size_t end_;      // the slots: [0, end_ = n_ + room_), the last one kept empty
  std::uint64_t most_;   // the most fingerprints the table holds before it grows: 85% of its first slots
  std::uint64_t size_ = 0;
};

// States numbered in the order found, each with the state it was reached
// from and the action that reached it.
class Links {
 public:
  void add(std::uint32_t parent, std::uint16_t action) {
    parent_.push_back(parent);
    action_.push_back(action);
  }
  // For the parallel search, which numbers a whole level at once: room for
  // `n` states, then each id's link set by whichever thread holds it.
  void resize(std::uint32_t n) {
    parent_.resize(n);
    action_.resize(n);
  }
  void set(std::uint32_t id, std::uint32_t parent, std::uint16_t action) {
    parent_[id] = parent;
    action_[id] = action;
  }
  [[nodiscard]] std::uint32_t size() const { return static_cast<std::uint32_t>(parent_.size()); }
  [[nodiscard]] std::uint32_t parent(std::uint32_t id) const { return parent_[id]; }
  [[nodiscard]] std::uint16_t action(std::uint32_t id) const { return action_[id]; }

 private:
  std::vector<std::uint32_t> parent_;
  std::vector<std::uint16_t> action_;
};

// The visited set of the parallel search (docs/checker.md, "Parallel
// search"): the same 64-bit fingerprints, in shards that each grow on their
// own under a lock of their own (striped locking: threads contend only when
// they hit one shard at once). Beside each fingerprint, its owner: 1 + the
// id of the state of the current level that reaches it first in the order
// of the one-thread search; insert keeps the smallest, so that each level is
// numbered as one thread numbers it, whatever order the threads run in.
class SharedFingerprintSet {
 public:
  enum class Put : std::uint8_t { fresh, lowered, seen };

  // 2^shard_bits shards.
  explicit SharedFingerprintSet(int shard_bits) : bits_(shard_bits), shards_(new Shard[std::size_t{1} << shard_bits]) {
    for (std::size_t i = 0; i < (std::size_t{1} << bits_); ++i) shards_[i].reset(initial);
    bytes_ = (std::size_t{1} << bits_) * initial * sizeof(Slot);
  }

  // Adds `fp` with owner `key`: `fresh`. A fingerprint added while this
  // level is expanded (its owner above `floor`, the id of the level's first
  // state; owners from earlier levels are at most `floor`) gets `key` as its
  // owner if that is smaller: `lowered`. Otherwise `seen`. Safe to call from
  // any number of threads at once.
  Put insert(std::uint64_t fp, std::uint32_t key, std::uint32_t floor) {
    if (fp == 0) fp = 1;  // 0 marks an empty slot
    Shard& sh = shards_[fp >> (64 - bits_)];
    lock(sh);
    if ((sh.size.load(std::memory_order_relaxed) + 1) * 100 > sh.slots.size() * 85) grow(sh);
    const std::size_t n = sh.slots.size();
    std::size_t i = slot(fp, n);
    while (sh.slots[i].fp() != 0) {
      Slot& at = sh.slots[i];
      if (at.fp() == fp) {
        const bool lower = at.owner > floor && key < at.owner;
        if (lower) at.owner = key;
        sh.busy.store(false, std::memory_order_release);
        return lower ? Put::lowered : Put::seen;
      }
      if (++i == n) i = 0;
    }
    sh.slots[i] = Slot{static_cast<std::uint32_t>(fp), static_cast<std::uint32_t>(fp >> 32), key};
    sh.size.store(sh.size.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    sh.busy.store(false, std::memory_order_release);
    return Put::fresh;
  }
  // Asks the cache for fp's shard (its lock) and first slot, so that an
  // insert or an owner of fp soon after finds them there: each insert
  // otherwise waits on both lines in turn. Safe from any thread at any
  // time: it reads the shard's table as last published (atomics), and a
  // prefetch of a table a grow has since freed is harmless (it reads
  // nothing, and never faults).
  void prefetch(std::uint64_t fp) const {
    if (fp == 0) fp = 1;
    const Shard& sh = shards_[fp >> (64 - bits_)];
    const Slot* t = sh.table.load(std::memory_order_relaxed);
    const Slot* at = t + slot(fp, sh.table_n.load(std::memory_order_relaxed));
#if defined(__x86_64__)
    asm volatile("prefetcht0 %0" : : "m"(*reinterpret_cast<const char*>(&sh)));
    asm volatile("prefetcht0 %0" : : "m"(*reinterpret_cast<const char*>(at)));
#else
    __builtin_prefetch(&sh);
    __builtin_prefetch(at);
#endif
  }
  // The owner of a fingerprint that is in the set. Only while no insert runs
  // (between the phases of a level).
  [[nodiscard]] std::uint32_t owner(std::uint64_t fp) const {
    if (fp == 0) fp = 1;
    const Shard& sh = shards_[fp >> (64 - bits_)];
    const std::size_t n = sh.slots.size();
    std::size_t i = slot(fp, n);
    while (sh.slots[i].fp() != fp && sh.slots[i].fp() != 0)
      if (++i == n) i = 0;
    return sh.slots[i].fp() == fp ? sh.slots[i].owner : 0;
  }
  // The fingerprints stored (while threads insert: about that many). Each
  // shard counts its own, so that inserts share no counter.
  [[nodiscard]] std::uint64_t size() const {
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < (std::size_t{1} << bits_); ++i) n += shards_[i].size.load(std::memory_order_relaxed);
    return n;
  }
  [[nodiscard]] std::uint64_t bytes() const { return bytes_.load(std::memory_order_relaxed); }

 private:
  static constexpr std::size_t initial = 64;
  // A fingerprint and its owner side by side, 12 bytes: a probe reads one
  // line for both (two in eight slots straddle two).
  struct Slot {
    std::uint32_t lo = 0, hi = 0;  // the fingerprint's halves
    std::uint32_t owner = 0;
    [[nodiscard]] std::uint64_t fp() const { return lo | std::uint64_t{hi} << 32; }
  };
  static_assert(sizeof(Slot) == 12);
  struct alignas(64) Shard {
    std::atomic<bool> busy{false};
    std::atomic<std::size_t> size{0};  // written under the lock
    std::vector<Slot> slots;
    // The table as last published, for prefetch (written under the lock).
    std::atomic<const Slot*> table{nullptr};
    std::atomic<std::size_t> table_n{0};
    void reset(std::size_t n) {
      slots.assign(n, Slot{});
      table.store(slots.data(), std::memory_order_relaxed);
      table_n.store(n, std::memory_order_relaxed);
    }
  };
  static void lock(Shard& sh) {
    for (int spins = 0;;) {
      if (!sh.busy.exchange(true, std::memory_order_acquire)) return;
      while (sh.busy.load(std::memory_order_relaxed)) {
        if (++spins > 64) std::this_thread::yield();
#if defined(__x86_64__) || defined(__i386__)
        else __builtin_ia32_pause();
#endif
      }
    }
  }
  // The shard's bits are the fingerprint's top ones: the slot uses the rest.
  std::size_t slot(std::uint64_t fp, std::size_t n) const {
    return static_cast<std::size_t>((static_cast<__uint128_t>(fp << bits_) * n) >> 64);
  }
  void grow(Shard& sh) {
    std::vector<Slot> old;
    old.swap(sh.slots);
    const std::size_t n = old.size() + old.size() / 2;
    sh.reset(n);
    for (const Slot& o : old) {
      if (o.fp() == 0) continue;
      std::size_t i = slot(o.fp(), n);
      while (sh.slots[i].fp() != 0)
        if (++i == n) i = 0;
      sh.slots[i] = o;
    }
    bytes_.fetch_add((n - old.size()) * sizeof(Slot), std::memory_order_relaxed);
  }
  int bits_;
  std::unique_ptr<Shard[]> shards_;
  std::atomic<std::uint64_t> bytes_{0};
};

}  // namespace pc::check
