#!/usr/bin/env bash
# Installs what clip needs on Debian 12 / Ubuntu, only where missing. Pass "test" to add the
# test tools (Octave, clang with its sanitizer runtime, valgrind).
set -euo pipefail
pkgs=(build-essential cmake pkg-config ocl-icd-opencl-dev opencl-headers clinfo pocl-opencl-icd
      libtiff-dev libpng-dev libmatio-dev libclfft-dev)
if [ "${1:-}" = test ]; then
  pkgs+=(octave clang libclang-rt-14-dev valgrind)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo_=""
  [ "$(id -u)" -ne 0 ] && sudo_=sudo
  $sudo_ apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
