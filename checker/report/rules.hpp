// What each rule of the reports means and how to fix what breaks it: the
// help that SARIF carries for code-scanning tools (docs/spec.md has the
// rules with their sources).
#pragma once

#include <string_view>
#include <vector>

namespace pc::report {

struct RuleHelp {
  std::string_view id;     // a violation name, or one of the rules below
  std::string_view fix;    // what to change in the kernel
  std::vector<std::string_view> tags;
};

// The help of rule `id`; nullptr when there is none (the tests demand one for every rule).
[[nodiscard]] const RuleHelp* rule_help(std::string_view id);

// Rules that are not violation kinds.
inline constexpr std::string_view rule_bad_input = "bad_input";
inline constexpr std::string_view rule_unreached = "unreached_statement";

}  // namespace pc::report
