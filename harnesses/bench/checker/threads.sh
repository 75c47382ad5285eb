#!/usr/bin/env bash
# The parallel search's speed-up: check-kernel with --threads 1, 2, 4, 8, 16
# on corpus kernels large enough to take seconds, side by side on one machine.
# Prints a markdown table: states, seconds, states per second, peak resident
# memory and the speed-up over one thread (the same states and verdict are
# a test's business: tests/checker_threads_test.cpp).
#   harnesses/bench/checker/threads.sh [CHECK_KERNEL] [THREADS...]
# CASES="1 3" runs only those of the cases below (counted from 1); the
# fourth takes about four minutes on one thread of a 16-core Xeon.
set -euo pipefail
cd "$(dirname "$0")/../../.."
ck=${1:-build/check-kernel}
shift || true
threads=("$@")
[ ${#threads[@]} -gt 0 ] || threads=(1 2 4 8 16)
cases=(
  "kernels/cutlass_tma_multicast.bk --no-reduction"
  "kernels/mojo_pair_attention_split_o.bk --no-reduction --param STAGES=3"
  "kernels/field/cutlass_sm100_2sm_umma.bk --param ACC_STAGES=2"
  "kernels/field/cutlass_sm100_2sm_umma.bk --param ACC_STAGES=2 --param TILES=4"
)
echo "| kernel and options | threads | states | seconds | states/s | peak RSS MiB | speed-up |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
picked=(${CASES:-$(seq ${#cases[@]})})
for i in "${picked[@]}"; do
  c=${cases[$((i - 1))]}
  base=""
  for t in "${threads[@]}"; do
    out=$( { /usr/bin/time -f "rss %M" $ck $c --threads "$t" --max-memory 60000 --timeout 900 --json; } 2>&1 || true)
    states=$(grep -o '"states": *[0-9]*' <<<"$out" | head -1 | grep -o '[0-9]*$')
    secs=$(grep -o '"seconds": *[0-9.e+-]*' <<<"$out" | head -1 | grep -o '[0-9.e+-]*$')
    rss=$(grep -o '^rss [0-9]*' <<<"$out" | grep -o '[0-9]*$')
    [ -n "$base" ] || base=$secs
    awk -v c="$c" -v t="$t" -v n="$states" -v s="$secs" -v r="$rss" -v b="$base" \
      'BEGIN { printf "| %s | %d | %d | %.2f | %.3g | %.0f | %.2f |\n", c, t, n, s, n / s, r / 1024, b / s }'
  done
done
