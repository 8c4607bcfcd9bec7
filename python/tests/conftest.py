"""Shared fixtures: the clip tool (CLIP_TOOL, set by ctest), a random generator, a comparison."""
import os
import shutil
import threading

import numpy as np
import pytest


@pytest.fixture(scope="session")
def clip_tool():
    tool = os.environ.get("CLIP_TOOL") or shutil.which("clip")
    if not tool or not os.path.exists(tool):
        pytest.skip("the clip tool is not known (CLIP_TOOL unset)")
    return tool


@pytest.fixture
def rng():
    return np.random.default_rng(48)


def close(got, want, rtol):
    """max |got - want| <= rtol * max |want| (and equal shapes)."""
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    scale = max(float(np.max(np.abs(want))) if want.size else 0.0, 1e-300)
    err = float(np.max(np.abs(got - want))) if want.size else 0.0
    assert err <= rtol * scale, "error %g > %g * %g" % (err, rtol, scale)


def run_threads(work, n=4):
    """work(i) for i in 0..n-1, each in a thread of its own; fails with what any of them raised
    (an exception in a thread would otherwise only be printed)."""
    errors = []

    def guarded(i):
        try:
            work(i)
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=guarded, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
