#!/usr/bin/env bash
# The minimal configuration: every optional dependency OFF (CLIP_WITH_<NAME>=OFF), built with
# -Werror in build-min/ and unit-tested, so the build never again needs something that only our
# own machines have. Checks too that the tests of what was left out report "skipped", not passed.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
off=()
for dep in TIFF PNG MATIO HDF5 CLFFT CLBLAST OCTAVE GNUPLOT VALGRIND MEX PYTHON LIBFUZZER MPI; do
  off+=("-DCLIP_WITH_$dep=OFF")
done
cmake -S . -B build-min -DCMAKE_BUILD_TYPE=Release -DCLIP_WERROR=ON "${off[@]}" | grep '^--   [-+]'
cmake --build build-min -j"$jobs"
log=build-min/ctest.log
ctest --test-dir build-min --output-on-failure -j"$jobs" -L 'unit|octave|bench|memcheck|python|mpi' | tee "$log"
# What a build without clFFT, Octave, the gateway, gnuplot, valgrind, Python and MPI cannot run must
# say so.
for t in test_conv2_fft octave_check_conv2 octave_test_gateway gemm_plot memcheck_test_io python_pytest test_mpi; do
  grep -Eq "[0-9]+ - $t \(Skipped\)" "$log" || { echo "test-minimal: $t was not reported skipped"; exit 1; }
done
