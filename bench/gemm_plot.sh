#!/usr/bin/env bash
# GEMM GFLOP/s against size for clip and CLBlast (bench/gemm_bench, same run): writes a CSV and a
# PNG plot (gnuplot). Usage: bench/gemm_plot.sh [BUILD_DIR (build)] [OUT_DIR (.)] [SIZES...]
set -euo pipefail
b=${1:-build}
out=${2:-.}
shift $(( $# > 2 ? 2 : $# ))
sizes=${*:-256 512 1024 2048}
csv=$out/gemm.csv
echo "n,clip_gflops,clblast_gflops" > "$csv"
for n in $sizes; do
  log=$("$b/bench/gemm_bench" "$n" --repeat 5)
  c=$(sed -n 's/^clip .* gflops=\([0-9.]*\) .*/\1/p' <<<"$log" | head -1)
  k=$(sed -n 's/^clblast .* gflops=\([0-9.]*\) .*/\1/p' <<<"$log" | head -1)
  echo "$n,${c:-nan},${k:-nan}" | tee -a "$csv"
done
dev=$(sed -n 's/^device: //p' <<<"$log" | head -1)
dev=${dev%% (*}
gnuplot <<GP
set terminal pngcairo size 800,500
set output '$out/gemm.png'
set datafile separator ','
set title 'SGEMM on ${dev:-device}' noenhanced
set xlabel 'n (square n x n x n)'
set ylabel 'GFLOP/s'
set logscale x 2
set key left top
plot '$csv' every ::1 using 1:2 with linespoints title 'clip', '' every ::1 using 1:3 with linespoints title 'CLBlast'
GP
echo "wrote $csv and $out/gemm.png"
