#!/usr/bin/env bash
# Arrivals by warp (docs/spec.md, "Per-thread arrivals"): the corpus's states
# under the rule that a multi-warp arrive is each warp's arrive-on, against
# a build from before it (whose warp group's arrive was one arrive of its
# total), side by side, one thread each. Prints a markdown table and the
# largest ratio. Usage, from the repository root after ./dev build, with a
# check-kernel built at the commit before the rule (git worktree add DIR
# df85864; cmake -S DIR -B OLD_BUILD -G Ninja; cmake --build OLD_BUILD --target check-kernel):
#   harnesses/bench/checker/arrive_units.sh OLD_BUILD/check-kernel [NEW_CHECK_KERNEL]
set -euo pipefail
cd "$(dirname "$0")/../../.."
old=${1:?usage: arrive_units.sh OLD_CHECK_KERNEL [NEW_CHECK_KERNEL]}
new=${2:-build/check-kernel}
field() { grep -o "\"$1\": *[0-9.e+\"a-z_-]*" <<<"$2" | head -1 | sed 's/.*: *//; s/"//g'; }
echo "| kernel | outcome before | outcome now | states before | states now | ratio |"
echo "| --- | --- | --- | --- | --- | --- |"
worst=0
for k in kernels/*.bk kernels/bugs/*.bk kernels/field/*.bk; do
  a=$("$old" "$k" --json --threads 1 || true)
  b=$("$new" "$k" --json --threads 1 || true)
  sa=$(field states "$a"); sb=$(field states "$b")
  va=$(field outcome "$a"); vb=$(field outcome "$b")
  r=$(awk -v x="$sa" -v y="$sb" 'BEGIN { printf "%.2f", (x > 0 ? y / x : 0) }')
  worst=$(awk -v w="$worst" -v r="$r" 'BEGIN { print (r > w ? r : w) }')
  printf "| %s | %s | %s | %s | %s | %s |\n" "$(basename "$k" .bk)" "$va" "$vb" "$sa" "$sb" "$r"
done
echo
echo "largest ratio (now / before): $worst"
