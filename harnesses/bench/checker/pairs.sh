#!/usr/bin/env bash
# Two builds of checker_bench timed in turn on one pinned core, on the barrier
# family without reduction: for a before/after comparison on a machine whose
# timings drift (run them alternately, compare each pair). Usage:
#   harnesses/bench/checker/pairs.sh BEFORE AFTER [W:P:N ...]   (default: 8:40:7 6:100:3)
# BEFORE and AFTER are checker_bench binaries (built statically to carry them
# to another machine: link libzstd.a). If PAN_DIR names a folder holding
# pan_wW_pP (SPIN's pan for barrier.pml at that size, as vs_spin.sh builds it
# with -DNOREDUCE), each round runs it too. CORE picks the core (default: the last).
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: pairs.sh BEFORE AFTER [W:P:N ...]" >&2; exit 2; }
before=$1 after=$2
shift 2
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(8:40:7 6:100:3)
core=${CORE:-$(( $(nproc) - 1 ))}
command -v lscpu >/dev/null && lscpu | grep -E "Model name" || true
for spec in "${sizes[@]}"; do
  IFS=: read -r W P N <<<"$spec"
  for _ in $(seq "$N"); do
    for which in before after; do
      bin=$before
      [ "$which" = after ] && bin=$after
      echo "W=$W P=$P $which $(taskset -c "$core" "$bin" --threads 1 --family barrier --w "$W" --p "$P" --no-reduction | tail -1)"
    done
    pan="${PAN_DIR:-}/pan_w${W}_p${P}"
    if [ -n "${PAN_DIR:-}" ] && [ -x "$pan" ]; then
      out=$(mktemp)
      start=$EPOCHREALTIME
      taskset -c "$core" "$pan" -m$((P * W * 8 + 1000)) -w24 >"$out" 2>&1 || true
      end=$EPOCHREALTIME
      echo "W=$W P=$P pan $(awk '/states, stored/ {print $1; exit}' "$out") states $(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.2f", b - a}') s"
      rm -f "$out"
    fi
  done
done
