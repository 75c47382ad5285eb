// The limits of a search (--timeout, --max-states, --max-memory, and an
// interrupt: check-kernel's first SIGINT) and its progress line
// (--progress), as both back ends check them.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>

#include "checker/frontier.hpp"
#include "checker/search/interrupt.hpp"
#include "checker/result.hpp"

namespace pc::check {

class Limits {
 public:
  using Clock = std::chrono::steady_clock;
  explicit Limits(const Options& o) : opt_(o), t0_(Clock::now()), last_(t0_) {}

  [[nodiscard]] Clock::time_point start() const { return t0_; }
  [[nodiscard]] double seconds() const { return std::chrono::duration<double>(Clock::now() - t0_).count(); }

  // The limit reached with `states` stored (nullptr: none). When several
  // are, an interrupt is named first, then the memory, the states, the time.
  // `mem` receives the resident memory of the process.
  [[nodiscard]] const char* reached(std::uint64_t states, std::uint64_t& mem) const {
    const char* why = nullptr;
    if (opt_.timeout_s > 0 && seconds() > opt_.timeout_s) why = "timeout";
    if (states > opt_.max_states) why = "max-states";
    mem = resident_bytes();
    if (mem > opt_.max_memory_mb * 1024 * 1024) why = "max-memory";
    if (interrupt_requested.load(std::memory_order_relaxed)) why = "interrupted";
    return why;
  }
  // The progress line on stderr, at most every 3 seconds, when asked for.
  // Not thread-safe: one thread at a time.
  void progress(std::uint64_t states, std::uint64_t depth, std::uint64_t queue, std::uint64_t mem) {
    if (!opt_.progress) return;
    const auto now = Clock::now();
    if (now - last_ <= std::chrono::seconds(3)) return;
    last_ = now;
    const double secs = std::chrono::duration<double>(now - t0_).count();
    std::fprintf(stderr, "progress: %llu states, %.0f states/s, depth %llu, queue %llu, memory %.1f MiB\n",
                 static_cast<unsigned long long>(states), states / (secs > 0 ? secs : 1),
                 static_cast<unsigned long long>(depth), static_cast<unsigned long long>(queue), mem / 1048576.0);
  }

 private:
  const Options& opt_;
  Clock::time_point t0_, last_;
};

}  // namespace pc::check
