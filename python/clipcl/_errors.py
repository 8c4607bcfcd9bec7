"""One Python exception class per clip status (include/clip/status.h). Each carries the status's
number and name and clip's own message, and also derives from the built-in exception a Python
user would catch for that kind of failure (a bad shape is a ValueError, a missing file an
OSError, an unknown parameter a TypeError as for any unknown keyword)."""
from ._ffi import ffi, lib


class ClipError(Exception):
    """A clip call failed. status: the clip_status number; status_name: e.g. "CLIP_ERR_SHAPE";
    message: clip's sentence (clip_app_last_error), e.g. "matmul: inner dimensions differ: A
    is 3x4, B is 5x2"."""

    status = None
    status_name = "CLIP_ERR_?"

    def __init__(self, message, status=None):
        Exception.__init__(self, message)
        if status is not None:
            self.status = status
            self.status_name = ffi.string(lib.clip_status_str(status)).decode()
        self.message = message

    def __str__(self):
        return "%s: %s" % (self.status_name, self.message)


# status name -> (class name, built-in base). Names avoid the built-ins' own (TypeError, ...).
_TABLE = [
    ("CLIP_ERR_INVALID_ARG", "InvalidArgumentError", ValueError),
    ("CLIP_ERR_OUT_OF_MEMORY", "OutOfMemoryError", MemoryError),
    ("CLIP_ERR_OVERFLOW", "SizeOverflowError", OverflowError),
    ("CLIP_ERR_NO_DEVICE", "NoDeviceError", RuntimeError),
    ("CLIP_ERR_OPENCL", "OpenCLError", RuntimeError),
    ("CLIP_ERR_BUILD", "BuildError", RuntimeError),
    ("CLIP_ERR_NO_FP64", "NoFP64Error", RuntimeError),
    ("CLIP_ERR_UNKNOWN_PROCESS", "UnknownProcessError", LookupError),
    ("CLIP_ERR_UNKNOWN_PARAM", "UnknownParamError", TypeError),
    ("CLIP_ERR_PARAM_TYPE", "ParamTypeError", TypeError),
    ("CLIP_ERR_PARAM_RANGE", "ParamRangeError", ValueError),
    ("CLIP_ERR_BAD_CHOICE", "BadChoiceError", ValueError),
    ("CLIP_ERR_MISSING_INPUT", "MissingInputError", TypeError),
    ("CLIP_ERR_TYPE", "ElementTypeError", TypeError),
    ("CLIP_ERR_SHAPE", "ShapeError", ValueError),
    ("CLIP_ERR_INNER_DIM", "InnerDimError", ValueError),
    ("CLIP_ERR_NOT_SQUARE", "NotSquareError", ValueError),
    ("CLIP_ERR_BAD_POWER", "BadPowerError", ValueError),
    ("CLIP_ERR_BAD_NORM_ORDER", "BadNormOrderError", ValueError),
    ("CLIP_ERR_LENGTH_MISMATCH", "LengthMismatchError", ValueError),
    ("CLIP_ERR_NOT_INITIALIZED", "NotInitializedError", RuntimeError),
    ("CLIP_ERR_IO", "FileIOError", OSError),
    ("CLIP_ERR_FORMAT", "FormatError", ValueError),
    ("CLIP_ERR_UNSUPPORTED", "UnsupportedError", NotImplementedError),
    ("CLIP_ERR_DIMS", "DimsError", ValueError),
]

BY_STATUS = {}   # status number -> class
BY_NAME = {}     # "CLIP_ERR_SHAPE" -> class
CLASSES = {}     # "ShapeError" -> class


def _make(status, status_name, cls_name, base):
    doc = "clip status %s (%d); also a %s." % (status_name, status, base.__name__)
    cls = type(cls_name, (ClipError, base), {"__doc__": doc, "status": status,
                                            "status_name": status_name,
                                            "__module__": "clipcl"})
    # OSError's constructor reads (errno, strerror) from two arguments; ours passes one.
    BY_STATUS[status] = BY_NAME[status_name] = CLASSES[cls_name] = cls
    return cls


def _build():
    known = {name: (cls, base) for name, cls, base in _TABLE}
    status = 1
    while True:
        name = ffi.string(lib.clip_status_str(status)).decode()
        if name == "CLIP_ERR_?":
            break
        if name in known:
            cls_name, base = known[name]
        else:  # a status newer than this table: a class named after it, a RuntimeError
            cls_name = "".join(w.capitalize() for w in name[len("CLIP_ERR_"):].split("_")) + "Error"
            base = RuntimeError
        _make(status, name, cls_name, base)
        status += 1


_build()


def error(status, message):
    """The exception for `status` with `message` (ClipError itself for an unknown status)."""
    cls = BY_STATUS.get(status)
    if cls is None:
        return ClipError(message, status)
    return cls(message)


def raise_for(status, app_ptr):
    """Raises the exception of a failed call; the message is the app's last error (app_ptr NULL:
    this thread's last app-less failure)."""
    msg = ffi.string(lib.clip_app_last_error(app_ptr)).decode(errors="replace")
    raise error(status, msg or "(no message)")


def fail(status_name, message):
    """An exception of the class of `status_name`, for failures found on the Python side (a
    dtype NumPy cannot give clip, too many dimensions), so callers catch one family."""
    return BY_NAME[status_name](message)
