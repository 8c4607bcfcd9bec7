#!/usr/bin/env bash
# clang's nvptx PTX of the tensor conv2 kernel (kernels/conv2_tensor.cl), both passes, for the
# kernels of tree TREE, without a GPU: PREFIX.kK.pP.ptx for filter K = 15 (first form, groups of
# 256 columns), 31 (second form, two consumers, spans) and 63 (first form, spans, operand in local
# memory) with processes/conv2_direct.c's options for 8192^2 'same' on an H200, P = 0 (first pass)
# and 1 (second, TC_SCALED). Not the PTX NVIDIA's compiler gives the device (that one comes back
# with CLIP_SM90A_PTX, bench/conv2_tc_gpu.sh ptx), but two trees whose files here are identical
# build the same code: the check that a change leaves a pass alone (bench/CONV2.md, "The ranges
# inside the second launch"). EXTRA: more -D options for both passes.
# Usage: bash bench/conv2_clang_ptx.sh TREE PREFIX [EXTRA]
set -eu
T=$1 O=$2 X=${3:-}
for c in 15 31 63; do
  case $c in
  15) d="-DKERNEL=8 -DPAD=0 -DKR=15 -DKC=15 -DTC_N=16 -DTC_S=2 -DTC_KRP=16 -DTC_CW=16 -DCLIP_SM90A -DCLIP_SM90A_MAXNREG=128 -DTJ=256" ;;
  31) d="-DKERNEL=8 -DPAD=0 -DKR=31 -DKC=31 -DTC_N=32 -DTC_S=2 -DTC_KRP=32 -DTC_CW=8 -DCLIP_SM90A -DCLIP_SM90A_MAXNREG=168 -DTC_WS=1 -DTC_WSC=2 -DTC_PAIRS=1" ;;
  63) d="-DKERNEL=8 -DPAD=0 -DKR=63 -DKC=63 -DTC_N=32 -DTC_S=2 -DTC_KRP=64 -DTC_CW=4 -DCLIP_SM90A -DTC_SPANS=1 -DTC_SS=1" ;;
  esac
  for pass in 0 1; do
    parts="common tensor_core tf32"
    [ $pass = 1 ] && [ -f $T/kernels/tf32_range.cl ] && grep -q tf32_range_join $T/kernels/tf32_range.cl && parts="$parts tf32_range"
    parts="$parts conv2 conv2_tensor"
    src=$O.k$c.p$pass.cl
    : > $src
    for p in $parts; do cat $T/kernels/$p.cl >> $src; done
    clang -x cl -cl-std=CL1.2 -target nvptx64-nvidia-cuda -Xclang -finclude-default-header -O2 -S \
      -o $O.k$c.p$pass.ptx -DCLIP_DOUBLE=0 -DCLIP_COMPLEX=0 -DCLIP_SHORT_NAMES -DTC_SCALED=$pass $d $X \
      -Dasm=__asm__ -Wno-everything $src
  done
done
echo "$O.k{15,31,63}.p{0,1}.ptx"
