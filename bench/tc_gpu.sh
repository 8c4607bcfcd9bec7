#!/usr/bin/env bash
# The tensor-core family (variant tensor, issue 13) on the lent H100: build, its test, the existing
# GEMM tests with the family forced, gemm_bench beside the default (FFMA) family, matpow, and cuBLAS
# (TF32 off) through PyTorch in the same call (bench/tc_anchor.py). bench/GEMM.md has the results.
# Usage, from the repository root on the GPU machine: bash bench/tc_gpu.sh
set -u
cd "$(dirname "$0")/.."
. .gpu/opencl-env.sh
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCLIP_WITH_OCTAVE=OFF >/dev/null && cmake --build build-gpu -j16 2>&1 | grep -E "error|warning"
cd build-gpu
timeout 120 ./tests/test_matmul_tc 2>&1 | grep -E "accuracy|checks|CHECK|bad"
CLIP_GEMM_FAMILY=tensor timeout 120 ./tests/test_matmul 2>&1 | tail -1
CLIP_GEMM_FAMILY=tensor timeout 60 ./tests/test_matpow 2>&1 | tail -1
B="timeout 60 ./bench/gemm_bench --no-clblast"
for n in 2048 4096 8192; do r=10; [ $n = 8192 ] && r=5
  $B $n --repeat $r | grep "^clip" | grep -v span
  $B $n --repeat $r --variant tensor | grep "^clip"
done
for n in 4096 8192; do $B $n --repeat 5 --precision tf32 | grep "^clip"; done
CLIP_GEMM_FAMILY=tensor ./clip bench matpow 4096x4096 --power 13 --repeat 3 2>&1 | grep -v "^$" | tail -1
cd .. && PYTHONUNBUFFERED=1 timeout 120 python3 bench/tc_anchor.py
