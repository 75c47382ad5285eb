// A memo of agent steps, as LTSmin's PINS cache layer keeps one per
// transition group (Blom, van de Pol, Weber, "LTSmin: Distributed and
// Symbolic Reachability", CAV 2010, section 3): the search asks it before it
// steps an agent, and where it holds the outcome the step is not run.
//
// Why a step's outcome is a function of what the key holds: a step of agent
// a (with the local steps after it) writes only a's part and the parts no
// agent owns (restore relies on it, state.hpp), and it reads only those,
// except where it reads another agent's AgentState, which it does only
// through Exec::all_agents, which says so (StepInfo::reads_others): such a
// step is not kept. surely_blocked reads the same (the agent's own part, its
// barriers, the events). So the key is the agent's index, its own part
// (agent_hashes' words) and the bytes of the parts no agent owns (EventBytes::shared,
// equal exactly where those parts are equal), compared in full: a hit is the
// same step from the same inputs, never a hash that happened to match. Steps
// that raise a violation or a warning, or throw, are not kept: they run each
// time, as before. The search checks every kept successor it stores (the
// fingerprint of the state the step makes against the one kept), and
// Options::check_step_cache runs every step and compares.
//
// The outcome kept: whether the step was enabled, and the successor's
// agent_hash of a and shared_hash, from which, with the expanded state's
// other agents' hashes, the successor's fingerprint follows
// (fingerprint_of). A successor found new is then stepped for real to be
// stored (Successors::expand).
//
// A kernel whose steps seldom repeat (its events differ from state to state)
// finds few outcomes: where fewer than a quarter of a window of lookups
// found one, the cache turns itself off for the rest of the search and
// frees its memory.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "checker/state.hpp"

namespace pc::check {

class StepCache {
 public:
  struct Outcome {
    bool enabled = false;
    std::uint64_t agent_hash = 0;   // the successor's agent_hash of the agent that stepped
    std::uint64_t shared_hash = 0;  // the successor's shared_hash
  };

  [[nodiscard]] bool on() const { return on_; }

  // The state about to be expanded: the bytes of its parts no agent owns
  // (valid until the next begin), numbered as they were first met, so that
  // an outcome's shared parts compare as one number.
  void begin(std::string_view shared) {
    shared_ = shared;
    if (!on_) return;
    if (shared_slots_.empty()) clear(initial_slots);
    shared_id_ = intern();
  }

  // The outcome kept for agent a of the state begun, whose own part is
  // own[0, n) and whose agent_hash is `h` (it spreads the keys); null if none.
  const Outcome* find(int a, std::uint64_t h, const std::uint64_t* own, std::size_t n) {
    if ((++lookups_ & (window - 1)) == 0) {
      // The last window's lookups: off if fewer than a quarter found.
      if ((hits_ - window_hits_) * 4 < window) turn_off();
      window_hits_ = hits_;
    }
    if (!on_) return nullptr;
    const std::uint64_t key = key_of(a, h);
    for (std::size_t i = key & mask_;; i = (i + 1) & mask_) {
      const Slot& sl = slots_[i];
      if (sl.key == 0) return nullptr;
      if (sl.key != key) continue;
      const std::uint64_t* e = words_.data() + sl.at;
      const Entry& head = *reinterpret_cast<const Entry*>(e);
      if (head.agent != static_cast<std::uint32_t>(a) || head.own != n || head.shared != shared_id_ || !same(e + entry_words, own, n))
        continue;
      ++hits_;
      found_.enabled = head.enabled;
      found_.agent_hash = head.agent_hash;
      found_.shared_hash = head.shared_hash;
      return &found_;
    }
  }

  // Asks the memory for the first slot find(a, h, ...) reads: the search
  // asks for every agent's when it begins a state.
  void prefetch(int a, std::uint64_t h) const {
    if (!on_) return;
    const Slot* at = &slots_[key_of(a, h) & mask_];
#if defined(__x86_64__)
    asm volatile("prefetcht0 %0" : : "m"(*at));
#else
    __builtin_prefetch(at);
#endif
  }

  // Keeps the outcome of agent a's step from the state begun (own part
  // own[0, n), agent_hash h).
  void put(int a, std::uint64_t h, const std::uint64_t* own, std::size_t n, const Outcome& out) {
    if (!on_) return;
    if (count_ == max_entries || words_.size() + entry_words + n > max_words) clear(slots_.size());
    if ((count_ + 1) * 2 > slots_.size()) grow(slots_, mask_);
    const std::size_t at = words_.size();
    place(slots_, mask_, Slot{key_of(a, h), at});
    Entry head;
    head.agent = static_cast<std::uint32_t>(a);
    head.enabled = out.enabled;
    head.own = static_cast<std::uint32_t>(n);
    head.shared = shared_id_;
    head.agent_hash = out.agent_hash;
    head.shared_hash = out.shared_hash;
    words_.resize(at + entry_words + n);
    std::memcpy(words_.data() + at, &head, sizeof head);
    std::memcpy(words_.data() + at + entry_words, own, n * 8);
    ++count_;
  }

  [[nodiscard]] std::uint64_t hits() const { return hits_; }
  [[nodiscard]] std::uint64_t lookups() const { return lookups_; }

 private:
  struct Entry {
    std::uint32_t agent = 0;
    std::uint32_t enabled = 0;
    std::uint32_t own = 0;     // words of the own part, which follow
    std::uint32_t shared = 0;  // the number of the shared parts (intern)
    std::uint64_t agent_hash = 0, shared_hash = 0;
  };
  static constexpr std::size_t entry_words = sizeof(Entry) / 8;
  struct Slot {
    std::uint64_t key = 0;  // 0: empty
    std::size_t at = 0;     // the entry's first word in words_ (shared parts: in shared_words_)
  };
  // The first tables, and the most outcomes (and numbered shared parts)
  // kept, and words (512 KiB of each kind): past any the cache starts
  // afresh, the steps of the states expanded next kept again. A
  // breadth-first level's states meet few barrier states, so their steps'
  // inputs are few: on the barrier family a cache of 1,024 outcomes finds
  // as many as one without a bound, and its memory stays a small part of the
  // search's (docs/checker.md, "The step cache").
  static constexpr std::size_t initial_slots = std::size_t{1} << 10;
  static constexpr std::size_t max_entries = std::size_t{1} << 10;
  static constexpr std::size_t max_words = std::size_t{1} << 16;
  static constexpr std::uint64_t window = 1u << 14;

  static bool same(const std::uint64_t* x, const std::uint64_t* y, std::size_t n) {
    std::uint64_t d = 0;
    for (std::size_t k = 0; k < n; ++k) d |= x[k] ^ y[k];
    return d == 0;
  }
  std::uint64_t key_of(int a, std::uint64_t h) const {
    const __uint128_t r = static_cast<__uint128_t>(h ^ static_cast<std::uint64_t>(a)) * (0x9E3779B97F4A7C15ull ^ (std::uint64_t{shared_id_} << 1));
    const std::uint64_t k = static_cast<std::uint64_t>(r) ^ static_cast<std::uint64_t>(r >> 64);
    return k == 0 ? 1 : k;
  }
  static void place(std::vector<Slot>& slots, std::size_t mask, const Slot& sl) {
    std::size_t i = sl.key & mask;
    while (slots[i].key != 0) i = (i + 1) & mask;
    slots[i] = sl;
  }
  static void grow(std::vector<Slot>& slots, std::size_t& mask) {
    std::vector<Slot> old(slots.size() * 2);
    old.swap(slots);
    mask = slots.size() - 1;
    for (const Slot& sl : old)
      if (sl.key != 0) place(slots, mask, sl);
  }
  // The number of the shared bytes begun: the index of their copy in
  // shared_words_ (each copy: its length in bytes, then the bytes).
  std::uint32_t intern() {
    const std::string_view b = shared_;
    std::uint64_t key = hash_bytes(b);
    key += key == 0;
    const std::size_t n = (b.size() + 7) / 8;
    for (std::size_t i = key & shared_mask_;; i = (i + 1) & shared_mask_) {
      const Slot& sl = shared_slots_[i];
      if (sl.key == 0) break;
      if (sl.key == key && shared_words_[sl.at] == b.size() && std::memcmp(&shared_words_[sl.at + 1], b.data(), b.size()) == 0)
        return static_cast<std::uint32_t>(sl.at);
    }
    if ((shared_count_ == max_entries || shared_words_.size() + 1 + n > max_words) && shared_count_ > 0) {
      clear(slots_.size());  // which numbers these bytes
      return shared_id_;
    }
    if ((shared_count_ + 1) * 2 > shared_slots_.size()) grow(shared_slots_, shared_mask_);
    const std::size_t at = shared_words_.size();
    place(shared_slots_, shared_mask_, Slot{key, at});
    shared_words_.resize(at + 1 + n, 0);
    shared_words_[at] = b.size();
    std::memcpy(&shared_words_[at + 1], b.data(), b.size());
    ++shared_count_;
    return static_cast<std::uint32_t>(at);
  }
  void turn_off() {
    on_ = false;
    clear(0);
  }
  // Empties the cache; `n` slots for each table (0: none, the memory
  // freed). The state being expanded keeps its shared parts' number.
  void clear(std::size_t n) {
    slots_.assign(n, Slot{});
    shared_slots_.assign(n, Slot{});
    words_.clear();
    shared_words_.clear();
    if (n == 0) {
      slots_.shrink_to_fit();
      shared_slots_.shrink_to_fit();
      words_.shrink_to_fit();
      shared_words_.shrink_to_fit();
    }
    mask_ = shared_mask_ = n == 0 ? 0 : n - 1;
    count_ = shared_count_ = 0;
    if (n != 0 && shared_.data() != nullptr) shared_id_ = intern();
  }

  bool on_ = true;
  std::vector<Slot> slots_, shared_slots_;
  std::size_t mask_ = 0, count_ = 0, shared_mask_ = 0, shared_count_ = 0;
  std::vector<std::uint64_t> words_, shared_words_;
  std::string_view shared_;
  std::uint32_t shared_id_ = 0;
  std::uint64_t lookups_ = 0, hits_ = 0, window_hits_ = 0;
  Outcome found_;
};

}  // namespace pc::check
