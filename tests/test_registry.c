/* The registration path: every inconsistent descriptor is refused with a message naming the
 * field (never a crash), built-in names cannot be taken even before the registry's first use,
 * a parameter the table lacks fails init, open ranges are enforced and shown, and the
 * introspection calls read the tables. */
#include <math.h>

#include "clip/process_author.h"
#include "testutil.h"

static clip_status noop_init(clip_process *p) {
    clip_data *y = NULL;
    const size_t dims[1] = {1};
    return clip_proc_output(p, 0, CLIP_F32, 1, dims, &y);
}
static clip_status noop_launch(clip_process *p) {
    (void)p;
    return CLIP_OK;
}

static const char *const one_name[] = {"X"};
static const char *const one_doc[] = {"some data"};
static const char *const two_names[] = {"X", "X"};
static const char *const two_docs[] = {"first", "second"};
static const char *const colors[] = {"red", "green", NULL};

/* A consistent descriptor; each bad case below changes one field of a copy. */
static const clip_param_desc good_params[] = {
    {.name = "g",
     .kind = CLIP_PARAM_REAL,
     .def = 1,
     .has_range = 1,
     .min = 0,
     .max = 10,
     .min_open = 1,
     .doc = "exponent in (0, 10]"},
};
static const clip_process_desc good = {
    .abi = CLIP_PROCESS_ABI,
    .name = "regtest",
    .summary = "a test process",
    .n_inputs = 1,
    .input_names = one_name,
    .input_docs = one_doc,
    .n_outputs = 1,
    .output_names = one_name,
    .output_docs = one_doc,
    .params = good_params,
    .n_params = 1,
    .init = noop_init,
    .launch = noop_launch,
};

/* Parameter tables that are each wrong in one way. */
static const clip_param_desc p_dup[] = {
    {.name = "g", .kind = CLIP_PARAM_REAL, .doc = "one"},
    {.name = "g", .kind = CLIP_PARAM_INT, .doc = "two"},
};
static const clip_param_desc p_nochoice[] = {{.name = "c", .kind = CLIP_PARAM_CHOICE, .doc = "x"}};
static const clip_param_desc p_choice_def[] = {
    {.name = "c", .kind = CLIP_PARAM_CHOICE, .def = 2, .choices = colors, .doc = "x"}};
static const clip_param_desc p_def_open[] = {{.name = "g",
                                              .kind = CLIP_PARAM_REAL,
                                              .def = 0,
                                              .has_range = 1,
                                              .min = 0,
                                              .max = 10,
                                              .min_open = 1,
                                              .doc = "x"}};
static const clip_param_desc p_def_out[] = {{.name = "n",
                                             .kind = CLIP_PARAM_INT,
                                             .def = 11,
                                             .has_range = 1,
                                             .min = 0,
                                             .max = 10,
                                             .doc = "x"}};
static const clip_param_desc p_nodoc[] = {{.name = "g", .kind = CLIP_PARAM_REAL}};
static const clip_param_desc p_noname[] = {{.kind = CLIP_PARAM_REAL, .doc = "x"}};
static const clip_param_desc p_kind[] = {{.name = "g", .kind = (clip_param_kind)7, .doc = "x"}};
static const clip_param_desc p_empty[] = {
    {.name = "g", .kind = CLIP_PARAM_REAL, .has_range = 1, .min = 2, .max = 1, .doc = "x"}};

typedef struct bad_case {
    const char *what;
    clip_process_desc d;
    const char *message; /* a part of the expected message */
} bad_case;

static void check_bad_descriptors(void) {
    bad_case cases[] = {
        {"wrong abi", good, "abi 0"},
        {"no name", good, "name is NULL"},
        {"bad name", good, "not an identifier"},
        {"no summary", good, "summary is missing"},
        {"no init", good, "init is NULL"},
        {"no launch", good, "launch is NULL"},
        {"negative inputs", good, "n_inputs = -1"},
        {"too many outputs", good, "n_outputs = 9"},
        {"no outputs", good, "n_outputs = 0"},
        {"no input names", good, "input_names is NULL"},
        {"no output docs", good, "output_docs is NULL"},
        {"duplicate input names", good, "input name 'X' is used twice"},
        {"params NULL", good, "params is NULL (n_params = 1)"},
        {"negative params", good, "n_params = -2"},
        {"duplicate params", good, "parameter 'g' is declared twice"},
        {"choice without choices", good, "CHOICE parameter 'c' has no choices"},
        {"choice default", good, "default 2 is not an index of its 2 choices"},
        {"default at an open end", good, "default 0 is outside (0, 10]"},
        {"default outside", good, "default 11 is outside [0, 10]"},
        {"no doc", good, "parameter 'g' has no doc"},
        {"no parameter name", good, "params[0].name is NULL"},
        {"bad kind", good, "has kind 7"},
        {"empty range", good, "empty range [2, 1]"},
    };
    int k = 0;
    cases[k++].d.abi = 0;
    cases[k++].d.name = NULL;
    cases[k++].d.name = "bad name";
    cases[k++].d.summary = NULL;
    cases[k++].d.init = NULL;
    cases[k++].d.launch = NULL;
    cases[k++].d.n_inputs = -1;
    cases[k++].d.n_outputs = 9;
    cases[k++].d.n_outputs = 0;
    cases[k++].d.input_names = NULL;
    cases[k++].d.output_docs = NULL;
    cases[k].d.n_inputs = 2, cases[k].d.input_names = two_names, cases[k++].d.input_docs = two_docs;
    cases[k++].d.params = NULL;
    cases[k++].d.n_params = -2;
    cases[k].d.params = p_dup, cases[k++].d.n_params = 2;
    cases[k++].d.params = p_nochoice;
    cases[k++].d.params = p_choice_def;
    cases[k++].d.params = p_def_open;
    cases[k++].d.params = p_def_out;
    cases[k++].d.params = p_nodoc;
    cases[k++].d.params = p_noname;
    cases[k++].d.params = p_kind;
    cases[k++].d.params = p_empty;
    CHECK(k == (int)(sizeof cases / sizeof cases[0]));
    for (int i = 0; i < k; i++) {
        clip_status s = clip_process_register(&cases[i].d);
        const char *msg = clip_app_last_error(NULL);
        if (s != CLIP_ERR_INVALID_ARG || !strstr(msg, cases[i].message))
            fprintf(stderr, "case '%s': %s, '%s' (want '%s')\n", cases[i].what, clip_status_str(s),
                    msg, cases[i].message);
        CHECK(s == CLIP_ERR_INVALID_ARG && strstr(msg, cases[i].message));
        /* help of the same unregistered descriptor refuses it too, never reads its tables */
        CHECK(clip_process_help(&cases[i].d, stderr) == CLIP_ERR_INVALID_ARG);
    }
    CHECK(clip_process_register(NULL) == CLIP_ERR_INVALID_ARG);
    CHECK(clip_process_find("regtest") == NULL);
}

/* Reads "G" where the table says "g": init must fail naming it, not compute with 0. */
static clip_status misspelt_init(clip_process *p) {
    double g = clip_proc_real(p, "G");
    (void)g;
    return noop_init(p);
}
static const clip_process_desc misspelt = {
    .abi = CLIP_PROCESS_ABI,
    .name = "regtest_misspelt",
    .summary = "reads a parameter its table lacks",
    .n_inputs = 1,
    .input_names = one_name,
    .input_docs = one_doc,
    .n_outputs = 1,
    .output_names = one_name,
    .output_docs = one_doc,
    .params = good_params,
    .n_params = 1,
    .init = misspelt_init,
    .launch = noop_launch,
};

static void check_process_use(void) {
    CHECK_OK(NULL, clip_process_register(&good));
    CHECK_STATUS(NULL, clip_process_register(&good), CLIP_ERR_INVALID_ARG);
    CHECK(strstr(clip_app_last_error(NULL), "'regtest' is already registered"));
    CHECK_OK(NULL, clip_process_register(&misspelt));
    clip_app *app = tu_app();
    const size_t dims[1] = {4};
    clip_data *x = NULL;
    CHECK_OK(app, clip_data_create_zeros(app, CLIP_F32, 1, dims, &x));
    clip_process *p = NULL;
    CHECK_OK(app, clip_process_create(app, "regtest", &p));
    /* (0, 10]: 0 refused, 10 and 1e-300 taken */
    CHECK_STATUS(app, clip_process_set_real(p, "g", 0.0), CLIP_ERR_PARAM_RANGE);
    CHECK(strstr(clip_app_last_error(app), "outside (0, 10]"));
    CHECK_STATUS(app, clip_process_set_text(p, "g", "0"), CLIP_ERR_PARAM_RANGE);
    CHECK_STATUS(app, clip_process_set_real(p, "g", 10.0000001), CLIP_ERR_PARAM_RANGE);
    CHECK_OK(app, clip_process_set_real(p, "g", 10.0));
    CHECK_OK(app, clip_process_set_real(p, "g", 1e-300));
    CHECK_OK(app, clip_process_set_input(p, 0, x));
    CHECK_OK(app, clip_process_init(p));
    clip_process_destroy(p);
    CHECK_OK(app, clip_process_create(app, "regtest_misspelt", &p));
    CHECK_OK(app, clip_process_set_input(p, 0, x));
    CHECK_STATUS(app, clip_process_init(p), CLIP_ERR_UNKNOWN_PARAM);
    CHECK(strstr(clip_app_last_error(app), "'G'"));
    CHECK_STATUS(app, clip_process_launch(p), CLIP_ERR_NOT_INITIALIZED);
    clip_process_destroy(p);
    clip_data_destroy(x);
    clip_app_destroy(app);
    /* help shows the open end */
    FILE *f = tmpfile();
    CHECK(f && clip_process_help(&good, f) == CLIP_OK);
    char text[2048] = "";
    if (f) {
        rewind(f);
        size_t n = fread(text, 1, sizeof text - 1, f);
        text[n] = '\0';
        fclose(f);
    }
    CHECK(strstr(text, "in (0, 10]"));
    CHECK(strstr(text, "IN1  X  some data"));
}

static void check_introspection(void) {
    const clip_process_desc *c = clip_process_find("conv2");
    CHECK(c && clip_process_desc_n_inputs(c) == 2 && clip_process_desc_n_outputs(c) == 1);
    const char *name = NULL, *doc = NULL;
    CHECK(clip_process_desc_input(c, 1, &name, &doc) == CLIP_OK && !strcmp(name, "K") && doc &&
          *doc);
    CHECK(clip_process_desc_output(c, 0, &name, NULL) == CLIP_OK && !strcmp(name, "C"));
    CHECK(clip_process_desc_input(c, 2, &name, &doc) == CLIP_ERR_INVALID_ARG);
    CHECK(clip_process_desc_n_inputs(NULL) == -1 && clip_process_desc_n_params(NULL) == -1);
    /* Which processes a binding may hand row-major arrays as their transposes. */
    CHECK(clip_process_desc_transposes(c) == 1 && clip_process_desc_transposes(NULL) == -1);
    CHECK(clip_process_desc_transposes(clip_process_find("matpow")) == 1);
    CHECK(clip_process_desc_transposes(clip_process_find("matmul")) == 0);
    CHECK(clip_process_desc_transposes(clip_process_find("norm")) == 0);
    CHECK(clip_process_desc_transposes(clip_process_find("conv2sep")) == 0);
    CHECK(clip_process_desc_param(NULL, 0, NULL) == CLIP_ERR_INVALID_ARG);
    const clip_process_desc *m = clip_process_find("matmul");
    int found = 0;
    for (int i = 0; i < clip_process_desc_n_params(m); i++) {
        clip_param_info info;
        CHECK(clip_process_desc_param(m, i, &info) == CLIP_OK);
        if (!strcmp(info.name, "mwg")) {
            found = 1;
            CHECK(info.kind == CLIP_PARAM_INT &&
                  info.flags == (CLIP_PARAM_EXPERT | CLIP_PARAM_AUTO));
            CHECK(info.has_range && info.min == 0 && info.max == 1024 && !info.min_open);
        }
        if (!strcmp(info.name, "transa")) CHECK(info.flags == 0 && info.choices && info.def == 0);
    }
    CHECK(found);
    clip_param_info info;
    CHECK(clip_process_desc_param(m, clip_process_desc_n_params(m), &info) == CLIP_ERR_INVALID_ARG);
    const clip_process_desc *r = clip_process_find("regtest");
    CHECK(r && clip_process_desc_param(r, 0, &info) == CLIP_OK && info.min_open && !info.max_open);
}

int main(void) {
    /* Before anything else touches the registry: a built-in's name is refused (it was silently
     * replaced before the built-ins were registered first). */
    clip_process_desc shadow = good;
    shadow.name = "scale";
    CHECK_STATUS(NULL, clip_process_register(&shadow), CLIP_ERR_INVALID_ARG);
    CHECK(strstr(clip_app_last_error(NULL), "'scale' is already registered"));
    const char *builtins[] = {"scale", "conv2",  "conv2sep", "norm",
                              "dot",   "matmul", "matpow",   "transpose"};
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
        CHECK(clip_process_find(builtins[i]) != NULL);
    CHECK(clip_process_find("scale") != &shadow);
    check_bad_descriptors();
    check_process_use();
    check_introspection();
    return tu_finish("test_registry");
}
