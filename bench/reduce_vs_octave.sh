#!/usr/bin/env bash
# norm(v, 3) of 1e7 random singles: Octave's built-in against `clip bench` (PoCL here), in one
# run so that both see the same machine load. Prints each side's median over REPEAT runs and
# the ratio. Usage: bench/reduce_vs_octave.sh [BUILD_DIR (default build)] [REPEAT (default 15)]
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:-build}
r=${2:-15}
oct=$(octave-cli --no-gui --eval "
  rand('twister', 1); v = single(rand(1e7, 1)); t = zeros(1, $r);
  norm(v, 3);
  for k = 1:$r, tic; x = norm(v, 3); t(k) = toc; end
  printf('%.4f\n', 1000 * median(t));" 2>/dev/null | tail -1)
line=$("$b/clip" bench norm 10000000x1 --p 3 --repeat "$r")
echo "octave: norm(single(rand(1e7,1)), 3) median_ms=$oct (median of $r)"
echo "clip:   $line"
ms=$(sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p' <<<"$line")
awk -v o="$oct" -v c="$ms" 'BEGIN { printf "ratio: clip is %.1fx faster\n", o / c }'
