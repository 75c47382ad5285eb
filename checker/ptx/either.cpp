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
// copy), the two ways cannot be read as one, and the model has no choice
// between two ways yet: a located error, as a loop whose exit depends on
// such a value is.
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
  // A way: what it left in the warp's state. Its registers are the slots
  // it wrote (undo_ logs them, so that the next way starts from the same
  // state without a copy of the register file) with their values there.
  using Slots = std::vector<std::pair<std::size_t, Val>>;
  struct Way {
    Slots changed;                        // sorted by slot
    std::vector<Entry> stack;
    std::vector<Event> events;            // the way's own, after the branch
    std::vector<std::uint32_t> load_lanes;
    int single = -1;
    std::uint8_t seen = 0;
    std::vector<int> stale;
    std::optional<Where> aborts;          // it fails an assert there
  };
  const std::size_t n0 = out_->events.size();
  const std::vector<Entry> stack0 = stack_;
  const std::vector<std::uint32_t> lanes0 = load_lanes_;
  const int single0 = single_lane_;
  const std::uint8_t seen0 = regs_seen_;
  const std::vector<int> stale0 = stale_;
  const std::map<int, int> visits0 = assume_visits_;
  std::map<int, int> visits;  // after the ways: the more visits of each line
  const std::size_t depth = stack_.size();
  const int meet = ctx.cfg.ipdom[static_cast<std::size_t>(at)];
  either_at_.push_back(at);
  either_way_.push_back(0);
  ++either_depth_;
  const std::size_t mark = undo_.size();
  Way ways[2];
  for (int w = 0; w < 2; ++w) {
    stack_ = stack0;
    load_lanes_ = lanes0;
    single_lane_ = single0;
    regs_seen_ = seen0;
    stale_ = stale0;
    assume_visits_ = visits0;
    out_->events.resize(n0);
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
    Way& way = ways[w];
    // A way that fails an assert aborts the kernel: left out, where the
    // other goes on (the kernel's asserts are assumed to hold).
    way.aborts = std::nullopt;
    try {
      run_way();
    } catch (const AssertFails& f) {
      way.aborts = f.at;
    }
    way.events.assign(std::make_move_iterator(out_->events.begin() + static_cast<std::ptrdiff_t>(n0)),
                      std::make_move_iterator(out_->events.end()));
    if (way.aborts) way.events.clear();
    for (const Event& e : way.events)
      if (!access_only(e))
        stop(in, "'" + branch_text + "' branches on a value the front end does not know in lane " + std::to_string(lane) +
                     " (loaded from memory, or a timer), and its " + (w == 0 ? "taken" : "untaken") +
                     " way synchronizes (line " + std::to_string(e.op.loc.line) +
                     "): a choice between two ways of synchronizing is not supported yet (--assume " + std::to_string(in.at.line) + "=1 or =0 says which way it goes)");
    for (std::size_t k = mark; k < undo_.size(); ++k) way.changed.emplace_back(undo_[k].first, regs[undo_[k].first]);
    std::sort(way.changed.begin(), way.changed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    way.changed.erase(std::unique(way.changed.begin(), way.changed.end(), [](const auto& a, const auto& b) { return a.first == b.first; }),
                      way.changed.end());
    for (std::size_t k = undo_.size(); k-- > mark;) regs[undo_[k].first] = undo_[k].second;  // back to the start
    undo_.resize(mark);
    way.stack = std::move(stack_);
    way.load_lanes = std::move(load_lanes_);
    way.single = single_lane_;
    way.seen = regs_seen_;
    way.stale = std::move(stale_);
    for (const auto& [line, n] : assume_visits_) visits[line] = std::max(visits[line], n);
  }
  assume_visits_ = std::move(visits);
  --either_depth_;
  either_at_.pop_back();
  either_way_.pop_back();
  Way& a = ways[0];
  Way& b = ways[1];
  if (a.aborts && b.aborts)
    stop(in, "both ways of '" + branch_text + "' fail an assert of the kernel (__assertfail at line " +
                 std::to_string(a.aborts->line) + "): the kernel aborts here");
  if (a.aborts || b.aborts) {
    // The other way alone, as it ran (regs holds the start here).
    Way& on = a.aborts ? b : a;
    ctx.either_asserts.emplace_back((a.aborts ? a : b).aborts->line, branch_text);
    out_->events.resize(n0);
    for (Event& e : on.events) out_->events.push_back(std::move(e));
    load_lanes_ = std::move(on.load_lanes);
    for (const auto& [i, v] : on.changed)
      if (!(v == regs[i])) slot_at(i) = v;
    stack_ = std::move(on.stack);
    single_lane_ = on.single;
    regs_seen_ = on.seen;
    stale_ = std::move(on.stale);
    return;
  }
  if (a.stack != b.stack)
    stop(in, "'" + branch_text + "' branches on a value the front end does not know in lane " + std::to_string(lane) +
                 ", and one of its ways ends lanes the other does not: not supported yet");
  if (a.single >= 0 && b.single >= 0 && a.single != b.single)
    stop(in, "'" + branch_text + "' branches on a value the front end does not know, and its ways make single-lane accesses "
                 "from different lanes: not supported yet");
  // The events: both ways' accesses, the taken way's first. A load of the
  // untaken way is its event index there plus the taken way's events.
  const int shift = static_cast<int>(a.events.size());
  for (auto& [i, v] : b.changed)
    if (v.load >= static_cast<int>(n0)) v.load += shift;
  out_->events.resize(n0);  // what the untaken way left there was moved into b
  for (Event& e : a.events) out_->events.push_back(std::move(e));
  for (Event& e : b.events) out_->events.push_back(std::move(e));
  load_lanes_.assign(n0, 0);
  for (std::size_t i = 0; i < n0; ++i) load_lanes_[i] = a.load_lanes[i] | b.load_lanes[i];  // a load either way left unused
  load_lanes_.insert(load_lanes_.end(), a.load_lanes.begin() + static_cast<std::ptrdiff_t>(n0), a.load_lanes.end());
  load_lanes_.insert(load_lanes_.end(), b.load_lanes.begin() + static_cast<std::ptrdiff_t>(n0), b.load_lanes.end());
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
  stack_ = std::move(a.stack);
  single_lane_ = std::max(a.single, b.single);
  regs_seen_ = a.seen | b.seen;
  stale_ = std::move(a.stale);
  for (int r : b.stale)
    if (std::find(stale_.begin(), stale_.end(), r) == stale_.end()) stale_.push_back(r);
  ctx.either_branches.emplace_back(in.at.line, branch_text);
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

void Warp::maybe_after(const Instr& in, std::uint32_t unknown, const Maybe& before) {
  const bool accessed = out_->events.size() > before.events;
  for (std::size_t e = before.events; e < out_->events.size(); ++e)
    if (!access_only(out_->events[e]))
      stop(in, "'" + written(in, *ctx.fn) + "' is guarded by a predicate the front end does not know in lane " +
                   std::to_string(std::countr_zero(unknown)) +
                   " (a value loaded from memory, or a timer), and it synchronizes: not supported yet (--assume " + std::to_string(in.at.line) + "=1 or =0 says whether it runs)");
  for (const auto& [i, old] : before.old) {
    Val& now = regs[i];
    if (now == old || now.k == Val::K::unknown) continue;
    const std::uint8_t tags = now.wgmma | old.wgmma;
    now = Val::unknown();
    now.wgmma = tags;
  }
  if (accessed) ctx.either_guards.emplace_back(in.at.line, written(in, *ctx.fn));
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
