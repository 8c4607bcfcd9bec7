#!/usr/bin/env bash
# clipcl on the GPU machine (issue 48): a chain conv2 -> matmul -> norm on DeviceArrays against
# the sum of its device times, and conv2 8192^2 15x15 single 'same' against CuPy's fastest
# convolution in the same process (bench/python_gpu.py says how each is timed).
# Run from the repository root on the GPU machine, with .gpu (../shared/gpu) and, where that
# machine's python3 lacks cffi, .pysite or .whl carried (below):
#   . .gpu/opencl-env.sh && bash bench/python_gpu.sh
# cffi: the GPU image's package list (/work/.library/device/KINDS.md, 2026-11-17) has numpy and
# cupy but no cffi (nor pycparser, which cffi's cdef needs); its python3 is 3.12. Carry one of:
#  .pysite/  cffi for CPython 3.12 as installed files. This workplace has no PyPI, but the
#            Google Cloud SDK here bundles a manylinux build of cffi 1.16.0 (its own libffi in
#            cffi.libs) and pycparser 2.22 for 3.12; once, in the checkout:
#              echo /.pysite/ >> .git/info/exclude; mkdir -p .pysite
#              s=/usr/lib/google-cloud-sdk/platform/bundledpythonunix/lib/python3.12/site-packages
#              cp -r $s/cffi $s/cffi.libs $s/_cffi_backend.cpython-312-x86_64-linux-gnu.so \
#                    $s/pycparser .pysite/
#            (seen working: that SDK's python3.12 imported it and called libclip.so.0 through it)
#  .whl/     wheels, where pip reaches PyPI:
#              python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
#                --implementation cp --platform manylinux_2_17_x86_64 \
#                --platform manylinux2014_x86_64 -d .whl cffi==1.17.1 pycparser==2.22
# and name the folder in the device call's carry; this script uses it when cffi is
# missing. Build: Release, TIFF/MATIO/Octave/Python's ctest off (that machine has neither
# libtiff-dev nor libmatio-dev); the package is used from python/ with CLIP_LIBRARY.
# Log: $OUT/python_gpu.log when OUT is set.
set -uo pipefail
cd "$(dirname "$0")/.."
py=${PYTHON:-python3}
log=${OUT:-/tmp}/python_gpu.log
if ! "$py" -c "import cffi" 2>/dev/null; then
  if [ -d .pysite/cffi ]; then
    export PYTHONPATH=$PWD/.pysite${PYTHONPATH:+:$PYTHONPATH}
  elif ls .whl/cffi-*.whl >/dev/null 2>&1; then
    "$py" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
      --target /tmp/site .whl/*.whl || exit 1
    export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
  else
    echo "python_gpu.sh: $py has no cffi, and neither .pysite/ nor .whl/ holds one (see this script's header)" >&2
    exit 1
  fi
fi
cmake -S . -B build-gpu-py -DCMAKE_BUILD_TYPE=Release -DCLIP_WITH_TIFF=OFF -DCLIP_WITH_MATIO=OFF \
  -DCLIP_WITH_OCTAVE=OFF -DCLIP_WITH_MEX=OFF -DCLIP_WITH_PYTHON=OFF -DCLIP_TESTS=OFF >/dev/null || exit 1
cmake --build build-gpu-py -j16 --target clip_shared 2>&1 | grep -E "error|warning"
export CLIP_LIBRARY=$PWD/build-gpu-py/libclip.so.0 PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH}
export CLIP_DEVICE=${CLIP_DEVICE:-gpu} PYTHONUNBUFFERED=1
timeout 540 "$py" bench/python_gpu.py 2>&1 | tee "$log"
