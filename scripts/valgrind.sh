#!/usr/bin/env bash
# Runs the unit test programs under valgrind memcheck: scripts/valgrind.sh [TEST...]
#   TEST: names like test_core (default: every test program the build makes).
# Builds Debug without sanitizers, with failure injection (test_fault), in build-valgrind/ and
# runs each program from build-valgrind/tests (ctest's working directory) under
#   valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect
#            --max-stackframe=16777216 (PoCL's large work-group frames, below)
#            --show-leak-kinds=definite,indirect --num-callers=40 --child-silent-after-fork=yes
#            --suppressions=tests/valgrind.supp
# so any invalid access, use of uninitialised memory or definite/indirect leak fails it (deep
# stacks so the suppressions can see the driver frames; forked children, e.g. system() calls of
# the clip tool, run natively and stay out of the log). The suppressions cover the libraries
# under clip only (PoCL, LLVM, ocl-icd, clFFT), never clip. Logs: build-valgrind/valgrind-TEST.log
# (memcheck), valgrind-TEST.log.out (the test's output), valgrind-TEST.warm.log (the runs below).
#
# CLIP_TEST_QUICK=1 (the default here; tests/testutil.h): the kernel-heavy tests keep every path
# but run fewer and smaller cases. Kernel code runs some 50x slower under memcheck, and each
# distinct kernel build costs about a second there even from PoCL's kernel cache. The full sets
# run in the plain and ASan suites; CLIP_TEST_QUICK=0 runs them here too.
# POCL_KERNELLIB_NAME=avx2 (default): valgrind's CPU has no AVX-512, so PoCL under valgrind takes
# its AVX2 kernel library and names the device pthread-haswell-...; natively on an AVX-512 host
# it would take another library and name. The clip tools the tests start run natively, and the
# tuning cache is keyed on the device name: one library both ways keeps one name.
# Kernel cache: a kernel that PoCL must compile under memcheck costs 20-40 s or more (LLVM itself
# runs under valgrind). So each test first runs natively, which fills PoCL's kernel cache at
# native speed, and memcheck then finds every kernel in the cache. PoCL reports another native
# vector width under valgrind's CPU (float 8: AVX2) than on an AVX-512 host (16), and conv2
# builds its CPU kernels for that width: CLIP_TEST_SIMD_WIDTH=8 (default here) fixes the width
# both ways. (Before that hook each test also ran under valgrind --tool=none to compile the
# other width, which cost 1500-2000 s of the stage's job-seconds in CI; VALGRIND_WARM_NONE=1
# brings that run back.) Measured with the hook, an empty POCL_CACHE_DIR, beside other builds:
# test_conv2 and test_matmul compiled no kernel under memcheck. The warming run is a test too:
# a failure there fails the test.
# Env: VALGRIND_TIME_LIMIT seconds per run (default 1200).
# Each test's line gives its memcheck seconds and its warming seconds. Measured before the hook, on the 2-core
# PoCL machine, quick mode, memcheck+warming seconds with a warm kernel cache (a second run) and
# a cold one (empty POCL_CACHE_DIR; in that run only the tests naming conv2 were warmed under
# --tool=none), 0 errors everywhere:
#   test             warm    cold     test             warm    cold     test            warm  cold
#   test_cli          4+4     5+2     test_fault     383+79 386+123     test_norm      78+22 75+25
#   test_conv2      77+22  88+170     test_fuzz_regress 4+2     4+0     test_threads    10+3   8+0
#   test_conv2_fft  48+11   53+41     test_io           5+2     5+0     test_tune       10+8  9+21
#   test_conv2_sep  61+18  54+200     test_matmul     52+18   52+31     test_tune_conv2 9+16 15+18
#   test_core         8+3     8+1     test_matpow      23+8    23+3     test_tuning      3+2   3+2
#   test_dot         23+8    23+6
# Totals (build already up to date): 1024 s warm, 1455 s cold (a fuzzer shared the cores during
# most of the cold run); test_fault alone 462 s and 509 s. Those runs were one at a time; since
# the suite grew, the stage took 2587 s that way in CI's conditions, and 1497 s two at a time
# (VALGRIND_JOBS=2, the default on 2 cores) beside other work on the same cores.
# test_fault runs only when named (scripts/valgrind.sh test_fault): see the list below.
# Exit status: non-zero when any run failed, timed out or reported a valgrind error.
set -uo pipefail
cd "$(dirname "$0")/.."
limit=${VALGRIND_TIME_LIMIT:-1200}
export CLIP_TEST_QUICK=${CLIP_TEST_QUICK:-1}
export POCL_KERNELLIB_NAME=${POCL_KERNELLIB_NAME:-avx2}
export CLIP_TEST_SIMD_WIDTH=${CLIP_TEST_SIMD_WIDTH:-8}
root=$PWD
cmake -S . -B build-valgrind -DCMAKE_BUILD_TYPE=Debug -DCLIP_SANITIZE=OFF -DCLIP_WITH_OCTAVE=OFF \
  -DCLIP_FAULT_INJECTION=ON >/dev/null || exit 1
if [ $# -gt 0 ]; then
  # shellcheck disable=SC2068
  cmake --build build-valgrind -j"$(nproc)" --target clip_tool $@ >/dev/null || exit 1
  tests="$*"
else
  # every test program this configuration builds
  cmake --build build-valgrind -j"$(nproc)" >/dev/null || exit 1
  # test_fault is left to the ASan+LSan build of the test command, which runs it with the same
  # failure injection and leak checks: under memcheck it took ~460 of this stage's ~1000 s.
  # test_mpi too: its subject is clip-mpi under mpirun, whose ranks memcheck would not follow
  # (--child-silent-after-fork); the ASan build runs it with clip-mpi instrumented.
  tests=$(cd build-valgrind/tests && for f in test_*; do
    [ -f "$f" ] && [ -x "$f" ] && [ "$f" != test_fault ] && [ "$f" != test_mpi ] && echo "$f"; done)
  # The longest first, so that the runs below end near the same time.
  slow="test_plan test_matmul test_conv2 test_norm test_conv2_sep test_conv2_fft test_matmul_skinny"
  tests=$(for f in $slow; do grep -qx "$f" <<<"$tests" && echo "$f"; done
          grep -vxF -f <(tr ' ' '\n' <<<"$slow") <<<"$tests")
fi
# One test: warming runs, then memcheck. Prints its lines; returns non-zero when it failed.
run_one() {
  local t=$1 log=$root/build-valgrind/valgrind-$1.log start native none warm rc secs summary bad=0
  [ -x "./$t" ] || { echo "valgrind: $t: not built"; return 1; }
  start=$(date +%s)
  timeout "$limit" "./$t" >"$log.warm.log" 2>&1
  native=$?
  none=0
  if [ "${VALGRIND_WARM_NONE:-0}" = 1 ]; then
    timeout "$limit" valgrind --tool=none --child-silent-after-fork=yes "./$t" >>"$log.warm.log" 2>&1
    none=$?
  fi
  warm=$(($(date +%s) - start))
  start=$(date +%s)
  # --max-stackframe: PoCL's work-group function keeps every work-item's private values in one
  # stack frame, 2.2 MB for test_matmul's 8x8 work-group in eight K groups; past memcheck's 2 MB
  # default it takes the frame for a stack switch and reports the writes into it as invalid.
  timeout "$limit" valgrind --error-exitcode=1 --leak-check=full --num-callers=40 \
    --max-stackframe=16777216 --child-silent-after-fork=yes --show-leak-kinds=definite,indirect \
    --errors-for-leak-kinds=definite,indirect --suppressions="$root/tests/valgrind.supp" \
    --log-file="$log" "./$t" >"$log.out" 2>&1
  rc=$?
  secs=$(($(date +%s) - start))
  summary=$(grep -h "ERROR SUMMARY" "$log" | tail -1 | sed 's/^==[0-9]*== //')
  # 77: the program checked what this build has and skipped its subject (tests/testutil.h
  # tu_skip, as ctest's SKIP_RETURN_CODE); what it ran before skipping was still checked.
  case $rc in
    0) echo "valgrind: $t: ok, ${secs} s (warming ${warm} s; $summary)" ;;
    77) echo "valgrind: $t: ok, skipped its subject, ${secs} s ($summary): $(tail -1 "$log.out")"
        [ "$native" -eq 77 ] && native=0
        [ "$none" -eq 77 ] && none=0 ;;
    124) echo "valgrind: $t: TIMEOUT after ${limit} s"; bad=1 ;;
    *) echo "valgrind: $t: FAILED (exit $rc), ${secs} s ($summary; see $log)"; bad=1 ;;
  esac
  if [ "$native" -ne 0 ] || [ "$none" -ne 0 ]; then
    echo "valgrind: $t: warming runs FAILED (native exit $native, --tool=none exit $none; see $log.warm.log)"
    bad=1
  fi
  return $bad
}

# memcheck runs a program's threads one at a time, so one run keeps about one core busy: run
# VALGRIND_JOBS programs at once (default: the number of cores; ctest runs the same programs
# concurrently too). Each test's lines are printed as it ends; its status is kept in a file.
jobs=${VALGRIND_JOBS:-$(nproc)}
status_dir=$root/build-valgrind/status
rm -rf "$status_dir" && mkdir -p "$status_dir"
start_all=$(date +%s)
cd build-valgrind/tests || exit 1
running=0
for t in $tests; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
  { out=$(run_one "$t"); echo $? >"$status_dir/$t"; echo "$out"; } &
  running=$((running + 1))
done
wait
failed=0
for t in $tests; do
  [ "$(cat "$status_dir/$t" 2>/dev/null)" = 0 ] || failed=1
done
echo "valgrind: total $(($(date +%s) - start_all)) s"
exit $failed
