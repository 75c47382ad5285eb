// A C++ builder for the IR, used by tests and by the DSL front end.
//
//   KernelBuilder kb("handoff");
//   int data = kb.buffer("data", 1, 128);
//   int full = kb.mbarrier("full", 1, 1);
//   ir::Role& p = kb.role("producer", Granularity::warp);
//   p.body.push_back(kb.op(OpCode::write).buf(data).one());
//   p.body.push_back(kb.op(OpCode::mbar_arrive).bar(full).one());
//   ir::Kernel k = kb.build();
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "checker/ir.hpp"

namespace pc::ir {

class OpBuilder {
 public:
  explicit OpBuilder(OpCode c, Loc loc = {}) {
    op_.code = c;
    op_.loc = loc;
    // As the front end reads an operation with no lane prefix (ops.hpp).
    if (op_lanes(c) == LanePolicy::single) op_.lanes = Lanes::one;
  }
  OpBuilder& one() { op_.lanes = Lanes::one; return *this; }
  OpBuilder& bar(int object, ExprId index = no_expr, ExprId cta = no_expr) {
    op_.bar = Ref{object, index, cta, op_.loc};
    return *this;
  }
  OpBuilder& buf(int object, ExprId index = no_expr, ExprId cta = no_expr) {
    op_.bufs.push_back(Ref{object, index, cta, op_.loc});
    return *this;
  }
  OpBuilder& count(ExprId e) { op_.count = e; return *this; }
  OpBuilder& bytes(ExprId e) { op_.bytes = e; return *this; }
  OpBuilder& parity(ExprId e) { op_.parity = e; return *this; }
  OpBuilder& id(ExprId e) { op_.id = e; return *this; }
  OpBuilder& n(ExprId e) { op_.n = e; return *this; }
  OpBuilder& multicast(ExprId e) { op_.multicast = e; return *this; }
  OpBuilder& token(int var) { op_.token_var = var; return *this; }
  OpBuilder& dest(int var) { op_.dest_var = var; return *this; }
  OpBuilder& sem(Sem s) { op_.sem = s; return *this; }
  OpBuilder& scope(Scope s) { op_.scope = s; return *this; }
  OpBuilder& red(Red r) { op_.red = r; return *this; }
  OpBuilder& no_complete() { op_.no_complete = true; return *this; }
  OpBuilder& noinc() { op_.noinc = true; return *this; }
  [[nodiscard]] const Op& get() const { return op_; }
  operator Stmt() const {  // NOLINT: implicit on purpose, for body.push_back(kb.op(...)...)
    Stmt s;
    s.kind = StmtKind::op;
    s.loc = op_.loc;
    s.op = op_;
    return s;
  }

 private:
  Op op_;
};

class KernelBuilder {
 public:
  explicit KernelBuilder(std::string name) { k_.name = std::move(name); }

  KernelBuilder& cluster(int ctas) { k_.cluster_ctas = ctas; return *this; }
  KernelBuilder& cta_threads(int n) { k_.cta_threads = n; return *this; }
  KernelBuilder& target(Target t) { k_.target = t; return *this; }
  KernelBuilder& gfx(spec::amd::Gfx g) { k_.gfx = g; return *this; }
  KernelBuilder& expect(std::string e) { k_.expect = std::move(e); return *this; }

  int buffer(std::string name, int size, std::int64_t bytes, Loc loc = {}, ExprId bytes_expr = no_expr) {
    k_.buffers.push_back(BufferDecl{std::move(name), size, bytes, bytes_expr, loc, Space::shared, 0, Alias{}});
    return static_cast<int>(k_.buffers.size()) - 1;
  }
  int mbarrier(std::string name, int size, std::int64_t count, Loc loc = {}) {
    k_.mbarriers.push_back(MbarrierDecl{std::move(name), size, count, loc, Alias{}});
    return static_cast<int>(k_.mbarriers.size()) - 1;
  }
  // The reference is valid until the next call of role().
  Role& role(std::string name, Granularity g, int count = 1, int cta = -1) {
    Role r;
    r.name = std::move(name);
    r.granularity = g;
    r.count = count;
    r.cta = cta;
    r.cta_end = cta < 0 ? -1 : cta + 1;
    r.vars = {"cta", "instance", "warp"};  // ir::var_cta, var_instance, var_warp
    k_.roles.push_back(std::move(r));
    return k_.roles.back();
  }
  // A new variable of a role (a loop variable or a register).
  static int var(Role& r, std::string name) {
    r.vars.push_back(std::move(name));
    return static_cast<int>(r.vars.size()) - 1;
  }

  ExprId c(std::int64_t v, Loc loc = {}) { return add({ExprKind::constant, UnOp::neg, BinOp::add, v, -1, -1, no_expr, no_expr, loc}); }
  // A parameter: a constant holding its value, which remembers where it came from.
  int param(std::string name, std::int64_t value, std::vector<std::int64_t> candidates = {}, Loc loc = {}) {
    k_.params.push_back(Param{std::move(name), value, std::move(candidates), 1, 0, loc});
    return static_cast<int>(k_.params.size()) - 1;
  }
  ExprId p(int param, Loc loc = {}) {
    return add({ExprKind::constant, UnOp::neg, BinOp::add, k_.params.at(static_cast<std::size_t>(param)).value, param, -1,
                no_expr, no_expr, loc});
  }
  ExprId v(int var, Loc loc = {}) { return add({ExprKind::var, UnOp::neg, BinOp::add, 0, -1, var, no_expr, no_expr, loc}); }
  ExprId un(UnOp op, ExprId a, Loc loc = {}) { return add({ExprKind::unary, op, BinOp::add, 0, -1, -1, a, no_expr, loc}); }
  ExprId bin(BinOp op, ExprId a, ExprId b, Loc loc = {}) {
    return add({ExprKind::binary, UnOp::neg, op, 0, -1, -1, a, b, loc});
  }

  static OpBuilder op(OpCode c, Loc loc = {}) { return OpBuilder(c, loc); }

  static Stmt assign(int var, ExprId e, Loc loc = {}) {
    Stmt s;
    s.kind = StmtKind::assign;
    s.var = var;
    s.expr = e;
    s.loc = loc;
    return s;
  }
  static Stmt for_loop(int var, ExprId lo, ExprId hi, std::vector<Stmt> body, Loc loc = {}) {
    Stmt s;
    s.kind = StmtKind::for_loop;
    s.var = var;
    s.lo = lo;
    s.hi = hi;
    s.body = std::move(body);
    s.loc = loc;
    return s;
  }
  static Stmt if_else(ExprId cond, std::vector<Stmt> then_body, std::vector<Stmt> else_body = {}, Loc loc = {}) {
    Stmt s;
    s.kind = StmtKind::if_else;
    s.expr = cond;
    s.body = std::move(then_body);
    s.else_body = std::move(else_body);
    s.loc = loc;
    return s;
  }
  // A choice of two ways (ir::StmtKind::either).
  static Stmt either(std::vector<Stmt> first, std::vector<Stmt> second, Loc loc = {}) {
    Stmt s;
    s.kind = StmtKind::either;
    s.body = std::move(first);
    s.else_body = std::move(second);
    s.loc = loc;
    return s;
  }
  static Stmt assert_true(ExprId cond, Loc loc = {}) {
    Stmt s;
    s.kind = StmtKind::assert_true;
    s.expr = cond;
    s.loc = loc;
    return s;
  }

  Kernel& kernel() { return k_; }
  [[nodiscard]] Kernel build() const { return k_; }

 private:
  ExprId add(Expr e) {
    k_.exprs.push_back(e);
    return static_cast<ExprId>(k_.exprs.size()) - 1;
  }
  Kernel k_;
};

}  // namespace pc::ir
