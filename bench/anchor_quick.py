"""cuBLAS SGEMM 4096/8192 and CGEMM 4096 (TF32 off) through PyTorch: the issue-13 criteria's anchors
alone, for a short device call beside gemm_bench. Median ms of 7 batches after a warm-up."""
import statistics, time, torch
torch.backends.cuda.matmul.allow_tf32 = False
def med(f, reps):
    f(); torch.cuda.synchronize(); ts = []
    for _ in range(7):
        t = time.perf_counter()
        for _ in range(reps): f()
        torch.cuda.synchronize(); ts.append((time.perf_counter() - t) / reps * 1e3)
    return statistics.median(ts)
for n, dt, name in [(4096, torch.float32, "sgemm"), (8192, torch.float32, "sgemm"), (4096, torch.complex64, "cgemm")]:
    a, b = torch.rand(n, n, dtype=dt, device='cuda'), torch.rand(n, n, dtype=dt, device='cuda')
    print(f"cublas {name} n={n} median_ms={med(lambda: a @ b, 10 if n < 8192 else 3):.4f}", flush=True)
