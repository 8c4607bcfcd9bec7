#!/usr/bin/env bash
# The whole test suite: installs what it needs (when missing), builds, runs every ctest test
# (C unit tests, examples, Octave comparisons, the plot and memcheck checks), builds the unit
# tests again with AddressSanitizer + UndefinedBehaviorSanitizer and runs them, then builds the
# minimal configuration (every optional dependency OFF) under -Werror and runs its unit tests.
# Prints each stage's time.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/stage.sh
trap stage_summary EXIT
jobs=$(nproc)

stage install-deps bash scripts/install-deps.sh test

# A stage's steps are chained with &&: set -e does not act inside a function called in a test.
full() {
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null &&
    cmake --build build -j"$jobs" &&
    ctest --test-dir build --output-on-failure -j"$jobs"
}
stage "full build + ctest" full

# Sanitizers: leaks inside the OpenCL driver (PoCL, LLVM) are suppressed, never clip's own.
# use_tls=0: clang 14's LeakSanitizer crashes ("Tracer caught signal 11", DTLS at 0x3e0) scanning
# the dynamic TLS of the dlopen'ed PoCL under Debian 12's glibc; clip keeps no heap pointers in TLS.
asan() {
  CC=clang cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCLIP_SANITIZE=ON \
    -DCLIP_FAULT_INJECTION=ON -DCLIP_WITH_OCTAVE=OFF >/dev/null &&
    cmake --build build-asan -j"$jobs" &&
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
      LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp:print_suppressions=0:use_tls=0 \
      UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      ctest --test-dir build-asan --output-on-failure -L unit -j"$jobs"
}
stage "asan+ubsan build + unit tests" asan

stage "minimal build + unit tests" bash scripts/test-minimal.sh
