// The PTX front end (docs/ptx.md): a kernel compiled to PTX, checked for one
// launch with no hand translation. Text -> Module (parse.cpp) -> each warp
// run for the launch (exec.cpp) -> the IR the .bk front end also produces
// (lower.cpp): one agent per warp, shared and global memory as the byte
// ranges the warps touch (overlapping ranges alias each other), mbarriers by
// address.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "checker/diagnostic.hpp"
#include "checker/ir.hpp"
#include "checker/ptx/exec.hpp"

namespace pc::ptx {

// Where a PTX line came from (its `.loc`): "kernel.cu", line, column.
struct Origin {
  std::string file;
  int line = 0, col = 0;
};

struct Loaded {
  ir::Kernel kernel;
  std::vector<Diagnostic> errors;
  std::vector<std::string> notes;    // how the launch was read (the user should know)
  int loaded_branches = 0;           // branches on values loaded from memory, read both ways (docs/ptx.md)
  std::vector<Origin> origin;        // per PTX line (index = line), where `.loc` gave one
  [[nodiscard]] bool ok() const { return errors.empty(); }
};

[[nodiscard]] Loaded load(std::string_view text, const std::string& file, const Launch& launch);

// Whether a path names PTX (".ptx"), for check-kernel.
[[nodiscard]] bool is_ptx_path(const std::string& path);

// "X[,Y[,Z]]" as --block takes it; false on anything else.
[[nodiscard]] bool parse_dims(const std::string& s, int out[3]);

}  // namespace pc::ptx
