#include "checker/successors.hpp"

#include <algorithm>

namespace pc::check {

Warnings first_warnings(const std::vector<const Worker*>& ws, Key limit) {
  // The first finding of each kind and location, over the threads.
  std::vector<std::pair<Key, Warning>> first;
  for (const Worker* w : ws)
    for (const auto& kx : w->warnings) {
      // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
      const Key k = kx.first;
      const Warning& x = kx.second;
      if (k >= limit) continue;
      auto it = std::find_if(first.begin(), first.end(), [&](const auto& f) { return same_instance(f.second, x); });
      if (it == first.end()) first.emplace_back(k, x);
      else if (k < it->first) *it = {k, x};
    }
  // The first max_warnings in the one-thread order: each thread kept its
  // first max_warnings + 1 (its keys rise), so these are the search's, and
  // more than max_warnings here means more in the search.
  std::sort(first.begin(), first.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  Warnings out;
  out.capped = first.size() > max_warnings;
  if (out.capped) first.resize(max_warnings);
  // Grouped by kind, the kinds in the order of their first instance.
  std::vector<spec::Violation> kinds;
  for (const auto& kx : first)
    if (std::find(kinds.begin(), kinds.end(), kx.second.kind) == kinds.end()) kinds.push_back(kx.second.kind);
  for (const spec::Violation kind : kinds)
    for (auto& kx : first)
      if (kx.second.kind == kind) out.list.push_back(std::move(kx.second));
  return out;
}

}  // namespace pc::check
