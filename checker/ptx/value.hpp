// What the PTX executor knows of a register of one lane: an integer, an
// address (into a pointer parameter's global memory, into the shared window
// of the generic space, into a CTA of the cluster), or nothing (data: a
// loaded value, a floating-point result, a parameter not given).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pc::ptx {

struct Val {
  // num: an integer (a state-space address of shared memory is one);
  // gptr: param `base`'s global memory plus v; shared: a generic address of
  // shared memory (cvta.shared) at offset v; cluster: offset v of the shared
  // memory of CTA `base` of the cluster (mapa); unknown: data.
  // token: the state token of the warp's arrive event v (mbarrier.arrive's result).
  // tmem: a tensor-memory address of the columns tcgen05.alloc number `base`
  // allocated (Context::tmem_allocs), v past their first (lane << 16 | column:
  // PTX ISA tcgen05, "Tensor Memory Addressing").
  // clc: what a clusterlaunchcontrol.query_cancel.is_canceled of the
  // warp's event v gave (1 for a canceled cluster, a new tile) where base is
  // 1, or its negation where base is 0: the model decides it (lower.cpp
  // gives the event a variable; a branch on it is Warp::clc_branch).
  enum class K : std::uint8_t { unknown, num, gptr, shared, cluster, token, tmem, clc };
  K k = K::unknown;
  std::int64_t v = 0;
  int base = -1;
  // Data loaded by the warp's event `load` (a shared-memory read) and not
  // yet used: the first instruction that reads it consumes that load.
  int load = -1;
  // Registers a wgmma.mma_async of the warp uses: its accumulator
  // (spec::agent::regs_acc) or its A fragments (regs_a). An instruction that
  // reads or writes them is the model's wgmma_regs.
  std::uint8_t wgmma = 0;
  [[nodiscard]] bool known() const { return k == K::num; }
  // unknown: the parameter bytes it came from, where it is one not given
  // (base: the parameter, v: the offset), for the error that asks for it.
  [[nodiscard]] bool from_param() const { return k == K::unknown && base >= 0; }
  static Val param_bytes(int param, std::int64_t off) { return Val{K::unknown, off, param, -1, 0}; }
  // The first of a, b that is an unknown parameter's, else unknown.
  static Val unknown_of(const Val& a, const Val& b) { return a.from_param() ? a : b.from_param() ? b : Val{}; }
  [[nodiscard]] bool address() const { return k == K::gptr || k == K::shared || k == K::cluster; }
  // An address of either memory, which add and sub move.
  [[nodiscard]] bool offsettable() const { return address() || k == K::tmem; }
  friend bool operator==(const Val&, const Val&) = default;
  static Val num(std::int64_t x) { return Val{K::num, x, -1, -1, 0}; }
  static Val clc(int query, bool holds) { return Val{K::clc, query, holds ? 1 : 0, -1, 0}; }
  // The value with its sense flipped (a query's negation), where it is a query's.
  [[nodiscard]] Val flipped() const { return k == K::clc ? clc(static_cast<int>(v), base == 0) : Val::unknown(); }
  static Val unknown() { return Val{}; }
};

// The integer type of an instruction's operands (PTX ISA "Fundamental
// Types"): its width in bits and signedness; fp: a floating-point type
// (its values are data).
struct Type {
  int bits = 32;
  bool is_signed = false;
  bool fp = false;
  bool pred = false;
};

// v as a value of type t: truncated to t's width, sign-extended where t is signed.
[[nodiscard]] inline std::int64_t norm(std::int64_t v, Type t) {
  if (t.bits >= 64 || t.bits <= 0) return v;
  const std::uint64_t mask = (std::uint64_t{1} << t.bits) - 1;
  std::uint64_t u = static_cast<std::uint64_t>(v) & mask;
  if (t.is_signed && ((u >> (t.bits - 1)) & 1)) u |= ~mask;
  return static_cast<std::int64_t>(u);
}

// "u32", "s64", "b16", "f32", "pred", ...: the type, or nothing for a qualifier that is not one.
[[nodiscard]] inline bool parse_type(const std::string& q, Type& t) {
  if (q == "pred") {
    t = Type{1, false, false, true};
    return true;
  }
  if (q.size() < 2) return false;
  const char c = q[0];
  std::size_t i = 1;
  if (q.rfind("bf16", 0) == 0 || q.rfind("tf32", 0) == 0 || q.rfind("e4m3", 0) == 0 || q.rfind("e5m2", 0) == 0) {
    t = Type{16, false, true, false};
    return true;
  }
  if (c != 'u' && c != 's' && c != 'b' && c != 'f') return false;
  int bits = 0;
  for (; i < q.size() && q[i] >= '0' && q[i] <= '9'; ++i) bits = bits * 10 + (q[i] - '0');
  if (bits == 0 || (i < q.size() && q.substr(i) != "x2")) return false;
  t = Type{bits, c == 's', c == 'f', false};
  return true;
}

// The which-th type qualifier of an instruction (cvt has two: the
// destination's, then the source's); the last one where fewer.
[[nodiscard]] inline Type type_of(const std::vector<std::string>& parts, int which = 0) {
  Type t;
  int seen = 0;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    Type x;
    if (parse_type(parts[i], x)) {
      if (seen == which) return x;
      ++seen;
      t = x;
    }
  }
  return t;
}

}  // namespace pc::ptx
