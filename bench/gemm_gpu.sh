#!/usr/bin/env bash
# GEMM measurements on the lent GPU machine (after scripts/gpu-build.sh): clip and CLBlast side by
# side, the compiler's register report, and clip tune. Logs go to $OUT (or /tmp) as they are made,
# so a run cut short still leaves what it measured.
#   bash bench/gemm_gpu.sh tests      unit tests of matmul, matpow and the tuning cache
#   bash bench/gemm_gpu.sh compare    clip (defaults, or the cache in $CLIP_TUNING_CACHE) vs CLBlast
#   bash bench/gemm_gpu.sh sweep      clip tune per product class, every candidate printed
#   bash bench/gemm_gpu.sh ab         explicit tile sets from $AB_LIST (default bench/gemm_ab.txt)
#   bash bench/gemm_gpu.sh tune       clip tune with its default budget and products
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp}
b=./build-gpu
resnet="64x12544x147 64x3136x64 64x3136x576 256x3136x64 128x784x1152 512x784x128 256x196x2304 1024x196x256 512x49x4608 2048x49x512"
for mode in "$@"; do
  case $mode in
    tests)
      (cd $b && timeout 120 ctest -R "${TESTS:-matmul|matpow|tun}" -L unit --output-on-failure 2>&1 | tail -15) | tee -a "$out/tests.log" ;;
    compare)
      { timeout 60 $b/bench/gemm_bench 1024 4096 --repeat 10 --ptxinfo
        timeout 40 $b/bench/gemm_bench 4096 --type c32 --repeat 5 --ptxinfo
        timeout 60 $b/bench/gemm_bench $resnet --repeat 10
        timeout 30 $b/clip bench matpow 4096x4096 --power 13 --repeat 3
      } 2>&1 | tee -a "$out/compare.log" ;;
    sweep)
      { timeout 60 $b/clip tune --types f32 --shapes 4096x4096x4096 --budget ${SWEEP_BIG:-40}
        timeout 40 $b/clip tune --types f32 --shapes 1024x1024x1024 --budget ${SWEEP_MID:-20}
        timeout 60 $b/clip tune --types c32 --shapes 4096x4096x4096 --budget ${SWEEP_BIG:-40}
        timeout 90 $b/clip tune --types f32 --shapes "$(echo $resnet | tr ' ' ,)" --budget ${SWEEP_RESNET:-60}
      } 2>&1 | tee -a "$out/sweep.log" ;;
    ab)
      # Explicit sets side by side: [defs=-DX=1,-DY=2] TYPE SIZE then the tile options; defs go
      # to the kernel build through CLIP_GEMM_DEFS (commas become spaces). CLBlast runs beside
      # each line only with AB_CLBLAST=1.
      while read -r t n opts; do
        [ -z "$t" ] && continue
        defs=
        if [ "${t#defs=}" != "$t" ]; then defs=$(echo "${t#defs=}" | tr , ' '); read -r t n opts <<< "$n $opts"; fi
        echo "== ${defs:+[$defs] }$t $n $opts"
        CLIP_GEMM_DEFS="$defs" timeout 30 $b/bench/gemm_bench $n --type $t $([ -n "${AB_CLBLAST:-}" ] || echo --no-clblast) --repeat 10 --variant tiled $opts ${AB_PTX:+--ptxinfo} \
          | grep -E "^clip|^clblast|^ratio|Used|spill"
      done < "${AB_LIST:-bench/gemm_ab.txt}" 2>&1 | tee -a "$out/ab.log" ;;
    tune)
      TIMEFORMAT="clip tune wall %R s"; { time timeout 320 $b/clip tune ${TUNE_ARGS:-}; } 2>&1 | tee -a "$out/tune.log" ;;
    *) echo "unknown mode $mode" ;;
  esac
done
