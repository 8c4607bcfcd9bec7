#!/usr/bin/env python3
"""clipcl's speed from Python, beside the anchors a Python user would reach for (issue 48):
  overhead  a 1x1 matmul from NumPy to NumPy (median of 1000), beside the same sequence of C
            calls made directly through cffi (what the library itself costs on this device), and
            the same call on DeviceArrays (no wait, no transfer)
  conv2     2048x2048 single 'same' at 7x7 and 31x31, NumPy in and NumPy out, against
            cv2.filter2D (OpenCV: Debian's python3-opencv, scripts/install-deps.sh bench) and
            scipy.ndimage.convolve, each the median of REPEAT runs in the same process; clip
            from a Fortran-ordered input made by NumPy (wrapped; NumPy's allocation is not
            aligned as PoCL's buffers, so it is staged: one copy), one made by
            clipcl.asfortranarray (aligned: read in place, no copy) and a C-ordered one, NumPy's
            default (conv2 declares `transposes`, so it goes in as the transpose it holds, no
            transposing copy; staged as NumPy's Fortran array is); the worst per-output error of each, in units of eps * (|A| conv
            |K|) at that output, on a 512x512 image whose values span 1e-6..1e6. Each case runs
            in blocks of REPEAT calls, the cases taking turns over ROUNDS rounds (so that the
            machine's drift hits them alike), with a pause before each block: run call by call
            in turn, each case paid for the one before it, since OpenCV's TBB workers keep
            spinning for milliseconds after a filter2D (clip 7x7 took 7.3 ms after each
            filter2D and 4.3 ms after nothing)
Usage: PYTHONPATH=build/python /usr/bin/python3 bench/python_bench.py [overhead] [conv2]
Environment: REPEAT (conv2 calls a block, default 15), ROUNDS (default 3), CLIP_DEVICE as
everywhere, THREADS=N to give every contender N threads (POCL_MAX_PTHREAD_COUNT for PoCL,
cv2.setNumThreads; SciPy's ndimage uses one): steadier figures on a machine that other jobs share."""
import os
import sys
import time

THREADS = os.environ.get("THREADS")
if THREADS:
    os.environ["POCL_MAX_PTHREAD_COUNT"] = THREADS  # read when PoCL starts: before clipcl

import numpy as np

import clipcl

REPEAT = int(os.environ.get("REPEAT", "15"))
ROUNDS = int(os.environ.get("ROUNDS", "3"))


def median_us(fn, n, warm=100):
    for _ in range(warm):
        fn()
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return 1e6 * float(np.median(ts))


def overhead():
    from clipcl._ffi import ffi, lib
    app = clipcl.default_app()
    a = np.ones((1, 1), np.float32, order="F")
    out = np.empty((1, 1), np.float32, order="F")
    pp = ffi.new("clip_process **")
    lib.clip_process_create(app._p, b"matmul", pp)
    p = pp[0]
    lib.clip_process_set_timing(p, 0)
    dims = ffi.new("size_t[]", [1, 1])
    pd = ffi.new("clip_data **")
    ptr = ffi.new("const void **")

    ins = ffi.new("clip_data *[]", 2)
    outs = ffi.new("clip_data *[]", 1)
    reinit = ffi.new("int *")

    def wrap2():
        lib.clip_data_wrap(app._p, 0, 2, dims, ffi.cast("void *", a.ctypes.data), pd)
        d = pd[0]
        lib.clip_data_wrap(app._p, 0, 2, dims, ffi.cast("void *", out.ctypes.data), pd)
        return d, pd[0]

    def c_calls():  # what clipcl does per call, without Python around it: a kept init, rebound
        d, o = wrap2()
        ins[0] = ins[1] = d
        outs[0] = o
        lib.clip_process_rebind(p, ins, outs, reinit)
        lib.clip_process_launch(p)
        lib.clip_data_host(o, ptr)
        lib.clip_process_detach(p)
        lib.clip_data_destroy(d)
        lib.clip_data_destroy(o)

    def c_init(proc, keep_init=False):  # with an init at every call (clipcl before rebind)
        d, o = wrap2()
        lib.clip_process_set_input(proc, 0, d)
        lib.clip_process_set_input(proc, 1, d)
        lib.clip_process_set_output(proc, 0, o)
        lib.clip_process_init(proc)
        if not keep_init:
            lib.clip_process_launch(proc)
            lib.clip_data_host(o, ptr)
        (lib.clip_process_detach if keep_init else lib.clip_process_unbind)(proc)
        lib.clip_data_destroy(d)
        lib.clip_data_destroy(o)

    c_init(p, keep_init=True)  # p's init, kept for c_calls' rebinds
    q = ffi.new("clip_process **")
    lib.clip_process_create(app._p, b"matmul", q)
    pi = q[0]
    lib.clip_process_set_timing(pi, 0)

    g = clipcl.to_device(a)
    cases = [("clipcl.matmul NumPy->NumPy", lambda: clipcl.matmul(a, a)),
             ("the same C calls through cffi", c_calls),
             ("C calls, init at every call", lambda: c_init(pi)),
             ("clipcl.matmul on DeviceArrays", lambda: clipcl.matmul(g, g))]
    for _, fn in cases:
        for _ in range(200):
            fn()
    clipcl.finish()
    # Blocks of 1000 calls of one case, the cases taking turns over three rounds (each round
    # starting one case later), so that drift hits every case alike. Call by call in turn, each
    # case paid for the one before: the DeviceArray call, which waits for nothing, then found
    # the previous case's commands still in PoCL's queue.
    rounds = []
    for r in range(3):
        med = [0.0] * len(cases)
        for i in [(r + j) % len(cases) for j in range(len(cases))]:
            fn = cases[i][1]
            clipcl.finish()
            ts = []
            for _ in range(1000):
                t = time.perf_counter()
                fn()
                ts.append(time.perf_counter() - t)
            med[i] = 1e6 * float(np.median(ts))
        rounds.append(med)
    clipcl.finish()
    lib.clip_process_destroy(p)
    lib.clip_process_destroy(pi)
    print("overhead: 1x1 matmul, median of a block of 1000 calls (three rounds), device %s"
          % app.device["name"])
    for i, (name, _) in enumerate(cases):
        print("  %-34s %s us%s" % (name, " / ".join("%.1f" % r[i] for r in rounds),
                                   " (enqueued, not waited for)" if i == 3 else ""))
    print("  %-34s %s us" % ("Python's share (first - second)",
                             " / ".join("%.1f" % (r[0] - r[1]) for r in rounds)))


def per_output_error(got, A, K):
    """max |got - exact| / (eps * (|A| conv |K|)) over the outputs, 'same' convolution."""
    import scipy.signal
    a, k = A.astype(np.float64), K.astype(np.float64)
    exact = scipy.signal.convolve2d(a, k, "full")
    bound = scipy.signal.convolve2d(np.abs(a), np.abs(k), "full")
    kr, kc = K.shape
    sl = (slice(kr // 2, kr // 2 + A.shape[0]), slice(kc // 2, kc // 2 + A.shape[1]))
    return float(np.max(np.abs(got - exact[sl]) / (np.finfo(np.float32).eps * bound[sl])))


def conv2():
    import scipy.ndimage
    try:
        import cv2
        if THREADS:
            cv2.setNumThreads(int(THREADS))
    except ImportError:
        cv2 = None
        print("conv2: cv2 missing (Debian: python3-opencv): filter2D not timed")
    rng = np.random.default_rng(1)
    A = rng.random((2048, 2048), dtype=np.float32)
    AF = np.asfortranarray(A)  # NumPy's allocation: 16 bytes past a page, staged (one copy)
    AFa = clipcl.asfortranarray(A)  # aligned as the device's buffers: read in place
    print("conv2 2048x2048 single 'same', NumPy in and out, median of %d rounds of %d (ms); "
          "device %s; threads %s" % (ROUNDS, REPEAT, clipcl.default_app().device["name"],
                                     THREADS or "default"))
    # Accuracy input: values over 12 decades, side by side.
    H = (rng.random((512, 512)) * 10.0 ** rng.integers(-6, 7, (512, 512))).astype(np.float32)
    for ks in (7, 31):
        K = rng.random((ks, ks), dtype=np.float32)
        # filter2D correlates with its anchor at the kernel's centre: flipping K gives MATLAB's
        # conv2 'same' for odd sizes; BORDER_CONSTANT is conv2's zero padding.
        Kf = np.ascontiguousarray(K[::-1, ::-1])
        cases = [("clip (Fortran-ordered A)", lambda: clipcl.conv2(AF, K, shape="same"),
                  lambda X: clipcl.conv2(np.asfortranarray(X), K, shape="same")),
                 ("clip (aligned Fortran-ordered A)", lambda: clipcl.conv2(AFa, K, shape="same"),
                  None),
                 ("clip (C-ordered A)", lambda: clipcl.conv2(A, K, shape="same"),
                  lambda X: clipcl.conv2(np.ascontiguousarray(X), K, shape="same"))]
        if cv2 is not None:
            f2d = lambda X: cv2.filter2D(X, -1, Kf, borderType=cv2.BORDER_CONSTANT)
            cases.append(("cv2.filter2D", lambda: f2d(A), f2d))
        nd = lambda X: scipy.ndimage.convolve(X, K, mode="constant")
        cases.append(("scipy.ndimage.convolve", lambda: nd(A), nd))
        ref = clipcl.conv2(AF, K, shape="same")
        times = {name: [] for name, _, _ in cases}
        errs = {}
        for name, fn, acc in cases:
            got = fn()  # warm: kernels built, processes kept
            assert got.shape == ref.shape
            errs[name] = (float(np.max(np.abs(got - ref)) / np.max(np.abs(ref))),
                          per_output_error(acc(H), H, K) if acc is not None else None)
        # Blocks of REPEAT calls, the cases in turn (module doc); ndimage at 31x31 (seconds a
        # call) one call a round.
        for r in range(ROUNDS):
            for name, fn, _ in cases[r % len(cases):] + cases[:r % len(cases)]:
                time.sleep(0.2)
                fn()  # the block's first call pays for what ran before it: not counted
                for _ in range(1 if "ndimage" in name and ks > 15 else REPEAT):
                    t = time.perf_counter()
                    fn()
                    times[name].append(1e3 * (time.perf_counter() - t))
        med = {name: float(np.median(v)) for name, v in times.items()}
        for name, _, _ in cases:
            dev, err = errs[name]
            print("  %2dx%-2d %-30s %9.2f ms  (max diff from clip %.1e)%s" % (
                ks, ks, name, med[name], dev,
                "  worst per-output error %.3g eps" % err if err is not None else ""))
        base = med["clip (Fortran-ordered A)"]
        for name in med:
            if not name.startswith("clip"):
                print("  %2dx%-2d clip is %.2fx faster than %s (aligned A: %.2fx, C-ordered A: "
                      "%.2fx)" % (ks, ks, med[name] / base, name,
                                  med[name] / med["clip (aligned Fortran-ordered A)"],
                                  med[name] / med["clip (C-ordered A)"]))


if __name__ == "__main__":
    what = sys.argv[1:] or ["overhead", "conv2"]
    if "overhead" in what:
        overhead()
    if "conv2" in what:
        conv2()
