#!/bin/sh
# The PTX front end against the hand-written .bk twins: for each CUDA kernel
# of kernels/cuda/ (compiled by the build to build/kernels/cuda/NAME.ptx),
# the verdict and the states of the twin, of the PTX as check-kernel reads it,
# and of the PTX with its runs of reads left apart (checker/ptx/coalesce.hpp:
# the kernel --emit-bk --no-reduction prints, searched with the reductions).
# Usage: harnesses/bench/ptx/twins.sh [BUILD_DIR]
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
build=${1:-$root/build}
ck=$build/check-kernel
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
field() { sed -n "s/.*\"$1\": \"\{0,1\}\([a-z_0-9]*\).*/\1/p" | head -1; }
echo "| kernel | verdict | .bk states | PTX states | ratio | runs apart |"
echo "| --- | --- | --- | --- | --- | --- |"
for cu in "$root"/kernels/cuda/*.cu; do
  name=$(basename "$cu" .cu)
  opts=$(sed -n 's,^// check-kernel: *,,p' "$cu")
  ptx=$build/kernels/cuda/$name.ptx
  # shellcheck disable=SC2086
  "$ck" "$ptx" $opts --json > "$tmp/p.json" || true
  # shellcheck disable=SC2086
  "$ck" "$ptx" $opts --emit-bk --no-reduction > "$tmp/apart.bk"
  # A kernel whose runs apart are more states than a test searches
  # (`// apart: bounded N`) is searched apart up to N states: "> N".
  bound=$(sed -n 's,^// apart: bounded *,,p' "$cu")
  "$ck" "$tmp/apart.bk" --json ${bound:+--max-states "$bound"} > "$tmp/a.json" || true
  "$ck" "$root/kernels/cuda/$name.bk" --json > "$tmp/t.json" || true
  t=$(field states < "$tmp/t.json"); p=$(field states < "$tmp/p.json"); a=$(field states < "$tmp/a.json")
  [ -n "$bound" ] && [ "$(field verdict < "$tmp/a.json")" = inconclusive ] && a="> $bound"
  v=$(field verdict < "$tmp/p.json")
  [ "$v" = violation ] && v=$(sed -n 's/.*"outcome": "\([a-z_]*\)".*/\1/p' "$tmp/p.json" | head -1)
  echo "| $name | $v | $t | $p | $(awk -v p="$p" -v t="$t" 'BEGIN { printf "%.1f", p / t }') | $a |"
done
