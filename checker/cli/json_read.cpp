#include "checker/cli/json_read.hpp"

#include <cstdlib>

namespace pc::cli {
namespace {

struct Reader {
  const std::string& s;
  std::size_t i = 0;
  JsonError& err;
  int depth = 0;

  bool fail(const std::string& m) {
    err.line = 1, err.col = 1;
    for (std::size_t k = 0; k < i && k < s.size(); ++k) {
      if (s[k] == '\n') ++err.line, err.col = 1;
      else ++err.col;
    }
    err.message = m;
    return false;
  }
  void space() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
  }
  bool literal(const char* w) {
    std::size_t n = 0;
    while (w[n] != '\0') ++n;
    if (s.compare(i, n, w) != 0) return false;
    i += n;
    return true;
  }
  bool string(std::string& out) {
    if (i >= s.size() || s[i] != '"') return fail("expected a string");
    ++i;
    while (i < s.size() && s[i] != '"') {
      if (static_cast<unsigned char>(s[i]) < 0x20) return fail("a control character inside a string");
      if (s[i] == '\\') {
        if (++i >= s.size()) break;
        const char c = s[i];
        if (c == 'u') {
          if (i + 4 >= s.size()) return fail("a \\u escape needs four hex digits");
          const unsigned long v = std::strtoul(s.substr(i + 1, 4).c_str(), nullptr, 16);
          out += v < 0x80 ? static_cast<char>(v) : '?';  // keys and names here are ASCII
          i += 5;
          continue;
        }
        static const std::string from = "\"\\/bfnrt", to = "\"\\/\b\f\n\r\t";
        const std::size_t at = from.find(c);
        if (at == std::string::npos) return fail(std::string("an unknown escape \\") + c);
        out += to[at];
        ++i;
        continue;
      }
      out += s[i++];
    }
    if (i >= s.size()) return fail("a string with no closing quote");
    ++i;
    return true;
  }
  bool value(Json& v) {
    if (++depth > 64) return fail("nested more than 64 deep");
    space();
    if (i >= s.size()) return fail("expected a value");
    const char c = s[i];
    bool ok = true;
    if (c == '{') {
      v.kind = Json::Kind::object;
      ++i, space();
      if (i < s.size() && s[i] == '}') ++i;
      else
        for (;;) {
          std::string key;
          space();
          if (!string(key)) return false;
          space();
          if (i >= s.size() || s[i] != ':') return fail("expected ':' after a key");
          ++i;
          Json m;
          if (!value(m)) return false;
          v.members[key] = std::move(m);
          space();
          if (i < s.size() && s[i] == ',') { ++i; continue; }
          if (i < s.size() && s[i] == '}') { ++i; break; }
          return fail("expected ',' or '}'");
        }
    } else if (c == '[') {
      v.kind = Json::Kind::array;
      ++i, space();
      if (i < s.size() && s[i] == ']') ++i;
      else
        for (;;) {
          Json m;
          if (!value(m)) return false;
          v.items.push_back(std::move(m));
          space();
          if (i < s.size() && s[i] == ',') { ++i; continue; }
          if (i < s.size() && s[i] == ']') { ++i; break; }
          return fail("expected ',' or ']'");
        }
    } else if (c == '"') {
      v.kind = Json::Kind::string;
      ok = string(v.str);
    } else if (literal("true")) {
      v.kind = Json::Kind::boolean, v.b = true;
    } else if (literal("false")) {
      v.kind = Json::Kind::boolean, v.b = false;
    } else if (literal("null")) {
      v.kind = Json::Kind::null;
    } else {
      const char* begin = s.c_str() + i;
      char* end = nullptr;
      v.num = std::strtod(begin, &end);
      if (end == begin) return fail("expected a value");
      v.kind = Json::Kind::number;
      i += static_cast<std::size_t>(end - begin);
    }
    --depth;
    return ok;
  }
};

}  // namespace

bool parse_json(const std::string& text, Json& out, JsonError& err) {
  Reader r{text, 0, err};
  if (!r.value(out)) return false;
  r.space();
  if (r.i != text.size()) return r.fail("text after the value");
  return true;
}

}  // namespace pc::cli
