#!/usr/bin/env bash
# On the lent GPU machine (see ../shared/gpu/README.md): OpenCL from .gpu/, a Release build
# (formats whose libraries are missing there are left out), the device list and the unit tests.
set -uo pipefail
cd "$(dirname "$0")/.."
. .gpu/opencl-env.sh
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCLIP_WITH_OCTAVE=OFF >/dev/null || exit 1
cmake --build build-gpu -j16 2>&1 | grep -E "error|warning" ; true
./build-gpu/clip devices
