#!/usr/bin/env bash
# Tile sets of the wgmma kernels (sm_90) timed at 4096^3 and 8192^3, both precisions, with the
# registers ptxas gave each (-cl-nv-verbose through CLIP_SM90A_OPTIONS). Usage, on the GPU machine
# after a build into /tmp/build-gpu: bash bench/wg_sweep.sh "mwg mdimc kwg stages [nwg]" ...
# (PRECS="fp32 tf32 bf16 fp16" picks the precisions; SIZES the sides, default 4096 8192; PIPE=0 or 1
# sets the pipe parameter)
set -u
G="timeout 60 /tmp/build-gpu/bench/gemm_bench --no-clblast --variant tensor"
for prec in ${PRECS:-fp32 tf32}; do
  for set in "$@"; do
    read -r mwg md kwg st nwg <<<"$set"
    nwg=${nwg:-128}
    for n in ${SIZES:-4096 8192}; do
      out=$(CUDA_CACHE_DISABLE=1 CLIP_SM90A_OPTIONS=-cl-nv-verbose $G $n --repeat 5 --precision $prec --mwg $mwg --nwg $nwg --mdimc $md --kwg $kwg --stages $st ${PIPE:+--pipe $PIPE} 2>&1)
      regs=$(echo "$out" | grep -o "Used [0-9]* registers" | sed "s/Used //; s/ registers//" | tr "\n" " ")
      echo "$prec $n${PIPE:+ pipe $PIPE} mwg $mwg nwg $nwg wg $md kwg $kwg st $st: $(echo "$out" | grep -o "median_ms=[0-9.]* gflops=[0-9.]*" | head -1) $(echo "$out" | grep -o "kernels_ms=.*") $regs $(echo "$out" | grep -m1 -o "error.*\|gemm_bench: .*" | cut -c1-200)"
    done
  done
done
