"""Every built-in process against NumPy/SciPy references."""
import numpy as np
import pytest
import scipy.ndimage
import scipy.signal

import clipcl
from conftest import close

F32 = 5e-6
F64 = 1e-13


def matlab_conv2(A, K, shape):
    """MATLAB's conv2(A, K, shape) from SciPy's full convolution: 'same' is the central part
    starting at floor(size(K)/2) (SciPy centres even kernels the other way), 'valid' is empty
    where K is larger than A (SciPy refuses)."""
    full = scipy.signal.convolve2d(A, K, "full")
    (r, c), (kr, kc) = A.shape, K.shape
    if shape == "full":
        return full
    if shape == "same":
        return full[kr // 2:kr // 2 + r, kc // 2:kc // 2 + c]
    return full[kr - 1:r, kc - 1:c] if r >= kr and c >= kc else np.zeros(
        (max(r - kr + 1, 0), max(c - kc + 1, 0)))


def rand(rng, shape, dtype):
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


@pytest.mark.parametrize("shape", ["full", "same", "valid"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("size,ksize", [((37, 53), (5, 7)), ((8, 9), (11, 4)), ((64, 64), (1, 1))])
def test_conv2_every_shape(rng, shape, dtype, size, ksize):
    A, K = rand(rng, size, dtype), rand(rng, ksize, dtype)
    want = matlab_conv2(A.astype(np.complex128), K.astype(np.complex128), shape)
    if np.dtype(dtype).kind == "f":
        want = want.real
    got = clipcl.conv2(A, K, shape=shape)
    assert got.dtype == np.dtype(dtype)
    close(got, want, F32 * 10 if np.dtype(dtype) in (np.float32, np.complex64) else F64)


def test_conv2_default_shape_is_full(rng):
    A, K = rand(rng, (10, 12), np.float64), rand(rng, (3, 3), np.float64)
    close(clipcl.conv2(A, K), scipy.signal.convolve2d(A, K, "full"), F64)


@pytest.mark.parametrize("pad,mode", [("replicate", "nearest"), ("symmetric", "reflect"),
                                      ("circular", "wrap"), ("zero", "constant")])
def test_conv2_correlate_pads_as_imfilter(rng, pad, mode):
    A, K = rand(rng, (30, 25), np.float64), rand(rng, (5, 3), np.float64)
    got = clipcl.conv2(A, K, shape="same", correlate=True, pad=pad)
    # imfilter's same-size correlation; K's centre is floor((size+1)/2) (1-based) as MATLAB.
    want = scipy.ndimage.correlate(A, K, mode=mode, origin=(-((5 + 1) % 2), -((3 + 1) % 2)))
    close(got, want, F64)


def test_conv2_normalize(rng):
    A, K = rand(rng, (20, 20), np.float64), np.abs(rand(rng, (3, 3), np.float64))
    close(clipcl.conv2(A, K, shape="same", normalize=True),
          scipy.signal.convolve2d(A, K, "same") / K.sum(), F64)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_conv2_high_dynamic_range(rng, dtype):
    # Values spanning 1e-20..1e20 beside each other: every output must be accurate relative to
    # |A| conv |K| there (MATLAB's direct sums), not to the image's largest value.
    A = (rng.random((40, 40)) * 10.0 ** rng.integers(-20, 20, (40, 40))).astype(dtype)
    A[:20] *= 1e-15
    K = (rng.random((7, 7)) + 0.5).astype(dtype)
    got = clipcl.conv2(A, K, shape="same")
    a64, k64 = A.astype(np.float64), K.astype(np.float64)
    want = scipy.signal.convolve2d(a64, k64, "same")
    bound = scipy.signal.convolve2d(np.abs(a64), np.abs(k64), "same")
    eps = np.finfo(dtype).eps
    assert np.all(np.abs(got - want) <= 64 * eps * bound + np.finfo(dtype).tiny)


def test_conv2sep(rng):
    u, v = rand(rng, (5, 1), np.float64), rand(rng, (1, 3), np.float64)
    A = rand(rng, (20, 30), np.float64)
    close(clipcl.conv2sep(u, v, A, shape="same"),
          scipy.signal.convolve2d(A, u @ v, "same"), F64)


@pytest.mark.parametrize("ta", ["n", "t", "c"])
@pytest.mark.parametrize("tb", ["n", "t", "c"])
@pytest.mark.parametrize("dtype", [np.float64, np.complex64])
def test_matmul_transposes(rng, ta, tb, dtype):
    op = {"n": lambda x: x, "t": lambda x: x.T, "c": lambda x: x.conj().T}
    M, K, N = 13, 17, 11
    A = rand(rng, (M, K) if ta == "n" else (K, M), dtype)
    B = rand(rng, (K, N) if tb == "n" else (N, K), dtype)
    got = clipcl.matmul(A, B, transa=ta, transb=tb)
    close(got, op[ta](A.astype(np.complex128)) @ op[tb](B.astype(np.complex128)),
          1e-5 if dtype == np.complex64 else F64)


def test_matmul_promotes_as_matlab(rng):
    A, B = rand(rng, (4, 5), np.float32), rand(rng, (5, 3), np.complex128)
    C = clipcl.matmul(A, B)
    assert C.dtype == np.complex64  # single wins, complex if either is
    close(C, A.astype(np.complex128) @ B, 1e-5)


@pytest.mark.parametrize("p", [0, 1, 2, 5, 13])
def test_matpow(rng, p):
    A = rand(rng, (9, 9), np.float64) / 3
    close(clipcl.matpow(A, power=p), np.linalg.matrix_power(A, p), 1e-12)


@pytest.mark.parametrize("p", [1, 2, 3.5, np.inf, -np.inf])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
def test_norm_vector(rng, p, dtype):
    v = rand(rng, (1000,), dtype)
    got = clipcl.norm(v, p=p)
    assert got.shape == (1, 1)
    assert abs(got[0, 0] - np.linalg.norm(v.astype(np.complex128), p)) <= \
        (1e-5 if dtype == np.float32 else 1e-12) * np.linalg.norm(v.astype(np.complex128), p)


@pytest.mark.parametrize("p", [1, 2, np.inf, "fro"])
def test_norm_matrix(rng, p):
    A = rand(rng, (30, 20), np.float64)
    close(clipcl.norm(A, p=p)[0, 0], np.linalg.norm(A, p), 1e-12)


def test_vecnorm_dim(rng):
    A = rand(rng, (30, 20), np.float64)
    close(clipcl.norm(A, p=2, dim=1), np.linalg.norm(A, 2, axis=0, keepdims=True), 1e-12)
    close(clipcl.norm(A, p=1, dim=2), np.linalg.norm(A, 1, axis=1, keepdims=True), 1e-12)


def test_dot_conjugates_first(rng):
    a, b = rand(rng, (100,), np.complex128), rand(rng, (100,), np.complex128)
    close(clipcl.dot(a, b)[0, 0], np.vdot(a, b), 1e-12)


def test_scale_and_transpose(rng):
    X = rand(rng, (6, 7), np.complex64)
    close(clipcl.scale(X, a=2.5, b=-1), 2.5 * X - 1, 1e-6)
    close(clipcl.transpose(X), X.T, 0)
    close(clipcl.transpose(X, conjugate=True), X.conj().T, 0)


def test_generic_call_and_registry():
    assert {"conv2", "matmul", "norm", "matpow", "dot"} <= set(clipcl.processes())
    close(clipcl.call("matmul", np.eye(3), np.arange(9.0).reshape(3, 3)),
          np.arange(9.0).reshape(3, 3), 0)
