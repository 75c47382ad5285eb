// Placement benchmark (check-kernel --place-barriers, docs/placement.md): for
// each kernel of kernels/placement/ and for generated kernels of N accesses
// in nested loops, the barriers the seed's greedy sweep places against the
// Z3 minimum, and the seconds of each phase: the hazards, the greedy sweep,
// the Z3 minimum with its proof, and the explicit search on the placed
// kernel. A program, never a timed test.
//   placement_bench FILE...        the files
//   placement_bench --generated    N = 125, 250, 500, 1000, 2000
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "checker/place/place.hpp"

namespace {

void row(const std::string& name, const std::string& src, std::size_t accesses) {
  pc::place::Request req;
  req.check.threads = 1;
  // The generated kernels' searches stop at 2M states or 60 s (inconclusive).
  if (accesses) req.check.max_states = 2'000'000, req.check.timeout_s = 60;
  const pc::place::Outcome o = pc::place::place(src, name, req);
  if (!o.errors.empty()) {
    std::printf("%-40s error: %s\n", name.c_str(), o.errors[0].message.c_str());
    return;
  }
  // The greedy sweep takes one role: "-" for a kernel of several.
  const std::string greedy = o.greedy_applies ? std::to_string(o.greedy) : "-";
  std::printf("%-36s %6zu %7zu %6s %7zu %6s  %9.4f %9.4f %9.4f %9.3f  %9s %9llu", name.c_str(), accesses, o.hazards,
              greedy.c_str(), o.barriers.size(), o.minimal ? "proved" : "no", o.t_hazards, o.t_greedy, o.t_minimum, o.t_verify,
              pc::check::outcome_name(o.verification).c_str(), static_cast<unsigned long long>(o.verification.states));
  if (accesses) std::printf("  %7.2f us/access", 1e6 * (o.t_hazards + o.t_greedy) / double(accesses));
  std::printf("\n");
}

// N accesses by 4 waves of gfx942 in blocks of 10 inside two nested loops
// of two trips: each block, one wave (by turn) writes an element and every
// wave reads two, over 16 elements.
std::string generated(std::size_t n) {
  std::mt19937 rng(static_cast<unsigned>(n));
  std::string k = "kernel gen" + std::to_string(n) + "\ntarget amd gfx942\nsmem s[16] bytes 256\nrole w warp x 4:\n";
  k += "  for t in 0 .. 2:\n";
  std::size_t made = 0;
  int block = 0;
  while (made < n) {
    k += "    for k" + std::to_string(block) + " in 0 .. 2:\n";
    for (int i = 0; i < 10 && made < n; ++i, ++made) {
      const unsigned e = rng() % 16;
      if (rng() % 3 == 0)
        k += "      if instance == " + std::to_string(rng() % 4) + ":\n        all: write s[" + std::to_string(e) + "]\n";
      else
        k += "      all: read s[" + std::to_string(e) + "]\n";
    }
    ++block;
  }
  return k;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  std::printf("%-36s %6s %7s %6s %7s %6s  %9s %9s %9s %9s  %9s %9s\n", "kernel", "access", "hazards", "greedy", "minimum",
              "proof", "hazards_s", "greedy_s", "z3_s", "verify_s", "verdict", "states");
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--generated") == 0) {
      for (const std::size_t n : {125u, 250u, 500u, 1000u, 2000u}) row("generated N=" + std::to_string(n), generated(n), n);
      continue;
    }
    std::ifstream in(argv[i]);
    std::stringstream s;
    s << in.rdbuf();
    const std::string path = argv[i];
    row(path.substr(path.find_last_of('/') + 1), s.str(), 0);
  }
  return 0;
}
