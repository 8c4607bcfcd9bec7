"""Kept processes (clip_process_rebind): a repeated call or chain inits once, keeps giving the
right values on new data, inits again when an input whose values init read changes, and the
cache stays bounded."""
import numpy as np
import pytest
import scipy.signal

import clipcl
from clipcl import _call

from conftest import close, run_threads


def conv2_same(A, K):
    return scipy.signal.convolve2d(A, K, "same")


def test_repeated_calls_init_once(rng):
    with clipcl.App() as app:
        K = rng.standard_normal((5, 7))
        for i in range(6):
            A = rng.standard_normal((40, 33))
            close(clipcl.conv2(A, K, shape="same", app=app), conv2_same(A, K), 1e-12)
        st = app.stats()
        assert st["inits"] == 1, st
        assert st["rebinds"] == 6 and st["rebind_inits"] == 0, st
        # Another shape is another kept process: one more init.
        A = rng.standard_normal((41, 33))
        close(clipcl.conv2(A, K, shape="same", app=app), conv2_same(A, K), 1e-12)
        assert app.stats()["inits"] == 2


def test_chain_on_device_inits_once_and_keeps_old_results(rng):
    with clipcl.App() as app:
        K = clipcl.to_device(rng.standard_normal((3, 3)), app)
        kept = []
        for i in range(4):
            Ah = rng.standard_normal((24, 24))
            A = clipcl.to_device(Ah, app)
            C = clipcl.conv2(A, K, shape="same")
            D = clipcl.matmul(C, C)
            y = clipcl.norm(D, "fro")
            Cw = conv2_same(Ah, K.get())
            kept.append((C, D, y, Cw))
        for C, D, y, Cw in kept:  # each round's results are its own, not overwritten later
            close(C.get(), Cw, 1e-12)
            close(D.get(), Cw @ Cw, 1e-12)
            close(y.get(), [[np.linalg.norm(Cw @ Cw, "fro")]], 1e-12)
        st = app.stats()
        assert st["inits"] == 3 and st["rebind_inits"] == 0, st
        del kept, C, D, y, A, K
        assert app.stats()["live_data"] == 0


def test_values_init_read_change_inits_again(rng):
    """separable='on' reads K's values in init (its rank-one factors): another K inits again,
    an equal K in another array does not, and a K that is not rank one fails as init does."""
    with clipcl.App() as app:
        # Fortran order: C-ordered inputs take the transposed path, whose failed call runs
        # again untransposed (its error then names the given shapes) and so counts two inits.
        A = np.asfortranarray(rng.standard_normal((30, 20)))
        u, v = rng.standard_normal(5) + 3.0, rng.standard_normal(3)
        K1, K2 = np.outer(u, v), np.outer(v[::-1].sum() + u, v)
        close(clipcl.conv2(A, K1, shape="same", separable="on", app=app), conv2_same(A, K1),
              1e-12)
        close(clipcl.conv2(A, K2, shape="same", separable="on", app=app), conv2_same(A, K2),
              1e-12)
        assert app.stats()["rebind_inits"] == 1
        close(clipcl.conv2(A, K2.copy(), shape="same", separable="on", app=app),
              conv2_same(A, K2), 1e-12)
        assert app.stats()["rebind_inits"] == 1
        with pytest.raises(clipcl.ParamRangeError, match="not rank one"):
            clipcl.conv2(A, rng.standard_normal((5, 3)), shape="same", separable="on", app=app)
        # The failed rebind left no init: the next call inits afresh and is right.
        close(clipcl.conv2(A, K1, shape="same", separable="on", app=app), conv2_same(A, K1),
              1e-12)
        assert app.stats()["inits"] == 2


def test_cache_is_bounded(rng):
    with clipcl.App() as app:
        for n in range(1, _call.KEPT + 6):
            A = rng.standard_normal((n, 2))
            close(clipcl.scale(A, a=2.0, app=app), 2 * A, 0)
        assert app.stats()["kept_processes"] == _call.KEPT
        # The oldest were destroyed: calling it again inits again, and is right.
        A = rng.standard_normal((1, 2))
        before = app.stats()["inits"]
        close(clipcl.scale(A, a=2.0, app=app), 2 * A, 0)
        assert app.stats()["inits"] == before + 1


def test_threads_share_kept_processes(rng):
    K = rng.standard_normal((5, 5))
    inputs = [rng.standard_normal((64, 48)) for _ in range(4)]
    wants = [conv2_same(A, K) for A in inputs]

    def work(i):
        for _ in range(25):
            got = clipcl.conv2(inputs[i], K, shape="same")
            np.testing.assert_allclose(got, wants[i], rtol=0, atol=1e-12)

    run_threads(work)


def test_out_of_memory_drops_the_other_kept_processes(rng, monkeypatch):
    """Kept processes hold their inits' temporaries: a call that runs out of memory destroys
    the others and tries once more (here it fails again: the data alone is over the limit)."""
    monkeypatch.setenv("CLIP_TEST_MAX_ALLOC", "16384")  # read when the App is made
    with clipcl.App() as app:
        monkeypatch.delenv("CLIP_TEST_MAX_ALLOC")
        for n in (2, 3, 4):
            A = rng.standard_normal((n, n))
            close(clipcl.scale(A, a=2.0, app=app), 2 * A, 0)
        assert app.stats()["kept_processes"] == 3
        with pytest.raises(clipcl.OutOfMemoryError, match="largest allocation"):
            clipcl.matpow(rng.standard_normal((64, 64)), 2, app=app)  # 32 KiB, no plan
        st = app.stats()
        assert st["evictions"] == 3 and st["kept_processes"] == 1, st
        A = rng.standard_normal((2, 2))
        close(clipcl.scale(A, a=2.0, app=app), 2 * A, 0)


def test_result_larger_than_the_machine_refused(rng, monkeypatch):
    from clipcl import _arrays
    monkeypatch.setattr(_arrays, "HOST_MEMORY", 100000)
    with clipcl.App() as app:
        with pytest.raises(clipcl.OutOfMemoryError, match="larger than this machine's memory"):
            clipcl.matmul(np.ones((200, 1)), np.ones((1, 200)), app=app)  # 320000 bytes
        assert app.stats()["live_data"] == 0


def _wraps_in_place(app, a):
    """Whether app's device works on a (an aligned clipcl.empty array) in place."""
    from clipcl import _arrays
    from clipcl._ffi import lib
    d = _arrays.wrap(app, a)
    try:
        return bool(lib.clip_data_in_place(d))
    finally:
        app._free_data(d)


def test_numpy_results_written_in_place_and_kept(rng):
    """Large NumPy results (aligned by clipcl.empty) are the memory the kept process writes:
    each call's rebind gives it a new array, earlier results keep their values after later calls
    and after their inputs are collected, and where the device works on host memory making them
    current copies (and counts) nothing; a DeviceArray result still costs one counted copy on
    get()."""
    import gc
    K = rng.standard_normal((3, 5)).astype(np.float32)
    with clipcl.App() as app:
        probe = clipcl.empty((160, 128), np.float32)
        in_place = _wraps_in_place(app, probe)
        if app.device["type"] == "cpu" and "pthread" in app.device["name"]:
            assert in_place  # PoCL's CPU device shares host memory
        kept, refs = [], []
        for i in range(4):
            A = clipcl.asfortranarray(rng.standard_normal((160, 128)).astype(np.float32))
            before = app.stats()
            R = clipcl.conv2(A, K, shape="same", app=app)
            after = app.stats()
            assert R.flags.f_contiguous and R.flags.writeable and R.dtype == np.float32
            assert R.ctypes.data % 4096 == 0  # clipcl.empty's alignment: wrapped in place
            moved = after["bytes_to_host"] - before["bytes_to_host"]
            assert moved == (0 if in_place else R.nbytes), (moved, in_place)
            assert after["inits"] == (1 if i == 0 else before["inits"]), after
            kept.append(R)
            refs.append(conv2_same(A.astype(np.float64), K.astype(np.float64)))
            del A
            gc.collect()
        assert len({r.ctypes.data for r in kept}) == len(kept)  # a new array every call
        for R, ref in zip(kept, refs):
            close(R, ref, 1e-5)
        # The caller owns the results: writing one changes neither another nor the next call.
        kept[0][...] = 7.0
        close(kept[1], refs[1], 1e-5)
        A = clipcl.asfortranarray(rng.standard_normal((160, 128)).astype(np.float32))
        close(clipcl.conv2(A, K, shape="same", app=app), conv2_same(A, K), 1e-5)
        # DeviceArray path: the result stays on the device until get(), one counted copy.
        G = clipcl.conv2(A, K, shape="same", app=app, on_device=True)
        before = app.stats()
        close(G.get(), conv2_same(A, K), 1e-5)
        after = app.stats()
        assert after["to_host"] - before["to_host"] == 1
        assert after["bytes_to_host"] - before["bytes_to_host"] == G.nbytes
        G.free()
