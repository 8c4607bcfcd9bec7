"""Every clip status is an exception class with the status's name and clip's message, and every
path that raises one is exercised here."""
import os

import numpy as np
import pytest

import clipcl
from clipcl import _errors


def test_every_status_has_a_class():
    names = set()
    for status, cls in _errors.BY_STATUS.items():
        e = _errors.error(status, "the message")
        assert isinstance(e, cls) and isinstance(e, clipcl.ClipError)
        assert e.status == status and e.status_name.startswith("CLIP_ERR_")
        assert str(e) == "%s: the message" % e.status_name and e.message == "the message"
        assert getattr(clipcl, cls.__name__) is cls
        names.add(e.status_name)
    assert len(names) == len(_errors.BY_STATUS) == 25  # CLIP_ERR_INVALID_ARG .. CLIP_ERR_DIMS
    assert isinstance(_errors.error(999, "x"), clipcl.ClipError)
    # Python's families: a caller may catch the built-in class.
    assert issubclass(clipcl.ShapeError, ValueError)
    assert issubclass(clipcl.FileIOError, OSError)
    assert issubclass(clipcl.OutOfMemoryError, MemoryError)
    assert issubclass(clipcl.UnknownParamError, TypeError)


A = np.ones((3, 4))


@pytest.mark.parametrize("call,cls,text", [
    (lambda: clipcl.matmul(A, A), clipcl.InnerDimError, "matmul"),
    (lambda: clipcl.matpow(A, power=2), clipcl.NotSquareError, "square"),
    (lambda: clipcl.matpow(np.eye(2), power=1.5), clipcl.BadPowerError, "power"),
    (lambda: clipcl.matpow(np.eye(2), power=-1), clipcl.BadPowerError, "power"),
    (lambda: clipcl.norm(np.ones(3), p=0), clipcl.BadNormOrderError, "p must be"),
    (lambda: clipcl.dot(np.ones(3), np.ones(4)), clipcl.LengthMismatchError, "dot"),
    (lambda: clipcl.conv2(A, np.ones((2, 2, 2))), clipcl.ShapeError, "conv2"),
    (lambda: clipcl.conv2(A, A, shape="middle"), clipcl.BadChoiceError, "middle"),
    (lambda: clipcl.norm(A, dim=9), clipcl.ParamRangeError, "dim"),
    (lambda: clipcl.norm(A, p="one"), clipcl.BadChoiceError, "one"),
    (lambda: clipcl.conv2(A, A, correlate=[1]), clipcl.ParamTypeError, "correlate"),
    (lambda: clipcl.call("no_such_process", A), clipcl.UnknownProcessError, "no_such_process"),
    (lambda: clipcl.scale(np.array([["x"]])), clipcl.ElementTypeError, "dtype"),
    (lambda: clipcl.scale(np.zeros((1,) * 9)), clipcl.DimsError, "8"),
    (lambda: clipcl.matmul(np.ones((1 << 20, 1), np.float32), np.ones((1, 1 << 20), np.float32)),
     clipcl.OutOfMemoryError, ""),
])
def test_process_errors(call, cls, text):
    with pytest.raises(cls) as e:
        call()
    assert text in str(e.value) and e.value.status_name in str(e.value)
    # The app stays usable after any failure.
    assert clipcl.matmul(np.eye(2), np.eye(2))[1, 1] == 1


def test_unknown_keyword_is_a_type_error():
    with pytest.raises(TypeError):
        clipcl.conv2(A, A, bogus=1)


def test_device_errors():
    with pytest.raises(clipcl.InvalidArgumentError, match="device spec"):
        clipcl.App("1,1")
    with pytest.raises(clipcl.NoDeviceError):
        clipcl.App("no device is called this")
    with clipcl.App(fp64=False) as app:
        with pytest.raises(clipcl.NoFP64Error):
            app.matmul(np.eye(2), np.eye(2))
        assert app.matmul(np.eye(2, dtype=np.float32), np.eye(2, dtype=np.float32))[0, 0] == 1


def test_file_errors(tmp_path):
    with pytest.raises(clipcl.FileIOError, match="missing.png"):
        clipcl.load(tmp_path / "missing.png")
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n not a png at all")
    if clipcl.has_format("png"):
        with pytest.raises(clipcl.FormatError):
            clipcl.load(bad)
        with pytest.raises(clipcl.ElementTypeError):
            clipcl.save(tmp_path / "c.png", np.ones((2, 2), np.complex64))
        with pytest.raises(clipcl.DimsError):
            clipcl.save(tmp_path / "five.png", np.ones((2, 2, 5)))
        assert not os.path.exists(tmp_path / "five.png")
    with pytest.raises(clipcl.UnsupportedError, match="xyz"):
        clipcl.save(tmp_path / "a.xyz", np.ones((2, 2)))
    with pytest.raises(clipcl.InvalidArgumentError, match="sample"):
        clipcl.save(tmp_path / "a.png", np.ones((2, 2)), sample="u12")


def test_device_array_of_another_app_than_app_kw():
    with clipcl.App() as a, clipcl.App() as b:
        G = clipcl.to_device(np.eye(2), a)
        with pytest.raises(clipcl.InvalidArgumentError, match="app="):
            clipcl.matmul(G, G, app=b)


def test_mat_variable_missing(tmp_path):
    if not clipcl.has_format("mat"):
        pytest.skip("clip built without MAT")
    clipcl.save(tmp_path / "a.mat", np.eye(2), var="x")
    with pytest.raises(clipcl.ClipError, match="nope"):
        clipcl.load(tmp_path / "a.mat", var="nope")


def test_library_missing_is_an_import_error():
    import subprocess
    import sys
    env = dict(os.environ, CLIP_LIBRARY="/nonexistent/libclip.so.0")
    p = subprocess.run([sys.executable, "-c", "import clipcl"], capture_output=True, text=True,
                       env=env, timeout=60)
    assert p.returncode != 0 and "ImportError" in p.stderr and "CLIP_LIBRARY" in p.stderr
