// A small JSON reader and a validator for the subset of JSON Schema that
// docs/check-kernel.schema.json and the SARIF test use (type, const, enum,
// required, properties, additionalProperties (a schema or false), items,
// $ref to #/$defs, minimum, minItems, minLength, pattern). Tests
// use it to check check-kernel's --json and --sarif output without a new
// dependency.
#pragma once

#include <cctype>
#include <map>
#include <memory>
#include <regex>
#include <string>
#include <vector>

namespace jsonmini {

struct Value {
  enum class T { null, boolean, number, string, array, object } t = T::null;
  bool b = false;
  double n = 0;
  bool integral = false;
  std::string s;
  std::vector<Value> a;
  std::map<std::string, Value> o;
  const Value* get(const std::string& k) const {
    auto it = o.find(k);
    return it == o.end() ? nullptr : &it->second;
  }
};

class Reader {
 public:
  explicit Reader(const std::string& text) : p_(text.c_str()), end_(p_ + text.size()) {}
  bool parse(Value& out) {
    ws();
    if (!value(out, 0)) return false;
    ws();
    return p_ == end_;
  }

 private:
  const char* p_;
  const char* end_;
  void ws() {
    while (p_ < end_ && std::isspace(static_cast<unsigned char>(*p_))) ++p_;
  }
  bool lit(const char* w) {
    const std::string s(w);
    if (static_cast<std::size_t>(end_ - p_) < s.size() || std::string(p_, s.size()) != s) return false;
    p_ += s.size();
    return true;
  }
  bool str(std::string& out) {
    if (p_ >= end_ || *p_ != '"') return false;
    ++p_;
    while (p_ < end_ && *p_ != '"') {
      if (static_cast<unsigned char>(*p_) < 0x20) return false;
      if (*p_ == '\\') {
        ++p_;
        if (p_ >= end_) return false;
        switch (*p_) {
          case 'n': out += '\n'; break;
          case 't': out += '\t'; break;
          case 'r': out += '\r'; break;
          case 'b': out += '\b'; break;
          case 'f': out += '\f'; break;
          case 'u':
            if (end_ - p_ < 5) return false;
            out += '?';
            p_ += 4;
            break;
          default: out += *p_;
        }
        ++p_;
      } else {
        out += *p_++;
      }
    }
    if (p_ >= end_) return false;
    ++p_;
    return true;
  }
  bool value(Value& v, int depth) {
    if (depth > 200 || p_ >= end_) return false;
    ws();
    if (*p_ == '{') {
      v.t = Value::T::object;
      ++p_;
      ws();
      if (p_ < end_ && *p_ == '}') return ++p_, true;
      for (;;) {
        ws();
        std::string k;
        if (!str(k)) return false;
        ws();
        if (p_ >= end_ || *p_ != ':') return false;
        ++p_;
        if (!value(v.o[k], depth + 1)) return false;
        ws();
        if (p_ < end_ && *p_ == ',') {
          ++p_;
          continue;
        }
        if (p_ < end_ && *p_ == '}') return ++p_, true;
        return false;
      }
    }
    if (*p_ == '[') {
      v.t = Value::T::array;
      ++p_;
      ws();
      if (p_ < end_ && *p_ == ']') return ++p_, true;
      for (;;) {
        v.a.emplace_back();
        if (!value(v.a.back(), depth + 1)) return false;
        ws();
        if (p_ < end_ && *p_ == ',') {
          ++p_;
          continue;
        }
        if (p_ < end_ && *p_ == ']') return ++p_, true;
        return false;
      }
    }
    if (*p_ == '"') {
      v.t = Value::T::string;
      return str(v.s);
    }
    if (lit("true")) return v.t = Value::T::boolean, v.b = true, true;
    if (lit("false")) return v.t = Value::T::boolean, v.b = false, true;
    if (lit("null")) return v.t = Value::T::null, true;
    const char* start = p_;
    if (p_ < end_ && (*p_ == '-' || std::isdigit(static_cast<unsigned char>(*p_)))) {
      ++p_;
      bool frac = false;
      while (p_ < end_ && (std::isdigit(static_cast<unsigned char>(*p_)) || *p_ == '.' || *p_ == 'e' || *p_ == 'E' || *p_ == '+' || *p_ == '-')) {
        frac |= *p_ == '.' || *p_ == 'e' || *p_ == 'E';
        ++p_;
      }
      v.t = Value::T::number;
      v.n = std::stod(std::string(start, p_));
      v.integral = !frac;
      return true;
    }
    return false;
  }
};

// A value as compact text (null pointer: "-"), for comparing two documents
// field by field.
inline std::string text(const Value* v) {
  if (!v) return "-";
  switch (v->t) {
    case Value::T::null: return "null";
    case Value::T::boolean: return v->b ? "true" : "false";
    case Value::T::number: return std::to_string(static_cast<long long>(v->n));
    case Value::T::string: return v->s;
    case Value::T::array: {
      std::string s = "[";
      for (const auto& x : v->a) s += text(&x) + ",";
      return s + "]";
    }
    case Value::T::object: {
      std::string s = "{";
      for (const auto& [k, x] : v->o) s += k + ":" + text(&x) + ",";
      return s + "}";
    }
  }
  return "?";
}

// Returns "" when `v` satisfies `schema`, else the path and reason of the first failure.
inline std::string validate(const Value& v, const Value& schema, const Value& root, const std::string& path = "$") {
  if (const Value* ref = schema.get("$ref")) {
    const std::string prefix = "#/$defs/";
    if (ref->s.rfind(prefix, 0) != 0) return path + ": unsupported $ref " + ref->s;
    const Value* defs = root.get("$defs");
    const Value* target = defs ? defs->get(ref->s.substr(prefix.size())) : nullptr;
    if (!target) return path + ": unresolved $ref " + ref->s;
    return validate(v, *target, root, path);
  }
  auto type_ok = [&](const std::string& t) {
    if (t == "object") return v.t == Value::T::object;
    if (t == "array") return v.t == Value::T::array;
    if (t == "string") return v.t == Value::T::string;
    if (t == "boolean") return v.t == Value::T::boolean;
    if (t == "null") return v.t == Value::T::null;
    if (t == "number") return v.t == Value::T::number;
    if (t == "integer") return v.t == Value::T::number && v.integral;
    return false;
  };
  auto equal = [](const Value& x, const Value& y) {
    if (x.t != y.t) return false;
    if (x.t == Value::T::string) return x.s == y.s;
    if (x.t == Value::T::number) return x.n == y.n;
    if (x.t == Value::T::boolean) return x.b == y.b;
    return x.t == Value::T::null;
  };
  if (const Value* t = schema.get("type")) {
    bool ok = false;
    if (t->t == Value::T::string) ok = type_ok(t->s);
    for (const Value& x : t->a) ok |= type_ok(x.s);
    if (!ok) return path + ": wrong type";
  }
  if (const Value* c = schema.get("const"))
    if (!equal(v, *c)) return path + ": not the constant";
  if (const Value* e = schema.get("enum")) {
    bool ok = false;
    for (const Value& x : e->a) ok |= equal(v, x);
    if (!ok) return path + ": not one of the enum";
  }
  if (const Value* m = schema.get("minimum"))
    if (v.t == Value::T::number && v.n < m->n) return path + ": below the minimum";
  if (const Value* m = schema.get("minItems"))
    if (v.t == Value::T::array && static_cast<double>(v.a.size()) < m->n) return path + ": fewer items than minItems";
  if (const Value* m = schema.get("minLength"))
    if (v.t == Value::T::string && static_cast<double>(v.s.size()) < m->n) return path + ": shorter than minLength";
  if (const Value* p = schema.get("pattern"))
    if (v.t == Value::T::string && !std::regex_search(v.s, std::regex(p->s, std::regex::ECMAScript)))
      return path + ": does not match " + p->s;
  if (v.t == Value::T::object) {
    if (const Value* req = schema.get("required"))
      for (const Value& k : req->a)
        if (!v.get(k.s)) return path + ": missing " + k.s;
    const Value* props = schema.get("properties");
    const Value* extra = schema.get("additionalProperties");
    for (const auto& [k, x] : v.o) {
      const Value* ps = props ? props->get(k) : nullptr;
      if (ps) {
        if (std::string e = validate(x, *ps, root, path + "." + k); !e.empty()) return e;
      } else if (extra && extra->t == Value::T::object) {
        if (std::string e = validate(x, *extra, root, path + "." + k); !e.empty()) return e;
      } else if (extra && extra->t == Value::T::boolean && !extra->b) {
        return path + ": property " + k + " is not allowed";
      }
    }
  }
  if (v.t == Value::T::array)
    if (const Value* items = schema.get("items"))
      for (std::size_t i = 0; i < v.a.size(); ++i)
        if (std::string e = validate(v.a[i], *items, root, path + "[" + std::to_string(i) + "]"); !e.empty()) return e;
  return "";
}

}  // namespace jsonmini
