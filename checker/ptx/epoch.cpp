// Values one warp stores to shared memory and another loads after a barrier
// of the whole CTA: Triton's warp-specialization dispatch (docs/ptx.md,
// "Triton and Gluon"). The default partition stores each worker warp's
// task index (a constant) into shared memory, and every warp passes a
// barrier of all the CTA's threads (`barrier.sync 1`); each worker warp
// then loads its byte and jumps through `brx.idx` to its partition's code.
//
// A warp's epoch is the number of such barriers (bar.sync or barrier.sync
// with no thread count, or the CTA's) it has passed. A load in epoch m that
// comes right after its barrier (no synchronization of the warp since: no
// other order can have made a later store visible) reads, for each byte,
// the store of another warp with the highest epoch below m: barrier m
// orders every such store before the load, and a later one is either
// ordered after it or a race, which the model reports from the same read
// and write events. It is known where those stores are the front end's
// `st.shared` of known values, the same among the stores of that epoch;
// else the load's value is data, as any load's. Stores of warps the
// executor runs after the loading one are checked afterwards
// (check_stored_values): the answer must not change.
//
// The same known value stored to the same bytes by several warps (all
// threads of Triton's default partition write the dispatch word) cannot
// make a read see anything else, in any order (stores of other epochs are
// ordered with them by a barrier anyway), so those stores are read as
// morally strong writes of the CTA (the model's relaxed atomic write):
// no race among them, each still a write that every read and other write
// of those bytes must be ordered with (same_value_stores).
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checker/ptx/warp.hpp"

namespace pc::ptx {

namespace {

bool full_barrier(const Event& e, int threads, const ir::Kernel& k) {
  if (e.mark != Event::Mark::none || e.op.code != ir::OpCode::bar_sync) return false;
  if (e.op.count == ir::no_expr) return true;
  return k.exprs.at(static_cast<std::size_t>(e.op.count)).value == threads;
}

bool overlaps(const Context::SharedStore& s, int cta, std::int64_t lo, std::int64_t hi) {
  return s.cta == cta && s.lo < hi && lo < s.lo + static_cast<std::int64_t>(s.bytes.size());
}

// An address stored whole to exactly [lo, hi) by every latest store below m
// of those bytes (the same address): that address, else nothing.
std::optional<Val> resolve_whole(const std::vector<Context::SharedStore>& all, int cta, std::int64_t lo, std::int64_t hi, int m) {
  int best = -1;
  for (const Context::SharedStore& s : all)
    if (overlaps(s, cta, lo, hi) && s.epoch < m) best = std::max(best, s.epoch);
  std::optional<Val> v;
  for (const Context::SharedStore& s : all) {
    if (!overlaps(s, cta, lo, hi) || s.epoch != best) continue;
    const bool exact = s.lo == lo && s.lo + static_cast<std::int64_t>(s.bytes.size()) == hi;
    if (!exact || s.whole.k == Val::K::unknown || (v && *v != s.whole)) return std::nullopt;
    v = s.whole;
  }
  return v;
}

// The value of bytes [lo, hi) of CTA `cta` in epoch `m` for warp `reader`,
// from the stores `all`: an address stored whole there, or the integer
// (little-endian) where every byte's latest store below m is known and
// those of one epoch agree.
std::optional<Val> resolve(const std::vector<Context::SharedStore>& all, int cta, std::int64_t lo, std::int64_t hi, int m, int reader) {
  for (const Context::SharedStore& s : all) {
    if (!overlaps(s, cta, lo, hi)) continue;
    if (s.warp == reader) return std::nullopt;
    if (s.epoch < 0) return std::nullopt;  // a store on a way of a branch read both ways: its epoch is not known
  }
  if (std::optional<Val> w = resolve_whole(all, cta, lo, hi, m)) return w;
  std::uint64_t v = 0;
  for (std::int64_t b = lo; b < hi; ++b) {
    int best = -1;
    std::optional<int> byte;
    bool clash = false;
    for (const Context::SharedStore& s : all) {
      if (!overlaps(s, cta, b, b + 1) || s.epoch >= m) continue;
      const int x = s.known ? s.bytes[static_cast<std::size_t>(b - s.lo)] : -1;
      if (s.epoch > best) {
        best = s.epoch;
        byte = x;
        clash = false;
      } else if (s.epoch == best && byte != x) {
        clash = true;
      }
    }
    if (best < 0 || clash || !byte || *byte < 0) return std::nullopt;
    v |= static_cast<std::uint64_t>(*byte) << (8 * (b - lo));
  }
  return Val::num(static_cast<std::int64_t>(v));
}

}  // namespace

void Warp::after_event(const Event& e) {
  if (full_barrier(e, ctx.threads, ctx.kb->kernel())) {
    if (epoch_ >= 0) ++epoch_;
    synced_ = false;
    return;
  }
  const ir::OpCode c = e.op.code;
  if (e.mark != Event::Mark::none || (c != ir::OpCode::read && c != ir::OpCode::write && c != ir::OpCode::consume)) synced_ = true;
}

void Warp::record_store(const Instr& in, std::uint32_t lanes, const Operand& addr, const Operand& value, std::int64_t width) {
  const Type t = type_of(in.parts);
  for (int l = 0; l < 32; ++l) {
    if (!((lanes >> l) & 1)) continue;
    const Bytes b = bytes_at(in, l, addr, width);
    if (b.global) return;
    Context::SharedStore s;
    s.cta = b.cta;
    s.lo = b.lo;
    s.warp = warp + 1000 * cta;
    s.epoch = either_depth_ > 0 ? -1 : epoch_;  // a store on one way of a branch on a loaded value: any epoch
    s.line = in.at.line;
    s.event = either_depth_ > 0 ? -1 : static_cast<int>(out_->events.size()) - 1;  // its write (emitted just before)
    // The value's bytes, little-endian; a vector's elements one after another.
    const std::vector<Operand> elems = value.kind == Operand::Kind::vec ? value.elems : std::vector<Operand>{value};
    const std::int64_t each = width / static_cast<std::int64_t>(elems.size());
    s.known = true;
    if (elems.size() == 1) {
      const Val v = get(l, value, t);
      if (v.address() || v.k == Val::K::tmem) s.whole = Val{v.k, v.v, v.base, -1, 0};
    }
    for (const Operand& o : elems) {
      const Val v = get(l, o, t);
      s.known = s.known && v.known() && each <= 8;
      for (std::int64_t i = 0; i < each; ++i)
        s.bytes.push_back(v.known() && i < 8 ? static_cast<int>((static_cast<std::uint64_t>(v.v) >> (8 * i)) & 0xFF) : -1);
    }
    ctx.shared_stores.push_back(std::move(s));
  }
}

std::optional<Val> Warp::stored_value(const Instr& in, int lane, const Operand& addr, std::int64_t width) {
  if (synced_ || epoch_ <= 0 || either_depth_ > 0 || width > 8) return std::nullopt;
  const Bytes b = bytes_at(in, lane, addr, width);
  if (b.global) return std::nullopt;
  const std::optional<Val> v = resolve(ctx.shared_stores, b.cta, b.lo, b.hi, epoch_, warp + 1000 * cta);
  if (v) ctx.stored_reads.push_back(Context::StoredRead{b.cta, b.lo, b.hi, epoch_, warp + 1000 * cta, *v, in.at});
  return v;
}

void same_value_stores(const Context& ctx, std::vector<WarpRun>& warps) {
  // (warp, event) -> whether every lane's store of it is a known value that
  // every other warp's overlapping store also writes.
  std::map<std::pair<int, int>, bool> ok;
  const auto& all = ctx.shared_stores;
  for (const Context::SharedStore& s : all) {
    if (s.event < 0) continue;
    bool& mine = ok.try_emplace({s.warp, s.event}, true).first->second;
    bool others = false;
    for (const Context::SharedStore& t : all) {
      if (t.warp == s.warp || t.cta != s.cta) continue;
      if (s.epoch >= 0 && t.epoch >= 0 && s.epoch != t.epoch) continue;  // a barrier of the whole CTA between them
      const std::int64_t lo = std::max(s.lo, t.lo);
      const std::int64_t hi = std::min(s.lo + static_cast<std::int64_t>(s.bytes.size()), t.lo + static_cast<std::int64_t>(t.bytes.size()));
      if (lo >= hi) continue;
      if (s.whole.k != Val::K::unknown && s.whole == t.whole && s.lo == t.lo && s.bytes.size() == t.bytes.size()) {
        others = true;  // the same address stored whole
        continue;
      }
      for (std::int64_t b = lo; b < hi; ++b) {
        others = true;
        const int x = s.bytes[static_cast<std::size_t>(b - s.lo)], y = t.bytes[static_cast<std::size_t>(b - t.lo)];
        if (x < 0 || y < 0 || x != y) mine = false;
      }
    }
    if (!others) mine = false;  // no other warp stores there: a plain write
  }
  for (WarpRun& w : warps)
    for (std::size_t i = 0; i < w.events.size(); ++i) {
      const auto it = ok.find({w.warp + 1000 * w.cta, static_cast<int>(i)});
      Event& e = w.events[i];
      if (it != ok.end() && it->second && e.op.code == ir::OpCode::write && e.mark == Event::Mark::none) {
        e.op.code = ir::OpCode::atomic;
        e.op.sem = ir::Sem::relaxed;
        e.op.scope = ir::Scope::cta;
      }
    }
}

std::optional<Diagnostic> check_stored_values(const Context& ctx, const std::vector<WarpRun>& warps, const std::string& file) {
  for (const Context::StoredRead& r : ctx.stored_reads) {
    const std::optional<Val> v = resolve(ctx.shared_stores, r.cta, r.lo, r.hi, r.epoch, r.reader);
    // Any other write of those bytes (an async copy, an atomic) is a value not followed.
    bool other = false;
    for (const WarpRun& w : warps)
      for (const Event& e : w.events) {
        const ir::OpCode c = e.op.code;
        if (e.mark != Event::Mark::none || c == ir::OpCode::write || c == ir::OpCode::read || c == ir::OpCode::consume ||
            c == ir::OpCode::atomic_load)
          continue;
        for (const Bytes& b : e.data)
          if (!b.global && b.cta == r.cta && b.lo < r.hi && r.lo < b.hi) other = true;
      }
    if (!v || *v != r.value || other)
      return Diagnostic{file, ir::Loc{r.at.line, r.at.col},
                        "this load's value was read as " + (r.value.known() ? std::to_string(r.value.v) : std::string("an address")) +
                            ", what another warp stored before the barrier of the whole CTA both passed, but a warp that ran "
                            "later stores to those bytes too (or writes them otherwise): not supported yet",
                        true};
  }
  return std::nullopt;
}

}  // namespace pc::ptx
