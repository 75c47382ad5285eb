#include "checker/layout.hpp"

namespace pc::check::layout {
namespace {

// Where element 0 of a declaration with `alias` starts: BASE[i]'s first byte plus the offset.
Range base_of(const ir::Kernel& k, const ir::Alias& a) {
  Range r = a.mbar ? mbar_range(k, a.of, a.index) : buffer_range(k, a.of, a.index);
  r.lo += a.offset;
  return r;
}

std::string base_name(const ir::Kernel& k, const ir::Alias& a) {
  return a.mbar ? k.mbarriers.at(static_cast<std::size_t>(a.of)).name : k.buffers.at(static_cast<std::size_t>(a.of)).name;
}

int base_size(const ir::Kernel& k, const ir::Alias& a) {
  return a.mbar ? k.mbarriers.at(static_cast<std::size_t>(a.of)).size : k.buffers.at(static_cast<std::size_t>(a.of)).size;
}

// Why an alias of `name` (`size` elements of `bytes`) does not fit; `before`:
// the number of declarations of BASE's kind declared before it.
std::optional<std::string> fit_error(const ir::Kernel& k, const ir::Alias& a, int before, const std::string& name, int size,
                                     std::int64_t bytes) {
  if (a.of < 0 || a.of >= before) return "'" + name + "' aliases a declaration that does not come before it";
  if (!a.mbar && k.buffers[static_cast<std::size_t>(a.of)].space != ir::Space::shared)
    return "'" + name + "' aliases '" + base_name(k, a) + "': only shared memory is laid out by aliases (tensor memory is allocated " +
           "whole; global memory is not laid out)";
  if (a.index < 0 || a.index >= base_size(k, a))
    return "index " + std::to_string(a.index) + " is outside " + base_name(k, a) + "[" + std::to_string(base_size(k, a)) + "]";
  if (a.offset < 0) return "the offset of '" + name + "' is negative";
  const Range first = base_of(k, a);
  const std::int64_t end = root_bytes(k, first.root);
  const std::int64_t last = first.lo + size * bytes;
  if (last > end)
    return "'" + name + "' (" + std::to_string(size) + " x " + std::to_string(bytes) + " bytes from byte " +
           std::to_string(first.lo) + ") ends at byte " + std::to_string(last) + ", past the " + std::to_string(end) +
           " bytes of the allocation it aliases (" + describe(k, Range{first.root, 0, end}) + ")";
  return std::nullopt;
}

}  // namespace

std::int64_t root_bytes(const ir::Kernel& k, Root r) {
  if (r.mbar) return k.mbarriers.at(static_cast<std::size_t>(r.decl)).size * spec::rules::mbarrier_bytes;
  const ir::BufferDecl& b = k.buffers.at(static_cast<std::size_t>(r.decl));
  return b.size * b.bytes;
}

Range buffer_range(const ir::Kernel& k, int decl, std::int64_t index) {
  const ir::BufferDecl& b = k.buffers.at(static_cast<std::size_t>(decl));
  Range r{Root{decl, false}, 0, 0};
  if (b.alias.of >= 0) r = base_of(k, b.alias);
  r.lo += index * b.bytes;
  r.hi = r.lo + b.bytes;
  return r;
}

Range mbar_range(const ir::Kernel& k, int decl, std::int64_t index) {
  const ir::MbarrierDecl& m = k.mbarriers.at(static_cast<std::size_t>(decl));
  Range r{Root{decl, true}, 0, 0};
  if (m.alias.of >= 0) r = base_of(k, m.alias);
  r.lo += index * spec::rules::mbarrier_bytes;
  r.hi = r.lo + spec::rules::mbarrier_bytes;
  return r;
}

std::optional<std::string> alias_error(const ir::Kernel& k, int decl) {
  const ir::BufferDecl& b = k.buffers.at(static_cast<std::size_t>(decl));
  if (b.alias.of < 0) return std::nullopt;
  if (b.space == ir::Space::tensor) return "'" + b.name + "': only shared memory is laid out by aliases (tensor memory is allocated whole)";
  const int before = b.alias.mbar ? static_cast<int>(k.mbarriers.size()) : decl;
  return fit_error(k, b.alias, before, b.name, b.size, b.bytes);
}

std::optional<std::string> mbar_alias_error(const ir::Kernel& k, int decl) {
  const ir::MbarrierDecl& m = k.mbarriers.at(static_cast<std::size_t>(decl));
  if (m.alias.of < 0) return std::nullopt;
  if (m.count > 0)
    return "'" + m.name + "' is placed over other memory: the kernel initialises it (drop the count, add an init)";
  const int before = m.alias.mbar ? decl : static_cast<int>(k.buffers.size());
  if (auto why = fit_error(k, m.alias, before, m.name, m.size, spec::rules::mbarrier_bytes)) return why;
  // PTX ISA, mbarrier "Size and alignment of mbarrier object": 8 bytes, aligned to 8.
  if (const Range r = base_of(k, m.alias); r.lo % spec::rules::mbarrier_bytes != 0)
    return "'" + m.name + "' starts at byte " + std::to_string(r.lo) + " of its allocation: an mbarrier object is aligned to 8 bytes";
  return std::nullopt;
}

std::string describe(const ir::Kernel& k, const Range& r) {
  const std::string name = r.root.mbar ? k.mbarriers.at(static_cast<std::size_t>(r.root.decl)).name
                                       : k.buffers.at(static_cast<std::size_t>(r.root.decl)).name;
  return name + " bytes [" + std::to_string(r.lo) + ", " + std::to_string(r.hi) + ")";
}

}  // namespace pc::check::layout
