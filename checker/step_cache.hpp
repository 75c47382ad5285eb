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
// barriers, the events). So the key is the agent's index, the bytes of its
// own part and the bytes of the parts no agent owns, as serialize lays them
// out (EventBytes: equal exactly where the parts are equal, the builtin
// variables, the kernel's, left out), compared in full: a hit is the same
// step from the same inputs, never a hash that happened to match. Steps
// that raise a violation or a warning, or throw, are not kept: they run each
// time, as before. Options::check_step_cache runs every step and compares.
//
// The outcome kept: whether the step was enabled; the agent_hash of a's
// part the key holds; the successor's agent_hash of a and shared_hash, from
// which, with the other agents' hashes, the successor's fingerprint follows
// (fingerprint_of); and the successor's bytes of a's part and of the parts
// no agent owns, from which, with the other agents' bytes, its bytes follow
// (a state's bytes are its agents' parts in turn, then the shared ones). So
// a state whose every agent the cache answers for is expanded from its
// bytes, neither loaded nor stepped (Successors::expand).
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
  // What a lookup compares at once: an own part's first two words (the
  // bytes past its end zero), and its agent, length and shared parts'
  // number in one word (meta).
  struct Head {
    std::uint64_t first = 0, second = 0, meta = 0;
  };
  // An outcome kept: one cache line, the slot of the table itself, so that
  // a lookup reads one line (what splicing a successor needs, and an own
  // part longer than two words, lie in words_ from `at`).
  struct alignas(64) Entry {
    Head head;                      // head.meta 0: an empty slot
    std::uint32_t enabled : 1 = 0;
    std::uint32_t part : 31 = 0;    // bytes of the successor's part
    std::uint32_t next_shared = 0;  // the number of the successor's shared parts
    std::uint64_t before = 0, agent_hash = 0, shared_hash = 0;
    std::uint32_t at = 0;           // in words_: the own part's words past the first two, then the successor's part
  };
  static_assert(sizeof(Entry) == 64);

 public:
  // What put keeps.
  struct Outcome {
    bool enabled = false;
    std::uint64_t before = 0;       // the agent_hash of the agent's part the key holds
    std::uint64_t agent_hash = 0;   // the successor's agent_hash of the agent that stepped
    std::uint64_t shared_hash = 0;  // the successor's shared_hash
    std::string_view part;          // the successor's bytes of the agent's part
    std::string_view shared;        // the successor's bytes of the parts no agent owns
  };
  // The number of the pending events of a state whose shared bytes were
  // begun but never seen loaded (pending).
  static constexpr std::uint32_t unknown = ~std::uint32_t{0};

  [[nodiscard]] bool on() const { return on_; }

  // The state about to be expanded: the bytes of its parts no agent owns
  // (valid until the next begin), numbered as they were first met, so that
  // an outcome's shared parts compare as one number.
  void begin(std::string_view shared) {
    shared_ = shared;
    if (!on_) {
      if (!slots_.empty()) clear(0);  // turned off while the last state was expanded
      return;
    }
    if (shared_slots_.empty()) clear(initial_slots);
    // Successive states of a level often share their shared parts: the
    // number of the state before is tried first.
    if (shared_count_ > 0 && shared_bytes(shared_id_) == shared) return;
    shared_id_ = intern(shared, unknown);
  }
  // The number of pending events of the state begun (`unknown` where it has
  // not been loaded since its shared bytes were first met), and telling it.
  [[nodiscard]] std::uint32_t pending() const { return on_ ? static_cast<std::uint32_t>(shared_words_[shared_id_] >> 32) : unknown; }
  void set_pending(std::size_t n) {
    if (on_) shared_words_[shared_id_] = (shared_words_[shared_id_] & 0xffffffffu) | std::uint64_t{n} << 32;
  }

  // An outcome find found, read where it is kept: valid until the next put
  // or begin.
  class Kept {
   public:
    explicit operator bool() const { return e_ != nullptr; }
    [[nodiscard]] bool enabled() const { return e_->enabled != 0; }
    [[nodiscard]] std::uint64_t before() const { return e_->before; }
    [[nodiscard]] std::uint64_t agent_hash() const { return e_->agent_hash; }
    [[nodiscard]] std::uint64_t shared_hash() const { return e_->shared_hash; }
    [[nodiscard]] std::string_view part() const {
      return {reinterpret_cast<const char*>(c_->words_.data() + e_->at + extra_words(e_->head.meta & 0xffff)), e_->part};
    }
    [[nodiscard]] std::string_view shared() const { return c_->shared_bytes(e_->next_shared); }

   private:
    friend class StepCache;
    const Entry* e_ = nullptr;
    const StepCache* c_ = nullptr;
  };

  // The outcome kept for agent a of the state begun, whose own part's bytes
  // are `own` (at least 16 readable bytes from its first and 8 from any of
  // its bytes: the state's shared part follows, Successors::expand); none if
  // none. Counts nothing (tally does).
  [[nodiscard, gnu::always_inline]] Kept find(int a, std::string_view own) const {
    Kept out;
    const std::size_t n = own.size();
    if (!on_ || !keyable(n)) return out;
    // Most own parts are two words or less: read, hashed and compared
    // without a branch on their length.
    const Head h = head_of(a, own);
    for (std::size_t i = key_of(h) & mask_;; i = (i + 1) & mask_) {
      const Entry& e = slots_[i];
      if (e.head.meta == 0) return out;
      if (((e.head.meta ^ h.meta) | (e.head.first ^ h.first) | (e.head.second ^ h.second)) != 0) continue;
      if (n > 16 && !same(words_.data() + e.at, own.data() + 16, n - 16)) continue;
      out.e_ = &e;
      out.c_ = this;
      return out;
    }
  }
  // Counts `lookups` finds, `hits` of which found an outcome; turns the
  // cache off where a window of them found too few (its memory freed when
  // the next state is begun: what it found stays valid until then).
  void tally(std::uint64_t lookups, std::uint64_t hits) {
    hits_ += hits;
    const std::uint64_t before = lookups_;
    lookups_ += lookups;
    if ((before & ~(window - 1)) == (lookups_ & ~(window - 1))) return;
    // The last window's lookups: off if fewer than a quarter found.
    if ((hits_ - window_hits_) * 4 < lookups_ - window_lookups_) turn_off();
    window_hits_ = hits_;
    window_lookups_ = lookups_;
  }

  // Keeps the outcome of agent a's step from the state begun (own part
  // `own`), its successor's part and shared bytes in `out` (none where it is
  // not enabled), the successor having `next_pending` pending events.
  void put(int a, std::string_view own, const Outcome& out, std::size_t next_pending) {
    if (!on_ || !keyable(own.size())) return;
    const std::size_t own_words = extra_words(own.size()), part_words = (out.part.size() + 7) / 8;
    const std::size_t n = own_words + part_words;
    const std::size_t shared_n = 1 + (out.shared.size() + 7) / 8;
    if (count_ == max_entries || words_.size() + n > max_words || shared_count_ + 1 >= max_entries ||
        shared_words_.size() + shared_n > max_words)
      clear(slots_.size());
    if (shared_words_.size() + shared_n > max_words) return;  // too large to keep
    Entry e;
    e.enabled = out.enabled;
    e.part = static_cast<std::uint32_t>(out.part.size());
    e.next_shared = out.enabled ? intern(out.shared, static_cast<std::uint32_t>(next_pending)) : shared_id_;
    e.head = head_of(a, own);  // after intern: a fresh start numbers the shared parts again
    e.before = out.before;
    e.agent_hash = out.agent_hash;
    e.shared_hash = out.shared_hash;
    if ((count_ + 1) * 4 > slots_.size()) grow(slots_, mask_);
    const std::size_t at = words_.size();
    e.at = static_cast<std::uint32_t>(at);
    place(slots_, mask_, e);
    words_.resize(at + n, 0);
    if (own.size() > 16) std::memcpy(words_.data() + at, own.data() + 16, own.size() - 16);
    if (!out.part.empty()) std::memcpy(words_.data() + at + own_words, out.part.data(), out.part.size());
    ++count_;
  }

  [[nodiscard]] std::uint64_t hits() const { return hits_; }
  [[nodiscard]] std::uint64_t lookups() const { return lookups_; }

 private:
  struct Slot {
    std::uint64_t key = 0;  // 0: empty
    std::size_t at = 0;     // the shared parts' first word in shared_words_
  };
  // The first tables, and the most outcomes (and numbered shared parts)
  // kept, and words (512 KiB of each kind: the outcomes' longer parts, the
  // shared parts; the outcomes themselves take 64 bytes a slot, in a table
  // of at most 4,096 slots, 256 KiB, a quarter full at most, so that a
  // lookup seldom reads a second slot): past any the cache starts
  // afresh, the steps of the states expanded next kept again. A
  // breadth-first level's states meet few barrier states, so their steps'
  // inputs are few: on the barrier family a cache of 1,024 outcomes finds
  // as many as one without a bound, and its memory stays a small part of the
  // search's (docs/checker.md, "The step cache").
  static constexpr std::size_t initial_slots = std::size_t{1} << 10;
  static constexpr std::size_t max_entries = std::size_t{1} << 10;
  static constexpr std::size_t max_words = std::size_t{1} << 16;
  static constexpr std::uint64_t window = 1u << 14;

  static std::uint64_t load8(const char* p) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    return w;
  }
  // The last word of n bytes from p (n % 8 of them, or 8), the rest zero.
  static std::uint64_t tail(const char* p, std::size_t n) {
    const std::size_t k = n % 8 == 0 ? 8 : n % 8;
    return load8(p) & (~std::uint64_t{0} >> (64 - 8 * k));
  }
  // Whether the words kept at x hold the n bytes at y.
  static bool same(const std::uint64_t* x, const char* y, std::size_t n) {
    if (n == 0) return true;
    std::uint64_t d = 0;
    std::size_t k = 0;
    for (; k + 8 < n; k += 8) d |= x[k / 8] ^ load8(y + k);
    return (d | (x[k / 8] ^ tail(y + k, n - k))) == 0;
  }
  static std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
    const __uint128_t r = static_cast<__uint128_t>(a) * b;
    return static_cast<std::uint64_t>(r) ^ static_cast<std::uint64_t>(r >> 64);
  }
  // An own part's length fits meta's 16 bits (an agent's index does:
  // Action is 16 bits); a longer one, or none, is not kept.
  static bool keyable(std::size_t n) { return n != 0 && n <= 0xffff; }
  // The first k bytes of word w (k at most 8), the rest zero.
  static std::uint64_t low(std::uint64_t w, std::size_t k) { return k >= 8 ? w : w & ((std::uint64_t{1} << (8 * k)) - 1); }
  // Agent a's own part `own` (keyable) from the state begun, as compared.
  [[nodiscard]] Head head_of(int a, std::string_view own) const {
    const std::size_t n = own.size();
    return {low(load8(own.data()), n), low(load8(own.data() + 8), n > 8 ? n - 8 : 0),
            std::uint64_t{shared_id_} << 32 | std::uint64_t{static_cast<std::uint16_t>(a)} << 16 | n};
  }
  // The slot key: the head mixed (the rest of a longer own part, rarely
  // there, compared only).
  static std::uint64_t key_of(const Head& h) { return mix(h.first ^ 0xA0761D6478BD642Full, (h.meta ^ 0xE7037ED1A0B428DBull) + h.second * 0x8EBC6AF09C88C6E3ull); }
  // The words an own part of n bytes keeps in words_: those past its first two.
  static std::size_t extra_words(std::size_t n) { return n > 16 ? (n - 1) / 8 - 1 : 0; }
  static std::uint64_t key_of(const Entry& e) { return key_of(e.head); }
  static bool empty(const Entry& e) { return e.head.meta == 0; }
  static std::uint64_t key_of(const Slot& sl) { return sl.key; }
  static bool empty(const Slot& sl) { return sl.key == 0; }
  template <class S>
  static void place(std::vector<S>& slots, std::size_t mask, const S& sl) {
    std::size_t i = key_of(sl) & mask;
    while (!empty(slots[i])) i = (i + 1) & mask;
    slots[i] = sl;
  }
  template <class S>
  static void grow(std::vector<S>& slots, std::size_t& mask) {
    std::vector<S> old(slots.size() * 2);
    old.swap(slots);
    mask = slots.size() - 1;
    for (const S& sl : old)
      if (!empty(sl)) place(slots, mask, sl);
  }
  // The shared bytes numbered `id` (an index of shared_words_: a word of
  // their length and pending events, then the bytes).
  [[nodiscard]] std::string_view shared_bytes(std::uint32_t id) const {
    return {reinterpret_cast<const char*>(&shared_words_[id + 1]), static_cast<std::size_t>(shared_words_[id] & 0xffffffffu)};
  }
  // The number of bytes b: the index of their copy in shared_words_ (made,
  // with `pending`, if there is none; one the search loads tells its pending
  // events where they were `unknown`).
  std::uint32_t intern(std::string_view b, std::uint32_t pending) {
    std::uint64_t key = hash_bytes(b);
    key += key == 0;
    const std::size_t n = (b.size() + 7) / 8;
    for (std::size_t i = key & shared_mask_;; i = (i + 1) & shared_mask_) {
      const Slot& sl = shared_slots_[i];
      if (sl.key == 0) break;
      if (sl.key == key && (shared_words_[sl.at] & 0xffffffffu) == b.size() &&
          std::memcmp(&shared_words_[sl.at + 1], b.data(), b.size()) == 0) {
        if (pending != unknown) shared_words_[sl.at] = b.size() | std::uint64_t{pending} << 32;
        return static_cast<std::uint32_t>(sl.at);
      }
    }
    if ((shared_count_ == max_entries || shared_words_.size() + 1 + n > max_words) && shared_count_ > 0) {
      clear(slots_.size());  // which numbers the state begun's bytes
      if (b.data() == shared_.data() && b.size() == shared_.size()) return shared_id_;
      return intern(b, pending);
    }
    if ((shared_count_ + 1) * 2 > shared_slots_.size()) grow(shared_slots_, shared_mask_);
    const std::size_t at = shared_words_.size();
    place(shared_slots_, shared_mask_, Slot{key, at});
    shared_words_.resize(at + 1 + n, 0);
    shared_words_[at] = b.size() | std::uint64_t{pending} << 32;
    std::memcpy(&shared_words_[at + 1], b.data(), b.size());
    ++shared_count_;
    return static_cast<std::uint32_t>(at);
  }
  void turn_off() { on_ = false; }
  // Empties the cache; `n` slots for each table (0: none, the memory
  // freed). The state being expanded keeps its shared parts' number (its
  // pending events unknown again).
  void clear(std::size_t n) {
    slots_.assign(n, Entry{});
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
    if (n != 0 && shared_.data() != nullptr) shared_id_ = intern(shared_, unknown);
  }

  bool on_ = true;
  std::vector<Entry> slots_;
  std::vector<Slot> shared_slots_;
  std::size_t mask_ = 0, count_ = 0, shared_mask_ = 0, shared_count_ = 0;
  std::vector<std::uint64_t> words_, shared_words_;
  std::string_view shared_;
  std::uint32_t shared_id_ = 0;
  std::uint64_t lookups_ = 0, hits_ = 0, window_hits_ = 0, window_lookups_ = 0;
};

}  // namespace pc::check
