/* A user's kernel through clip_proc_kernel_source / clip_proc_kernel_file: built with common.cl's
 * kernel API for each element type, cached by its text (a second init builds nothing), the
 * short built-in names left free, a build error naming the process with the log, a missing file
 * named, f64 refused on an app without fp64. Values against host arithmetic. */
#include <complex.h>
#include <stdio.h>

#include "clip/process_author.h"
#include "internal.h"
#include "testutil.h"

/* y = x * (c + i) for complex types (clip_cmul), y = x * c + (its own real_t) for real ones. */
static const char *const user_src =
    "typedef int real_t; /* free for the user: the built-ins' alias is not defined here */\n"
    "__kernel void twice(__global const clip_elem_t *x, __global clip_elem_t *y, clip_real_t c) {\n"
    "    size_t i = get_global_id(0);\n"
    "#if CLIP_COMPLEX\n"
    "    y[i] = clip_cmul(x[i], (clip_complex_t)(c, 1));\n"
    "#else\n"
    "    real_t one = 1;\n"
    "    y[i] = x[i] * c + one;\n"
    "#endif\n"
    "}\n";

typedef struct {
    cl_kernel k;
} uk_state;

static const char *source_mode = "string"; /* "string", "file:PATH", "broken" */

static clip_status uk_init(clip_process *p) {
    uk_state *st = clip_proc_state(p);
    clip_data *x = clip_proc_input(p, 0), *y = NULL;
    const clip_type t = clip_data_type(x);
    clip_status s = CLIP_OK;
    if (!strncmp(source_mode, "file:", 5))
        s = clip_proc_kernel_file(p, source_mode + 5, t, "", "twice", &st->k);
    else if (!strcmp(source_mode, "broken"))
        s = clip_proc_kernel_source(
            p, "__kernel void twice(__global float *y) { y[0] = no_such_name; }", t, "", "twice",
            &st->k);
    else
        s = clip_proc_kernel_source(p, user_src, t, "", "twice", &st->k);
    if (s != CLIP_OK) return s;
    return clip_proc_output(p, 0, t, clip_data_ndims(x), clip_data_dims(x), &y);
}

static clip_status uk_launch(clip_process *p) {
    uk_state *st = clip_proc_state(p);
    clip_data *x = clip_proc_input(p, 0), *y = NULL;
    clip_process_output(p, 0, &y);
    cl_mem xm = NULL, ym = NULL;
    clip_status s = clip_proc_read_buffer(p, x, &xm);
    if (s == CLIP_OK) s = clip_proc_write_buffer(p, y, 0, &ym);
    const int dbl = clip_type_is_double(clip_data_type(x));
    const double c = clip_proc_real(p, "c");
    const float cf = (float)c;
    if (s == CLIP_OK) s = clip_proc_arg(p, st->k, 0, sizeof xm, &xm);
    if (s == CLIP_OK) s = clip_proc_arg(p, st->k, 1, sizeof ym, &ym);
    if (s == CLIP_OK)
        s = dbl ? clip_proc_arg(p, st->k, 2, sizeof c, &c)
                : clip_proc_arg(p, st->k, 2, sizeof cf, &cf);
    size_t n = clip_data_numel(x);
    if (s == CLIP_OK) s = clip_proc_enqueue(p, st->k, 1, &n, NULL);
    return s;
}

static const char *const names[] = {"X"};
static const char *const docs[] = {"data"};
static const clip_param_desc uk_params[] = {
    {.name = "c", .kind = CLIP_PARAM_REAL, .def = 2, .doc = "factor"}};
static const clip_process_desc uk = {
    .abi = CLIP_PROCESS_ABI,
    .name = "userkernel",
    .summary = "a test of user kernels",
    .n_inputs = 1,
    .input_names = names,
    .input_docs = docs,
    .n_outputs = 1,
    .output_names = names,
    .output_docs = docs,
    .params = uk_params,
    .n_params = 1,
    .state_size = sizeof(uk_state),
    .init = uk_init,
    .launch = uk_launch,
};

static size_t n_programs(clip_app *app) {
    size_t n = 0;
    for (clip_program_entry *e = app->programs; e; e = e->next)
        n++;
    return n;
}

/* Runs userkernel on 5 elements of type t and checks against the host. */
static void run_type(clip_app *app, clip_type t) {
    double re[5] = {1, -2, 3.5, 0.25, 100}, im[5] = {0.5, 1, -1, 2, -3};
    unsigned char in[5 * 16], out[5 * 16];
    for (int i = 0; i < 5; i++) {
        if (t == CLIP_F32) ((float *)in)[i] = (float)re[i];
        if (t == CLIP_F64) ((double *)in)[i] = re[i];
        if (t == CLIP_C32)
            ((float *)in)[2 * i] = (float)re[i], ((float *)in)[2 * i + 1] = (float)im[i];
        if (t == CLIP_C64) ((double *)in)[2 * i] = re[i], ((double *)in)[2 * i + 1] = im[i];
    }
    const size_t dims[1] = {5};
    clip_data *x = NULL, *y = NULL;
    clip_process *p = NULL;
    CHECK_OK(app, clip_data_create_from(app, t, 1, dims, in, &x));
    CHECK_OK(app, clip_process_create(app, "userkernel", &p));
    CHECK_OK(app, clip_process_set_real(p, "c", 3.0));
    CHECK_OK(app, clip_process_set_input(p, 0, x));
    CHECK_OK(app, clip_process_init(p));
    const size_t built = n_programs(app);
    CHECK_OK(app, clip_process_init(p)); /* the same text, type and options: cached */
    CHECK(n_programs(app) == built);
    CHECK_OK(app, clip_process_launch(p));
    CHECK_OK(app, clip_process_output(p, 0, &y));
    CHECK_OK(app, clip_data_read(y, out));
    for (int i = 0; i < 5; i++) {
        double complex want =
            clip_type_is_complex(t) ? (re[i] + im[i] * I) * (3.0 + 1.0 * I) : re[i] * 3.0 + 1.0;
        double complex got = t == CLIP_F32   ? ((float *)out)[i]
                             : t == CLIP_F64 ? ((double *)out)[i]
                             : t == CLIP_C32
                                 ? ((float *)out)[2 * i] + ((float *)out)[2 * i + 1] * I
                                 : ((double *)out)[2 * i] + ((double *)out)[2 * i + 1] * I;
        CHECK(cabs(got - want) <= 1e-5 * cabs(want));
    }
    clip_process_destroy(p);
    clip_data_destroy(x);
}

int main(void) {
    CHECK_OK(NULL, clip_process_register(&uk));
    clip_app *app = tu_app();
    const clip_type types[] = {CLIP_F32, CLIP_F64, CLIP_C32, CLIP_C64};
    for (int i = 0; i < 4; i++)
        if (!clip_type_is_double(types[i]) || clip_app_device(app)->fp64) run_type(app, types[i]);

    /* From a file: the same text is the same cached program; a missing file is named. */
    const char *path = "test_user_kernel.cl";
    FILE *f = fopen(path, "w");
    CHECK(f && fputs(user_src, f) >= 0);
    if (f) fclose(f);
    char mode[256];
    snprintf(mode, sizeof mode, "file:%s", path);
    source_mode = mode;
    const size_t before = n_programs(app);
    run_type(app, CLIP_F32);
    CHECK(n_programs(app) == before);
    remove(path);
    const size_t dims[1] = {2};
    clip_data *x = NULL;
    clip_process *p = NULL;
    CHECK_OK(app, clip_data_create_zeros(app, CLIP_F32, 1, dims, &x));
    CHECK_OK(app, clip_process_create(app, "userkernel", &p));
    CHECK_OK(app, clip_process_set_input(p, 0, x));
    CHECK_STATUS(app, clip_process_init(p), CLIP_ERR_IO);
    CHECK(strstr(clip_app_last_error(app), "userkernel") && strstr(clip_app_last_error(app), path));

    /* A build error names the process and carries the log. */
    source_mode = "broken";
    CHECK_STATUS(app, clip_process_init(p), CLIP_ERR_BUILD);
    CHECK(strstr(clip_app_last_error(app), "userkernel (kernel source): build failed"));
    clip_process_destroy(p);
    clip_data_destroy(x);
    clip_app_destroy(app);

    /* f64 on an app without fp64: refused before any build, naming the process. */
    source_mode = "string";
    clip_criteria c = {0};
    c.disable_fp64 = 1;
    CHECK_OK(NULL, clip_app_create(&app, &c));
    CHECK_OK(app, clip_data_create_zeros(app, CLIP_F64, 1, dims, &x));
    CHECK_OK(app, clip_process_create(app, "userkernel", &p));
    CHECK_OK(app, clip_process_set_input(p, 0, x));
    CHECK_STATUS(app, clip_process_init(p), CLIP_ERR_NO_FP64);
    CHECK(strstr(clip_app_last_error(app), "userkernel"));
    clip_process_destroy(p);
    clip_data_destroy(x);
    clip_app_destroy(app);
    return tu_finish("test_user_kernel");
}
