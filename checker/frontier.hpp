// The breadth-first frontier: one level of serialised states.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace pc::check {

// Each BFS level is an arena of serialised states in fixed-size blocks: no
// allocation per state, and no copy of the whole level when it grows (a
// doubling buffer would need the old and the new one at once). The blocks of
// a finished level go to a spare list that the next level takes from.
constexpr std::size_t block_bytes = std::size_t{1} << 24;

struct BlockPool {
  std::vector<std::unique_ptr<char[]>> spare;
  std::size_t block = block_bytes;   // the size of each block
  std::atomic<std::uint64_t>* counter = nullptr;  // if set, counts the bytes of the blocks made
  std::unique_ptr<char[]> take() {
    if (spare.empty()) {
      if (counter) counter->fetch_add(block, std::memory_order_relaxed);
      return std::unique_ptr<char[]>(new char[block]);
    }
    std::unique_ptr<char[]> b = std::move(spare.back());
    spare.pop_back();
    return b;
  }
};

struct Level {
  explicit Level(BlockPool* p) : pool(p) {}
  BlockPool* pool;
  std::vector<std::unique_ptr<char[]>> held;
  std::size_t used = block_bytes;  // in the last block
  std::vector<std::pair<const char*, std::uint32_t>> items;  // state bytes, state id

  void push(const std::string& b, std::uint32_t id) {
    if (used + b.size() > block_bytes) {
      if (b.size() > block_bytes) throw std::length_error("a state larger than an arena block");
      held.push_back(pool->take());
      used = 0;
    }
    char* at = held.back().get() + used;
    std::memcpy(at, b.data(), b.size());
    used += b.size();
    items.emplace_back(at, id);
  }
  std::size_t size() const { return items.size(); }
  bool empty() const { return items.empty(); }
  std::size_t bytes() const { return held.size() * block_bytes + items.capacity() * sizeof(items[0]); }
  void clear() {
    for (auto& b : held) pool->spare.push_back(std::move(b));
    held.clear();
    used = block_bytes;
    items.clear();
  }
  void swap(Level& o) {
    std::swap(held, o.held);
    std::swap(used, o.used);
    std::swap(items, o.items);
  }
};

// The serialised states one thread of the parallel search produces for the
// next level: bytes only, in blocks of its own pool (the per-state index is
// the search's). A thread holds two, for the level it reads and the one it writes.
struct Arena {
  explicit Arena(BlockPool* p) : pool(p) {}
  BlockPool* pool;
  std::vector<std::unique_ptr<char[]>> held;
  std::size_t used = 0;  // in the last block

  const char* put(const std::string& b) {
    if (held.empty() || used + b.size() > pool->block) {
      if (b.size() > pool->block) throw std::length_error("a state larger than an arena block");
      held.push_back(pool->take());
      used = 0;
    }
    char* at = held.back().get() + used;
    std::memcpy(at, b.data(), b.size());
    used += b.size();
    return at;
  }
  void clear() {
    for (auto& b : held) pool->spare.push_back(std::move(b));
    held.clear();
    used = 0;
  }
};

}  // namespace pc::check
