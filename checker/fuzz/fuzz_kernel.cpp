// libFuzzer target over the .bk front end and the IR builder: any bytes are
// parsed; a kernel that parses is instantiated and explored for a bounded
// number of states. Nothing may crash, leak or trip a sanitizer; bad input
// must end in diagnostics or KernelError (exit 2 in check-kernel).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/program.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const pc::dsl::Parsed p = pc::dsl::parse(text, "fuzz.bk");
  for (const pc::dsl::Diagnostic& d : p.errors) (void)pc::dsl::render(d, text);
  if (!p.ok()) return 0;
  try {
    pc::check::Options o;
    o.max_states = 2000;
    o.max_memory_mb = 256;
    (void)pc::check::check(p.kernel, o);
  } catch (const pc::check::KernelError&) {
  }
  return 0;
}
