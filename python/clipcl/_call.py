"""Runs one clip process on NumPy arrays and DeviceArrays: the Python twin of the MEX gateway's
run.c. Parameters are set as text, exactly as `clip run NAME --name value` sets them (so the
CLI and Python give the same values for the same inputs). An initialised process is kept per app
for each (name, parameters, input types and sizes), up to KEPT of them (least recently used
destroyed first), detached between calls (clip_process_detach: it holds no data, so no NumPy
memory or DeviceArray is kept alive by the cache). A repeated call rebinds it to its new data
(clip_process_rebind), which keeps the init (kernels, temporaries, choices) unless the
process's init read an input whose values changed (conv2's K when it weighs the separable path):
a repeated call or a chain then costs its launch. Its results' sizes are known before the call,
so NumPy results are allocated first and clip writes into them (clip_data_wrap as the process's
output), with no copy of clip's in between. Every call holds its app's lock, so a kept process is
never used by two threads at once."""
import math
import threading

import numpy as np

from . import _errors
from ._arrays import (DeviceArray, _PDATA, _TO_CLIP, as_clip_array, cdims, dims_of, dtype_of,
                      empty, host_ptr)
from ._ffi import ffi, lib
from ._wait import Session

KEPT = 32
_timing = threading.local()


class _Kept:
    __slots__ = ("p", "known", "outs", "timing", "flag")

    def __init__(self, p):
        self.p = p
        self.known = False
        self.outs = None     # [(clip type, dims)] after the first init
        self.timing = True   # clip_process_set_timing's state (on at create)
        self.flag = ffi.new("int *")  # clip_process_rebind's reinit


def param_text(name, v):
    """The text `clip run` would get for value v of parameter `name`."""
    if isinstance(v, str):
        return v
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        f = float(v)
        if math.isnan(f):
            return "nan"
        if math.isinf(f):
            return "inf" if f > 0 else "-inf"
        return repr(f)
    raise _errors.fail("CLIP_ERR_PARAM_TYPE", "parameter '%s' got %r (%s): expected a number, "
                       "a bool or a name" % (name, v, type(v).__name__))


def _kept(app, name, params, key):
    cache = app._cache
    k = cache.get(key)
    if k is not None:
        cache.move_to_end(key)
        return k
    pp = ffi.new("clip_process **")
    app._check(lib.clip_process_create(app._p, name.encode(), pp))
    p = pp[0]
    for pname, text in params:
        s = lib.clip_process_set_text(p, pname.encode(), text.encode())
        if s:
            msg = ffi.string(lib.clip_app_last_error(app._p)).decode(errors="replace")
            lib.clip_process_destroy(p)
            raise _errors.error(s, msg)
    k = cache[key] = _Kept(p)
    if len(cache) > KEPT:
        _, old = cache.popitem(last=False)
        lib.clip_process_destroy(old.p)
    return k


def _supply(app, w, k):
    """NumPy arrays for every output, wrapped (for clip_process_rebind)."""
    arrays = []
    pd = ffi.new(_PDATA)
    for i, (t, dims) in enumerate(k.outs):
        a = empty(dims, dtype_of(t))
        app._check(lib.clip_data_wrap(app._p, t, len(dims), cdims(dims), host_ptr(a), pd))
        d = pd[0]
        app._live += 1
        w.defer(app._destroy_locked, d)
        arrays.append((a, d))
        w.keep.append(a)  # before anything can fail: the device may write it until the end
    return arrays


def _remember(app, k):
    outs = []
    pd = ffi.new(_PDATA)
    i = 0
    while lib.clip_process_output(k.p, i, pd) == 0:
        d = pd[0]
        nd = lib.clip_data_ndims(d)
        dims = lib.clip_data_dims(d)
        outs.append((lib.clip_data_type(d), tuple(dims[j] for j in range(nd))))
        i += 1
    k.outs = outs
    k.known = True


def _bind(app, w, k, ins, n_in, keep):
    """Binds the call's inputs (and NumPy results, unless keep) to kept process k: an init at
    its first call, then a rebind that keeps it. Returns the NumPy results [(array, data)]."""
    p = k.p
    first = not k.known
    if first:
        # First call of these kinds: init learns the outputs' kinds (NumPy results are then
        # bound by a rebind, which keeps that init).
        for i in range(n_in):
            app._check(lib.clip_process_set_input(p, i, ins[i]))
        app._counts["inits"] += 1
        app._check(lib.clip_process_init(p))
        _remember(app, k)
    outs = None if keep else _supply(app, w, k)
    if not (first and keep):
        couts = ffi.new("clip_data *[]", [d for _, d in outs]) if outs else ffi.NULL
        k.known = False  # until the rebind succeeds: a failed one left no init to keep
        app._counts["rebinds"] += 1
        app._check(lib.clip_process_rebind(p, ins, couts, k.flag))
        k.known = True
        app._counts["rebind_inits"] += k.flag[0]
    return outs


def _evict_others(app, k):
    """Destroys every kept process of app but k (their inits' temporaries and device memory go
    with them); False when there was none."""
    others = [key for key, v in app._cache.items() if v is not k]
    for key in others:
        lib.clip_process_destroy(app._cache.pop(key).p)
    app._counts["evictions"] += len(others)
    return bool(others)


def _row_major(inputs):
    """The matrices that C-ordered 2-D inputs hold in column-major order (their transposes, as
    views), when every input is a C-contiguous 2-D array and one at least is not also Fortran-
    contiguous; else None."""
    out = []
    only_c = False
    for x in inputs:
        if isinstance(x, DeviceArray):
            return None
        a = x if isinstance(x, np.ndarray) else np.asarray(x)
        if a.ndim != 2 or not a.flags.c_contiguous:
            return None
        only_c = only_c or not a.flags.f_contiguous
        out.append(a.T)
    return out if only_c else None


def run(name, inputs, params, on_device=None, app=None, transposes=False):
    """Runs process `name` on `inputs` (NumPy arrays, anything np.asarray takes, or
    DeviceArrays) with `params` ((name, value) pairs, set as `clip run` text). Returns the
    output, or a tuple when the process has several. Results are DeviceArrays when on_device is
    True, or when it is None and some input is a DeviceArray; NumPy arrays otherwise.

    transposes: the process declares that transposed 2-D inputs give transposed outputs
    (clip_process_desc_transposes). C-ordered 2-D inputs then go in as they lie, as the
    transposed matrices their memory holds in clip's column-major order, with no transposing
    copy, and the results come back as the transposes of clip's (C-ordered NumPy arrays); the
    last bits may differ from a Fortran-ordered call's, within the process's accuracy. A call
    that fails that way runs again as given, so its error names the shapes the caller gave."""
    if transposes and not on_device:
        flipped = _row_major(inputs)
        if flipped is not None:
            try:
                res = run(name, flipped, params, False, app)
            except _errors.ClipError:
                pass
            else:
                return tuple(r.T for r in res) if isinstance(res, tuple) else res.T
    dev_app = None
    prepared = []
    for i, x in enumerate(inputs):
        if isinstance(x, DeviceArray):
            if dev_app is None:
                dev_app = x._app
            elif x._app is not dev_app:
                raise _errors.fail("CLIP_ERR_INVALID_ARG",
                                   "%s: input %d is a DeviceArray of another App" % (name, i + 1))
            prepared.append(x)
        else:
            prepared.append(as_clip_array(x))
    if app is None:
        from ._app import default_app
        app = dev_app or default_app()
    elif dev_app is not None and dev_app is not app:
        raise _errors.fail("CLIP_ERR_INVALID_ARG", "%s: a DeviceArray input of another App than "
                           "app=" % name)
    keep = (dev_app is not None) if on_device is None else bool(on_device)
    ptext = tuple((n, param_text(n, v)) for n, v in params)
    timing = getattr(_timing, "log", None)
    sig = []
    nbytes = 0
    for x in prepared:
        if isinstance(x, DeviceArray):
            sig.append((x.dtype.char, x.shape))
        else:
            sig.append((x.dtype.char, dims_of(x)))
            nbytes += x.nbytes
    key = (name, ptext, tuple(sig))
    with Session(app) as w:
        k = _kept(app, name, ptext, key)
        p = k.p
        # Drops the call's data, keeps the init for the next call of the same kinds.
        w.defer(lib.clip_process_detach, p)
        w.keep = [prepared]
        wrapped = {}
        n_in = len(prepared)
        ins = ffi.new("clip_data *[]", max(n_in, 1))
        for i, x in enumerate(prepared):
            if isinstance(x, DeviceArray):
                d = x._ptr()
            else:
                # The same array twice is one view: OpenCL leaves two buffers over one host
                # region undefined.
                d = wrapped.get(id(x))
                if d is None:
                    dims = sig[i][1]
                    pd = ffi.new(_PDATA)
                    app._check(lib.clip_data_wrap(app._p, _TO_CLIP[x.dtype], len(dims),
                                                  cdims(dims), host_ptr(x), pd))
                    d = wrapped[id(x)] = pd[0]
                    app._live += 1
                    w.defer(app._destroy_locked, d)
            ins[i] = d
        try:
            outs = _bind(app, w, k, ins, n_in, keep)
        except _errors.BY_NAME["CLIP_ERR_OUT_OF_MEMORY"]:
            # The kept processes hold their inits' temporaries: without them it may fit.
            if not _evict_others(app, k):
                raise
            outs = _bind(app, w, k, ins, n_in, keep)
        want_timing = timing is not None
        if k.timing != want_timing:
            app._check(lib.clip_process_set_timing(p, 1 if want_timing else 0))
            k.timing = want_timing
        w.launched = True
        app._check(lib.clip_process_launch(p))
        if keep:
            results = []
            pd = ffi.new(_PDATA)
            for i in range(len(k.outs)):
                app._check(lib.clip_process_output(p, i, pd))
                results.append(DeviceArray(app, lib.clip_data_retain(pd[0])))
                app._live += 1
            # NumPy may free the arrays read in place (wrapped so, or read by the launch through
            # a view: clip_data_in_place after the launch) once this returns.
            if any(lib.clip_data_in_place(d) for d in wrapped.values()):
                app._check(w.wait(nbytes, lib.clip_app_finish, app._p))
        else:
            # Passed as is (not cast): the helper thread's job keeps it alive while the call
            # writes to it, also after a Ctrl-C left this frame.
            ptr = ffi.new("const void **")
            results = []
            for a, d in outs:
                app._check(w.wait(nbytes + a.nbytes, lib.clip_data_host, d, ptr))
                results.append(a)
        if timing is not None:
            ms = ffi.new("double *")
            app._check(lib.clip_process_time_ms(p, ms))
            timing.append((name, ms[0]))
    return results[0] if len(results) == 1 else tuple(results)


class device_times:
    """`with clipcl.device_times() as t:` records (process name, device ms) of every call this
    thread makes inside the block (clip_process_time_ms: each call then waits for its work)."""

    def __enter__(self):
        self.log = []
        self.prev = getattr(_timing, "log", None)
        _timing.log = self.log
        return self.log

    def __exit__(self, *exc):
        _timing.log = self.prev
        return False
