#include "checker/footprint.hpp"

#include <algorithm>
#include <bit>
#include <optional>

#include "checker/step.hpp"
#include "spec/agent.hpp"

namespace pc::check {
namespace {

using ir::OpCode;

// 2,048 resources: the sets are on the stack of persistent(), filled only as
// far as a kernel uses (a kernel of 600 resources fills 10 words of each).
constexpr int max_words = 32;

}  // namespace

// The buffer instances only one agent touches, and only with plain reads
// and writes (read, write, consume: synchronous, the agent's own step): no
// async operation (a copy, an MMA, a TMA store: its landing is another
// process), no tensor map, and no alias (another declaration over the same
// bytes, an mbarrier under them) that another agent or such an operation
// touches. No other process's step touches them, so an access of one
// commutes with every step of every other process and needs no resource: a
// compiled kernel's epilogue stores each warp's own bytes, thousands of
// buffers, which the resource sets could not hold (max_words). What an
// agent may touch: the operations it may reach, a test of its builtins
// alone going one way (`if warp == 1:`, as the future rows below), each
// reference for every element it may name where its index is not known
// from the builtins (and for every CTA, where it names another CTA).
// Per instance: true where it is shared (needs a resource).
std::vector<bool> Footprints::shared_buffers() {
  const Program& p = p_;
  constexpr int none = -1, shared = -2;
  std::vector<int> owner(static_cast<std::size_t>(p.num_buffers()), none);
  auto own = [&](int inst, int agent) {
    int& o = owner[static_cast<std::size_t>(inst)];
    o = o == none || o == agent ? agent : shared;
  };
  for (std::size_t a = 0; a < p.agents.size(); ++a) {
    const AgentInfo& ag = p.agents[a];
    builtins_.assign(3, 0);
    builtins_[ir::var_cta] = ag.cta;
    builtins_[ir::var_instance] = ag.instance;
    builtins_[ir::var_warp] = ag.warp;
    const std::vector<Instr>& code = p.code[static_cast<std::size_t>(ag.role)];
    std::vector<char> reached(code.size() + 1, 0);
    std::vector<int> work{0};
    while (!work.empty()) {
      const int pc = work.back();
      work.pop_back();
      if (pc < 0 || static_cast<std::size_t>(pc) >= code.size() || reached[static_cast<std::size_t>(pc)]) continue;
      reached[static_cast<std::size_t>(pc)] = 1;
      const Instr& in = code[static_cast<std::size_t>(pc)];
      std::int64_t v = 0;
      if (in.kind == InstrKind::jump) work.push_back(in.target);
      else if (in.kind == InstrKind::choose) work.push_back(pc + 1), work.push_back(in.target);
      else if (in.kind != InstrKind::branch_false) work.push_back(pc + 1);
      else if (builtin_only(in.expr) && known(in.expr, builtins_.data(), v)) work.push_back(v != 0 ? pc + 1 : in.target);
      else work.push_back(pc + 1), work.push_back(in.target);
    }
    for (std::size_t pc = 0; pc < code.size(); ++pc) {
      const Instr& in = code[pc];
      if (!reached[pc] || in.kind != InstrKind::op) continue;
      const ir::Op& op = *in.op;
      const bool plain = op.code == OpCode::read || op.code == OpCode::write || op.code == OpCode::consume;
      auto ref = [&](const ir::Ref& r) {
        if (r.object < 0) return;
        const int size = p.kernel->buffers[static_cast<std::size_t>(r.object)].size;
        std::int64_t i = 0, c = 0;
        const bool one = plain && (r.index == ir::no_expr || (known(r.index, builtins_.data(), i) && i >= 0 && i < size));
        const bool own_cta = plain && (r.cta == ir::no_expr || (known(r.cta, builtins_.data(), c) && c == ag.cta - p.grid_first(ag.cta)));
        const int first = p.grid_first(ag.cta);
        for (int x = first; x < first + p.cluster_ctas; ++x) {
          if (own_cta && x != ag.cta && !p.global_decl(r.object)) continue;
          for (int e = one ? static_cast<int>(i) : 0; e < (one ? static_cast<int>(i) + 1 : size); ++e) {
            const int inst = p.buffer_at(x, r.object, e);
            if (plain) own(inst, static_cast<int>(a));
            else owner[static_cast<std::size_t>(inst)] = shared;
          }
        }
      };
      for (const ir::Ref& r : op.bufs) ref(r);
      for (const ir::Ref* r : {&op.global, &op.tmem, &op.tmap}) ref(*r);
    }
  }
  for (std::size_t b = 0; b < p.tensormap_buffer.size() && b < owner.size(); ++b)
    if (p.tensormap_buffer[b]) owner[b] = shared;
  // An alias: one agent's plain accesses of both, or shared, to a fixed point.
  for (bool changed = !p.aliases.empty(); changed;) {
    changed = false;
    for (int b = 0; b < p.num_buffers(); ++b)
      for (const std::uint16_t o : p.aliases_of(b)) {
        int& x = owner[static_cast<std::size_t>(b)];
        const int y = o < p.num_buffers() ? owner[o] : shared;  // an mbarrier's bytes
        const int merged = x == none ? (y == shared ? shared : x) : y == none || y == x ? x : shared;
        if (merged != x) x = merged, changed = true;
        if (o < p.num_buffers() && merged == shared && owner[o] != shared) owner[o] = shared, changed = true;
      }
  }
  std::vector<bool> out(owner.size());
  for (std::size_t i = 0; i < owner.size(); ++i) out[i] = owner[i] == shared;
  return out;
}

Footprints::Footprints(const Program& p) : p_(p), phases_(p) {
  const int ctas = p.ctas;
  mbar_base_ = 0;
  buf_base_ = mbar_base_ + p.num_mbars();
  buf_res_.assign(static_cast<std::size_t>(p.num_buffers()), -1);
  int shared = 0;
  const std::vector<bool> needs = shared_buffers();
  for (std::size_t i = 0; i < needs.size(); ++i)
    if (needs[i]) buf_res_[i] = buf_base_ + shared++;
  named_base_ = buf_base_ + shared;  // per CTA: its named-barrier slots (program.hpp, named_slot)
  alive_base_ = named_base_ + ctas * p.named_used;
  cluster_ = alive_base_ + ctas;
  commits_base_ = cluster_ + 1;
  tmem_base_ = commits_base_ + static_cast<int>(p.agents.size());  // per CTA: its tensor-memory allocator
  // per CTA: its allocator's permit and the pair's collective in flight
  // (spec::tmem::Cta's `relinquished`, `pair`), which the uses of the
  // allocations do not read
  tmem_pair_base_ = tmem_base_ + ctas;
  clc_ = tmem_pair_base_ + ctas;  // cluster launch control: the clusters left, the requests
  clc_seen_ = clc_ + 1;           // the failures each CTA observed (spec::clc::State::failed_seen)
  cluster_join_ = clc_seen_ + 1;  // read by an arrive on the cluster barrier, written by none (`quiet_cluster`)
  // per agent: the wgmma its warp group joins, where it is the group's
  // first warp in a role split per warp (a join counts on it, a pass reads it)
  wgmma_join_ = cluster_join_ + 1;
  group_first_.resize(p.agents.size());
  for (std::size_t a = 0; a < p.agents.size(); ++a) {
    const AgentInfo& me = p.agents[a];
    group_first_[a] = static_cast<int>(a);
    for (std::size_t b = 0; b < a; ++b) {
      const AgentInfo& o = p.agents[b];
      if (o.role == me.role && o.cta == me.cta && o.instance == me.instance && o.warp / 4 == me.warp / 4) {
        group_first_[a] = static_cast<int>(b);
        break;
      }
    }
  }
  count_ = wgmma_join_ + static_cast<int>(p.agents.size());
  const int words = (count_ + 63) / 64;
  if (words > max_words) return;  // unusable: words_ stays 0 (unusable_reason)
  words_ = words;
  auto resource = [&](int mem_buf) {
    return mem_buf < p.num_buffers() ? buf(mem_buf) : mbar_base_ + (mem_buf - p.num_buffers());
  };
  for (int b = 0; b < static_cast<int>(p.aliases.size()); ++b) {
    if (p.aliases[static_cast<std::size_t>(b)].empty() || resource(b) < 0) continue;
    std::vector<int> others;
    for (const std::uint16_t o : p.aliases[static_cast<std::size_t>(b)])
      if (resource(o) >= 0) others.push_back(resource(o));
    alias_res_.emplace_back(resource(b), std::move(others));
  }
  for (const AgentInfo& a : p.agents) {
    bool arrives_alone = false;
    for (const Instr& in : p.code[static_cast<std::size_t>(a.role)])
      arrives_alone |= in.kind == InstrKind::op && in.op->code == OpCode::cluster_arrive;
    cluster_arrive_.push_back(arrives_alone);
  }
  // The named-barrier slots an exit may complete (spec::named::on_exit: an
  // instance given no thread count, or a bar.sync's count of 0
  // (spec::named::whole_cta), waits for the CTA's non-exited threads; AMD's
  // workgroup barrier counts the waves that have not exited).
  whole_slot_.assign(static_cast<std::size_t>(p.named_used), p.kernel->target == ir::Target::amd);
  whole_only_.assign(static_cast<std::size_t>(p.named_used), p.kernel->target != ir::Target::amd);
  for (const AgentInfo& a : p.agents) {
    cta_of_.push_back(a.cta);
    for (const Instr& in : p.code[static_cast<std::size_t>(a.role)]) {
      if (in.kind != InstrKind::op || !ir::op_uses_named_barrier(in.op->code)) continue;
      std::int64_t count = 0, slot_id = 0;
      const bool surely_whole = ir::named_surely_whole(*in.op, in.op->count != ir::no_expr && known(in.op->count, nullptr, count) && count == 0);
      if (!surely_whole || ir::op_family(in.op->code) == ir::OpFamily::amd) {
        if (in.op->id == ir::no_expr || (known(in.op->id, nullptr, slot_id) && slot_id >= 0 && slot_id < spec::named::num_ids)) {
          const int slot = p.named_slot[static_cast<std::size_t>(slot_id)];
          if (slot >= 0) whole_only_[static_cast<std::size_t>(slot)] = false;
        } else {
          whole_only_.assign(whole_only_.size(), false);
        }
      }
      if (!ir::named_may_be_whole(*in.op, in.op->count != ir::no_expr && known(in.op->count, nullptr, count) && count != 0)) continue;
      std::int64_t id = 0;
      if (in.op->id == ir::no_expr || (known(in.op->id, nullptr, id) && id >= 0 && id < spec::named::num_ids)) {
        const int slot = p.named_slot[static_cast<std::size_t>(id)];
        if (slot >= 0) whole_slot_[static_cast<std::size_t>(slot)] = true;
      } else {
        whole_slot_.assign(whole_slot_.size(), true);
      }
    }
  }

  int rows = 0;
  for (const AgentInfo& a : p.agents) {
    code_base_.push_back(rows);
    rows += static_cast<int>(p.code[static_cast<std::size_t>(a.role)].size()) + 1;
  }
  const std::size_t width = static_cast<std::size_t>(parts * words_);
  step_.assign(static_cast<std::size_t>(rows) * width, 0);
  future_ = step_;

  for (std::size_t a = 0; a < p.agents.size(); ++a) {
    const int agent = static_cast<int>(a);
    const int cta = p.agents[a].cta;
    const std::vector<Instr>& code = p.code[static_cast<std::size_t>(p.agents[a].role)];
    const int n = static_cast<int>(code.size());
    // What the agent may do, with what is known of it before it runs: its
    // builtins (cta, instance, warp), which no statement assigns.
    builtins_.assign(3, 0);
    builtins_[ir::var_cta] = p.agents[a].cta;
    builtins_[ir::var_instance] = p.agents[a].instance;
    builtins_[ir::var_warp] = p.agents[a].warp;
    for (int pc = 0; pc < n; ++pc)
      if (code[static_cast<std::size_t>(pc)].kind == InstrKind::op) {
        op_footprint(*code[static_cast<std::size_t>(pc)].op, agent, builtins_.data(), false, row(step_, agent, pc));
        close_aliases(row(step_, agent, pc));
        op_footprint(*code[static_cast<std::size_t>(pc)].op, agent, builtins_.data(), true, row(future_, agent, pc));
      }
    exit_footprint(cta, row(step_, agent, n));
    exit_footprint(cta, row(future_, agent, n));
    // future(pc) = its own | future(every successor), to a fixed point (loops).
    for (bool changed = true; changed;) {
      changed = false;
      for (int pc = n - 1; pc >= 0; --pc) {
        const Instr& in = code[static_cast<std::size_t>(pc)];
        int next[2] = {pc + 1, -1};
        if (in.kind == InstrKind::jump) next[0] = in.target;
        if (in.kind == InstrKind::choose) next[1] = in.target;  // either way
        if (in.kind == InstrKind::branch_false) {
          // A test of the builtins alone goes one way only (`if cta == 0:`).
          std::int64_t v = 0;
          if (builtin_only(in.expr) && known(in.expr, builtins_.data(), v))
            next[0] = v != 0 ? pc + 1 : in.target;
          else
            next[1] = in.target;
        }
        Set f = row(future_, agent, pc);
        for (int succ : next) {
          if (succ < 0) continue;
          const std::uint64_t* g = row(future_, agent, succ);
          for (std::size_t w = 0; w < width; ++w) {
            const std::uint64_t u = f[w] | g[w];
            changed |= u != f[w];
            f[w] = u;
          }
        }
      }
    }
  }
}

void Footprints::all(Set set) const {
  for (int r = 0; r < count_; ++r) writes(set, r);
}

bool Footprints::builtin_only(ir::ExprId e) const {
  if (e == ir::no_expr) return true;
  const ir::Expr& x = p_.exprs[static_cast<std::size_t>(e)];
  switch (x.kind) {
    case ir::ExprKind::constant: return true;
    case ir::ExprKind::var: return x.var == ir::var_cta || x.var == ir::var_instance || x.var == ir::var_warp;
    case ir::ExprKind::unary: return builtin_only(x.a);
    case ir::ExprKind::binary: return builtin_only(x.a) && builtin_only(x.b);
  }
  return false;
}

bool Footprints::known(ir::ExprId e, const std::int64_t* vars, std::int64_t& value) const {
  if (vars == nullptr && !is_constant(p_, e)) return false;
  if (vars == builtins_.data() && !builtin_only(e)) return false;
  try {
    value = eval(p_, e, vars);
    return true;
  } catch (const KernelError&) {
    return false;  // the step itself will report it
  }
}

template <class F>
void Footprints::ctas_of(ir::ExprId cta_expr, int own, const std::int64_t* vars, F&& f) const {
  if (cta_expr == ir::no_expr) return f(own);
  std::int64_t c = 0;
  const int first = p_.grid_first(own);
  if (known(cta_expr, vars, c) && c >= 0 && c < p_.cluster_ctas) return f(first + static_cast<int>(c));
  for (int x = first; x < first + p_.cluster_ctas; ++x) f(x);
}

void Footprints::exit_footprint(int cta, Set set) const {
  // An exit lowers the cluster barrier's expected threads and completes the
  // CTA's barriers that wait for its non-exited threads; the last one of a
  // CTA reads its tensor-memory allocations and what targets the CTA
  // (persistent(), `last_exit`).
  counts(set, cluster_);
  for (int slot = 0; slot < p_.named_used; ++slot)
    if (whole_slot_[static_cast<std::size_t>(slot)]) writes(set, named_base_ + cta * p_.named_used + slot);
}

bool Footprints::last_exit_reads(int cta, const std::uint64_t* set) const {
  // spec::tmem::cta_exit, spec::tmem::pair_exit
  auto written = [&](int r) { return (set[write_part * words_ + r / 64] >> (r % 64) & 1) != 0; };
  return written(tmem_base_ + cta) || written(tmem_pair_base_ + cta) ||
         (spec::tmem::peer(cta) < p_.ctas && written(tmem_pair_base_ + spec::tmem::peer(cta)));
}

void Footprints::op_footprint(const ir::Op& op, int agent, const std::int64_t* vars, bool events, Set set) const {
  const int cta = p_.agents[static_cast<std::size_t>(agent)].cta;
  auto touch = [&](int r, bool write) { write ? writes(set, r) : reads(set, r); };
  // The instances of an array element reference in CTA c: the one its index
  // names when that is known, else the whole array.
  // `first`: the instance of element 0 (each element's resource, buf_res_).
  auto element = [&](const ir::Ref& r, int size, int first, bool write) {
    std::int64_t i = 0;
    if (r.index == ir::no_expr || (known(r.index, vars, i) && i >= 0 && i < size)) {
      touch(buf(first + static_cast<int>(i)), write);
    } else {
      for (int x = 0; x < size; ++x) touch(buf(first + x), write);
    }
  };
  // What reaches another CTA, or lands later, reads its liveness: the last
  // exit of that CTA checks it (an insertion into or removal from the
  // pending events commutes with another's).
  // How an op touches an mbarrier.
  enum class How { read, count, arrive, write };
  auto mbar_in = [&](const ir::Ref& r, int c, How how, bool alive) {
    const int d = r.object;
    const int size = p_.kernel->mbarriers[static_cast<std::size_t>(d)].size;
    const int first = mbar_base_ + c * p_.mbars_per_cta + p_.mbar_base[static_cast<std::size_t>(d)];
    auto one = [&](int m) {
      switch (how) {
        case How::read: return reads(set, m);
        case How::count: return counts(set, m);
        case How::arrive: return arrives(set, m);
        case How::write: return writes(set, m);
      }
    };
    std::int64_t i = 0;
    if (r.index == ir::no_expr || (known(r.index, vars, i) && i >= 0 && i < size)) {
      one(first + static_cast<int>(i));
    } else {
      for (int x = 0; x < size; ++x) one(first + x);
    }
    if (alive || c != cta) reads(set, alive_base_ + c);
  };
  auto buf_in = [&](const ir::Ref& r, int c, bool write, bool alive) {
    const int d = r.object;
    // Global memory: one instance (Program::buffer_at), alive with the kernel.
    if (p_.global_decl(d)) {
      element(r, p_.kernel->buffers[static_cast<std::size_t>(d)].size, p_.buffer_at(0, d, 0), write);
      return;
    }
    element(r, p_.kernel->buffers[static_cast<std::size_t>(d)].size,
            c * p_.buffers_per_cta + p_.buffer_base[static_cast<std::size_t>(d)], write);
    if (alive || c != cta) reads(set, alive_base_ + c);
  };
  auto mbar = [&](const ir::Ref& r, How how, bool alive) {
    if (r.object < 0) return all(set);
    ctas_of(r.cta, cta, vars, [&](int c) { mbar_in(r, c, how, alive); });
  };
  // What an issue does to its barrier, and what its event does when it lands.
  auto issue = [&](How landing) { return events ? landing : How::read; };
  const bool write = ir::op_access(op.code) == ir::Access::write;
  auto buffers = [&](bool w, bool alive) {
    for (const ir::Ref& r : op.bufs) ctas_of(r.cta, cta, vars, [&](int c) { buf_in(r, c, w, alive); });
  };
  // A multicast reaches the CTAs of its mask: those, when it is known. Its
  // issue reads each destination's barrier (its initialisation) and writes
  // each buffer (the write in flight); its events write both when they land.
  auto multicast = [&](bool with_bufs, How landing) {
    std::int64_t mask = 0;
    if (!known(op.multicast, vars, mask)) mask = -1;
    const int first = p_.grid_first(cta);
    for (int c = first; c < first + p_.cluster_ctas; ++c) {
      if (!(mask & (std::int64_t{1} << (c - first)))) continue;
      if (op.bar.object < 0) return all(set);
      mbar_in(op.bar, c, issue(landing), events);
      if (with_bufs)
        for (const ir::Ref& r : op.bufs) buf_in(r, c, true, events);
    }
  };
  // The named-barrier slots of the CTA an op joins: the one its id names
  // when that is known, else all of them.
  // An arrive counts on its slot (the threads add up), a wait reads it
  // (persistent() takes a bar.sync's arrive alone, or its wait once it has
  // arrived); a slot an exit may complete (no count: the whole CTA) and
  // AMD's workgroup barrier are written.
  auto named = [&] {
    const bool waits = ir::op_has(op.code, ir::opf::named_wait);
    auto touch_slot = [&](int slot) {
      const int r = named_base_ + cta * p_.named_used + slot;
      if (whole_slot_[static_cast<std::size_t>(slot)] && !whole_only_[static_cast<std::size_t>(slot)]) return writes(set, r);
      counts(set, r);
      if (waits) reads(set, r);
    };
    std::int64_t id = 0;
    if (op.id == ir::no_expr || (known(op.id, vars, id) && id >= 0 && id < spec::named::num_ids)) {
      const int slot = p_.named_slot[static_cast<std::size_t>(id)];
      if (slot >= 0 && ir::op_family(op.code) != ir::OpFamily::amd) return touch_slot(slot);
    }
    for (int slot = 0; slot < p_.named_used; ++slot) touch_slot(slot);
  };
  // The tensor maps (`tensormap`): a TMA copy's `map` is read at its issue;
  // an acquire proxy fence reads what the release fences marked on its map,
  // a release fence (and tensormap.cp_fenceproxy's) marks every map's
  // accesses the thread knows (spec::sync_order, "Tensor maps").
  if (op.code == OpCode::fence_proxy_tensormap || op.code == OpCode::tensormap_cp_fenceproxy) {
    if (op.code == OpCode::fence_proxy_tensormap && op.tmap.object >= 0) return buf_in(op.tmap, cta, false, false);
    for (std::size_t b = 0; b < p_.tensormap_buffer.size(); ++b)
      if (p_.tensormap_buffer[b]) writes(set, buf(static_cast<int>(b)));
    if (op.code == OpCode::fence_proxy_tensormap) return;
    buffers(false, false);
    return;
  }
  // A TMA load's landing releases its read of the map (its event writes it).
  if (op.tmap.object >= 0) buf_in(op.tmap, cta, events && op.code == OpCode::tma_load, false);
  switch (ir::op_footprint(op.code)) {
    case ir::Footprint::access:
      // In a role split per warp, the warp group's four warps join one
      // wgmma (step/tensor.cpp, wgmma_warps): a join counts on the group's
      // resource (the joins commute: each writes its own warp's state, and
      // none goes on), a pass reads it (it goes on once all four have
      // joined; persistent() keeps the part of the stage the warp is at,
      // and `quiet` says when they commute).
      if (op.code == OpCode::wgmma && p_.kernel->roles[static_cast<std::size_t>(p_.agents[static_cast<std::size_t>(agent)].role)].per_warp) {
        const int r = wgmma_join_ + group_first(agent);
        counts(set, r);
        reads(set, r);
      }
      buffers(write, false);
      if (op.global.object >= 0) buf_in(op.global, cta, true, false);  // a TMA store's global destination
      // A tensor-memory access reads the CTA's allocations (spec::tmem::use);
      // a cta_group 2 MMA's those of both CTAs of the pair, and their tensor
      // memory (the A operand and the accumulator are split between them).
      if (ir::op_has(op.code, ir::opf::tmem)) reads(set, tmem_base_ + cta);
      if (op.tmem.object >= 0) buf_in(op.tmem, cta, true, false);  // an MMA's accumulator
      // A query of a launch-control response records a failure the CTA
      // observed (spec::clc::query): it sets a bit, which commutes with
      // another query's; only a request reads it (spec::clc::issue).
      if (op.code == OpCode::clc_query) counts(set, clc_seen_);
      if (op.cta_pair) {
        const int peer = spec::tmem::peer(cta);
        reads(set, tmem_base_ + peer);
        reads(set, alive_base_ + peer);
        if (op.tmem.object >= 0) buf_in(op.tmem, peer, true, true);
        for (const ir::Ref& r : op.bufs)
          if (p_.tmem_slot[static_cast<std::size_t>(r.object)] >= 0) buf_in(r, peer, write, true);
      }
      return;
    case ir::Footprint::tmem_cp:
      buffers(false, false);
      buf_in(op.tmem, cta, true, false);
      reads(set, tmem_base_ + cta);
      return;
    // The CTA's allocator, and the allocation's memory (written by both).
    case ir::Footprint::tmem_alloc: {
      if (op.tmem.object < 0) return all(set);
      const int d = op.tmem.object;
      // cta_group 2: a half of a collective of the pair, matched against the
      // peer's allocator; the first dealloc frees both CTAs' memory; the
      // issue reads whether the peer has exited (spec::tmem::pair_issue).
      if (op.cta_pair) reads(set, alive_base_ + spec::tmem::peer(cta));
      for (const int c : {cta, op.cta_pair ? spec::tmem::peer(cta) : cta}) {
        const int first = c * p_.buffers_per_cta + p_.buffer_base[static_cast<std::size_t>(d)];
        for (int x = 0; x < p_.kernel->buffers[static_cast<std::size_t>(d)].size; ++x) writes(set, buf(first + x));
        writes(set, tmem_base_ + c);
        writes(set, tmem_pair_base_ + c);
      }
      return;
    }
    // The permit only: no use of an allocation reads it.
    case ir::Footprint::tmem_relinquish:
      writes(set, tmem_pair_base_ + cta);
      if (op.cta_pair) {
        writes(set, tmem_pair_base_ + spec::tmem::peer(cta));
        reads(set, alive_base_ + spec::tmem::peer(cta));
      }
      return;
    // A request leaves a response per destination CTA (a multicast), each
    // landing like a TMA load; the request itself reads the CLC state.
    case ir::Footprint::clc_request:
      writes(set, clc_);
      reads(set, clc_seen_);
      if (op.multicast != ir::no_expr) return multicast(true, How::count);
      buffers(true, events);
      mbar(op.bar, issue(How::count), events);
      return;
    // An arrive whose state token holds the pending count reads it: a
    // write. A token that holds the phase alone (Program::token_pending) is
    // the same in either order of two arrives that complete no phase: such
    // an arrive counts. expect_tx and complete_tx count.
    case ir::Footprint::mbarrier:
      if (op.code == OpCode::mbar_init || op.code == OpCode::mbar_inval || (op.dest_var >= 0 && p_.token_pending))
        return mbar(op.bar, How::write, false);
      return mbar(op.bar, ir::op_has(op.code, ir::opf::thread_arrive) ? How::arrive : How::count, false);
    case ir::Footprint::mbar_wait: mbar(op.bar, How::read, false); return;
    case ir::Footprint::none: return;  // e.g. pending_count: reads the agent's own token
    // Operations that leave an async event behind: the issue reads the
    // barrier (its initialisation) and writes the buffer (the write in
    // flight); the event, when it lands, writes both, and the CTA it
    // targets must not exit before it (alive).
    case ir::Footprint::tma_load:
      if (op.global.object >= 0) buf_in(op.global, cta, false, false);  // its global source, read at the issue
      if (op.multicast != ir::no_expr) return multicast(true, How::count);
      buffers(true, events);
      mbar(op.bar, issue(How::count), events);
      return;
    // An async arrival holds a sync object of the agent's pool from its
    // issue to its landing, numbered by its issue among those in flight
    // (step.cpp, free_slot): its issue commutes with another's landing, and
    // the pool needs no resource. A cp.async.mbarrier.arrive without .noinc
    // raises the pending count at its issue.
    case ir::Footprint::async_arrive:
      if (op.multicast != ir::no_expr) return multicast(false, How::arrive);
      mbar(op.bar, events ? How::arrive : op.code == OpCode::cp_async_mbarrier_arrive && !op.noinc ? How::count : How::read, events);
      return;
    // st.async: an async write into the buffer of the CTA named, whose
    // landing completes on the barrier there (the pool holds its release).
    case ir::Footprint::async_store:
      buffers(true, events);
      mbar(op.bar, issue(How::count), events);
      return;
    case ir::Footprint::barrier: named(); return;
    // The cluster barrier: an arrive counts threads towards its instance
    // (as an exit does, lowering the threads expected), a wait reads it;
    // cluster_sync does both (persistent() takes its wait alone once it
    // has arrived).
    case ir::Footprint::cluster:
      if (op.code != OpCode::cluster_wait) counts(set, cluster_), reads(set, cluster_join_);
      if (op.code != OpCode::cluster_arrive) reads(set, cluster_);
      return;
    case ir::Footprint::exit: exit_footprint(cta, set); return;
    // griddepcontrol.wait in the dependent grid: the exits of the primary's
    // CTAs enable it (in the primary it returns at once).
    case ir::Footprint::grid_wait:
      if (p_.grid_of(cta) > 0)
        for (int c = 0; c < p_.cluster_ctas; ++c) reads(set, alive_base_ + c);
      return;
    case ir::Footprint::own: return;  // the agent's own threads and counters only
  }
  all(set);  // an op code outside the enum
}

// Only the side of the member's step is closed (its next step, a pending
// event's step), never a future: two accesses meet exactly where their
// buffers share bytes, that is, where one's buffer is the other's or among
// its aliases, which one closed side finds. Closing both would make two
// writes of disjoint parts of a buffer meet through the buffer they both
// lie in.
void Footprints::close_aliases(Set set) const {
  if (alias_res_.empty()) return;
  // The aliases of the set as it was: one hop, as Program::aliases is per
  // pair; a read of a buffer reads its aliases, a write writes them.
  std::uint64_t had[parts * max_words];
  std::copy_n(set, parts * words_, had);
  for (const auto& [r, others] : alias_res_)
    for (int kind = 0; kind < parts; ++kind)
      if (had[kind * words_ + r / 64] >> (r % 64) & 1)
        for (const int o : others) set[kind * words_ + o / 64] |= std::uint64_t{1} << (o % 64);
}

void Footprints::pending_footprint(const Pending& e, Set set) const {
  // A commit or a cp.async arrival arrives; a copy or a store completes bytes.
  if (e.kind == PendingKind::tcgen05_arrive || e.kind == PendingKind::cp_async_arrive)
    arrives(set, mbar_base_ + e.mbar);
  else
    counts(set, mbar_base_ + e.mbar);
  // The tcgen05.commit arrivals of one agent complete in order (step.cpp):
  // one may enable another, so they share a resource, the agent's commit
  // order. A commit's issue leaves a later one, which enables or disables
  // none in flight. The sync object each async arrival holds is no resource
  // (op_footprint, async_arrive).
  if (e.kind == PendingKind::tcgen05_arrive) writes(set, commits_base_ + e.agent);
  // A response's answer reads and changes the CLC state, and its landing
  // removes its twins (step.cpp): all of a request's responses share it.
  if (e.kind == PendingKind::clc_response) writes(set, clc_);
  reads(set, alive_base_ + p_.mbar_cta(e.mbar));
  if (e.buf >= 0) {
    writes(set, buf(e.buf));
    reads(set, alive_base_ + p_.buffer_cta(e.buf));
  }
  // A TMA load's tensor map, whose read its landing releases (Pending::group).
  if (e.kind == PendingKind::tma_load && e.group > 0) writes(set, buf(e.group - 1));
}

std::int64_t Footprints::max_arrivals(const ir::Op& op, int agent, const std::int64_t* vars) const {
  std::int64_t count = 1;
  if (op.count != ir::no_expr && (!known(op.count, vars, count) || count < 0)) return -1;
  return count * lanes_of(op, p_.agents[static_cast<std::size_t>(agent)]).count;
}

// The footprint of each step of an agent's run (checker/phase_bound.hpp):
// evaluated with the run's variables where it knows them all, with what
// the events it leaves do when they land.
class Footprints::FutureVisitor final : public PhaseBounds::Visitor {
 public:
  explicit FutureVisitor(const Footprints& f) : f_(f) {}
  void visit(std::uint64_t* future, int agent, int /*pc*/, const ir::Op* op, const std::int64_t* vars) const override {
    std::uint64_t one[parts * max_words] = {};
    if (op == nullptr) f_.exit_footprint(f_.cta_of_[static_cast<std::size_t>(agent)], one);
    else f_.op_footprint(*op, agent, vars, true, one);
    for (int w = 0; w < parts * f_.words_; ++w) future[w] |= one[w];
  }

 private:
  const Footprints& f_;
};

std::string Footprints::unusable_reason() const {
  if (usable()) return "";
  return "the partial-order reduction is off: the kernel has " + std::to_string(count_) +
         " resources (mbarrier and buffer instances shared by agents, named-barrier slots and the like), more than the " +
         std::to_string(max_words * 64) + " its sets hold (docs/checker.md, \"Reductions\")";
}

std::uint64_t Footprints::persistent(const State& s, std::uint64_t seeds) const {
  const int agents = static_cast<int>(s.agents.size());
  const int procs = agents + static_cast<int>(s.pending.size());
  if (words_ == 0 || procs > 64) return 0;
  const int width = parts * words_;
  // Per process: the footprint of its next step and of everything it may
  // still do. An agent's next step is evaluated with its variables now (more
  // precise than the static row); a pending event is one step.
  // On the stack, filled only as far as used: this runs for every state.
  std::uint64_t step[64 * parts * max_words], future[64 * parts * max_words];
  std::int64_t arrivals[64];  // at most how many arrivals its next step makes (-1: not known)
  std::fill_n(step, procs * width, 0);
  std::uint64_t live = 0, live_agents = 0, at_exit = 0;
  for (int a = 0; a < agents; ++a) {
    const AgentState& ag = s.agents[static_cast<std::size_t>(a)];
    if (ag.exited) continue;
    live |= std::uint64_t{1} << a;
    std::uint64_t* st = step + a * width;
    const AgentInfo& info = p_.agents[static_cast<std::size_t>(a)];
    const std::vector<Instr>& code = p_.code[static_cast<std::size_t>(info.role)];
    arrivals[a] = 0;
    if (ag.pc < code.size() && code[ag.pc].kind == InstrKind::op) {
      const ir::Op& op = *code[ag.pc].op;
      const std::int64_t* vars = s.vars.data() + p_.var_base[static_cast<std::size_t>(a)];
      op_footprint(op, a, vars, false, st);
      close_aliases(st);
      if (ir::op_footprint(op.code) == ir::Footprint::exit) at_exit |= std::uint64_t{1} << a;
      if (ir::op_has(op.code, ir::opf::thread_arrive)) arrivals[a] = max_arrivals(op, a, vars);
      if (op.code == OpCode::cluster_sync && ag.cluster_ticket != 0) st[count_part * words_ + cluster_ / 64] &= ~(std::uint64_t{1} << (cluster_ % 64));
      // The second half of a pair's tcgen05.alloc or dealloc (cta_group 2),
      // the peer's warp having issued the first (spec::tmem::pair_issue):
      // it clears the peer's collective in flight, reads its own, and
      // orders its warp after the first half's writes of the allocation
      // (hb::learn_write in its own threads' column), which only the first
      // half of a collective writes as lanes; a read of the allocation by
      // another warp commutes with it.
      if ((op.code == OpCode::tcgen05_alloc || op.code == OpCode::tcgen05_dealloc) && op.cta_pair && op.tmem.object >= 0 &&
          !s.tmem.empty()) {
        const int cta = cta_of_[static_cast<std::size_t>(a)], peer = spec::tmem::peer(cta);
        if (spec::tmem::joins_peer(s.tmem[static_cast<std::size_t>(cta)], s.tmem[static_cast<std::size_t>(peer)])) {
          std::fill_n(st, width, 0);
          const int d = op.tmem.object;
          for (const int c : {cta, peer}) {
            const int first = c * p_.buffers_per_cta + p_.buffer_base[static_cast<std::size_t>(d)];
            for (int x = 0; x < p_.kernel->buffers[static_cast<std::size_t>(d)].size; ++x) reads(st, buf(first + x));
          }
          reads(st, tmem_pair_base_ + cta);
          writes(st, tmem_pair_base_ + peer);
          reads(st, alive_base_ + peer);
          close_aliases(st);
        }
      }
      // A split warp group's wgmma: the join (a count) or, once joined, the
      // pass (a read), a step of its own.
      if (op.code == OpCode::wgmma && p_.kernel->roles[static_cast<std::size_t>(info.role)].per_warp) {
        const int r = wgmma_join_ + group_first(a);
        const int drop = ag.stage == spec::agent::waiting ? count_part : read_part;
        st[drop * words_ + r / 64] &= ~(std::uint64_t{1} << (r % 64));
      }
      // A bar.sync or bar.red: its arrive (a count), or, once it has
      // arrived, its wait (a read), a step of its own (step/named.cpp).
      if (ir::op_footprint(op.code) == ir::Footprint::barrier && ir::op_has(op.code, ir::opf::named_wait)) {
        for (int r = named_base_; r < named_base_ + p_.ctas * p_.named_used; ++r) {
          if (!(st[count_part * words_ + r / 64] >> (r % 64) & 1)) continue;  // a slot written (whole CTA)
          const int drop = ag.stage == spec::agent::waiting ? count_part : read_part;
          st[drop * words_ + r / 64] &= ~(std::uint64_t{1} << (r % 64));
        }
        // The wait of a bar.sync for the whole CTA on an instance that has
        // completed touches nothing another step changes: the next instance
        // waits for this agent's threads too (every op on the slot is for
        // the whole CTA, and the agent is live and has not arrived on it),
        // so no step completes it, and what it releases is not visible
        // until it completes (spec::sync_order::barrier_arrive); the
        // generation the wait reads only grows (spec::named::wait).
        std::int64_t id = 0;
        if (ag.stage == spec::agent::waiting && op.red == spec::named::Red::none &&
            (op.id == ir::no_expr || (known(op.id, vars, id) && id >= 0 && id < spec::named::num_ids))) {
          const int slot = p_.named_slot[static_cast<std::size_t>(id)];
          const int r = named_base_ + p_.agents[static_cast<std::size_t>(a)].cta * p_.named_used + slot;
          if (slot >= 0 && whole_only_[static_cast<std::size_t>(slot)] &&
              spec::named::wait(s.named[static_cast<std::size_t>(r - named_base_)], ag.ticket, spec::named::Red::none, 0).enabled)
            st[read_part * words_ + r / 64] &= ~(std::uint64_t{1} << (r % 64));
        }
      }
    } else {
      for (int w = 0; w < width; ++w) st[w] = row(step_, a, ag.pc)[w];
      if (ag.pc >= code.size()) at_exit |= std::uint64_t{1} << a;
    }
    for (int w = 0; w < width; ++w) future[a * width + w] = row(future_, a, ag.pc)[w];
  }
  live_agents = live;
  // A whole-CTA slot with no thread arrived on an instance, on which no live
  // agent of the CTA may arrive again, is done: an exit changes nothing
  // there (spec::named::on_exit), and a wait for a completed instance reads
  // a generation that no longer moves. Nothing touches it.
  for (int slot = 0; slot < p_.named_used; ++slot) {
    if (!whole_only_[static_cast<std::size_t>(slot)]) continue;
    for (int c = 0; c < p_.ctas; ++c) {
      const int r = named_base_ + c * p_.named_used + slot;
      if (s.named[static_cast<std::size_t>(r - named_base_)].arrived != 0) continue;
      bool arrives = false;
      for (int a = 0; a < agents && !arrives; ++a) {
        if (!(live_agents >> a & 1) || cta_of_[static_cast<std::size_t>(a)] != c) continue;
        // Its step, and what it may do after it (an op falls through to pc + 1).
        const AgentState& ag = s.agents[static_cast<std::size_t>(a)];
        const std::size_t n = p_.code[static_cast<std::size_t>(p_.agents[static_cast<std::size_t>(a)].role)].size();
        arrives = (step[a * width + count_part * words_ + r / 64] >> (r % 64) & 1) ||
                  (ag.pc < n && (row(future_, a, static_cast<int>(ag.pc) + 1)[count_part * words_ + r / 64] >> (r % 64) & 1));
      }
      if (arrives) continue;
      for (int x = 0; x < agents; ++x)
        for (int part = 0; part < parts; ++part) {
          step[x * width + part * words_ + r / 64] &= ~(std::uint64_t{1} << (r % 64));
          future[x * width + part * words_ + r / 64] &= ~(std::uint64_t{1} << (r % 64));
        }
    }
  }
  for (int e = agents; e < procs; ++e) {
    live |= std::uint64_t{1} << e;
    std::uint64_t* st = step + e * width;
    const Pending& pe = s.pending[static_cast<std::size_t>(e - agents)];
    pending_footprint(pe, st);
    for (int w = 0; w < width; ++w) future[e * width + w] = st[w];
    close_aliases(st);
    arrivals[e] = pe.kind == PendingKind::tcgen05_arrive ? 1 : pe.kind == PendingKind::cp_async_arrive ? pe.bytes : 0;
  }
  // The live agents of each CTA, as a mask.
  std::uint64_t of_cta[spec::cluster::max_ctas] = {};
  for (int a = 0; a < agents; ++a)
    if (live_agents >> a & 1) of_cta[cta_of_[static_cast<std::size_t>(a)]] |= std::uint64_t{1} << a;
  auto bit = [](const std::uint64_t* fp, int part, int words, int r) { return (fp[part * words + r / 64] >> (r % 64) & 1) != 0; };
  // An agent's exit also writes its CTA's liveness when it is the CTA's
  // last: not while another of the CTA's live agents is in the set (which
  // moves only after the set's steps).
  auto may_be_last = [&](int a, std::uint64_t set) {
    return (of_cta[cta_of_[static_cast<std::size_t>(a)]] & set & ~(std::uint64_t{1} << a)) == 0;
  };
  auto touches = [&](const std::uint64_t* fp, int r) {
    return bit(fp, read_part, words_, r) || bit(fp, write_part, words_, r) || bit(fp, count_part, words_, r);
  };
  // Mbarrier m stays in its phase while the set's steps wait, whatever the
  // others do, and p's step does not complete it before another's step on
  // it: then the ops that count on it commute with each other and with its
  // waits (each adds to a sum, or reads a phase that does not change). It
  // must be initialised, and every process that may arrive on it in the set
  // (outside, its pending count does not change); then either its pending
  // count is above what p's step arrives (nothing completes it), or it is 0
  // and the only counting outside the set is the landings in flight, whose
  // bytes are known: no landing completes the phase alone after any subset
  // of the others, nor does p's (a landing), but after all of them where
  // nothing outside the set may read the barrier then.
  // The cluster barrier likewise, counting threads: it does not complete
  // while the threads still expected outnumber what p's step and every
  // agent outside the set may still count (once each, twice for an agent
  // that may arrive with cluster_arrive and then exit; none for one that
  // has arrived and is blocked in its wait).
  // The futures meets() reads: the static ones, or the runs' (below).
  const std::uint64_t* fut = future;
  // A live agent that has not arrived on the cluster barrier's current
  // instance: the instance does not complete without its step (it waits for
  // every non-exited thread of the cluster: spec/cluster.hpp).
  auto holds_cluster = [&](int a) {
    if (a >= agents || !(live_agents >> a & 1)) return false;
    const spec::cluster::Ticket t = s.agents[static_cast<std::size_t>(a)].cluster_ticket;
    return t == 0 || t - 1 < s.cluster.generation;
  };
  auto quiet_cluster = [&](int p, std::uint64_t set) {
    // p's step counts on the current instance, which needs it: no step
    // outside the set completes the instance or arrives on the next (a
    // thread arrives again only after its wait saw the completion), and the
    // counts of one instance add up in either order.
    if (holds_cluster(p) && bit(step + p * width, count_part, words_, cluster_)) return true;
    // p's step is a wait for an instance that has completed: it passes
    // whatever is counted on the next one (whose releases are not visible
    // until that one completes: spec::sync_order::cluster_arrive).
    if (p < agents && !bit(step + p * width, count_part, words_, cluster_)) {
      const spec::cluster::Ticket t = s.agents[static_cast<std::size_t>(p)].cluster_ticket;
      if (t != 0 && t - 1 < s.cluster.generation) return true;
    }
    // No thread has arrived on the current instance and none outside the
    // set, nor p's step, may arrive: exits change nothing
    // (spec::cluster::on_exit completes an instance only with arrivals).
    if (s.cluster.arrived == 0 && !bit(step + p * width, read_part, words_, cluster_join_)) {
      bool joins = false;
      for (int x = 0; x < agents && !joins; ++x)
        joins = (live_agents >> x & 1) && !(set >> x & 1) && bit(fut + x * width, read_part, words_, cluster_join_);
      if (!joins) return true;
    }
    std::int64_t expected = 0, outside = 0;
    for (int x = 0; x < agents; ++x) {
      if (!(live_agents >> x & 1)) continue;
      const std::int64_t threads = p_.agents[static_cast<std::size_t>(x)].threads;
      expected += threads;
      if (set >> x & 1) continue;
      if (s.agents[static_cast<std::size_t>(x)].cluster_ticket == 0)
        outside += cluster_arrive_[static_cast<std::size_t>(x)] ? 2 * threads : threads;
      else if ((seeds >> x & 1) || !bit(step + x * width, read_part, words_, cluster_))
        outside += threads;
    }
    const std::int64_t own =
        p < agents && bit(step + p * width, count_part, words_, cluster_) ? p_.agents[static_cast<std::size_t>(p)].threads : 0;
    return expected - static_cast<std::int64_t>(s.cluster.arrived) > own + outside;
  };
  // The agents that may count on (arrive, complete bytes), init or inval an
  // mbarrier from where they are: those whose runs bound what completes a
  // phase from outside the set.
  auto movers = [&] {
    std::uint64_t mask = 0;
    for (int a = 0; a < agents; ++a) {
      if (!(live_agents >> a & 1)) continue;
      const std::uint64_t* f = future + a * width;
      for (int m = 0; m < p_.num_mbars(); ++m)
        if (bit(f, count_part, words_, mbar_base_ + m) || bit(f, write_part, words_, mbar_base_ + m)) {
          mask |= std::uint64_t{1} << a;
          break;
        }
    }
    return mask;
  };
  const FutureVisitor visitor(*this);
  std::optional<PhaseBounds::Query> phases;  // built where first needed
  // The seed of the set being closed (every set holds it): where it holds
  // the cluster barrier's instance, the outside runs end at their waits for
  // it (phase_bound.hpp).
  int hold_seed = -1;
  auto query = [&]() -> PhaseBounds::Query& {
    if (!phases) phases.emplace(phases_, s, movers(), width, visitor);
    phases->hold_cluster(hold_seed >= 0 && holds_cluster(hold_seed));
    return *phases;
  };
  auto quiet = [&](int p, int r, std::uint64_t set) {
    if (r == cluster_) return quiet_cluster(p, set);
    // A split warp group's wgmma. Joins commute with each other (each
    // writes its warp's own state and none goes on: wgmma_warps) and with
    // a pass, which waits for every join of its instance, so a join is
    // quiet; another warp's next join comes after its own pass. A pass is
    // quiet once all four have joined: the passes then commute (the first
    // performs the reads, the same ones whichever it is: as the group's
    // first warp's MMA unit, after what the four knew), and no warp's join
    // of a later wgmma comes before its own pass.
    if (r >= wgmma_join_ && r < wgmma_join_ + agents) {
      if (p >= agents) return false;
      if (bit(step + p * width, count_part, words_, r)) return true;
      const std::int64_t mine = s.agents[static_cast<std::size_t>(p)].collectives;
      for (int w = 0; w < agents; ++w)
        if (wgmma_join_ + group_first(w) == r && s.agents[static_cast<std::size_t>(w)].collectives < mine) return false;
      return true;
    }
    // The queries of launch-control responses set the failures observed,
    // which commute; a request reads them: quiet where p's step is no
    // request and no process outside the set may make one.
    if (r == clc_seen_) {
      if (bit(step + p * width, read_part, words_, r)) return false;
      for (int x = 0; x < procs; ++x)
        if ((live >> x & 1) && !(set >> x & 1) && bit(fut + x * width, read_part, words_, r)) return false;
      return true;
    }
    // A named-barrier slot: quiet where the arrivals from outside the set
    // and p's own all land in the instance in progress and the outside's
    // cannot complete it (phase_bound.hpp).
    if (r >= named_base_ && r < named_base_ + p_.ctas * p_.named_used) {
      const std::int64_t own = p < agents && bit(step + p * width, count_part, words_, r) ? p_.agents[static_cast<std::size_t>(p)].threads : 0;
      return query().quiet_named(r - named_base_, own, live & ~set);
    }
    // A resource counted on that is no mbarrier (a buffer an mbarrier is
    // laid over, which its counting reaches through the alias): never quiet.
    const int m = r - mbar_base_;
    if (m < 0 || m >= p_.num_mbars()) return false;
    const spec::mbarrier::State& st = s.mbars[static_cast<std::size_t>(m)];
    if (st.status != spec::mbarrier::Status::live) return false;
    const std::int64_t own = bit(step + p * width, arrive_part, words_, r) ? arrivals[p] : 0;
    if (own < 0) return false;
    bool outside_arrives = false;
    for (int x = 0; x < procs; ++x)
      outside_arrives |= (live >> x & 1) && !(set >> x & 1) && bit(fut + x * width, arrive_part, words_, r);
    // Processes outside the set may arrive too: quiet where their arrivals
    // and p's cannot complete the phase (checker/phase_bound.hpp).
    if (outside_arrives) {
      if (st.pending <= own) return false;
      return query().quiet(m, own, live & ~set);
    }
    if (st.pending > own) return true;
    if (own > 0 || st.pending != 0) return false;
    // No arrival pending: quiet where the bytes that processes outside the
    // set may still complete, with p's landing, stay below the tx-count
    // (checker/phase_bound.hpp).
    if (st.tx > 0 && bit(step + p * width, count_part, words_, r) == (p >= agents)) {
      std::int64_t mine = 0;
      if (p >= agents) {
        const Pending& pe = s.pending[static_cast<std::size_t>(p - agents)];
        mine = pe.kind == PendingKind::tma_load || pe.kind == PendingKind::st_async || pe.kind == PendingKind::clc_response ? pe.bytes : unbounded;
      }
      if (mine < unbounded && query().quiet_bytes(m, mine, live & ~set)) return true;
    }
    std::int64_t landing[12];
    int n = 0;
    bool readers = false;
    for (int x = 0; x < procs; ++x) {
      if (!(live >> x & 1) || (set >> x & 1)) continue;
      const std::uint64_t* fx = fut + x * width;
      if (bit(fx, read_part, words_, r) &&
          !(x < agents && !(seeds >> x & 1) && bit(step + x * width, read_part, words_, r)))
        readers = true;  // x may read it, unless x waits on it now, surely blocked
      if (!bit(fx, count_part, words_, r)) continue;
      if (x < agents || n == 12) return false;
      const Pending& pe = s.pending[static_cast<std::size_t>(x - agents)];
      if (pe.kind != PendingKind::tma_load && pe.kind != PendingKind::st_async) return false;
      landing[n++] = pe.bytes;
    }
    std::int64_t mine = -1;  // p's bytes, where p is a landing
    if (p >= agents && bit(step + p * width, count_part, words_, r)) {
      const Pending& pe = s.pending[static_cast<std::size_t>(p - agents)];
      if (pe.kind != PendingKind::tma_load && pe.kind != PendingKind::st_async) return false;
      mine = pe.bytes;
    } else if (p < agents && bit(step + p * width, count_part, words_, r)) {
      return false;  // an agent's own counting with the pending count at 0
    }
    const unsigned full = (1u << n) - 1;
    for (unsigned landed = 0; landed <= full; ++landed) {
      std::int64_t sum = 0;
      for (int i = 0; i < n; ++i)
        if (landed >> i & 1) sum += landing[i];
      const std::int64_t left = st.tx - sum;
      for (int i = 0; i < n; ++i)
        if (!(landed >> i & 1) && left == landing[i]) return false;
      if (mine >= 0 && left == mine && (landed != full || readers)) return false;
    }
    return true;
  };
  // Whether p's step (sp; `enabled`: it may be enabled) and a step in q's
  // future (fq) meet where one writes: whatever is quiet.
  auto writes_meet = [&](const std::uint64_t* sp, const std::uint64_t* fq, bool enabled) {
    for (int w = 0; w < words_; ++w) {
      const std::uint64_t rp = sp[w], wp = sp[words_ + w], cp = sp[2 * words_ + w];
      const std::uint64_t rq = fq[w], wq = fq[words_ + w], cq = fq[2 * words_ + w];
      if (enabled ? (wp & (rq | wq | cq)) | ((rp | cp) & wq) : ((rp | wp | cp) & wq) | (wp & cq)) return true;
    }
    return false;
  };
  // quiet() is a function of (p, r, set) and of the futures and the seed it
  // reads: a closure asks it again for each q while the set stays the same.
  struct QuietMemo {
    int p = -1, r = -1, hold = -1;
    std::uint64_t set = 0;
    const std::uint64_t* fut = nullptr;
    bool value = false;
  } memo[4];
  int memo_next = 0;
  auto quiet_memo = [&](int p, int r, std::uint64_t set) {
    for (const QuietMemo& m : memo)
      if (m.p == p && m.r == r && m.set == set && m.fut == fut && m.hold == hold_seed) return m.value;
    const bool value = quiet(p, r, set);
    memo[memo_next] = QuietMemo{p, r, hold_seed, set, fut, value};
    memo_next = (memo_next + 1) % 4;
    return value;
  };
  // What meets(p, q, set) reads of the pair whatever the set, for the
  // futures `fut` points to (reset where it changes): `hard`, one writes
  // what the other touches; `soft`, a resource both count on or one counts
  // on and the other reads (the set decides whether it is quiet); `exits`,
  // a last exit of q's CTA or p's that the other's step or future touches
  // (the set decides whether it may be the last).
  std::uint64_t pair_known[64], pair_hard[64], pair_soft[64], pair_exits[64];
  auto reset_pairs = [&] {
    for (QuietMemo& m : memo) m = QuietMemo{};
    std::fill_n(pair_known, procs, 0);
    std::fill_n(pair_hard, procs, 0);
    std::fill_n(pair_soft, procs, 0);
    std::fill_n(pair_exits, procs, 0);
  };
  reset_pairs();
  // The resources p's step and q's future meet on softly, as a word.
  auto soft_word = [&](const std::uint64_t* sp, const std::uint64_t* fq, bool enabled, int w) {
    const std::uint64_t rp = sp[w], cp = sp[2 * words_ + w];
    const std::uint64_t rq = fq[w], cq = fq[2 * words_ + w];
    return enabled ? (cp & (cq | rq)) | (rp & cq) : rp & cq;
  };
  // May q, now or later, interfere with p's next step? Where p's step may
  // be enabled: when one writes what the other reads or writes, or, unless
  // the barrier is quiet, when one counts on an mbarrier the other counts
  // on or waits on. Where it surely is not: when q may enable it (q writes
  // what p's step touches, or counts on what it waits on, the barrier not
  // quiet); nothing q does can disable it further.
  auto meets = [&](int p, int q, std::uint64_t set) {
    const std::uint64_t* sp = step + p * width;
    const std::uint64_t* fq = fut + q * width;
    const bool enabled = seeds >> p & 1;
    const std::uint64_t qb = std::uint64_t{1} << q;
    if (!(pair_known[p] & qb)) {
      pair_known[p] |= qb;
      if (writes_meet(sp, fq, enabled)) {
        pair_hard[p] |= qb;
      } else {
        for (int w = 0; w < words_; ++w)
          if (soft_word(sp, fq, enabled, w) != 0) pair_soft[p] |= qb;
        // The last exit of a CTA: it reads the CTA's liveness (what targets
        // the CTA touches it) and its tensor memory's allocator.
        if (q < agents) {
          const int c = cta_of_[static_cast<std::size_t>(q)];
          if (touches(sp, alive_base_ + c) || last_exit_reads(c, sp)) pair_exits[p] |= qb;
        }
        if (at_exit >> p & 1) {
          const int c = cta_of_[static_cast<std::size_t>(p)];
          if (touches(fq, alive_base_ + c) || last_exit_reads(c, fq)) pair_exits[p] |= qb;
        }
      }
    }
    if (pair_hard[p] & qb) return true;
    if (pair_soft[p] & qb)
      for (int w = 0; w < words_; ++w) {
        std::uint64_t soft = soft_word(sp, fq, enabled, w);
        while (soft) {
          const int r = w * 64 + std::countr_zero(soft);
          soft &= soft - 1;
          if (!quiet_memo(p, r, set)) return true;
        }
      }
    if (pair_exits[p] & qb) {
      if (q < agents && may_be_last(q, set)) {
        const int c = cta_of_[static_cast<std::size_t>(q)];
        if (touches(sp, alive_base_ + c) || last_exit_reads(c, sp)) return true;
      }
      if ((at_exit >> p & 1) && may_be_last(p, set)) {
        const int c = cta_of_[static_cast<std::size_t>(p)];
        if (touches(fq, alive_base_ + c) || last_exit_reads(c, fq)) return true;
      }
    }
    return false;
  };
  // From each seed, close under "q may interfere with the next step of a
  // member": nothing outside the set can then enable, disable or change a
  // member's next step, so the members' enabled next steps are a persistent
  // set (Godefroid, LNCS 1032, the conflict-based construction of ch. 4,
  // with a surely disabled member needing only what may enable it).
  auto close = [&](int seed) {
    std::uint64_t set = std::uint64_t{1} << seed, todo = set;
    while (todo != 0 && set != live) {
      const int p = std::countr_zero(todo);
      todo &= todo - 1;
      for (int q = 0; q < procs; ++q) {
        const std::uint64_t bit = std::uint64_t{1} << q;
        if ((live & bit) && !(set & bit) && meets(p, q, set)) {
          set |= bit;
          todo |= bit;
        }
      }
    }
    return set;
  };
  // The smallest by the steps it keeps (a disabled member keeps none).
  std::uint64_t best = 0;
  int best_size = 65;
  auto consider = [&](std::uint64_t set) {
    const int size = std::popcount(set & seeds);
    if (set != live && size < best_size) {
      best = set;
      best_size = size;
    }
  };
  for (int seed = 0; seed < procs && best_size > 1; ++seed)
    if ((seeds & live) >> seed & 1) {
      hold_seed = seed;
      consider(close(seed));
    }
  // Where that keeps more than one step: again, with each outside agent's
  // future the footprint of its runs from where it is, with the seed
  // in the set (checker/phase_bound.hpp), which stays valid as the set
  // grows; with it, the pending events that every set built from the seed
  // holds: those whose step writes what the seed's step touches or the
  // other way round (`meets` adds them whatever the futures of the agents:
  // an event's future is its step), such as the launch-control responses
  // of one request, each of which may decide the answer of all.
  if (best_size > 1 && phases_.usable()) {
    std::uint64_t runs[64 * parts * max_words];
    for (int seed = 0; seed < procs && best_size > 1; ++seed) {
      if (!((seeds & live) >> seed & 1)) continue;
      hold_seed = seed;
      PhaseBounds::Query& q = query();
      std::uint64_t members = std::uint64_t{1} << seed;
      for (int x = agents; x < procs; ++x)
        if (x != seed && (live >> x & 1) && writes_meet(step + seed * width, future + x * width, (seeds >> seed & 1) != 0))
          members |= std::uint64_t{1} << x;
      const PhaseBounds::Query::Frozen frozen = q.frozen(live & ~members);
      for (int x = 0; x < procs; ++x) {
        const std::uint64_t* f = x < agents && x != seed && (live >> x & 1) ? q.future(frozen, x) : nullptr;
        std::copy_n(f != nullptr ? f : future + x * width, width, runs + x * width);
      }
      fut = runs;
      reset_pairs();
      consider(close(seed));
      fut = future;
    }
  }
  return best;
}

}  // namespace pc::check
