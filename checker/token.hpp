// Replay tokens: v2.<R|N>.<tag>.<schedule>[.<NAME=VALUE,...>], the schedule
// being process indices (model.hpp's actions) joined by '-', the tag a hash of
// the kernel and its parameter values, the values those of --param
// (docs/checker.md, "Replay tokens").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "checker/model.hpp"

namespace pc::check {

using Params = std::vector<std::pair<std::string, std::int64_t>>;

struct Token {
  bool reduction = true;
  std::string tag;
  std::vector<Action> path;
  Params params;
};

// A tag of the kernel and its parameter values: a replay token made for
// another kernel, another version of the file or other values does not match.
[[nodiscard]] std::string kernel_tag(const Model& m);
[[nodiscard]] std::string make_token(const Model& m, bool reduction, const std::vector<Action>& path, const Params& params);
// std::nullopt: not a v2 token.
[[nodiscard]] std::optional<Token> parse_token(const std::string& tok);
// "A=1, B=2", or "none".
[[nodiscard]] std::string params_text(const Params& ps);

}  // namespace pc::check
