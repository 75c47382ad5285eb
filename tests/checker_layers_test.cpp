// The layers of the search (docs/checker.md, "Layers"): each file includes
// only the layers under it. The back ends know nothing of kernels, rules or
// reductions; the reductions know the language module, not the back ends or
// the storage; the language module knows neither.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/cli_support.hpp"

namespace {

// The project headers a file includes.
std::vector<std::string> includes(const std::string& path) {
  std::vector<std::string> out;
  const std::string text = cli_support::slurp(path);
  const std::string tag = "#include \"";
  for (std::size_t i = text.find(tag); i != std::string::npos; i = text.find(tag, i + 1)) {
    const std::size_t from = i + tag.size();
    out.push_back(text.substr(from, text.find('"', from) - from));
  }
  return out;
}

bool starts(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

std::vector<std::string> files_under(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(cli_support::src + "/" + dir)) out.push_back(e.path().string());
  return out;
}

}  // namespace

TEST_CASE("layers: the search back ends see the wrapped interface and the storage only") {
  const std::vector<std::string> allowed = {"checker/search/", "checker/successors.hpp", "checker/frontier.hpp",
                                            "checker/visited.hpp", "checker/result.hpp", "checker/coverage.hpp"};
  const std::vector<std::string> files = files_under("checker/search");
  CHECK(files.size() >= 4);
  for (const std::string& f : files)
    for (const std::string& inc : includes(f)) {
      CAPTURE(f);
      CAPTURE(inc);
      bool ok = false;
      for (const std::string& a : allowed) ok |= starts(inc, a);
      CHECK(ok);
    }
}

TEST_CASE("layers: a reduction knows the language module, not the back ends, the storage or another reduction") {
  const std::vector<std::string> files = files_under("checker/reduce");
  CHECK(files.size() >= 5);
  for (const std::string& f : files) {
    const std::string stem = std::filesystem::path(f).stem().string();
    for (const std::string& inc : includes(f)) {
      CAPTURE(f);
      CAPTURE(inc);
      CHECK(!starts(inc, "checker/search/"));
      CHECK(inc != "checker/successors.hpp");
      CHECK(inc != "checker/frontier.hpp");
      CHECK(inc != "checker/visited.hpp");
      // Its own header, or local steps (every transition ends with them).
      if (starts(inc, "checker/reduce/")) CHECK((inc == "checker/reduce/" + stem + ".hpp" || inc == "checker/reduce/local.hpp"));
    }
  }
}

TEST_CASE("layers: the language module includes no reduction, back end or queue") {
  for (const std::string f : {"checker/model.hpp", "checker/step.hpp", "checker/step.cpp", "checker/footprint.hpp",
                              "checker/footprint.cpp", "checker/program.hpp", "checker/program.cpp"})
    for (const std::string& inc : includes(cli_support::src + "/" + f)) {
      CAPTURE(f);
      CAPTURE(inc);
      CHECK(!starts(inc, "checker/reduce/"));
      CHECK(!starts(inc, "checker/search/"));
      CHECK(inc != "checker/successors.hpp");
      CHECK(inc != "checker/frontier.hpp");
      CHECK(inc != "checker/visited.hpp");
    }
}
