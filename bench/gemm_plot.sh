#!/usr/bin/env bash
# GEMM GFLOP/s against size for clip and CLBlast (bench/gemm_bench, same run): writes a CSV and a
# PNG plot (gnuplot).
#   bench/gemm_plot.sh [BUILD_DIR (build)] [OUT_DIR (.)] [SIZES...]   measure, then plot
#   bench/gemm_plot.sh --plot CSV [OUT_DIR (CSV's folder)]            plot a CSV made earlier
# Without gnuplot (the GPU machine has none) the CSV is written and the plot is left for
# --plot on a machine that has it. The CSV's first line is a comment naming the device.
set -euo pipefail

plot() { # CSV OUT_DIR
  local csv=$1 out=$2 dev
  dev=$(sed -n '1s/^# device: //p' "$csv")
  if ! command -v gnuplot >/dev/null; then
    echo "gnuplot not found: wrote $csv only (plot it with: bench/gemm_plot.sh --plot $csv)"
    return 0
  fi
  gnuplot <<GP
set terminal pngcairo size 800,500
set output '$out/gemm.png'
set datafile separator ','
set datafile commentschars '#'
set title 'SGEMM on ${dev:-device}' noenhanced
set xlabel 'n (square n x n x n)'
set ylabel 'GFLOP/s'
set logscale x 2
set key left top
plot '$csv' every ::1 using 1:2 with linespoints title 'clip', '' every ::1 using 1:3 with linespoints title 'CLBlast'
GP
  echo "wrote $out/gemm.png from $csv"
}

if [ "${1:-}" = --plot ]; then
  csv=${2:?usage: gemm_plot.sh --plot CSV [OUT_DIR]}
  plot "$csv" "${3:-$(dirname "$csv")}"
  exit 0
fi
b=${1:-build}
out=${2:-.}
shift $(($# > 2 ? 2 : $#))
sizes=${*:-256 512 1024 2048}
csv=$out/gemm.csv
rows=""
dev=""
for n in $sizes; do
  log=$("$b/bench/gemm_bench" "$n" --repeat 5)
  c=$(sed -n 's/^clip .* gflops=\([0-9.]*\) .*/\1/p' <<<"$log" | head -1)
  k=$(sed -n 's/^clblast .* gflops=\([0-9.]*\) .*/\1/p' <<<"$log" | head -1)
  [ -n "$dev" ] || dev=$(sed -n 's/^device: //p' <<<"$log" | head -1)
  rows="$rows$n,${c:-nan},${k:-nan}"$'\n'
  echo "$n,${c:-nan},${k:-nan}"
done
{
  echo "# device: ${dev%% (*}"
  echo "n,clip_gflops,clblast_gflops"
  printf '%s' "$rows"
} >"$csv"
plot "$csv" "$out"
