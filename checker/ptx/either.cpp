// A branch on a value the front end does not know (warp.hpp, Warp::either).
//
// Its predicate comes from data loaded from memory (or a timer), which the
// front end abstracts away: the lanes that do not know it may take the
// branch or not. Both ways are read, all of those lanes taken or none of
// them, each from the branch to where the ways meet again (the branch's
// immediate post-dominator, or the warp's end). A split of those lanes runs
// each way with fewer of them, which touches fewer bytes and makes the same
// operations; so where neither way makes an operation other than memory
// accesses (ld and st: read, write, consume), the warp goes on with both
// ways' accesses, the taken way's first (more conflicts, none lost), and a
// register the ways leave with different values is a value not known from
// there (a branch on it is read both ways again; an address or a
// synchronization operand from it is an error). A note of the verdict says
// so. Where a way synchronizes (an arrive, a wait, a barrier, an async
// copy), the two ways are a choice of the warp (Event::Mark; the model's
// either/or), each explored by the search. A loop whose exit depends on
// such a value is a located error whose hint gives the --assume that runs it.
#include <algorithm>
#include <bit>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "checker/ptx/warp.hpp"

namespace pc::ptx {
namespace {

// The operations of a way that are memory accesses only (docs/ptx.md, "How
// the kernel is read": ld and st of the shared, global and generic spaces,
// atom and red).
bool access_only(const Event& e) {
  return e.op.code == ir::OpCode::read || e.op.code == ir::OpCode::write || e.op.code == ir::OpCode::consume ||
         e.op.code == ir::OpCode::atomic || e.op.code == ir::OpCode::atomic_load;
}

// The instruction's guard and mnemonic as written: "@!%p3 bra SKIP".
std::string written(const Instr& in, const Function& fn) {
  return "@" + std::string(in.guard_neg ? "!" : "") + fn.regs[static_cast<std::size_t>(in.guard)].name + " " + in.text +
         (in.target.empty() ? "" : " " + in.target);
}


}  // namespace

Warp::Way Warp::way_from(std::size_t n0) {
  Way w;
  w.events.assign(std::make_move_iterator(out_->events.begin() + static_cast<std::ptrdiff_t>(n0)),
                  std::make_move_iterator(out_->events.end()));
  out_->events.resize(n0);
  w.load_lanes = load_lanes_;
  w.single = single_lane_;
  w.seen = regs_seen_;
  w.stale = stale_;
  w.epoch = epoch_;
  w.synced = synced_;
  return w;
}

void Warp::restore(const Way& start, std::size_t n0) {
  out_->events.resize(n0);
  load_lanes_ = start.load_lanes;
  single_lane_ = start.single;
  regs_seen_ = start.seen;
  stale_ = start.stale;
  epoch_ = start.epoch;
  synced_ = start.synced;
}

void Warp::take(Way& w, std::size_t n0) {
  restore(w, n0);
  for (Event& e : w.events) out_->events.push_back(std::move(e));
  for (const auto& [i, v] : w.changed)
    if (!(v == regs[i])) slot_at(i) = v;
}

void Warp::join(const Instr& in, Way& a, Way& b, std::size_t n0, bool choice, int query) {
  // An event index of a way (a load a register holds, an arrive whose token
  // it holds or a wait names) moves with the way's events: after the mark
  // that opens it, where the ways are a choice.
  const int from = static_cast<int>(n0);
  auto shift = [&](Way& w, int by) {
    if (by == 0) return;
    for (auto& [i, v] : w.changed) {
      if (v.load >= from) v.load += by;
      if ((v.k == Val::K::token || v.k == Val::K::clc) && v.v >= from) v.v += by;
    }
    for (Event& e : w.events) {
      if (e.token >= from) e.token += by;
      if (e.query >= from) e.query += by;
    }
  };
  shift(a, choice ? 1 : 0);
  shift(b, static_cast<int>(a.events.size()) + (choice ? 2 : 0));
  out_->events.resize(n0);
  load_lanes_.assign(n0, 0);
  for (std::size_t i = 0; i < n0; ++i) load_lanes_[i] = a.load_lanes[i] | b.load_lanes[i];  // a load either way left unused
  // The events: `either`, the first way, `second`, the other, `end`.
  if (choice) {
    mark(in, query >= 0 ? Event::Mark::query : Event::Mark::either);
    out_->events.back().query = query;  // the first way: where the query answered 1 (clc.cpp)
  }
  for (Event& e : a.events) out_->events.push_back(std::move(e));
  load_lanes_.insert(load_lanes_.end(), a.load_lanes.begin() + from, a.load_lanes.end());
  if (choice) mark(in, Event::Mark::second);
  for (Event& e : b.events) out_->events.push_back(std::move(e));
  load_lanes_.insert(load_lanes_.end(), b.load_lanes.begin() + from, b.load_lanes.end());
  if (choice) mark(in, Event::Mark::end);
  // The registers either way wrote: where the ways agree, that value; else
  // not known (regs holds the start here).
  auto ia = a.changed.begin(), ib = b.changed.begin();
  while (ia != a.changed.end() || ib != b.changed.end()) {
    const std::size_t i = ib == b.changed.end() || (ia != a.changed.end() && ia->first < ib->first) ? ia->first : ib->first;
    const Val va = ia != a.changed.end() && ia->first == i ? (ia++)->second : regs[i];
    const Val vb = ib != b.changed.end() && ib->first == i ? (ib++)->second : regs[i];
    Val v = va;
    if (!(va == vb)) {
      v = Val::unknown();
      v.wgmma = va.wgmma | vb.wgmma;
    }
    if (!(v == regs[i])) slot_at(i) = v;
  }
  single_lane_ = std::max(a.single, b.single);
  regs_seen_ = a.seen | b.seen;
  epoch_ = a.epoch == b.epoch ? a.epoch : -1;
  synced_ = a.synced || b.synced || choice;
  stale_ = std::move(a.stale);
  for (int r : b.stale)
    if (std::find(stale_.begin(), stale_.end(), r) == stale_.end()) stale_.push_back(r);
}

void Warp::either(const Instr& in, std::uint32_t taken, std::uint32_t unknown) {
  const int at = stack_.back().pc;
  const int lane = std::countr_zero(unknown);
  const std::string branch_text = written(in, *ctx.fn);
  if (const auto found = std::find(either_at_.begin(), either_at_.end(), at); found != either_at_.end()) {
    // The way of the branch being read that came back to it stays in the
    // loop: the hint runs the loop twice, then leaves it.
    const int back = either_way_[static_cast<std::size_t>(found - either_at_.begin())];
    const std::string stay = back == 0 ? "1" : "0", leave = back == 0 ? "0" : "1";
    stop(in, "'" + branch_text + "' is a loop's branch on a value the front end does not know in lane " + std::to_string(lane) +
                 " (loaded from memory, or a timer): a loop whose trips depend on such a value is not supported yet (--assume " +
                 std::to_string(in.at.line) + "=" + stay + "," + stay + "," + leave +
                 " says which way it goes each time a warp reaches it: here the loop twice, then out)");
  }
  // A way, and where it ended. Its registers are the slots it wrote (undo_
  // logs them, so that the next way starts from the same state without a
  // copy of the register file) with their values there.
  struct Ran {
    Way way;
    std::vector<Entry> stack;
    std::optional<Where> aborts;  // it fails an assert there
    int syncs = 0;                // the line of its first operation other than an access (0: none)
  };
  const std::size_t n0 = out_->events.size();
  const std::vector<Entry> stack0 = stack_;
  const Way start = way_from(n0);
  const std::map<int, int> visits0 = assume_visits_;
  std::map<int, int> visits;  // after the ways: the more visits of each line
  const std::size_t depth = stack_.size();
  const int meet = ctx.cfg.ipdom[static_cast<std::size_t>(at)];
  either_at_.push_back(at);
  either_way_.push_back(0);
  ++either_depth_;
  const std::size_t logged = undo_.size();
  Ran ways[2];
  for (int w = 0; w < 2; ++w) {
    stack_ = stack0;
    restore(start, n0);
    assume_visits_ = visits0;
    // To where the ways meet: the branch's entry back at its post-dominator,
    // or popped (the post-dominator was where that entry ends), or the end.
    either_way_.back() = w;
    auto run_way = [&] {
      const std::size_t nested = either_at_.size();
      const int nested_depth = either_depth_;
      try {
        branch(in, w == 0 ? taken | unknown : taken);
        while (advance() && stack_.size() >= depth && !(stack_.size() == depth && stack_.back().pc == meet)) step();
      } catch (const AssertFails&) {
        either_at_.resize(nested);  // the ways inside it that were being read
        either_way_.resize(nested);
        either_depth_ = nested_depth;
        throw;
      }
    };
    Ran& ran = ways[w];
    // A way that fails an assert aborts the kernel: left out, where the
    // other goes on (the kernel's asserts are assumed to hold).
    try {
      run_way();
    } catch (const AssertFails& f) {
      ran.aborts = f.at;
    }
    ran.way = way_from(n0);
    if (ran.aborts) ran.way.events.clear();
    for (const Event& e : ran.way.events)
      if (!access_only(e) && ran.syncs == 0) ran.syncs = e.op.loc.line;
    Way& way = ran.way;
    for (std::size_t k = logged; k < undo_.size(); ++k) way.changed.emplace_back(undo_[k].first, regs[undo_[k].first]);
    std::sort(way.changed.begin(), way.changed.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    way.changed.erase(std::unique(way.changed.begin(), way.changed.end(), [](const auto& x, const auto& y) { return x.first == y.first; }),
                      way.changed.end());
    for (std::size_t k = undo_.size(); k-- > logged;) regs[undo_[k].first] = undo_[k].second;  // back to the start
    undo_.resize(logged);
    ran.stack = std::move(stack_);
    for (const auto& [line, n] : assume_visits_) visits[line] = std::max(visits[line], n);
  }
  assume_visits_ = std::move(visits);
  --either_depth_;
  either_at_.pop_back();
  either_way_.pop_back();
  Ran& a = ways[0];
  Ran& b = ways[1];
  if (a.aborts && b.aborts)
    stop(in, "both ways of '" + branch_text + "' fail an assert of the kernel (__assertfail at line " +
                 std::to_string(a.aborts->line) + "): the kernel aborts here");
  if (a.aborts || b.aborts) {
    // The other way alone, as it ran (regs holds the start here).
    Ran& on = a.aborts ? b : a;
    ctx.either_asserts.emplace_back((a.aborts ? a : b).aborts->line, branch_text);
    take(on.way, n0);
    stack_ = std::move(on.stack);
    return;
  }
  if (a.stack != b.stack)
    stop(in, "'" + branch_text + "' branches on a value the front end does not know in lane " + std::to_string(lane) +
                 ", and one of its ways ends lanes the other does not: not supported yet");
  if (a.way.single >= 0 && b.way.single >= 0 && a.way.single != b.way.single)
    stop(in, "'" + branch_text + "' branches on a value the front end does not know, and its ways make single-lane accesses "
                 "from different lanes: not supported yet");
  // Where neither way synchronizes, both ways' accesses, the taken way's
  // first; else a choice.
  const bool choice = a.syncs != 0 || b.syncs != 0;
  join(in, a.way, b.way, n0, choice);
  stack_ = std::move(a.stack);
  (choice ? ctx.either_choices : ctx.either_branches).emplace_back(in.at.line, branch_text);
}

// An instruction other than a branch guarded by such a predicate: executed
// as if the lanes that do not know it did (warp.cpp, step), which touches
// more bytes than a part of them would. Where it makes an operation other
// than a memory access, a located error; a register it writes in those
// lanes keeps its value where executing it left that unchanged, else holds
// a value not known (loaded data keeps its load, so that its first use
// consumes it).
Warp::Maybe Warp::maybe_before(const Instr& in, std::uint32_t unknown) const {
  Maybe m;
  m.events = out_->events.size();
  for (int r : defs_of(in))
    for (int l = 0; l < 32; ++l) {
      if (!((unknown >> l) & 1)) continue;
      const std::size_t i = static_cast<std::size_t>(l) * static_cast<std::size_t>(nregs) + static_cast<std::size_t>(r);
      m.old.emplace_back(i, regs[i]);
    }
  return m;
}

void Warp::maybe_after(const Instr& in, const Maybe& before) {
  const bool accessed = out_->events.size() > before.events;
  for (const auto& [i, old] : before.old) {
    Val& now = regs[i];
    if (now == old || now.k == Val::K::unknown) continue;
    const std::uint8_t tags = now.wgmma | old.wgmma;
    now = Val::unknown();
    now.wgmma = tags;
  }
  if (accessed) ctx.either_guards.emplace_back(in.at.line, written(in, *ctx.fn));
}

// A guarded instruction that synchronizes (`@%p mbarrier.arrive`, where %p
// comes from memory): run by g | unknown, then again from the same state by
// g alone (nothing, where g is empty); the two runs are the ways of a
// choice of the warp, as a branch whose ways synchronize is (Warp::either),
// and a register the runs leave with different values is not known after it.
void Warp::maybe(const Instr& in, std::uint32_t g, std::uint32_t unknown, std::uint32_t mask) {
  const Maybe before = maybe_before(in, unknown);
  const std::size_t n0 = out_->events.size();
  std::vector<std::pair<std::size_t, Val>> defs;  // the registers it writes, in every lane, before it
  for (int r : defs_of(in))
    for (int l = 0; l < 32; ++l) {
      const std::size_t i = static_cast<std::size_t>(l) * static_cast<std::size_t>(nregs) + static_cast<std::size_t>(r);
      defs.emplace_back(i, regs[i]);
    }
  std::sort(defs.begin(), defs.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  const Way start = way_from(n0);
  execute(in, g | unknown, mask);
  bool syncs = false;
  for (std::size_t e = n0; e < out_->events.size(); ++e) syncs |= !access_only(out_->events[e]);
  if (!syncs) {
    maybe_after(in, before);
    return;
  }
  // A run as a way: its events, and the registers it wrote, put back.
  auto ran = [&] {
    Way w = way_from(n0);
    for (const auto& [i, v] : defs)
      if (!(regs[i] == v)) {
        w.changed.emplace_back(i, regs[i]);
        slot_at(i) = v;
      }
    return w;
  };
  Way first = ran();  // by g | unknown
  restore(start, n0);
  if (g != 0) execute(in, g, mask);
  Way second = ran();  // from the same state, by g alone
  if (first.single >= 0 && second.single >= 0 && first.single != second.single)
    stop(in, "'" + written(in, *ctx.fn) + "' is guarded by a value the front end does not know, and its ways make single-lane "
             "operations from different lanes: not supported yet");
  join(in, first, second, n0, true);
  ctx.either_choices.emplace_back(in.at.line, written(in, *ctx.fn));
}

// --assume LINE=WAYS (docs/ptx.md, "Assumptions"): the user says which way
// the lanes that do not know the guard go, each time this warp reaches the
// instruction (a probe of a polling loop reads it without counting).
bool Warp::assumed(const Instr& in, std::uint32_t& g, std::uint32_t unknown) {
  const auto it = ctx.launch.assume.find(in.at.line);
  if (it == ctx.launch.assume.end() || it->second.empty()) return false;
  int& n = assume_visits_[in.at.line];
  const std::vector<bool>& ways = it->second;
  if (ways[std::min(static_cast<std::size_t>(n), ways.size() - 1)]) g |= unknown;
  if (!probing_) ++n;
  ctx.assumed.emplace(in.at.line, written(in, *ctx.fn));
  return true;
}

namespace {

// "line 41 '@!%p3 bra SKIP', line 52 '...' and 7 more": the distinct lines, in order.
std::string listed(std::vector<std::pair<int, std::string>> at, int& distinct) {
  std::sort(at.begin(), at.end());
  at.erase(std::unique(at.begin(), at.end()), at.end());
  distinct = static_cast<int>(at.size());
  std::string s;
  for (std::size_t i = 0; i < at.size() && i < 3; ++i)
    s += (i ? ", " : "") + std::string("line ") + std::to_string(at[i].first) + " '" + at[i].second + "'";
  if (at.size() > 3) s += " and " + std::to_string(at.size() - 3) + " more";
  return s;
}

}  // namespace

int note_either(const Context& ctx, std::vector<std::string>& notes) {
  int branches = 0, guards = 0;
  const std::string b = listed(ctx.either_branches, branches), g = listed(ctx.either_guards, guards);
  const std::string over = " (an over-approximation: more conflicts, none lost)";
  if (branches > 0)
    notes.push_back(std::to_string(branches) + (branches == 1 ? " branch" : " branches") +
                    " on a value loaded from memory read both ways, their memory accesses taken together" + over + ": " + b);
  int choices = 0;
  const std::string ch = listed(ctx.either_choices, choices);
  if (choices > 0)
    notes.push_back(std::to_string(choices) + (choices == 1 ? " branch or guard" : " branches or guards") +
                    " on a value loaded from memory whose ways synchronize, each way explored as a choice of the warp (each "
                    "warp chooses on its own, also where warps read one value: --assume gives the way): " + ch);
  int asserts = 0;
  const std::string x = listed(ctx.either_asserts, asserts);
  if (asserts > 0)
    notes.push_back(std::to_string(asserts) + (asserts == 1 ? " assert" : " asserts") +
                    " of the kernel assumed to hold (a failed assert aborts it): the way of a branch on a loaded value "
                    "that fails one left out: " + x);
  if (!ctx.assumed.empty()) {
    std::string s;
    int i = 0;
    for (const auto& [line, text] : ctx.assumed) {
      if (i == 3) {
        s += " and " + std::to_string(ctx.assumed.size() - 3) + " more";
        break;
      }
      s += (i++ ? ", " : "") + std::string("line ") + std::to_string(line) + " '" + text + "'";
    }
    const std::size_t n = ctx.assumed.size();
    notes.push_back(std::to_string(n) + (n == 1 ? " guard" : " guards") +
                    " on a value loaded from memory taken as --assume gives (the verdict holds for the runs that go those ways): " + s);
  }
  int strong = 0;
  const std::string o = listed(ctx.unordered_strong, strong);
  if (strong > 0)
    notes.push_back(std::to_string(strong) + (strong == 1 ? " strong operation" : " strong operations") +
                    " with .acquire or .release semantics read as relaxed, their ordering not used" + over + ": " + o);
  if (guards > 0)
    notes.push_back(std::to_string(guards) + (guards == 1 ? " instruction" : " instructions") +
                    " guarded by a value loaded from memory read as executed by every such lane" + over + ": " + g);
  return branches;
}

}  // namespace pc::ptx
