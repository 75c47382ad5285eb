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
#include <bit>
#include <cstring>
#include <cstdint>
#include <new>
#include <utility>
#include <vector>

namespace pc::check {

// A zero-filled array from the kernel (mmap): its pages come zeroed (no
// fill pass), and a table of at least 2 MiB asks for huge pages (madvise),
// so that a probe at a random slot does not walk the page tables first: in
// a virtual machine a walk costs as much as the probe's cache miss, and the
// search probes once per transition (docs/checker.md, "State storage").
// T is plain data whose all-zero bytes are its empty value.
template <class T>
class ZeroArray {
 public:
  ZeroArray() = default;
  explicit ZeroArray(std::size_t n) : n_(n) {
    const std::size_t bytes = std::max<std::size_t>(n * sizeof(T), 1);
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    if (bytes >= (std::size_t{2} << 20)) (void)madvise(p, bytes, MADV_HUGEPAGE);  // advice: refused, it is the usual pages
#endif
    p_ = static_cast<T*>(p);
  }
  ZeroArray(ZeroArray&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  ZeroArray& operator=(ZeroArray&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }
  ZeroArray(const ZeroArray&) = delete;
  ZeroArray& operator=(const ZeroArray&) = delete;
  ~ZeroArray() {
    if (p_) munmap(p_, std::max<std::size_t>(n_ * sizeof(T), 1));
  }
  [[nodiscard]] std::size_t size() const { return n_; }
  // Gives the pages wholly inside elements [from, to) back to the kernel
  // (they read as zero again), so that a table being emptied in order
  // shrinks as it goes.
  void release(std::size_t from, std::size_t to) {
    constexpr std::uintptr_t page = 4096;  // (a huge page partly given back is split)
    const auto first = (reinterpret_cast<std::uintptr_t>(p_ + from) + page - 1) & ~(page - 1);
    const auto last = reinterpret_cast<std::uintptr_t>(p_ + to) & ~(page - 1);
    if (last > first) (void)madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);  // advice: refused, the pages stay
  }
  T& operator[](std::size_t i) { return p_[i]; }
  const T& operator[](std::size_t i) const { return p_[i]; }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};
using ZeroWords = ZeroArray<std::uint64_t>;

// Asks the cache for the line at `at`, ahead of a probe there. (As an asm
// statement on x86-64: GCC 12 dropped the builtin's prefetch where the
// search inlines it.)
inline void prefetch_line(const void* at) {
#if defined(__x86_64__)
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(at)));
#else
  __builtin_prefetch(at);
#endif
}

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
  // Whether fp is in the set (the probe of insert, adding nothing).
  [[nodiscard]] bool contains(std::uint64_t fp) const {
    fp += fp == 0;
    const std::uint64_t* t = &table_[0];
    std::size_t i = slot(fp, n_);
    while (t[i] - 1 < fp - 1) ++i;
    return t[i] == fp;
  }
  // Asks the cache for fp's first slot: an insert of fp soon after finds it
  // there (the table is far larger than the cache; most inserts miss).
  void prefetch(std::uint64_t fp) const { prefetch_line(&table_[slot(fp == 0 ? 1 : fp, n_)]); }
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
// search"): the same 64-bit fingerprints in one table that the threads fill
// without a lock. The table is of cache lines, five slots each: a
// fingerprint goes to the first free slot of its first line, or of the
// lines after it, so that a probe most often reads one line, its five
// slots compared at once. An insert claims the free slot with a
// compare-and-swap; nothing else is written per insert (the count is added
// once per chunk), so that threads share no line but the slots they probe.
// Beside each fingerprint, its owner: 1 + the id of the state of the current
// level that reaches it first in the order of the one-thread search; an
// insert keeps the smallest, so that each level is numbered as one thread
// numbers it, whatever order the threads run in.
//
// The table grows only while no insert runs: the search stops taking chunks
// when the table asks for room (two thirds full), grows it (each thread
// moving a part), and goes on. An insert that probes far without finding its
// fingerprint or a free slot (a table filled past its mark by the chunks in
// flight) says `full`: the search keeps the successor aside and puts it
// again after the table has grown.
class SharedFingerprintSet {
 public:
  enum class Put : std::uint8_t { fresh, lowered, seen, full };

  // A table of `lines` lines at first, 0 for 4,096 (tests start with one,
  // so that it grows and says `full` often).
  explicit SharedFingerprintSet(std::size_t lines = 0) : lines_(lines == 0 ? initial : lines) {}

  // Adds `fp` with owner `key`: `fresh`. A fingerprint added while this
  // level is expanded (its owner above `floor`, the id of the level's first
  // state; owners from earlier levels are at most `floor`) gets `key` as its
  // owner if that is smaller: `lowered`. Otherwise `seen`; `full` where the
  // probe ran out (nothing changed). `key` is below 2^32 - 1. Safe from any
  // number of threads at once, but not while the table grows.
  //
  // A line's slots fill in order, never to be emptied: a thread claims a
  // slot only once it has seen those before it filled. So two threads that
  // add one fingerprint at once race for the same slot, and the loser finds
  // the winner's there: no fingerprint is held twice.
  [[gnu::always_inline]] Put insert(std::uint64_t fp, std::uint32_t key, std::uint32_t floor) {
    fp += fp == 0;  // 0 marks an empty slot
    std::size_t i = first_line(fp);
    for (std::size_t probed = 0; probed < longest; ++probed) {
      Line& line = lines_[i];
      unsigned hit = 0, free = 0;
#pragma GCC unroll 5
      for (unsigned j = 0; j < per_line; ++j) {
        const std::uint64_t held = std::atomic_ref<std::uint64_t>(line.fp[j]).load(std::memory_order_relaxed);
        hit |= static_cast<unsigned>(held == fp) << j;
        free |= static_cast<unsigned>(held == 0) << j;
      }
      if (hit != 0) return lower(line.owner[std::countr_zero(hit)], key, floor) ? Put::lowered : Put::seen;
      for (; free != 0; free &= free - 1) {
        const int j = std::countr_zero(free);
        std::uint64_t held = 0;
        if (std::atomic_ref<std::uint64_t>(line.fp[j]).compare_exchange_strong(held, fp, std::memory_order_relaxed)) {
          lower(line.owner[j], key, 0);
          return Put::fresh;
        }
        if (held == fp) return lower(line.owner[j], key, floor) ? Put::lowered : Put::seen;
      }
      i = next(i);
    }
    full_.store(true, std::memory_order_relaxed);
    return Put::full;
  }
  // Asks the cache for fp's first line and the one after it (a probe for a
  // fingerprint added lately often reads both), so that an insert or an
  // owner of fp soon after finds them there. The table's place and size
  // change only while no insert runs, so this reads no line that inserts
  // write.
  void prefetch(std::uint64_t fp) const {
    const std::size_t i = first_line(fp == 0 ? 1 : fp);
    prefetch_line(&lines_[i]);
    prefetch_line(&lines_[next(i)]);
  }
  // The owner of a fingerprint that is in the set (2^32 - 1 if it is not).
  // Only while no insert runs (between the phases of a level).
  [[nodiscard]] std::uint32_t owner(std::uint64_t fp) const {
    fp += fp == 0;
    for (std::size_t i = first_line(fp), probed = 0; probed < lines_.size(); ++probed) {
      const Line& line = lines_[i];
      for (unsigned j = 0; j < per_line; ++j) {
        if (line.fp[j] == fp) return line.owner[j] - 1;
        if (line.fp[j] == 0) return ~std::uint32_t{0};
      }
      i = next(i);
    }
    return ~std::uint32_t{0};
  }
  // `n` more fingerprints added (each thread says so once per chunk).
  void added(std::uint64_t n) { count_.fetch_add(n, std::memory_order_relaxed); }
  // The fingerprints stored (as the threads have said so far).
  [[nodiscard]] std::uint64_t size() const { return count_.load(std::memory_order_relaxed); }
  [[nodiscard]] std::uint64_t bytes() const { return lines_.size() * sizeof(Line); }
  // True when the table wants to grow before more chunks are taken: two
  // thirds full, or an insert said `full`.
  [[nodiscard]] bool wants_room() const {
    return full_.load(std::memory_order_relaxed) || size() * 3 > lines_.size() * per_line * 2;
  }

  // Growing, while no insert runs: start_growing(parts) makes a table half
  // as large again, move(i) moves the i-th of the `parts` parts of the old
  // one (from as many threads at once), and finish_growing() puts what the
  // parts left and lets the old table go. (Doubling moves each fingerprint
  // once on average, not twice: at 16 threads the growth took 3% of the
  // search, not 9%. But the table is then as little as a third full, 38
  // bytes a state, and on two threads two of the six largest corpus
  // kernels came to 70 and 78 bytes a state over the whole process, above
  // the 64 the search keeps within: docs/benchmarks.md.)
  void start_growing(std::size_t parts) {
    old_ = std::move(lines_);
    lines_ = ZeroArray<Line>(old_.size() + (old_.size() + 1) / 2);
    left_.assign(parts, {});
  }
  // A fingerprint's first line is monotone in it (multiply-shift), so the
  // fingerprints first in part i's old lines are first in new lines
  // [edge(i), edge(i + 1)), which no other part's are: the thread that
  // moves part i writes only there, without a compare-and-swap. A
  // fingerprint that starts or runs outside them (one run over from the
  // part before, or one running past the last line) is left for
  // finish_growing. And the part fills the new table nearly in order: its
  // old pages are given back as it is moved, and the two tables are
  // together not much larger than the new one, not 1.67 times.
  void move(std::size_t part) {
    const std::size_t n = old_.size(), parts = left_.size(), from = n * part / parts, to = n * (part + 1) / parts;
    const std::size_t lo = edge(part), hi = edge(part + 1);
    // (Given back 4 MiB at a time: each give-back stops every core the
    // process runs on to drop the pages from its TLB, and a huge page
    // given back in part is first split.)
    constexpr std::size_t block = (std::size_t{4} << 20) / sizeof(Line);
    for (std::size_t i = from; i < to; ++i) {
      for (unsigned j = 0; j < per_line && old_[i].fp[j] != 0; ++j)
        if (!place(old_[i].fp[j], old_[i].owner[j], lo, hi)) left_[part].emplace_back(old_[i].fp[j], old_[i].owner[j]);
      if ((i + 1) % block == 0 || i + 1 == to) old_.release(from, i + 1);
    }
  }
  void finish_growing() {
    for (const auto& part : left_)
      for (const auto& [fp, owner] : part) place(fp, owner, 0, anywhere);
    left_.clear();
    old_ = ZeroArray<Line>();
    full_.store(false, std::memory_order_relaxed);
  }

 private:
  // A line's five fingerprints, then their owners: a probe reads one line
  // for both, and each fingerprint is a word of its own for the
  // compare-and-swap (12.8 bytes a slot).
  static constexpr unsigned per_line = 5;
  struct alignas(64) Line {
    std::uint64_t fp[per_line];
    std::uint32_t owner[per_line];  // the owner + 1: 0 while its insert is under way
    std::uint32_t unused;
  };
  static_assert(sizeof(Line) == 64);
  static constexpr std::size_t initial = std::size_t{1} << 12;  // lines
  // The most lines an insert probes before it says `full`.
  static constexpr std::size_t longest = 64;
  // Multiply-shift: any number of lines, no modulo.
  [[nodiscard]] std::size_t first_line(std::uint64_t fp) const {
    return static_cast<std::size_t>((static_cast<__uint128_t>(fp) * lines_.size()) >> 64);
  }
  // The line a probe reads after line i: the next, or the first after the
  // last.
  [[nodiscard]] std::size_t next(std::size_t i) const { return i + 1 == lines_.size() ? 0 : i + 1; }
  // Keeps the smaller owner: `key` replaces one not yet written, or one
  // above `floor` and above `key`. True if it did.
  static bool lower(std::uint32_t& owner, std::uint32_t key, std::uint32_t floor) {
    std::atomic_ref<std::uint32_t> at(owner);
    std::uint32_t held = at.load(std::memory_order_relaxed);
    while (held == 0 || (held - 1 > floor && key < held - 1))
      if (at.compare_exchange_weak(held, key + 1, std::memory_order_relaxed)) return true;
    return false;
  }
  // The first new line of the fingerprints first in part i's old lines
  // (growing).
  [[nodiscard]] std::size_t edge(std::size_t part) const {
    const std::size_t from = old_.size() * part / left_.size();
    return static_cast<std::size_t>(static_cast<__uint128_t>(from) * lines_.size() / old_.size());
  }
  // Puts a fingerprint, not in the new table, with its owner (growing), in
  // the first free slot from its first line on, where that slot lies in
  // lines [lo, hi): false, and nothing written, where it does not. With
  // `hi` `anywhere`: in any line, wrapping past the last.
  static constexpr std::size_t anywhere = ~std::size_t{0};
  bool place(std::uint64_t fp, std::uint32_t owner, std::size_t lo, std::size_t hi) {
    const bool bounded = hi != anywhere;
    std::size_t i = first_line(fp);
    if (bounded && (i < lo || i >= hi)) return false;
    for (;;) {
      Line& line = lines_[i];
      for (unsigned j = 0; j < per_line; ++j) {
        if (line.fp[j] == 0) {
          line.fp[j] = fp;
          line.owner[j] = owner;
          return true;
        }
      }
      if (!bounded) i = next(i);
      else if (++i == hi) return false;
    }
  }
  ZeroArray<Line> lines_, old_;
  std::vector<std::vector<std::pair<std::uint64_t, std::uint32_t>>> left_;  // growing: what each part left
  // Written while threads insert: each on a line of its own.
  alignas(64) std::atomic<std::uint64_t> count_{0};
  alignas(64) std::atomic<bool> full_{false};
};

}  // namespace pc::check
