// The corpus kernels (kernels/ and kernels/bugs/), sorted by path, for the
// tests that run over all of them.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "checker/dsl/parser.hpp"
#include "checker/program.hpp"

inline std::vector<std::string> corpus_files() {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(std::string(PC_SOURCE_DIR) + "/kernels"))
    if (e.is_regular_file() && e.path().extension() == ".bk") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

// A corpus kernel parsed (a failure to parse fails the test) and instantiated
// at its defaults. Not copied or moved: the program points into the kernel.
struct CorpusProgram {
  std::string src;
  pc::dsl::Parsed parsed;
  pc::check::Program prog;
  explicit CorpusProgram(const std::string& file)
      : parsed(pc::dsl::parse_file(file, src)), prog(parsed.ok() ? pc::check::instantiate(parsed.kernel) : pc::check::Program{}) {
    REQUIRE(parsed.ok());
  }
  CorpusProgram(const CorpusProgram&) = delete;
  CorpusProgram& operator=(const CorpusProgram&) = delete;
};

// The further sizes a corpus kernel is checked at (corpus_test.cpp, "corpus
// sizes"): one per `# corpus size: NAME=VALUE ... [# comment]` line of its file, each the
// parameter values of a size at which every loop-carried barrier is
// exercised where the defaults do not (docs/checker.md, "The corpus"). A word
// that is not NAME=VALUE is returned as a size with one empty name, which
// the test reports. With another tag, the lines of that tag (the engines'
// agreement test reads `# engines size:`).
using ParamValues = std::vector<std::pair<std::string, std::int64_t>>;
inline std::vector<ParamValues> corpus_sizes(const std::string& file, const std::string& tag = "# corpus size:") {
  std::vector<ParamValues> sizes;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(tag, 0) != 0) continue;
    std::string rest = line.substr(tag.size());
    rest = rest.substr(0, rest.find('#'));  // a comment may follow
    std::istringstream words(rest);
    ParamValues size;
    for (std::string w; words >> w;) {
      const auto p = pc::dsl::parse_override(w);
      size.push_back(p ? *p : std::pair<std::string, std::int64_t>{"", 0});
    }
    sizes.push_back(std::move(size));
  }
  return sizes;
}
