"""Our own Gluon kernel for the PTX front end (docs/ptx.md, "Triton and
Gluon"): an attention-style ping-pong. A one-warp producer partition loads
K_TILES tiles through a STAGES-deep TMA ring (full[s] / empty[s]). Two
consumer partitions of W warps take the tiles in turn (tile k to consumer
k % 2): each reads its tile, releases the stage, then, in its turn, stages a
partial result through one shared scratch buffer (store, load back) and
passes the turn to the other consumer (turn[c] is the barrier consumer c
waits on). The planted bug (BUG=1) passes the turn before loading the
scratch back, so the other consumer's store may overwrite it first.

On a Hopper GPU machine, `python3 gluon_pingpong.py OUT_DIR` writes
OUT_DIR/gluon_pingpong[_bug_turn_before_load].ptx and .json (consumers of one
warp, BM = 32, beside an idle 4-warp default partition) and _wg forms
(consumers of four warps, BM = 64: 12 warps, a scale input); it runs each
correct form once against PyTorch.
"""
import sys
import traceback

import torch
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import mbarrier
from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

from gluon_common import NEW_WARP_SPECIALIZE, producer, write

STAGES = 2
K_TILES = 6
BK = 64


@gluon.jit
def consumer(out_ptr, bufs, full, empty, turn, scratch, C: gl.constexpr, K_TILES: gl.constexpr,
             STAGES: gl.constexpr, BM: gl.constexpr, BK: gl.constexpr, W: gl.constexpr, BUG: gl.constexpr):
    layout: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [W, 1], [1, 0])
    acc = gl.zeros([BM, BK], gl.float32, layout)
    for k in gl.static_range(C, K_TILES, 2):
        s = k % STAGES
        mbarrier.wait(full.index(s), (k // STAGES) & 1)
        tile = bufs.index(s).load(layout).to(gl.float32)
        mbarrier.arrive(empty.index(s), count=1)
        if k > 0:  # the turn: the other consumer's previous tile is done with the scratch buffer
            mbarrier.wait(turn.index(C), ((k - 1) // 2) & 1)
        scratch.store(tile * (k + 1))
        if BUG:
            mbarrier.arrive(turn.index(1 - C), count=1)  # planted: the turn passes before the load
        acc += scratch.load(layout)
        if not BUG:
            mbarrier.arrive(turn.index(1 - C), count=1)
    rows = gl.arange(0, BM, layout=gl.SliceLayout(1, layout))
    cols = gl.arange(0, BK, layout=gl.SliceLayout(0, layout))
    gl.store(out_ptr + C * BM * BK + rows[:, None] * BK + cols[None, :], acc)


@gluon.jit
def consumer0(out_ptr, bufs, full, empty, turn, scratch, K_TILES: gl.constexpr, STAGES: gl.constexpr,
              BM: gl.constexpr, BK: gl.constexpr, W: gl.constexpr, BUG: gl.constexpr):
    consumer(out_ptr, bufs, full, empty, turn, scratch, 0, K_TILES, STAGES, BM, BK, W, BUG)


@gluon.jit
def consumer1(out_ptr, bufs, full, empty, turn, scratch, K_TILES: gl.constexpr, STAGES: gl.constexpr,
              BM: gl.constexpr, BK: gl.constexpr, W: gl.constexpr, BUG: gl.constexpr):
    consumer(out_ptr, bufs, full, empty, turn, scratch, 1, K_TILES, STAGES, BM, BK, W, BUG)


@gluon.jit
def setup(a_desc, STAGES: gl.constexpr, BM: gl.constexpr, BK: gl.constexpr):
    bufs = gl.allocate_shared_memory(a_desc.dtype, [STAGES, BM, BK], a_desc.layout)
    scratch = gl.allocate_shared_memory(gl.float32, [BM, BK], gl.SwizzledSharedLayout(1, 1, 1, [1, 0]))
    full = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    turn = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    for s in gl.static_range(STAGES):
        mbarrier.init(full.index(s), count=1)
        mbarrier.init(empty.index(s), count=1)
    for c in gl.static_range(2):
        mbarrier.init(turn.index(c), count=1)
    return bufs, scratch, full, empty, turn


@gluon.jit
def pingpong_new(a_desc, out_ptr, K_TILES: gl.constexpr, STAGES: gl.constexpr, BM: gl.constexpr,
                 BK: gl.constexpr, W: gl.constexpr, BUG: gl.constexpr):
    bufs, scratch, full, empty, turn = setup(a_desc, STAGES, BM, BK)
    gl.warp_specialize([
        (consumer0, (out_ptr, bufs, full, empty, turn, scratch, K_TILES, STAGES, BM, BK, W, BUG)),
        (consumer1, (out_ptr, bufs, full, empty, turn, scratch, K_TILES, STAGES, BM, BK, W, BUG)),
        (producer, (a_desc, bufs, full, empty, K_TILES, STAGES, BK)),
    ], [W, 1], [152, 24])


@gluon.jit
def idle():
    pass


# Consumers of one warp each: Triton wants the kernel's warps (the default
# partition's) a multiple of four, so the default partition here does nothing.
@gluon.jit
def pingpong_warps(a_desc, out_ptr, K_TILES: gl.constexpr, STAGES: gl.constexpr, BM: gl.constexpr,
                   BK: gl.constexpr, W: gl.constexpr, BUG: gl.constexpr):
    bufs, scratch, full, empty, turn = setup(a_desc, STAGES, BM, BK)
    gl.warp_specialize([
        (idle, ()),
        (consumer0, (out_ptr, bufs, full, empty, turn, scratch, K_TILES, STAGES, BM, BK, W, BUG)),
        (consumer1, (out_ptr, bufs, full, empty, turn, scratch, K_TILES, STAGES, BM, BK, W, BUG)),
        (producer, (a_desc, bufs, full, empty, K_TILES, STAGES, BK)),
    ], [W, W, 1], [152, 152, 24])


@gluon.jit
def pingpong_old(a_desc, out_ptr, K_TILES: gl.constexpr, STAGES: gl.constexpr, BM: gl.constexpr,
                 BK: gl.constexpr, W: gl.constexpr, BUG: gl.constexpr):
    bufs, scratch, full, empty, turn = setup(a_desc, STAGES, BM, BK)
    args = (out_ptr, bufs, full, empty, turn, scratch, K_TILES, STAGES, BM, BK, W, BUG)
    gl.warp_specialize(args, consumer0, args, [consumer1, producer], [W, 1], [152, 24])


def build(out_dir, W, BM, suffix):
    a = torch.randn(BM, BK * K_TILES, device="cuda", dtype=torch.float16)
    layout = gl.NVMMASharedLayout.get_default_for([BM, BK], gl.float16)
    a_desc = TensorDescriptor.from_tensor(a, [BM, BK], layout)
    kernel = pingpong_new if NEW_WARP_SPECIALIZE else pingpong_old
    if W < 4:
        kernel = pingpong_warps  # Triton 3.5 and later only
    for bug, name in ((0, "gluon_pingpong" + suffix), (1, "gluon_pingpong" + suffix + "_bug_turn_before_load")):
        out = torch.empty(2, BM, BK, device="cuda", dtype=torch.float32)
        if bug:
            compiled = kernel.warmup(a_desc, out, K_TILES, STAGES, BM, BK, W, bug, grid=(1, ), num_warps=4)
        else:
            compiled = kernel[(1, )](a_desc, out, K_TILES, STAGES, BM, BK, W, bug, num_warps=4)
            torch.cuda.synchronize()
            tiles = a.float().reshape(BM, K_TILES, BK) * torch.arange(1, K_TILES + 1, device="cuda")[None, :, None]
            want = torch.stack([tiles[:, 0::2].sum(1), tiles[:, 1::2].sum(1)])
            print(name, "max error", (out - want).abs().max().item())
        write(compiled, out_dir, name)


def main(out_dir):
    failed = 0
    for w, bm, suffix in ((1, 32, ""), (4, 64, "_wg")):
        try:
            build(out_dir, w, bm, suffix)
        except Exception:  # one form failing still writes the other
            traceback.print_exc()
            failed = 1
    sys.exit(failed)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "out")
