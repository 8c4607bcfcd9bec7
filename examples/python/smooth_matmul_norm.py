#!/usr/bin/env python3
"""Loads a PNG, smooths it with conv2, multiplies it by its transpose, takes a norm, saves a PNG.
    smooth_matmul_norm.py [IN.png OUT.png]
Without arguments it writes a 64x96 gray ramp first (so it runs with nothing on disk)."""
import sys

import numpy as np

import clipcl

src, dst = sys.argv[1:3] if len(sys.argv) > 2 else ("ramp.png", "smooth.png")
if len(sys.argv) <= 2:
    clipcl.save(src, np.add.outer(2 * np.arange(64.0), np.arange(96.0)))

A = clipcl.load(src, on_device=True)          # rows x cols (x channels), raw 0..255, on the device
K = np.ones((5, 5), np.float32) / 25
S = clipcl.conv2(A, K, "same")                # MATLAB's conv2(A, K, 'same'); stays on the device
G = clipcl.matmul(S, S, transa="t")           # S.' * S, S read transposed in place
print("norm(S, 'fro') =", clipcl.norm(S, "fro").get()[0, 0])   # 1x1 results, MATLAB-style
print("norm(S.'*S) =", clipcl.norm(G).get()[0, 0])
print(clipcl.save(dst, S, sample="u8", fit="clamp"))  # says what it rounded; whole or absent
