"""clipcl on a GPU (bench/python_gpu.sh runs it), each case the median of REPEAT runs:
  chain   conv2(A, K 15x15, 'same') -> matmul(C, C) -> norm(D, 'fro') on DeviceArrays, A 4096^2
          single: the wall time of the three calls and a clipcl.finish() (nothing comes back to
          the host), against the sum of the three processes' device times (clipcl.device_times,
          where each call waits for its work); the target is within 1.1x
  conv2   8192^2 single 'same', K 15x15 (and 7x7, 31x31): clip's device time on DeviceArrays
          (clip_process_time_ms) and its wall time per call from Python (launch to finish),
          beside CuPy's ndimage.convolve and signal.fftconvolve, timed as
          ../shared/anchors/cupy_peers.py times them (cupyx.profiler.benchmark's GPU times, TF32
          off), in the same process; also clip from a NumPy array to a NumPy array (transfers
          included) for the record
Environment: REPEAT (default 10), CLIP_DEVICE (default gpu), N (conv2's side, default 8192) and
CHAIN_N (the chain's, default 4096), smaller for a trial run elsewhere; without CuPy the peers
are left out."""
import os
import statistics
import time

os.environ.setdefault("CUPY_TF32", "0")
import numpy as np

import clipcl

REPEAT = int(os.environ.get("REPEAT", "10"))
N = int(os.environ.get("N", "8192"))
CHAIN_N = int(os.environ.get("CHAIN_N", "4096"))
app = clipcl.default_app()
print("clipcl on %s (%s)" % (app.device["name"], app.device["version"]))
rng = np.random.default_rng(48)


def med(xs):
    return statistics.median(xs)


def chain():
    A = clipcl.to_device(rng.random((CHAIN_N, CHAIN_N), dtype=np.float32))
    K = clipcl.to_device(rng.random((15, 15), dtype=np.float32))

    def run():
        C = clipcl.conv2(A, K, "same")
        D = clipcl.matmul(C, C)
        return C, D, clipcl.norm(D, "fro")

    for _ in range(3):
        run()
    clipcl.finish()
    sums, parts = [], []
    for _ in range(REPEAT):
        with clipcl.device_times() as t:
            run()
        sums.append(sum(ms for _, ms in t))
        parts.append(t)
    walls, calls, held = [], [], []
    for _ in range(REPEAT):
        t0 = time.perf_counter()
        run()
        t1 = time.perf_counter()
        clipcl.finish()
        walls.append(1e3 * (time.perf_counter() - t0))
        calls.append(1e3 * (t1 - t0))
    # The same with every round's results held until the end: no device array is freed (and no
    # buffer released) inside a timed round.
    keep = []
    for _ in range(REPEAT):
        t0 = time.perf_counter()
        keep.append(run())
        clipcl.finish()
        held.append(1e3 * (time.perf_counter() - t0))
    del keep
    st = app.stats()
    each = {n: med([dict(p)[n] for p in parts]) for n, _ in parts[0]}
    print("chain conv2 %d^2 15x15 -> matmul %d -> norm fro, DeviceArrays:" % (CHAIN_N, CHAIN_N))
    print("  device times (median): %s; sum %.3f ms" % (
        ", ".join("%s %.3f" % kv for kv in each.items()), med(sums)))
    print("  wall time of the chain from Python (calls + finish): %.3f ms = %.3fx the sum" % (
        med(walls), med(walls) / med(sums)))
    print("  of which the three calls (enqueue, before finish) %.3f ms; with every round's "
          "results held (none freed in the round) %.3f ms = %.3fx" % (
              med(calls), med(held), med(held) / med(sums)))
    print("  app.stats(): inits %d, rebinds %d, rebind_inits %d" % (
        st["inits"], st["rebinds"], st["rebind_inits"]))


def conv2():
    try:
        import cupy as cp
        from cupyx.profiler import benchmark
        from cupyx.scipy import ndimage, signal
    except ImportError:
        cp = None
        print("conv2: CuPy missing: its peers are left out")

    def cupy_ms(f, *a):
        r = benchmark(f, a, n_repeat=REPEAT, n_warmup=2)
        return float(np.median(r.gpu_times)) * 1e3

    n = N
    host = rng.random((n, n), dtype=np.float32)
    A = clipcl.to_device(host)
    x = cp.asarray(host) if cp is not None else None
    hostF = clipcl.asfortranarray(host)
    for k in (15, 7, 31):
        Kh = rng.random((k, k), dtype=np.float32)
        K = clipcl.to_device(Kh)
        w = cp.asarray(Kh) if cp is not None else None
        clipcl.conv2(A, K, "same")
        clipcl.finish()
        dev = []
        for _ in range(REPEAT):
            with clipcl.device_times() as t:
                clipcl.conv2(A, K, "same")
            dev.append(t[0][1])
        wall = []
        for _ in range(REPEAT):
            t0 = time.perf_counter()
            clipcl.conv2(A, K, "same")
            clipcl.finish()
            wall.append(1e3 * (time.perf_counter() - t0))
        peers = {}
        if cp is not None:
            peers["cupy ndimage.convolve"] = cupy_ms(ndimage.convolve, x, w, None, "constant")
            if k >= 15:
                peers["cupy signal.fftconvolve"] = cupy_ms(signal.fftconvolve, x, w, "same")
        print("conv2 %d^2 %dx%d single 'same':" % (n, k, k))
        print("  clip device time %.4f ms (median of %d); from Python, DeviceArrays, call + "
              "finish %.4f ms" % (med(dev), REPEAT, med(wall)))
        for name, ms in peers.items():
            print("  %s %.4f ms" % (name, ms))
        if peers:
            best = min(peers, key=peers.get)
            print("  clip is %.2fx faster than CuPy's fastest (%s) in device time" % (
                peers[best] / med(dev), best))
        h2h = []
        for _ in range(max(3, REPEAT // 2)):
            t0 = time.perf_counter()
            clipcl.conv2(hostF, Kh, "same")
            h2h.append(1e3 * (time.perf_counter() - t0))
        print("  clip NumPy -> NumPy (upload, conv2, download) %.3f ms" % med(h2h))
        K.free()


chain()
conv2()
