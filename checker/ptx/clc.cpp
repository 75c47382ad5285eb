// Cluster launch control (PTX ISA "clusterlaunchcontrol", sm_100a): a
// request to cancel a cluster not yet launched, its response in shared
// memory, and the query of that response, whose answer the model decides
// (spec/clc.hpp; docs/ptx.md, "Cluster launch control").
//
// try_cancel is the model's clc_try_cancel of the 16 response bytes,
// completing 16 bytes of tx on the mbarrier (in each CTA of the cluster with
// .multicast::cluster::all). The response is read with ld.shared.b128
// (a read of those bytes, as any load), and
// query_cancel.is_canceled on the loaded register is the model's clc_query
// of the bytes the register was loaded from: its predicate is Val::clc, the
// answer of that event, which setp, selp and not carry through (arith.cpp).
// A branch on it (clc_branch) reads both ways, as a branch on a loaded value
// is (either.cpp), to where they meet again; the ways are the model's `if`
// on the query's variable (Event::Mark::query), not a choice of the warp.
// A tile loop `while (is_canceled)` is read through once per answer that
// can be "canceled": the model answers so at most `--clc N` times (the
// clusters waiting to launch), and after N of them only "not canceled".
// The first CTA's coordinates (query_cancel.get_first_ctaid) are data.
#include <bit>
#include <string>
#include <utility>
#include <vector>

#include "checker/ptx/warp.hpp"
#include "spec/clc.hpp"

namespace pc::ptx {

void Warp::clc(const Instr& in, std::uint32_t lanes) {
  const std::string sub = in.parts.size() > 1 ? in.parts[1] : "";
  auto need = [&](std::size_t n) {
    if (in.args.size() < n) stop(in, "'" + in.text + "' needs " + std::to_string(n) + " operands");
  };
  if (sub == "try_cancel") {
    // clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes{.multicast::cluster::all}.b128 [addr], [mbar];
    need(2);
    Event ev;
    ev.op.code = ir::OpCode::clc_try_cancel;
    ev.data = lane_bytes(in, lanes, in.args[0], spec::clc::response_bytes);
    const std::vector<Bytes> bar = lane_bytes(in, lanes, in.args[1], 8);
    if (ev.data.size() != 1 || bar.size() != 1 || ev.data[0].global || bar[0].global || bar[0].hi - bar[0].lo != 8)
      stop(in, "the lanes of '" + in.text + "' name different responses or mbarriers, or global memory: not supported yet");
    if (ev.data[0].cta != cta || bar[0].cta != cta)
      stop(in, "'" + in.text + "' names another CTA's shared memory: its response and mbarrier are the executing CTA's (.shared::cta)");
    ev.has_bar = true;
    ev.bar = bar[0];
    if (in.has("multicast::cluster::all")) ev.op.multicast = c((std::int64_t{1} << ctx.cluster) - 1);
    emit(in, lanes, std::move(ev));
    return;
  }
  if (sub != "query_cancel") stop(in, "'" + in.text + "': clusterlaunchcontrol." + sub + " is not supported by the PTX front end yet (docs/ptx.md)");
  need(2);
  if (!in.has("is_canceled")) {
    // .get_first_ctaid{::x,::y,::z}: the canceled cluster's first CTA, data.
    for (int l = 0; l < 32; ++l)
      if ((lanes >> l) & 1) set(l, in.args[0], Val::unknown());
    return;
  }
  // clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 p, response;:
  // the response register's load (its first use consumed it: warp.cpp).
  int load = -1;
  for (int l = 0; l < 32; ++l) {
    if (!((lanes >> l) & 1)) continue;
    const Operand& r = in.args[1];
    const int t = r.kind == Operand::Kind::reg ? regs[static_cast<std::size_t>(l) * static_cast<std::size_t>(nregs) + static_cast<std::size_t>(r.reg)].load : -1;
    if (t < 0 || (load >= 0 && t != load))
      stop(in, "the response that '" + in.text + "' reads (lane " + std::to_string(l) +
                   ") is not one this warp loaded from shared memory (ld.shared.b128) for every lane: not supported yet");
    load = t;
  }
  if (load < 0) stop(in, "'" + in.text + "' is executed by no lane");
  const Event& loaded_from = out_->events.at(static_cast<std::size_t>(load));
  if (loaded_from.data.size() != 1 || loaded_from.data[0].global || loaded_from.data[0].hi - loaded_from.data[0].lo != spec::clc::response_bytes)
    stop(in, "the response that '" + in.text + "' reads was not loaded as one " + std::to_string(spec::clc::response_bytes) +
                 "-byte response from shared memory (ld.shared.b128 or .v2.b64): not supported yet");
  Event ev;
  ev.op.code = ir::OpCode::clc_query;
  ev.data = loaded_from.data;
  emit(in, lanes, std::move(ev));
  const int query = static_cast<int>(out_->events.size()) - 1;
  for (int l = 0; l < 32; ++l)
    if ((lanes >> l) & 1) set(l, in.args[0], Val::clc(query, true));
}

void Warp::clc_branch(const Instr& in, std::uint32_t taken, std::uint32_t unknown, int query, bool when) {
  const int at = stack_.back().pc;
  const int meet = ctx.cfg.ipdom[static_cast<std::size_t>(at)];
  if (meet < 0) stop(in, "a branch on a cluster launch control answer whose ways never meet again (no path to the end of the kernel)");
  // The query's answer is the last the warp made for its variable: no
  // other query of the warp between it and the branch.
  for (std::size_t e = static_cast<std::size_t>(query) + 1; e < out_->events.size(); ++e)
    if (out_->events[e].op.code == ir::OpCode::clc_query && out_->events[e].mark == Event::Mark::none)
      stop(in, "'" + in.text + "' branches on the answer of an earlier clusterlaunchcontrol.query_cancel than the warp's last: not supported yet");
  ++ctx.clc_branches;
  const std::size_t n0 = out_->events.size();
  const std::vector<Entry> stack0 = stack_;
  const Way start = way_from(n0);
  const std::size_t depth = stack_.size();
  ++either_depth_;  // the registers each way writes are logged (slot_at), to run the next from the same state
  const std::size_t logged = undo_.size();
  struct Ran {
    bool ran = false;
    Way way;
    std::vector<Entry> stack;
  };
  // ways[1]: the answer "canceled" (a new tile), possible while fewer than
  // --clc N answers on the warp's path so far were; ways[0]: "not canceled".
  Ran ways[2];
  for (int answer = 1; answer >= 0; --answer) {
    if (answer == 1 && clc_canceled_ >= ctx.launch.clc) continue;
    stack_ = stack0;
    restore(start, n0);
    clc_canceled_ += answer;
    try {
      branch(in, taken | ((answer == 1) == when ? unknown : 0u));
      while (advance() && stack_.size() >= depth && !(stack_.size() == depth && stack_.back().pc == meet)) step();
    } catch (const AssertFails& f) {
      stop(in, "a way of '" + in.text + "' fails an assert of the kernel (__assertfail at line " + std::to_string(f.at.line) +
                   "): not supported after a cluster launch control query");
    }
    clc_canceled_ -= answer;
    Ran& r = ways[answer];
    r.ran = true;
    r.way = way_from(n0);
    for (std::size_t k = logged; k < undo_.size(); ++k) r.way.changed.emplace_back(undo_[k].first, regs[undo_[k].first]);
    std::sort(r.way.changed.begin(), r.way.changed.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    r.way.changed.erase(std::unique(r.way.changed.begin(), r.way.changed.end(), [](const auto& x, const auto& y) { return x.first == y.first; }),
                        r.way.changed.end());
    for (std::size_t k = undo_.size(); k-- > logged;) regs[undo_[k].first] = undo_[k].second;
    undo_.resize(logged);
    r.stack = std::move(stack_);
  }
  --either_depth_;
  if (!ways[1].ran) {
    // No cluster is left to cancel on this path: the model answers "not
    // canceled" (spec/clc.hpp), so the warp goes that way alone.
    take(ways[0].way, n0);
    stack_ = std::move(ways[0].stack);
    return;
  }
  if (ways[0].stack != ways[1].stack)
    stop(in, "'" + in.text + "' branches on a cluster launch control answer, and one of its ways ends lanes the other does not: "
             "not supported yet");
  if (ways[0].way.single >= 0 && ways[1].way.single >= 0 && ways[0].way.single != ways[1].way.single)
    stop(in, "'" + in.text + "' branches on a cluster launch control answer, and its ways make single-lane operations from "
             "different lanes: not supported yet");
  join(in, ways[1].way, ways[0].way, n0, true, query);
  stack_ = std::move(ways[1].stack);
}

}  // namespace pc::ptx
