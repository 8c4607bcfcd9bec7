#!/usr/bin/env bash
# gemm_plot_check.sh CSV OUT_DIR: bench/gemm_plot.sh --plot must turn CSV into a real PNG (its
# signature, a non-trivial size, and an IHDR of the 800x500 the script asks for).
set -euo pipefail
csv=$1 out=$2
rm -rf "$out"
mkdir -p "$out"
bash "$(dirname "$0")/../bench/gemm_plot.sh" --plot "$csv" "$out"
png=$out/gemm.png
[ -f "$png" ] || { echo "gemm_plot_check: $png was not written"; exit 1; }
sig=$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')
[ "$sig" = 89504e470d0a1a0a ] || { echo "gemm_plot_check: $png is not a PNG (starts $sig)"; exit 1; }
# IHDR width and height, big-endian, at bytes 16..23.
wh=$(od -An -tu1 -j16 -N8 "$png" | awk '{print $1*16777216+$2*65536+$3*256+$4 "x" $5*16777216+$6*65536+$7*256+$8}')
[ "$wh" = 800x500 ] || { echo "gemm_plot_check: $png is $wh, want 800x500"; exit 1; }
size=$(stat -c %s "$png")
[ "$size" -gt 10000 ] || { echo "gemm_plot_check: $png has only $size bytes"; exit 1; }
echo "gemm_plot_check: $png ${wh}, $size bytes"
