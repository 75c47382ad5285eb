// The shared-memory bytes an MMA operand's 64-bit matrix descriptor names:
// wgmma's "Matrix Descriptor Format" and tcgen05's "Shared memory
// descriptor" (PTX ISA 9.7.15.5.1 and 9.7.16.4.1). A descriptor gives the
// start address, the leading and stride byte offsets (LBO, SBO) and the
// swizzle mode of one of the canonical layouts ("Shared Memory Matrix
// Layout"), in 16-byte units T:
//
//   K-major, no swizzle        ((8,m),(T,2k)):((1T,SBO),(1,LBO))
//   K-major, W-byte swizzle    ((8,m),(T,2k)):((nT,SBO),(1,T))      n = W/16
//   MN-major, no swizzle       ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))
//   MN-major, W-byte swizzle   ((T,n,m),(8,k)):((1,T,LBO),(nT,SBO))
//
// The swizzle permutes 16-byte chunks (32-byte ones for tcgen05's 128B
// with 32B atoms) inside each W-byte row, W-aligned: address bits below
// log2(W) change, those above do not, whatever the matrix base offset. So
// the bytes read are the aligned W-byte rows of the unswizzled addresses
// (the whole row where an instruction reads part of it: a K slice of 32
// bytes of a 128-byte row is the row), and exactly the 16-byte chunks
// where there is no swizzle.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace pc::ptx {

enum class DescFormat : std::uint8_t { wgmma, tcgen05 };

// One operand: `mn` rows (its M or N extent) and `k` elements of `bits`
// bits each along K; K-major (each row's K elements contiguous) or
// MN-major.
struct Operand2d {
  std::int64_t mn = 0;
  std::int64_t k = 0;
  int bits = 16;
  bool k_major = true;
};

// The byte spans [lo, hi) of shared memory the operand occupies, merged and
// sorted; `error` says why none where the descriptor is not one the ISA
// defines (a reserved swizzle mode, tcgen05's absolute leading offset).
struct DescBytes {
  std::vector<std::pair<std::int64_t, std::int64_t>> spans;
  std::string error;
};
[[nodiscard]] DescBytes descriptor_bytes(std::uint64_t desc, DescFormat format, const Operand2d& operand);

}  // namespace pc::ptx
