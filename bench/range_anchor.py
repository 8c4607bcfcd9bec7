"""cuBLAS SGEMM and cuDNN conv2d (fp32, TF32 off, through PyTorch) on the data of range_bench.c:
ordinary, a few NaN/Inf, near-FLT_MAX, subnormal and ~1e-36 operands. Prints the median time and,
for the finite kinds, the error of 64 rows (GEMM) or of the whole output (conv2) against a
float64 reference, in eps = 2^-24 of sum |a||b| at each output (largest and mean).
Run on the GPU machine: python3 bench/range_anchor.py [quick | fltmax | rows]"""
import statistics, sys, time
import torch

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
FMAX = torch.finfo(torch.float32).max


def median_ms(f, reps=5):
    f(); torch.cuda.synchronize()
    ts = []
    for _ in range(7):
        t = time.perf_counter()
        for _ in range(reps): f()
        torch.cuda.synchronize(); ts.append((time.perf_counter() - t) / reps * 1e3)
    return statistics.median(ts)


def make(kind, a, b, conv):
    na, nb = a.numel(), b.numel()
    fa, fb = a.view(-1), b.view(-1)
    if kind == "nan":
        fa[na // 7] = fa[na // 3 + 5] = fa[na - 9] = float("nan")
        fa[na // 2 + 11] = fa[na // 5] = float("inf")
        if not conv: fb[nb // 3] = fb[nb // 2 + 3] = float("-inf")
    elif kind == "fltmax":
        fa[na // 7] = fa[na // 2 + 1] = 0.9 * FMAX
        fa[na // 3] = fa[na - 77] = -0.9 * FMAX
    elif kind == "subA": a *= 2.0 ** -130; b *= 2.0 ** 33
    elif kind == "subB": a *= 2.0 ** 33; b *= 2.0 ** -130
    elif kind == "tiny": a *= 2.0 ** -120; b *= 2.0 ** 30
    elif kind == "nanrow":  # 16 NaN in row 5 of A
        n = a.shape[-1]
        for q in range(16): a.view(-1, n)[5, q * (n // 16)] = float("nan")
    elif kind == "widerow":  # row 7 of A spans 2^-140 to 2^100
        n = a.shape[-1]
        a.view(-1, n)[7, 3] = 2.0 ** -140; a.view(-1, n)[7, n // 2] = 2.0 ** 100


def err(out, ref, absum):
    ok = torch.isfinite(ref) & (absum > 0)
    e = ((out.double() - ref).abs() / absum)[ok] * 2.0 ** 24
    return e.max().item(), e.mean().item()


quick = "quick" in sys.argv[1:]  # the cases scripts/gpu-range.sh QUICK=1 times
fltmax = "fltmax" in sys.argv[1:]  # ordinary and near-FLT_MAX data at 8192^2 (conv2) only
rows = "rows" in sys.argv[1:]  # SGEMM 4096 and 8192 on ordinary data, nanrow and widerow only
kinds = ["normal", "nan", "fltmax", "subA", "subB", "tiny"]
g = torch.Generator(device="cuda").manual_seed(1)
for n in [4096, 8192] if rows else [4096]:
    for kind in ["normal", "nanrow", "widerow"] if rows else ["normal"] if fltmax else \
            kinds[:4] if quick else kinds:
        a = torch.rand(n, n, device="cuda", generator=g) * 2 - 1
        b = torch.rand(n, n, device="cuda", generator=g) * 2 - 1
        make(kind, a, b, False)
        t = median_ms(lambda: a @ b)
        c = a @ b
        msg = ""
        if kind not in ("nan", "nanrow"):
            ra = a[:64].double()
            ref = ra @ b.double(); absum = ra.abs() @ b.double().abs()
            mx, mean = err(c[:64], ref, absum)
            msg = f" err max {mx:.3g} mean {mean:.3g} eps (64 rows)"
        nf = (~torch.isfinite(c)).sum().item()
        print(f"cublas sgemm {n}^3 {kind:6s} median_ms={t:.4f}{msg} non-finite {nf}", flush=True)
convs = [] if rows else [(8192, [15, 31], ["normal", "fltmax"])] if fltmax else \
    [(4096, [31], ["normal", "subA"]), (8192, [15, 31], ["normal", "nan"])] if quick else \
    [(4096, [15, 31], kinds), (8192, [15, 31, 63], kinds)]
for n, ks, kk in convs:
    for k in ks:
        for kind in kk:
            x = torch.rand(1, 1, n, n, device="cuda", generator=g) * 2 - 1
            w = torch.rand(1, 1, k, k, device="cuda", generator=g) * 2 - 1
            make(kind, x, w, True)
            f = lambda: torch.nn.functional.conv2d(x, w, padding=k // 2)
            t = median_ms(f, reps=3)
            msg = ""
            if kind != "nan" and n == 4096:
                y = f()
                ref = torch.nn.functional.conv2d(x.double(), w.double(), padding=k // 2)
                absum = torch.nn.functional.conv2d(x.double().abs(), w.double().abs(), padding=k // 2)
                mx, mean = err(y, ref, absum)
                msg = f" err max {mx:.3g} mean {mean:.3g} eps"
            print(f"cudnn conv2d n={n} k={k} {kind:6s} median_ms={t:.4f}{msg}", flush=True)
