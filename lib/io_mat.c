/* MAT load/save through matio: v5 and (where matio has HDF5) v7.3, numeric classes, real or
 * complex, N-D. MAT is column-major like clip, so data moves without reordering. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"
#include "save_file.h"

#ifndef CLIP_HAVE_MATIO

clip_status clip_load_mat(clip_app *app, const char *path, const char *var, clip_data **out) {
    (void)var;
    (void)out;
    return clip_set_error(app, CLIP_ERR_UNSUPPORTED, "load_mat: %s: built without MAT support",
                          path ? path : "(null)");
}

clip_status clip_save_mat(clip_app *app, const char *path, const char *var, clip_data *d, int v73) {
    (void)var;
    (void)d;
    (void)v73;
    return clip_set_error(app, CLIP_ERR_UNSUPPORTED, "save_mat: %s: built without MAT support",
                          path ? path : "(null)");
}

int clip_io_mat73_available(void) {
    return 0;
}

int clip_io_mat_valid_name(const char *s) {
    (void)s;
    return 0;
}

clip_status clip_io_mat73_create(clip_app *app, const char *path, const char *tmp) {
    (void)tmp;
    return clip_set_error(app, CLIP_ERR_UNSUPPORTED, "save_mat: %s: built without MAT support",
                          path);
}

clip_status clip_io_mat73_check(clip_app *app, const char *path, const char *tmp, const char *var,
                                int rank, const size_t *dims, int dbl) {
    (void)tmp, (void)var, (void)rank, (void)dims, (void)dbl;
    return clip_set_error(app, CLIP_ERR_UNSUPPORTED, "save_mat: %s: built without MAT support",
                          path);
}

#else

#include <errno.h>
#include <matio.h>
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>

/* matio logs through one process-global function that prints by default. clip installs a
 * function that keeps the last critical message per thread (matio calls it on the thread that
 * made the failing call), so messages can carry matio's reason without printing anything. */
static _Thread_local char mat_msg[256];

static void on_log(int level, char *message) {
    if (level & (MATIO_LOG_LEVEL_ERROR | MATIO_LOG_LEVEL_CRITICAL))
        snprintf(mat_msg, sizeof mat_msg, "%s", message ? message : "");
}

static pthread_once_t log_once = PTHREAD_ONCE_INIT;

static void install_log(void) {
    Mat_LogInitFunc("clip", on_log);
}

/* Call before every matio use: routes its logging and clears this thread's last message. */
static void mat_begin(void) {
    pthread_once(&log_once, install_log);
    mat_msg[0] = '\0';
}

static const char *why(const char *fallback) {
    return mat_msg[0] ? mat_msg : fallback;
}

/* ---------------------------------------------------------------- v7.3 probe */

static int mat73_ok;
static pthread_once_t mat73_once = PTHREAD_ONCE_INIT;

/* matio without HDF5 answers a v7.3 create with NULL and nothing else tells, so try one. */
static void probe_mat73(void) {
    mat_begin();
    const char *dir = getenv("TMPDIR");
    char name[4096];
    snprintf(name, sizeof name, "%s/clip-mat73-probe-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(name);
    if (fd < 0) return;
    close(fd);
    mat_t *mat = Mat_CreateVer(name, NULL, MAT_FT_MAT73);
    if (mat) {
        mat73_ok = 1;
        Mat_Close(mat);
    }
    remove(name);
}

int clip_io_mat73_available(void) {
    pthread_once(&mat73_once, probe_mat73);
    return mat73_ok;
}

/* ---------------------------------------------------------------- load */

static int is_numeric(const matvar_t *v) {
    return v->class_type >= MAT_C_DOUBLE && v->class_type <= MAT_C_UINT64;
}

static const char *class_name(enum matio_classes c) {
    static const char *const names[] = {
        "empty", "cell",  "struct", "object", "char",   "sparse", "double", "single",   "int8",
        "uint8", "int16", "uint16", "int32",  "uint32", "int64",  "uint64", "function", "opaque"};
    return (unsigned)c < sizeof names / sizeof names[0] ? names[c] : "unknown";
}

/* The documented class -> type mapping: small integers fit f32 exactly, large ones need f64. */
static clip_type type_of_class(enum matio_classes c, int complex) {
    int dbl = c == MAT_C_DOUBLE || c == MAT_C_INT32 || c == MAT_C_UINT32 || c == MAT_C_INT64 ||
              c == MAT_C_UINT64;
    return complex ? (dbl ? CLIP_C64 : CLIP_C32) : (dbl ? CLIP_F64 : CLIP_F32);
}

#define CONVERT(SRC_T)                                                                             \
    do {                                                                                           \
        const SRC_T *s_ = src;                                                                     \
        if (dbl)                                                                                   \
            for (size_t i = 0; i < n; i++)                                                         \
                ((double *)dst)[i * step] = (double)s_[i];                                         \
        else                                                                                       \
            for (size_t i = 0; i < n; i++)                                                         \
                ((float *)dst)[i * step] = (float)s_[i];                                           \
    } while (0)

/* Converts n values of matio class c to float or double, written every `step` elements (2
 * interleaves a real or imaginary part). */
static void convert(enum matio_classes c, const void *src, size_t n, void *dst, int dbl,
                    size_t step) {
    switch (c) {
    case MAT_C_DOUBLE:
        CONVERT(double);
        break;
    case MAT_C_SINGLE:
        CONVERT(float);
        break;
    case MAT_C_INT8:
        CONVERT(int8_t);
        break;
    case MAT_C_UINT8:
        CONVERT(uint8_t);
        break;
    case MAT_C_INT16:
        CONVERT(int16_t);
        break;
    case MAT_C_UINT16:
        CONVERT(uint16_t);
        break;
    case MAT_C_INT32:
        CONVERT(int32_t);
        break;
    case MAT_C_UINT32:
        CONVERT(uint32_t);
        break;
    case MAT_C_INT64:
        CONVERT(int64_t);
        break;
    default:
        CONVERT(uint64_t);
        break;
    }
}

/* Copies a fully read numeric variable into new data. */
static clip_status var_to_data(clip_app *app, const char *path, const matvar_t *v,
                               clip_data **out) {
    /* MATLAB keeps trailing singletons out of a rank, but be lenient with files that have them. */
    int rank = v->rank;
    while (rank > 2 && v->dims[rank - 1] == 1)
        rank--;
    if (rank < 1 || rank > CLIP_MAX_DIMS)
        return clip_set_error(app, CLIP_ERR_DIMS,
                              "load_mat: %s: variable '%s' has %d dimensions (clip holds up to %d)",
                              path, v->name, v->rank, CLIP_MAX_DIMS);
    size_t numel = 1;
    for (int i = 0; i < rank; i++)
        if (clip_mul_size(numel, v->dims[i], &numel))
            return clip_set_error(app, CLIP_ERR_FORMAT,
                                  "load_mat: %s: variable '%s': size overflows", path, v->name);
    size_t esize = Mat_SizeOfClass(v->class_type), part;
    /* matio hands numeric data over in the class's own type; anything else is not trusted. */
    if (numel && (!v->data || (size_t)v->data_size != esize || clip_mul_size(numel, esize, &part) ||
                  v->nbytes < part ||
                  (v->isComplex && (!((mat_complex_split_t *)v->data)->Re ||
                                    !((mat_complex_split_t *)v->data)->Im))))
        return clip_set_error(app, CLIP_ERR_FORMAT, "load_mat: %s: variable '%s': %s", path,
                              v->name, why("data missing or inconsistent with its size"));
    clip_type t = type_of_class(v->class_type, v->isComplex);
    clip_data *d = NULL;
    clip_status s = clip_data_create(app, t, rank, v->dims, &d);
    if (s != CLIP_OK) return s;
    void *host = NULL;
    s = clip_data_host_write(d, &host);
    if (s != CLIP_OK) {
        clip_data_destroy(d);
        return s;
    }
    if (numel) {
        int dbl = clip_type_is_double(t);
        if (v->isComplex) {
            const mat_complex_split_t *z = v->data;
            size_t half = dbl ? sizeof(double) : sizeof(float);
            convert(v->class_type, z->Re, numel, host, dbl, 2);
            convert(v->class_type, z->Im, numel, (char *)host + half, dbl, 2);
        } else {
            convert(v->class_type, v->data, numel, host, dbl, 1);
        }
    }
    *out = d;
    return CLIP_OK;
}

/* Every element takes at least one byte in the file before compression, and zlib expands at
 * most about 1032:1, so a variable claiming more elements than that is corrupt. Checked on the
 * header alone, before matio allocates for the data. */
static clip_status check_claim(clip_app *app, const char *path, const matvar_t *info,
                               uint64_t file_size) {
    size_t numel = 1;
    for (int i = 0; i < info->rank; i++)
        if (!info->dims || clip_mul_size(numel, info->dims[i], &numel))
            return clip_set_error(app, CLIP_ERR_FORMAT, "load_mat: %s: variable '%s': bad size",
                                  path, info->name ? info->name : "?");
    if ((uint64_t)numel / 1032 > file_size)
        return clip_set_error(app, CLIP_ERR_FORMAT,
                              "load_mat: %s: variable '%s' claims %zu elements, more than a "
                              "%llu-byte file can hold",
                              path, info->name ? info->name : "?", numel,
                              (unsigned long long)file_size);
    return CLIP_OK;
}

/* Frees what Mat_VarReadNextInfo returned. matio 1.5's Mat_VarFree frees a v5 function handle's
 * array of nested variables but not the variables in it (a leak the fuzzer found): free them
 * first, through this function, as they may be function handles too. */
static void free_info(matvar_t *v) {
    if (v && v->class_type == MAT_C_FUNCTION && v->data && v->data_size == sizeof(matvar_t *)) {
        matvar_t **nested = v->data;
        for (size_t i = 0; i < v->nbytes / sizeof(matvar_t *); i++) {
            free_info(nested[i]);
            nested[i] = NULL;
        }
    }
    Mat_VarFree(v);
}

/* The header of the first variable named var, or with no name the first numeric one (a logical
 * only when logical_ok), and its position among the file's variables; NULL when there is none. */
static matvar_t *first_var(mat_t *mat, const char *var, int logical_ok, size_t *index) {
    matvar_t *info;
    *index = 0;
    Mat_Rewind(mat);
    while ((info = Mat_VarReadNextInfo(mat)) != NULL &&
           !(var ? info->name && strcmp(info->name, var) == 0
                 : is_numeric(info) && (logical_ok || !info->isLogical))) {
        free_info(info);
        ++*index;
    }
    return info;
}

/* "a struct", "a sparse matrix": what a variable is, for messages. */
static const char *kind_of(const matvar_t *v) {
    switch (v->class_type) {
    case MAT_C_CELL:
        return "a cell array";
    case MAT_C_STRUCT:
        return "a struct";
    case MAT_C_OBJECT:
        return "an object";
    case MAT_C_CHAR:
        return "a char array";
    case MAT_C_SPARSE:
        return "a sparse matrix (MATLAB counts it numeric; clip loads full arrays: save full(X))";
    case MAT_C_FUNCTION:
        return "a function handle";
    case MAT_C_OPAQUE:
        return "an opaque object (a table, string or other class)";
    case MAT_C_EMPTY:
        return "of a class matio could not read";
    default:
        return is_numeric(v) ? "numeric" : "of an unknown class";
    }
}

#define UNSUPPORTED_NOTE                                                                           \
    "clip loads full numeric and logical arrays only: struct, cell, char, sparse, objects and "    \
    "function handles are not supported"

/* No variable to load: the message lists what the file holds, name and class, so the user sees
 * why (a struct, a sparse matrix) rather than "nothing numeric". */
static clip_status nothing_loadable(clip_app *app, const char *path, mat_t *mat, const char *var) {
    char list[1024] = "";
    size_t len = 0, n = 0, shown = 0;
    matvar_t *info;
    Mat_Rewind(mat);
    while ((info = Mat_VarReadNextInfo(mat)) != NULL) {
        const char *cls = info->class_type == MAT_C_EMPTY ? "unreadable class"
                          : info->isLogical               ? "logical"
                                                          : class_name(info->class_type);
        if (len < sizeof list - 80) {
            int w = snprintf(list + len, sizeof list - len, "%s%.63s (%s)", n ? ", " : "",
                             info->name ? info->name : "?", cls);
            len += w > 0 ? (size_t)w : 0;
            shown++;
        }
        n++;
        free_info(info);
    }
    if (!n)
        return clip_set_error(app, CLIP_ERR_FORMAT, "load_mat: %s: %s%s%s", path,
                              var ? "no variable named " : "", var ? var : "",
                              mat_msg[0] ? mat_msg
                              : var      ? ": the file holds none"
                                         : "the file holds no variable");
    if (var)
        return clip_set_error(app, CLIP_ERR_FORMAT,
                              "load_mat: %s: no variable named '%s': the file holds %s%s", path,
                              var, list, shown < n ? ", ..." : "");
    return clip_set_error(
        app, CLIP_ERR_FORMAT,
        "load_mat: %s: no numeric variable to load: the file holds %s%s; " UNSUPPORTED_NOTE, path,
        list, shown < n ? ", ..." : "");
}

/* Finds the variable to load (the named one, or the first numeric one) and returns its position
 * among the file's variables: names may repeat, and only the variable checked here is read.
 * matio stores a logical as uint8, but MATLAB's isnumeric(true) is false: a logical is the one
 * only in a file of no other numeric variable (a mask saved alone still loads). */
static clip_status find_var(clip_app *app, const char *path, mat_t *mat, const char *var,
                            uint64_t file_size, size_t *index, char **name) {
    matvar_t *info = first_var(mat, var, 0, index);
    if (!info && !var) info = first_var(mat, NULL, 1, index);
    if (!info) return nothing_loadable(app, path, mat, var);
    clip_status s = CLIP_OK;
    if (!is_numeric(info))
        s = clip_set_error(app, CLIP_ERR_TYPE,
                           "load_mat: %s: variable '%s' is %s; " UNSUPPORTED_NOTE, path, var,
                           kind_of(info));
    if (s == CLIP_OK) s = check_claim(app, path, info, file_size);
    if (s == CLIP_OK && !info->name)
        s = clip_set_error(app, CLIP_ERR_FORMAT, "load_mat: %s: variable without a name", path);
    if (s == CLIP_OK && !(*name = strdup(info->name)))
        s = clip_set_error(app, CLIP_ERR_OUT_OF_MEMORY, "load_mat: %s: out of memory", path);
    free_info(info);
    return s;
}

/* Reads variable number `index` in full. */
static matvar_t *read_var(mat_t *mat, size_t index) {
    Mat_Rewind(mat);
    for (size_t i = 0; i < index; i++) {
        matvar_t *skip = Mat_VarReadNextInfo(mat);
        if (!skip) return NULL;
        free_info(skip);
    }
    return Mat_VarReadNext(mat);
}

clip_status clip_load_mat(clip_app *app, const char *path, const char *var, clip_data **out) {
    if (!app || !path || !out)
        return clip_set_error(app, CLIP_ERR_INVALID_ARG, "load_mat: NULL %s",
                              !app    ? "app"
                              : !path ? "path"
                                      : "out");
    clip_clear_error(app);
    *out = NULL;
    uint64_t size = 0;
    clip_status s = clip_io_check_readable(app, "load_mat", path, &size);
    if (s != CLIP_OK) return s;
    s = clip_io_mat_check(app, path, size);
    if (s != CLIP_OK) return s;
    mat_begin();
    mat_t *mat = Mat_Open(path, MAT_ACC_RDONLY);
    if (!mat)
        return clip_set_error(app, CLIP_ERR_FORMAT, "load_mat: %s: not a readable MAT file: %s",
                              path, why("matio cannot open it"));
    char *name = NULL;
    size_t index = 0;
    s = find_var(app, path, mat, var, size, &index, &name);
    if ((s == CLIP_ERR_FORMAT || s == CLIP_ERR_TYPE) && Mat_GetVersion(mat) == MAT_FT_MAT73) {
        /* matio may have misread the class (hdf5storage's files): HDF5 reads it whole. Where
         * HDF5 finds nothing either, matio's message stands. */
        Mat_Close(mat);
        mat = NULL;
        int found = 0;
        const clip_status h = clip_io_mat73_read(app, path, var, size, out, &found);
        if (found) s = h;
    }
    if (s == CLIP_OK && mat) {
        mat_msg[0] = '\0';
        matvar_t *v = read_var(mat, index);
        /* matio logs a failed inflate or short read and still returns the variable, with
         * whatever it had read: a logged error means the data cannot be trusted. */
        if (!v || mat_msg[0] || !is_numeric(v))
            s = clip_set_error(app, CLIP_ERR_FORMAT, "load_mat: %s: cannot read variable '%s': %s",
                               path, name, why("corrupt or truncated data"));
        else
            s = var_to_data(app, path, v, out);
        Mat_VarFree(v);
    }
    free(name);
    if (mat) Mat_Close(mat);
    return s;
}

/* ---------------------------------------------------------------- save */

/* MATLAB's rule: a letter, then letters, digits or underscores, at most 63 in all. */
int clip_io_mat_valid_name(const char *s) {
    size_t n = strlen(s);
    if (n == 0 || n > 63 || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
        return 0;
    for (size_t i = 1; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return 0;
    }
    return 1;
}

/* matio wants complex data split into real and imaginary arrays. */
static int split_complex(const void *host, size_t numel, size_t half, mat_complex_split_t *z) {
    z->Re = malloc(numel * half);
    z->Im = malloc(numel * half);
    if (!z->Re || !z->Im) return -1;
    const char *src = host;
    for (size_t i = 0; i < numel; i++) {
        memcpy((char *)z->Re + i * half, src + 2 * i * half, half);
        memcpy((char *)z->Im + i * half, src + (2 * i + 1) * half, half);
    }
    return 0;
}

static uint64_t pad8(uint64_t n) {
    return (n + 7) & ~(uint64_t)7;
}

/* The exact size of the MAT 5 file matio writes for one uncompressed numeric variable: the
 * 128-byte header, then a miMATRIX element (8-byte tag) holding the array flags (16 bytes), the
 * dimensions (int32 each), the name (packed into its 8-byte tag up to 4 characters) and the real
 * and imaginary parts, each padded to 8 bytes. matio ignores short writes (Mat_VarWrite and
 * Mat_Close return 0 on a full disk), so the size is how a save knows it is whole. */
static uint64_t mat5_size(const char *var, int rank, size_t numel, size_t elem, int complex) {
    uint64_t name = strlen(var), part = 8 + pad8((uint64_t)numel * elem);
    return 128 + 8 + 16 + 8 + pad8(4 * (uint64_t)rank) + (name <= 4 ? 8 : 8 + pad8(name)) +
           part * (complex ? 2 : 1);
}

/* MAT 5 holds each dimension and each element's byte count in 32 bits, and matio writes them as
 * int: past INT32_MAX they wrap, and the file it writes says other sizes than it holds. So a
 * variable too large for them is refused before anything is written. */
static clip_status check_mat5_fits(clip_app *app, const char *path, const char *var, clip_data *d) {
    clip_type t = clip_data_type(d);
    int rank = clip_data_ndims(d), dims_fit = 1;
    for (int i = 0; i < rank; i++)
        dims_fit &= clip_data_dim(d, i) <= INT32_MAX;
    size_t half = clip_type_is_double(t) ? sizeof(double) : sizeof(float);
    /* The miMATRIX element's byte count: all but the file header and the element's own tag. */
    uint64_t element =
        mat5_size(var, rank, clip_data_numel(d), half, clip_type_is_complex(t)) - 128 - 8;
    if (dims_fit && element <= INT32_MAX) return CLIP_OK;
    char dstr[128];
    return clip_set_error(app, CLIP_ERR_DIMS,
                          "save_mat: %s: variable '%s' (%s %s, %zu bytes) does not fit MAT 5, "
                          "whose dimensions and byte counts stop at %d: save it as MAT 7.3 "
                          "(clip_save_mat with v73)",
                          path, var, clip_dims_str(d, dstr, sizeof dstr), clip_type_name(t),
                          clip_data_bytes(d), INT32_MAX);
}

/* Why a matio call failed, in the system's words when it left a write error in errno (matio
 * writes through stdio, HDF5 through its own driver, and neither passes errno on). */
static const char *mat_reason(int err, const char *fallback) {
    return err ? strerror(err) : why(fallback);
}

/* errno values only a failed write or flush leaves behind: data was dropped even if matio's
 * calls returned 0. */
static int write_errno(int err) {
    return err == ENOSPC || err == EFBIG || err == EDQUOT || err == EIO;
}

/* Rereads the variable's header from a written v7.3 file, whose layout HDF5 decides, so the
 * save is checked against what was meant rather than against a size. */
static clip_status check_v73(clip_app *app, const char *path, const char *tmp, const char *var,
                             int rank, const size_t *dims, int dbl) {
    mat_msg[0] = '\0';
    mat_t *mat = Mat_Open(tmp, MAT_ACC_RDONLY);
    matvar_t *v = mat ? Mat_VarReadNextInfo(mat) : NULL;
    /* matio 1.5's v7.3 header read leaves isComplex unset, so complexity is not compared. */
    int ok = v && v->name && strcmp(v->name, var) == 0 && v->rank == rank &&
             v->class_type == (dbl ? MAT_C_DOUBLE : MAT_C_SINGLE);
    for (int i = 0; ok && i < rank; i++)
        ok = v->dims[i] == dims[i];
    Mat_VarFree(v);
    if (mat) Mat_Close(mat);
    if (ok) return CLIP_OK;
    return clip_set_error(app, CLIP_ERR_IO,
                          "save_mat: %s: the written file does not read back as variable '%s': %s",
                          path, var, why("its header differs"));
}

static clip_status write_var(clip_app *app, const char *path, clip_save_file *sf, const char *var,
                             clip_data *d, const void *host, int v73) {
    clip_type t = clip_data_type(d);
    int dbl = clip_type_is_double(t), complex = clip_type_is_complex(t);
    size_t numel = clip_data_numel(d), half = dbl ? sizeof(double) : sizeof(float);
    size_t dims[CLIP_MAX_DIMS];
    int rank = clip_data_ndims(d);
    memcpy(dims, clip_data_dims(d), (size_t)rank * sizeof dims[0]);

    mat_complex_split_t z = {NULL, NULL};
    void *data = (void *)host; /* matio only reads it: MAT_F_DONT_COPY_DATA, no copy */
    if (complex) {
        if (numel && split_complex(host, numel, half, &z)) {
            free(z.Re);
            free(z.Im);
            return clip_set_error(app, CLIP_ERR_OUT_OF_MEMORY, "save_mat: %s: out of memory", path);
        }
        data = &z;
    }
    /* matio opens the temporary again by a path, truncating the same file sf holds open: MAT 5
     * through /proc/self/fd/N while it is unnamed; HDF5 (MAT 7.3) needs a real name, so that
     * save keeps a named temporary throughout (lib/save_file.h). */
    clip_status s = v73 ? clip_save_name(app, "save_mat", sf, path) : CLIP_OK;
    if (s != CLIP_OK) {
        free(z.Re);
        free(z.Im);
        return s;
    }
    errno = 0;
    mat_t *mat = Mat_CreateVer(clip_save_path(sf), NULL, v73 ? MAT_FT_MAT73 : MAT_FT_MAT5);
    matvar_t *v = NULL;
    if (!mat)
        s = clip_set_error(app, CLIP_ERR_IO, "save_mat: %s: cannot create the file: %s", path,
                           mat_reason(errno, "matio failed"));
    else if (!(v = Mat_VarCreate(var, dbl ? MAT_C_DOUBLE : MAT_C_SINGLE,
                                 dbl ? MAT_T_DOUBLE : MAT_T_SINGLE, rank, dims, data,
                                 MAT_F_DONT_COPY_DATA | (complex ? MAT_F_COMPLEX : 0))))
        s = clip_set_error(app, CLIP_ERR_OUT_OF_MEMORY, "save_mat: %s: %s", path,
                           why("cannot create the variable"));
    else if (Mat_VarWrite(mat, v, MAT_COMPRESSION_NONE) != 0)
        s = clip_set_error(app, CLIP_ERR_IO, "save_mat: %s: cannot write: %s", path,
                           mat_reason(errno, "matio failed"));
    Mat_VarFree(v);
    if (mat && Mat_Close(mat) != 0 && s == CLIP_OK)
        s = clip_set_error(app, CLIP_ERR_IO, "save_mat: %s: cannot write: %s", path,
                           mat_reason(errno, "matio failed"));
    if (s == CLIP_OK && write_errno(errno))
        s = clip_set_error(app, CLIP_ERR_IO, "save_mat: %s: cannot write: %s", path,
                           strerror(errno));
    free(z.Re);
    free(z.Im);
    if (s != CLIP_OK) return s;
    if (v73) {
        s = check_v73(app, path, clip_save_path(sf), var, rank, dims, dbl);
        if (s != CLIP_OK) return s;
        const clip_save_expect expect = {CLIP_SAVE_SIZE_UNCHECKED, "MATLAB 7.3 MAT-file", 19};
        return clip_save_commit(app, "save_mat", sf, path, &expect);
    }
    const clip_save_expect expect = {mat5_size(var, rank, numel, half, complex),
                                     "MATLAB 5.0 MAT-file", 19};
    return clip_save_commit(app, "save_mat", sf, path, &expect);
}

clip_status clip_io_mat73_create(clip_app *app, const char *path, const char *tmp) {
    if (!clip_io_mat73_available())
        return clip_set_error(app, CLIP_ERR_UNSUPPORTED,
                              "save_mat: %s: v7.3 needs matio built with HDF5, and this one is not",
                              path);
    mat_begin();
    errno = 0;
    mat_t *mat = Mat_CreateVer(tmp, NULL, MAT_FT_MAT73);
    if (!mat)
        return clip_set_error(app, CLIP_ERR_IO, "save_mat: %s: cannot create the file: %s", path,
                              mat_reason(errno, "matio failed"));
    if (Mat_Close(mat) != 0 || write_errno(errno))
        return clip_set_error(app, CLIP_ERR_IO, "save_mat: %s: cannot write: %s", path,
                              mat_reason(errno, "matio failed"));
    return CLIP_OK;
}

clip_status clip_io_mat73_check(clip_app *app, const char *path, const char *tmp, const char *var,
                                int rank, const size_t *dims, int dbl) {
    mat_begin();
    return check_v73(app, path, tmp, var, rank, dims, dbl);
}

clip_status clip_save_mat(clip_app *app, const char *path, const char *var, clip_data *d, int v73) {
    if (!app || !path || !d)
        return clip_set_error(app, CLIP_ERR_INVALID_ARG, "save_mat: NULL %s",
                              !app    ? "app"
                              : !path ? "path"
                                      : "data");
    clip_clear_error(app);
    if (!var) var = "result";
    if (!clip_io_mat_valid_name(var))
        return clip_set_error(app, CLIP_ERR_INVALID_ARG,
                              "save_mat: %s: '%s' is not a valid MATLAB variable name", path, var);
    if (v73 && !clip_io_mat73_available())
        return clip_set_error(app, CLIP_ERR_UNSUPPORTED,
                              "save_mat: %s: v7.3 needs matio built with HDF5, and this one is not",
                              path);
    if (!v73) {
        clip_status s = check_mat5_fits(app, path, var, d);
        if (s != CLIP_OK) return s;
    }
    const void *host = NULL;
    clip_status s = clip_data_host(d, &host);
    if (s != CLIP_OK) return s;
    mat_begin();
    clip_save_file sf;
    s = clip_save_begin(app, "save_mat", path, &sf);
    if (s == CLIP_OK) s = write_var(app, path, &sf, var, d, host, v73);
    clip_save_discard(&sf); /* after a commit, nothing is left to discard */
    return s;
}

#endif /* CLIP_HAVE_MATIO */
