// docs/dsl.md stays true: every operation of checker/ops.hpp is documented
// there, and every example kernel in it parses and checks as its
// `# expect:` line says.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/ops.hpp"
#include "tests/cli_support.hpp"

using namespace pc;

namespace {

using cli_support::slurp;

// The fenced code blocks of a markdown text that declare a kernel.
std::vector<std::string> kernel_blocks(const std::string& md) {
  std::vector<std::string> out;
  for (std::size_t at = md.find("```\n"); at != std::string::npos;) {
    const std::size_t end = md.find("```", at + 4);
    if (end == std::string::npos) break;
    const std::string block = md.substr(at + 4, end - at - 4);
    if (block.rfind("kernel ", 0) == 0 || block.find("\nkernel ") != std::string::npos) out.push_back(block);
    at = md.find("```\n", end + 3);
  }
  return out;
}

}  // namespace

TEST_CASE("docs/dsl.md documents every operation keyword") {
  const std::string md = slurp(std::string(PC_SOURCE_DIR) + "/docs/dsl.md");
  REQUIRE_FALSE(md.empty());
  // As `kw` or, for operations that return a value, `r = kw`.
#define PC_X(e, kw, ...) \
  CHECK_MESSAGE((md.find("`" kw "`") != std::string::npos || md.find("`r = " kw "`") != std::string::npos), kw);
  PC_OPS(PC_X)
#undef PC_X
}

TEST_CASE("the examples of docs/dsl.md check as they say") {
  const std::vector<std::string> blocks = kernel_blocks(slurp(std::string(PC_SOURCE_DIR) + "/docs/dsl.md"));
  CHECK(blocks.size() >= 3);
  for (const std::string& b : blocks) {
    CAPTURE(b);
    const dsl::Parsed p = dsl::parse(b, "dsl.md");
    REQUIRE(p.ok());
    REQUIRE_FALSE(p.kernel.expect.empty());
    const check::Result r = check::check(p.kernel, check::Options{});
    const std::string got =
        r.verdict == check::Verdict::violation ? std::string(spec::violation_name(r.violation)) : check::verdict_name(r.verdict);
    CHECK(got == p.kernel.expect);
  }
}
