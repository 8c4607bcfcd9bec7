"""The C library through cffi in ABI mode: declarations copied from include/clip/*.h (cffi reads
no headers), and libclip.so opened with dlopen, so that plugins loaded here share the process
registry of every other user of that library in this process. cffi releases the GIL around every
call into the library."""
import ctypes.util
import glob
import os

import cffi

CDEF = r"""
typedef int clip_status;  /* enum clip_status: an int in the ABI */
const char *clip_status_str(clip_status s);

typedef struct clip_app clip_app;
typedef enum clip_device_kind { CLIP_DEVICE_ANY = 0, CLIP_DEVICE_GPU, CLIP_DEVICE_CPU,
                                CLIP_DEVICE_ACCELERATOR } clip_device_kind;
typedef struct clip_criteria {
    clip_device_kind type; const char *vendor; const char *name;
    int min_version_major; int min_version_minor; const char *extensions; int index;
    int ignore_env; int disable_fp64; int all; int n_indices; int indices[16];
} clip_criteria;
typedef struct clip_device_info {
    int index; char name[128]; char vendor[128]; char platform[128]; char version[128];
    char driver[128]; clip_device_kind type; int version_major, version_minor;
    unsigned compute_units; unsigned clock_mhz; uint64_t global_mem; uint64_t local_mem;
    uint64_t max_alloc; size_t max_work_group; int fp64; double score; int nv_arch;
    uint64_t global_cache;
} clip_device_info;
clip_status clip_devices_list(clip_device_info *out, size_t cap, size_t *count);
clip_status clip_criteria_from_spec(const char *spec, clip_criteria *crit);
clip_status clip_app_create(clip_app **app, const clip_criteria *crit);
void clip_app_destroy(clip_app *app);
const clip_device_info *clip_app_device(const clip_app *app);
int clip_app_device_count(const clip_app *app);
const clip_device_info *clip_app_device_at(const clip_app *app, int i);
const char *clip_app_last_error(const clip_app *app);
clip_status clip_app_finish(clip_app *app);
typedef struct clip_transfer_stats {
    uint64_t to_device; uint64_t to_host; uint64_t bytes_to_device; uint64_t bytes_to_host;
    uint64_t between_devices; uint64_t bytes_between_devices;
} clip_transfer_stats;
clip_status clip_app_transfer_stats(const clip_app *app, clip_transfer_stats *stats);

typedef enum clip_type { CLIP_F32 = 0, CLIP_F64, CLIP_C32, CLIP_C64 } clip_type;
typedef struct clip_data clip_data;
clip_status clip_data_create(clip_app *app, clip_type type, int ndims, const size_t *dims,
                             clip_data **out);
clip_status clip_data_wrap(clip_app *app, clip_type type, int ndims, const size_t *dims,
                           void *host, clip_data **out);
int clip_data_in_place(const clip_data *d);
clip_status clip_data_read(clip_data *d, void *dst);
clip_status clip_data_write(clip_data *d, const void *src);
clip_status clip_data_host(clip_data *d, const void **ptr);
void clip_data_destroy(clip_data *d);
clip_data *clip_data_retain(clip_data *d);
clip_type clip_data_type(const clip_data *d);
int clip_data_ndims(const clip_data *d);
const size_t *clip_data_dims(const clip_data *d);
size_t clip_data_numel(const clip_data *d);
clip_app *clip_data_app(const clip_data *d);

typedef struct clip_process clip_process;
typedef struct clip_process_desc clip_process_desc;
clip_status clip_process_create(clip_app *app, const char *name, clip_process **out);
void clip_process_destroy(clip_process *p);
clip_status clip_process_set_text(clip_process *p, const char *name, const char *text);
clip_status clip_process_set_input(clip_process *p, int index, clip_data *d);
clip_status clip_process_set_output(clip_process *p, int index, clip_data *d);
clip_status clip_process_init(clip_process *p);
clip_status clip_process_launch(clip_process *p);
clip_status clip_process_output(clip_process *p, int index, clip_data **out);
clip_status clip_process_set_timing(clip_process *p, int on);
clip_status clip_process_time_ms(clip_process *p, double *ms);
clip_status clip_process_command_times(clip_process *p, double *ms, size_t cap, size_t *count,
                                       double *span_ms);
void clip_process_unbind(clip_process *p);
clip_status clip_process_rebind(clip_process *p, clip_data *const *inputs,
                                clip_data *const *outputs, int *reinit);
void clip_process_detach(clip_process *p);
const char *clip_process_variant(const clip_process *p);
size_t clip_process_count(void);
const clip_process_desc *clip_process_nth(size_t i);
const clip_process_desc *clip_process_find(const char *name);
const char *clip_process_desc_name(const clip_process_desc *d);
const char *clip_process_desc_summary(const clip_process_desc *d);
typedef struct _IO_FILE FILE;
clip_status clip_process_help(const clip_process_desc *d, FILE *f);

typedef enum clip_sample { CLIP_SAMPLE_AUTO = 0, CLIP_SAMPLE_U8, CLIP_SAMPLE_U16,
                           CLIP_SAMPLE_F32, CLIP_SAMPLE_F64, CLIP_SAMPLE_I8, CLIP_SAMPLE_I16,
                           CLIP_SAMPLE_U32, CLIP_SAMPLE_I32 } clip_sample;
typedef enum clip_fit { CLIP_FIT_EXACT = 0, CLIP_FIT_CLAMP, CLIP_FIT_SCALE } clip_fit;
typedef enum clip_third { CLIP_THIRD_AUTO = 0, CLIP_THIRD_CHANNELS, CLIP_THIRD_PAGES } clip_third;
typedef struct clip_save_opts { clip_sample sample; clip_fit fit; clip_third third;
                                const char *var; int v73; } clip_save_opts;
typedef struct clip_save_report { clip_sample sample; size_t pages, channels; size_t changed;
                                  char text[320]; } clip_save_report;
typedef struct clip_load_opts { const char *var; size_t page; } clip_load_opts;
clip_status clip_load_with(clip_app *app, const char *path, const clip_load_opts *opts,
                           clip_data **out);
clip_status clip_save_with(clip_app *app, const char *path, clip_data *d,
                           const clip_save_opts *opts, clip_save_report *report);
clip_status clip_load(clip_app *app, const char *path, clip_data **out);
clip_status clip_save(clip_app *app, const char *path, clip_data *d);
clip_status clip_save_tiff(clip_app *app, const char *path, clip_data *d, clip_sample sample);
clip_status clip_save_png(clip_app *app, const char *path, clip_data *d, clip_sample sample);
clip_status clip_load_mat(clip_app *app, const char *path, const char *var, clip_data **out);
clip_status clip_save_mat(clip_app *app, const char *path, const char *var, clip_data *d,
                          int v73);
int clip_io_has(const char *format);
"""

# include/clip/process.h: descriptor introspection (the "introspection:" commit of issue 47).
CDEF_INTROSPECTION = r"""
typedef enum clip_param_kind { CLIP_PARAM_REAL, CLIP_PARAM_INT, CLIP_PARAM_BOOL,
                               CLIP_PARAM_CHOICE } clip_param_kind;
typedef struct clip_param_info {
    const char *name; clip_param_kind kind; double def; int has_range; double min, max;
    int min_open, max_open; const char *const *choices; const char *doc; unsigned flags;
} clip_param_info;
int clip_process_desc_n_inputs(const clip_process_desc *d);
int clip_process_desc_n_outputs(const clip_process_desc *d);
int clip_process_desc_n_params(const clip_process_desc *d);
int clip_process_desc_transposes(const clip_process_desc *d);
clip_status clip_process_desc_input(const clip_process_desc *d, int i, const char **name,
                                    const char **doc);
clip_status clip_process_desc_output(const clip_process_desc *d, int i, const char **name,
                                     const char **doc);
clip_status clip_process_desc_param(const clip_process_desc *d, int i, clip_param_info *info);
clip_status clip_plugin_load(const char *path);
clip_status clip_plugins_load_env(void);
"""

# libc, for clip_process_help's FILE (the help text as a string).
CDEF_LIBC = r"""
FILE *open_memstream(char **ptr, size_t *sizeloc);
int fclose(FILE *f);
void free(void *p);
"""

SONAME_MAJOR = 0


def _candidates():
    env = os.environ.get("CLIP_LIBRARY")
    if env:
        return [env], "CLIP_LIBRARY=" + env
    here = os.path.dirname(os.path.abspath(__file__))
    found = sorted(glob.glob(os.path.join(here, "libclip.so*")))
    names = found + ["libclip.so.%d" % SONAME_MAJOR]
    lib = ctypes.util.find_library("clip")
    if lib:
        names.append(lib)
    return names, "bundled in %s, or libclip.so.%d on the loader's path" % (here, SONAME_MAJOR)


def _open():
    ffi = cffi.FFI()
    ffi.cdef(CDEF)
    ffi.cdef(CDEF_INTROSPECTION)
    ffi.cdef(CDEF_LIBC)
    names, where = _candidates()
    errors = []
    for name in names:
        try:
            return ffi, ffi.dlopen(name), ffi.dlopen(None)
        except OSError as e:
            errors.append("%s: %s" % (name, e))
    raise ImportError(
        "clipcl: cannot load the clip library (looked for it %s): %s. Build clip with CMake "
        "(the shared library is build/libclip.so.%d), then set CLIP_LIBRARY to its path, or "
        "install it (cmake --install), or reinstall this package from a checkout whose build/ "
        "holds it." % (where, "; ".join(errors), SONAME_MAJOR))


ffi, lib, libc = _open()
