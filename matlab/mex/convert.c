/* MATLAB arrays <-> clip data. Both are column-major with dims[0] = rows, so real data copies
 * straight through; complex data is interleaved in clip and either interleaved (MATLAB R2018a+
 * built with -R2018a: MX_HAS_INTERLEAVED_COMPLEX) or split into real and imaginary parts
 * (Octave, older MATLAB), which is re-laid here. */
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

int gw_from_matlab(clip_app *app, const mxArray *a, clip_data **out, gw_error *e) {
    *out = NULL;
    if (mxIsSparse(a))
        return gw_fail(e, "clip:sparse", "clip: sparse arrays are not supported; use full(A)");
    if (!mxIsDouble(a) && !mxIsSingle(a))
        return gw_fail(e, "clip:badClass", "clip: inputs must be single or double, not %s",
                       mxGetClassName(a));
    int dbl = mxIsDouble(a), cx = mxIsComplex(a);
    mwSize nd = mxGetNumberOfDimensions(a);
    if (nd > CLIP_MAX_DIMS)
        return gw_fail(e, "clip:dims", "clip: %d dimensions; at most %d are supported", (int)nd,
                       CLIP_MAX_DIMS);
    size_t dims[CLIP_MAX_DIMS];
    const mwSize *md = mxGetDimensions(a);
    for (mwSize i = 0; i < nd; i++) dims[i] = (size_t)md[i];
    clip_type t = cx ? (dbl ? CLIP_C64 : CLIP_C32) : (dbl ? CLIP_F64 : CLIP_F32);
    clip_status s;
#if GW_INTERLEAVED
    const void *src = cx ? (dbl ? (const void *)mxGetComplexDoubles(a)
                                : (const void *)mxGetComplexSingles(a))
                         : mxGetData(a);
    s = clip_data_create_from(app, t, (int)nd, dims, src, out);
#else
    if (!cx) {
        s = clip_data_create_from(app, t, (int)nd, dims, mxGetData(a), out);
    } else {
        s = clip_data_create(app, t, (int)nd, dims, out);
        void *dst = NULL;
        if (s == CLIP_OK) s = clip_data_host_write(*out, &dst);
        if (s == CLIP_OK && dst)
            interleave(dst, mxGetData(a), mxGetImagData(a), mxGetNumberOfElements(a),
                       dbl ? sizeof(double) : sizeof(float));
    }
#endif
    if (s != CLIP_OK) {
        clip_data_destroy(*out);
        *out = NULL;
        return gw_fail_clip(e, app, s);
    }
    return 0;
}

int gw_to_matlab(clip_data *d, mxArray **out, gw_error *e) {
    *out = NULL;
    const void *src = NULL;
    clip_status s = clip_data_host(d, &src);
    if (s != CLIP_OK) return gw_fail_clip(e, clip_data_app(d), s);
    clip_type t = clip_data_type(d);
    int nd = clip_data_ndims(d), cx = clip_type_is_complex(t), dbl = clip_type_is_double(t);
    mwSize dims[CLIP_MAX_DIMS];
    for (int i = 0; i < nd; i++) dims[i] = (mwSize)clip_data_dim(d, i);
    mxArray *a = mxCreateNumericArray((mwSize)nd, dims, dbl ? mxDOUBLE_CLASS : mxSINGLE_CLASS,
                                      cx ? mxCOMPLEX : mxREAL);
    size_t numel = clip_data_numel(d);
    if (numel) {
#if GW_INTERLEAVED
        void *dst = cx ? (dbl ? (void *)mxGetComplexDoubles(a) : (void *)mxGetComplexSingles(a))
                       : mxGetData(a);
        memcpy(dst, src, clip_data_bytes(d));
#else
        if (cx)
            deinterleave(mxGetData(a), mxGetImagData(a), src, numel,
                         dbl ? sizeof(double) : sizeof(float));
        else
            memcpy(mxGetData(a), src, clip_data_bytes(d));
#endif
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
