#include "checker/smt/bmc_fragment.hpp"

#include <algorithm>
#include <map>

#include "checker/program.hpp"
#include "spec/amd.hpp"
#include "spec/async_group.hpp"
#include "spec/mbarrier.hpp"
#include "spec/named_barrier.hpp"
#include "spec/ordering.hpp"
#include "spec/rules.hpp"

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
    out.threads = info.threads;
    vars_.assign(role.vars.size(), 0);
    bulk_ = {};
    mma_ = {};
    wave_ = {};
    wgmma_fenced_ = false;
    out.lanes = threads(info.hb.lanes());
    if (f_.amd && spec::amd::wave_lanes_in_lockstep)
      for (int w = 0; w < info.warps; ++w) out.lockstep.emplace_back(thread(info.hb.leader(w)), thread(info.hb.rest(w)));
    vars_[ir::var_cta] = info.cta;
    vars_[ir::var_instance] = info.instance;
    vars_[ir::var_warp] = info.warp;
    const std::vector<Instr>& code = p_.code[static_cast<std::size_t>(info.role)];
    std::size_t pc = 0;
    ir::Loc exit_loc = role.loc;
    for (int n = 0; pc < code.size(); ++n) {
      if (n > max_instructions)
        throw Refused{info.name + " runs more than " + std::to_string(max_instructions) + " instructions"};
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
              in.op->code == OpCode::bulk_commit_group) {
            agent_local(*in.op);
          } else {
            out.steps.push_back(op(*in.op, static_cast<int>(out.steps.size())));
          }
          ++pc;
          break;
      }
    }
    out.reads_at_exit = spec::async_group::in_flight(bulk_) || spec::async_group::in_flight(mma_);
    out.signaled_at_exit = wave_.signaled;
    Step exit;
    exit.kind = StepKind::exit;
    exit.loc = exit_loc;
    exit.text = "exit";
    out.steps.push_back(exit);
    f_.agents.push_back(std::move(out));
  }

 private:
  const check::Program& p_;
  Fragment& f_;
  int a_ = 0;
  Agent current_;  // the agent being unrolled
  spec::async_group::Groups bulk_, mma_;  // its async-groups (step.cpp: AgentState::bulk, mma)
  spec::amd::Wave wave_;                  // AMD: its counters and split-barrier state
  bool wgmma_fenced_ = false;

  // The operations no other agent sees: a wgmma_fence, a commit.
  void agent_local(const ir::Op& op) {
    if (op.code == OpCode::wgmma_fence) wgmma_fenced_ = true;
    else (void)spec::async_group::commit(op.code == OpCode::wgmma_commit ? mma_ : bulk_);
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
    if (r.cta != ir::no_expr) throw Refused{"line " + std::to_string(r.loc.line) + ": an operand of another CTA (@)"};
    const std::int64_t i = ev(r.index, 0);
    if (i < 0 || i >= size) throw check::KernelError("index " + std::to_string(i) + " is outside its array", r.loc);
    return static_cast<int>(i);
  }
  int mbar(const ir::Ref& r) const {
    const ir::MbarrierDecl& d = p_.kernel->mbarriers.at(static_cast<std::size_t>(r.object));
    return p_.mbar_base[static_cast<std::size_t>(r.object)] + element(r, d.size);
  }
  int buf(const ir::Ref& r) const {
    const ir::BufferDecl& d = p_.kernel->buffers.at(static_cast<std::size_t>(r.object));
    return p_.buffer_base[static_cast<std::size_t>(r.object)] + element(r, d.size);
  }
  int event(int b, bool write, int thread, int spread, bool async) {
    f_.events.push_back(Event{b, write, thread, spread, async});
    return static_cast<int>(f_.events.size()) - 1;
  }

  Step op(const ir::Op& op, int index) {
    const check::AgentInfo& me = p_.agents[static_cast<std::size_t>(a_)];
    const check::Lanes l = check::lanes_of(op, me);
    Step s;
    s.loc = op.loc;
    s.lanes = threads(l.threads);
    const bool choice = ir::op_lanes(op.code) == ir::LanePolicy::any;
    const std::string prefix = op.lanes == ir::Lanes::one ? "one: " : op.lanes == ir::Lanes::each ? "each: " : choice ? "all: " : "";
    s.text = prefix + std::string(ir::op_keyword(op.code));
    if (op.dest_var >= 0 || op.token_var >= 0) refuse(op, "an operation whose result is kept in a variable");
    switch (op.code) {
      case OpCode::read:
      case OpCode::write: {
        s.kind = StepKind::access;
        s.write = op.code == OpCode::write;
        s.spread = l.every ? me.parts + 1 : 0;
        for (const ir::Ref& r : op.bufs) {
          Step::Part part;
          part.buf = buf(r);
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
        s.mbar = mbar(op.bar);
        s.count = spec::rules::per_thread_total(ev(op.count, 1), l.count);
        s.sync = spec::ordering::arrive_releases(static_cast<spec::ordering::Sem>(op.sem));
        s.text += " " + f_.mbars[static_cast<std::size_t>(s.mbar)];
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
      case OpCode::mbar_inval:
        s.kind = StepKind::inval;
        s.mbar = mbar(op.bar);
        s.twice = l.count > 1;
        s.text += " " + f_.mbars[static_cast<std::size_t>(s.mbar)];
        return s;
      case OpCode::mbar_expect_tx:
      case OpCode::mbar_complete_tx: {
        s.kind = StepKind::expect_tx;
        s.mbar = mbar(op.bar);
        const std::int64_t bytes = ev(op.bytes, 0);
        if (!mb::tx_operand_in_range(bytes)) s.raises = Violation::tx_out_of_range;
        s.tx = spec::rules::per_thread_total(bytes, l.count) * (op.code == OpCode::mbar_complete_tx ? -1 : 1);
        s.text += " " + f_.mbars[static_cast<std::size_t>(s.mbar)] + " bytes " + std::to_string(bytes);
        return s;
      }
      case OpCode::fence_mbarrier_init: {
        s.kind = StepKind::fence_init;
        Agent& ag = current_;
        if (ag.fence_sync < 0) ag.fence_sync = f_.fence_syncs++;
        return s;
      }
      case OpCode::mbar_wait: {
        s.kind = StepKind::wait;
        s.mbar = mbar(op.bar);
        s.parity = static_cast<int>(ev(op.parity, 0) & 1);
        s.sync = spec::ordering::wait_acquires(static_cast<spec::ordering::Sem>(op.sem));
        s.text += " " + f_.mbars[static_cast<std::size_t>(s.mbar)] + " parity " + std::to_string(s.parity);
        return s;
      }
      case OpCode::tma_load: {
        if (op.multicast != ir::no_expr) refuse(op, "a multicast TMA load");
        s.kind = StepKind::tma_load;
        const ir::Ref& dst = op.bufs.at(0);
        const int b = buf(dst);
        s.mbar = mbar(op.bar);
        s.tx = ev(op.bytes, p_.kernel->buffers.at(static_cast<std::size_t>(dst.object)).bytes);
        s.raises = spec::rules::bulk_copy_size(s.tx);
        s.unit = thread(me.hb.unit(hb::Unit::tma));
        s.write = true;
        Step::Part part;
        part.buf = b;
        part.events.push_back(event(b, true, s.unit, 0, true));
        s.parts.push_back(part);
        s.tma = static_cast<int>(f_.tmas.size());
        f_.tmas.push_back(Tma{a_, index, part.events[0], s.mbar, s.tx});
        s.text += " " + f_.buffers[static_cast<std::size_t>(b)] + " -> " + f_.mbars[static_cast<std::size_t>(s.mbar)] + " (" +
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
        args.cta_threads = p_.cta_threads[0];
        args.id0_whole_cta = p_.id0_whole_cta;
        s.raises = spec::named::check_operands(args);
        if (s.raises == Violation::none) {
          int slot = -1;
          for (std::size_t i = 0; i < f_.named_ids.size(); ++i)
            if (f_.named_ids[i] == id) slot = static_cast<int>(i);
          if (slot < 0) {
            slot = static_cast<int>(f_.named_ids.size());
            f_.named_ids.push_back(id);
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
        for (const ir::Ref& r : op.bufs) {
          Step::Part part;
          part.buf = buf(r);
          part.events.push_back(event(part.buf, false, s.unit, 0, true));
          f_.events.back().group = group;
          s.text += (s.parts.empty() ? " " : ", ") + f_.buffers[static_cast<std::size_t>(part.buf)];
          s.parts.push_back(part);
        }
        s.text += " (group " + std::to_string(group) + ")";
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
      case OpCode::s_waitcnt: {
        // spec/amd.hpp, waitcnt; then hb::retire of the loads it covers.
        auto counter = [&](ir::ExprId e, std::uint32_t max) {
          if (e == ir::no_expr) return spec::amd::no_wait;
          const std::int64_t v = ev(e);
          if (v < 0 || v > max)
            throw check::KernelError("an s_waitcnt counter is " + std::to_string(v) + "; it must be in 0.." + std::to_string(max), op.loc);
          return static_cast<std::uint32_t>(v);
        };
        const spec::amd::Gfx gfx = p_.kernel->gfx;
        wave_ = spec::amd::waitcnt(wave_, spec::amd::Waitcnt{counter(op.n, spec::amd::max_vmcnt(gfx)),
                                                             counter(op.count, spec::amd::max_lgkmcnt(gfx))});
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
  }
  if (p.ctas != 1) {
    f.refused = "a cluster of " + std::to_string(p.ctas) + " CTAs";
    return f;
  }
  for (const ir::BufferDecl& b : k.buffers)
    if (b.space != ir::Space::shared) {
      f.refused = "line " + std::to_string(b.loc.line) + ": buffer " + b.name + " (tensor memory)";
      return f;
    }
  for (const ir::MbarrierDecl& m : k.mbarriers)
    if (m.alias.of >= 0) {
      f.refused = "line " + std::to_string(m.loc.line) + ": mbarrier " + m.name + " (laid over memory)";
      return f;
    }
  for (int b = 0; b < p.num_buffers(); ++b) {
    f.buffers.push_back(p.buffer_name(b));
    f.aliases.emplace_back(p.aliases_of(b).begin(), p.aliases_of(b).end());
  }
  f.first_pseudo = p.num_buffers();
  for (int m = 0; m < p.num_mbars(); ++m) {
    f.buffers.push_back("the memory of " + p.mem_name(p.mbar_pseudo_buffer(m)));
    f.aliases.emplace_back();
    f.mbars.push_back(p.mbar_name(m));
    const std::size_t decl = static_cast<std::size_t>(p.mbar_decl(m));
    f.mbar_count.push_back(std::max<std::int64_t>(k.mbarriers[decl].count, 0));
    f.mbar_kernel_inits.push_back(p.mbar_has_init[decl]);
  }
  f.cta_threads = p.cta_threads[0];
  try {
    Unroller u(p, f);
    for (int a = 0; a < static_cast<int>(p.agents.size()); ++a) u.agent(a);
  } catch (const Refused& r) {
    Fragment out;
    out.refused = r.why;
    return out;
  }
  return f;
}

}  // namespace pc::smt::bmc
