#!/usr/bin/env bash
# clip's f32 matmul (variant auto) against cuBLAS (TF32 off, bench/shape_anchor.py) over square
# sizes 256..8192, ResNet-50's convolutions as GEMMs and the issue's skinny shapes, in one call on
# the GPU machine after a build into /tmp/build-gpu. Writes CSV to $1 (default
# bench/results/gemm_grid_gpu.csv; bench/GEMM.md has it): shape, clip ms (its kernels' OpenCL
# event time), variant, cuBLAS ms per PyTorch call (host cost included), speed (cuBLAS / clip),
# cuBLAS ms per product replayed from a CUDA graph (the GPU's time back to back), clip ms per
# product launched back to back with timing off (gemm_bench --batch: the same measure for clip),
# speed_chain (graph / clip back to back), then clip ms per product at the device's own pace
# (gemm_bench --paced: the launches held behind a spin kernel until all are enqueued, so the host's
# enqueue cost drops out as it does from a graph's replay) and speed_paced (graph / that), the
# fairest pair.
#   bench/wg_grid.sh --plot CSV   draws CSV's speeds as bench/results/gemm_grid_gpu.png (gnuplot;
#                                 the GPU machine has none, so the plot is made here afterwards)
set -u
if [ "${1:-}" = --plot ]; then
  gnuplot <<GP
set terminal pngcairo size 1000,500
set output '${3:-bench/results/gemm_grid_gpu.png}'
set datafile separator ','
set title 'clip f32 matmul (auto) against cuBLAS SGEMM, TF32 off: cuBLAS time / clip time' noenhanced
set key top left
set style data histograms
set style fill solid 0.6
set boxwidth 0.8
set xtics rotate by -45 noenhanced
set ylabel 'speed (>1: clip faster)'
set yrange [0:*]
set grid ytics
plot '$2' every ::1 using 5:xtic(1) title 'clip event time against cuBLAS through PyTorch calls', \
     '' every ::1 using 10 title 'the GPU at its own pace: clip launches held until all were enqueued, cuBLAS from a CUDA graph', \
     1 with lines lc rgb 'black' title ''
GP
  exit
fi
out=${1:-bench/results/gemm_grid_gpu.csv}
square="256x256x256 512x512x512 1024x1024x1024 2048x2048x2048 4096x4096x4096 8192x8192x8192"
resnet="64x12544x147 64x3136x64 64x3136x576 256x3136x64 128x784x1152 512x784x128 256x196x2304 1024x196x256 512x49x4608 2048x49x512"
skinny="1x8192x8192 8192x1x8192 16x16x1000000 3x5x100000"
shapes="$square $resnet $skinny"
tmp=$(mktemp)
for s in $shapes; do
  r=50; case $s in 4096x4096x4096) r=10 ;; 8192x8192x8192) r=3 ;; esac
  timeout 60 /tmp/build-gpu/bench/gemm_bench $s --repeat $r --no-clblast --paced |
    grep "^clip " | grep -v span_ms | tr '\n' ' ' >>"$tmp"
  echo >>"$tmp"
done
anchors=$(PYTHONUNBUFFERED=1 timeout 200 python3 bench/shape_anchor.py $shapes)
echo "shape,clip_ms,clip_variant,cublas_ms,speed,cublas_graph_ms,clip_chain_ms,speed_chain,clip_paced_ms,speed_paced" >"$out"
for s in $shapes; do
  line=$(grep " $s " "$tmp" | head -1)
  ms=$(echo "$line" | grep -o " median_ms=[0-9.]*" | cut -d= -f2)
  var=$(echo "$line" | grep -o "variant='[^']*'" | cut -d"'" -f2)
  cb=$(echo "$anchors" | grep "cublas $s " | grep -o "median_ms=[0-9.]*" | cut -d= -f2)
  cg=$(echo "$anchors" | grep "cublas-graph $s " | grep -o "median_ms=[0-9.]*" | cut -d= -f2)
  sp=$(awk -v a="$ms" -v b="$cb" 'BEGIN { if (a > 0 && b > 0) printf "%.3f", b / a; }')
  ch=$(echo "$line" | grep -o "untimed_batch_ms=[0-9.]*" | cut -d= -f2)
  sc=$(awk -v a="$ch" -v b="$cg" 'BEGIN { if (a > 0 && b > 0) printf "%.3f", b / a; }')
  pc=$(echo "$line" | grep -o "paced_ms=[0-9.]*" | cut -d= -f2)
  sq=$(awk -v a="$pc" -v b="$cg" 'BEGIN { if (a > 0 && b > 0) printf "%.3f", b / a; }')
  echo "$s,$ms,$var,$cb,$sp,$cg,$ch,$sc,$pc,$sq" >>"$out"
done
rm -f "$tmp"
cat "$out"
