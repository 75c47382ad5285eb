// check-kernel: verify abstract kernels (.bk) before deploying them.
// Exit status (a contract, docs/cli.md): 0 verified, 1 violation found,
// 2 bad input or usage, 3 inconclusive, 4 internal error (a defect of the
// checker); over several files, the worst (internal error, then bad input,
// then inconclusive, then violation, then verified).
#include <csignal>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "checker/cli/place.hpp"
#include "checker/cli/ptx_input.hpp"
#include "checker/ptx/front.hpp"
#include "checker/sweep.hpp"
#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/guard.hpp"
#include "checker/search/mpi/distributed.hpp"
#include "checker/search/interrupt.hpp"
#include "checker/program.hpp"
#include "checker/report/report.hpp"
#include "checker/smt/symbolic.hpp"
#include "checker/smt/trips.hpp"

namespace {


constexpr const char* help = R"(usage: check-kernel FILE... [options]

Verifies each abstract kernel (.bk, see docs/dsl.md), or a kernel compiled
to PTX (.ptx, see docs/ptx.md), checked for one launch: explores every
interleaving of its agents and async operations and reports "verified", a
violation with a trace (the shortest the search found) and a replay token,
or "inconclusive".

options for a .ptx file (each warp is an agent; see docs/ptx.md):
  --entry NAME         the kernel (.entry) to check (default: the only one)
  --block X[,Y,Z]      threads per CTA (default: the kernel's .reqntid/.maxntid)
  --cluster N          CTAs in the cluster (default: .reqnctapercluster, or 1)
  --grid X[,Y,Z]       CTAs in the grid, for %nctaid and %nclusterid (default:
                       one cluster); the grid's first cluster is checked
  --smem-bytes B       dynamic shared memory, for %dynamic_smem_size
  --arg NAME=VALUE     an integer kernel parameter (NAME, or its index);
                       a 64-bit parameter not given is a pointer of its own
  --box NAME=BYTES     the bytes of one box of the tensor map parameter NAME
                       (or its index), for cp.async.bulk.tensor
  --clc N              clusters waiting to launch that clusterlaunchcontrol
                       .try_cancel may take (default 0): each query's answer
                       is a new tile at most N times
  --assume LINE=WAYS   the branch (or guarded instruction) at PTX line LINE,
                       whose guard is a value loaded from memory, goes the
                       ways WAYS says each time a warp reaches it: 1 (the
                       guard holds), 0, or a list (1,1,0: the last repeats)
  --meta FILE.json     Triton's metadata beside the PTX (its cache's NAME.json):
                       the entry, the block (num_warps), the dynamic shared
                       memory (shared) and the cluster (cluster_dims) where
                       no option above gives them
  --emit-bk            print the kernel the front end built as .bk (what is
                       checked), instead of checking it

options:
  --param NAME=VALUE   set a parameter for the explicit search (repeatable)
  --json               print results as JSON (docs/check-kernel.schema.json)
  --sarif              print results as SARIF 2.1.0 (for code-scanning tools)
  --trace-html OUT     write the counterexample timeline of a violation to OUT
                       (with several files: OUT gets the first violation's)
  --symbolic           also prove, with Z3, arrival counts, tx balance, ranges,
                       named barriers and shared memory for every parameter
                       value and trip count; a refuted claim is a violation
                       (exit 1), shown by the explicit search at its values
  --prove NAME         one search for every value of the trip-count parameter
                       NAME (at least its declared lower bound), where its
                       loops' expressions are periodic, which Z3 proves (a
                       loop over NAME may sit in a loop over tiles);
                       otherwise "not proved", with the reason, and the
                       explicit search at NAME's value: a violation there
                       (exit 1), or "verified explicitly at NAME=v only"
                       (exit 3; docs/checker.md, "Every trip count")
  --strict             findings of the warning kinds (points the field relies
                       on with no failure known, docs/spec.md "Stances") are
                       violations: the search stops at them with a trace
  --no-reduction       explore without partial-order and symmetry reductions
                       (a .ptx file: and with a warp's runs of reads apart)
  --check-reduction    test the partial-order reduction as it runs: at each
                       state it reduces, every step it keeps commutes with
                       every enabled step it leaves out (slower; a failure is
                       a defect of the checker: exit 4)
  --no-step-cache      step every agent from every state, instead of reusing
                       the outcome of the same step from the same inputs
                       (the same verdict, states and trace; slower where
                       steps repeat: docs/checker.md, "The step cache")
  --check-step-cache   step every agent anyway where the cache holds the
                       outcome, and compare (slower; a difference is a defect
                       of the checker: exit 4)
  --max-states N       stop after N states (verdict: inconclusive); the
                       default cap is 50000000 states
  --max-memory MB      stop when the process's resident memory passes MB MiB
                       (inconclusive)
  --timeout S          stop after S seconds (inconclusive)
  --threads N          search with N threads (default: every core); any N
                       gives the verdict, trace and counts of one thread
  --distributed        run under mpirun (mpirun -np N check-kernel --distributed
                       FILE): each rank stores and expands its part of the
                       states, with --threads threads (default 1: a rank a
                       core); the verdict, counts and trace
                       of one process, memory summed over the ranks
                       (docs/checker.md, "Distributed search")
  --swarm N            hunt for bugs where the exhaustive search is out of
                       reach: N randomized depth-first searches with bitstate
                       hashing, on --threads threads, each storing at most
                       --max-states / N states; a violation has a replayable
                       trace, finding none is "inconclusive" (not a proof)
  --swarm-depth D      with --swarm: the deepest schedule followed (10000)
  --sweep              run the explicit search at every combination of the
                       declared parameter values ('param N = v in lo..hi' or
                       'in {a, b}'; --param fixes one), on every core; the
                       result is the first failing point's, with a summary
  --sweep-max N        at most N points (default 256): past it, a fixed sample
                       that keeps the first and last combination
  --place-barriers     take FILE's shared-memory accesses (read, write,
                       global_load_lds; its barriers are taken out first) and
                       print it with the fewest barriers that order them,
                       verified by the explicit search, the count proved
                       minimal by Z3; the summary goes to stderr
                       (docs/placement.md)
  --target T           with --place-barriers: place for T (sm_90a, sm_100a,
                       gfx90a, gfx940, gfx942, gfx1100, gfx1101, gfx1102,
                       gfx1200, gfx1201; default: the kernel's own target)
  --barrier KIND       with --place-barriers: split (gfx12 signal/wait pairs,
                       the default there), monolithic (s_barrier; bar_sync,
                       a named barrier per group of roles), or pair
                       (mbarrier producer/consumer pairs between two roles,
                       the default where one verifies)
  --diff               with --place-barriers: print a unified diff instead
  --replay TOKEN       re-run exactly the schedule of a reported trace (the
                       token carries the --param values it was made with)
  --steps N            with --replay: print the state after N steps of the
                       trace (each agent's line, each barrier's state)
  --coverage           after a verified search, list every statement that no
                       interleaving executed (by default: a one-line summary)
  --check-expect       exit 1 when a file's verdict differs from its
                       '# expect:' line (and 0 when all match)
  --brief              one line per finding (FILE:LINE:COL: KIND: MESSAGE):
                       the violation, each warning, unreached statement and
                       refuted claim; a kernel with none: its verdict line
  --profile-states     after the search (or where a limit or Ctrl-C stops
                       it), print where its states come from: states per
                       agent and line, per mbarrier phase, per loop trip,
                       and the agent lines that hold the most
  --progress           a progress line on stderr every 3 seconds
  --quiet              print nothing but errors in the input: the exit status
                       tells the outcome
  --help, --version

Ctrl-C (SIGINT) stops the search: the verdict so far, inconclusive
("interrupted"), with its states (and --profile-states's profile), exit 3;
a second Ctrl-C kills it.

exit status: 0 verified, 1 violation, 2 bad input or usage, 3 inconclusive,
4 internal error (a defect of the checker: please report it); over several
files the worst of them (internal > bad input > inconclusive > violation).
)";

// The first SIGINT asks every search to stop (they end inconclusive,
// "interrupted", and are reported); the handler is then the default again,
// so that a second one kills the process.
void on_sigint(int) { pc::check::interrupt_requested.store(true); }

// Under mpirun (--distributed), Ctrl-C reaches mpirun alone, which ends the
// ranks with SIGTERM: there SIGTERM stops the search as SIGINT does.
void catch_sigint(bool sigterm_too) {
  struct sigaction sa {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &sa, nullptr);
  if (sigterm_too) sigaction(SIGTERM, &sa, nullptr);
}

int usage(const std::string& msg) {
  std::fprintf(stderr, "check-kernel: %s\n(try check-kernel --help)\n", msg.c_str());
  return 2;
}

bool parse_u64(const char* s, std::uint64_t& out) {
  if (!s || !*s || *s == '-') return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s, &end, 10);
  if (errno || *end) return false;
  out = v;
  return true;
}

// Whether two paths name one file (an output must never overwrite an input).
bool same_file(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec);
  const fs::path x = fs::weakly_canonical(a, ec), y = fs::weakly_canonical(b, ec);
  return !ec && x == y;
}

pc::report::SymbolicClaim claim_of(const pc::smt::Finding& f, const std::string& file) {
  return {f.check,    pc::smt::status_name(f.status), f.claim, f.loc, f.witness, f.detail, f.reason,
          f.status == pc::smt::Status::counterexample ? pc::smt::reproduce_command(f, file) : std::string()};
}

// A symbolic counterexample is a violation (exit 1): the explicit search
// runs again at its parameter values and, where it finds the violation there,
// that is the file's result, with its trace and a replay token that carries
// those values; where it does not, the result is `symbolic_counterexample`.
void confirm_symbolic(pc::report::FileReport& f, const std::vector<pc::smt::Finding>& findings,
                      std::vector<std::pair<std::string, std::int64_t>> params, pc::check::Options opt) {
  const pc::smt::Finding* cx = nullptr;
  for (const pc::smt::Finding& x : findings)
    if (x.status == pc::smt::Status::counterexample) {
      cx = &x;
      break;
    }
  if (!cx || f.result.verdict == pc::check::Verdict::violation) return;
  for (const auto& [name, value] : cx->witness) {
    bool given = false;
    for (auto& [n, v] : params)
      if (n == name) v = value, given = true;
    if (!given) params.emplace_back(name, value);
  }
  std::string values;
  for (const auto& [n, v] : cx->witness) values += (values.empty() ? "" : " ") + n + "=" + std::to_string(v);
  std::string source;
  const pc::dsl::Parsed at = pc::dsl::parse_file(f.file, source, params);
  if (at.ok()) {
    opt.params = params;
    pc::check::Result r = pc::check::check(at.kernel, opt);
    if (r.verdict == pc::check::Verdict::violation) {
      r.message = "at " + values + " (a counterexample of --symbolic " + cx->check + "): " + r.message;
      f.result = std::move(r);
      f.params.clear();
      for (const pc::ir::Param& p : at.kernel.params) f.params.emplace_back(p.name, p.value);
      return;
    }
  }
  f.result.verdict = pc::check::Verdict::violation;
  f.result.violation = pc::spec::Violation::symbolic_counterexample;
  f.result.loc = cx->loc;
  f.result.agent = -1;
  f.result.replay.clear();
  f.result.message = cx->claim + " fails at " + values + (cx->detail.empty() ? "" : ": " + cx->detail) +
                     "; the explicit search at those values does not show it: " + pc::smt::reproduce_command(*cx, f.file);
}

// --prove NAME: one search for every value of the trip count NAME
// (docs/checker.md, "Every trip count"). A violation's schedule runs at one
// trip count: the explicit search runs again there and its violation, with a
// replay token carrying that value, is the result. When the proof does not
// cover the kernel (its obligation fails, or the search stops at a limit
// before it closes), the explicit search runs at NAME's given value instead:
// its violation is the result (exit 1), and otherwise the result is
// inconclusive, "verified explicitly at NAME=v only" (exit 3).
void prove(pc::report::FileReport& f, const pc::ir::Kernel& k, const std::string& name,
           std::vector<std::pair<std::string, std::int64_t>> params, pc::check::Options opt) {
  const pc::ir::Param* param = nullptr;
  for (const pc::ir::Param& p : k.params)
    if (p.name == name) param = &p;
  if (!param) {
    std::string names;
    for (const pc::ir::Param& p : k.params) names += (names.empty() ? "" : ", ") + p.name;
    throw pc::check::KernelError("--prove " + name + ": the kernel has no parameter " + name +
                                     (names.empty() ? std::string(" (it declares none)") : " (it declares " + names + ")"),
                                 {});
  }
  // The proof does not cover the kernel, for `why`: the explicit search at
  // the given value says what can still be said.
  auto explicit_at = [&](const std::string& why) {
    pc::check::Options plain = opt;
    plain.trips.reset();
    pc::check::Result e = pc::check::check(k, plain);
    const std::string at = name + "=" + std::to_string(param->value);
    e.not_proved = "not proved for every " + name + ": " + why;
    if (e.verdict == pc::check::Verdict::violation) {
      e.message = "at " + at + " (the explicit search; " + e.not_proved + "): " + e.message;
    } else if (e.verdict == pc::check::Verdict::verified) {
      e.verdict = pc::check::Verdict::inconclusive;
      e.inconclusive_reason = "not-proved";
      e.verified_at = at;
      e.not_proved += "; verified explicitly at " + at + " only";
    } else {
      e.not_proved += "; the explicit search at " + at + " stopped at its limit (" + e.inconclusive_reason + ") too";
    }
    f.result = std::move(e);
  };
  const pc::smt::TripProof tp = pc::smt::prove_trips(k, name);
  if (!tp.shift) return explicit_at(tp.reason);
  opt.trips = tp.shift;
  pc::check::Result r = pc::check::check(k, opt);
  if (r.verdict == pc::check::Verdict::verified) {
    r.proved_for = "every " + name + " >= " + std::to_string(tp.shift->least);
    f.result = std::move(r);
    return;
  }
  if (r.verdict == pc::check::Verdict::inconclusive) {
    if (r.inconclusive_reason == "not-proved") return explicit_at(r.not_proved);
    explicit_at("the search stopped at its limit (" + r.inconclusive_reason + ") before it closed");
    // Where the states of the search that did not close came from.
    if (r.profile.taken) {
      f.result.profile = std::move(r.profile);
      f.result.profile.of = "the --prove " + name + " search, which stopped at its limit";
    }
    return;
  }
  if (r.trip_value < 0) {
    f.result = std::move(r);
    return;
  }
  bool given = false;
  for (auto& [n, v] : params)
    if (n == name) v = r.trip_value, given = true;
  if (!given) params.emplace_back(name, r.trip_value);
  std::string source;
  const pc::dsl::Parsed at = pc::dsl::parse_file(f.file, source, params);
  if (at.ok()) {
    opt.trips.reset();
    opt.params = params;
    pc::check::Result e = pc::check::check(at.kernel, opt);
    if (e.verdict == pc::check::Verdict::violation) {
      e.message = "at " + name + "=" + std::to_string(r.trip_value) + " (--prove): " + e.message;
      f.result = std::move(e);
      f.params.clear();
      for (const pc::ir::Param& p : at.kernel.params) f.params.emplace_back(p.name, p.value);
      return;
    }
  }
  // Nested loops: the schedule may take a different N in each pass of the
  // outer loop (each of N's residue modulo the period), which no single N
  // runs: not proved.
  if (tp.shift->nested)
    return explicit_at("the violation found takes trip counts that differ between the passes of the outer loop, and the explicit search at " +
                       name + "=" + std::to_string(r.trip_value) + " does not show it");
  // The schedule is a run at that trip count, so the explicit search must
  // fail there: if it does not, the checker has a defect.
  throw pc::check::InternalError("--prove found " + pc::check::outcome_name(r) + " at " + name + "=" +
                                 std::to_string(r.trip_value) + ", which the explicit search there does not show");
}

// What the command line asks for.
struct Cli {
  std::vector<std::string> files;
  std::vector<std::pair<std::string, std::int64_t>> params;
  pc::check::Options opt;
  bool want_json = false, want_sarif = false, symbolic = false, check_expect = false, brief = false, quiet = false;
  bool full_coverage = false;
  bool want_sweep = false;
  std::string prove_param;  // --prove NAME
  bool want_place = false, want_diff = false;
  pc::place::Request place_req;
  pc::cli::SweepOptions sweep_opt;
  std::string html_out;
  pc::cli::PtxOptions ptx;
  // Results printed as text (neither JSON nor SARIF, nor --quiet).
  [[nodiscard]] bool text_out() const { return !want_json && !want_sarif && !quiet; }
};

// The outcome of a step of main: go on, or exit with this status.
using EarlyExit = std::optional<int>;

// Reads the options into c: an exit status where one ends the run (--help,
// --version, a usage error).
EarlyExit parse_args(int argc, char** argv, Cli& c) {
  pc::check::Options& opt = c.opt;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (const auto e = pc::cli::ptx_option(c.ptx, argc, argv, i)) {
      if (!e->empty()) return usage(*e);
      continue;
    }
    auto value = [&](const char* what) -> const char* {
      if (i + 1 >= argc) return nullptr;
      (void)what;
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      std::fputs(help, stdout);
      return 0;
    } else if (a == "--version") {
      std::printf("check-kernel %s (phasecheck)\n", pc::report::tool_version);
      return 0;
    } else if (a == "--json") {
      c.want_json = true;
    } else if (a == "--sarif") {
      c.want_sarif = true;
    } else if (a == "--symbolic") {
      c.symbolic = true;
    } else if (a == "--prove") {
      const char* v = value("--prove");
      if (!v || !*v) return usage("--prove needs the name of a trip-count parameter");
      c.prove_param = v;
    } else if (a == "--strict") {
      opt.strict = true;
    } else if (a == "--check-reduction") {
      opt.check_reduction = true;
    } else if (a == "--no-reduction") {
      opt.reduction = false;
      // A .ptx file's runs of reads stay apart too (checker/ptx/coalesce.hpp),
      // and a replay must build the same kernel.
      c.ptx.launch.coalesce = false;
      c.ptx.text += (c.ptx.text.empty() ? "" : " ") + std::string("--no-reduction");
    } else if (a == "--no-step-cache") {
      opt.step_cache = false;
    } else if (a == "--check-step-cache") {
      opt.check_step_cache = true;
    } else if (a == "--check-expect") {
      c.check_expect = true;
    } else if (a == "--coverage") {
      c.full_coverage = true;
    } else if (a == "--steps") {
      std::uint64_t n = 0;
      if (!parse_u64(value("--steps"), n) || n > 1000000) return usage("--steps needs a number of steps (0 for the initial state)");
      opt.steps = static_cast<long long>(n);
    } else if (a == "--brief") {
      c.brief = true;
    } else if (a == "--progress") {
      opt.progress = true;
    } else if (a == "--profile-states") {
      opt.profile_states = true;
    } else if (a == "--quiet" || a == "-q") {
      c.quiet = true;
    } else if (a == "--param") {
      const char* v = value("--param");
      if (!v) return usage("--param needs NAME=VALUE");
      auto p = pc::dsl::parse_override(v);
      if (!p) return usage("--param needs NAME=VALUE with an integer VALUE (decimal or 0x hex, at most 2^62), not '" + std::string(v) + "'");
      c.params.push_back(std::move(*p));
    } else if (a == "--trace-html") {
      const char* v = value("--trace-html");
      if (!v) return usage("--trace-html needs a file name");
      c.html_out = v;
    } else if (a == "--max-states") {
      if (!parse_u64(value("--max-states"), opt.max_states) || opt.max_states == 0)
        return usage("--max-states needs a positive integer");
    } else if (a == "--max-memory") {
      if (!parse_u64(value("--max-memory"), opt.max_memory_mb) || opt.max_memory_mb == 0)
        return usage("--max-memory needs a positive number of MiB");
    } else if (a == "--timeout") {
      const char* v = value("--timeout");
      char* end = nullptr;
      opt.timeout_s = v ? std::strtod(v, &end) : -1;
      if (!v || *end || !(opt.timeout_s > 0)) return usage("--timeout needs a positive number of seconds");
    } else if (a == "--threads") {
      std::uint64_t n = 0;
      if (!parse_u64(value("--threads"), n) || n == 0 || n > 1024) return usage("--threads needs a number of threads (1 to 1024)");
      opt.threads = static_cast<unsigned>(n);
    } else if (a == "--swarm") {
      std::uint64_t n = 0;
      if (!parse_u64(value("--swarm"), n) || n == 0 || n > 65536) return usage("--swarm needs a number of searches (1 to 65536)");
      opt.swarm = static_cast<unsigned>(n);
    } else if (a == "--swarm-depth") {
      if (!parse_u64(value("--swarm-depth"), opt.swarm_depth) || opt.swarm_depth == 0 || opt.swarm_depth > 10000000)
        return usage("--swarm-depth needs a depth (1 to 10000000)");
    } else if (a == "--distributed") {
      opt.distributed = true;
    } else if (a == "--sweep") {
      c.want_sweep = true;
    } else if (a == "--sweep-max") {
      if (!parse_u64(value("--sweep-max"), c.sweep_opt.max_points) || c.sweep_opt.max_points == 0 || c.sweep_opt.max_points > 1000000)
        return usage("--sweep-max needs a number of points (1 to 1000000)");
    } else if (a == "--place-barriers") {
      c.want_place = true;
    } else if (a == "--diff") {
      c.want_diff = true;
    } else if (a == "--target") {
      const char* v = value("--target");
      if (!v) return usage("--target needs a target (sm_90a, gfx942, gfx1200, ...)");
      c.place_req.target = v;
    } else if (a == "--barrier") {
      const char* v = value("--barrier");
      const std::string b = v ? v : "";
      if (b == "split") c.place_req.family = pc::place::Family::split;
      else if (b == "monolithic") c.place_req.family = pc::place::Family::monolithic;
      else if (b == "pair") c.place_req.family = pc::place::Family::pair;
      else return usage("--barrier needs split, monolithic or pair");
    } else if (a == "--replay") {
      const char* v = value("--replay");
      if (!v) return usage("--replay needs a token");
      opt.replay = v;
    } else if (a.size() > 1 && a[0] == '-') {
      return usage("unknown option '" + a + "'");
    } else {
      c.files.push_back(a);
    }
  }
  return std::nullopt;
}

// The options that exclude each other, or go only with another.
EarlyExit check_combinations(const Cli& c) {
  const pc::check::Options& opt = c.opt;
  if (c.files.empty()) return usage("no kernel file given");
  if (c.want_json && c.want_sarif) return usage("--json and --sarif exclude each other");
  if (c.quiet && opt.progress) return usage("--quiet and --progress exclude each other");
  if (!opt.replay.empty() && c.files.size() != 1) return usage("--replay takes exactly one file");
  if (!opt.replay.empty() && opt.profile_states) return usage("--profile-states goes with a search, not with --replay");
  if (opt.steps >= 0 && opt.replay.empty()) return usage("--steps goes with --replay TOKEN");
  if (c.want_sweep && !opt.replay.empty()) return usage("--sweep and --replay exclude each other (a token is one point)");
  if (!c.prove_param.empty() && (c.want_sweep || !opt.replay.empty()))
    return usage("--prove excludes --sweep and --replay (it covers every value of one parameter in one search)");
  bool any_ptx = false, all_ptx = true;
  for (const std::string& f : c.files) any_ptx |= pc::ptx::is_ptx_path(f), all_ptx &= pc::ptx::is_ptx_path(f);
  if (c.ptx.given && !any_ptx) return usage("--entry, --block, --cluster, --grid, --smem-bytes, --arg, --box, --clc, --assume, --meta and --emit-bk go with a .ptx file");
  if (c.ptx.emit_bk && (!all_ptx || c.want_json || c.want_sarif || !c.opt.replay.empty() || !c.html_out.empty()))
    return usage("--emit-bk prints .ptx files as .bk: it takes .ptx files only, and no --json, --sarif, --replay or --trace-html");
  if (any_ptx && (c.want_sweep || !c.prove_param.empty() || c.symbolic || c.want_place || !c.params.empty()))
    return usage("a .ptx file is checked for the one launch its options give: --sweep, --prove, --symbolic, "
                 "--place-barriers and --param take .bk files (use --arg for a kernel parameter)");
  if (opt.distributed && (c.want_sweep || c.want_place || c.symbolic || !opt.replay.empty() || opt.profile_states || c.ptx.emit_bk))
    return usage("--distributed is one search over the ranks: --sweep, --place-barriers, --symbolic, --replay, "
                 "--profile-states and --emit-bk run on one process");
  if (opt.swarm > 0 && (opt.distributed || c.want_sweep || c.want_place || c.symbolic || !opt.replay.empty() || opt.profile_states ||
                        !c.prove_param.empty() || c.full_coverage))
    return usage("--swarm is a bug hunt of one kernel at one point: it excludes --distributed, --sweep, --place-barriers, "
                 "--symbolic, --replay, --profile-states, --prove and --coverage");
  if (opt.swarm == 0 && opt.swarm_depth != pc::check::Options{}.swarm_depth) return usage("--swarm-depth goes with --swarm");
  if (!c.want_place && (c.want_diff || !c.place_req.target.empty() || c.place_req.family != pc::place::Family::automatic))
    return usage("--diff, --target and --barrier go with --place-barriers");
  return std::nullopt;
}

// --place-barriers: the whole run.
int run_place_barriers(Cli& c) {
  if (c.files.size() != 1) return usage("--place-barriers takes exactly one file");
  if (c.want_sarif || c.want_sweep || c.symbolic || !c.opt.replay.empty() || c.check_expect || !c.html_out.empty())
    return usage("--place-barriers goes with --param, --json, --diff, --target, --barrier and the search limits only");
  if (c.want_json && c.want_diff) return usage("--json and --diff exclude each other (the JSON holds the diff)");
  c.opt.params = c.params;
  c.place_req.check = c.opt;
  const auto out = c.want_json ? pc::cli::PlaceOutput::json : c.want_diff ? pc::cli::PlaceOutput::diff : pc::cli::PlaceOutput::kernel;
  return pc::cli::place_barriers(c.files.front(), c.place_req, out, c.quiet);
}

// The token carries the --param values it was made with: they apply as if
// given here, and one given here with another value is a mismatch.
EarlyExit take_replay_params(Cli& c) {
  const auto carried = pc::check::token_params(c.opt.replay);
  if (!carried) return usage("--replay: malformed token '" + c.opt.replay + "'");
  for (const auto& [name, v] : *carried) {
    bool given = false;
    for (const auto& [n, w] : c.params) {
      if (n != name) continue;
      given = true;
      if (w != v)
        return usage("--replay: the token was made with --param " + name + "=" + std::to_string(v) + ", not " + name + "=" +
                     std::to_string(w));
    }
    if (!given) c.params.emplace_back(name, v);
  }
  return std::nullopt;
}

void print_file(const Cli& c, const pc::report::FileReport& f) {
  if (c.text_out() || (c.quiet && f.failed())) {
    const auto coverage = c.full_coverage ? pc::report::Coverage::full : pc::report::Coverage::summary;
    const std::string out = c.brief ? pc::report::brief(f) : pc::report::text(f, true, coverage);
    std::fputs(out.c_str(), f.failed() ? stderr : stdout);
    std::fflush(stdout);
  }
}

// A .ptx file: read for the launch, then the search.
pc::report::FileReport check_ptx(const Cli& c, pc::report::FileReport& f) {
  pc::ir::Kernel k;
  if (pc::cli::load_ptx(f, c.ptx, k)) pc::check::run_guarded(f, [&] { f.result = pc::check::check(k, c.opt); });
  print_file(c, f);
  return f;
}

// One file checked as the options ask, its text printed where they ask.
pc::report::FileReport check_file(const Cli& c, const std::string& path) {
  pc::report::FileReport f;
  f.file = path;
  if (pc::ptx::is_ptx_path(path)) return check_ptx(c, f);
  pc::dsl::Parsed parsed = pc::dsl::parse_file(path, f.source, c.params);
  f.kernel = parsed.kernel.name;
  f.expect = parsed.kernel.expect;
  for (const pc::ir::Param& p : parsed.kernel.params) f.params.emplace_back(p.name, p.value);
  if (!parsed.ok()) {
    f.failure = pc::check::Failure::bad_input;
    f.diagnostics = std::move(parsed.errors);
  } else {
    pc::check::run_guarded(f, [&] {
      if (c.want_sweep) pc::cli::sweep(f, parsed.kernel, c.params, c.opt, c.sweep_opt);
      else if (!c.prove_param.empty()) prove(f, parsed.kernel, c.prove_param, c.params, c.opt);
      else f.result = pc::check::check(parsed.kernel, c.opt);
      if (c.symbolic && !f.failed()) {
        const std::vector<pc::smt::Finding> findings = pc::smt::check_symbolic(parsed.kernel);
        for (const pc::smt::Finding& x : findings) f.symbolic.push_back(claim_of(x, path));
        confirm_symbolic(f, findings, c.params, c.opt);
      }
    });
  }
  print_file(c, f);
  return f;
}

// --trace-html: the first violation's timeline; false if it cannot be written.
bool write_trace_html(const Cli& c, const std::vector<pc::report::FileReport>& reports) {
  bool any_violation = false;
  for (const pc::report::FileReport& f : reports) any_violation |= !f.failed() && f.result.verdict == pc::check::Verdict::violation;
  if (!any_violation && c.text_out()) std::printf("no violation, so no trace timeline written to %s\n", c.html_out.c_str());
  for (const pc::report::FileReport& f : reports) {
    if (f.failed() || f.result.verdict != pc::check::Verdict::violation) continue;
    std::ofstream out(c.html_out, std::ios::binary);
    out << pc::report::html(f);
    if (!out) {
      std::fprintf(stderr, "check-kernel: cannot write %s\n", c.html_out.c_str());
      return false;
    }
    if (c.text_out()) std::printf("trace timeline written to %s\n", c.html_out.c_str());
    break;
  }
  return true;
}

// Over several files, how many ended in each way.
void print_tally(const std::vector<pc::report::FileReport>& reports) {
  using pc::check::Exit;
  std::printf("%zu kernels:", reports.size());
  const char* sep = " ";
  for (const Exit e : {Exit::verified, Exit::violation, Exit::inconclusive, Exit::bad_input, Exit::internal}) {
    int n = 0;
    for (const auto& f : reports) n += pc::report::exit_of(f) == e;
    if (n == 0 && e == Exit::internal) continue;
    std::printf("%s%d %s", sep, n, pc::check::exit_name(e));
    sep = ", ";
  }
  std::printf("\n");
}

void print_unmet_expectations(const std::vector<pc::report::FileReport>& reports) {
  for (const auto& f : reports)
    if (!pc::report::matches_expectation(f) || f.expect.empty())
      std::printf("expectation not met: %s (expected %s, got %s)\n", f.file.c_str(),
                  f.expect.empty() ? "an '# expect:' line" : f.expect.c_str(), pc::report::outcome_name(f).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  Cli c;
  if (const EarlyExit e = parse_args(argc, argv, c)) return *e;
  if (const EarlyExit e = check_combinations(c)) return *e;
  if (c.want_place) return run_place_barriers(c);
  if (c.ptx.emit_bk) return pc::cli::emit_bk(c.files, c.ptx);
  c.sweep_opt.threads = c.opt.threads;
  c.sweep_opt.progress = c.opt.progress;
  for (const std::string& path : c.files)
    if (!c.html_out.empty() && same_file(c.html_out, path))
      return usage("--trace-html " + c.html_out + " is an input file; it would be overwritten");
  if (!c.opt.replay.empty())
    if (const EarlyExit e = take_replay_params(c)) return *e;
  c.opt.params = c.params;
  c.opt.record_states = !c.html_out.empty();
  // --distributed: every rank checks every file, in step; rank 0 alone
  // prints and writes.
  std::optional<pc::check::MpiSession> mpi;
  if (c.opt.distributed) {
    mpi.emplace(&argc, &argv);
    if (mpi->rank() != 0) {
      if (!std::freopen("/dev/null", "w", stdout) || !std::freopen("/dev/null", "w", stderr)) return 4;
      c.opt.progress = false;
      if (!c.html_out.empty()) c.html_out = "/dev/null";
    }
  }

  catch_sigint(c.opt.distributed);
  std::vector<pc::report::FileReport> reports;
  for (const std::string& path : c.files) {
    reports.push_back(check_file(c, path));
    // Interrupted: the files after it are not checked.
    if (pc::check::interrupt_requested.load()) break;
  }
  // The trace page first: a failure to write it is part of the exit status
  // that the JSON and SARIF documents report.
  const bool html_failed = !c.html_out.empty() && !write_trace_html(c, reports);
  int status = pc::report::exit_status(reports, c.check_expect);
  if (html_failed && status != static_cast<int>(pc::check::Exit::internal)) status = static_cast<int>(pc::check::Exit::bad_input);
  if (c.want_json) std::fputs(pc::report::json(reports, status).c_str(), stdout);
  if (c.want_sarif) std::fputs(pc::report::sarif(reports, status).c_str(), stdout);
  if (c.text_out() && c.files.size() > 1) print_tally(reports);
  if (c.check_expect && c.text_out()) print_unmet_expectations(reports);
  return status;
}
