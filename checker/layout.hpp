// Where each buffer and mbarrier lies: its allocation (the declaration whose
// memory it occupies, a buffer array or an mbarrier array) and its byte range
// there. A declaration with `aliases BASE[i] [offset O]` lies over memory
// declared before it; any other has its own allocation. Two buffer elements of one CTA
// may hold the same bytes only through aliases, and then their accesses
// conflict as accesses of one buffer do (spec/hb.hpp, Access::aliases).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "checker/ir.hpp"
#include "spec/rules.hpp"

namespace pc::check::layout {

// An allocation: a buffer declaration (mbar false) or an mbarrier declaration.
struct Root {
  int decl = -1;
  bool mbar = false;
  bool operator==(const Root&) const = default;
};

// Bytes [lo, hi) of allocation `root`.
struct Range {
  Root root;
  std::int64_t lo = 0, hi = 0;
  [[nodiscard]] bool overlaps(const Range& o) const { return root == o.root && lo < o.hi && o.lo < hi; }
  [[nodiscard]] bool contains(const Range& o) const { return root == o.root && lo <= o.lo && o.hi <= hi; }
};

// The whole allocation of a root: its elements end to end.
[[nodiscard]] std::int64_t root_bytes(const ir::Kernel& k, Root r);
// The byte range of element `index` of buffer declaration `decl`, and of
// element `index` of mbarrier declaration `decl`.
[[nodiscard]] Range buffer_range(const ir::Kernel& k, int decl, std::int64_t index);
[[nodiscard]] Range mbar_range(const ir::Kernel& k, int decl, std::int64_t index);
// Why declaration `decl`'s alias does not fit (its base element out of
// range, its bytes past the end of the allocation, a tensor-memory buffer on
// either side); nothing when it fits or aliases nothing.
[[nodiscard]] std::optional<std::string> alias_error(const ir::Kernel& k, int decl);
// The same for an mbarrier declaration placed over other memory (never with
// a count: the kernel initialises it; aligned to 8 bytes).
[[nodiscard]] std::optional<std::string> mbar_alias_error(const ir::Kernel& k, int decl);
// "smem_v bytes [0, 24576)": a range in words.
[[nodiscard]] std::string describe(const ir::Kernel& k, const Range& r);

}  // namespace pc::check::layout
