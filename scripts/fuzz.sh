#!/usr/bin/env bash
# Fuzzes clip's file loaders and `clip run`'s arguments: scripts/fuzz.sh [SECONDS] [FORMAT...]
#   SECONDS  per target (default 30); FORMAT: png tif mat cfl cli (default all five, one at a
#   time); cli is fuzz_cli (the argv of `clip run`), the others fuzz_load_FORMAT.
# Builds the libFuzzer targets (clang, ASan+UBSan, build-fuzz/), writes seed corpora with clip's
# writers and the format libraries, adds tests/fuzz_regressions/, then fuzzes each target for
# SECONDS with a 10 s per-input timeout (60 s for cli) and leak checking. The corpus grows in
# build-fuzz/corpus/FORMAT across runs; crashes, timeouts and leaks are written to
# build-fuzz/crashes/FORMAT-*. Prints one summary line per target and exits non-zero when any
# target failed (CI smoke test: scripts/fuzz.sh 30).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-30}
shift || true
formats=${*:-png tif mat cfl cli}
CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DCLIP_FUZZ=ON -DCLIP_TESTS=OFF >/dev/null
target() { if [ "$1" = cli ]; then echo fuzz_cli; else echo "fuzz_load_$1"; fi; }
targets="fuzz_make_seeds fuzz_cli_seeds"
for fmt in $formats; do targets="$targets $(target "$fmt")"; done
# shellcheck disable=SC2086
cmake --build build-fuzz -j"$(nproc)" --target $targets >/dev/null
export ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp:print_suppressions=0
./build-fuzz/fuzz/fuzz_make_seeds build-fuzz/seeds
rm -rf build-fuzz/seeds/cli
./build-fuzz/fuzz/fuzz_cli_seeds build-fuzz/seeds/cli >/dev/null
mkdir -p build-fuzz/crashes build-fuzz/logs
failed=0
for fmt in $formats; do
  mkdir -p build-fuzz/corpus/$fmt build-fuzz/seeds/regress-$fmt
  # Earlier findings first: they must be handled by now.
  rm -f build-fuzz/seeds/regress-$fmt/*
  cp tests/fuzz_regressions/$fmt-* build-fuzz/seeds/regress-$fmt/ 2>/dev/null || true
  log=build-fuzz/logs/$fmt.log
  marker=build-fuzz/logs/$fmt.start
  touch "$marker"
  rc=0
  # cli inits processes, and an init may build an OpenCL program for the first time. Under ASan
  # PoCL's compiler runs about 15 times slower than in a Release build (every allocation goes
  # through the sanitizer): GEMM tile sets that build in 1-2 s take 15-35 s here. Slower than
  # 60 s is a finding (timeout); below that libFuzzer writes no slow-unit file either.
  timeout=10
  if [ "$fmt" = cli ]; then timeout=60; fi
  ./build-fuzz/fuzz/$(target "$fmt") -max_total_time="$secs" -max_len=65536 -timeout=$timeout \
    -report_slow_units=$timeout \
    -rss_limit_mb=4096 -artifact_prefix=build-fuzz/crashes/$fmt- -print_final_stats=1 \
    build-fuzz/corpus/$fmt build-fuzz/seeds/$fmt build-fuzz/seeds/regress-$fmt >"$log" 2>&1 || rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  found=$(find build-fuzz/crashes -name "$fmt-*" -newer "$marker" | wc -l)
  echo "fuzz: $fmt: ${secs} s, ${runs:-?} runs, corpus $(ls build-fuzz/corpus/$fmt | wc -l)," \
       "$found new crash/timeout/leak files, exit $rc (log $log)"
  if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ]; then
    grep -E "ERROR|SUMMARY|Test unit written" "$log" | head -5 || true
    failed=1
  fi
done
if [ "$failed" -ne 0 ]; then echo "fuzz: FAILED"; exit 1; fi
echo "fuzz: no crashes"
