#!/usr/bin/env bash
# The checker against SPIN on the barrier family, side by side: states and
# states/s of each, and the ratio. Usage (from the repository root, after ./dev build):
#   harnesses/bench/checker/vs_spin.sh [W] [P]
# Needs Debian's spin and a C compiler. Both searches run without partial-order
# reduction (ours --no-reduction, SPIN -DNOREDUCE) so that they visit the same
# interleavings; a second pair runs both with their reductions.
set -euo pipefail
W=${1:-4}
P=${2:-200}
root=$(cd "$(dirname "$0")/../../.." && pwd)
bench="$root/build/harnesses/bench/checker/checker_bench"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$root/harnesses/bench/checker/barrier.pml" "$work/"
cd "$work"
spin -DW="$W" -DP="$P" -a barrier.pml >/dev/null
cc -O2 -DSAFETY -DNOREDUCE -DMEMLIM=8000 -o pan_noreduce pan.c
cc -O2 -DSAFETY -DMEMLIM=8000 -o pan_reduce pan.c

secs() { /usr/bin/time -f %e "$@" 2>&1 >/dev/null | tail -1; }
run_pair() {  # label, our flags, pan binary
  local ours spin_out ours_states spin_states ours_s spin_s
  ours=$("$bench" --family barrier --w "$W" --p "$P" $2)
  ours_states=$(echo "$ours" | awk '{print $3}')
  ours_s=$(secs "$bench" --family barrier --w "$W" --p "$P" $2)
  spin_out=$(./"$3" -m$((P * W * 8 + 1000)) -w21 2>&1)
  spin_states=$(echo "$spin_out" | awk '/states, stored/ {print $1; exit}')
  spin_s=$(secs ./"$3" -m$((P * W * 8 + 1000)) -w21)
  awk -v l="$1" -v os="$ours_states" -v ot="$ours_s" -v ss="$spin_states" -v st="$spin_s" 'BEGIN {
    ot = (ot > 0.001 ? ot : 0.001); st = (st > 0.001 ? st : 0.001);
    printf "%-14s phasecheck %10d states %7.2f s %10.0f states/s | spin %10d states %7.2f s %10.0f states/s | time ratio %.2f\n",
      l, os, ot, os / ot, ss, st, ss / st, ot / st }'
}
echo "barrier family W=$W P=$P (whole-process wall time, /usr/bin/time)"
run_pair "no reduction" "--no-reduction" pan_noreduce
run_pair "reductions" "" pan_reduce
