// Kernels in tests are .bk text with markers: `with` puts a variant's lines
// in place of the first marker (which must be there).
#pragma once

#include <doctest/doctest.h>

#include <string>

#include "checker/dsl/parser.hpp"

namespace pc::testing {

inline std::string with(std::string text, const std::string& marker, const std::string& by) {
  REQUIRE(text.find(marker) != std::string::npos);
  text.replace(text.find(marker), marker.size(), by);
  return text;
}

// `text` with a cluster_sync first in every role: the CTAs of the cluster
// are known to have started before any operation on another CTA (without
// it such an operation is peer_not_started: spec::sync_order::cta_start_known).
inline std::string started(const std::string& text) {
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = text.find('\n', at);
    const std::string line = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
    out += line + "\n";
    if (line.rfind("role ", 0) == 0 && !line.empty() && line.back() == ':') out += "  cluster_sync\n";
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return out;
}

// The first parse error of `text` (empty: none), and where it is.
inline std::string first_error(const std::string& text, int* line = nullptr, int* col = nullptr) {
  const dsl::Parsed p = dsl::parse(text, "t.bk");
  if (p.errors.empty()) return {};
  if (line) *line = p.errors[0].loc.line;
  if (col) *col = p.errors[0].loc.col;
  return p.errors[0].message;
}

}  // namespace pc::testing
