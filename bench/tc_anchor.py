"""cuBLAS SGEMM and CGEMM (TF32 off), SGEMM with TF32 on, BF16 and FP16 GEMM (inputs already
of that type, fp32 accumulation), and matrix_power through PyTorch, for bench/wg_gpu.sh: median ms."""
import torch
from torch_timing import median_ms
torch.backends.cuda.matmul.allow_tf32 = False
def med(f, reps=10):
    return median_ms(f, reps)
for n in [1024, 2048, 4096, 8192]:
    a, b = torch.rand(n, n, device='cuda'), torch.rand(n, n, device='cuda')
    t = med(lambda: a @ b, 10 if n < 8192 else 3)
    print(f"cublas sgemm n={n} median_ms={t:.4f} gflops={2*n**3/t/1e6:.1f}", flush=True)
    if n == 4096:
        t = med(lambda: torch.linalg.matrix_power(a, 13), 2)
        print(f"torch matrix_power n=4096 p=13 median_ms={t:.4f}", flush=True)
for n in [2048, 4096]:
    a = torch.rand(n, n, dtype=torch.complex64, device='cuda')
    b = torch.rand(n, n, dtype=torch.complex64, device='cuda')
    t = med(lambda: a @ b, 5)
    print(f"cublas cgemm n={n} median_ms={t:.4f} gflops={8*n**3/t/1e6:.1f}", flush=True)
torch.backends.cuda.matmul.allow_tf32 = True
for n in [2048, 4096, 8192]:
    a, b = torch.rand(n, n, device='cuda'), torch.rand(n, n, device='cuda')
    t = med(lambda: a @ b, 10 if n < 8192 else 3)
    print(f"cublas sgemm-tf32 n={n} median_ms={t:.4f} gflops={2*n**3/t/1e6:.1f}", flush=True)
for dt, name in [(torch.bfloat16, 'bf16'), (torch.float16, 'fp16')]:
    for n in [4096, 8192]:
        a = torch.rand(n, n, device='cuda').to(dt)
        b = torch.rand(n, n, device='cuda').to(dt)
        t = med(lambda: a @ b, 10 if n < 8192 else 5)
        print(f"cublas gemm-{name} n={n} median_ms={t:.4f} gflops={2*n**3/t/1e6:.1f}", flush=True)
