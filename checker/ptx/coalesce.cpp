#include "checker/ptx/coalesce.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace pc::ptx {
namespace {

// A read or consume that a run may hold: no value, no other CTA's memory,
// no ordering of its own.
bool plain_access(const ir::Stmt& s) {
  if (s.kind != ir::StmtKind::op) return false;
  const ir::Op& op = s.op;
  if (op.code != ir::OpCode::read && op.code != ir::OpCode::consume) return false;
  if (op.dest_var >= 0 || op.value != ir::no_expr || op.bufs.empty()) return false;
  if (op.sem != ir::Sem::standard || op.scope != ir::Scope::standard) return false;
  return std::all_of(op.bufs.begin(), op.bufs.end(), [](const ir::Ref& r) { return r.cta == ir::no_expr; });
}

// A wgmma a run of wgmmas may hold: the agent's own CTA's memory.
bool plain_wgmma(const ir::Stmt& s) {
  if (s.kind != ir::StmtKind::op || s.op.code != ir::OpCode::wgmma || s.op.bufs.empty()) return false;
  return std::all_of(s.op.bufs.begin(), s.op.bufs.end(), [](const ir::Ref& r) { return r.cta == ir::no_expr; });
}

// The same threads: the lanes, the warp and the lane-0 test.
bool same_threads(const ir::Op& a, const ir::Op& b) {
  return a.lanes == b.lanes && a.lane_mask == b.lane_mask && a.lane0 == b.lane0 && a.warp == b.warp && a.mask == b.mask;
}

bool same_ref(const ir::Ref& a, const ir::Ref& b) { return a.object == b.object && a.index == b.index && a.cta == b.cta; }

void add_ref(std::vector<ir::Ref>& to, const ir::Ref& r) {
  if (std::none_of(to.begin(), to.end(), [&](const ir::Ref& x) { return same_ref(x, r); })) to.push_back(r);
}

int coalesce(std::vector<ir::Stmt>& body) {
  int removed = 0;
  for (ir::Stmt& s : body) {
    removed += coalesce(s.body);
    removed += coalesce(s.else_body);
  }
  std::vector<ir::Stmt> out;
  out.reserve(body.size());
  for (std::size_t i = 0; i < body.size();) {
    if (plain_wgmma(body[i])) {
      // Consecutive wgmmas of the same threads and the same A (shared or
      // registers): one wgmma of all their buffers.
      ir::Stmt w = body[i];
      std::size_t j = i + 1;
      for (; j < body.size() && plain_wgmma(body[j]) && same_threads(body[j].op, w.op) && body[j].op.regs == w.op.regs; ++j)
        for (const ir::Ref& r : body[j].op.bufs) add_ref(w.op.bufs, r);
      removed += static_cast<int>(j - i - 1);
      out.push_back(std::move(w));
      i = j;
      continue;
    }
    if (!plain_access(body[i])) {
      out.push_back(std::move(body[i++]));
      continue;
    }
    // The run from i: the same threads; it stops before a read of an object
    // it has consumed (that read is not consumed by the run's consume).
    std::size_t j = i;
    std::vector<int> consumed;
    ir::Stmt read, use;
    bool has_read = false, has_use = false;
    for (; j < body.size() && plain_access(body[j]) && same_threads(body[j].op, body[i].op); ++j) {
      const ir::Op& op = body[j].op;
      if (op.code == ir::OpCode::read) {
        const bool again = std::any_of(op.bufs.begin(), op.bufs.end(), [&](const ir::Ref& r) {
          return std::find(consumed.begin(), consumed.end(), r.object) != consumed.end();
        });
        if (again) break;
        if (!has_read) read = body[j], read.op.bufs.clear(), has_read = true;
        for (const ir::Ref& r : op.bufs) add_ref(read.op.bufs, r);
      } else {
        if (!has_use) use = body[j], use.op.bufs.clear(), has_use = true;
        for (const ir::Ref& r : op.bufs) add_ref(use.op.bufs, r), consumed.push_back(r.object);
      }
    }
    const std::size_t merged = (has_read ? 1 : 0) + (has_use ? 1 : 0);
    removed += static_cast<int>(j - i - merged);
    if (has_read) out.push_back(std::move(read));
    if (has_use) out.push_back(std::move(use));
    i = j;
  }
  body = std::move(out);
  return removed;
}

}  // namespace

int coalesce_reads(ir::Kernel& k) {
  int removed = 0;
  for (ir::Role& r : k.roles) removed += coalesce(r.body);
  return removed;
}

}  // namespace pc::ptx
