#!/usr/bin/env bash
# The scale suite (suite.txt) on one process and over MPI ranks, one after
# the other, as a markdown table: for each kernel, one process with THREADS
# threads (default: every core), one process with one thread, and RANKS
# ranks of one thread each (default: every core) under `check-kernel
# --distributed`; states, transitions, seconds, peak memory (the ranks': the
# sum, and the sum over the ranks) and the speed-up over one thread.
# Usage, from anywhere, after ./dev build:
#   harnesses/bench/scale/distributed.sh [CHECK_KERNEL]
# MPIRUN (default: mpirun; a bundle's run.sh from mpi_bundle.sh where the
# machine has no Open MPI), TIMEOUT (seconds, default 1800), MAX_MEMORY (MiB
# per process or rank, default 16384), SUITE (default suite.txt), ONE=0 to
# leave out the one-thread run (then no speed-up column), RANK_THREADS
# (threads in each rank, default 1).
set -euo pipefail
cd "$(dirname "$0")/../../.."
bin=${1:-build/check-kernel}
mpirun=${MPIRUN:-mpirun}
timeout=${TIMEOUT:-1800}
memory=${MAX_MEMORY:-16384}
threads=${THREADS:-$(nproc)}
ranks=${RANKS:-$(nproc)}
rank_threads=${RANK_THREADS:-1}
field() { { grep -o "\"$1\": *[0-9.e+\"a-z_-]*" <<<"$2" || true; } | head -1 | sed 's/.*: *//; s/"//g'; }
echo "| kernel | arguments | run | outcome | states | transitions | seconds | speed-up | peak MiB (per rank) |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
while read -r file args; do
  [[ -z "$file" || "$file" == \#* ]] && continue
  one=""
  runs=("$threads threads" "$ranks ranks")
  [[ $rank_threads == 1 ]] || runs=("$threads threads" "$ranks ranks of $rank_threads threads")
  [[ ${ONE:-1} == 0 ]] || runs=("1 thread" "${runs[@]}")
  for run in "${runs[@]}"; do
    limits=(--json --timeout "$timeout" --max-memory "$memory")
    # shellcheck disable=SC2086
    case $run in
      *ranks*) out=$(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 $mpirun -np "$ranks" --oversubscribe --bind-to none "$bin" "$file" $args "${limits[@]}" --distributed --threads "$rank_threads" </dev/null 2>/dev/null || true) ;;
      *thread*) out=$("$bin" "$file" $args "${limits[@]}" --threads "${run%% *}" </dev/null 2>/dev/null || true) ;;
    esac
    secs=$(field seconds "$out")
    [[ $run == "1 thread" ]] && one=$secs
    mem=$(field memory_bytes "$out")
    per=""
    [[ $run == *ranks* ]] && per=$(awk -v b="${mem:-0}" -v n="$ranks" 'BEGIN { printf " (%.0f)", b / n / 1048576 }')
    printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s%s |\n" "$(basename "$file" .bk)" "${args:--}" "$run" \
      "$(field outcome "$out")" "$(field states "$out")" "$(field transitions "$out")" "$secs" \
      "$(awk -v a="${one:-0}" -v b="${secs:-0}" 'BEGIN { if (a > 0 && b > 0) printf "%.1fx", a / b }')" \
      "$(awk -v b="${mem:-0}" 'BEGIN { printf "%.0f", b / 1048576 }')" "$per"
  done
done <${SUITE:-harnesses/bench/scale/suite.txt}
