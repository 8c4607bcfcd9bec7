#!/usr/bin/env bash
# Builds the loader fuzzers (clang, libFuzzer, ASan+UBSan), makes seed corpora with clip's own
# writers, and fuzzes each loader for SECONDS (default 30). Crashes land in build-fuzz/crashes/.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-30}
CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DCLIP_FUZZ=ON -DCLIP_TESTS=OFF >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target fuzz_load_png fuzz_load_tif fuzz_load_mat fuzz_load_cfl fuzz_make_seeds
export ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp:print_suppressions=0
./build-fuzz/fuzz/fuzz_make_seeds build-fuzz/seeds
mkdir -p build-fuzz/crashes
for fmt in png tif mat cfl; do
  mkdir -p build-fuzz/corpus/$fmt
  echo "fuzzing $fmt for ${secs}s"
  ./build-fuzz/fuzz/fuzz_load_$fmt -max_total_time="$secs" -max_len=65536 -timeout=10 -rss_limit_mb=4096 \
    -artifact_prefix=build-fuzz/crashes/$fmt- -print_final_stats=1 \
    build-fuzz/corpus/$fmt build-fuzz/seeds/$fmt 2>&1 | grep -E "stat::number_of_executed_units|ERROR|SUMMARY|Done" || true
  if ls build-fuzz/crashes/$fmt-* >/dev/null 2>&1; then echo "fuzz: $fmt crashed"; exit 1; fi
done
echo "fuzz: no crashes"
