#include "checker/ptx/emit_bk.hpp"

#include <cctype>
#include <map>
#include <sstream>
#include <stdexcept>

#include "checker/ir_rules.hpp"
#include "spec/agent.hpp"

namespace pc::ptx {
namespace {

using ir::OpCode;

// "smem_raw[128,1152)" -> "smem_raw_128_1152": an identifier, unique in the file.
class Names {
 public:
  std::string operator()(const std::string& raw) {
    std::string s;
    for (char c : raw) {
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') s += c;
      else if (!s.empty() && s.back() != '_') s += '_';
    }
    while (!s.empty() && s.back() == '_') s.pop_back();
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s = "m_" + s;
    std::string u = s;
    for (int i = 2; used_.count(u); ++i) u = s + "_" + std::to_string(i);
    used_[u] = true;
    return u;
  }

 private:
  std::map<std::string, bool> used_;
};

const char* sem_word(ir::Sem s) {
  switch (s) {
    case ir::Sem::release: return " release";
    case ir::Sem::relaxed: return " relaxed";
    case ir::Sem::acquire: return " acquire";
    case ir::Sem::standard: return "";
  }
  return "";
}
const char* scope_word(ir::Scope s) { return s == ir::Scope::cta ? " cta" : s == ir::Scope::cluster ? " cluster" : ""; }

class Printer {
 public:
  explicit Printer(const ir::Kernel& k) : k_(k) {
    for (const ir::BufferDecl& b : k.buffers) buf_.push_back(names_(b.name));
    for (const ir::MbarrierDecl& m : k.mbarriers) bar_.push_back(names_(m.name));
  }

  std::string run(const std::string& source) {
    std::ostringstream o;
    o << "# The synchronization of " << source << " (kernel " << k_.name << "), as check-kernel's PTX front end reads\n"
      << "# it for one launch: each warp a role, memory as the byte ranges the warps touch (docs/ptx.md).\n"
      << "kernel " << names_(k_.name) << "\n\n";
    if (k_.cluster_ctas > 1) o << "cluster " << k_.cluster_ctas << "\n";
    o << "cta threads = " << k_.cta_threads << "\n";
    if (k_.clc_queue > 0) o << "clc " << k_.clc_queue << "\n";
    for (std::size_t i = 0; i < k_.buffers.size(); ++i) {
      const ir::BufferDecl& b = k_.buffers[i];
      if (b.space == ir::Space::tensor) {
        o << "tmem " << buf_[i] << "[" << b.size << "] cols " << b.cols << "    # " << b.name << "\n";
        continue;
      }
      o << (b.space == ir::Space::global ? "gmem " : "smem ") << buf_[i] << " bytes " << b.bytes;
      if (b.alias.of >= 0) o << " aliases " << buf_[static_cast<std::size_t>(b.alias.of)] << " offset " << b.alias.offset;
      o << "    # " << b.name << "\n";
    }
    for (std::size_t i = 0; i < k_.mbarriers.size(); ++i) o << "mbarrier " << bar_[i] << "    # at " << k_.mbarriers[i].name << "\n";
    for (const ir::Role& r : k_.roles) {
      o << "\nrole " << names_(r.name + (k_.cluster_ctas > 1 && r.cta >= 0 ? "_cta" + std::to_string(r.cta) : ""))
        << (r.granularity == ir::Granularity::warpgroup ? " warpgroup" : " warp");
      if (r.cta >= 0 && k_.cluster_ctas > 1) o << " on cta " << r.cta;
      if (r.first_warp >= 0) o << " at warp " << r.first_warp;
      o << ":\n";
      if (r.body.empty()) o << "  exit    # no synchronization or shared-memory access\n";
      for (const ir::Stmt& s : r.body) stmt(o, r, s, "  ");
    }
    return o.str();
  }

 private:
  std::int64_t value(ir::ExprId e) const {
    const ir::Expr& x = k_.exprs.at(static_cast<std::size_t>(e));
    if (x.kind != ir::ExprKind::constant) throw std::logic_error("emit_bk: a computed operand");
    return x.value;
  }
  std::string ref(const ir::Ref& r, bool mbar) const {
    std::string s = mbar ? bar_.at(static_cast<std::size_t>(r.object)) : buf_.at(static_cast<std::size_t>(r.object));
    if (r.index != ir::no_expr) s += "[" + std::to_string(value(r.index)) + "]";
    if (r.cta != ir::no_expr) s += " @ " + std::to_string(value(r.cta));
    return s;
  }
  static std::string pair(const ir::Op& op) { return op.cta_pair ? " cta_group 2" : ""; }
  std::string bufs(const ir::Op& op) const {
    std::string s;
    for (const ir::Ref& r : op.bufs) s += (s.empty() ? "" : ", ") + ref(r, false);
    return s;
  }
  // An operation, a split role's `if warp == k:` chain (lower.cpp), or a choice.
  void stmt(std::ostringstream& o, const ir::Role& r, const ir::Stmt& s, const std::string& indent) const {
    if (s.kind == ir::StmtKind::op) {
      o << indent << op(r, s.op) << "    # line " << s.op.loc.line << "\n";
      return;
    }
    if (s.kind == ir::StmtKind::either) {
      o << indent << "either:    # line " << s.loc.line << "\n";
      for (const ir::Stmt& x : s.body) stmt(o, r, x, indent + "  ");
      if (s.body.empty()) o << indent << "  pass\n";
      o << indent << "or:\n";
      for (const ir::Stmt& x : s.else_body) stmt(o, r, x, indent + "  ");
      if (s.else_body.empty()) o << indent << "  pass\n";
      return;
    }
    if (s.kind != ir::StmtKind::if_else) throw std::logic_error("emit_bk: a statement the PTX front end does not make");
    // `if warp == k` (a split role), or `if clcN == 1` (a cluster launch control answer: clc.cpp).
    const ir::Expr& c = k_.exprs.at(static_cast<std::size_t>(s.expr));
    const ir::Expr& lhs = k_.exprs.at(static_cast<std::size_t>(c.a));
    const std::string name = lhs.var == ir::var_warp ? "warp" : r.vars.at(static_cast<std::size_t>(lhs.var));
    o << indent << "if " << name << " == " << value(c.b) << ":" << (lhs.var == ir::var_warp ? "" : "    # line " + std::to_string(s.loc.line)) << "\n";
    for (const ir::Stmt& x : s.body) stmt(o, r, x, indent + "  ");
    if (s.else_body.empty()) return;
    o << indent << "else:\n";
    for (const ir::Stmt& x : s.else_body) stmt(o, r, x, indent + "  ");
  }

  std::string op(const ir::Role& role, const ir::Op& op) const {
    std::string prefix;
    const ir::LanePolicy p = ir::op_lanes(op.code);
    if (p != ir::LanePolicy::aligned && p != ir::LanePolicy::leader) prefix = op.lanes == ir::Lanes::each ? "all: " : ir::lanes_word(op) + " ";
    if (p == ir::LanePolicy::leader && op.lanes == ir::Lanes::mask) prefix = ir::lanes_word(op) + " ";
    const std::string kw(ir::op_keyword(op.code));
    const std::string bar = op.bar.object >= 0 ? ref(op.bar, true) : "";
    std::string sem = sem_word(op.sem), scope = scope_word(op.scope);
    auto var = [&](int v) { return role.vars.at(static_cast<std::size_t>(v)); };
    switch (op.code) {
      case OpCode::read:
      case OpCode::write:
      case OpCode::consume:
      case OpCode::atomic:
      case OpCode::atomic_load:
      case OpCode::cp_async: return prefix + kw + " " + bufs(op);
      case OpCode::mbar_init: return prefix + kw + " " + bar + " count " + std::to_string(value(op.count));
      case OpCode::mbar_inval: return prefix + kw + " " + bar;
      case OpCode::mbar_arrive:
      case OpCode::mbar_arrive_drop:
      case OpCode::mbar_arrive_expect_tx: {
        std::string s = (op.dest_var >= 0 ? var(op.dest_var) + " = " : "") + prefix + kw + " " + bar;
        if (op.count != ir::no_expr) s += " count " + std::to_string(value(op.count));
        if (op.bytes != ir::no_expr) s += " bytes " + std::to_string(value(op.bytes));
        if (op.no_complete) s += " nocomplete";
        return s + sem + scope;
      }
      case OpCode::mbar_expect_tx:
      case OpCode::mbar_complete_tx: return prefix + kw + " " + bar + " bytes " + std::to_string(value(op.bytes)) + sem + scope;
      case OpCode::mbar_wait:
        return prefix + kw + " " + bar + (op.token_var >= 0 ? " token " + var(op.token_var) : " parity " + std::to_string(value(op.parity))) +
               sem + scope;
      case OpCode::fence_mbarrier_init: return prefix + kw;
      case OpCode::fence_proxy_async:
        return prefix + kw + (op.space == ir::ProxySpace::global ? " global" : op.space == ir::ProxySpace::shared_cta ? " shared_cta"
                              : op.space == ir::ProxySpace::shared_cluster ? " shared_cluster" : "");
      case OpCode::fence_acq_rel:
      case OpCode::fence_sc: return prefix + kw + scope;
      case OpCode::bar_sync:
      case OpCode::bar_arrive:
        return kw + " " + std::to_string(value(op.id)) + (op.count != ir::no_expr ? ", " + std::to_string(value(op.count)) : "");
      case OpCode::syncwarp:
      case OpCode::cluster_wait:
      case OpCode::bulk_commit_group:
      case OpCode::cp_async_commit:
      case OpCode::cp_async_wait_all:
      case OpCode::griddep_launch:
      case OpCode::griddep_wait: return prefix + kw;
      case OpCode::cluster_arrive: return kw + sem;
      case OpCode::bulk_wait_group:
      case OpCode::bulk_wait_group_read:
      case OpCode::cp_async_wait: return prefix + kw + " " + std::to_string(value(op.n));
      case OpCode::tma_load: {
        std::string s = prefix + kw + " " + bufs(op) + " -> " + bar + " bytes " + std::to_string(value(op.bytes));
        if (op.multicast != ir::no_expr) s += " multicast " + std::to_string(value(op.multicast));
        if (op.global.object >= 0) s += " from " + ref(op.global, false);
        return s;
      }
      case OpCode::tma_store: return prefix + kw + " " + bufs(op) + (op.global.object >= 0 ? " to " + ref(op.global, false) : "");
      case OpCode::tma_reduce: return prefix + kw + " " + bufs(op);
      case OpCode::cp_async_mbarrier_arrive: return prefix + kw + " " + bar + (op.noinc ? " noinc" : "");
      case OpCode::st_async:
      case OpCode::red_async:  // the barrier is in the buffer's CTA (`BUF @ CTA -> BAR`)
        return prefix + kw + " " + bufs(op) + " -> " + bar_.at(static_cast<std::size_t>(op.bar.object)) + " bytes " +
               std::to_string(value(op.bytes));
      case OpCode::wgmma_fence:
      case OpCode::wgmma_commit:
      case OpCode::tcgen05_regs: return kw;
      case OpCode::wgmma_wait: return kw + " " + std::to_string(value(op.n));
      case OpCode::wgmma_regs:
        return kw + " " + std::string(op.regs & spec::agent::regs_acc ? "acc" : "") +
               (op.regs == (spec::agent::regs_acc | spec::agent::regs_a) ? ", " : "") + (op.regs & spec::agent::regs_a ? "a" : "");
      case OpCode::wgmma: return kw + " read " + bufs(op) + (op.regs & spec::agent::regs_a ? " regs a" : "");
      case OpCode::tcgen05_alloc:
      case OpCode::tcgen05_dealloc: return prefix + kw + " " + ref(op.tmem, false) + pair(op);
      case OpCode::tcgen05_relinquish: return prefix + kw + pair(op);
      case OpCode::tcgen05_wait_ld:
      case OpCode::tcgen05_wait_st:
      case OpCode::tcgen05_fence_before:
      case OpCode::tcgen05_fence_after: return prefix + kw;
      case OpCode::tcgen05_mma: return prefix + kw + " read " + bufs(op) + " into " + ref(op.tmem, false) + pair(op);
      case OpCode::tcgen05_cp: return prefix + kw + " " + bufs(op) + " -> " + ref(op.tmem, false);
      case OpCode::tcgen05_shift: return prefix + kw + " " + ref(op.tmem, false) + pair(op);
      case OpCode::tcgen05_commit:
        return prefix + kw + " " + bar + (op.multicast != ir::no_expr ? " multicast " + std::to_string(value(op.multicast)) : "") +
               pair(op);
      case OpCode::tcgen05_ld:
      case OpCode::tcgen05_st:
        return prefix + kw + " " + bufs(op) + (op.quarter != ir::no_expr ? " lanes " + std::to_string(value(op.quarter)) : "");
      case OpCode::clc_try_cancel:
        return prefix + kw + " " + bufs(op) + " -> " + bar + (op.multicast != ir::no_expr ? " multicast " + std::to_string(value(op.multicast)) : "");
      case OpCode::clc_query: return var(op.dest_var) + " = " + prefix + kw + " " + bufs(op);
      default: throw std::logic_error("emit_bk: an op the PTX front end does not make: " + kw);
    }
  }

  const ir::Kernel& k_;
  Names names_;
  std::vector<std::string> buf_, bar_;
};

}  // namespace

std::string emit_bk(const ir::Kernel& k, const std::string& source) { return Printer(k).run(source); }

}  // namespace pc::ptx
