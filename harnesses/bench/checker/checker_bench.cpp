// Checker benchmark: states/s, bytes per stored state and the reduction factor
// over scalable families (and, with --family NAME --w N --p N, one instance,
// for timing side by side with SPIN by harnesses/bench/checker/vs_spin.sh;
// with --corpus FILE..., the states of each .bk file under each reduction;
// with --kernel FILE [--param NAME=VALUE]..., one search of one .bk file at
// its defaults or the values given, printed as for --family).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/program.hpp"
#include "harnesses/bench/checker/families.hpp"

namespace {

unsigned threads = 0;  // --threads N (0: every core)
bool step_cache = true;  // --no-step-cache: every agent stepped from every state

pc::check::Result run(const pc::ir::Kernel& k, bool reduction, bool partial_order = true) {
  pc::check::Options o;
  o.threads = threads;
  o.step_cache = step_cache;
  o.reduction = reduction;
  o.partial_order = partial_order;
  o.max_states = 200'000'000;
  return pc::check::check(k, o);
}

void row(const char* family, int w, int p, const pc::ir::Kernel& k, bool with_plain) {
  const pc::check::Result r = run(k, true);
  std::printf("%-10s W=%d P=%-3d %-9s states %10llu  %8.0f states/s  %5.1f B/state", family, w, p,
              pc::check::verdict_name(r.verdict), static_cast<unsigned long long>(r.states),
              r.states / (r.seconds > 0 ? r.seconds : 1e-9), double(r.memory_bytes) / double(r.states));
  if (with_plain) {
    const pc::check::Result n = run(k, false);
    std::printf("  no-reduction %10llu (%8.0f states/s)  factor %.4f", static_cast<unsigned long long>(n.states),
                n.states / (n.seconds > 0 ? n.seconds : 1e-9), double(r.states) / double(n.states));
  }
  std::printf("\n");
  std::fflush(stdout);
}

// The parser's (or the explorer's) errors, as check-kernel prints them; the
// exit code of bad input.
int print_errors(const std::vector<pc::Diagnostic>& errors, const std::string& source) {
  for (const pc::Diagnostic& d : errors) std::fputs(pc::render(d, source).c_str(), stderr);
  return 2;
}

// States stored for each kernel file with all reductions, with symmetry but
// no partial-order reduction, and with none.
int corpus(int argc, char** argv, int first) {
  std::printf("%-36s %-9s %12s %12s %12s %8s %8s %7s\n", "kernel", "verdict", "reductions", "no-POR", "none",
              "POR", "all", "s");
  for (int i = first; i < argc; ++i) {
    std::string src;
    const pc::dsl::Parsed parsed = pc::dsl::parse_file(argv[i], src);
    if (!parsed.ok()) return print_errors(parsed.errors, src);
    const pc::ir::Kernel& k = parsed.kernel;
    pc::check::Result all, sym, none;
    try {
      all = run(k, true);
      sym = run(k, true, false);
      none = run(k, false);
    } catch (const pc::check::KernelError& e) {
      return print_errors({{argv[i], e.loc, e.what()}}, src);
    }
    std::printf("%-36s %-9s %12llu %12llu %12llu %8.3f %8.3f %7.2f\n", k.name.c_str(),
                pc::check::verdict_name(all.verdict), static_cast<unsigned long long>(all.states),
                static_cast<unsigned long long>(sym.states), static_cast<unsigned long long>(none.states),
                double(all.states) / double(sym.states), double(all.states) / double(none.states), all.seconds);
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string family, kernel_file;
  std::vector<std::pair<std::string, std::int64_t>> overrides;  // --param NAME=VALUE, as check-kernel takes it
  int w = 0, p = 0;
  bool plain = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--param") && i + 1 < argc) {
      const auto o = pc::dsl::parse_override(argv[++i]);
      if (!o) {
        std::fprintf(stderr, "checker_bench: --param %s: expected NAME=VALUE, VALUE a number as in a .bk file\n", argv[i]);
        return 2;
      }
      overrides.push_back(*o);
      continue;
    }
    if (!std::strcmp(argv[i], "--family") && i + 1 < argc) family = argv[++i];
    else if (!std::strcmp(argv[i], "--w") && i + 1 < argc) w = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--p") && i + 1 < argc) p = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--no-reduction")) plain = true;
    else if (!std::strcmp(argv[i], "--no-step-cache")) step_cache = false;
    else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) threads = static_cast<unsigned>(std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--corpus")) return corpus(argc, argv, i + 1);
    else if (!std::strcmp(argv[i], "--kernel") && i + 1 < argc) kernel_file = argv[++i];
    else {
      std::fprintf(stderr, "usage: checker_bench [--threads N] [--no-step-cache] [--family barrier|consumers --w N --p N [--no-reduction] | --kernel FILE "
                   "[--param NAME=VALUE]... [--no-reduction] | --corpus FILE...]\n");
      return 2;
    }
  }
  if (!family.empty() || !kernel_file.empty()) {
    std::string src;
    const pc::dsl::Parsed parsed = kernel_file.empty() ? pc::dsl::Parsed{} : pc::dsl::parse_file(kernel_file, src, overrides);
    if (!kernel_file.empty() && !parsed.ok()) return print_errors(parsed.errors, src);
    const pc::ir::Kernel k = !kernel_file.empty() ? parsed.kernel
                             : family == "barrier" ? pc::bench::barrier_family(w, p)
                                                   : pc::bench::consumers_family(w, p);
    pc::check::Result r;
    try {
      r = run(k, !plain);
    } catch (const pc::check::KernelError& e) {  // a kernel the explorer cannot instantiate, as check-kernel reports it
      return print_errors({{kernel_file, e.loc, e.what()}}, src);
    }
    std::printf("%s states %llu transitions %llu seconds %.3f states/s %.0f bytes/state %.1f cached %llu from bytes %llu\n",
                pc::check::verdict_name(r.verdict), static_cast<unsigned long long>(r.states),
                static_cast<unsigned long long>(r.transitions), r.seconds, r.states / (r.seconds > 0 ? r.seconds : 1e-9),
                double(r.memory_bytes) / double(r.states), static_cast<unsigned long long>(r.step_cache_hits),
                static_cast<unsigned long long>(r.step_cache_states));
    return r.verdict == pc::check::Verdict::verified ? 0 : 1;
  }
  std::printf("# barrier family: W warps meet at an mbarrier for P phases\n");
  for (int ww = 2; ww <= 8; ++ww) row("barrier", ww, 50, pc::bench::barrier_family(ww, 50), ww <= 5);
  std::printf("# consumers family: one producer, W identical consumers, 2 stages, P iterations\n");
  for (int ww = 1; ww <= 6; ++ww) row("consumers", ww, 8, pc::bench::consumers_family(ww, 8), ww <= 3);
  std::printf("# throughput on larger instances, no reduction\n");
  for (const auto& [name, k] : {std::pair{"barrier", pc::bench::barrier_family(6, 200)},
                                std::pair{"barrier", pc::bench::barrier_family(8, 40)},
                                std::pair{"consumers", pc::bench::consumers_family(6, 8)}}) {
    const pc::check::Result r = run(k, false);
    std::printf("%-10s %-18s states %10llu  %6.2f s  %9.0f states/s  %5.1f B/state\n", name, k.name.c_str(),
                static_cast<unsigned long long>(r.states), r.seconds, r.states / (r.seconds > 0 ? r.seconds : 1e-9),
                double(r.memory_bytes) / double(r.states));
  }
  return 0;
}
