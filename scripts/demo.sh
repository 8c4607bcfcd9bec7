#!/usr/bin/env bash
# Installs the dependencies (when missing), builds clip, lists the devices and runs the demo on
# the default device: a Shepp-Logan phantom processed on the device, written to build/demo.png.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
./build/clip devices
./build/examples/demo build/demo.png
