#!/bin/sh
# The differential test of compiled kernels (docs/conformance/differential.md):
# each kernel of kernels/cuda, as the PTX the build compiled with the stress
# delays (BUILD/kernels/cuda/stress/NAME.ptx, which check-kernel verifies as
# the same search as the plain PTX: tests/ptx_kernels_test.cpp), launched on
# a Hopper GPU by BUILD/harnesses/run_ptx, against its correct twin's plain
# PTX run once. Prints a Markdown table: the model's verdict (the kernel's
# `// expect:` line, which the tests hold check-kernel to), the outcome, and
# whether they agree. A kernel the model verifies must come out "ok"; a
# planted bug is "shown" where the hardware misbehaved, "not shown" where it
# did not. Kernels for another target (`// arch: sm_100a`) are listed, not run.
#
#   harnesses/differential/run.sh BUILD [LAUNCHES] [GRID]
set -u
build=${1:?usage: run.sh BUILD [LAUNCHES] [GRID]}
launches=${2:-1000}
grid=${3:-264}
src=$(cd "$(dirname "$0")/../.." && pwd)
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)
echo "GPU: ${gpu:-unknown}; $launches launches of $grid CTAs per kernel; $(date -u +%Y-%m-%d)"
echo
echo "| kernel | model | launches | outcome | agreement | detail |"
echo "| --- | --- | --- | --- | --- | --- |"
for cu in "$src"/kernels/cuda/*.cu; do
  name=$(basename "$cu" .cu)
  expect=$(sed -n 's|^// expect: *||p' "$cu")
  arch=$(sed -n 's|^// arch: *||p' "$cu")
  opts=$(sed -n 's|^// check-kernel: *||p' "$cu")
  entry=$(echo "$opts" | sed -n 's|.*--entry \([A-Za-z0-9_]*\).*|\1|p')
  block=$(echo "$opts" | sed -n 's|.*--block \([0-9]*\).*|\1|p')
  base=${name%%_bug_*}
  if [ -n "$arch" ]; then
    echo "| $name | $expect | 0 | not run | | its target is $arch |"
    continue
  fi
  out=$(timeout -k 10 300 "$build/harnesses/run_ptx" --ptx "$build/kernels/cuda/stress/$name.ptx" --entry "$entry" \
    --block "$block" --ref-ptx "$build/kernels/cuda/$base.ptx" --ref-entry "$base" --launches "$launches" --grid "$grid" 2>&1)
  json=$(echo "$out" | grep '^{' | tail -n 1)
  if [ -z "$json" ]; then
    outcome="error"; done_=0; detail=$(echo "$out" | tr '\n|' ' /' | cut -c1-200)
  else
    outcome=$(echo "$json" | sed 's|.*"outcome": "\([a-z]*\)".*|\1|')
    done_=$(echo "$json" | sed 's|.*"launches": \([0-9]*\).*|\1|')
    detail=$(echo "$json" | sed 's|.*"detail": "\(.*\)"}|\1|' | tr '|' '/')
  fi
  if [ "$expect" = verified ]; then
    if [ "$outcome" = ok ]; then agree="agrees"; else agree="DISAGREES"; fi
  elif [ "$outcome" = ok ]; then agree="not shown"
  else agree="shown"
  fi
  echo "| $name | $expect | $done_ | $outcome | $agree | $detail |"
done
