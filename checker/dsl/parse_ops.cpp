// An operation's operands, read per object family (mbarrier, named barrier,
// bulk copies, tensor memory, ...) as docs/dsl.md lists them.
#include "checker/dsl/parser_impl.hpp"

#include <string>
#include <vector>

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

Parser::OptionLocs Parser::options(ir::Op& op, bool allow_count, bool allow_bytes, bool allow_sem, bool allow_scope,
                                   bool allow_nocomplete) {
  OptionLocs at;
  while (peek().kind == Tok::name) {
    const Token& tk = peek();
    if (allow_count && tk.text == "count") {
      at.count = next().loc;
      op.count = expr();
    } else if (allow_bytes && tk.text == "bytes") {
      at.bytes = next().loc;
      op.bytes = expr();
    } else if (allow_sem && (tk.text == "release" || tk.text == "relaxed" || tk.text == "acquire")) {
      at.sem = next().loc;
      op.sem = tk.text == "release" ? ir::Sem::release : tk.text == "relaxed" ? ir::Sem::relaxed : ir::Sem::acquire;
    } else if (allow_scope && (tk.text == "cta" || tk.text == "cluster")) {
      at.scope = next().loc;
      op.scope = tk.text == "cta" ? ir::Scope::cta : ir::Scope::cluster;
    } else if (allow_nocomplete && tk.text == "nocomplete") {
      at.nocomplete = next().loc;
      op.no_complete = true;
    } else {
      fail(tk.loc, "unexpected '" + tk.text + "' after " + std::string(ir::op_keyword(op.code)) + ": it takes " +
                       std::string(ir::op_operands_doc(op.code)));
    }
  }
  return at;
}

// An operation: its lane prefix, its operands (read per object family below),
// and the checks of the whole operation (parse_checks.cpp).
ir::Op Parser::op(OpCode code, ir::Loc loc, ir::Lanes lanes, bool lanes_given, int dest) {
  ir::Op op;
  op.code = code;
  op.loc = loc;
  op.lanes = lanes;
  op.dest_var = dest;
  check_lane_prefix(op, lanes_given);
  OptionLocs at;
  if (!mbarrier_operands(op, at) && !named_operands(op) && !copy_operands(op) && !tensor_operands(op))
    other_operands(op);
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
                     (op.lanes == ir::Lanes::one ? "one:" : "each:") + "'");
  if (lanes_given && policy == ir::LanePolicy::leader && op.lanes != ir::Lanes::one)
    fail(op.loc, "'" + kw + "' is issued by one elected lane: write 'one:' or no prefix");
  // Without a prefix an mbarrier.init / inval is one thread's (the kernel
  // guards it to one thread); `all:` / `each:` are every thread's.
  if (!lanes_given && policy == ir::LanePolicy::single) op.lanes = ir::Lanes::one;
}

// Which operations return a value, and which must have it assigned.
void Parser::check_returns(const ir::Op& op) {
  const OpCode code = op.code;
  const std::string kw(ir::op_keyword(code));
  const bool returns = code == OpCode::clc_query || code == OpCode::mbar_test_wait || code == OpCode::mbar_try_wait || code == OpCode::mbar_pending_count ||
                       code == OpCode::bar_red || code == OpCode::mbar_arrive || code == OpCode::mbar_arrive_expect_tx ||
                       code == OpCode::mbar_arrive_drop;
  if (op.dest_var >= 0 && !returns) fail(op.loc, "'" + kw + "' returns no value to assign");
  if (op.dest_var < 0 && (code == OpCode::mbar_test_wait || code == OpCode::mbar_try_wait || code == OpCode::mbar_pending_count ||
                          code == OpCode::bar_red || code == OpCode::clc_query))
    fail(op.loc, "'" + kw + "' returns a value: write 'r = " + kw + " ...'");
}

int Parser::token_var() {
  const Token& tk = peek();
  const std::string n = name("a variable holding a token");
  auto it = vars_.find(n);
  if (it == vars_.end()) fail(tk.loc, "unknown variable '" + n + "'");
  return it->second;
}

// The operands of an mbarrier operation (PTX ISA mbarrier.*); false for
// another family's operation.
bool Parser::mbarrier_operands(ir::Op& op, OptionLocs& at) {
  const std::string kw(ir::op_keyword(op.code));
  switch (op.code) {
    case OpCode::mbar_init:
      op.bar = ref(mbars_, "mbarrier", false);
      expect("count");
      op.count = expr();
      return true;
    case OpCode::mbar_arrive:
      op.bar = ref(mbars_, "mbarrier");
      at = options(op, true, false, true, true, true);
      return true;
    case OpCode::mbar_arrive_drop:
      op.bar = ref(mbars_, "mbarrier");
      at = options(op, true, true, true, true, true);
      return true;
    case OpCode::mbar_arrive_expect_tx:
      op.bar = ref(mbars_, "mbarrier");
      at = options(op, true, true, true, true, false);
      if (op.bytes == ir::no_expr) fail(op.loc, "arrive_expect_tx needs 'bytes B'");
      return true;
    case OpCode::mbar_expect_tx:
    case OpCode::mbar_complete_tx:
      op.bar = ref(mbars_, "mbarrier");
      options(op, false, true, false, false, false);
      if (op.bytes == ir::no_expr) fail(op.loc, kw + " needs 'bytes B'");
      return true;
    case OpCode::mbar_wait:
    case OpCode::mbar_test_wait:
    case OpCode::mbar_try_wait:
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
      options(op, false, false, true, true, false);
      return true;
    case OpCode::mbar_pending_count: op.token_var = token_var(); return true;
    case OpCode::mbar_inval: op.bar = ref(mbars_, "mbarrier", false); return true;
    default: return false;
  }
}

// bar_sync / bar_arrive ID[, THREADS] and bar_red OP ID[, THREADS], P (PTX
// ISA bar, barrier).
bool Parser::named_operands(ir::Op& op) {
  const OpCode code = op.code;
  if (code != OpCode::bar_sync && code != OpCode::bar_arrive && code != OpCode::bar_red) return false;
  if (code == OpCode::bar_red) {
    const Token& tk = peek();
    const std::string r = name("popc, and or or");
    if (r == "popc") op.red = ir::Red::popc;
    else if (r == "and") op.red = ir::Red::and_;
    else if (r == "or") op.red = ir::Red::or_;
    else fail(tk.loc, "expected popc, and or or, found '" + r + "'");
  }
  op.id = expr();
  if (accept(",")) op.count = expr();
  if (code == OpCode::bar_red) {
    expect(",");
    op.n = expr();
  }
  return true;
}

// Accesses and copies: read, write, cp.async, TMA, st.async / red.async, the
// bulk and cp.async groups, and AMD's loads into LDS and s_waitcnt.
bool Parser::copy_operands(ir::Op& op) {
  switch (op.code) {
    case OpCode::read:
    case OpCode::write:
    case OpCode::cp_async:
      op.bufs.push_back(ref(buffers_, "buffer"));
      while (accept(",")) op.bufs.push_back(ref(buffers_, "buffer"));
      return true;
    case OpCode::global_load_lds: op.bufs.push_back(ref(buffers_, "buffer", false)); return true;
    case OpCode::s_waitcnt:
      // As the AMDGPU assembler writes it: vmcnt(N) and lgkmcnt(N) in any
      // order, optionally separated by '&' or ','. The counter ranges depend
      // on the chip: checked with the target (check_target_op).
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
      return true;
    case OpCode::tma_store:
    case OpCode::tma_reduce: op.bufs.push_back(ref(buffers_, "buffer", false)); return true;
    case OpCode::tma_load:
      op.bufs.push_back(ref(buffers_, "buffer", false));
      expect("->");
      op.bar = ref(mbars_, "mbarrier");
      while (peek().kind == Tok::name) {
        if (accept("bytes")) op.bytes = expr();
        else if (accept("multicast")) op.multicast = expr();
        else fail(peek().loc, "unexpected '" + peek().text + "' after tma_load: it takes " + std::string(ir::op_operands_doc(op.code)));
      }
      return true;
    case OpCode::bulk_wait_group:
    case OpCode::bulk_wait_group_read:
    case OpCode::cp_async_wait: op.n = expr(); return true;
    case OpCode::cp_async_mbarrier_arrive:
      op.bar = ref(mbars_, "mbarrier", false);
      if (accept("noinc")) op.noinc = true;
      return true;
    case OpCode::st_async:
    case OpCode::red_async: async_store_operands(op); return true;
    default: return false;
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

// Tensor cores, tensor memory (tcgen05) and cluster launch control.
bool Parser::tensor_operands(ir::Op& op) {
  const OpCode code = op.code;
  switch (code) {
    case OpCode::wgmma:
    case OpCode::tcgen05_mma:
      expect("read");
      op.bufs.push_back(ref(buffers_, "buffer"));
      while (accept(",")) op.bufs.push_back(ref(buffers_, "buffer"));
      if (code == OpCode::tcgen05_mma && accept("into")) op.tmem = ref(buffers_, "tensor-memory buffer", false);
      if (code == OpCode::tcgen05_mma) cta_group(op);
      return true;
    case OpCode::wgmma_wait: op.n = expr(); return true;
    case OpCode::tcgen05_alloc:
    case OpCode::tcgen05_dealloc: tmem_allocation(op); return true;
    case OpCode::tcgen05_ld:
    case OpCode::tcgen05_st:
      op.bufs.push_back(ref(buffers_, "tensor-memory buffer", false));
      while (accept(",")) op.bufs.push_back(ref(buffers_, "tensor-memory buffer", false));
      return true;
    case OpCode::tcgen05_cp:
      op.bufs.push_back(ref(buffers_, "buffer", false));
      expect("->");
      op.tmem = ref(buffers_, "tensor-memory buffer", false);
      return true;
    case OpCode::clc_try_cancel:
      op.bufs.push_back(ref(buffers_, "buffer", false));
      expect("->");
      op.bar = ref(mbars_, "mbarrier", false);
      if (accept("multicast")) op.multicast = expr();
      return true;
    case OpCode::clc_query: op.bufs.push_back(ref(buffers_, "buffer", false)); return true;
    case OpCode::tcgen05_commit:
      op.bar = ref(mbars_, "mbarrier", false);
      if (accept("multicast")) op.multicast = expr();
      cta_group(op);
      return true;
    case OpCode::tcgen05_relinquish: cta_group(op); return true;
    default: return false;
  }
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

// Fences and the cluster barrier take options; the rest take no operands.
void Parser::other_operands(ir::Op& op) {
  const std::string kw(ir::op_keyword(op.code));
  switch (op.code) {
    case OpCode::cluster_arrive: options(op, false, false, true, false, false); break;
    case OpCode::fence_acq_rel:
    case OpCode::fence_sc:
      options(op, false, false, false, true, false);
      // PTX ISA membar/fence: fence{.sem}.scope, the scope is not optional.
      if (op.scope == ir::Scope::standard) fail(op.loc, "'" + kw + "' needs a scope: write '" + kw + " cta' or '" + kw + " cluster'");
      break;
    default: break;  // no operands
  }
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
