#!/usr/bin/env bash
# conv2 measurements on the GPU machine (results go to bench/CONV2.md by hand). Run from the
# repository root after scripts/gpu-build.sh, with .gpu/opencl-env.sh sourced.
#   bash bench/conv2_gpu.sh SECTION...
# Sections: auto (auto's choice, 8192^2 f32 'same', K 3/7/15/31), small (3x3, 7x7 with and
# without zero padding), anchor (cuDNN through PyTorch, same cases, and a separable pair of 1-D
# convolutions; env ANCHOR_N image sides, ANCHOR_K filters, ANCHOR_TYPES float32/float64), tests
# (the conv2 unit tests), sweep (block tiles through the tuning cache), sep (rank-one filters
# from PNG files: separable path), fft (the FFT path against the direct one at larger
# filters), types (f64, c32).
# Logs: $OUT/conv2_SECTION.log when OUT is set.
set -uo pipefail
cd "$(dirname "$0")/.."
b=${CLIP_BIN:-./build-gpu/clip}
n=${N:-8192}  # image side (smaller for a trial run elsewhere)
out=${OUT:-/tmp}
# A device property from clinfo: NVIDIA's first (the GPU machine also has PoCL), else any.
dev() {
  local all
  all=$(clinfo --raw 2>/dev/null)
  { grep '^\[NV' <<<"$all"; echo "$all"; } | sed -nE "s/^\[[^]]*\] +$1 +(.*)\$/\1/p" | head -1
}
name=$(dev CL_DEVICE_NAME)
drv=$(dev CL_DRIVER_VERSION)
# One tuning-cache entry (KEY VALUE) in a private file, for the next command only.
tune() {
  printf 'clip-tuning-1\t%s\t%s\tconv2\t%s\t%s\n' "$name" "$drv" "$1" "$2" > /tmp/conv2_tune.txt
}
bench() { timeout 60 $b bench conv2 "$@" --shape same 2>&1 | grep -E "^bench|error|clip:"; }

sec_auto() {
  for k in 3 7 15 31; do bench ${n}x${n} ${k}x${k} --repeat 5; done
}

# Small filters without the non-finite-filter flag (replicate padding and 'valid' read no zero
# padding, so no conv2_kinfo launch and no flag load) against auto's zero padding.
sec_small() {
  for k in 3 7; do
    bench ${n}x${n} ${k}x${k} --repeat 5
    bench ${n}x${n} ${k}x${k} --repeat 5 --pad replicate
  done
}

sec_anchor() {
  PYTHONUNBUFFERED=1 timeout 120 python3 - <<'PY'
import os, statistics, time, torch
torch.backends.cudnn.allow_tf32 = False
def median_ms(f, reps=3):
    f(); torch.cuda.synchronize()
    ts = []
    for _ in range(9):
        t = time.perf_counter()
        for _ in range(reps): f()
        torch.cuda.synchronize(); ts.append((time.perf_counter() - t) / reps * 1e3)
    return statistics.median(ts)
# ANCHOR_N: image sides (default N), ANCHOR_K: square filters, ANCHOR_TYPES: float32 float64
for n in map(int, os.environ.get("ANCHOR_N", os.environ.get("N", "8192")).split()):
  for ty in os.environ.get("ANCHOR_TYPES", "float32").split():
    dt = getattr(torch, ty)
    x = torch.rand(1, 1, n, n, device='cuda', dtype=dt)
    for k in map(int, os.environ.get("ANCHOR_K", "3 7 15 31").split()):
        w = torch.rand(1, 1, k, k, device='cuda', dtype=dt)
        t = median_ms(lambda: torch.nn.functional.conv2d(x, w, padding=k // 2))
        print(f"cudnn conv2d {ty} n={n} k={k} median_ms={t:.4f} gflops={2*n*n*k*k/t/1e6:.1f}")
    for k in [7, 31]:
        wc, wr = torch.rand(1, 1, k, 1, device='cuda', dtype=dt), torch.rand(1, 1, 1, k, device='cuda', dtype=dt)
        f = lambda: torch.nn.functional.conv2d(torch.nn.functional.conv2d(x, wc, padding=(k // 2, 0)), wr, padding=(0, k // 2))
        print(f"cudnn separable {ty} n={n} k={k} median_ms={median_ms(f):.4f}")
PY
}

sec_tests() {
  (cd build-gpu && timeout ${TESTS_TIMEOUT:-150} ctest -R "${TESTS:-conv2}" -L unit --output-on-failure 2>&1 | tail -15)
}

# Tuning-cache values per filter size (env SWEEPK for the sizes, SWEEP<k> for the values), then
# the run-time-size local kernel for reference.
sec_sweep() {
  export CLIP_TUNING_CACHE=/tmp/conv2_tune.txt
  for k in ${SWEEPK:-31 15 7 3}; do
    v=SWEEP$k
    case $k in
      31|15) def="block:32,4,2,16 block:32,4,1,16 block:32,8,1,16 block:32,2,2,16 block:32,4,2,8 block:32,4,4,8 block:32,2,1,32 block:32,2,2,32";;
      *) def="block:32,4,2,16 block:32,8,1,8 local:32,8,8 local:32,4,8 local:32,8,4";;
    esac
    for c in ${!v:-$def}; do tune f32-k$k $c; bench ${n}x${n} ${k}x${k} --repeat 5; done
  done
  unset CLIP_TUNING_CACHE
}

# Rank-one filters need data files (clip bench draws random filters): 8-bit PNGs made here, an
# 8192^2 image and integer outer products (values <= 255, so exactly rank one).
sec_sep() {
  python3 - <<'PY'
import os, struct, zlib, math
def png(path, rows):
    h, w = len(rows), len(rows[0])
    raw = b''.join(b'\x00' + bytes(r) for r in rows)
    def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
    with open(path, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 0, 0, 0, 0))
                + chunk(b'IDAT', zlib.compress(raw, 1)) + chunk(b'IEND', b''))
n = int(os.environ.get("N", "8192"))
blob = os.urandom(n * n)
png('/tmp/c2_a.png', [blob[i * n:(i + 1) * n] for i in range(n)])
for k in (7, 15, 31):
    g = [1 + round(14 * math.exp(-((i - k // 2) / (k / 6)) ** 2 / 2)) for i in range(k)]
    png(f'/tmp/c2_g{k}.png', [[a * b for b in g] for a in g])
PY
  for k in ${SEPK:-7 15 31}; do
    # option sets separated by ';' (env SEPO)
    IFS=';' read -ra sets <<<"${SEPO:---separable auto;--separable off;--separable on --variant local;--separable on --variant global;--separable on --variant block}"
    for o in "${sets[@]}"; do
      echo "k=$k $o: $(timeout 60 $b run conv2 /tmp/c2_a.png /tmp/c2_g$k.png -o /tmp/c2_o.cfl --shape same $o --time --repeat 5 2>&1 | tr '\n' ' ')"
    done
  done
}

sec_fft() {
  for k in ${FFTK:-31 63 127}; do
    bench ${n}x${n} ${k}x${k} --variant fft --repeat 3
    bench ${n}x${n} ${k}x${k} --repeat 3
  done
  bench 4096x4096 31x31 --variant fft --repeat 3
  bench 2048x2048 63x63 --variant fft --repeat 3
  bench 2048x2048 63x63 --repeat 3
}

sec_types() {
  for t in f64 c32; do for k in 7 31; do bench ${n}x${n} ${k}x${k} --type $t --repeat 3; done; done
}

for s in "$@"; do
  echo "== $s ($(date +%T))"
  "sec_$s" 2>&1 | tee "$out/conv2_$s.log"
done
