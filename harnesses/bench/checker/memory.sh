#!/usr/bin/env bash
# Peak resident memory per stored state on the largest corpus kernels, one
# thread, with and without the reductions: states, seconds, the peak resident
# set of the whole process (/usr/bin/time %M) and its bytes per stored state.
# Given several check-kernel binaries (another build, for a paired figure),
# runs each on each kernel in turn. Prints a markdown table. Usage, from the
# repository root after ./dev build:
#   harnesses/bench/checker/memory.sh [CHECK_KERNEL ...]     (default: build/check-kernel)
set -euo pipefail
cd "$(dirname "$0")/../../.."
bins=("$@")
[ ${#bins[@]} -eq 0 ] && bins=(build/check-kernel)
runs=(
  "kernels/cutlass_tma_multicast.bk --no-reduction"
  "kernels/mojo_pair_attention_split_o.bk --no-reduction"
  "kernels/mojo_pair_attention_split_o.bk"
  "kernels/mojo_pair_attention_no_split.bk --no-reduction"
  "kernels/field/cutlass_sm100_2sm_umma.bk --no-reduction"
  "kernels/field/fa3_fwd_hdim64_3wg.bk --no-reduction"
)
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
echo "| kernel | options | binary | states | seconds | peak RSS MiB | B/state |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for run in "${runs[@]}"; do
  read -r file opts <<<"$run"
  for bin in "${bins[@]}"; do
    /usr/bin/time -f "%e %M" -o "$tmp" "$bin" "$file" $opts --threads 1 --json >"$tmp.out" || true
    read -r secs kb <"$tmp"
    states=$(grep -o '"states": *[0-9]*' "$tmp.out" | head -1 | grep -o '[0-9]*$' || true)
    if [ -z "$states" ]; then  # bad input for that binary (an older one may refuse a kernel)
      echo "| $(basename "$file" .bk) | ${opts:-reductions} | $bin | - | - | - | - |"
      continue
    fi
    awk -v k="$(basename "$file" .bk)" -v o="${opts:-reductions}" -v b="$bin" -v n="$states" -v s="$secs" -v m="$kb" \
      'BEGIN { printf "| %s | %s | %s | %d | %.2f | %.1f | %.1f |\n", k, o, b, n, s, m / 1024, m * 1024 / n }'
  done
done
rm -f "$tmp.out"
