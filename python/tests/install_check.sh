#!/bin/sh
# pip installs clipcl from the checkout without network access, into a venv that sees Debian's
# packages (cffi, numpy), bundling the library just built; the README's three lines then run from
# outside the checkout. Usage: install_check.sh PYTHON PYTHON_SOURCE_DIR LIBCLIP VENV_DIR
# (ctest: python_install). Exit 77 (skipped) when the interpreter has no venv or pip.
set -eu
py=$1 src=$2 lib=$3 venv=$4
if ! "$py" -c "import venv" 2>/dev/null || ! "$py" -m pip --version >/dev/null 2>&1; then
  echo "python_install: skipped: $py has no venv/pip (Debian: python3-venv python3-pip)"; exit 77
fi
rm -rf "$venv" "$venv.src"
"$py" -m venv --system-site-packages --without-pip "$venv"
# From a copy: setuptools builds in the source tree (build/, *.egg-info), which stays clean.
mkdir -p "$venv.src"
cp -r "$src/setup.py" "$src/pyproject.toml" "$src/clipcl" "$venv.src/"
# Debian's pip, run for the venv's interpreter (the venv itself has none: --without-pip).
CLIP_LIBRARY=$lib "$venv/bin/python" -m pip install -q --no-index --no-build-isolation \
  --no-cache-dir "$venv.src"
cd /
"$venv/bin/python" - <<'PY'
import numpy as np, clipcl
A = np.random.rand(64, 64).astype(np.float32)
C = clipcl.conv2(A, np.ones((3, 3), np.float32) / 9, 'same')
print("clipcl from", clipcl.__file__, "on", clipcl.default_app().device["name"], C.shape, C.dtype)
assert "site-packages" in clipcl.__file__, clipcl.__file__
PY
