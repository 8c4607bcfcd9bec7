#!/usr/bin/env bash
# Plots a grid CSV of bench/conv2_grid.sh as PNG (gnuplot): one panel per image size and type,
# time against the side k of square random k x k filters, one line per variant (global, rblock,
# auto, fft; separable where the grid has rank-one points), log-log.
#   bench/conv2_grid_plot.sh CSV [PNG (CSV with .png)]
set -euo pipefail
csv=${1:?usage: conv2_grid_plot.sh CSV [PNG]}
png=${2:-${csv%.csv}.png}
command -v gnuplot >/dev/null || { echo "gnuplot not found: no plot" >&2; exit 1; }
dev=$(sed -n '1s/^# device: \([^;]*\).*/\1/p' "$csv")
images=$(awk -F, '!/^#/ && $1 != "image" { print $1 }' "$csv" | sort -nu | tr '\n' ' ')
types=$(awk -F, '!/^#/ && $1 != "image" { print $2 }' "$csv" | sort -u | tr '\n' ' ')
# series IMG TYPE LABEL RANK1: "k ms" lines of square filters, the median of a point's rounds
series() {
  awk -F, -v i="$1" -v t="$2" -v l="$3" -v r="$4" '$1 == i && $2 == t && $5 == l && $4 == r &&
    $7 != "nan" { split($3, f, "x"); if (f[1] == f[2]) print f[1], $7 }' "$csv" |
    sort -k1,1n -k2,2g |
    awk '{ v[$1] = v[$1] " " $2; n[$1]++; if (!($1 in seen)) { seen[$1] = 1; o[++m] = $1 } }
      END { for (j = 1; j <= m; j++) { k = o[j]; c = split(substr(v[k], 2), a, " ")
        print k, c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2 } }'
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n_img=$(wc -w <<<"$images")
n_t=$(wc -w <<<"$types")
{
  echo "set terminal pngcairo size $((420 * n_t)),$((330 * n_img)) font ',9'"
  echo "set output '$png'"
  echo "set multiplot layout $n_img,$n_t title 'conv2 same, square random filters: ${dev:-device}' noenhanced"
  echo "set logscale xy; set xlabel 'filter side k (k x k)'; set ylabel 'median ms'"
  echo "set key left top; set grid; set xtics (3,5,7,11,15,21,31,47,63)"
  for img in $images; do
    for t in $types; do
      plots=()
      for l in $(awk -F, '!/^#/ && $1 != "image" && $5 != "separable" { print $5 }' "$csv" | awk '!s[$0]++'); do
        series "$img" "$t" "$l" 0 >"$tmp/$img.$t.$l"
        [ -s "$tmp/$img.$t.$l" ] && plots+=("'$tmp/$img.$t.$l' using 1:2 with linespoints title '$l'")
      done
      series "$img" "$t" separable 1 >"$tmp/$img.$t.sep"
      [ -s "$tmp/$img.$t.sep" ] &&
        plots+=("'$tmp/$img.$t.sep' using 1:2 with points pt 7 title 'separable (rank one)'")
      echo "set title '${img}^2 $t'"
      (IFS=,; echo "plot ${plots[*]}")
    done
  done
  echo "unset multiplot"
} | gnuplot
echo "wrote $png"
