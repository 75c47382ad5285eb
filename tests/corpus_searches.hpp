// The searches of the corpus kernels, each run once per test process and
// shared by every test that needs it (docs/testing.md): the corpus test, the
// comparisons of the reductions, of the step cache, of the threads and of
// the two engines all start from the search with every reduction, and ctest
// runs their corpus cases in one process.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "tests/corpus_files.hpp"
#include "tests/tier.hpp"

namespace pc::corpus {

// A corpus kernel parsed at a size (its defaults when empty). Not copied or
// moved: the parsed kernel points into its source.
struct Kernel {
  std::string file;
  ParamValues size;
  std::string src;
  dsl::Parsed parsed;
  std::string at;  // "the defaults", or "NAME=VALUE ..."
  Kernel(std::string f, ParamValues s) : file(std::move(f)), size(std::move(s)) {
    parsed = dsl::parse_file(file, src, size);
    for (const auto& [name, value] : size) at += (at.empty() ? "" : " ") + name + "=" + std::to_string(value);
    if (at.empty()) at = "the defaults";
  }
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;
  [[nodiscard]] const ir::Kernel& ir() const { return parsed.kernel; }
};

namespace detail {

// Every option that can change a result, but the state cap.
inline std::string key_without_cap(const Kernel& k, const check::Options& o) {
  REQUIRE_MESSAGE(o.trips == nullptr, "a --prove search is not shared");
  std::string key = k.file + "|" + k.at + "|";
  for (const bool b : {o.reduction, o.partial_order, o.symmetry, o.private_steps, o.strict, o.check_reduction, o.step_cache, o.check_step_cache, o.record_states})
    key += b ? '1' : '0';
  key += "|" + std::to_string(o.max_memory_mb) + "|" + std::to_string(o.timeout_s) + "|" + o.replay + "|" + std::to_string(o.steps);
  key += "|" + std::to_string(o.threads) + "|" + std::to_string(o.parallel_min_level) + "|" + std::to_string(o.parallel_table_lines);
  for (const auto& [name, value] : o.params) key += "|" + name + "=" + std::to_string(value);
  return key;
}

struct Entry {
  std::uint64_t cap;
  check::Result result;
};

// A list: a result's address stays valid as others are added.
inline std::map<std::string, std::list<Entry>>& searches() {
  static std::map<std::string, std::list<Entry>> m;
  return m;
}

inline std::map<std::pair<std::string, std::string>, std::unique_ptr<Kernel>>& kernels() {
  static std::map<std::pair<std::string, std::string>, std::unique_ptr<Kernel>> m;
  return m;
}

}  // namespace detail

// The kernel of `file` at `size`, parsed once per process.
inline const Kernel& kernel(const std::string& file, const ParamValues& size = {}) {
  std::string at;
  for (const auto& [name, value] : size) at += name + "=" + std::to_string(value) + " ";
  auto& slot = detail::kernels()[{file, at}];
  if (!slot) slot = std::make_unique<Kernel>(file, size);
  return *slot;
}

// The result of check::check(k, o), with o.params set to k's size: searched
// once per process. A search that ended before its cap answers for any cap
// at or above the states it stored (a search stops when it stores more than
// its cap), so that a capped request reuses an uncapped search; one stopped
// at its cap answers only for that same cap.
inline const check::Result& search(const Kernel& k, check::Options o) {
  o.params = k.size;
  std::list<detail::Entry>& same = detail::searches()[detail::key_without_cap(k, o)];
  for (const detail::Entry& e : same) {
    const bool stopped = e.result.verdict == check::Verdict::inconclusive && e.result.inconclusive_reason == "max-states";
    if (stopped ? e.cap == o.max_states : e.result.states <= o.max_states) return e.result;
  }
  same.push_back({o.max_states, check::check(k.ir(), o)});
  return same.back().result;
}

// The search with every reduction on one thread (the reference of every
// comparison), stopped at tier::corpus_cap() states under the sanitizers.
inline check::Options reduced_options() {
  check::Options o;
  o.threads = 1;
  if (tier::corpus_cap() > 0) o.max_states = tier::corpus_cap();
  return o;
}
inline const check::Result& reduced(const Kernel& k) { return search(k, reduced_options()); }

// The same without any reduction (stopped at tier::plain_cap() states in
// the CI tier of the plain build).
inline check::Options plain_options() {
  check::Options o = reduced_options();
  o.reduction = false;
  if (tier::plain_cap() > 0) o.max_states = tier::plain_cap();
  return o;
}

// A kernel whose file says `# compare: with the reductions only` is too
// large for the search without reductions (a compiled kernel's twin of nine
// warps, each an agent: more than 50 million states). No tier compares it;
// corpus_test.cpp searches it with --check-reduction to the end instead.
inline bool reductions_only(const Kernel& k) { return k.src.find("\n# compare: with the reductions only") != std::string::npos; }

// True when the tier compares this kernel (tier::small_states): its search
// with the reductions ended, within the tier's size for comparisons.
inline bool compared(const Kernel& k) {
  if (reductions_only(k)) return false;
  const check::Result& r = reduced(k);
  return r.verdict != check::Verdict::inconclusive && r.states <= tier::small_states();
}

}  // namespace pc::corpus
