// An operation's operands, read per operand form of the op table
// (ir::Operands), as docs/dsl.md lists them.
#include "checker/dsl/parser_impl.hpp"
#include "checker/ir_rules.hpp"

#include <string>
#include <vector>

#include "spec/agent.hpp"
#include "spec/rules.hpp"
#include "spec/tmem.hpp"

namespace pc::dsl::detail {

ir::Ref Parser::ref(const std::map<std::string, int>& names, const char* kind, bool allow_cta) {
  const Token& tk = peek();
  if (tk.kind != Tok::name) expected(std::string("the name of ") + kind);
  next();
  auto it = names.find(tk.text);
  if (it == names.end()) {
    if (broken_.count(tk.text)) silent();
    std::vector<std::string> known;
    for (const auto& [n, i] : names) known.push_back(n);
    fail(tk.loc, "unknown " + std::string(kind) + " '" + tk.text + "'" + suggest(tk.text, known));
  }
  ir::Ref r;
  r.object = it->second;
  r.loc = tk.loc;
  const bool is_buf = &names == &buffers_;
  const int size = is_buf ? k_.buffers[static_cast<std::size_t>(r.object)].size : k_.mbarriers[static_cast<std::size_t>(r.object)].size;
  if (accept("[")) {
    const ir::Loc loc = peek().loc;
    r.index = expr();
    expect("]");
    if (auto v = const_value(r.index); v && (*v < 0 || *v >= size))
      fail(loc, "index " + std::to_string(*v) + " is outside " + tk.text + "[" + std::to_string(size) + "]");
  } else if (size > 1) {
    fail(tk.loc, std::string(kind) + " '" + tk.text + "' has " + std::to_string(size) + " elements: give an index, " +
                     tk.text + "[i]");
  }
  if (allow_cta && accept("@")) {
    const ir::Loc loc = peek().loc;
    r.cta = expr();
    if (auto v = const_value(r.cta); v && (*v < 0 || *v >= k_.cluster_ctas))
      fail(loc, "CTA " + std::to_string(*v) + " is outside the cluster of " + std::to_string(k_.cluster_ctas));
  }
  return r;
}

Parser::OptionLocs Parser::options(ir::Op& op, Allowed allowed) {
  OptionLocs at;
  while (peek().kind == Tok::name) {
    const Token& tk = peek();
    if (allowed.count && tk.text == "count") {
      at.count = next().loc;
      op.count = expr();
    } else if (allowed.bytes && tk.text == "bytes") {
      at.bytes = next().loc;
      op.bytes = expr();
    } else if (allowed.sem && (tk.text == "release" || tk.text == "relaxed" || tk.text == "acquire")) {
      at.sem = next().loc;
      op.sem = tk.text == "release" ? ir::Sem::release : tk.text == "relaxed" ? ir::Sem::relaxed : ir::Sem::acquire;
    } else if (allowed.scope && (tk.text == "cta" || tk.text == "cluster")) {
      at.scope = next().loc;
      op.scope = tk.text == "cta" ? ir::Scope::cta : ir::Scope::cluster;
    } else if (allowed.nocomplete && tk.text == "nocomplete") {
      at.nocomplete = next().loc;
      op.no_complete = true;
    } else {
      fail(tk.loc, "unexpected '" + tk.text + "' after " + std::string(ir::op_keyword(op.code)) + ": it takes " +
                       std::string(ir::op_operands_doc(op.code)));
    }
  }
  return at;
}

// An operation: its lane prefix, its operands (read per operand form below),
// and the checks of the whole operation (parse_checks.cpp).
ir::Op Parser::op(OpCode code, ir::Loc loc, ir::Lanes lanes, bool lanes_given, int dest, std::uint64_t lane_mask) {
  ir::Op op;
  op.code = code;
  op.loc = loc;
  op.lanes = lanes;
  if (lanes == ir::Lanes::mask) op.lane_mask = lane_mask;
  op.dest_var = dest;
  check_lane_prefix(op, lanes_given);
  OptionLocs at;
  operands(op, at);
  check_spaces(op);
  check_operands(op);
  check_returns(op);
  check_isa_form(op, at, loc);
  return op;
}

void Parser::check_lane_prefix(ir::Op& op, bool lanes_given) {
  const std::string kw(ir::op_keyword(op.code));
  const ir::LanePolicy policy = ir::op_lanes(op.code);
  if (lanes_given && policy == ir::LanePolicy::aligned && op.lanes != ir::Lanes::all)
    fail(op.loc, "'" + kw + "' is executed by the whole warp or warp group together: remove '" +
                     ir::lanes_word(op) + "' (" +
                     std::string(ir::aligned_rule) + ")");
  // A TMA load may be another lane's than the elected one (`lanes M:` of
  // one lane): its copy and its complete-tx are that lane's only. The other
  // leader operations feed the thread's async groups or units, which the
  // model keeps for the elected lane.
  if (lanes_given && policy == ir::LanePolicy::leader && op.lanes != ir::Lanes::one &&
      !(op.code == OpCode::tma_load && op.lanes == ir::Lanes::mask && (op.lane_mask & (op.lane_mask - 1)) == 0))
    fail(op.loc, "'" + kw + "' is issued by one elected lane: write 'one:' or no prefix" +
                     (op.code == OpCode::tma_load ? " ('lanes M:' of one lane for another lane's copy, each on a line of its own)" : ""));
  // Without a prefix an mbarrier.init / inval is one thread's (the kernel
  // guards it to one thread); `all:` / `each:` are every thread's.
  if (!lanes_given && policy == ir::LanePolicy::single) op.lanes = ir::Lanes::one;
}

// Which operations return a value, and which must have it assigned.
void Parser::check_returns(const ir::Op& op) {
  if (op.code == OpCode::read && op.dest_var >= 0 && op.bufs.size() != 1)
    fail(op.loc, "'r = read' returns the value of one buffer: name one");
  const OpCode code = op.code;
  const std::string kw(ir::op_keyword(code));
  if (op.dest_var >= 0 && !ir::op_has(code, ir::opf::returns)) fail(op.loc, "'" + kw + "' returns no value to assign");
  if (op.dest_var < 0 && ir::op_has(code, ir::opf::result_required))
    fail(op.loc, "'" + kw + "' returns a value: write 'r = " + kw + " ...'");
}

int Parser::token_var() {
  const Token& tk = peek();
  const std::string n = name("a variable holding a token");
  auto it = vars_.find(n);
  if (it == vars_.end()) fail(tk.loc, "unknown variable '" + n + "'");
  return it->second;
}

// The operands of each form (ir::Operands, the op table's operand form), as
// docs/dsl.md lists them; options and limits per op where one form serves
// several.
void Parser::operands(ir::Op& op, OptionLocs& at) {
  const OpCode code = op.code;
  const std::string kw(ir::op_keyword(code));
  switch (ir::op_operands(code)) {
    case ir::Operands::none: return;
    case ir::Operands::buffers:
      buffer_list(op, "buffer", true);
      // A value stored in shared memory (State::values): one word, by one lane.
      if (code == OpCode::write && accept("value")) {
        if (op.bufs.size() != 1) fail(op.loc, "'write ... value V' stores one word: name one buffer");
        if (op.lanes != ir::Lanes::one) fail(op.loc, "a value is stored by one lane: write 'one: write BUF value V'");
        op.value = expr();
      }
      return;
    case ir::Operands::buffer:
      op.bufs.push_back(ref(buffers_, "buffer", false));
      // cp.async.bulk.tensor.global.shared::cta: the global destination.
      while (code == OpCode::tma_store && peek().kind == Tok::name) {
        if (accept("to")) op.global = ref(buffers_, "global buffer", false);
        else if (accept("map")) op.tmap = ref(buffers_, "tensor map", false);
        else break;
      }
      return;
    case ir::Operands::tmem_buffers: {
      buffer_list(op, "tensor-memory buffer", false);
      // `lanes Q`: the lane quarter the warp addresses (its taddr's lane / 32),
      // checked against its warp rank (spec::tmem::lane_quarter), which the
      // role's placement gives: a warpgroup's warps are aligned, another
      // role says where it is with `at warp W`.
      if (is("lanes")) {
        const ir::Loc at = next().loc;
        if (role_ && role_->first_warp < 0 && !(role_->granularity == ir::Granularity::warpgroup && role_->warps == 0))
          fail(at, "'lanes' needs the warp rank of the role's warps (the quarter a warp may address is its rank % 4): "
                   "declare where the role is, 'role " + role_->name + " ... at warp W'");
        op.quarter = expr();
      }
      return;
    }
    case ir::Operands::init:
      op.bar = ref(mbars_, "mbarrier", false);
      expect("count");
      op.count = expr();
      return;
    // mbarrier.arrive{.noComplete}, arrive_drop{.noComplete}{.expect_tx},
    // arrive.expect_tx (PTX ISA mbarrier.arrive, mbarrier.arrive_drop).
    case ir::Operands::arrive:
      op.bar = ref(mbars_, "mbarrier");
      at = options(op, {.count = true,
                        .bytes = code != OpCode::mbar_arrive,
                        .sem = true,
                        .scope = true,
                        .nocomplete = code != OpCode::mbar_arrive_expect_tx});
      if (code == OpCode::mbar_arrive_expect_tx && op.bytes == ir::no_expr) fail(op.loc, "arrive_expect_tx needs 'bytes B'");
      return;
    // mbarrier.expect_tx / complete_tx{.sem}{.scope}: ".sem = { .relaxed }",
    // ".scope = { .cta, .cluster }" (PTX ISA mbarrier.expect_tx,
    // mbarrier.complete_tx): neither releases nor acquires, whatever the scope.
    case ir::Operands::tx: {
      op.bar = ref(mbars_, "mbarrier");
      const OptionLocs tx_at = options(op, {.bytes = true, .sem = true, .scope = true});
      if (op.bytes == ir::no_expr) fail(op.loc, kw + " needs 'bytes B'");
      if (op.sem != ir::Sem::standard && op.sem != ir::Sem::relaxed)
        fail(tx_at.sem, "'" + kw + "' is relaxed only (PTX ISA mbarrier." + kw + ": .sem = { .relaxed }): drop the option or write 'relaxed'");
      return;
    }
    case ir::Operands::wait: wait_operands(op); return;
    case ir::Operands::token: op.token_var = token_var(); return;
    case ir::Operands::barrier: op.bar = ref(mbars_, "mbarrier", false); return;
    case ir::Operands::named:
    case ir::Operands::named_red: named_operands(op); return;
    case ir::Operands::waitcnt: waitcnt_operands(op); return;
    case ir::Operands::tma_load: tma_load_operands(op); return;
    case ir::Operands::count: op.n = expr(); return;
    case ir::Operands::cp_async_arrive:
      op.bar = ref(mbars_, "mbarrier", false);
      if (accept("noinc")) op.noinc = true;
      return;
    case ir::Operands::async_store: async_store_operands(op); return;
    case ir::Operands::mma: mma_operands(op); return;
    case ir::Operands::regs: regs_operands(op); return;
    case ir::Operands::tmem_alloc: tmem_allocation(op); return;
    case ir::Operands::tmem_cp:
      op.bufs.push_back(ref(buffers_, "buffer", false));
      expect("->");
      op.tmem = ref(buffers_, "tensor-memory buffer", false);
      return;
    case ir::Operands::tmem_pair:
      op.tmem = ref(buffers_, "tensor-memory buffer", false);
      cta_group(op);
      return;
    case ir::Operands::clc_request:
      op.bufs.push_back(ref(buffers_, "buffer", false));
      expect("->");
      op.bar = ref(mbars_, "mbarrier", false);
      if (accept("multicast")) op.multicast = expr();
      return;
    case ir::Operands::commit:
      op.bar = ref(mbars_, "mbarrier", false);
      if (accept("multicast")) op.multicast = expr();
      cta_group(op);
      return;
    case ir::Operands::pair: cta_group(op); return;
    case ir::Operands::scope:
      options(op, {.scope = true});
      // PTX ISA membar/fence: fence{.sem}.scope, the scope is not optional.
      if (op.scope == ir::Scope::standard) fail(op.loc, "'" + kw + "' needs a scope: write '" + kw + " cta' or '" + kw + " cluster'");
      return;
    case ir::Operands::scope_restrict: fence_restrict(op); return;
    // bar.warp.sync membermask / elect.sync membermask (PTX ISA).
    case ir::Operands::warp_mask:
      if (accept("mask")) op.mask = expr();
      return;
    case ir::Operands::sem: options(op, {.sem = true}); return;
    // fence.proxy.async{.global|.shared::cta|.shared::cluster} (PTX ISA
    // membar/fence), and the one-way generic-to-async proxy fences, which
    // PTX has only with these restrictions:
    // fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster
    // and fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster.
    case ir::Operands::proxy_space:
      if (accept("global")) op.space = ir::ProxySpace::global;
      else if (accept("shared_cta")) op.space = ir::ProxySpace::shared_cta;
      else if (accept("shared_cluster")) op.space = ir::ProxySpace::shared_cluster;
      else if (accept("release")) op.sem = ir::Sem::release, op.space = ir::ProxySpace::shared_cta;
      else if (accept("acquire")) op.sem = ir::Sem::acquire, op.space = ir::ProxySpace::shared_cluster;
      return;
    // fence.proxy.tensormap::generic.release.scope and
    // fence.proxy.tensormap::generic.acquire.scope [addr], 128 (PTX ISA
    // membar/fence: the acquire form names the tensor map it orders). The
    // scope is taken and not modelled (docs/spec.md, "Tensor maps").
    case ir::Operands::tensormap_fence: {
      if (accept("release")) op.sem = ir::Sem::release;
      else if (accept("acquire")) op.sem = ir::Sem::acquire, op.tmap = ref(buffers_, "tensor map", false);
      else fail(peek().loc, "'" + kw + "' needs 'release' or 'acquire TMAP' (fence.proxy.tensormap::generic.release / .acquire [addr], 128)");
      tensormap_scope();
      return;
    }
    // tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.scope.sync.aligned
    // [dst], [src], 128: a copy of the tensor map in shared memory to global
    // memory, then a release proxy fence (PTX ISA tensormap.cp_fenceproxy).
    case ir::Operands::tensormap_copy:
      op.bufs.push_back(ref(buffers_, "buffer", false));
      expect("to");
      op.tmap = ref(buffers_, "tensor map", false);
      tensormap_scope();
      return;
  }
}

// The .scope of a tensormap proxy fence (.cta, .cluster, .gpu, .sys): taken,
// not modelled.
void Parser::tensormap_scope() {
  if (peek().kind == Tok::name && (peek().text == "cta" || peek().text == "cluster" || peek().text == "gpu" || peek().text == "sys")) next();
}

// fence.release / fence.acquire: the scope, and the .sync_restrict state
// space each may take (PTX ISA membar/fence: "When .sync_restrict is
// .sync_restrict::shared::cta, .sem must be .release ... when .sync_restrict
// is .sync_restrict::shared::cluster, .sem must be .acquire ... When either
// ... is present, the .scope must be specified as .cluster").
void Parser::fence_restrict(ir::Op& op) {
  const bool release = op.code == OpCode::fence_release;
  const std::string kw(ir::op_keyword(op.code));
  const char* own = release ? "shared_cta" : "shared_cluster";
  const char* other = release ? "shared_cluster" : "shared_cta";
  ir::Loc at = op.loc;
  bool restricted = false;
  while (peek().kind == Tok::name) {
    const Token& tk = peek();
    if (tk.text == other)
      fail(tk.loc, "'" + kw + "' cannot be restricted to " + other + ": PTX has " +
                       (release ? "fence.release.sync_restrict::shared::cta and fence.acquire.sync_restrict::shared::cluster"
                                : "fence.acquire.sync_restrict::shared::cluster and fence.release.sync_restrict::shared::cta") +
                       " only (PTX ISA membar/fence: \"When .sync_restrict is .sync_restrict::shared::cta, .sem must be "
                       ".release\"; \"when .sync_restrict is .sync_restrict::shared::cluster, .sem must be .acquire\")");
    if (tk.text == own && !restricted) {
      at = next().loc;
      restricted = true;
    } else if ((tk.text == "cta" || tk.text == "cluster") && op.scope == ir::Scope::standard) {
      op.scope = next().text == "cta" ? ir::Scope::cta : ir::Scope::cluster;
    } else {
      fail(tk.loc, "unexpected '" + tk.text + "' after " + kw + ": it takes " + std::string(ir::op_operands_doc(op.code)));
    }
  }
  if (op.scope == ir::Scope::standard && !restricted)
    fail(op.loc, "'" + kw + "' needs a scope: write '" + kw + " cta' or '" + kw + " cluster'");
  if (restricted && op.scope != ir::Scope::cluster)
    fail(at, "'" + kw + " " + own + "' needs the scope cluster (PTX ISA membar/fence: \"When either .sync_restrict::shared::cta "
                 "or .sync_restrict::shared::cluster is present, the .scope must be specified as .cluster\")");
  if (restricted) op.space = release ? ir::ProxySpace::shared_cta : ir::ProxySpace::shared_cluster;
}

// BUF[i] {, BUF[j]}, each with `@ CTA` where the form allows it.
void Parser::buffer_list(ir::Op& op, const char* kind, bool allow_cta) {
  op.bufs.push_back(ref(buffers_, kind, allow_cta));
  while (accept(",")) op.bufs.push_back(ref(buffers_, kind, allow_cta));
}

// BAR[i] [@ CTA] (parity P | token T) [acquire|relaxed] [cta|cluster] (PTX ISA
// mbarrier.test_wait / try_wait, and the wait loop around them).
void Parser::wait_operands(ir::Op& op) {
  op.bar = ref(mbars_, "mbarrier");
  if (accept("parity")) {
    const ir::Loc ploc = peek().loc;
    op.parity = expr();
    check_parity(op.parity, ploc);
  } else if (accept("token")) {
    op.token_var = token_var();
  } else {
    expected("'parity P' or 'token T'");
  }
  options(op, {.sem = true, .scope = true});
}

// bar_sync / bar_arrive ID[, THREADS] and bar_red OP ID[, THREADS], P (PTX
// ISA bar, barrier).
void Parser::named_operands(ir::Op& op) {
  const bool red = ir::op_operands(op.code) == ir::Operands::named_red;
  if (red) {
    const Token& tk = peek();
    const std::string r = name("popc, and or or");
    if (r == "popc") op.red = ir::Red::popc;
    else if (r == "and") op.red = ir::Red::and_;
    else if (r == "or") op.red = ir::Red::or_;
    else fail(tk.loc, "expected popc, and or or, found '" + r + "'");
  }
  op.id = expr();
  if (accept(",")) op.count = expr();
  if (red) {
    expect(",");
    op.n = expr();
  }
}

// As the AMDGPU assembler writes it: vmcnt(N) and lgkmcnt(N) in any order,
// optionally separated by '&' or ','. The counter ranges depend on the chip:
// checked with the target (check_target_op).
void Parser::waitcnt_operands(ir::Op& op) {
  while (peek().kind == Tok::name) {
    const Token& c = next();
    ExprId* slot = c.text == "vmcnt" ? &op.n : c.text == "lgkmcnt" ? &op.count : nullptr;
    if (!slot) fail(c.loc, "unexpected '" + c.text + "' after s_waitcnt: it takes vmcnt(N) and/or lgkmcnt(N)");
    if (*slot != ir::no_expr) fail(c.loc, c.text + " is given twice");
    expect("(");
    *slot = expr();
    expect(")");
    if (!accept("&")) accept(",");
  }
  if (op.n == ir::no_expr && op.count == ir::no_expr)
    fail(op.loc, "s_waitcnt needs the counters to wait for: vmcnt(N), lgkmcnt(N), or both");
}

void Parser::tma_load_operands(ir::Op& op) {
  op.bufs.push_back(ref(buffers_, "buffer", false));
  expect("->");
  op.bar = ref(mbars_, "mbarrier");
  while (peek().kind == Tok::name) {
    if (accept("bytes")) op.bytes = expr();
    else if (accept("multicast")) op.multicast = expr();
    else if (accept("from")) op.global = ref(buffers_, "global buffer", false);
    else if (accept("map")) op.tmap = ref(buffers_, "tensor map", false);
    else fail(peek().loc, "unexpected '" + peek().text + "' after tma_load: it takes " + std::string(ir::op_operands_doc(op.code)));
  }
}

// st.async / red.async .shared::cluster.mbarrier::complete_tx::bytes: the
// access and its barrier are in one CTA (PTX ISA st.async, red.async: "belong
// to the same CTA"), named once with the buffer; red.async's is another CTA
// than the issuer's.
void Parser::async_store_operands(ir::Op& op) {
  const std::string kw(ir::op_keyword(op.code));
  const bool red = op.code == OpCode::red_async;
  const ir::Loc at = peek().loc;
  if (k_.cluster_ctas < 2 && k_.target == ir::Target::nvidia)  // (AMD: the target check names the instruction)
    fail(at, kw + " needs a cluster of more than one CTA (PTX ISA " + (red ? "red.async" : "st.async") +
                 ": %cluster_nctarank > 1, else undefined); declare 'cluster N' first");
  op.bufs.push_back(ref(buffers_, "buffer"));
  if (red && op.bufs[0].cta == ir::no_expr && k_.target == ir::Target::nvidia)
    fail(op.bufs[0].loc, "red_async reduces into another CTA's shared memory (PTX ISA red.async: \"different from the CTA of "
                         "the executing thread\"): name it with '@ CTA'");
  expect("->");
  op.bar = ref(mbars_, "mbarrier", false);
  op.bar.cta = op.bufs[0].cta;
  expect("bytes");
  const ir::Loc bl = peek().loc;
  op.bytes = expr();
  if (const auto v = const_value(op.bytes); v && !(red ? spec::rules::red_async_bytes_valid(*v) : spec::rules::st_async_bytes_valid(*v)))
    fail(bl, red ? "red_async reduces 4 or 8 bytes per thread (.u32/.s32/.b32, .u64), not " + std::to_string(*v)
                 : "st_async stores 4, 8 or 16 bytes per thread (.b32, .b64 / .v2.b32, .v4.b32 / .v2.b64 / .b128), not " +
                       std::to_string(*v));
}

// wgmma / tcgen05_mma read BUF[i] {, BUF[j]}; a wgmma that takes A from
// registers (`regs a`: "input registers containing the fragments of matrix
// A", PTX ISA wgmma.fence); tcgen05's accumulator in tensor memory
// (`into TMEM[k]`) and its CTA pair (`cta_group 2`).
void Parser::mma_operands(ir::Op& op) {
  expect("read");
  buffer_list(op, "buffer", true);
  if (op.code == ir::OpCode::wgmma) {
    if (accept("regs")) {
      if (!accept("a")) expected("'a' (the wgmma takes A's fragments from registers: 'regs a')");
      op.regs = spec::agent::regs_a;
    }
    return;
  }
  if (!ir::op_has(op.code, ir::opf::pair)) return;
  if (accept("into")) op.tmem = ref(buffers_, "tensor-memory buffer", false);
  cta_group(op);
}

// wgmma_regs acc|a {, acc|a}: the agent's threads access the accumulator
// registers of its wgmmas (`acc`) or the A fragments of those that take A from
// registers (`a`): PTX ISA wgmma.fence, "Between a register access by a
// thread in the warpgroup and any wgmma.mma_async instruction that accesses
// the same registers" (spec::agent::regs_acc, regs_a).
void Parser::regs_operands(ir::Op& op) {
  do {
    if (accept("acc")) op.regs |= spec::agent::regs_acc;
    else if (accept("a")) op.regs |= spec::agent::regs_a;
    else expected("'acc' or 'a' (the accumulator registers, or the A fragments in registers)");
  } while (accept(","));
}

// tcgen05_alloc / tcgen05_dealloc NAME: the whole declaration, one allocation.
void Parser::tmem_allocation(ir::Op& op) {
  const std::string kw(ir::op_keyword(op.code));
  const Token& t = peek();
  const std::string n = name("a tensor-memory buffer");
  auto it = buffers_.find(n);
  if (it == buffers_.end()) {
    if (broken_.count(n)) silent();
    std::vector<std::string> known;
    for (const auto& [b, i] : buffers_)
      if (k_.buffers[static_cast<std::size_t>(i)].space == ir::Space::tensor) known.push_back(b);
    fail(t.loc, "unknown tensor-memory buffer '" + n + "'" + suggest(n, known));
  }
  op.tmem.object = it->second;
  op.tmem.loc = t.loc;
  if (peek().kind == Tok::punct && peek().text == "[")
    fail(peek().loc, kw + " takes the whole declaration '" + n + "' (one allocation of all its elements): drop the index");
  cta_group(op);
}

// `cta_group 1|2` after a tcgen05 operation's operands (PTX .cta_group::1 /
// ::2): 2 is the CTA pair of spec/tmem.hpp, which needs a cluster of an
// even number of CTAs (each CTA's peer differs in bit 0 of its rank).
void Parser::cta_group(ir::Op& op) {
  if (!accept("cta_group")) return;
  const ir::Loc at = peek().loc;
  op.cta_pair = const_expr("the cta_group", 1, spec::tmem::max_cta_group) == spec::tmem::max_cta_group;
  if (op.cta_pair && (k_.cluster_ctas < 2 || k_.cluster_ctas % 2 != 0))
    fail(at, "cta_group 2 works on a CTA pair (PTX ISA tcgen05, \"CTA Pair\"): declare 'cluster N' with N even first (this "
             "kernel's cluster has " + std::to_string(k_.cluster_ctas) + " CTA" + (k_.cluster_ctas == 1 ? "" : "s") + ")");
}

}  // namespace pc::dsl::detail
