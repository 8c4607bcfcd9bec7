"""C-ordered (row-major) inputs of a process that transposes (clip_process_desc_transposes) go
in as the transposed matrices their memory holds, with no copy, and come back transposed."""
import numpy as np
import pytest
import scipy.signal

import clipcl
from clipcl import _arrays
from conftest import close
from test_processes import matlab_conv2, rand


@pytest.fixture
def no_copy(monkeypatch):
    """Makes the binding's transposing copy fail: a call that still needs it raises."""
    def refuse(a):
        raise AssertionError("transposing copy of a %s array" % (a.shape,))
    monkeypatch.setattr(_arrays, "asfortranarray", refuse)


def test_the_descriptors_say_which_transpose():
    flags = {n: getattr(clipcl, n).descriptor["transposes"]
             for n in ("conv2", "matpow", "transpose", "scale", "matmul", "norm", "dot",
                       "conv2sep")}
    assert flags == {"conv2": True, "matpow": True, "transpose": True, "scale": True,
                     "matmul": False, "norm": False, "dot": False, "conv2sep": False}
    assert "transposes:" in clipcl.conv2.__doc__ and "transposes:" not in clipcl.matmul.__doc__


@pytest.mark.parametrize("shape", ["full", "same", "valid"])
@pytest.mark.parametrize("dtype", [np.float32, np.complex64, np.float64])
@pytest.mark.parametrize("size,ksize", [((37, 23), (4, 6)), ((20, 31), (5, 2)), ((9, 8), (3, 3))])
def test_conv2_row_major_without_a_copy(rng, no_copy, shape, dtype, size, ksize):
    A, K = rand(rng, size, dtype), rand(rng, ksize, dtype)
    assert A.flags.c_contiguous and not A.flags.f_contiguous
    got = clipcl.conv2(A, K, shape=shape)
    want = matlab_conv2(A.astype(np.complex128), K.astype(np.complex128), shape)
    assert got.shape == want.shape and got.dtype == A.dtype and got.flags.c_contiguous
    # Per output, within a small multiple of fp32/fp64 FMA's bound: eps * taps * (|A| conv |K|).
    bound = matlab_conv2(np.abs(A).astype(np.float64), np.abs(K).astype(np.float64), shape)
    eps = np.finfo(np.float32 if dtype in (np.float32, np.complex64) else np.float64).eps
    assert np.all(np.abs(got - want) <= 4 * eps * K.size * bound + 1e-300)


def test_matpow_transpose_and_scale_row_major(rng, no_copy):
    A = rand(rng, (9, 9), np.float64) / 3
    close(clipcl.matpow(A, power=5), np.linalg.matrix_power(A, 5), 1e-12)
    S = rand(rng, (5, 8), np.complex64)
    got = clipcl.scale(S, a=2.5, b=-1)
    assert got.flags.c_contiguous
    close(got, 2.5 * S - 1, 1e-6)
    X = rand(rng, (6, 7), np.complex128)
    assert np.array_equal(clipcl.transpose(X), X.T)
    assert np.array_equal(clipcl.transpose(X, conjugate=True), X.conj().T)


def test_other_processes_still_copy(rng, no_copy):
    """matmul does not transpose (A*B's transpose is B.'*A.'): its C-ordered input is copied."""
    with pytest.raises(AssertionError, match="transposing copy"):
        clipcl.matmul(rand(rng, (5, 4), np.float64), rand(rng, (4, 3), np.float64))


def test_mixed_orders_take_the_copy(rng):
    """One input in Fortran order only: the usual path, with the same values."""
    A = rand(rng, (30, 20), np.float64)
    K = np.asfortranarray(rand(rng, (4, 5), np.float64))
    got = clipcl.conv2(A, K, shape="same")
    close(got, matlab_conv2(A, K, "same"), 1e-13)
    assert got.flags.f_contiguous


def test_device_results_keep_their_shape(rng):
    A, K = rand(rng, (30, 20), np.float32), rand(rng, (3, 5), np.float32)
    D = clipcl.conv2(A, K, shape="full", on_device=True)
    assert D.shape == (32, 24)
    close(D.get(), scipy.signal.convolve2d(A, K, "full"), 1e-5)


def test_errors_name_the_given_shapes(rng):
    """A call that fails transposed runs again as given, so the message has the caller's shapes."""
    with pytest.raises(clipcl.ClipError, match="it is 2x3"):
        clipcl.matpow(rand(rng, (2, 3), np.float64), power=2)


def test_one_dimensional_and_3d_inputs_are_not_transposed(rng):
    A = rand(rng, (6, 5, 2), np.float64)
    K = rand(rng, (2, 2), np.float64)
    got = clipcl.conv2(A, K, shape="same")
    for c in range(2):
        close(got[:, :, c], matlab_conv2(A[:, :, c], K, "same"), 1e-13)
    u = rand(rng, (7,), np.float64)
    close(clipcl.conv2(u, K), matlab_conv2(u[:, None], K, "full"), 1e-13)


def _past_alignment(a, order):
    """A copy of a in `order` whose data start 16 bytes past a 128-byte boundary, as NumPy's own
    large arrays do (16 past a page)."""
    raw = np.empty(a.nbytes + 256, np.uint8)
    at = (-raw.ctypes.data) % 128 + 16
    x = raw[at:at + a.nbytes].view(a.dtype).reshape(a.shape, order=order)
    x[...] = a
    return x


def test_numpy_memory_read_in_place_by_conv2(rng):
    """NumPy's own large arrays lie 16 bytes past a page, less aligned than PoCL's buffers: conv2
    reads them in place all the same (clip_proc_input_view), with the values of an aligned copy
    and no more host->device bytes than it (PoCL: K's alone), in either order."""
    A = rand(rng, (300, 200), np.float32)
    K0 = rand(rng, (5, 4), np.float32)
    K = _past_alignment(K0, "F")  # K alike in every call: its upload is counted alike
    with clipcl.App() as app:
        s0 = app.transfer_stats()
        want = clipcl.conv2(clipcl.asfortranarray(A), K, shape="same", app=app)
        aligned_bytes = app.transfer_stats()["bytes_to_device"] - s0["bytes_to_device"]
        for order, KX in (("F", K), ("C", _past_alignment(K0, "C"))):
            X = _past_alignment(A, order)
            s0 = app.transfer_stats()
            got = clipcl.conv2(X, KX, shape="same", app=app)
            assert app.transfer_stats()["bytes_to_device"] - s0["bytes_to_device"] == aligned_bytes
            if X.flags.f_contiguous:
                assert np.array_equal(got, want)
            else:
                close(got, want, 1e-6)


def test_device_results_wait_for_memory_read_in_place(rng):
    """A call that keeps its results on the device returns before its work is done, except where
    that work reads the caller's memory in place: the NumPy array conv2 reads through a view must
    be free to change once the call returns (the result may not see the change)."""
    A0 = rand(rng, (2048, 1024), np.float32)
    K = _past_alignment(rand(rng, (31, 31), np.float32), "F")
    X = _past_alignment(A0, "F")
    with clipcl.App() as app:
        want = clipcl.conv2(clipcl.asfortranarray(A0), K, shape="same", app=app)
        D = clipcl.conv2(X, K, shape="same", on_device=True, app=app)
        X[...] = np.nan  # the caller reuses its array at once
        assert np.array_equal(D.get(), want)
