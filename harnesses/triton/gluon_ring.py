"""Our own Gluon kernels for the PTX front end (docs/ptx.md, "Triton and
Gluon"): a warp-specialized TMA ring. A one-warp producer partition loads
K_TILES tiles of A through a STAGES-deep ring of shared-memory buffers
(TMA, completing on full[s]); the default partition (four warps) waits for
each tile, reads it into registers, adds it to its sum and releases the
stage (empty[s]); after the last tile it stores the sum. The planted bug
(BUG=1) releases the stage before reading it, so the producer's next load
into that stage may overwrite the tile while it is read.

Run on a machine with a Hopper GPU: `python3 gluon_ring.py OUT_DIR`
compiles both forms, writes OUT_DIR/gluon_ring[_bug_release_before_read].ptx
and .json (Triton's metadata), and runs the correct form once against
PyTorch (the planted bug is compiled only).
"""
import sys

import torch
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import mbarrier
from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

from gluon_common import NEW_WARP_SPECIALIZE, producer, write

STAGES = 2
K_TILES = 4
BM = 64
BK = 64


@gluon.jit
def consumer(out_ptr, bufs, full, empty, K_TILES: gl.constexpr, STAGES: gl.constexpr, BM: gl.constexpr,
             BK: gl.constexpr, BUG: gl.constexpr):
    layout: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
    acc = gl.zeros([BM, BK], gl.float32, layout)
    for k in gl.static_range(K_TILES):
        s = k % STAGES
        mbarrier.wait(full.index(s), (k // STAGES) & 1)
        if BUG:
            mbarrier.arrive(empty.index(s), count=1)  # planted: the stage is released before it is read
        tile = bufs.index(s).load(layout)
        acc += tile.to(gl.float32)
        if not BUG:
            mbarrier.arrive(empty.index(s), count=1)
    rows = gl.arange(0, BM, layout=gl.SliceLayout(1, layout))
    cols = gl.arange(0, BK, layout=gl.SliceLayout(0, layout))
    gl.store(out_ptr + rows[:, None] * BK + cols[None, :], acc)


@gluon.jit
def setup(a_desc, STAGES: gl.constexpr, BM: gl.constexpr, BK: gl.constexpr):
    bufs = gl.allocate_shared_memory(a_desc.dtype, [STAGES, BM, BK], a_desc.layout)
    full = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(STAGES):
        mbarrier.init(full.index(s), count=1)
        mbarrier.init(empty.index(s), count=1)
    return bufs, full, empty


@gluon.jit
def ring_new(a_desc, out_ptr, K_TILES: gl.constexpr, STAGES: gl.constexpr, BM: gl.constexpr, BK: gl.constexpr,
             BUG: gl.constexpr):
    bufs, full, empty = setup(a_desc, STAGES, BM, BK)
    gl.warp_specialize([
        (consumer, (out_ptr, bufs, full, empty, K_TILES, STAGES, BM, BK, BUG)),
        (producer, (a_desc, bufs, full, empty, K_TILES, STAGES, BK)),
    ], [1], [24])


@gluon.jit
def ring_old(a_desc, out_ptr, K_TILES: gl.constexpr, STAGES: gl.constexpr, BM: gl.constexpr, BK: gl.constexpr,
             BUG: gl.constexpr):
    bufs, full, empty = setup(a_desc, STAGES, BM, BK)
    gl.warp_specialize((out_ptr, bufs, full, empty, K_TILES, STAGES, BM, BK, BUG), consumer,
                       (a_desc, bufs, full, empty, K_TILES, STAGES, BK), [producer], [1], [24])


def main(out_dir):
    a = torch.randn(BM, BK * K_TILES, device="cuda", dtype=torch.float16)
    layout = gl.NVMMASharedLayout.get_default_for([BM, BK], gl.float16)
    a_desc = TensorDescriptor.from_tensor(a, [BM, BK], layout)
    kernel = ring_new if NEW_WARP_SPECIALIZE else ring_old
    for bug, name in ((0, "gluon_ring"), (1, "gluon_ring_bug_release_before_read")):
        out = torch.empty(BM, BK, device="cuda", dtype=torch.float32)
        if bug:
            compiled = kernel.warmup(a_desc, out, K_TILES, STAGES, BM, BK, bug, grid=(1, ), num_warps=4)
        else:
            compiled = kernel[(1, )](a_desc, out, K_TILES, STAGES, BM, BK, bug, num_warps=4)
            torch.cuda.synchronize()
            want = a.float().reshape(BM, K_TILES, BK).sum(1)
            print(name, "max error", (out - want).abs().max().item())
        write(compiled, out_dir, name)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "out")
