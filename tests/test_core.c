/* Core: device selection by each criterion, data objects and lazy sync, the process runtime,
 * parameters, and every error path of the core. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static void test_devices(void) {
    size_t n = 0;
    CHECK_OK(NULL, clip_devices_list(NULL, 0, &n));
    CHECK(n >= 1);
    clip_device_info devs[16];
    size_t n2 = 0;
    CHECK_OK(NULL, clip_devices_list(devs, 16, &n2));
    CHECK(n2 == n);
    CHECK(devs[0].index == 1);
    CHECK(devs[0].name[0] != '\0');
    CHECK(devs[0].compute_units > 0);
    CHECK(devs[0].score > 0);
    CHECK_STATUS(NULL, clip_devices_list(NULL, 0, NULL), CLIP_ERR_INVALID_ARG);

    /* Default choice is the highest score. */
    int idx = 0;
    clip_criteria none = {.ignore_env = 1};
    CHECK_OK(NULL, clip_device_select(&none, &idx));
    for (size_t i = 0; i < n2; i++) CHECK(devs[i].score <= devs[idx - 1].score);

    const clip_device_info *d = &devs[0];
    /* By type. */
    clip_criteria c = {.ignore_env = 1, .type = d->type};
    CHECK_OK(NULL, clip_device_select(&c, &idx));
    CHECK(devs[idx - 1].type == d->type);
    /* By name substring, case-insensitive. */
    char lower[128];
    size_t k = 0;
    for (; d->name[k] && k < sizeof lower - 1; k++)
        lower[k] = (char)((d->name[k] >= 'A' && d->name[k] <= 'Z') ? d->name[k] + 32 : d->name[k]);
    lower[k] = '\0';
    c = (clip_criteria){.ignore_env = 1, .name = lower};
    CHECK_OK(NULL, clip_device_select(&c, &idx));
    CHECK(strcmp(devs[idx - 1].name, d->name) == 0);
    /* By vendor. */
    c = (clip_criteria){.ignore_env = 1, .vendor = d->vendor};
    CHECK_OK(NULL, clip_device_select(&c, &idx));
    /* By version. */
    c = (clip_criteria){.ignore_env = 1, .min_version_major = 1, .min_version_minor = 2};
    CHECK_OK(NULL, clip_device_select(&c, &idx));
    c = (clip_criteria){.ignore_env = 1, .min_version_major = 99};
    CHECK_STATUS(NULL, clip_device_select(&c, &idx), CLIP_ERR_NO_DEVICE);
    CHECK_MSG(NULL, "min_version=99.0");
    /* By extensions. */
    c = (clip_criteria){.ignore_env = 1, .extensions = "cl_khr_global_int32_base_atomics"};
    CHECK_OK(NULL, clip_device_select(&c, &idx));
    c = (clip_criteria){.ignore_env = 1, .extensions = "cl_khr_global_int32_base_atomics cl_nonexistent_ext"};
    CHECK_STATUS(NULL, clip_device_select(&c, &idx), CLIP_ERR_NO_DEVICE);
    CHECK_MSG(NULL, "cl_nonexistent_ext");
    /* By index. */
    c = (clip_criteria){.ignore_env = 1, .index = 1};
    CHECK_OK(NULL, clip_device_select(&c, &idx));
    CHECK(idx == 1);
    c = (clip_criteria){.ignore_env = 1, .index = 1000};
    CHECK_STATUS(NULL, clip_device_select(&c, &idx), CLIP_ERR_NO_DEVICE);
    /* A name nothing has. */
    c = (clip_criteria){.ignore_env = 1, .name = "no-such-device-xyz"};
    clip_app *app = (clip_app *)1;
    CHECK_STATUS(NULL, clip_app_create(&app, &c), CLIP_ERR_NO_DEVICE);
    CHECK(app == NULL);
    CHECK_MSG(NULL, "no-such-device-xyz");
    /* A hand-made list past indices[] was read (and its picks written) beyond the arrays; one
     * with a repeat made an app driving device 1 as two devices. */
    c = (clip_criteria){.ignore_env = 1, .n_indices = CLIP_MAX_APP_DEVICES + 1};
    for (int i = 0; i < CLIP_MAX_APP_DEVICES; i++)
        c.indices[i] = i + 1;
    app = (clip_app *)1;
    CHECK_STATUS(NULL, clip_app_create(&app, &c), CLIP_ERR_INVALID_ARG);
    CHECK(app == NULL);
    CHECK_STATUS(NULL, clip_device_select(&c, &idx), CLIP_ERR_INVALID_ARG);
    c = (clip_criteria){.ignore_env = 1, .n_indices = 2, .indices = {1, 1}};
    app = (clip_app *)1;
    CHECK_STATUS(NULL, clip_app_create(&app, &c), CLIP_ERR_INVALID_ARG);
    CHECK(app == NULL);
    CHECK_MSG(NULL, "device 1 twice");

    /* Specs, as CLIP_DEVICE and --device take them. */
    clip_criteria s = {0};
    CHECK_OK(NULL, clip_criteria_from_spec("cpu", &s));
    CHECK(s.type == CLIP_DEVICE_CPU);
    s = (clip_criteria){0};
    CHECK_OK(NULL, clip_criteria_from_spec("gpu", &s));
    CHECK(s.type == CLIP_DEVICE_GPU);
    s = (clip_criteria){0};
    CHECK_OK(NULL, clip_criteria_from_spec("2", &s));
    CHECK(s.index == 2);
    s = (clip_criteria){0};
    CHECK_OK(NULL, clip_criteria_from_spec("pthread", &s));
    CHECK(s.name && !strcmp(s.name, "pthread"));
    CHECK_STATUS(NULL, clip_criteria_from_spec("", &s), CLIP_ERR_INVALID_ARG);
    CHECK_STATUS(NULL, clip_criteria_from_spec("0", &s), CLIP_ERR_INVALID_ARG);

    /* CLIP_DEVICE overrides, unless ignored. */
    setenv("CLIP_DEVICE", "no-such-device-xyz", 1);
    CHECK_STATUS(NULL, clip_device_select(NULL, &idx), CLIP_ERR_NO_DEVICE);
    c = (clip_criteria){.ignore_env = 1};
    CHECK_OK(NULL, clip_device_select(&c, &idx));
    setenv("CLIP_DEVICE", "1", 1);
    CHECK_OK(NULL, clip_device_select(NULL, &idx));
    CHECK(idx == 1);
    unsetenv("CLIP_DEVICE");
}

static void test_data(clip_app *app) {
    size_t dims[3] = {3, 4, 2};
    float vals[24];
    for (int i = 0; i < 24; i++) vals[i] = (float)i * 0.5f;
    clip_data *d = NULL;
    CHECK_OK(app, clip_data_create_from(app, CLIP_F32, 3, dims, vals, &d));
    CHECK(clip_data_ndims(d) == 3);
    CHECK(clip_data_dim(d, 0) == 3 && clip_data_dim(d, 1) == 4 && clip_data_dim(d, 2) == 2);
    CHECK(clip_data_dim(d, 5) == 1);
    CHECK(clip_data_numel(d) == 24);
    CHECK(clip_data_bytes(d) == 96);
    CHECK(clip_data_type(d) == CLIP_F32);
    const float *h = NULL;
    CHECK_OK(app, clip_data_host(d, (const void **)&h));
    CHECK(h && h[23] == 11.5f);

    /* 1-D becomes a column, as in MATLAB. */
    clip_data *v = NULL;
    size_t n5 = 5;
    CHECK_OK(app, clip_data_create_zeros(app, CLIP_C64, 1, &n5, &v));
    CHECK(clip_data_ndims(v) == 2 && clip_data_dim(v, 0) == 5 && clip_data_dim(v, 1) == 1);
    const double *z = NULL;
    CHECK_OK(app, clip_data_host(v, (const void **)&z));
    int zero = 1;
    for (int i = 0; i < 10; i++) zero &= z[i] == 0.0;
    CHECK(zero);

    /* Empty data is allowed. */
    clip_data *e = NULL;
    size_t d30[2] = {3, 0};
    CHECK_OK(app, clip_data_create(app, CLIP_F64, 2, d30, &e));
    CHECK(clip_data_numel(e) == 0);
    const void *eh = (const void *)1;
    CHECK_OK(app, clip_data_host(e, &eh));
    CHECK(eh == NULL);

    /* Conversions and promotion. */
    clip_data *cx = NULL;
    CHECK_OK(app, clip_data_convert(d, CLIP_C64, &cx));
    const double *ch = NULL;
    CHECK_OK(app, clip_data_host(cx, (const void **)&ch));
    CHECK(ch[2 * 7] == 3.5 && ch[2 * 7 + 1] == 0.0);
    clip_data *bad = NULL;
    CHECK_STATUS(app, clip_data_convert(cx, CLIP_F32, &bad), CLIP_ERR_TYPE);
    CHECK(clip_type_promote(CLIP_F64, CLIP_F32) == CLIP_F32);
    CHECK(clip_type_promote(CLIP_F64, CLIP_C64) == CLIP_C64);
    CHECK(clip_type_promote(CLIP_C32, CLIP_F64) == CLIP_C32);

    /* Reshape keeps numel. */
    size_t r2[2] = {12, 2};
    CHECK_OK(app, clip_data_reshape(d, 2, r2));
    CHECK(clip_data_dim(d, 0) == 12 && clip_data_ndims(d) == 2);
    size_t r3[2] = {5, 5};
    CHECK_STATUS(app, clip_data_reshape(d, 2, r3), CLIP_ERR_DIMS);

    /* Error paths. */
    size_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    CHECK_STATUS(app, clip_data_create(app, CLIP_F32, 9, nine, &bad), CLIP_ERR_DIMS);
    CHECK_STATUS(app, clip_data_create(app, CLIP_F32, 0, nine, &bad), CLIP_ERR_DIMS);
    CHECK_STATUS(app, clip_data_create(app, (clip_type)42, 2, dims, &bad), CLIP_ERR_INVALID_ARG);
    size_t huge[2] = {SIZE_MAX / 2, 3};
    CHECK_STATUS(app, clip_data_create(app, CLIP_F32, 2, huge, &bad), CLIP_ERR_OVERFLOW);
    size_t big[2] = {SIZE_MAX / 16, 2};
    CHECK_STATUS(app, clip_data_create(app, CLIP_C64, 2, big, &bad), CLIP_ERR_OVERFLOW);
    CHECK(bad == NULL);
    CHECK_STATUS(app, clip_data_create(NULL, CLIP_F32, 2, dims, &bad), CLIP_ERR_INVALID_ARG);

    clip_data_destroy(d);
    clip_data_destroy(v);
    clip_data_destroy(e);
    clip_data_destroy(cx);
    clip_data_destroy(NULL);
}

/* Runs scale on x and returns the process (initialised and launched). */
static clip_process *run_scale(clip_app *app, clip_data *x, double a, double b) {
    clip_process *p = NULL;
    CHECK_OK(app, clip_process_create(app, "scale", &p));
    CHECK_OK(app, clip_process_set_real(p, "a", a));
    CHECK_OK(app, clip_process_set_real(p, "b", b));
    CHECK_OK(app, clip_process_set_input(p, 0, x));
    CHECK_OK(app, clip_process_init(p));
    CHECK_OK(app, clip_process_launch(p));
    return p;
}

static void test_scale_all_types(clip_app *app) {
    const clip_type types[4] = {CLIP_F32, CLIP_F64, CLIP_C32, CLIP_C64};
    unsigned long long seed = 7;
    for (int t = 0; t < 4; t++) {
        size_t dims[3] = {17, 5, 3};
        size_t n = 17 * 5 * 3, comps = clip_type_is_complex(types[t]) ? 2 : 1;
        double *ref = malloc(n * comps * sizeof *ref);
        void *host = malloc(n * clip_type_size(types[t]));
        for (size_t i = 0; i < n * comps; i++) {
            ref[i] = tu_rand(&seed) * 100.0;
            if (clip_type_is_double(types[t]))
                ((double *)host)[i] = ref[i];
            else
                ((float *)host)[i] = (float)ref[i], ref[i] = (float)ref[i];
        }
        clip_data *x = NULL, *y = NULL;
        CHECK_OK(app, clip_data_create_from(app, types[t], 3, dims, host, &x));
        clip_process *p = run_scale(app, x, -2.5, 3.0);
        CHECK_OK(app, clip_process_output(p, 0, &y));
        CHECK(clip_data_type(y) == types[t] && clip_data_ndims(y) == 3 && clip_data_dim(y, 2) == 3);
        const void *yh = NULL;
        CHECK_OK(app, clip_data_host(y, &yh));
        double maxerr = 0;
        for (size_t i = 0; i < n * comps; i++) {
            double want = -2.5 * ref[i] + ((comps == 1 || i % 2 == 0) ? 3.0 : 0.0);
            double got = clip_type_is_double(types[t]) ? ((const double *)yh)[i] : ((const float *)yh)[i];
            double err = fabs(got - want) / (fabs(want) + 1.0);
            if (err > maxerr) maxerr = err;
        }
        CHECK(maxerr < (clip_type_is_double(types[t]) ? 1e-15 : 1e-6));
        double ms = -1;
        CHECK_OK(app, clip_process_time_ms(p, &ms));
        CHECK(ms >= 0.0);
        CHECK(strcmp(clip_process_variant(p), "flat") == 0);
        clip_process_destroy(p);
        clip_data_destroy(x);
        free(ref);
        free(host);
    }
}

/* MATLAB's a*x + b rounds a*x before adding b; a fused multiply-add differs in the last bit
 * (0.1*3 - 0.3: 2^-54 in double, 0 in single, fused 2^-55 and -7.45e-9) and where a*x
 * overflows (1e308*-2 + 1e308 is -Inf). The wants round each step through volatiles. */
static void test_scale_rounds_twice(clip_app *app) {
    const clip_type types[4] = {CLIP_F32, CLIP_F64, CLIP_C32, CLIP_C64};
    const double xs[4] = {3.0, 7.0, -2.0, 1.0 / 3.0};
    const double ab[2][2] = {{0.1, -0.3}, {1e308, 1e308}};
    for (int t = 0; t < 4; t++)
        for (int k = 0; k < 2; k++) {
            const int dbl = clip_type_is_double(types[t]), cx = clip_type_is_complex(types[t]);
            if (!dbl && k == 1) continue; /* 1e308 is Inf in single */
            double host[8];
            float hostf[8];
            size_t dims[2] = {1, 4};
            for (int i = 0; i < 4 * (1 + cx); i++) {
                host[i] = xs[cx ? i / 2 : i];
                hostf[i] = (float)host[i];
            }
            clip_data *x = NULL, *y = NULL;
            CHECK_OK(app, clip_data_create_from(app, types[t], 2, dims,
                                                dbl ? (void *)host : (void *)hostf, &x));
            clip_process *p = run_scale(app, x, ab[k][0], ab[k][1]);
            CHECK_OK(app, clip_process_output(p, 0, &y));
            const void *yh = NULL;
            CHECK_OK(app, clip_data_host(y, &yh));
            for (int i = 0; i < 4 * (1 + cx); i++) {
                const double b = cx && i % 2 ? 0.0 : ab[k][1];
                if (dbl) {
                    volatile double prod = ab[k][0] * host[i];
                    CHECK(((const double *)yh)[i] == prod + b);
                } else {
                    volatile float prod = (float)ab[k][0] * hostf[i];
                    CHECK(((const float *)yh)[i] == prod + (float)b);
                }
            }
            clip_process_destroy(p);
            clip_data_destroy(x);
        }
}

static void test_lazy_sync_and_chain(clip_app *app) {
    size_t dims[2] = {1000, 3};
    float *v = malloc(3000 * sizeof *v);
    for (int i = 0; i < 3000; i++) v[i] = (float)i;
    clip_data *x = NULL;
    CHECK_OK(app, clip_data_create_from(app, CLIP_F32, 2, dims, v, &x));
    clip_transfer_stats s0, s1, s2, s3;
    CHECK_OK(app, clip_app_transfer_stats(app, &s0));

    /* A: y = 2x + 1, B: z = 3y - 1; B reads A's output on the device. */
    clip_process *a = run_scale(app, x, 2.0, 1.0);
    clip_data *y = NULL, *z = NULL;
    CHECK_OK(app, clip_process_output(a, 0, &y));
    clip_process *b = run_scale(app, y, 3.0, -1.0);
    CHECK_OK(app, clip_process_output(b, 0, &z));
    CHECK_OK(app, clip_app_finish(app));
    CHECK_OK(app, clip_app_transfer_stats(app, &s1));
    CHECK(s1.to_device - s0.to_device == 1); /* x uploaded once */
    CHECK(s1.to_host - s0.to_host == 0);     /* nothing came back in between */
    CHECK(s1.bytes_to_device - s0.bytes_to_device == 12000);

    const float *zh = NULL;
    CHECK_OK(app, clip_data_host(z, (const void **)&zh));
    CHECK_OK(app, clip_app_transfer_stats(app, &s2));
    CHECK(s2.to_host - s1.to_host == 1);
    int ok = 1;
    for (int i = 0; i < 3000; i++) ok &= zh[i] == 3.0f * (2.0f * (float)i + 1.0f) - 1.0f;
    CHECK(ok);
    /* A second read is free. */
    CHECK_OK(app, clip_data_host(z, (const void **)&zh));
    /* Relaunching B reuses y on the device: no upload. */
    CHECK_OK(app, clip_process_launch(b));
    CHECK_OK(app, clip_app_finish(app));
    CHECK_OK(app, clip_app_transfer_stats(app, &s3));
    CHECK(s3.to_host == s2.to_host && s3.to_device == s2.to_device);

    /* Writing x on the host makes the next launch upload it again. */
    float *xw = NULL;
    CHECK_OK(app, clip_data_host_write(x, (void **)&xw));
    xw[0] = 100.0f;
    CHECK_OK(app, clip_process_launch(a));
    CHECK_OK(app, clip_process_launch(b));
    CHECK_OK(app, clip_data_host(z, (const void **)&zh));
    CHECK(zh[0] == 3.0f * 201.0f - 1.0f);
    clip_transfer_stats s4;
    CHECK_OK(app, clip_app_transfer_stats(app, &s4));
    CHECK(s4.to_device - s3.to_device == 1);

    /* Timing off: the chain still computes, its launches keep no times (and say how to get
     * them back); on again, the next launch is timed. */
    CHECK_STATUS(app, clip_process_set_timing(NULL, 0), CLIP_ERR_INVALID_ARG);
    CHECK_OK(app, clip_process_set_timing(a, 0));
    CHECK_OK(app, clip_process_set_timing(b, 0));
    CHECK_OK(app, clip_data_host_write(x, (void **)&xw));
    xw[1] = 7.0f;
    CHECK_OK(app, clip_process_launch(a));
    CHECK_OK(app, clip_process_launch(b));
    CHECK_OK(app, clip_data_host(z, (const void **)&zh));
    CHECK(zh[0] == 3.0f * 201.0f - 1.0f && zh[1] == 3.0f * 15.0f - 1.0f);
    double ms = -1;
    size_t count = 1;
    CHECK_STATUS(app, clip_process_time_ms(b, &ms), CLIP_ERR_INVALID_ARG);
    CHECK_MSG(app, "clip_process_set_timing");
    CHECK_STATUS(app, clip_process_command_times(b, NULL, 0, &count, NULL), CLIP_ERR_INVALID_ARG);
    CHECK_OK(app, clip_process_set_timing(b, 1)); /* the untimed launch stays untimed */
    CHECK_STATUS(app, clip_process_time_ms(b, &ms), CLIP_ERR_INVALID_ARG);
    CHECK_OK(app, clip_process_launch(b));
    CHECK_OK(app, clip_process_time_ms(b, &ms));
    CHECK_OK(app, clip_process_command_times(b, NULL, 0, &count, NULL));
    CHECK(ms >= 0.0 && count == 1);

    /* Destroy in any order: the process keeps its data alive. */
    clip_data_destroy(x);
    clip_process_destroy(a);
    clip_process_destroy(b);
    free(v);
}

static void test_process_errors(clip_app *app) {
    clip_process *p = NULL;
    CHECK_STATUS(app, clip_process_create(app, "no_such_process", &p), CLIP_ERR_UNKNOWN_PROCESS);
    CHECK_MSG(app, "no_such_process");
    CHECK_MSG(app, "scale");
    CHECK(p == NULL);
    CHECK_OK(app, clip_process_create(app, "scale", &p));
    CHECK_STATUS(app, clip_process_set_real(p, "nope", 1.0), CLIP_ERR_UNKNOWN_PARAM);
    CHECK_MSG(app, "parameters: a, b");
    CHECK_STATUS(app, clip_process_set_bool(p, "a", 1), CLIP_ERR_PARAM_TYPE);
    const char *choice = NULL;
    CHECK_STATUS(NULL, clip_process_get_choice(NULL, "a", &choice), CLIP_ERR_INVALID_ARG);
    CHECK_STATUS(app, clip_process_set_choice(p, "a", "x"), CLIP_ERR_PARAM_TYPE);
    CHECK_STATUS(app, clip_process_set_text(p, "a", "abc"), CLIP_ERR_PARAM_RANGE);
    CHECK_OK(app, clip_process_set_text(p, "a", "inf"));
    double a = 0;
    CHECK_OK(app, clip_process_get_real(p, "a", &a));
    CHECK(isinf(a) && a > 0);
    CHECK_OK(app, clip_process_set_int(p, "b", 4));
    CHECK_OK(app, clip_process_get_real(p, "b", &a));
    CHECK(a == 4.0);
    CHECK_STATUS(app, clip_process_init(p), CLIP_ERR_MISSING_INPUT);
    CHECK_STATUS(app, clip_process_launch(p), CLIP_ERR_NOT_INITIALIZED);
    clip_data *out = NULL;
    CHECK_STATUS(app, clip_process_output(p, 0, &out), CLIP_ERR_NOT_INITIALIZED);
    double ms;
    CHECK_STATUS(app, clip_process_time_ms(p, &ms), CLIP_ERR_NOT_INITIALIZED);
    size_t cmds = 7;
    CHECK_STATUS(app, clip_process_command_times(p, NULL, 0, &cmds, NULL), CLIP_ERR_NOT_INITIALIZED);
    CHECK(cmds == 0);
    CHECK_STATUS(app, clip_process_command_times(p, NULL, 0, NULL, NULL), CLIP_ERR_INVALID_ARG);
    CHECK_STATUS(app, clip_process_set_input(p, 1, NULL), CLIP_ERR_INVALID_ARG);

    /* A user-supplied output of the wrong type or shape is rejected in init. */
    size_t dims[2] = {4, 4}, other[2] = {4, 5};
    clip_data *x = NULL, *wrong_t = NULL, *wrong_s = NULL, *right = NULL;
    CHECK_OK(app, clip_data_create_zeros(app, CLIP_F32, 2, dims, &x));
    CHECK_OK(app, clip_data_create(app, CLIP_F64, 2, dims, &wrong_t));
    CHECK_OK(app, clip_data_create(app, CLIP_F32, 2, other, &wrong_s));
    CHECK_OK(app, clip_data_create(app, CLIP_F32, 2, dims, &right));
    CHECK_OK(app, clip_process_set_input(p, 0, x));
    CHECK_OK(app, clip_process_set_output(p, 0, wrong_t));
    CHECK_STATUS(app, clip_process_init(p), CLIP_ERR_TYPE);
    CHECK_OK(app, clip_process_set_output(p, 0, wrong_s));
    CHECK_STATUS(app, clip_process_init(p), CLIP_ERR_SHAPE);
    CHECK_MSG(app, "4x5");
    /* The app and the process stay usable. */
    CHECK_OK(app, clip_process_set_output(p, 0, right));
    CHECK_OK(app, clip_process_set_real(p, "a", 1.0));
    CHECK_OK(app, clip_process_init(p));
    CHECK_OK(app, clip_process_launch(p));
    const float *h = NULL;
    CHECK_OK(app, clip_data_host(right, (const void **)&h));
    CHECK(h[15] == 4.0f);
    /* The output init made, handed back as the process's own output: it stays alive. */
    clip_process *q = run_scale(app, x, 1.0, 2.0);
    clip_data *made = NULL;
    CHECK_OK(app, clip_process_output(q, 0, &made));
    CHECK_OK(app, clip_process_set_output(q, 0, made));
    CHECK_OK(app, clip_process_init(q));
    CHECK_OK(app, clip_process_launch(q));
    CHECK_OK(app, clip_process_output(q, 0, &out));
    CHECK(out == made);
    CHECK_OK(app, clip_data_host(made, (const void **)&h));
    CHECK(h[0] == 2.0f);
    clip_process_destroy(q);
    /* An output that is an input: refused where the work reads in another order than it writes
     * (a square transpose, a filter, a transposed scalar product), done where it is elementwise. */
    clip_data *one = NULL;
    const size_t d11[2] = {1, 1};
    CHECK_OK(app, clip_data_create_zeros(app, CLIP_F32, 2, d11, &one));
    const struct {
        const char *name, *param, *value;
        clip_data *in[2];
    } alias[] = {{"transpose", NULL, NULL, {x, NULL}},
                 {"conv2", "shape", "same", {x, x}},
                 {"matmul", "transb", "t", {one, x}},
                 {"matmul", NULL, NULL, {x, x}}};
    for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++) {
        CHECK_OK(app, clip_process_create(app, alias[i].name, &q));
        if (alias[i].param) CHECK_OK(app, clip_process_set_text(q, alias[i].param, alias[i].value));
        for (int k = 0; k < 2 && alias[i].in[k]; k++)
            CHECK_OK(app, clip_process_set_input(q, k, alias[i].in[k]));
        CHECK_OK(app, clip_process_set_output(q, 0, x));
        CHECK_STATUS(app, clip_process_init(q), CLIP_ERR_INVALID_ARG);
        CHECK_MSG(app, "must not be one of the inputs");
        clip_process_destroy(q);
    }
    clip_data_destroy(one);
    CHECK_OK(app, clip_process_create(app, "scale", &q));
    CHECK_OK(app, clip_process_set_real(q, "b", 3.0));
    CHECK_OK(app, clip_process_set_input(q, 0, right));
    CHECK_OK(app, clip_process_set_output(q, 0, right));
    CHECK_OK(app, clip_process_init(q));
    CHECK_OK(app, clip_process_launch(q));
    CHECK_OK(app, clip_data_host(right, (const void **)&h));
    CHECK(h[15] == 7.0f); /* 4 + 3 in place */
    clip_process_destroy(q);

    /* Data from another app is refused. */
    clip_criteria c = {.ignore_env = 1};
    clip_app *app2 = NULL;
    CHECK_OK(NULL, clip_app_create(&app2, &c));
    clip_data *foreign = NULL;
    CHECK_OK(app2, clip_data_create_zeros(app2, CLIP_F32, 2, dims, &foreign));
    CHECK_STATUS(app, clip_process_set_input(p, 0, foreign), CLIP_ERR_INVALID_ARG);
    CHECK_MSG(app, "another app");
    /* Destroying the app before its data is safe. */
    clip_app_destroy(app2);
    const void *fh = NULL;
    CHECK_OK(NULL, clip_data_host(foreign, &fh));
    clip_data_destroy(foreign);

    clip_data_destroy(x);
    clip_data_destroy(wrong_t);
    clip_data_destroy(wrong_s);
    clip_data_destroy(right);
    clip_process_destroy(p);

    CHECK(strcmp(clip_status_str(CLIP_ERR_INNER_DIM), "CLIP_ERR_INNER_DIM") == 0);
    CHECK(strcmp(clip_status_str((clip_status)999), "CLIP_ERR_?") == 0);
    CHECK(clip_process_find("scale") != NULL);
    CHECK(clip_process_count() >= 1);
}

/* Data larger than the device's largest allocation: a process that can split its work plans
 * pieces in init (scale: element-wise bands), one that cannot (matpow) fails there, naming the
 * sizes; neither moves data in init. Nothing is launched: the data is never touched. */
static void test_limits(clip_app *app) {
    uint64_t max_alloc = clip_app_device(app)->max_alloc;
    size_t dims[2] = {(size_t)(max_alloc / 4) + 1024, 1};
    clip_data *big = NULL;
    /* Host memory is reserved, not touched: malloc of a few GiB is cheap until written. */
    if (clip_data_create(app, CLIP_F32, 2, dims, &big) != CLIP_OK) return;
    clip_process *p = NULL;
    CHECK_OK(app, clip_process_create(app, "scale", &p));
    CHECK_OK(app, clip_process_set_input(p, 0, big));
    clip_transfer_stats s0, s1;
    clip_app_transfer_stats(app, &s0);
    CHECK_OK(app, clip_process_init(p));
    CHECK(strncmp(clip_process_variant(p), "split: ", 7) == 0);
    CHECK(clip_app_last_error(app)[0] == '\0'); /* not the refused whole attempt's message */
    clip_process_destroy(p);
    clip_data_destroy(big);

    size_t side = 1;
    while ((uint64_t)side * side * 4 <= max_alloc) side *= 2;
    size_t sq[2] = {side, side};
    if (clip_data_create(app, CLIP_F32, 2, sq, &big) != CLIP_OK) return;
    CHECK_OK(app, clip_process_create(app, "matpow", &p));
    CHECK_OK(app, clip_process_set_input(p, 0, big));
    CHECK_STATUS(app, clip_process_init(p), CLIP_ERR_OUT_OF_MEMORY);
    CHECK_MSG(app, "largest allocation");
    clip_app_transfer_stats(app, &s1);
    CHECK(s1.to_device == s0.to_device);
    clip_process_destroy(p);
    clip_data_destroy(big);
}

static void test_no_fp64(void) {
    clip_criteria c = {.ignore_env = 1, .disable_fp64 = 1};
    clip_app *app = NULL;
    CHECK_OK(NULL, clip_app_create(&app, &c));
    CHECK(clip_app_device(app)->fp64 == 0);
    size_t dims[2] = {2, 2};
    clip_data *x = NULL;
    CHECK_OK(app, clip_data_create_zeros(app, CLIP_F64, 2, dims, &x));
    clip_process *p = NULL;
    CHECK_OK(app, clip_process_create(app, "scale", &p));
    CHECK_OK(app, clip_process_set_input(p, 0, x));
    CHECK_STATUS(app, clip_process_init(p), CLIP_ERR_NO_FP64);
    CHECK_MSG(app, "double precision");
    /* Single precision still works on the same app. */
    clip_data *xs = NULL;
    CHECK_OK(app, clip_data_create_zeros(app, CLIP_F32, 2, dims, &xs));
    CHECK_OK(app, clip_process_set_input(p, 0, xs));
    CHECK_OK(app, clip_process_init(p));
    CHECK_OK(app, clip_process_launch(p));
    clip_process_destroy(p);
    clip_data_destroy(x);
    clip_data_destroy(xs);
    clip_app_destroy(app);
}

static void test_help(void) {
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (!f) return;
    CHECK_OK(NULL, clip_process_help(clip_process_find("scale"), f));
    rewind(f);
    char buf[2048] = "";
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    CHECK(strstr(buf, "--a") && strstr(buf, "--b") && strstr(buf, "usage: clip run scale"));
    fclose(f);
}

int main(void) {
    test_devices();
    clip_app *app = tu_app();
    test_data(app);
    test_scale_all_types(app);
    test_scale_rounds_twice(app);
    test_lazy_sync_and_chain(app);
    test_process_errors(app);
    test_limits(app);
    test_no_fp64();
    test_help();
    clip_app_destroy(app);
    return tu_finish("test_core");
}
