// The breadth-first frontier: the serialised states of a level, compressed.
//
// A state of a real kernel serialises to 0.5-2 KiB, most of it the
// happens-before memory, and a wide level holds tens of thousands: kept as
// they are, the frontier weighs more than the visited table (12 bytes a
// state). Successive states of a level are mostly siblings that differ in a
// few fields, often shifted (an event inserted into a sorted list), which a
// byte-wise delta misses and an LZ compressor finds: zstd over frames of up
// to 32 states keeps a state in 60-130 bytes on the corpus (docs/checker.md,
// "State storage"; docs/benchmarks.md gives the figures). A level small
// beside the visited table is kept uncompressed (raw_budget).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace pc::check {

// Where a state lies: its frame in one writer's frames and its place there.
struct StateRef {
  std::uint32_t frame = 0;
  std::uint16_t slot = 0;
  std::uint16_t writer = 0;  // whose frames (a thread of the parallel search; 0 on one thread)
};

// One writer's states, appended in order and compressed a frame at a time.
// Not shared: each thread of the parallel search writes its own.
class Frames {
 public:
  static constexpr std::size_t frame_states = 32;
  static constexpr std::size_t frame_raw_bytes = std::size_t{1} << 16;

  Frames();
  ~Frames();
  Frames(const Frames&) = delete;
  Frames& operator=(const Frames&) = delete;

  // Appends a state's bytes; the frame is compressed once it is full.
  StateRef put(std::string_view bytes, std::uint16_t writer = 0);
  // Frames are kept as they are, not compressed, while the raw bytes kept so
  // (since the last clear) stay within `bytes` (0, the default: compress
  // every frame). The searches give each level a share of the visited
  // table's size: a narrow level is never compressed and read back, and a
  // wide one still is, so memory stays a small multiple of the table's.
  void raw_budget(std::uint64_t bytes) { raw_budget_ = bytes; }
  // Compresses the open frame: every state put so far can be read.
  void seal();
  // Drops every state (the level has been read); keeps buffers for reuse.
  void clear();
  [[nodiscard]] std::size_t frames() const { return frames_.size(); }
  // The state after `r` in the order put (r in a sealed frame).
  [[nodiscard]] StateRef after(StateRef r) const {
    if (++r.slot < frames_[r.frame].count) return r;
    return StateRef{r.frame + 1, 0, r.writer};
  }
  // The bytes this writer holds: compressed frames, the open frame, buffers.
  [[nodiscard]] std::uint64_t bytes() const;
  // The bytes stored (compressed, or raw within the budget) and the raw bytes
  // of the frames sealed since the last clear.
  [[nodiscard]] std::uint64_t compressed_bytes() const { return compressed_; }
  [[nodiscard]] std::uint64_t raw_bytes() const { return raw_; }

 private:
  friend class FrameReader;
  struct Frame {
    std::unique_ptr<char[]> data;
    std::uint32_t size = 0;      // compressed
    std::uint32_t raw_size = 0;  // offsets and state bytes
    std::uint16_t count = 0;     // states
    bool compressed = true;      // else data holds the raw bytes (size == raw_size)
  };
  std::vector<Frame> frames_;
  std::vector<std::uint32_t> offsets_;  // of the open frame's states, and its end
  std::string open_;                    // the open frame's state bytes
  std::string scratch_;                 // the frame being compressed
  std::string out_;                     // its compressed bytes, before they get a block of their own
  void* ctx_ = nullptr;                 // a ZSTD_CCtx, reused
  std::uint64_t compressed_ = 0, raw_ = 0;
  std::uint64_t raw_budget_ = 0, raw_kept_ = 0;  // raw_budget(), and the raw bytes of frames kept so since clear()
  std::uint64_t generation_ = 0;        // counts clear(): a reader's cached frame is of one generation
};

// Reads states back, keeping the last frame it decompressed: reading a
// level in order decompresses each frame once. The cache names the writer's
// generation, so a writer cleared and refilled is never read from a stale
// frame. One per thread.
class FrameReader {
 public:
  FrameReader();
  ~FrameReader();
  FrameReader(const FrameReader&) = delete;
  FrameReader& operator=(const FrameReader&) = delete;
  // The bytes of the state at `r` in `f` (sealed), valid until the next call.
  std::string_view get(const Frames& f, StateRef r);
 private:
  const char* frame_ptr_ = nullptr;  // the raw frame read: raw_, or a frame kept raw
  const Frames* from_ = nullptr;
  std::uint64_t generation_ = 0;
  std::uint32_t frame_ = 0;
  std::string raw_;
  void* ctx_ = nullptr;  // a ZSTD_DCtx, reused
};

// Resident memory of this process (Linux /proc; 0 where it cannot be read):
// what --max-memory limits and what results report.
[[nodiscard]] std::uint64_t resident_bytes();
// The peak resident memory since the last reset_peak_resident() (or since the
// process started, where the kernel does not let it be reset).
[[nodiscard]] std::uint64_t peak_resident_bytes();
void reset_peak_resident();

}  // namespace pc::check
