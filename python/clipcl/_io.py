"""Files through clip's own loaders and savers (include/clip/io.h): TIFF, PNG, MAT (v5; v7.3
where matio has HDF5) and CFL, by extension. Loaded data comes back as a Fortran-ordered NumPy
array (or a DeviceArray with on_device=True) of the type clip's loader gives: 8/16-bit image
samples as float32 holding their raw values, 32-bit integer TIFF samples as float64, MAT classes
as io.h lists, CFL as complex64. A save is whole or absent, as every clip save."""
import os

from . import _errors
from ._arrays import DeviceArray, as_clip_array, read, wrap
from ._ffi import ffi, lib

_SAMPLES = {None: 0, "auto": 0, "u8": 1, "u16": 2, "f32": 3, "f64": 4, "i8": 5, "i16": 6,
            "u32": 7, "i32": 8}


def _app(app):
    from ._app import default_app
    return app or default_app()


def has_format(fmt):
    """Whether clip was built with `fmt`: "tiff", "png", "mat", "mat73", "cfl"."""
    return bool(lib.clip_io_has(fmt.encode()))


def load(path, var=None, page=None, on_device=False, app=None):
    """Loads an image or array file: .tif/.tiff, .png, .mat (the first numeric variable, or
    `var`), .cfl (BART's pair: path "x.cfl" reads x.cfl and x.hdr). page: one TIFF page (from
    1; default every page, stacked), or 1 for an animated PNG's default image (clip_load_with)."""
    app = _app(app)
    path = os.fsencode(path)
    out = ffi.new("clip_data **")
    opts = ffi.new("clip_load_opts *")
    name = None if var is None else ffi.new("char[]", str(var).encode())
    if name is not None:
        opts.var = name
    if page is not None:
        opts.page = int(page)
    app._acquire()
    try:
        app._check(lib.clip_load_with(app._p, path, opts, out))
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


_FITS = {None: 0, "exact": 0, "clamp": 1, "scale": 2}
_THIRDS = {None: 0, "auto": 0, "channels": 1, "pages": 2}


def save(path, x, sample=None, fit=None, third=None, var=None, v73=False, app=None):
    """Saves x (a NumPy array or a DeviceArray) by extension, through clip_save_with: a save
    keeps the values it is given or refuses them (ElementTypeError naming the count and the
    range), and is whole or absent. sample: "u8" or "u16" for PNG and TIFF; "i8", "i16", "u32",
    "i32", "f32", "f64" for TIFF (default: the smallest that holds every value exactly). fit: "clamp" or "scale" to change
    values an integer sample cannot hold (default: refuse). third: "channels" or "pages" for a
    rows x cols x N TIFF (default: channels when N is 3 or 4). var and v73 for MAT (default
    variable "result", MAT 5). Returns what clip_save_with reports changed ("" when nothing)."""
    for arg, table, what in ((sample, _SAMPLES, "sample"), (fit, _FITS, "fit"),
                             (third, _THIRDS, "third")):
        if arg not in table:
            raise _errors.fail("CLIP_ERR_INVALID_ARG", "%s=%r: expected one of %s" % (
                what, arg, ", ".join(k for k in table if k)))
    if isinstance(x, DeviceArray):
        app = x._app
        a = None
    else:
        app = _app(app)
        a = as_clip_array(x)
    bpath = os.fsencode(path)
    opts = ffi.new("clip_save_opts *")
    opts.sample, opts.fit, opts.third = _SAMPLES[sample], _FITS[fit], _THIRDS[third]
    name = None if var is None else ffi.new("char[]", str(var).encode())
    if name is not None:
        opts.var = name
    opts.v73 = 1 if v73 else 0
    report = ffi.new("clip_save_report *")
    app._acquire()
    try:
        d = x._ptr() if a is None else wrap(app, a)
        try:
            app._check(lib.clip_save_with(app._p, bpath, d, opts, report))
        finally:
            if a is not None:
                lib.clip_data_destroy(d)
                app._live -= 1
    finally:
        app._lock.release()
    return ffi.string(report.text).decode()
