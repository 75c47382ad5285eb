// The .bk front end against ptxas: each form phasecheck rejects because no
// PTX instruction spells it, beside its nearest accepted twin. For every row
// the statement goes into a small kernel for the front end (and the rejected
// ones through check-kernel, which must exit 2 with file:line:column), and
// the instruction it stands for into a small PTX kernel for
// `ptxas -arch=sm_90a`. A row is decided by ptxas (both sides agree), or by
// the text of the PTX ISA: a range the ISA states and ptxas does not check
// for a constant (phasecheck rejects it; ptxas assembles it, and the test
// says so, so that a ptxas that starts checking it is noticed).
//
// A range that a spec rule checks when the operation runs, with a violation
// of its own, is the checker's also for a constant (docs/dsl.md, "One rule,
// one verdict"): there the row's bk_error is that violation's name,
// the front end accepts the statement, and check-kernel exits 1 naming the
// violation at the statement's line.
//
// ptxas comes from tests/CMakeLists.txt (PC_PTXAS, found as the CUDA compile
// checks find nvcc). Without it only the front end's half runs, unless CUDA
// is expected (nvcc was found for the compile checks): then it fails.
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "checker/dsl/parser.hpp"
#include "spec/violation.hpp"
#include "tests/cli_support.hpp"

using namespace pc;

namespace {

enum class By : bool {
  ptxas,     // ptxas decides: the front end accepts exactly what ptxas accepts
  isa_text,  // the ISA's stated range, which ptxas does not check for a constant
};

struct Form {
  const char* name;
  const char* section;  // PTX ISA section (by title, as the ISA names it)
  const char* bk;       // one statement of the role in bk_kernel()
  const char* ptx;      // the instruction it stands for, in ptx_kernel()
  bool accepted;        // by the front end
  By by;
  const char* bk_error;     // rejected: a part of the front end's diagnostic
  const char* ptxas_error;  // rejected by ptxas: a part of its message
};

constexpr bool ok = true, no = false;
constexpr auto P = By::ptxas, T = By::isa_text;

// clang-format off
const Form forms[] = {
  // A remote arrive has no state: .shared::cluster takes only the sink '_'.
  {"remote arrive keeps the state", "mbarrier.arrive",
   "t = one: arrive bar @ 1 release cluster", "mbarrier.arrive.release.cluster.shared::cluster.b64 %rd1, [%r2];",
   no, P, "returns no state", "Sink '_' is expected as a destination operand for instruction 'mbarrier.arrive'"},
  {"remote arrive", "mbarrier.arrive",
   "one: arrive bar @ 1 release cluster", "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r2];", ok, P, "", ""},
  {"local arrive keeps the state", "mbarrier.arrive",
   "t = one: arrive bar", "mbarrier.arrive.shared::cta.b64 %rd1, [bar];", ok, P, "", ""},
  {"remote arrive_drop keeps the state", "mbarrier.arrive_drop",
   "t = one: arrive_drop bar @ 1", "mbarrier.arrive_drop.shared::cluster.b64 %rd1, [%r2];",
   no, P, "returns no state", "Sink '_' is expected as a destination operand for instruction 'mbarrier.arrive_drop'"},
  {"remote arrive_drop", "mbarrier.arrive_drop",
   "one: arrive_drop bar @ 1", "mbarrier.arrive_drop.shared::cluster.b64 _, [%r2];", ok, P, "", ""},
  // expect_tx and complete_tx take .relaxed and a scope, never .release.
  {"expect_tx relaxed cluster", "mbarrier.expect_tx",
   "one: expect_tx bar bytes 1024 relaxed cluster", "mbarrier.expect_tx.relaxed.cluster.shared::cta.b64 [bar], 1024;", ok, P, "", ""},
  {"complete_tx relaxed cta", "mbarrier.complete_tx",
   "one: complete_tx bar bytes 1024 relaxed cta", "mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [bar], 1024;", ok, P, "", ""},
  {"expect_tx release", "mbarrier.expect_tx",
   "one: expect_tx bar bytes 1024 release", "mbarrier.expect_tx.release.cta.shared::cta.b64 [bar], 1024;",
   no, P, "is relaxed only", "Illegal modifier '.release' for instruction 'mbarrier.expect_tx'"},
  {"remote arrive_expect_tx keeps the state", "mbarrier.arrive",
   "t = one: arrive_expect_tx bar @ 1 bytes 1024", "mbarrier.arrive.expect_tx.shared::cluster.b64 %rd1, [%r2], 1024;",
   no, P, "returns no state", "Sink '_' is expected as a destination operand for instruction 'mbarrier.arrive.expect_tx'"},
  {"remote arrive_expect_tx", "mbarrier.arrive",
   "one: arrive_expect_tx bar @ 1 bytes 1024", "mbarrier.arrive.expect_tx.shared::cluster.b64 _, [%r2], 1024;", ok, P, "", ""},

  // .noComplete only as {.release}{.cta} on .shared{::cta}, with a count, and
  // not on .expect_tx (a .bk arrive without count arrives once: count 1).
  {"nocomplete relaxed", "mbarrier.arrive",
   "t = one: arrive bar count 1 relaxed nocomplete", "mbarrier.arrive.noComplete.relaxed.cta.shared::cta.b64 %rd1, [bar], 1;",
   no, P, "'nocomplete' with 'relaxed'", "Modifier '.relaxed' cannot be combined with modifier '.noComplete'"},
  {"nocomplete cluster scope", "mbarrier.arrive",
   "one: arrive bar count 1 release cluster nocomplete", "mbarrier.arrive.noComplete.release.cluster.shared::cta.b64 %rd1, [bar], 1;",
   no, P, "'nocomplete' with 'cluster'", "Modifier '.cluster' cannot be combined with modifier '.noComplete'"},
  {"nocomplete remote", "mbarrier.arrive",
   "one: arrive bar @ 1 count 1 nocomplete", "mbarrier.arrive.noComplete.shared::cluster.b64 _, [%r2], 1;",
   no, P, "'nocomplete' on a barrier '@ CTA'", "Modifier '.shared::cluster' cannot be combined with modifier '.noComplete'"},
  {"nocomplete release cta", "mbarrier.arrive",
   "t = one: arrive bar count 1 release cta nocomplete", "mbarrier.arrive.noComplete.release.cta.shared::cta.b64 %rd1, [bar], 1;",
   ok, P, "", ""},
  {"nocomplete, default order and scope", "mbarrier.arrive",
   "one: arrive bar nocomplete", "mbarrier.arrive.noComplete.shared::cta.b64 %rd1, [bar], 1;", ok, P, "", ""},
  {"arrive_drop nocomplete relaxed", "mbarrier.arrive_drop",
   "one: arrive_drop bar relaxed nocomplete", "mbarrier.arrive_drop.noComplete.relaxed.cta.shared::cta.b64 %rd1, [bar], 1;",
   no, P, "'nocomplete' with 'relaxed'", "Modifier '.relaxed' cannot be combined with modifier '.noComplete'"},
  {"arrive_drop nocomplete remote", "mbarrier.arrive_drop",
   "one: arrive_drop bar @ 1 nocomplete", "mbarrier.arrive_drop.noComplete.shared::cluster.b64 _, [%r2], 1;",
   no, P, "'nocomplete' on a barrier '@ CTA'", "Modifier '.shared::cluster' cannot be combined with modifier '.noComplete'"},
  {"arrive_drop nocomplete with bytes", "mbarrier.arrive_drop",
   "one: arrive_drop bar bytes 1024 nocomplete", "mbarrier.arrive_drop.expect_tx.noComplete.shared::cta.b64 %rd1, [bar], 1024;",
   no, P, "'nocomplete' with 'bytes'", "Illegal modifier '.noComplete' for instruction 'mbarrier.arrive_drop.expect_tx'"},
  {"arrive_drop nocomplete", "mbarrier.arrive_drop",
   "one: arrive_drop bar count 2 nocomplete", "mbarrier.arrive_drop.noComplete.shared::cta.b64 %rd1, [bar], 2;", ok, P, "", ""},

  // The .expect_tx forms have no count operand.
  {"arrive_expect_tx with count", "mbarrier.arrive",
   "one: arrive_expect_tx bar bytes 1024 count 2", "mbarrier.arrive.expect_tx.shared::cta.b64 %rd1, [bar], 1024, 2;",
   no, P, "PTX mbarrier.arrive.expect_tx has no count operand", "Arguments mismatch for instruction 'mbarrier.arrive.expect_tx'"},
  {"arrive_expect_tx", "mbarrier.arrive",
   "one: arrive_expect_tx bar bytes 1024", "mbarrier.arrive.expect_tx.shared::cta.b64 %rd1, [bar], 1024;", ok, P, "", ""},
  {"arrive with count", "mbarrier.arrive",
   "one: arrive bar count 2", "mbarrier.arrive.shared::cta.b64 %rd1, [bar], 2;", ok, P, "", ""},
  {"arrive_drop with bytes and count", "mbarrier.arrive_drop",
   "one: arrive_drop bar bytes 1024 count 2", "mbarrier.arrive_drop.expect_tx.shared::cta.b64 %rd1, [bar], 1024, 2;",
   no, P, "PTX mbarrier.arrive_drop.expect_tx has no count operand",
   "Arguments mismatch for instruction 'mbarrier.arrive_drop.expect_tx'"},
  {"arrive_drop with bytes", "mbarrier.arrive_drop",
   "one: arrive_drop bar bytes 1024", "mbarrier.arrive_drop.expect_tx.shared::cta.b64 %rd1, [bar], 1024;", ok, P, "", ""},
  {"arrive_drop with count", "mbarrier.arrive_drop",
   "one: arrive_drop bar count 2", "mbarrier.arrive_drop.shared::cta.b64 %rd1, [bar], 2;", ok, P, "", ""},

  // barrier{.cta}.arrive requires its thread count; ids and counts.
  {"bar_arrive without thread count", "bar, barrier",
   "bar_arrive 1", "barrier.arrive.aligned 1;", no, P, "bar_arrive needs a thread count",
   "Arguments mismatch for instruction 'barrier.arrive'"},
  {"bar_arrive", "bar, barrier", "bar_arrive 1, 64", "barrier.arrive.aligned 1, 64;", ok, P, "", ""},
  {"bar_sync without thread count", "bar, barrier", "bar_sync 1", "barrier.sync.aligned 1;", ok, P, "", ""},
  {"bar_arrive with 0 threads", "bar, barrier",
   "bar_arrive 1, 0", "barrier.arrive.aligned 1, 0;", no, P, "named_count_not_warp_multiple",
   "requires a non-zero thread count argument"},
  {"bar_sync with 48 threads", "bar, barrier",
   "bar_sync 1, 48", "barrier.sync.aligned 1, 48;", no, P, "named_count_not_warp_multiple",
   "must be in multiple of warp size"},
  {"bar_sync id 16", "bar, barrier",
   "bar_sync 16", "barrier.sync.aligned 16;", no, P, "named_id_out_of_range", "expected to be in range [0..15]"},

  // cp.async.bulk: a size that is a multiple of 16, at most 2^20 - 16.
  {"tma_load of 24 bytes", "cp.async.bulk",
   "one: tma_load tile -> bar bytes 24", "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [tile], [%rd2], 24, [bar];",
   no, P, "bad_copy_size", "expected to be multiple of 16"},
  {"tma_load of 32 bytes", "cp.async.bulk",
   "one: tma_load tile -> bar bytes 32", "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [tile], [%rd2], 32, [bar];",
   ok, P, "", ""},
  {"tma_load of 2^20 bytes", "cp.async.bulk",
   "one: tma_load tile -> bar bytes 1048576",
   "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [tile], [%rd2], 1048576, [bar];",
   no, P, "bad_copy_size", "expected to be in range [0..1048560]"},
  {"tma_load of 2^20 - 16 bytes", "cp.async.bulk",
   "one: tma_load tile -> bar bytes 1048560",
   "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [tile], [%rd2], 1048560, [bar];", ok, P, "", ""},
  {"tma_load of a 24-byte buffer", "cp.async.bulk",
   "one: tma_load odd -> bar", "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [odd], [%rd2], 24, [bar];",
   no, P, "tma_load copies all of 'odd', 24 bytes", "expected to be multiple of 16"},
  {"tma_store of a 24-byte buffer", "cp.async.bulk",
   "one: tma_store odd", "cp.async.bulk.global.shared::cta.bulk_group [%rd2], [odd], 24;",
   no, P, "tma_store copies all of 'odd', 24 bytes", "expected to be multiple of 16"},
  {"tma_store of a 1024-byte buffer", "cp.async.bulk",
   "one: tma_store tile", "cp.async.bulk.global.shared::cta.bulk_group [%rd2], [tile], 1024;", ok, P, "", ""},

  // mbarrier counts and tx-counts: the ISA's ranges, which ptxas leaves to the
  // program (it rejects only an arrive count of 0).
  {"arrive count 0", "mbarrier.arrive",
   "one: arrive bar count 0", "mbarrier.arrive.shared::cta.b64 %rd1, [bar], 0;", no, P, "bad_arrive_count",
   "expected to be a non-zero positive"},
  {"arrive count 2^20", "Contents of the mbarrier object",
   "one: arrive bar count 1048576", "mbarrier.arrive.shared::cta.b64 %rd1, [bar], 1048576;", no, T, "bad_arrive_count", ""},
  {"arrive count 2^20 - 1", "Contents of the mbarrier object",
   "one: arrive bar count 1048575", "mbarrier.arrive.shared::cta.b64 %rd1, [bar], 1048575;", ok, P, "", ""},
  {"init count 0", "mbarrier.init",
   "one: init fresh count 0", "mbarrier.init.shared::cta.b64 [bar], 0;", no, T, "bad_init_count", ""},
  {"init count 2^20", "mbarrier.init",
   "one: init fresh count 1048576", "mbarrier.init.shared::cta.b64 [bar], 1048576;", no, T, "bad_init_count", ""},
  {"init count 2^20 - 1", "mbarrier.init",
   "one: init fresh count 1048575", "mbarrier.init.shared::cta.b64 [bar], 1048575;", ok, P, "", ""},
  {"expect_tx of 2^20 bytes", "Contents of the mbarrier object",
   "one: expect_tx bar bytes 1048576", "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], 1048576;",
   no, T, "tx_out_of_range", ""},
  {"expect_tx of 2^20 - 1 bytes", "Contents of the mbarrier object",
   "one: expect_tx bar bytes 1048575", "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], 1048575;", ok, P, "", ""},
  {"complete_tx of 2^20 bytes", "Contents of the mbarrier object",
   "one: complete_tx bar bytes 1048576", "mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [bar], 1048576;",
   no, T, "tx_out_of_range", ""},
  {"arrive_expect_tx of 2^20 bytes", "Contents of the mbarrier object",
   "one: arrive_expect_tx bar bytes 1048576", "mbarrier.arrive.expect_tx.shared::cta.b64 %rd1, [bar], 1048576;",
   no, T, "tx_out_of_range", ""},
};
// clang-format on

constexpr int bk_line = 8;  // the line of the statement in bk_kernel()

std::string bk_kernel(const Form& f) {
  return "kernel isa_form\n"
         "cluster 2\n"
         "smem tile bytes 1024\n"
         "smem odd bytes 24\n"
         "mbarrier bar count 4\n"
         "mbarrier fresh\n"
         "role r warp:\n"
         "  " + std::string(f.bk) + "\n";
}

std::string ptx_kernel(const Form& f) {
  return ".version 8.6\n"  // .relaxed on mbarrier.arrive needs 8.6
         ".target sm_90a\n"
         ".address_size 64\n"
         "\n"
         ".visible .entry isa_form(.param .u64 gmem)\n"
         "{\n"
         "  .reg .b32 %r<4>;\n"
         "  .reg .b64 %rd<4>;\n"
         "  .shared .align 8 .b64 bar;\n"
         "  .shared .align 128 .b8 tile[1024];\n"
         "  .shared .align 128 .b8 odd[24];\n"
         "  ld.param.u64 %rd2, [gmem];\n"
         "  mapa.shared::cluster.u32 %r2, bar, 1;\n"  // bar in CTA 1 of the cluster
         "  " + std::string(f.ptx) + "\n"
         "  ret;\n"
         "}\n";
}

struct Assembled {
  bool ok = false;
  std::string messages;
};

Assembled assemble(const std::string& ptxas, const std::string& ptx, const std::string& stem) {
  const std::filesystem::path dir = cli_support::temp_dir("isa_limits");
  const std::string src = (dir / (stem + ".ptx")).string(), out = (dir / (stem + ".cubin")).string(),
                    log = (dir / (stem + ".log")).string();
  std::ofstream(src, std::ios::binary) << ptx;
  const std::string cmd = "\"" + ptxas + "\" -arch=sm_90a \"" + src + "\" -o \"" + out + "\" >\"" + log + "\" 2>&1";
  const int st = std::system(cmd.c_str());
  return Assembled{WIFEXITED(st) && WEXITSTATUS(st) == 0, cli_support::slurp(log)};
}

}  // namespace

TEST_CASE("ISA limits: the front end rejects what ptxas rejects, and accepts each nearest twin") {
  const std::string ptxas = PC_PTXAS;
  const bool have_ptxas = !ptxas.empty() && std::filesystem::exists(ptxas);
  if (!have_ptxas) {
    if (PC_CUDA_EXPECTED)
      FAIL("nvcc was found for the CUDA compile checks but ptxas was not (PC_PTXAS='" << ptxas << "'): this test needs it");
    else
      MESSAGE("no ptxas: only the front end's half of each row is checked");
  }
  int rows = 0, rejected = 0;
  for (const Form& f : forms) {
    CAPTURE(f.name);
    CAPTURE(f.bk);
    CAPTURE(f.ptx);
    ++rows;
    // The table: a row decided by the ISA's text is one the front end rejects.
    REQUIRE_FALSE((f.by == By::isa_text && f.accepted));
    REQUIRE(std::string(f.bk_error).empty() == f.accepted);
    REQUIRE(std::string(f.ptxas_error).empty() == (f.accepted || f.by == By::isa_text));

    // The front end.
    const std::string src = bk_kernel(f);
    const dsl::Parsed p = dsl::parse(src, "isa.bk");
    if (f.accepted) {
      CHECK_MESSAGE(p.ok(), (p.errors.empty() ? std::string() : dsl::render(p.errors.front(), src)));
    } else if (spec::violation_from_name(f.bk_error)) {
      // The checker's violation, as for the operand in a variable.
      ++rejected;
      CHECK_MESSAGE(p.ok(), (p.errors.empty() ? std::string() : dsl::render(p.errors.front(), src)));
      const std::string file = cli_support::temp_file("isa_limits", "form.bk", src);
      const cli_support::Run r = cli_support::run("isa_limits", "'" + file + "'");
      CAPTURE(r.out);
      CAPTURE(r.err);
      CHECK(r.status == 1);
      CHECK(r.out.find(f.bk_error) != std::string::npos);
      CHECK(r.out.find(":" + std::to_string(bk_line) + ":") != std::string::npos);
    } else {
      ++rejected;
      REQUIRE_FALSE(p.ok());
      const dsl::Diagnostic& d = p.errors.front();
      CAPTURE(d.message);
      CHECK(d.loc.line == bk_line);
      CHECK(d.message.find(f.bk_error) != std::string::npos);
      // check-kernel: exit 2, file:line:column, the same message.
      const std::string file = cli_support::temp_file("isa_limits", "form.bk", src);
      const cli_support::Run r = cli_support::run("isa_limits", "'" + file + "'");
      CHECK(r.status == 2);
      CAPTURE(r.err);
      CHECK(r.err.find(file + ":" + std::to_string(bk_line) + ":" + std::to_string(d.loc.col) + ": error: ") != std::string::npos);
      CHECK(r.err.find(f.bk_error) != std::string::npos);
    }

    // ptxas.
    if (!have_ptxas) continue;
    const Assembled a = assemble(ptxas, ptx_kernel(f), "form" + std::to_string(rows));
    CAPTURE(a.messages);
    const bool ptxas_accepts = f.accepted || f.by == By::isa_text;
    CHECK(a.ok == ptxas_accepts);
    if (!ptxas_accepts) CHECK(a.messages.find(f.ptxas_error) != std::string::npos);
  }
  CHECK(rejected > 0);
  CHECK(rejected < rows);
}
