#!/usr/bin/env bash
# Skinny products on the lent GPU machine (issue 13 item 4), in one device call: a Release build
# of what it needs, clip's matmul on the skinny shapes (default choice, then the tiled GEMM they
# took before), cuBLAS through CuPy on the same shapes, then the skinny and matmul unit tests.
# Logs go to $OUT (or /tmp) as they are made, so a run cut short keeps what it measured.
#   bash bench/skinny_gpu.sh
set -uo pipefail
cd "$(dirname "$0")/.."
. .gpu/opencl-env.sh
out=${OUT:-/tmp}
b=${BUILD:-/tmp/build-skinny}
shapes="1x8192x8192 8192x1x8192 16x16x1000000 3x5x100000 4096x4096x1 64x576x3136"
{ cmake -S . -B $b -DCMAKE_BUILD_TYPE=Release -DCLIP_WITH_OCTAVE=OFF >/dev/null &&
  cmake --build $b -j16 --target clip_tool gemm_bench test_matmul_skinny test_matmul 2>&1 | grep -E "error|warning"
} 2>&1 | tee -a "$out/build.log"
{ echo "== clip, default choice"; timeout 60 $b/bench/gemm_bench $shapes --no-clblast --repeat 20
  echo "== cuBLAS (CuPy)"; timeout 60 python3 bench/cupy_skinny.py
  echo "== clip, the tiled GEMM"; timeout 60 $b/bench/gemm_bench $shapes --no-clblast --repeat 20 --variant tiled
} 2>&1 | tee -a "$out/bench.log"
(cd $b/tests && timeout ${TEST_S:-120} ./test_matmul_skinny && timeout ${TEST_S:-120} ./test_matmul) 2>&1 | tail -30 | tee -a "$out/tests.log"
