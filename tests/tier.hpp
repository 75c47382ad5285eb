// The tier a test run belongs to (docs/testing.md), and what each tier
// compares. ctest sets PC_TIER=ci on the tests of `./dev test` (every
// change, CI) and PC_TIER=full on those of `./dev test --full`; the test
// binary run by hand is the full tier. The sanitized build (PC_SANITIZED)
// looks for memory errors and undefined behaviour rather than verdicts: its
// searches of the corpus stop early in both tiers.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace pc::tier {

#ifdef PC_SANITIZED
inline constexpr bool sanitized = true;
#else
inline constexpr bool sanitized = false;
#endif

[[nodiscard]] inline bool ci() {
  static const bool is_ci = [] {
    const char* t = std::getenv("PC_TIER");
    return t != nullptr && std::string_view(t) == "ci";
  }();
  return is_ci;
}

[[nodiscard]] inline const char* name() { return ci() ? "ci" : "full"; }

// Which of the generated kernels a comparison test compares: the one at
// index i (the kernels drawn, compared or not, so that the sequence drawn is
// the same in every tier) when i % stride == offset. The full tier of the
// plain build compares every one. The CI tier compares one in `stride`,
// from an offset taken from PC_SAMPLE_SEED, which `./dev test` sets to the
// commit's hash: over successive commits every kernel is compared. Strides
// are prime to 9 (the engines' agreement test cycles through 9 changes).
struct Sample {
  int stride = 1;
  int offset = 0;
  [[nodiscard]] bool take(int i) const { return i % stride == offset; }
  // A floor of `n` on what every kernel yields, for the share compared: n
  // where every kernel is compared (the plain full tier), half of n over the
  // stride where one in `stride` is: a kind is not spread evenly over the
  // offsets (the sanitized full tier's offset 0 of the chains across CTAs
  // drew one scope_race where n / stride asked for two), and where the
  // sample rotates (the CI tier) the floor must hold for every offset, not
  // only for today's.
  bool rotates = false;
  [[nodiscard]] int scaled(int n) const { return stride > 1 ? n / (2 * stride) : n; }
};

[[nodiscard]] inline const Sample& sample() {
  static const Sample s = [] {
    Sample x;
    if (sanitized) x.stride = ci() ? 16 : 4;
    else x.stride = ci() ? 8 : 1;
    x.rotates = ci();
    if (const char* seed = std::getenv("PC_SAMPLE_SEED"); seed != nullptr && x.rotates) {
      std::uint64_t h = 1469598103934665603ull;  // FNV-1a of the seed's text
      for (const char* c = seed; *c; ++c) h = (h ^ static_cast<unsigned char>(*c)) * 1099511628211ull;
      x.offset = static_cast<int>(h % static_cast<std::uint64_t>(x.stride));
    }
    return x;
  }();
  return s;
}

// The sample, in words, for a test's message: what reproduces the run.
[[nodiscard]] inline std::string sample_text() {
  const Sample& s = sample();
  const char* seed = std::getenv("PC_SAMPLE_SEED");
  return "tier " + std::string(name()) + (sanitized ? " (sanitized)" : "") + ": one generated kernel in " +
         std::to_string(s.stride) + ", offset " + std::to_string(s.offset) +
         (seed != nullptr ? " (PC_SAMPLE_SEED=" + std::string(seed) + ")" : "");
}

// The corpus. Every kernel's search with the reductions runs in every tier,
// to the end in the plain build. Under the sanitizers every corpus search
// stops after corpus_cap() states (0: none): 30,000 in the full tier, 5,000
// in the CI tier. The comparisons of a kernel
// (without reductions, without the partial-order reduction, the step cache
// checked, several threads, the two engines) run on every kernel in the
// full tier, and in the CI tier on the kernels whose search with the
// reductions stores at most small_states() states: the heavy ones, a few
// kernels that take nearly all of the time, are compared by `--full`.
[[nodiscard]] inline std::uint64_t corpus_cap() {
  if (!sanitized) return 0;
  return ci() ? 5'000 : 30'000;
}
[[nodiscard]] inline std::uint64_t small_states() {
  if (!ci()) return ~std::uint64_t{0};
  return sanitized ? 5'000 : 40'000;
}
// The CI tier of the plain build compares a kernel without reductions only
// where that search ends within plain_cap() states (0: no cap): the
// reductions keep some large kernels within small_states() (the 2-CTA
// DeepGEMM models: 5,611 states, and 10 million without reductions), so the
// count with them no longer tells the cost of the comparison. A kernel past
// the cap is compared by `--full`.
[[nodiscard]] inline std::uint64_t plain_cap() { return ci() && !sanitized ? 1'000'000 : 0; }

// --check-reduction over the first states (breadth first) of each corpus
// kernel the tier compares (checker_por_test.cpp): 20,000; 2,000 in the
// sanitized CI tier, which looks for memory errors and not verdicts (each
// step the reductions take alone is checked against the others there, about
// 40 times slower than in the plain build: half of its corpus process on
// 2026-12-07, once the reductions had brought the 2-CTA models under
// small_states()).
[[nodiscard]] inline std::uint64_t check_reduction_states() { return sanitized && ci() ? 2'000 : 20'000; }

}  // namespace pc::tier
