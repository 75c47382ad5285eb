// check-kernel on a .ptx file (docs/ptx.md): the launch options, and the
// file read into the IR with its source lines for the reports.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "checker/ir.hpp"
#include "checker/ptx/exec.hpp"
#include "checker/report/report.hpp"

namespace pc::cli {

// The PTX front end's options as given (--entry, --block, --cluster,
// --smem-bytes, --arg), and whether any was.
struct PtxOptions {
  ptx::Launch launch;
  bool given = false;
  bool emit_bk = false;  // --emit-bk: print the kernel as .bk instead of checking it
  std::string meta;      // --meta FILE: Triton's metadata, the launch where no option gives it
  std::string text;  // the options as a replay must repeat them
};

// Reads one of the PTX options at argv[i] (advancing i past its value):
// nothing when argv[i] is none of them, "" when it was read, else the usage
// error.
[[nodiscard]] std::optional<std::string> ptx_option(PtxOptions& o, int argc, char** argv, int& i);

// Reads `f.file` as PTX into `k`; false (with f's diagnostics and failure
// set) on bad input. Fills f.source, f.origin and f.options.
[[nodiscard]] bool load_ptx(report::FileReport& f, const PtxOptions& o, ir::Kernel& k);

// --emit-bk: each file's kernel as .bk on stdout (its errors on stderr); the exit status.
[[nodiscard]] int emit_bk(const std::vector<std::string>& files, const PtxOptions& o);

}  // namespace pc::cli
