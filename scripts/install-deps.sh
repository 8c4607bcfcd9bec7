#!/usr/bin/env bash
# Installs what a README command needs on Debian 12 / Ubuntu, only what is missing:
#   install-deps.sh          the demo (scripts/demo.sh): compiler, CMake, OpenCL with PoCL (the
#                            CPU device), and the libraries of clip's own features: libtiff,
#                            libpng, matio (file formats) and clFFT (conv2's fft variant);
#                            where Octave is installed, liboctave-dev for the MEX gateway
#   install-deps.sh test     + the test suite's tools (scripts/test.sh): Octave (and
#                            liboctave-dev for the gateway's tests) for the matlab/
#                            comparisons, with OpenBLAS as its BLAS (what Octave users run; the
#                            reference BLAS is some 27x slower), clang and its sanitizer and
#                            libFuzzer runtime, valgrind, gnuplot for the plot check, and
#                            Debian's Python 3 with cffi, NumPy, SciPy, pytest, venv and pip for
#                            the Python package clipcl (python/) and its tests, with tifffile,
#                            Pillow and h5py for the format conformance suite (tests/conformance),
#                            and Open MPI (openmpi-bin, libopenmpi-dev) and xxHash (libxxhash-dev,
#                            its checksums of the boxes read) for clip-mpi and its test,
#                            test_mpi (the demo runs on one host and needs no MPI). python3-scipy
#                            brings python3-dev with it (through python3-pythran); clipcl is cffi's
#                            ABI mode and compiles nothing, so nothing of clip needs python3-dev
#   install-deps.sh bench    + CLBlast, the anchor bench/gemm_bench times beside clip, clinfo
#                            (bench/conv2_gpu.sh reads device properties with it), and OpenCV's
#                            Python module (bench/python_bench.py times cv2.filter2D beside clip)
# Modes combine: install-deps.sh test bench. Every optional part may also be absent: CMake's
# CLIP_WITH_<NAME> switches (README, "What you need") build without it.
set -euo pipefail
pkgs=(build-essential cmake pkg-config ocl-icd-opencl-dev opencl-headers pocl-opencl-icd
      libtiff-dev libpng-dev libmatio-dev libclfft-dev)
# An Octave user gets clip's MEX gateway with the demo's build: its headers come with Octave's.
command -v octave-cli >/dev/null && pkgs+=(liboctave-dev)
for mode in "$@"; do
  case $mode in
    test) pkgs+=(octave liboctave-dev libopenblas0-pthread clang libclang-rt-14-dev valgrind gnuplot-nox
                python3-cffi python3-numpy python3-scipy python3-pytest python3-venv python3-pip
                python3-tifffile python3-pil python3-h5py openmpi-bin libopenmpi-dev libxxhash-dev) ;;
    bench) pkgs+=(libclblast-dev clinfo python3-opencv) ;;
    *) echo "install-deps.sh: unknown mode '$mode' (test, bench)" >&2; exit 2 ;;
  esac
done
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
