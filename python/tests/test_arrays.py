"""dtypes, shapes and layouts: what goes in as it lies, what is converted, what is refused."""
import numpy as np
import pytest

import clipcl
from clipcl._arrays import as_clip_array
from conftest import close


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_clip_types_go_in_as_they_lie(dtype):
    a = np.asfortranarray(np.arange(12).reshape(3, 4).astype(dtype))
    assert as_clip_array(a) is a  # no host copy of a Fortran-ordered array
    b = np.arange(12).reshape(3, 4).astype(dtype)  # C order: one copy into Fortran order
    c = as_clip_array(b)
    assert c.flags.f_contiguous and not np.shares_memory(b, c)
    assert np.array_equal(c, b)


@pytest.mark.parametrize("dtype,to", [(np.bool_, np.float32), (np.int8, np.float32),
                                      (np.uint8, np.float32), (np.int16, np.float32),
                                      (np.uint16, np.float32), (np.float16, np.float32),
                                      (np.int32, np.float64), (np.uint32, np.float64),
                                      (np.int64, np.float64), (np.uint64, np.float64)])
def test_integers_convert_as_clips_loaders(dtype, to):
    a = np.array([[1, 0], [1, 1]], dtype=dtype)
    got = clipcl.matmul(a, a)
    assert got.dtype == to
    close(got, a.astype(np.float64) @ a.astype(np.float64), 0)


def test_int32_extremes_exact():
    a = np.array([[2**31 - 1]], np.int32)
    assert clipcl.scale(a, a=1.0)[0, 0] == 2**31 - 1


@pytest.mark.parametrize("bad", [np.array([["a"]]), np.array([[object()]], dtype=object),
                                 np.array([[np.datetime64("2020-01-01")]])])
def test_unsupported_dtypes_refused(bad):
    with pytest.raises(clipcl.ElementTypeError, match="dtype"):
        clipcl.scale(bad)


def test_too_many_dims():
    with pytest.raises(clipcl.DimsError, match="at most 8"):
        clipcl.scale(np.zeros((1,) * 9))


def test_shapes_mean_matlab():
    v = np.arange(5.0)
    assert clipcl.scale(v).shape == (5, 1)          # 1-D: a column
    assert clipcl.scale(np.float64(3)).shape == (1, 1)
    assert clipcl.scale(3.0).shape == (1, 1)        # a Python scalar: a 1x1 double
    A = np.arange(6.0).reshape(2, 3)                # (r, c): r x c, whatever the order
    assert clipcl.transpose(A).shape == (3, 2)
    assert np.array_equal(clipcl.transpose(A), A.T)
    X = np.arange(24.0).reshape(2, 3, 4)
    assert np.array_equal(clipcl.scale(X, a=2), 2 * X)
    assert clipcl.scale(np.zeros((3, 0))).shape == (3, 0)


def test_strided_and_lists():
    A = np.arange(100.0).reshape(10, 10)[::2, 1::3]
    assert np.array_equal(clipcl.scale(A), A)
    assert np.array_equal(clipcl.matmul([[1.0, 2.0]], [[3.0], [4.0]]), [[11.0]])


def test_results_are_fortran_ordered_and_writable():
    C = clipcl.matmul(np.ones((300, 200)), np.ones((200, 100)))
    assert C.flags.f_contiguous and C.flags.writeable and C.shape == (300, 100)
    assert np.all(C == 200)


def test_same_array_twice():
    A = np.asfortranarray(np.arange(16.0).reshape(4, 4))
    close(clipcl.matmul(A, A), A @ A, 1e-15)
