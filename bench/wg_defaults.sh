#!/usr/bin/env bash
# The wgmma defaults (sm_90, issue 13, bench/GEMM.md "Past 48 KB") on the lent H100/H200, one call:
# build, every precision's default at 2048..8192 beside the 48 KB sets they replaced, then cuBLAS
# through PyTorch (bench/tc_anchor.py) in the same call, then test_matmul_tc.
# Usage, from the repository root on the GPU machine: bash bench/wg_defaults.sh
set -u
cd "$(dirname "$0")/.."
. .gpu/opencl-env.sh
B=/tmp/build-gpu
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCLIP_WITH_OCTAVE=OFF >/dev/null && cmake --build $B -j16 2>&1 | grep -E "error|warning"
G="timeout 60 $B/bench/gemm_bench --no-clblast --variant tensor"
OLD="--mwg 64 --mdimc 1 --stages 2 --pipe 0"
line() { grep "^clip" | grep -v span | sed 's/wall_ms.*variant/variant/'; }
for n in 1024 2048 4096 8192; do r=10; [ $n = 8192 ] && r=5
  $G $n --repeat $r | line
  $G $n --repeat $r $OLD --kwg 16 --streamk 3 | line
  for p in tf32 bf16 fp16; do
    $G $n --repeat $r --precision $p | line
    kw=32; [ $p != tf32 ] && kw=64
    $G $n --repeat $r --precision $p $OLD --kwg $kw --streamk 4 | line
  done
done
for n in 2048 4096; do
  $G $n --type c32 --repeat 5 | line
  $G $n --type c32 --repeat 5 $OLD --kwg 16 --streamk 3 | line
done
timeout 300 python3 bench/tc_anchor.py
(cd $B && timeout 200 ./tests/test_matmul_tc 2>&1 | grep -E "checks|CHECK failed" | head -5)
