#include "checker/place/place.hpp"

#include <algorithm>
#include <chrono>
#include <set>

#include "checker/dsl/parser.hpp"
#include "checker/explore.hpp"
#include "checker/place/rewrite.hpp"
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
  out.target = chip.name;
  out.family = !amd ? "bar_sync" : split ? "split" : "s_barrier";

  using clock = std::chrono::steady_clock;
  auto since = [](clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); };
  clock::time_point t0 = clock::now();
  Analysis a;
  std::vector<std::vector<std::pair<std::string, std::int64_t>>> analysed;  // the other points, as out.points names them
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
  out.input_barriers = a.removed_barriers;
  out.hazards = a.windows.size();
  out.t_hazards = since(t0);
  const bool roles = a.roles > 1;
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
  // Several roles: one named barrier per group of roles that has one, its
  // count every thread of the group's roles.
  std::vector<std::string> named(static_cast<std::size_t>(a.roles));
  if (roles) {
    std::vector<int> id(static_cast<std::size_t>(a.roles), 0);
    int next = 1;  // 0 is __syncthreads'
    for (const int s : m.slots) {
      const int g = a.group[static_cast<std::size_t>(a.slots[static_cast<std::size_t>(s)].role)];
      if (!id[static_cast<std::size_t>(g)]) id[static_cast<std::size_t>(g)] = next++;
    }
    for (int g = 0; g < a.roles; ++g) {
      if (!id[static_cast<std::size_t>(g)]) continue;
      int count = 0;
      std::string members;
      for (int r = 0; r < a.roles; ++r)
        if (a.group[static_cast<std::size_t>(r)] == g) {
          count += a.role_threads[static_cast<std::size_t>(r)];
          members += " " + k.roles[static_cast<std::size_t>(r)].name;
        }
      const std::string op = "bar_sync " + std::to_string(id[static_cast<std::size_t>(g)]) + ", " + std::to_string(count);
      for (int r = 0; r < a.roles; ++r)
        if (a.group[static_cast<std::size_t>(r)] == g) named[static_cast<std::size_t>(r)] = op;
      out.groups.push_back(std::to_string(id[static_cast<std::size_t>(g)]) + ", " + std::to_string(count) + ":" + members);
    }
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
      if (roles) inserts.push_back({s, {named[static_cast<std::size_t>(a.slots[slot].role)]}});
      else if (!amd) inserts.push_back({s, {"bar_sync 0"}});
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
          " hazard" + (roles ? "" : " window") + (a.windows.size() == 1 ? "" : "s") + (m.proved ? " (minimal: proved)" : "")};
  for (const std::string& g : out.groups) header.push_back("# named barrier " + g);
  Rewritten rw = rewrite(text, file, a, inserts, replace, header);
  out.text = rw.text;
  out.diff = rw.diff;
  std::vector<std::vector<int>> cross_roles(a.windows.size());  // per hazard between roles: the two roles
  for (const Cross& c : a.cross)
    if (cross_roles[static_cast<std::size_t>(c.window)].empty())
      cross_roles[static_cast<std::size_t>(c.window)] = {c.from_run % a.roles, c.to_run % a.roles};
  for (std::size_t w = 0; w < sp.waits.size(); ++w) {
    Barrier b;
    // AMD inserts start with their s_waitcnt.
    const int signal = rw.lines[static_cast<std::size_t>(signal_insert[w])] + (amd ? 1 : 0);
    b.line = split ? rw.lines[static_cast<std::size_t>(wait_insert[w])] : signal;
    b.signal_line = signal;
    std::string h;
    int count = 0;
    const int role = a.slots[static_cast<std::size_t>(sp.waits[w])].role;
    auto orders = [&](const Window& win, std::size_t index) {
      if (!win.slots.empty()) return std::binary_search(win.slots.begin(), win.slots.end(), sp.waits[w]);
      // Between roles: the barriers of the producer's and the consumer's roles together order it.
      return std::find(cross_roles[index].begin(), cross_roles[index].end(), role) != cross_roles[index].end();
    };
    for (std::size_t wi = 0; wi < a.windows.size(); ++wi)
      if (const Window& win = a.windows[wi]; orders(win, wi)) {
        if (count++ < 3) h += (h.empty() ? "" : "; ") + describe(win);
      }
    if (count > 3) h += "; and " + std::to_string(count - 3) + " more";
    b.hazards = h;
    out.barriers.push_back(std::move(b));
  }
  std::sort(out.barriers.begin(), out.barriers.end(), [](const Barrier& x, const Barrier& y) { return x.line < y.line; });

  // Verification: the explicit search on the placed kernel.
  dsl::Parsed placed = dsl::parse(out.text, file, req.check.params);
  if (!placed.ok()) {
    out.defect = true;
    out.verification.message = "the placed kernel does not parse: " + placed.errors.front().message + " (line " +
                               std::to_string(placed.errors.front().loc.line) + ")";
    return out;
  }
  struct Timer {
    double& to;
    clock::time_point t;
    ~Timer() { to = std::chrono::duration<double>(clock::now() - t).count(); }
  } timer{out.t_verify, clock::now()};
  out.verification = check::check(placed.kernel, req.check);
  if (out.verification.verdict == check::Verdict::violation) {
    out.defect = true;
    return out;
  }
  // And at the other parameter values whose hazards it was placed for.
  for (std::size_t i = 0; i < analysed.size(); ++i) {
    const auto& point = analysed[i];
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
      return out;
    }
    if (r.verdict == check::Verdict::inconclusive) out.unverified.push_back(values + " (" + r.inconclusive_reason + ")");
  }
  return out;
}

}  // namespace pc::place
