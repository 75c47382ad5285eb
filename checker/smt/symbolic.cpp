#include "checker/smt/symbolic.hpp"

#include <z3++.h>

#include <algorithm>
#include <map>
#include <optional>

namespace pc::smt {
namespace {

using ir::ExprId;

// Integer expressions of the IR as Z3 integers. Parameters become constants
// named after them; role variables (loop counters, registers) become free
// constants, so a claim proven holds for every value they can take. Integer
// division and remainder follow C (truncation toward zero); bitwise operators
// go through 64-bit vectors.
class Encoder {
 public:
  Encoder(z3::context& c, const ir::Kernel& k) : c_(c), k_(k) {}

  z3::expr param(int p) {
    auto it = params_.find(p);
    if (it != params_.end()) return it->second;
    z3::expr e = c_.int_const(k_.params[static_cast<std::size_t>(p)].name.c_str());
    params_.emplace(p, e);
    return e;
  }

  z3::expr var(const std::string& role, int v, const std::string& name) {
    const std::string key = role + "." + name + "#" + std::to_string(v);
    auto it = vars_.find(key);
    if (it != vars_.end()) return it->second;
    z3::expr e = c_.int_const(key.c_str());
    vars_.emplace(key, e);
    return e;
  }

  z3::expr expr(ExprId id, const ir::Role& role) {
    const ir::Expr& x = k_.exprs.at(static_cast<std::size_t>(id));
    switch (x.kind) {
      case ir::ExprKind::constant: return x.param >= 0 ? param(x.param) : c_.int_val(static_cast<int64_t>(x.value));
      case ir::ExprKind::var: return var(role.name, x.var, role.vars.at(static_cast<std::size_t>(x.var)));
      case ir::ExprKind::unary: {
        z3::expr a = expr(x.a, role);
        return x.un == ir::UnOp::neg ? -a : z3::ite(a == 0, c_.int_val(1), c_.int_val(0));
      }
      case ir::ExprKind::binary: {
        z3::expr a = expr(x.a, role), b = expr(x.b, role);
        auto boolean = [&](const z3::expr& cond) { return z3::ite(cond, c_.int_val(1), c_.int_val(0)); };
        switch (x.bin) {
          case ir::BinOp::add: return a + b;
          case ir::BinOp::sub: return a - b;
          case ir::BinOp::mul: return a * b;
          case ir::BinOp::div: return cdiv(a, b);
          case ir::BinOp::mod: return a - b * cdiv(a, b);
          case ir::BinOp::bxor: return z3::bv2int(z3::int2bv(64, a) ^ z3::int2bv(64, b), true);
          case ir::BinOp::band: return z3::bv2int(z3::int2bv(64, a) & z3::int2bv(64, b), true);
          case ir::BinOp::bor: return z3::bv2int(z3::int2bv(64, a) | z3::int2bv(64, b), true);
          case ir::BinOp::lt: return boolean(a < b);
          case ir::BinOp::le: return boolean(a <= b);
          case ir::BinOp::gt: return boolean(a > b);
          case ir::BinOp::ge: return boolean(a >= b);
          case ir::BinOp::eq: return boolean(a == b);
          case ir::BinOp::ne: return boolean(a != b);
          case ir::BinOp::land: return boolean(a != 0 && b != 0);
          case ir::BinOp::lor: return boolean(a != 0 || b != 0);
        }
      }
    }
    return c_.int_val(0);
  }

  // The declared range or set of every parameter met so far; the others keep
  // their single value.
  z3::expr domain() {
    z3::expr all = c_.bool_val(true);
    for (const auto& [p, e] : params_) {
      const ir::Param& par = k_.params[static_cast<std::size_t>(p)];
      std::vector<std::int64_t> cs = par.candidates;
      if (par.lo <= par.hi) {
        all = all && e >= c_.int_val(static_cast<int64_t>(par.lo)) && e <= c_.int_val(static_cast<int64_t>(par.hi));
        continue;
      }
      if (cs.empty()) {
        all = all && e == c_.int_val(static_cast<int64_t>(par.value));
        continue;
      }
      std::sort(cs.begin(), cs.end());
      const bool contiguous = cs.back() - cs.front() + 1 == static_cast<std::int64_t>(cs.size());
      if (contiguous) {
        all = all && e >= c_.int_val(static_cast<int64_t>(cs.front())) && e <= c_.int_val(static_cast<int64_t>(cs.back()));
      } else {
        z3::expr any = c_.bool_val(false);
        for (std::int64_t v : cs) any = any || e == c_.int_val(static_cast<int64_t>(v));
        all = all && any;
      }
    }
    // C division by zero is undefined: keep divisors away from zero.
    for (const z3::expr& d : divisors_) all = all && d != 0;
    return all;
  }

  const std::map<int, z3::expr>& params() const { return params_; }

 private:
  z3::expr cdiv(const z3::expr& a, const z3::expr& b) {
    divisors_.push_back(b);
    z3::expr aa = z3::ite(a >= 0, a, -a), bb = z3::ite(b >= 0, b, -b);
    z3::expr q = aa / bb;  // both non-negative: Euclidean = truncating
    return z3::ite((a >= 0) == (b >= 0), q, -q);
  }

  z3::context& c_;
  const ir::Kernel& k_;
  std::map<int, z3::expr> params_;
  std::map<std::string, z3::expr> vars_;
  std::vector<z3::expr> divisors_;
};

// A printable key for an expression, to group operations on "the same" barrier element.
std::string key(const ir::Kernel& k, ExprId id) {
  if (id == ir::no_expr) return "_";
  const ir::Expr& x = k.exprs.at(static_cast<std::size_t>(id));
  switch (x.kind) {
    case ir::ExprKind::constant: return x.param >= 0 ? "p" + std::to_string(x.param) : std::to_string(x.value);
    case ir::ExprKind::var: return "v" + std::to_string(x.var);
    case ir::ExprKind::unary: return "(u" + std::to_string(int(x.un)) + key(k, x.a) + ")";
    case ir::ExprKind::binary:
      return "(" + key(k, x.a) + "b" + std::to_string(int(x.bin)) + key(k, x.b) + ")";
  }
  return "?";
}

struct Prover {
  const ir::Kernel& k;
  std::vector<Finding>& out;

  // Proves `claim` (an integer equality or property) for every parameter in
  // its domain: the negation must be unsat.
  void prove(z3::context& c, Encoder& enc, const z3::expr& negation, Finding f) {
    z3::solver s(c);
    s.add(enc.domain());
    s.add(negation);
    switch (s.check()) {
      case z3::unsat: f.status = Status::proven; break;
      case z3::sat: {
        f.status = Status::counterexample;
        z3::model m = s.get_model();
        for (const auto& [p, e] : enc.params()) {
          z3::expr v = m.eval(e, true);
          std::int64_t val = 0;
          if (v.is_numeral_i64(val)) f.witness.emplace_back(k.params[static_cast<std::size_t>(p)].name, val);
        }
        break;
      }
      case z3::unknown: f.status = Status::unknown; break;
    }
    out.push_back(std::move(f));
  }

  void tx_balance(const ir::Role& role, const std::vector<ir::Stmt>& block) {
    struct Group {
      std::vector<const ir::Op*> expects, loads;
    };
    std::map<std::string, Group> groups;
    for (const ir::Stmt& s : block) {
      if (s.kind == ir::StmtKind::op) {
        const ir::Op& op = s.op;
        const std::string g = std::to_string(op.bar.object) + "[" + key(k, op.bar.index) + "]@" + key(k, op.bar.cta);
        if (op.code == ir::OpCode::mbar_arrive_expect_tx || op.code == ir::OpCode::mbar_expect_tx)
          groups[g].expects.push_back(&op);
        if (op.code == ir::OpCode::tma_load && op.multicast == ir::no_expr) groups[g].loads.push_back(&op);
      }
      tx_balance(role, s.body);
      tx_balance(role, s.else_body);
    }
    for (const auto& [g, grp] : groups) {
      if (grp.expects.empty() || grp.loads.empty()) continue;
      z3::context c;
      Encoder enc(c, k);
      const int threads = ir::threads_of(role.granularity);
      z3::expr expected = c.int_val(0), delivered = c.int_val(0);
      for (const ir::Op* op : grp.expects) {
        z3::expr b = op->bytes == ir::no_expr ? c.int_val(0) : enc.expr(op->bytes, role);
        const bool all = ir::op_lanes(op->code) == ir::LanePolicy::any && op->lanes == ir::Lanes::all;
        expected = expected + (all ? b * threads : b);
      }
      for (const ir::Op* op : grp.loads) {
        const ir::BufferDecl& d = k.buffers.at(static_cast<std::size_t>(op->bufs.at(0).object));
        z3::expr b = op->bytes != ir::no_expr   ? enc.expr(op->bytes, role)
                     : d.bytes_expr != ir::no_expr ? enc.expr(d.bytes_expr, role)
                                                   : c.int_val(static_cast<int64_t>(d.bytes));
        delivered = delivered + b;
      }
      const std::string bar = k.mbarriers.at(static_cast<std::size_t>(grp.expects[0]->bar.object)).name;
      Finding f;
      f.check = "tx_balance";
      f.claim = "role " + role.name + ": the bytes expected on " + bar + " equal the bytes its TMA loads deliver";
      f.loc = grp.expects[0]->loc;
      prove(c, enc, expected != delivered, f);
    }
  }

  void named_counts() {
    struct Use {
      const ir::Role* role;
      const ir::Op* op;
    };
    std::map<std::int64_t, std::vector<Use>> by_id;
    for (const ir::Role& role : k.roles) collect(role, role.body, by_id);
    for (const auto& [id, uses] : by_id) {
      const Use& first = uses.front();
      for (const Use& u : uses) {
        z3::context c;
        Encoder enc(c, k);
        z3::expr n = enc.expr(u.op->count, *u.role);
        Finding f;
        f.check = "named_count";
        f.claim = "named barrier " + std::to_string(id) + " in role " + u.role->name + ": the thread count is a multiple of 32";
        f.loc = u.op->loc;
        prove(c, enc, n - 32 * (n / 32) != 0 || n <= 0, f);
        if (&u == &first) continue;
        z3::context c2;
        Encoder enc2(c2, k);
        Finding g;
        g.check = "named_count";
        g.claim = "named barrier " + std::to_string(id) + ": role " + u.role->name + " gives the same thread count as role " +
                  first.role->name;
        g.loc = u.op->loc;
        prove(c2, enc2, enc2.expr(u.op->count, *u.role) != enc2.expr(first.op->count, *first.role), g);
      }
    }
  }

  template <class Map>
  void collect(const ir::Role& role, const std::vector<ir::Stmt>& block, Map& by_id) {
    for (const ir::Stmt& s : block) {
      if (s.kind == ir::StmtKind::op &&
          (s.op.code == ir::OpCode::bar_sync || s.op.code == ir::OpCode::bar_arrive || s.op.code == ir::OpCode::bar_red) &&
          s.op.count != ir::no_expr && s.op.id != ir::no_expr) {
        const ir::Expr& idx = k.exprs.at(static_cast<std::size_t>(s.op.id));
        if (idx.kind == ir::ExprKind::constant) by_id[idx.value].push_back({&role, &s.op});
      }
      collect(role, s.body, by_id);
      collect(role, s.else_body, by_id);
    }
  }
};

}  // namespace

std::vector<Finding> check_symbolic(const ir::Kernel& k) {
  std::vector<Finding> out;
  Prover p{k, out};
  for (const ir::Role& role : k.roles) p.tx_balance(role, role.body);
  p.named_counts();
  return out;
}

}  // namespace pc::smt
