// Scalable kernel families for the checker benchmark, built with the IR builder.
#pragma once

#include "checker/builder.hpp"

namespace pc::bench {

// W warps meet at one mbarrier (count W) for P phases: each arrives, then
// waits for the phase by parity.
inline ir::Kernel barrier_family(int warps, int phases) {
  using namespace ir;
  KernelBuilder kb("barrier_w" + std::to_string(warps) + "_p" + std::to_string(phases));
  const int bar = kb.mbarrier("bar", 1, warps);
  Role& r = kb.role("worker", Granularity::warp, warps);
  const int k = KernelBuilder::var(r, "k");
  const ExprId parity = kb.bin(BinOp::mod, kb.v(k), kb.c(2));
  r.body.push_back(KernelBuilder::for_loop(
      k, kb.c(0), kb.c(phases),
      {KernelBuilder::op(OpCode::mbar_arrive).bar(bar).one(), KernelBuilder::op(OpCode::mbar_wait).bar(bar).parity(parity)}));
  return kb.build();
}

// One producer feeds W identical consumers through a ring of S stages for K
// iterations: full[s] (count 1) and empty[s] (count W), the producer starting
// one phase ahead on empty.
inline ir::Kernel consumers_family(int consumers, int iters, int stages = 2) {
  using namespace ir;
  KernelBuilder kb("consumers_w" + std::to_string(consumers) + "_k" + std::to_string(iters));
  const int data = kb.buffer("data", stages, 1024);
  const int full = kb.mbarrier("full", stages, 1);
  const int empty = kb.mbarrier("empty", stages, consumers);
  {
    Role& p = kb.role("producer", Granularity::warp);
    const int k = KernelBuilder::var(p, "k");
    const ExprId s = kb.bin(BinOp::mod, kb.v(k), kb.c(stages));
    const ExprId round = kb.bin(BinOp::div, kb.v(k), kb.c(stages));
    const ExprId par = kb.bin(BinOp::mod, kb.bin(BinOp::add, round, kb.c(1)), kb.c(2));
    p.body.push_back(KernelBuilder::for_loop(
        k, kb.c(0), kb.c(iters),
        {KernelBuilder::op(OpCode::mbar_wait).bar(empty, s).parity(par), KernelBuilder::op(OpCode::write).buf(data, s).one(),
         KernelBuilder::op(OpCode::mbar_arrive).bar(full, s).one()}));
  }
  Role& c = kb.role("consumer", Granularity::warp, consumers);
  const int k = KernelBuilder::var(c, "k");
  const ExprId s = kb.bin(BinOp::mod, kb.v(k), kb.c(stages));
  const ExprId par = kb.bin(BinOp::mod, kb.bin(BinOp::div, kb.v(k), kb.c(stages)), kb.c(2));
  c.body.push_back(KernelBuilder::for_loop(
      k, kb.c(0), kb.c(iters),
      {KernelBuilder::op(OpCode::mbar_wait).bar(full, s).parity(par), KernelBuilder::op(OpCode::read).buf(data, s).one(),
       KernelBuilder::op(OpCode::mbar_arrive).bar(empty, s).one()}));
  return kb.build();
}

}  // namespace pc::bench
