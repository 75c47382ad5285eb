// Statements inside a role: blocks, for, if/elif/else, either/or, pass, if lane == 0, assert,
// assignments and operations with their lane prefix.
#include "checker/dsl/parser_impl.hpp"

#include <string>
#include <vector>

namespace pc::dsl::detail {

void Parser::block(std::vector<ir::Stmt>& out) {
  expect(":");
  if (peek().kind != Tok::newline) expected("end of line after ':'");
  next();
  if (peek().kind != Tok::indent) fail(peek().loc, "expected an indented block after ':'");
  next();
  const Nest nest(depth_, max_block_depth);
  if (nest.over()) stop(peek().loc, "blocks nested too deeply (the limit is 64; each elif counts as one level)");
  while (peek().kind != Tok::dedent && peek().kind != Tok::end) {
    if (peek().kind == Tok::newline) {
      next();
      continue;
    }
    try {
      statement(out);
    } catch (const Fail&) {
      if (static_cast<int>(errors_.size()) >= max_errors) throw;
      recover();
    }
  }
  if (peek().kind == Tok::dedent) next();
}

// After 'if' (or 'elif'): the condition, the block, and an elif/else chain.
void Parser::if_rest(ir::Stmt& s) {
  s.kind = ir::StmtKind::if_else;
  s.expr = expr();
  block(s.body);
  if (is("elif")) {
    // An elif is an if nested in the else branch (of the IR, and of every
    // pass that walks it): it counts against the nesting limit.
    ir::Stmt inner;
    inner.loc = next().loc;
    const Nest nest(depth_, max_block_depth);
    if (nest.over()) stop(inner.loc, "blocks nested too deeply (the limit is 64; each elif counts as one level)");
    if_rest(inner);
    s.else_body.push_back(std::move(inner));
  } else if (accept("else")) {
    block(s.else_body);
  }
}

void Parser::statement(std::vector<ir::Stmt>& out) {
  const Token& tk = peek();
  if (tk.kind == Tok::indent) fail(tk.loc, "unexpected indentation");
  if (tk.kind != Tok::name) expected("a statement");
  ir::Stmt s;
  s.loc = tk.loc;
  if (tk.text == "for") {
    next();
    const ir::Loc vloc = peek().loc;
    const std::string v = name("a loop variable");
    if (is_builtin(v))
      fail(t_[pos_ - 1].loc, "'" + v + "' is a builtin and cannot be a loop variable");
    expect("in");
    s.kind = ir::StmtKind::for_loop;
    s.lo = expr();
    expect("..");
    s.hi = expr();
    s.var = define_var(v, vloc);
    block(s.body);
    out.push_back(std::move(s));
    return;
  }
  if (tk.text == "if") {
    next();
    // `if lane == 0:` (CUDA's `if (lane_id == 0)`, or elect.sync): the
    // operations in the block are executed by the elected lane of each warp.
    if (is("lane") && is("==", 1) && peek(2).kind == Tok::number && peek(2).value == 0 && is(":", 3)) {
      next();
      next();
      next();
      ++lane0_;
      try {
        block(out);
      } catch (...) {
        --lane0_;
        throw;
      }
      --lane0_;
      if (is("else") || is("elif"))
        fail(peek().loc, "'if lane == 0:' has no '" + peek().text + "': the other lanes run what follows the block");
      return;
    }
    if_rest(s);
    out.push_back(std::move(s));
    return;
  }
  if (tk.text == "else" || tk.text == "elif") fail(tk.loc, "'" + tk.text + "' without a matching 'if'");
  // `either: ... or: ...`: the agent takes one way or the other, each
  // explored (docs/dsl.md, "either").
  if (tk.text == "either" && is(":", 1)) {
    next();
    s.kind = ir::StmtKind::either;
    block(s.body);
    if (!(is("or") && is(":", 1))) fail(peek().loc, "'either:' needs an 'or:' block after its own (the second way)");
    next();
    block(s.else_body);
    out.push_back(std::move(s));
    return;
  }
  if (tk.text == "or" && is(":", 1)) fail(tk.loc, "'or:' without a matching 'either:'");
  // `pass`: nothing (a way of an either that does nothing).
  if (tk.text == "pass" && peek(1).kind == Tok::newline) {
    next();
    end_of_statement();
    return;
  }
  if (tk.text == "assert") {
    next();
    s.kind = ir::StmtKind::assert_true;
    s.expr = expr();
    end_of_statement();
    out.push_back(std::move(s));
    return;
  }
  // [dest =] [one:|each:|all:|rest:] op ...   or   var = expr
  int dest = -1;
  std::string dest_name;
  if (is("=", 1) && !ir::op_from_keyword(tk.text)) {
    dest_name = tk.text;
    if (is_builtin(dest_name))
      fail(tk.loc, "'" + dest_name + "' is a builtin and cannot be assigned");
    next();
    next();
    const bool lane_prefix = ((is("one") || is("all") || is("each") || is("rest")) && is(":", 1)) || lane_mask_prefix();
    if (!lane_prefix && (peek().kind != Tok::name || !ir::op_from_keyword(peek().text))) {
      if (lane0_ > 0)
        fail(tk.loc, "an assignment under 'if lane == 0:': a variable is the warp's, the same in all its lanes; assign it outside the block");
      s.kind = ir::StmtKind::assign;
      s.expr = expr();
      s.var = define_var(dest_name, s.loc);
      end_of_statement();
      out.push_back(std::move(s));
      return;
    }
  }
  ir::Lanes lanes = ir::Lanes::all;
  bool lanes_given = false;
  // `warp K:`: warp K of the agent executes it (then `one:` or `all:` of that warp).
  int warp = -1;
  ir::Loc warp_loc;
  if (is("warp") && peek(1).kind == Tok::number && is(":", 2)) {
    warp_loc = peek().loc;
    const Token& k = peek(1);
    const int warps = ir::role_warps(*role_);
    const std::int64_t v = k.value;
    if (warps == 1) fail(warp_loc, "role '" + role_->name + "' has one warp: 'warp K:' picks a warp of a role of several; drop it");
    if (v < 0 || v >= warps)
      fail(k.loc, "warp " + k.text + " of role '" + role_->name + "', which has " + std::to_string(warps) + " warps (0.." +
                      std::to_string(warps - 1) + ")");
    warp = static_cast<int>(v);
    next();
    next();
    next();
    if (is("each") && is(":", 1)) fail(peek().loc, "'warp K: each:': 'each:' is every warp's elected lane; write 'warp K: one:'");
    if (is("rest") && is(":", 1))
      fail(peek().loc, "'warp K: rest:': one warp's lanes but its elected lane are not supported; run the warp as a role of "
                       "its own, or under 'if warp == K:'");
  }
  std::uint64_t lane_mask = 0;
  if ((is("one") || is("all") || is("each") || is("rest")) && is(":", 1)) {
    lanes = is("one") ? ir::Lanes::one : is("each") ? ir::Lanes::each : is("rest") ? ir::Lanes::rest : ir::Lanes::all;
    lanes_given = true;
    next();
    next();
  } else if (lane_mask_prefix()) {
    lanes = lanes_by_mask(warp, lane_mask);
    lanes_given = true;
  }
  const Token& optk = peek();
  if (optk.kind != Tok::name) expected("an operation");
  auto code = ir::op_from_keyword(optk.text);
  if (!code) {
    std::vector<std::string> known;
#define PC_X(e, kw, ...) known.emplace_back(kw);
    PC_OPS(PC_X)
#undef PC_X
    fail(optk.loc, "unknown operation '" + optk.text + "'" + suggest(optk.text, known));
  }
  next();
  if (warp >= 0) {
    const std::string kw(ir::op_keyword(*code));
    if (lane0_ > 0) fail(warp_loc, "'warp K:' under 'if lane == 0:': write 'warp K: one:' outside the block");
    if (!warp_op(*code))
      fail(warp_loc, "'" + kw + "' cannot be one warp's of a multi-warp agent: 'warp K:' takes a read, write or consume, an mbarrier "
                     "operation or fence, tma_load, a TMA store and its bulk group's commit and wait, or tcgen05 "
                     "alloc/dealloc/relinquish (the agent's other async units and its "
                     "whole-agent operations are shared by its warps); run the warp as a role of its own, or under 'if warp == K:'");
  }
  if (lane0_ > 0) {
    const std::string kw(ir::op_keyword(*code));
    if (lanes_given) fail(s.loc, "'if lane == 0:' already says which lanes execute '" + kw + "': remove the prefix");
    switch (ir::op_lanes(*code)) {
      case ir::LanePolicy::aligned:
        fail(optk.loc, "'" + kw + "' is executed by all the lanes of a warp together: it cannot be under 'if lane == 0:' (" +
                           std::string(ir::aligned_rule) + ")");
      case ir::LanePolicy::leader: break;  // one elected lane in any case (warps.cpp checks there is one warp)
      case ir::LanePolicy::any:
      case ir::LanePolicy::single:
      case ir::LanePolicy::agent:
        lanes = ir::role_warps(*role_) == 1 ? ir::Lanes::one : ir::Lanes::each;
        lanes_given = true;
        break;
    }
  }
  if (!dest_name.empty()) dest = define_var(dest_name, s.loc);
  s.kind = ir::StmtKind::op;
  s.loc = tk.loc;  // where the statement starts: `r =` or `one:` if present
  s.op = op(*code, optk.loc, lanes, lanes_given, dest, lane_mask);
  s.op.lane0 = lane0_ > 0;
  s.op.warp = static_cast<std::int8_t>(warp);
  if (warp >= 0) s.loc = warp_loc;
  end_of_statement();
  out.push_back(std::move(s));
}

// `lanes M:`, then an operation: the lanes of M in each warp of the agent
// (bit i: lane i; with `warp K:`, in warp K).
// `lanes` is no operation: a statement that starts with it (other than an
// assignment to a variable of that name) is this prefix, and a malformed one
// is an error of the prefix.
bool Parser::lane_mask_prefix() { return is("lanes") && !is("=", 1); }

// Reads `lanes M:` and gives its lane class: M of lane 0 alone is `each:`
// (`one:` in an agent of one warp or under `warp K:`), the whole warp `all:`,
// the whole warp but lane 0 `rest:`, any other mask Lanes::mask.
ir::Lanes Parser::lanes_by_mask(int warp, std::uint64_t& mask) {
  const Token& at = peek();
  next();
  const int ws = ir::warp_size(k_);
  const std::int64_t hi = ws >= 63 ? (std::int64_t{1} << 62) : (std::int64_t{1} << ws) - 1;
  mask = static_cast<std::uint64_t>(const_expr("a lane mask", 1, hi));
  if (!is(":")) expected("':' after the lane mask");
  next();
  const std::uint64_t full = ws >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << ws) - 1;
  if (mask == 1) return warp >= 0 || ir::role_warps(*role_) == 1 ? ir::Lanes::one : ir::Lanes::each;
  if (mask == full) return ir::Lanes::all;
  if (mask == (full & ~std::uint64_t{1})) {
    if (warp >= 0)
      fail(at.loc, "'warp K: lanes M:' with every lane but lane 0: one warp's lanes but its elected lane are not supported; run "
                   "the warp as a role of its own");
    return ir::Lanes::rest;
  }
  return ir::Lanes::mask;
}

}  // namespace pc::dsl::detail
