set -u
. .gpu/opencl-env.sh
B=/tmp/build-gpu
T0=$(date +%s)
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCLIP_WITH_OCTAVE=OFF >/dev/null && cmake --build $B -j16 2>&1 | grep -E "error|warning"
echo "build $(( $(date +%s)-T0 )) s"
(cd $B && timeout 200 ./tests/test_matmul_tc 2>&1 | grep -E "^--|accuracy|checks|CHECK|bad|precision|FAIL|error|wrong" | head -60)
echo "tests $(( $(date +%s)-T0 )) s"
G="timeout 60 $B/bench/gemm_bench --no-clblast"
for n in 4096 8192; do $G $n --repeat 10 | grep "^clip"; done
echo "bench $(( $(date +%s)-T0 )) s"
SIZES=8192 PRECS="tf32" bash bench/wg_sweep.sh "64 1 32 2" "64 1 16 2 256" "64 1 8 4 256" "128 2 16 2 256" "64 1 16 3 256"
SIZES=8192 PRECS="bf16" bash bench/wg_sweep.sh "64 1 64 2" "64 1 32 4" "128 2 32 3" "64 1 32 2 256" "64 1 16 4 256" "128 2 32 2 256" "64 1 32 3 256"
echo "sweep $(( $(date +%s)-T0 )) s"
PYTHONUNBUFFERED=1 timeout 150 python3 bench/tc_anchor.py 2>&1 | grep -v "matrix_power\|cgemm\|n=1024\|n=2048"
echo "all $(( $(date +%s)-T0 )) s"
