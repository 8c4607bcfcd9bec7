"""DeviceArray: data kept on the device, chains that never come back, counters that prove it."""
import numpy as np
import pytest
import scipy.signal

import clipcl
from conftest import close


def test_round_trip_and_properties(rng):
    A = rng.standard_normal((33, 17)).astype(np.complex64)
    G = clipcl.to_device(A)
    assert G.shape == (33, 17) and G.dtype == np.complex64 and G.ndim == 2
    assert G.size == 33 * 17 and G.nbytes == A.nbytes and len(G) == 33
    assert "33x17" in repr(G)
    assert np.array_equal(G.get(), A) and np.array_equal(G.numpy(), A)
    assert np.array_equal(np.asarray(G), A)


def test_chain_stays_on_device(rng):
    app = clipcl.App()
    A = rng.standard_normal((64, 64)).astype(np.float32)
    K = rng.standard_normal((5, 5)).astype(np.float32)
    s0 = app.transfer_stats()
    GA, GK = clipcl.to_device(A, app), clipcl.to_device(K, app)
    s1 = app.transfer_stats()
    assert s1["to_device"] - s0["to_device"] == 2
    C = clipcl.conv2(GA, GK, shape="same")           # DeviceArray in: DeviceArray out
    assert isinstance(C, clipcl.DeviceArray) and C.app is app
    D = clipcl.matmul(C, C, transa="t")
    n = clipcl.norm(D, p="fro")
    s2 = app.transfer_stats()
    # conv2 may read K once on the host to test its rank (the separable path), as in Octave.
    assert s2["to_host"] - s1["to_host"] <= 1
    assert s2["bytes_to_host"] - s1["bytes_to_host"] <= K.nbytes
    assert s2["to_device"] - s1["to_device"] <= 2
    got = n.get()
    s3 = app.transfer_stats()
    assert s3["to_host"] - s2["to_host"] == 1 and s3["bytes_to_host"] - s2["bytes_to_host"] == 4
    c = scipy.signal.convolve2d(A.astype(np.float64), K.astype(np.float64), "same")
    close(got[0, 0], np.linalg.norm(c.T @ c, "fro"), 1e-4)
    for x in (GA, GK, C, D, n):
        x.free()
    assert app.stats()["live_data"] == 0
    app.close()


def test_on_device_flag(rng):
    A = rng.standard_normal((8, 8))
    G = clipcl.matmul(A, A, on_device=True)
    assert isinstance(G, clipcl.DeviceArray)
    close(G.get(), A @ A, 1e-14)
    H = clipcl.matmul(G, G, on_device=False)
    assert isinstance(H, np.ndarray)
    close(H, A @ A @ A @ A, 1e-13)


def test_app_methods_and_context(rng):
    A = rng.standard_normal((5, 5))
    with clipcl.App("cpu") as app:
        assert app.device["type"] == "cpu"
        close(app.matmul(A, A), A @ A, 1e-14)
        G = clipcl.to_device(A, app)
        with pytest.raises(clipcl.InvalidArgumentError, match="another App"):
            clipcl.matmul(G, clipcl.to_device(A))
    # Data outlives its app's close.
    close(G.get(), A, 0)
    with pytest.raises(clipcl.InvalidArgumentError, match="closed"):
        app.matmul(A, A)


def test_freed_array_refused():
    G = clipcl.to_device(np.ones((2, 2)))
    G.free()
    with pytest.raises(clipcl.InvalidArgumentError, match="freed"):
        G.get()
    assert "freed" in repr(G)


def test_devices_listed():
    devs = clipcl.devices()
    assert devs and all(d["index"] >= 1 and d["name"] for d in devs)
    assert clipcl.default_app().device["index"] in [d["index"] for d in devs]


def test_device_times():
    A = np.ones((64, 64), np.float32)
    with clipcl.device_times() as t:
        clipcl.matmul(A, A)
        clipcl.norm(A)
    assert [n for n, _ in t] == ["matmul", "norm"] and all(ms > 0 for _, ms in t)


def test_set_device_replaces_the_default_app():
    old = clipcl.default_app()
    G = clipcl.to_device(np.eye(3))
    new = clipcl.set_device(str(old.device["index"]))
    try:
        assert clipcl.default_app() is new and new is not old
        assert np.array_equal(G.get(), np.eye(3))  # data of the old app stays valid
        assert np.array_equal(clipcl.matmul(np.eye(3), np.eye(3)), np.eye(3))
    finally:
        G.free()


def test_default_app_made_again_after_close():
    clipcl.default_app().close()
    assert np.array_equal(clipcl.matmul(np.eye(2), np.eye(2)), np.eye(2))
