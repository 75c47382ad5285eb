"""What the Gluon scripts of this folder share: which form of
gl.warp_specialize this Triton has, the TMA producer partition, and writing
a compiled kernel's PTX and metadata (the launch: warps, shared memory,
cluster) for check-kernel --meta."""
import inspect
import json
import os

import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma

_params = list(inspect.signature(gl.warp_specialize).parameters)
# Triton 3.5 and later take [(function, args), ...]; earlier ones
# (default_args, default_partition, worker_args, worker_partitions, ...).
NEW_WARP_SPECIALIZE = _params[0] != "default_args"


# The producer partition of both kernels: one warp loads K_TILES tiles of A
# through a STAGES-deep ring of shared buffers (TMA, completing on full[s]),
# waiting for each stage's release (empty[s]) from the ring's second round.
@gluon.jit
def producer(a_desc, bufs, full, empty, K_TILES: gl.constexpr, STAGES: gl.constexpr, BK: gl.constexpr):
    for k in gl.static_range(K_TILES):
        s = k % STAGES
        if k >= STAGES:
            mbarrier.wait(empty.index(s), ((k // STAGES) - 1) & 1)
        mbarrier.expect(full.index(s), a_desc.block_type.nbytes)
        tma.async_copy_global_to_shared(a_desc, [0, k * BK], full.index(s), bufs.index(s))


HERE = os.path.dirname(os.path.abspath(__file__))


def write(compiled, out_dir, name):
    os.makedirs(out_dir, exist_ok=True)
    # The .file lines name this folder as the repository does, not as this
    # machine has it; the metadata keeps no path of the machine.
    ptx = compiled.asm["ptx"].replace('"' + HERE + '/', '"harnesses/triton/')
    with open(os.path.join(out_dir, name + ".ptx"), "w") as f:
        f.write(ptx)
    import dataclasses

    def plain(v):
        # As Triton's cache writes it: a named tuple (the target) as an object.
        if hasattr(v, "_asdict"):
            return {k: plain(x) for k, x in v._asdict().items()}
        if dataclasses.is_dataclass(v):
            return {f.name: plain(getattr(v, f.name)) for f in dataclasses.fields(v)}
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        return v if isinstance(v, (int, float, str, bool, type(None))) else str(v)

    meta = {k: plain(v) for k, v in compiled.metadata._asdict().items() if k != "extern_libs"}
    meta["triton_version"] = triton.__version__
    with open(os.path.join(out_dir, name + ".json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
    print(name, "written:", {k: meta.get(k) for k in ("num_warps", "shared", "cluster_dims", "name")})
