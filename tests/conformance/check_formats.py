#!/usr/bin/python3
"""Format conformance: files written by other software load in clip exactly, and what clip saves
reads back in other software exactly and without a warning.

Writers and readers are Debian's python3-tifffile, python3-pil, python3-scipy, python3-h5py and
numpy; every file is made here, at test time. hdf5storage is not in Debian: its MAT 7.3 layout is
written with h5py as hdf5storage writes it (a 512-byte userblock holding the MAT header; each
variable a dataset holding the transpose, with a MATLAB_class attribute that is a fixed-length
string of the class's length without a NUL: np.bytes_(b"double"), the attribute matio 1.5 reads
as "doubl").

usage: check_formats.py CLIP_TOOL   (exit 0 pass, 1 fail, 77 skipped: a module is missing)
"""
import io
import logging
import os
import struct
import subprocess
import sys
import tempfile
import warnings
import zlib

try:
    import h5py
    import numpy as np
    import scipy.io as sio
    import scipy.sparse as sparse
    import tifffile
    from PIL import Image
except ImportError as e:  # the suite needs them all; CI installs them (install-deps.sh test)
    print(f"check_formats: skipped: {e} (Debian: python3-tifffile python3-pil python3-scipy "
          f"python3-h5py)")
    sys.exit(77)

CLIP = os.path.abspath(sys.argv[1])
failures = []
checks = 0


def check(ok, what):
    global checks
    checks += 1
    if not ok:
        failures.append(what)
        print(f"FAIL: {what}")


def clip(*args):
    r = subprocess.run([CLIP, *args], capture_output=True, text=True, timeout=120)
    return r.returncode, r.stdout, r.stderr


class Quiet:
    """Records Python warnings and tifffile's logged warnings in a block; .seen lists them."""

    def __enter__(self):
        self.seen = []
        self._w = warnings.catch_warnings(record=True)
        self._caught = self._w.__enter__()
        warnings.simplefilter("always")
        self._h = logging.Handler(logging.WARNING)
        self._h.emit = lambda rec: self.seen.append(rec.getMessage())
        logging.getLogger("tifffile").addHandler(self._h)
        return self

    def __exit__(self, *exc):
        logging.getLogger("tifffile").removeHandler(self._h)
        self._w.__exit__(*exc)
        self.seen += [str(w.message) for w in self._caught]
        return False


def loaded(path):
    """What clip loads from path (FILE[:SEL]), through clip run scale 1 0 into a MAT file."""
    out = os.path.join(tmp, "loaded.mat")
    if os.path.exists(out):
        os.remove(out)
    rc, _, err = clip("run", "scale", path, "--a", "1", "--b", "0", "-o", out)
    if rc != 0:
        return None, err
    return sio.loadmat(out)["result"], err


def same(a, b):
    return a is not None and a.shape == b.shape and np.array_equal(a, b, equal_nan=True)


def matlab_shape(a):
    """MATLAB drops trailing singleton dimensions past the second, as clip's MAT save does."""
    while a.ndim > 2 and a.shape[-1] == 1:
        a = a[..., 0]
    return a


def expect_load(path, want, what, dtype=None):
    got, err = loaded(path)
    want = matlab_shape(np.asarray(want))
    ok = same(got, want) and (dtype is None or got.dtype == dtype)
    check(ok, f"{what}: clip loads {path} exactly" + ("" if ok else f" (got {None if got is None else (got.shape, got.dtype)}, want {want.shape}; {err.strip()})"))


# ---------------------------------------------------------------- a PNG reader of our own
# Pillow reduces 48/64-bit RGB(A) to 8 bits; this decodes non-interlaced 8/16-bit PNG exactly.
def png_decode(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, color, _, _, interlace = ihdr
    assert interlace == 0 and depth in (8, 16) and color in (0, 2, 4, 6)
    chans = {0: 1, 2: 3, 4: 2, 6: 4}[color]
    bpp = chans * depth // 8
    raw = zlib.decompress(idat)
    stride = w * bpp
    out = bytearray()
    prev = bytearray(stride)
    for r in range(h):
        f = raw[r * (stride + 1)]
        line = bytearray(raw[r * (stride + 1) + 1:(r + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out += line
        prev = line
    arr = np.frombuffer(bytes(out), dtype=">u2" if depth == 16 else np.uint8)
    arr = arr.reshape(h, w, chans) if chans > 1 else arr.reshape(h, w)
    return arr, depth


def png_encode(path, a, depth):
    """A plain PNG of a (H x W [x C]) at depth 8 or 16, written without Pillow (48/64-bit)."""
    a = np.asarray(a)
    chans = 1 if a.ndim == 2 else a.shape[2]
    color = {1: 0, 2: 4, 3: 2, 4: 6}[chans]
    dt = ">u2" if depth == 16 else np.uint8
    raw = b"".join(b"\0" + a[r].astype(dt).tobytes() for r in range(a.shape[0]))

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    ihdr = struct.pack(">IIBBBBB", a.shape[1], a.shape[0], depth, color, 0, 0, 0)
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) +
                           chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def hdf5storage_like(path, variables):
    """A MAT 7.3 file laid out as hdf5storage writes one (module docstring)."""
    with h5py.File(path, "w", userblock_size=512) as f:
        for name, a in variables.items():
            a = np.asarray(a)
            cls = {"float64": b"double", "float32": b"single", "int16": b"int16",
                   "uint8": b"uint8", "complex128": b"double", "bool": b"logical"}[a.dtype.name]
            data = a.T
            if a.dtype == np.complex128:
                data = np.empty(a.T.shape, dtype=[("real", "<f8"), ("imag", "<f8")])
                data["real"], data["imag"] = a.T.real, a.T.imag
            if a.dtype == bool:
                data = a.T.astype(np.uint8)
            ds = f.create_dataset(name, data=np.ascontiguousarray(data))
            ds.attrs["MATLAB_class"] = np.bytes_(cls)
            if a.dtype == bool:
                ds.attrs["MATLAB_int_decode"] = np.int64(1)
            ds.attrs["H5PATH"] = np.bytes_(b"/")
    head = (b"MATLAB 7.3 MAT-file, Platform: hdf5storage 0.1.19 (emulated by clip's tests), "
            b"Created on: today HDF5 schema 1.00 .").ljust(116, b" ")
    with open(path, "r+b") as fh:
        fh.write(head + b"\0" * 8 + b"\x00\x02IM")


rng = np.random.default_rng(44)
tmp = tempfile.mkdtemp(prefix="clip_conformance_")


def p(name):
    return os.path.join(tmp, name)


# ================================================================ other writers -> clip
# tifffile
g8 = rng.integers(0, 256, (13, 17), dtype=np.uint8)
g16 = rng.integers(0, 65536, (13, 17), dtype=np.uint16)
i16 = rng.integers(-32768, 32768, (9, 11), dtype=np.int16)
u32 = rng.integers(0, 2**32, (5, 6), dtype=np.uint32)
f32 = rng.standard_normal((8, 7)).astype(np.float32)
f64 = rng.standard_normal((8, 7))
rgb16 = rng.integers(0, 65536, (10, 12, 3), dtype=np.uint16)
stack = rng.integers(0, 65536, (5, 9, 8), dtype=np.uint16)  # 5 pages of 9 x 8
tifffile.imwrite(p("g8.tif"), g8)
tifffile.imwrite(p("g16.tif"), g16)
tifffile.imwrite(p("i16.tif"), i16)
tifffile.imwrite(p("u32.tif"), u32)
tifffile.imwrite(p("f32.tif"), f32)
tifffile.imwrite(p("f64.tif"), f64)
tifffile.imwrite(p("rgb16.tif"), rgb16, photometric="rgb")
tifffile.imwrite(p("rgb16_planar.tif"), np.moveaxis(rgb16, 2, 0), photometric="rgb",
                 planarconfig="separate")
tifffile.imwrite(p("g16_tiled.tif"), g16, tile=(16, 16))
tifffile.imwrite(p("g16_zlib.tif"), g16, compression="zlib")
tifffile.imwrite(p("stack.tif"), stack)
expect_load(p("g8.tif"), g8.astype(np.float32), "tifffile uint8", np.float32)
expect_load(p("g16.tif"), g16.astype(np.float32), "tifffile uint16", np.float32)
expect_load(p("i16.tif"), i16.astype(np.float32), "tifffile int16", np.float32)
expect_load(p("u32.tif"), u32.astype(np.float64), "tifffile uint32 (f64 holds it)", np.float64)
expect_load(p("f32.tif"), f32, "tifffile float32", np.float32)
expect_load(p("f64.tif"), f64, "tifffile float64", np.float64)
expect_load(p("rgb16.tif"), rgb16.astype(np.float32), "tifffile uint16 RGB")
expect_load(p("rgb16_planar.tif"), rgb16.astype(np.float32), "tifffile planar RGB")
expect_load(p("g16_tiled.tif"), g16.astype(np.float32), "tifffile tiled")
expect_load(p("g16_zlib.tif"), g16.astype(np.float32), "tifffile deflate")
expect_load(p("stack.tif"), np.moveaxis(stack, 0, 2).astype(np.float32), "tifffile 5 pages")
expect_load(p("stack.tif") + ":3", stack[2].astype(np.float32), "tifffile page 3 of 5")

# A page of another size (a thumbnail): refused whole, naming the pages; each loads alone.
with tifffile.TiffWriter(p("thumb.tif")) as t:
    t.write(g16)
    t.write(g8[:4, :5], subfiletype=1)
rc, _, err = clip("run", "scale", p("thumb.tif"))
check(rc == 1 and "page 2 (4x5" in err and "cannot be stacked" in err and "thumb.tif:N" in err,
      f"thumbnail TIFF refused naming its pages (said: {err.strip()})")
expect_load(p("thumb.tif") + ":1", g16.astype(np.float32), "thumbnail TIFF page 1")
expect_load(p("thumb.tif") + ":2", g8[:4, :5].astype(np.float32), "thumbnail TIFF page 2")
rc, _, err = clip("run", "scale", p("thumb.tif") + ":3")
check(rc == 1 and "no page 3: the file has 2" in err, f"page past the last (said: {err.strip()})")

# A pyramid (SubIFDs of reduced resolution): refused whole, saying so; page 1 loads alone.
with tifffile.TiffWriter(p("pyramid.tif")) as t:
    t.write(g16, subifds=1)
    t.write(g16[::2, ::2], subfiletype=1)
rc, _, err = clip("run", "scale", p("pyramid.tif"))
check(rc == 1 and "holds 1 sub-images (SubIFDs" in err and "pyramid.tif:N" in err,
      f"pyramid TIFF refused naming its sub-images (said: {err.strip()})")
expect_load(p("pyramid.tif") + ":1", g16.astype(np.float32), "pyramid TIFF page 1")

# Pillow PNGs (and one Pillow palette TIFF: raw indices, documented)
rgb8 = rng.integers(0, 256, (11, 9, 3), dtype=np.uint8)
rgba8 = rng.integers(0, 256, (11, 9, 4), dtype=np.uint8)
la8 = rng.integers(0, 256, (11, 9, 2), dtype=np.uint8)
Image.fromarray(g8).save(p("L.png"))
Image.fromarray(g16).save(p("I16.png"))
Image.fromarray(rgb8).save(p("RGB.png"))
Image.fromarray(rgba8).save(p("RGBA.png"))
Image.fromarray(la8, "LA").save(p("LA.png"))
pal = Image.fromarray(rgb8).quantize(7)
pal.save(p("P.png"))
pal.save(p("P.tif"))
Image.fromarray(g8 > 128).save(p("bits.png"))
expect_load(p("L.png"), g8.astype(np.float32), "Pillow 8-bit gray PNG", np.float32)
expect_load(p("I16.png"), g16.astype(np.float32), "Pillow 16-bit gray PNG", np.float32)
expect_load(p("RGB.png"), rgb8.astype(np.float32), "Pillow RGB PNG")
expect_load(p("RGBA.png"), rgba8.astype(np.float32), "Pillow RGBA PNG")
expect_load(p("LA.png"), la8.astype(np.float32), "Pillow gray+alpha PNG")
expect_load(p("P.png"), np.asarray(pal.convert("RGB")).astype(np.float32),
            "Pillow palette PNG (expanded to RGB)")
expect_load(p("P.tif"), np.asarray(pal).astype(np.float32),
            "Pillow palette TIFF (raw indices)")
expect_load(p("bits.png"), (g8 > 128).astype(np.float32), "Pillow 1-bit PNG (0 and 1)")
rgb48 = rng.integers(0, 65536, (6, 5, 3), dtype=np.uint16)
png_encode(p("rgb48.png"), rgb48, 16)
expect_load(p("rgb48.png"), rgb48.astype(np.float32), "48-bit RGB PNG")

# An animated PNG: refused, saying how many frames; :1 takes the default image alone.
frames = [Image.fromarray(rng.integers(0, 256, (6, 7), dtype=np.uint8)) for _ in range(3)]
frames[0].save(p("anim.png"), save_all=True, append_images=frames[1:])
rc, _, err = clip("run", "scale", p("anim.png"))
check(rc == 1 and "animated PNG of 3 frames" in err and "anim.png:1" in err,
      f"APNG refused naming its frames (said: {err.strip()})")
expect_load(p("anim.png") + ":1", np.asarray(frames[0]).astype(np.float32), "APNG default image")
rc, _, err = clip("run", "scale", p("anim.png") + ":2")
check(rc == 1 and "frame 2" in err, f"APNG frame 2 refused (said: {err.strip()})")

# scipy MAT 5
a = rng.standard_normal((4, 3))
b = rng.standard_normal((2, 2))
sio.savemat(p("ba.mat"), {"b": b, "a": a})
expect_load(p("ba.mat"), b, "scipy MAT: the first variable by default", np.float64)
expect_load(p("ba.mat") + ":a", a, "scipy MAT: a by name", np.float64)
classes = {"i8": rng.integers(-128, 128, (3, 4), dtype=np.int8),
           "u16": rng.integers(0, 65536, (3, 4), dtype=np.uint16),
           "i32": rng.integers(-2**31, 2**31, (3, 4), dtype=np.int32),
           "s": rng.standard_normal((3, 4)).astype(np.float32),
           "z": rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4)),
           "nd": rng.standard_normal((2, 3, 4))}
sio.savemat(p("classes.mat"), classes)
for name, v in classes.items():
    want = v.astype(np.float64) if v.dtype == np.int32 else v
    want = want.astype(np.float32) if v.dtype in (np.int8, np.uint16) else want
    expect_load(p("classes.mat") + ":" + name, want, f"scipy MAT class {v.dtype}", want.dtype)
sio.savemat(p("struct.mat"), {"st": {"x": 1.0, "y": np.eye(2)}})
rc, _, err = clip("run", "scale", p("struct.mat"))
check(rc == 1 and "st (struct)" in err and "not supported" in err,
      f"struct-only MAT names the struct (said: {err.strip()})")
sio.savemat(p("mixed.mat"), {"S": sparse.eye(3).tocsc(), "c": np.array([[1.0, "x"]], dtype=object),
                             "t": "text"})
rc, _, err = clip("run", "scale", p("mixed.mat"))
check(rc == 1 and "S (sparse)" in err and "c (cell)" in err and "t (char)" in err,
      f"MAT of sparse, cell and char lists them (said: {err.strip()})")
rc, _, err = clip("run", "scale", p("mixed.mat") + ":S")
check(rc == 1 and "'S' is a sparse matrix" in err, f"sparse by name (said: {err.strip()})")

# hdf5storage-like MAT 7.3 (and the shape h5py reads it in, to be sure of the layout)
h = {"zz": rng.standard_normal((3, 5)), "aa": rng.standard_normal((4, 2)).astype(np.float32),
     "cz": rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3)),
     "k": rng.integers(-300, 300, (3, 3)).astype(np.int16)}
hdf5storage_like(p("h5s.mat"), h)
expect_load(p("h5s.mat"), h["aa"], "hdf5storage-like v7.3: first by name order (aa)", np.float32)
for name, v in h.items():
    want = v.astype(np.float32) if v.dtype == np.int16 else v
    expect_load(p("h5s.mat") + ":" + name, want, f"hdf5storage-like v7.3 {name} ({v.dtype})")

# ================================================================ clip saves -> other readers
def read_png(path, what):
    with Quiet() as q:
        im = Image.open(path)
        im.load()
    check(not q.seen, f"{what}: Pillow reads {path} without warnings ({q.seen})")
    return im


# 16-bit gray and 48-bit RGB PNG through clip run scale 1 0: same values, same depth.
for src, want, what in ((p("I16.png"), g16, "16-bit gray"), (p("rgb48.png"), rgb48, "48-bit RGB")):
    out = p("out_" + os.path.basename(src))
    rc, _, err = clip("run", "scale", src, "--a", "1", "--b", "0", "-o", out)
    got, depth = png_decode(out) if rc == 0 else (None, 0)
    check(rc == 0 and depth == 16 and same(got.astype(np.uint16), want) and not err,
          f"{what} PNG -> clip -> PNG keeps values and 16 bits (rc {rc}, depth {depth}, {err})")
    read_png(out, what)

# Values a 16-bit PNG cannot hold: refused, no file; --clamp / --scale say what they did.
sio.savemat(p("big.mat"), {"v": np.array([[70000.0, 1.0], [0.5, 3.0]])})
out = p("big.png")
rc, _, err = clip("run", "scale", p("big.mat"), "-o", out, "--sample", "uint16")
check(rc == 1 and "2 of 4 values do not fit 16-bit unsigned samples (whole numbers 0..65535)" in err
      and "1 above 65535 (largest 70000)" in err and "1 fractional (e.g. 0.5)" in err
      and not os.path.exists(out), f"70000 and 0.5 to a 16-bit PNG refused (said: {err.strip()})")
rc, _, err = clip("run", "scale", p("big.mat"), "-o", out, "--sample", "uint16", "--clamp")
got = png_decode(out)[0] if rc == 0 else None
check(rc == 0 and "clamped 1 value above 65535 to 65535" in err and "rounded 1 fractional" in err
      and same(got.astype(float), np.array([[65535, 1], [1, 3]], float)),
      f"--clamp clamps, rounds and says so (said: {err.strip()})")
rc, _, err = clip("run", "scale", p("big.mat"), "-o", out, "--scale")
got = png_decode(out)[0] if rc == 0 else None
k = 65535 / (70000 - 0.5)
want = np.floor((np.array([[70000, 1], [0.5, 3]]) - 0.5) * k + 0.5)
check(rc == 0 and "scaled the values' range [0.5, 70000] linearly onto 0..65535" in err
      and same(got.astype(float), want), f"--scale maps the range and says so (said: {err.strip()})")

# TIFF: a 5-page stack stays 5 pages of uint16; RGB stays RGB; integers keep their type (the
# narrowest holding them: these files use their types' range); fractions stay float.
for src, what, npages, dtype in ((p("stack.tif"), "5-page stack", 5, np.uint16),
                                 (p("rgb16.tif"), "16-bit RGB", 1, np.uint16),
                                 (p("g8.tif"), "8-bit gray", 1, np.uint8),
                                 (p("i16.tif"), "16-bit signed", 1, np.int16),
                                 (p("u32.tif"), "32-bit unsigned", 1, np.uint32),
                                 (p("f32.tif"), "float32", 1, np.float32)):
    out = p("out_" + os.path.basename(src))
    rc, _, err = clip("run", "scale", src, "--a", "1", "--b", "0", "-o", out)
    with Quiet() as q:
        t = tifffile.TiffFile(out)
        pages, arr, dt = len(t.pages), t.asarray(), t.pages[0].dtype
        t.close()
    check(rc == 0 and not q.seen, f"{what} TIFF: tifffile reads clip's save without warnings ({q.seen} {err})")
    check(pages == npages and dt == dtype and same(arr, tifffile.imread(src)),
          f"{what} TIFF -> clip -> TIFF: {pages} pages of {dt}, values equal")
    back, _ = loaded(out)
    check(same(back, loaded(src)[0]), f"{what} TIFF: what clip saved loads back as it was in clip")
# --stack pages makes a 3-deep stack pages, not RGB.
three = rng.integers(0, 256, (3, 6, 5), dtype=np.uint8)
tifffile.imwrite(p("three.tif"), three)
rc, _, _ = clip("run", "scale", p("three.tif"), "-o", p("three_rgb.tif"))
rc2, _, _ = clip("run", "scale", p("three.tif"), "-o", p("three_pages.tif"), "--stack", "pages")
check(rc == 0 and rc2 == 0 and tifffile.TiffFile(p("three_rgb.tif")).pages[0].photometric == 2
      and len(tifffile.TiffFile(p("three_pages.tif")).pages) == 3
      and same(tifffile.imread(p("three_pages.tif")), three),
      "rows x cols x 3 saves as RGB by default and as 3 pages with --stack pages")

# MAT: scipy reads clip's save, under the name -o gave.
rc, _, err = clip("run", "scale", p("classes.mat") + ":z", "-o", p("named.mat") + ":zcopy")
with Quiet() as q:
    m = sio.loadmat(p("named.mat")) if rc == 0 else {}
check("zcopy" in m and same(m["zcopy"], classes["z"]) and not q.seen,
      f"-o FILE.mat:NAME names the variable; scipy reads it without warnings ({err} {q.seen})")

# ================================================================ the command line
rc, out_, _ = clip("--version")
check(rc == 0 and out_.startswith("clip ") and "commit:" in out_ and "default device:" in out_,
      f"clip --version ({out_.strip()})")
for topic in ("run", "bench", "tune", "devices"):
    rc, out_, err = clip("help", topic)
    check(rc == 0 and "usage" in out_, f"clip help {topic} (rc {rc}, {err.strip()})")
rc, out_, _ = clip("run", "scale", "--help")
check(rc == 0 and "usage: clip run scale" in out_, "clip run scale --help")

print(f"check_formats: {checks} checks, {len(failures)} failed")
sys.exit(1 if failures else 0)
