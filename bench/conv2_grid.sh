#!/usr/bin/env bash
# conv2's selection grid (issue 14, item 3): for each image size, type and filter (square k x k,
# rows 1 x k, columns k x 1; random, and rank one for some squares) the time of every direct
# variant, of auto (with the variant it picked), of the separable path where K is rank one, and of
# fft for reference, each `clip bench conv2 IMGxIMG FILTER --shape same` (median of R launches
# after 2 warm-ups; random data, zero padding). Writes one CSV line per run and, at the end, a
# summary line per point: the fastest variant auto may choose (direct kernels and separable;
# fft is normwise), auto's pick and the ratio of their times.
#   bench/conv2_grid.sh [BUILD_DIR (build)] [CSV (conv2_grid.csv)] [--device SPEC]
#   bench/conv2_grid.sh --summary CSV        the summary of a CSV made earlier (or cut short)
# Environment: IMAGES ("512 2048"), TYPES ("f32 f64"), SQUARE ("3 5 7 11 15 21 31 47 63"),
# LINES (k for 1 x k and k x 1: "7 31"), RANK1 (rank-one squares: "7 15 31 63"), VARIANTS
# (forced direct variants: "global rblock"; local and block run on GPUs by adding them here),
# FFT (1: time fft too), REPEAT (5; points past 2 GFLOP use 3), ROUNDS (1: the variants of a
# point run in turn this many times, and the summary takes the median of each one's rounds: on
# a 2-vCPU VM one run's median can be twice another's for the same kernel), STAT (median: the
# summary's statistic over a variant's rounds; min: the fastest round, each kernel's speed when
# the VM's neighbours left it alone, for timings that fall into two modes), CLOCK (median: each
# run's median of device events, run with --no-chain; chain: its chain_ms, the time a launch takes
# among launches back to back, the GPU's gaps between kernels included; the CSV's last column is
# named after it).
# The summary's pick/fastest is the time of auto's pick forced (measured beside the others)
# over the fastest: auto's choice without the noise of auto's own run.
# The summary's variants are those in VARIANTS plus separable; timings under other load are as
# noisy as the machine: rerun a point before believing a ratio near 1.1. On a 2-vCPU VM whose
# runs fall into two modes (one of PoCL's two threads gaining nothing), POCL_MAX_PTHREAD_COUNT=1
# gives a steady clock: one thread's rounds of a variant then differ by 2% at the median, where
# two threads' differ by 19% (bench/CONV2.md, "One thread's clock").
set -euo pipefail
# summary CSV VARIANTS: per point, the fastest of the variants auto may choose against auto's pick
summary() {
  awk -F, -v vs="$2 separable" -v stat="${STAT:-median}" '
  function med(key, c, i, j, t, a) {
    c = split(substr(vals[key], 2), a, " ")
    for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    if (stat == "min") return a[1]
    return c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2
  }
  BEGIN { n = split(vs, allowed, " "); for (i = 1; i <= n; i++) ok[allowed[i]] = 1 }
  /^#/ || $1 == "image" { next }
  { key = $1 "," $2 "," $3 "," $4
    if (!(key in seen)) { seen[key] = 1; order[++np] = key }
    if ($7 == "nan") next
    lk = key "," $5
    if (!(lk in vals)) labels[key] = labels[key] " " $5
    vals[lk] = vals[lk] " " $7
    if ($5 == "auto") pick[key] = $6 }
  END {
    printf "summary: image,type,filter,rank1,fastest,fastest_ms,auto_pick,auto_ms,auto/fastest,pick/fastest,fft_ms\n"
    for (i = 1; i <= np; i++) {
      k = order[i]; split(pick[k], w, " "); best = 0; bestv = ""
      nl = split(substr(labels[k], 2), ls, " ")
      for (j = 1; j <= nl; j++) if (ls[j] in ok) { m = med(k "," ls[j]); if (!best || m < best) { best = m; bestv = ls[j] } }
      am = (k ",auto") in vals ? med(k ",auto") : 0
      r = best > 0 && am > 0 ? am / best : 0
      # the pick forced, measured beside the others: the choice without the noise of the auto run
      pr = (k "," w[1]) in vals && best > 0 ? med(k "," w[1]) / best : r
      fm = (k ",fft") in vals ? med(k ",fft") : ""
      printf "summary: %s,%s,%s,%s,%s,%.3f,%.3f,%s\n", k, bestv, best, w[1], am, r, pr, fm
      if (r > worst) { worst = r; where = k }
      if (pr > pworst) { pworst = pr; pwhere = k }
      if (pr > 1.1) misses++
    }
    printf "worst auto/fastest: %.3f at %s\n", worst, where
    printf "worst pick/fastest (the pick forced): %.3f at %s; points past 1.1: %d of %d\n", pworst, pwhere, misses, np
  }' "$1"
}
if [ "${1:-}" = --summary ]; then
  summary "${2:?--summary needs a CSV}" "${VARIANTS:-global rblock}"
  exit 0
fi
b=${1:-build}
csv=${2:-conv2_grid.csv}
shift $(($# > 2 ? 2 : $#))
dev=()
if [ "${1:-}" = --device ]; then dev=(--device "${2:?--device needs a SPEC}"); fi
images=${IMAGES:-512 2048}
types=${TYPES:-f32 f64}
square=${SQUARE:-3 5 7 11 15 21 31 47 63}
lines=${LINES:-7 31}
rank1=${RANK1:-7 15 31 63}
variants=${VARIANTS:-global rblock}
fft=${FFT:-1}
repeat=${REPEAT:-5}
rounds=${ROUNDS:-1}

clock=${CLOCK:-median}
case $clock in median | chain) ;; *) echo "conv2_grid.sh: CLOCK is median or chain" >&2; exit 2 ;; esac
# the median alone needs no chain_ms: --no-chain spares each run up to 1 s of launches
nochain=()
if [ "$clock" = median ]; then nochain=(--no-chain); fi
echo "image,type,filter,rank1,variant,reported,${clock}_ms" >"$csv"
device_name=""
# bench IMG TYPE FILTER RANK1 LABEL ARGS...: one run, one CSV line
bench() {
  local img=$1 t=$2 f=$3 r1=$4 label=$5
  shift 5
  local m=${f%x*} n=${f#*x} reps=$repeat extra=()
  # 2 * outputs * taps past 2 GFLOP: 3 launches are enough to see the median
  if [ $((2 * img * img * m * n)) -gt 2000000000 ]; then reps=3; fi
  [ "$r1" = 1 ] && extra=(--rank1 1)
  local line
  if ! line=$("$b/clip" bench conv2 "${img}x${img}" "$f" --shape same --type "$t" \
    --repeat "$reps" "${extra[@]}" "${nochain[@]}" "${dev[@]}" "$@" 2>&1); then
    echo "$img,$t,$f,$r1,$label,error,nan" >>"$csv"
    echo "  $label: ${line##*: }" >&2
    return 0
  fi
  [ -n "$device_name" ] || device_name=$(sed -n 's/.*device="\(.*\)"$/\1/p' <<<"$line")
  local var ms
  var=$(sed -n 's/.* variant=\(.*\) median_ms=.*/\1/p' <<<"$line")
  ms=$(sed -n "s/.* ${clock}_ms=\([0-9.]*\) .*/\1/p" <<<"$line")
  echo "$img,$t,$f,$r1,$label,$var,$ms" >>"$csv"
  printf '%-6s %-4s %-6s r1=%s %-9s %-30s %10s ms\n' "$img" "$t" "$f" "$r1" "$label" "$var" "$ms"
}

point() { # IMG TYPE FILTER RANK1
  local v r
  for ((r = 0; r < rounds; r++)); do
    for v in $variants; do bench "$@" "$v" --variant "$v" --separable off; done
    [ "$4" = 1 ] && bench "$@" separable --separable on
    bench "$@" auto
  done
  [ "$fft" = 1 ] && bench "$@" fft --variant fft
  return 0
}

start=$(date +%s)
for img in $images; do
  for t in $types; do
    for k in $square; do point "$img" "$t" "${k}x${k}" 0; done
    for k in $lines; do
      point "$img" "$t" "1x${k}" 0
      point "$img" "$t" "${k}x1" 0
    done
    for k in $rank1; do point "$img" "$t" "${k}x${k}" 1; done
  done
done
sed -i "1i # device: ${device_name:-unknown}; $(date -u +%Y-%m-%dT%H:%MZ); $(($(date +%s) - start)) s" "$csv"
summary "$csv" "$variants"
