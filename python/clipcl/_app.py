"""The app: one clip_app (an OpenCL device, or several), the lock that serialises its use, the
processes kept for reuse, and the default app the module-level functions use.

Thread rules (include/clip/app.h): separate apps may be used from separate threads at once; one
app and its data and processes must not be used by two threads at the same time. An App
therefore holds a lock that every call on it takes (threads sharing one app take turns), and
threads that want to run at the same time each use an App of their own. Data freed by the
garbage collector while another thread holds the lock is freed by the next call instead."""
import threading
from collections import OrderedDict

from . import _errors
from ._ffi import ffi, lib

_KINDS = {0: "any", 1: "gpu", 2: "cpu", 3: "accelerator"}


def _device_dict(info):
    s = lambda b: ffi.string(b).decode(errors="replace")
    return {"index": info.index, "name": s(info.name), "vendor": s(info.vendor),
            "platform": s(info.platform), "version": s(info.version), "driver": s(info.driver),
            "type": _KINDS.get(info.type, "?"), "compute_units": info.compute_units,
            "clock_mhz": info.clock_mhz, "global_mem": info.global_mem,
            "max_alloc": info.max_alloc, "fp64": bool(info.fp64), "score": info.score}


def devices():
    """Every OpenCL device (clip_devices_list) as a list of dicts: index (1-based, what
    device= takes), name, vendor, platform, version, driver, type, compute_units, clock_mhz,
    global_mem, max_alloc, fp64, score."""
    count = ffi.new("size_t *")
    s = lib.clip_devices_list(ffi.NULL, 0, count)
    if s:
        _errors.raise_for(s, ffi.NULL)
    out = ffi.new("clip_device_info[]", max(count[0], 1))
    s = lib.clip_devices_list(out, count[0], count)
    if s:
        _errors.raise_for(s, ffi.NULL)
    return [_device_dict(out[i]) for i in range(count[0])]


class App:
    """An open clip app. App() takes the device CLIP_DEVICE names, else the best one; App('cpu'),
    App('gpu'), App(2) (an index of devices()), App('all'), App('1,2') or App('name substring')
    choose as CLIP_DEVICE does (the argument then wins over CLIP_DEVICE). fp64=False treats the
    device as lacking double precision (testing). Every process is also a method:
    app.conv2(A, K, 'same') is clipcl.conv2(A, K, 'same', app=app). Close it with close() or a
    with block; data made on it stays valid until freed."""

    def __init__(self, device=None, fp64=True):
        crit = ffi.new("clip_criteria *")
        self._spec = None
        if device is not None:
            self._spec = ffi.new("char[]", str(device).encode())
            s = lib.clip_criteria_from_spec(self._spec, crit)
            if s:
                raise _errors.error(s, "bad device spec %r: expected gpu, cpu, accelerator, an "
                                       "index, a list of indices (1,2), all, gpu:all or a name "
                                       "substring" % (device,))
            crit.ignore_env = 1
        crit.disable_fp64 = 0 if fp64 else 1
        pp = ffi.new("clip_app **")
        s = lib.clip_app_create(pp, crit)
        if s:
            _errors.raise_for(s, ffi.NULL)
        self._p = pp[0]
        self._lock = threading.Lock()
        self._pending = []              # clip_data* freed by the GC while the lock was held
        self._cache = OrderedDict()     # key -> _Kept (processes kept for reuse, unbound)
        self._live = 0                  # clip_data objects of this app held by Python
        self._counts = {"inits": 0, "rebinds": 0, "rebind_inits": 0, "evictions": 0}
        self.device = _device_dict(lib.clip_app_device(self._p)[0])
        self.devices = [_device_dict(lib.clip_app_device_at(self._p, i)[0])
                        for i in range(lib.clip_app_device_count(self._p))]

    # -- locking ---------------------------------------------------------------------------
    def _acquire(self, need_app=True):
        """Takes the lock (need_app=False: for work on data, which outlives its app's close)."""
        if need_app and self._p is None:
            raise _errors.fail("CLIP_ERR_INVALID_ARG", "this App was closed")
        self._lock.acquire()
        try:  # a Ctrl-C from here on must not leave the lock taken
            if need_app and self._p is None:
                raise _errors.fail("CLIP_ERR_INVALID_ARG", "this App was closed")
            if self._pending:
                self._drain()
        except BaseException:
            self._lock.release()
            raise

    def _drain(self):
        while self._pending:
            lib.clip_data_destroy(self._pending.pop())
            self._live -= 1

    def _destroy_locked(self, d):
        """Releases one clip_data reference held by Python; the caller holds the lock."""
        lib.clip_data_destroy(d)
        self._live -= 1

    def _free_data(self, d):
        """Releases one clip_data reference held by Python, now or at the next call."""
        if self._lock.acquire(False):
            try:
                lib.clip_data_destroy(d)
                self._live -= 1
            finally:
                self._lock.release()
        else:
            self._pending.append(d)

    def _check(self, s):
        if s:
            _errors.raise_for(s, self._p)

    # -- public ----------------------------------------------------------------------------
    def finish(self):
        """Waits for every command enqueued on the app (clip_app_finish)."""
        self._acquire()
        try:
            self._check(lib.clip_app_finish(self._p))
        finally:
            self._lock.release()

    def transfer_stats(self):
        """Host<->device traffic since the app was made (clip_app_transfer_stats): a dict of
        to_device, to_host (copies), bytes_to_device, bytes_to_host, between_devices,
        bytes_between_devices."""
        st = ffi.new("clip_transfer_stats *")
        self._check(lib.clip_app_transfer_stats(self._p, st))
        return {k: getattr(st, k) for k in ("to_device", "to_host", "bytes_to_device",
                                             "bytes_to_host", "between_devices",
                                             "bytes_between_devices")}

    def stats(self):
        """transfer_stats() plus live_data (clip data objects Python holds on this app: device
        arrays and temporaries), kept_processes (processes kept for reuse), and the calls' counts
        since the app was made: inits (clip_process_init, a process's first call of its kinds),
        rebinds (clip_process_rebind, every later call, and a first call's NumPy results),
        rebind_inits (those rebinds that had to init again: an input whose values init read
        had changed) and evictions (kept processes destroyed to retry a call that ran out of
        memory)."""
        d = self.transfer_stats()
        d["live_data"] = self._live + 0
        d["kept_processes"] = len(self._cache)
        d.update(self._counts)
        return d

    def close(self):
        """Frees the kept processes and the app (device arrays made on it stay valid: each keeps
        the device alive until it is freed). A second close does nothing."""
        if self._p is None:
            return
        with self._lock:
            self._drain()
            for kept in self._cache.values():
                lib.clip_process_destroy(kept.p)
            self._cache.clear()
            lib.clip_app_destroy(self._p)
            self._p = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        from . import _procs
        fn = _procs.function(name)
        if fn is None:
            raise AttributeError(name)
        return lambda *a, **k: fn(*a, app=self, **k)

    def __repr__(self):
        if self._p is None:
            return "<clipcl.App closed>"
        return "<clipcl.App on %s>" % ", ".join("%d: %s" % (d["index"], d["name"])
                                               for d in self.devices)


_default = None
_default_lock = threading.Lock()


def default_app():
    """The app the functions use when not given app=: made at first use on CLIP_DEVICE's
    device (or the best one), or the one set_device chose; made again after a close()."""
    global _default
    a = _default
    if a is None or a._p is None:  # none yet, or the user closed it
        with _default_lock:
            if _default is None or _default._p is None:
                _default = App()
            a = _default
    return a


def set_device(device=None, fp64=True):
    """Replaces the default app with App(device, fp64) and returns it (device arrays made on the
    old one stay valid)."""
    global _default
    app = App(device, fp64)
    with _default_lock:
        old, _default = _default, app
    if old is not None:
        old.close()
    return app
