// The op table (checker/ops.hpp) against the code that does not read it:
// the keywords the front end accepts, the `cta_group 2` operand the parser
// takes, and the families the explorer's handlers live in. The table's own
// consistency is static_asserted where it is written; that an op the table
// says never blocks is never disabled is checked by every step the explorer
// takes (checker/step/exec.cpp, an internal error).
#include <doctest/doctest.h>

#include <filesystem>
#include <set>
#include <string>

#include "checker/dsl/parser.hpp"
#include "checker/ops.hpp"
#include "tests/cli_support.hpp"
#include "tests/op_samples.hpp"

using namespace pc;

TEST_CASE("op table: one row per op code, in enum order, each keyword its own") {
  std::set<std::string> keywords;
  for (int i = 0; i < ir::op_count; ++i) {
    const auto c = static_cast<ir::OpCode>(i);
    const std::string kw(ir::op_keyword(c));
    CAPTURE(kw);
    CHECK(keywords.insert(kw).second);
    REQUIRE(ir::op_from_keyword(kw).has_value());
    CHECK(*ir::op_from_keyword(kw) == c);
  }
  CHECK(op_samples::all_ops().size() == static_cast<std::size_t>(ir::op_count));
  CHECK_FALSE(ir::op_from_keyword("bar.sync").has_value());
}

TEST_CASE("op table: the ops that take `cta_group 2` are the ones the table marks") {
  int pair = 0;
  for (const ir::OpCode c : op_samples::all_ops()) {
    if (ir::op_target(c) != ir::OpTarget::nvidia) continue;
    const std::string kw(ir::op_keyword(c));
    CAPTURE(kw);
    const dsl::Parsed p = dsl::parse(op_samples::kernel_with("nvidia", op_samples::sample(c) + " cta_group 2"), "t.bk");
    std::string errors;
    for (const dsl::Diagnostic& d : p.errors) errors += d.message + "\n";
    CAPTURE(errors);
    if (ir::op_has(c, ir::opf::pair)) {
      ++pair;
      CHECK(errors.find("cta_group") == std::string::npos);
    } else {
      CHECK_FALSE(p.errors.empty());
    }
  }
  CHECK(pair >= 6);  // tcgen05.mma, .commit, .alloc, .dealloc, .relinquish_alloc_permit, .shift, ...
}

TEST_CASE("op table: each family's handlers are in its file of checker/step/") {
  // The file of each family (docs/checker.md, "The language module").
  auto file_of = [](ir::OpFamily f) -> std::string {
    switch (f) {
      case ir::OpFamily::memory:
      case ir::OpFamily::fence: return "memory";
      case ir::OpFamily::mbarrier: return "mbarrier";
      case ir::OpFamily::named: return "named";
      case ir::OpFamily::cluster:
      case ir::OpFamily::clc: return "cluster";
      case ir::OpFamily::bulk:
      case ir::OpFamily::cp_async: return "async";
      case ir::OpFamily::wgmma:
      case ir::OpFamily::tcgen05: return "tensor";
      case ir::OpFamily::amd: return "amd";
      case ir::OpFamily::control: return "exec";
    }
    return "";
  };
  const std::string dir = cli_support::src + "/checker/step/";
  for (int i = 0; i < ir::op_count; ++i) {
    const auto c = static_cast<ir::OpCode>(i);
    const std::string handler = "Exec::on_" + std::string([&] {
      // The enumerator's name is not in the table: find it by its keyword's
      // handler, declared once per op by the X-macro (exec.hpp).
      switch (c) {
#define PC_X(e, ...) \
  case ir::OpCode::e: return #e;
        PC_OPS(PC_X)
#undef PC_X
      }
      return "";
    }()) + "(";
    CAPTURE(handler);
    const std::string text = cli_support::slurp(dir + file_of(ir::op_family(c)) + ".cpp");
    CHECK(text.find(handler) != std::string::npos);
  }
}
