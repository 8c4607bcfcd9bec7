#!/usr/bin/env bash
# The H100 calls behind bench/CONV2.md's "tensor cores" section (issue 14 item 2): a Release build
# in /tmp/build-gpu, the tensor kernel's tests, then `clip bench conv2` at 8192^2 f32 'same' for
# the tensor kernel beside block (and auto), and CuPy's conv2 (ndimage.convolve, fftconvolve) in
# the same call. From the repository root on the GPU machine:
#   bash bench/conv2_tc_gpu.sh [tests] [bench] [cupy] [grid] [spans] [ptx] [mid] [profile]
# (grid: the selection grid with the tensor kernel, f32, CSV to $OUT/conv2_grid_gpu.csv; spans:
# the first form walking spans against its groups of TJ columns, with ptxas's report, for each
# filter class it runs, CLIP_CONV2_TC_SPANS=0 and 1, then test_conv2_tc quick with spans
# wherever the first form runs; ptx: the sm_90a PTX of each filter class, both forms where both
# run, to $OUT/conv2_CLASS.ptx, so that ptxas -arch=sm_90a -v (the same 13.0 is installed on the
# development machine, /usr/local/cuda/bin) can study them without the device; mid: the filters
# of 9 to 15 rows that share the ring of 16, tensor against block and auto's pick, at 8192^2,
# 4096^2 and 1024^2, where the cost model's block correction starts, bench/CONV2.md seventh round;
# profile: 15x15's first form built with TC_PROFILE, the clock cycles of its phases in work-groups
# 0 and 100 at 8192^2 (four work-groups a compute unit) and 1024^2 (one), beside the plain build's
# time, bench/CONV2.md eighth round)
set -u
. .gpu/opencl-env.sh
B=/tmp/build-gpu
T0=$(date +%s)
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCLIP_WITH_OCTAVE=OFF >/dev/null &&
  cmake --build $B -j16 2>&1 | grep -E "error|warning"
echo "build $(($(date +%s) - T0)) s"
bench() { timeout 120 $B/clip bench conv2 "$@" --shape same 2>&1 | grep -E "^bench|error|clip:"; }
for sec in "$@"; do
  case $sec in
  tests)
    (cd $B && timeout 400 ./tests/test_conv2_tc 2>&1 | tail -15) ;;
  bench)
    for k in 3 15 31 63; do
      CLIP_SM90A_OPTIONS=-cl-nv-verbose timeout 60 $B/clip bench conv2 1024x1024 ${k}x$k \
        --variant tensor 2>&1 | grep -oE "C75[0-9]+.*|Used [0-9]+ registers"
    done
    for k in 3 7 15 21 31 47 63; do
      bench 8192x8192 ${k}x${k} --repeat 5 --variant tensor
      bench 8192x8192 ${k}x${k} --repeat 5 --variant block
      bench 8192x8192 ${k}x${k} --repeat 5
    done ;;
  cupy)
    PYTHONUNBUFFERED=1 timeout 200 python3 - <<'PY'
import numpy as np, cupy as cp
from cupyx.profiler import benchmark
from cupyx.scipy import ndimage, signal
def ms(f, *a, n=10):
    return float(np.median(benchmark(f, a, n_repeat=n, n_warmup=2).gpu_times)) * 1e3
x = cp.random.rand(8192, 8192, dtype=cp.float32)
for k in [3, 7, 15, 31, 63]:
    w = cp.random.rand(k, k, dtype=cp.float32)
    print(f"peer cupy ndimage.convolve 8192^2 k={k} ms={ms(ndimage.convolve, x, w, None, 'constant', n=3 if k > 31 else 10):.4f}")
    if k >= 15:
        print(f"peer cupy signal.fftconvolve same 8192^2 k={k} ms={ms(signal.fftconvolve, x, w, 'same'):.4f}")
PY
    ;;
  spans)
    spans_bench() {
      CUDA_CACHE_DISABLE=1 CLIP_SM90A_OPTIONS=-cl-nv-verbose timeout 60 $B/clip bench conv2 "$@" \
        --shape same --variant tensor --repeat 5 2>&1 |
        grep -oE "variant=.*median_ms=[0-9.]+|clip:.*|C75[0-9]+|Used [0-9]+ registers|[0-9]+ bytes spill stores" |
        tr '\n' ' '
      echo
    }
    for n in 8192 4096; do
      for k in 63 47 15; do
        echo "$n ${k}x$k groups: $(CLIP_CONV2_TC_SPANS=0 spans_bench ${n}x$n ${k}x$k)"
        echo "$n ${k}x$k spans:  $(CLIP_CONV2_TC_SPANS=1 spans_bench ${n}x$n ${k}x$k)"
      done
    done
    (cd $B && CLIP_TEST_QUICK=1 CLIP_CONV2_TC_SPANS=1 timeout 400 ./tests/test_conv2_tc 2>&1 | tail -12) ;;
  ptx)
    # (the PTX as retargeted, before its register directive: give ptxas -maxrregcount by hand)
    for c in "15 0" "15 2" "31 0" "31 2" "47 0" "63 0"; do
      read -r k ws <<<"$c"
      f=${OUT:-/tmp}/conv2_k${k}_ws$ws.ptx
      rm -f "$f"
      CUDA_CACHE_DISABLE=1 CLIP_CONV2_TC_WS=$ws CLIP_SM90A_PTX=$f timeout 60 $B/clip bench conv2 \
        1024x1024 ${k}x$k --shape same --variant tensor --repeat 1 2>&1 | grep -E "^bench|clip:"
    done ;;
  mid)
    for n in 8192 4096 1024; do
      for k in 9 11 12 13 15; do
        echo "$n ${k}x$k: $(for v in tensor block auto; do
          bench ${n}x$n ${k}x$k --repeat 5 --variant $v | grep -oE "variant=.*median_ms=[0-9.]+"
        done | tr '\n' ' ')"
      done
    done ;;
  profile)
    for n in 8192 1024; do
      for d in "" "-DTC_PROFILE=1"; do
        echo "$n 15x15 '$d': $(CLIP_CONV2_DEFS="$d" timeout 60 $B/clip bench conv2 ${n}x$n 15x15 \
          --shape same --variant tensor --repeat 5 2>&1 |
          grep -oE "median_ms=[0-9.]+|tc_profile.*|clip:.*" | tail -3 | tr '\n' ' ')"
      done
    done ;;
  grid)
    VARIANTS="local block tensor" IMAGES="${IMAGES:-1024 4096 8192}" TYPES=f32 FFT=0 \
      bash bench/conv2_grid.sh $B ${OUT:-/tmp}/conv2_grid_gpu.csv ;;
  esac
  echo "$sec $(($(date +%s) - T0)) s"
done
