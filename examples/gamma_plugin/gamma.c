/* gamma: Y = X.^g element-wise (MATLAB power with a real exponent g > 0), for single, double and
 * their complex forms. A user's process with its own kernel, a plan hook (it splits over several
 * devices) and a plugin entry point: docs/writing-a-process.md walks through it. */
#include <math.h>

#include <clip/plugin.h>

#include "gamma.h"

/* The kernel, in OpenCL C over common.cl's kernel API: clip_elem_t is the element type (complex
 * for c32/c64), clip_real_t its real type, clip_cpowr the principal complex power. A negative real
 * element to a fractional g is NaN here: MATLAB's answer is complex (give complex data). */
static const char *const gamma_kernel =
    "__kernel void gamma(__global const clip_elem_t *x, __global clip_elem_t *y,\n"
    "                    const clip_real_t g, const ulong n) {\n"
    "    const size_t i = get_global_id(0);\n"
    "    if (i >= n) return;\n"
    "#if CLIP_COMPLEX\n"
    "    y[i] = clip_cpowr(x[i], g);\n"
    "#else\n"
    "    y[i] = pow(x[i], g);\n"
    "#endif\n"
    "}\n";

/* clang-format off */
static const clip_param_desc gamma_params[] = {
    {.name = "g", .kind = CLIP_PARAM_REAL, .def = 1, .doc = "exponent, a real in (0, inf)",
     .has_range = 1, .min = 0, .min_open = 1, .max = INFINITY, .max_open = 1}};
/* clang-format on */
static const char *const gamma_in_names[] = {"X"};
static const char *const gamma_in_docs[] = {"data of any shape; single, double, complex"};
static const char *const gamma_out_names[] = {"Y"};
static const char *const gamma_out_docs[] = {"X.^g, X's shape and type"};

/* Y has X's type and shape: init and plan both make it. */
static clip_status gamma_output(clip_process *p) {
    clip_data *x = clip_proc_input(p, 0), *y = NULL;
    return clip_proc_output(p, 0, clip_data_type(x), clip_data_ndims(x), clip_data_dims(x), &y);
}

/* The process's state is its kernel (state_size below). */
static clip_status gamma_init(clip_process *p) {
    cl_kernel *k = clip_proc_state(p);
    clip_status s = gamma_output(p);
    if (s != CLIP_OK) return s;
    const clip_type t = clip_data_type(clip_proc_input(p, 0));
    return clip_proc_kernel_source(p, gamma_kernel, t, NULL, "gamma", k);
}

static clip_status gamma_launch(clip_process *p) {
    cl_kernel k = *(cl_kernel *)clip_proc_state(p);
    clip_data *x = clip_proc_input(p, 0), *y = NULL;
    clip_process_output(p, 0, &y);
    const cl_ulong n = clip_data_numel(x);
    if (n == 0) return CLIP_OK;
    cl_mem xm = NULL, ym = NULL;
    clip_status s = clip_proc_read_buffer(p, x, &xm);
    if (s == CLIP_OK) s = clip_proc_write_buffer(p, y, 0, &ym);
    const double g = clip_proc_real(p, "g");
    const float gf = (float)g;
    const int dbl = clip_type_is_double(clip_data_type(x));
    if (s == CLIP_OK) s = clip_proc_arg(p, k, 0, sizeof xm, &xm);
    if (s == CLIP_OK) s = clip_proc_arg(p, k, 1, sizeof ym, &ym);
    if (s == CLIP_OK)
        s = clip_proc_arg(p, k, 2, dbl ? sizeof g : sizeof gf, dbl ? (void *)&g : (void *)&gf);
    if (s == CLIP_OK) s = clip_proc_arg(p, k, 3, sizeof n, &n);
    size_t local = 64, global = (n + local - 1) / local * local;
    if (s == CLIP_OK) s = clip_proc_enqueue(p, k, 1, &global, &local);
    return s;
}

/* Element-wise: bands of the largest dimension, each read and written in place. */
static clip_status gamma_plan(clip_process *p, clip_plan *plan) {
    clip_status s = gamma_output(p);
    return s == CLIP_OK ? clip_plan_bands(plan) : s;
}

static const clip_process_desc gamma_desc = {
    .abi = CLIP_PROCESS_ABI,
    .name = "gamma",
    .summary = "element-wise power X.^g with a real g > 0 (MATLAB: X.^g, power)",
    .n_inputs = 1,
    .input_names = gamma_in_names,
    .input_docs = gamma_in_docs,
    .n_outputs = 1,
    .output_names = gamma_out_names,
    .output_docs = gamma_out_docs,
    .params = gamma_params,
    .n_params = 1,
    .state_size = sizeof(cl_kernel),
    .init = gamma_init,
    .launch = gamma_launch,
    .plan = gamma_plan,
    .in_place = 1,
    .rebind = 1,
    .transposes = 1, /* element-wise: row-major arrays go in as they lie */
};

clip_status gamma_register(void) {
    return clip_process_register(&gamma_desc);
}

/* The plugin's entry points (used when this file is built into libgamma.so). */
CLIP_PLUGIN(gamma_register)
