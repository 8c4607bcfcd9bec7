"""clipcl: clip (image processing and linear algebra on OpenCL devices, with MATLAB's semantics)
from Python.

    import clipcl, numpy as np
    A = np.random.rand(512, 512).astype(np.float32)
    C = clipcl.conv2(A, np.ones((7, 7), np.float32) / 49, 'same')   # as MATLAB's conv2

Every clip process is a function here (help(clipcl.conv2) is `clip help conv2`); arrays are
NumPy arrays with MATLAB's meaning of shape (see clipcl._arrays); DeviceArray keeps data on the
device between calls; every clip status is an exception class (ClipError and its subclasses);
load/save read and write TIFF, PNG, MAT and CFL through clip's own loaders."""
from . import _errors
from ._app import App, default_app, devices, set_device
from ._arrays import DeviceArray, asfortranarray, empty, to_device
from ._call import device_times
from ._errors import ClipError
from ._io import has_format, load, save
from ._procs import call, describe, help_text, refresh
from . import _procs

globals().update(_errors.CLASSES)

__version__ = "0.1.0"
__all__ = ["App", "ClipError", "DeviceArray", "asfortranarray", "call", "default_app",
           "describe", "device_times", "devices", "empty", "finish", "has_format", "help_text",
           "load", "load_plugin", "load_plugins_env", "processes", "refresh", "save",
           "set_device", "stats", "to_device", "transfer_stats"] + sorted(_errors.CLASSES)


def transfer_stats(app=None):
    """The default app's (or app's) transfer counters: see App.transfer_stats."""
    return (app or default_app()).transfer_stats()


def stats(app=None):
    """The default app's (or app's) counters and live objects: see App.stats."""
    return (app or default_app()).stats()


def finish(app=None):
    """Waits for every command enqueued on the default app (or app)."""
    (app or default_app()).finish()


def load_plugin(path):
    """Loads a plugin (clip_plugin_load); its processes become functions of clipcl at once.
    Returns the names it added ([] for a plugin already loaded)."""
    added = _procs.load_plugin(path)
    _install_functions()
    return added


def load_plugins_env():
    """Loads the plugins CLIP_PLUGIN_PATH names (done at import too); see load_plugin."""
    _procs.load_plugins_env()
    _install_functions()


def processes():
    """The names of every registered process (plugins' too)."""
    return sorted(refresh())


def _install_functions():
    g = globals()
    for name, fn in refresh().items():
        if fn.__name__ not in g:
            g[fn.__name__] = fn
            __all__.append(fn.__name__)


def __getattr__(name):
    # A process registered after import (a plugin loaded through another binding, say).
    from ._procs import function
    fn = function(name) if not name.startswith("_") else None
    if fn is None:
        raise AttributeError("module 'clipcl' has no attribute %r" % name)
    return fn


def _load_env_plugins():
    # A broken entry of CLIP_PLUGIN_PATH is a warning, as in the clip tool: the package still
    # imports, with the processes that did load.
    import os
    import warnings
    if os.environ.get("CLIP_PLUGIN_PATH"):
        try:
            _procs.load_plugins_env()
        except ClipError as e:
            warnings.warn("clipcl: CLIP_PLUGIN_PATH: %s" % e, RuntimeWarning, stacklevel=3)


_load_env_plugins()
_install_functions()
