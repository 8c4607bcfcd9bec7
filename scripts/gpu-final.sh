#!/usr/bin/env bash
# The closing GPU batch, in two calls on a warm machine (each under the device tool's 10 minutes):
#   bash scripts/gpu-final.sh tests   build (clFFT from .gpu-clfft/ when carried), device list,
#                                     every unit test on the default device (the GPU)
#   bash scripts/gpu-final.sh bench   clip beside CLBlast and PyTorch (cuBLAS, cuDNN) in one run,
#                                     then clip tune and a run that reads its cache
# Logs go to $OUT when set.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp}
if [ -d .gpu-clfft ] && [ ! -e /tmp/ocl/usr/include/clFFT.h ]; then
  . .gpu/opencl-env.sh
  for f in .gpu-clfft/*.deb; do dpkg -x "$f" /tmp/ocl; done
fi
case ${1:-} in
  tests)
    bash scripts/gpu-build.sh 2>&1 | tee "$out/build.log"
    grep -E "clFFT|FFT" build-gpu/CMakeCache.txt | head -3
    (cd build-gpu && timeout 420 ctest -L unit -j6 --timeout 400 --output-on-failure 2>&1 | tee "$out/ctest.log" | tail -40) ;;
  bench)
    . .gpu/opencl-env.sh
    b=./build-gpu/clip
    export CLIP_TUNING_CACHE=/tmp/clip_tuning_final.txt
    rm -f "$CLIP_TUNING_CACHE"
    {
      echo "== GEMM: clip defaults beside CLBlast"
      bash bench/gemm_gpu.sh compare
      echo "== GEMM against size, square 256..8192, clip and CLBlast (CSV; plot it here with --plot)"
      bash bench/gemm_plot.sh build-gpu "$out" 256 512 1024 2048 4096 8192
      echo "== conv2 8192^2 f32 same (auto)"
      for k in 3 7 15 31; do timeout 60 $b bench conv2 8192x8192 ${k}x${k} --shape same --repeat 5; done
      echo "== conv2 separable 31x31 (rank-one Gaussian from PNG)"
      SEPK=31 SEPO="--separable auto" bash bench/conv2_gpu.sh sep
      echo "== reductions n=2^28"
      for p in 2 3; do timeout 60 $b bench norm 268435456x1 --p $p --repeat 10; done
      timeout 60 $b bench dot 268435456x1 268435456x1 --repeat 10
      timeout 60 $b bench norm 134217728x1 --type f64 --p 2.5 --repeat 10
      echo "== anchors: PyTorch (cuDNN, reductions)"
      PYTHONUNBUFFERED=1 timeout 120 python3 bench/torch_anchor_cases.py
      echo "== clip tune (budget ${TUNE_BUDGET:-120} s), then the same products reading its cache"
      TIMEFORMAT="clip tune wall %R s"
      time timeout 200 $b tune --budget ${TUNE_BUDGET:-120} --types f32 --shapes 1024x1024x1024,4096x4096x4096
      grep -c clip-tuning-1 "$CLIP_TUNING_CACHE"
      for n in 1024 4096; do timeout 60 $b bench matmul ${n}x${n} ${n}x${n} --repeat 10; done
    } 2>&1 | tee "$out/bench.log" ;;
  *) echo "usage: gpu-final.sh tests|bench" >&2; exit 2 ;;
esac
