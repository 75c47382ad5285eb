#include "checker/ptx/together.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace pc::ptx {
namespace {

// An operation that may name a joined buffer: a plain read, write or consume.
bool plain(const ir::Op& op) {
  return (op.code == ir::OpCode::read || op.code == ir::OpCode::write || op.code == ir::OpCode::consume) && op.dest_var < 0 &&
         op.value == ir::no_expr && op.sem == ir::Sem::standard && op.scope == ir::Scope::standard;
}

void each_stmt(std::vector<ir::Stmt>& body, const std::function<void(ir::Stmt&)>& f) {
  for (ir::Stmt& s : body) {
    f(s);
    each_stmt(s.body, f);
    each_stmt(s.else_body, f);
  }
}

}  // namespace

int join_buffers(ir::Kernel& k) {
  const std::size_t n = k.buffers.size();
  // A constant expression's value; `none` for an absent one, `other` for one
  // that is not a constant.
  constexpr std::int64_t none = -1, other = -2;
  auto constant = [&](ir::ExprId e) {
    if (e == ir::no_expr) return none;
    const ir::Expr& x = k.exprs.at(static_cast<std::size_t>(e));
    return x.kind == ir::ExprKind::constant ? x.value : other;
  };
  // Per buffer: whether it may be joined, and the operations naming it (a
  // number per statement) with the CTA each names.
  std::vector<bool> may(n, true);
  std::vector<std::vector<std::pair<int, std::int64_t>>> seen(n);
  for (std::size_t b = 0; b < n; ++b) {
    const ir::BufferDecl& d = k.buffers[b];
    if (d.size != 1 || d.alias.of >= 0 || d.tensormap || d.space == ir::Space::tensor) may[b] = false;
    if (d.alias.of >= 0 && !d.alias.mbar) may[static_cast<std::size_t>(d.alias.of)] = false;
  }
  for (const ir::MbarrierDecl& m : k.mbarriers)
    if (m.alias.of >= 0 && !m.alias.mbar) may[static_cast<std::size_t>(m.alias.of)] = false;
  int stmt = 0;
  auto no = [&](const ir::Ref& r) {
    if (r.object >= 0) may[static_cast<std::size_t>(r.object)] = false;
  };
  for (ir::Role& r : k.roles)
    each_stmt(r.body, [&](ir::Stmt& s) {
      const int id = stmt++;
      if (s.kind != ir::StmtKind::op) return;
      const ir::Op& op = s.op;
      no(op.tmem), no(op.global), no(op.tmap);
      for (const ir::Ref& ref : op.bufs) {
        const std::int64_t index = constant(ref.index), cta = constant(ref.cta);
        if (!plain(op) || (index != none && index != 0) || cta == other) no(ref);
        else seen[static_cast<std::size_t>(ref.object)].emplace_back(id, cta);
      }
    });
  // The groups: buffers of one space named by the same operations.
  std::map<std::pair<ir::Space, std::vector<std::pair<int, std::int64_t>>>, std::vector<std::size_t>> groups;
  for (std::size_t b = 0; b < n; ++b) {
    if (!may[b] || seen[b].empty()) continue;
    std::sort(seen[b].begin(), seen[b].end());
    seen[b].erase(std::unique(seen[b].begin(), seen[b].end()), seen[b].end());
    groups[{k.buffers[b].space, seen[b]}].push_back(b);
  }
  // Each group's first buffer holds the others' bytes.
  std::vector<int> into(n, -1);  // the buffer each joins, or -1
  std::vector<bool> joined(n, false);  // in a group of two or more
  int removed = 0;
  for (const auto& [key, members] : groups) {
    if (members.size() < 2) continue;
    ir::BufferDecl& first = k.buffers[members.front()];
    for (const std::size_t b : members) joined[b] = true;
    for (std::size_t i = 1; i < members.size(); ++i) {
      first.bytes += k.buffers[members[i]].bytes;
      into[members[i]] = static_cast<int>(members.front());
      ++removed;
    }
    first.bytes_expr = ir::no_expr;
    first.name += " +" + std::to_string(members.size() - 1);
  }
  if (removed == 0) return 0;
  // New indices, and every reference moved to them.
  std::vector<int> index(n, -1);
  std::vector<ir::BufferDecl> kept;
  for (std::size_t b = 0; b < n; ++b)
    if (into[b] < 0) {
      index[b] = static_cast<int>(kept.size());
      kept.push_back(std::move(k.buffers[b]));
    }
  auto moved = [&](int b) { return b < 0 ? b : index[static_cast<std::size_t>(into[static_cast<std::size_t>(b)] >= 0 ? into[static_cast<std::size_t>(b)] : b)]; };
  for (ir::BufferDecl& d : kept)
    if (d.alias.of >= 0 && !d.alias.mbar) d.alias.of = moved(d.alias.of);
  for (ir::MbarrierDecl& m : k.mbarriers)
    if (m.alias.of >= 0 && !m.alias.mbar) m.alias.of = moved(m.alias.of);
  k.buffers = std::move(kept);
  for (ir::Role& r : k.roles)
    each_stmt(r.body, [&](ir::Stmt& s) {
      if (s.kind != ir::StmtKind::op) return;
      ir::Op& op = s.op;
      op.tmem.object = moved(op.tmem.object);
      op.global.object = moved(op.global.object);
      op.tmap.object = moved(op.tmap.object);
      std::vector<ir::Ref> bufs;
      for (ir::Ref ref : op.bufs) {
        // A joined buffer once per CTA (its references' indices are 0).
        const bool once = ref.object >= 0 && joined[static_cast<std::size_t>(ref.object)];
        ref.object = moved(ref.object);
        const bool twice = once && std::any_of(bufs.begin(), bufs.end(), [&](const ir::Ref& x) {
          return x.object == ref.object && constant(x.cta) == constant(ref.cta);
        });
        if (!twice) bufs.push_back(ref);
      }
      op.bufs = std::move(bufs);
    });
  return removed;
}

}  // namespace pc::ptx
