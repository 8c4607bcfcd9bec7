/* MAT 7.3 variables read through HDF5 directly, where matio misreads them. matio 1.5 reads the
 * MATLAB_class attribute through a nul-terminated string type of the attribute's own size: a
 * fixed-length 6-byte "double" written without a terminator (hdf5storage, h5py's np.bytes_)
 * comes back as "doubl", an unknown class, and the variable is lost. Here the attribute is read
 * through a type one byte longer, as HDF5 converts any padding, so every writer's class reads
 * whole. Only numeric and logical datasets are read (the layout MATLAB and hdf5storage share: the
 * dataset's dimensions reversed are MATLAB's, complex is a compound of "real" and "imag"). */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"

#if defined(CLIP_HAVE_MATIO) && defined(CLIP_HAVE_HDF5)

#include <hdf5.h>

/* The class's element type in clip (io.h: small integers f32, large ones f64), or -1 when the
 * class is not numeric or logical. */
static int type_of(const char *cls, int complex) {
    static const char *const f32[] = {"single", "int8", "uint8", "int16", "uint16", "logical"};
    static const char *const f64[] = {"double", "int32", "uint32", "int64", "uint64"};
    for (size_t i = 0; i < sizeof f32 / sizeof f32[0]; i++)
        if (!strcmp(cls, f32[i])) return (int)(complex ? CLIP_C32 : CLIP_F32);
    for (size_t i = 0; i < sizeof f64 / sizeof f64[0]; i++)
        if (!strcmp(cls, f64[i])) return (int)(complex ? CLIP_C64 : CLIP_F64);
    return -1;
}

/* The object's MATLAB_class into buf: 0, or -1 when it has none that reads as a string. */
static int read_class(hid_t obj, char *buf, size_t cap) {
    buf[0] = '\0';
    if (H5Aexists(obj, "MATLAB_class") <= 0) return -1;
    hid_t a = H5Aopen(obj, "MATLAB_class", H5P_DEFAULT);
    hid_t ft = a < 0 ? -1 : H5Aget_type(a);
    hid_t mt = H5Tcopy(H5T_C_S1);
    int rc = -1;
    if (ft >= 0 && mt >= 0 && H5Tget_class(ft) == H5T_STRING) {
        if (H5Tis_variable_str(ft) > 0) {
            char *s = NULL;
            if (H5Tset_size(mt, H5T_VARIABLE) >= 0 && H5Aread(a, mt, &s) >= 0 && s) {
                snprintf(buf, cap, "%s", s);
                H5free_memory(s);
                rc = 0;
            }
        } else {
            /* One byte more than stored, nul-terminated: HDF5 converts any padding into it. */
            const size_t n = H5Tget_size(ft);
            if (n + 1 <= cap && H5Tset_size(mt, n + 1) >= 0 &&
                H5Tset_strpad(mt, H5T_STR_NULLTERM) >= 0 && H5Aread(a, mt, buf) >= 0)
                rc = 0;
            buf[cap - 1] = '\0';
        }
    }
    if (mt >= 0) H5Tclose(mt);
    if (ft >= 0) H5Tclose(ft);
    if (a >= 0) H5Aclose(a);
    return rc;
}

/* Whether the dataset's type is a compound of two numbers named real and imag. */
static int is_complex(hid_t ft) {
    if (H5Tget_class(ft) != H5T_COMPOUND || H5Tget_nmembers(ft) != 2) return 0;
    char *re = H5Tget_member_name(ft, 0), *im = H5Tget_member_name(ft, 1);
    const int ok = re && im && !strcmp(re, "real") && !strcmp(im, "imag");
    H5free_memory(re);
    H5free_memory(im);
    return ok;
}

/* What the search over the root group looks for and finds. */
typedef struct pick {
    const char *var; /* the name asked for, or NULL */
    int logical_ok;  /* second pass: a logical may be the one */
    char name[256];  /* the dataset chosen, "" while none */
    char cls[64];
} pick;

static herr_t visit(hid_t root, const char *name, const H5L_info_t *info, void *data) {
    (void)info;
    pick *p = data;
    if (p->var ? strcmp(name, p->var) != 0 : name[0] == '#') return 0; /* #refs#, #subsystem# */
    hid_t obj = H5Oopen(root, name, H5P_DEFAULT);
    if (obj < 0) return 0;
    char cls[64];
    int take = H5Iget_type(obj) == H5I_DATASET && read_class(obj, cls, sizeof cls) == 0 &&
               type_of(cls, 0) >= 0 && (p->logical_ok || p->var || strcmp(cls, "logical"));
    if (take && H5Aexists(obj, "MATLAB_empty") > 0) take = 0;
    H5Oclose(obj);
    if (!take) return 0;
    snprintf(p->name, sizeof p->name, "%s", name);
    snprintf(p->cls, sizeof p->cls, "%s", cls);
    return 1; /* stop: found */
}

static clip_status read_dataset(clip_app *app, const char *path, hid_t ds, const pick *p,
                                uint64_t file_size, clip_data **out) {
    hid_t space = H5Dget_space(ds), ft = H5Dget_type(ds), mt = -1;
    hsize_t h[32];
    const int r = space < 0 ? -1 : H5Sget_simple_extent_ndims(space);
    clip_status s = CLIP_OK;
    size_t dims[CLIP_MAX_DIMS] = {1, 1};
    int rank = r < 2 ? 2 : r;
    if (r < 0 || r > CLIP_MAX_DIMS || H5Sget_simple_extent_dims(space, h, NULL) != r)
        s = clip_set_error(app, CLIP_ERR_DIMS,
                           "load_mat: %s: variable '%s' has %d dimensions (clip holds up to %d)",
                           path, p->name, r, CLIP_MAX_DIMS);
    size_t numel = 1;
    for (int i = 0; s == CLIP_OK && i < r; i++) {
        dims[i] = (size_t)h[r - 1 - i]; /* HDF5 lists MATLAB's dimensions in reverse */
        if (clip_mul_size(numel, dims[i], &numel))
            s = clip_set_error(app, CLIP_ERR_FORMAT, "load_mat: %s: variable '%s': size overflows",
                               path, p->name);
    }
    const int complex = ft >= 0 && is_complex(ft);
    const H5T_class_t tc = ft >= 0 ? H5Tget_class(ft) : H5T_NO_CLASS;
    if (s == CLIP_OK && !complex && tc != H5T_INTEGER && tc != H5T_FLOAT)
        s = clip_set_error(
            app, CLIP_ERR_FORMAT,
            "load_mat: %s: variable '%s' (class %s) is stored as neither numbers nor "
            "a real/imag compound",
            path, p->name, p->cls);
    if (s == CLIP_OK && numel / 1032 > file_size)
        s = clip_set_error(app, CLIP_ERR_FORMAT,
                           "load_mat: %s: variable '%s' claims %zu elements, more than a %llu-byte "
                           "file can hold",
                           path, p->name, numel, (unsigned long long)file_size);
    const clip_type t = (clip_type)type_of(p->cls, complex);
    const int dbl = clip_type_is_double(t);
    if (s == CLIP_OK) {
        hid_t num = dbl ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT;
        const size_t half = dbl ? sizeof(double) : sizeof(float);
        if (complex) {
            mt = H5Tcreate(H5T_COMPOUND, 2 * half);
            if (mt < 0 || H5Tinsert(mt, "real", 0, num) < 0 || H5Tinsert(mt, "imag", half, num) < 0)
                s = clip_set_error(app, CLIP_ERR_OUT_OF_MEMORY, "load_mat: %s: out of memory",
                                   path);
        } else {
            mt = H5Tcopy(num);
        }
    }
    clip_data *d = NULL;
    if (s == CLIP_OK) s = clip_data_create(app, t, rank, dims, &d);
    void *host = NULL;
    if (s == CLIP_OK) s = clip_data_host_write(d, &host);
    if (s == CLIP_OK && numel && H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, host) < 0)
        s = clip_set_error(app, CLIP_ERR_FORMAT, "load_mat: %s: cannot read variable '%s' (HDF5)",
                           path, p->name);
    if (mt >= 0) H5Tclose(mt);
    if (ft >= 0) H5Tclose(ft);
    if (space >= 0) H5Sclose(space);
    if (s != CLIP_OK) {
        clip_data_destroy(d);
        return s;
    }
    *out = d;
    return CLIP_OK;
}

clip_status clip_io_mat73_read(clip_app *app, const char *path, const char *var, uint64_t file_size,
                               clip_data **out, int *found) {
    *found = 0;
    clip_status s = CLIP_OK;
    H5E_BEGIN_TRY { /* HDF5 prints its error stack by default; clip never prints */
        hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
        pick p = {var, 0, "", ""};
        if (f >= 0) {
            H5Literate(f, H5_INDEX_NAME, H5_ITER_INC, NULL, visit, &p);
            if (!p.name[0] && !var) {
                p.logical_ok = 1;
                H5Literate(f, H5_INDEX_NAME, H5_ITER_INC, NULL, visit, &p);
            }
        }
        hid_t ds = f >= 0 && p.name[0] ? H5Dopen2(f, p.name, H5P_DEFAULT) : -1;
        if (ds >= 0) {
            *found = 1;
            s = read_dataset(app, path, ds, &p, file_size, out);
            H5Dclose(ds);
        }
        if (f >= 0) H5Fclose(f);
    }
    H5E_END_TRY;
    return s;
}

/* The HDF5 type of clip type t as MATLAB stores it (and matio writes it): native float or double,
 * complex as a compound of "real" and "imag"; to close. -1 when HDF5 fails. */
static hid_t numeric_type(clip_type t) {
    const int dbl = clip_type_is_double(t);
    hid_t num = dbl ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT;
    const size_t half = dbl ? sizeof(double) : sizeof(float);
    if (!clip_type_is_complex(t)) return H5Tcopy(num);
    hid_t mt = H5Tcreate(H5T_COMPOUND, 2 * half);
    if (mt >= 0 && (H5Tinsert(mt, "real", 0, num) < 0 || H5Tinsert(mt, "imag", half, num) < 0)) {
        H5Tclose(mt);
        mt = -1;
    }
    return mt;
}

/* Opens path and the variable (var, or the first numeric one): its dataset in *ds and file in
 * *f (both to close), its shape, type and the memory type to read it through (to close).
 * CLIP_ERR_FORMAT naming what was not found. Call inside H5E_BEGIN_TRY. */
static clip_status open_var(clip_app *app, const char *path, const char *var, hid_t *f, hid_t *ds,
                            int *ndims, size_t dims[CLIP_MAX_DIMS], clip_type *type, hid_t *mt) {
    *f = *ds = *mt = -1;
    pick p = {var, 0, "", ""};
    if ((*f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0)
        return clip_set_error(app, CLIP_ERR_FORMAT,
                              "load_mat73_box: %s: not a MAT 7.3 (HDF5) file, or unreadable", path);
    H5Literate(*f, H5_INDEX_NAME, H5_ITER_INC, NULL, visit, &p);
    if (!p.name[0] && !var) {
        p.logical_ok = 1;
        H5Literate(*f, H5_INDEX_NAME, H5_ITER_INC, NULL, visit, &p);
    }
    if (!p.name[0] || (*ds = H5Dopen2(*f, p.name, H5P_DEFAULT)) < 0)
        return var ? clip_set_error(app, CLIP_ERR_FORMAT,
                                    "load_mat73_box: %s: no numeric variable named '%s'", path, var)
                   : clip_set_error(app, CLIP_ERR_FORMAT, "load_mat73_box: %s: no numeric variable",
                                    path);
    hid_t space = H5Dget_space(*ds), ft = H5Dget_type(*ds);
    const int r = space < 0 ? -1 : H5Sget_simple_extent_ndims(space);
    hsize_t h[32];
    clip_status s = CLIP_OK;
    if (r < 0 || r > CLIP_MAX_DIMS || H5Sget_simple_extent_dims(space, h, NULL) != r)
        s = clip_set_error(app, CLIP_ERR_DIMS,
                           "load_mat73_box: %s: variable '%s' has %d dimensions (clip holds up "
                           "to %d)",
                           path, p.name, r, CLIP_MAX_DIMS);
    for (int i = 0; i < CLIP_MAX_DIMS; i++)
        dims[i] = s == CLIP_OK && i < r ? (size_t)h[r - 1 - i] : 1;
    *ndims = r < 2 ? 2 : r;
    const int complex = ft >= 0 && is_complex(ft);
    const H5T_class_t tc = ft >= 0 ? H5Tget_class(ft) : H5T_NO_CLASS;
    if (s == CLIP_OK && !complex && tc != H5T_INTEGER && tc != H5T_FLOAT)
        s = clip_set_error(app, CLIP_ERR_FORMAT,
                           "load_mat73_box: %s: variable '%s' (class %s) is stored as neither "
                           "numbers nor a real/imag compound",
                           path, p.name, p.cls);
    if (s == CLIP_OK) {
        *type = (clip_type)type_of(p.cls, complex);
        if ((*mt = numeric_type(*type)) < 0)
            s = clip_set_error(app, CLIP_ERR_OUT_OF_MEMORY, "load_mat73_box: %s: out of memory",
                               path);
    }
    if (ft >= 0) H5Tclose(ft);
    if (space >= 0) H5Sclose(space);
    return s;
}

static void close_var(hid_t f, hid_t ds, hid_t mt) {
    if (mt >= 0) H5Tclose(mt);
    if (ds >= 0) H5Dclose(ds);
    if (f >= 0) H5Fclose(f);
}

/* A new dataset `var` in the open file f, as matio writes a MATLAB variable (dims reversed, the
 * type's MATLAB form, a MATLAB_class attribute of the class's own length, nul-terminated), but
 * contiguous and allocated at once without a fill, so that writers can put its elements at
 * their offsets. The dataset in *ds (to close), or CLIP_ERR_FORMAT. */
static clip_status create_var(clip_app *app, const char *path, hid_t f, const char *var,
                              clip_type type, int r, const hsize_t *h, hid_t *ds) {
    const char *cls = clip_type_is_double(type) ? "double" : "single";
    hid_t ft = numeric_type(type), space = H5Screate_simple(r, h, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE), st = H5Tcopy(H5T_C_S1), as = -1, a = -1;
    int ok = ft >= 0 && space >= 0 && dcpl >= 0 && st >= 0 &&
             H5Pset_layout(dcpl, H5D_CONTIGUOUS) >= 0 &&
             H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY) >= 0 &&
             H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) >= 0 &&
             (*ds = H5Dcreate2(f, var, ft, space, H5P_DEFAULT, dcpl, H5P_DEFAULT)) >= 0 &&
             H5Tset_size(st, strlen(cls)) >= 0 && H5Tset_strpad(st, H5T_STR_NULLTERM) >= 0 &&
             (as = H5Screate(H5S_SCALAR)) >= 0 &&
             (a = H5Acreate2(*ds, "MATLAB_class", st, as, H5P_DEFAULT, H5P_DEFAULT)) >= 0 &&
             H5Awrite(a, st, cls) >= 0;
    if (a >= 0) H5Aclose(a);
    if (as >= 0) H5Sclose(as);
    if (st >= 0) H5Tclose(st);
    if (dcpl >= 0) H5Pclose(dcpl);
    if (space >= 0) H5Sclose(space);
    if (ft >= 0) H5Tclose(ft);
    return ok ? CLIP_OK
              : clip_set_error(app, CLIP_ERR_FORMAT,
                               "save_mat: %s: cannot lay out variable '%s' (HDF5)", path, var);
}

clip_status clip_io_mat73_layout(clip_app *app, const char *path, const char *tmp, const char *var,
                                 int create, clip_type type, int ndims, const size_t *dims,
                                 uint64_t *offset) {
    clip_status s = CLIP_OK;
    const int r = ndims < 2 ? 2 : ndims;
    hsize_t h[CLIP_MAX_DIMS];
    for (int i = 0; i < r; i++)
        h[r - 1 - i] = i < ndims ? (hsize_t)dims[i] : 1; /* HDF5 lists them in reverse */
    H5E_BEGIN_TRY {
        hid_t f = -1, ds = -1, mt = -1;
        if (create) {
            f = H5Fopen(tmp, H5F_ACC_RDWR, H5P_DEFAULT);
            s = f < 0
                    ? clip_set_error(app, CLIP_ERR_FORMAT,
                                     "save_mat: %s: cannot open the new MAT 7.3 file (HDF5)", path)
                    : create_var(app, path, f, var, type, r, h, &ds);
        } else {
            int nd = 0;
            size_t got[CLIP_MAX_DIMS];
            clip_type t = CLIP_F32;
            s = open_var(app, tmp, var, &f, &ds, &nd, got, &t, &mt);
            for (int i = 0; s == CLIP_OK && i < CLIP_MAX_DIMS; i++)
                if (got[i] != (i < ndims ? dims[i] : 1) || t != type)
                    s = clip_set_error(app, CLIP_ERR_FORMAT,
                                       "save_mat: %s: variable '%s' is not of the type and shape "
                                       "being written",
                                       path, var);
        }
        haddr_t at = HADDR_UNDEF;
        if (s == CLIP_OK && (at = H5Dget_offset(ds)) == HADDR_UNDEF)
            s = clip_set_error(app, CLIP_ERR_FORMAT,
                               "save_mat: %s: variable '%s' is not stored contiguously", path, var);
        *offset = (uint64_t)at;
        close_var(-1, ds, mt);
        if (f >= 0 && H5Fclose(f) < 0 && s == CLIP_OK)
            s = clip_set_error(app, CLIP_ERR_FORMAT, "save_mat: %s: cannot close the file (HDF5)",
                               path);
    }
    H5E_END_TRY;
    return s;
}

clip_status clip_mat73_shape(clip_app *app, const char *path, const char *var, int *ndims,
                             size_t dims[CLIP_MAX_DIMS], clip_type *type) {
    if (!path || !ndims || !dims || !type)
        return clip_set_error(app, CLIP_ERR_INVALID_ARG, "mat73_shape: NULL argument");
    clip_status s = CLIP_OK;
    H5E_BEGIN_TRY {
        hid_t f, ds, mt;
        s = open_var(app, path, var, &f, &ds, ndims, dims, type, &mt);
        close_var(f, ds, mt);
    }
    H5E_END_TRY;
    return s;
}

clip_status clip_mat73_read_box(clip_app *app, const char *path, const char *var,
                                const clip_box *box, void *dst) {
    if (!path || !box || !dst)
        return clip_set_error(app, CLIP_ERR_INVALID_ARG, "mat73_read_box: NULL argument");
    clip_status s = CLIP_OK;
    H5E_BEGIN_TRY {
        hid_t f, ds, mt, file_space = -1, mem_space = -1;
        int nd = 0;
        size_t dims[CLIP_MAX_DIMS];
        clip_type t;
        s = open_var(app, path, var, &f, &ds, &nd, dims, &t, &mt);
        for (int i = 0; s == CLIP_OK && i < CLIP_MAX_DIMS; i++)
            if (box->start[i] > dims[i] || box->count[i] > dims[i] - box->start[i])
                s = clip_set_error(app, CLIP_ERR_INVALID_ARG,
                                   "load_mat73_box: %s: the box lies outside the variable", path);
        /* HDF5 lists MATLAB's dimensions in reverse: the box's too */
        const int r = nd;
        hsize_t start[CLIP_MAX_DIMS], count[CLIP_MAX_DIMS];
        size_t numel = 1;
        for (int i = 0; i < r; i++) {
            start[r - 1 - i] = box->start[i];
            count[r - 1 - i] = box->count[i];
            numel *= box->count[i];
        }
        if (s == CLIP_OK && numel) {
            file_space = H5Dget_space(ds);
            const int dr = file_space < 0 ? -1 : H5Sget_simple_extent_ndims(file_space);
            /* a dataset of fewer than 2 dimensions reads as its own rank */
            const hsize_t *st = start + (r - (dr < 0 ? r : dr)),
                          *ct = count + (r - (dr < 0 ? r : dr));
            if (dr < 0 || H5Sselect_hyperslab(file_space, H5S_SELECT_SET, st, NULL, ct, NULL) < 0 ||
                (mem_space = H5Screate_simple(dr, ct, NULL)) < 0 ||
                H5Dread(ds, mt, mem_space, file_space, H5P_DEFAULT, dst) < 0)
                s = clip_set_error(app, CLIP_ERR_FORMAT,
                                   "load_mat73_box: %s: cannot read a box of the variable (HDF5)",
                                   path);
        }
        if (mem_space >= 0) H5Sclose(mem_space);
        if (file_space >= 0) H5Sclose(file_space);
        close_var(f, ds, mt);
    }
    H5E_END_TRY;
    return s;
}

clip_status clip_load_mat73_box(clip_app *app, const char *path, const char *var,
                                const clip_box *box, clip_data **out) {
    if (!app || !path || !box || !out)
        return clip_set_error(app, CLIP_ERR_INVALID_ARG, "load_mat73_box: NULL argument");
    *out = NULL;
    int nd = 0;
    size_t dims[CLIP_MAX_DIMS];
    clip_type t;
    clip_status s = clip_mat73_shape(app, path, var, &nd, dims, &t);
    int ndb = 2;
    for (int d = 0; d < CLIP_MAX_DIMS; d++)
        if (box->count[d] != 1) ndb = d + 1 > ndb ? d + 1 : ndb;
    clip_data *d = NULL;
    void *host = NULL;
    if (s == CLIP_OK) s = clip_data_create(app, t, ndb, box->count, &d);
    if (s == CLIP_OK) s = clip_data_host_write(d, &host);
    if (s == CLIP_OK && clip_data_numel(d)) s = clip_mat73_read_box(app, path, var, box, host);
    if (s != CLIP_OK) {
        clip_data_destroy(d);
        return s;
    }
    *out = d;
    return CLIP_OK;
}

#else

clip_status clip_io_mat73_read(clip_app *app, const char *path, const char *var, uint64_t file_size,
                               clip_data **out, int *found) {
    (void)app;
    (void)path;
    (void)var;
    (void)file_size;
    (void)out;
    *found = 0;
    return CLIP_OK;
}

static clip_status no_hdf5(clip_app *app) {
    return clip_set_error(app, CLIP_ERR_UNSUPPORTED,
                          "MAT 7.3 boxes: clip was built without HDF5 (CLIP_WITH_HDF5, "
                          "CLIP_WITH_MATIO; Debian: libmatio-dev libhdf5-dev)");
}

clip_status clip_mat73_shape(clip_app *app, const char *path, const char *var, int *ndims,
                             size_t dims[CLIP_MAX_DIMS], clip_type *type) {
    (void)path, (void)var, (void)ndims, (void)dims, (void)type;
    return no_hdf5(app);
}

clip_status clip_mat73_read_box(clip_app *app, const char *path, const char *var,
                                const clip_box *box, void *dst) {
    (void)path, (void)var, (void)box, (void)dst;
    return no_hdf5(app);
}

clip_status clip_io_mat73_layout(clip_app *app, const char *path, const char *tmp, const char *var,
                                 int create, clip_type type, int ndims, const size_t *dims,
                                 uint64_t *offset) {
    (void)path, (void)tmp, (void)var, (void)create, (void)type, (void)ndims, (void)dims;
    *offset = 0;
    return no_hdf5(app);
}

clip_status clip_load_mat73_box(clip_app *app, const char *path, const char *var,
                                const clip_box *box, clip_data **out) {
    (void)path, (void)var, (void)box;
    if (out) *out = NULL;
    return no_hdf5(app);
}

#endif
