"""cuBLAS SGEMM (TF32 off) through PyTorch for a list of MxNxK shapes (op(A) M x K times op(B) K x N),
for bench/wg_grid.sh. Two lines per shape: `cublas` the median ms of 7 batches of calls after a
warm-up (host launches included: a small product's time is PyTorch's per-call cost), and
`cublas-graph` the same batch captured once as a CUDA graph and replayed (the GPU's time per
product, back to back, near what clip's OpenCL events measure)."""
import statistics, sys, torch
from torch_timing import median_ms as med
torch.backends.cuda.matmul.allow_tf32 = False

def graph_ms(a, b, reps):
    c = a @ b
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3): torch.matmul(a, b, out=c)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(reps): torch.matmul(a, b, out=c)
    g.replay(); torch.cuda.synchronize()
    ts = []
    for _ in range(7):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record(); g.replay(); e1.record(); torch.cuda.synchronize()
        ts.append(e0.elapsed_time(e1) / reps)
    return statistics.median(ts)

for s in sys.argv[1:]:
    m, n, k = (int(x) for x in s.split('x'))
    a, b = torch.rand(m, k, device='cuda'), torch.rand(k, n, device='cuda')
    reps = max(1, min(50, int(2e11 / max(1, 2 * m * n * k))))
    print(f"cublas {s} median_ms={med(lambda: a @ b, reps):.4f}", flush=True)
    print(f"cublas-graph {s} median_ms={graph_ms(a, b, reps):.4f}", flush=True)
