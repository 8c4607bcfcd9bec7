/* matpow example: Fibonacci numbers from powers of [1 1; 1 0], whose n-th power holds F(n+1),
 * F(n) and F(n-1). A^30 takes 4 squarings and 3 products on the device, not 29 products. */
#include <stdio.h>

#include "clip/clip.h"

int main(void) {
    clip_app *app = NULL;
    if (clip_app_create(&app, NULL) != CLIP_OK) {
        fprintf(stderr, "no OpenCL device: %s\n", clip_app_last_error(NULL));
        return 1;
    }
    const double fib[4] = {1, 1, 1, 0}; /* column-major [1 1; 1 0] */
    size_t dims[2] = {2, 2};
    clip_data *A = NULL, *C = NULL;
    clip_process *p = NULL;
    int rc = 1;
    if (clip_data_create_from(app, CLIP_F64, 2, dims, fib, &A) != CLIP_OK ||
        clip_process_create(app, "matpow", &p) != CLIP_OK || clip_process_set_input(p, 0, A) != CLIP_OK) {
        fprintf(stderr, "setup failed: %s\n", clip_app_last_error(app));
        goto done;
    }
    rc = 0;
    double prev = 0, cur = 1; /* F(0), F(1) on the host, to compare */
    for (int n = 1; n <= 30; n++) {
        const void *h = NULL;
        if (clip_process_set_real(p, "power", n) != CLIP_OK || clip_process_init(p) != CLIP_OK ||
            clip_process_launch(p) != CLIP_OK || clip_process_output(p, 0, &C) != CLIP_OK ||
            clip_data_host(C, &h) != CLIP_OK) {
            fprintf(stderr, "matpow failed: %s\n", clip_app_last_error(app));
            rc = 1;
            break;
        }
        double fn = ((const double *)h)[1]; /* F(n) */
        if (n % 5 == 0) printf("F(%d) = %.0f\n", n, fn);
        if (fn != cur) rc = 1;
        double next = prev + cur;
        prev = cur;
        cur = next;
    }
    printf(rc ? "mismatch with the host recurrence\n" : "matches the host recurrence\n");
done:
    clip_process_destroy(p);
    clip_data_destroy(A);
    clip_app_destroy(app);
    return rc;
}
