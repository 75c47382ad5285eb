// Kernels in tests are .bk text with markers: `with` puts a variant's lines
// in place of the first marker (which must be there).
#pragma once

#include <doctest/doctest.h>

#include <string>

namespace pc::testing {

inline std::string with(std::string text, const std::string& marker, const std::string& by) {
  REQUIRE(text.find(marker) != std::string::npos);
  text.replace(text.find(marker), marker.size(), by);
  return text;
}

}  // namespace pc::testing
