#include "checker/frontier.hpp"

#include <zstd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <unistd.h>

#include "checker/program.hpp"

namespace pc::check {
namespace {

// The frontier is written once and read once, so speed matters more than the
// last bytes: zstd's first fast level (-1) keeps the states of the corpus
// kernels in as few bytes as level 1 (peak resident memory within 2% on
// cutlass_tma_multicast) and cuts the time compression adds to a search by
// about half (harnesses/bench/checker/memory.sh, docs/benchmarks.md).
constexpr int level = -1;

[[noreturn]] void zstd_failed(const char* what, std::size_t code) {
  throw InternalError(std::string("frontier: zstd ") + what + " failed: " + ZSTD_getErrorName(code));
}

}  // namespace

Frames::Frames() : ctx_(ZSTD_createCCtx()) {
  if (!ctx_) throw std::bad_alloc();
}

Frames::~Frames() { ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(ctx_)); }

StateRef Frames::put(std::string_view bytes, std::uint16_t writer) {
  const std::size_t count = offsets_.empty() ? 0 : offsets_.size() - 1;
  if (count == frame_states || (count > 0 && open_.size() + bytes.size() > frame_raw_bytes)) seal();
  if (offsets_.empty()) offsets_.push_back(0);
  const StateRef r{static_cast<std::uint32_t>(frames_.size()), static_cast<std::uint16_t>(offsets_.size() - 1), writer};
  open_ += bytes;
  offsets_.push_back(static_cast<std::uint32_t>(open_.size()));
  return r;
}

void Frames::seal() {
  if (offsets_.size() < 2) return;
  // Raw layout: the number of states, their offsets and end, then their bytes.
  const auto count = static_cast<std::uint32_t>(offsets_.size() - 1);
  const std::size_t head = sizeof(std::uint32_t) * (1 + offsets_.size());
  scratch_.resize(head + open_.size());
  std::memcpy(scratch_.data(), &count, sizeof count);
  std::memcpy(scratch_.data() + sizeof count, offsets_.data(), sizeof(std::uint32_t) * offsets_.size());
  std::memcpy(scratch_.data() + head, open_.data(), open_.size());
  const bool keep_raw = raw_kept_ + scratch_.size() <= raw_budget_;
  std::size_t n = scratch_.size();
  const char* from = scratch_.data();
  if (keep_raw) {
    raw_kept_ += n;
  } else {
    out_.resize(ZSTD_compressBound(scratch_.size()));
    n = ZSTD_compressCCtx(static_cast<ZSTD_CCtx*>(ctx_), out_.data(), out_.size(), scratch_.data(), scratch_.size(), level);
    if (ZSTD_isError(n)) zstd_failed("compression", n);
    from = out_.data();
  }
  // Keep only what the frame needs: a frame lives until its level is read.
  std::unique_ptr<char[]> data(new char[n]);
  std::memcpy(data.get(), from, n);
  frames_.push_back(Frame{std::move(data), static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(scratch_.size()),
                          static_cast<std::uint16_t>(count), !keep_raw});
  compressed_ += n;
  raw_ += scratch_.size();
  offsets_.clear();
  open_.clear();
}

void Frames::clear() {
  frames_.clear();
  offsets_.clear();
  open_.clear();
  compressed_ = raw_ = raw_kept_ = 0;
  ++generation_;
}

std::uint64_t Frames::bytes() const {
  std::uint64_t b = frames_.capacity() * sizeof(Frame) + open_.capacity() + scratch_.capacity() + out_.capacity() +
                    offsets_.capacity() * sizeof(std::uint32_t);
  for (const Frame& f : frames_) b += f.size;
  return b;
}

FrameReader::FrameReader() : ctx_(ZSTD_createDCtx()) {
  if (!ctx_) throw std::bad_alloc();
}

FrameReader::~FrameReader() { ZSTD_freeDCtx(static_cast<ZSTD_DCtx*>(ctx_)); }

std::string_view FrameReader::get(const Frames& f, StateRef r) {
  if (from_ != &f || generation_ != f.generation_ || frame_ != r.frame) {
    if (r.frame >= f.frames_.size()) throw InternalError("frontier: a state read before its frame was sealed");
    const Frames::Frame& fr = f.frames_[r.frame];
    if (fr.compressed) {
      raw_.resize(fr.raw_size);
      const std::size_t n = ZSTD_decompressDCtx(static_cast<ZSTD_DCtx*>(ctx_), raw_.data(), raw_.size(), fr.data.get(), fr.size);
      if (ZSTD_isError(n)) zstd_failed("decompression", n);
      if (n != fr.raw_size) throw InternalError("frontier: a frame decompressed to another size");
      frame_ptr_ = raw_.data();
    } else {
      frame_ptr_ = fr.data.get();  // read in place: the frame lives until the writer is cleared
    }
    from_ = &f;
    generation_ = f.generation_;
    frame_ = r.frame;
  }
  std::uint32_t count = 0, offset = 0;
  std::memcpy(&count, frame_ptr_, sizeof count);
  if (r.slot >= count) throw InternalError("frontier: a state outside its frame");
  std::uint32_t end = 0;
  std::memcpy(&offset, frame_ptr_ + sizeof count * (1 + r.slot), sizeof offset);
  std::memcpy(&end, frame_ptr_ + sizeof count * (2 + r.slot), sizeof end);
  return {frame_ptr_ + sizeof count * (2 + count) + offset, end - offset};
}

namespace {

// A field of /proc/self/status in kB ("VmRSS:", "VmHWM:"), as bytes.
std::uint64_t status_field(const char* name) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::size_t len = std::strlen(name);
  while (std::getline(in, line))
    if (line.compare(0, len, name) == 0) return std::strtoull(line.c_str() + len, nullptr, 10) * 1024;
  return 0;
}

}  // namespace

std::uint64_t resident_bytes() {
  // statm is one short line: cheaper than status, read every 1024 states.
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long long size = 0, resident = 0;
  const int got = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  if (got != 2) return 0;
  return resident * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

std::uint64_t peak_resident_bytes() { return status_field("VmHWM:"); }

void reset_peak_resident() {
  // "5" resets the peak resident set size (Linux 4.0, proc(5) clear_refs).
  std::FILE* f = std::fopen("/proc/self/clear_refs", "w");
  if (!f) return;
  std::fputs("5", f);
  std::fclose(f);
}

}  // namespace pc::check
