#include "checker/place/rewrite.hpp"

#include <map>
#include <sstream>

namespace pc::place {

namespace {

std::string indent_of(const std::string& line) { return line.substr(0, line.find_first_not_of(" \t")); }

enum class Tag : char { keep = ' ', del = '-', ins = '+' };
struct Row {
  Tag tag;
  int old_line;  // 1-based; for inserts, the line it follows
  std::string text;
  int insert = -1;  // index into the inserts
};

std::string unified(const std::vector<Row>& rows, const std::string& file) {
  std::string out = "--- " + file + "\n+++ " + file + " (barriers placed)\n";
  constexpr std::size_t ctx = 3;
  std::size_t i = 0;
  while (i < rows.size()) {
    while (i < rows.size() && rows[i].tag == Tag::keep) ++i;
    if (i == rows.size()) break;
    std::size_t begin = i >= ctx ? i - ctx : 0, end = i;
    // Extend while changes come within 2 * ctx lines of each other.
    for (std::size_t j = i; j < rows.size(); ++j) {
      if (rows[j].tag != Tag::keep) end = j + 1;
      else if (j - end >= 2 * ctx) break;
    }
    end = std::min(rows.size(), end + ctx);
    int old_start = 0, new_start = 0, old_n = 0, new_n = 0;
    int old_seen = 0, new_seen = 0;
    for (std::size_t j = 0; j < begin; ++j) {
      if (rows[j].tag != Tag::ins) ++old_seen;
      if (rows[j].tag != Tag::del) ++new_seen;
    }
    old_start = old_seen + 1, new_start = new_seen + 1;
    std::string body;
    for (std::size_t j = begin; j < end; ++j) {
      if (rows[j].tag != Tag::ins) ++old_n;
      if (rows[j].tag != Tag::del) ++new_n;
      body += static_cast<char>(rows[j].tag) + rows[j].text + "\n";
    }
    out += "@@ -" + std::to_string(old_n ? old_start : old_start - 1) + "," + std::to_string(old_n) + " +" +
           std::to_string(new_n ? new_start : new_start - 1) + "," + std::to_string(new_n) + " @@\n" + body;
    i = end;
  }
  return out;
}

}  // namespace

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  std::string line;
  std::istringstream in(s);
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

Rewritten rewrite(const std::string& source, const std::string& file, const Analysis& a,
                  const std::vector<Insert>& inserts, const std::vector<std::pair<int, std::string>>& replace,
                  const std::vector<std::string>& header, const std::vector<std::string>& declare, const std::vector<int>& drop) {
  const std::vector<std::string> lines = split_lines(source);
  std::vector<bool> gone(lines.size() + 2, false);
  for (const int l : drop)
    if (l >= 1 && l <= static_cast<int>(lines.size())) gone[static_cast<std::size_t>(l)] = true;
  for (const Analysis::Lines& r : a.removed)
    for (int l = r.first; l <= r.last && l <= static_cast<int>(lines.size()); ++l) gone[static_cast<std::size_t>(l)] = true;
  // Lines to add before (or after) each source line.
  std::map<int, std::vector<std::pair<std::string, int>>> before, after;
  for (std::size_t n = 0; n < inserts.size(); ++n) {
    const Insert& in = inserts[n];
    const Slot& s = a.slots[static_cast<std::size_t>(in.slot)];
    const bool at_end = s.index == static_cast<int>(s.list->size());
    const ir::Stmt& st = (*s.list)[static_cast<std::size_t>(at_end ? s.index - 1 : s.index)];
    const std::string indent = indent_of(lines[static_cast<std::size_t>(st.loc.line - 1)]);
    auto& to = at_end ? after[last_line(st)] : before[st.loc.line];
    for (const std::string& l : in.lines) to.push_back({indent + l, static_cast<int>(n)});
  }
  std::map<int, std::string> repl(replace.begin(), replace.end());
  int kernel_line = 0, role_line = 0;
  for (std::size_t i = 0; i < lines.size() && !kernel_line; ++i)
    if (lines[i].rfind("kernel ", 0) == 0) kernel_line = static_cast<int>(i) + 1;
  for (std::size_t i = 0; i < lines.size() && !role_line; ++i)
    if (lines[i].rfind("role ", 0) == 0) role_line = static_cast<int>(i) + 1;
  std::vector<Row> rows;
  for (int l = 1; l <= static_cast<int>(lines.size()); ++l) {
    if (l == kernel_line)
      for (const std::string& h : header) rows.push_back({Tag::ins, l - 1, h});
    if (l == role_line && !declare.empty()) {
      for (const std::string& d : declare) rows.push_back({Tag::ins, l - 1, d});
      rows.push_back({Tag::ins, l - 1, ""});
    }
    if (auto it = before.find(l); it != before.end())
      for (const auto& [t, n] : it->second) rows.push_back({Tag::ins, l - 1, t, n});
    const std::string& text = lines[static_cast<std::size_t>(l - 1)];
    if (gone[static_cast<std::size_t>(l)]) {
      rows.push_back({Tag::del, l, text});
    } else if (auto r = repl.find(l); r != repl.end() && r->second != text) {
      rows.push_back({Tag::del, l, text});
      rows.push_back({Tag::ins, l, r->second});
    } else {
      rows.push_back({Tag::keep, l, text});
    }
    if (auto it = after.find(l); it != after.end())
      for (const auto& [t, n] : it->second) rows.push_back({Tag::ins, l, t, n});
  }
  Rewritten out;
  out.lines.assign(inserts.size(), 0);
  out.moved.assign(lines.size() + 1, 0);
  int line = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    if (r.tag == Tag::del) continue;
    out.text += r.text + "\n";
    ++line;
    // A kept line, or the new text of a replaced one (right after its deletion).
    if (r.tag == Tag::keep || (r.insert < 0 && i > 0 && rows[i - 1].tag == Tag::del && rows[i - 1].old_line == r.old_line))
      out.moved[static_cast<std::size_t>(r.old_line)] = line;
    if (r.insert >= 0 && !out.lines[static_cast<std::size_t>(r.insert)]) out.lines[static_cast<std::size_t>(r.insert)] = line;
  }
  out.diff = unified(rows, file);
  return out;
}

}  // namespace pc::place
