// The PTX front end's tests' common steps (ptx_front_test.cpp,
// ptx_tcgen05_test.cpp): load PTX text, its first error, and its outcome
// with the reductions, checked against the search without them.
#pragma once

#include <doctest/doctest.h>

#include <string>

#include "checker/explore.hpp"
#include "checker/ptx/front.hpp"

namespace pc::testing::ptx_checks {

inline ptx::Loaded load(const std::string& text, ptx::Launch l = {}, const std::string& file = "test.ptx") {
  return ptx::load(text, file, l);
}

inline std::string first_error(const ptx::Loaded& l) { return l.errors.empty() ? std::string() : l.errors[0].message; }

inline std::string outcome(const std::string& text, ptx::Launch l = {}) {
  const ptx::Loaded k = load(text, l);
  const std::string err = first_error(k);
  CAPTURE(err);
  REQUIRE(k.ok());
  check::Options o;
  const std::string reduced = check::outcome_name(check::check(k.kernel, o));
  o.reduction = false;
  CHECK(check::outcome_name(check::check(k.kernel, o)) == reduced);
  return reduced;
}

}  // namespace pc::testing::ptx_checks
