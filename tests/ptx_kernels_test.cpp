// The project's own CUDA kernels (kernels/cuda/*.cu), compiled by the build
// with nvcc to PTX, checked through the PTX front end: each gives the
// verdict its header expects, which is its .bk twin's (checked here too), a
// planted bug's trace ends at a line of its CUDA source, and the kernel
// printed by --emit-bk reads back into the same search; the plain search of
// the kernel with its runs of reads apart agrees, and a correct kernel's
// states are within 4x of its twin's. Each .cu says
//   // twin: kernels/cuda/NAME.bk
//   // check-kernel: --entry NAME --block X [--cluster N] [--clc N] [--arg K=V]
//   // expect: verified | VIOLATION_KIND
// and, where the plain search of its runs apart is millions of states (nine
// warps, each an agent),
//   // apart: reduced
// which checks the runs apart with the reductions (each checked against the
// plain search on generated kernels: checker_por_test.cpp), or, where even
// that is millions (a warp group's 24 wgmma joins of an attention tile),
//   // apart: bounded N
// which searches them with the reductions for N states and wants no other
// outcome there (the runs of wgmma are checked whole on generated warp
// groups: ptx_coalesce_test.cpp); and, where its
// PTX branches on values loaded from memory (docs/ptx.md),
//   // loaded branches: N
// the number of such branches, each noted in the verdict. Its PTX built
// with the differential harness's delays (-DPC_STRESS) gives the same
// verdict in the same states. A kernel for a
// target other than the device machine's Hopper (`// arch: sm_100a`: its
// tcgen05 cannot run there) is also assembled with ptxas for that target,
// so that the instructions it was checked as are ones the target takes.
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/ptx/emit_bk.hpp"
#include "checker/ptx/front.hpp"
#include "tests/cli_support.hpp"

using namespace pc;

namespace {

std::string header(const std::string& text, const std::string& key) {
  const std::string tag = "// " + key + ":";
  const std::size_t at = text.find(tag);
  if (at == std::string::npos) return "";
  std::string v = text.substr(at + tag.size(), text.find('\n', at) - at - tag.size());
  while (!v.empty() && v.front() == ' ') v.erase(0, 1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\r')) v.pop_back();
  return v;
}

bool launch_of(const std::string& options, ptx::Launch& l) {
  std::istringstream in(options);
  std::string opt, value;
  while (in >> opt >> value) {
    if (opt == "--entry") l.entry = value;
    else if (opt == "--block" && ptx::parse_dims(value, l.block)) continue;
    else if (opt == "--cluster") l.cluster = std::stoi(value);
    else if (opt == "--clc") l.clc = std::stoi(value);
    else if (opt == "--arg" && value.find('=') != std::string::npos)
      l.args.emplace_back(value.substr(0, value.find('=')), std::stoll(value.substr(value.find('=') + 1)));
    else return false;
  }
  return true;
}

}  // namespace

TEST_CASE("ptx kernels: each CUDA kernel's PTX gives its .bk twin's verdict") {
  const std::filesystem::path dir = std::filesystem::path(cli_support::src) / "kernels" / "cuda";
  std::vector<std::filesystem::path> sources;
  if (std::filesystem::exists(dir))
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".cu") sources.push_back(e.path());
  std::sort(sources.begin(), sources.end());
  REQUIRE(!sources.empty());
  int checked = 0, bugs = 0;
  for (const auto& cu : sources) {
    const std::string name = cu.stem().string();
    CAPTURE(name);
    const std::string text = cli_support::slurp(cu.string());
    const std::string expect = header(text, "expect"), twin = header(text, "twin");
    ptx::Launch l;
    REQUIRE(!expect.empty());
    REQUIRE(launch_of(header(text, "check-kernel"), l));
    // The twin, as the .bk front end reads it.
    REQUIRE(!twin.empty());
    std::string twin_source;
    const dsl::Parsed t = dsl::parse_file(cli_support::src + "/" + twin, twin_source);
    REQUIRE(t.ok());
    const check::Result twin_result = check::check(t.kernel, {});
    CHECK(check::outcome_name(twin_result) == expect);
    // The PTX the build compiled.
    const std::string ptx_path = std::string(PC_BINARY_DIR) + "/kernels/cuda/" + name + ".ptx";
    if (!std::filesystem::exists(ptx_path)) {
      // Only where the build found no nvcc (PC_CUDA_EXPECTED 0): then this half cannot run.
      CHECK(PC_CUDA_EXPECTED == 0);
      continue;
    }
    const std::string ptx_text = cli_support::slurp(ptx_path);
    if (const std::string arch = header(text, "arch"); !arch.empty() && std::string(PC_PTXAS).size() > 0) {
      const std::string log = (cli_support::temp_dir("ptx_kernels") / (name + ".log")).string();
      const std::string cmd = "\"" + std::string(PC_PTXAS) + "\" -arch=" + arch + " \"" + ptx_path + "\" -o /dev/null >\"" + log + "\" 2>&1";
      const int st = std::system(cmd.c_str());
      const std::string ptxas_log = cli_support::slurp(log);
      CAPTURE(ptxas_log);
      CHECK((WIFEXITED(st) && WEXITSTATUS(st) == 0));
    }
    const ptx::Loaded k = ptx::load(ptx_text, ptx_path, l);
    const std::string err = k.errors.empty() ? "" : k.errors[0].message;
    CAPTURE(err);
    REQUIRE(k.ok());
    // The branches on loaded values it reads both ways, each with its note.
    const std::string branches = header(text, "loaded branches");
    CHECK(k.loaded_branches == (branches.empty() ? 0 : std::stoi(branches)));
    const check::Result r = check::check(k.kernel, {});
    const std::string found = r.message + " (" + std::to_string(r.states) + " states)";
    CAPTURE(found);
    CHECK(check::outcome_name(r) == expect);
    ++checked;
    // The same kernel with the differential harness's delays
    // (harnesses/differential: the PTX it launches on a GPU) is the same
    // search: its clock reads and sleeps are no steps.
    const std::string stress_path = std::string(PC_BINARY_DIR) + "/kernels/cuda/stress/" + name + ".ptx";
    REQUIRE(std::filesystem::exists(stress_path));
    const std::string stress_text = cli_support::slurp(stress_path);
    if (ptx_text.find("mbarrier.") != std::string::npos) CHECK(stress_text.find("nanosleep.u32") != std::string::npos);
    const ptx::Loaded stressed = ptx::load(stress_text, stress_path, l);
    REQUIRE(stressed.ok());
    const check::Result rs = check::check(stressed.kernel, {});
    CHECK(check::outcome_name(rs) == expect);
    CHECK(rs.states == r.states);
    // The plain search of the kernel as read, with its runs of reads apart
    // (--no-reduction: checker/ptx/coalesce.hpp), gives the same verdict.
    ptx::Launch apart = l;
    apart.coalesce = false;
    const ptx::Loaded plain = ptx::load(ptx_text, ptx_path, apart);
    REQUIRE(plain.ok());
    check::Options none;
    const std::string apart_how = header(text, "apart");
    none.reduction = apart_how != "";
    const bool bounded = apart_how.rfind("bounded ", 0) == 0;
    if (bounded) none.max_states = std::stoull(apart_how.substr(8));
    const check::Result rp = check::check(plain.kernel, none);
    // Bounded: no other outcome within the bound (its runs apart are more
    // states than a test may search).
    if (bounded && rp.verdict == check::Verdict::inconclusive) CHECK(rp.states >= none.max_states);
    else CHECK(check::outcome_name(rp) == expect);
    // Issue 58's bound: a correct kernel's states within 4x of its twin's
    // (a search for a violation stops where its order of search finds one).
    if (r.verdict == check::Verdict::verified) CHECK(r.states <= 4 * twin_result.states);
    // --emit-bk: the kernel printed as .bk reads back into the same search.
    const std::string bk = ptx::emit_bk(k.kernel, ptx_path);
    const dsl::Parsed back = dsl::parse(bk, name + ".emitted.bk");
    const std::string back_err = back.errors.empty() ? "" : back.errors[0].message + " at line " + std::to_string(back.errors[0].loc.line);
    CAPTURE(back_err);
    REQUIRE(back.ok());
    const check::Result rb = check::check(back.kernel, {});
    CHECK(check::outcome_name(rb) == check::outcome_name(r));
    CHECK(rb.states == r.states);
    if (r.verdict != check::Verdict::violation) continue;
    ++bugs;
    // The violation's PTX line came from a line of the CUDA source.
    REQUIRE(r.loc.line > 0);
    REQUIRE(static_cast<std::size_t>(r.loc.line) < k.origin.size());
    CHECK(k.origin[static_cast<std::size_t>(r.loc.line)].file.find(name + ".cu") != std::string::npos);
    CHECK(k.origin[static_cast<std::size_t>(r.loc.line)].line > 0);
  }
  MESSAGE(checked << " PTX kernels checked, " << bugs << " planted bugs caught");
  if (PC_CUDA_EXPECTED) CHECK(checked == static_cast<int>(sources.size()));
}
