// Runs the check of one file and sorts out how it failed, if it did: bad
// input (KernelError: the kernel's fault, exit 2), running out of memory
// (inconclusive), or a defect of the checker (InternalError or any other
// exception: exit 4, "please report", the kernel named). Never an abort.
#pragma once

#include <functional>

#include "checker/report/report.hpp"

namespace pc::check {

// Calls `body`, which fills f.result; on an exception sets f.failure and
// f.diagnostics (or an inconclusive result) instead.
void run_guarded(report::FileReport& f, const std::function<void()>& body);

}  // namespace pc::check
