// PTX's synchronization and memory instructions as IR operations (warp.hpp):
// the instruction's qualifiers choose the op of checker/ops.hpp's table and
// its options; its operands, computed per lane, give the bytes and the
// numbers. The rules of each op are spec/'s: nothing here decides an outcome.
#include <algorithm>
#include <bit>
#include <cstdio>

#include "checker/ptx/warp.hpp"
#include "spec/agent.hpp"

namespace pc::ptx {
namespace {

using ir::OpCode;

std::int64_t access_width(const Instr& in) {
  std::int64_t vec = 1, bytes = 0;
  for (std::size_t i = 1; i < in.parts.size(); ++i) {
    const std::string& q = in.parts[i];
    if (q.size() == 2 && q[0] == 'v' && q[1] >= '2' && q[1] <= '8') vec = q[1] - '0';
    Type t;
    if (parse_type(q, t)) bytes = std::max<std::int64_t>(1, t.bits / 8) * (q.size() > 3 && q.substr(q.size() - 2) == "x2" ? 2 : 1);
  }
  return vec * (bytes > 0 ? bytes : 4);
}

ir::Sem sem_of(const Instr& in) {
  if (in.has("relaxed")) return ir::Sem::relaxed;
  if (in.has("release")) return ir::Sem::release;
  if (in.has("acquire")) return ir::Sem::acquire;
  return ir::Sem::standard;
}

ir::Scope scope_of(const Instr& in) {
  if (in.has("cta")) return ir::Scope::cta;
  if (in.has("cluster") || in.has("gpu") || in.has("sys")) return ir::Scope::cluster;
  return ir::Scope::standard;
}

bool is_space(const std::string& q) { return q.rfind("shared", 0) == 0 || q == "global"; }

}  // namespace

Event Warp::wait_event(const Instr& in, std::uint32_t lanes) {
  // mbarrier.{try,test}_wait.parity{.sem}{.scope}{.shared{::cta}}.b64 p, [addr], parity{, hint}
  if (in.args.size() < 3 || in.args[0].kind != Operand::Kind::reg) stop(in, "'" + in.text + "' needs p, [addr], parity or state");
  if (lanes != stack_.back().mask)
    stop(in, "'" + in.text + "' under a guard that leaves out some of the warp's running lanes: not supported yet");
  Event ev;
  ev.op.code = OpCode::mbar_wait;
  const std::vector<Bytes> bar = lane_bytes(in, lanes, in.args[1], 8);
  if (bar.size() != 1 || bar[0].global) stop(in, "the lanes of '" + in.text + "' name different mbarriers: not supported yet");
  ev.has_bar = true;
  ev.bar = bar[0];
  if (in.has("parity")) {
    ev.op.parity = c(uniform(in, lanes, 2, "phase parity") & 1);
  } else {
    // The state token of an arrive of this warp, the same in every lane.
    for (int l = 0; l < 32; ++l) {
      if (!((lanes >> l) & 1)) continue;
      const Val t = get(l, in.args[2], Type{64});
      if (t.k != Val::K::token || (ev.token >= 0 && ev.token != t.v))
        stop(in, "the state token of '" + in.text + "' (lane " + std::to_string(l) +
                     ") is not one this warp's mbarrier.arrive returned to every waiting lane: not supported yet");
      ev.token = static_cast<int>(t.v);
    }
    const Event& made = out_->events.at(static_cast<std::size_t>(ev.token));
    if (!(made.bar == ev.bar)) stop(in, "'" + in.text + "' waits on another mbarrier than the one its state token came from");
  }
  ev.op.sem = sem_of(in);
  ev.op.scope = scope_of(in);
  return ev;
}

void Warp::wait_loop(const Instr& in, std::uint32_t lanes) {
  if (probing_) {
    // In a failing path: a wait of the same phase tries it again (checked
    // after the probe: check_retries); any other wait ends the path.
    std::optional<Event> other;
    try {
      other = wait_event(in, lanes);
    } catch (const Stop&) {
    }
    auto parity = [&](const Event& e) {
      return e.op.parity == ir::no_expr ? std::int64_t{-1} : ctx.kb->kernel().exprs[static_cast<std::size_t>(e.op.parity)].value;
    };
    if (same_wait_ && other && other->bar == same_wait_->bar && parity(*other) == parity(*same_wait_) &&
        other->token == same_wait_->token && other->op.sem == same_wait_->op.sem && other->op.scope == same_wait_->op.scope)
      throw SameWait{};
    throw Stop{in.at, "'" + in.text + "' inside another wait's failing path"};
  }
  Event ev = wait_event(in, lanes);
  // The loop around it: the failing path must come back to this wait with
  // nothing done and the same live values, so that the wait is blocking.
  for (int l = 0; l < 32; ++l)
    if ((lanes >> l) & 1) set(l, in.args[0], Val::num(0));
  const int pc = stack_.back().pc;
  std::vector<int> stale;
  same_wait_ = &ev;
  retries_.clear();
  std::optional<std::string> why = probe(pc, lanes, stale);
  same_wait_ = nullptr;
  if (!why && !retries_.empty()) why = check_retries(lanes, in.args[0], std::vector<Retry>(std::move(retries_)));
  retries_.clear();
  if (why)
    stop(in, "'" + in.text + "' is not in a polling loop the front end recognizes (" + *why +
                 "); it reads a try_wait or test_wait whose failure only tries again");
  emit(in, lanes, std::move(ev));
  for (int l = 0; l < 32; ++l)
    if ((lanes >> l) & 1) set(l, in.args[0], Val::num(1));
  for (int r : stale)
    if (std::find(stale_.begin(), stale_.end(), r) == stale_.end()) stale_.push_back(r);
}

// cp.async.bulk.tensor and cp.reduce.async.bulk.tensor (PTX ISA
// "cp.async.bulk.tensor"): a TMA copy of one box of the tensor map's, whose
// bytes the command line gives (--box). A load into shared memory
// completes them on its mbarrier (in each CTA of its multicast mask); a
// store or reduction reads them from shared memory in the thread's bulk
// async-group. The global side (the tensor's box at the coordinates) is not
// followed.
void Warp::tensor_copy(const Instr& in, std::uint32_t lanes) {
  auto not_yet = [&](const std::string& what) { stop(in, "'" + in.text + "': " + what + " is not supported by the PTX front end yet (docs/ptx.md)"); };
  if (in.has("im2col") || in.has("im2col_no_offs") || in.has("tile::gather4") || in.has("tile::scatter4")) not_yet("a tensor copy other than .tile");
  if (in.has("cta_group::1") || in.has("cta_group::2")) not_yet("a tensor copy with .cta_group (sm_100)");
  // The first state space after `tensor.Nd` is the destination's.
  std::string dst;
  for (std::size_t i = 3; i < in.parts.size() && dst.empty(); ++i)
    if (in.parts[i].rfind("shared", 0) == 0 || in.parts[i] == "global") dst = in.parts[i];
  Event ev;
  const bool reduce = in.parts[1] == "reduce";
  if (dst.rfind("shared", 0) == 0 && !reduce) {
    // [dstMem], [tensorMap, coords], [mbar]{, ctaMask}{, cache-policy}
    if (in.args.size() < 3) stop(in, "'" + in.text + "' needs [dst], [map, coords], [mbar]");
    const std::int64_t bytes = box_bytes(in, in.args[1], lanes);
    ev.op.code = ir::OpCode::tma_load;
    ev.data = lane_bytes(in, lanes, in.args[0], bytes);
    const std::vector<Bytes> b = lane_bytes(in, lanes, in.args[2], 8);
    if (b.size() != 1 || b[0].global) stop(in, "the lanes of '" + in.text + "' name different mbarriers: not supported yet");
    ev.has_bar = true;
    ev.bar = b[0];
    ev.op.bytes = c(bytes);
    if (in.has("multicast::cluster")) ev.op.multicast = c(uniform(in, lanes, 3, "CTA mask"));
    if (ev.data.size() != 1 || ev.data[0].cta != cta) not_yet("a tensor copy into another CTA's shared memory");
  } else if (dst == "global") {
    // [tensorMap, coords], [srcMem]
    if (in.args.size() < 2) stop(in, "'" + in.text + "' needs [map, coords], [src]");
    const std::int64_t bytes = box_bytes(in, in.args[0], lanes);
    ev.op.code = reduce ? ir::OpCode::tma_reduce : ir::OpCode::tma_store;
    Instr src = in;
    src.parts = {"cp", "shared::cta"};
    ev.data = lane_bytes(src, lanes, in.args[1], bytes);
  } else {
    not_yet("this form of tensor copy");
  }
  emit(in, lanes, std::move(ev));
}

std::vector<Bytes> Warp::desc_bytes(const Instr& in, std::uint32_t lanes, std::size_t k, DescFormat format, const Operand2d& operand,
                                    bool pair) const {
  std::optional<std::int64_t> v;
  for (int l = 0; l < 32; ++l) {
    if (!((lanes >> l) & 1)) continue;
    const Val x = get(l, in.args.at(k), Type{64});
    if (!x.known()) stop(in, "the matrix descriptor of '" + in.text + "' is a value the front end does not know");
    if (v && *v != x.v) stop(in, "the lanes give '" + in.text + "' different matrix descriptors: not supported yet");
    v = x.v;
  }
  const DescBytes d = descriptor_bytes(static_cast<std::uint64_t>(v.value_or(0)), format, operand);
  if (!d.error.empty()) stop(in, "'" + in.text + "': " + d.error);
  std::vector<Bytes> out;
  for (const int peer : pair ? std::vector<int>{cta, cta ^ 1} : std::vector<int>{cta})
    for (const auto& [lo, hi] : d.spans) out.push_back(Bytes{false, peer, -1, lo, hi});
  return out;
}

// wgmma (PTX ISA "Asynchronous Warpgroup Level Matrix Multiply-Accumulate"):
// .fence, .commit_group, .wait_group N, and .mma_async, whose shared-memory
// operands are read through 64-bit matrix descriptors: A is 64 rows and B N
// rows (the shape .m64nNkK) of K elements of their types, K-major unless
// the instruction's imm-trans operand (f16 and bf16 only) says MN-major;
// desc.hpp turns each descriptor into the bytes it names. Its accumulator
// and register A operands are tagged, so that a later instruction touching
// them is a wgmma_regs access.
void Warp::wgmma(const Instr& in, std::uint32_t lanes) {
  const std::string sub = in.parts.size() > 1 ? in.parts[1] : "";
  Event ev;
  if (sub == "fence") {
    ev.op.code = ir::OpCode::wgmma_fence;
    regs_seen_ &= spec::agent::regs_tmem_ld;  // a tcgen05.ld in flight stays so
  } else if (sub == "commit_group") {
    ev.op.code = ir::OpCode::wgmma_commit;
  } else if (sub == "wait_group") {
    ev.op.code = ir::OpCode::wgmma_wait;
    ev.op.n = c(uniform(in, lanes, 0, "group count"));
  } else if (sub == "mma_async" && !in.has("sp")) {
    if (in.args.size() < 3 || in.args[0].kind != Operand::Kind::vec)
      stop(in, "'" + in.text + "' needs {d...}, a-desc or {a...}, b-desc, ...");
    ev.op.code = ir::OpCode::wgmma;
    const bool a_regs = in.args[1].kind == Operand::Kind::vec;
    if (a_regs) ev.op.regs = spec::agent::regs_a;
    // .m64nNkK and the types of A and B, the last two of the instruction.
    std::int64_t m = 0, n = 0, kk = 0;
    for (const std::string& p : in.parts)
      if (std::sscanf(p.c_str(), "m%ldn%ldk%ld", &m, &n, &kk) == 3) break;
    if (m != 64 || n <= 0 || kk <= 0) stop(in, "'" + in.text + "' needs a shape .m64nNkK");
    auto bits = [&](const std::string& t) {
      return t == "f16" || t == "bf16" ? 16 : t == "tf32" ? 32 : t == "e4m3" || t == "e5m2" || t == "s8" || t == "u8" ? 8 : t == "b1" ? 1 : 0;
    };
    const int abits = bits(in.parts[in.parts.size() - 2]), bbits = bits(in.parts.back());
    if (abits == 0 || bbits == 0) stop(in, "'" + in.text + "' needs the types of A and B last");
    // imm-trans-a, imm-trans-b: the last two operands (one, imm-trans-b, where A is in registers), f16 and bf16 only.
    const bool trans_ops = abits == 16 && in.args.size() == (a_regs ? 7u : 8u);
    auto imm = [&](std::size_t k) {
      const Val x = get(std::countr_zero(lanes), in.args[k], Type{32});
      if (!x.known()) stop(in, "the transpose operand of '" + in.text + "' is a value the front end does not know");
      return x.v != 0;
    };
    const bool trans_a = trans_ops && !a_regs && imm(in.args.size() - 2);
    const bool trans_b = trans_ops && imm(in.args.size() - 1);
    if (!a_regs) for (const Bytes& b : desc_bytes(in, lanes, 1, DescFormat::wgmma, {m, kk, abits, !trans_a}, false)) ev.desc.push_back(b);
    for (const Bytes& b : desc_bytes(in, lanes, 2, DescFormat::wgmma, {n, kk, bbits, !trans_b}, false)) ev.desc.push_back(b);
    for (int l = 0; l < 32; ++l) {
      if (!((lanes >> l) & 1)) continue;
      tag_wgmma(l, in.args[0], spec::agent::regs_acc);
      if (a_regs) tag_wgmma(l, in.args[1], spec::agent::regs_a);
    }
  } else {
    stop(in, "'" + in.text + "' is not supported by the PTX front end yet (docs/ptx.md)");
  }
  emit(in, lanes, std::move(ev));
}

// A strong operation (atom, red, ld/st .relaxed/.acquire/.release/.volatile):
// morally strong with another only where each one's scope includes the
// other's thread (PTX ISA, "Morally strong operations"). The model's strong
// operations are of the whole cluster, so a .cta scope is one only in a
// cluster of one CTA. Their .acquire/.release ordering is not used, which a
// note says (docs/ptx.md).
void Warp::strong_op(const Instr& in) {
  if (in.has("cta") && ctx.cluster > 1)
    stop(in, "'" + in.text + "' is a .cta-scoped strong operation in a cluster of " + std::to_string(ctx.cluster) +
                 " CTAs, which is morally strong only with operations of its own CTA: not supported yet");
  if (in.has("acquire") || in.has("release") || in.has("acq_rel"))
    ctx.unordered_strong.emplace_back(in.at.line, in.text);
}

bool Warp::sync(const Instr& in, std::uint32_t lanes) {
  const std::string& m = in.parts[0];
  const std::string sub = in.parts.size() > 1 ? in.parts[1] : "";
  Event ev;
  auto bar_at = [&](std::size_t arg) {
    const std::vector<Bytes> b = lane_bytes(in, lanes, in.args.at(arg), 8);
    if (b.size() != 1 || b[0].global || b[0].hi - b[0].lo != 8)
      stop(in, "the lanes of '" + in.text + "' name different mbarriers: not supported yet");
    ev.has_bar = true;
    ev.bar = b[0];
  };
  auto need = [&](std::size_t n) {
    if (in.args.size() < n) stop(in, "'" + in.text + "' needs " + std::to_string(n) + " operands");
  };
  auto not_yet = [&](const std::string& what) -> bool {
    stop(in, "'" + in.text + "': " + what + " is not supported by the PTX front end yet (docs/ptx.md)");
  };

  // ---- st.async and red.async: a remote store that completes bytes on the
  // target CTA's mbarrier ----
  if ((m == "st" || m == "red") && sub == "async") {
    // st.async{.sem}{.scope}.shared::cluster.mbarrier::complete_tx::bytes{.v2,.v4}.TYPE [addr], value, [mbar]
    need(3);
    ev.op.code = m == "st" ? OpCode::st_async : OpCode::red_async;
    const std::int64_t width = access_width(in);
    ev.data = lane_bytes(in, lanes, in.args[0], width);
    bar_at(2);
    ev.op.bytes = c(width);
    if (ev.data.empty() || std::any_of(ev.data.begin(), ev.data.end(), [&](const Bytes& b) { return b.global || b.cta != ev.data[0].cta; }) ||
        ev.data[0].cta != ev.bar.cta)
      not_yet("an st.async or red.async whose lanes write to different CTAs, or to a CTA other than their mbarrier's");
    emit(in, lanes, std::move(ev));
    return true;
  }

  // ---- loads and stores; strong ones (.relaxed, .acquire, .release,
  // .volatile: PTX ISA, Memory Consistency Model, "Strong operations") are
  // the model's atomic_load and atomic ----
  if (m == "ld" || m == "st" || m == "ldu") {
    if (in.has("param") || in.has("const") || in.has("local")) {
      if (m == "st") return true;  // the thread's own memory
      if (in.has("param")) return false;
      for (int l = 0; l < 32; ++l)
        if ((lanes >> l) & 1) set(l, in.args[0], Val::unknown());
      return true;
    }
    if (in.has("mmio")) not_yet("an .mmio load or store");
    need(2);
    const bool load = m != "st";
    const bool strong = in.has("relaxed") || in.has("acquire") || in.has("release") || in.has("volatile");
    if (strong) strong_op(in);
    ev.op.code = load ? (strong ? OpCode::atomic_load : OpCode::read) : (strong ? OpCode::atomic : OpCode::write);
    ev.data = lane_bytes(in, lanes, in.args[load ? 1 : 0], access_width(in));
    const bool shared = !ev.data.empty() && !ev.data[0].global;
    emit(in, lanes, std::move(ev));
    // Shared stores are kept for other warps' loads after a barrier of the
    // whole CTA, which may read their values (epoch.cpp).
    if (!load && shared && !strong && in.args.size() > 1) record_store(in, lanes, in.args[0], in.args[1], access_width(in));
    if (load) {
      const int id = static_cast<int>(out_->events.size()) - 1;
      // A shared-memory load's data: its first use consumes it.
      if (shared) load_lanes_.back() = lanes;
      for (int l = 0; l < 32; ++l)
        if ((lanes >> l) & 1) {
          const std::optional<Val> stored =
              shared && !strong && in.args[0].kind == Operand::Kind::reg ? stored_value(in, l, in.args[1], access_width(in)) : std::nullopt;
          if (stored && stored->known()) {
            set(l, in.args[0], Val::num(norm(stored->v, type_of(in.parts))));
          } else if (stored) {  // an address: its first use consumes the load, as data's does
            Val a = *stored;
            a.load = shared ? id : -1;
            set(l, in.args[0], a);
          } else {
            loaded(l, in.args[0], shared ? id : -1);
          }
        }
      // A 32-bit load of where tcgen05.alloc wrote its columns' address.
      if (shared && access_width(in) == 4 && in.args[0].kind == Operand::Kind::reg)
        for (int l = 0; l < 32; ++l) {
          if (!((lanes >> l) & 1)) continue;
          const Bytes b = bytes_at(in, l, in.args[1], 4);
          if (b.global || b.cta != cta) continue;
          ctx.word_reads.insert(b.lo);
          for (std::size_t a = 0; a < ctx.tmem_allocs.size(); ++a)
            if (ctx.tmem_allocs[a].slot == b.lo) set(l, in.args[0], Val{Val::K::tmem, 0, static_cast<int>(a), id, 0});
        }
    }
    return true;
  }
  // ---- ldmatrix and stmatrix: the warp's 8x8 matrices of 16-bit elements,
  // each row's 16 bytes at the address one lane gives (PTX ISA ldmatrix:
  // "threads 0-7" for .x1, "0-15" for .x2, "0-31" for .x4 hold the rows'
  // addresses; stmatrix the same) ----
  if (m == "ldmatrix" || m == "stmatrix") {
    need(2);
    if (!in.has("m8n8") || !(in.has("b16")))
      not_yet("an " + m + " other than .m8n8 of .b16 elements");
    const int rows = in.has("x4") ? 32 : in.has("x2") ? 16 : in.has("x1") ? 8 : 0;
    if (rows == 0) stop(in, "'" + in.text + "' needs .x1, .x2 or .x4");
    const bool load = m == "ldmatrix";
    const std::uint32_t givers = lanes & (rows == 32 ? 0xffffffffu : ((1u << rows) - 1));
    ev.op.code = load ? OpCode::read : OpCode::write;
    ev.data = lane_bytes(in, givers, in.args[load ? 1 : 0], 16);
    if (std::any_of(ev.data.begin(), ev.data.end(), [](const Bytes& b) { return b.global; }))
      stop(in, "'" + in.text + "' addresses global memory: " + m + " reads and writes shared memory only (PTX ISA " + m + ")");
    emit(in, lanes, std::move(ev));
    if (load) {
      const int id = static_cast<int>(out_->events.size()) - 1;
      load_lanes_.back() = lanes;  // its data: the first use consumes it
      for (int l = 0; l < 32; ++l)
        if ((lanes >> l) & 1) loaded(l, in.args[0], id);
    }
    return true;
  }
  // ---- griddepcontrol: programmatic dependent launch. The launch orders no
  // memory; the wait orders the prerequisite grid's, which a one-kernel
  // check has none of (docs/spec.md, griddepcontrol) ----
  if (m == "griddepcontrol") {
    if (sub == "launch_dependents") ev.op.code = OpCode::griddep_launch;
    else if (sub == "wait") ev.op.code = OpCode::griddep_wait;
    else not_yet("'" + in.text + "'");
    emit(in, lanes, std::move(ev));
    return true;
  }
  // ---- atom and red (red.async is above): an atomic read-modify-write;
  // atom's result is data the front end does not know ----
  if (m == "atom" || m == "red") {
    need(2);
    strong_op(in);
    const bool atom = m == "atom";
    ev.op.code = OpCode::atomic;
    std::int64_t width = access_width(in);
    if (in.has("cas") && width > 8) width = 8;  // atom.cas.b128 names 16 bytes; its type is the width either way
    ev.data = lane_bytes(in, lanes, in.args[atom ? 1 : 0], width);
    emit(in, lanes, std::move(ev));
    if (atom)
      for (int l = 0; l < 32; ++l)
        if ((lanes >> l) & 1) set(l, in.args[0], Val::unknown());
    return true;
  }
  if (m == "setmaxnreg" || m == "nanosleep" || m == "prefetch" || m == "prefetchu" || m == "pmevent" || m == "discard" ||
      m == "applypriority" || m == "createpolicy")
    return true;  // no memory or synchronization effect (createpolicy: a cache policy value)
  if (m == "wgmma") {
    wgmma(in, lanes);
    return true;
  }
  if (m == "tcgen05") {
    tcgen05(in, lanes);
    return true;
  }
  if (m == "clusterlaunchcontrol") {
    clc(in, lanes);
    return true;
  }
  if (m == "tensormap" || m == "multimem")
    not_yet("'" + m + "'");

  // ---- mbarrier ----
  if (m == "mbarrier") {
    if (sub == "init") {
      need(2);
      ev.op.code = OpCode::mbar_init;
      bar_at(0);
      ev.op.count = c(uniform(in, lanes, 1, "count"));
    } else if (sub == "arrive" || sub == "arrive_drop") {
      need(2);
      const bool tx = in.has("expect_tx");
      ev.op.code = sub == "arrive_drop" ? OpCode::mbar_arrive_drop : tx ? OpCode::mbar_arrive_expect_tx : OpCode::mbar_arrive;
      if (tx) ev.op.bytes = c(uniform(in, lanes, 2, "tx count"));
      else if (in.args.size() > 2) ev.op.count = c(uniform(in, lanes, 2, "count"));
      ev.op.no_complete = in.has("noComplete");
      ev.op.sem = sem_of(in);
      ev.op.scope = scope_of(in);
      // Lanes that name different mbarriers (CUTLASS's multicast release:
      // lane i arrives on CTA i's barrier): each its own arrive, in every order.
      std::vector<std::pair<Bytes, std::uint32_t>> targets;
      for (int l = 0; l < 32; ++l) {
        if (!((lanes >> l) & 1)) continue;
        const Bytes b = bytes_at(in, l, in.args[1], 8);
        if (b.global) stop(in, "the lanes of '" + in.text + "' name an mbarrier outside shared memory");
        const auto it = std::find_if(targets.begin(), targets.end(), [&](const auto& t) { return t.first == b; });
        if (it == targets.end()) targets.emplace_back(b, 1u << l);
        else it->second |= 1u << l;
      }
      if (targets.size() > 1) {
        arrive_orders(in, targets, ev);
        for (int l = 0; l < 32; ++l)
          if ((lanes >> l) & 1) set(l, in.args[0], Val::unknown());  // a wait on one of these tokens is refused
        return true;
      }
      bar_at(1);
      // The state token, in every arriving lane (a remote arrive returns none).
      const bool token = in.args[0].kind == Operand::Kind::reg && ev.bar.cta == cta;
      ev.makes_token = token;
      emit(in, lanes, std::move(ev));
      for (int l = 0; l < 32; ++l)
        if ((lanes >> l) & 1) set(l, in.args[0], token ? Val{Val::K::token, static_cast<std::int64_t>(out_->events.size()) - 1, -1, -1, 0} : Val::unknown());
      return true;
    } else if (sub == "expect_tx" || sub == "complete_tx") {
      need(2);
      ev.op.code = sub == "expect_tx" ? OpCode::mbar_expect_tx : OpCode::mbar_complete_tx;
      bar_at(0);
      ev.op.bytes = c(uniform(in, lanes, 1, "tx count"));
      ev.op.sem = sem_of(in);
      ev.op.scope = scope_of(in);
    } else if (sub == "inval") {
      need(1);
      ev.op.code = OpCode::mbar_inval;
      bar_at(0);
    } else {
      not_yet("mbarrier." + sub);
    }
    emit(in, lanes, std::move(ev));
    return true;
  }

  // ---- named barriers, the warp barrier, the cluster barrier ----
  if (m == "bar" || m == "barrier") {
    if (sub == "warp") {  // bar.warp.sync membermask
      need(1);
      const std::int64_t mask = uniform(in, lanes, 0, "member mask");
      // The member mask must be the executing lanes (spec::rules::warp_mask):
      // a mask that differs is not read yet.
      if (static_cast<std::uint32_t>(mask) != lanes) not_yet("bar.warp.sync whose member mask is not the executing lanes");
      ev.op.code = OpCode::syncwarp;
      emit(in, lanes, std::move(ev));
      return true;
    }
    if (sub == "cluster") {
      const std::string what = in.parts.size() > 2 ? in.parts[2] : "";
      if (what == "arrive") {
        ev.op.code = OpCode::cluster_arrive;
        ev.op.sem = sem_of(in);
      } else if (what == "wait") {
        ev.op.code = OpCode::cluster_wait;
      } else {
        not_yet("barrier.cluster." + what);
      }
      emit(in, lanes, std::move(ev));
      return true;
    }
    const std::string what = sub == "cta" ? (in.parts.size() > 2 ? in.parts[2] : "") : sub;
    need(1);
    if (what == "sync" || what == "arrive") {
      ev.op.code = what == "sync" ? OpCode::bar_sync : OpCode::bar_arrive;
      ev.op.id = c(uniform(in, lanes, 0, "barrier id"));
      if (in.args.size() > 1) ev.op.count = c(uniform(in, lanes, 1, "thread count"));
      else if (what == "arrive") stop(in, "bar.arrive needs a thread count (PTX ISA bar/barrier)");
    } else {
      not_yet(m + "." + what);
    }
    emit(in, lanes, std::move(ev));
    return true;
  }

  // ---- fences ----
  if (m == "membar") {
    if (sub == "proxy") not_yet("membar.proxy");
    ev.op.code = OpCode::fence_sc;
    ev.op.scope = sub == "cta" ? ir::Scope::cta : ir::Scope::cluster;
    emit(in, lanes, std::move(ev));
    return true;
  }
  if (m == "fence") {
    if (sub == "proxy") {
      const std::string kind = in.parts.size() > 2 ? in.parts[2] : "";
      if (kind != "async") not_yet("fence.proxy." + kind);
      ev.op.code = OpCode::fence_proxy_async;
      ev.op.space = in.has("global") ? ir::ProxySpace::global
                    : in.has("shared::cta") ? ir::ProxySpace::shared_cta
                    : in.has("shared::cluster") ? ir::ProxySpace::shared_cluster
                                                : ir::ProxySpace::all;
    } else if (sub == "mbarrier_init") {
      ev.op.code = OpCode::fence_mbarrier_init;
    } else if (sub == "acq_rel" || sub == "sc") {
      ev.op.code = sub == "sc" ? OpCode::fence_sc : OpCode::fence_acq_rel;
      ev.op.scope = scope_of(in) == ir::Scope::cta ? ir::Scope::cta : ir::Scope::cluster;
    } else {
      not_yet("fence." + sub);
    }
    emit(in, lanes, std::move(ev));
    return true;
  }

  // ---- async copies ----
  if (m == "cp" && sub == "async") {
    const std::string kind = in.parts.size() > 2 ? in.parts[2] : "";
    if (kind == "bulk") {
      const std::string k3 = in.parts.size() > 3 ? in.parts[3] : "";
      // A load into shared memory issued by several lanes (not the whole
      // warp: "each its own copy" is refused at emit): each lane's copy is
      // its own (the copy is per thread), one lane after the other.
      const bool load = k3 == "tensor" ? (in.parts.size() > 5 && in.parts[5].rfind("shared", 0) == 0)
                                       : (is_space(k3) && k3 != "global" && in.parts.size() > 4 && in.parts[4] == "global");
      if (load && std::popcount(lanes) > 1 && lanes != 0xffffffffu) {
        for (int l = 0; l < 32; ++l)
          if ((lanes >> l) & 1u) sync(in, 1u << l);
        return true;
      }
      if (k3 == "tensor") {
        tensor_copy(in, lanes);
        return true;
      }
      if (k3 == "prefetch") return true;
      // A commit or wait of the bulk async-groups by several lanes (CUDA
      // code that calls it from every thread): each thread commits or waits
      // for its own groups (PTX ISA cp.async.bulk.commit_group, wait_group:
      // "the executing thread"), and only the warp's leader lane has any
      // (a bulk copy or store by another lane is refused at emit: the front
      // end keeps the thread's groups for the leader), so the other lanes'
      // do nothing: read as the leader's, or as nothing without it.
      if ((k3 == "commit_group" || k3 == "wait_group") && std::popcount(lanes) > 1) {
        const int leader = single_lane_ >= 0 ? single_lane_ : 0;
        if (!((lanes >> leader) & 1u)) return true;
        lanes = 1u << leader;
      }
      if (k3 == "commit_group") {
        ev.op.code = OpCode::bulk_commit_group;
      } else if (k3 == "wait_group") {
        ev.op.code = in.has("read") ? OpCode::bulk_wait_group_read : OpCode::bulk_wait_group;
        ev.op.n = c(uniform(in, lanes, 0, "group count"));
      } else if (is_space(k3) && k3 != "global" && in.parts.size() > 4 && in.parts[4] == "global") {
        // cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes{.multicast::cluster} [dst], [src], size, [mbar]{, mask}
        need(4);
        const std::int64_t size = uniform(in, lanes, 2, "size");
        ev.op.code = OpCode::tma_load;
        ev.data = lane_bytes(in, lanes, in.args[0], size);
        Instr src = in;
        src.parts = {"cp", "global"};
        ev.global = lane_bytes(src, lanes, in.args[1], size);
        bar_at(3);
        ev.op.bytes = c(size);
        if (in.has("multicast::cluster")) ev.op.multicast = c(uniform(in, lanes, 4, "CTA mask"));
        if (ev.data.size() != 1 || ev.data[0].cta != cta) not_yet("a bulk copy into another CTA's shared memory");
      } else if (k3 == "global" && in.parts.size() > 4 && is_space(in.parts[4])) {
        // cp.async.bulk.global.shared::cta.bulk_group [dst], [src], size
        need(3);
        const std::int64_t size = uniform(in, lanes, 2, "size");
        ev.op.code = OpCode::tma_store;
        Instr dst = in;
        dst.parts = {"cp", "global"};
        ev.global = lane_bytes(dst, lanes, in.args[0], size);
        Instr src = in;
        src.parts = {"cp", "shared::cta"};
        ev.data = lane_bytes(src, lanes, in.args[1], size);
      } else {
        not_yet("this form of cp.async.bulk");
      }
      emit(in, lanes, std::move(ev));
      return true;
    }
    if (kind == "ca" || kind == "cg") {  // cp.async.ca.shared{::cta}.global [dst], [src], cp-size{, src-size}
      need(3);
      ev.op.code = OpCode::cp_async;
      ev.data = lane_bytes(in, lanes, in.args[0], uniform(in, lanes, 2, "copy size"));
    } else if (kind == "commit_group") {
      ev.op.code = OpCode::cp_async_commit;
    } else if (kind == "wait_group") {
      ev.op.code = OpCode::cp_async_wait;
      ev.op.n = c(uniform(in, lanes, 0, "group count"));
    } else if (kind == "wait_all") {
      ev.op.code = OpCode::cp_async_wait_all;
    } else if (kind == "mbarrier") {  // cp.async.mbarrier.arrive{.noinc}.shared{::cta}.b64 [addr]
      ev.op.code = OpCode::cp_async_mbarrier_arrive;
      bar_at(0);
      ev.op.noinc = in.has("noinc");
    } else {
      not_yet("cp.async." + kind);
    }
    emit(in, lanes, std::move(ev));
    return true;
  }
  if (m == "cp" && sub == "reduce" && in.has("tensor")) {
    tensor_copy(in, lanes);
    return true;
  }
  if (m == "cp" && sub == "reduce") {  // cp.reduce.async.bulk.global.shared::cta.bulk_group.OP.TYPE [dst], [src], size
    if (!in.has("bulk") || !in.has("global")) not_yet("this form of cp.reduce.async");
    need(3);
    const std::int64_t size = uniform(in, lanes, 2, "size");
    ev.op.code = OpCode::tma_reduce;
    Instr src = in;
    src.parts = {"cp", "shared::cta"};
    ev.data = lane_bytes(src, lanes, in.args[1], size);
    emit(in, lanes, std::move(ev));
    return true;
  }
  if (m == "cp") not_yet("cp." + sub);
  return false;
}

}  // namespace pc::ptx
