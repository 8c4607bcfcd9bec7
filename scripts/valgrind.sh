#!/usr/bin/env bash
# Runs the unit test programs under valgrind: scripts/valgrind.sh [TEST...]
#   TEST: names like test_core (default: every test program the build makes, less the skip list).
# Builds Debug without sanitizers in build-valgrind/ and runs each program from
# build-valgrind/tests (ctest's working directory) under
#   valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect
#            --show-leak-kinds=definite,indirect --num-callers=40 --child-silent-after-fork=yes
#            --suppressions=tests/valgrind.supp
# so any invalid access, use of uninitialised memory or definite/indirect leak fails it (deep
# stacks so the suppressions can see the driver frames; forked children, e.g. system() calls of
# the clip tool, stay out of the log). The suppressions cover the OpenCL driver stack only
# (PoCL, LLVM, ocl-icd), never clip. Logs: build-valgrind/valgrind-TEST.log.
# Env: VALGRIND_TIME_LIMIT seconds per test (default 1200); VALGRIND_SKIP adds names to skip;
# VALGRIND_ALL=1 runs the default-skipped ones too. Tests named on the command line always run.
# Skipped by default: test_conv2, test_dot, test_matmul, test_norm. They check kernels over many
# sizes, types and variants, and kernel code runs some 50x slower under valgrind: none finished
# in 300 s (test_conv2 not in 900 s) on the 2-core PoCL machine, with no valgrind error up to
# then. They run under ASan in CI instead. Measured there (warm PoCL kernel cache): test_cli 4 s,
# test_core 10 s (54 s with a cold cache), test_fuzz_regress 7 s, test_io 9 s, test_matpow
# 293 s, test_threads 10 s, test_tuning 3 s.
# Exit status: non-zero when any test failed, timed out or reported a valgrind error.
set -uo pipefail
cd "$(dirname "$0")/.."
limit=${VALGRIND_TIME_LIMIT:-1200}
skip_default="test_conv2 test_dot test_matmul test_norm"
[ "${VALGRIND_ALL:-0}" = 1 ] && skip_default=""
root=$PWD
cmake -S . -B build-valgrind -DCMAKE_BUILD_TYPE=Debug -DCLIP_SANITIZE=OFF -DCLIP_OCTAVE_TESTS=OFF \
  >/dev/null || exit 1
if [ $# -gt 0 ]; then
  # shellcheck disable=SC2068
  cmake --build build-valgrind -j"$(nproc)" --target clip_tool $@ >/dev/null || exit 1
  tests="$*"
  skip=""
else
  skip=" $skip_default ${VALGRIND_SKIP:-} "
  # every test program this configuration builds (some are optional, e.g. test_fault)
  cmake --build build-valgrind -j"$(nproc)" >/dev/null || exit 1
  tests=$(cd build-valgrind/tests && for f in test_*; do [ -f "$f" ] && [ -x "$f" ] && echo "$f"; done)
fi
failed=0
start_all=$(date +%s)
cd build-valgrind/tests || exit 1
for t in $tests; do
  if [[ "$skip" == *" $t "* ]]; then echo "valgrind: $t skipped"; continue; fi
  [ -x "./$t" ] || { echo "valgrind: $t: not built"; failed=1; continue; }
  log=$root/build-valgrind/valgrind-$t.log
  start=$(date +%s)
  timeout "$limit" valgrind --error-exitcode=1 --leak-check=full --num-callers=40 \
    --child-silent-after-fork=yes --show-leak-kinds=definite,indirect \
    --errors-for-leak-kinds=definite,indirect --suppressions="$root/tests/valgrind.supp" \
    --log-file="$log" "./$t" >"$log.out" 2>&1
  rc=$?
  secs=$(($(date +%s) - start))
  summary=$(grep -h "ERROR SUMMARY" "$log" | tail -1 | sed 's/^==[0-9]*== //')
  case $rc in
    0) echo "valgrind: $t: ok, ${secs} s ($summary)" ;;
    124) echo "valgrind: $t: TIMEOUT after ${limit} s"; failed=1 ;;
    *) echo "valgrind: $t: FAILED (exit $rc), ${secs} s ($summary; see $log)"; failed=1 ;;
  esac
done
echo "valgrind: total $(($(date +%s) - start_all)) s"
exit $failed
