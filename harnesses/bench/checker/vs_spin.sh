#!/usr/bin/env bash
# The checker against SPIN on the barrier family, side by side, at several
# sizes: states, seconds, states/s, peak resident memory and bytes per stored
# state of each, and the ratios. Usage (from the repository root, after
# ./dev build):
#   harnesses/bench/checker/vs_spin.sh [W:P ...]      (default: 4:200 6:100 8:40)
# Needs Debian's spin and a C compiler. Each size runs twice: both searches
# without partial-order reduction (ours --no-reduction, SPIN -DNOREDUCE), so
# that they visit the same interleavings, then both with their reductions.
# Both run on one core (ours --threads 1); memory is each process's peak
# resident set (/usr/bin/time %M), so bytes per state include the process.
set -euo pipefail
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(4:200 6:100 8:40)
root=$(cd "$(dirname "$0")/../../.." && pwd)
bench="$root/build/harnesses/bench/checker/checker_bench"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$root/harnesses/bench/checker/barrier.pml" "$work/"
cd "$work"

# Prints "seconds peak-KiB" of a command, its output to $work/out.
measure() { /usr/bin/time -f "%e %M" -o "$work/time" "$@" >"$work/out" 2>&1 || true; cat "$work/time"; }

echo "| W, P | run | phasecheck states | s | states/s | peak MiB | B/state | SPIN states | s | states/s | peak MiB | B/state | time ratio | memory ratio |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for size in "${sizes[@]}"; do
  W=${size%%:*}
  P=${size##*:}
  spin -DW="$W" -DP="$P" -a barrier.pml >/dev/null
  cc -O2 -DSAFETY -DNOREDUCE -DMEMLIM=16000 -o pan_noreduce pan.c
  cc -O2 -DSAFETY -DMEMLIM=16000 -o pan_reduce pan.c
  for run in "no reduction:--no-reduction:pan_noreduce" "reductions::pan_reduce"; do
    IFS=: read -r label flags pan <<<"$run"
    read -r os okb < <(measure "$bench" --threads 1 --family barrier --w "$W" --p "$P" $flags)
    ostates=$(awk '{print $3}' "$work/out")
    read -r ss skb < <(measure ./"$pan" -m$((P * W * 8 + 1000)) -w24)
    sstates=$(awk '/states, stored/ {print $1; exit}' "$work/out")
    awk -v wp="$W, $P" -v l="$label" -v os="$ostates" -v ot="$os" -v om="$okb" \
        -v ss="$sstates" -v st="$ss" -v sm="$skb" 'BEGIN {
      ot = (ot > 0.01 ? ot : 0.01); st = (st > 0.01 ? st : 0.01);
      printf "| %s | %s | %d | %.2f | %.0f | %.1f | %.1f | %d | %.2f | %.0f | %.1f | %.1f | %.2f | %.2f |\n",
        wp, l, os, ot, os / ot, om / 1024, om * 1024 / os, ss, st, ss / st, sm / 1024, sm * 1024 / ss, ot / st, om / sm }'
  done
done
