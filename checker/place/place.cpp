#include "checker/place/place.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
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
                                                    {"gfx942", Gfx::gfx942},   {"gfx1100", Gfx::gfx1100},
                                                    {"gfx1101", Gfx::gfx1101}, {"gfx1102", Gfx::gfx1102},
                                                    {"gfx1200", Gfx::gfx1200}, {"gfx1201", Gfx::gfx1201},
                                                    {"amd", spec::amd::default_gfx}};
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

// A hazard in words, its lines as the placed kernel numbers them (`moved`,
// Rewritten::moved, of the text placed: `shift_after` as Input has it), so
// that the summary speaks of one text.
std::string describe(const Window& w, const std::vector<int>& moved, int shift_after) {
  auto line = [&](int input) {
    const int t = shift_after && input > shift_after ? input + 1 : input;
    return t > 0 && t < static_cast<int>(moved.size()) && moved[static_cast<std::size_t>(t)] ? moved[static_cast<std::size_t>(t)] : input;
  };
  return std::string(hazard_name(w.kind)) + " on " + w.element + ": " + w.producer_agent + " line " +
         std::to_string(line(w.producer.line)) + " -> " + w.consumer_agent + " line " + std::to_string(line(w.consumer.line)) +
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

// The first TMA load of a statement list, nested ones included, or null.
const ir::Stmt* first_tma_load(const std::vector<ir::Stmt>& list) {
  for (const ir::Stmt& s : list) {
    if (s.kind == ir::StmtKind::op && s.op.code == ir::OpCode::tma_load) return &s;
    if (const ir::Stmt* x = first_tma_load(s.body)) return x;
    if (const ir::Stmt* x = first_tma_load(s.else_body)) return x;
  }
  return nullptr;
}

// The stage count of a group's ring, as the kernel writes it: every buffer
// access of the group's roles is `BUF[v % S]`, v the variable of the loop at
// the top of its role (ring_loop), with one S for all, a number or a
// parameter. Empty where the accesses are not so.
std::string ring_stages(const Analysis& a, int group) {
  const ir::Kernel& k = *a.kernel;
  std::string stages;
  bool ok = true;
  auto text = [&](ir::ExprId e) -> std::string {
    const ir::Expr& x = k.exprs[static_cast<std::size_t>(e)];
    if (x.kind != ir::ExprKind::constant) return "";
    return x.param >= 0 ? k.params[static_cast<std::size_t>(x.param)].name : std::to_string(x.value);
  };
  std::function<void(const std::vector<ir::Stmt>&, int)> walk = [&](const std::vector<ir::Stmt>& list, int var) {
    for (const ir::Stmt& s : list) {
      walk(s.body, var);
      walk(s.else_body, var);
      if (s.kind != ir::StmtKind::op) continue;
      for (const ir::Ref& r : s.op.bufs) {
        if (r.index == ir::no_expr) {
          ok = false;
          continue;
        }
        const ir::Expr& x = k.exprs[static_cast<std::size_t>(r.index)];
        const bool mod = x.kind == ir::ExprKind::binary && x.bin == ir::BinOp::mod &&
                         k.exprs[static_cast<std::size_t>(x.a)].kind == ir::ExprKind::var && k.exprs[static_cast<std::size_t>(x.a)].var == var;
        const std::string t = mod ? text(x.b) : "";
        if (t.empty() || (!stages.empty() && t != stages)) ok = false;
        else stages = t;
      }
    }
  };
  for (int r = 0; r < a.roles; ++r) {
    if (a.group[static_cast<std::size_t>(r)] != group) continue;
    const std::vector<ir::Stmt>& body = k.roles[static_cast<std::size_t>(r)].body;
    if (body.size() != 1 || body[0].kind != ir::StmtKind::for_loop) return "";
    walk(body[0].body, body[0].var);
  }
  return ok ? stages : "";
}

// The slots a ring's statement may take: in the body of a loop `for v in 0 .. N`
// at the top of its role (roles.hpp, ring_loop).
std::vector<bool> ring_slots(const Analysis& a) {
  std::vector<bool> ok(a.slots.size(), false);
  for (std::size_t s = 0; s < a.slots.size(); ++s) {
    const ir::Stmt* loop = ring_loop(a, static_cast<int>(s));
    if (loop == nullptr) continue;
    const ir::Expr& lo = a.kernel->exprs[static_cast<std::size_t>(loop->lo)];
    ok[s] = lo.kind == ir::ExprKind::constant && lo.param < 0 && lo.value == 0;
  }
  return ok;
}
constexpr std::size_t max_role_points = 20'000;

std::string role_names(const Analysis& a, const ir::Kernel& k, int group) {
  std::string s;
  for (int r = 0; r < a.roles; ++r)
    if (a.group[static_cast<std::size_t>(r)] == group) s += (s.empty() ? "" : " and ") + k.roles[static_cast<std::size_t>(r)].name;
  return s;
}

// Several roles (NVIDIA): the named barriers of `m`, and for each group of
// two roles that a producer/consumer pair fits, the pair instead where one
// verifies (unless --barrier monolithic), as a ring of mbarriers per stage
// where one verifies. Fills out's kernel, barriers, choices and
// verification.
void place_roles(Outcome& out, const Analysis& a, const ir::Kernel& k, const Minimum& m, const std::string& text,
                 const std::string& file, const std::vector<std::string>& lines, const Request& req,
                 const std::vector<Point>& analysed, const std::string& chip, int shift_after) {
  std::vector<std::pair<int, std::string>> replace;
  if (const int e = line_starting(lines, "# expect:")) replace.push_back({e, "# expect: verified"});
  std::vector<std::pair<int, int>> cross_roles(a.windows.size(), {-1, -1});  // per hazard between roles: from, to
  for (const Cross& c : a.cross) cross_roles[static_cast<std::size_t>(c.window)] = {c.from_run % a.roles, c.to_run % a.roles};
  auto render = [&](const RolePlan& plan) {
    const RoleStatements st = role_statements(a, k, plan, lines);
    std::size_t n = 0;
    for (const int s : st.slot) n += s >= 0;
    std::vector<std::string> header{"# synchronization placed by check-kernel --place-barriers --target " + chip + ": " +
                                    std::to_string(n) + " statement" + (n == 1 ? "" : "s") + " for " +
                                    std::to_string(a.windows.size()) + " hazard" + (a.windows.size() == 1 ? "" : "s")};
    for (const std::string& g : st.groups) header.push_back("# named barrier " + g);
    std::vector<std::pair<int, std::string>> edits = replace;
    edits.insert(edits.end(), st.replace.begin(), st.replace.end());
    const Rewritten rw = rewrite(text, file, a, st.inserts, edits, header, st.declare, st.drop);
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
        if (orders && count++ < 3) h += (h.empty() ? "" : "; ") + describe(win, rw.moved, shift_after);
      }
      if (count > 3) h += "; and " + std::to_string(count - 3) + " more";
      Barrier b;
      b.line = b.signal_line = rw.lines[i];
      b.hazards = st.what[i] + ": " + h;
      out.barriers.push_back(std::move(b));
    }
    std::sort(out.barriers.begin(), out.barriers.end(), [](const Barrier& x, const Barrier& y) { return x.line < y.line; });
  };

  // Whether the explicit search verifies a plan, rendered into `out`.
  auto verifies = [&](const RolePlan& p, check::Result& result) {
    render(p);
    Outcome probe;
    probe.text = out.text;
    probe.points = out.points;
    verify(probe, file, req, analysed);
    result = std::move(probe.verification);
    return !probe.defect && result.verdict == check::Verdict::verified;
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
        check::Result searched;
        if (verifies(trial, searched)) {
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
          // The same statements as a ring of mbarriers per stage, where the
          // roles use their buffers in turn: the source role runs up to S
          // trips ahead.
          if (const std::string stages = ring_stages(a, g); !stages.empty())
            if (const PairsResult ring = ring_pairs(pr, ring_slots(a), stages); ring.found) {
              RolePlan rt{rest, plan.pairs};
              rt.pairs.emplace_back(g, ring.pairs);
              check::Result ring_searched;
              if (verifies(rt, ring_searched)) {
                trial = std::move(rt);
                out.choices.back() += "; as a ring of " + stages + " mbarriers per channel, one per stage (buffer v % " + stages +
                                      " in trip v), so that a role runs up to " + stages + " trips ahead of the other";
              } else {
                out.choices.back() += "; a ring of " + stages + " stages failed the search (" +
                                      check::outcome_name(ring_searched) + "), one mbarrier per channel kept";
              }
            }
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
            failure = check::outcome_name(searched) + (searched.message.empty() ? "" : ": " + searched.message);
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
  // A TMA load lands later: only its mbarrier's tx-count observes that (PTX
  // ISA cp.async.bulk: complete-tx on the mbarrier), so a named barrier
  // cannot order what it writes.
  for (const int s : plan.named) {
    const int role = a.slots[static_cast<std::size_t>(s)].role;
    const int g = a.group[static_cast<std::size_t>(role)];
    for (int r = 0; r < a.roles; ++r)
      if (a.group[static_cast<std::size_t>(r)] == g)
        if (const ir::Stmt* load = first_tma_load(k.roles[static_cast<std::size_t>(r)].body)) {
          std::string why;
          for (const std::string& c : out.choices) why += (why.empty() ? "" : "; ") + c;
          out.errors.push_back({file, load->loc,
                                "--place-barriers: a TMA load's data is observed only through its mbarrier's tx-count, so "
                                "named barriers (bar_sync) cannot order what it writes; " +
                                    (req.family == Family::monolithic ? std::string("leave out --barrier monolithic")
                                                                      : "no producer/consumer pair verified for " + role_names(a, k, g) +
                                                                            (why.empty() ? "" : " (" + why + ")"))});
          return;
        }
  }
  out.family = plan.pairs.empty() ? "bar_sync" : plan.named.empty() ? "mbarrier" : "bar_sync+mbarrier";
  out.minimal = optimal;
  out.minimal_detail = detail;
  render(plan);
  verify(out, file, req, analysed);
}

using clock = std::chrono::steady_clock;
double since(clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); }

// The input as it is placed: its lines and text with the requested target's
// `target` line, and where a line added for it moves the later ones.
struct Input {
  const std::string& file;
  const Request& req;
  std::vector<std::string> lines;
  std::string text;
  Chip chip;
  int shift_after = 0;  // a `target` line added after this line moves the later ones by one
  // A line of the text placed, as the input numbers it.
  [[nodiscard]] int input_line(int line) const { return shift_after && line > shift_after ? line - 1 : line; }
};

// The target the kernel declares.
Chip declared_chip(const ir::Kernel& k) {
  if (k.target == ir::Target::amd) return {ir::Target::amd, k.gfx, spec::amd::gfx_name(k.gfx), ""};
  return {ir::Target::nvidia, spec::amd::default_gfx, "sm_90a", ""};
}

// --target: the input's `target` line replaced (or one added after the
// `kernel` line); false, with out's usage error, for a target unknown.
bool retarget(Input& in, Outcome& out) {
  if (!chip_of(in.req.target, in.chip)) {
    out.usage_error = "--target " + in.req.target + ": not a target (sm_90a, sm_100a, gfx90a, gfx940, gfx942, gfx1100, gfx1101, gfx1102, gfx1200, gfx1201)";
    return false;
  }
  const int t = line_starting(in.lines, "target");
  if (t) {
    in.lines[static_cast<std::size_t>(t - 1)] = in.chip.line;
  } else {
    const int k = line_starting(in.lines, "kernel");
    in.lines.insert(in.lines.begin() + k, in.chip.line);
    in.shift_after = k;
  }
  in.text.clear();
  for (const std::string& l : in.lines) in.text += l + "\n";
  return true;
}

// The barriers the placement inserts.
struct BarrierKind {
  bool amd = false;    // s_barrier (or split) rather than bar_sync
  bool split = false;  // gfx12 s_barrier_signal / s_barrier_wait
};

// Whether --barrier's family fits the kernel: false, with out's error, if not.
bool family_fits(Outcome& out, const Input& in, const ir::Kernel& k, BarrierKind kind) {
  if (in.req.family == Family::split && !kind.split) {
    const int t = line_starting(in.lines, "target");
    out.errors.push_back({in.file, {in.input_line(t), 1},
                          "--barrier split: " + in.chip.name + " has no split barrier (s_barrier_signal / s_barrier_wait are gfx12's: gfx1200, gfx1201)"});
    return false;
  }
  if (in.req.family == Family::pair && (kind.amd || k.roles.size() < 2)) {
    out.errors.push_back({in.file, k.roles.empty() ? k.loc : k.roles[0].loc,
                          "--barrier pair: producer/consumer pairs go between two roles of an NVIDIA kernel"});
    return false;
  }
  return true;
}

// The hazards of k, and at the other declared parameter values too (each
// parameter's bounds and candidates, the others as given), so that the
// barriers hold beyond the values the search runs at: into a, the points
// taken into `analysed` (out.points names them). False, with out's error,
// where a hazard cannot be ordered or the analysis fails.
bool analyse(Outcome& out, const Input& in, const ir::Kernel& k, Analysis& a, std::vector<Point>& analysed) {
  try {
    a = analyze(k);
    for (const auto& point : other_points(k, in.req.check.params)) {
      dsl::Parsed at = dsl::parse(in.text, in.file, point);
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
    loc.line = in.input_line(loc.line);
    out.errors.push_back({in.file, loc, e.what()});
    return false;
  }
  return true;
}

// The hazards are reported in the input's lines (a `target` line added by
// --target moves the later ones of the parsed text down by one).
void to_input_lines(Analysis& a, const Input& in) {
  if (!in.shift_after) return;
  for (Window& w : a.windows) {
    w.producer.line = in.input_line(w.producer.line);
    w.consumer.line = in.input_line(w.consumer.line);
  }
  for (int& l : a.removed_barriers) l = in.input_line(l);
}

// Z3's constraints for several roles count barriers over prefixes of the
// unrolled runs, quadratic in their length: false, with out's error, where
// they are too long.
bool role_points_fit(Outcome& out, const Input& in, const ir::Kernel& k, const Analysis& a) {
  std::size_t points = 0;
  for (const std::vector<int>& p : a.passes) points += p.size();
  if (points <= max_role_points) return true;
  out.errors.push_back({in.file, k.loc, "--place-barriers: a kernel of several roles unrolls here to " + std::to_string(points) +
                                            " program points, more than " + std::to_string(max_role_points) +
                                            " (the given values and the other points together); lower the trip counts with --param"});
  return false;
}

// The greedy seed (one role) and Z3's minimum from it, timed into out:
// false, with out's error, where several roles cannot be ordered.
bool find_minimum(Outcome& out, const Input& in, const ir::Kernel& k, const Analysis& a, Minimum& m) {
  const bool roles = a.roles > 1;
  clock::time_point t0 = clock::now();
  const std::vector<int> seed = roles ? std::vector<int>{} : greedy(a);
  out.greedy = seed.size();
  out.greedy_applies = !roles;
  out.t_greedy = since(t0);
  t0 = clock::now();
  if (!roles) {
    m = minimum(a, seed);
  } else {
    RolesMinimum rm = minimum_roles(a);
    if (rm.impossible) {
      out.errors.push_back({in.file, k.roles[1].loc, "--place-barriers: " + rm.m.detail});
      return false;
    }
    m = std::move(rm.m);
  }
  out.t_minimum = since(t0);
  out.minimal = m.proved;
  out.minimal_detail = m.detail;
  return true;
}

// The wait before an AMD barrier at `slot`: of the vector loads too where a
// gathering hazard's window holds it.
std::string waitcnt(const Analysis& a, int slot) {
  bool vm = false;
  for (const Window& w : a.windows)
    if (w.gather && std::binary_search(w.slots.begin(), w.slots.end(), slot)) vm = true;
  return vm ? std::string("s_waitcnt vmcnt(0) lgkmcnt(0)") : std::string("s_waitcnt lgkmcnt(0)");
}

// What to insert at each slot, and per barrier the inserts that hold its
// wait and its signal.
struct Inserts {
  std::vector<Insert> at;
  std::vector<int> wait, signal;
};

Inserts plan_inserts(const Analysis& a, const Split& sp, BarrierKind kind) {
  Inserts in;
  in.wait.assign(sp.waits.size(), -1);
  in.signal.assign(sp.waits.size(), -1);
  for (std::size_t slot = 0; slot < a.slots.size(); ++slot) {
    const int s = static_cast<int>(slot);
    for (std::size_t w = 0; w < sp.waits.size(); ++w)
      if (sp.waits[w] == s && sp.signals[w] != s) {
        in.wait[w] = static_cast<int>(in.at.size());
        in.at.push_back({s, {"s_barrier_wait"}});
      }
    for (std::size_t w = 0; w < sp.waits.size(); ++w) {
      if (sp.signals[w] != s) continue;
      in.signal[w] = static_cast<int>(in.at.size());
      if (!kind.amd) in.at.push_back({s, {"bar_sync 0"}});
      else if (!kind.split) in.at.push_back({s, {waitcnt(a, sp.waits[w]), "s_barrier"}});
      else in.at.push_back({s, {waitcnt(a, sp.waits[w]), "s_barrier_signal"}});
      if (kind.split && sp.waits[w] == s) {
        in.wait[w] = static_cast<int>(in.at.size());
        in.at.push_back({s, {"s_barrier_wait"}});
      }
    }
  }
  return in;
}

// The hazards a barrier waiting at `slot` orders, the first three described.
std::string hazards_at(const Analysis& a, int slot, const std::vector<int>& moved, int shift_after) {
  std::string h;
  int count = 0;
  for (const Window& win : a.windows)
    if (std::binary_search(win.slots.begin(), win.slots.end(), slot)) {
      if (count++ < 3) h += (h.empty() ? "" : "; ") + describe(win, moved, shift_after);
    }
  if (count > 3) h += "; and " + std::to_string(count - 3) + " more";
  return h;
}

// One role: the minimum's barriers inserted (split into signal and wait on
// gfx12), the kernel rewritten with them and verified. Fills out's kernel,
// barriers and verification, or marks a defect.
void place_one_role(Outcome& out, const Input& in, const Analysis& a, const Minimum& m, const std::vector<Point>& analysed,
                    BarrierKind kind) {
  Split sp{m.slots, m.slots};
  if (kind.split) sp = early_signals(a, m.slots);
  if (kind.split && !valid(a, sp)) {
    out.defect = true;
    out.verification.message = "the split placement does not alternate or order its hazards";
    return;
  }
  const Inserts ins = plan_inserts(a, sp, kind);
  // The header and the `# expect:` line.
  std::vector<std::pair<int, std::string>> replace;
  if (const int e = line_starting(in.lines, "# expect:")) replace.push_back({e, "# expect: verified"});
  const std::size_t n = m.slots.size();
  std::vector<std::string> header{
      "# barriers placed by check-kernel --place-barriers --target " + in.chip.name + ": " + std::to_string(n) + " " +
          (kind.split ? "split barrier" : out.family) + (n == 1 ? "" : "s") + " for " + std::to_string(a.windows.size()) +
          " hazard window" + (a.windows.size() == 1 ? "" : "s") + (m.proved ? " (minimal: proved)" : "")};
  Rewritten rw = rewrite(in.text, in.file, a, ins.at, replace, header);
  out.text = rw.text;
  out.diff = rw.diff;
  for (std::size_t w = 0; w < sp.waits.size(); ++w) {
    Barrier b;
    // AMD inserts start with their s_waitcnt.
    const int signal = rw.lines[static_cast<std::size_t>(ins.signal[w])] + (kind.amd ? 1 : 0);
    b.line = kind.split ? rw.lines[static_cast<std::size_t>(ins.wait[w])] : signal;
    b.signal_line = signal;
    b.hazards = hazards_at(a, sp.waits[w], rw.moved, in.shift_after);
    out.barriers.push_back(std::move(b));
  }
  std::sort(out.barriers.begin(), out.barriers.end(), [](const Barrier& x, const Barrier& y) { return x.line < y.line; });
  verify(out, in.file, in.req, analysed);
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
  Input in{file, req, split_lines(source), source, declared_chip(given.kernel)};
  if (!req.target.empty() && !retarget(in, out)) return out;
  dsl::Parsed parsed = !req.target.empty() ? dsl::parse(in.text, file, req.check.params) : std::move(given);
  if (!parsed.ok()) {
    for (Diagnostic d : parsed.errors) {
      d.loc.line = in.input_line(d.loc.line);
      out.errors.push_back(std::move(d));
    }
    return out;
  }
  const ir::Kernel& k = parsed.kernel;
  BarrierKind kind;
  kind.amd = k.target == ir::Target::amd;
  kind.split = kind.amd && spec::amd::has_split_barrier(k.gfx) && req.family != Family::monolithic;
  if (!family_fits(out, in, k, kind)) return out;
  out.target = in.chip.name;
  out.family = !kind.amd ? "bar_sync" : kind.split ? "split" : "s_barrier";

  const clock::time_point t0 = clock::now();
  Analysis a;
  std::vector<Point> analysed;  // the other points, as out.points names them
  if (!analyse(out, in, k, a, analysed)) return out;
  to_input_lines(a, in);
  out.input_barriers = a.removed_barriers;
  out.hazards = a.windows.size();
  out.t_hazards = since(t0);
  const bool roles = a.roles > 1;
  if (roles && !role_points_fit(out, in, k, a)) return out;
  Minimum m;
  if (!find_minimum(out, in, k, a, m)) return out;
  if (!covers(a, m.slots)) {
    out.defect = true;
    out.verification.message = "the placement does not cover its own hazard windows";
    return out;
  }
  if (roles) {
    // The pairs' Z3 queries and the searches of the placements tried count
    // with the minimum; the final search is t_verify.
    const clock::time_point t1 = clock::now();
    place_roles(out, a, k, m, in.text, file, in.lines, req, analysed, in.chip.name, in.shift_after);
    out.t_minimum += since(t1) - out.t_verify;
    return out;
  }
  place_one_role(out, in, a, m, analysed, kind);
  return out;
}

}  // namespace pc::place
