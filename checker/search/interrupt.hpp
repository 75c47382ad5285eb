// A request to stop every search now (check-kernel's first SIGINT): the
// searches poll it where they check their limits and end inconclusive,
// "interrupted". Set from a signal handler: a lock-free atomic, nothing more.
#pragma once

#include <atomic>

namespace pc::check {

inline std::atomic<bool> interrupt_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free);

}  // namespace pc::check
