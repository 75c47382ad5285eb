#!/bin/sh
# The PTX front end on a long PTX file: compile long_ring.cu to PTX (about
# 22,000 lines) and time check-kernel on it (parse, run each warp, lower,
# search). Usage: harnesses/bench/ptx/run.sh [BUILD_DIR]
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
build=${1:-$root/build}
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$nvcc" -std=c++20 -O2 -lineinfo -gencode=arch=compute_90a,code=sm_90a -I"$root" -ptx "$root/harnesses/bench/ptx/long_ring.cu" -o "$out/long_ring.ptx"
echo "PTX lines: $(wc -l < "$out/long_ring.ptx")"
start=$(date +%s.%N)
"$build/check-kernel" "$out/long_ring.ptx"
end=$(date +%s.%N)
awk -v a="$start" -v b="$end" 'BEGIN { printf "seconds: %.2f\n", b - a }'
