#!/usr/bin/env bash
# Checks that compiled device code holds the expected instructions.
# usage: check_device_code.sh FILE PATTERN...   (grep -E patterns, each must match)
#        a PATTERN @LIST reads patterns from LIST, one a line (# starts a comment)
set -u
file=$1
shift
pats=()
for p in "$@"; do
  if [ "${p#@}" != "$p" ]; then
    while IFS= read -r line; do
      case "$line" in ''|'#'*) ;; *) pats+=("$line") ;; esac
    done < "${p#@}"
  else
    pats+=("$p")
  fi
done
set -- "${pats[@]}"
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
