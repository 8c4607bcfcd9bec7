"""The binding against the library: every declared function exists, and the generated functions
follow the descriptor table exactly as `clip help` prints it."""
import inspect
import re
import subprocess

import numpy as np
import pytest

import clipcl
from clipcl import _ffi


def test_every_declared_function_is_exported():
    names = re.findall(r"\b(clip_\w+)\(", _ffi.CDEF + _ffi.CDEF_INTROSPECTION)
    assert len(names) > 50
    missing = [n for n in names if not hasattr(_ffi.lib, n)]
    assert not missing, missing


def test_struct_layouts_read_right():
    # clip_device_info's fields after the five 128-byte strings, and clip_transfer_stats's.
    d = clipcl.default_app().device
    assert d["type"] in ("gpu", "cpu", "accelerator") and d["compute_units"] >= 1
    assert d["global_mem"] >= d["max_alloc"] > 0 and d["score"] > 0
    st = clipcl.transfer_stats()
    assert set(st) >= {"to_device", "bytes_to_device", "bytes_between_devices"}


@pytest.mark.parametrize("name", ["conv2", "matmul", "norm", "matpow", "dot", "scale",
                                  "transpose", "conv2sep"])
def test_functions_follow_the_table(clip_tool, name):
    fn = getattr(clipcl, name)
    info = fn.descriptor
    help_cli = subprocess.run([clip_tool, "help", name], capture_output=True, text=True,
                              check=True).stdout
    assert help_cli.strip() in fn.__doc__  # the docstring is `clip help NAME`
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())
    n_in = len(info["inputs"])
    assert [p.name for p in params[:n_in]] == [n for n, _ in info["inputs"]]
    assert all(p.default is inspect.Parameter.empty for p in params[:n_in])
    by_name = {p.name: p for p in params}
    for p in info["params"]:
        assert p["name"] in help_cli
        sp = by_name[p["name"]]
        want_kind = inspect.Parameter.KEYWORD_ONLY if p["expert"] else \
            inspect.Parameter.POSITIONAL_OR_KEYWORD
        assert sp.kind == want_kind, p["name"]
        shown = repr(sp.default)
        assert shown == ("None" if p["auto"] else repr(p["default"])), (p["name"], shown)
        if p["kind"] == "choice":
            assert p["default"] in p["choices"]
    assert list(by_name)[-2:] == ["on_device", "app"]


def test_expert_and_auto_flags_seen():
    m = clipcl.matmul.descriptor["params"]
    assert any(p["expert"] for p in m) and any(not p["expert"] for p in m)
    assert any(p["auto"] for p in m)
    assert inspect.signature(clipcl.matmul).parameters["mwg"].kind == inspect.Parameter.KEYWORD_ONLY


def test_positional_parameters():
    A = np.arange(12.0).reshape(3, 4)
    assert np.array_equal(clipcl.conv2(A, np.ones((1, 1)), "valid"), A)
    assert np.allclose(clipcl.norm(A, "fro"), np.linalg.norm(A, "fro"))
    assert np.allclose(clipcl.matmul(A, A, "t"), A.T @ A)
