#!/usr/bin/env bash
# The H100 call behind bench/GEMM.md's "precisions and the split tail" (issue 13, 2026-11-26): unit
# tests, the tensor family forced, FFMA and auto at 1024..8192, every precision, c32, matpow,
# cuBLAS through PyTorch (bench/tc_anchor.py) and the shape grid, from the repository root on the
# GPU machine (the grid CSV goes to $OUT).
set -u
. .gpu/opencl-env.sh
B=/tmp/build-gpu
T0=$(date +%s)
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCLIP_WITH_OCTAVE=OFF >/dev/null && cmake --build $B -j16 2>&1 | grep -E "error|warning"
(cd $B && timeout 300 ctest -L unit -j4 2>&1 | grep -E "tests passed|Failed|\*\*\*|Skipped|Not Run" | head -12)
(cd $B && ./tests/test_matmul_tc 2>&1 | grep -E "^precision|checks")
(cd $B && CLIP_GEMM_FAMILY=tensor timeout 200 ./tests/test_matmul 2>&1 | tail -1; CLIP_GEMM_FAMILY=tensor timeout 100 ./tests/test_matpow 2>&1 | tail -1)
echo "tests $(( $(date +%s)-T0 )) s"
G="timeout 60 $B/bench/gemm_bench --no-clblast"
for n in 1024 2048 4096 8192; do r=10; [ $n = 8192 ] && r=5
  CLIP_GEMM_FAMILY=ffma $G $n --repeat $r | grep "^clip" | grep -v span
  $G $n --repeat $r | grep "^clip"
done
for n in 4096 8192; do for prec in tf32 bf16 fp16; do $G $n --repeat 5 --precision $prec | grep "^clip" | grep -v span; done; done
for n in 2048 4096; do
  CLIP_GEMM_FAMILY=ffma $G $n --type c32 --repeat 5 | grep "^clip" | grep -v span
  $G $n --type c32 --repeat 5 | grep "^clip" | grep -v span
done
CLIP_GEMM_FAMILY=ffma $B/clip bench matpow 4096x4096 --power 13 --repeat 3 2>&1 | grep -v "^$" | tail -1
$B/clip bench matpow 4096x4096 --power 13 --repeat 3 2>&1 | grep -v "^$" | tail -1
echo "bench $(( $(date +%s)-T0 )) s"
PYTHONUNBUFFERED=1 timeout 150 python3 bench/tc_anchor.py
echo "anchor $(( $(date +%s)-T0 )) s"
bash bench/wg_grid.sh $OUT/gemm_grid_gpu.csv; cat $OUT/gemm_grid_gpu.csv
echo "all $(( $(date +%s)-T0 )) s"
