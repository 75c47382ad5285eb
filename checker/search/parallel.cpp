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
#include "checker/search/search.hpp"
#include "checker/search/team.hpp"

namespace pc::check {
namespace {

void lower(std::atomic<Key>& k, Key v) {
  Key cur = k.load(std::memory_order_relaxed);
  while (v < cur && !k.compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
  }
}

}  // namespace

Searched parallel_breadth_first(const SearchRun& run, unsigned threads) {
  const Successors& next_of = run.next;
  Limits limits(run.opt);
  Searched out;
  Result& r = out.r;
  State init = next_of.initial(run.coverage);
  SharedFingerprintSet visited(run.opt.parallel_table_lines);
  visited.insert(next_of.fingerprint(init), 0, 0);
  visited.added(1);
  if (run.links) run.links->add(0, 0);

  // A successor a thread appended: its bytes, fingerprint and parent link;
  // `aside` while the table has not yet said whether it is new (it was
  // full), `dropped` once it said the state was seen.
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
  };
  std::vector<std::unique_ptr<Lane>> lanes;
  for (unsigned i = 0; i < threads; ++i) {
    auto lane = std::make_unique<Lane>();
    lane->w.s = init;
    lane->w.t = init;
    if (run.coverage) {
      lane->w.own_coverage = std::make_unique<Coverage>(next_of.model().program());
      lane->w.coverage = lane->w.own_coverage.get();
    }
    lanes.push_back(std::move(lane));
  }
  int gen = 0;
  // A level: where each of its states lies; state i of the level has id base + i.
  std::vector<StateRef> level, next;
  std::string actual;
  serialize(init, next_of.owners(), actual);
  level.push_back(lanes[0]->frames[gen].put(actual, 0));
  std::size_t level_size = 1;  // of `level`, whose vectors only grow (a level's refs are all written)
  lanes[0]->frames[gen].seal();

  // A chunk of the level: the states [first, first + size) of `level`, and
  // where its thread put what it found.
  struct Chunk {
    int lane = -1;  // -1: not expanded
    std::uint32_t begin = 0, end = 0;  // in the lane's `out`
    std::uint64_t transitions = 0;
    std::uint64_t before = 0;  // entries kept whose key is below the first violation's
    std::uint64_t offset = 0;  // of its first kept entry in the next level
  };
  std::vector<Chunk> chunks;
  std::atomic<std::size_t> cursor{0};
  std::atomic<Key> best{no_key};  // the smallest key of a violation or error so far
  std::atomic<bool> stop{false};
  std::mutex stop_m, progress_m;
  std::string stop_reason;
  std::unique_ptr<Team> team;
  std::uint64_t depth = 0, transitions = 0;
  std::uint32_t base = 0;  // the id of level[0]
  Found found;
  Key found_key = no_key;

  // Each thread checks the limits every 256 states it expands (one thread
  // checks every 1024); the states stored so far are those the threads have
  // told the table of, once a chunk.
  constexpr std::uint64_t check_every = 256;
  // Limits and the progress line, from whichever thread comes by: one line
  // for the whole search.
  auto check_limits = [&](std::size_t level_end) {
    const std::uint64_t states = visited.size();
    std::uint64_t mem = 0;
    const char* why = limits.reached(states, mem);
    {
      const std::unique_lock<std::mutex> g(progress_m, std::try_to_lock);
      if (g.owns_lock()) limits.progress(states, depth, states > level_end ? states - level_end : 0, mem);
    }
    if (why) {
      const std::lock_guard<std::mutex> g(stop_m);
      if (stop_reason.empty()) stop_reason = why;
      stop.store(true, std::memory_order_relaxed);
    }
  };

  while (level_size > 0 && !found.any && !stop.load() && depth <= run.max_depth) {
    const std::size_t n = level_size;
    const std::size_t chunk = std::clamp<std::size_t>(n / (std::size_t{threads} * 32), 1, 256);
    const std::size_t nchunks = (n + chunk - 1) / chunk;
    chunks.assign(nchunks, Chunk{});
    const std::size_t level_end = base + n;
    const bool wide = n >= run.opt.parallel_min_level;
    if (wide && !team) team = std::make_unique<Team>(threads);
    auto phase = [&](const std::function<void(int)>& job) {
      cursor.store(0);
      if (wide) team->run(job);
      else job(0);
    };

    // The table grows while no thread inserts: each thread moves parts of
    // the old one.
    auto grow = [&] {
      const std::size_t parts = std::size_t{threads} * 4;
      visited.start_growing(parts);
      std::atomic<std::size_t> part{0};
      auto move = [&](int) {
        for (std::size_t i; (i = part.fetch_add(1, std::memory_order_relaxed)) < parts;) visited.move(i);
      };
      if (wide) team->run(move);
      else move(0);
      visited.finish_growing();
    };

    // Expand: each thread takes chunks in order until none is left, a
    // violation before them is known, or the table asks for room (then it
    // grows and the threads go on).
    auto expand = [&](int li) {
      Lane& lane = *lanes[static_cast<std::size_t>(li)];
      Worker& w = lane.w;
      Frames& into = lane.frames[gen ^ 1];
      into.raw_budget(visited.bytes() / raw_share / threads);  // as on one thread, shared by the threads
      for (;;) {
        if (w.error || visited.wants_room()) break;
        const std::size_t c = cursor.fetch_add(1, std::memory_order_relaxed);
        if (c >= nchunks || stop.load(std::memory_order_relaxed)) break;
        Chunk& ch = chunks[c];
        ch.lane = li;
        ch.begin = static_cast<std::uint32_t>(lane.out.size());
        const std::uint64_t before = w.transitions;
        std::uint64_t fresh = 0;
        for (std::size_t i = c * chunk; i < std::min(n, (c + 1) * chunk); ++i) {
          const auto id = static_cast<std::uint32_t>(base + i);
          if (key_of(id, 0) > best.load(std::memory_order_relaxed) || stop.load(std::memory_order_relaxed)) break;
          w.load(lane.reader.get(lanes[level[i].writer]->frames[gen], level[i]));
          try {
            next_of.expand(
                w, id, depth,
                [&](std::uint64_t fp, Action a, auto&& queued) {
                  const SharedFingerprintSet::Put put = visited.insert(fp, id + 1, base);
                  if (put == SharedFingerprintSet::Put::seen) return;
                  fresh += put == SharedFingerprintSet::Put::fresh;
                  const bool full = put == SharedFingerprintSet::Put::full;
                  lane.aside |= full;
                  lane.out.push_back(Entry{into.put(queued(), static_cast<std::uint16_t>(li)), fp, id, a,
                                           full ? Mark::aside : Mark::kept});
                },
                [&](std::uint64_t fp) { visited.prefetch(fp); });
          } catch (...) {
            w.error = std::current_exception();
            w.error_key = key_of(id, w.action);
            lower(best, w.error_key);
            break;
          }
          if (w.found.any) {
            lower(best, w.found_key);
            break;
          }
          if (++lane.expanded % check_every == 0) check_limits(level_end);
        }
        ch.end = static_cast<std::uint32_t>(lane.out.size());
        ch.transitions = w.transitions - before;
        visited.added(fresh);
      }
      into.seal();  // each thread its own, at once
    };
    cursor.store(0);
    for (;;) {
      if (wide) team->run(expand);
      else expand(0);
      if (cursor.load() >= nchunks || stop.load() || !visited.wants_room()) break;
      grow();
    }
    // The successors kept aside, put again in the order found (a state's
    // earliest action stays), the table grown first.
    for (const auto& lane : lanes) {
      if (!std::exchange(lane->aside, false)) continue;
      for (Entry& e : lane->out) {
        if (e.mark != Mark::aside) continue;
        SharedFingerprintSet::Put put;
        while ((put = visited.insert(e.fp, e.parent + 1, base)) == SharedFingerprintSet::Put::full) grow();
        if (put == SharedFingerprintSet::Put::fresh) visited.added(1);
        e.mark = put == SharedFingerprintSet::Put::seen ? Mark::dropped : Mark::kept;
      }
    }
    const Key first = best.load();

    // Filter: an entry stays where its parent is the state's owner, the
    // earliest parent in the one-thread order.
    phase([&](int) {
      for (;;) {
        const std::size_t c = cursor.fetch_add(1, std::memory_order_relaxed);
        if (c >= nchunks) break;
        Chunk& ch = chunks[c];
        if (ch.lane < 0) continue;
        std::vector<Entry>& out = lanes[static_cast<std::size_t>(ch.lane)]->out;
        std::uint32_t k = ch.begin;
        // Each owner asked for a few entries ahead (visited.prefetch).
        constexpr std::uint32_t ahead = 32;
        for (std::uint32_t i = ch.begin; i < std::min(ch.end, ch.begin + ahead); ++i) visited.prefetch(out[i].fp);
        for (std::uint32_t i = ch.begin; i < ch.end; ++i) {
          if (i + ahead < ch.end) visited.prefetch(out[i + ahead].fp);
          const Entry e = out[i];
          if (e.mark == Mark::dropped || visited.owner(e.fp) != e.parent + 1) continue;
          if (key_of(e.parent, e.action) < first) ++ch.before;
          out[k++] = e;
        }
        ch.end = k;
      }
    });

    if (first != no_key) {
      // A violation (or an error) in this level: the first in key order is
      // the one one thread meets; its counts are those one thread has then.
      const Worker* at = nullptr;
      for (const auto& lane : lanes) {
        const Worker& w = lane->w;
        if (w.found_key == first || w.error_key == first) at = &w;
      }
      if (at && at->error_key == first) std::rethrow_exception(at->error);
      if (at) {
        found = at->found;
        found_key = first;
        if (!stop.load()) {
          std::uint64_t kept = 0;
          const std::size_t last = (found.parent - base) / chunk;
          for (std::size_t c = 0; c < nchunks; ++c) {
            kept += chunks[c].before;
            if (c <= last) transitions += chunks[c].transitions;
          }
          r.states = level_end + kept;
        }
      }
      ++depth;
      break;
    }
    if (stop.load()) {
      ++depth;
      break;
    }

    // Number the new states in chunk order.
    std::uint64_t total = 0;
    for (Chunk& ch : chunks) {
      ch.offset = total;
      total += ch.lane < 0 ? 0 : ch.end - ch.begin;
      transitions += ch.transitions;
    }
    if (level_end + total >= std::numeric_limits<std::uint32_t>::max())  // the table keeps id + 2
      throw KernelError("more than 2^32 states: the search cannot number them", {});
    if (next.size() < total) next.resize(total);
    if (run.links) run.links->resize(static_cast<std::uint32_t>(level_end + total));
    // Each thread then drops the states it wrote of the level just read:
    // numbering reads the lists, not the states.
    phase([&](int li) {
      for (;;) {
        const std::size_t c = cursor.fetch_add(1, std::memory_order_relaxed);
        if (c >= nchunks) break;
        const Chunk& ch = chunks[c];
        if (ch.lane < 0) continue;
        const std::vector<Entry>& out = lanes[static_cast<std::size_t>(ch.lane)]->out;
        for (std::uint32_t i = ch.begin; i < ch.end; ++i) {
          const Entry& e = out[i];
          const auto id = static_cast<std::uint32_t>(level_end + ch.offset + (i - ch.begin));
          next[ch.offset + (i - ch.begin)] = e.at;
          if (run.links) run.links->set(id, e.parent, e.action);
        }
      }
      if (wide) lanes[static_cast<std::size_t>(li)]->frames[gen].clear();
    });
    for (const auto& lane : lanes) {
      lane->out.clear();
      if (!wide) lane->frames[gen].clear();
    }
    gen ^= 1;
    level.swap(next);
    level_size = total;
    base = static_cast<std::uint32_t>(level_end);
    ++depth;
  }
  team.reset();

  if (!found.any || stop.load()) {
    r.states = visited.size();
    for (const Chunk& ch : chunks)
      if (stop.load()) transitions += ch.transitions;
  }
  r.transitions = transitions;
  r.max_depth = depth;
  r.memory_bytes = peak_resident_bytes();
  std::vector<const Worker*> ws;
  for (const auto& lane : lanes) {
    ws.push_back(&lane->w);
    r.step_cache_hits += lane->w.cache.hits();
    r.step_cache_states += lane->w.kept_states;
    if (run.coverage) run.coverage->merge(*lane->w.own_coverage);
  }
  r.warnings = first_warnings(ws, found_key);
  out.found = found;
  out.stop_reason = stop_reason;
  return out;
}

}  // namespace pc::check
