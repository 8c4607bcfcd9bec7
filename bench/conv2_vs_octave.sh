#!/usr/bin/env bash
# conv2 of a 2048^2 image by a filter (7x7 unless FILTER names another size, e.g. 31x31 or 1x31),
# 'same': Octave's built-in against `clip bench` (the default device), in one run so that both see
# the same machine load. Prints each side's median over REPEAT runs and the ratio, for single and
# double.
# Usage: bench/conv2_vs_octave.sh [BUILD_DIR (default build)] [REPEAT (default 9)] [FILTER]
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:-build}
r=${2:-9}
f=${3:-7x7}
case $f in [0-9]*x[0-9]*) ;; *) echo "conv2_vs_octave.sh: FILTER is RxC, e.g. 31x31" >&2; exit 2 ;; esac
fr=${f%x*} fc=${f#*x}
for t in single double; do
  ct=$([ $t = single ] && echo f32 || echo f64)
  oct=$(octave-cli --no-gui --eval "
    rand('twister', 1); A = $t(rand(2048)); K = $t(rand($fr, $fc)); t = zeros(1, $r);
    conv2(A, K, 'same');
    for k = 1:$r, tic; C = conv2(A, K, 'same'); t(k) = toc; end
    printf('%.4f\n', 1000 * median(t));" 2>/dev/null | tail -1)
  line=$("$b/clip" bench conv2 2048x2048 "$f" --shape same --type $ct --repeat "$r" --no-chain)
  echo "octave: conv2($t 2048^2, $f, 'same') median_ms=$oct (median of $r)"
  echo "clip:   $line"
  ms=$(sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p' <<<"$line")
  awk -v o="$oct" -v c="$ms" 'BEGIN { printf "ratio: clip is %.1fx faster\n", o / c }'
done
