// The verdict contract (checker/result.hpp): the exit status of each
// outcome and the worst-of order, defined once and used by the CLI, the
// JSON and the text; an unexpected exception is an internal error (exit 4,
// "please report", the kernel named), never bad input; JSON's exit_code is
// the process's exit status; the report layer reads results only; an output
// never overwrites an input.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <new>
#include <set>
#include <stdexcept>
#include <string>

#include "checker/guard.hpp"
#include "checker/program.hpp"
#include "checker/report/report.hpp"
#include "spec/violation.hpp"
#include "tests/cli_support.hpp"
#include "tests/json_mini.hpp"

using namespace pc;

namespace {

using cli_support::Run;

Run run(const std::string& args) { return cli_support::run("cli_contract_test", args); }

report::FileReport guarded(const std::function<void()>& body) {
  report::FileReport f;
  f.file = "k.bk";
  f.kernel = "kern";
  check::run_guarded(f, body);
  return f;
}

}  // namespace

TEST_CASE("exit statuses and the worst-of order are one contract") {
  using check::Exit;
  static_assert(static_cast<int>(Exit::internal) == 4);
  static_assert(check::exit_of(check::Failure::none, check::Verdict::inconclusive) == Exit::inconclusive);
  static_assert(check::exit_of(check::Failure::internal, check::Verdict::verified) == Exit::internal);
  const Exit order[] = {Exit::verified, Exit::violation, Exit::inconclusive, Exit::bad_input, Exit::internal};
  for (std::size_t i = 0; i < 5; ++i)
    for (std::size_t j = 0; j < 5; ++j) CHECK(check::worst(order[i], order[j]) == order[std::max(i, j)]);
}

TEST_CASE("an unexpected exception is an internal error, exit 4, naming the kernel; never bad input") {
  const report::FileReport a = guarded([] { throw std::runtime_error("boom"); });
  CHECK(a.failure == check::Failure::internal);
  CHECK(report::exit_of(a) == check::Exit::internal);
  CHECK(report::outcome_name(a) == "internal_error");
  const std::string text = report::text(a, true);
  CHECK(text.find("k.bk: kern: INTERNAL ERROR: in kernel kern: unexpected exception: boom") != std::string::npos);
  CHECK(text.find("please report it") != std::string::npos);
  const report::FileReport b = guarded([] { throw check::InternalError("the reduction check failed"); });
  CHECK(report::exit_of(b) == check::Exit::internal);
  CHECK(report::exit_of(guarded([] { throw 42; })) == check::Exit::internal);
  // The kernel's fault is bad input, with its location; memory is inconclusive.
  const report::FileReport c = guarded([] { throw check::KernelError("division by zero", {3, 7}); });
  CHECK(report::exit_of(c) == check::Exit::bad_input);
  CHECK(c.diagnostics.at(0).loc.line == 3);
  CHECK(report::exit_of(guarded([] { throw std::bad_alloc(); })) == check::Exit::inconclusive);
  // Over several files internal wins, and JSON says 4 and validates.
  report::FileReport ok;
  ok.file = "ok.bk";
  const std::vector<report::FileReport> files = {ok, a, c};
  CHECK(report::exit_status(files, false) == 4);
  CHECK(report::exit_status(files, true) == 4);
  jsonmini::Value schema, doc;
  REQUIRE(jsonmini::Reader(cli_support::slurp(cli_support::src + "/docs/check-kernel.schema.json")).parse(schema));
  REQUIRE(jsonmini::Reader(report::json(files, report::exit_status(files, false))).parse(doc));
  CHECK(jsonmini::validate(doc, schema, schema) == "");
  CHECK(doc.get("exit_code")->n == 4);
  CHECK(doc.get("kernels")->a.at(1).get("outcome")->s == "internal_error");
  CHECK(doc.get("kernels")->a.at(1).get("exit_code")->n == 4);
}

TEST_CASE("JSON's exit_code is the process's exit status, with --check-expect too") {
  for (const std::string& args : {cli_support::good + " " + cli_support::bad,
                                  cli_support::good + " " + cli_support::bad + " --check-expect",
                                  cli_support::good + " --check-expect",
                                  cli_support::temp_file("cli_contract_test", "noexpect.bk",
                                                         "kernel k\nrole r warp:\n  syncwarp\n") + " --check-expect"}) {
    CAPTURE(args);
    const Run r = run(args + " --json");
    jsonmini::Value v;
    REQUIRE(jsonmini::Reader(r.out).parse(v));
    CHECK(static_cast<int>(v.get("exit_code")->n) == r.status);
  }
  CHECK(run(cli_support::good + " " + cli_support::bad + " --check-expect --json").status == 0);
}

TEST_CASE("the report layer reads results only: no parser, no SMT header") {
  for (const auto& e : std::filesystem::directory_iterator(cli_support::src + "/checker/report")) {
    CAPTURE(e.path().string());
    const std::string text = cli_support::slurp(e.path().string());
    CHECK(text.find("#include \"checker/dsl/") == std::string::npos);
    CHECK(text.find("#include \"checker/smt/") == std::string::npos);
  }
}

TEST_CASE("an output path that is an input is refused, the input untouched") {
  const std::string file = cli_support::temp_file("cli_contract_test", "x.bk", cli_support::slurp(cli_support::bad));
  const std::string before = cli_support::slurp(file);
  const Run r = run(file + " --trace-html " + file);
  CHECK(r.status == 2);
  CHECK(r.err.find("is an input file; it would be overwritten") != std::string::npos);
  const std::string other = cli_support::temp_file("cli_contract_test", "y.bk", cli_support::slurp(cli_support::good));
  const std::filesystem::path dir = std::filesystem::path(file).parent_path();
  CHECK(run(other + " " + file + " --trace-html " + (dir / "." / "x.bk").string()).status == 2);
  CHECK(cli_support::slurp(file) == before);
}

TEST_CASE("a symbolic counterexample is a violation: exit 1, confirmed by the explicit search at its values, replayable") {
  const std::string file = cli_support::src + "/kernels/bugs/tx_bytes_depend_on_tile.bk";
  // At the declared values the kernel verifies; --symbolic finds BM=64.
  CHECK(run(file).status == 0);
  const Run r = run("--symbolic " + file);
  CHECK(r.status == 1);
  CHECK(r.out.find("VIOLATION deadlock") != std::string::npos);
  CHECK(r.out.find("a counterexample of --symbolic tx_balance") != std::string::npos);
  CHECK(r.out.find("reproduce: check-kernel --param BM=64") != std::string::npos);
  const Run j = run("--symbolic --json " + file);
  CHECK(j.status == 1);
  CHECK(j.out.find("\"kind\": \"deadlock\"") != std::string::npos);
  CHECK(j.out.find("\"BM\": 64") != std::string::npos);
  const std::size_t at = j.out.find("\"replay\": \"");
  REQUIRE(at != std::string::npos);
  const std::string token = j.out.substr(at + 11, j.out.find('"', at + 11) - at - 11);
  CHECK(token.find("BM=64") != std::string::npos);
  // The token carries the values: replayed as printed, it shows the deadlock.
  const Run again = run(file + " --replay " + token);
  CHECK(again.status == 1);
  CHECK(again.out.find("deadlock") != std::string::npos);
  const Run s = run("--symbolic --sarif " + file);
  CHECK(s.status == 1);
  CHECK(s.out.find("\"ruleId\": \"deadlock\"") != std::string::npos);
}

// The kinds the JSON schema and docs/cli.md list as warnings are the warning
// kinds of the violation table (spec/violation.hpp, its severity column),
// and the schema's kind enum takes every one of them.
TEST_CASE("the schema's and the CLI page's warning kinds are the violation table's") {
  std::set<std::string> table;
  for (int i = 1; i <= spec::violation_count; ++i) {
    const auto v = static_cast<spec::Violation>(i);
    if (spec::is_warning(v)) table.insert(std::string(spec::violation_name(v)));
  }
  CHECK(table.size() >= 4);
  jsonmini::Value schema;
  REQUIRE(jsonmini::Reader(cli_support::slurp(cli_support::src + "/docs/check-kernel.schema.json")).parse(schema));
  const jsonmini::Value* kind = schema.get("$defs")->get("kernel")->get("properties")->get("warnings")->get("items")->get("properties")->get("kind");
  REQUIRE(kind != nullptr);
  std::set<std::string> listed;
  for (const jsonmini::Value& v : kind->get("enum")->a) listed.insert(v.s);
  CHECK(listed == table);
  // docs/cli.md's --strict row names them, in backquotes, before its first colon.
  const std::string cli = cli_support::slurp(cli_support::src + "/docs/cli.md");
  const std::size_t row = cli.find("| `--strict` |");
  REQUIRE(row != std::string::npos);
  const std::string line = cli.substr(row, cli.find('\n', row) - row);
  const std::string named = line.substr(0, line.find(':'));
  std::set<std::string> in_docs;
  for (std::size_t at = named.find('`', 14); at != std::string::npos; at = named.find('`', at + 1)) {
    const std::size_t end = named.find('`', at + 1);
    if (end == std::string::npos) break;
    in_docs.insert(named.substr(at + 1, end - at - 1));
    at = end;
  }
  CHECK(in_docs == table);
}
