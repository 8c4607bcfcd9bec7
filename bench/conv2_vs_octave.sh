#!/usr/bin/env bash
# conv2 of a 2048^2 image by a 7x7 filter, 'same': Octave's built-in against `clip bench` (the
# default device), in one run so that both see the same machine load. Prints each side's median
# over REPEAT runs and the ratio, for single and double.
# Usage: bench/conv2_vs_octave.sh [BUILD_DIR (default build)] [REPEAT (default 9)]
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:-build}
r=${2:-9}
for t in single double; do
  ct=$([ $t = single ] && echo f32 || echo f64)
  oct=$(octave-cli --no-gui --eval "
    rand('twister', 1); A = $t(rand(2048)); K = $t(rand(7)); t = zeros(1, $r);
    conv2(A, K, 'same');
    for k = 1:$r, tic; C = conv2(A, K, 'same'); t(k) = toc; end
    printf('%.4f\n', 1000 * median(t));" 2>/dev/null | tail -1)
  line=$("$b/clip" bench conv2 2048x2048 7x7 --shape same --type $ct --repeat "$r")
  echo "octave: conv2($t 2048^2, 7x7, 'same') median_ms=$oct (median of $r)"
  echo "clip:   $line"
  ms=$(sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p' <<<"$line")
  awk -v o="$oct" -v c="$ms" 'BEGIN { printf "ratio: clip is %.1fx faster\n", o / c }'
done
