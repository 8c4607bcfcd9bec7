/* MATLAB arrays <-> clip data. Both are column-major with dims[0] = rows, so real data is used
 * as it lies: inputs are wrapped (clip_data_wrap: read in place where the device shares host
 * memory), results are written into the MATLAB array that is returned, gathers read straight
 * into it and uploads write straight from the MATLAB array (clip_data_read/write). Complex data
 * is interleaved in clip and either interleaved in MATLAB too (built with -R2018a or
 * MX_HAS_INTERLEAVED_COMPLEX: handled as real data is) or split into real and imaginary parts
 * (Octave's default, older MATLAB), which is re-laid here through a copy. */
#include <string.h>

#include "gateway.h"

#if defined(MX_HAS_INTERLEAVED_COMPLEX) && MX_HAS_INTERLEAVED_COMPLEX
#define GW_INTERLEAVED 1
#else
#define GW_INTERLEAVED 0
#endif

/* Splits or joins numel complex elements of `real` bytes per part. */
static void interleave(void *dst, const void *re, const void *im, size_t numel, size_t real) {
    char *o = dst;
    for (size_t i = 0; i < numel; i++, o += 2 * real) {
        memcpy(o, (const char *)re + i * real, real);
        if (im) memcpy(o + real, (const char *)im + i * real, real);
        else memset(o + real, 0, real);
    }
}

static void deinterleave(void *re, void *im, const void *src, size_t numel, size_t real) {
    const char *s = src;
    for (size_t i = 0; i < numel; i++, s += 2 * real) {
        memcpy((char *)re + i * real, s, real);
        memcpy((char *)im + i * real, s + real, real);
    }
}

/* The element storage of a (interleaved when complex, as clip lays it), or NULL when MATLAB
 * splits complex parts. */
static void *storage(const mxArray *a) {
#if GW_INTERLEAVED
    if (mxIsComplex(a))
        return mxIsDouble(a) ? (void *)mxGetComplexDoubles(a) : (void *)mxGetComplexSingles(a);
    return mxGetData(a);
#else
    return mxIsComplex(a) ? NULL : mxGetData(a);
#endif
}

/* Checks that a can become clip data and gives its type and dims. */
static int describe(const mxArray *a, clip_type *t, int *nd, size_t dims[CLIP_MAX_DIMS],
                    gw_error *e) {
    if (mxIsSparse(a))
        return gw_fail(e, "clip:sparse", "clip: sparse arrays are not supported; use full(A)");
    if (!mxIsDouble(a) && !mxIsSingle(a))
        return gw_fail(e, "clip:badClass", "clip: inputs must be single or double, not %s",
                       mxGetClassName(a));
    mwSize n = mxGetNumberOfDimensions(a);
    if (n > CLIP_MAX_DIMS)
        return gw_fail(e, "clip:dims", "clip: %d dimensions; at most %d are supported", (int)n,
                       CLIP_MAX_DIMS);
    const mwSize *md = mxGetDimensions(a);
    for (mwSize i = 0; i < n; i++) dims[i] = (size_t)md[i];
    *nd = (int)n;
    int dbl = mxIsDouble(a), cx = mxIsComplex(a);
    *t = cx ? (dbl ? CLIP_C64 : CLIP_C32) : (dbl ? CLIP_F64 : CLIP_F32);
    return 0;
}

/* A new clip data object holding a copy of split complex `a`, interleaved on the host. */
static int copy_split(clip_app *app, const mxArray *a, clip_type t, int nd, const size_t *dims,
                      clip_data **out, gw_error *e) {
    void *dst = NULL;
    clip_status s = clip_data_create(app, t, nd, dims, out);
    if (s == CLIP_OK) s = clip_data_host_write(*out, &dst);
    if (s == CLIP_OK && dst)
        interleave(dst, mxGetData(a), mxGetImagData(a), mxGetNumberOfElements(a),
                   clip_type_is_double(t) ? sizeof(double) : sizeof(float));
    if (s == CLIP_OK) return 0;
    clip_data_destroy(*out);
    *out = NULL;
    return gw_fail_clip(e, app, s);
}

int gw_wrap_input(clip_app *app, const mxArray *a, clip_data **out, gw_error *e) {
    *out = NULL;
    clip_type t;
    int nd = 0;
    size_t dims[CLIP_MAX_DIMS];
    if (describe(a, &t, &nd, dims, e)) return 1;
    void *src = storage(a);
    if (!src && mxIsComplex(a)) return copy_split(app, a, t, nd, dims, out, e);
    clip_status s = clip_data_wrap(app, t, nd, dims, src, out);
    return s == CLIP_OK ? 0 : gw_fail_clip(e, app, s);
}

int gw_upload(clip_app *app, const mxArray *a, clip_data **out, gw_error *e) {
    *out = NULL;
    clip_type t;
    int nd = 0;
    size_t dims[CLIP_MAX_DIMS];
    if (describe(a, &t, &nd, dims, e)) return 1;
    const void *src = storage(a);
    clip_status s;
    if (!src && mxIsComplex(a)) {
        if (copy_split(app, a, t, nd, dims, out, e)) return 1;
        s = clip_data_upload(*out);
    } else {
        /* Straight to the device: clip's host copy of the array is never touched. */
        s = clip_data_create(app, t, nd, dims, out);
        if (s == CLIP_OK) s = clip_data_write(*out, src);
    }
    if (s == CLIP_OK) return 0;
    clip_data_destroy(*out);
    *out = NULL;
    return gw_fail_clip(e, app, s);
}

/* A new MATLAB array of clip type t and dims, contents undefined. */
static mxArray *new_array(clip_type t, int nd, const size_t *dims) {
    mwSize md[CLIP_MAX_DIMS];
    for (int i = 0; i < nd; i++) md[i] = (mwSize)dims[i];
    /* Uninitialised: clip writes every element (and wrapping or reading into it advises large
     * ones into huge pages, clip_data_wrap). */
    return mxCreateUninitNumericArray((mwSize)nd, md,
                                      clip_type_is_double(t) ? mxDOUBLE_CLASS : mxSINGLE_CLASS,
                                      clip_type_is_complex(t) ? mxCOMPLEX : mxREAL);
}

int gw_new_output(clip_app *app, clip_type t, int nd, const size_t *dims, mxArray **mx,
                  clip_data **out, gw_error *e) {
    *mx = NULL;
    *out = NULL;
    if (!GW_INTERLEAVED && clip_type_is_complex(t)) return 0; /* split: copied at the end */
    mxArray *a = new_array(t, nd, dims);
    clip_status s = clip_data_wrap(app, t, nd, dims, storage(a), out);
    if (s != CLIP_OK) {
        mxDestroyArray(a);
        return gw_fail_clip(e, app, s);
    }
    *mx = a;
    return 0;
}

int gw_to_matlab(clip_data *d, mxArray **out, gw_error *e) {
    *out = NULL;
    clip_type t = clip_data_type(d);
    mxArray *a = new_array(t, clip_data_ndims(d), clip_data_dims(d));
    void *dst = storage(a);
    clip_status s = CLIP_OK;
    if (dst || !clip_data_numel(d)) {
        s = clip_data_read(d, dst); /* straight from the device into the MATLAB array */
    } else {
        const void *src = NULL;
        s = clip_data_host(d, &src);
        if (s == CLIP_OK)
            deinterleave(mxGetData(a), mxGetImagData(a), src, clip_data_numel(d),
                         clip_type_is_double(t) ? sizeof(double) : sizeof(float));
    }
    if (s != CLIP_OK) {
        mxDestroyArray(a);
        return gw_fail_clip(e, clip_data_app(d), s);
    }
    *out = a;
    return 0;
}

int gw_id_arg(const mxArray *a, uint64_t *id, gw_error *e) {
    if (!mxIsUint64(a) || mxGetNumberOfElements(a) != 1 || mxIsComplex(a))
        return gw_fail(e, "clip:usage", "clip: expected a clip.Array id (a uint64 scalar)");
    *id = *(const uint64_t *)mxGetData(a);
    return 0;
}

char *gw_string_arg(const mxArray *a, const char *what, gw_error *e) {
    char *s = mxIsChar(a) ? mxArrayToString(a) : NULL;
    if (!s) gw_fail(e, "clip:usage", "clip: %s must be a character vector", what);
    return s;
}
