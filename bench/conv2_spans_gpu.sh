#!/usr/bin/env bash
# The first form of the tensor kernel walking spans (CLIP_CONV2_TC_SPANS=1, kernels/conv2.cl
# TC_SPANS) against its groups of TJ columns, on the GPU machine (H100/H200), from the
# repository root: a Release build in /tmp/build-gpu, ptxas's report and the time of each
# filter class the first form runs (ring of 16; the operand in local memory past 32 rows), then
# test_conv2_tc quick with the hook (every configuration the first form takes).
#   bash bench/conv2_spans_gpu.sh
set -u
. .gpu/opencl-env.sh
B=/tmp/build-gpu
T0=$(date +%s)
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCLIP_WITH_OCTAVE=OFF >/dev/null &&
  cmake --build $B -j16 2>&1 | grep -E "error|warning"
echo "build $(($(date +%s) - T0)) s"
bench() {
  CUDA_CACHE_DISABLE=1 CLIP_SM90A_OPTIONS=-cl-nv-verbose timeout 60 $B/clip bench conv2 "$@" \
    --shape same --variant tensor 2>&1 |
    grep -oE "variant=.*median_ms=[0-9.]+|error.*|clip:.*|C75[0-9]+|Used [0-9]+ registers|[0-9]+ bytes spill stores" |
    tr '\n' ' '
  echo
}
for n in 8192 4096; do
  for k in 15 47 63; do
    echo "$n ${k}x$k groups: $(bench ${n}x$n ${k}x$k --repeat 5)"
    echo "$n ${k}x$k spans:  $(CLIP_CONV2_TC_SPANS=1 bench ${n}x$n ${k}x$k --repeat 5)"
  done
done
echo "bench $(($(date +%s) - T0)) s"
(cd $B && CLIP_TEST_QUICK=1 CLIP_CONV2_TC_SPANS=1 timeout 400 stdbuf -oL ./tests/test_conv2_tc 2>&1 | tail -4)
echo "end $(($(date +%s) - T0)) s"
