// The threads of a parallel search (parallel.cpp): the caller and n - 1
// others, which wait between jobs. run(job) runs job(i) on each member i and
// returns when all have finished; the first exception a member throws is
// rethrown.
#pragma once

#include <barrier>
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
  explicit Team(unsigned n) : start_(static_cast<std::ptrdiff_t>(n)), done_(static_cast<std::ptrdiff_t>(n)) {
    try {
      for (unsigned i = 1; i < n; ++i) threads_.emplace_back([this, i] { serve(static_cast<int>(i)); });
    } catch (const std::system_error&) {
      // Fewer threads than asked for: the barriers wait for those there are.
      for (std::size_t i = threads_.size() + 1; i < n; ++i) {
        start_.arrive_and_drop();
        done_.arrive_and_drop();
      }
    }
  }
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;
  ~Team() {
    quit_ = true;
    start_.arrive_and_wait();
    for (std::thread& t : threads_) t.join();
  }
  void run(const std::function<void(int)>& job) {
    job_ = &job;
    start_.arrive_and_wait();
    call(0);
    done_.arrive_and_wait();
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

 private:
  void serve(int i) {
    for (;;) {
      start_.arrive_and_wait();
      if (quit_) return;
      call(i);
      done_.arrive_and_wait();
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
  std::barrier<> start_, done_;
  std::vector<std::thread> threads_;
  const std::function<void(int)>* job_ = nullptr;
  bool quit_ = false;
  std::mutex error_m_;
  std::exception_ptr error_;
};

}  // namespace pc::check
