"""The timing the PyTorch anchors share: median ms per call of f over 7 batches of `reps` calls,
after one warm-up call, each batch closed by a device synchronize."""
import statistics, time, torch

def median_ms(f, reps):
    f(); torch.cuda.synchronize(); ts = []
    for _ in range(7):
        t = time.perf_counter()
        for _ in range(reps): f()
        torch.cuda.synchronize(); ts.append((time.perf_counter() - t) / reps * 1e3)
    return statistics.median(ts)
