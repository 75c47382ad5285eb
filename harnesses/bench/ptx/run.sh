#!/bin/sh
# The PTX front end on long PTX files: compile long_ring.cu (about 22,000
# lines of PTX) and long_ring_branchy.cu (about 25,500, with 400 branches on
# loaded values) and time check-kernel on each (parse, run each warp, lower,
# search). Usage: harnesses/bench/ptx/run.sh [BUILD_DIR]
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
build=${1:-$root/build}
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for name in long_ring long_ring_branchy; do
  "$nvcc" -std=c++20 -O2 -lineinfo -gencode=arch=compute_90a,code=sm_90a -I"$root" -ptx "$root/harnesses/bench/ptx/$name.cu" -o "$out/$name.ptx"
  echo "$name: PTX lines: $(wc -l < "$out/$name.ptx")"
  start=$(date +%s.%N)
  "$build/check-kernel" "$out/$name.ptx"
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "seconds: %.2f\n", b - a }'
done
