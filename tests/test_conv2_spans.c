/* The span layout of conv2's tensor kernel (processes/conv2_direct.c, conv2_tensor_spans), on
 * the host: which configurations walk spans, which layout it picks for the images the GPU
 * measurements chose from (bench/CONV2.md, fifth and sixth rounds), and for many shapes that the
 * spans, walked as the kernel's TC_SPAN walks them, cover every band-column of a slice exactly
 * once, within the places, each span at least the configuration's shortest unless the slice is
 * shorter. Needs no device. */
#include <stdio.h>

#include "../processes/conv2.h"
#include "testutil.h"

/* An output mo x no with an mk x nk filter, `slices` of them. */
static conv2_geom geom(size_t mo, size_t no, size_t mk, size_t nk, size_t slices) {
    conv2_geom g = {0};
    g.ma = mo, g.na = no, g.mo = mo, g.no = no, g.mk = mk, g.nk = nk, g.slices = slices;
    g.t = CLIP_F32;
    return g;
}

/* The second form with two consumers of 128 rows: bands of 256 rows; rj the shortest span. */
static const conv2_cfg ws2 = {CONV2_TENSOR, 384, 1, 128, 128, 1, 1};
/* The first form: one warpgroup, bands of its 128 rows, groups of 256 columns where it does not
 * walk spans. */
static const conv2_cfg first = {CONV2_TENSOR, 128, 1, 128, 256, 1, 1};

/* Walks spans 0 .. n - 1 of `span` band-columns over bands * no as TC_SPAN does (a segment per
 * band a span touches); returns the segments, and counts each band-column's visits in seen. */
static size_t walk(size_t bands, size_t no, size_t n, size_t span, unsigned char *seen) {
    size_t segments = 0;
    for (size_t s = 0; s < n; s++) {
        const size_t first = s * span, last = first + span < bands * no ? first + span : bands * no;
        for (size_t pos = first; pos < last;) {
            const size_t j0 = pos % no, len = last - pos < no - j0 ? last - pos : no - j0;
            for (size_t j = 0; j < len; j++)
                seen[pos + j]++;
            segments++;
            pos += len;
        }
    }
    return segments;
}

/* The layouts measured on the H100 (132 compute units), 31x31 'same': spans across bands at
 * 8192^2, whole bands split evenly at 4096^2 (the faster of the two there), pieces of the
 * shortest span at 2048^2 and 1024^2. */
static void test_measured(void) {
    static const struct {
        size_t side, n, span;
    } cases[] = {{8192, 132, 1986}, {4096, 128, 512}, {2048, 128, 128}, {1024, 32, 128}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const conv2_geom g = geom(cases[i].side, cases[i].side, 31, 31, 1);
        size_t span = 0;
        const size_t n = conv2_tensor_spans(&g, &ws2, 132, &span);
        tu_checks++;
        if (n != cases[i].n || span != cases[i].span) {
            tu_failures++;
            fprintf(stderr, "%zu^2: %zu spans of %zu, want %zu of %zu\n", cases[i].side, n, span,
                    cases[i].n, cases[i].span);
        }
    }
}

/* The first form walks spans where its operand is in local memory (filters of 33 to 63 rows),
 * as many a compute unit as its registers and local memory allow (two at 63x63, three at 47x47,
 * the sixth round's launches on 132 units); the ring of 16 and filters of at most 32 rows keep
 * their groups. */
static void test_first_form(void) {
    static const struct {
        size_t side, k, spans, places, n, span;
    } cases[] = {{8192, 63, 1, 264, 264, 1986},
                 {8192, 47, 1, 396, 396, 1324},
                 {4096, 63, 1, 264, 256, 512},
                 {8192, 15, 0, 0, 0, 0},
                 {8192, 31, 0, 0, 0, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const conv2_geom g = geom(cases[i].side, cases[i].side, cases[i].k, cases[i].k, 1);
        const int spanned = conv2_cfg_spans(&g, &first);
        CHECK(spanned == (int)cases[i].spans);
        if (!spanned) continue;
        const size_t places = conv2_tensor_places(&g, &first, 132);
        size_t span = 0;
        const size_t n = conv2_tensor_spans(&g, &first, places, &span);
        tu_checks++;
        if (places != cases[i].places || n != cases[i].n || span != cases[i].span) {
            tu_failures++;
            fprintf(stderr, "%zu^2 %zux%zu: %zu places, %zu spans of %zu, want %zu, %zu of %zu\n",
                    cases[i].side, cases[i].k, cases[i].k, places, n, span, cases[i].places,
                    cases[i].n, cases[i].span);
        }
    }
}

/* Steps in pairs (conv2_tensor.cl, TC_PAIRS) where the seventh round measured them faster: the
 * second form (31x31, 21x21) and the first form's ring of 8 (7x7), not its ring of 16 (15x15),
 * nor with the operand in local memory (47x47) or a filter as wide as its ring (16x16, 32x32),
 * which leaves no zero column for a pair's second step. */
static void test_pairs(void) {
    static const struct {
        const conv2_cfg *c;
        size_t mk, nk;
        int pairs;
    } cases[] = {{&ws2, 31, 31, 1},   {&ws2, 21, 21, 1},   {&ws2, 32, 32, 0},
                 {&first, 7, 7, 1},   {&first, 7, 8, 0},   {&first, 15, 15, 0},
                 {&first, 16, 16, 0}, {&first, 47, 47, 0}, {&first, 31, 31, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const conv2_geom g = geom(8192, 8192, cases[i].mk, cases[i].nk, 1);
        tu_checks++;
        if (conv2_tensor_pairs(&g, cases[i].c) != cases[i].pairs) {
            tu_failures++;
            fprintf(stderr, "%zux%zu %s form: pairs %d, want %d\n", cases[i].mk, cases[i].nk,
                    cases[i].c == &ws2 ? "second" : "first", !cases[i].pairs, cases[i].pairs);
        }
    }
}

/* Every band-column once, for images from one column to more bands than compute units, slices
 * from 1 to past the units, 21x21 and 15x31 filters (rings of 32) in the second form and 47x47
 * and 40x63 in the first, 2 to 132 units (and the first form's places on them). */
static void test_cover(const conv2_cfg *c, size_t mk_odd, size_t mk_even, size_t nk) {
    static const size_t sides[] = {1, 7, 255, 256, 257, 600, 1000, 2048, 4099, 9000, 70000};
    static const size_t slices[] = {1, 2, 3, 200};
    static const size_t units[] = {2, 114, 132};
    for (size_t a = 0; a < sizeof sides / sizeof *sides; a++)
        for (size_t b = 0; b < sizeof sides / sizeof *sides; b++)
            for (size_t k = 0; k < sizeof slices / sizeof *slices; k++)
                for (size_t u = 0; u < sizeof units / sizeof *units; u++) {
                    const size_t mo = sides[a], no = sides[b];
                    if (mo * no > 200000000) continue;
                    const conv2_geom g = geom(mo, no, b % 2 ? mk_odd : mk_even, nk, slices[k]);
                    const size_t places = conv2_tensor_places(&g, c, units[u]);
                    size_t span = 0;
                    const size_t n = conv2_tensor_spans(&g, c, places, &span);
                    const size_t rows = conv2_cfg_band_rows(c);
                    const size_t bands = (mo + rows - 1) / rows, cols = bands * no;
                    unsigned char *seen = calloc(cols, 1);
                    if (!seen) {
                        CHECK(seen != NULL);
                        return;
                    }
                    const size_t segments = walk(bands, no, n, span, seen);
                    size_t once = 0;
                    for (size_t i = 0; i < cols; i++)
                        once += seen[i] == 1;
                    free(seen);
                    const size_t most = places / slices[k] ? places / slices[k] : 1;
                    tu_checks++;
                    if (once != cols || n < 1 || n > most || (n > 1 && span < (size_t)c->rj) ||
                        segments > n + bands - 1 || (n - 1) * span >= cols) {
                        tu_failures++;
                        fprintf(stderr,
                                "%zux%zu x%zu on %zu units: %zu spans of %zu, %zu segments, %zu of "
                                "%zu band-columns once\n",
                                mo, no, slices[k], units[u], n, span, segments, once, cols);
                    }
                }
}

int main(void) {
    test_measured();
    test_first_form();
    test_pairs();
    test_cover(&ws2, 21, 15, 31);
    test_cover(&first, 47, 40, 63);
    return tu_finish("test_conv2_spans");
}
