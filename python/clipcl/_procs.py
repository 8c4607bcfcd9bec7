"""Every registered process as a Python function, generated from its descriptor (the table that
`clip help NAME` prints): inputs are the leading positional arguments, named as the table names
them; the ordinary parameters follow, with the table's defaults; expert parameters (tuning
knobs, CLIP_PARAM_EXPERT) are keyword-only; a parameter whose default means "let the process
choose" (CLIP_PARAM_AUTO) defaults to None. Every function also takes on_device= and app=
(keyword-only). Its docstring is `clip help NAME`. A process a plugin registers
(clipcl.load_plugin, or CLIP_PLUGIN_PATH at import) gets its function the same way."""
import keyword
import threading

from . import _errors
from ._call import run
from ._ffi import ffi, lib, libc

EXPERT = 1
AUTO = 2
_KINDS = {0: "real", 1: "int", 2: "bool", 3: "choice"}
_funcs = {}
_lock = threading.Lock()


class _Default:
    """A parameter left unset: the signature shows the table's default."""
    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text


def _s(p):
    return ffi.string(p).decode(errors="replace") if p != ffi.NULL else ""


def help_text(desc):
    """`clip help NAME`'s text for descriptor desc (clip_process_help into a memory stream)."""
    buf = ffi.new("char **")
    size = ffi.new("size_t *")
    f = libc.open_memstream(buf, size)
    if f == ffi.NULL:
        raise MemoryError("open_memstream failed")
    s = lib.clip_process_help(desc, f)
    libc.fclose(f)
    try:
        text = ffi.string(buf[0], size[0]).decode(errors="replace")
    finally:
        libc.free(buf[0])
    if s:
        raise _errors.error(s, "clip_process_help failed")
    return text


def describe(desc):
    """The descriptor as a dict: name, summary, inputs and outputs [(name, doc)], params [dict
    of name, kind, default, range, choices, doc, expert, auto], transposes (bool:
    clip_process_desc_transposes)."""
    d = {"name": _s(lib.clip_process_desc_name(desc)),
         "summary": _s(lib.clip_process_desc_summary(desc)), "inputs": [], "outputs": [],
         "params": [], "transposes": lib.clip_process_desc_transposes(desc) == 1}
    pn, pd = ffi.new("const char **"), ffi.new("const char **")
    for key, n, get in (("inputs", lib.clip_process_desc_n_inputs(desc),
                         lib.clip_process_desc_input),
                        ("outputs", lib.clip_process_desc_n_outputs(desc),
                         lib.clip_process_desc_output)):
        for i in range(n):
            if get(desc, i, pn, pd) == 0:
                d[key].append((_s(pn[0]), _s(pd[0])))
    info = ffi.new("clip_param_info *")
    for i in range(lib.clip_process_desc_n_params(desc)):
        if lib.clip_process_desc_param(desc, i, info):
            continue
        choices = []
        if info.choices != ffi.NULL:
            j = 0
            while info.choices[j] != ffi.NULL:
                choices.append(_s(info.choices[j]))
                j += 1
        kind = _KINDS.get(info.kind, "?")
        dv = getattr(info, "def")
        if kind == "choice":
            default = choices[int(dv)] if choices else None
        elif kind == "bool":
            default = bool(dv)
        elif kind == "int":
            default = int(dv)
        else:
            default = float(dv)
        d["params"].append({
            "name": _s(info.name), "kind": kind, "default": default,
            "range": (info.min, info.max, bool(info.min_open), bool(info.max_open))
            if info.has_range else None,
            "choices": choices, "doc": _s(info.doc),
            "expert": bool(info.flags & EXPERT), "auto": bool(info.flags & AUTO)})
    return d


def _ident(name, taken):
    s = "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "x"
    if s[0].isdigit():
        s = "_" + s
    while keyword.iskeyword(s) or s in taken:
        s += "_"
    taken.add(s)
    return s


def make_function(desc):
    """A Python function for descriptor desc (see the module doc)."""
    info = describe(desc)
    name = info["name"]
    taken = {"on_device", "app", "_run", "_name"}
    ins = [_ident(n or "x%d" % (i + 1), taken) for i, (n, _) in enumerate(info["inputs"])]
    plain, expert, body = [], [], []
    env = {"_run": run, "_name": name, "_tr": info["transposes"]}
    for j, p in enumerate(info["params"]):
        arg = _ident(p["name"], taken)
        dv = "_d%d" % j
        env[dv] = _Default("None" if p["auto"] else repr(p["default"]))
        (expert if p["expert"] else plain).append("%s=%s" % (arg, dv))
        body.append("    if %s is not %s and %s is not None: ps.append((%r, %s))"
                    % (arg, dv, arg, p["name"], arg))
    pyname = _ident(name, set())
    sig = ", ".join(ins + plain + ["*"] + expert + ["on_device=None", "app=None"])
    src = "def %s(%s):\n    ps = []\n%s\n    return _run(_name, (%s), ps, on_device, app, _tr)\n" % (
        pyname, sig, "\n".join(body), "".join(a + ", " for a in ins))
    exec(compile(src, "<clipcl process %s>" % name, "exec"), env)
    fn = env[pyname]
    outs = ", ".join(n for n, _ in info["outputs"]) or "the outputs"
    order = ("Fortran order; C order from C-ordered 2-D inputs, which go in without a copy"
             if info["transposes"] else "Fortran order")
    fn.__doc__ = ("%s\n\nPython: %s(%s) returns %s: NumPy arrays (%s), or DeviceArrays "
                  "when on_device=True or an input is a DeviceArray (app=: the App to run on; "
                  "default: the inputs' App, else clipcl's default app). Parameters as below "
                  "(values as the command line takes them); None leaves one at its default.\n\n%s"
                  % (info["summary"], pyname, ", ".join(ins + ["..."]), outs, order,
                     help_text(desc)))
    fn.__module__ = "clipcl"
    fn.descriptor = info
    return fn


def refresh():
    """(Re)builds the functions of every registered process; returns {name: function}."""
    with _lock:
        n = lib.clip_process_count()
        for i in range(n):
            desc = lib.clip_process_nth(i)
            name = _s(lib.clip_process_desc_name(desc))
            if name not in _funcs:
                _funcs[name] = make_function(desc)
        return dict(_funcs)


def function(name):
    """The function of process `name`, or None when no process has that name."""
    fn = _funcs.get(name)
    if fn is None and lib.clip_process_find(name.encode()) != ffi.NULL:
        fn = refresh().get(name)
    return fn


def call(name, *inputs, on_device=None, app=None, **params):
    """Runs any registered process by name: call('conv2', A, K, shape='same')."""
    if lib.clip_process_find(name.encode()) == ffi.NULL:
        lib.clip_process_count()  # registers the built-ins on first use
    fn = function(name)
    if fn is None:
        raise _errors.fail("CLIP_ERR_UNKNOWN_PROCESS", "no process is registered as '%s' "
                           "(registered: %s)" % (name, ", ".join(sorted(refresh()))))
    return fn(*inputs, on_device=on_device, app=app, **params)


def load_plugin(path):
    """Loads a plugin (clip_plugin_load) and returns the names of the processes it added, whose
    functions appear in clipcl at once."""
    before = set(refresh())
    s = lib.clip_plugin_load(str(path).encode())
    if s:
        _errors.raise_for(s, ffi.NULL)
    return sorted(set(refresh()) - before)


def load_plugins_env():
    """Loads the plugins CLIP_PLUGIN_PATH names (clip_plugins_load_env)."""
    s = lib.clip_plugins_load_env()
    if s:
        _errors.raise_for(s, ffi.NULL)
    return refresh()
