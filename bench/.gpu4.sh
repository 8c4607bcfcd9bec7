set -u
. .gpu/opencl-env.sh
B=/tmp/build-gpu
T0=$(date +%s)
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCLIP_WITH_OCTAVE=OFF >/dev/null && cmake --build $B -j16 2>&1 | grep -E "error|warning"
(cd $B && timeout 100 ./tests/test_tune 2>&1 | tail -3; timeout 60 ./tests/test_tuning 2>&1 | tail -1)
echo "tests $(( $(date +%s)-T0 )) s"
export CLIP_TUNING_CACHE=/tmp/tc_tune.txt; rm -f $CLIP_TUNING_CACHE
timeout 150 $B/clip tune --types f32 --shapes 2048x2048x2048,1024x1024x1024 --budget 90 2>&1 | grep -E "^f32|\[ *[0-9]+/|best|skipped" | head -60
G="timeout 60 $B/bench/gemm_bench --no-clblast"
for n in 1024 2048; do $G $n --repeat 10 | grep "^clip" | grep -v span; done
unset CLIP_TUNING_CACHE
echo "tune $(( $(date +%s)-T0 )) s"
SIZES=8192 PRECS="tf32" bash bench/wg_sweep.sh "64 1 16 3" "64 1 24 2"
SIZES=8192 PRECS="bf16" bash bench/wg_sweep.sh "64 1 32 3" "64 1 48 2"
echo "sweep $(( $(date +%s)-T0 )) s"
bash bench/wg_grid.sh $OUT/gemm_grid_gpu.csv; cat $OUT/gemm_grid_gpu.csv
echo "all $(( $(date +%s)-T0 )) s"
