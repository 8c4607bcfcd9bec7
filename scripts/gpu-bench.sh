#!/usr/bin/env bash
# One batch on the lent GPU machine: build, device list, unit tests, clip benchmarks and the
# anchors (CLBlast, PyTorch = cuBLAS/cuDNN) in the same run. Logs go to $OUT when set.
# Usage: bash scripts/gpu-bench.sh [quick]
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp}
bash scripts/gpu-build.sh 2>&1 | tee "$out/build.log"
b=./build-gpu/clip
(cd build-gpu && timeout 300 ctest -L unit --output-on-failure 2>&1 | tee "$out/ctest.log" | tail -25)
bench() { timeout 60 $b bench "$@" --csv "$out/bench.csv" 2>&1; }
{
  for n in 1024 4096; do bench matmul ${n}x${n} ${n}x${n} --repeat 10; done
  bench matmul 4096x4096 4096x4096 --type c32 --repeat 5
  for s in 64x147:147x12544 64x64:64x3136 64x576:576x3136 256x64:64x3136 128x1152:1152x784 \
           512x128:128x784 256x2304:2304x196 1024x256:256x196 512x4608:4608x49 2048x512:512x49; do
    bench matmul ${s%%:*} ${s##*:} --repeat 10
  done
  bench matpow 4096x4096 --power 13 --repeat 3
  for k in 3 7 15 31; do bench conv2 8192x8192 ${k}x${k} --shape same --repeat 5; done
  bench norm 268435456x1 --p 2 --repeat 10
  bench norm 268435456x1 --p 3 --repeat 10
  bench dot 268435456x1 268435456x1 --repeat 10
} | tee "$out/bench.log"
if [ -e .gpu/anchors/clblast_gemm.c ]; then
  . .gpu/opencl-env.sh
  cc -O2 .gpu/anchors/clblast_gemm.c -o /tmp/clblast_gemm -lclblast -lOpenCL && \
    timeout 120 /tmp/clblast_gemm gpu 1024 4096 2>&1 | tee "$out/clblast.log"
  [ "${1:-}" = quick ] || PYTHONUNBUFFERED=1 timeout 240 python3 .gpu/anchors/torch_anchors.py 2>&1 | tee "$out/torch.log"
fi
