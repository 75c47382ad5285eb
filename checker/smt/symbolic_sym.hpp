// The symbolic claims (symbolic.hpp), shared by their files: the roles' code
// as Z3 terms (Occ) and the class that states and solves the claims
// (symbolic.cpp: the encoding of the code and the solving;
// symbolic_mbarrier.cpp: the mbarrier claims and ring_phase;
// symbolic_named.cpp: the named-barrier and shared-memory claims). Private
// to checker/smt.
#pragma once

#include <z3++.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "checker/ir.hpp"
#include "checker/smt/symbolic.hpp"
#include "spec/mbarrier.hpp"

namespace pc::smt::sym {

using ir::ExprId;
using ir::OpCode;
namespace mb = spec::mbarrier;

inline constexpr unsigned query_ms = 20000;    // per solver query; past it the claim is `unknown`
inline constexpr std::int64_t max_unroll = 64;  // instances, CTAs and loop trips summed one by one

// A claim the encoding cannot express: becomes a not_checked finding.
struct NotChecked {
  std::string reason;
};

// The values the explicit search uses, where an expression has one.
std::optional<std::int64_t> eval_const(const ir::Kernel& k, ExprId id);
bool is_blocking(OpCode c);
bool contributes(OpCode c);
bool is_named(OpCode c);
bool body_blocks(const std::vector<ir::Stmt>& body);
void assigned_vars(const std::vector<ir::Stmt>& body, std::set<int>& out);

// A loop around an operation: its variable and bounds as Z3 terms.
struct Loop {
  z3::expr var, lo, hi;
  bool blocks;  // its body has a blocking operation (a wait, a barrier)
};

// One operation in a role's code, with everything it depends on as Z3 terms
// over the parameters, the role's `cta` and `instance`, its loop variables
// and, for values the encoding does not follow, unknowns.
struct Occ {
  int role = -1;
  const ir::Op* op = nullptr;
  int seq = 0;  // program order in the role
  std::vector<Loop> loops;  // outermost first
  z3::expr guard, idx, cta, count, bytes, mask, id, parity;
  bool has_cta = false, has_count = false, has_bytes = false, has_mask = false, has_parity = false;
  explicit Occ(z3::context& c)
      : guard(c.bool_val(true)), idx(c.int_val(0)), cta(c.int_val(0)), count(c.int_val(1)), bytes(c.int_val(0)),
        mask(c.int_val(0)), id(c.int_val(0)), parity(c.int_val(0)) {}
};

using Subst = std::vector<std::pair<z3::expr, z3::expr>>;

class Sym {
 public:
  explicit Sym(const ir::Kernel& k) : k_(k), domain_(c_.bool_val(true)) {}

  std::vector<Finding> run();

 private:
  // ---- declarations the IR keeps only as values ----
  // The front end parses every declaration's expression into the arena and
  // keeps the value; the expression stays there, referenced by nothing. It is
  // recovered by the declaration's line and used only when it evaluates to
  // the value the IR holds. A parameter-dependent declaration that cannot be
  // attributed so makes every claim not checked.
  void recover_declarations();

  bool mentions_param(ExprId e) const;

  z3::expr param_domain(int p);

  bool free_param(int p) const;

  // ---- expressions ----
  z3::expr unknown() { return c_.int_const(("?" + std::to_string(unknowns_++)).c_str()); }

  z3::expr expr(ExprId id, const std::vector<std::optional<z3::expr>>& env);

  // The uninterpreted constants of a term, by name.
  void consts(const z3::expr& e, std::set<std::string>& out, std::set<unsigned>& seen) const;
  std::set<std::string> consts(std::initializer_list<z3::expr> es) const;
  static bool has(const std::set<std::string>& s, const z3::expr& c) { return s.count(c.decl().name().str()) != 0; }
  bool has_unknown(const std::set<std::string>& s) const;

  z3::expr subst(z3::expr e, const Subst& m);

  // ---- the roles' code ----
  void walk(int r, const std::vector<ir::Stmt>& body, std::vector<std::optional<z3::expr>>& env, std::vector<Loop>& loops,
            const z3::expr& guard, int& seq);

  // ---- solving ----
  struct Solved {
    Status status = Status::proven;
    std::optional<z3::model> model;
    std::string reason;
  };

  z3::params timeout();

  Solved solve(const z3::expr& negation);

  bool valid(const z3::expr& claim) { return solve(!claim).status == Status::proven; }

  std::int64_t value(const z3::model& m, const z3::expr& e);

  // The least power of two (up to max_unroll) that bounds e over the domain.
  std::optional<std::int64_t> bound(const z3::expr& e);

  void finish(Finding f, const Solved& s, std::vector<Finding>& out, const std::function<std::string(const z3::model&)>& detail);

  static Finding not_checked(const std::string& check, const std::string& claim, ir::Loc loc, const std::string& reason);

  // ---- agents ----
  z3::expr role_count(int r);
  std::vector<int> ctas_of(int r) const;
  int threads(int r) const { return ir::role_warps(k_.roles[static_cast<std::size_t>(r)]) * ir::warp_size(k_); }

  // Threads of the agent that execute the operation (checker/step.cpp lanes_of).
  int lanes(const Occ& o) const;

  // The instances of an agent's role to sum one by one (`instance` matters),
  // or one copy weighted by the instance count.
  struct Copy {
    int cta;
    z3::expr inst;     // the instance, or the role's instance constant when not unrolled
    z3::expr present;  // this instance exists
    z3::expr weight;   // how many agents the copy stands for
  };
  std::vector<Copy> copies(int r, bool by_instance);
  std::map<std::pair<int, bool>, std::vector<Copy>> copies_;
  std::vector<Copy> make_copies(int r, bool by_instance);

  // ---- mbarrier claims ----
  struct Term {
    z3::expr exists;  // this contribution feeds the probed phase
    z3::expr arrivals, expected, delivered;
    z3::expr count_ok, tx_ok;  // its count and byte operands are in the ISA ranges
  };

  // The ring shape of an index: OFF + X % S (or X % S).
  struct Ring {
    z3::expr off, x, s;
  };
  std::optional<Ring> ring(const z3::expr& idx);

  // ---- ring_phase: a wait in a loop is an instance of the ring-buffer
  // phase theorem (proofs/ring_buffer_phase.cpp, proofs/README.md (b)) ----
  // Its use count u is the trips before it of some of its loops (one loop,
  // or several linearized, outer first: `i = 2 * j + t`); the claim is that
  // its barrier is stage u % S of a ring of S (OFF + X % S with X = u mod S,
  // or a single barrier, S = 1) and its parity is (u / S + c) % 2 for c in
  // {0, 1} (c = 1: one phase ahead, a producer's wait on a free slot). Then
  // b2/b3 say the wait passes exactly when use u's phase has completed, for
  // every trip count and parameter value, given that every use completes one
  // phase (arrival_count, tx_balance). A wait the theorem does not cover is
  // named, not refuted: it may still be correct (the explicit search judges
  // it at the values it runs).
  static bool has_unknown(const z3::expr& e);

  void ring_phase_claim(const Occ& o, std::vector<Finding>& out);

  void barrier_claims(int b, std::vector<Finding>& out);
  static void contribution_kinds(const std::vector<const Occ*>& contrib, bool& any_arrival, bool& any_tx, bool& any_drop);
  void needed_count(int b, const std::vector<const Occ*>& inits, std::optional<z3::expr>& need, std::string& need_problem);
  std::vector<std::optional<Ring>> phases(const std::vector<const Occ*>& contrib, const std::vector<const Occ*>& waits,
                                          bool& none_ring);

  ir::Loc first_tx_loc(const std::vector<const Occ*>& contrib) const;

  // The innermost blocking loop around an operation: its iterations are the
  // phases of a barrier indexed by a constant. More than one: not numbered.
  const Loop* ticket_loop(const Occ& o) const;
  bool any_spread_blocking(const Occ& o) const;
  static bool same_scope(const Occ& a, const Occ& b);

  // Every way the operation feeds the probed phase (E, Q, C): per CTA and
  // instance of its role, per unrolled loop iteration, per destination CTA.
  void add_terms(const Occ& o, const std::optional<Ring>& rg, const z3::expr& E, const z3::expr& Q, const z3::expr& C,
                 std::vector<Term>& terms);
  void iteration_terms(const Occ& o, const Copy& cp, const z3::expr& bytes, const Subst& all, const std::vector<const Loop*>& tickets,
                       const std::vector<std::pair<const Loop*, bool>>& spread, const z3::expr& ok, const z3::expr& it_ok,
                       const z3::expr& C, std::vector<Term>& terms);

  // Solves X(tickets) = xstar for the ticket loops' variables: one variable
  // with a constant or parameter step, or two nested ones (outer step equal
  // to at least the inner trip count, inner step 1: the linearised ticket of
  // a tile loop around a k-loop).
  void invert(const z3::expr& x, const z3::expr& xstar, const std::vector<const Loop*>& tickets, Subst& tick, z3::expr& ok,
              ir::Loc loc);

  // ---- named barriers ----
  // A named-barrier operation of a role, and each agent's use of it.
  struct Use {
    const Occ* o;
    int role;
  };
  struct AgentUse {
    const Occ* o;
    int role, cta;
    z3::expr present, used, id, count;
    bool explicit_count;
  };
  void named_claims(std::vector<Finding>& out);
  std::string participants_claim(const Occ& o) const;
  std::vector<AgentUse> agent_uses(const std::vector<Use>& uses);
  // Whether the operation's guard, id, count or loop bounds read a loop
  // variable (a named-barrier use under a loop-dependent `if`).
  bool trip_dependent(const Occ& o) const;
  // That its loops run at least once; for a trip-dependent operation, at a
  // trip of its own: each loop variable becomes a fresh unknown `T!n` in `s`
  // (and `vars`), bounded by its loop, so that a claim's negation may pick the
  // trip in which the operation runs.
  z3::expr trips(const Occ& o, Subst& s, z3::expr_vector* vars);
  z3::expr participants(const std::vector<Use>& uses, int a, const z3::expr& I);
  z3::expr waited(const std::vector<AgentUse>& au, int a, const z3::expr& I);
  void named_count_claim(const std::vector<Use>& uses, const std::vector<AgentUse>& au, const std::string& count_claim,
                         std::vector<Finding>& out);
  void named_participants_claims(const std::vector<Use>& uses, const std::vector<AgentUse>& au, std::vector<Finding>& out);
  void named_id_claim(const std::vector<Use>& uses, const std::vector<AgentUse>& au, const std::string& id_claim,
                      std::vector<Finding>& out);

  // ---- shared memory ----
  void smem_claim(std::vector<Finding>& out);

  z3::context c_;
  const ir::Kernel& k_;
  z3::expr domain_;
  std::vector<z3::expr> P_;
  std::vector<std::optional<ExprId>> param_def_, buf_size_, mbar_size_, mbar_count_, role_count_;
  std::string decl_problem_;
  std::map<unsigned, std::pair<z3::expr, z3::expr>> mods_;
  std::vector<z3::expr> role_cta_, role_inst_;
  std::vector<std::vector<Occ>> occs_;
  int unknowns_ = 0, loops_ = 0, trips_ = 0;
};

}  // namespace pc::smt::sym
