"""Files through clip's loaders, and the same values as the `clip` tool for the same inputs."""
import os
import subprocess

import numpy as np
import pytest
import scipy.io

import clipcl


def need(fmt):
    if not clipcl.has_format(fmt):
        pytest.skip("clip built without %s" % fmt)


@pytest.mark.parametrize("ext,dtype", [(".mat", np.float64), (".mat", np.complex64),
                                       (".tif", np.float32), (".cfl", np.complex64)])
def test_round_trip(tmp_path, rng, ext, dtype):
    need({".mat": "mat", ".tif": "tiff", ".cfl": "cfl"}[ext])
    A = rng.standard_normal((7, 5, 3)).astype(dtype)
    if np.dtype(dtype).kind == "c":
        A = A + 1j * rng.standard_normal(A.shape).astype(dtype)
    path = tmp_path / ("a" + ext)
    clipcl.save(path, A)
    B = clipcl.load(path)
    assert B.dtype == A.dtype and B.shape == A.shape and np.array_equal(A, B)
    G = clipcl.load(path, on_device=True)
    assert isinstance(G, clipcl.DeviceArray) and np.array_equal(G.get(), A)


def test_png_8_and_16_bit(tmp_path):
    need("png")
    img = np.arange(48, dtype=np.float32).reshape(4, 4, 3) * 5
    clipcl.save(tmp_path / "a.png", img)
    assert np.array_equal(clipcl.load(tmp_path / "a.png"), img)  # raw 0..255 values, float32
    clipcl.save(tmp_path / "b.png", img * 100, sample="u16")
    assert np.array_equal(clipcl.load(tmp_path / "b.png"), img * 100)


def test_saves_keep_values_or_refuse(tmp_path):
    need("png")
    wide = np.array([[0, 70000.0], [3, 4]])
    with pytest.raises(clipcl.ElementTypeError, match="70000|65535"):
        clipcl.save(tmp_path / "w.png", wide, sample="u16")
    assert not (tmp_path / "w.png").exists()
    said = clipcl.save(tmp_path / "w.png", wide, sample="u16", fit="clamp")
    assert said and np.array_equal(clipcl.load(tmp_path / "w.png"), [[0, 65535], [3, 4]])
    deep = np.array([[0, 4095.0], [300, 65535]])
    assert clipcl.save(tmp_path / "d.png", deep) == ""  # 16 bits chosen, nothing changed
    assert np.array_equal(clipcl.load(tmp_path / "d.png"), deep)
    with pytest.raises(clipcl.ElementTypeError):
        clipcl.save(tmp_path / "h.png", np.array([[0.5]]))


def test_tiff_stack_pages(tmp_path):
    need("tiff")
    A = np.arange(4 * 3 * 5, dtype=np.float32).reshape(4, 3, 5, order="F")
    clipcl.save(tmp_path / "s.tif", A)
    assert np.array_equal(clipcl.load(tmp_path / "s.tif"), A)
    assert np.array_equal(clipcl.load(tmp_path / "s.tif", page=2), A[:, :, 1])


def test_mat_variable_names_and_scipy(tmp_path, rng):
    need("mat")
    A = rng.standard_normal((4, 6))
    clipcl.save(tmp_path / "v.mat", A, var="myvar")
    assert np.array_equal(scipy.io.loadmat(tmp_path / "v.mat")["myvar"], A)
    scipy.io.savemat(tmp_path / "s.mat", {"x": np.int16([[1, 2], [3, 4]]), "y": A})
    assert clipcl.load(tmp_path / "s.mat").dtype == np.float32  # int16 -> single, as io.h says
    assert np.array_equal(clipcl.load(tmp_path / "s.mat", var="y"), A)


def test_device_array_saves(tmp_path, rng):
    need("mat")
    A = rng.standard_normal((3, 3))
    G = clipcl.matmul(clipcl.to_device(A), clipcl.to_device(A))
    clipcl.save(tmp_path / "g.mat", G)
    np.testing.assert_allclose(clipcl.load(tmp_path / "g.mat"), A @ A, rtol=1e-13)


@pytest.mark.parametrize("name,inputs,params,args", [
    ("conv2", [(40, 30), (5, 4)], {"shape": "same", "pad": "symmetric", "correlate": True},
     ["--shape", "same", "--pad", "symmetric", "--correlate"]),
    ("matmul", [(20, 30), (20, 10)], {"transa": "t"}, ["--transa", "t"]),
    ("norm", [(100, 1)], {"p": 3.5}, ["--p", "3.5"]),
    ("norm", [(10, 12)], {"p": "fro"}, ["--p", "fro"]),
    ("matpow", [(8, 8)], {"power": 7}, ["--power", "7"]),
    ("dot", [(50, 1), (50, 1)], {}, []),
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("order", ["F", "C"])
def test_same_values_as_the_cli(tmp_path, rng, clip_tool, name, inputs, params, args, dtype,
                                order):
    """Bit for bit: same library, same parameters, same device. A process that transposes
    (clip_process_desc_transposes) takes C-ordered matrices as their transposes, so its result
    must be the CLI's on the transposed inputs, transposed."""
    need("mat")
    arrays = [np.asarray((rng.standard_normal(s) / 3).astype(dtype), order=order) for s in inputs]
    fn = getattr(clipcl, name)
    flipped = (order == "C" and fn.descriptor["transposes"] and
               any(not a.flags.f_contiguous for a in arrays))
    files = []
    for i, a in enumerate(arrays):
        files.append(str(tmp_path / ("in%d.mat" % i)))
        clipcl.save(files[-1], a.T if flipped else a)
    out = str(tmp_path / "out.mat")
    env = dict(os.environ, CLIP_DEVICE=str(clipcl.default_app().device["index"]))
    subprocess.run([clip_tool, "run", name] + files + ["-o", out] + args, check=True, env=env)
    want = clipcl.load(out).T if flipped else clipcl.load(out)
    got = fn(*arrays, **params)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got, want)
