set -u
. .gpu/opencl-env.sh
B=/tmp/build-gpu
T0=$(date +%s)
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCLIP_WITH_OCTAVE=OFF >/dev/null && cmake --build $B -j16 2>&1 | grep -E "error|warning"
(cd $B && timeout 200 ./tests/test_matmul_tc 2>&1 | grep -E "split|checks|CHECK|bad|FAIL|error|wrong" | head -20)
echo "tests $(( $(date +%s)-T0 )) s"
G="timeout 60 $B/bench/gemm_bench --no-clblast --repeat 20"
for s in 512x512x512 768x768x768 1024x1024x1024 1536x1536x1536 2048x2048x2048 4096x4096x4096; do
  $G $s | grep "^clip" | grep -v span
  for sk in 2 3 4 6; do echo -n "sk $sk "; $G $s --variant tensor --streamk $sk | grep "^clip" | grep -o "sgemm.*median_ms=[0-9.]*\|kernels_ms=.*" | tr '\n' ' '; echo; done
done
for s in 1024x1024x1024 2048x2048x2048; do $G $s --type c32 | grep "^clip" | grep -v span; $G $s --type c32 --variant tensor | grep "^clip" | grep -v span; done
PYTHONUNBUFFERED=1 timeout 100 python3 bench/shape_anchor.py 512x512x512 768x768x768 1024x1024x1024 1536x1536x1536
echo "all $(( $(date +%s)-T0 )) s"
