#!/usr/bin/env bash
# Kernels of many warps: states and time of the barrier family (W single-warp
# agents meeting at one mbarrier for P phases, symmetric) at W = 4, 8, 12 and
# 16, and of the 16-warp corpus kernel (FlashAttention-3 forward at hdim 64:
# a producer warp group and three MMA warp groups), with the reductions and
# without. Prints a markdown table. Usage, from the repository root after
# ./dev build:
#   harnesses/bench/checker/warps.sh [P]
set -euo pipefail
cd "$(dirname "$0")/../../.."
P=${1:-50}
bench=build/harnesses/bench/checker/checker_bench
ck=build/check-kernel
echo "| kernel | options | verdict | states | seconds |"
echo "| --- | --- | --- | --- | --- |"
for w in 4 8 12 16; do
  for opt in "" "--no-reduction"; do
    # Without the reductions W = 12 stores 26.6M states (54 s on one core of the 2-core machine), W = 16 is out of reach.
    [ "$w" -gt 8 ] && [ -n "$opt" ] && continue
    out=$("$bench" --family barrier --w "$w" --p "$P" $opt)
    awk -v w="$w" -v p="$P" -v o="${opt:-reductions}" '{ printf "| barrier family W=%d P=%d | %s | %s | %d | %.3f |\n", w, p, o, $1, $3, $5 }' <<<"$out"
  done
done
k=kernels/field/fa3_fwd_hdim64_3wg.bk
for opt in "" "--no-reduction"; do
  out=$("$ck" "$k" $opt --json --threads 1)
  states=$(grep -o '"states": *[0-9]*' <<<"$out" | head -1 | grep -o '[0-9]*$')
  secs=$(grep -o '"seconds": *[0-9.e+-]*' <<<"$out" | head -1 | grep -o '[0-9.e+-]*$')
  verdict=$(grep -o '"verdict": *"[a-z]*"' <<<"$out" | head -1 | grep -o '"[a-z]*"$' | tr -d '"')
  printf "| %s (16 warps) | %s | %s | %s | %.2f |\n" "$(basename "$k" .bk)" "${opt:-reductions}" "$verdict" "$states" "$secs"
done
