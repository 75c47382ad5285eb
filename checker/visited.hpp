// The set of visited states: 64-bit fingerprints (hash compaction, as in
// SPIN's hash-compact mode) numbered in the order they were found, each with
// the state it was reached from and the action that reached it. Two distinct
// states share a fingerprint with probability about n^2 / 2^65 for n states.
#pragma once

#include <cstdint>
#include <vector>

namespace pc::check {

class Visited {
 public:
  Visited() { table_.assign(1u << 16, empty); }

  // Adds a fingerprint; false if it was already there.
  bool insert(std::uint64_t fp, std::uint32_t parent, std::uint16_t action) {
    if ((fps_.size() + 1) * 4 > table_.size() * 3) grow();
    std::size_t i = slot(fp);
    while (table_[i] != empty) {
      if (fps_[table_[i]] == fp) return false;
      i = (i + 1) & (table_.size() - 1);
    }
    table_[i] = static_cast<std::uint32_t>(fps_.size());
    fps_.push_back(fp);
    links_.push_back(Link{parent, action});
    return true;
  }
  [[nodiscard]] std::uint32_t size() const { return static_cast<std::uint32_t>(fps_.size()); }
  [[nodiscard]] std::uint32_t parent(std::uint32_t id) const { return links_[id].parent; }
  [[nodiscard]] std::uint16_t action(std::uint32_t id) const { return links_[id].action; }
  // Bytes held for the stored states (table, fingerprints, links).
  [[nodiscard]] std::uint64_t bytes() const {
    return table_.capacity() * sizeof(std::uint32_t) + fps_.capacity() * sizeof(std::uint64_t) +
           links_.capacity() * sizeof(Link);
  }

 private:
  struct Link {
    std::uint32_t parent;
    std::uint16_t action;
  };
  static constexpr std::uint32_t empty = 0xffffffffu;
  std::size_t slot(std::uint64_t fp) const { return static_cast<std::size_t>(fp >> 7) & (table_.size() - 1); }
  void grow() {
    std::vector<std::uint32_t> old;
    old.swap(table_);
    table_.assign(old.size() * 2, empty);
    for (std::uint32_t id : old) {
      if (id == empty) continue;
      std::size_t i = slot(fps_[id]);
      while (table_[i] != empty) i = (i + 1) & (table_.size() - 1);
      table_[i] = id;
    }
  }
  std::vector<std::uint32_t> table_;
  std::vector<std::uint64_t> fps_;
  std::vector<Link> links_;
};

}  // namespace pc::check
