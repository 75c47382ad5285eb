// tcgen05 (PTX ISA "TensorCore 5th Generation Family Instructions", sm_100a)
// as the model's tcgen05 operations (docs/ptx.md, "Tensor memory").
//
// tcgen05.alloc writes the address of the columns it allocates to shared
// memory (a write of those 4 bytes by the warp); a 32-bit load from there
// is that address (Val::K::tmem, sync.cpp), and adding to it moves it
// (lane << 16 | column: "Tensor Memory Addressing"). An MMA's D is the
// columns N of its instruction descriptor names from its address ("Instruction
// descriptor": N >> 3 in bits 22-17), its shared operands the bytes their
// descriptors name for its shape (desc.hpp: A M rows, B N rows, 32 bytes of
// K each, K-major unless the instruction descriptor transposes them); a tcgen05.ld
// or .st accesses the columns its shape and count name, in the lane quarter
// its address's lane names. With .cta_group::2 the alloc, dealloc and
// relinquish are the CTA pair's collectives, and an MMA of the pair reads
// half its A's rows and half its B's in each CTA of the pair, at the
// offsets its descriptors name (PTX ISA tcgen05.mma, "CTA pair").
#include <algorithm>

#include "checker/ptx/warp.hpp"
#include "spec/agent.hpp"

namespace pc::ptx {
namespace {

using ir::OpCode;

// Columns of one tcgen05.ld/st: the shape's 32-bit columns per repetition
// times the repetitions (.x1 .. .x128), and the lanes it reaches; 0 where
// the shape is not one the ISA lists.
struct Shape {
  std::int64_t cols = 0;
  int lanes = 0;
};
Shape shape_of(const Instr& in) {
  std::int64_t per = 0;
  int lanes = 0;
  if (in.has("32x32b")) per = 1, lanes = 32;
  else if (in.has("16x64b")) per = 2, lanes = 16;
  else if (in.has("16x128b")) per = 4, lanes = 16;
  else if (in.has("16x256b")) per = 8, lanes = 16;
  else if (in.has("16x32bx2")) per = 1, lanes = 16;
  std::int64_t num = 0;
  for (const std::string& p : in.parts)
    if (p.size() > 1 && p[0] == 'x' && std::all_of(p.begin() + 1, p.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
      num = std::stoll(p.substr(1));
  if (per == 0 || num <= 0 || num > 128 || (num & (num - 1)) != 0) return {};
  return {per * num, lanes};
}

}  // namespace

Val Warp::tmem_addr(const Instr& in, std::uint32_t lanes, const Operand& o) const {
  std::optional<Val> v;
  for (int l = 0; l < 32; ++l) {
    if (!((lanes >> l) & 1)) continue;
    const Val x = o.kind == Operand::Kind::addr ? address(l, o) : get(l, o, Type{32});
    if (x.k != Val::K::tmem) {
      ctx.tmem_unfollowed = true;
      stop(in, "the tensor-memory address of '" + in.text + "' (lane " + std::to_string(l) +
                   ") is not one the front end follows from a tcgen05.alloc (the address the alloc wrote to shared memory, "
                   "loaded with a 32-bit ld.shared, plus offsets)");
    }
    if (v && !(*v == x)) stop(in, "the lanes of '" + in.text + "' give different tensor-memory addresses: not supported yet");
    v = x;
  }
  if (!v) stop(in, "'" + in.text + "' is executed by no lane");
  return *v;
}

void Warp::tcgen05(const Instr& in, std::uint32_t lanes) {
  const std::string sub = in.parts.size() > 1 ? in.parts[1] : "";
  auto not_yet = [&](const std::string& what) {
    stop(in, "'" + in.text + "': " + what + " is not supported by the PTX front end yet (docs/ptx.md)");
  };
  // .cta_group::2: the CTA pair's (spec/tmem.hpp; docs/dsl.md `cta_group 2`):
  // a collective of one warp in each CTA, or an MMA of the pair and its commit.
  const bool pair = in.has("cta_group::2");
  if (pair && ctx.cluster % 2 != 0)
    stop(in, "'" + in.text + "' works on a CTA pair (PTX ISA tcgen05, \"CTA Pair\"): the launch's cluster has " +
                 std::to_string(ctx.cluster) + " CTA" + (ctx.cluster == 1 ? "" : "s") + " (--cluster N, N even)");
  auto need = [&](std::size_t n) {
    if (in.args.size() < n) stop(in, "'" + in.text + "' needs " + std::to_string(n) + " operands");
  };
  auto cols_of = [&](const Val& a, std::int64_t n) {
    return Event::Cols{a.base, a.v & 0xFFFF, (a.v & 0xFFFF) + n};
  };
  Event ev;
  if (sub == "alloc") {
    // tcgen05.alloc.cta_group::1.sync.aligned{.shared::cta}.b32 [dst], nCols;
    need(2);
    const std::int64_t cols = uniform(in, lanes, 1, "column count");
    if (cols < 32 || cols > 512 || (cols & (cols - 1)) != 0)
      stop(in, "tcgen05.alloc of " + std::to_string(cols) + " columns: the count must be a power of 2 from 32 to 512 (PTX ISA tcgen05.alloc)");
    const std::vector<Bytes> at = lane_bytes(in, lanes, in.args[0], 4);
    if (at.size() != 1 || at[0].global || at[0].cta != cta)
      stop(in, "the lanes of '" + in.text + "' name different shared addresses, or another CTA's: not supported yet");
    int id = -1;
    for (std::size_t a = 0; a < ctx.tmem_allocs.size(); ++a)
      if (ctx.tmem_allocs[a].slot == at[0].lo) id = static_cast<int>(a);
    if (id < 0) {
      id = static_cast<int>(ctx.tmem_allocs.size());
      ctx.tmem_allocs.push_back({at[0].lo, cols});
      if (ctx.word_reads.count(at[0].lo)) ctx.tmem_late = true;  // a warp already read it as data
    } else if (ctx.tmem_allocs[static_cast<std::size_t>(id)].cols != cols) {
      stop(in, "tcgen05.alloc sites that write their address to the same shared bytes allocate different column counts: not supported yet");
    }
    ev.op.code = OpCode::tcgen05_alloc;
    ev.op.cta_pair = pair;
    ev.tmem = {id, 0, cols};
    emit(in, lanes, std::move(ev));
    Event w;  // the address written to shared memory
    w.op.code = OpCode::write;
    w.data = at;
    emit(in, lanes, std::move(w));
    return;
  }
  if (sub == "dealloc") {
    // tcgen05.dealloc.cta_group::1.sync.aligned.b32 taddr, nCols;
    need(2);
    const Val a = tmem_addr(in, lanes, in.args[0]);
    const std::int64_t cols = uniform(in, lanes, 1, "column count");
    const auto& alloc = ctx.tmem_allocs.at(static_cast<std::size_t>(a.base));
    if (a.v != 0 || cols != alloc.cols)
      stop(in, "tcgen05.dealloc of " + std::to_string(cols) + " columns at offset " + std::to_string(a.v) +
                   " of an allocation of " + std::to_string(alloc.cols) + ": the front end reads a dealloc of a whole allocation only");
    ev.op.code = OpCode::tcgen05_dealloc;
    ev.tmem = {a.base, 0, cols};
  } else if (sub == "relinquish_alloc_permit") {
    ev.op.code = OpCode::tcgen05_relinquish;
  } else if (sub == "mma") {
    // tcgen05.mma.cta_group::1.kind::K [d], a-desc|[a-tmem], b-desc, idesc, {disable-output-lane,} enable-input-d{, scale};
    if (in.has("ws") || in.has("sp") || in.has("block_scale") || in.parts.size() < 3)
      not_yet("a tcgen05.mma other than the dense .cta_group::1 form");
    need(5);
    const Val d = tmem_addr(in, lanes, in.args[0]);
    if ((d.v >> 16) != 0) stop(in, "the D address of '" + in.text + "' names lane " + std::to_string(d.v >> 16) + ": an MMA's D starts at lane 0");
    std::optional<std::int64_t> idesc;
    for (int l = 0; l < 32; ++l) {
      if (!((lanes >> l) & 1)) continue;
      const Val i = get(l, in.args[3], Type{32});
      if (!i.known()) stop(in, "the instruction descriptor of '" + in.text + "' is a value the front end does not know");
      if (idesc && *idesc != i.v) stop(in, "the lanes give '" + in.text + "' different instruction descriptors: not supported yet");
      idesc = i.v;
    }
    // "Instruction descriptor": N >> 3 in bits 22-17, M >> 4 in bits 28-24,
    // A and B MN-major (transposed) in bits 15 and 16.
    const std::int64_t n = ((*idesc >> 17) & 0x3F) << 3;
    const std::int64_t m = ((*idesc >> 24) & 0x1F) << 4;
    if (n == 0 || m == 0) stop(in, "the instruction descriptor of '" + in.text + "' gives M = " + std::to_string(m) + ", N = " + std::to_string(n));
    // K of one MMA by kind: always 32 bytes of each row ("Matrix shape").
    const int bits = in.has("kind::tf32") ? 32 : in.has("kind::f16") ? 16 : in.has("kind::mxf4") || in.has("kind::mxf4nvf4") ? 4 : 8;
    const std::int64_t k = 256 / bits;
    // A pair MMA's A is M/2 rows and its B N/2 rows in each CTA ("CTA pair").
    const std::int64_t split = pair ? 2 : 1;
    ev.op.code = OpCode::tcgen05_mma;
    ev.tmem = cols_of(d, n);
    if (in.args[1].kind == Operand::Kind::addr) {
      // A in tensor memory: a lane per row, K elements of 32-bit columns.
      const Val a = tmem_addr(in, lanes, in.args[1]);
      ev.tmem_data.push_back(cols_of(a, k * bits / 32));
    } else {
      ev.desc = desc_bytes(in, lanes, 1, DescFormat::tcgen05, {m / split, k, bits, ((*idesc >> 15) & 1) == 0}, pair);
    }
    for (const Bytes& b : desc_bytes(in, lanes, 2, DescFormat::tcgen05, {n / split, k, bits, ((*idesc >> 16) & 1) == 0}, pair))
      ev.desc.push_back(b);
  } else if (sub == "commit") {
    // tcgen05.commit.cta_group::1.mbarrier::arrive::one{.shared::cluster}{.multicast::cluster}.b64 [mbar]{, ctaMask};
    need(1);
    std::vector<Bytes> b;
    if (!in.has("shared::cluster") && !in.has("shared::cta") && !in.has("shared")) {
      // No state space: generic addressing by the letter. Triton and other
      // compilers pass the mbarrier's shared::cta address zero-extended to
      // 64 bits (cvt.u64.u32), read here as that address (docs/ptx.md,
      // "Blackwell"); a generic address of the shared window reads as usual.
      for (int l = 0; l < 32; ++l)
        if ((lanes >> l) & 1) {
          const Val a = address(l, in.args[0]);
          if (a.k != Val::K::num) continue;
          Bytes x;
          x.cta = cta;
          x.lo = a.v;
          x.hi = a.v + 8;
          if (b.empty() || b.back().lo != x.lo) b.push_back(x);
        }
    }
    if (b.empty()) b = lane_bytes(in, lanes, in.args[0], 8);
    if (b.size() != 1 || b[0].global) stop(in, "the lanes of '" + in.text + "' name different mbarriers: not supported yet");
    ev.op.code = OpCode::tcgen05_commit;
    ev.has_bar = true;
    ev.bar = b[0];
    if (in.has("multicast::cluster")) ev.op.multicast = c(uniform(in, lanes, 1, "CTA mask"));
  } else if (sub == "ld" || sub == "st") {
    // tcgen05.ld.sync.aligned.shape.num{.pack::16b}.b32 r, [taddr]{, off};  tcgen05.st...: [taddr]{, off}, r;
    need(2);
    const bool ld = sub == "ld";
    const Shape sh = shape_of(in);
    if (sh.cols == 0) stop(in, "'" + in.text + "' needs a shape (.32x32b, .16x64b, .16x128b, .16x256b, .16x32bx2) and a count .x1 .. .x128");
    const Operand& ao = in.args[ld ? 1 : 0];
    const Val a = tmem_addr(in, lanes, ao);
    std::int64_t cols = sh.cols;
    if (in.has("16x32bx2")) {  // the second half at immHalfSplitoff columns
      const std::size_t off_arg = ld ? 2 : 1;
      if (in.args.size() <= off_arg + (ld ? 0 : 1)) stop(in, "'" + in.text + "' needs its immHalfSplitoff");
      cols = uniform(in, lanes, off_arg, "immHalfSplitoff") + sh.cols;
    }
    const std::int64_t lane = a.v >> 16;
    if (lane % 32 + sh.lanes > 32)
      stop(in, "'" + in.text + "' at lane " + std::to_string(lane) + " reaches past its lane quarter (PTX ISA tcgen05 \"Access restrictions\")");
    ev.op.code = ld ? OpCode::tcgen05_ld : OpCode::tcgen05_st;
    ev.op.quarter = c(lane / 32);
    ev.tmem_data.push_back(cols_of(a, cols));
    // Its registers: data, written when the load completes (tagged until
    // tcgen05.wait::ld: a use before is the model's tcgen05_regs).
    if (ld)
      for (int l = 0; l < 32; ++l)
        if ((lanes >> l) & 1) {
          set(l, in.args[0], Val::unknown());
          tag_wgmma(l, in.args[0], spec::agent::regs_tmem_ld);
        }
  } else if (sub == "cp") {
    // tcgen05.cp.cta_group::1.shape{.multicast}{.dst_fmt.src_fmt} [taddr], s-desc;: the
    // source's bytes through its shared-memory descriptor (as an MMA
    // operand's), the destination's columns from the shape: 256 bits a
    // lane (.128x256b, .4x256b) are 8 columns, 128 bits (.128x128b,
    // .64x128b, .32x128b) 4 (PTX ISA tcgen05.cp).
    need(2);
    if (pair) not_yet("a tcgen05.cp of the CTA pair (.cta_group::2)");
    const std::int64_t cols = in.has("128x256b") || in.has("4x256b") ? 8
                              : in.has("128x128b") || in.has("64x128b") || in.has("32x128b") ? 4 : 0;
    if (cols == 0) stop(in, "'" + in.text + "' needs a shape (.128x256b, .4x256b, .128x128b, .64x128b, .32x128b)");
    const Val a = tmem_addr(in, lanes, in.args[0]);
    // The source: the shape's rows of 256 or 128 bits, K-major.
    const std::int64_t rows = in.has("128x256b") || in.has("128x128b") ? 128 : in.has("64x128b") ? 64 : in.has("32x128b") ? 32 : 4;
    ev.desc = desc_bytes(in, lanes, 1, DescFormat::tcgen05, {rows, cols * 32 / 8, 8, true}, false);
    ev.op.code = OpCode::tcgen05_cp;
    ev.tmem = cols_of(a, cols);
  } else if (sub == "shift") {
    // tcgen05.shift.cta_group::N.down [taddr];: the MMA unit rewrites the
    // rows of the columns at taddr (the instance they lie in).
    need(1);
    const Val a = tmem_addr(in, lanes, in.args[0]);
    ev.op.code = OpCode::tcgen05_shift;
    ev.tmem = cols_of(a, 1);
  } else if (sub == "wait::ld" || sub == "wait::st") {
    ev.op.code = sub == "wait::ld" ? OpCode::tcgen05_wait_ld : OpCode::tcgen05_wait_st;
    if (sub == "wait::ld") tmem_ld_waited();
  } else if (sub == "fence::before_thread_sync" || sub == "fence::after_thread_sync") {
    ev.op.code = sub == "fence::before_thread_sync" ? OpCode::tcgen05_fence_before : OpCode::tcgen05_fence_after;
  } else {
    not_yet("tcgen05." + sub);
  }
  ev.op.cta_pair = pair;
  emit(in, lanes, std::move(ev));
}

}  // namespace pc::ptx
