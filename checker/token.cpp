#include "checker/token.hpp"

#include <charconv>
#include <cstdio>
#include <sstream>
#include <system_error>

#include "checker/explore.hpp"

namespace pc::check {

std::string kernel_tag(const Model& m) {
  const Program& p = m.program();
  std::string bytes;
  // The initial state as a trace describes it (with the phases seen), whose
  // bytes the tags have always been taken from: tokens stay valid.
  bytes = tag_bytes(m.initial(Stepper(p, true)));
  bytes += p.kernel->name;
  for (const auto& code : p.code) bytes += std::to_string(code.size()) + ",";
  for (const ir::Param& x : p.kernel->params) bytes += ";" + x.name + "=" + std::to_string(x.value);
  char buf[17];
  std::snprintf(buf, sizeof buf, "%08x", static_cast<unsigned>(hash_bytes(bytes) & 0xffffffffu));
  return buf;
}

std::string make_token(const Model& m, bool reduction, const std::vector<Action>& path, const Params& params) {
  std::ostringstream o;
  o << "v2." << (reduction ? 'R' : 'N') << '.' << kernel_tag(m) << '.';
  for (std::size_t i = 0; i < path.size(); ++i) o << (i ? "-" : "") << path[i];
  for (std::size_t i = 0; i < params.size(); ++i) o << (i ? "," : ".") << params[i].first << '=' << params[i].second;
  return o.str();
}

std::optional<Token> parse_token(const std::string& tok) {
  std::vector<std::string> parts;
  std::size_t from = 0;
  for (;;) {
    const std::size_t dot = tok.find('.', from);
    parts.push_back(tok.substr(from, dot == std::string::npos ? std::string::npos : dot - from));
    if (dot == std::string::npos) break;
    from = dot + 1;
  }
  if (parts.size() < 4 || parts.size() > 5 || parts[0] != "v2" || (parts[1] != "R" && parts[1] != "N")) return std::nullopt;
  Token t;
  t.reduction = parts[1] == "R";
  t.tag = parts[2];
  if (t.tag.size() != 8 || t.tag.find_first_not_of("0123456789abcdef") != std::string::npos) return std::nullopt;
  for (std::size_t i = 0; i < parts[3].size();) {
    std::size_t j = parts[3].find('-', i);
    if (j == std::string::npos) j = parts[3].size();
    const std::string num = parts[3].substr(i, j - i);
    if (num.empty() || num.size() > 5 || num.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    const int v = std::stoi(num);
    if (v > 0xffff) return std::nullopt;
    t.path.push_back(static_cast<Action>(v));
    i = j + 1;
    if (j + 1 == parts[3].size()) return std::nullopt;  // a trailing '-'
  }
  if (parts.size() == 5) {
    for (std::size_t i = 0; i <= parts[4].size();) {
      std::size_t j = parts[4].find(',', i);
      if (j == std::string::npos) j = parts[4].size();
      const std::string item = parts[4].substr(i, j - i);
      const std::size_t eq = item.find('=');
      if (eq == 0 || eq == std::string::npos) return std::nullopt;
      std::int64_t v = 0;
      const char* first = item.data() + eq + 1;
      const char* last = item.data() + item.size();
      const auto [end, ec] = std::from_chars(first, last, v);
      if (ec != std::errc() || end != last || first == last) return std::nullopt;
      t.params.emplace_back(item.substr(0, eq), v);
      i = j + 1;
    }
  }
  return t;
}

std::string params_text(const Params& ps) {
  std::string s;
  for (const auto& [n, v] : ps) s += (s.empty() ? "" : ", ") + n + "=" + std::to_string(v);
  return s.empty() ? "none" : s;
}

std::optional<Params> token_params(const std::string& token) {
  if (token.rfind("v1.", 0) == 0) return Params{};  // rejected, with its reason, when replayed
  const std::optional<Token> t = parse_token(token);
  if (!t) return std::nullopt;
  return t->params;
}

}  // namespace pc::check
