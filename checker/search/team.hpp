// The threads of a parallel search (parallel.cpp): the caller and n - 1
// others, which wait between jobs. run(job) runs job(i) on each member i and
// returns when all have finished; the first exception a member throws is
// rethrown.
//
// The search runs three or four jobs a level, a thousand levels or more, and
// a job is often a tenth of a millisecond: a member that slept between jobs
// (a futex) would take about as long to wake. So a member waits spinning
// for a while (2,048 pauses: a few to a few tens of microseconds), then
// yields, then sleeps; on a machine with fewer cores than threads it
// sleeps soon.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace pc::check {

class Team {
 public:
  explicit Team(unsigned n) {
    try {
      for (unsigned i = 1; i < n; ++i) threads_.emplace_back([this, i] { serve(static_cast<int>(i)); });
    } catch (const std::system_error&) {
      // Fewer threads than asked for: run waits for those there are.
    }
  }
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;
  ~Team() {
    quit_.store(true, std::memory_order_relaxed);
    epoch_.fetch_add(1, std::memory_order_release);
    epoch_.notify_all();
    for (std::thread& t : threads_) t.join();
  }
  void run(const std::function<void(int)>& job) {
    job_ = &job;
    left_.store(static_cast<std::uint32_t>(threads_.size()), std::memory_order_relaxed);
    epoch_.fetch_add(1, std::memory_order_release);  // publishes job_
    epoch_.notify_all();
    call(0);
    for (std::uint32_t n; (n = left_.load(std::memory_order_acquire)) != 0;) wait_while(left_, n);
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

 private:
  void serve(int i) {
    std::uint32_t seen = 0;
    for (;;) {
      std::uint32_t e;
      while ((e = epoch_.load(std::memory_order_acquire)) == seen) wait_while(epoch_, seen);
      seen = e;
      if (quit_.load(std::memory_order_relaxed)) return;
      call(i);
      if (left_.fetch_sub(1, std::memory_order_acq_rel) == 1) left_.notify_one();
    }
  }
  void call(int i) {
    try {
      (*job_)(i);
    } catch (...) {
      const std::lock_guard<std::mutex> g(error_m_);
      if (!error_) error_ = std::current_exception();
    }
  }
  // Returns once `a` may no longer hold `v` (or spuriously: callers check).
  static void wait_while(const std::atomic<std::uint32_t>& a, std::uint32_t v) {
    for (int spins = 0; spins < 2048; ++spins) {
      if (a.load(std::memory_order_acquire) != v) return;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    for (int yields = 0; yields < 16; ++yields) {
      if (a.load(std::memory_order_acquire) != v) return;
      std::this_thread::yield();
    }
    a.wait(v, std::memory_order_acquire);
  }
  std::vector<std::thread> threads_;
  const std::function<void(int)>* job_ = nullptr;
  std::atomic<bool> quit_{false};
  alignas(64) std::atomic<std::uint32_t> epoch_{0};  // counts run() calls: a member takes each once
  alignas(64) std::atomic<std::uint32_t> left_{0};   // members not yet done with the current job
  std::mutex error_m_;
  std::exception_ptr error_;
};

}  // namespace pc::check
