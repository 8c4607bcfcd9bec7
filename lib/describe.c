/* Descriptor introspection for bindings (clip/process.h): counts, named inputs and outputs,
 * parameters as clip_param_info. Descriptors are checked at registration, so the tables these
 * read are present and as long as their counts say. */
#include "internal.h"

const char *clip_process_desc_name(const clip_process_desc *d) {
    return d ? d->name : "";
}
const char *clip_process_desc_summary(const clip_process_desc *d) {
    return d ? d->summary : "";
}
int clip_process_desc_n_inputs(const clip_process_desc *d) {
    return d ? d->n_inputs : -1;
}
int clip_process_desc_n_outputs(const clip_process_desc *d) {
    return d ? d->n_outputs : -1;
}
int clip_process_desc_n_params(const clip_process_desc *d) {
    return d ? d->n_params : -1;
}
int clip_process_desc_transposes(const clip_process_desc *d) {
    return d ? d->transposes != 0 : -1;
}

static clip_status io_entry(const clip_process_desc *d, int i, int n, const char *const *names,
                            const char *const *docs, const char *what, const char **name,
                            const char **doc) {
    if (!d)
        return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "process_desc_%s: descriptor is NULL",
                              what);
    if (i < 0 || i >= n)
        return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "%s: no %s %d (it has %d)", d->name, what,
                              i, n);
    if (name) *name = names[i];
    if (doc) *doc = docs[i];
    return CLIP_OK;
}

clip_status clip_process_desc_input(const clip_process_desc *d, int i, const char **name,
                                    const char **doc) {
    return io_entry(d, i, d ? d->n_inputs : 0, d ? d->input_names : NULL, d ? d->input_docs : NULL,
                    "input", name, doc);
}

clip_status clip_process_desc_output(const clip_process_desc *d, int i, const char **name,
                                     const char **doc) {
    return io_entry(d, i, d ? d->n_outputs : 0, d ? d->output_names : NULL,
                    d ? d->output_docs : NULL, "output", name, doc);
}

clip_status clip_process_desc_param(const clip_process_desc *d, int i, clip_param_info *info) {
    if (!d || !info)
        return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "process_desc_param: NULL argument");
    if (i < 0 || i >= d->n_params)
        return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "%s: no parameter %d (it has %d)",
                              d->name, i, d->n_params);
    const clip_param_desc *pd = &d->params[i];
    *info = (clip_param_info){.name = pd->name,
                              .kind = pd->kind,
                              .def = pd->def,
                              .has_range = pd->has_range && pd->kind != CLIP_PARAM_BOOL &&
                                           pd->kind != CLIP_PARAM_CHOICE,
                              .min = pd->min,
                              .max = pd->max,
                              .min_open = pd->min_open != 0,
                              .max_open = pd->max_open != 0,
                              .choices = pd->choices,
                              .doc = pd->doc,
                              .flags = pd->flags};
    return CLIP_OK;
}
