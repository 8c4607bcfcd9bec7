set -u
. .gpu/opencl-env.sh
B=/tmp/build-gpu
T0=$(date +%s)
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCLIP_WITH_OCTAVE=OFF >/dev/null && cmake --build $B -j16 2>&1 | grep -E "error|warning"
(cd $B && timeout 200 ./tests/test_matmul_tc 2>&1 | grep -E "checks|CHECK|bad|FAIL|error|wrong" | head -20)
echo "tests $(( $(date +%s)-T0 )) s"
SIZES=8192 PRECS="tf32" bash bench/wg_sweep.sh "64 1 32 2" "192 3 8 4" "192 3 8 3" "256 4 8 4" "128 2 8 4 256" "128 2 8 3 256" "128 2 16 3"
SIZES=8192 PRECS="bf16" bash bench/wg_sweep.sh "64 1 64 2" "192 3 16 4" "256 4 16 4" "128 2 16 4 256" "128 2 32 3" "192 3 32 2"
SIZES="4096 8192" PRECS="fp32" bash bench/wg_sweep.sh "64 1 16 2" "192 3 8 2" "128 2 8 3" "256 4 8 2"
echo "all $(( $(date +%s)-T0 )) s"
