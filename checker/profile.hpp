// --profile-states: where a search's states come from. Each back end counts
// every state it stores, once, when it stores it (the bytes it queues,
// loaded into a buffer of the profiler's own), into per-thread counts merged
// at the end: the states, the verdict and the trace are as without it.
// The counts; the back ends hold them through checker/search/profile.hpp.
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "checker/program.hpp"
#include "checker/result.hpp"
#include "checker/state.hpp"

namespace pc::check {

class ProfileCounts {
 public:
  // `init`: a state of the kernel (its shape and builtin variables).
  ProfileCounts(const Program& p, const Owners& o, const State& init);
  // One stored state, by its serialised bytes or as it is.
  void count(std::string_view bytes);
  void count(const State& s);
  void merge(const ProfileCounts& other);
  [[nodiscard]] StateProfile result() const;

 private:
  // A `for` loop of an agent: its variable (the agent's own index), the
  // code it spans (its test to its end) and its line.
  struct Loop {
    int agent = 0;
    int var = 0;
    std::uint32_t begin = 0, end = 0;
    int line = 0;
  };
  const Program& p_;
  const Owners& o_;
  State scratch_;
  std::uint64_t states_ = 0;
  std::vector<std::vector<std::uint64_t>> pcs_;  // per agent, per pc (the last: exited)
  std::vector<std::unordered_map<std::uint32_t, std::uint64_t>> phases_;  // per mbarrier instance
  std::vector<Loop> loops_;
  std::vector<std::unordered_map<std::int64_t, std::uint64_t>> trips_;  // per loop
};

}  // namespace pc::check
