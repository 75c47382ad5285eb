// Every diagnostic of the .bk front end: its message and the line:column it
// points at; the rendering with source line and caret; recovery after an
// error; and hostile input (mutated corpus files, deep nesting, long chains)
// that must end in diagnostics, never a crash.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "checker/dsl/lexer.hpp"
#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/program.hpp"
#include "tests/corpus_files.hpp"

using namespace pc;

namespace {

struct Case {
  const char* name;
  std::string source;
  int line, col;
  const char* message;  // a part of the first diagnostic
};

const std::string k = "kernel k\n";
const std::string mb = "mbarrier b[2] count 1\nsmem A[2] bytes 64\n";
std::string role(const std::string& body) { return "role r warp:\n" + body; }

}  // namespace

TEST_CASE("each error names what was expected, at file:line:column") {
  const Case cases[] = {
      // lexical
      {"tab", k + role("\tsyncwarp\n"), 3, 1, "indent with spaces, not tabs"},
      {"bad char", k + role("  syncwarp $\n"), 3, 12, "unexpected character '$'"},
      {"bad byte", k + role("  syncwarp \x01\n"), 3, 12, "unexpected byte 1 (not printable ASCII)"},
      {"malformed number", k + "param P = 12ab\n" + role("  syncwarp\n"), 2, 11, "malformed number '12a'"},
      {"bare 0x", k + "param P = 0x\n" + role("  syncwarp\n"), 2, 11, "malformed number '0x': 0x needs hex digits"},
      {"number too large", k + "param P = 4611686018427387905\n" + role("  syncwarp\n"), 2, 11, "number too large (the limit is 2^62)"},
      {"dedent mismatch", k + role("    syncwarp\n  syncwarp\n"), 4, 3, "indentation matches no enclosing block"},
      // structure
      {"no kernel", role("  syncwarp\n"), 1, 1, "declares no kernel"},
      {"two kernels", k + k + role("  syncwarp\n"), 2, 1, "'kernel' appears twice"},
      {"no role", k, 1, 1, "kernel 'k' has no role"},
      {"unknown declaration", k + "mbariter b[1]\n" + role("  syncwarp\n"), 2, 1, "found 'mbariter' (did you mean 'mbarrier'?)"},
      {"top-level indent", k + "  param P = 1\n" + role("  syncwarp\n"), 2, 1, "unexpected indentation at the top level"},
      {"unterminated role", k + "role r warp:\n", 3, 1, "expected an indented block after ':'"},
      {"unterminated for", k + role("  for i in 0 .. 2:\n"), 4, 1, "expected an indented block after ':'"},
      {"role without body", k + "role r warp:\nrole s warp:\n  syncwarp\n", 3, 1, "expected an indented block after ':'"},
      {"missing colon", k + "role r warp\n  syncwarp\n", 2, 12, "expected ':', found end of line"},
      {"text after colon", k + "role r warp: syncwarp\n", 2, 14, "expected end of line after ':'"},
      {"bad granularity", k + "role r thread:\n  syncwarp\n", 2, 8, "expected 'warp', 'warpgroup' or 'warps N', found 'thread'"},
      {"too many instances", k + "role r warp x65:\n  syncwarp\n", 2, 13, "a role has 1..64 instances"},
      {"role on missing cta", k + "role r warp on cta 1:\n  syncwarp\n", 2, 20, "the CTA of a role is 1; it must be in 0..0"},
      {"cluster after role", k + role("  syncwarp\n") + "cluster 2\n", 4, 1, "declare the cluster before"},
      {"cluster too big", k + "cluster 17\n" + role("  syncwarp\n"), 2, 9, "the cluster size is 17; it must be in 1..16"},
      {"cta threads", k + "cta threads = 2000\n" + role("  syncwarp\n"), 2, 15, "must be in 32..1024"},
      {"bad target", k + "target intel\n" + role("  syncwarp\n"), 2, 8, "expected 'nvidia' or 'amd', found 'intel'"},
      // duplicates
      {"duplicate param", k + "param P = 1\nparam P = 2\n" + role("  syncwarp\n"), 3, 7, "parameter 'P' is declared twice"},
      {"duplicate object", k + "smem X bytes 4\nmbarrier X count 1\n" + role("  syncwarp\n"), 3, 10, "'X' is already declared"},
      {"duplicate role", k + role("  syncwarp\n") + role("  syncwarp\n"), 4, 6, "role 'r' is declared twice"},
      // parameters and sizes
      {"param not constant", k + "param P = Q\n" + role("  syncwarp\n"), 2, 11, "unknown name 'Q'"},
      {"param outside range", k + "param P = 9 in 1..4\n" + role("  syncwarp\n"), 2, 7, "outside its declared values"},
      {"empty range", k + "param P = 1 in 4..1\n" + role("  syncwarp\n"), 2, 7, "empty range 4..1"},
      {"array too large", k + "smem X[2000] bytes 4\n" + role("  syncwarp\n"), 2, 8, "an array size is 2000; it must be in 1..1024"},
      {"buffer bytes", k + "smem X bytes 0\n" + role("  syncwarp\n"), 2, 14, "buffer bytes must be a constant in 1..2^30"},
      {"mbarrier count", k + "mbarrier b count 1048576\n" + role("  syncwarp\n"), 2, 18, "an mbarrier count is 1048576; it must be in 1..1048575"},
      {"division by zero", k + "param P = 1 / 0\n" + role("  syncwarp\n"), 2, 11, "must be a constant expression"},
      // names
      {"unknown mbarrier", k + mb + role("  wait bb[0] parity 0\n"), 5, 8, "unknown mbarrier 'bb' (did you mean 'b'?)"},
      {"unknown buffer", k + mb + role("  read AA[0]\n"), 5, 8, "unknown buffer 'AA' (did you mean 'A'?)"},
      {"buffer as barrier", k + mb + role("  wait A[0] parity 0\n"), 5, 8, "unknown mbarrier 'A'"},
      {"unknown operation", k + role("  syncwrap\n"), 3, 3, "unknown operation 'syncwrap' (did you mean 'syncwarp'?)"},
      {"unknown variable", k + mb + role("  x = 1\n  one: arrive b[y]\n"), 6, 17, "unknown name 'y'"},
      {"var outside role", k + "param P = instance\n" + role("  syncwarp\n"), 2, 11, "only parameters may appear outside roles"},
      {"unknown token var", k + mb + role("  r = test_wait b[0] token tt\n"), 5, 28, "unknown variable 'tt'"},
      {"assign builtin", k + role("  cta = 1\n"), 3, 3, "'cta' is a builtin and cannot be assigned"},
      {"assign parameter", k + "param P = 1\n" + role("  P = 2\n"), 4, 3, "'P' is a parameter, a constant"},
      {"loop over parameter", k + "param P = 1\n" + role("  for P in 0 .. 2:\n    syncwarp\n"), 4, 7, "'P' is a parameter"},
      {"token into parameter", k + mb + "param P = 1\n" + role("  P = one: arrive b[0]\n"), 6, 3, "'P' is a parameter"},
      {"loop over builtin", k + role("  for instance in 0 .. 2:\n    syncwarp\n"), 3, 7, "'instance' is a builtin"},
      // operands
      {"index out of range", k + mb + role("  one: arrive b[2]\n"), 5, 17, "index 2 is outside b[2]"},
      {"negative index", k + mb + role("  read A[-1]\n"), 5, 10, "index -1 is outside A[2]"},
      {"missing index", k + mb + role("  one: arrive b\n"), 5, 15, "mbarrier 'b' has 2 elements: give an index, b[i]"},
      {"remote cta out of cluster", k + mb + role("  one: arrive b[0] @ 1\n"), 5, 22, "CTA 1 is outside the cluster of 1"},
      {"parity 2", k + mb + role("  wait b[0] parity 2\n"), 5, 20, "parity must be 0 or 1, not 2"},
      {"parity missing", k + mb + role("  wait b[0]\n"), 5, 12, "expected 'parity P' or 'token T', found end of line"},
      {"expect_tx without bytes", k + mb + role("  expect_tx b[0]\n"), 5, 3, "expect_tx needs 'bytes B'"},
      {"arrive_expect_tx without bytes", k + mb + role("  one: arrive_expect_tx b[0]\n"), 5, 8, "arrive_expect_tx needs 'bytes B'"},
      // (counts, tx bytes, named-barrier ids and warp multiples are the checker's
      // violations, constant or not: tests/dsl_verdicts_test.cpp)
      {"named count 2048", k + role("  bar_sync 1, 2048\n"), 3, 15, "a named-barrier thread count is 2048: a CTA has at most 1024 threads"},
      {"bar_red op", k + role("  r = bar_red xor 1, 32, 1\n"), 3, 15, "expected popc, and or or, found 'xor'"},
      {"negative wait_group", k + role("  wait_group -1\n"), 3, 14, "the number of pending groups is -1; it must be at least 0"},
      {"multicast outside cluster", "kernel k\ncluster 2\n" + mb + role("  tcgen05_commit b[0] multicast 4\n"), 6, 33, "multicast CTA mask is 4; it must be in 1..3"},
      {"unexpected option", k + mb + role("  one: arrive b[0] acquire2\n"), 5, 20, "unexpected 'acquire2' after arrive: it takes"},
      // forms that ptxas rejects (tests/isa_limits_test.cpp assembles each)
      {"remote arrive keeps a token", "kernel k\ncluster 2\n" + mb + role("  t = one: arrive b[0] @ 1\n"), 6, 26,
       "returns no state: PTX mbarrier.arrive on .shared::cluster takes only the sink '_'"},
      {"remote arrive_expect_tx keeps a token", "kernel k\ncluster 2\n" + mb + role("  t = one: arrive_expect_tx b[0] @ 1 bytes 64\n"), 6,
       36, "PTX mbarrier.arrive.expect_tx on .shared::cluster takes only the sink '_' as its destination; drop 't ='"},
      {"nocomplete relaxed", k + mb + role("  one: arrive b[0] count 1 relaxed nocomplete\n"), 5, 36, "'nocomplete' with 'relaxed'"},
      {"nocomplete cluster", k + mb + role("  one: arrive b[0] nocomplete release cluster\n"), 5, 20, "'nocomplete' with 'cluster'"},
      {"nocomplete remote", "kernel k\ncluster 2\n" + mb + role("  one: arrive b[0] @ 1 nocomplete\n"), 6, 24,
       "'nocomplete' on a barrier '@ CTA': PTX allows .noComplete only as mbarrier.arrive.noComplete.release.cta"},
      {"arrive_drop nocomplete bytes", k + mb + role("  one: arrive_drop b[0] bytes 64 nocomplete\n"), 5, 34, "'nocomplete' with 'bytes'"},
      {"arrive_expect_tx count", k + mb + role("  one: arrive_expect_tx b[0] bytes 64 count 2\n"), 5, 39,
       "PTX mbarrier.arrive.expect_tx has no count operand"},
      {"arrive_drop bytes count", k + mb + role("  one: arrive_drop b[0] count 2 bytes 64\n"), 5, 25,
       "PTX mbarrier.arrive_drop.expect_tx has no count operand"},
      {"bar_arrive without count", k + role("  bar_arrive 1\n"), 3, 3, "bar_arrive needs a thread count"},
      {"bulk buffer not a multiple of 16", k + "smem S bytes 24\n" + role("  tma_store S\n"), 4, 13, "tma_store copies all of 'S', 24 bytes"},
      {"tma_load option", k + mb + role("  tma_load A[0] -> b[0] size 4\n"), 5, 25, "unexpected 'size' after tma_load"},
      {"tma_load arrow", k + mb + role("  tma_load A[0] b[0]\n"), 5, 17, "expected '->', found 'b'"},
      {"wgmma read", k + mb + role("  wgmma A[0]\n"), 5, 9, "expected 'read', found 'A'"},
      {"trailing tokens", k + role("  syncwarp 3\n"), 3, 12, "expected end of line, found number 3"},
      {"value not returned", k + role("  r = syncwarp\n"), 3, 7, "'syncwarp' returns no value to assign"},
      {"value dropped", k + mb + role("  test_wait b[0] parity 0\n"), 5, 3, "'test_wait' returns a value: write 'r = test_wait ...'"},
      // lanes
      {"one: syncthreads", k + mb + role("  one: syncthreads\n"), 5, 8, "'syncthreads' is executed by the whole warp or warp group together: remove 'one:'"},
      {"one: bar_sync, the ISA's word", k + mb + role("  one: bar_sync 1, 32\n"), 5, 8, "executed by some lanes only it is undefined"},
      {"one: bar_sync", k + role("  one: bar_sync 1, 32\n"), 3, 8, "remove 'one:'"},
      {"all: tma_load", k + mb + role("  all: tma_load A[0] -> b[0]\n"), 5, 8, "'tma_load' is issued by one elected lane"},
      {"lane prefix alone", k + role("  one:\n"), 3, 7, "expected an operation, found end of line"},
      // statements
      {"else without if", k + role("  else:\n    syncwarp\n"), 3, 3, "'else' without a matching 'if'"},
      {"elif without if", k + role("  elif 1:\n    syncwarp\n"), 3, 3, "'elif' without a matching 'if'"},
      {"or without either", k + role("  or:\n    syncwarp\n"), 3, 3, "'or:' without a matching 'either:'"},
      {"either without or", k + role("  either:\n    syncwarp\n  syncwarp\n"), 5, 3, "'either:' needs an 'or:' block"},
      {"for without in", k + role("  for i 0 .. 2:\n    syncwarp\n"), 3, 9, "expected 'in', found number 0"},
      {"for without ..", k + role("  for i in 0 2:\n    syncwarp\n"), 3, 14, "expected '..', found number 2"},
      {"unclosed paren", k + role("  x = (1 + 2\n"), 3, 13, "expected ')', found end of line"},
      {"missing operand", k + role("  x = 1 +\n"), 3, 10, "expected an expression, found end of line"},
      {"statement is a number", k + role("  3\n"), 3, 3, "expected a statement, found number 3"},
      // expect lines
      {"bad expect", "# expect: sometimes\n" + k + role("  syncwarp\n"), 1, 1, "expected 'verified' or a violation name"},
      {"two expects", "# expect: verified\n# expect: deadlock\n" + k + role("  syncwarp\n"), 2, 1, "more than one '# expect:' line"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    CAPTURE(c.source);
    const dsl::Parsed p = dsl::parse(c.source, "t.bk");
    REQUIRE_FALSE(p.ok());
    const dsl::Diagnostic& d = p.errors.front();
    CHECK(d.file == "t.bk");
    CHECK(d.message.find(c.message) != std::string::npos);
    CAPTURE(d.message);
    CHECK(d.loc.line == c.line);
    CHECK(d.loc.col == c.col);
  }
}

TEST_CASE("a diagnostic renders as file:line:col: error:, the line, and a caret under the column") {
  const std::string src = "kernel k\nmbarrier full[1] count 1\nrole r warp:\n  wait ful[0] parity 0\n";
  const dsl::Parsed p = dsl::parse(src, "x.bk");
  REQUIRE(p.errors.size() == 1);
  CHECK(dsl::render(p.errors[0], src) ==
        "x.bk:4:8: error: unknown mbarrier 'ful' (did you mean 'full'?)\n"
        "    wait ful[0] parity 0\n"
        "         ^\n");
  // A long line shows a window around the column, the caret still under it.
  const std::string long_src = "kernel k\nparam P = " + std::string(500, '1') + "x\nrole r warp:\n  syncwarp\n";
  const dsl::Parsed q = dsl::parse(long_src, "y.bk");
  REQUIRE_FALSE(q.ok());
  const std::string r = dsl::render(q.errors[0], long_src);
  std::istringstream lines(r);
  std::string head, text, caret;
  std::getline(lines, head);
  std::getline(lines, text);
  std::getline(lines, caret);
  CHECK(head.rfind("y.bk:2:11: error: malformed number", 0) == 0);
  // Diagnostics without a line (a file that cannot be read) have no caret.
  CHECK(dsl::render({"z.bk", {0, 0}, "cannot open the file"}, "") == "z.bk: error: cannot open the file\n");
}

TEST_CASE("the caret is under the column in a long line") {
  const std::string src = "kernel k\nrole r warp:\n  x = " + std::string(300, '(') + "1\n";
  const dsl::Parsed p = dsl::parse(src, "t.bk");
  REQUIRE_FALSE(p.ok());
  const dsl::Diagnostic& d = p.errors.front();
  CHECK(d.message.find("nested too deeply") != std::string::npos);
  const std::string r = dsl::render(d, src);
  const std::size_t l1 = r.find('\n'), l2 = r.find('\n', l1 + 1);
  const std::string text = r.substr(l1 + 1, l2 - l1 - 1), caret = r.substr(l2 + 1);
  const std::size_t at = caret.find('^');
  REQUIRE(at != std::string::npos);
  REQUIRE(at < text.size());
  CHECK(text.rfind("  ...", 0) == 0);
  CHECK(text[at] == '(');
  CHECK(text.size() < 200);
}

TEST_CASE("errors recover at the next statement; at most 20 are reported") {
  const dsl::Parsed p = dsl::parse(k + "mbarrier b[1] count 1\n" +
                                       role("  wait c[0] parity 0\n  syncwarp\n  one: arrive d[0]\n  for i in 0 .. 2:\n"
                                            "    wait e[0] parity 0\n  wait b[0] parity 3\n"),
                                   "t.bk");
  REQUIRE(p.errors.size() == 4);
  CHECK(p.errors[0].loc.line == 4);
  CHECK(p.errors[1].loc.line == 6);
  CHECK(p.errors[2].loc.line == 8);
  CHECK(p.errors[3].loc.line == 9);
  std::string many = k + role("");
  for (int i = 0; i < 100; ++i) many += "  bogus" + std::to_string(i) + "\n";
  const dsl::Parsed q = dsl::parse(many, "t.bk");
  CHECK(q.errors.size() == 21);
  CHECK(q.errors.back().message == "too many errors; stopping");
}

TEST_CASE("limits: nesting, chains, file size") {
  std::string deep = k + "role r warp:\n";
  for (int i = 0; i < 70; ++i) deep += std::string(2 * (i + 1), ' ') + "if 1:\n";
  deep += std::string(142, ' ') + "syncwarp\n";
  const dsl::Parsed a = dsl::parse(deep, "t.bk");
  REQUIRE(a.errors.size() == 1);  // one diagnostic, not one per level
  CHECK(a.errors[0].message.find("blocks nested too deeply (the limit is 64") != std::string::npos);
  // Each elif nests the next if: a long chain hits the same limit, with no stack overflow.
  std::string chain = k + role("  if 1:\n    syncwarp\n");
  for (int i = 0; i < 100000; ++i) chain += "  elif 1:\n    syncwarp\n";
  const dsl::Parsed b = dsl::parse(chain, "t.bk");
  REQUIRE(b.errors.size() == 1);
  CHECK(b.errors[0].message.find("each elif counts as one level") != std::string::npos);
  // 60 elifs are fine.
  std::string ok = k + role("  if instance == 0:\n    syncwarp\n");
  for (int i = 1; i < 60; ++i) ok += "  elif instance == " + std::to_string(i) + ":\n    syncwarp\n";
  CHECK(dsl::parse(ok, "t.bk").ok());
  // A chain of operators is as deep as nested parentheses.
  std::string sum = "1";
  for (int i = 0; i < 200000; ++i) sum += "+1";
  const dsl::Parsed c = dsl::parse(k + "param P = " + sum + "\n" + role("  syncwarp\n"), "t.bk");
  REQUIRE(c.errors.size() == 1);
  CHECK(c.errors[0].message.find("a chain of operators counts too") != std::string::npos);
  const dsl::Parsed n = dsl::parse(k + "param P = " + std::string(100000, '-') + "1\n" + role("  syncwarp\n"), "t.bk");
  REQUIRE(n.errors.size() == 1);
  CHECK(n.errors[0].message.find("expression nested too deeply") != std::string::npos);
  // Over 16 MiB: refused before lexing.
  const dsl::Parsed big = dsl::parse(std::string((16u << 20) + 1, ' '), "t.bk");
  REQUIRE(big.errors.size() == 1);
  CHECK(big.errors[0].message.find("larger than 16 MiB") != std::string::npos);
  std::string src;
  const dsl::Parsed none = dsl::parse_file("/nonexistent/dir/x.bk", src);
  REQUIRE(none.errors.size() == 1);
  CHECK(none.errors[0].message.rfind("cannot open the file (", 0) == 0);
}

TEST_CASE("mutated corpus files and random bytes end in diagnostics or a kernel, never a crash") {
  std::vector<std::string> seeds;
  for (const std::string& file : corpus_files()) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    seeds.push_back(s.str());
  }
  REQUIRE_FALSE(seeds.empty());
  std::mt19937 rng(12345);
  const std::string alphabet = " \n\t:#[]()@,.-+*/%^&|!<>=0123456789xabefinoprstw_";
  int parsed_ok = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string s = seeds[rng() % seeds.size()];
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !s.empty(); ++e) {
      const std::size_t at = rng() % s.size();
      switch (rng() % 4) {
        case 0: s[at] = alphabet[rng() % alphabet.size()]; break;
        case 1: s.erase(at, 1 + rng() % 8); break;
        case 2: s.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
        default: s.insert(at, s.substr(rng() % s.size(), 1 + rng() % 40)); break;
      }
    }
    const dsl::Parsed p = dsl::parse(s, "m.bk");
    for (const dsl::Diagnostic& d : p.errors) {
      CHECK(d.loc.line >= 1);
      CHECK_FALSE(dsl::render(d, s).empty());
    }
    parsed_ok += p.ok();
  }
  CHECK(parsed_ok > 0);
  std::string noise(1 << 16, '\0');
  for (char& ch : noise) ch = static_cast<char>(rng());
  CHECK_FALSE(dsl::parse(noise, "n.bk").ok());
}

TEST_CASE("one mistake, one error: no cascade from a bad declaration, no false 'no such parameter'") {
  // A declaration with an error: its uses are not reported again.
  const dsl::Parsed a = dsl::parse(k + "mbarrier full[1] count 0\n" + role("  wait full[0] parity 0\n"), "t.bk");
  REQUIRE(a.errors.size() == 1);
  CHECK(a.errors[0].message.find("an mbarrier count is 0") != std::string::npos);
  const dsl::Parsed b = dsl::parse(k + "smem b[0] bytes 16\n" + role("  read b[0]\n"), "t.bk");
  REQUIRE(b.errors.size() == 1);
  CHECK(b.errors[0].message.find("an array size is 0") != std::string::npos);
  const dsl::Parsed c = dsl::parse(k + "param N = 5 in 1..4\nsmem b[N] bytes 16\n" + role("  read b[N - 1]\n"), "t.bk");
  REQUIRE(c.errors.size() == 1);
  CHECK(c.errors[0].message == "parameter 'N' = 5 is outside its declared values");
  // An out-of-range --param: one error, and not "no such parameter".
  const dsl::Parsed d = dsl::parse(k + "param N = 2 in 1..4\n" + role("  for i in 0 .. N:\n    syncwarp\n"), "t.bk", {{"N", 9}});
  REQUIRE(d.errors.size() == 1);
  CHECK(d.errors[0].message == "parameter 'N' = 9 is outside its declared values");
  // A name never declared is still an error, with its suggestion.
  const dsl::Parsed e = dsl::parse(k + "mbarrier full[1] count 1\n" + role("  wait fulll[0] parity 0\n"), "t.bk", {{"M", 1}});
  REQUIRE(e.errors.size() == 2);
  CHECK(e.errors[0].message.find("no such parameter") != std::string::npos);
  CHECK(e.errors[1].message.find("did you mean 'full'") != std::string::npos);
}

TEST_CASE("a binary file is one error at 1:1; a text of bad lines gives at most 20 errors") {
  std::mt19937 rng(11);
  std::string noise(1 << 16, '\0');
  for (char& ch : noise) ch = static_cast<char>(rng());
  const dsl::Parsed p = dsl::parse(noise, "noise.bk");
  REQUIRE(p.errors.size() == 1);
  CHECK(p.errors[0].loc.line == 1);
  CHECK(p.errors[0].loc.col == 1);
  CHECK(p.errors[0].message.find("not a text file") == 0);
  // Control characters in most lines, with no NUL: binary too.
  std::string controls;
  for (int i = 0; i < 3000; ++i) controls += "\x01\n";
  CHECK(dsl::parse(controls, "controls.bk").errors.size() == 1);
  // Lexical errors only (every line has a bad byte, not a control character) are cut at 20.
  std::string bytes;
  for (int i = 0; i < 3000; ++i) bytes += "\xff\n";
  const dsl::Parsed q = dsl::parse(bytes, "bytes.bk");
  CHECK(q.errors.size() == 21);
  CHECK(q.errors.back().message == "too many errors; stopping");
}

TEST_CASE("arithmetic is checked: an overflow is an error at the operator") {
  const dsl::Parsed a = dsl::parse(k + "param N = 4611686018427387904 * 2\n" + role("  syncwarp\n"), "t.bk");
  REQUIRE(a.errors.size() == 1);
  CHECK(a.errors[0].loc.line == 2);
  CHECK(a.errors[0].loc.col == 31);
  CHECK(a.errors[0].message == "integer overflow in a parameter value: the value leaves -2^62..2^62");
  // In a statement, the checker finds it when it evaluates it: a KernelError at the operator.
  const dsl::Parsed b =
      dsl::parse(k + "param N = 4611686018427387904\n" + role("  x = N * 4\n  if x < 0:\n    syncwarp\n  syncwarp\n"), "t.bk");
  REQUIRE(b.ok());
  try {
    (void)check::check(b.kernel, check::Options{});
    FAIL("no error");
  } catch (const check::KernelError& e) {
    CHECK(std::string(e.what()) == "integer overflow: the value leaves -2^62..2^62");
    CHECK(e.loc.line == 4);
    CHECK(e.loc.col == 9);
  }
}

// eval computes in 64 bits where it can (program.cpp): against the exact
// 128-bit arithmetic, every operator on edge and random operands gives the
// same value, or the same error.
// A number the front end reads is a value the checker's arithmetic keeps.
static_assert(pc::dsl::max_number == pc::check::value_limit);

TEST_CASE("arithmetic in 64 bits gives what exact arithmetic gives, or the same error") {
  using ir::BinOp;
  constexpr __int128 limit = __int128{1} << 62;
  auto exact = [&](BinOp op, std::int64_t a, std::int64_t b) -> std::optional<std::int64_t> {  // nullopt: an error
    const __int128 A = a, B = b;
    __int128 v = 0;
    switch (op) {
      case BinOp::add: v = A + B; break;
      case BinOp::sub: v = A - B; break;
      case BinOp::mul: v = A * B; break;
      case BinOp::div:
      case BinOp::mod:
        if (b == 0) return std::nullopt;
        v = op == BinOp::div ? A / B : A % B;
        break;
      case BinOp::shl:
      case BinOp::shr:
        if (b < 0 || b > 62) return std::nullopt;
        if (op == BinOp::shr) return a >> b;
        v = A * (__int128{1} << b);
        break;
      default: return std::nullopt;
    }
    if (v > limit || v < -limit) return std::nullopt;
    return static_cast<std::int64_t>(v);
  };
  check::Program p;
  p.exprs.resize(3);
  p.exprs[0].kind = ir::ExprKind::var;
  p.exprs[0].var = 0;
  p.exprs[1].kind = ir::ExprKind::var;
  p.exprs[1].var = 1;
  p.exprs[2].kind = ir::ExprKind::binary;
  p.exprs[2].a = 0;
  p.exprs[2].b = 1;
  const std::int64_t big = std::int64_t{1} << 62;
  std::vector<std::int64_t> values = {0, 1, -1, 2, -2, 3, 62, 63, big, -big, big - 1, -big + 1, big / 2, -big / 2,
                                      std::int64_t{1} << 31, -(std::int64_t{1} << 31), INT64_MAX, INT64_MIN, INT64_MIN + 1};
  std::mt19937_64 rng(5);
  for (int i = 0; i < 40; ++i) values.push_back(static_cast<std::int64_t>(rng()) >> (rng() % 64));
  int compared = 0, errors = 0;
  for (BinOp op : {BinOp::add, BinOp::sub, BinOp::mul, BinOp::div, BinOp::mod, BinOp::shl, BinOp::shr}) {
    p.exprs[2].bin = op;
    for (std::int64_t a : values)
      for (std::int64_t b : values) {
        const std::int64_t vars[2] = {a, b};
        const std::optional<std::int64_t> want = exact(op, a, b);
        std::optional<std::int64_t> got;
        try {
          got = check::eval(p, 2, vars);
        } catch (const check::KernelError&) {
        }
        INFO("op ", static_cast<int>(op), " a ", a, " b ", b);
        CHECK(got == want);
        ++compared;
        errors += !want;
      }
  }
  CHECK(compared == 7 * 59 * 59);
  CHECK(errors > 1000);  // the edges are met: overflows, division by zero, bad shifts

  // The fast forms (compile_exprs): a variable and a constant joined by an
  // operator, evaluated inline where the result needs no error. Against the
  // exact arithmetic (and, for every operator, against the tree): the same
  // value or the same error.
  p.exprs.resize(5);
  p.exprs[3].kind = ir::ExprKind::constant;
  p.exprs[4] = p.exprs[2];
  p.exprs[4].b = 3;
  auto outcome = [&](auto&& f) -> std::pair<std::optional<std::int64_t>, std::string> {
    try {
      return {f(), ""};
    } catch (const check::KernelError& e) {
      return {std::nullopt, e.what()};
    }
  };
  int fast = 0, fast_compared = 0;
  for (BinOp op : {BinOp::add, BinOp::sub, BinOp::mul, BinOp::div, BinOp::mod, BinOp::shl, BinOp::shr, BinOp::bxor, BinOp::band,
                   BinOp::bor, BinOp::lt, BinOp::le, BinOp::gt, BinOp::ge, BinOp::eq, BinOp::ne, BinOp::land, BinOp::lor})
    for (std::int64_t b : values) {
      p.exprs[2].bin = p.exprs[4].bin = op;
      p.exprs[3].value = b;
      check::compile_exprs(p);
      REQUIRE(p.fast.size() == 5);
      CHECK(p.fast[3].kind == check::FastExpr::Kind::constant);
      fast += p.fast[4].kind > check::FastExpr::Kind::var;  // a variable and a constant
      for (std::int64_t a : values) {
        const std::int64_t vars[2] = {a, b};
        INFO("op ", static_cast<int>(op), " a ", a, " b ", b);
        const auto got = outcome([&] { return check::eval(p, 4, vars); });
        CHECK(got == outcome([&] { return check::eval_tree(p, 4, vars); }));
        CHECK(got == outcome([&] { return check::eval(p, 2, vars); }));  // the operands as two variables
        if (op <= BinOp::shr) CHECK(got.first == exact(op, a, b));
        ++fast_compared;
      }
    }
  CHECK(fast_compared == 18 * 59 * 59);
  // Every operator with a fast form met it: the additive and comparison
  // operators with every constant, division and remainder with at least the
  // nine edge constants in 1..2^62.
  CHECK(fast >= 8 * 59 + 2 * 9);
}

TEST_CASE("cta threads must hold the threads of the roles on each CTA") {
  const dsl::Parsed a = dsl::parse(k + "cta threads = 32\n" + role("  syncthreads\n") + "role q warp:\n  syncthreads\n", "t.bk");
  REQUIRE(a.errors.size() == 1);
  CHECK(a.errors[0].loc.line == 2);
  CHECK(a.errors[0].loc.col == 1);
  CHECK(a.errors[0].message.find("cta threads = 32, but the roles on CTA 0 have 64 threads (r 32, q 32): a CTA cannot run "
                                 "more threads than it has") != std::string::npos);
  const dsl::Parsed b = dsl::parse(k + "cta threads = 96\nrole p warp:\n  syncthreads\nrole c warpgroup:\n  syncthreads\n", "t.bk");
  REQUIRE(b.errors.size() == 1);
  CHECK(b.errors[0].message.find("have 160 threads (p 32, c 128)") != std::string::npos);
  CHECK(dsl::parse(k + "cta threads = 160\nrole p warp:\n  syncthreads\nrole c warpgroup:\n  syncthreads\n", "t.bk").ok());
  // More threads than the roles: the others are not modelled, and take part in no barrier.
  CHECK(dsl::parse(k + "cta threads = 256\nrole p warp:\n  syncthreads\n", "t.bk").ok());
  // Per CTA: a role placed on CTA 1 only makes CTA 1 the larger.
  const dsl::Parsed c =
      dsl::parse(k + "cluster 2\ncta threads = 32\nrole p warp:\n  syncwarp\nrole q warp on cta 1:\n  syncwarp\n", "t.bk");
  REQUIRE(c.errors.size() == 1);
  CHECK(c.errors[0].message.find("the roles on CTA 1 have 64 threads (p 32, q 32)") != std::string::npos);
  // Only when the rest is fine: a role with an error reports that error only.
  const dsl::Parsed d = dsl::parse(k + "cta threads = 32\n" + role("  wiat\n") + "role q warp:\n  syncwarp\n", "t.bk");
  REQUIRE(d.errors.size() == 1);
  CHECK(d.errors[0].message.find("unknown operation 'wiat'") != std::string::npos);
}
