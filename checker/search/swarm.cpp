// The swarm back end (--swarm N; docs/checker.md, "Swarm"): for bug hunting
// where an exhaustive search is out of reach, as SPIN's swarm does. N
// independent depth-first searches, each with its own seed (the order it
// takes successors in, the hash of its bitstate table and the table's
// size), each storing states as bits (bitstate hashing: a state whose bits
// are all set is taken as seen, so a search may skip states it never saw).
// Each ends when its depth-first search is done or it has stored its share
// of --max-states; the first violation any of them meets ends them all,
// with its schedule (a path from the initial state, replayable, not the
// shortest). Finding none proves nothing.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <mutex>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "checker/frontier.hpp"
#include "checker/search/limits.hpp"
#include "checker/search/search.hpp"
#include "checker/search/team.hpp"

namespace pc::check {
namespace {

std::uint64_t remix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

// 2^bits bits; a state sets two of them (from its fingerprint and the
// search's seed) and is new when either was clear.
class Bitstate {
 public:
  Bitstate(unsigned bits, std::uint64_t seed) : words_(std::size_t{1} << (bits - 6)), mask_((std::uint64_t{1} << bits) - 1), seed_(seed) {}
  bool put(std::uint64_t fp) {
    const std::uint64_t h = remix(fp ^ seed_);
    const std::uint64_t a = h & mask_, b = (h >> 32 | h << 32) * 0x9E3779B97F4A7C15ull & mask_;
    const bool fresh = !test(a) || !test(b);
    set(a);
    set(b);
    return fresh;
  }
  // Whether put(fp) would find both bits set: then it never finds one
  // clear later (bits are only ever set).
  [[nodiscard]] bool has(std::uint64_t fp) const {
    const std::uint64_t h = remix(fp ^ seed_);
    const std::uint64_t a = h & mask_, b = (h >> 32 | h << 32) * 0x9E3779B97F4A7C15ull & mask_;
    return test(a) && test(b);
  }

 private:
  [[nodiscard]] bool test(std::uint64_t i) const { return (words_[i >> 6] >> (i & 63)) & 1; }
  void set(std::uint64_t i) { words_[i >> 6] |= std::uint64_t{1} << (i & 63); }
  std::vector<std::uint64_t> words_;
  std::uint64_t mask_, seed_;
};

struct Succ {
  Action action;
  std::uint64_t fp;
  std::string bytes;  // empty where the bitstate already held fp at the expansion: never visited
};
struct Frame {
  std::string bytes;
  Action via = 0;  // the action that reached it
  std::vector<Succ> succ;
  std::size_t next = 0;
};

class Swarm {
 public:
  Swarm(const SearchRun& run, unsigned searches) : run_(run), limits_(run.opt), searches_(searches) {
    per_search_ = std::max<std::uint64_t>(1, run.opt.max_states / searches);
  }
  Swarmed run(unsigned threads);

 private:
  void search(unsigned i);
  void stop(const char* why) {
    const std::lock_guard<std::mutex> g(m_);
    if (stop_reason_.empty() && !found_.any) stop_reason_ = why;
    stop_.store(true);
  }

  const SearchRun& run_;
  Limits limits_;
  const unsigned searches_;
  std::uint64_t per_search_;
  std::atomic<unsigned> cursor_{0};
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> states_{0}, transitions_{0}, depth_{0}, truncated_{0};
  std::mutex m_;
  std::string stop_reason_;
  Found found_;
  std::vector<Action> path_;
  std::exception_ptr error_;
};

// One depth-first search, seeded by its index.
void Swarm::search(unsigned i) {
  const Successors& next_of = run_.next;
  std::mt19937_64 rng(0x5eed0000u + i);
  Bitstate seen(26 + i % 3, remix(i + 1));
  Worker w;
  State init = next_of.initial(nullptr);
  w.s = init;
  w.t = init;
  std::vector<Frame> stack;
  stack.reserve(1024);
  stack.emplace_back();
  serialize(init, next_of.owners(), stack.back().bytes);
  seen.put(next_of.fingerprint(init));
  std::uint64_t stored = 1, transitions = 0;
  bool expand_top = true;
  while (!stack.empty() && !stop_.load(std::memory_order_relaxed)) {
    Frame& top = stack.back();
    if (expand_top) {
      expand_top = false;
      w.load(top.bytes);
      const std::uint64_t before = w.transitions;
      next_of.expand(
          w, 0, stack.size() - 1,
          [&](std::uint64_t fp, Action a, auto&& queued) {
            // A successor already seen is skipped when its turn comes: no bytes kept for it.
            top.succ.push_back(Succ{a, fp, seen.has(fp) ? std::string() : std::string(queued())});
          },
          [](std::uint64_t) {});
      transitions += w.transitions - before;
      if (w.found.any) {
        const std::lock_guard<std::mutex> g(m_);
        if (!found_.any) {
          found_ = w.found;
          for (std::size_t k = 1; k < stack.size(); ++k) path_.push_back(stack[k].via);
          if (!found_.deadlock) path_.push_back(found_.action);
        }
        stop_.store(true);
        break;
      }
      std::shuffle(top.succ.begin(), top.succ.end(), rng);
    }
    if (top.next == top.succ.size()) {
      stack.pop_back();
      continue;
    }
    Succ& s = top.succ[top.next++];
    if (!seen.put(s.fp)) continue;
    if (stack.size() > run_.max_depth) {
      truncated_.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    Frame f;
    f.bytes = std::move(s.bytes);
    f.via = s.action;
    stack.push_back(std::move(f));
    expand_top = true;
    depth_.store(std::max<std::uint64_t>(depth_.load(std::memory_order_relaxed), stack.size() - 1), std::memory_order_relaxed);
    const std::uint64_t all = states_.fetch_add(1, std::memory_order_relaxed) + 1;
    if (++stored >= per_search_) break;
    if ((stored & 1023) == 0) {
      std::uint64_t mem = 0;
      if (const char* why = limits_.reached(0, mem)) stop(why);
      if (i == 0 || searches_ == 1) limits_.progress(all, stack.size() - 1, 0, mem);
    }
  }
  transitions_.fetch_add(transitions, std::memory_order_relaxed);
}

Swarmed Swarm::run(unsigned threads) {
  auto job = [&](int) {
    for (unsigned i; (i = cursor_.fetch_add(1)) < searches_ && !stop_.load();) {
      try {
        search(i);
      } catch (...) {
        const std::lock_guard<std::mutex> g(m_);
        if (!error_) error_ = std::current_exception();
        stop_.store(true);
      }
    }
  };
  threads = std::max(1u, std::min(threads, searches_));
  if (threads > 1) {
    Team team(threads);
    team.run(job);
  } else {
    job(0);
  }
  if (error_) std::rethrow_exception(error_);
  Swarmed out;
  Result& r = out.s.r;
  r.states = states_.load() + searches_;  // each search's initial state too
  r.transitions = transitions_.load();
  r.max_depth = depth_.load();
  r.memory_bytes = peak_resident_bytes();
  out.s.found = found_;
  out.s.stop_reason = found_.any ? "" : stop_reason_;
  out.path = std::move(path_);
  out.truncated = truncated_.load();
  return out;
}

}  // namespace

Swarmed swarm(const SearchRun& run, unsigned searches, unsigned threads) { return Swarm(run, searches).run(threads); }

}  // namespace pc::check
