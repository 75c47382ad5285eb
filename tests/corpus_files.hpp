// The corpus kernels (kernels/ and kernels/bugs/), sorted by path, for the
// tests that run over all of them.
#pragma once

#include <algorithm>
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
