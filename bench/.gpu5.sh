set -u
. .gpu/opencl-env.sh
B=/tmp/build-gpu
T0=$(date +%s)
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCLIP_WITH_OCTAVE=OFF >/dev/null && cmake --build $B -j16 2>&1 | grep -E "error|warning"
(cd $B && timeout 100 ./tests/test_tune 2>&1 | tail -2; timeout 200 ./tests/test_matmul 2>&1 | tail -1)
echo "tests $(( $(date +%s)-T0 )) s"
G="timeout 60 $B/bench/gemm_bench --no-clblast --repeat 10"
for s in 16x16x1000000 3x5x100000 1x8192x8192 8192x1x8192; do $G $s | grep "^clip" | grep -v span; done
for s in 512x512x512 1024x1024x1024 64x12544x147 128x784x1152 256x196x2304 1024x196x256 512x49x4608 2048x49x512; do
  $G $s | grep "^clip" | grep -v span
  for sk in 3 8; do $G $s --variant tensor --streamk $sk | grep "^clip" | grep -o "sgemm.*median_ms=[0-9.]*\|kernels_ms=.*"; done
done
echo "all $(( $(date +%s)-T0 )) s"
