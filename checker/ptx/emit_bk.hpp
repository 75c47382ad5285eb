// check-kernel --emit-bk: the kernel the PTX front end built, printed as a
// .bk file (docs/dsl.md), so that a user can read what was checked. The .bk
// front end reads it back into the same kernel (tests/ptx_kernels_test.cpp:
// the same verdict and the same states).
#pragma once

#include <string>

#include "checker/ir.hpp"

namespace pc::ptx {

// `source` names where it came from, in the header comment.
[[nodiscard]] std::string emit_bk(const ir::Kernel& k, const std::string& source);

}  // namespace pc::ptx
