/* lib/program.c's joining of kernel files (clip_program_get): "A+B" builds kernels/A.cl then B.cl
 * after common.cl into one program, as the tensor conv2 joins tensor_core.cl, conv2.cl and
 * conv2_tensor.cl (that chain builds only on sm_90, so a pair that builds anywhere stands in
 * for it here); a name without a source, or more than four names, is refused with the name. */
#include "internal.h"
#include "testutil.h"

int main(void) {
    clip_app *app = NULL;
    CHECK_OK(app, clip_app_create(&app, NULL));
    if (!app) return 1;
    cl_program one = NULL, again = NULL, joined = NULL, none = NULL;

    /* One file, cached: the same source, type and options give the same program. */
    CHECK_OK(app, clip_program_get(app, "scale", CLIP_F32, "", &one));
    CHECK_OK(app, clip_program_get(app, "scale", CLIP_F32, "", &again));
    CHECK(one && one == again);

    /* Two files in one program: conv2.cl's helpers (its kernels are off without -DKERNEL), then
     * scale.cl, whose kernel is then found in the joined program. */
    CHECK_OK(app, clip_program_get(app, "conv2+scale", CLIP_F32, "", &joined));
    CHECK(joined && joined != one);
    if (joined) {
        cl_int err = CL_SUCCESS;
        cl_kernel k = clCreateKernel(joined, "scale", &err);
        CHECK(err == CL_SUCCESS && k);
        if (k) clReleaseKernel(k);
    }

    /* A missing part is named, wherever it stands. */
    CHECK_STATUS(app, clip_program_get(app, "nosuch", CLIP_F32, "", &none), CLIP_ERR_INVALID_ARG);
    CHECK_MSG(app, "no embedded kernel source 'nosuch'");
    CHECK_STATUS(app, clip_program_get(app, "conv2+nosuch+scale", CLIP_F32, "", &none),
                 CLIP_ERR_INVALID_ARG);
    CHECK_MSG(app, "'nosuch' (in 'conv2+nosuch+scale')");
    CHECK_STATUS(app, clip_program_get(app, "conv2+", CLIP_F32, "", &none), CLIP_ERR_INVALID_ARG);
    CHECK_MSG(app, "no embedded kernel source ''");

    /* Six names are one more than a program joins (the tensor conv2's second pass joins five). */
    CHECK_STATUS(app,
                 clip_program_get(app, "scale+scale+scale+scale+scale+scale", CLIP_F32, "", &none),
                 CLIP_ERR_INVALID_ARG);
    CHECK_MSG(app, "at most 5 parts");
    CHECK(none == NULL);

    clip_app_destroy(app);
    return tu_finish("test_program");
}
