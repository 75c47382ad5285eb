// Bad input is a located error (file:line:column, exit 2): a table of .bk
// sources, each with where its first error must point and what it must say.
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/program.hpp"

namespace pc::testing {

struct LocatedError {
  const char* name;
  std::string source;
  int line, col;
  const char* message;  // a part of the first error's text
};

inline void check_located_errors(const std::vector<LocatedError>& cases) {
  for (const LocatedError& c : cases) {
    const std::string name = c.name;
    CAPTURE(name);
    const dsl::Parsed p = dsl::parse(c.source, "t.bk");
    REQUIRE_FALSE(p.errors.empty());
    CHECK(p.errors[0].loc.line == c.line);
    CHECK(p.errors[0].loc.col == c.col);
    CHECK_MESSAGE(p.errors[0].message.find(c.message) != std::string::npos, p.errors[0].message);
  }
}

// A kernel that parses but whose search stops at an error found only when it
// runs (check::KernelError: a value out of range, a limit passed), at
// line:col with a part of `message`.
inline void check_run_error(const std::string& source, int line, int col, const std::string& message) {
  const dsl::Parsed p = dsl::parse(source, "t.bk");
  REQUIRE(p.ok());
  check::Options o;
  o.threads = 1;
  try {
    (void)check::check(p.kernel, o);
    FAIL("no error");
  } catch (const check::KernelError& e) {
    CHECK_MESSAGE(std::string(e.what()).find(message) != std::string::npos, e.what());
    CHECK(e.loc.line == line);
    CHECK(e.loc.col == col);
  }
}

}  // namespace pc::testing
