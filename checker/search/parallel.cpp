// The parallel back end, level by level. Each level's states are cut into
// chunks that the threads take in order; a thread expands its chunks with
// its own buffers, puts each successor into the shared table and, when the
// table says it is new, or reached from an earlier state than the one that
// put it there, appends it to its own list. Between levels the lists are
// filtered (only the entry of a state's earliest parent stays) and numbered
// in chunk order: the ids, the parent links and the queue are those of one
// thread, and so is the first violation (the smallest key).
#include <algorithm>
#include <atomic>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "checker/frontier.hpp"
#include "checker/search/limits.hpp"
#include "checker/search/profile.hpp"
#include "checker/search/search.hpp"
#include "checker/search/team.hpp"

namespace pc::check {
namespace {

void lower(std::atomic<Key>& k, Key v) {
  Key cur = k.load(std::memory_order_relaxed);
  while (v < cur && !k.compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
  }
}

// A successor a thread appended: its bytes, fingerprint and parent link;
// `aside` while the table has not yet said whether it is new (it was full),
// `dropped` once it said the state was seen.
enum class Mark : std::uint8_t { kept, aside, dropped };
struct Entry {
  StateRef at;
  std::uint64_t fp;
  std::uint32_t parent;
  Action action;
  Mark mark;
};

// A thread's own part, on cache lines of its own.
struct alignas(64) Lane {
  Worker w;
  Frames frames[2];  // the states it found of the level read and of the level written (by `gen`)
  FrameReader reader;
  std::vector<Entry> out;
  std::uint64_t expanded = 0;  // states, for the limits' checks
  bool aside = false;          // an entry of this level is kept aside
  std::unique_ptr<Profiler> profile;  // --profile-states: the states this thread counted
  FrameReader profile_reader;
};

// A chunk of the level: the states [first, first + size) of `level`, and
// where its thread put what it found.
struct Chunk {
  int lane = -1;  // -1: not expanded
  std::uint32_t begin = 0, end = 0;  // in the lane's `out`
  std::uint64_t transitions = 0;
  std::uint64_t before = 0;  // entries kept whose key is below the first violation's
  std::uint64_t offset = 0;  // of its first kept entry in the next level
};

// Each thread checks the limits every 256 states it expands (one thread
// checks every 1024); the states stored so far are those the threads have
// told the table of, once a chunk.
constexpr std::uint64_t check_every = 256;

// One parallel search, level by level: each level expanded (expand_level),
// its successors filtered to their earliest parents (filter), then either
// the first violation taken (take_violation) or the next level numbered
// (number_next).
class ParallelSearch {
 public:
  ParallelSearch(const SearchRun& run, unsigned threads);
  Searched run();

 private:
  void add_lanes(const State& init);
  // Sizes the chunks of the level read; false when the search ends before it.
  bool start_level();
  void phase(const std::function<void(int)>& job);
  void check_limits();
  void grow();
  void expand_chunks(int li);
  void expand_level();
  void put_aside_again();
  void filter(Key first);
  void take_violation(Key first);
  void profile_level(Key first);
  void number_next();
  void finish();

  const SearchRun& run_;
  const Successors& next_of_;
  const unsigned threads_;
  Limits limits_;
  Searched out_;
  SharedFingerprintSet visited_;
  std::vector<std::unique_ptr<Lane>> lanes_;
  int gen_ = 0;
  // A level: where each of its states lies; state i of the level has id base + i.
  std::vector<StateRef> level_, next_;
  std::size_t level_size_ = 0;  // of `level`, whose vectors only grow (a level's refs are all written)
  std::vector<Chunk> chunks_;
  std::atomic<std::size_t> cursor_{0};
  std::atomic<Key> best_{no_key};  // the smallest key of a violation or error so far
  std::atomic<bool> stop_{false};
  std::mutex stop_m_, progress_m_;
  std::string stop_reason_;
  std::unique_ptr<Team> team_;
  std::uint64_t depth_ = 0, transitions_ = 0;
  std::uint32_t base_ = 0;  // the id of level[0]
  Found found_;
  Key found_key_ = no_key;
  // The level being expanded: its size, its chunks' size and count, the id
  // after its last state, and whether the team expands it.
  std::size_t n_ = 0, chunk_ = 0, nchunks_ = 0, level_end_ = 0;
  bool wide_ = false;
};

ParallelSearch::ParallelSearch(const SearchRun& run, unsigned threads)
    : run_(run), next_of_(run.next), threads_(threads), limits_(run.opt), visited_(run.opt.parallel_table_lines) {
  State init = next_of_.initial(run.coverage);
  visited_.insert(next_of_.fingerprint(init), 0, 0);
  visited_.added(1);
  if (run.links) run.links->add(0, 0);
  add_lanes(init);
  if (run.profile) lanes_[0]->profile->count(init);
  std::string actual;
  serialize(init, next_of_.owners(), actual);
  level_.push_back(lanes_[0]->frames[gen_].put(actual, 0));
  level_size_ = 1;
  lanes_[0]->frames[gen_].seal();
}

void ParallelSearch::add_lanes(const State& init) {
  for (unsigned i = 0; i < threads_; ++i) {
    auto lane = std::make_unique<Lane>();
    lane->w.s = init;
    lane->w.t = init;
    if (run_.coverage) {
      lane->w.own_coverage = std::make_unique<Coverage>(next_of_.model().program());
      lane->w.coverage = lane->w.own_coverage.get();
    }
    if (run_.profile) lane->profile = std::make_unique<Profiler>(next_of_.model().program(), next_of_.owners(), init);
    lanes_.push_back(std::move(lane));
  }
}

bool ParallelSearch::start_level() {
  if (level_size_ == 0 || found_.any || stop_.load() || depth_ > run_.max_depth) return false;
  n_ = level_size_;
  chunk_ = std::clamp<std::size_t>(n_ / (std::size_t{threads_} * 32), 1, 256);
  nchunks_ = (n_ + chunk_ - 1) / chunk_;
  chunks_.assign(nchunks_, Chunk{});
  level_end_ = base_ + n_;
  wide_ = n_ >= run_.opt.parallel_min_level;
  if (wide_ && !team_) team_ = std::make_unique<Team>(threads_);
  return true;
}

void ParallelSearch::phase(const std::function<void(int)>& job) {
  cursor_.store(0);
  if (wide_) team_->run(job);
  else job(0);
}

// Limits and the progress line, from whichever thread comes by: one line
// for the whole search.
void ParallelSearch::check_limits() {
  const std::uint64_t states = visited_.size();
  std::uint64_t mem = 0;
  const char* why = limits_.reached(states, mem);
  {
    const std::unique_lock<std::mutex> g(progress_m_, std::try_to_lock);
    if (g.owns_lock()) limits_.progress(states, depth_, states > level_end_ ? states - level_end_ : 0, mem);
  }
  if (why) {
    const std::lock_guard<std::mutex> g(stop_m_);
    if (stop_reason_.empty()) stop_reason_ = why;
    stop_.store(true, std::memory_order_relaxed);
  }
}

// The table grows while no thread inserts: each thread moves parts of the
// old one.
void ParallelSearch::grow() {
  const std::size_t parts = std::size_t{threads_} * 4;
  visited_.start_growing(parts);
  std::atomic<std::size_t> part{0};
  auto move = [&](int) {
    for (std::size_t i; (i = part.fetch_add(1, std::memory_order_relaxed)) < parts;) visited_.move(i);
  };
  if (wide_) team_->run(move);
  else move(0);
  visited_.finish_growing();
}

// Thread li takes chunks in order until none is left, a violation before
// them is known, or the table asks for room.
void ParallelSearch::expand_chunks(int li) {
  Lane& lane = *lanes_[static_cast<std::size_t>(li)];
  Worker& w = lane.w;
  Frames& into = lane.frames[gen_ ^ 1];
  SharedFingerprintSet& visited = visited_;
  const std::size_t n = n_, chunk = chunk_, nchunks = nchunks_;
  const std::uint32_t base = base_;
  into.raw_budget(visited.bytes() / raw_share / threads_);  // as on one thread, shared by the threads
  for (;;) {
    if (w.error || visited.wants_room()) break;
    const std::size_t c = cursor_.fetch_add(1, std::memory_order_relaxed);
    if (c >= nchunks || stop_.load(std::memory_order_relaxed)) break;
    Chunk& ch = chunks_[c];
    ch.lane = li;
    ch.begin = static_cast<std::uint32_t>(lane.out.size());
    const std::uint64_t before = w.transitions;
    std::uint64_t fresh = 0;
    for (std::size_t i = c * chunk; i < std::min(n, (c + 1) * chunk); ++i) {
      const auto id = static_cast<std::uint32_t>(base + i);
      if (key_of(id, 0) > best_.load(std::memory_order_relaxed) || stop_.load(std::memory_order_relaxed)) break;
      w.load(lane.reader.get(lanes_[level_[i].writer]->frames[gen_], level_[i]));
      try {
        next_of_.expand(
            w, id, depth_,
            [&](std::uint64_t fp, Action a, auto&& queued) {
              const SharedFingerprintSet::Put put = visited.insert(fp, id + 1, base);
              if (put == SharedFingerprintSet::Put::seen) return;
              fresh += put == SharedFingerprintSet::Put::fresh;
              const bool full = put == SharedFingerprintSet::Put::full;
              lane.aside |= full;
              lane.out.push_back(Entry{into.put(queued(), static_cast<std::uint16_t>(li)), fp, id, a, full ? Mark::aside : Mark::kept});
            },
            [&](std::uint64_t fp) { visited.prefetch(fp); });
      } catch (...) {
        w.error = std::current_exception();
        w.error_key = key_of(id, w.action);
        lower(best_, w.error_key);
        break;
      }
      if (w.found.any) {
        lower(best_, w.found_key);
        break;
      }
      if (++lane.expanded % check_every == 0) check_limits();
    }
    ch.end = static_cast<std::uint32_t>(lane.out.size());
    ch.transitions = w.transitions - before;
    visited.added(fresh);
  }
  into.seal();  // each thread its own, at once
}

// Every chunk expanded, the table grown whenever it asks for room (then the
// threads go on).
void ParallelSearch::expand_level() {
  cursor_.store(0);
  for (;;) {
    if (wide_) team_->run([this](int li) { expand_chunks(li); });
    else expand_chunks(0);
    if (cursor_.load() >= nchunks_ || stop_.load() || !visited_.wants_room()) break;
    grow();
  }
}

// The successors kept aside, put again in the order found (a state's
// earliest action stays), the table grown first.
void ParallelSearch::put_aside_again() {
  for (const auto& lane : lanes_) {
    if (!std::exchange(lane->aside, false)) continue;
    for (Entry& e : lane->out) {
      if (e.mark != Mark::aside) continue;
      SharedFingerprintSet::Put put;
      while ((put = visited_.insert(e.fp, e.parent + 1, base_)) == SharedFingerprintSet::Put::full) grow();
      if (put == SharedFingerprintSet::Put::fresh) visited_.added(1);
      e.mark = put == SharedFingerprintSet::Put::seen ? Mark::dropped : Mark::kept;
    }
  }
}

// An entry stays where its parent is the state's owner, the earliest parent
// in the one-thread order; those before the key `first` are counted.
void ParallelSearch::filter(Key first) {
  phase([&](int) {
    for (;;) {
      const std::size_t c = cursor_.fetch_add(1, std::memory_order_relaxed);
      if (c >= nchunks_) break;
      Chunk& ch = chunks_[c];
      if (ch.lane < 0) continue;
      std::vector<Entry>& out = lanes_[static_cast<std::size_t>(ch.lane)]->out;
      std::uint32_t k = ch.begin;
      // Each owner asked for a few entries ahead (visited.prefetch).
      constexpr std::uint32_t ahead = 32;
      for (std::uint32_t i = ch.begin; i < std::min(ch.end, ch.begin + ahead); ++i) visited_.prefetch(out[i].fp);
      for (std::uint32_t i = ch.begin; i < ch.end; ++i) {
        if (i + ahead < ch.end) visited_.prefetch(out[i + ahead].fp);
        const Entry e = out[i];
        if (e.mark == Mark::dropped || visited_.owner(e.fp) != e.parent + 1) continue;
        if (key_of(e.parent, e.action) < first) ++ch.before;
        out[k++] = e;
      }
      ch.end = k;
    }
  });
}

// A violation (or an error) in this level: the first in key order is the
// one one thread meets; its counts are those one thread has then.
void ParallelSearch::take_violation(Key first) {
  const Worker* at = nullptr;
  for (const auto& lane : lanes_) {
    const Worker& w = lane->w;
    if (w.found_key == first || w.error_key == first) at = &w;
  }
  if (at && at->error_key == first) std::rethrow_exception(at->error);
  if (!at) return;
  found_ = at->found;
  found_key_ = first;
  if (stop_.load()) return;
  std::uint64_t kept = 0;
  const std::size_t last = (found_.parent - base_) / chunk_;
  for (std::size_t c = 0; c < nchunks_; ++c) {
    kept += chunks_[c].before;
    if (c <= last) transitions_ += chunks_[c].transitions;
  }
  out_.r.states = level_end_ + kept;
}

// --profile-states: the states this level stored, each once (its owner's
// entry, filtered), counted by the threads; with a violation, those one
// thread stores before it (take_violation's count), else all.
void ParallelSearch::profile_level(Key first) {
  const bool all = first == no_key || stop_.load();
  phase([&](int li) {
    Lane& lane = *lanes_[static_cast<std::size_t>(li)];
    for (;;) {
      const std::size_t c = cursor_.fetch_add(1, std::memory_order_relaxed);
      if (c >= nchunks_) break;
      const Chunk& ch = chunks_[c];
      if (ch.lane < 0) continue;
      const Lane& from = *lanes_[static_cast<std::size_t>(ch.lane)];
      for (std::uint32_t i = ch.begin; i < ch.end; ++i) {
        const Entry& e = from.out[i];
        if (all || key_of(e.parent, e.action) < first) lane.profile->count(lane.profile_reader.get(from.frames[gen_ ^ 1], e.at));
      }
    }
  });
}

// The new states numbered in chunk order, and the parent links set; each
// thread then drops the states it wrote of the level just read (numbering
// reads the lists, not the states).
void ParallelSearch::number_next() {
  std::uint64_t total = 0;
  for (Chunk& ch : chunks_) {
    ch.offset = total;
    total += ch.lane < 0 ? 0 : ch.end - ch.begin;
    transitions_ += ch.transitions;
  }
  if (level_end_ + total >= std::numeric_limits<std::uint32_t>::max())  // the table keeps id + 2
    throw KernelError("more than 2^32 states: the search cannot number them", {});
  if (next_.size() < total) next_.resize(total);
  if (run_.links) run_.links->resize(static_cast<std::uint32_t>(level_end_ + total));
  phase([&](int li) {
    for (;;) {
      const std::size_t c = cursor_.fetch_add(1, std::memory_order_relaxed);
      if (c >= nchunks_) break;
      const Chunk& ch = chunks_[c];
      if (ch.lane < 0) continue;
      const std::vector<Entry>& out = lanes_[static_cast<std::size_t>(ch.lane)]->out;
      for (std::uint32_t i = ch.begin; i < ch.end; ++i) {
        const Entry& e = out[i];
        const auto id = static_cast<std::uint32_t>(level_end_ + ch.offset + (i - ch.begin));
        next_[ch.offset + (i - ch.begin)] = e.at;
        if (run_.links) run_.links->set(id, e.parent, e.action);
      }
    }
    if (wide_) lanes_[static_cast<std::size_t>(li)]->frames[gen_].clear();
  });
  for (const auto& lane : lanes_) {
    lane->out.clear();
    if (!wide_) lane->frames[gen_].clear();
  }
  gen_ ^= 1;
  level_.swap(next_);
  level_size_ = total;
  base_ = static_cast<std::uint32_t>(level_end_);
}

// The counts, the threads' findings and coverage merged.
void ParallelSearch::finish() {
  Result& r = out_.r;
  if (!found_.any || stop_.load()) {
    r.states = visited_.size();
    for (const Chunk& ch : chunks_)
      if (stop_.load()) transitions_ += ch.transitions;
  }
  r.transitions = transitions_;
  r.max_depth = depth_;
  r.memory_bytes = peak_resident_bytes();
  std::vector<const Worker*> ws;
  for (const auto& lane : lanes_) {
    ws.push_back(&lane->w);
    r.step_cache_hits += lane->w.cache.hits();
    r.step_cache_states += lane->w.kept_states;
    if (run_.coverage) run_.coverage->merge(*lane->w.own_coverage);
  }
  Warnings warnings = first_warnings(ws, found_key_);
  r.warnings = std::move(warnings.list);
  r.warnings_capped = warnings.capped;
  out_.found = found_;
  out_.stop_reason = stop_reason_;
  if (run_.profile) {
    for (std::size_t i = 1; i < lanes_.size(); ++i) lanes_[0]->profile->merge(*lanes_[i]->profile);
    r.profile = lanes_[0]->profile->result();
  }
}

Searched ParallelSearch::run() {
  while (start_level()) {
    expand_level();
    put_aside_again();
    const Key first = best_.load();
    filter(first);
    if (run_.profile) profile_level(first);
    if (first != no_key) {
      take_violation(first);
      ++depth_;
      break;
    }
    if (stop_.load()) {
      ++depth_;
      break;
    }
    number_next();
    ++depth_;
  }
  team_.reset();
  finish();
  return std::move(out_);
}

}  // namespace

Searched parallel_breadth_first(const SearchRun& run, unsigned threads) { return ParallelSearch(run, threads).run(); }

}  // namespace pc::check
