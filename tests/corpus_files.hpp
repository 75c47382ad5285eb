// The corpus kernels (kernels/ and kernels/bugs/), sorted by path, for the
// tests that run over all of them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

inline std::vector<std::string> corpus_files() {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(std::string(PC_SOURCE_DIR) + "/kernels"))
    if (e.is_regular_file() && e.path().extension() == ".bk") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

// The corpus comparisons of the reductions and of the threads (tests
// checker_por_test.cpp, checker_threads_test.cpp) run every kernel to the
// end in the plain build. Under the sanitizers (PC_SANITIZED, ./dev test's
// second half), which look for memory errors and undefined behaviour rather
// than for verdicts, each of those searches stops after this many states; the
// corpus test itself (corpus_test.cpp) still runs every kernel to the end
// there. 0: no cap.
#ifdef PC_SANITIZED
inline constexpr std::uint64_t corpus_compare_cap = 100'000;
#else
inline constexpr std::uint64_t corpus_compare_cap = 0;
#endif
