#include "checker/program.hpp"

#include <limits>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>
#include <array>

#include "checker/ir_rules.hpp"
#include "checker/layout.hpp"
#include "spec/cluster.hpp"
#include "spec/hb.hpp"
#include "spec/mbarrier.hpp"
#include "spec/named_barrier.hpp"
#include "spec/tmem.hpp"

namespace pc::check {
namespace {

using ir::ExprId;
using ir::OpCode;

bool is_constant(const std::vector<ir::Expr>& ex, ExprId e) {
  if (e == ir::no_expr) return true;
  const ir::Expr& x = ex[static_cast<std::size_t>(e)];
  switch (x.kind) {
    case ir::ExprKind::constant: return true;
    case ir::ExprKind::var: return false;
    case ir::ExprKind::unary: return is_constant(ex, x.a);
    case ir::ExprKind::binary: return is_constant(ex, x.a) && is_constant(ex, x.b);
  }
  return false;
}

struct Flattener {
  Program& p;
  std::vector<Instr>& out;

  ExprId add(ir::Expr e) {
    p.exprs.push_back(e);
    return static_cast<ExprId>(p.exprs.size()) - 1;
  }

  void block(const std::vector<ir::Stmt>& body) {
    for (const ir::Stmt& s : body) stmt(s);
  }

  void stmt(const ir::Stmt& s) {
    switch (s.kind) {
      case ir::StmtKind::op: out.push_back(Instr{InstrKind::op, &s.op, -1, ir::no_expr, -1, s.loc}); break;
      case ir::StmtKind::assign: out.push_back(Instr{InstrKind::assign, nullptr, s.var, s.expr, -1, s.loc}); break;
      case ir::StmtKind::assert_true:
        out.push_back(Instr{InstrKind::assert_true, nullptr, -1, s.expr, -1, s.loc});
        break;
      case ir::StmtKind::if_else: {
        const std::size_t br = out.size();
        out.push_back(Instr{InstrKind::branch_false, nullptr, -1, s.expr, -1, s.loc});
        block(s.body);
        if (s.else_body.empty()) {
          out[br].target = static_cast<int>(out.size());
        } else {
          const std::size_t jmp = out.size();
          out.push_back(Instr{InstrKind::jump, nullptr, -1, ir::no_expr, -1, s.loc});
          out[br].target = static_cast<int>(out.size());
          block(s.else_body);
          out[jmp].target = static_cast<int>(out.size());
        }
        break;
      }
      case ir::StmtKind::either: {
        // choose L; first; goto end; L: second; end:
        const std::size_t ch = out.size();
        out.push_back(Instr{InstrKind::choose, nullptr, -1, ir::no_expr, -1, s.loc});
        block(s.body);
        const std::size_t jmp = out.size();
        out.push_back(Instr{InstrKind::jump, nullptr, -1, ir::no_expr, -1, s.loc});
        out[ch].target = static_cast<int>(out.size());
        block(s.else_body);
        out[jmp].target = static_cast<int>(out.size());
        break;
      }
      case ir::StmtKind::for_loop: {
        // v = lo; top: if !(v < hi) goto end; body; v = v + 1; goto top; end:
        out.push_back(Instr{InstrKind::assign, nullptr, s.var, s.lo, -1, s.loc});
        const ExprId v = add({ir::ExprKind::var, ir::UnOp::neg, ir::BinOp::add, 0, -1, s.var, ir::no_expr, ir::no_expr, s.loc});
        const ExprId cond = add({ir::ExprKind::binary, ir::UnOp::neg, ir::BinOp::lt, 0, -1, -1, v, s.hi, s.loc});
        const ExprId one = add({ir::ExprKind::constant, ir::UnOp::neg, ir::BinOp::add, 1, -1, -1, ir::no_expr, ir::no_expr, s.loc});
        const ExprId inc = add({ir::ExprKind::binary, ir::UnOp::neg, ir::BinOp::add, 0, -1, -1, v, one, s.loc});
        const int top = static_cast<int>(out.size());
        out.push_back(Instr{InstrKind::branch_false, nullptr, -1, cond, -1, s.loc});
        block(s.body);
        out.push_back(Instr{InstrKind::assign, nullptr, s.var, inc, -1, s.loc});
        out.push_back(Instr{InstrKind::jump, nullptr, -1, ir::no_expr, top, s.loc});
        out[static_cast<std::size_t>(top)].target = static_cast<int>(out.size());
        break;
      }
    }
  }
};

// The async unit an operation makes its accesses by (Exec::unit_access,
// Exec::tensormap_read), if any: what a compact layout gives an agent.
std::optional<spec::hb::Unit> access_unit(OpCode c) {
  using spec::hb::Unit;
  switch (c) {
    case OpCode::tma_load:
    case OpCode::st_async:
    case OpCode::red_async:
    case OpCode::clc_try_cancel: return Unit::tma;
    case OpCode::tma_store:
    case OpCode::tma_reduce: return Unit::bulk;
    case OpCode::cp_async:
    case OpCode::global_load_lds: return Unit::cp_async;
    case OpCode::wgmma:
    case OpCode::tcgen05_mma:
    case OpCode::tcgen05_cp:
    case OpCode::tcgen05_shift: return Unit::mma;
    case OpCode::tcgen05_ld:
    case OpCode::tcgen05_st: return Unit::tmem;
    default: return std::nullopt;
  }
}

void scan_ops(const std::vector<ir::Stmt>& body, const std::function<void(const ir::Op&)>& f) {
  for (const ir::Stmt& s : body) {
    if (s.kind == ir::StmtKind::op) f(s.op);
    scan_ops(s.body, f);
    scan_ops(s.else_body, f);
  }
}

bool reads_var(const std::vector<ir::Expr>& ex, ExprId e, const std::vector<bool>& vars) {
  if (e == ir::no_expr) return false;
  const ir::Expr& x = ex[static_cast<std::size_t>(e)];
  if (x.kind == ir::ExprKind::var) return x.var >= 0 && static_cast<std::size_t>(x.var) < vars.size() && vars[static_cast<std::size_t>(x.var)];
  return reads_var(ex, x.a, vars) || reads_var(ex, x.b, vars);
}

// Whether an expression of `body` reads one of `vars` (a wait's or
// pending_count's token operand is no expression).
bool body_reads(const std::vector<ir::Expr>& ex, const std::vector<ir::Stmt>& body, const std::vector<bool>& vars) {
  for (const ir::Stmt& s : body) {
    for (const ExprId e : {s.expr, s.lo, s.hi})
      if (reads_var(ex, e, vars)) return true;
    if (s.kind == ir::StmtKind::op) {
      const ir::Op& op = s.op;
      for (const ExprId e : {op.count, op.bytes, op.parity, op.id, op.n, op.multicast, op.value, op.mask, op.quarter})
        if (reads_var(ex, e, vars)) return true;
      std::vector<const ir::Ref*> refs{&op.bar, &op.tmem, &op.global, &op.tmap};
      for (const ir::Ref& r : op.bufs) refs.push_back(&r);
      for (const ir::Ref* r : refs)
        if (reads_var(ex, r->index, vars) || reads_var(ex, r->cta, vars)) return true;
    }
    if (body_reads(ex, s.body, vars) || body_reads(ex, s.else_body, vars)) return true;
  }
  return false;
}

// Whether the pending count a state token holds may be read: by
// mbarrier.pending_count, or by an expression that reads a variable an
// arrive assigns its token to (Program::token_pending).
bool token_pending_read(const ir::Kernel& k) {
  if (k.tokens_whole) return true;
  for (const ir::Role& role : k.roles) {
    std::vector<bool> tokens(role.vars.size(), false);
    bool pending_count = false;
    scan_ops(role.body, [&](const ir::Op& op) {
      pending_count |= op.code == OpCode::mbar_pending_count;
      if (op.dest_var >= 0 && ir::op_has(op.code, ir::opf::thread_arrive) && static_cast<std::size_t>(op.dest_var) < tokens.size())
        tokens[static_cast<std::size_t>(op.dest_var)] = true;
    });
    if (pending_count || body_reads(k.exprs, role.body, tokens)) return true;
  }
  return false;
}

}  // namespace

namespace {

// Arithmetic is checked (checker/expr.hpp): an error is thrown at the
// operator, out of line, so that eval itself stays small.
[[noreturn, gnu::cold, gnu::noinline]] void expr_error(ir::ExprError e, ir::Loc loc, std::int64_t shift) {
  switch (e) {
    case ir::ExprError::overflow: throw KernelError("integer overflow: the value leaves -2^62..2^62", loc);
    case ir::ExprError::division_by_zero: throw KernelError("division by zero", loc);
    case ir::ExprError::bad_shift: throw KernelError("a shift by " + std::to_string(shift) + ": the amount is 0..62", loc);
    case ir::ExprError::none: break;
  }
  throw InternalError("expr_error without an error");
}

// An operand: a variable or a constant read at once (most are), any other
// expression evaluated.
inline std::int64_t operand(const Program& p, ExprId e, const std::int64_t* vars) {
  const ir::Expr& x = p.exprs.at(static_cast<std::size_t>(e));
  if (x.kind == ir::ExprKind::var) return vars[x.var];
  if (x.kind == ir::ExprKind::constant) return x.value;
  return eval_tree(p, e, vars);
}

}  // namespace

std::int64_t eval_tree(const Program& p, ExprId e, const std::int64_t* vars) {
  const ir::Expr& x = p.exprs.at(static_cast<std::size_t>(e));
  ir::ExprValue r;
  switch (x.kind) {
    case ir::ExprKind::constant: return x.value;
    case ir::ExprKind::var: return vars[x.var];
    case ir::ExprKind::unary: r = ir::apply(x.un, operand(p, x.a, vars)); break;
    case ir::ExprKind::binary: {
      const std::int64_t a = operand(p, x.a, vars);
      if (const auto s = ir::short_circuit(x.bin, a)) return *s;
      r = ir::apply(x.bin, a, operand(p, x.b, vars));
      break;
    }
  }
  if (r.error != ir::ExprError::none) [[unlikely]]
    expr_error(r.error, x.loc, x.kind == ir::ExprKind::binary ? operand(p, x.b, vars) : 0);
  return r.value;
}

void compile_exprs(Program& p) {
  using K = FastExpr::Kind;
  p.fast.assign(p.exprs.size(), FastExpr{});
  const auto in = [&](ExprId id) { return id >= 0 && static_cast<std::size_t>(id) < p.exprs.size(); };
  for (std::size_t i = 0; i < p.exprs.size(); ++i) {
    const ir::Expr& x = p.exprs[i];
    FastExpr& f = p.fast[i];
    if (x.kind == ir::ExprKind::constant) f = {K::constant, -1, x.value};
    if (x.kind == ir::ExprKind::var) f = {K::var, x.var, 0};
    if (x.kind != ir::ExprKind::binary || !in(x.a) || !in(x.b)) continue;
    const ir::Expr& a = p.exprs[static_cast<std::size_t>(x.a)];
    const ir::Expr& b = p.exprs[static_cast<std::size_t>(x.b)];
    if (a.kind != ir::ExprKind::var || b.kind != ir::ExprKind::constant) continue;
    K kind = K::tree;
    switch (x.bin) {
      case ir::BinOp::add: kind = K::add; break;
      case ir::BinOp::sub: kind = K::sub; break;
      case ir::BinOp::div: kind = b.value >= 1 && b.value <= value_limit ? K::div : K::tree; break;
      case ir::BinOp::mod: kind = b.value >= 1 && b.value <= value_limit ? K::mod : K::tree; break;
      case ir::BinOp::lt: kind = K::lt; break;
      case ir::BinOp::le: kind = K::le; break;
      case ir::BinOp::gt: kind = K::gt; break;
      case ir::BinOp::ge: kind = K::ge; break;
      case ir::BinOp::eq: kind = K::eq; break;
      case ir::BinOp::ne: kind = K::ne; break;
      default: break;
    }
    if (kind != K::tree) f = {kind, a.var, b.value};
  }
}

std::string Program::buffer_name(int inst) const {
  const int cta = inst / buffers_per_cta, local = inst % buffers_per_cta;
  for (std::size_t d = kernel->buffers.size(); d-- > 0;) {
    if (local >= buffer_base[d]) {
      std::string s = kernel->buffers[d].name + "[" + std::to_string(local - buffer_base[d]) + "]";
      return kernel->buffers[d].space != ir::Space::global ? s + cta_suffix(cta) : s;
    }
  }
  return "?";
}

int Program::mbar_decl(int inst) const {
  const int local = inst % mbars_per_cta;
  for (std::size_t d = kernel->mbarriers.size(); d-- > 0;)
    if (local >= mbar_base[d]) return static_cast<int>(d);
  return 0;
}

int Program::buffer_decl(int inst) const {
  const int local = inst % buffers_per_cta;
  for (std::size_t d = kernel->buffers.size(); d-- > 0;)
    if (local >= buffer_base[d]) return static_cast<int>(d);
  return 0;
}

bool is_constant(const Program& p, ExprId e) { return is_constant(p.exprs, e); }

std::string Program::mbar_name(int inst) const {
  const int d = mbar_decl(inst);
  const int local = inst % mbars_per_cta;
  std::string s = kernel->mbarriers[static_cast<std::size_t>(d)].name + "[" +
                  std::to_string(local - mbar_base[static_cast<std::size_t>(d)]) + "]";
  return s + cta_suffix(mbar_cta(inst));
}

namespace {

// Program::aliases: per CTA, every pair of buffer elements and mbarrier
// objects whose byte ranges overlap (only declarations with `aliases` make any).
void alias_table(Program& p) {
  const ir::Kernel& k = *p.kernel;
  bool any = false;
  for (std::size_t d = 0; d < k.buffers.size(); ++d) {
    if (k.buffers[d].alias.of < 0) continue;
    any = true;
    if (const auto why = layout::alias_error(k, static_cast<int>(d))) throw KernelError(*why, k.buffers[d].loc);
  }
  for (std::size_t d = 0; d < k.mbarriers.size(); ++d) {
    if (k.mbarriers[d].alias.of < 0) continue;
    any = true;
    if (const auto why = layout::mbar_alias_error(k, static_cast<int>(d))) throw KernelError(*why, k.mbarriers[d].loc);
  }
  if (!any) return;
  struct Local {
    int index;  // in one CTA: a buffer element, or buffers_per_cta + an mbarrier object
    layout::Range range;
  };
  std::vector<Local> locals;
  for (std::size_t d = 0; d < k.buffers.size(); ++d)
    if (k.buffers[d].space == ir::Space::shared)
      for (int e = 0; e < k.buffers[d].size; ++e)
        locals.push_back({p.buffer_base[d] + e, layout::buffer_range(k, static_cast<int>(d), e)});
  for (std::size_t d = 0; d < k.mbarriers.size(); ++d)
    for (int e = 0; e < k.mbarriers[d].size; ++e)
      locals.push_back({p.buffers_per_cta + p.mbar_base[d] + e, layout::mbar_range(k, static_cast<int>(d), e)});
  if (p.mem_buffers() > 0xffff) throw KernelError("the model holds at most 65535 buffer elements and mbarriers", k.loc);
  p.aliases.assign(static_cast<std::size_t>(p.mem_buffers()), {});
  p.covers.assign(static_cast<std::size_t>(p.mem_buffers()), {});
  auto global = [&](int cta, int local) {
    return local < p.buffers_per_cta ? cta * p.buffers_per_cta + local
                                     : p.num_buffers() + cta * p.mbars_per_cta + (local - p.buffers_per_cta);
  };
  for (std::size_t i = 0; i < locals.size(); ++i)
    for (std::size_t j = i + 1; j < locals.size(); ++j) {
      if (!locals[i].range.overlaps(locals[j].range)) continue;
      for (int cta = 0; cta < p.ctas; ++cta) {
        const int a = global(cta, locals[i].index), b = global(cta, locals[j].index);
        p.aliases[static_cast<std::size_t>(a)].push_back(static_cast<std::uint16_t>(b));
        p.aliases[static_cast<std::size_t>(b)].push_back(static_cast<std::uint16_t>(a));
        // Data buffers only: an mbarrier's memory keeps its init's event (its own rules).
        const bool a_data = locals[i].index < p.buffers_per_cta, b_data = locals[j].index < p.buffers_per_cta;
        if (a_data && b_data && locals[i].range.contains(locals[j].range)) p.covers[static_cast<std::size_t>(a)].push_back(static_cast<std::uint16_t>(b));
        if (a_data && b_data && locals[j].range.contains(locals[i].range)) p.covers[static_cast<std::size_t>(b)].push_back(static_cast<std::uint16_t>(a));
      }
    }
  for (auto& v : p.aliases) std::sort(v.begin(), v.end());
  for (auto& v : p.covers) std::sort(v.begin(), v.end());
}

}  // namespace

std::string Program::mem_name(int mem_buf) const {
  if (mem_buf >= num_buffers() + num_mbars() + ctas) return "the end of CTA " + std::to_string(mem_buf - num_buffers() - num_mbars() - ctas);
  if (mem_buf >= num_buffers() + num_mbars()) return "the start of CTA " + std::to_string(mem_buf - num_buffers() - num_mbars());
  const bool mbar = mem_buf >= num_buffers();
  const std::string name = mbar ? mbar_name(mem_buf - num_buffers()) : buffer_name(mem_buf);
  if (aliases_of(mem_buf).empty()) return name;
  const layout::Range r =
      mbar ? layout::mbar_range(*kernel, mbar_decl(mem_buf - num_buffers()),
                                (mem_buf - num_buffers()) % mbars_per_cta - mbar_base[static_cast<std::size_t>(mbar_decl(mem_buf - num_buffers()))])
           : layout::buffer_range(*kernel, buffer_decl(mem_buf),
                                  mem_buf % buffers_per_cta - buffer_base[static_cast<std::size_t>(buffer_decl(mem_buf))]);
  return name + " (" + layout::describe(*kernel, r) + ")";
}

namespace {

// The declarations' instances per CTA, and their memory laid out.
void instantiate_declarations(Program& p, const ir::Kernel& k) {
  if (k.cluster_ctas < 1 || k.cluster_ctas > spec::cluster::max_ctas)
    throw KernelError("cluster size must be 1.." + std::to_string(spec::cluster::max_ctas), k.loc);
  if (k.grids < 1 || k.grids > 2) throw KernelError("grids must be 1 or 2", k.grids_loc);
  if (k.grids > 1 && k.cluster_ctas > 1)
    throw KernelError("'grids 2' with a cluster of more than one CTA is not modelled", k.grids_loc);
  p.cluster_ctas = k.cluster_ctas;
  p.grids = k.grids;
  p.ctas = k.cluster_ctas * k.grids;

  for (const ir::BufferDecl& b : k.buffers) {
    if (b.size < 1) throw KernelError("buffer array '" + b.name + "' must have at least one element", b.loc);
    p.buffer_base.push_back(p.buffers_per_cta);
    p.tmem_slot.push_back(b.space == ir::Space::tensor ? p.tmem_decls++ : -1);
    p.buffers_per_cta += b.size;
  }
  for (const ir::MbarrierDecl& m : k.mbarriers) {
    if (m.size < 1) throw KernelError("mbarrier array '" + m.name + "' must have at least one element", m.loc);
    p.mbar_base.push_back(p.mbars_per_cta);
    p.mbars_per_cta += m.size;
  }
  p.mbar_has_init.assign(k.mbarriers.size(), false);
  alias_table(p);
  p.tmem_buffer.clear();
  if (p.tmem_decls > 0 || p.ctas > 1) {
    p.tmem_buffer.assign(static_cast<std::size_t>(p.mem_buffers()), 0);
    for (int c = 0; c < p.ctas; ++c)
      for (std::size_t d = 0; d < k.buffers.size(); ++d)
        if (p.tmem_slot[d] >= 0)
          for (int e = 0; e < k.buffers[d].size; ++e)
            p.tmem_buffer[static_cast<std::size_t>(c * p.buffers_per_cta + p.buffer_base[d] + e)] = 1;
    if (p.ctas > 1)
      for (int c = 0; c < p.ctas; ++c) p.tmem_buffer[static_cast<std::size_t>(p.start_buffer(c))] = 1;
  }
  p.tensormap_buffer.clear();
  for (std::size_t d = 0; d < k.buffers.size(); ++d)
    if (k.buffers[d].tensormap) {
      p.tensormap_buffer.resize(static_cast<std::size_t>(p.mem_buffers()), 0);
      for (int e = 0; e < k.buffers[d].size; ++e) p.tensormap_buffer[static_cast<std::size_t>(p.buffer_at(0, static_cast<int>(d), e))] = 1;
    }
  p.global_buffer_flag.clear();
  for (std::size_t d = 0; d < k.buffers.size(); ++d)
    if (k.buffers[d].space == ir::Space::global) {
      p.global_buffer_flag.resize(static_cast<std::size_t>(p.mem_buffers()), 0);
      for (int e = 0; e < k.buffers[d].size; ++e) p.global_buffer_flag[static_cast<std::size_t>(p.buffer_at(0, static_cast<int>(d), e))] = 1;
    }
  p.outside_shared.clear();
  if (!p.tmem_buffer.empty() || !p.global_buffer_flag.empty()) {
    p.outside_shared.assign(static_cast<std::size_t>(p.mem_buffers()), 0);
    for (std::size_t i = 0; i < p.outside_shared.size(); ++i)
      p.outside_shared[i] = (i < p.tmem_buffer.size() && p.tmem_buffer[i]) || (i < p.global_buffer_flag.size() && p.global_buffer_flag[i]);
  }
}

// The lane classes of a role's warps (spec::hb::AgentThreads, "cells"): lane
// 0, then the other lanes split by every lane mask its operations name
// (`lanes M:`), so that each operation's lanes are a union of classes and
// the lanes of a class always execute together. Cell 0 is lane 0; the others
// are in the order of their lowest lane.
std::vector<std::uint64_t> lane_cells(const ir::Role& role, int warp_size, bool apart) {
  const std::uint64_t full = warp_size >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << warp_size) - 1;
  std::vector<std::uint64_t> cells{1, full & ~std::uint64_t{1}};
  if (apart) {  // ir::Kernel::lanes_apart: a class per lane
    if (warp_size > spec::hb::max_cells) throw KernelError("lanes_apart: a warp of more than " + std::to_string(spec::hb::max_cells) + " lanes", role.loc);
    cells.clear();
    for (int i = 0; i < warp_size; ++i) cells.push_back(std::uint64_t{1} << i);
    return cells;
  }
  scan_ops(role.body, [&](const ir::Op& op) {
    if (op.lanes != ir::Lanes::mask) return;
    std::vector<std::uint64_t> next;
    for (const std::uint64_t c : cells)
      for (const std::uint64_t part : {c & op.lane_mask, c & ~op.lane_mask})
        if (part != 0) next.push_back(part);
    cells = std::move(next);
    if (cells.size() > static_cast<std::size_t>(spec::hb::max_cells))
      throw KernelError("role '" + role.name + "' splits a warp into more than " + std::to_string(spec::hb::max_cells) +
                            " lane classes with its lane masks (the model keeps at most that many per warp)",
                        op.loc);
  });
  std::sort(cells.begin() + 1, cells.end(), [](std::uint64_t a, std::uint64_t b) { return (a & (~a + 1)) < (b & (~b + 1)); });
  return cells;
}

// The agents, CTA by CTA, role by role, instance by instance, and their
// threads of happens-before.
void instantiate_agents(Program& p, const ir::Kernel& k) {
  // Agents, CTA by CTA, role by role, instance by instance.
  p.cta_threads.assign(static_cast<std::size_t>(p.ctas), 0);
  for (int cta = 0; cta < p.ctas; ++cta) {
    for (std::size_t r = 0; r < k.roles.size(); ++r) {
      const ir::Role& role = k.roles[r];
      if (role.cta >= p.cluster_ctas) throw KernelError("role '" + role.name + "' is placed on a CTA outside the cluster", role.loc);
      if (role.vars.size() < static_cast<std::size_t>(ir::num_builtin_vars))
        throw InternalError("role '" + role.name + "' lacks its builtin variables (cta, instance, warp)");
      if (!role.placed_on(cta % p.cluster_ctas)) continue;
      // A role split per warp has one agent per warp of each instance.
      const int split = role.per_warp ? ir::role_warps(role) : 1;
      for (int i = 0; i < role.count; ++i)
        for (int w = 0; w < split; ++w) {
          AgentInfo a;
          a.role = static_cast<int>(r);
          a.cta = cta;
          a.instance = i;
          a.warp = w;
          a.parts = static_cast<int>(p.agents.size()) - w;
          a.warps = ir::role_warps(role) / split;
          a.threads = a.warps * ir::warp_size(k);
          // Its first warp's rank in the CTA: `at warp W`, or a warpgroup's
          // alignment (only its rank modulo 4 is read: spec::tmem::lane_quarter).
          if (role.first_warp >= 0) a.warp_rank = role.first_warp + i * ir::role_warps(role) + w * a.warps;
          else if (role.granularity == ir::Granularity::warpgroup && role.warps == 0) a.warp_rank = i * 4 + w * a.warps;
          a.name = role.name + (role.count > 1 ? "#" + std::to_string(i) : "") +
                   (role.per_warp ? ".warp" + std::to_string(w) : "") + p.cta_suffix(cta);
          p.cta_threads[static_cast<std::size_t>(cta)] += a.threads;
          p.agents.push_back(a);
        }
    }
  }
  int vars = 0;
  for (const AgentInfo& a : p.agents) {
    p.var_base.push_back(vars);
    vars += static_cast<int>(k.roles[static_cast<std::size_t>(a.role)].vars.size());
  }
  if (p.agents.empty()) throw KernelError("the kernel has no agents (no role)", k.loc);
  int threads = 0;
  std::vector<std::vector<std::uint64_t>> role_cells;
  for (const ir::Role& role : k.roles) role_cells.push_back(lane_cells(role, ir::warp_size(k), k.lanes_apart));
  // Every agent its five async units, unless that is more threads than the
  // model holds (or the kernel asks, units_compact): then only the units its
  // role's code makes accesses by, the others one spare thread
  // (spec::hb::AgentThreads::unit_at; Exec::unit_thread stops on an access by it).
  int whole = 0;
  for (const AgentInfo& a : p.agents)
    whole += static_cast<int>(role_cells[static_cast<std::size_t>(a.role)].size()) * a.warps + spec::hb::units;
  const bool compact = k.units_compact || whole > spec::hb::max_threads;
  std::vector<std::array<bool, spec::hb::units>> role_units(k.roles.size());
  for (std::size_t r = 0; r < k.roles.size(); ++r)
    scan_ops(k.roles[r].body, [&](const ir::Op& op) {
      if (const std::optional<spec::hb::Unit> u = access_unit(op.code)) role_units[r][static_cast<std::size_t>(*u)] = true;
    });
  for (AgentInfo& a : p.agents) {
    a.hb = spec::hb::AgentThreads{static_cast<std::uint8_t>(threads), static_cast<std::uint8_t>(a.warps)};
    const std::vector<std::uint64_t>& cells = role_cells[static_cast<std::size_t>(a.role)];
    a.hb.cells = static_cast<std::uint8_t>(cells.size());
    if (compact) {
      a.hb.unit_count = 0;
      for (int u = 0; u < spec::hb::units; ++u)
        a.hb.unit_at[u] = role_units[static_cast<std::size_t>(a.role)][static_cast<std::size_t>(u)] ? a.hb.unit_count++ : spec::hb::no_unit;
    }
    for (std::size_t c = 0; c < cells.size(); ++c) {
      a.cell_masks[c] = cells[c];
      a.hb.cell_lanes[c] = static_cast<std::uint8_t>(__builtin_popcountll(cells[c]));
    }
    a.all_lanes = a.hb.lanes();
    a.leader_lane = spec::hb::bit(a.hb.leader());
    a.leader_lanes = a.hb.leaders();
    threads += a.hb.count();
    if (threads > spec::hb::max_threads - (compact ? 1 : 0))
      throw KernelError("the model holds at most " + std::to_string(spec::hb::max_threads) +
                            " threads of happens-before (one per lane class of a warp, at least two per warp, and one per "
                            "async unit an agent accesses memory by: TMA loads, TMA stores, MMAs, cp.async, tensor-memory "
                            "loads and stores); this kernel needs more",
                        k.loc);
  }
  // The spare thread of the units left out: after every agent's, no access its own.
  if (compact) {
    for (AgentInfo& a : p.agents) a.hb.spare = static_cast<std::uint8_t>(threads);
    ++threads;
  }
  // The host's writes of the tensor maps before the launch: a thread of
  // happens-before of their own (Stepper::initial).
  if (std::any_of(k.buffers.begin(), k.buffers.end(), [](const ir::BufferDecl& b) { return b.tensormap; })) {
    if (threads + 1 > spec::hb::max_threads)
      throw KernelError("the model holds at most " + std::to_string(spec::hb::max_threads) +
                            " threads of happens-before, one of them the host's with tensor maps; this kernel needs more",
                        k.loc);
    p.host_thread = threads;
  }
  if (k.cta_threads > 0)
    for (int& t : p.cta_threads) t = k.cta_threads;
}

// Which named-barrier ids are used, which mbarrier declarations have an init,
// and which have their memory written (an init or an inval).
void scan_objects(Program& p, const ir::Kernel& k) {
  std::vector<bool> used(spec::named::num_ids, false), written(k.mbarriers.size(), false);
  bool any_dynamic = false;
  for (const ir::Role& role : k.roles) {
    scan_ops(role.body, [&](const ir::Op& op) {
      const bool known = op.bar.object >= 0 && op.bar.object < static_cast<int>(k.mbarriers.size());
      if (op.code == OpCode::mbar_init && known) p.mbar_has_init[static_cast<std::size_t>(op.bar.object)] = true;
      if ((op.code == OpCode::mbar_init || op.code == OpCode::mbar_inval) && known) written[static_cast<std::size_t>(op.bar.object)] = true;
      p.has_clc |= op.code == OpCode::clc_try_cancel;
      p.has_values |= op.value != ir::no_expr || (op.code == OpCode::read && op.dest_var >= 0);
      if (ir::op_has(op.code, ir::opf::thread_arrive)) {
        const std::int64_t lanes = k.target != ir::Target::nvidia || op.lanes == ir::Lanes::one || op.lanes == ir::Lanes::each ? 1
                                   : op.lanes == ir::Lanes::rest ? ir::warp_size(k) - 1
                                   : op.lanes == ir::Lanes::mask ? __builtin_popcountll(op.lane_mask)
                                                                 : ir::warp_size(k);
        const std::int64_t count = op.count == ir::no_expr ? 1 : is_constant(p.exprs, op.count) ? eval(p, op.count, nullptr) : -1;
        p.max_unit_arrival = count < 0 ? std::numeric_limits<std::int64_t>::max() : std::max(p.max_unit_arrival, count * lanes);
      }
      // The tcgen05 operations that read or write data (mma, cp, ld, st).
      p.has_tcgen05_mma |= ir::op_family(op.code) == ir::OpFamily::tcgen05 && ir::op_access(op.code) != ir::Access::none;
      if (!ir::op_uses_named_barrier(op.code)) return;
      const bool may_be_whole = ir::named_may_be_whole(
          op, op.count != ir::no_expr && is_constant(p.exprs, op.count) && eval(p, op.count, nullptr) != 0);
      if (op.id == ir::no_expr) {
        used[0] = true;
        p.id0_whole_cta |= op.code == OpCode::syncthreads;
      } else if (is_constant(p.exprs, op.id)) {
        const std::int64_t id = eval(p, op.id, nullptr);
        if (id >= 0 && id < spec::named::num_ids) used[static_cast<std::size_t>(id)] = true;
        p.id0_whole_cta |= id == 0 && may_be_whole;
      } else {
        p.id0_whole_cta |= may_be_whole;
        any_dynamic = true;
      }
    });
  }
  p.mbar_memory_written.assign(static_cast<std::size_t>(p.num_mbars()), 0);
  for (int m = 0; m < p.num_mbars(); ++m) p.mbar_memory_written[static_cast<std::size_t>(m)] = written[static_cast<std::size_t>(p.mbar_decl(m))];
  p.named_slot.assign(spec::named::num_ids, -1);
  for (int id = 0; id < spec::named::num_ids; ++id)
    if (any_dynamic || used[static_cast<std::size_t>(id)]) p.named_slot[static_cast<std::size_t>(id)] = p.named_used++;
  p.sync_count = p.num_mbars() + p.ctas * p.named_used + 1;
}

// The sync objects of happens-before: each mbarrier's channels, each agent's
// fences, and the arrival pools.
void allocate_syncs(Program& p, const ir::Kernel& k) {
  // mbarriers that may be arrived on from another CTA (an arrive whose CTA is
  // given; a TMA load's complete-tx into another CTA, by `@` or multicast)
  // get the channels of other scopes (program.hpp).
  std::vector<bool> remote(k.mbarriers.size(), false);
  for (const ir::Role& role : k.roles)
    scan_ops(role.body, [&](const ir::Op& op) {
      const bool arrives = ir::op_has(op.code, ir::opf::thread_arrive | ir::opf::async_arrive);
      const bool other = op.bar.cta != ir::no_expr || (op.code == OpCode::tma_load && op.multicast != ir::no_expr);
      if ((arrives || op.code == OpCode::tma_load) && other && op.bar.object >= 0 &&
          op.bar.object < static_cast<int>(k.mbarriers.size()))
        remote[static_cast<std::size_t>(op.bar.object)] = true;
    });
  p.fences.assign(p.agents.size(), {});
  for (std::size_t a = 0; a < p.agents.size(); ++a) {
    bool cluster = false, cta = false, acquire = false, relaxed_wait = false, bar_wait = false;
    scan_ops(k.roles[static_cast<std::size_t>(p.agents[a].role)].body, [&](const ir::Op& op) {
      const bool acq_rel = op.code == OpCode::fence_acq_rel || op.code == OpCode::fence_sc;
      const bool releases = acq_rel || op.code == OpCode::fence_release;
      cluster |= op.code == OpCode::fence_mbarrier_init || (releases && op.scope == ir::Scope::cluster);
      cta |= releases && op.scope != ir::Scope::cluster;
      acquire |= acq_rel || op.code == OpCode::fence_acquire;
      relaxed_wait |= ir::op_footprint(op.code) == ir::Footprint::mbar_wait && op.sem == ir::Sem::relaxed;
      bar_wait |= ir::op_has(op.code, ir::opf::named_wait) && ir::op_family(op.code) == ir::OpFamily::named;
    });
    // A bar.sync after a relaxed wait acquires what the wait observed
    // (spec::sync_order::bar_sync_acquire): the observation is kept.
    acquire |= relaxed_wait && bar_wait;
    Program::Fences& f = p.fences[a];
    if (cluster) f.release_cluster = p.sync_count++;
    if (cta) f.release_cta = p.sync_count++;
    if (acquire) {
      f.seen_cta = p.sync_count++;
      f.seen_cluster = p.sync_count++;
    }
  }
  // The cluster barrier's channels of .cta release patterns, one per CTA,
  // where some role has a .cta release fence and a cluster arrive.
  bool cta_pattern = false, cluster_arrives = false;
  for (std::size_t a = 0; a < p.agents.size(); ++a) cta_pattern |= p.fences[a].release_cta >= 0;
  for (const ir::Role& role : k.roles)
    scan_ops(role.body, [&](const ir::Op& op) { cluster_arrives |= op.code == OpCode::cluster_arrive || op.code == OpCode::cluster_sync; });
  p.cluster_cta_sync.clear();
  if (cta_pattern && cluster_arrives)
    for (int c = 0; c < p.ctas; ++c) p.cluster_cta_sync.push_back(p.sync_count++);
  p.mbar_cluster_sync.assign(static_cast<std::size_t>(p.num_mbars()), -1);
  p.mbar_weak_sync.assign(static_cast<std::size_t>(p.num_mbars()), -1);
  if (p.ctas > 1)
    for (int m = 0; m < p.num_mbars(); ++m)
      if (remote[static_cast<std::size_t>(p.mbar_decl(m))]) {
        p.mbar_cluster_sync[static_cast<std::size_t>(m)] = p.sync_count++;
        p.mbar_weak_sync[static_cast<std::size_t>(m)] = p.sync_count++;
      }
  // What is left of the sync objects is shared evenly among the agents with
  // async arrivals: each slot holds what one arrival in flight releases, so
  // an agent's share bounds the arrivals it has in flight at once. Slots are
  // taken lowest first, so a share larger than a kernel needs changes none of
  // its states (the attention kernels' MMA warp has 10 in flight at two KV
  // iterations).
  p.arrive_slot_first.assign(p.agents.size(), 0);
  p.arrive_slot_count.assign(p.agents.size(), 0);
  std::vector<std::size_t> arrivers;
  for (std::size_t a = 0; a < p.agents.size(); ++a) {
    bool arrives = false;
    scan_ops(k.roles[static_cast<std::size_t>(p.agents[a].role)].body, [&](const ir::Op& op) {
      arrives |= ir::op_has(op.code, ir::opf::async_arrive);
    });
    if (arrives) arrivers.push_back(a);
  }
  if (!arrivers.empty()) {
    const int each = (spec::hb::max_syncs - p.sync_count) / static_cast<int>(arrivers.size());
    for (std::size_t a : arrivers) {
      p.arrive_slot_first[a] = p.sync_count;
      p.arrive_slot_count[a] = std::max(each, 1);
      p.sync_count += std::max(each, 1);
    }
  }
  if (p.sync_count > spec::hb::max_syncs)
    throw KernelError("the model holds at most " + std::to_string(spec::hb::max_syncs) +
                          " barriers (mbarrier instances, named barriers per CTA, one per agent with async arrivals); this kernel needs " +
                          std::to_string(p.sync_count),
                      k.loc);

}

// Each role's body as flat code.
void flatten_roles(Program& p, const ir::Kernel& k) {
  for (const ir::Role& role : k.roles) {
    p.code.emplace_back();
    Flattener f{p, p.code.back()};
    f.block(role.body);
    // The builtin variables keep their initial values (the fingerprint
    // leaves them out: agent_hash); the .bk parser already rejects an
    // assignment to one, a kernel built otherwise is rejected here.
    for (const Instr& in : p.code.back()) {
      p.has_choice |= in.kind == InstrKind::choose;
      const int v = in.kind == InstrKind::assign ? in.var : in.kind == InstrKind::op ? in.op->dest_var : -1;
      if (v >= 0 && v < ir::num_builtin_vars)
        throw KernelError("'" + role.vars[static_cast<std::size_t>(v)] + "' is a builtin and cannot be assigned", in.loc);
    }
  }
}

}  // namespace

Program instantiate(const ir::Kernel& k) {
  Program p;
  p.kernel = &k;
  p.exprs = k.exprs;
  instantiate_declarations(p, k);
  instantiate_agents(p, k);
  scan_objects(p, k);
  p.token_pending = token_pending_read(k);
  allocate_syncs(p, k);
  flatten_roles(p, k);
  compile_exprs(p);
  return p;
}

std::string Program::access_name(std::uint8_t t, bool every) const {
  if (every)
    for (const AgentInfo& a : agents)
      if (a.hb.is_lane(t)) {
        if (kernel->target != ir::Target::amd) return a.name + " (every lane)";
        return a.name + (a.warps == 1 ? " (the whole wave)" : " (every lane of its " + std::to_string(a.warps) + " waves)");
      }
  return thread_name(t);
}

std::string Program::thread_name(std::uint8_t t) const {
  if (t == host_thread) return "the host (before the launch)";
  for (const AgentInfo& a : agents) {
    if (!a.hb.owns(t)) continue;
    const int i = t - a.hb.base;
    const std::string warp = a.warps > 1 ? " of warp " + std::to_string(i / a.hb.cells) : "";
    if (a.hb.is_lane(t)) {
      // A lane class: the leader, the other lanes, or a class of a lane mask.
      const int c = i % a.hb.cells;
      char lanes[40];
      std::snprintf(lanes, sizeof lanes, "lanes 0x%llx", static_cast<unsigned long long>(a.cell_masks[c]));
      return a.name + " (" + (c == 0 ? "leader lane" : a.hb.cells == 2 ? "other lanes" : lanes) + warp + ")";
    }
    static const char* units[] = {"TMA store", "async MMA", "cp.async", "TMA load", "tensor-memory load/store"};
    // On AMD the cp.async unit holds the wave's gather-to-LDS loads (step.cpp).
    const int at = i - a.hb.cells * a.warps;
    int u = 0;
    while (u < spec::hb::units && a.hb.unit_at[u] != at) ++u;
    if (u == spec::hb::units) break;
    if (kernel->target == ir::Target::amd && u == static_cast<int>(spec::hb::Unit::cp_async)) return a.name + " (gather-to-LDS load)";
    // The TMA unit also carries st.async and red.async (step.cpp): name what the role issues.
    if (u == static_cast<int>(spec::hb::Unit::tma)) {
      bool load = false, store = false;
      scan_ops(kernel->roles[static_cast<std::size_t>(a.role)].body, [&](const ir::Op& op) {
        load |= op.code == ir::OpCode::tma_load;
        store |= ir::op_footprint(op.code) == ir::Footprint::async_store;
      });
      if (store) return a.name + (load ? " (TMA load or st.async)" : " (st.async)");
    }
    return a.name + " (" + units[u] + ")";
  }
  return "thread " + std::to_string(t);
}

spec::hb::Syncs Program::mbar_syncs(int mbar) const {
  spec::hb::Syncs s = spec::hb::Syncs{1} << mbar_sync(mbar);
  for (const std::vector<int>* v : {&mbar_cluster_sync, &mbar_weak_sync})
    if (const int c = (*v)[static_cast<std::size_t>(mbar)]; c >= 0) s |= spec::hb::Syncs{1} << c;
  return s;
}

[[gnu::cold, gnu::noinline]] void cta_outside(const Program& p, const ir::Ref& r, std::int64_t c) {
  throw KernelError("CTA index " + std::to_string(c) + " is outside the cluster of " + std::to_string(p.cluster_ctas), r.loc);
}

std::string lanes_prefix(const ir::Op& op) {
  // The defaults of `single` (one lane) and `agent` (every lane) go unsaid.
  const ir::LanePolicy p = ir::op_lanes(op.code);
  if (op.warp >= 0)
    return "warp " + std::to_string(op.warp) + ": " +
           (p != ir::LanePolicy::leader && (op.lanes == ir::Lanes::one || op.lanes == ir::Lanes::mask) ? ir::lanes_word(op) + " " : "");
  if (p == ir::LanePolicy::leader && op.lanes == ir::Lanes::mask) return ir::lanes_word(op) + " ";
  if (p == ir::LanePolicy::single && op.lanes == ir::Lanes::one) return "";
  if (p == ir::LanePolicy::agent && op.lanes == ir::Lanes::all) return "";
  if (p != ir::LanePolicy::any && p != ir::LanePolicy::single && p != ir::LanePolicy::agent) return "";
  return ir::lanes_word(op) + " ";
}

spec::amd::Waitcnt waitcnt_operands(const Program& p, const ir::Op& op, const std::int64_t* vars) {
  auto counter = [&](ir::ExprId e, std::uint32_t max) {
    if (e == ir::no_expr) return spec::amd::no_wait;
    const std::int64_t v = eval(p, e, vars);
    if (v < 0 || v > max)
      throw KernelError("an s_waitcnt counter is " + std::to_string(v) + "; it must be in 0.." + std::to_string(max), op.loc);
    return static_cast<std::uint32_t>(v);
  };
  const spec::amd::Gfx gfx = p.kernel->gfx;
  return spec::amd::Waitcnt{counter(op.n, spec::amd::max_vmcnt(gfx)), counter(op.count, spec::amd::max_lgkmcnt(gfx))};
}

Lanes lanes_of(const ir::Op& op, const AgentInfo& a) {
  const Lanes all{a.all_lanes, a.threads, true};
  if (op.warp >= 0) {  // `warp K:`: warp K's elected lane, its lanes of a mask, or its lanes
    const spec::hb::Threads leader = spec::hb::bit(a.hb.leader(op.warp));
    if (ir::op_lanes(op.code) == ir::LanePolicy::leader || op.lanes == ir::Lanes::one) return {leader, 1, false};
    if (op.lanes == ir::Lanes::mask) return {a.cells_of(op.lane_mask, op.warp), __builtin_popcountll(op.lane_mask), false};
    return {a.hb.warp_lanes(op.warp), a.threads / a.warps, true};
  }
  switch (ir::op_lanes(op.code)) {
    case ir::LanePolicy::leader:  // its elected lane, or the one lane of `lanes M:`
      return {op.lanes == ir::Lanes::mask ? a.cells_of(op.lane_mask, 0) : a.leader_lane, 1, false};
    case ir::LanePolicy::aligned: return all;
    case ir::LanePolicy::any:
    case ir::LanePolicy::single:
    case ir::LanePolicy::agent: break;
  }
  if (op.lanes == ir::Lanes::one) return {a.leader_lane, 1, false};
  if (op.lanes == ir::Lanes::each) return {a.leader_lanes, a.warps, false};
  if (op.lanes == ir::Lanes::rest) return {a.all_lanes & ~a.leader_lanes, a.threads - a.warps, false};
  if (op.lanes == ir::Lanes::mask) {
    spec::hb::Threads t = 0;
    for (int w = 0; w < a.warps; ++w) t |= a.cells_of(op.lane_mask, w);
    return {t, __builtin_popcountll(op.lane_mask) * a.warps, false};
  }
  return all;
}

spec::hb::Threads AgentInfo::cells_of(std::uint64_t mask, int w) const {
  spec::hb::Threads t = 0;
  for (int c = 0; c < hb.cells; ++c)
    if ((cell_masks[c] & mask) != 0) t |= spec::hb::bit(hb.cell(w, c));
  return t;
}

std::uint64_t AgentInfo::lanes_in_warp(spec::hb::Threads t, int w) const {
  std::uint64_t lanes = 0;
  for (int c = 0; c < hb.cells; ++c)
    if ((t & spec::hb::bit(hb.cell(w, c))) != 0) lanes |= cell_masks[c];
  return lanes;
}

bool AgentInfo::every_warp(spec::hb::Threads t) const {
  for (int w = 0; w < warps; ++w)
    if ((t & hb.warp_lanes(w)) == 0) return false;
  return true;
}

int arrive_units(const ir::Kernel& k, const Lanes& l, const AgentInfo& a) {
  if (!spec::mbarrier::warp_arrives_as_one(k.target == ir::Target::amd)) return l.count;
  // The warps with executing lanes: their elected lane or their other lanes.
  int warps = 0;
  for (int w = 0; w < a.warps; ++w) warps += (l.threads & a.hb.warp_lanes(w)) != 0;
  return warps > 0 ? warps : 1;
}

TextViolation cta_group_mix(const ir::Kernel& k) {
  TextViolation out;
  const ir::Op* first = nullptr;
  ir::Loc first_loc;
  std::function<void(const std::vector<ir::Stmt>&)> walk = [&](const std::vector<ir::Stmt>& body) {
    for (const ir::Stmt& st : body) {
      if (out.kind != spec::Violation::none) return;
      walk(st.body);
      walk(st.else_body);
      if (st.kind != ir::StmtKind::op || !ir::op_has(st.op.code, ir::opf::pair)) continue;
      if (first == nullptr) {
        first = &st.op;
        first_loc = st.loc;
        continue;
      }
      const int a = first->cta_pair ? 2 : 1, b = st.op.cta_pair ? 2 : 1;
      if (const spec::Violation v = spec::tmem::same_cta_group(a, b); v != spec::Violation::none) {
        out.kind = v;
        out.loc = st.loc;
        out.message = std::string(ir::op_keyword(st.op.code)) + " gives cta_group " + std::to_string(b) + ", and " +
                      std::string(ir::op_keyword(first->code)) + " at line " + std::to_string(first_loc.line) +
                      " gives cta_group " + std::to_string(a) +
                      ": every tcgen05 instruction of a kernel must give the same .cta_group";
      }
    }
  };
  for (const ir::Role& r : k.roles) walk(r.body);
  return out;
}

}  // namespace pc::check
