#!/usr/bin/env bash
# Issue 45 on the lent GPU machine (../shared/gpu/README.md): builds this tree (and, when BASE
# names another source tree, that one too, for times alternated with it) into /tmp, then runs
# PART: "tests" (TESTS, default test_tf32, test_matmul_tc, test_conv2_tc; MATMUL_PARTS and
# CONV2_PARTS pick parts), "fix" (SGEMM rows that go to wg_fix beside ordinary data), "mmspeed"
# (SGEMM 4096/8192 alternated with BASE, ROUNDS rounds), "cvspeed" (conv2 8192^2 15/31/63 the
# same way), "speed" (SGEMM 4096/8192 and conv2
# 8192^2 15/31/63 on ordinary data, alternated with BASE), "range" (bench/range_bench.c: special,
# subnormal and tiny data beside ordinary data and the FFMA kernels), "anchors"
# (bench/range_anchor.py: cuBLAS and cuDNN on the same data), "conv2" (conv2 alone, for one
# short call: range cases with NaN/Inf, subnormal and tiny operands beside ordinary data and the
# block kernel, test_tf32 and test_conv2_tc's CONV2_PARTS, then ordinary 15/31/63 alternated with
# BASE; TARGETS="clip_tool test_tf32 test_conv2_tc range_bench" builds only those). QUICK=1: fewer cases (and the tests' quick
# mode). Logs go to $OUT (or /tmp).
# Usage: [BASE=dir] bash scripts/gpu-range.sh PART...
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp}
. .gpu/opencl-env.sh 2>/dev/null || . ../.gpu/opencl-env.sh
cfg="-DCMAKE_BUILD_TYPE=Release -DCLIP_WITH_OCTAVE=OFF -DCLIP_WITH_TIFF=OFF"
{
  cmake -S . -B /tmp/b-new $cfg >/dev/null &&
    cmake --build /tmp/b-new -j12 --target ${TARGETS:-clip_tool test_tf32 test_matmul_tc \
      test_conv2_tc range_bench} 2>&1 | grep -E "error|warning" &
  if [ -n "${BASE:-}" ]; then
    cmake -S "$BASE" -B /tmp/b-old $cfg >/dev/null &&
      cmake --build /tmp/b-old -j4 --target clip_tool 2>&1 | grep -E "error|warning"
  fi
  wait
} 2>&1 | tee "$out/build.log"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv | tee -a "$out/build.log"
for part in "$@"; do
  case $part in
  tests)
    # MATMUL_PARTS, CONV2_PARTS: CLIP_TEST_PARTS of those tests (testutil.h), unset for all
    for t in ${TESTS:-test_tf32 test_matmul_tc test_conv2_tc}; do
      parts=
      [ $t = test_matmul_tc ] && parts=${MATMUL_PARTS:-}
      [ $t = test_conv2_tc ] && parts=${CONV2_PARTS:-}
      (cd /tmp/b-new/tests && CLIP_TEST_QUICK=${QUICK:-} CLIP_TEST_PARTS=$parts timeout ${TEST_TIMEOUT:-200} stdbuf -oL ./$t) \
        >"$out/$t.log" 2>&1
      echo "$t rc=$?: $(tail -1 "$out/$t.log")"
      grep -E "range|subnormal|tf32|FAIL|want|past" "$out/$t.log" | head -40
    done ;;
  speed)
    for r in 1 2; do
      for side in old new; do
        [ $side = old ] && [ -z "${BASE:-}" ] && continue
        b=/tmp/b-$side/clip
        for n in 4096 8192; do
          echo "$side $(timeout 60 $b bench matmul ${n}x${n} ${n}x${n} --repeat 10 2>&1 | tail -1)"
        done
        for k in 15 31 63; do
          echo "$side $(timeout 60 $b bench conv2 8192x8192 ${k}x${k} --shape same --repeat 10 2>&1 | tail -1)"
        done
      done
    done 2>&1 | tee "$out/speed.log" ;;
  range)
    # QUICK=1: the cases the notes quote, fewer kinds
    if [ -n "${QUICK:-}" ]; then
      {
        timeout 60 /tmp/b-new/bench/range_bench matmul 4096 normal nan fltmax subA
        timeout 40 /tmp/b-new/bench/range_bench conv2 8192 15 normal nan
        timeout 40 /tmp/b-new/bench/range_bench conv2 8192 31 normal nan fltmax
        timeout 60 /tmp/b-new/bench/range_bench conv2 4096 31 normal subA
      } 2>&1 | tee "$out/range.log"
      continue
    fi
    {
      timeout 150 /tmp/b-new/bench/range_bench matmul 4096 normal nan fltmax subA subB tiny
      timeout 60 /tmp/b-new/bench/range_bench conv2 8192 15 normal nan fltmax
      timeout 60 /tmp/b-new/bench/range_bench conv2 8192 31 normal nan fltmax
      timeout 90 /tmp/b-new/bench/range_bench conv2 4096 31 normal subA tiny
      timeout 90 /tmp/b-new/bench/range_bench conv2 4096 15 subB
    } 2>&1 | tee "$out/range.log" ;;
  conv2)
    rb=/tmp/b-new/bench/range_bench
    {
      timeout 60 $rb conv2 8192 31 normal nan
      timeout 60 $rb conv2 4096 31 normal subA tiny
      timeout 40 $rb conv2 4096 15 normal subB
    } 2>&1 | tee "$out/range.log"
    for t in test_tf32 test_conv2_tc; do
      (cd /tmp/b-new/tests && CLIP_TEST_QUICK=${QUICK:-} CLIP_TEST_PARTS=${CONV2_PARTS:-} \
        timeout ${TEST_TIMEOUT:-60} stdbuf -oL ./$t) >"$out/$t.log" 2>&1
      echo "$t rc=$?: $(tail -1 "$out/$t.log")"
      grep -E "conv|subnormal|FAIL|want|past" "$out/$t.log" | head -20
    done
    for r in 1 2; do
      for side in old new; do
        [ $side = old ] && [ -z "${BASE:-}" ] && continue
        for k in 15 31 63; do
          echo "$side $(timeout 40 /tmp/b-$side/clip bench conv2 8192x8192 ${k}x${k} --shape same \
            --repeat 10 2>&1 | tail -1)"
        done
      done
    done 2>&1 | tee "$out/speed.log"
    timeout 40 $rb conv2 8192 15 nan 2>&1 | tee -a "$out/range.log" ;;
  variants)
    # conv2 8192^2 KS (default 15 31 63), ROUNDS rounds (default 2) of: BASE's clip, this tree's,
    # and this tree's under each environment of VARIANTS (';'-separated, e.g.
    # "CLIP_CONV2_DEFS=-DTC_X=1;CLIP_Y=1"); SGEMM 4096 and 8192 for BASE and this tree each round
    IFS=';' read -ra vs <<<"${VARIANTS:-}"
    for r in $(seq ${ROUNDS:-2}); do
      for side in old new; do
        [ $side = old ] && [ -z "${BASE:-}" ] && continue
        for n in 4096 8192; do
          echo "$side $(timeout 60 /tmp/b-$side/clip bench matmul ${n}x${n} ${n}x${n} --repeat 10 2>&1 | tail -1)"
        done
      done
      for k in ${KS:-15 31 63}; do
        for v in old new "${vs[@]}"; do
          b=/tmp/b-new/clip e=
          [ "$v" = old ] && { [ -z "${BASE:-}" ] && continue; b=/tmp/b-old/clip; }
          [ "$v" = old ] || [ "$v" = new ] || e=$v
          echo "$v $(env $e timeout 40 $b bench conv2 8192x8192 ${k}x${k} --shape same --repeat 10 2>&1 | tail -1)"
        done
      done
    done 2>&1 | tee "$out/variants.log" ;;
  fix)
    # The rows that go to wg_fix (nanrow, widerow) beside ordinary data at 4096 and 8192
    rb=/tmp/b-new/bench/range_bench
    {
      timeout 60 $rb matmul 4096 normal nanrow widerow
      timeout 120 $rb matmul 8192 normal nanrow widerow
    } 2>&1 | tee "$out/fix.log" ;;
  mmspeed)
    # SGEMM 4096/8192 on ordinary data alternated with BASE, ROUNDS rounds (default 2), BASE
    # first in odd rounds and second in even ones (a drift with the machine's warmth shows)
    for r in $(seq ${ROUNDS:-2}); do
      sides="old new"
      [ $((r % 2)) = 0 ] && sides="new old"
      for side in $sides; do
        [ $side = old ] && [ -z "${BASE:-}" ] && continue
        for n in 4096 8192; do
          echo "$side $(timeout 60 /tmp/b-$side/clip bench matmul ${n}x${n} ${n}x${n} --repeat 10 2>&1 | tail -1)"
        done
      done
    done 2>&1 | tee "$out/speed.log" ;;
  cvspeed)
    # conv2 8192^2 'same' KS (default 15 31 63) on ordinary data alternated with BASE, ROUNDS
    # rounds (default 4), BASE first in odd rounds and second in even ones (calls that always ran
    # the base first read the newer tree slower: bench/GEMM.md "wg_fix by units"); REPS `clip
    # bench` runs a side, size and round (default 2). Then each side's median of median_ms per
    # size, over all rounds and apart by its place in the round.
    for r in $(seq ${ROUNDS:-4}); do
      sides="old new"
      [ $((r % 2)) = 0 ] && sides="new old"
      for k in ${KS:-15 31 63}; do
        first=1
        for side in $sides; do
          [ $side = old ] && [ -z "${BASE:-}" ] && continue
          for i in $(seq ${REPS:-2}); do
            echo "r$r $side $([ $first = 1 ] && echo first || echo second) $(timeout 40 \
              /tmp/b-$side/clip bench conv2 8192x8192 ${k}x${k} --shape same --repeat 10 2>&1 | tail -1)"
          done
          first=0
        done
      done
    done 2>&1 | tee "$out/cvspeed.log"
    awk '{ k = $7; sub(/]/, "", k); m = $0; sub(/.*median_ms=/, "", m); m += 0
           v[$2 " " k] = v[$2 " " k] " " m; v[$2 " " k " " $3] = v[$2 " " k " " $3] " " m }
         function med(s,  a, n, i, j, t) {
           n = split(s, a, " ")
           for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
           return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
         END { for (key in v) print "median " key ": " med(v[key]) " ms (" v[key] " )" }' \
      "$out/cvspeed.log" | sort | tee -a "$out/cvspeed.log" ;;
  anchors)
    PYTHONUNBUFFERED=1 timeout 240 python3 bench/range_anchor.py ${QUICK:+quick} ${ANCHOR_MODE:-} 2>&1 |
      tee "$out/anchors.log" ;;
  esac
done
