#!/usr/bin/env bash
# The wgmma tensor kernels (sm_90, issue 13) on the lent H100/H200, one call: build, the family's
# test (wgmma, then mma.sync kernels), test_matmul and test_matpow with the family forced, a sweep
# of tile sets (bench/wg_sweep.sh), gemm_bench at 1024..8192 beside the FFMA family, matpow, and
# cuBLAS through PyTorch (bench/tc_anchor.py) in the same call. bench/GEMM.md has the results.
# Usage, from the repository root on the GPU machine: bash bench/wg_gpu.sh [unit|tests|bench|sweep|grid]...
# (no argument: tests, sweep and bench; unit runs ctest -L unit)
set -u
cd "$(dirname "$0")/.."
. .gpu/opencl-env.sh
B=/tmp/build-gpu
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCLIP_WITH_OCTAVE=OFF >/dev/null && cmake --build $B -j16 2>&1 | grep -E "error|warning"
want() { [ $# -eq 0 ] || [[ " $ARGS " == *" $1 "* ]]; }
ARGS=" $* "
if want unit; then
  (cd $B && timeout 400 ctest -L unit -j4 2>&1 | tail -6)
fi
if [ $# -eq 0 ] || want tests; then
  (cd $B && timeout 300 ./tests/test_matmul_tc 2>&1 | grep -E "^--|accuracy|checks|CHECK|bad|precision|FAIL|error" | head -40
   CLIP_GEMM_FAMILY=tensor timeout 200 ./tests/test_matmul 2>&1 | tail -1
   CLIP_GEMM_FAMILY=tensor timeout 100 ./tests/test_matpow 2>&1 | tail -1)
fi
if want grid; then
  bash bench/wg_grid.sh "${OUT:-/tmp}/gemm_grid_gpu.csv"
fi
if [ $# -eq 0 ] || want sweep; then
  bash bench/wg_sweep.sh "64 1 16 2" "64 1 8 4" "128 2 8 3" "64 1 16 4" "64 1 32 2" "128 2 16 3" "128 2 8 6"
fi
if [ $# -eq 0 ] || want bench; then
  G="timeout 60 $B/bench/gemm_bench --no-clblast"
  for n in 1024 2048 4096 8192; do r=10; [ $n = 8192 ] && r=5
    CLIP_GEMM_FAMILY=ffma $G $n --repeat $r | grep "^clip" | grep -v span
    $G $n --repeat $r | grep "^clip"
    for prec in tf32 bf16 fp16; do $G $n --repeat $r --precision $prec | grep "^clip"; done
  done
  for n in 2048 4096 8192; do
    CLIP_GEMM_FAMILY=ffma $G $n --type c32 --repeat 5 | grep "^clip" | grep -v span
    $G $n --type c32 --repeat 5 | grep "^clip"
  done
  CLIP_GEMM_FAMILY=ffma $B/clip bench matpow 4096x4096 --power 13 --repeat 3 2>&1 | grep -v "^$" | tail -1
  $B/clip bench matpow 4096x4096 --power 13 --repeat 3 2>&1 | grep -v "^$" | tail -1
  PYTHONUNBUFFERED=1 timeout 150 python3 bench/tc_anchor.py
fi
