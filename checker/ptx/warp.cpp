// A warp's control flow and integer arithmetic (warp.hpp).
//
// SIMT: the warp runs the lanes of the top entry of its reconvergence stack.
// A branch that splits them pushes both sides, each to end at the branch's
// immediate post-dominator, where the lanes join again (the reconvergence of
// the PTX ISA's "SIMT" execution model; Volta's independent thread
// scheduling may interleave the two sides, which matters only where one
// side waits for the other: docs/ptx.md, "Limits").
#include <algorithm>
#include <bit>
#include <cstdlib>

#include "checker/ptx/warp.hpp"
#include "spec/agent.hpp"

namespace pc::ptx {
namespace {

constexpr std::int64_t max_steps = 20'000'000;  // instructions per warp: past it, a loop that does not end
constexpr int probe_steps = 100'000;

struct ProbeEnd {
  std::string why;
};

// A branch in a polling loop's failing path on a predicate some lanes do
// not know: `taken` are the lanes known to take it.
struct Fork {
  std::uint32_t taken = 0, unknown = 0;
};


std::string lane_list(std::uint32_t m) {
  std::string s;
  for (int l = 0; l < 32; ++l)
    if ((m >> l) & 1) s += (s.empty() ? "" : ",") + std::to_string(l);
  return s;
}

}  // namespace

Warp::Warp(Context& c, int cta_, int warp_) : ctx(c), cta(cta_), warp(warp_) {
  nregs = static_cast<int>(c.fn->regs.size());
  regs.assign(static_cast<std::size_t>(nregs) * 32, Val{});
  const int first = warp * 32;
  const int n = std::min(32, c.threads - first);
  present = n >= 32 ? 0xffffffffu : ((1u << n) - 1);
}

void Warp::stop(const Instr& in, const std::string& msg) const { throw Stop{in.at, msg}; }

Val Warp::special(int lane, const std::string& name) const {
  const int t = warp * 32 + lane;
  const std::size_t dot = name.find('.');
  const std::string base = name.substr(0, dot);
  const char d = dot == std::string::npos ? 'x' : name[dot + 1];
  const int dim = d == 'x' ? 0 : d == 'y' ? 1 : 2;
  const int* b = ctx.block;
  auto pick = [&](int x, int y, int z) { return Val::num(dim == 0 ? x : dim == 1 ? y : z); };
  if (base == "%tid") return pick(t % b[0], (t / b[0]) % b[1], t / (b[0] * b[1]));
  if (base == "%ntid") return pick(b[0], b[1], b[2]);
  if (base == "%laneid") return Val::num(lane);
  if (base == "%warpid") return Val::num(warp);
  if (base == "%nwarpid") return Val::num((ctx.threads + 31) / 32);
  // The grid's first cluster, along x: CTA `cta` of the cluster is block
  // `cta`; the grid is --grid's (the cluster where none is given).
  const int* g = ctx.grid;
  if (base == "%ctaid" || base == "%cluster_ctaid") return pick(cta, 0, 0);
  if (base == "%nctaid") return pick(g[0], g[1], g[2]);
  if (base == "%cluster_nctaid") return pick(ctx.cluster, 1, 1);
  if (base == "%cluster_ctarank") return Val::num(cta);
  if (base == "%cluster_nctarank") return Val::num(ctx.cluster);
  if (base == "%clusterid") return Val::num(0);
  if (base == "%nclusterid") return pick(g[0] / ctx.cluster, g[1], g[2]);
  if (base == "%is_explicit_cluster") return Val::num(ctx.cluster > 1 ? 1 : 0);
  if (base == "%lanemask_eq") return Val::num(std::int64_t{1} << lane);
  if (base == "%lanemask_lt") return Val::num((std::int64_t{1} << lane) - 1);
  if (base == "%lanemask_le") return Val::num((std::int64_t{2} << lane) - 1);
  if (base == "%lanemask_gt") return Val::num(static_cast<std::uint32_t>(~((std::uint64_t{2} << lane) - 1)));
  if (base == "%lanemask_ge") return Val::num(static_cast<std::uint32_t>(~((std::uint64_t{1} << lane) - 1)));
  if (base == "%dynamic_smem_size" && ctx.launch.smem_bytes >= 0) return Val::num(ctx.launch.smem_bytes);
  return Val::unknown();  // clocks, SM ids, timers: data
}

int Warp::param_named(const std::string& given, std::int64_t* off) const {
  std::string n = given;
  std::int64_t at = 0;
  if (const std::size_t plus = n.rfind('+'); plus != std::string::npos && plus > 0) {
    char* end = nullptr;
    at = std::strtoll(n.c_str() + plus + 1, &end, 0);
    if (end == nullptr || *end != '\0' || at < 0) return -1;
    n = n.substr(0, plus);
  }
  if (off) *off = at;
  const auto& ps = ctx.fn->params;
  for (std::size_t i = 0; i < ps.size(); ++i)
    if (n == ps[i].name || n == std::to_string(i) ||
        (ps[i].name.size() > n.size() && ps[i].name.compare(ps[i].name.size() - n.size(), n.size(), n) == 0 &&
         ps[i].name[ps[i].name.size() - n.size() - 1] == '_'))
      return static_cast<int>(i);
  return -1;
}

std::int64_t Warp::box_bytes(const Instr& in, const Operand& map, std::uint32_t lanes) const {
  int param = -1;
  std::int64_t off = 0;
  for (int l = 0; l < 32; ++l) {
    if (!((lanes >> l) & 1)) continue;
    const Val v = address(l, map);
    if (v.k != Val::K::gptr || v.base >= static_cast<int>(ctx.fn->params.size()) || (param >= 0 && (param != v.base || off != v.v)))
      stop(in, "the tensor map of '" + in.text + "' is not a kernel parameter the front end can name (a __grid_constant__ "
                                                 "CUtensorMap, a field of a struct parameter, or a pointer parameter to one)");
    param = v.base;
    off = v.v;
  }
  const std::string& name = ctx.fn->params.at(static_cast<std::size_t>(param)).name;
  for (const auto& [n, b] : ctx.launch.boxes) {
    std::int64_t at = 0;
    if (param_named(n, &at) == param && at == off) return b;
  }
  // Triton's tensor descriptors (--meta): the k-th 128-byte parameter's.
  if (off == 0 && ctx.fn->params[static_cast<std::size_t>(param)].bytes == 128) {
    std::size_t k = 0;
    for (int i = 0; i < param; ++i) k += ctx.fn->params[static_cast<std::size_t>(i)].bytes == 128 ? 1 : 0;
    if (k < ctx.launch.desc_boxes.size()) return ctx.launch.desc_boxes[k];
  }
  const std::string which = std::to_string(param) + (off ? "+" + std::to_string(off) : "");
  stop(in, "the box of the tensor map at parameter '" + name + "'" + (off ? " + " + std::to_string(off) : "") +
               " is not known: give --box " + which + "=BYTES (the product of its box dimensions times the "
               "element size, as cuTensorMapEncode was given them)");
}

Val Warp::param(const Instr& in, const Operand& o, int lane, Type t) {
  const auto& ps = ctx.fn->params;
  // Which parameter, at which offset: by name (`[k_param_0+640]`), or through
  // its address in a register (`mov.u64 %rd, k_param_0` then `[%rd+640]`).
  int i = -1;
  std::int64_t off = o.imm;
  if (!o.name.empty()) {
    for (std::size_t k = 0; k < ps.size(); ++k)
      if (ps[k].name == o.name) i = static_cast<int>(k);
    if (i < 0) stop(in, "ld.param of '" + o.name + "', which is not a parameter of " + ctx.fn->name);
  } else {
    const Val a = address(lane, o);
    if (a.k != Val::K::gptr || a.base >= static_cast<int>(ps.size()))
      stop(in, "ld.param through an address the front end does not know to be a parameter's");
    i = a.base;
    off = a.v;
  }
  for (const auto& [n, v] : ctx.launch.args) {
    std::int64_t at = 0;
    if (param_named(n, &at) == i && at == off) return Val::num(norm(v, t));
  }
  // A 64-bit parameter not given is a pointer into global memory of its own;
  // so is a 64-bit field of a struct parameter, each field its own.
  if (t.bits == 64 && !t.fp) {
    if (off == 0 && ps[static_cast<std::size_t>(i)].bytes == 8) return Val{Val::K::gptr, 0, i};
    auto it = ctx.field_pointer.find({i, off});
    if (it == ctx.field_pointer.end()) {
      it = ctx.field_pointer.emplace(std::make_pair(i, off), ctx.next_base++).first;
      (*ctx.pointer_names)[it->second] = ps[static_cast<std::size_t>(i)].name + "+" + std::to_string(off);
    }
    return Val{Val::K::gptr, 0, it->second};
  }
  return Val::param_bytes(i, off);
}

Val Warp::get(int lane, const Operand& o, Type t) const {
  switch (o.kind) {
    case Operand::Kind::reg: {
      Val v = regs[static_cast<std::size_t>(lane) * static_cast<std::size_t>(nregs) + static_cast<std::size_t>(o.reg)];
      if (o.reg2 == -2) v = v.known() ? Val::num(v.v == 0) : v.k == Val::K::clc ? v.flipped() : Val::unknown();  // !%p
      return v;
    }
    case Operand::Kind::imm: return Val::num(norm(o.imm, t));
    case Operand::Kind::special: return special(lane, o.name);
    case Operand::Kind::sym: {
      if (const auto it = ctx.shared_addr.find(o.name); it != ctx.shared_addr.end()) return Val::num(it->second);
      if (const auto it = ctx.global_base.find(o.name); it != ctx.global_base.end()) return Val{Val::K::gptr, 0, it->second};
      // A parameter's own address (a __grid_constant__ tensor map's): a pointer of its own.
      for (std::size_t i = 0; i < ctx.fn->params.size(); ++i)
        if (ctx.fn->params[i].name == o.name) return Val{Val::K::gptr, 0, static_cast<int>(i)};
      return Val::unknown();
    }
    default: return Val::unknown();
  }
}

void Warp::set(int lane, const Operand& o, Val v) {
  if (o.kind == Operand::Kind::reg)
    slot(lane, o.reg) = v;
  else if (o.kind == Operand::Kind::vec)
    for (const Operand& e : o.elems) set(lane, e, Val::unknown());
}

Val Warp::address(int lane, const Operand& o) const {
  Val b = Val::num(0);
  if (o.reg >= 0) b = regs[static_cast<std::size_t>(lane) * static_cast<std::size_t>(nregs) + static_cast<std::size_t>(o.reg)];
  else if (!o.name.empty()) b = get(lane, Operand{Operand::Kind::sym, -1, o.name, 0, {}, -1}, Type{64});
  if (b.k == Val::K::unknown) return b;
  b.v += o.imm;
  return b;
}

std::int64_t Warp::uniform(const Instr& in, std::uint32_t lanes, std::size_t arg, const char* what) const {
  if (arg >= in.args.size()) stop(in, std::string("missing operand: ") + what);
  const Type t = type_of(in.parts);
  std::optional<std::int64_t> v;
  for (int l = 0; l < 32; ++l) {
    if (!((lanes >> l) & 1)) continue;
    const Val x = get(l, in.args[arg], t);
    if (!x.known())
      stop(in, std::string("the ") + what + " of '" + in.text +
                   "' is a value the front end does not know (loaded from memory, or a parameter not given with --arg)");
    if (v && *v != x.v) stop(in, std::string("the lanes give '") + in.text + "' different " + what + "s: not supported yet");
    v = x.v;
  }
  return v.value_or(0);
}

Bytes Warp::bytes_at(const Instr& in, int lane, const Operand& o, std::int64_t width) const {
  const Val a = address(lane, o);
  const bool shared = in.has("shared") || in.has("shared::cta") || in.has("shared::cluster");
  const bool cluster = in.has("shared::cluster");
  const bool global = in.has("global");
  Bytes b;
  if (a.k == Val::K::num && shared) {
    b.cta = cta;
  } else if (a.k == Val::K::cluster && (cluster || (!shared && !global))) {
    b.cta = a.base;
  } else if (a.k == Val::K::shared && !global && !shared) {
    b.cta = cta;
  } else if (a.k == Val::K::gptr && !shared) {
    b.global = true;
    b.param = a.base;
  } else if (a.k == Val::K::unknown) {
    stop(in, "the address of '" + in.text + "' (lane " + std::to_string(lane) +
                 ") is a value the front end does not know (loaded from memory, or a parameter not given with --arg)");
  } else {
    stop(in, "the address of '" + in.text + "' (lane " + std::to_string(lane) + ") is not in the state space it names");
  }
  b.lo = a.v;
  b.hi = a.v + width;
  if (!b.global && b.lo < 0) stop(in, "a shared-memory address below 0 (lane " + std::to_string(lane) + ")");
  return b;
}

std::vector<Bytes> Warp::lane_bytes(const Instr& in, std::uint32_t lanes, const Operand& o, std::int64_t width) const {
  std::vector<Bytes> v;
  for (int l = 0; l < 32; ++l)
    if ((lanes >> l) & 1) v.push_back(bytes_at(in, l, o, width));
  std::sort(v.begin(), v.end(), [](const Bytes& a, const Bytes& b) {
    return std::tie(a.global, a.cta, a.param, a.lo) < std::tie(b.global, b.cta, b.param, b.lo);
  });
  std::vector<Bytes> out;
  for (const Bytes& b : v) {
    if (!out.empty() && out.back().global == b.global && out.back().cta == b.cta && out.back().param == b.param &&
        b.lo <= out.back().hi)
      out.back().hi = std::max(out.back().hi, b.hi);
    else
      out.push_back(b);
  }
  return out;
}

// The model's lane 0 is the warp's leader: its bit and bit 0 trade places.
std::uint64_t Warp::model_lanes(std::uint32_t lanes) const {
  const int leader = single_lane_ >= 0 ? single_lane_ : 0;
  std::uint64_t m = lanes;
  const std::uint64_t at0 = m & 1u, at_leader = (m >> leader) & 1u;
  m &= ~((std::uint64_t{1} << leader) | 1u);
  return m | (at0 << leader) | at_leader;
}

void Warp::emit(const Instr& in, std::uint32_t lanes, Event ev) {
  if (probing_) throw ProbeEnd{"'" + in.text + "' at line " + std::to_string(in.at.line)};
  ev.op.loc = ir::Loc{in.at.line, in.at.col};
  const int n = std::popcount(lanes);
  const ir::LanePolicy policy = ir::op_lanes(ev.op.code);
  if (lanes == 0xffffffffu) {
    ev.op.lanes = ir::Lanes::all;
    if (policy == ir::LanePolicy::leader)
      stop(in, "'" + in.text + "' is issued by all 32 lanes of the warp, each its own copy: the front end reads one issuing "
                               "lane (guard it with elect.sync or a lane test)");
  } else if (n == 1) {
    if (policy == ir::LanePolicy::aligned)
      stop(in, "'" + in.text + "' is executed by lane " + lane_list(lanes) + " only: " + std::string(ir::aligned_rule));
    const int lane = std::countr_zero(lanes);
    if (single_lane_ >= 0 && single_lane_ != lane) {
      // Another lane than the warp's leader, alone: `lanes M:` of that lane
      // (of the leader operations, a TMA load only: the others feed the
      // thread's async groups, which the model keeps for the leader).
      if (policy == ir::LanePolicy::leader && ev.op.code != ir::OpCode::tma_load)
        stop(in, "this warp's single-lane operations are made by lane " + std::to_string(single_lane_) + " and lane " +
                     std::to_string(lane) + ": '" + in.text + "' feeds the thread's async groups, which the front end reads "
                     "from the warp's leader lane (not yet supported)");
      ev.op.lanes = ir::Lanes::mask;
      ev.op.lane_mask = model_lanes(lanes);
    } else {
      single_lane_ = lane;
      ev.op.lanes = ir::Lanes::one;
      ev.lane = lane;
    }
  } else if (const int leader = single_lane_ >= 0 ? single_lane_ : 0;
             lanes == (0xffffffffu & ~(1u << leader)) && policy != ir::LanePolicy::aligned && policy != ir::LanePolicy::leader) {
    // Every lane but the warp's leader (the other side of a lane test, or a
    // tail the compiler gave each side of one): the `rest:` lanes.
    single_lane_ = leader;
    ev.op.lanes = ir::Lanes::rest;
  } else if (ev.op.code == ir::OpCode::read || ev.op.code == ir::OpCode::write || ev.op.code == ir::OpCode::cp_async ||
             ev.op.code == ir::OpCode::consume) {
    // Some lanes only, each on its own bytes: taken as the whole warp's
    // access of those bytes (the same conflicts with other warps; docs/ptx.md).
    ev.op.lanes = ir::Lanes::all;
  } else if (policy != ir::LanePolicy::aligned && policy != ir::LanePolicy::leader) {
    // Any other lanes (`lanes M:`).
    if (single_lane_ < 0) single_lane_ = 0;
    ev.op.lanes = ir::Lanes::mask;
    ev.op.lane_mask = model_lanes(lanes);
  } else {
    stop(in, "'" + in.text + "' is executed by lanes " + lane_list(lanes) +
                 " of the warp: the front end reads an operation of one lane or of the whole warp (not yet supported)");
  }
  out_->events.push_back(std::move(ev));
  load_lanes_.push_back(0);
  after_event(out_->events.back());
}

void Warp::loaded(int lane, const Operand& o, int load) {
  if (o.kind == Operand::Kind::reg) {
    Val v;
    v.load = load;
    slot(lane, o.reg) = v;
  } else if (o.kind == Operand::Kind::vec) {
    for (const Operand& e : o.elems) loaded(lane, e, load);
  }
}

// A load's value used by a later instruction: the load has completed (the
// instruction waits for its register), which the model's `consume` says
// (spec::hb::consume: a read not known to be complete at a release may
// still observe a later async write).
void Warp::consume_uses(const Instr& in, std::uint32_t lanes) {
  std::vector<int> loads;
  for (int r : uses_of(in))
    for (int l = 0; l < 32; ++l) {
      if (!((lanes >> l) & 1)) continue;
      const int t = regs[static_cast<std::size_t>(l) * static_cast<std::size_t>(nregs) + static_cast<std::size_t>(r)].load;
      if (t >= 0 && static_cast<std::size_t>(t) < load_lanes_.size() && load_lanes_[static_cast<std::size_t>(t)] &&
          std::find(loads.begin(), loads.end(), t) == loads.end())
        loads.push_back(t);
    }
  std::sort(loads.begin(), loads.end());
  for (int t : loads) {
    const std::uint32_t mask = load_lanes_[static_cast<std::size_t>(t)];
    Event ev;
    ev.op.code = ir::OpCode::consume;
    ev.data = out_->events[static_cast<std::size_t>(t)].data;
    emit(in, mask, std::move(ev));
    load_lanes_[static_cast<std::size_t>(t)] = 0;
  }
}

void Warp::tag_wgmma(int lane, const Operand& o, std::uint8_t which) {
  if (o.kind == Operand::Kind::reg)
    slot(lane, o.reg).wgmma |= which;
  else if (o.kind == Operand::Kind::vec)
    for (const Operand& e : o.elems) tag_wgmma(lane, e, which);
}

// An instruction other than a wgmma that reads or writes a wgmma's
// registers: the threads access them (the model's wgmma_regs; a later wgmma
// that uses them needs a wgmma.fence between, PTX ISA wgmma.fence). Once
// per kind between two fences: more say nothing more. Likewise the
// registers a tcgen05.ld writes, until tcgen05.wait::ld clears their tags:
// the model's tcgen05_regs, once between two waits.
void Warp::wgmma_regs(const Instr& in, std::uint32_t lanes) {
  std::uint8_t which = 0;
  std::vector<int> rs = uses_of(in);
  for (int r : defs_of(in)) rs.push_back(r);
  for (int r : rs)
    for (int l = 0; l < 32; ++l)
      if ((lanes >> l) & 1) which |= regs[static_cast<std::size_t>(l) * static_cast<std::size_t>(nregs) + static_cast<std::size_t>(r)].wgmma;
  which &= static_cast<std::uint8_t>(~regs_seen_);
  if (!which) return;
  regs_seen_ |= which;
  // The warp's threads, whichever lanes touched them.
  if (which & spec::agent::regs_tmem_ld) {
    Event ev;
    ev.op.code = ir::OpCode::tcgen05_regs;
    emit(in, 0xffffffffu, std::move(ev));
  }
  which &= static_cast<std::uint8_t>(~spec::agent::regs_tmem_ld);
  if (!which) return;
  Event ev;
  ev.op.code = ir::OpCode::wgmma_regs;
  ev.op.regs = which;
  emit(in, 0xffffffffu, std::move(ev));
}

void Warp::tmem_ld_waited() {
  for (std::size_t i = 0; i < regs.size(); ++i)
    if (regs[i].wgmma & spec::agent::regs_tmem_ld) slot_at(i).wgmma &= static_cast<std::uint8_t>(~spec::agent::regs_tmem_ld);
  regs_seen_ &= static_cast<std::uint8_t>(~spec::agent::regs_tmem_ld);
}

void Warp::exit_lanes(std::uint32_t lanes) {
  for (Entry& e : stack_) e.mask &= ~lanes;
}

// A polling loop's failing path, followed from the wait (its predicate
// false) along every path: a branch on a value the front end does not know
// (a timer, in a backoff) is followed both ways, all unknown lanes taken or
// none (each lane's path is one of those, and lanes meet only through shfl
// and vote, which such paths do not use). Every path must come back to the
// wait with the same lanes and no event on the way; the states it comes back
// in (their live registers: a spin counter may count) are followed in turn,
// up to 64 of them. A path that comes back to a branch in a state seen
// before adds nothing. The registers in which those states differ from the
// first are `stale`: the wait may end in any of them, so the code after it
// must not read them before writing them (step() checks). Nothing: the loop
// is a blocking wait; else why not.
Warp::Delta Warp::delta() const {
  Delta d;
  for (const auto& [i, v] : journal_)
    if (!(regs[i] == v)) d.emplace_back(i, regs[i]);
  std::sort(d.begin(), d.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return d;
}

void Warp::load_delta(const Delta& d) {
  for (const auto& [i, v] : journal_) regs[i] = v;
  for (const auto& [i, v] : d) regs[i] = v;
}

const Val& Warp::value_in(const Delta& d, std::size_t i) const {
  const auto it = std::lower_bound(d.begin(), d.end(), i, [](const auto& e, std::size_t k) { return e.first < k; });
  if (it != d.end() && it->first == i) return it->second;
  for (const auto& [j, v] : journal_)
    if (j == i) return v;
  return regs[i];  // never written in the probe: its value at the start
}

// The states of the probe are kept as the register slots that differ from
// the state at its start (Delta), with a journal of the slots written and
// their first values: a polling loop writes a few registers, and the
// register file of an unrolled kernel is large.
std::optional<std::string> Warp::probe(int pc, std::uint32_t lanes, std::vector<int>& stale) {
  (void)lanes;
  const std::vector<Entry> stack0 = stack_;
  const int single0 = single_lane_;
  probing_ = true;
  journaling_ = true;
  journal_.clear();
  if (journaled_.size() != regs.size()) journaled_.assign(regs.size(), 0);
  std::optional<std::string> why;
  struct Path {
    Delta regs;
    std::vector<Entry> stack;
    bool at_wait = false;  // starts just past the wait (not back at it)
  };
  std::vector<int> live;
  for (int r = 0; r < nregs; ++r)
    if (ctx.cfg.live(pc, r)) live.push_back(r);
  std::vector<char> is_live(static_cast<std::size_t>(nregs), 0);
  for (int r : live) is_live[static_cast<std::size_t>(r)] = 1;
  // Two states agree on the live registers: they agree outside the slots
  // either differs from the start in.
  auto same_live = [&](const Delta& a, const Delta& b) {
    for (const Delta* x : {&a, &b})
      for (const auto& [i, v] : *x)
        if (is_live[i % static_cast<std::size_t>(nregs)] && !(value_in(a, i) == value_in(b, i))) return false;
    return true;
  };
  std::vector<Delta> waits{Delta{}};  // the states the wait is tried in
  std::vector<Path> work, seen;
  auto start = [&](const Delta& rs) {
    std::vector<Entry> st = stack0;
    st.back().pc = pc + 1;
    work.push_back(Path{rs, std::move(st), true});
  };
  start(Delta{});
  int forks = 0;
  try {
    while (!work.empty()) {
      load_delta(work.back().regs);
      stack_ = std::move(work.back().stack);
      const bool from_wait = work.back().at_wait;
      work.pop_back();
      for (int n = 0;; ++n) {
        if (n > probe_steps) throw ProbeEnd{"its failing path runs on for more than " + std::to_string(probe_steps) + " instructions"};
        if (!advance()) throw ProbeEnd{"its failing path ends the warp"};
        if (stack_ == stack0 && (n > 0 || !from_wait)) {
          const Delta now = delta();
          bool old = false;
          for (const auto& w : waits) old = old || same_live(w, now);
          if (!old) {
            if (waits.size() >= 64) throw ProbeEnd{"its failing path comes back in more than 64 different states"};
            waits.push_back(now);
            start(now);
          }
          break;
        }
        try {
          step();
        } catch (const SameWait&) {
          // A wait of the same phase: the path tries again there
          // (check_retries decides whether that is this wait's loop).
          retries_.push_back(Retry{regs, stack_});
          break;
        } catch (const Fork& f) {
          const Delta now = delta();
          bool old = false;
          for (const Path& x : seen) old = old || (x.stack == stack_ && x.regs == now);
          if (old) break;
          seen.push_back(Path{now, stack_});
          if (++forks > 256) throw ProbeEnd{"its failing path branches more than 256 times on values the front end does not know"};
          const Instr& in = ctx.fn->code[static_cast<std::size_t>(stack_.back().pc)];
          const std::vector<Entry> st = stack_;
          for (const std::uint32_t g : {f.taken, f.taken | f.unknown}) {
            load_delta(now);
            stack_ = st;
            branch(in, g);
            work.push_back(Path{delta(), stack_});
          }
          break;
        }
      }
    }
  } catch (const ProbeEnd& e) {
    why = e.why;
    if (why->rfind("'", 0) == 0) why = "its failing path executes " + *why + " before it tries again";
  } catch (const Stop& s) {
    why = "its failing path stops at line " + std::to_string(s.at.line) + ": " + s.message;
  }
  // A live register some state the wait is tried in holds with another value.
  stale.clear();
  for (const auto& w : waits)
    for (const auto& [i, v] : w) {
      const int r = static_cast<int>(i % static_cast<std::size_t>(nregs));
      if (is_live[static_cast<std::size_t>(r)] && std::find(stale.begin(), stale.end(), r) == stale.end()) stale.push_back(r);
    }
  std::sort(stale.begin(), stale.end());
  load_delta(Delta{});
  journaling_ = false;
  for (const auto& [i, v] : journal_) journaled_[i] = 0;
  journal_.clear();
  probing_ = false;
  stack_ = stack0;
  single_lane_ = single0;
  return why;
}

std::optional<Warp::Retry> Warp::run_to_event() {
  const bool was = probing_;
  const Event* same = same_wait_;
  probing_ = true;
  same_wait_ = nullptr;
  std::optional<Retry> out;
  for (int n = 0; n <= probe_steps; ++n) {
    if (!advance()) {
      out = Retry{regs, {}};
      break;
    }
    const Retry before{regs, stack_};
    try {
      step();
    } catch (const ProbeEnd&) {
      out = before;
      break;
    } catch (const Stop&) {
      out = before;
      break;
    } catch (const Fork&) {
      break;
    }
  }
  probing_ = was;
  same_wait_ = same;
  return out;
}

std::optional<std::string> Warp::check_retries(std::uint32_t lanes, const Operand& pred, const std::vector<Retry>& retries) {
  const std::vector<Val> regs0 = regs;
  const std::vector<Entry> stack0 = stack_;
  auto set_all = [&](const Operand& p, std::int64_t v) {
    for (int l = 0; l < 32; ++l)
      if ((lanes >> l) & 1) set(l, p, Val::num(v));
  };
  // The state after a wait that succeeded, at the next event.
  auto after_success = [&](const std::vector<Val>& rs, const std::vector<Entry>& st, const Operand& p) {
    regs = rs;
    stack_ = st;
    set_all(p, 1);
    ++stack_.back().pc;
    return run_to_event();
  };
  auto same_state = [&](const Retry& a, const Retry& b) {
    if (!(a.stack == b.stack)) return false;
    if (a.stack.empty()) return true;
    const int at = a.stack.back().pc;
    for (int r = 0; r < nregs; ++r) {
      if (!ctx.cfg.live(at, r)) continue;
      for (int l = 0; l < 32; ++l) {
        const std::size_t i = static_cast<std::size_t>(l) * static_cast<std::size_t>(nregs) + static_cast<std::size_t>(r);
        if (!(a.regs[i] == b.regs[i])) return false;
      }
    }
    return true;
  };
  std::optional<std::string> why;
  const std::optional<Retry> mine = after_success(regs0, stack0, pred);
  if (!mine) why = "after its success the warp branches on a value the front end does not know before its next operation";
  for (const Retry& r : retries) {
    if (why) break;
    const int pc2 = r.stack.back().pc;
    const Instr& w2 = ctx.fn->code[static_cast<std::size_t>(pc2)];
    const std::string there = "the wait of the same phase at line " + std::to_string(w2.at.line) + " it tries again with";
    // That wait is a polling loop of its own.
    regs = r.regs;
    stack_ = r.stack;
    set_all(w2.args[0], 0);
    std::vector<int> stale2;
    retries_.clear();
    if (const auto w = probe(pc2, lanes, stale2)) {
      why = there + " is no polling loop: " + *w;
      break;
    }
    if (!retries_.empty() || !stale2.empty()) {
      why = there + " tries again through yet another wait, or leaves registers it reads with other values";
      break;
    }
    const std::optional<Retry> theirs = after_success(r.regs, r.stack, w2.args[0]);
    if (!theirs || !same_state(*mine, *theirs))
      why = "after " + there + ", the warp does not go on as after this wait's success (another next operation or other live values)";
  }
  retries_.clear();
  regs = regs0;
  stack_ = stack0;
  return why;
}

void Warp::branch(const Instr& in, std::uint32_t g, int to) {
  Entry& e = stack_.back();
  const int target = to >= 0 ? to : in.target_index;
  if (g == e.mask) {
    e.pc = target;
  } else if (g == 0) {
    ++e.pc;
  } else {
    const int at = e.pc;
    const int r = ctx.cfg.ipdom[static_cast<std::size_t>(at)];
    if (r < 0) stop(in, "a branch that splits the warp where its sides never meet again (no path to the end of the kernel)");
    const std::uint32_t rest = e.mask & ~g;
    e.pc = r;
    stack_.push_back(Entry{at + 1, rest, r});
    stack_.push_back(Entry{target, g, r});
  }
}

void Warp::step() {
  if (++steps_ > max_steps) {
    const Instr& in = ctx.fn->code[static_cast<std::size_t>(std::min<int>(stack_.back().pc, static_cast<int>(ctx.fn->code.size()) - 1))];
    stop(in, "warp " + std::to_string(warp) + " ran " + std::to_string(max_steps) +
                 " instructions without ending: a loop the front end cannot bound (its trip count from memory?)");
  }
  Entry& e = stack_.back();
  const Instr& in = ctx.fn->code[static_cast<std::size_t>(e.pc)];
  const std::string& m = in.parts[0];
  std::uint32_t g = e.mask, unknown = 0;
  if (in.guard >= 0) {
    g = 0;
    for (int l = 0; l < 32; ++l) {
      if (!((e.mask >> l) & 1)) continue;
      const Val p = regs[static_cast<std::size_t>(l) * static_cast<std::size_t>(nregs) + static_cast<std::size_t>(in.guard)];
      if (!p.known()) unknown |= 1u << l;
      else if ((p.v != 0) != in.guard_neg) g |= 1u << l;
    }
    if (unknown && assumed(in, g, unknown)) unknown = 0;
    if (unknown && probing_ && m == "bra") throw Fork{g, unknown};
    if (unknown) {
      for (int l = 0; l < 32; ++l) {
        const Val p = regs[static_cast<std::size_t>(l) * static_cast<std::size_t>(nregs) + static_cast<std::size_t>(in.guard)];
        if (!((unknown >> l) & 1) || !p.from_param()) continue;
        const std::string at = std::to_string(p.base) + (p.v ? "+" + std::to_string(p.v) : "");
        std::string name = ctx.fn->params.at(static_cast<std::size_t>(p.base)).name;
        if (name.rfind(ctx.fn->name + "_", 0) == 0) name = name.substr(ctx.fn->name.size() + 1);
        stop(in, "'" + in.text + "' depends on parameter " + name +
                     (p.v ? " at byte " + std::to_string(p.v) : "") + ", which was not given: give --arg " + at + "=VALUE");
      }
      if (m == "bra") {
        // A cluster launch control query's answer, the same in those lanes:
        // the model's `if` on it (clc.cpp).
        int query = -1;
        bool when = true, same = true;
        for (int l = 0; l < 32 && same; ++l) {
          if (!((unknown >> l) & 1)) continue;
          const Val p = regs[static_cast<std::size_t>(l) * static_cast<std::size_t>(nregs) + static_cast<std::size_t>(in.guard)];
          // The lane takes it where the value is 1 (0 with !%p): the answer is base, or its negation.
          const bool w = (p.base == 1) != in.guard_neg;
          same = p.k == Val::K::clc && (query < 0 || (query == p.v && when == w));
          query = static_cast<int>(p.v);
          when = w;
        }
        if (same) clc_branch(in, g, unknown, query, when);
        else either(in, g, unknown);
        return;
      }
      if (m == "ret" || m == "exit" || m == "trap" || m == "call")
        stop(in, "'" + in.text + "' is guarded by a predicate the front end does not know in lane " +
                     std::to_string(std::countr_zero(unknown)) +
                     " (a value loaded from memory, or a timer): not supported yet (--assume " + std::to_string(in.at.line) +
                     "=1 or =0 says whether it runs)");
    }
  }
  if (unknown) {
    // Executed as if those lanes took it, then weighed, or a choice (either.cpp).
    maybe(in, g, unknown, e.mask);
    ++stack_.back().pc;
    return;
  }
  if (m == "brx") {
    // brx.idx: the lanes g go to the list's entry their index names, the
    // same in each of them (Triton's warp-specialization dispatch).
    std::optional<std::int64_t> idx;
    for (int l = 0; l < 32; ++l) {
      if (!((g >> l) & 1)) continue;
      const Val v = get(l, in.args.at(0), Type{32});
      if (!v.known())
        stop(in, "the index of '" + in.text + "' (lane " + std::to_string(l) +
                     ") is a value the front end does not know (loaded from memory it does not follow): not supported yet");
      if (idx && *idx != v.v) stop(in, "the lanes of '" + in.text + "' take different entries of its list: not supported yet");
      idx = v.v;
    }
    if (idx && (*idx < 0 || *idx >= static_cast<std::int64_t>(in.targets.size())))
      stop(in, "'" + in.text + "' takes entry " + std::to_string(*idx) + " of a list of " + std::to_string(in.targets.size()) +
                   " (PTX ISA brx.idx: undefined)");
    branch(in, g, idx ? in.targets[static_cast<std::size_t>(*idx)] : -1);
    return;
  }
  if (m == "bra") {
    branch(in, g);
    return;
  }
  if (m == "ret" || m == "exit") {
    if (probing_ && g) throw ProbeEnd{"its failing path ends the warp"};
    const int at = e.pc;
    const std::size_t depth = stack_.size();
    exit_lanes(g);
    if (stack_.size() == depth && stack_.back().pc == at) ++stack_.back().pc;
    return;
  }
  if (m == "trap") stop(in, "trap: the kernel aborts here");
  if (m == "call" && in.target == "__assertfail") {
    // A failed assert aborts the kernel (CUDA's assert). On a way of a
    // branch on a loaded value, that way is left out (either.cpp).
    if (either_depth_ > 0) throw AssertFails{in.at};
    stop(in, "an assert of the kernel fails for this launch (a call of __assertfail): the kernel aborts here; give "
             "--block, --arg or --grid values its asserts hold for");
  }
  if (m == "call") stop(in, "a call of '" + in.target + "': calls are not supported yet (nvcc inlines device functions unless told not to)");
  execute(in, g, e.mask);
  // The top entry may have changed (exit_lanes), never its pc but here.
  ++stack_.back().pc;
}

void Warp::execute(const Instr& in, std::uint32_t g, std::uint32_t mask) {
  const std::string& m = in.parts[0];
  if (g != 0 && !stale_.empty()) {
    for (int r : uses_of(in))
      if (std::find(stale_.begin(), stale_.end(), r) != stale_.end())
        stop(in, "'" + in.text + "' reads " + ctx.fn->regs[static_cast<std::size_t>(r)].name +
                     ", which the polling loop before it may leave with different values (a spin counter): not supported yet");
  }
  if (g != 0) {
    for (int r : defs_of(in)) {
      if (in.guard >= 0 && g != mask) break;
      stale_.erase(std::remove(stale_.begin(), stale_.end(), r), stale_.end());
    }
    consume_uses(in, g);
    if (m != "wgmma") wgmma_regs(in, g);
    if (m == "mbarrier" && in.parts.size() > 1 && (in.parts[1] == "try_wait" || in.parts[1] == "test_wait")) {
      wait_loop(in, g);
    } else if (!sync(in, g)) {
      arith(in, g);
    }
  }
}

bool Warp::advance() {
  const int n = static_cast<int>(ctx.fn->code.size());
  while (!stack_.empty()) {
    const Entry& e = stack_.back();
    if (e.mask != 0 && e.pc != e.rpc && e.pc < n) return true;
    stack_.pop_back();
  }
  return false;
}

bool Warp::run(WarpRun& out) {
  out_ = &out;
  out.cta = cta;
  out.warp = warp;
  stack_.assign(1, Entry{0, present, ctx.cfg.exit_node});
  try {
    while (advance()) step();
  } catch (const Stop& s) {
    ctx.errors->push_back(Diagnostic{ctx.file, ir::Loc{s.at.line, s.at.col},
                                     "CTA " + std::to_string(cta) + " warp " + std::to_string(warp) + ": " + s.message, true});
    return false;
  }
  return true;
}

void Warp::mark(const Instr& in, Event::Mark m) {
  if (probing_) throw ProbeEnd{"'" + in.text + "' at line " + std::to_string(in.at.line)};
  Event e;
  e.op.loc = ir::Loc{in.at.line, in.at.col};
  e.mark = m;
  out_->events.push_back(std::move(e));
  load_lanes_.push_back(0);  // parallel to the events (emit)
}

// The orders are a tree of choices: the first arrive is any target's, then
// the rest in every order (k! leaves; docs/ptx.md, "Lanes that arrive on
// different mbarriers").
void Warp::arrive_orders(const Instr& in, const std::vector<std::pair<Bytes, std::uint32_t>>& targets, const Event& ev) {
  constexpr std::size_t max_targets = 4;  // 24 orders
  if (targets.size() > max_targets)
    stop(in, "the lanes of '" + in.text + "' arrive on " + std::to_string(targets.size()) +
                 " different mbarriers: the front end reads every order of at most " + std::to_string(max_targets));
  std::vector<std::size_t> all(targets.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  auto orders = [&](auto& self, const std::vector<std::size_t>& rest) -> void {
    for (std::size_t i = 0; i < rest.size(); ++i) {
      if (i + 1 < rest.size()) mark(in, Event::Mark::either);
      Event e = ev;
      e.has_bar = true;
      e.bar = targets[rest[i]].first;
      e.makes_token = false;
      emit(in, targets[rest[i]].second, std::move(e));
      std::vector<std::size_t> others = rest;
      others.erase(others.begin() + static_cast<std::ptrdiff_t>(i));
      self(self, others);
      if (i + 1 < rest.size()) mark(in, Event::Mark::second);
    }
    for (std::size_t i = 0; i + 1 < rest.size(); ++i) mark(in, Event::Mark::end);
  };
  orders(orders, all);
}

}  // namespace pc::ptx
