// The set of visited states: 64-bit fingerprints (hash compaction, as in
// SPIN's hash-compact mode) in one open-addressing table. Two distinct states
// share a fingerprint with probability about n^2 / 2^65 for n states (for a
// billion states, under 3%; for ten million, 3e-6).
//
// The table holds 8 bytes per slot, grows by half at 85% load, and so stays
// between 9.4 and 15 bytes per stored state. Parent links for traces are kept
// only by the second, trace-building pass (Links), up to the violation's depth.
#pragma once

#include <cstdint>
#include <vector>

namespace pc::check {

class FingerprintSet {
 public:
  FingerprintSet() { table_.assign(1u << 12, 0); }

  // Adds a fingerprint; false if it was already there.
  bool insert(std::uint64_t fp) {
    if (fp == 0) fp = 1;  // 0 marks an empty slot
    if ((size_ + 1) * 100 > table_.size() * 85) grow();
    std::size_t i = slot(fp, table_.size());
    while (table_[i] != 0) {
      if (table_[i] == fp) return false;
      if (++i == table_.size()) i = 0;
    }
    table_[i] = fp;
    ++size_;
    return true;
  }
  [[nodiscard]] std::uint64_t size() const { return size_; }
  [[nodiscard]] std::uint64_t bytes() const { return table_.capacity() * sizeof(std::uint64_t); }

 private:
  // Lemire's multiply-shift range reduction: any table size, no modulo.
  static std::size_t slot(std::uint64_t fp, std::size_t n) {
    return static_cast<std::size_t>((static_cast<__uint128_t>(fp) * n) >> 64);
  }
  void grow() {
    std::vector<std::uint64_t> old;
    old.swap(table_);
    table_.assign(old.size() + old.size() / 2, 0);
    for (std::uint64_t fp : old) {
      if (fp == 0) continue;
      std::size_t i = slot(fp, table_.size());
      while (table_[i] != 0)
        if (++i == table_.size()) i = 0;
      table_[i] = fp;
    }
  }
  std::vector<std::uint64_t> table_;
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
  [[nodiscard]] std::uint32_t size() const { return static_cast<std::uint32_t>(parent_.size()); }
  [[nodiscard]] std::uint32_t parent(std::uint32_t id) const { return parent_[id]; }
  [[nodiscard]] std::uint16_t action(std::uint32_t id) const { return action_[id]; }

 private:
  std::vector<std::uint32_t> parent_;
  std::vector<std::uint16_t> action_;
};

}  // namespace pc::check
