#!/usr/bin/env bash
# Builds the libFuzzer target (checker/fuzz/CMakeLists.txt: clang with
# libFuzzer, ASan and UBSan) and runs it for a bounded time, seeded with the
# corpus and the example kernels of docs/dsl.md. A crash, leak, sanitizer
# report or timeout fails the run; libFuzzer leaves the input that caused it
# in build-fuzz/ (crash-*, leak-*, timeout-*).
# usage: checker/fuzz/run.sh [SECONDS]      (default 60)
set -euo pipefail
secs=${1:-60}
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/build-fuzz
cxx=$(command -v clang++-14 || command -v clang++)
cmake -S "$root/checker/fuzz" -B "$out" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" >/dev/null
# A build error is printed (the build's output is kept in build-fuzz/build.log).
cmake --build "$out" -j "$(nproc 2>/dev/null || echo 2)" >"$out/build.log" 2>&1 || { tail -40 "$out/build.log" >&2; exit 1; }

# Seeds: every corpus kernel, and every fenced block of docs/dsl.md that
# declares a kernel.
seeds=$out/seeds
rm -rf "$seeds"
mkdir -p "$seeds" "$out/corpus"
# Every .bk under kernels/, its folder in its name (two folders may hold
# files of one name).
find "$root/kernels" -name '*.bk' | while read -r f; do
  rel=${f#"$root/kernels/"}
  cp "$f" "$seeds/${rel//\//_}"
done
n=$(find "$seeds" -name '*.bk' | wc -l)
[ "$n" -ge "$(find "$root/kernels" -name '*.bk' | wc -l)" ] || { echo "fuzz: only $n seeds from kernels/" >&2; exit 1; }
awk -v dir="$seeds" '
  /^```/ { if (inblock) { if (text ~ /(^|\n)kernel /) { n++; printf "%s", text > (dir "/dsl_md_" n ".bk"); close(dir "/dsl_md_" n ".bk") }
                          inblock = 0; text = "" }
           else inblock = 1
           next }
  inblock { text = text $0 "\n" }
' "$root/docs/dsl.md"

cd "$out"
# corpus/ collects what the fuzzer finds interesting (kept between runs);
# seeds/ is read only.
./fuzz_kernel -max_total_time="$secs" -max_len=4096 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  corpus seeds 2>&1 | tail -15
echo "fuzz: no crash, leak or sanitizer report in ${secs}s"
