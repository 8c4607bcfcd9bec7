/* matmul example: C = A*B for a 4x3 and a 3x2 matrix (column-major, as MATLAB stores them),
 * printed next to the same product computed on the host. */
#include <math.h>
#include <stdio.h>

#include "clip/clip.h"

int main(void) {
    clip_app *app = NULL;
    if (clip_app_create(&app, NULL) != CLIP_OK) {
        fprintf(stderr, "no OpenCL device: %s\n", clip_app_last_error(NULL));
        return 1;
    }
    enum { M = 4, K = 3, N = 2 };
    double a[M * K], b[K * N];
    for (int i = 0; i < M * K; i++) a[i] = i + 1;          /* A = reshape(1:12, 4, 3) */
    for (int i = 0; i < K * N; i++) b[i] = (i % 2 ? -1 : 1) * 0.5 * i; /* B = [0 -1.5; -0.5 2; 1 -2.5] */
    size_t da[2] = {M, K}, db[2] = {K, N};
    clip_data *A = NULL, *B = NULL, *C = NULL;
    clip_process *p = NULL;
    int rc = 1;
    if (clip_data_create_from(app, CLIP_F64, 2, da, a, &A) != CLIP_OK ||
        clip_data_create_from(app, CLIP_F64, 2, db, b, &B) != CLIP_OK ||
        clip_process_create(app, "matmul", &p) != CLIP_OK || clip_process_set_input(p, 0, A) != CLIP_OK ||
        clip_process_set_input(p, 1, B) != CLIP_OK || clip_process_init(p) != CLIP_OK ||
        clip_process_launch(p) != CLIP_OK || clip_process_output(p, 0, &C) != CLIP_OK) {
        fprintf(stderr, "matmul failed: %s\n", clip_app_last_error(app));
        goto done;
    }
    const void *h = NULL;
    if (clip_data_host(C, &h) != CLIP_OK) {
        fprintf(stderr, "reading C failed: %s\n", clip_app_last_error(app));
        goto done;
    }
    const double *c = h;
    printf("C = A*B (%s kernel on %s):\n", clip_process_variant(p), clip_app_device(app)->name);
    rc = 0;
    for (int i = 0; i < M; i++) {
        for (int j = 0; j < N; j++) {
            double want = 0;
            for (int k = 0; k < K; k++) want += a[i + k * M] * b[k + j * K];
            printf("  %8.3f", c[i + j * M]);
            if (fabs(c[i + j * M] - want) > 1e-12 * (1 + fabs(want))) rc = 1;
        }
        printf("\n");
    }
    printf(rc ? "mismatch with the host product\n" : "matches the host product\n");
done:
    clip_process_destroy(p);
    clip_data_destroy(A);
    clip_data_destroy(B);
    clip_app_destroy(app);
    return rc;
}
