// The one-thread back end: breadth-first, each level's states found in order
// and numbered so, a level's ids being [base, base + its size).
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "checker/frontier.hpp"
#include "checker/search/limits.hpp"
#include "checker/search/profile.hpp"
#include "checker/search/search.hpp"

namespace pc::check {

Searched (*distributed_breadth_first)(const SearchRun& run, unsigned threads) = nullptr;

Searched breadth_first(const SearchRun& run) {
  const Successors& next_of = run.next;
  Limits limits(run.opt);
  Searched out;
  FingerprintSet visited;
  State init = next_of.initial(run.coverage);
  visited.insert(next_of.fingerprint(init));
  if (run.links) run.links->add(0, 0);
  // --profile-states: every state counted when stored (none made without it).
  std::unique_ptr<Profiler> profile;
  if (run.profile) {
    profile = std::make_unique<Profiler>(next_of.model().program(), next_of.owners(), init);
    profile->count(init);
  }

  // The level read and the level written.
  Frames frames[2];
  Frames* level = &frames[0];
  Frames* next = &frames[1];
  FrameReader reader;
  std::size_t level_size = 1, next_size = 0;
  std::uint32_t base = 0;
  std::string actual;
  serialize(init, next_of.owners(), actual);
  level->put(actual);
  level->seal();
  Worker w;
  w.coverage = run.coverage;
  w.s = init;
  w.t = init;
  std::uint64_t depth = 0, expanded = 0;

  while (level_size > 0 && !w.found.any && out.stop_reason.empty() && depth <= run.max_depth) {
    // The level written stays uncompressed within a quarter of the table's
    // size (with the level read, half of it): docs/checker.md, "State storage".
    next->raw_budget(visited.bytes() / raw_share);
    StateRef at;
    for (std::size_t li = 0; li < level_size && !w.found.any; ++li) {
      w.load(reader.get(*level, at));
      at = level->after(at);
      const auto id = static_cast<std::uint32_t>(base + li);
      next_of.expand(
          w, id, depth,
          [&](std::uint64_t fp, Action a, auto&& queued) {
            if (!visited.insert(fp)) return;
            if (run.links) run.links->add(id, a);
            const std::string_view bytes = queued();
            next->put(bytes);
            if (profile) profile->count(bytes);
            ++next_size;
          },
          [&](std::uint64_t fp) { visited.prefetch(fp); });
      if ((++expanded & 1023) == 0) {
        std::uint64_t mem = 0;
        const char* why = limits.reached(visited.size(), mem);
        limits.progress(visited.size(), depth, next_size, mem);
        if (why) {
          out.stop_reason = why;
          break;
        }
      }
    }
    next->seal();
    base += static_cast<std::uint32_t>(level_size);
    std::swap(level, next);
    level_size = std::exchange(next_size, 0);
    next->clear();
    ++depth;
  }

  out.r.states = visited.size();
  out.r.transitions = w.transitions;
  out.r.step_cache_hits = w.cache.hits();
  out.r.step_cache_states = w.kept_states;
  out.r.max_depth = depth;
  out.r.memory_bytes = peak_resident_bytes();
  Warnings warnings = first_warnings({&w}, w.found_key);
  out.r.warnings = std::move(warnings.list);
  out.r.warnings_capped = warnings.capped;
  out.found = w.found;
  if (profile) out.r.profile = profile->result();
  return out;
}

}  // namespace pc::check
