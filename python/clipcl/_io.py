"""Files through clip's own loaders and savers (include/clip/io.h): TIFF, PNG, MAT (v5; v7.3
where matio has HDF5) and CFL, by extension. Loaded data comes back as a Fortran-ordered NumPy
array (or a DeviceArray with on_device=True) of the type clip's loader gives: 8/16-bit image
samples as float32 holding their raw values, 32-bit integer TIFF samples as float64, MAT classes
as io.h lists, CFL as complex64. A save is whole or absent, as every clip save."""
import os

from . import _errors
from ._arrays import DeviceArray, as_clip_array, read, wrap
from ._ffi import ffi, lib

_SAMPLES = {None: 0, "auto": 0, "u8": 1, "u16": 2, "f32": 3, "f64": 4}


def _app(app):
    from ._app import default_app
    return app or default_app()


def has_format(fmt):
    """Whether clip was built with `fmt`: "tiff", "png", "mat", "mat73", "cfl"."""
    return bool(lib.clip_io_has(fmt.encode()))


def load(path, var=None, on_device=False, app=None):
    """Loads an image or array file: .tif/.tiff, .png, .mat (the first numeric variable, or
    `var`), .cfl (BART's pair: path "x.cfl" reads x.cfl and x.hdr)."""
    app = _app(app)
    path = os.fsencode(path)
    out = ffi.new("clip_data **")
    app._acquire()
    try:
        if var is not None:
            app._check(lib.clip_load_mat(app._p, path, str(var).encode(), out))
        else:
            app._check(lib.clip_load(app._p, path, out))
        app._live += 1
        d = out[0]
        if on_device:
            return DeviceArray(app, d)
        try:
            return read(app, d)
        finally:
            lib.clip_data_destroy(d)
            app._live -= 1
    finally:
        app._lock.release()


def save(path, x, sample=None, var=None, v73=False, app=None):
    """Saves x (a NumPy array or a DeviceArray) by extension. sample: "u8" or "u16" for PNG and
    TIFF, "f32"/"f64" for TIFF (default: PNG 8-bit, TIFF the data's float type); var and v73 for
    MAT (default variable "result", MAT 5)."""
    if sample not in _SAMPLES:
        raise _errors.fail("CLIP_ERR_INVALID_ARG", "sample=%r: expected one of u8, u16, f32, f64"
                           % (sample,))
    if isinstance(x, DeviceArray):
        app = x._app
        a = None
    else:
        app = _app(app)
        a = as_clip_array(x)
    bpath = os.fsencode(path)
    ext = os.path.splitext(os.fsdecode(path))[1].lower()
    app._acquire()
    try:
        d = x._ptr() if a is None else wrap(app, a)
        try:
            if ext == ".mat" and (var is not None or v73):
                s = lib.clip_save_mat(app._p, bpath, str(var or "result").encode(), d,
                                      1 if v73 else 0)
            elif ext == ".png" and sample:
                s = lib.clip_save_png(app._p, bpath, d, _SAMPLES[sample])
            elif ext in (".tif", ".tiff") and sample:
                s = lib.clip_save_tiff(app._p, bpath, d, _SAMPLES[sample])
            else:
                s = lib.clip_save(app._p, bpath, d)
            app._check(s)
        finally:
            if a is not None:
                lib.clip_data_destroy(d)
                app._live -= 1
    finally:
        app._lock.release()
