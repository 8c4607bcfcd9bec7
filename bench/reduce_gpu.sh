#!/usr/bin/env bash
# The reductions' GPU batch (after scripts/gpu-build.sh): unit tests of norm and dot, then
# bench/reduce_bench over the cases of a sweep, within a time budget; logs go to $OUT.
# Usage: bash bench/reduce_gpu.sh SWEEP BUDGET_SECONDS   (SWEEP: defaults | grid | final)
# BUILD (default build-gpu), LOG2N (default 28: f32 2^28, f64 2^27), TESTS (default
# "test_norm test_dot"), TEST_TIMEOUT (default 60) and SKIP_TESTS may be set.
set -uo pipefail
cd "$(dirname "$0")/.."
[ -e .gpu/opencl-env.sh ] && . .gpu/opencl-env.sh
b=${BUILD:-build-gpu}
out=${OUT:-/tmp}
sweep=${1:-defaults}
budget=${2:-200}
start=$SECONDS
if [ -z "${SKIP_TESTS:-}" ]; then
  for t in ${TESTS:-test_norm test_dot}; do
    (cd $b/tests && timeout ${TEST_TIMEOUT:-60} ./$t) >"$out/$t.log" 2>&1
    echo "$t: rc=$? $(tail -1 "$out/$t.log") ($((SECONDS - start)) s)"
  done
fi
cases() {
  echo "# defaults, f32 (n = 2^28) and f64 (n = 2^27)"
  for t in f32 f64; do
    for p in 1 2 3 2.5 2.7 inf; do echo "$t norm p=$p"; done
    echo "$t dot"
  done
  echo "# plain sums, two passes"
  for p in 1 2 3 2.5; do echo "f32 norm p=$p sum=plain"; done
  echo "f32 dot sum=plain"
  echo "f32 norm p=3 method=twopass"
  echo "f64 norm p=3 method=twopass"
  if [ "$sweep" = grid ]; then
    echo "# grid: groups per CU x unroll x load width"
    for c in "f32 norm p=3" "f32 dot" "f32 norm p=2" "f32 norm p=2.5" "f64 norm p=2.5" "f64 dot" \
             "f32 norm p=1" "f32 norm p=inf" "f64 norm p=3" "f64 norm p=2"; do
      for v in vector vector16; do
        for g in 4 8 16 32; do
          for u in 1 2 4; do echo "$c variant=$v groups=$g unroll=$u"; done
        done
      done
    done
    echo "# work-group size"
    for c in "f32 norm p=3" "f32 dot" "f64 norm p=2.5"; do
      for l in 128 512 1024; do echo "$c local=$l"; done
    done
  else
    echo "# around the defaults (groups 4, unroll 4, vector)"
    for c in "f64 norm p=2.5" "f64 norm p=1.5" "f64 norm p=inf" "f64 norm p=1"; do
      for gu in "4 2" "4 8" "2 4"; do
        set -- $gu
        echo "$c groups=$1 unroll=$2"
      done
    done
  fi
}
cases >"$out/cases.txt"
left=$((budget - (SECONDS - start)))
[ "$sweep" = final ] && left=$((left - 60))
bash bench/reduce_bench.sh $b --log2n ${LOG2N:-28} --repeat 10 --deadline $((left - 10)) \
  <"$out/cases.txt" >"$out/bench.txt" 2>&1
echo "bench rc=$? ($((SECONDS - start)) s)"
cut -c1-160 "$out/bench.txt" | head -36
if [ "$sweep" = final ]; then
  # The lead's own commands: `clip bench` (host data, a fresh app each).
  n=$((1 << ${LOG2N:-28})); n2=$((n / 2))
  for c in "norm ${n}x1 --p 1" "norm ${n}x1 --p 2" "norm ${n}x1 --p 3" "norm ${n}x1 --p 2.5" \
           "norm ${n}x1 --p inf" "dot ${n}x1 ${n}x1" \
           "norm ${n2}x1 --type f64 --p 2" "norm ${n2}x1 --type f64 --p 3" \
           "norm ${n2}x1 --type f64 --p 2.5" "norm ${n2}x1 --type f64 --p 2.5 --unroll 2" \
           "dot ${n2}x1 ${n2}x1 --type f64"; do
    [ $((SECONDS - start)) -gt $((budget - 8)) ] && { echo "skipped: clip bench $c"; continue; }
    echo "\$ ./$b/clip bench $c --repeat 10"
    timeout 20 ./$b/clip bench $c --repeat 10
  done 2>&1 | tee "$out/clip_bench.txt"
fi
