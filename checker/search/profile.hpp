// --profile-states: where a search's states come from. Each back end counts
// every state it stores, once, when it stores it, into per-thread counts
// merged at the end: the states, the verdict and the trace are as without it.
// The counting reads the program and the state's layout (checker/profile.hpp,
// .cpp): the back ends see only this handle.
#pragma once

#include <memory>
#include <string_view>

#include "checker/result.hpp"

namespace pc::check {

struct Program;
struct Owners;
struct State;
class ProfileCounts;

class Profiler {
 public:
  // `init`: a state of the kernel (its shape and builtin variables).
  Profiler(const Program& p, const Owners& o, const State& init);
  ~Profiler();
  Profiler(const Profiler&) = delete;
  Profiler& operator=(const Profiler&) = delete;
  // One stored state, by its serialised bytes or as it is.
  void count(std::string_view bytes);
  void count(const State& s);
  void merge(const Profiler& other);
  [[nodiscard]] StateProfile result() const;

 private:
  std::unique_ptr<ProfileCounts> counts_;
};

}  // namespace pc::check
