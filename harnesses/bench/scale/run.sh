#!/usr/bin/env bash
# The scale suite (suite.txt): for each kernel, states, transitions, seconds
# and peak memory, with an earlier build of check-kernel and with this one,
# one after the other (never at once: each gets every core), as a markdown
# table. Usage, from anywhere, after ./dev build:
#   harnesses/bench/scale/run.sh [OLD_CHECK_KERNEL [NEW_CHECK_KERNEL]]
# An earlier build: git worktree add /tmp/old COMMIT; cmake -S /tmp/old -B
# /tmp/old/build -G Ninja; cmake --build /tmp/old/build --target check-kernel.
# Without OLD_CHECK_KERNEL only this build runs. TIMEOUT (seconds, default
# 1800) and MAX_MEMORY (MiB, default 16384) bound each run: a run they stop
# is `inconclusive`, with the states it reached. THREADS (default: every
# core) is passed as --threads; SUITE (default harnesses/bench/scale/suite.txt)
# another list of the same form.
set -euo pipefail
cd "$(dirname "$0")/../../.."
old=${1:-}
new=${2:-build/check-kernel}
timeout=${TIMEOUT:-1800}
memory=${MAX_MEMORY:-16384}
threads=${THREADS:-$(nproc)}
field() { grep -o "\"$1\": *[0-9.e+\"a-z_-]*" <<<"$2" | head -1 | sed 's/.*: *//; s/"//g'; }
echo "| kernel | arguments | build | outcome | states | transitions | seconds | peak MiB |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
while read -r file args; do
  [[ -z "$file" || "$file" == \#* ]] && continue
  if [[ ! -f "$file" ]]; then
    echo "run.sh: $file: no such kernel" >&2
    exit 2
  fi
  for build in ${old:+old} new; do
    bin=$new
    [[ $build == old ]] && bin=$old
    # shellcheck disable=SC2086
    out=$("$bin" "$file" $args --json --threads "$threads" --timeout "$timeout" --max-memory "$memory" </dev/null 2>/dev/null || true)
    mem=$(field memory_bytes "$out")
    printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n" "$(basename "$file" .bk)" "${args:--}" "$build" \
      "$(field outcome "$out")" "$(field states "$out")" "$(field transitions "$out")" "$(field seconds "$out")" \
      "$(awk -v b="${mem:-0}" 'BEGIN { printf "%.0f", b / 1048576 }')"
  done
done <${SUITE:-harnesses/bench/scale/suite.txt}
