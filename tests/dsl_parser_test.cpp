// The .bk front end on every construct of docs/dsl.md: declarations,
// statements, expressions, every operation of checker/ops.hpp with its
// operands, source locations, `# expect:` lines and --param overrides.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/ops.hpp"
#include "tests/op_samples.hpp"

using namespace pc;

namespace {

dsl::Parsed parse(const std::string& src, const std::vector<std::pair<std::string, std::int64_t>>& overrides = {}) {
  return dsl::parse(src, "t.bk", overrides);
}

std::string errors_of(const dsl::Parsed& p) {
  std::string s;
  for (const dsl::Diagnostic& d : p.errors)
    s += std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": " + d.message + "\n";
  return s;
}

// The value of an expression over constants (what the front end folded).
std::optional<std::int64_t> fold(const ir::Kernel& k, ir::ExprId e) {
  const ir::Expr& x = k.exprs.at(static_cast<std::size_t>(e));
  switch (x.kind) {
    case ir::ExprKind::constant: return x.value;
    case ir::ExprKind::var: return std::nullopt;
    case ir::ExprKind::unary: {
      auto a = fold(k, x.a);
      if (!a) return std::nullopt;
      return x.un == ir::UnOp::neg ? -*a : !*a;
    }
    case ir::ExprKind::binary: {
      auto a = fold(k, x.a), b = fold(k, x.b);
      if (!a || !b) return std::nullopt;
      switch (x.bin) {
        case ir::BinOp::add: return *a + *b;
        case ir::BinOp::sub: return *a - *b;
        case ir::BinOp::mul: return *a * *b;
        case ir::BinOp::div: return *a / *b;
        case ir::BinOp::mod: return *a % *b;
        case ir::BinOp::shl: return *a << *b;
        case ir::BinOp::shr: return *a >> *b;
        case ir::BinOp::bxor: return *a ^ *b;
        case ir::BinOp::band: return *a & *b;
        case ir::BinOp::bor: return *a | *b;
        case ir::BinOp::lt: return *a < *b;
        case ir::BinOp::le: return *a <= *b;
        case ir::BinOp::gt: return *a > *b;
        case ir::BinOp::ge: return *a >= *b;
        case ir::BinOp::eq: return *a == *b;
        case ir::BinOp::ne: return *a != *b;
        case ir::BinOp::land: return *a && *b;
        case ir::BinOp::lor: return *a || *b;
      }
    }
  }
  return std::nullopt;
}

const char* const prelude =
    "kernel ops\n"
    "cluster 2\n"
    "smem A[2] bytes 1024\n"
    "smem B[2] bytes 1024\n"
    "mbarrier full[2] count 1\n"
    "mbarrier fresh\n"
    "tmem T[2] cols 64\n"
    "smem R[2] bytes 16\n"
    "role r warpgroup:\n"
    "  t = one: arrive full[0]\n";

// The same lines for the AMD operations, on a chip that has them.
std::string amd_prelude(const std::string& chip) {
  return "kernel ops\n"
         "target amd " + chip + "\n"
         "smem A[2] bytes 1024\n"
         "smem B[2] bytes 1024\n"
         "mbarrier full[2] count 1\n"
         "mbarrier fresh\n"
         "tmem T[2] cols 64\n"
         "smem R[2] bytes 16\n"
         "role r warpgroup:\n"
         "  one: arrive full[0]\n";
}

std::string prelude_for(ir::OpCode c) {
  // Tensor memory is allocated by one warp.
  if (c == ir::OpCode::tcgen05_alloc || c == ir::OpCode::tcgen05_dealloc || c == ir::OpCode::tcgen05_relinquish) {
    std::string p = prelude;
    p.replace(p.find("role r warpgroup:"), 17, "role r warp:");
    return p;
  }
  // The tensor-map operations name the tensor maps M (in the line of R).
  if (c == ir::OpCode::fence_proxy_tensormap || c == ir::OpCode::tensormap_cp_fenceproxy) {
    std::string p = prelude;
    p.replace(p.find("smem R[2] bytes 16"), 18, "tensormap M[2]");
    return p;
  }
  switch (ir::op_target(c)) {
    case ir::OpTarget::both:
    case ir::OpTarget::nvidia: return prelude;
    case ir::OpTarget::amd:
    case ir::OpTarget::amd_cdna: return amd_prelude("gfx942");
    case ir::OpTarget::amd_gfx12: return amd_prelude("gfx1200");
  }
  return prelude;
}


}  // namespace

TEST_CASE("every operation of the table parses with its documented operands") {
  for (const ir::OpCode c : op_samples::all_ops()) {
    const std::string kw(ir::op_keyword(c));
    const std::string stmt = op_samples::with_all_operands(c);
    CAPTURE(kw);
    // (A second role allocates the tensor memory the samples access: a
    // kernel that never allocates it is bad input.)
    const ir::OpTarget t = ir::op_target(c);
    const bool nvidia = t == ir::OpTarget::both || t == ir::OpTarget::nvidia;
    const dsl::Parsed p = parse(prelude_for(c) + "  " + stmt + "\n" + (nvidia ? "role alloc warp:\n  tcgen05_alloc T\n" : ""));
    CHECK(errors_of(p) == "");
    REQUIRE(p.ok());
    const std::vector<ir::Stmt>& body = p.kernel.roles.at(0).body;
    REQUIRE(body.size() == 2);
    const ir::Stmt& s = body[1];
    CHECK(s.kind == ir::StmtKind::op);
    CHECK(s.op.code == c);
    CHECK(s.loc.line == 11);
    CHECK(s.loc.col == 3);
    // The operation's location is its keyword, after `one:`/`all:` and `r =`.
    CHECK(s.op.loc.col == static_cast<int>(stmt.find(kw)) + 3);
  }
}

TEST_CASE("operands land in the IR fields") {
  auto op_of = [](const std::string& stmt) {
    const dsl::Parsed p = parse(std::string(prelude) + "  " + stmt + "\n");
    REQUIRE(p.ok());
    return p.kernel.roles.at(0).body.at(1).op;
  };
  const dsl::Parsed pre = parse(std::string(prelude) + "  syncwarp\n");
  REQUIRE(pre.ok());
  const ir::Kernel& k = pre.kernel;
  CHECK(k.roles[0].body[0].op.code == ir::OpCode::mbar_arrive);
  CHECK(k.roles[0].body[0].op.dest_var == ir::num_builtin_vars);  // t
  CHECK(k.roles[0].body[0].op.lanes == ir::Lanes::one);

  const ir::Op arrive = op_of("one: arrive full[1] @ 1 count 2 release cluster");
  CHECK(arrive.bar.object == 0);
  CHECK(arrive.bar.cta != ir::no_expr);
  CHECK(arrive.count != ir::no_expr);
  CHECK(arrive.sem == ir::Sem::release);
  CHECK(arrive.scope == ir::Scope::cluster);
  CHECK_FALSE(arrive.no_complete);
  CHECK(arrive.lanes == ir::Lanes::one);
  CHECK(arrive.bar.loc.col == 15);
  const ir::Op nocomplete = op_of("one: arrive full[1] count 2 release cta nocomplete");
  CHECK(nocomplete.no_complete);
  CHECK(nocomplete.scope == ir::Scope::cta);
  const ir::Op tma = op_of("one: tma_load A[0] -> full[0] @ 1 bytes 512 multicast 3");
  REQUIRE(tma.bufs.size() == 1);
  CHECK(tma.bufs[0].object == 0);
  CHECK(tma.bar.object == 0);
  CHECK(tma.bar.cta != ir::no_expr);
  CHECK(tma.bytes != ir::no_expr);
  CHECK(tma.multicast != ir::no_expr);
  const ir::Op rd = op_of("all: read A[0] @ 1, B[1]");
  REQUIRE(rd.bufs.size() == 2);
  CHECK(rd.bufs[1].object == 1);
  CHECK(rd.bufs[0].cta != ir::no_expr);
  CHECK(rd.bufs[1].cta == ir::no_expr);
  const ir::Op tw = op_of("r = test_wait full[0] token t");
  CHECK(tw.token_var == ir::num_builtin_vars);
  CHECK(tw.dest_var == ir::num_builtin_vars + 1);
  const ir::Op red = op_of("r = bar_red or 3, 128, 1");
  CHECK(red.red == ir::Red::or_);
  const ir::Op noinc = op_of("cp_async_arrive full[0] noinc");
  CHECK(noinc.noinc);
  const ir::Op bar = op_of("bar_sync 2");
  CHECK(bar.id != ir::no_expr);
  CHECK(bar.count == ir::no_expr);
  CHECK(op_of("bar_arrive 2, 64").count != ir::no_expr);
  const ir::Op fresh = op_of("one: init fresh count 2");
  CHECK(fresh.bar.object == 1);
  CHECK(fresh.bar.index == ir::no_expr);  // a one-element array needs no index
}

TEST_CASE("declarations: kernel, target, params, cluster, cta, smem, mbarrier, roles") {
  const dsl::Parsed p = parse(
      "# expect: deadlock\n"
      "kernel decls            # a comment\n"
      "target nvidia\n"
      "param S = 2 in 1..8\n"
      "param T = 0x10 in {8, 16, 32}\n"
      "param U = S * T - 1\n"
      "cluster S\n"
      "cta threads = 384\n"
      "smem A[S] bytes T * 1024\n"
      "mbarrier full[S] count 1\n"
      "mbarrier later[3]\n"
      "role producer warp:\n"
      "  syncwarp\n"
      "role consumer warpgroup x2 on cta 1:\n"
      "  syncwarp\n"
      "role third warp x S:\n"
      "  syncwarp\n");
  CHECK(errors_of(p) == "");
  REQUIRE(p.ok());
  const ir::Kernel& k = p.kernel;
  CHECK(k.name == "decls");
  CHECK(k.file == "t.bk");
  CHECK(k.expect == "deadlock");
  CHECK(k.loc.line == 2);
  CHECK(k.target == ir::Target::nvidia);
  REQUIRE(k.params.size() == 3);
  CHECK(k.params[0].value == 2);
  CHECK(k.params[0].lo == 1);
  CHECK(k.params[0].hi == 8);
  CHECK(k.params[1].value == 16);
  CHECK(k.params[1].candidates == std::vector<std::int64_t>{8, 16, 32});
  CHECK(k.params[2].value == 31);
  CHECK(k.params[2].loc.line == 6);
  CHECK(k.params[2].loc.col == 7);
  CHECK(k.cluster_ctas == 2);
  CHECK(k.cta_threads == 384);
  REQUIRE(k.buffers.size() == 1);
  CHECK(k.buffers[0].size == 2);
  CHECK(k.buffers[0].bytes == 16384);
  CHECK(k.buffers[0].loc.line == 9);
  REQUIRE(k.mbarriers.size() == 2);
  CHECK(k.mbarriers[0].count == 1);
  CHECK(k.mbarriers[1].count == 0);  // uninitialised: the kernel must init it
  CHECK(k.mbarriers[1].size == 3);
  REQUIRE(k.roles.size() == 3);
  CHECK(k.roles[0].granularity == ir::Granularity::warp);
  CHECK(k.roles[0].count == 1);
  CHECK(k.roles[0].cta == -1);
  CHECK(k.roles[1].granularity == ir::Granularity::warpgroup);
  CHECK(k.roles[1].count == 2);
  CHECK(k.roles[1].cta == 1);
  CHECK(k.roles[1].loc.line == 14);
  CHECK(k.roles[2].count == 2);
  CHECK(k.roles[0].vars == std::vector<std::string>{"cta", "instance", "warp"});
}

TEST_CASE("statements: for, if/elif/else, assignment, assert, lanes; builtins") {
  const dsl::Parsed p = parse(
      "kernel stmts\n"
      "param N = 4\n"
      "mbarrier b[2] count 1\n"
      "role r warp x2:\n"
      "  for k in 0 .. N:\n"
      "    s = k % 2\n"
      "    if s == 0 && instance == 1:\n"
      "      one: arrive b[s]\n"
      "    elif cta != 0:\n"
      "      all: arrive b[1]\n"
      "    else:\n"
      "      wait b[s] parity (k / 2) % 2\n"
      "  assert N > 0\n");
  CHECK(errors_of(p) == "");
  REQUIRE(p.ok());
  const ir::Role& r = p.kernel.roles.at(0);
  CHECK(r.vars == std::vector<std::string>{"cta", "instance", "warp", "k", "s"});
  REQUIRE(r.body.size() == 2);
  const ir::Stmt& loop = r.body[0];
  CHECK(loop.kind == ir::StmtKind::for_loop);
  CHECK(loop.var == 3);
  CHECK(fold(p.kernel, loop.lo) == 0);
  CHECK(fold(p.kernel, loop.hi) == 4);
  CHECK(loop.loc.line == 5);
  REQUIRE(loop.body.size() == 2);
  CHECK(loop.body[0].kind == ir::StmtKind::assign);
  CHECK(loop.body[0].var == 4);
  const ir::Stmt& cond = loop.body[1];
  CHECK(cond.kind == ir::StmtKind::if_else);
  CHECK(cond.loc.line == 7);
  REQUIRE(cond.body.size() == 1);
  CHECK(cond.body[0].op.lanes == ir::Lanes::one);
  REQUIRE(cond.else_body.size() == 1);  // elif: an if in the else branch
  const ir::Stmt& elif = cond.else_body[0];
  CHECK(elif.kind == ir::StmtKind::if_else);
  CHECK(elif.loc.line == 9);
  CHECK(elif.body.at(0).op.lanes == ir::Lanes::all);
  CHECK(elif.else_body.at(0).op.code == ir::OpCode::mbar_wait);
  CHECK(elif.else_body.at(0).loc.line == 12);
  CHECK(r.body[1].kind == ir::StmtKind::assert_true);
  // The builtins are variables 0 and 1.
  const ir::Expr& c = p.kernel.exprs.at(static_cast<std::size_t>(elif.expr));
  REQUIRE(c.kind == ir::ExprKind::binary);
  CHECK(p.kernel.exprs.at(static_cast<std::size_t>(c.a)).var == ir::var_cta);
}

TEST_CASE("statements: either/or, nested, and pass") {
  const dsl::Parsed p = parse(
      "kernel choices\n"
      "mbarrier b count 1\n"
      "role r warp:\n"
      "  either:\n"
      "    one: arrive b\n"
      "    either:\n"
      "      syncwarp\n"
      "    or:\n"
      "      pass\n"
      "  or:\n"
      "    pass\n"
      "  pass = 1\n");  // `pass` alone is the statement; a variable may still be named so
  CHECK(errors_of(p) == "");
  REQUIRE(p.ok());
  const ir::Role& r = p.kernel.roles.at(0);
  REQUIRE(r.body.size() == 2);
  const ir::Stmt& e = r.body[0];
  CHECK(e.kind == ir::StmtKind::either);
  CHECK(e.loc.line == 4);
  REQUIRE(e.body.size() == 2);
  CHECK(e.body[0].op.code == ir::OpCode::mbar_arrive);
  CHECK(e.body[1].kind == ir::StmtKind::either);
  CHECK(e.body[1].body.size() == 1);
  CHECK(e.body[1].else_body.empty());
  CHECK(e.else_body.empty());
  CHECK(r.body[1].kind == ir::StmtKind::assign);
}

TEST_CASE("expressions: C precedence, hex, unary operators, parameters as constants") {
  struct Case {
    const char* text;
    std::int64_t value;
  };
  const Case cases[] = {
      {"1 + 2 * 3", 7},       {"(1 + 2) * 3", 9},      {"7 / 2", 3},        {"7 % 4", 3},
      {"6 ^ 3", 5},           {"6 & 3", 2},            {"6 | 1", 7},        {"1 | 6 ^ 3 & 1", 7},
      {"-3 + 1", -2},         {"!0 + !5", 1},          {"2 < 3", 1},        {"3 <= 2", 0},
      {"4 > 3 == 1", 1},      {"2 >= 2", 1},           {"1 != 1", 0},       {"1 && 0 || 1", 1},
      {"0x1F", 31},           {"P * 2 + 1", 21},       {"- - 4", 4},        {"1 + 2 == 3 && 4 > 2", 1},
      {"4611686018427387904", std::int64_t{1} << 62},
      {"1 << 4", 16},         {"1 + 1 << 2", 8},       {"256 >> 4 + 1", 8}, {"-16 >> 2", -4},
      {"1 << 3 < 9", 1},      {"P << 1 | 1", 21},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    const dsl::Parsed p = parse(std::string("kernel e\nparam P = 10\nparam Q = ") + c.text + "\nrole r warp:\n  syncwarp\n");
    CHECK(errors_of(p) == "");
    REQUIRE(p.ok());
    CHECK(p.kernel.params.at(1).value == c.value);
  }
  // Shifts by 0..62 only; past 2^62 is an overflow, as for the other operators.
  for (const char* bad : {"1 << 63", "1 << -1", "1 << 62 << 1"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse(std::string("kernel e\nparam Q = ") + bad + "\nrole r warp:\n  syncwarp\n").ok());
  }
  // A parameter in a role is a constant that remembers its parameter.
  const dsl::Parsed p = parse("kernel e\nparam P = 10\nrole r warp:\n  x = P\n");
  REQUIRE(p.ok());
  const ir::Expr& e = p.kernel.exprs.at(static_cast<std::size_t>(p.kernel.roles[0].body[0].expr));
  CHECK(e.kind == ir::ExprKind::constant);
  CHECK(e.value == 10);
  CHECK(e.param == 0);
  CHECK(e.loc.line == 4);
  CHECK(e.loc.col == 7);
}

TEST_CASE("--param overrides replace a value before expressions are folded") {
  const std::string src =
      "kernel p\nparam S = 2 in 1..4\nparam B = 1024 in {1024, 2048}\nsmem A[S] bytes B * 2\nmbarrier m[S] count 1\n"
      "role r warp:\n  for i in 0 .. S:\n    one: arrive m[i]\n";
  const dsl::Parsed base = parse(src);
  REQUIRE(base.ok());
  CHECK(base.kernel.buffers[0].size == 2);
  const dsl::Parsed p = parse(src, {{"S", 3}, {"B", 2048}});
  CHECK(errors_of(p) == "");
  REQUIRE(p.ok());
  CHECK(p.kernel.params[0].value == 3);
  CHECK(p.kernel.buffers[0].size == 3);
  CHECK(p.kernel.buffers[0].bytes == 4096);
  CHECK(p.kernel.mbarriers[0].size == 3);
  CHECK(fold(p.kernel, p.kernel.roles[0].body[0].hi) == 3);
  // Outside the declared range or set, or no such parameter: an error.
  CHECK(errors_of(parse(src, {{"S", 5}})).find("outside its declared values") != std::string::npos);
  CHECK(errors_of(parse(src, {{"B", 1000}})).find("outside its declared values") != std::string::npos);
  CHECK(errors_of(parse(src, {{"SS", 1}})).find("no such parameter (did you mean 'S'?)") != std::string::npos);

  // NAME=VALUE is read as numbers in a .bk file are.
  using O = std::optional<std::pair<std::string, std::int64_t>>;
  CHECK(dsl::parse_override("S=3") == O({"S", 3}));
  CHECK(dsl::parse_override("S=-3") == O({"S", -3}));
  CHECK(dsl::parse_override("S=0x10") == O({"S", 16}));
  CHECK(dsl::parse_override("S=010") == O({"S", 10}));  // decimal, as in a .bk file
  CHECK(dsl::parse_override("S=4611686018427387904") == O({"S", std::int64_t{1} << 62}));
  for (const char* bad : {"S", "S=", "=3", "S=1.5", "S=4611686018427387905", "S=99999999999999999999", "S T=1", "1=2",
                          "S=3x", "S= 3", "S=--3", "S=1+1"}) {
    CAPTURE(bad);
    CHECK_FALSE(dsl::parse_override(bad).has_value());
  }
}

TEST_CASE("comments, blank lines, CRLF, a last line without newline") {
  const dsl::Parsed p = parse("# header\r\n\r\nkernel c   # name\r\n\r\nrole r warp:\r\n\r\n  # inside\r\n  syncwarp\r\n\r\n  syncwarp");
  CHECK(errors_of(p) == "");
  REQUIRE(p.ok());
  CHECK(p.kernel.roles[0].body.size() == 2);
  CHECK(p.kernel.roles[0].body[1].loc.line == 10);
  CHECK(p.kernel.expect.empty());
}

TEST_CASE("the corpus parses and every file states its expectation") {
  // kernels/ is the corpus test's; here only that the front end accepts it
  // with no diagnostics and records `# expect:`.
  for (const char* name : {"tlx_ws_gemm_hopper", "tlx_pingpong", "cutlass_tma_multicast", "amd_split_barrier"}) {
    CAPTURE(name);
    std::string src;
    const dsl::Parsed p = dsl::parse_file(std::string(PC_SOURCE_DIR) + "/kernels/" + name + ".bk", src);
    CHECK(errors_of(p) == "");
    CHECK_FALSE(p.kernel.expect.empty());
    CHECK(p.kernel.name == name);
  }
}

TEST_CASE("builtins: cluster_size is the cluster's CTA count, cta_rank the agent's CTA; neither can be assigned") {
  const dsl::Parsed p = parse("kernel b\ncluster 4\nparam N = 2 * cluster_size\nsmem a[8] bytes 64\n"
                              "mbarrier m[1] count cluster_size\nrole r warp:\n  x = cta_rank + cluster_size\n");
  REQUIRE(p.ok());
  CHECK(p.kernel.params.at(0).value == 8);
  CHECK(p.kernel.mbarriers.at(0).count == 4);
  const ir::Expr& sum = p.kernel.exprs.at(static_cast<std::size_t>(p.kernel.roles[0].body[0].expr));
  const ir::Expr& rank = p.kernel.exprs.at(static_cast<std::size_t>(sum.a));
  CHECK(rank.kind == ir::ExprKind::var);
  CHECK(rank.var == ir::var_cta);
  CHECK(fold(p.kernel, sum.b) == 4);
  CHECK_FALSE(parse("kernel b\nparam N = cluster_size\nrole r warp:\n  syncwarp\n").ok());  // before the cluster is known
  CHECK_FALSE(parse("kernel b\nrole r warp:\n  cta_rank = 1\n").ok());
  CHECK_FALSE(parse("kernel b\nrole r warp:\n  for cluster_size in 0..2:\n    syncwarp\n").ok());
}

TEST_CASE("a role on a range of CTAs: on cta K..M places it on K to M-1, as a for range") {
  const dsl::Parsed p = parse("kernel o\ncluster 4\nmbarrier m[1] count 2\nrole p warp on cta 1..3:\n  cluster_sync\n"
                              "  one: arrive m[0] @ 0 release cluster\nrole c warp on cta 0:\n  cluster_sync\n"
                              "  wait m[0] parity 0 acquire cluster\n");
  REQUIRE(p.ok());
  const ir::Role& r = p.kernel.roles.at(0);
  CHECK_FALSE(r.placed_on(0));
  CHECK(r.placed_on(1));
  CHECK(r.placed_on(2));
  CHECK_FALSE(r.placed_on(3));
  CHECK(p.kernel.roles.at(1).placed_on(0));
  CHECK_FALSE(p.kernel.roles.at(1).placed_on(1));
  CHECK(check::check(p.kernel, {}).verdict == check::Verdict::verified);  // two producers, count 2
  CHECK_FALSE(parse("kernel o\ncluster 2\nrole p warp on cta 1..1:\n  syncwarp\n").ok());  // an empty range
  CHECK_FALSE(parse("kernel o\ncluster 2\nrole p warp on cta 0..3:\n  syncwarp\n").ok());  // past the cluster
}
