"""Descriptor introspection for a library without the introspection calls of issue 47: reads
struct clip_process_desc as include/clip/process_author.h lays it out at 68ed800 (no expert or
auto flags: every parameter is then keyword-only, and no default means "auto")."""
from ._ffi import ffi

ffi.cdef(r"""
typedef struct clip_param_desc_legacy {
    const char *name; int kind; double def; int has_range; double min, max;
    const char *const *choices; const char *doc;
} clip_param_desc_legacy;
typedef struct clip_process_desc_legacy {
    const char *name; const char *summary; int n_inputs; const char *const *input_docs;
    int n_outputs; const char *const *output_docs; const clip_param_desc_legacy *params;
    int n_params; size_t state_size; void *init; void *launch; void *release; void *plan;
    int in_place;
} clip_process_desc_legacy;
""")


def _s(p):
    return ffi.string(p).decode(errors="replace") if p != ffi.NULL else ""


def _io(docs, n):
    out = []
    for i in range(n):
        line = _s(docs[i])
        name, _, doc = line.partition(" ")
        out.append((name, doc.strip()))
    return out


def describe(desc, kinds):
    d = ffi.cast("const clip_process_desc_legacy *", desc)
    info = {"name": _s(d.name), "summary": _s(d.summary),
            "inputs": _io(d.input_docs, d.n_inputs), "outputs": _io(d.output_docs, d.n_outputs),
            "params": []}
    for i in range(d.n_params):
        p = d.params[i]
        choices = []
        if p.choices != ffi.NULL:
            j = 0
            while p.choices[j] != ffi.NULL:
                choices.append(_s(p.choices[j]))
                j += 1
        kind = kinds.get(p.kind, "?")
        dv = getattr(p, "def")
        default = (choices[int(dv)] if kind == "choice" else bool(dv) if kind == "bool"
                   else int(dv) if kind == "int" else float(dv))
        info["params"].append({"name": _s(p.name), "kind": kind, "default": default,
                               "range": (p.min, p.max, False, False) if p.has_range else None,
                               "choices": choices, "doc": _s(p.doc), "expert": True,
                               "auto": False})
    return info
