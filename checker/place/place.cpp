#include "checker/place/place.hpp"

#include <algorithm>
#include <chrono>
#include <set>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/place/rewrite.hpp"
#include "checker/place/roles.hpp"
#include "checker/place/strategy.hpp"
#include "checker/program.hpp"
#include "spec/amd.hpp"

namespace pc::place {

namespace {

constexpr std::uint64_t other_point_states = 1'000'000;

struct Chip {
  ir::Target target = ir::Target::nvidia;
  spec::amd::Gfx gfx = spec::amd::default_gfx;
  std::string name;   // as reported
  std::string line;   // the `target` line that declares it
};

bool chip_of(const std::string& s, Chip& c) {
  using spec::amd::Gfx;
  static const std::pair<const char*, Gfx> amd[] = {{"gfx90a", Gfx::gfx90a},   {"gfx940", Gfx::gfx940},
                                                    {"gfx942", Gfx::gfx942},   {"gfx1200", Gfx::gfx1200},
                                                    {"gfx1201", Gfx::gfx1201}, {"amd", spec::amd::default_gfx}};
  for (const auto& [n, g] : amd)
    if (s == n) {
      c = {ir::Target::amd, g, spec::amd::gfx_name(g), std::string("target amd ") + spec::amd::gfx_name(g)};
      return true;
    }
  if (s == "nvidia" || s == "sm_90a" || s == "sm_100a") {
    c = {ir::Target::nvidia, spec::amd::default_gfx, s == "nvidia" ? "sm_90a" : s, "target nvidia"};
    return true;
  }
  return false;
}

int line_starting(const std::vector<std::string>& lines, const std::string& word) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::size_t b = lines[i].find_first_not_of(" \t");
    if (b != std::string::npos && lines[i].compare(b, word.size(), word) == 0 &&
        (lines[i].size() == b + word.size() || lines[i][b + word.size()] == ' '))
      return static_cast<int>(i) + 1;
  }
  return 0;
}

// Parameter values besides the given ones: each declared parameter at its
// range's ends and one above the lower, or at its candidates.
std::vector<std::vector<std::pair<std::string, std::int64_t>>> other_points(
    const ir::Kernel& k, const std::vector<std::pair<std::string, std::int64_t>>& given) {
  std::vector<std::vector<std::pair<std::string, std::int64_t>>> out;
  std::vector<std::pair<std::string, std::int64_t>> base;
  for (const ir::Param& p : k.params) base.emplace_back(p.name, p.value);
  for (std::size_t i = 0; i < k.params.size(); ++i) {
    const ir::Param& p = k.params[i];
    bool fixed = false;  // a --param value is the user's choice
    for (const auto& [n, v] : given) fixed |= n == p.name;
    if (fixed) continue;
    std::vector<std::int64_t> vals = p.candidates;
    if (vals.empty() && p.lo <= p.hi) vals = {p.lo, std::min(p.lo + 1, p.hi), p.hi};
    std::sort(vals.begin(), vals.end());
    vals.erase(std::unique(vals.begin(), vals.end()), vals.end());
    for (const std::int64_t v : vals) {
      if (v == p.value) continue;
      auto point = base;
      point[i].second = v;
      out.push_back(std::move(point));
    }
  }
  if (out.size() > 24) out.resize(24);
  return out;
}

std::string describe(const Window& w) {
  return std::string(hazard_name(w.kind)) + " on " + w.element + ": " + w.producer_agent + " line " +
         std::to_string(w.producer.line) + " -> " + w.consumer_agent + " line " + std::to_string(w.consumer.line) +
         (w.loop_carried ? " (loop-carried)" : "");
}

using Point = std::vector<std::pair<std::string, std::int64_t>>;

// The explicit search on the placed kernel (out.text): at the given values,
// then at each other point whose hazards it was placed for (out.points names
// them), each of those with at most a million states. A violation is a
// defect of the placer.
void verify(Outcome& out, const std::string& file, const Request& req, const std::vector<Point>& analysed) {
  using clock = std::chrono::steady_clock;
  dsl::Parsed placed = dsl::parse(out.text, file, req.check.params);
  if (!placed.ok()) {
    out.defect = true;
    out.verification.message = "the placed kernel does not parse: " + placed.errors.front().message + " (line " +
                               std::to_string(placed.errors.front().loc.line) + ")";
    return;
  }
  struct Timer {
    double& to;
    clock::time_point t;
    ~Timer() { to = std::chrono::duration<double>(clock::now() - t).count(); }
  } timer{out.t_verify, clock::now()};
  out.verification = check::check(placed.kernel, req.check);
  if (out.verification.verdict == check::Verdict::violation) {
    out.defect = true;
    return;
  }
  for (std::size_t i = 0; i < analysed.size(); ++i) {
    const Point& point = analysed[i];
    const std::string& values = out.points[i];
    dsl::Parsed there = dsl::parse(out.text, file, point);
    if (!there.ok()) continue;
    check::Options opt = req.check;
    opt.params = point;
    // The other points are a second look: each at most a million states.
    opt.max_states = std::min<std::uint64_t>(opt.max_states, other_point_states);
    check::Result r = check::check(there.kernel, opt);
    out.verification.states += r.states;
    if (r.verdict == check::Verdict::violation) {
      r.message = "at " + values + ": " + r.message;
      r.states = out.verification.states;
      out.verification = std::move(r);
      out.defect = true;
      return;
    }
    if (r.verdict == check::Verdict::inconclusive) out.unverified.push_back(values + " (" + r.inconclusive_reason + ")");
  }
}

constexpr int max_pair_tries = 6;
constexpr std::size_t max_role_points = 20'000;

std::string role_names(const Analysis& a, const ir::Kernel& k, int group) {
  std::string s;
  for (int r = 0; r < a.roles; ++r)
    if (a.group[static_cast<std::size_t>(r)] == group) s += (s.empty() ? "" : " and ") + k.roles[static_cast<std::size_t>(r)].name;
  return s;
}

// Several roles (NVIDIA): the named barriers of `m`, and for each group of
// two roles that a producer/consumer pair fits, the pair instead where one
// verifies (unless --barrier monolithic). Fills out's kernel, barriers,
// choices and verification.
void place_roles(Outcome& out, const Analysis& a, const ir::Kernel& k, const Minimum& m, const std::string& text,
                 const std::string& file, const std::vector<std::string>& lines, const Request& req,
                 const std::vector<Point>& analysed, const std::string& chip) {
  std::vector<std::pair<int, std::string>> replace;
  if (const int e = line_starting(lines, "# expect:")) replace.push_back({e, "# expect: verified"});
  std::vector<std::pair<int, int>> cross_roles(a.windows.size(), {-1, -1});  // per hazard between roles: from, to
  for (const Cross& c : a.cross) cross_roles[static_cast<std::size_t>(c.window)] = {c.from_run % a.roles, c.to_run % a.roles};
  auto render = [&](const RolePlan& plan) {
    const RoleStatements st = role_statements(a, k, plan);
    std::size_t n = 0;
    for (const int s : st.slot) n += s >= 0;
    std::vector<std::string> header{"# synchronization placed by check-kernel --place-barriers --target " + chip + ": " +
                                    std::to_string(n) + " statement" + (n == 1 ? "" : "s") + " for " +
                                    std::to_string(a.windows.size()) + " hazard" + (a.windows.size() == 1 ? "" : "s")};
    for (const std::string& g : st.groups) header.push_back("# named barrier " + g);
    const Rewritten rw = rewrite(text, file, a, st.inserts, replace, header, st.declare);
    out.text = rw.text;
    out.diff = rw.diff;
    out.groups = st.groups;
    out.barriers.clear();
    for (std::size_t i = 0; i < st.inserts.size(); ++i) {
      const int slot = st.slot[i];
      if (slot < 0) continue;
      const int role = a.slots[static_cast<std::size_t>(slot)].role;
      std::string h;
      int count = 0;
      for (std::size_t w = 0; w < a.windows.size(); ++w) {
        const Window& win = a.windows[w];
        const auto [from, to] = cross_roles[w];
        const bool orders = !win.slots.empty()
                                ? std::binary_search(win.slots.begin(), win.slots.end(), slot)
                                : st.window_role_from[i] < 0 ? (from == role || to == role) && a.group[static_cast<std::size_t>(from)] ==
                                                                                              a.group[static_cast<std::size_t>(role)]
                                                             : from == st.window_role_from[i] && to == st.window_role_to[i];
        if (orders && count++ < 3) h += (h.empty() ? "" : "; ") + describe(win);
      }
      if (count > 3) h += "; and " + std::to_string(count - 3) + " more";
      Barrier b;
      b.line = b.signal_line = rw.lines[i];
      b.hazards = st.what[i] + ": " + h;
      out.barriers.push_back(std::move(b));
    }
    std::sort(out.barriers.begin(), out.barriers.end(), [](const Barrier& x, const Barrier& y) { return x.line < y.line; });
  };

  RolePlan plan{m.slots, {}};
  bool optimal = m.proved;
  std::string detail = m.detail;
  // Whether the detail still speaks of named barriers only, to be replaced
  // by the first pair's where every group takes a pair.
  bool pairs_only_detail = true;
  for (int r = 0; r < a.roles; ++r)
    if (a.group[static_cast<std::size_t>(r)] == r && !pairs_apply(a, r))
      for (const int s : m.slots) pairs_only_detail &= a.group[static_cast<std::size_t>(a.slots[static_cast<std::size_t>(s)].role)] != r;
  if (req.family != Family::monolithic) {
    for (int g = 0; g < a.roles; ++g) {
      if (a.group[static_cast<std::size_t>(g)] != g) continue;
      const std::string names = role_names(a, k, g);
      if (!pairs_apply(a, g)) {
        if (names.find(" and ") != std::string::npos)
          out.choices.push_back(names + ": a named barrier (a producer/consumer pair fits two roles with no hazard among one role's own warps)");
        continue;
      }
      std::vector<int> rest;  // the named barriers of the other groups
      std::size_t named = 0;
      for (const int s : plan.named) {
        if (a.group[static_cast<std::size_t>(a.slots[static_cast<std::size_t>(s)].role)] == g) ++named;
        else rest.push_back(s);
      }
      std::vector<std::vector<int>> blocked;
      std::string failure;
      bool taken = false;
      int first_total = -1;
      for (int tries = 0; tries < max_pair_tries && !taken; ++tries) {
        const PairsResult pr = minimum_pairs(a, g, blocked);
        if (!pr.found) break;
        if (first_total < 0) first_total = pr.statements;
        // Z3 gives its optimum each time, the placements that failed the
        // search excluded: one as small as the first is a minimum too.
        const bool optimum = pr.statements == first_total;
        RolePlan trial{rest, plan.pairs};
        trial.pairs.emplace_back(g, pr.pairs);
        render(trial);
        Outcome probe;
        probe.text = out.text;
        probe.points = out.points;
        verify(probe, file, req, analysed);
        if (!probe.defect && probe.verification.verdict == check::Verdict::verified) {
          std::size_t statements = 0;
          std::string channels;
          for (const Channel& c : pr.pairs.channels) {
            statements += c.arrivals.size() + c.waits.size();
            channels += (channels.empty() ? "" : ", ") + channel_name(k, c);
          }
          out.choices.push_back(
              names + ": a producer/consumer pair, mbarrier" + (pr.pairs.channels.size() == 1 ? " " : "s ") + channels + " (" +
              std::to_string(statements) + " arrive and wait statements; " +
              (tries == 0 ? std::string("Z3's optimum")
                          : "placement " + std::to_string(tries + 1) + " of Z3's, the first " + std::to_string(tries) +
                                " failed the search" + (optimum ? ", as few statements" : "")) +
              ") in place of " + std::to_string(named) + " bar_sync" + (named == 1 ? "" : "s") +
              ": each role waits only where a hazard needs the other's release, not for the other's unrelated work "
              "(--barrier monolithic keeps the named barrier)");
          optimal &= optimum;
          const std::string pair_detail =
              optimum ? "Z3's optimizer: no producer/consumer placement with fewer arrive and wait statements orders the hazards of " +
                            names + " (optimum)"
                      : "the pair of " + names + " is not proved minimal";
          detail = pairs_only_detail ? pair_detail : detail + "; " + pair_detail;
          pairs_only_detail = false;
          plan = std::move(trial);
          taken = true;
        } else {
          blocked.push_back(pr.key);
          if (failure.empty())
            failure = check::outcome_name(probe.verification) + (probe.verification.message.empty() ? "" : ": " + probe.verification.message);
        }
      }
      if (!taken) pairs_only_detail = false;  // this group keeps its named barrier, and the detail its proof
      if (!taken)
        out.choices.push_back(names + ": a named barrier; no producer/consumer pair verified (" +
                              (failure.empty() ? std::string("none orders every hazard") : "the first tried: " + failure) + ")");
    }
  }
  if (req.family == Family::pair && plan.pairs.empty()) {
    std::string why;
    for (const std::string& c : out.choices) why += (why.empty() ? "" : "; ") + c;
    out.errors.push_back({file, k.roles[0].loc, "--barrier pair: no group of roles takes a producer/consumer pair" +
                                                     (why.empty() ? std::string() : " (" + why + ")")});
    return;
  }
  out.family = plan.pairs.empty() ? "bar_sync" : plan.named.empty() ? "mbarrier" : "bar_sync+mbarrier";
  out.minimal = optimal;
  out.minimal_detail = detail;
  render(plan);
  verify(out, file, req, analysed);
}

}  // namespace

Outcome place(const std::string& source, const std::string& file, const Request& req) {
  Outcome out;
  // The kernel as given, then as the requested target reads it.
  dsl::Parsed given = dsl::parse(source, file, req.check.params);
  if (!given.ok()) {
    out.errors = given.errors;
    return out;
  }
  std::vector<std::string> lines = split_lines(source);
  Chip chip;
  if (given.kernel.target == ir::Target::amd)
    chip = {ir::Target::amd, given.kernel.gfx, spec::amd::gfx_name(given.kernel.gfx), ""};
  else
    chip = {ir::Target::nvidia, spec::amd::default_gfx, "sm_90a", ""};
  std::string text = source;
  int shift_after = 0;  // a `target` line added after this line moves the later ones by one
  if (!req.target.empty()) {
    if (!chip_of(req.target, chip)) {
      out.usage_error = "--target " + req.target + ": not a target (sm_90a, sm_100a, gfx90a, gfx940, gfx942, gfx1200, gfx1201)";
      return out;
    }
    const int t = line_starting(lines, "target");
    if (t) {
      lines[static_cast<std::size_t>(t - 1)] = chip.line;
    } else {
      const int k = line_starting(lines, "kernel");
      lines.insert(lines.begin() + k, chip.line);
      shift_after = k;
    }
    text.clear();
    for (const std::string& l : lines) text += l + "\n";
  }
  dsl::Parsed parsed = !req.target.empty() ? dsl::parse(text, file, req.check.params) : std::move(given);
  if (!parsed.ok()) {
    for (Diagnostic d : parsed.errors) {
      if (shift_after && d.loc.line > shift_after) --d.loc.line;
      out.errors.push_back(std::move(d));
    }
    return out;
  }
  const ir::Kernel& k = parsed.kernel;
  const bool amd = k.target == ir::Target::amd;
  const bool split = amd && spec::amd::has_split_barrier(k.gfx) && req.family != Family::monolithic;
  if (req.family == Family::split && !split) {
    const int t = line_starting(lines, "target");
    out.errors.push_back({file, {t > shift_after && shift_after ? t - 1 : t, 1},
                          "--barrier split: " + chip.name + " has no split barrier (s_barrier_signal / s_barrier_wait are gfx12's: gfx1200, gfx1201)"});
    return out;
  }
  if (req.family == Family::pair && (amd || k.roles.size() < 2)) {
    out.errors.push_back({file, k.roles.empty() ? k.loc : k.roles[0].loc,
                          "--barrier pair: producer/consumer pairs go between two roles of an NVIDIA kernel"});
    return out;
  }
  out.target = chip.name;
  out.family = !amd ? "bar_sync" : split ? "split" : "s_barrier";

  using clock = std::chrono::steady_clock;
  auto since = [](clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); };
  clock::time_point t0 = clock::now();
  Analysis a;
  std::vector<Point> analysed;  // the other points, as out.points names them
  try {
    a = analyze(k);
    // The hazards at the other declared parameter values too (each
    // parameter's bounds and candidates, the others as given), so that the
    // barriers hold beyond the values the search runs at.
    for (const auto& point : other_points(k, req.check.params)) {
      dsl::Parsed at = dsl::parse(text, file, point);
      std::string values;
      for (const auto& [n, v] : point) values += (values.empty() ? "" : " ") + n + "=" + std::to_string(v);
      if (!at.ok()) {
        out.skipped.push_back(values + ": " + at.errors.front().message);
        continue;
      }
      try {
        merge(a, analyze(at.kernel));
        out.points.push_back(values);
        analysed.push_back(point);
      } catch (const check::KernelError& e) {
        out.skipped.push_back(values + ": " + e.what());
      }
    }
    if (!a.unorderable.empty()) throw check::KernelError(a.unorderable[0].message, a.unorderable[0].loc);
  } catch (const check::KernelError& e) {
    ir::Loc loc = e.loc;
    if (shift_after && loc.line > shift_after) --loc.line;
    out.errors.push_back({file, loc, e.what()});
    return out;
  }
  // The hazards are reported in the input's lines (a `target` line added
  // by --target moves the later ones of the parsed text down by one).
  if (shift_after) {
    for (Window& w : a.windows) {
      if (w.producer.line > shift_after) --w.producer.line;
      if (w.consumer.line > shift_after) --w.consumer.line;
    }
    for (int& l : a.removed_barriers)
      if (l > shift_after) --l;
  }
  out.input_barriers = a.removed_barriers;
  out.hazards = a.windows.size();
  out.t_hazards = since(t0);
  const bool roles = a.roles > 1;
  if (roles) {
    // Z3's constraints for several roles count barriers over prefixes of the
    // unrolled runs: quadratic in their length.
    std::size_t points = 0;
    for (const std::vector<int>& p : a.passes) points += p.size();
    if (points > max_role_points) {
      out.errors.push_back({file, k.loc, "--place-barriers: a kernel of several roles unrolls here to " + std::to_string(points) +
                                             " program points, more than " + std::to_string(max_role_points) +
                                             " (the given values and the other points together); lower the trip counts with --param"});
      return out;
    }
  }
  t0 = clock::now();
  const std::vector<int> seed = roles ? std::vector<int>{} : greedy(a);
  out.greedy = seed.size();
  out.greedy_applies = !roles;
  out.t_greedy = since(t0);
  t0 = clock::now();
  Minimum m;
  if (!roles) {
    m = minimum(a, seed);
  } else {
    RolesMinimum rm = minimum_roles(a);
    if (rm.impossible) {
      out.errors.push_back({file, k.roles[1].loc, "--place-barriers: " + rm.m.detail});
      return out;
    }
    m = std::move(rm.m);
  }
  out.t_minimum = since(t0);
  out.minimal = m.proved;
  out.minimal_detail = m.detail;
  if (!covers(a, m.slots)) {
    out.defect = true;
    out.verification.message = "the placement does not cover its own hazard windows";
    return out;
  }
  if (roles) {
    // The pairs' Z3 queries and the searches of the placements tried count
    // with the minimum; the final search is t_verify.
    t0 = clock::now();
    place_roles(out, a, k, m, text, file, lines, req, analysed, chip.name);
    out.t_minimum += since(t0) - out.t_verify;
    return out;
  }

  // What to insert at each slot.
  std::vector<Insert> inserts;
  std::vector<int> wait_insert, signal_insert;  // per barrier
  auto waitcnt = [&](int slot) {
    bool vm = false;
    for (const Window& w : a.windows)
      if (w.gather && std::binary_search(w.slots.begin(), w.slots.end(), slot)) vm = true;
    return vm ? std::string("s_waitcnt vmcnt(0) lgkmcnt(0)") : std::string("s_waitcnt lgkmcnt(0)");
  };
  Split sp{m.slots, m.slots};
  if (split) sp = early_signals(a, m.slots);
  if (split && !valid(a, sp)) {
    out.defect = true;
    out.verification.message = "the split placement does not alternate or order its hazards";
    return out;
  }
  wait_insert.assign(sp.waits.size(), -1);
  signal_insert.assign(sp.waits.size(), -1);
  for (std::size_t slot = 0; slot < a.slots.size(); ++slot) {
    const int s = static_cast<int>(slot);
    for (std::size_t w = 0; w < sp.waits.size(); ++w)
      if (sp.waits[w] == s && sp.signals[w] != s) {
        wait_insert[w] = static_cast<int>(inserts.size());
        inserts.push_back({s, {"s_barrier_wait"}});
      }
    for (std::size_t w = 0; w < sp.waits.size(); ++w) {
      if (sp.signals[w] != s) continue;
      signal_insert[w] = static_cast<int>(inserts.size());
      if (!amd) inserts.push_back({s, {"bar_sync 0"}});
      else if (!split) inserts.push_back({s, {waitcnt(sp.waits[w]), "s_barrier"}});
      else inserts.push_back({s, {waitcnt(sp.waits[w]), "s_barrier_signal"}});
      if (split && sp.waits[w] == s) {
        wait_insert[w] = static_cast<int>(inserts.size());
        inserts.push_back({s, {"s_barrier_wait"}});
      }
    }
  }

  // The header and the `# expect:` line.
  std::vector<std::pair<int, std::string>> replace;
  if (const int e = line_starting(lines, "# expect:")) replace.push_back({e, "# expect: verified"});
  const std::size_t n = m.slots.size();
  std::vector<std::string> header{
      "# barriers placed by check-kernel --place-barriers --target " + chip.name + ": " + std::to_string(n) + " " +
          (split ? "split barrier" : out.family) + (n == 1 ? "" : "s") + " for " + std::to_string(a.windows.size()) +
          " hazard window" + (a.windows.size() == 1 ? "" : "s") + (m.proved ? " (minimal: proved)" : "")};
  Rewritten rw = rewrite(text, file, a, inserts, replace, header);
  out.text = rw.text;
  out.diff = rw.diff;
  for (std::size_t w = 0; w < sp.waits.size(); ++w) {
    Barrier b;
    // AMD inserts start with their s_waitcnt.
    const int signal = rw.lines[static_cast<std::size_t>(signal_insert[w])] + (amd ? 1 : 0);
    b.line = split ? rw.lines[static_cast<std::size_t>(wait_insert[w])] : signal;
    b.signal_line = signal;
    std::string h;
    int count = 0;
    for (const Window& win : a.windows)
      if (std::binary_search(win.slots.begin(), win.slots.end(), sp.waits[w])) {
        if (count++ < 3) h += (h.empty() ? "" : "; ") + describe(win);
      }
    if (count > 3) h += "; and " + std::to_string(count - 3) + " more";
    b.hazards = h;
    out.barriers.push_back(std::move(b));
  }
  std::sort(out.barriers.begin(), out.barriers.end(), [](const Barrier& x, const Barrier& y) { return x.line < y.line; });

  verify(out, file, req, analysed);
  return out;
}

}  // namespace pc::place
