// A .bk kernel checked with and without the reductions: both searches must
// give the same outcome (the violation kind, or "verified"); the result is
// the reduced search's. Parse errors fail the test, the first one shown.
#pragma once

#include <doctest/doctest.h>

#include <string>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"

namespace pc::testing {

inline check::Result agreed_check(const std::string& text) {
  const dsl::Parsed p = dsl::parse(text, "test.bk");
  const std::string first = p.errors.empty() ? std::string() : p.errors[0].message;
  CAPTURE(first);
  REQUIRE(p.ok());
  check::Options o;
  const check::Result r = check::check(p.kernel, o);
  o.reduction = false;
  CHECK(check::outcome_name(check::check(p.kernel, o)) == check::outcome_name(r));
  return r;
}

inline std::string agreed_outcome(const std::string& text) { return check::outcome_name(agreed_check(text)); }

}  // namespace pc::testing
