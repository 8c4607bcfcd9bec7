#!/usr/bin/env bash
# Issue 49's measurement on a machine of two or more GPUs (one call of the device tool, kind
# nvidia-h200-x2, carrying .gpu and .mpi; see bench/MPI_GPU.md):
#   [QUICK=1] bash bench/mpi_gpu.sh [PART...]   (PART: sanity inputs sgemm conv2 probe; default:
#                                             sanity inputs sgemm conv2)
# Builds clip-mpi against Debian's Open MPI, matio and HDF5 unpacked into /tmp/mx
# (bench/mpi_gpu_env.sh), checks two ranks on a small product, writes the inputs as MAT 7.3
# single variables on local disk (DATA, default /tmp/mpidata) with the image's h5py, then runs
# `clip-mpi run` on 1 and 2 ranks, one rank per GPU, alternating: SGEMM 16384^3
# (A.mat:A * B.mat:B -> C.mat:C) and conv2 of an 8192x8192x16 stack by 15x15 'same'. Each run
# prints its wall time and every rank's --time line; the outputs of the last runs are compared
# bit for bit. "probe" times SGEMM 16384^3 in one process (clip bench) and, where a run of one rank
# does not end within a minute, prints every thread's stack (cuda-gdb). QUICK=1: small sizes (a
# dry run). Log: $OUT/mpi.log (or /tmp).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp}
exec > >(tee "$out/mpi.log") 2>&1
. .gpu/opencl-env.sh
. bench/mpi_gpu_env.sh
B=/tmp/b-mpi
D=${DATA:-/tmp/mpidata}
py=${PY:-python3}
t0=$(date +%s)
stage() { echo "== $* ($(($(date +%s) - t0)) s)"; }
stage build
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCLIP_WITH_OCTAVE=OFF -DCLIP_WITH_TIFF=OFF \
  -DCLIP_WITH_MEX=OFF -DCLIP_WITH_PYTHON=OFF -DCLIP_WITH_MPI=ON -DCLIP_WITH_MATIO=ON \
  -DCLIP_WITH_HDF5=ON $MPI_CMAKE >/dev/null || { tail -30 $B/CMakeFiles/CMakeError.log; exit 1; }
cmake --build $B -j"$(nproc)" --target clip_tool clip_mpi 2>&1 | grep -E "error|warning"
$B/clip devices || exit 1
nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv
df -h / /tmp /dev/shm 2>/dev/null
M="$B/mpi/clip-mpi"
mkdir -p $D && cd $D || exit 1

# mat73 PATH NAME SHAPE...: a MATLAB 7.3 single variable of uniform values in [-1, 1), stored
# contiguously, as h5py writes it with MATLAB's header (tests/test_mpi.c writes its the same way)
mat73() {
  $py - "$@" <<'PY'
import sys, numpy as np, h5py
path, name, shape = sys.argv[1], sys.argv[2], [int(s) for s in sys.argv[3:]]
rng = np.random.default_rng(sum(map(ord, name)))
with h5py.File(path, 'w', userblock_size=512) as f:
    d = f.create_dataset(name, shape=tuple(reversed(shape)), dtype='<f4')
    step = max(1, (1 << 28) // int(np.prod(shape[:-1] or [1])))
    for i in range(0, shape[-1], step):
        j = min(shape[-1], i + step)
        d[i:j] = (rng.random((j - i,) + tuple(reversed(shape[:-1])), dtype=np.float32) * 2 - 1)
    d.attrs['MATLAB_class'] = np.bytes_(b'single')
h = b'MATLAB 7.3 MAT-file, HDF5 schema 1.00 .'.ljust(116) + bytes(8) + b'\x00\x02IM'
with open(path, 'r+b') as f:
    f.write(h.ljust(512, bytes(1)))
PY
}
same() {
  $py - "$@" <<'PY'
import sys, h5py, numpy as np
(p, n), (q, m) = (s.split(':') for s in sys.argv[1:3])
a, b = h5py.File(p)[n][()], h5py.File(q)[m][()]
d = np.abs(a.astype('f8') - b).max() if a.shape == b.shape else float('nan')
print(f'   {sys.argv[1]} vs {sys.argv[2]}: shape {a.shape[::-1]}, bit for bit {np.array_equal(a, b)}, max |diff| {d:.3g}')
PY
}
# go R NAME ARGS...: one timed run on R ranks
go() {
  local r=$1
  shift
  local s=$(date +%s.%N)
  timeout ${RUN_TIMEOUT:-150} mpirun -np $r "$M" run "$@" --time || echo "   FAILED: exit $?"
  echo "   wall $(awk "BEGIN { printf \"%.3f\", $(date +%s.%N) - $s }") s ($r rank(s): $*)"
}

sanity() {
stage "sanity: two ranks, a small product"
mat73 sa.mat A 300 200 && mat73 sb.mat B 200 100 || exit 1
mpirun -np 2 "$M" run matmul sa.mat:A sb.mat:B -o sc2.mat:C --time || {
  ompi_info | head -20
  mpirun -np 2 --mca plm_base_verbose 10 hostname
  exit 1
}
mpirun -np 1 "$M" run matmul sa.mat:A sb.mat:B -o sc1.mat:C --parts 2
same sc1.mat:C sc2.mat:C
}

if [ -n "${QUICK:-}" ]; then N=1024 S=512 Z=4; else N=16384 S=8192 Z=16; fi
inputs() {
stage "inputs: A, B ${N}^2, X ${S}x${S}x${Z}, K 15x15"
mat73 A.mat A $N $N && mat73 B.mat B $N $N && mat73 X.mat X $S $S $Z && mat73 K.mat K 15 15 || exit 1
ls -la $D
}

# Each case runs on 1 and 2 ranks with the same --parts (PARTS, default 8: pieces small enough
# that a rank's first two, whose page-locked buffers are made fresh, do not dominate), so the
# outputs must be bit for bit equal; then each rank count with its default parts (R).
sgemm() {
stage "SGEMM ${N}^3 from files: 1 and 2 ranks, alternating (--parts ${PARTS:-8}, then the default)"
for round in $(seq ${ROUNDS:-2}); do
  rm -f C1.mat C2.mat
  go 2 matmul A.mat:A B.mat:B -o C2.mat:C --parts ${PARTS:-8}
  go 1 matmul A.mat:A B.mat:B -o C1.mat:C --parts ${PARTS:-8}
done
same C1.mat:C C2.mat:C
rm -f C1d.mat C2d.mat
go 1 matmul A.mat:A B.mat:B -o C1d.mat:C
go 2 matmul A.mat:A B.mat:B -o C2d.mat:C
same C1d.mat:C C2d.mat:C
}

conv2() {
stage "conv2 ${S}x${S}x${Z} by 15x15 'same' from files: 1 and 2 ranks, alternating (--parts ${PARTS:-8}, then the default)"
for round in $(seq ${ROUNDS:-2}); do
  rm -f Y1.mat Y2.mat
  go 2 conv2 X.mat:X K.mat:K -o Y2.mat:Y --shape same --parts ${PARTS:-8}
  go 1 conv2 X.mat:X K.mat:K -o Y1.mat:Y --shape same --parts ${PARTS:-8}
done
same Y1.mat:Y Y2.mat:Y
rm -f Y1d.mat Y2d.mat
go 1 conv2 X.mat:X K.mat:K -o Y1d.mat:Y --shape same
go 2 conv2 X.mat:X K.mat:K -o Y2d.mat:Y --shape same
same Y1d.mat:Y Y2d.mat:Y
}

probe() {
  stage "probe: SGEMM ${N}^3 in one process, then one rank from files"
  timeout ${BENCH_TIMEOUT:-120} $B/clip bench matmul ${N}x$N ${N}x$N --repeat 3 || echo "   clip bench: exit $?"
  rm -f P1.mat
  mpirun -np 1 "$M" run matmul A.mat:A B.mat:B -o P1.mat:C --time &
  local job=$! i
  for i in $(seq ${PROBE_WAIT:-60}); do kill -0 $job 2>/dev/null || break; sleep 1; done
  if kill -0 $job 2>/dev/null; then
    local pid=$(pgrep -f 'clip-mpi run matmul' | tail -1)
    echo "   still running after ${PROBE_WAIT:-60} s: stacks of $pid"
    cuda-gdb -p "$pid" -batch -ex 'thread apply all bt 12' 2>&1 | grep -E '^#|^Thread' | head -80
    kill $job
  fi
  wait $job
}

for part in ${@:-sanity inputs sgemm conv2}; do $part; done
stage done
