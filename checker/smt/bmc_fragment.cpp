#include "checker/smt/bmc_fragment.hpp"

#include <algorithm>
#include <map>

#include "checker/program.hpp"
#include "spec/amd.hpp"
#include "spec/async_group.hpp"
#include "spec/clc.hpp"
#include "spec/cluster.hpp"
#include "spec/mbarrier.hpp"
#include "spec/named_barrier.hpp"
#include "spec/ordering.hpp"
#include "spec/rules.hpp"
#include "spec/tmem.hpp"

namespace pc::smt::bmc {
namespace {

namespace hb = spec::hb;
namespace mb = spec::mbarrier;
using check::Instr;
using check::InstrKind;
using ir::OpCode;
using spec::Violation;

// The most instructions one agent's unrolling runs (a loop this long is
// past what a bounded search of every interleaving can take anyway).
constexpr int max_instructions = 4096;

struct Refused {
  std::string why;
};

class Unroller {
 public:
  Unroller(const check::Program& p, Fragment& f) : p_(p), f_(f) {}

  void agent(int a) {
    const check::AgentInfo& info = p_.agents[static_cast<std::size_t>(a)];
    const ir::Role& role = p_.kernel->roles[static_cast<std::size_t>(info.role)];
    if (role.per_warp) throw Refused{"role " + role.name + " is split per warp (line " + std::to_string(role.loc.line) + ")"};
    a_ = a;
    current_ = Agent{};
    Agent& out = current_;
    out.name = info.name;
    out.cta = info.cta;
    out.threads = info.threads;
    cluster_joined_ = false;
    vars_.assign(role.vars.size(), 0);
    bulk_ = {};
    mma_ = {};
    cp_ = {};
    wave_ = {};
    wgmma_fenced_ = false;
    out.lanes = threads(info.hb.lanes());
    if (f_.amd && spec::amd::wave_lanes_in_lockstep)
      for (int w = 0; w < info.warps; ++w) out.lockstep.emplace_back(thread(info.hb.leader(w)), thread(info.hb.rest(w)));
    vars_[ir::var_cta] = info.cta;
    vars_[ir::var_instance] = info.instance;
    vars_[ir::var_warp] = info.warp;
    code_ = &p_.code[static_cast<std::size_t>(info.role)];
    exit_loc_ = role.loc;
    run(0, 0);
    f_.agents.push_back(std::move(out));
  }

  // Unrolls the agent's code from `pc` (its n-th instruction) to an exit,
  // appending the steps in preorder: at a clc_query that keeps its answer,
  // the path of a "canceled" response first, then the other's.
  void run(std::size_t pc, int n) {
    Agent& out = current_;
    const std::vector<Instr>& code = *code_;
    std::vector<int> mine;  // the steps this call appends itself (their subtree ends where it returns)
    ir::Loc exit_loc = exit_loc_;
    bool forked = false;  // the paths of a clc_query's answers took the rest
    for (; pc < code.size(); ++n) {
      if (n > max_instructions || static_cast<int>(out.steps.size()) > max_instructions)
        throw Refused{out.name + " runs more than " + std::to_string(max_instructions) + " instructions"};
      const Instr& in = code[pc];
      switch (in.kind) {
        case InstrKind::assign: vars_[static_cast<std::size_t>(in.var)] = ev(in.expr); ++pc; break;
        case InstrKind::jump: pc = static_cast<std::size_t>(in.target); break;
        case InstrKind::branch_false: pc = ev(in.expr) != 0 ? pc + 1 : static_cast<std::size_t>(in.target); break;
        case InstrKind::assert_true:
          if (ev(in.expr) == 0) {
            Step s;
            s.kind = StepKind::fail;
            s.loc = in.loc;
            s.text = "assert (does not hold)";
            s.raises = Violation::assertion_failed;
            mine.push_back(static_cast<int>(out.steps.size()));
            out.steps.push_back(s);
          }
          ++pc;
          break;
        case InstrKind::op:
          if (in.op->code == OpCode::exit) {
            pc = code.size();  // the agent ends here (step.cpp: exit_agent)
            exit_loc = in.loc;
            break;
          }
          if (in.op->code == OpCode::wgmma_fence || in.op->code == OpCode::wgmma_commit ||
              in.op->code == OpCode::bulk_commit_group || in.op->code == OpCode::cp_async_commit ||
              in.op->code == OpCode::tcgen05_fence_after ||
              ((in.op->code == OpCode::tcgen05_fence_before || in.op->code == OpCode::tcgen05_relinquish) && f_.tmem_slots == 0)) {
            agent_local(*in.op);
            ++pc;
            break;
          }
          mine.push_back(static_cast<int>(out.steps.size()));
          out.steps.push_back(op(*in.op, static_cast<int>(out.steps.size())));
          if (in.op->code == OpCode::clc_query && in.op->dest_var >= 0) {
            // Both answers, each with the rest of the code (spec/clc.hpp:
            // which comes is not the kernel's to choose).
            const std::size_t q = out.steps.size() - 1;
            const Context saved = save();
            vars_[static_cast<std::size_t>(in.op->dest_var)] = 1;
            run(pc + 1, n + 1);
            restore(saved);
            vars_[static_cast<std::size_t>(in.op->dest_var)] = 0;
            out.steps[q].next_false = static_cast<int>(out.steps.size());
            run(pc + 1, n + 1);
            restore(saved);
            pc = code.size();
            forked = true;
            break;
          }
          ++pc;
          break;
      }
    }
    if (!forked) {
      // step.cpp, the CTA's exit (rules::CtaExit): a store's or wgmma's read
      // not waited for, or a committed cp.async-group's write.
      Step exit;
      exit.kind = StepKind::exit;
      exit.loc = exit_loc;
      exit.text = "exit";
      exit.in_flight = spec::async_group::in_flight(bulk_) || spec::async_group::in_flight(mma_) ||
                       spec::async_group::committed_in_flight(cp_);
      exit.signaled = wave_.signaled;
      mine.push_back(static_cast<int>(out.steps.size()));
      out.steps.push_back(exit);
      Step done;
      done.kind = StepKind::done;
      done.loc = exit_loc;
      done.text = "exited";
      out.ends.push_back(static_cast<int>(out.steps.size()));
      mine.push_back(static_cast<int>(out.steps.size()));
      out.steps.push_back(done);
    }
    for (const int i : mine) out.steps[static_cast<std::size_t>(i)].end = static_cast<int>(out.steps.size());
  }

  // What the unrolling of one path keeps, for the other path of a clc_query.
  struct Context {
    std::vector<std::int64_t> vars;
    spec::async_group::Groups bulk, mma, cp;
    spec::amd::Wave wave;
    bool wgmma_fenced = false, cluster_joined = false;
  };
  Context save() const { return {vars_, bulk_, mma_, cp_, wave_, wgmma_fenced_, cluster_joined_}; }
  void restore(const Context& c) {
    vars_ = c.vars;
    bulk_ = c.bulk;
    mma_ = c.mma;
    cp_ = c.cp;
    wave_ = c.wave;
    wgmma_fenced_ = c.wgmma_fenced;
    cluster_joined_ = c.cluster_joined;
  }

 private:
  const check::Program& p_;
  Fragment& f_;
  int a_ = 0;
  Agent current_;  // the agent being unrolled
  const std::vector<Instr>* code_ = nullptr;  // its role's code
  ir::Loc exit_loc_;  // where it exits when its code ends
  spec::async_group::Groups bulk_, mma_, cp_;  // its async-groups (step.cpp: AgentState::bulk, mma, cp)
  spec::amd::Wave wave_;                  // AMD: its counters and split-barrier state
  bool wgmma_fenced_ = false;
  bool cluster_joined_ = false;  // arrived at the cluster barrier and not yet waited (spec/cluster.hpp, Ticket)

  // The operations no other agent sees: a wgmma_fence, a commit,
  // tcgen05.fence::after_thread_sync (step.cpp: the tcgen05_unfenced
  // warning's state), and in a kernel with no tensor memory
  // before_thread_sync (no tcgen05.ld or tcgen05.st to order) and
  // relinquish_alloc_permit (no allocation to give up).
  void agent_local(const ir::Op& op) {
    if (op.code == OpCode::tcgen05_fence_after || op.code == OpCode::tcgen05_fence_before || op.code == OpCode::tcgen05_relinquish)
      return;
    if (op.code == OpCode::wgmma_fence) wgmma_fenced_ = true;
    else (void)spec::async_group::commit(op.code == OpCode::wgmma_commit ? mma_ : op.code == OpCode::cp_async_commit ? cp_ : bulk_);
  }
  std::vector<std::int64_t> vars_;
  std::map<int, int> local_;  // hb thread -> local thread

  std::int64_t ev(ir::ExprId e, std::int64_t otherwise = 0) const {
    return e == ir::no_expr ? otherwise : check::eval(p_, e, vars_.data());
  }
  [[noreturn]] void refuse(const ir::Op& op, const std::string& what) const {
    throw Refused{"line " + std::to_string(op.loc.line) + ": " + what};
  }
  int thread(std::uint8_t t) {
    const auto it = local_.find(t);
    if (it != local_.end()) return it->second;
    const int n = static_cast<int>(f_.threads.size());
    f_.threads.push_back(p_.thread_name(t));
    local_.emplace(t, n);
    return n;
  }
  std::vector<int> threads(hb::Threads mask) {
    std::vector<int> out;
    for (int t = 0; t < hb::max_threads; ++t)
      if (mask & hb::bit(static_cast<std::uint8_t>(t))) out.push_back(thread(static_cast<std::uint8_t>(t)));
    return out;
  }
  int element(const ir::Ref& r, int size) const {
    const std::int64_t i = ev(r.index, 0);
    if (i < 0 || i >= size) throw check::KernelError("index " + std::to_string(i) + " is outside its array", r.loc);
    return static_cast<int>(i);
  }
  // The CTA an operand names (its own where none).
  int cta(const ir::Ref& r) const { return check::target_cta(p_, r, vars_.data(), current_.cta); }
  // That CTA where it is another (it must still be there), else -1.
  int remote(int c) const { return c == current_.cta ? -1 : c; }
  int mbar(const ir::Ref& r, int c) const {
    const ir::MbarrierDecl& d = p_.kernel->mbarriers.at(static_cast<std::size_t>(r.object));
    return c * p_.mbars_per_cta + p_.mbar_base[static_cast<std::size_t>(r.object)] + element(r, d.size);
  }
  int mbar(const ir::Ref& r) const { return mbar(r, cta(r)); }
  int buf(const ir::Ref& r, int c) const {
    const ir::BufferDecl& d = p_.kernel->buffers.at(static_cast<std::size_t>(r.object));
    return c * p_.buffers_per_cta + p_.buffer_base[static_cast<std::size_t>(r.object)] + element(r, d.size);
  }
  // An operand of the agent's own CTA (the others' are not covered for the
  // operations that use this).
  int buf(const ir::Ref& r) const {
    if (r.cta != ir::no_expr) throw Refused{"line " + std::to_string(r.loc.line) + ": this operation on another CTA's buffer (@)"};
    return buf(r, current_.cta);
  }
  // The agents of CTA c whose role has a cta_group 2 collective: the warps
  // a collective of the peer CTA may find waiting (step.cpp, pair_waiter).
  std::vector<int> pair_agents(int c) const {
    std::vector<int> found;
    for (int b = 0; b < static_cast<int>(p_.agents.size()); ++b) {
      const check::AgentInfo& info = p_.agents[static_cast<std::size_t>(b)];
      if (info.cta != c) continue;
      for (const Instr& in : p_.code[static_cast<std::size_t>(info.role)])
        if (in.kind == InstrKind::op && in.op->cta_pair &&
            (in.op->code == OpCode::tcgen05_alloc || in.op->code == OpCode::tcgen05_dealloc ||
             in.op->code == OpCode::tcgen05_relinquish)) {
          found.push_back(b);
          break;
        }
    }
    return found;
  }
  // The sync object a release of `scope` by this agent into mbarrier `m`
  // goes into (step.cpp, channel_sync; ordering::release_channel): the
  // barrier's own (own_sync), an extra index, or no_sync.
  int channel(int m, spec::ordering::Scope scope) const {
    switch (spec::ordering::release_channel(scope, f_.mbar_cta[static_cast<std::size_t>(m)] != current_.cta)) {
      case spec::ordering::Channel::any_scope: return own_sync;
      case spec::ordering::Channel::cluster_scope: return or_none(f_.mbar_cluster_sync[static_cast<std::size_t>(m)]);
      case spec::ordering::Channel::too_narrow: break;
    }
    return or_none(f_.mbar_weak_sync[static_cast<std::size_t>(m)]);
  }
  static int or_none(int extra) { return extra >= 0 ? extra : no_sync; }
  int extra_sync() { return f_.extra_syncs++; }
  int event(int b, bool write, int thread, int spread, bool async) {
    f_.events.push_back(Event{b, write, thread, spread, async});
    return static_cast<int>(f_.events.size()) - 1;
  }

  // The async unit s.unit's access of each buffer of `op` in `group`
  // (step.cpp, unit_access: one event per buffer). `others`: operands of
  // another CTA (`@ c`) are covered, and that CTA must not have exited.
  void unit_parts(Step& s, const ir::Op& op, bool write, bool async, int group, bool others = false) {
    for (const ir::Ref& r : op.bufs) {
      Step::Part part;
      if (others) {
        const int c = cta(r);
        part.buf = buf(r, c);
        part.remote = remote(c);
      } else {
        part.buf = buf(r);
      }
      part.events.push_back(event(part.buf, write, s.unit, 0, async));
      f_.events.back().group = group;
      s.text += (s.parts.empty() ? " " : ", ") + f_.buffers[static_cast<std::size_t>(part.buf)];
      s.parts.push_back(part);
    }
    s.text += " (group " + std::to_string(group) + ")";
  }

  Step op(const ir::Op& op, int index) {
    const check::AgentInfo& me = p_.agents[static_cast<std::size_t>(a_)];
    const check::Lanes l = check::lanes_of(op, me);
    Step s;
    s.loc = op.loc;
    s.lanes = threads(l.threads);
    s.text = check::lanes_prefix(op) + std::string(ir::op_keyword(op.code));
    if ((op.dest_var >= 0 && op.code != OpCode::clc_query) || op.token_var >= 0)
      refuse(op, "an operation whose result is kept in a variable");
    switch (op.code) {
      case OpCode::read:
      case OpCode::write: {
        s.kind = StepKind::access;
        s.write = op.code == OpCode::write;
        s.spread = l.every ? me.parts + 1 : 0;
        for (const ir::Ref& r : op.bufs) {
          Step::Part part;
          const int c = cta(r);
          part.buf = buf(r, c);
          part.remote = remote(c);
          if (f_.amd) wave_ = spec::amd::lds_issue(wave_);  // step.cpp, access: an LDS instruction per buffer
          for (const int t : s.lanes) part.events.push_back(event(part.buf, s.write, t, s.spread, false));
          s.text += (s.parts.empty() ? " " : ", ") + f_.buffers[static_cast<std::size_t>(part.buf)];
          s.parts.push_back(part);
        }
        return s;
      }
      case OpCode::mbar_arrive:
      case OpCode::mbar_arrive_expect_tx: {
        if (op.no_complete) refuse(op, "arrive nocomplete");
        s.kind = StepKind::arrive;
        const int c = cta(op.bar);
        s.remote = remote(c);
        s.mbar = mbar(op.bar, c);
        s.count = spec::rules::per_thread_total(ev(op.count, 1), l.count);
        s.sync = spec::ordering::arrive_releases(static_cast<spec::ordering::Sem>(op.sem));
        const auto scope = static_cast<spec::ordering::Scope>(op.scope);
        s.into = channel(s.mbar, scope);
        // step.cpp, fence_forward: a fence_mbarrier_init's release (at
        // .cluster scope) goes with the arrive, at the pattern's scope.
        s.forward = channel(s.mbar, spec::ordering::pattern_scope(spec::ordering::Scope::cluster, scope));
        s.text += " " + f_.mbars[static_cast<std::size_t>(s.mbar)] + (op.sem == ir::Sem::relaxed ? " relaxed" : " release") +
                  (op.scope == ir::Scope::cluster ? " cluster" : " cta");
        // What mb::arrive checks of its operands, in its order (step.cpp
        // first checks the expect-tx operand as written).
        if (op.code == OpCode::mbar_arrive_expect_tx) {
          const std::int64_t bytes = ev(op.bytes, 0);
          s.text += " bytes " + std::to_string(bytes);
          if (!mb::tx_operand_in_range(bytes)) s.raises = Violation::tx_out_of_range;
          s.tx = spec::rules::per_thread_total(bytes, l.count);
        }
        if (s.raises == Violation::none && (s.count < 1 || s.count > mb::max_count)) s.raises = Violation::bad_arrive_count;
        if (s.raises == Violation::none && !mb::tx_operand_in_range(s.tx)) s.raises = Violation::tx_out_of_range;
        s.text += " (count " + std::to_string(s.count) + ")";
        return s;
      }
      case OpCode::mbar_init: {
        // mb::init per executing thread, then the init's write of the
        // barrier's memory (step.cpp: hb::overwrite by the leader).
        s.kind = StepKind::init;
        s.mbar = mbar(op.bar);
        s.count = ev(op.count, 1);
        s.twice = l.count > 1;
        if (s.count < 1 || s.count > mb::max_count) s.raises = Violation::bad_init_count;
        Step::Part part;
        part.buf = f_.first_pseudo + s.mbar;
        part.events.push_back(event(part.buf, true, thread(me.hb.leader()), 0, false));
        s.parts.push_back(part);
        s.text += " " + f_.mbars[static_cast<std::size_t>(s.mbar)] + " count " + std::to_string(s.count);
        return s;
      }
      case OpCode::mbar_inval: {
        s.kind = StepKind::inval;
        s.mbar = mbar(op.bar);
        s.twice = l.count > 1;
        s.text += " " + f_.mbars[static_cast<std::size_t>(s.mbar)];
        // step.cpp, mbar_memory_write: where data is laid over the
        // barrier, the inval is a write of its memory by the leader.
        const int pseudo = f_.first_pseudo + s.mbar;
        if (!f_.aliases[static_cast<std::size_t>(pseudo)].empty()) {
          Step::Part part;
          part.buf = pseudo;
          part.events.push_back(event(pseudo, true, thread(me.hb.leader()), 0, false));
          s.parts.push_back(part);
        }
        return s;
      }
      case OpCode::mbar_expect_tx:
      case OpCode::mbar_complete_tx: {
        s.kind = StepKind::expect_tx;
        const int c = cta(op.bar);
        s.remote = remote(c);
        s.mbar = mbar(op.bar, c);
        const std::int64_t bytes = ev(op.bytes, 0);
        if (!mb::tx_operand_in_range(bytes)) s.raises = Violation::tx_out_of_range;
        s.tx = spec::rules::per_thread_total(bytes, l.count) * (op.code == OpCode::mbar_complete_tx ? -1 : 1);
        s.text += " " + f_.mbars[static_cast<std::size_t>(s.mbar)] + " bytes " + std::to_string(bytes);
        return s;
      }
      case OpCode::fence_mbarrier_init: {
        s.kind = StepKind::fence_init;
        Agent& ag = current_;
        if (ag.fence_sync < 0) ag.fence_sync = extra_sync();
        return s;
      }
      case OpCode::mbar_wait: {
        s.kind = StepKind::wait;
        const int c = cta(op.bar);
        s.mbar = mbar(op.bar, c);
        s.raises = spec::rules::wait_target(c != current_.cta);
        s.parity = static_cast<int>(ev(op.parity, 0) & 1);
        s.sync = spec::ordering::wait_acquires(static_cast<spec::ordering::Sem>(op.sem));
        s.text += " " + f_.mbars[static_cast<std::size_t>(s.mbar)] + " parity " + std::to_string(s.parity) +
                  (op.sem == ir::Sem::relaxed ? " relaxed" : " acquire") + (op.scope == ir::Scope::cluster ? " cluster" : " cta");
        return s;
      }
      case OpCode::clc_try_cancel: {
        // step.cpp: the response is the TMA unit's async-proxy write of 16
        // bytes into each destination CTA's buffer, completing tx on that
        // CTA's barrier when it lands (spec/clc.hpp); one request.
        s.kind = StepKind::clc_cancel;
        const ir::Ref& dst = op.bufs.at(0);
        const std::int64_t mask = ev(op.multicast, std::int64_t{1} << current_.cta);
        s.tx = spec::clc::response_bytes;
        s.unit = thread(me.hb.unit(hb::Unit::tma));
        s.lanes = {thread(me.hb.leader())};
        s.write = true;
        const int request = f_.clc_requests++;
        for (int c = 0; c < p_.ctas; ++c) {
          if (!spec::rules::selects(mask, c)) continue;
          Step::Part part;
          part.buf = buf(dst, c);
          part.remote = remote(c);
          part.mbar = mbar(op.bar, c);
          part.events.push_back(event(part.buf, true, s.unit, 0, true));
          s.tmas.push_back(static_cast<int>(f_.tmas.size()));
          Tma t{a_, index, part.events[0], part.mbar, s.tx};
          t.request = request;
          f_.tmas.push_back(t);
          s.text += (s.parts.empty() ? " " : ", ") + f_.buffers[static_cast<std::size_t>(part.buf)] + " -> " +
                    f_.mbars[static_cast<std::size_t>(part.mbar)];
          s.parts.push_back(part);
        }
        return s;
      }
      case OpCode::clc_query: {
        // step.cpp: ld.shared of the response (a read by the executing
        // lanes), then query_cancel.is_canceled; the unrolling goes on
        // along both answers (run).
        s.kind = StepKind::clc_query;
        s.spread = l.every ? me.parts + 1 : 0;
        Step::Part part;
        part.buf = buf(op.bufs.at(0));
        for (const int t : s.lanes) part.events.push_back(event(part.buf, false, t, s.spread, false));
        s.text += " " + f_.buffers[static_cast<std::size_t>(part.buf)];
        s.parts.push_back(part);
        return s;
      }
      case OpCode::tma_load: {
        // step.cpp: a copy into each CTA the multicast mask selects (its
        // own where none), each completing on that CTA's barrier (or on
        // the one `@ c` names: rules::signalled_cta).
        s.kind = StepKind::tma_load;
        const ir::Ref& dst = op.bufs.at(0);
        const std::int64_t mask = ev(op.multicast, std::int64_t{1} << current_.cta);
        s.tx = ev(op.bytes, p_.kernel->buffers.at(static_cast<std::size_t>(dst.object)).bytes);
        s.raises = spec::rules::bulk_copy_size(s.tx);
        s.unit = thread(me.hb.unit(hb::Unit::tma));
        s.lanes = {thread(me.hb.leader())};
        s.write = true;
        const int named_cta = op.bar.cta == ir::no_expr ? -1 : cta(op.bar);
        for (int c = 0; c < p_.ctas; ++c) {
          if (!spec::rules::selects(mask, c)) continue;
          Step::Part part;
          part.buf = buf(dst, c);
          part.remote = remote(c);
          part.mbar = mbar(op.bar, spec::rules::signalled_cta(c, named_cta));
          part.events.push_back(event(part.buf, true, s.unit, 0, true));
          s.tmas.push_back(static_cast<int>(f_.tmas.size()));
          f_.tmas.push_back(Tma{a_, index, part.events[0], part.mbar, s.tx});
          s.text += (s.parts.empty() ? " " : ", ") + f_.buffers[static_cast<std::size_t>(part.buf)] + " -> " +
                    f_.mbars[static_cast<std::size_t>(part.mbar)];
          s.parts.push_back(part);
        }
        s.text += " (" + std::to_string(s.tx) + " bytes)";
        return s;
      }
      case OpCode::st_async: {
        // step.cpp: each executing thread's store is a generic-proxy write
        // by the agent's TMA unit, in flight; its issue releases the
        // issuers' knowledge and the write into a sync object of its own,
        // moved where a .cluster release goes when it lands (its complete-tx).
        const int c = cta(op.bar);
        const std::int64_t per = ev(op.bytes, 0);
        if (!spec::rules::st_async_bytes_valid(per)) refuse(op, "st_async of " + std::to_string(per) + " bytes per thread");
        s.kind = StepKind::st_async;
        s.remote = remote(c);
        s.mbar = mbar(op.bar, c);
        s.write = true;
        s.spread = l.every ? me.parts + 1 : 0;
        s.unit = thread(me.hb.unit(hb::Unit::tma));
        s.tx = spec::rules::per_thread_total(per, l.count);
        Step::Part part;
        part.buf = buf(op.bufs.at(0), c);
        part.remote = s.remote;
        part.mbar = s.mbar;
        part.events.push_back(event(part.buf, true, s.unit, 0, false));
        s.parts.push_back(part);
        Tma t{a_, index, part.events[0], s.mbar, s.tx};
        t.slot = extra_sync();
        t.into = channel(s.mbar, spec::ordering::st_async_release_scope);
        s.tmas.push_back(static_cast<int>(f_.tmas.size()));
        f_.tmas.push_back(t);
        s.text += " " + f_.buffers[static_cast<std::size_t>(part.buf)] + " -> " + f_.mbars[static_cast<std::size_t>(s.mbar)] + " (" +
                  std::to_string(s.tx) + " bytes)";
        return s;
      }
      case OpCode::bar_sync:
      case OpCode::bar_arrive:
      case OpCode::syncthreads: {
        s.kind = StepKind::bar_sync;
        s.wait = op.code != OpCode::bar_arrive;
        const int id = op.code == OpCode::syncthreads ? 0 : static_cast<int>(ev(op.id, 0));
        s.count = op.code == OpCode::syncthreads ? 0 : ev(op.count, 0);
        spec::named::ArriveArgs args;
        args.id = id;
        args.count = s.count;
        args.threads = me.threads;
        args.cta_threads = p_.cta_threads[static_cast<std::size_t>(current_.cta)];
        args.id0_whole_cta = p_.id0_whole_cta;
        s.raises = spec::named::check_operands(args);
        if (s.raises == Violation::none) {
          int slot = -1;
          for (std::size_t i = 0; i < f_.named_ids.size(); ++i)
            if (f_.named_ids[i] == id && f_.named_cta[i] == current_.cta) slot = static_cast<int>(i);
          if (slot < 0) {
            slot = static_cast<int>(f_.named_ids.size());
            f_.named_ids.push_back(id);
            f_.named_cta.push_back(current_.cta);
          }
          s.named = slot;
        }
        s.text = std::string(s.wait ? "bar_sync " : "bar_arrive ") + std::to_string(id) + (s.count ? ", " + std::to_string(s.count) : "");
        return s;
      }
      case OpCode::wgmma:
      case OpCode::tma_store:
      case OpCode::tma_reduce: {
        // step.cpp: the async unit's read of each source, in the agent's
        // open group; a wgmma's issued by every lane, a store's by the leader.
        const bool mma = op.code == OpCode::wgmma;
        if (mma && spec::rules::wgmma_issue(wgmma_fenced_) != Violation::none) {
          s.kind = StepKind::fail;
          s.raises = spec::rules::wgmma_issue(wgmma_fenced_);
          s.text += " (no wgmma_fence before it)";
          return s;
        }
        s.kind = StepKind::unit_access;
        const int group = spec::async_group::issue(mma ? mma_ : bulk_);
        s.unit = thread(me.hb.unit(mma ? hb::Unit::mma : hb::Unit::bulk));
        if (!mma) s.lanes = {thread(me.hb.leader())};
        unit_parts(s, op, false, true, group);
        return s;
      }
      case OpCode::tcgen05_mma: {
        // step.cpp: the MMA unit's reads of the operands, issued by the
        // leader, in the group the next tcgen05.commit closes: an async-proxy
        // read of each shared-memory operand (another CTA's with `@ c`, which
        // must not have exited), a read of an A operand in tensor memory and
        // a write of the accumulator, in both CTAs of a pair-CTA MMA, each
        // ordered after the unit's earlier accesses (spec::tmem::after_own_unit).
        s.kind = StepKind::unit_access;
        s.unit = thread(me.hb.unit(hb::Unit::mma));
        s.lanes = {thread(me.hb.leader())};
        s.after_own = spec::tmem::after_own_unit(spec::tmem::Async::mma);
        const int pair = spec::tmem::peer(current_.cta);
        if (op.cta_pair) {
          if (pair >= p_.ctas) refuse(op, "a cta_group 2 operation with no peer CTA");
          s.remote = remote(pair);
        }
        const int group = mma_.committed + 1;
        auto add = [&](int b, bool write, bool tensor, int remote_cta) {
          Step::Part part;
          part.buf = b;
          part.remote = remote_cta;
          part.write = write;
          part.events.push_back(event(b, write, s.unit, 0, !tensor));
          f_.events.back().group = group;
          s.text += (s.parts.empty() ? " " : ", ") + f_.buffers[static_cast<std::size_t>(b)];
          s.parts.push_back(part);
        };
        for (const ir::Ref& r : op.bufs) {
          if (p_.tmem_slot[static_cast<std::size_t>(r.object)] < 0) {
            const int c = cta(r);
            add(buf(r, c), false, false, remote(c));
          } else {
            for (const int c : {current_.cta, pair})
              if (c == current_.cta || op.cta_pair) add(buf(r, c), false, true, -1);
          }
        }
        if (op.tmem.object >= 0) {
          s.text += " into";
          for (const int c : {current_.cta, pair})
            if (c == current_.cta || op.cta_pair) add(buf(op.tmem, c), true, true, -1);
        }
        s.text += " (group " + std::to_string(group) + ")";
        return s;
      }
      case OpCode::tcgen05_ld:
      case OpCode::tcgen05_st: {
        // step.cpp: the tensor-memory unit's access for the agent's lanes,
        // in flight until tcgen05.wait::ld / wait::st or
        // tcgen05.fence::before_thread_sync (its events' group is 1).
        const bool st = op.code == OpCode::tcgen05_st;
        s.kind = StepKind::unit_access;
        s.unit = thread(me.hb.unit(hb::Unit::tmem));
        s.lanes = threads(me.hb.lanes());
        s.async_proxy = false;
        s.write = st;
        for (const ir::Ref& r : op.bufs) {
          if (p_.tmem_slot[static_cast<std::size_t>(r.object)] < 0) refuse(op, "tcgen05.ld or tcgen05.st of shared memory");
          Step::Part part;
          part.buf = buf(r);
          part.events.push_back(event(part.buf, st, s.unit, 0, false));
          f_.events.back().group = 1;
          s.text += (s.parts.empty() ? " " : ", ") + f_.buffers[static_cast<std::size_t>(part.buf)];
          s.parts.push_back(part);
        }
        return s;
      }
      case OpCode::tcgen05_wait_ld:
      case OpCode::tcgen05_wait_st:
      case OpCode::tcgen05_fence_before: {
        // step.cpp: hb::retire_kind of the tensor-memory unit's reads
        // (wait::ld), writes (wait::st) or both (fence::before_thread_sync,
        // spec::tmem::before_thread_sync_orders) for the lanes.
        s.kind = StepKind::retire;
        s.unit = thread(me.hb.unit(hb::Unit::tmem));
        s.upto = 1;
        s.only = op.code == OpCode::tcgen05_wait_ld ? 0 : op.code == OpCode::tcgen05_wait_st ? 1 : -1;
        s.to = op.code == OpCode::tcgen05_fence_before ? s.lanes : threads(me.hb.lanes());
        return s;
      }
      case OpCode::tcgen05_alloc:
      case OpCode::tcgen05_dealloc:
      case OpCode::tcgen05_relinquish: {
        // spec/tmem.hpp: alloc, dealloc, relinquish by one warp, or with
        // cta_group 2 a collective of one warp in each CTA of the pair
        // (step.cpp, tmem_alloc and tmem_pair).
        namespace tm = spec::tmem;
        const bool relinquish = op.code == OpCode::tcgen05_relinquish;
        s.tmem_op = static_cast<int>(op.code == OpCode::tcgen05_alloc     ? tm::PairOp::alloc
                                     : op.code == OpCode::tcgen05_dealloc ? tm::PairOp::dealloc
                                                                          : tm::PairOp::relinquish);
        s.kind = op.cta_pair ? StepKind::tmem_pair : StepKind::tmem_alloc;
        s.lanes = threads(me.hb.lanes());
        const ir::BufferDecl* d = relinquish ? nullptr : &p_.kernel->buffers.at(static_cast<std::size_t>(op.tmem.object));
        if (d != nullptr) {
          s.slot = p_.tmem_slot[static_cast<std::size_t>(op.tmem.object)];
          s.cols = d->cols * d->size;
          s.text += " " + d->name;
        }
        // The allocation's elements in CTA c, each written by `leader`.
        auto elements = [&](int c, int leader) {
          for (int e = 0; e < d->size; ++e) {
            Step::Part part;
            part.buf = c * p_.buffers_per_cta + p_.buffer_base[static_cast<std::size_t>(op.tmem.object)] + e;
            part.events.push_back(event(part.buf, true, leader, 0, false));
            s.parts.push_back(part);
          }
        };
        if (d != nullptr) elements(current_.cta, thread(me.hb.leader()));
        if (!op.cta_pair) return s;
        s.text += " cta_group 2";
        const int pair = tm::peer(current_.cta);
        if (pair >= p_.ctas) refuse(op, "a cta_group 2 operation with no peer CTA");
        // Per warp of the peer CTA that may be the other of the pair, the
        // elements there, written by its leader (none: never performed).
        s.peer_agents = pair_agents(pair);
        for (const int b : s.peer_agents) {
          s.peer_lanes.push_back(threads(p_.agents[static_cast<std::size_t>(b)].hb.lanes()));
          if (d != nullptr) elements(pair, thread(p_.agents[static_cast<std::size_t>(b)].hb.leader()));
        }
        return s;
      }
      case OpCode::tcgen05_commit:
      case OpCode::cp_async_mbarrier_arrive: {
        // step.cpp: an arrive-on that lands when the operations it tracks
        // finish (Pending): a tcgen05.commit's, by the leader, on the
        // barrier of each CTA its mask selects, tracks the MMA unit's groups
        // up to the one it closes; a cp.async.mbarrier.arrive's, on its own
        // CTA's barrier, every copy of the cp_async unit, with one arrival
        // per thread (and, without noinc, as many pending counts added now).
        const bool tc = op.code == OpCode::tcgen05_commit;
        s.kind = StepKind::async_arrive;
        s.async_proxy = tc;
        s.unit = thread(me.hb.unit(tc ? hb::Unit::mma : hb::Unit::cp_async));
        if (tc) {
          s.lanes = {thread(me.hb.leader())};
          s.upto = spec::async_group::commit(mma_);
        } else if (!op.noinc) {
          s.count = l.count;
        }
        const std::int64_t mask = tc ? ev(op.multicast, std::int64_t{1} << current_.cta) : std::int64_t{1} << current_.cta;
        for (int c = 0; c < p_.ctas; ++c) {
          if (!spec::rules::selects(mask, c)) continue;
          Step::Part part;
          part.remote = remote(c);
          part.mbar = mbar(op.bar, c);
          Tma t{a_, index, -1, part.mbar, 0};
          t.arrivals = tc ? 1 : l.count;
          t.commit = tc ? s.upto : 0;
          t.slot = extra_sync();
          s.tmas.push_back(static_cast<int>(f_.tmas.size()));
          f_.tmas.push_back(t);
          s.text += (s.parts.empty() ? " " : ", ") + f_.mbars[static_cast<std::size_t>(part.mbar)];
          s.parts.push_back(part);
        }
        if (op.noinc) s.text += " noinc";
        return s;
      }
      case OpCode::wgmma_wait:
      case OpCode::bulk_wait_group:
      case OpCode::bulk_wait_group_read: {
        // step.cpp: hb::retire; the wgmma groups order the agent's lanes, a
        // bulk wait the waiting (leader) thread.
        const bool mma = op.code == OpCode::wgmma_wait;
        s.kind = StepKind::retire;
        s.upto = spec::async_group::wait(mma ? mma_ : bulk_, ev(op.n, 0));
        s.unit = thread(me.hb.unit(mma ? hb::Unit::mma : hb::Unit::bulk));
        s.to = mma ? threads(me.hb.lanes()) : std::vector<int>{thread(me.hb.leader())};
        s.text += " " + std::to_string(ev(op.n, 0)) + " (groups up to " + std::to_string(s.upto) + " complete)";
        return s;
      }
      case OpCode::global_load_lds: {
        // step.cpp: a gather into LDS, the cp_async unit's generic-proxy
        // write, numbered by VM_CNT (spec/amd.hpp, vm_issue).
        wave_ = spec::amd::vm_issue(wave_);
        s.kind = StepKind::unit_access;
        s.write = true;
        s.async_proxy = false;
        s.spread = l.every ? me.parts + 1 : 0;
        s.unit = thread(me.hb.unit(hb::Unit::cp_async));
        Step::Part part;
        part.buf = buf(op.bufs.at(0));
        part.events.push_back(event(part.buf, true, s.unit, 0, false));
        f_.events.back().group = wave_.vm_issued;
        s.text += " " + f_.buffers[static_cast<std::size_t>(part.buf)] + " (load " + std::to_string(wave_.vm_issued) + ")";
        s.parts.push_back(part);
        return s;
      }
      case OpCode::cp_async: {
        // step.cpp: each copy is the cp_async unit's generic-proxy write in
        // the lanes' open cp.async-group.
        s.kind = StepKind::unit_access;
        s.write = true;
        s.async_proxy = false;
        s.spread = l.every ? me.parts + 1 : 0;
        s.unit = thread(me.hb.unit(hb::Unit::cp_async));
        const int group = spec::async_group::issue(cp_);
        unit_parts(s, op, true, false, group);
        return s;
      }
      case OpCode::cp_async_wait:
      case OpCode::cp_async_wait_all: {
        // step.cpp: wait_all is a commit, then wait_group 0; the retired
        // groups' writes are ordered before the waiting lanes.
        const std::int64_t n = op.code == OpCode::cp_async_wait ? ev(op.n, 0) : 0;
        if (op.code == OpCode::cp_async_wait_all) (void)spec::async_group::commit(cp_);
        s.kind = StepKind::retire;
        s.upto = spec::async_group::wait(cp_, n);
        s.unit = thread(me.hb.unit(hb::Unit::cp_async));
        s.to = s.lanes;
        s.text += " (groups up to " + std::to_string(s.upto) + " complete)";
        return s;
      }
      case OpCode::s_waitcnt: {
        // spec/amd.hpp, waitcnt; then hb::retire of the loads it covers.
        wave_ = spec::amd::waitcnt(wave_, check::waitcnt_operands(p_, op, vars_.data()));
        s.kind = StepKind::retire;
        s.upto = wave_.vm_done;
        s.unit = thread(me.hb.unit(hb::Unit::cp_async));
        s.to = threads(me.hb.lanes());
        s.text += " (loads up to " + std::to_string(s.upto) + " complete)";
        return s;
      }
      case OpCode::s_barrier:
      case OpCode::s_barrier_signal:
      case OpCode::s_barrier_wait: {
        // spec/amd.cpp, signal and wait: what they check of the wave's own
        // counters and split state is decided here; the barrier's instance
        // is the search's (named slot 0).
        s.kind = StepKind::amd_barrier;
        s.signal = op.code != OpCode::s_barrier_wait;
        s.wait = op.code != OpCode::s_barrier_signal;
        spec::amd::Barrier any;
        if (s.signal) {
          const spec::amd::Result r = spec::amd::signal(any, wave_);
          s.raises = r.out.violation;
          wave_ = r.wave;
        }
        if (s.wait && s.raises == Violation::none) {
          any.generation = wave_.joined + 1;
          const spec::amd::Result r = spec::amd::wait(any, wave_);
          s.raises = r.out.violation;
          wave_ = r.wave;
        }
        s.named = 0;
        return s;
      }
      case OpCode::fence_proxy_async: s.kind = StepKind::proxy_fence; return s;
      case OpCode::cluster_arrive:
      case OpCode::cluster_wait:
      case OpCode::cluster_sync: {
        // spec/cluster.cpp: whether the agent arrives twice, or waits
        // without arriving, depends on its own sequence alone (its Ticket).
        s.kind = StepKind::cluster_barrier;
        s.arrive = op.code != OpCode::cluster_wait;
        s.wait = op.code != OpCode::cluster_arrive;
        s.sync = spec::ordering::cluster_arrive_releases(static_cast<spec::ordering::Sem>(op.sem));
        spec::cluster::State any;
        spec::cluster::Ticket ticket = cluster_joined_ ? 1 : 0;
        if (s.arrive) {
          const spec::cluster::Result r = spec::cluster::arrive(any, ticket, 1, 2);
          s.raises = r.out.violation;
          ticket = r.ticket;
        }
        if (s.wait && s.raises == Violation::none) {
          any.generation = ticket;
          const spec::cluster::Result r = spec::cluster::wait(any, ticket);
          s.raises = r.out.violation;
          ticket = r.ticket;
        }
        cluster_joined_ = ticket != 0;
        if (op.sem == ir::Sem::relaxed) s.text += " relaxed";
        return s;
      }
      case OpCode::syncwarp: {
        s.kind = StepKind::syncwarp;
        for (int w = 0; w < me.warps; ++w) s.warps.emplace_back(thread(me.hb.leader(w)), thread(me.hb.rest(w)));
        return s;
      }
      default: refuse(op, std::string("operation '") + std::string(ir::op_keyword(op.code)) + "'");
    }
  }
};

}  // namespace

Fragment unroll(const ir::Kernel& k) {
  Fragment f;
  const check::Program p = check::instantiate(k);
  if (k.target == ir::Target::amd) {
    f.amd = true;
    f.named_ids.push_back(0);  // the workgroup barrier
    f.named_cta.push_back(0);
  }
  f.ctas = p.ctas;
  f.clc_queue = k.clc_queue;
  f.tmem_slots = p.tmem_decls;
  f.slot_cols.assign(static_cast<std::size_t>(p.tmem_decls), 0);
  for (std::size_t d = 0; d < k.buffers.size(); ++d)
    if (p.tmem_slot[d] >= 0) f.slot_cols[static_cast<std::size_t>(p.tmem_slot[d])] = k.buffers[d].cols * k.buffers[d].size;
  for (int b = 0; b < p.num_buffers(); ++b) {
    f.buffer_slot.push_back(p.tmem_slot[static_cast<std::size_t>(p.buffer_decl(b))]);
    f.buffers.push_back(p.buffer_name(b));
    f.buffer_cta.push_back(p.buffer_cta(b));
    f.aliases.emplace_back(p.aliases_of(b).begin(), p.aliases_of(b).end());
  }
  f.first_pseudo = p.num_buffers();
  for (int m = 0; m < p.num_mbars(); ++m) {
    f.buffers.push_back("the memory of " + p.mem_name(p.mbar_pseudo_buffer(m)));
    f.buffer_slot.push_back(-1);
    f.aliases.emplace_back(p.aliases_of(p.mbar_pseudo_buffer(m)).begin(), p.aliases_of(p.mbar_pseudo_buffer(m)).end());
    f.mbars.push_back(p.mbar_name(m));
    const std::size_t decl = static_cast<std::size_t>(p.mbar_decl(m));
    f.mbar_count.push_back(std::max<std::int64_t>(k.mbarriers[decl].count, 0));
    f.mbar_kernel_inits.push_back(p.mbar_has_init[decl]);
    f.mbar_cta.push_back(p.mbar_cta(m));
    f.buffer_cta.push_back(p.mbar_cta(m));
    // Program's channels of releases from other CTAs (step.cpp, channel_sync).
    const std::size_t mi = static_cast<std::size_t>(m);
    f.mbar_cluster_sync.push_back(p.mbar_cluster_sync[mi] >= 0 ? f.extra_syncs++ : -1);
    f.mbar_weak_sync.push_back(p.mbar_weak_sync[mi] >= 0 ? f.extra_syncs++ : -1);
  }
  if (p.ctas > 1) f.cluster_sync = f.extra_syncs++;
  try {
    Unroller u(p, f);
    for (int a = 0; a < static_cast<int>(p.agents.size()); ++a) u.agent(a);
    f.lane.assign(f.threads.size(), false);
    for (const Agent& a : f.agents)
      for (const int t : a.lanes) f.lane[static_cast<std::size_t>(t)] = true;
  } catch (const Refused& r) {
    Fragment out;
    out.refused = r.why;
    return out;
  }
  return f;
}

}  // namespace pc::smt::bmc
