// A warp's integer, predicate and data instructions (warp.hpp): integers
// exact per lane at their type's width (PTX ISA "Integer Arithmetic
// Instructions", "Comparison and Selection Instructions", "Data Movement
// and Conversion Instructions"), addresses kept as addresses, anything
// floating-point unknown.
#include <algorithm>
#include <bit>

#include "checker/ptx/warp.hpp"

namespace pc::ptx {

// A 64-bit parameter or struct field not given with --arg is read as a
// pointer of its own; used as an integer (a divisor's multiplier, a count)
// it is that parameter's bytes, not given, so that what depends on it names
// the --arg it needs.
Val Warp::as_param(const Val& v) const {
  if (v.k != Val::K::gptr || v.v != 0) return v;
  if (v.base >= 0 && static_cast<std::size_t>(v.base) < ctx.fn->params.size()) return Val::param_bytes(v.base, 0);
  for (const auto& [at, base] : ctx.field_pointer)
    if (base == v.base) return Val::param_bytes(at.first, at.second);
  return v;
}

// Integer, predicate and data instructions.
void Warp::arith(const Instr& in, std::uint32_t lanes) {
  const std::string& m = in.parts[0];
  const Type t = type_of(in.parts);
  auto each = [&](auto&& f) {
    for (int l = 0; l < 32; ++l)
      if ((lanes >> l) & 1) set(l, in.args[0], f(l));
  };
  auto arg = [&](int l, std::size_t i, Type ty) { return i < in.args.size() ? get(l, in.args[i], ty) : Val::unknown(); };
  if (in.args.empty()) stop(in, "'" + in.text + "' needs operands");

  if (m == "mov") {
    if (in.args.size() < 2) stop(in, "mov needs two operands");
    // mov.bN d, {a, b, ...} packs the elements (the first in the low bits);
    // mov.bN {a, b, ...}, d unpacks them (PTX ISA mov: "pack/unpack"), as
    // CUTLASS splits a wgmma descriptor into its halves and adds to the low one.
    const Operand& src = in.args[1];
    const Operand& dst = in.args[0];
    if (src.kind == Operand::Kind::vec || dst.kind == Operand::Kind::vec) {
      const std::size_t n = (src.kind == Operand::Kind::vec ? src : dst).elems.size();
      const int w = n > 0 ? t.bits / static_cast<int>(n) : 0;
      if (n == 0 || w <= 0 || w * static_cast<int>(n) != t.bits || t.bits > 64 || (src.kind == Operand::Kind::vec) == (dst.kind == Operand::Kind::vec))
        return each([](int) { return Val::unknown(); });
      const std::uint64_t mask = w == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << w) - 1;
      for (int l = 0; l < 32; ++l) {
        if (!((lanes >> l) & 1)) continue;
        if (src.kind == Operand::Kind::vec) {
          std::uint64_t packed = 0;
          bool known = true;
          for (std::size_t k = 0; k < n; ++k) {
            const Val e = get(l, src.elems[k], Type{w});
            known = known && e.known();
            if (known) packed |= (static_cast<std::uint64_t>(e.v) & mask) << (static_cast<int>(k) * w);
          }
          set(l, dst, known ? Val::num(norm(static_cast<std::int64_t>(packed), t)) : Val::unknown());
        } else {
          const Val d = get(l, src, t);
          for (std::size_t k = 0; k < n; ++k)
            set(l, dst.elems[k],
                d.known() ? Val::num(norm(static_cast<std::int64_t>((static_cast<std::uint64_t>(d.v) >> (static_cast<int>(k) * w)) & mask), Type{w}))
                          : Val::unknown());
        }
      }
      return;
    }
    return each([&](int l) {
      Val v = get(l, in.args[1], t);
      if (v.known() && !t.pred) v.v = norm(v.v, t);
      return v;
    });
  }
  if (m == "ld" && in.has("param")) {
    const Operand& a = in.args.size() > 1 ? in.args[1] : in.args[0];
    if (in.args[0].kind != Operand::Kind::vec) return each([&](int l) { return param(in, a, l, t); });
    // ld.param.v2/.v4: each element from its own bytes.
    const std::int64_t size = std::max(1, t.bits / 8);
    for (int l = 0; l < 32; ++l) {
      if (!((lanes >> l) & 1)) continue;
      for (std::size_t k = 0; k < in.args[0].elems.size(); ++k) {
        Operand at = a;
        at.imm += static_cast<std::int64_t>(k) * size;
        set(l, in.args[0].elems[k], param(in, at, l, t));
      }
    }
    return;
  }
  if (m == "cvta") {
    const bool to = in.has("to");
    return each([&](int l) {
      Val a = get(l, in.args[1], Type{64});
      if (in.has("shared")) {
        if (!to && a.known()) return Val{Val::K::shared, a.v, -1};
        if (to && a.k == Val::K::shared) return Val::num(a.v);
        if (to && a.known()) return a;
        return Val::unknown();
      }
      if (in.has("global") && a.k == Val::K::gptr) return a;
      if (in.has("param")) return a;  // a parameter's address (cvta.param): as it is
      return Val::unknown();
    });
  }
  if (m == "mapa") {  // mapa{.shared::cluster}.u32/u64 d, a, rank
    return each([&](int l) {
      const Val a = get(l, in.args[1], t), r = get(l, in.args[2], Type{32});
      if (!r.known() || r.v < 0 || r.v >= ctx.cluster) return Val::unknown();
      if (a.known() || a.k == Val::K::shared || a.k == Val::K::cluster) return Val{Val::K::cluster, a.v, static_cast<int>(r.v)};
      return Val::unknown();
    });
  }
  if (m == "activemask") return each([&](int) { return Val::num(lanes); });
  if (m == "elect") {  // elect.sync d|p, membermask
    const std::int64_t mask = uniform(in, lanes, 1, "member mask");
    const std::uint32_t members = lanes & static_cast<std::uint32_t>(mask);
    const int leader = members ? std::countr_zero(members) : -1;
    for (int l = 0; l < 32; ++l) {
      if (!((lanes >> l) & 1)) continue;
      set(l, in.args[0], Val::num(leader));
      if (in.args[0].reg2 >= 0)
        slot(l, in.args[0].reg2) = Val::num(l == leader);
    }
    return;
  }
  if (m == "shfl") {  // shfl.sync.mode.b32 d[|p], a, b, c, membermask
    const std::string mode = in.parts.size() > 2 ? in.parts[2] : "";
    std::vector<Val> src(32);
    for (int l = 0; l < 32; ++l)
      if ((lanes >> l) & 1) src[static_cast<std::size_t>(l)] = get(l, in.args[1], t);
    return each([&](int l) {
      const Val b = get(l, in.args[2], Type{32}), c = get(l, in.args[3], Type{32});
      if (!b.known() || !c.known()) return Val::unknown();
      int j = -1;
      if (mode == "idx" && c.v == 0x1f) j = static_cast<int>(b.v & 31);
      else if (mode == "bfly" && c.v == 0x1f) j = l ^ static_cast<int>(b.v & 31);
      else if (mode == "down" && c.v == 0x1f) j = l + static_cast<int>(b.v) > 31 ? l : l + static_cast<int>(b.v);
      else if (mode == "up" && c.v == 0) j = l - static_cast<int>(b.v) < 0 ? l : l - static_cast<int>(b.v);
      if (j < 0 || !((lanes >> j) & 1)) return Val::unknown();
      return src[static_cast<std::size_t>(j)];
    });
  }
  if (m == "vote") {  // vote.sync.{all,any,uni,ballot}.{pred,b32} d, a, membermask
    const std::string mode = in.parts.size() > 2 ? in.parts[2] : "";
    bool known = true, all = true, any = false;
    std::uint32_t ballot = 0;
    for (int l = 0; l < 32; ++l) {
      if (!((lanes >> l) & 1)) continue;
      const Val p = get(l, in.args[1], Type{1, false, false, true});
      if (!p.known()) known = false;
      else if (p.v) any = true, ballot |= 1u << l;
      else all = false;
    }
    return each([&](int) {
      if (!known) return Val::unknown();
      if (mode == "ballot") return Val::num(ballot);
      if (mode == "all") return Val::num(all);
      if (mode == "any") return Val::num(any);
      if (mode == "uni") return Val::num(all || !any);
      return Val::unknown();
    });
  }
  if (m == "setp") {  // setp.CMP[.BOOL].TYPE p[|q], a, b[, c]
    const std::string cmp = in.parts.size() > 1 ? in.parts[1] : "";
    const std::string boolop = in.parts.size() > 3 && (in.parts[2] == "and" || in.parts[2] == "or" || in.parts[2] == "xor")
                                   ? in.parts[2] : "";
    for (int l = 0; l < 32; ++l) {
      if (!((lanes >> l) & 1)) continue;
      const Val a = get(l, in.args[1], t), b = get(l, in.args[2], t);
      std::optional<bool> r;
      std::int64_t x = 0, y = 0;
      bool have = false;
      if (a.known() && b.known() && !t.fp) x = a.v, y = b.v, have = true;
      else if (a.address() && b.address() && a.k == b.k && a.base == b.base) x = a.v, y = b.v, have = true;
      if (have) {
        const bool uns = !t.is_signed || cmp == "lo" || cmp == "ls" || cmp == "hi" || cmp == "hs";
        const auto ux = static_cast<std::uint64_t>(norm(x, Type{t.bits, false})), uy = static_cast<std::uint64_t>(norm(y, Type{t.bits, false}));
        const std::int64_t sx = norm(x, Type{t.bits, true}), sy = norm(y, Type{t.bits, true});
        if (cmp == "eq") r = ux == uy;
        else if (cmp == "ne") r = ux != uy;
        else if (cmp == "lt" || cmp == "lo") r = uns ? ux < uy : sx < sy;
        else if (cmp == "le" || cmp == "ls") r = uns ? ux <= uy : sx <= sy;
        else if (cmp == "gt" || cmp == "hi") r = uns ? ux > uy : sx > sy;
        else if (cmp == "ge" || cmp == "hs") r = uns ? ux >= uy : sx >= sy;
      }
      std::optional<bool> p = r, q;
      if (r) q = !*r;
      // A cluster launch control answer (0 or 1) compared with 0 or 1: that
      // answer, or its negation (clc.cpp).
      if (!r && boolop.empty() && (cmp == "eq" || cmp == "ne") && !t.fp) {
        const bool ab = a.k == Val::K::clc && b.known() && (b.v == 0 || b.v == 1);
        const bool ba = b.k == Val::K::clc && a.known() && (a.v == 0 || a.v == 1);
        if (ab || ba) {
          const Val& q0 = ab ? a : b;
          const std::int64_t k = ab ? b.v : a.v;
          const Val eq = k == 1 ? q0 : q0.flipped();
          set(l, in.args[0], cmp == "eq" ? eq : eq.flipped());
          if (in.args[0].reg2 >= 0) slot(l, in.args[0].reg2) = cmp == "eq" ? eq.flipped() : eq;
          continue;
        }
      }
      if (!boolop.empty()) {
        const Val cv = in.args.size() > 3 ? get(l, in.args[3], Type{1, false, false, true}) : Val::unknown();
        auto comb = [&](std::optional<bool> v) -> std::optional<bool> {
          if (!v || !cv.known()) return std::nullopt;
          const bool cb = cv.v != 0;
          return boolop == "and" ? (*v && cb) : boolop == "or" ? (*v || cb) : (*v != cb);
        };
        p = comb(p);
        q = comb(q);
      }
      // A pointer read from a struct parameter's field compared with an
      // integer (a null test): the field's value decides it (as_param).
      const Val why = Val::unknown_of(as_param(a), as_param(b));
      set(l, in.args[0], p ? Val::num(*p) : why);
      if (in.args[0].reg2 >= 0)
        slot(l, in.args[0].reg2) = q ? Val::num(*q) : Val::unknown();
    }
    return;
  }
  if (m == "selp") {
    return each([&](int l) {
      const Val c = get(l, in.args[3], Type{1, false, false, true});
      if (c.k == Val::K::clc) {
        // 1 or 0 by a cluster launch control answer: that answer as an integer (clc.cpp).
        const Val x = get(l, in.args[1], t), y = get(l, in.args[2], t);
        if (x.known() && y.known() && x.v == 1 && y.v == 0) return c;
        if (x.known() && y.known() && x.v == 0 && y.v == 1) return c.flipped();
        return Val::unknown();
      }
      if (!c.known()) return Val::unknown_of(c, Val::unknown_of(get(l, in.args[1], t), get(l, in.args[2], t)));
      Val v = get(l, in.args[c.v ? 1 : 2], t);
      if (v.known()) v.v = norm(v.v, t);
      return v;
    });
  }
  if (m == "cvt") {
    const Type dt = type_of(in.parts, 0), st = type_of(in.parts, 1);
    return each([&](int l) {
      const Val a = get(l, in.args[1], st);
      if (dt.fp || st.fp || !a.known()) return a.address() && dt.bits == 64 ? a : Val::unknown_of(as_param(a), Val::unknown());
      return Val::num(norm(norm(a.v, st), dt));
    });
  }
  // Integer arithmetic on known values; anything floating-point is data.
  static const char* const int_ops[] = {"add", "sub", "mul", "mad", "div", "rem", "min", "max", "abs", "neg", "and", "or",
                                        "xor", "not", "cnot", "shl", "shr", "bfe", "bfi", "popc", "clz", "brev", "mul24",
                                        "mad24", "sad", "prmt", "bfind", "fns", "szext"};
  bool int_op = false;
  for (const char* x : int_ops) int_op |= m == x;
  if (int_op && !t.fp) {
    const bool wide = in.has("wide"), hi = in.has("hi");
    const Type rt = wide ? Type{t.bits * 2, t.is_signed} : t;
    return each([&](int l) -> Val {
      const Val a = arg(l, 1, t), b = arg(l, 2, t), cc = arg(l, 3, wide ? rt : t), dd = arg(l, 4, Type{32});
      // Addresses: plus or minus an integer stays an address.
      if ((m == "add" || m == "sub") && a.offsettable() && b.known()) return Val{a.k, m == "add" ? a.v + b.v : a.v - b.v, a.base};
      if (m == "add" && b.offsettable() && a.known()) return Val{b.k, a.v + b.v, b.base};
      if (m == "sub" && a.offsettable() && b.offsettable() && a.k == b.k && a.base == b.base) return Val::num(a.v - b.v);
      // An address plus a product of integers (mad.lo, mad.wide: Triton's pointer arithmetic).
      if (m == "mad" && !hi && cc.offsettable() && a.known() && b.known()) {
        const std::int64_t prod = wide ? norm(a.v, t) * norm(b.v, t) : norm(a.v * b.v, t);
        return Val{cc.k, cc.v + prod, cc.base};
      }
      if (t.pred) {
        if (m == "not") return a.known() ? Val::num(!a.v) : a.k == Val::K::clc ? a.flipped() : Val::unknown_of(a, Val::unknown());
        if (!a.known() || !b.known()) {
          // and/or with a known side can decide alone.
          if (m == "and" && ((a.known() && !a.v) || (b.known() && !b.v))) return Val::num(0);
          if (m == "or" && ((a.known() && a.v) || (b.known() && b.v))) return Val::num(1);
          return Val::unknown_of(a, b);
        }
        if (m == "and") return Val::num(a.v && b.v);
        if (m == "or") return Val::num(a.v || b.v);
        if (m == "xor") return Val::num((a.v != 0) != (b.v != 0));
        return Val::unknown();
      }
      const bool unary = m == "abs" || m == "neg" || m == "not" || m == "cnot" || m == "popc" || m == "clz" || m == "brev" ||
                         m == "bfind";
      if (!a.known() || (!unary && !b.known())) return Val::unknown_of(as_param(a), as_param(b));
      const std::uint64_t ua = static_cast<std::uint64_t>(norm(a.v, Type{t.bits, false}));
      const std::uint64_t ub = static_cast<std::uint64_t>(norm(b.v, Type{t.bits, false}));
      const std::int64_t sa = norm(a.v, Type{t.bits, true}), sb = norm(b.v, Type{t.bits, true});
      const bool s = t.is_signed;
      __int128 r = 0;
      if (m == "add") r = static_cast<__int128>(sa) + sb;
      else if (m == "sub") r = static_cast<__int128>(sa) - sb;
      else if (m == "mul" || m == "mul24" || m == "mad" || m == "mad24") {
        r = s ? static_cast<__int128>(sa) * sb : static_cast<__int128>(ua) * ub;
        if (hi) r >>= t.bits;
        if (m == "mad" || m == "mad24") {
          if (!cc.known()) return Val::unknown();
          r += cc.v;
        }
        return Val::num(norm(static_cast<std::int64_t>(r), rt));
      } else if (m == "div" || m == "rem") {
        if (ub == 0) return Val::unknown();
        if (s) r = m == "div" ? sa / sb : sa % sb;
        else r = m == "div" ? ua / ub : ua % ub;
      } else if (m == "min") r = s ? std::min(sa, sb) : static_cast<std::int64_t>(std::min(ua, ub));
      else if (m == "max") r = s ? std::max(sa, sb) : static_cast<std::int64_t>(std::max(ua, ub));
      else if (m == "abs") r = sa < 0 ? -static_cast<__int128>(sa) : sa;
      else if (m == "neg") r = -static_cast<__int128>(sa);
      else if (m == "and") r = static_cast<std::int64_t>(ua & ub);
      else if (m == "or") r = static_cast<std::int64_t>(ua | ub);
      else if (m == "xor") r = static_cast<std::int64_t>(ua ^ ub);
      else if (m == "not") r = static_cast<std::int64_t>(~ua);
      else if (m == "cnot") r = ua == 0;
      else if (m == "shl") r = ub >= static_cast<std::uint64_t>(t.bits) ? 0 : static_cast<std::int64_t>(ua << ub);
      else if (m == "shr") {
        const std::uint64_t sh = std::min<std::uint64_t>(ub, static_cast<std::uint64_t>(t.bits));
        r = s ? (sh >= 64 ? (sa < 0 ? -1 : 0) : sa >> sh) : (sh >= 64 ? 0 : static_cast<std::int64_t>(ua >> sh));
      } else if (m == "popc") r = std::popcount(ua);
      else if (m == "clz") r = ua == 0 ? t.bits : std::countl_zero(ua) - (64 - t.bits);
      else if (m == "brev") {
        std::uint64_t x = 0;
        for (int i = 0; i < t.bits; ++i) x |= ((ua >> i) & 1) << (t.bits - 1 - i);
        r = static_cast<std::int64_t>(x);
      } else if (m == "bfe") {  // bfe d, a, pos, len
        if (!cc.known()) return Val::unknown();
        const std::uint64_t pos = ub & 0xff, len = static_cast<std::uint64_t>(cc.v) & 0xff;
        if (len == 0) return Val::num(0);
        std::uint64_t x = pos >= 64 ? 0 : ua >> pos;
        if (len < 64) x &= (std::uint64_t{1} << len) - 1;
        if (s && len < 64 && pos + len <= static_cast<std::uint64_t>(t.bits) && ((x >> (len - 1)) & 1)) x |= ~((std::uint64_t{1} << len) - 1);
        r = static_cast<std::int64_t>(x);
      } else if (m == "bfi") {  // bfi d, a, b, pos, len: a's low len bits into b at pos
        if (!cc.known() || !dd.known()) return Val::unknown();
        const std::uint64_t pos = static_cast<std::uint64_t>(cc.v) & 0xff, len = static_cast<std::uint64_t>(dd.v) & 0xff;
        if (len == 0 || pos >= static_cast<std::uint64_t>(t.bits)) return Val::num(norm(static_cast<std::int64_t>(ub), t));
        const std::uint64_t field = len >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << len) - 1;
        const std::uint64_t mask = field << pos;
        r = static_cast<std::int64_t>((ub & ~mask) | ((ua << pos) & mask));
      } else if (m == "prmt" && in.parts.size() == 2) {  // prmt.b32 d, a, b, c: the default byte permute
        if (!cc.known()) return Val::unknown();
        const std::uint64_t bytes = (ua & 0xffffffffu) | ((ub & 0xffffffffu) << 32);
        std::uint64_t x = 0;
        for (int i = 0; i < 4; ++i) {
          const std::uint64_t sel = (static_cast<std::uint64_t>(cc.v) >> (4 * i)) & 0xf;
          std::uint64_t byte = (bytes >> (8 * (sel & 7))) & 0xff;
          if (sel & 8) byte = (byte & 0x80) ? 0xff : 0;
          x |= byte << (8 * i);
        }
        r = static_cast<std::int64_t>(x);
      } else {
        return Val::unknown();  // sad, bfind, fns, szext, prmt's modes: data until a kernel needs them exactly
      }
      return Val::num(norm(static_cast<std::int64_t>(r), t));
    });
  }
  // Data: floating-point arithmetic, conversions, matrix fragments, atomics
  // on data: their results are unknown, and they touch no memory.
  static const char* const data_ops[] = {"add", "sub", "mul", "mad", "fma", "div", "rcp", "sqrt", "rsqrt", "ex2", "lg2",
                                         "sin", "cos", "tanh", "min", "max", "abs", "neg", "copysign", "testp", "mma",
                                         "movmatrix", "cvt", "set", "slct", "dp4a", "dp2a", "lop3", "shf", "copysign"};
  for (const char* x : data_ops)
    if (m == x) return each([](int) { return Val::unknown(); });
  stop(in, "'" + in.text + "' is not an instruction the PTX front end reads (docs/ptx.md lists them)");
}

}  // namespace pc::ptx
