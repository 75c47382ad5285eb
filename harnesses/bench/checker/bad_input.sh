#!/bin/sh
# checker_bench on bad input: each case exits 2 with the error check-kernel
# would print (file:line:column where the kernel has one), never an abort.
# Run by ctest as bench_bad_input: bad_input.sh CHECKER_BENCH SOURCE_DIR.
bench=$1
umma=$2/kernels/field/cutlass_sm100_2sm_umma.bk
err=$(mktemp)
trap 'rm -f "$err"' EXIT
fails=0
expect() {  # expect STDERR_PATTERN ARGS...: exit 2 and a line matching the pattern
  pattern=$1
  shift
  "$bench" "$@" >/dev/null 2>"$err"
  rc=$?
  if [ "$rc" -ne 2 ] || ! grep -q -- "$pattern" "$err"; then
    echo "checker_bench $*: exit $rc (want 2), stderr:" >&2
    cat "$err" >&2
    fails=$((fails + 1))
  fi
}
# More barriers than the model holds (the mbarrier instances with their channels
# of other scopes, the arrival slots): the explorer's error, located.
expect "cutlass_sm100_2sm_umma.bk:[0-9]*:[0-9]*: error: the model holds at most 64 barriers" --kernel "$umma" --param ACC_STAGES=4
# A parameter the kernel does not have: the parser's diagnostic.
expect "error: --param NOPE: the kernel has no such parameter" --kernel "$umma" --param NOPE=1
# Not NAME=VALUE.
expect "--param NOPE: expected NAME=VALUE" --kernel "$umma" --param NOPE
# A file that is not there.
expect "missing.bk: error: cannot open the file" --kernel "$2/missing.bk"
expect "usage: checker_bench" --no-such-option
exit $fails
