// The distributed back end's process group (--distributed, under mpirun):
// MPI is started by check-kernel's main only when the option is given, and
// ended when main returns. The search itself is distributed_breadth_first
// (search.hpp).
#pragma once

namespace pc::check {

class MpiSession {
 public:
  // Starts MPI (one thread per rank calls it); throws std::runtime_error
  // when it cannot.
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  [[nodiscard]] int rank() const { return rank_; }
  [[nodiscard]] int ranks() const { return ranks_; }

 private:
  int rank_ = 0, ranks_ = 1;
};

}  // namespace pc::check
