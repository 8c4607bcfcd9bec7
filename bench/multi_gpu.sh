#!/usr/bin/env bash
# Issue 15's measurements on the two-GPU machine (one call of the device tool, .gpu carried):
#   bash bench/multi_gpu.sh [quick]
# Builds in /tmp/build-multi, lists the devices, runs test_plan (every process split over the
# machine's devices and streamed), then split_bench: SGEMM 16384^3 and conv2 of an
# 8192x8192x16 stack by 7x7 and by 15x15 'same' (the tensor kernel where the GPUs have it) on one
# GPU against both; conv2 of a 100000x100000 single image
# (40 GB, larger than one allocation) and the norm of 2e10 singles held on the host, streamed
# through one GPU. "quick" runs small sizes (a dry run of the script).
set -uo pipefail
cd "$(dirname "$0")/.."
. .gpu/opencl-env.sh
B=/tmp/build-multi
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCLIP_WITH_OCTAVE=OFF -DCLIP_WITH_MEX=OFF >/dev/null || exit 1
cmake --build $B -j"$(nproc)" --target clip_tool split_bench test_plan 2>&1 | grep -E "error|warning"
$B/clip devices
S=$B/bench/split_bench
step() { echo "== $*"; local t0=$(date +%s); "$@"; echo "   ($(($(date +%s) - t0)) s)"; }
if [ "${1:-}" = quick ]; then
  step $S matmul 2048 --devices gpu:all
  step $S conv2 1024 1024 4 7 --devices gpu:all
  step $S conv2 4000 4000 1 7 --devices 1 --no-single --repeat 1
  step $S norm 100000000 --devices 1 --no-single --repeat 1
  exit 0
fi
(cd $B/tests && step ./test_plan | tail -3)
step $S matmul 16384 --devices gpu:all --repeat 3
step $S conv2 8192 8192 16 7 --devices gpu:all --repeat 3
step $S conv2 8192 8192 16 15 --devices gpu:all --repeat 3
step $S conv2 100000 100000 1 7 --devices 1 --no-single --repeat 1
step $S norm 20000000000 --devices 1 --no-single --repeat 1
