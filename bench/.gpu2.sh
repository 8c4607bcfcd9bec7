set -u
. .gpu/opencl-env.sh
B=/tmp/build-gpu
T0=$(date +%s)
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCLIP_WITH_OCTAVE=OFF >/dev/null && cmake --build $B -j16 2>&1 | grep -E "error|warning"
echo "build $(( $(date +%s)-T0 )) s"
(cd $B && timeout 200 ./tests/test_matmul_tc 2>&1 | grep -E "^--|split|checks|CHECK|bad|FAIL|error|wrong" | head -40
 CLIP_GEMM_FAMILY=tensor timeout 200 ./tests/test_matmul 2>&1 | tail -2
 CLIP_GEMM_FAMILY=tensor timeout 100 ./tests/test_matpow 2>&1 | tail -2)
echo "tests $(( $(date +%s)-T0 )) s"
G="timeout 60 $B/bench/gemm_bench --no-clblast"
for n in 1024 2048 4096 8192; do r=10; [ $n = 8192 ] && r=5
  for sk in 0 2 3 4; do echo -n "sk $sk: "; $G $n --repeat $r --variant tensor --streamk $sk | grep "^clip" | grep -v span | grep -o "sgemm.*median_ms=[0-9.]*"; done
  $G $n --repeat $r | grep "^clip"
done
for n in 4096 8192; do for prec in tf32 bf16; do for sk in 0 4; do echo -n "sk $sk: "; $G $n --repeat 5 --variant tensor --precision $prec --streamk $sk | grep "^clip" | grep -v span | grep -o "sgemm.*median_ms=[0-9.]*"; done; done; done
for n in 2048 4096; do $G $n --type c32 --repeat 5 | grep "^clip" | grep -v span; done
$B/clip bench matpow 4096x4096 --power 13 --repeat 3 2>&1 | grep -v "^$" | tail -1
echo "bench $(( $(date +%s)-T0 )) s"
PYTHONUNBUFFERED=1 timeout 150 python3 bench/tc_anchor.py 2>&1
echo "all $(( $(date +%s)-T0 )) s"
