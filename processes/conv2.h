/* conv2 internals shared by processes/conv2.c (descriptor, init, launch), conv2_choose.c (cost
 * model, which path), conv2_direct.c (direct kernels), conv2_sep.c (rank-one test) and
 * conv2_fft.c (clFFT path). */
#ifndef CLIP_PROCESSES_CONV2_H
#define CLIP_PROCESSES_CONV2_H

#include <stddef.h>

#include "clip/process_author.h"

/* Kernel kinds: the values of -DKERNEL in kernels/conv2.cl. */
enum {
    CONV2_LOCAL = 1,
    CONV2_GLOBAL,
    CONV2_BLOCK,
    CONV2_COLS,
    CONV2_KINFO,
    CONV2_FFTK,
    CONV2_RBLOCK,
    CONV2_TENSOR
};

/* Buffers a pass reads or writes. */
enum { CONV2_BUF_A, CONV2_BUF_K, CONV2_BUF_C, CONV2_BUF_T, CONV2_BUF_U, CONV2_BUF_V, CONV2_NBUF };

/* One direct convolution: input ma x na (per slice), output mo x no at offset (oi, oj) of the
 * full result, filter mk x nk (corr: in correlation orientation as stored). */
typedef struct conv2_geom {
    size_t ma, na, mo, no, oi, oj, mk, nk, slices;
    int pad, corr;
    clip_type t;
} conv2_geom;

/* A direct kernel's configuration: kind, work-group wx x wy, outputs per work-item (local: rj
 * along the row; global: vw rows by rj; block: ri rows by rj; cols: ri rows; rblock: ri vectors
 * of vw rows by rj, one work-item per group; tensor: a group's ri = 64 * TC_S rows by rj columns),
 * and whether the filter size is compiled in. */
typedef struct conv2_cfg {
    int kind, wx, wy, ri, rj, vw, fixed;
} conv2_cfg;

/* A built launch of a direct kernel. ints: ma, na, mo, no, oi, oj, kr, kc, corr, normalize,
 * skipz, ngx, ngy. The tensor kernel's also: its second pass `scaled` (conv2_tensor.cl,
 * TC_SCALED), the passes' temporary tcr (zeroed at build) and the launches' count gen
 * (conv2_direct_launch). */
typedef struct conv2_pass {
    cl_kernel kernel, scaled;
    cl_mem tcr;
    cl_uint gen;
    int src, filt, dst, gated;
    size_t global[2], wg[2], local_bytes;
    cl_int ints[13];
} conv2_pass;

typedef struct conv2_fft conv2_fft;

/* ---- conv2_direct.c ---- */

/* The default configuration of `kind` for this device and geometry (before the local-memory
 * fit; conv2_direct_build shrinks block tiles that do not fit). */
conv2_cfg conv2_default_cfg(clip_process *p, const conv2_geom *g, int kind);
/* Parses a tuning value "NAME" or "NAME:a,b,c[,d]" (local:wx,wy,rj; global:wx,wy,rj,vw;
 * block:wx,wy,ri,rj; rblock:ri,rj[,vw]; tensor:rj[,rows]) into cfg (kind 0 for "fft" and
 * "separable", which set *other to 1 or 2). Returns 0 when the value is well formed and its sizes
 * are sane for the device, -1 otherwise. */
int conv2_parse_tuning(clip_process *p, const conv2_geom *g, const char *value, conv2_cfg *cfg,
                       int *other);
/* Builds the kernel of *cfg for geometry g into *ps (cfg is updated where the work-group or a
 * block tile had to shrink to fit the device). When it cannot run on this device (local memory,
 * work-group size): CLIP_ERR_UNSUPPORTED, with a message only when `forced`. */
clip_status conv2_direct_build(clip_process *p, const conv2_geom *g, conv2_cfg *cfg, int forced,
                               int normalize, int skipz, conv2_pass *ps);
/* Enqueues a built pass; bufs are indexed by CONV2_BUF_*, aoff is the offset in elements of A in
 * bufs[CONV2_BUF_A] (clip_proc_input_view; the tensor pass takes only 0). The tensor kernel's pass
 * runs in two launches: the kernel on the data as they are, then its second pass, which, where
 * the first found a value under the 3xTF32 split's range, finds the operands' ranges
 * (tf32_range.cl, its work-groups together) and runs on the operands scaled by powers of two
 * (kernels/conv2_tensor.cl, TC_SCALED), or, where the first left NaN outputs (its forms that walk
 * spans, TC_NANFIX), recomputes them. On other data it returns at once. */
clip_status conv2_direct_launch(clip_process *p, conv2_pass *ps, const cl_mem *bufs, cl_int aoff,
                                cl_mem kinfo, cl_mem gate);
/* The outputs a group of block configuration c computes once its tile is shrunk to fit the
 * device's local memory, over c's (1 when it fits as it is, 0 when nothing fits). */
double conv2_block_shrink(clip_process *p, const conv2_geom *g, const conv2_cfg *c);
/* The tensor kernel's ring: 8, 16 or 32 filter columns a block (wider filters run in blocks of
 * 32), and the taps of its products for a group of `rows` rows (64, or 64 * TC_S with rows
 * interleaved): KR + rows / 64 - 1 rounded up to the wgmma's K of 8 (TC_N, TC_KRP in
 * kernels/conv2_tensor.cl). */
size_t conv2_tensor_ring(const conv2_geom *g);
size_t conv2_tensor_krp(const conv2_geom *g, int rows);
/* The input columns the tensor kernel stages at a time (TC_CW: 16, 8 or 4; 4 where its operand is
 * read from local memory) for a group of `rows` rows (64, or 128 with rows interleaved in pairs),
 * or 0 when such a group cannot run g (a product wider than 64 columns, ring * rows / 64, more
 * than 64 taps, or local arrays past 100 KB, which the sm_90a build takes). */
size_t conv2_tensor_cw(const conv2_geom *g, int rows);
/* Whether the tensor kernel reads its Toeplitz operand from local memory (TC_SS) rather than
 * building it in registers. */
int conv2_tensor_ss(const conv2_geom *g);
/* The consumer warpgroups of the tensor kernel's second form (TC_WS: a producer warpgroup
 * stages and writes out for them) for a group of `rows` rows each, or 0 for the first form. */
int conv2_tensor_ws(const conv2_geom *g, int rows);
/* The consumer warpgroups configuration c runs (its work-group past the producer's 128
 * work-items: the second form), or 0 for the first form and every other kernel. */
int conv2_cfg_consumers(const conv2_cfg *c);
/* The output rows a work-group of tensor configuration c owns, a band of its spans: its rows
 * (c->ri) times its consumers, or c->ri alone for the first form. */
static inline size_t conv2_cfg_band_rows(const conv2_cfg *c) {
    const int ws = conv2_cfg_consumers(c);
    return (size_t)c->ri * (size_t)(ws ? ws : 1);
}
/* Whether the tensor kernel takes its steps in pairs, one wait for two steps' products
 * (conv2_tensor.cl, TC_PAIRS), for configuration c on g: possible where its A fragments are in
 * registers, whole steps, and the filter is narrower than the ring; chosen for the second form
 * and the ring of 8. */
int conv2_tensor_pairs(const conv2_geom *g, const conv2_cfg *c);
/* Whether configuration c walks spans of band-columns (conv2_tensor.cl, TC_SPAN) on geometry g:
 * the second form always, the first where its operand is in local memory (conv2_tensor_ss). */
int conv2_cfg_spans(const conv2_geom *g, const conv2_cfg *c);
/* The work-groups of tensor configuration c that run at once on `units` compute units. */
size_t conv2_tensor_places(const conv2_geom *g, const conv2_cfg *c, size_t units);
/* The work-groups a slice of a spanned tensor configuration takes (conv2_tensor.cl, TC_SPAN:
 * each walks *span band-columns, a band being the work-group's rows, band after band): one a
 * place (`units` of them: conv2_tensor_places) over all slices, each span at least c->rj long
 * (or the slice's whole band-columns where they are fewer). */
size_t conv2_tensor_spans(const conv2_geom *g, const conv2_cfg *c, size_t units, size_t *span);
/* Whether spans of `span` band-columns cross the ends of bands of `no` columns: some span then
 * walks two segments, each with its ring turn of halo. */
static inline int conv2_span_crosses(size_t span, size_t no) {
    return span % no && no % span;
}
/* The registers each work-item of the second form with ws consumers holds at launch (its
 * -DCLIP_SM90A_MAXNREG: the register file shared evenly), and in split[0] and split[1] those
 * the producer and the consumers then keep (setmaxnreg; 0 and 0 for no split). */
int conv2_tensor_ws_regs(int ws, int split[2]);
/* The register limit the tensor kernel is built with for a group of `rows` rows
 * (-DCLIP_SM90A_MAXNREG), or 0 for none. */
int conv2_tensor_maxnreg(const conv2_geom *g, int rows);
/* Why the tensor kernel (kernels/conv2_tensor.cl) cannot run geometry g on this device,
 * or NULL when it can: it needs wgmma (NVIDIA compute capability 9.0), f32 data and a filter of
 * at most 64 rows. */
const char *conv2_tensor_unavailable(clip_process *p, const conv2_geom *g);
/* "block 32x4 2x16 k31x31" style description of a configuration. */
void conv2_cfg_str(const conv2_cfg *c, const conv2_geom *g, char *buf, size_t cap);

/* ---- conv2_choose.c ---- */

/* The direct kernel auto takes for g on this device, at its kind's defaults (conv2_default_cfg;
 * conv2_direct_build may still shrink it, or find that it cannot run): on CPUs global or rblock,
 * the cheaper by the cost model; on GPUs local or block by the filter's taps and the image's
 * size, and with `tensor` set the tensor kernel (sm_90, f32) where the model puts it below that
 * pick. */
conv2_cfg conv2_auto_direct(clip_process *p, const conv2_geom *g, int tensor);
/* The separable path's two geometries: g1 filters A's columns (mk x 1) into a temporary of
 * mo x na, g2 the temporary's rows (1 x nk) into C. */
void conv2_sep_geoms(const conv2_geom *g, conv2_geom *g1, conv2_geom *g2);
/* The kernels of the two separable passes: `kind` for both where it is nonzero, else by device
 * (CPUs: the cheaper of global and rblock for each; GPUs: the column kernel, then block). */
void conv2_sep_cfgs(clip_process *p, const conv2_geom *g1, const conv2_geom *g2, int kind,
                    conv2_cfg *c1, conv2_cfg *c2);
/* The cost model's time in ms for one pass of configuration c over g on this device, and for
 * the FFT path over g. Estimates for ranking paths, fitted to measurements (bench/CONV2.md). */
double conv2_pass_ms(clip_process *p, const conv2_cfg *c, const conv2_geom *g);
double conv2_fft_ms(clip_process *p, const conv2_geom *g);

/* ---- conv2_sep.c ---- */

/* Rank-one test of the mk x nk filter k (column-major, complex doubles) by its singular values
 * (one-sided Jacobi): rank one when s2 <= max(mk, nk) * eps * s1. On success fills col (mk) and
 * row (nk) with K ~= col * row.' and returns 1; else 0. s1, s2 and the tolerance are reported
 * for messages. */
int conv2_rank_one(const double *k_re, const double *k_im, size_t mk, size_t nk, double eps,
                   double *col_re, double *col_im, double *row_re, double *row_im, double *s1,
                   double *s2, double *tol);

/* ---- conv2_fft.c ---- */

/* 1 when clip was built with clFFT. */
int conv2_fft_available(void);
/* What init says when the fft variant is asked for in a build without clFFT. */
#define CONV2_NO_FFT "built without clFFT; the fft variant is unavailable (Debian: libclfft-dev)"
/* Transform sizes (smallest 2,3,5,7-smooth P >= mo + mk - 1, Q >= no + nk - 1). */
void conv2_fft_sizes(const conv2_geom *g, size_t *P, size_t *Q);
/* Plans, temporaries and kernels of the FFT path for g; `fallback` is the direct pass run (gated)
 * when the data hold non-finite values. Errors: CLIP_ERR_UNSUPPORTED without clFFT,
 * CLIP_ERR_OPENCL / CLIP_ERR_OUT_OF_MEMORY. */
clip_status conv2_fft_init(clip_process *p, const conv2_geom *g, int normalize, conv2_fft **out);
clip_status conv2_fft_launch(clip_process *p, conv2_fft *f, const cl_mem *bufs, cl_mem kinfo,
                             cl_mem gate);
void conv2_fft_release(conv2_fft *f);

#endif
