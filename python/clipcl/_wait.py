"""Calls that hold an app, and waits that Ctrl-C can interrupt.

A clip call that waits for the device (a result read back, clip_data_read) blocks inside the C
library with the GIL released; Python runs its SIGINT handler only when that call returns. So in
the main thread a wait on 1 MiB of data or more runs on a helper thread while the main thread
waits on a lock the helper releases when the call returns, which Ctrl-C interrupts (a lock's
acquire, in C, raises the handler's KeyboardInterrupt cleanly; an Event's wait runs Python code of
threading.Condition, and a signal landing there once left its lock half released and raised
RuntimeError instead): the call then raises KeyboardInterrupt at once, and
the helper thread, once the device work is done, frees everything the call made (its
temporaries, its views of NumPy memory, the process's bindings) and only then releases the app
and the NumPy arrays the device was reading or writing. Nothing leaks and no memory is freed
under the device; the next call on that app waits until then. Smaller waits (microseconds to a
few milliseconds of work) run in the calling thread, where a thread switch would cost more than
the work. Work already enqueued is never cancelled: OpenCL has no way to."""
import queue
import threading

from ._ffi import ffi, lib

THRESHOLD = 1 << 20  # bytes moved or made by a call from which its wait can be interrupted

_idle = []
_idle_lock = threading.Lock()


class _Worker(threading.Thread):
    def __init__(self):
        threading.Thread.__init__(self, name="clipcl-wait", daemon=True)
        self.jobs = queue.SimpleQueue()
        self.start()

    def run(self):
        while True:
            job = self.jobs.get()
            job.run()
            job = None  # nothing of the call outlives it here
            with _idle_lock:
                _idle.append(self)


def _submit(job):
    with _idle_lock:
        w = _idle.pop() if _idle else None
    if w is None:
        w = _Worker()
    w.jobs.put(job)


class _Job:
    __slots__ = ("fn", "args", "status", "done", "finished", "mutex", "handed", "session",
                 "error", "submitted")

    def __init__(self, fn, args, session):
        self.fn, self.args, self.session = fn, args, session
        self.status = None
        self.error = None
        self.done = threading.Lock()  # held until the call has returned
        self.done.acquire()
        self.finished = False
        self.mutex = threading.Lock()
        self.handed = False
        self.submitted = False

    def run(self):
        try:
            self.status = self.fn(*self.args)
        except BaseException as e:  # noqa: only a cffi conversion error can land here
            self.error = e
        self.args = None
        with self.mutex:
            self.finished = True
            handed = self.handed
        self.done.release()
        if handed:
            self.session._close()


class Session:
    """Holds app's lock for one call: `with Session(app) as w:`. w.defer(fn, *args) registers
    cleanup, run in reverse order at the end; w.launched = True once work that may read or write
    NumPy memory is enqueued; w.wait(nbytes, fn, *args) runs a blocking clip call (see the
    module doc). Leaving with an exception after a launch waits for the device first (on a helper
    thread, so that the exception is not delayed) before the cleanup frees anything."""

    __slots__ = ("app", "cleanup", "launched", "handed", "keep")

    def __init__(self, app):
        self.app = app
        self.cleanup = []
        self.launched = False
        self.handed = False
        self.keep = None  # objects (NumPy arrays) that must outlive the device work

    def __enter__(self):
        self.app._acquire()
        return self

    def defer(self, fn, *args):
        self.cleanup.append((fn, args))

    def _close(self):
        try:
            while self.cleanup:
                fn, args = self.cleanup.pop()
                fn(*args)
        finally:
            self.keep = None
            self.app._lock.release()

    def __exit__(self, typ, exc, tb):
        if self.handed:
            return False
        if typ is not None and self.launched:
            self.handed = True
            job = _Job(lib.clip_app_finish, (self.app._p,), self)
            job.handed = True
            _submit(job)
            return False
        self._close()
        return False

    def wait(self, nbytes, fn, *args):
        """Runs fn(*args), a clip call that blocks; returns its status."""
        if nbytes < THRESHOLD or threading.current_thread() is not threading.main_thread():
            return fn(*args)
        job = _Job(fn, args, self)
        try:
            _submit(job)
            job.submitted = True
            job.done.acquire()
        except BaseException:
            with job.mutex:
                if job.submitted and not job.finished:
                    job.handed = self.handed = True
            raise
        if job.error is not None:
            raise job.error
        return job.status


def blocking(app, errp, nbytes, keep, fn, *args):
    """A session of one blocking call, for a caller that holds app's lock already: runs
    fn(*args) as Session.wait does (errp: the clip_app whose last error tells why; keep: what
    must live until the device is done), then releases the lock (on Ctrl-C, the helper thread
    does once the device is done) and raises the call's error, if any."""
    w = Session(app)
    w.keep = keep
    try:
        s = w.wait(nbytes, fn, *args)
    except BaseException:
        if not w.handed:
            w._close()
        raise
    msg = ffi.string(lib.clip_app_last_error(errp)).decode(errors="replace") if s else None
    w._close()
    if s:
        from . import _errors
        raise _errors.error(s, msg)
