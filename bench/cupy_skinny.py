# Copy of ../shared/anchors/cupy_skinny.py (the device call gets only the checkout).
"""cuBLAS (through CuPy) on the skinny GEMM shapes, fp32, TF32 off, beside `clip bench` in one call."""
import os
os.environ.setdefault("CUPY_TF32", "0")
import numpy as np, cupy as cp
from cupyx.profiler import benchmark
def ms(f, *a):
    return float(np.median(benchmark(f, a, n_repeat=10, n_warmup=2).gpu_times)) * 1e3
for (m, k, n) in [(1, 8192, 8192), (8192, 8192, 1), (16, 1000000, 16), (3, 100000, 5), (4096, 1, 4096), (64, 3136, 576)]:
    a = cp.random.rand(m, k, dtype=cp.float32); b = cp.random.rand(k, n, dtype=cp.float32)
    t = ms(cp.matmul, a, b)
    print(f"peer cupy sgemm {m}x{k}x{n} ms={t:.4f} gbps={(m*k+k*n+m*n)*4/t/1e6:.1f}")
