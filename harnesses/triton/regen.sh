#!/bin/sh
# Regenerates the Gluon kernels' PTX and metadata (tests/data/triton/) on a
# machine with a Hopper GPU and Triton: sh harnesses/triton/regen.sh DIR
set -e
out=$(realpath "${1:-tests/data/triton}")
cd "$(dirname "$0")"
python3 -c 'import triton, torch; print("triton", triton.__version__, "torch", torch.__version__)'
for k in gluon_ring gluon_pingpong gluon_tc_gemm; do
    python3 "$k.py" "$out" || echo "$k: FAILED"
done
