// Matrix descriptors to bytes (desc.hpp says which layouts and why the
// swizzle widens a chunk to its row).
#include "checker/ptx/desc.hpp"

#include <algorithm>

namespace pc::ptx {

DescBytes descriptor_bytes(std::uint64_t desc, DescFormat format, const Operand2d& op) {
  DescBytes out;
  const std::int64_t start = static_cast<std::int64_t>(desc & 0x3FFF) << 4;       // bits 13-0
  const std::int64_t lbo = static_cast<std::int64_t>((desc >> 16) & 0x3FFF) << 4;  // bits 29-16
  const std::int64_t sbo = static_cast<std::int64_t>((desc >> 32) & 0x3FFF) << 4;  // bits 45-32
  std::int64_t w = 0;  // bytes of a swizzled row; 0: no swizzle
  if (format == DescFormat::wgmma) {
    // bits 63-62: 0 none, 1 128B, 2 64B, 3 32B
    static constexpr std::int64_t widths[4] = {0, 128, 64, 32};
    w = widths[(desc >> 62) & 3];
  } else {
    // bits 63-61: 0 none, 1 128B with 32B atoms, 2 128B, 4 64B, 6 32B
    if ((desc >> 52) & 1) {
      out.error = "the descriptor's leading byte offset is absolute (bit 52), which the front end does not read yet";
      return out;
    }
    switch ((desc >> 61) & 7) {
      case 0: w = 0; break;
      case 1: w = 128; break;  // its 32-byte units stay in their row too
      case 2: w = 128; break;
      case 4: w = 64; break;
      case 6: w = 32; break;
      default:
        out.error = "the descriptor's swizzle mode (bits 63-61) is " + std::to_string((desc >> 61) & 7) + ", which the ISA reserves";
        return out;
    }
  }
  const std::int64_t n = w == 0 ? 1 : w / 16;  // 16-byte chunks in a row
  std::vector<std::pair<std::int64_t, std::int64_t>> spans;
  auto add = [&](std::int64_t a) {
    if (w == 0) spans.emplace_back(a, a + 16);
    else spans.emplace_back(a / w * w, a / w * w + w);
  };
  const std::int64_t k_bytes = (op.k * op.bits + 7) / 8;
  const std::int64_t mn_bytes = (op.mn * op.bits + 7) / 8;
  if (op.k_major) {
    const std::int64_t chunks = (k_bytes + 15) / 16;
    for (std::int64_t r = 0; r < op.mn; ++r)
      for (std::int64_t c = 0; c < chunks; ++c)
        add(start + r / 8 * sbo + r % 8 * n * 16 + (w == 0 ? c * lbo : c * 16));
  } else {
    const std::int64_t chunks = (mn_bytes + 15) / 16;
    for (std::int64_t kr = 0; kr < op.k; ++kr)
      for (std::int64_t c = 0; c < chunks; ++c)
        add(w == 0 ? start + c * sbo + kr % 8 * 16 + kr / 8 * lbo
                   : start + c % n * 16 + c / n * lbo + kr % 8 * n * 16 + kr / 8 * sbo);
  }
  std::sort(spans.begin(), spans.end());
  for (const auto& s : spans) {
    if (!out.spans.empty() && s.first <= out.spans.back().second) out.spans.back().second = std::max(out.spans.back().second, s.second);
    else out.spans.push_back(s);
  }
  return out;
}

}  // namespace pc::ptx
