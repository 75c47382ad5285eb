#include "checker/guard.hpp"

#include <exception>
#include <new>
#include <string>

#include "checker/program.hpp"

namespace pc::check {

void run_guarded(report::FileReport& f, const std::function<void()>& body) {
  const std::string who = "in kernel " + (f.kernel.empty() ? std::string("?") : f.kernel) + ": ";
  auto internal = [&](const std::string& what) {
    f.failure = Failure::internal;
    f.diagnostics.push_back({f.file, {}, who + what});
  };
  try {
    body();
  } catch (const KernelError& e) {
    f.failure = Failure::bad_input;
    f.diagnostics.push_back({f.file, e.loc, e.what()});
  } catch (const std::bad_alloc&) {
    f.result = Result{};
    f.result.verdict = Verdict::inconclusive;
    f.result.inconclusive_reason = "out-of-memory";
  } catch (const InternalError& e) {
    internal(e.what());
  } catch (const std::exception& e) {
    internal(std::string("unexpected exception: ") + e.what());
  } catch (...) {
    internal("unexpected exception");
  }
}

}  // namespace pc::check
