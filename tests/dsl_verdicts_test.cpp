// One rule, one verdict (docs/dsl.md): an operand whose range a
// spec rule checks when the operation runs, with a violation of its own
// (spec/violation.hpp), gets that violation from check-kernel (exit 1, at
// the statement) whether it is written as a constant or computed in a
// variable; the front end accepts both. A limit no run-time rule checks
// stays an error of the front end (exit 2) for a constant.
#include <doctest/doctest.h>

#include <string>

#include "checker/dsl/parser.hpp"
#include "tests/cli_support.hpp"

using namespace pc;

namespace {

struct Spelling {
  const char* name;
  const char* decls;     // declarations before the role
  const char* constant;  // the statement with the value written in it
  const char* value;     // the value, assigned to `t` in the other spelling
  const char* variable;  // the statement with `t` in its place
  const char* violation;
};

// clang-format off
const Spelling spellings[] = {
  {"named-barrier count 48", "", "bar_sync 1, 48", "48", "bar_sync 1, t", "named_count_not_warp_multiple"},
  // A count of 0 was the front end's error until issue 62 (the model took a
  // 0 in a variable for "no count": the whole CTA).
  {"named-barrier count 0", "", "bar_arrive 1, 0", "0", "bar_arrive 1, t", "named_count_not_warp_multiple"},
  {"named-barrier count -32", "", "bar_arrive 1, -32", "-32", "bar_arrive 1, t", "named_count_not_warp_multiple"},
  {"named-barrier id 16", "", "bar_sync 16, 32", "16", "bar_sync t, 32", "named_id_out_of_range"},
  {"named-barrier id -1", "", "bar_sync -1", "-1", "bar_sync t", "named_id_out_of_range"},
  {"init count 0", "mbarrier b\n", "one: init b count 0", "0", "one: init b count t", "bad_init_count"},
  {"init count 2^20", "mbarrier b\n", "one: init b count 1048576", "1048576", "one: init b count t", "bad_init_count"},
  {"arrive count 0", "mbarrier b count 2\n", "one: arrive b count 0", "0", "one: arrive b count t", "bad_arrive_count"},
  {"arrive count 2^20", "mbarrier b count 2\n", "one: arrive b count 1048576", "1048576", "one: arrive b count t", "bad_arrive_count"},
  {"expect_tx 2^20 bytes", "mbarrier b count 1\n", "one: expect_tx b bytes 1048576", "1048576", "one: expect_tx b bytes t",
   "tx_out_of_range"},
  {"complete_tx -1 bytes", "mbarrier b count 1\n", "one: complete_tx b bytes -1", "-1", "one: complete_tx b bytes t",
   "tx_out_of_range"},
  {"arrive_expect_tx 2^20 bytes", "mbarrier b count 1\n", "one: arrive_expect_tx b bytes 1048576", "1048576",
   "one: arrive_expect_tx b bytes t", "tx_out_of_range"},
  {"tma_load of 24 bytes", "smem s bytes 1024\nmbarrier b count 1\n", "one: tma_load s -> b bytes 24", "24",
   "one: tma_load s -> b bytes t", "bad_copy_size"},
  {"tma_load of 2^20 bytes", "smem s bytes 1024\nmbarrier b count 1\n", "one: tma_load s -> b bytes 1048576", "1048576",
   "one: tma_load s -> b bytes t", "bad_copy_size"},
};
// clang-format on

std::string kernel(const Spelling& s, bool variable) {
  return std::string("kernel v\n") + s.decls + "role r warp:\n" +
         (variable ? "  t = " + std::string(s.value) + "\n  " + s.variable : "  " + std::string(s.constant)) + "\n";
}

// The line of the statement that holds the operand: the role's last.
int statement_line(const std::string& src) {
  int lines = 0;
  for (const char c : src) lines += c == '\n';
  return lines;
}

}  // namespace

TEST_CASE("verdicts: a value a spec rule checks at run time gets its violation, written as a constant or in a variable") {
  for (const Spelling& s : spellings) {
    CAPTURE(s.name);
    for (const bool variable : {false, true}) {
      const std::string src = kernel(s, variable);
      CAPTURE(src);
      const dsl::Parsed p = dsl::parse(src, "v.bk");
      CHECK_MESSAGE(p.ok(), (p.errors.empty() ? std::string() : dsl::render(p.errors.front(), src)));
      const std::string file = cli_support::temp_file("dsl_verdicts", variable ? "variable.bk" : "constant.bk", src);
      const cli_support::Run r = cli_support::run("dsl_verdicts", "'" + file + "'");
      CAPTURE(r.out);
      CAPTURE(r.err);
      CHECK(r.status == 1);
      CHECK(r.out.find(s.violation) != std::string::npos);
      CHECK(r.out.find(":" + std::to_string(statement_line(src)) + ":") != std::string::npos);
    }
  }
}

TEST_CASE("verdicts: a limit no run-time rule checks is the front end's error for a constant") {
  const struct {
    const char* src;
    const char* message;
  } limits[] = {
      {"kernel v\nrole r warp:\n  bar_sync 1, 2048\n", "a CTA has at most 1024 threads"},
      {"kernel v\nmbarrier b count 1\nrole r warp:\n  wait b parity 2\n", "parity must be 0 or 1"},
      {"kernel v\nmbarrier b count 1048576\nrole r warp:\n  syncwarp\n", "an mbarrier count is 1048576"},
      {"kernel v\ncluster 2\nsmem s bytes 16\nmbarrier b count 1\nrole r warp:\n  one: st_async s @ 1 -> b bytes 12\n",
       "st_async stores 4, 8 or 16 bytes per thread"},
      {"kernel v\ncluster 17\nrole r warp:\n  syncwarp\n", "the cluster size is 17; it must be in 1..16"},
      {"kernel v\ncta threads = 2048\nrole r warp:\n  syncwarp\n", "it must be in 32..1024"},
  };
  for (const auto& l : limits) {
    CAPTURE(l.src);
    const dsl::Parsed p = dsl::parse(l.src, "v.bk");
    REQUIRE_FALSE(p.ok());
    CHECK(p.errors.front().message.find(l.message) != std::string::npos);
    const std::string file = cli_support::temp_file("dsl_verdicts", "limit.bk", l.src);
    CHECK(cli_support::run("dsl_verdicts", "'" + file + "'").status == 2);
  }
  // The sizes st_async stores: bad input in either spelling (check-kernel
  // stops on the operand in a variable when the store runs).
  const std::string st = "kernel v\ncluster 2\nsmem s bytes 16\nmbarrier b count 1\nrole r warp:\n  cluster_sync\n";
  for (const std::string& body : {std::string("  one: st_async s @ 1 -> b bytes 12\n"), std::string("  t = 12\n  one: st_async s @ 1 -> b bytes t\n")}) {
    CAPTURE(body);
    const std::string file = cli_support::temp_file("dsl_verdicts", "st_async.bk", st + body);
    const cli_support::Run r = cli_support::run("dsl_verdicts", "'" + file + "'");
    CHECK(r.status == 2);
    CHECK(r.err.find("st_async stores 4, 8 or 16 bytes per thread") != std::string::npos);
  }
}
