"""cuBLAS SGEMM (TF32 off) through PyTorch for a list of MxNxK shapes (op(A) M x K times op(B) K x N),
for bench/wg_grid.sh: one line per shape, median ms of 7 batches after a warm-up."""
import sys, torch
from torch_timing import median_ms as med
torch.backends.cuda.matmul.allow_tf32 = False
for s in sys.argv[1:]:
    m, n, k = (int(x) for x in s.split('x'))
    a, b = torch.rand(m, k, device='cuda'), torch.rand(k, n, device='cuda')
    reps = max(1, min(50, int(2e11 / max(1, 2 * m * n * k))))
    print(f"cublas {s} median_ms={med(lambda: a @ b, reps):.4f}", flush=True)
