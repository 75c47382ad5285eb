#include "checker/smt/bmc_fragment.hpp"

#include <map>

#include "checker/program.hpp"
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
    Agent out;
    out.name = info.name;
    out.threads = info.threads;
    vars_.assign(role.vars.size(), 0);
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
          out.steps.push_back(op(*in.op, static_cast<int>(out.steps.size())));
          ++pc;
          break;
      }
    }
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
  if (k.target != ir::Target::nvidia) {
    f.refused = "an AMD kernel";
    return f;
  }
  const check::Program p = check::instantiate(k);
  if (p.ctas != 1) {
    f.refused = "a cluster of " + std::to_string(p.ctas) + " CTAs";
    return f;
  }
  for (const ir::BufferDecl& b : k.buffers)
    if (b.space != ir::Space::shared || b.alias.of >= 0) {
      f.refused = "line " + std::to_string(b.loc.line) + ": buffer " + b.name + " (tensor memory, or laid over another)";
      return f;
    }
  for (const ir::MbarrierDecl& m : k.mbarriers)
    if (m.count <= 0 || m.alias.of >= 0) {
      f.refused = "line " + std::to_string(m.loc.line) + ": mbarrier " + m.name + " (initialised by the kernel, or laid over memory)";
      return f;
    }
  for (int b = 0; b < p.num_buffers(); ++b) f.buffers.push_back(p.buffer_name(b));
  for (int m = 0; m < p.num_mbars(); ++m) {
    f.mbars.push_back(p.mbar_name(m));
    f.mbar_count.push_back(k.mbarriers[static_cast<std::size_t>(p.mbar_decl(m))].count);
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
