// Top-level declarations: param, target, cluster, clc, cta threads, smem,
// tmem, mbarrier and role; what the file states once read (finish).
#include "checker/dsl/parser_impl.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "checker/dsl/warps.hpp"
#include "checker/layout.hpp"
#include "spec/amd.hpp"
#include "spec/cluster.hpp"
#include "spec/mbarrier.hpp"
#include "spec/named_barrier.hpp"
#include "spec/rules.hpp"
#include "spec/tmem.hpp"
#include "spec/violation.hpp"

namespace pc::dsl::detail {

// `aliases BASE[i] [offset O]` of declaration `n` (checker/layout.hpp): BASE
// is a buffer or mbarrier declared before; whether it fits is checked by the caller.
ir::Alias Parser::alias_clause(const std::string& n) {
  ir::Alias a;
  const Token& at = peek();
  a.loc = at.loc;
  const std::string base = name("a buffer or mbarrier name");
  const auto bi = buffers_.find(base);
  const auto mi = mbars_.find(base);
  if (bi == buffers_.end() && mi == mbars_.end()) {
    std::vector<std::string> known;
    for (const auto& [o, i] : buffers_) known.push_back(o);
    for (const auto& [o, i] : mbars_) known.push_back(o);
    fail(at.loc, "'" + base + "' is not a buffer or mbarrier declared before '" + n + "'" + suggest(base, known));
  }
  a.mbar = bi == buffers_.end();
  a.of = a.mbar ? mi->second : bi->second;
  if (accept("[")) {
    a.index = const_expr("an element index", 0, max_array - 1);
    expect("]");
  }
  if (accept("offset")) a.offset = const_expr("a byte offset", 0, 1 << 30);
  return a;
}

void Parser::param() {
  const Token& tk = peek();
  const std::string n = name("a parameter name");
  if (params_.count(n)) fail(tk.loc, "parameter '" + n + "' is declared twice");
  declaring_ = n;
  expect("=");
  ir::Param p;
  p.name = n;
  p.loc = tk.loc;
  p.value = const_expr("a parameter value", -max_number, max_number);
  if (accept("in")) {
    if (accept("{")) {
      do p.candidates.push_back(const_expr("a parameter value", -max_number, max_number));
      while (accept(","));
      expect("}");
    } else {
      p.lo = const_expr("a range bound", -max_number, max_number);
      expect("..");
      p.hi = const_expr("a range bound", -max_number, max_number);
      if (p.lo > p.hi) fail(tk.loc, "empty range " + std::to_string(p.lo) + ".." + std::to_string(p.hi));
    }
  }
  for (const auto& [on, ov] : overrides_)
    if (on == n) p.value = ov;
  const bool in_set = p.candidates.empty() || std::find(p.candidates.begin(), p.candidates.end(), p.value) != p.candidates.end();
  const bool in_range = p.lo > p.hi || (p.value >= p.lo && p.value <= p.hi);
  if (!in_set || !in_range) fail(tk.loc, "parameter '" + n + "' = " + std::to_string(p.value) + " is outside its declared values");
  params_[n] = static_cast<int>(k_.params.size());
  k_.params.push_back(std::move(p));
  end_of_statement();
}

void Parser::role() {
  const Token& tk = peek();
  ir::Role r;
  r.name = name("a role name");
  r.loc = tk.loc;
  for (const ir::Role& other : k_.roles)
    if (other.name == r.name) fail(tk.loc, "role '" + r.name + "' is declared twice");
  const Token& g = peek();
  const std::string gran = name("'warp', 'warpgroup' or 'warps N'");
  if (gran == "warp") r.granularity = ir::Granularity::warp;
  else if (gran == "warpgroup") r.granularity = ir::Granularity::warpgroup;
  else if (gran == "warps") r.warps = static_cast<int>(const_expr("the warps of a role", 1, spec::rules::max_cta_threads / spec::named::warp_size));  // warps per CTA
  else fail(g.loc, "expected 'warp', 'warpgroup' or 'warps N', found '" + gran + "'");
  // Multiplicity: `x N` or `xN`.
  if (peek().kind == Tok::name && peek().text.size() > 1 && peek().text[0] == 'x' &&
      std::all_of(peek().text.begin() + 1, peek().text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    const Token& m = next();
    const std::string digits = m.text.substr(1);
    if (digits.size() > 3 || std::stoll(digits) < 1 || std::stoll(digits) > max_role_count)
      fail(m.loc, "a role has 1.." + std::to_string(max_role_count) + " instances");
    r.count = static_cast<int>(std::stoll(digits));
  } else if (accept("x")) {
    r.count = static_cast<int>(const_expr("the number of instances", 1, max_role_count));
  }
  for (bool more = true; more;) {
    more = false;
    if (r.cta < 0 && accept("on")) {
      expect("cta");
      r.cta = static_cast<int>(const_expr("the CTA of a role", 0, k_.cluster_ctas - 1));
      r.cta_end = r.cta + 1;
      // `on cta K..M`: the CTAs K to M-1, the upper bound excluded as in `for`.
      if (accept("..")) r.cta_end = static_cast<int>(const_expr("the end of a role's CTA range", r.cta + 1, k_.cluster_ctas));
      more = true;
    } else if (r.first_warp < 0 && is("at")) {
      // `at warp W`: where the role's warps are in the CTA (the warp rank of
      // its first), which tcgen05.ld/st's lane quarters depend on.
      const ir::Loc at = next().loc;
      expect("warp");
      const int max_warps = spec::rules::max_cta_threads / spec::named::warp_size;
      r.first_warp = static_cast<int>(const_expr("the warp rank of a role's first warp", 0, max_warps - 1));
      const int warps = ir::role_warps(r) * r.count;
      if (r.first_warp + warps > max_warps)
        fail(at, "role '" + r.name + "' at warp " + std::to_string(r.first_warp) + " has " + std::to_string(warps) +
                     " warps: a CTA has at most " + std::to_string(max_warps));
      if (r.granularity == ir::Granularity::warpgroup && r.warps == 0 && r.first_warp % 4 != 0)
        fail(at, "a warpgroup starts at a warp rank that is a multiple of 4 (PTX ISA, \"Warpgroup\"): role '" + r.name +
                     "' is at warp " + std::to_string(r.first_warp));
      more = true;
    }
  }
  // Two placed roles on one CTA may not share a warp.
  if (r.first_warp >= 0)
    for (const ir::Role& o : k_.roles) {
      if (o.first_warp < 0) continue;
      bool shared_cta = false;
      for (int c = 0; c < k_.cluster_ctas; ++c) shared_cta |= o.placed_on(c) && r.placed_on(c);
      const int o_end = o.first_warp + ir::role_warps(o) * o.count;
      if (shared_cta && r.first_warp < o_end && o.first_warp < r.first_warp + ir::role_warps(r) * r.count)
        fail(tk.loc, "role '" + r.name + "' at warp " + std::to_string(r.first_warp) + " shares warps with role '" + o.name +
                         "' (warps " + std::to_string(o.first_warp) + ".." + std::to_string(o_end - 1) + ")");
    }
  k_.roles.push_back(std::move(r));
  role_ = &k_.roles.back();
  role_->vars = {"cta", "instance", "warp"};
  vars_ = {{"cta", ir::var_cta}, {"instance", ir::var_instance}, {"warp", ir::var_warp}};
  std::vector<ir::Stmt> body;
  const std::size_t errors_before = errors_.size();
  const int silenced_before = silenced_;
  block(body);
  role_ = &k_.roles.back();
  role_->body = std::move(body);
  if (role_->body.empty() && errors_.size() == errors_before && silenced_ == silenced_before)
    fail(role_->loc, "role '" + role_->name + "' has an empty body");
  place_warps(
      k_, *role_,
      [&] {
        const ir::Loc at = role_->loc;
        return binary(ir::BinOp::eq, add({ir::ExprKind::var, ir::UnOp::neg, ir::BinOp::add, 0, -1, ir::var_warp, ir::no_expr, ir::no_expr, at}),
                      constant(0, at), at);
      },
      [&](ir::Loc at, const std::string& msg) { target_error(at, msg); });
  check_cp_async_lanes(role_->body);
  check_bulk_thread(role_->body);
  role_ = nullptr;
}

void Parser::declaration() {
  const Token& tk = peek();
  if (tk.kind == Tok::indent) fail(tk.loc, "unexpected indentation at the top level");
  if (tk.kind != Tok::name) expected("a declaration (kernel, param, target, cluster, cta, clc, smem, tmem, mbarrier, role)");
  const std::string kw = next().text;
  if (kw == "kernel") {
    if (seen_kernel_) fail(tk.loc, "a file holds one kernel; 'kernel' appears twice");
    seen_kernel_ = true;
    k_.name = name("a kernel name");
    k_.loc = tk.loc;
    end_of_statement();
  } else if (kw == "param") {
    param();
  } else if (kw == "target") {
    // target nvidia | target amd [CHIP]: the chip sets the wave size and the
    // instructions there are (spec/amd.hpp); without one, spec::amd::default_gfx.
    if (target_loc_.line > 0) fail(tk.loc, "'target' is declared twice");
    target_loc_ = tk.loc;
    const Token& t = peek();
    const std::string v = name("'nvidia' or 'amd'");
    if (v == "nvidia") k_.target = ir::Target::nvidia;
    else if (v == "amd") k_.target = ir::Target::amd;
    else fail(t.loc, "expected 'nvidia' or 'amd', found '" + v + "'");
    if (k_.target == ir::Target::amd && peek().kind == Tok::name) {
      const Token& c = next();
      std::vector<std::string> chips;
      bool found = false;
      for (const spec::amd::Gfx g : {spec::amd::Gfx::gfx90a, spec::amd::Gfx::gfx940, spec::amd::Gfx::gfx942,
                                     spec::amd::Gfx::gfx1100, spec::amd::Gfx::gfx1101, spec::amd::Gfx::gfx1102,
                                     spec::amd::Gfx::gfx1200, spec::amd::Gfx::gfx1201}) {
        chips.emplace_back(spec::amd::gfx_name(g));
        if (c.text == chips.back()) {
          k_.gfx = g;
          found = true;
        }
      }
      if (!found)
        fail(c.loc, "unknown AMD chip '" + c.text + "': the model has gfx90a, gfx940, gfx942 (CDNA, wave64), gfx1100, "
                    "gfx1101, gfx1102 (RDNA3, wave32) and gfx1200, gfx1201 (RDNA4, wave32)" + suggest(c.text, chips));
    }
    end_of_statement();
  } else if (kw == "cluster") {
    if (!k_.roles.empty() || !k_.buffers.empty() || !k_.mbarriers.empty())
      fail(tk.loc, "declare the cluster before buffers, barriers and roles");
    cluster_loc_ = tk.loc;
    k_.cluster_ctas = static_cast<int>(const_expr("the cluster size", 1, spec::cluster::max_ctas));
    cluster_declared_ = true;
    end_of_statement();
  } else if (kw == "grids") {
    // grids 2: the kernel launched twice, the second launch programmatic-
    // dependent on the first (griddepcontrol; docs/dsl.md "Two grids").
    if (k_.grids_loc.line > 0) fail(tk.loc, "'grids' is declared twice");
    if (!k_.roles.empty()) fail(tk.loc, "declare 'grids' before the roles");
    k_.grids_loc = tk.loc;
    k_.grids = static_cast<int>(const_expr("the number of grids", 1, 2));
    end_of_statement();
  } else if (kw == "clc") {
    // clc N: the clusters waiting to launch that clusterlaunchcontrol.try_cancel
    // may take (spec/clc.hpp); a request answers "not cancelled" once none is left.
    if (clc_loc_.line > 0) fail(tk.loc, "'clc' is declared twice");
    clc_loc_ = tk.loc;
    k_.clc_queue = static_cast<int>(const_expr("the clusters left to launch", 0, 255));
    end_of_statement();
  } else if (kw == "cta") {
    cta_threads_loc_ = tk.loc;
    expect("threads");
    expect("=");
    k_.cta_threads = static_cast<int>(const_expr("the CTA's thread count", spec::named::warp_size, spec::rules::max_cta_threads));
    end_of_statement();
  } else if (kw == "smem" || kw == "mbarrier" || kw == "tmem" || kw == "gmem" || kw == "tensormap") {
    const Token& nt = peek();
    const std::string n = name(kw == "mbarrier" ? "an mbarrier name" : "a buffer name");
    if (buffers_.count(n) || mbars_.count(n) || params_.count(n)) fail(nt.loc, "'" + n + "' is already declared");
    declaring_ = n;
    int size = 1;
    if (accept("[")) {
      size = static_cast<int>(const_expr("an array size", 1, max_array));
      expect("]");
    }
    if (kw == "tensormap") {
      // A CUtensorMap in global memory (128 bytes, "the tensor-map object":
      // PTX ISA, Tensor Maps), written by the host before the launch or by
      // the kernel (tensormap_cp_fenceproxy, write), read by TMA copies
      // through the tensormap proxy (`map`).
      ir::BufferDecl b;
      b.name = n;
      b.size = size;
      b.loc = nt.loc;
      b.bytes = 128;
      b.space = ir::Space::global;
      b.tensormap = true;
      buffers_[n] = static_cast<int>(k_.buffers.size());
      k_.buffers.push_back(b);
    } else if (kw == "smem" || kw == "gmem") {
      expect("bytes");
      const ir::Loc bl = peek().loc;
      ir::BufferDecl b;
      b.name = n;
      b.size = size;
      b.loc = nt.loc;
      b.bytes_expr = expr();
      auto v = const_value(b.bytes_expr);
      if (!v || *v < 1 || *v > (1 << 30)) fail(bl, "buffer bytes must be a constant in 1..2^30");
      b.bytes = *v;
      if (kw == "gmem") b.space = ir::Space::global;
      if (kw == "gmem" && is("aliases")) fail(peek().loc, "a 'gmem' buffer cannot alias: global memory is not laid out in the model");
      if (accept("aliases")) {
        b.alias = alias_clause(n);
        k_.buffers.push_back(b);
        if (const auto why = check::layout::alias_error(k_, static_cast<int>(k_.buffers.size()) - 1)) fail(b.alias.loc, *why);
        k_.buffers.pop_back();
      }
      buffers_[n] = static_cast<int>(k_.buffers.size());
      k_.buffers.push_back(b);
    } else if (kw == "tmem") {
      // Tensor memory (sm_100a): `tmem NAME[N] cols C`, N elements of C
      // columns, allocated together by one tcgen05.alloc of N x C columns: a
      // power of 2 in 32..512 (PTX ISA tcgen05.alloc, spec/tmem.hpp).
      expect("cols");
      const ir::Loc cl = peek().loc;
      ir::BufferDecl b;
      b.name = n;
      b.size = size;
      b.loc = nt.loc;
      b.space = ir::Space::tensor;
      b.cols = const_expr("the columns of a tensor-memory element", 1, spec::tmem::columns);
      b.bytes = b.cols * spec::tmem::bytes_per_column;
      if (!spec::tmem::valid_alloc_columns(b.cols * size))
        fail(cl, "'" + n + "' takes " + std::to_string(b.cols * size) + " columns (" + std::to_string(size) + " x " +
                     std::to_string(b.cols) + "): tcgen05.alloc allocates a power of 2 in 32..512 columns");
      int tmem_decls = 0;
      for (const ir::BufferDecl& o : k_.buffers) tmem_decls += o.space == ir::Space::tensor;
      if (tmem_decls >= spec::tmem::max_allocations)
        fail(nt.loc, "at most " + std::to_string(spec::tmem::max_allocations) + " tensor-memory declarations per kernel");
      buffers_[n] = static_cast<int>(k_.buffers.size());
      k_.buffers.push_back(b);
    } else {
      ir::MbarrierDecl m;
      m.name = n;
      m.size = size;
      m.loc = nt.loc;
      if (accept("count")) m.count = const_expr("an mbarrier count", 1, spec::mbarrier::max_count);
      if (accept("aliases")) {
        m.alias = alias_clause(n);
        k_.mbarriers.push_back(m);
        if (const auto why = check::layout::mbar_alias_error(k_, static_cast<int>(k_.mbarriers.size()) - 1)) fail(m.alias.loc, *why);
        k_.mbarriers.pop_back();
      }
      mbars_[n] = static_cast<int>(k_.mbarriers.size());
      k_.mbarriers.push_back(m);
    }
    end_of_statement();
  } else if (kw == "role") {
    role();
  } else {
    fail(tk.loc, "expected a declaration (kernel, param, target, cluster, grids, cta, clc, smem, gmem, tensormap, tmem, mbarrier, role), found '" + kw + "'" +
                     suggest(kw, {"kernel", "param", "target", "cluster", "grids", "cta", "clc", "smem", "gmem", "tensormap", "tmem", "mbarrier", "role"}));
  }
}

void Parser::finish() {
  if (k_.target == ir::Target::amd && k_.cluster_ctas > 1)
    target_error(cluster_loc_, "AMD has no thread-block clusters: 'cluster' needs 'target nvidia'; an AMD workgroup is one CTA");
  if (k_.target == ir::Target::amd && k_.grids > 1)
    target_error(k_.grids_loc, "'grids 2' is programmatic dependent launch (griddepcontrol, sm_90): it needs 'target nvidia'");
  if (k_.grids > 1 && k_.cluster_ctas > 1)
    errors_.push_back({file_, k_.grids_loc, "'grids 2' with a cluster of " + std::to_string(k_.cluster_ctas) +
                                                " CTAs is not modelled: the two grids are one CTA each (write the pair with 'cluster 1')"});
  for (const ir::Role& r : k_.roles) check_target(r.body);
  if (errors_.empty()) check_tmem_allocated();  // a whole-kernel check, once the statements are sound
  if (!seen_kernel_) errors_.push_back({file_, {1, 1}, "the file declares no kernel: start it with 'kernel NAME'"});
  else if (k_.roles.empty() && errors_.empty()) errors_.push_back({file_, k_.loc, "kernel '" + k_.name + "' has no role"});
  check_cta_threads();
  for (const auto& [on, ov] : overrides_) {
    (void)ov;
    // A parameter whose declaration failed (its value out of range, say) has its error already.
    if (!params_.count(on) && !broken_.count(on)) {
      std::vector<std::string> known;
      for (const auto& [n, i] : params_) known.push_back(n);
      errors_.push_back({file_, {0, 0}, "--param " + on + ": the kernel has no such parameter" + suggest(on, known)});
    }
  }
  if (expects_.size() > 1) errors_.push_back({file_, expects_[1].first, "more than one '# expect:' line"});
  if (!expects_.empty()) {
    const std::string& e = expects_[0].second;
    if (e != "verified" && !spec::violation_from_name(e)) {
      std::vector<std::string> outcomes{"verified"};
#define PC_X(v, name, severity, doc) outcomes.emplace_back(name);
      PC_VIOLATIONS(PC_X)
#undef PC_X
      errors_.push_back({file_, expects_[0].first,
                         "'# expect: " + e + "': expected 'verified' or a violation name (docs/spec.md)" + suggest(e, outcomes)});
    }
    k_.expect = e;
  }
}

}  // namespace pc::dsl::detail
