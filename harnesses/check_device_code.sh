#!/usr/bin/env bash
# Checks that compiled device code holds the expected instructions.
# usage: check_device_code.sh FILE PATTERN...   (grep -E patterns, each must match)
set -u
file=$1
shift
[ -s "$file" ] || { echo "missing or empty: $file"; exit 1; }
rc=0
for p in "$@"; do
  if grep -Eq -- "$p" "$file"; then
    echo "ok: $p"
  else
    echo "MISSING in $file: $p"
    rc=1
  fi
done
exit $rc
