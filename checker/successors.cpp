#include "checker/successors.hpp"

#include <algorithm>

namespace pc::check {

std::vector<Warning> first_warnings(const std::vector<const Worker*>& ws, Key limit) {
  std::vector<std::pair<Key, Warning>> first;
  for (const Worker* w : ws)
    for (const auto& kx : w->warnings) {
      // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
      const Key k = kx.first;
      const Warning& x = kx.second;
      if (k >= limit) continue;
      auto it = std::find_if(first.begin(), first.end(), [&](const auto& f) { return f.second.kind == x.kind; });
      if (it == first.end()) first.emplace_back(k, x);
      else if (k < it->first) *it = {k, x};
    }
  std::sort(first.begin(), first.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Warning> out;
  for (auto& [k, x] : first) out.push_back(std::move(x));
  return out;
}

}  // namespace pc::check
