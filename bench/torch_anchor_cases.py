"""The PyTorch anchors of the GPU issues' cases only (cuDNN single-channel conv2d 8192^2 'same',
dot and p-norms at 2^28), so they fit in one device call beside clip's numbers. Same timing
method as ../shared/anchors/torch_anchors.py: median of 9 batches after a warm-up, fp32, TF32 off."""
import statistics, time, torch
torch.backends.cudnn.allow_tf32 = False

def median_ms(f, reps=10):
    f(); torch.cuda.synchronize()
    ts = []
    for _ in range(9):
        t = time.perf_counter()
        for _ in range(reps): f()
        torch.cuda.synchronize(); ts.append((time.perf_counter() - t) / reps * 1e3)
    return statistics.median(ts)

n = 8192
x = torch.rand(1, 1, n, n, device='cuda')
for k in [3, 7, 15, 31]:
    w = torch.rand(1, 1, k, k, device='cuda')
    t = median_ms(lambda: torch.nn.functional.conv2d(x, w, padding=k // 2), reps=3)
    print(f"cudnn conv2d n={n} k={k} median_ms={t:.4f}")
n = 1 << 28
a, b = torch.rand(n, device='cuda'), torch.rand(n, device='cuda')
t = median_ms(lambda: torch.dot(a, b)); print(f"torch dot n={n} median_ms={t:.4f} gbps={2*n*4/t/1e6:.1f}")
t = median_ms(lambda: torch.linalg.vector_norm(a, 2)); print(f"torch norm2 n={n} median_ms={t:.4f} gbps={n*4/t/1e6:.1f}")
t = median_ms(lambda: torch.linalg.vector_norm(a, 3)); print(f"torch norm3 n={n} median_ms={t:.4f} gbps={n*4/t/1e6:.1f}")
