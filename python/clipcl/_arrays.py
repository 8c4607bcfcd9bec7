"""NumPy arrays <-> clip data, and DeviceArray (data kept on the device).

Shapes mean what they mean in MATLAB: a NumPy array of shape (r, c) is an r x c matrix, and clip
lays data out column-major (dims[0] varies fastest), as NumPy's Fortran order does. So:
- a Fortran-ordered (or 1-D, or 0-d) array of a type clip has goes in as it lies: clip wraps its
  memory (clip_data_wrap; on a device that works on host memory, such as PoCL's CPU device, the
  kernels read it in place when it is aligned as the device's buffers are, else through one copy
  into clip's aligned buffer);
- a C-ordered or strided array is copied once into Fortran order (np.asfortranarray) first;
- results are Fortran-ordered NumPy arrays that clip writes into directly.
A 1-D array of n elements is an n x 1 column, a 0-d array 1 x 1; at most 8 dimensions.

Element types: float32 (MATLAB single), float64 (double), complex64, complex128 go in as they
are. Other types are converted the way clip's loaders convert MATLAB's integer classes (io.h):
bool, int8, uint8, int16, uint16 and float16 to float32 (exact); int32, uint32, int64 and
uint64 to float64 (exact for 32-bit integers; 64-bit ones past 2^53 round). Anything else
(object, strings, datetimes, long double) is refused with clipcl.ElementTypeError."""
import os

import numpy as np

from . import _errors
from ._ffi import ffi, lib

MAX_DIMS = 8
_TO_CLIP = {np.dtype(np.float32): 0, np.dtype(np.float64): 1,
            np.dtype(np.complex64): 2, np.dtype(np.complex128): 3}
_FROM_CLIP = {v: k for k, v in _TO_CLIP.items()}
_CONVERT = {}
for _t in (np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.float16):
    _CONVERT[np.dtype(_t)] = np.dtype(np.float32)
for _t in (np.int32, np.uint32, np.int64, np.uint64):
    _CONVERT[np.dtype(_t)] = np.dtype(np.float64)
# Results clip writes in place are aligned so that a device working on host memory uses them
# without a copy (PoCL asks for 128 bytes; a page covers any device).
ALIGN = 4096
_SMALL = 1 << 16  # below this many bytes an aligned result is not worth its padding


def _physical_memory():
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return 0


# The machine's memory: a result larger than this is refused before it is allocated, since on a
# system that overcommits the allocation succeeds and the process is killed when clip fills it
# (seen on the GPU machine with a 4 TiB product). 0: unknown, no check.
HOST_MEMORY = _physical_memory()


def dtype_of(t):
    return _FROM_CLIP[t]


def as_clip_array(x):
    """x as an ndarray clip can wrap: one of clip's four types, Fortran-contiguous, at most 8
    dimensions. Converts as the module doc says; copies only when it must."""
    a = x if isinstance(x, np.ndarray) else np.asarray(x)
    dt = a.dtype
    if dt not in _TO_CLIP:
        to = _CONVERT.get(dt)
        if to is None:
            raise _errors.fail("CLIP_ERR_TYPE",
                               "an input of dtype %s: clip takes float32, float64, complex64, "
                               "complex128, and converts bool and integers (to float32 up to 16 "
                               "bits, float64 above)" % dt)
        out = empty(a.shape, to)
        out[...] = a
        a = out
    if a.ndim > MAX_DIMS:
        raise _errors.fail("CLIP_ERR_DIMS", "an input of %d dimensions: clip takes at most %d"
                           % (a.ndim, MAX_DIMS))
    if not a.flags.f_contiguous:
        a = asfortranarray(a)
    return a


def asfortranarray(a):
    """A Fortran-ordered copy of ndarray a in memory aligned as empty() aligns it, so that a
    device working on host memory reads it in place. A C-ordered matrix is copied in bands of
    16 rows: NumPy's own transposing copy (np.asfortranarray) strides through the whole source
    for each column and took 58 ms for 2048x2048 single on the 2-core PoCL VM, the bands 20."""
    out = empty(a.shape, a.dtype)
    if a.ndim == 2 and a.shape[0] > 16:
        for i in range(0, a.shape[0], 16):
            out[i:i + 16] = a[i:i + 16]
    else:
        out[...] = a
    return out


def dims_of(a):
    """clip dims for ndarray a: (n,) -> n x 1, () -> 1 x 1."""
    shape = a.shape
    if len(shape) >= 2:
        return shape
    return (shape[0], 1) if shape else (1, 1)


_DIMS = {}  # dims tuple -> const size_t[] (read only by clip; shared by every call)
_PDATA = ffi.typeof("clip_data **")


def cdims(dims):
    """dims as a size_t[] for clip, made once per distinct tuple."""
    c = _DIMS.get(dims)
    if c is None:
        if len(_DIMS) > 1024:
            _DIMS.clear()
        c = _DIMS[dims] = ffi.new("size_t[]", dims)
    return c


def host_ptr(a):
    """A void * to Fortran-contiguous ndarray a's memory, as a cdata that keeps a alive (its
    transpose is C-contiguous, which cffi's buffer access asks for)."""
    return ffi.from_buffer(a.T)


def empty(shape, dtype):
    """A Fortran-ordered array for a result, aligned to ALIGN bytes when large."""
    dtype = np.dtype(dtype)
    n = dtype.itemsize
    for s in shape:
        n *= s
    if HOST_MEMORY and n > HOST_MEMORY:
        raise _errors.fail("CLIP_ERR_OUT_OF_MEMORY", "a %s result of %s (%d bytes) is larger than "
                           "this machine's memory (%d bytes)" % (
                               dtype.name, "x".join(str(x) for x in shape), n, HOST_MEMORY))
    if n < _SMALL:
        return np.empty(shape, dtype, order="F")
    try:
        raw = np.empty(n + ALIGN, np.uint8)
    except MemoryError:
        raise _errors.fail("CLIP_ERR_OUT_OF_MEMORY", "cannot allocate a %s result of %s (%d "
                           "bytes) on the host" % (dtype.name, "x".join(str(x) for x in shape),
                                                   n)) from None
    off = (-raw.ctypes.data) % ALIGN
    return raw[off:off + n].view(dtype).reshape(shape, order="F")


def wrap(app, a):
    """A new clip_data over ndarray a (as_clip_array's result); the caller keeps a alive and
    frees the data (app._free_data) before a may go."""
    dims = dims_of(a)
    out = ffi.new(_PDATA)
    app._check(lib.clip_data_wrap(app._p, _TO_CLIP[a.dtype], len(dims), cdims(dims),
                                  host_ptr(a), out))
    app._live += 1
    return out[0]


def shape_of(d):
    nd = lib.clip_data_ndims(d)
    dims = lib.clip_data_dims(d)
    return tuple(dims[i] for i in range(nd))


def read(app, d):
    """A new Fortran-ordered ndarray with d's contents (one device->host copy when the current
    copy is on the device). Called with app's lock held."""
    a = empty(shape_of(d), _FROM_CLIP[lib.clip_data_type(d)])
    app._check(lib.clip_data_read(d, host_ptr(a)))
    return a


class DeviceArray:
    """Data kept on the device (as clip.Array in Octave, gpuArray in MATLAB). Made by
    clipcl.to_device(a), or by any process call given a DeviceArray input (or on_device=True);
    passed to the next call it stays on the device. shape, dtype, ndim, size, nbytes as NumPy's;
    get() (or numpy(), or np.asarray) copies it back into a Fortran-ordered NumPy array; free()
    releases it now (else the garbage collector does)."""

    __slots__ = ("_d", "_app", "shape", "dtype", "__weakref__")
    __array_priority__ = 10

    def __init__(self, app, d):
        """Takes over one reference to clip_data d of app (internal: use to_device)."""
        self._app = app
        self._d = d
        self.shape = shape_of(d)
        self.dtype = _FROM_CLIP[lib.clip_data_type(d)]

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize

    @property
    def app(self):
        return self._app

    def _ptr(self):
        if self._d is None:
            raise _errors.fail("CLIP_ERR_INVALID_ARG", "this DeviceArray was freed")
        return self._d

    def get(self):
        """The contents as a new NumPy array (Fortran order); waits for the work writing it."""
        from . import _wait
        app = self._app
        d = self._ptr()
        a = empty(self.shape, self.dtype)
        app._acquire(need_app=False)
        _wait.blocking(app, lib.clip_data_app(d), self.nbytes, a, lib.clip_data_read, d,
                       host_ptr(a))
        return a

    numpy = get

    def __array__(self, dtype=None, copy=None):
        a = self.get()
        return a if dtype is None else a.astype(dtype, copy=False)

    def free(self):
        """Releases the device memory now (waiting is not needed: clip keeps what enqueued work
        uses). Using the array afterwards raises InvalidArgumentError."""
        d, self._d = self._d, None
        if d is not None:
            self._app._free_data(d)

    def __del__(self):
        try:
            self.free()
        except Exception:
            pass

    def __len__(self):
        return self.shape[0]

    def __repr__(self):
        if self._d is None:
            return "<clipcl.DeviceArray freed>"
        return "<clipcl.DeviceArray %s %s on %s>" % ("x".join(map(str, self.shape)), self.dtype,
                                                   self._app.device["name"])


def to_device(x, app=None):
    """Uploads x (anything as_clip_array takes) into a new DeviceArray on app (default: the
    default app): one host->device copy straight from the array's memory (Fortran-ordered input
    is not copied on the host first)."""
    from ._app import default_app
    app = app or default_app()
    if isinstance(x, DeviceArray):
        if x._app is app:
            return x
        x = x.get()
    a = as_clip_array(x)
    dims = dims_of(a)
    out = ffi.new(_PDATA)
    app._acquire()
    try:
        app._check(lib.clip_data_create(app._p, _TO_CLIP[a.dtype], len(dims), cdims(dims), out))
        app._live += 1
        d = out[0]
        s = lib.clip_data_write(d, host_ptr(a))
        if s:
            msg = ffi.string(lib.clip_app_last_error(app._p)).decode(errors="replace")
            lib.clip_data_destroy(d)
            app._live -= 1
            raise _errors.error(s, msg)
    finally:
        app._lock.release()
    return DeviceArray(app, d)
