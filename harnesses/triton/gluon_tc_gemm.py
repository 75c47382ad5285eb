"""Our own Gluon kernel for the PTX front end (docs/ptx.md, "Triton and
Gluon"): a warp-specialized Blackwell tcgen05 matmul. A one-warp loader
partition loads K_TILES tiles of A (BM x BK) and B (BN x BK, K-major)
through a STAGES-deep TMA ring (full[s]); a one-warp MMA partition waits for
each stage, issues tcgen05.mma into a tensor-memory accumulator and releases
the stage when the MMA has read it (the MMA's mbarrier, empty[s]); after the
last tile it commits to acc_bar. The default partition (four warps, the
epilogue) waits on acc_bar, loads the accumulator from tensor memory and
stores it. The planted bug (BUG=1) loads the accumulator without waiting on
acc_bar, while the MMAs may still write it.

The kernel is compiled for sm_100a (the machine's GPU need not be a
Blackwell: only the compiler runs). `python3 gluon_tc_gemm.py OUT_DIR`
writes OUT_DIR/gluon_tc_gemm[_bug_no_acc_wait].ptx and .json.
"""
import inspect
import sys

import torch
import triton
from triton.backends.compiler import GPUTarget
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia import blackwell as bw
from triton.experimental.gluon.language.nvidia.blackwell import (TensorMemoryLayout, allocate_tensor_memory, mbarrier,
                                                                  tcgen05_commit, tcgen05_mma, tma)
from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

from gluon_common import NEW_WARP_SPECIALIZE, write

STAGES = 2
K_TILES = 4
BM = 128
BN = 64
BK = 64


@gluon.jit
def loader(a_desc, b_desc, a_bufs, b_bufs, full, empty, K_TILES: gl.constexpr, STAGES: gl.constexpr,
           BK: gl.constexpr):
    for k in gl.static_range(K_TILES):
        s = k % STAGES
        if k >= STAGES:
            mbarrier.wait(empty.index(s), ((k // STAGES) - 1) & 1)
        mbarrier.expect(full.index(s), a_desc.block_type.nbytes + b_desc.block_type.nbytes)
        tma.async_copy_global_to_shared(a_desc, [0, k * BK], full.index(s), a_bufs.index(s))
        tma.async_copy_global_to_shared(b_desc, [0, k * BK], full.index(s), b_bufs.index(s))


@gluon.jit
def mma(a_bufs, b_bufs, acc_tmem, full, empty, acc_bar, K_TILES: gl.constexpr, STAGES: gl.constexpr):
    for k in gl.static_range(K_TILES):
        s = k % STAGES
        mbarrier.wait(full.index(s), (k // STAGES) & 1)
        tcgen05_mma(a_bufs.index(s), b_bufs.index(s).permute((1, 0)), acc_tmem, use_acc=k > 0,
                    mbarriers=[empty.index(s)])
    tcgen05_commit(acc_bar)


@gluon.jit
def epilogue(out_ptr, acc_tmem, acc_bar, BM: gl.constexpr, BN: gl.constexpr, REG: gl.constexpr,
             BUG: gl.constexpr):
    if not BUG:
        mbarrier.wait(acc_bar, 0)
    acc = acc_tmem.load(REG)
    rows = gl.arange(0, BM, layout=gl.SliceLayout(1, REG))
    cols = gl.arange(0, BN, layout=gl.SliceLayout(0, REG))
    gl.store(out_ptr + rows[:, None] * BN + cols[None, :], acc)


@gluon.jit
def setup(a_desc, b_desc, STAGES: gl.constexpr, BM: gl.constexpr, BN: gl.constexpr, TMEM: gl.constexpr):
    a_bufs = gl.allocate_shared_memory(a_desc.dtype, [STAGES] + a_desc.block_type.shape, a_desc.layout)
    b_bufs = gl.allocate_shared_memory(b_desc.dtype, [STAGES] + b_desc.block_type.shape, b_desc.layout)
    full = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    acc_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    for s in gl.static_range(STAGES):
        mbarrier.init(full.index(s), count=1)
        mbarrier.init(empty.index(s), count=1)
    mbarrier.init(acc_bar, count=1)
    acc_tmem = allocate_tensor_memory(gl.float32, [BM, BN], TMEM)
    return a_bufs, b_bufs, full, empty, acc_bar, acc_tmem


@gluon.jit
def tc_gemm_new(a_desc, b_desc, out_ptr, K_TILES: gl.constexpr, STAGES: gl.constexpr, BM: gl.constexpr,
                BN: gl.constexpr, BK: gl.constexpr, TMEM: gl.constexpr, REG: gl.constexpr, BUG: gl.constexpr):
    a_bufs, b_bufs, full, empty, acc_bar, acc_tmem = setup(a_desc, b_desc, STAGES, BM, BN, TMEM)
    gl.warp_specialize([
        (epilogue, (out_ptr, acc_tmem, acc_bar, BM, BN, REG, BUG)),
        (loader, (a_desc, b_desc, a_bufs, b_bufs, full, empty, K_TILES, STAGES, BK)),
        (mma, (a_bufs, b_bufs, acc_tmem, full, empty, acc_bar, K_TILES, STAGES)),
    ], [1, 1], [24, 24])


@gluon.jit
def tc_gemm_old(a_desc, b_desc, out_ptr, K_TILES: gl.constexpr, STAGES: gl.constexpr, BM: gl.constexpr,
                BN: gl.constexpr, BK: gl.constexpr, TMEM: gl.constexpr, REG: gl.constexpr, BUG: gl.constexpr):
    a_bufs, b_bufs, full, empty, acc_bar, acc_tmem = setup(a_desc, b_desc, STAGES, BM, BN, TMEM)
    gl.warp_specialize((out_ptr, acc_tmem, acc_bar, BM, BN, REG, BUG), epilogue,
                       (a_desc, b_desc, a_bufs, b_bufs, full, empty, acc_tmem, acc_bar, K_TILES, STAGES, BK),
                       [loader_old, mma_old], [1, 1], [24, 24])


@gluon.jit
def loader_old(a_desc, b_desc, a_bufs, b_bufs, full, empty, acc_tmem, acc_bar, K_TILES: gl.constexpr,
               STAGES: gl.constexpr, BK: gl.constexpr):
    loader(a_desc, b_desc, a_bufs, b_bufs, full, empty, K_TILES, STAGES, BK)


@gluon.jit
def mma_old(a_desc, b_desc, a_bufs, b_bufs, full, empty, acc_tmem, acc_bar, K_TILES: gl.constexpr,
            STAGES: gl.constexpr, BK: gl.constexpr):
    mma(a_bufs, b_bufs, acc_tmem, full, empty, acc_bar, K_TILES, STAGES)


def register_layout(tmem_layout):
    """The accumulator's register layout for a four-warp tcgen05.ld; the
    helper's name and arguments differ between Triton versions."""
    if hasattr(bw, "get_tmem_32x32b_reg_layout"):
        return bw.get_tmem_32x32b_reg_layout(BM, BN, [BM, BN], 4)
    return bw.get_tmem_reg_layout(gl.float32, [BM, BN], tmem_layout, 4)


def main(out_dir):
    # Compile for sm_100a whatever GPU this machine has: only the compiler runs.
    triton.runtime.driver.active.get_current_target = lambda: GPUTarget("cuda", 100, 32)
    a = torch.randn(BM, BK * K_TILES, device="cuda", dtype=torch.float16)
    b = torch.randn(BN, BK * K_TILES, device="cuda", dtype=torch.float16)
    a_desc = TensorDescriptor.from_tensor(a, [BM, BK], gl.NVMMASharedLayout.get_default_for([BM, BK], gl.float16))
    b_desc = TensorDescriptor.from_tensor(b, [BN, BK], gl.NVMMASharedLayout.get_default_for([BN, BK], gl.float16))
    # Newer Triton names the packing by a column stride, older by `unpacked`.
    if "col_stride" in inspect.signature(TensorMemoryLayout).parameters:
        tmem = TensorMemoryLayout((BM, BN), col_stride=1)
    else:
        tmem = TensorMemoryLayout((BM, BN), unpacked=True)
    reg = register_layout(tmem)
    kernel = tc_gemm_new if NEW_WARP_SPECIALIZE else tc_gemm_old
    out = torch.empty(BM, BN, device="cuda", dtype=torch.float32)
    for bug, name in ((0, "gluon_tc_gemm"), (1, "gluon_tc_gemm_bug_no_acc_wait")):
        compiled = kernel.warmup(a_desc, b_desc, out, K_TILES, STAGES, BM, BN, BK, tmem, reg, bug, grid=(1, ),
                                 num_warps=4)
        write(compiled, out_dir, name)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "out")
