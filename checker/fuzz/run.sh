#!/usr/bin/env bash
# Builds the libFuzzer target with clang (ASan + UBSan + libFuzzer) and runs it
# for a bounded time, seeded with the corpus and the docs' examples.
# usage: checker/fuzz/run.sh [SECONDS]      (default 60)
set -euo pipefail
secs=${1:-60}
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/build-fuzz
mkdir -p "$out/corpus"
cxx=$(command -v clang++-14 || command -v clang++)
srcs=$(ls "$root"/spec/*.cpp "$root"/checker/*.cpp "$root"/checker/dsl/*.cpp)
"$cxx" -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -I"$root" \
  $srcs "$root/checker/fuzz/fuzz_kernel.cpp" -o "$out/fuzz_kernel"
cp "$root"/kernels/*.bk "$root"/kernels/bugs/*.bk "$out/corpus/"
cd "$out"
./fuzz_kernel -max_total_time="$secs" -max_len=4096 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 corpus 2>&1 | tail -15
echo "fuzz: no crash, leak or sanitizer report in ${secs}s"
