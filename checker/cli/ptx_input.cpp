#include "checker/cli/ptx_input.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "checker/cli/json_read.hpp"
#include "checker/dsl/parser.hpp"
#include "checker/ptx/emit_bk.hpp"
#include "checker/ptx/front.hpp"

namespace pc::cli {
namespace {

bool read_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  out = s.str();
  return out.size() <= dsl::max_source_bytes;
}

std::string line_of(const std::string& text, int line) {
  std::size_t start = 0;
  for (int l = 1; l < line && start != std::string::npos; ++l) {
    start = text.find('\n', start);
    if (start != std::string::npos) ++start;
  }
  if (start == std::string::npos || start >= text.size()) return "";
  const std::size_t end = text.find('\n', start);
  std::string s = text.substr(start, (end == std::string::npos ? text.size() : end) - start);
  const std::size_t a = s.find_first_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a);
}

bool parse_int(const std::string& s, std::int64_t& v) {
  const auto p = dsl::parse_override("x=" + s);
  if (!p) return false;
  v = p->second;
  return true;
}

// --meta FILE: the JSON Triton writes beside a kernel's PTX (its cache's
// NAME.json, CompiledKernel.metadata): the launch its runtime makes, for
// what no option gives. `name` is the entry; `num_warps` (after warp
// specialization, every partition's warps) times the target's warp size the
// block; `shared` the dynamic shared memory; `cluster_dims` (or `num_ctas`)
// the cluster; `tensordesc_meta` the boxes of its tensor descriptors.
std::optional<Diagnostic> apply_meta(const std::string& path, ptx::Launch& l) {
  auto error = [&](ir::Loc at, const std::string& m) { return Diagnostic{path, at, m, false}; };
  std::string text;
  if (!read_file(path, text)) return error({}, "cannot read the metadata file (or it is larger than 16 MiB)");
  Json j;
  JsonError e;
  if (!parse_json(text, j, e)) return error({e.line, e.col}, "not JSON: " + e.message);
  if (j.kind != Json::Kind::object) return error({1, 1}, "Triton's metadata is one JSON object");
  auto whole = [](const Json* v, double lo, double hi) {
    return v != nullptr && v->kind == Json::Kind::number && v->num >= lo && v->num <= hi && v->num == static_cast<double>(static_cast<std::int64_t>(v->num));
  };
  if (const Json* n = j.get("name"); n != nullptr && l.entry.empty()) {
    if (n->kind != Json::Kind::string || n->str.empty()) return error({}, "\"name\" is not the kernel's name");
    l.entry = n->str;
  }
  if (const Json* w = j.get("num_warps"); w != nullptr && l.block[0] == 0) {
    double size = 32;
    if (const Json* t = j.get("target"); t != nullptr && whole(t->get("warp_size"), 1, 64)) size = t->get("warp_size")->num;
    else if (whole(j.get("warp_size"), 1, 64)) size = j.get("warp_size")->num;  // Triton 3.6 also writes it at the top
    if (!whole(w, 1, 1024 / size)) return error({}, "\"num_warps\" is not a number of warps of at most 1024 threads");
    l.block[0] = static_cast<int>(w->num * size), l.block[1] = l.block[2] = 1;
  }
  if (const Json* sh = j.get("shared"); sh != nullptr && l.smem_bytes < 0) {
    if (!whole(sh, 0, 1 << 20)) return error({}, "\"shared\" is not a number of bytes");
    l.smem_bytes = static_cast<std::int64_t>(sh->num);
  }
  if (l.cluster == 0) {
    std::int64_t ctas = 0;
    if (const Json* c = j.get("cluster_dims"); c != nullptr && c->kind != Json::Kind::null) {
      ctas = 1;
      if (c->kind != Json::Kind::array || c->items.empty() || c->items.size() > 3) return error({}, "\"cluster_dims\" is not [x, y, z]");
      for (const Json& d : c->items) {
        if (!whole(&d, 1, 16)) return error({}, "\"cluster_dims\" is not [x, y, z] of CTAs");
        ctas *= static_cast<std::int64_t>(d.num);
      }
    } else if (const Json* n = j.get("num_ctas"); n != nullptr) {
      if (!whole(n, 1, 16)) return error({}, "\"num_ctas\" is not a number of CTAs (1 to 16)");
      ctas = static_cast<std::int64_t>(n->num);
    }
    if (ctas > 16) return error({}, "the cluster of \"cluster_dims\" has more than 16 CTAs");
    if (ctas > 1) l.cluster = static_cast<int>(ctas);
  }
  // `tensordesc_meta`: the kernel's tensor descriptors in parameter order,
  // each's box (`block_size`) and element size: the bytes one box copies.
  if (const Json* d = j.get("tensordesc_meta"); d != nullptr && d->kind != Json::Kind::null) {
    if (d->kind != Json::Kind::array) return error({}, "\"tensordesc_meta\" is not a list of tensor descriptors");
    for (const Json& t : d->items) {
      const Json* b = t.get("block_size");
      const Json* e = t.get("elem_size");
      if (b == nullptr || b->kind != Json::Kind::array || b->items.empty() || !whole(e, 1, 16))
        return error({}, "an entry of \"tensordesc_meta\" has no block_size list and elem_size");
      std::int64_t bytes = static_cast<std::int64_t>(e->num);
      for (const Json& x : b->items) {
        if (!whole(&x, 1, 256)) return error({}, "a block_size of \"tensordesc_meta\" is not a box dimension (1 to 256)");
        bytes *= static_cast<std::int64_t>(x.num);
      }
      l.desc_boxes.push_back(bytes);
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> ptx_option(PtxOptions& o, int argc, char** argv, int& i) {
  const std::string a = argv[i];
  if (a == "--emit-bk") {
    o.emit_bk = o.given = true;
    return std::string();
  }
  if (a == "--meta") {
    if (i + 1 >= argc || std::string(argv[i + 1]).empty()) return std::string("--meta needs the JSON file Triton wrote beside the PTX");
    o.meta = argv[++i];
    o.given = true;
    o.text += (o.text.empty() ? "" : " ") + a + " " + o.meta;
    return std::string();
  }
  if (a != "--entry" && a != "--block" && a != "--cluster" && a != "--grid" && a != "--smem-bytes" && a != "--arg" && a != "--box" &&
      a != "--assume" && a != "--clc")
    return std::nullopt;
  if (i + 1 >= argc) return a + " needs a value";
  const std::string v = argv[++i];
  o.given = true;
  o.text += (o.text.empty() ? "" : " ") + a + " " + v;
  if (a == "--entry") {
    if (v.empty()) return std::string("--entry needs a kernel's name");
    o.launch.entry = v;
  } else if (a == "--block") {
    if (!ptx::parse_dims(v, o.launch.block) || o.launch.block[0] * o.launch.block[1] * o.launch.block[2] > 1024)
      return "--block needs X[,Y[,Z]] of at most 1024 threads, not '" + v + "'";
  } else if (a == "--grid") {
    if (!ptx::parse_dims(v, o.launch.grid) || std::int64_t{o.launch.grid[0]} * o.launch.grid[1] * o.launch.grid[2] > (std::int64_t{1} << 31))
      return "--grid needs X[,Y[,Z]] CTAs, not '" + v + "'";
  } else if (a == "--cluster") {
    std::int64_t n = 0;
    if (!parse_int(v, n) || n < 1 || n > 16) return "--cluster needs a number of CTAs (1 to 16), not '" + v + "'";
    o.launch.cluster = static_cast<int>(n);
  } else if (a == "--clc") {
    std::int64_t n = 0;
    if (!parse_int(v, n) || n < 0 || n > 255)
      return "--clc needs the clusters waiting to launch that clusterlaunchcontrol.try_cancel may take (0 to 255), not '" + v + "'";
    o.launch.clc = static_cast<int>(n);
  } else if (a == "--smem-bytes") {
    std::int64_t n = 0;
    if (!parse_int(v, n) || n < 0 || n > (1 << 20)) return "--smem-bytes needs a number of bytes, not '" + v + "'";
    o.launch.smem_bytes = n;
  } else if (a == "--assume") {
    const std::size_t eq = v.find('=');
    std::int64_t line = 0;
    std::vector<bool> ways;
    bool good = eq != std::string::npos && parse_int(v.substr(0, eq), line) && line > 0 && line <= (1 << 30);
    for (std::size_t at = eq + 1; good && at <= v.size();) {
      const std::size_t comma = std::min(v.find(',', at), v.size());
      const std::string w = v.substr(at, comma - at);
      good = w == "1" || w == "0";
      ways.push_back(w == "1");
      at = comma + 1;
    }
    if (!good || ways.empty())
      return "--assume needs LINE=WAYS, a PTX line and 1 (its guard holds), 0, or a list of them (1,1,0), not '" + v + "'";
    if (!o.launch.assume.emplace(static_cast<int>(line), std::move(ways)).second)
      return "--assume " + std::to_string(line) + " is given twice";
  } else {
    const std::size_t eq = v.find('=');
    std::int64_t n = 0;
    if (eq == std::string::npos || eq == 0 || !parse_int(v.substr(eq + 1), n))
      return a + " needs NAME=VALUE with an integer VALUE (NAME: the parameter's name or index), not '" + v + "'";
    if (a == "--box" && (n < 16 || n > (1 << 20) || n % 16 != 0))
      return "--box needs the bytes of one box, a multiple of 16 (PTX ISA cp.async.bulk.tensor), not '" + v + "'";
    (a == "--arg" ? o.launch.args : o.launch.boxes).emplace_back(v.substr(0, eq), n);
  }
  return std::string();
}

bool load_ptx(report::FileReport& f, const PtxOptions& o, ir::Kernel& k) {
  f.options = o.text;
  if (!read_file(f.file, f.source)) {
    f.failure = check::Failure::bad_input;
    f.diagnostics.push_back(Diagnostic{f.file, {}, "cannot read the file (or it is larger than 16 MiB)", false});
    return false;
  }
  ptx::Launch launch = o.launch;
  if (!o.meta.empty())
    if (auto d = apply_meta(o.meta, launch)) {
      f.failure = check::Failure::bad_input;
      f.diagnostics.push_back(std::move(*d));
      return false;
    }
  ptx::Loaded l = ptx::load(f.source, f.file, launch);
  if (!l.ok()) {
    f.failure = check::Failure::bad_input;
    f.diagnostics = std::move(l.errors);
    return false;
  }
  k = std::move(l.kernel);
  f.kernel = k.name;
  f.notes = std::move(l.notes);
  std::map<std::string, std::string> sources;
  for (std::size_t i = 0; i < l.origin.size(); ++i) {
    const ptx::Origin& g = l.origin[i];
    if (g.file.empty()) continue;
    if (f.origin.size() <= i) f.origin.resize(i + 1);
    auto it = sources.find(g.file);
    if (it == sources.end()) {
      std::string text;
      if (!read_file(g.file, text)) text.clear();
      it = sources.emplace(g.file, std::move(text)).first;
    }
    f.origin[i].where = g.file + ":" + std::to_string(g.line) + ":" + std::to_string(g.col);
    f.origin[i].text = line_of(it->second, g.line);
  }
  return true;
}

}  // namespace pc::cli

namespace pc::cli {

int emit_bk(const std::vector<std::string>& files, const PtxOptions& o) {
  int status = 0;
  for (const std::string& path : files) {
    report::FileReport f;
    f.file = path;
    ir::Kernel k;
    if (!load_ptx(f, o, k)) {
      for (const Diagnostic& d : f.diagnostics) std::fputs(render(d, f.source).c_str(), stderr);
      status = 2;
      continue;
    }
    std::fputs(ptx::emit_bk(k, path).c_str(), stdout);
  }
  return status;
}

}  // namespace pc::cli
