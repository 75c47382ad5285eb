// A small JSON reader for the files check-kernel is given beside a kernel
// (Triton's metadata: --meta). Values are numbers, strings, booleans, null,
// arrays and objects; a syntax error names its line and column.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace pc::cli {

struct Json {
  enum class Kind : unsigned char { null, boolean, number, string, array, object };
  Kind kind = Kind::null;
  bool b = false;
  double num = 0;
  std::string str;
  std::vector<Json> items;               // array
  std::map<std::string, Json> members;   // object
  [[nodiscard]] const Json* get(const std::string& key) const {
    auto it = members.find(key);
    return kind == Kind::object && it != members.end() ? &it->second : nullptr;
  }
};

struct JsonError {
  int line = 0, col = 0;
  std::string message;
};

// Parses `text`; false with `err` set where it is not one JSON value.
[[nodiscard]] bool parse_json(const std::string& text, Json& out, JsonError& err);

}  // namespace pc::cli
