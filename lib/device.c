/* Device enumeration, scoring and selection by criteria. */
#include <ctype.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

const char *const clip_device_score_doc =
    "score = type weight (GPU 1e6, accelerator 1e5, CPU 1e3, other 1) + compute units x clock "
    "MHz / 1000; the highest score wins, ties go to the lower index";

#define MAX_PLATFORMS 16
#define MAX_DEVICES 64

static int contains_ci(const char *hay, const char *needle) {
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n) return 1;
    }
    return n == 0;
}

/* cl_nv_device_attribute_query's CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV and _MINOR_NV (cl_ext.h
 * names them; not every header set has it). */
#define NV_COMPUTE_CAPABILITY_MAJOR 0x4000
#define NV_COMPUTE_CAPABILITY_MINOR 0x4001

static int has_extension(const char *list, const char *ext, size_t len) {
    const char *p = list;
    while (*p) {
        while (*p == ' ') p++;
        size_t w = strcspn(p, " ");
        if (w == len && strncmp(p, ext, len) == 0) return 1;
        p += w;
    }
    return 0;
}

/* Copies a string property, truncated to cap: OpenCL refuses buffers shorter than the value. */
static void get_str(cl_device_id d, cl_device_info what, char *buf, size_t cap) {
    size_t len = 0;
    buf[0] = '\0';
    if (clGetDeviceInfo(d, what, 0, NULL, &len) != CL_SUCCESS || len == 0) return;
    char *tmp = malloc(len + 1);
    if (!tmp) return;
    if (clGetDeviceInfo(d, what, len, tmp, NULL) == CL_SUCCESS) {
        tmp[len] = '\0';
        snprintf(buf, cap, "%s", tmp);
    }
    free(tmp);
}

static double score_of(const clip_device_info *i) {
    double w = i->type == CLIP_DEVICE_GPU ? 1e6
               : i->type == CLIP_DEVICE_ACCELERATOR ? 1e5
               : i->type == CLIP_DEVICE_CPU ? 1e3 : 1.0;
    return w + (double)i->compute_units * (double)i->clock_mhz / 1000.0;
}

/* Fills info for one device; the extension string is returned in a malloc'd buffer (or NULL). */
static char *describe(cl_platform_id plat, cl_device_id dev, int index, clip_device_info *info) {
    memset(info, 0, sizeof *info);
    info->index = index;
    get_str(dev, CL_DEVICE_NAME, info->name, sizeof info->name);
    get_str(dev, CL_DEVICE_VENDOR, info->vendor, sizeof info->vendor);
    get_str(dev, CL_DEVICE_VERSION, info->version, sizeof info->version);
    get_str(dev, CL_DRIVER_VERSION, info->driver, sizeof info->driver);
    char pname[256] = "";
    if (clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pname, pname, NULL) == CL_SUCCESS) {
        pname[sizeof pname - 1] = '\0';
        memcpy(info->platform, pname, sizeof info->platform - 1);
    }
    cl_device_type t = 0;
    clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof t, &t, NULL);
    info->type = (t & CL_DEVICE_TYPE_GPU)           ? CLIP_DEVICE_GPU
                 : (t & CL_DEVICE_TYPE_ACCELERATOR) ? CLIP_DEVICE_ACCELERATOR
                 : (t & CL_DEVICE_TYPE_CPU)         ? CLIP_DEVICE_CPU
                                                    : CLIP_DEVICE_ANY;
    if (sscanf(info->version, "OpenCL %d.%d", &info->version_major, &info->version_minor) != 2)
        info->version_major = info->version_minor = 0;
    cl_uint u = 0;
    cl_ulong ul = 0;
    size_t sz = 0;
    if (!clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof u, &u, NULL)) info->compute_units = u;
    if (!clGetDeviceInfo(dev, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof u, &u, NULL)) info->clock_mhz = u;
    if (!clGetDeviceInfo(dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof ul, &ul, NULL)) info->global_mem = ul;
    if (!clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof ul, &ul, NULL)) info->local_mem = ul;
    if (!clGetDeviceInfo(dev, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof ul, &ul, NULL))
        info->global_cache = ul;
    if (!clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof ul, &ul, NULL)) info->max_alloc = ul;
    if (!clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof sz, &sz, NULL))
        info->max_work_group = sz;
    size_t elen = 0;
    char *ext = NULL;
    if (clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, 0, NULL, &elen) == CL_SUCCESS && elen > 0) {
        ext = malloc(elen + 1);
        if (ext && clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, elen, ext, NULL) == CL_SUCCESS)
            ext[elen] = '\0';
        else if (ext)
            ext[0] = '\0';
    }
    cl_device_fp_config fp = 0;
    clGetDeviceInfo(dev, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp, &fp, NULL);
    info->fp64 = fp != 0 || (ext && has_extension(ext, "cl_khr_fp64", 11));
    /* Asked only of a device that names the extension: other drivers need not answer. */
    cl_uint major = 0, minor = 0;
    if (ext && has_extension(ext, "cl_nv_device_attribute_query", 28) &&
        clGetDeviceInfo(dev, NV_COMPUTE_CAPABILITY_MAJOR, sizeof major, &major, NULL) ==
            CL_SUCCESS &&
        clGetDeviceInfo(dev, NV_COMPUTE_CAPABILITY_MINOR, sizeof minor, &minor, NULL) == CL_SUCCESS)
        info->nv_arch = (int)(major * 10 + minor);
    info->score = score_of(info);
    return ext;
}

/* Every device, in platform order. Returns the count or -1 (error set with app NULL). */
typedef struct found_device {
    cl_platform_id platform;
    cl_device_id device;
    clip_device_info info;
    char *extensions;
} found_device;

/* The ICD loader initialises itself on the first clGetPlatformIDs and is not safe to enter from
 * several threads at that moment (seen with ocl-icd: concurrent first calls find no platform). */
static pthread_mutex_t enumerate_lock = PTHREAD_MUTEX_INITIALIZER;

static int enumerate_locked(found_device *out, int cap);
static int enumerate(found_device *out, int cap) {
    pthread_mutex_lock(&enumerate_lock);
    int n = enumerate_locked(out, cap);
    pthread_mutex_unlock(&enumerate_lock);
    return n;
}

static int enumerate_locked(found_device *out, int cap) {
    cl_platform_id plats[MAX_PLATFORMS];
    cl_uint np = 0;
    cl_int e = clGetPlatformIDs(MAX_PLATFORMS, plats, &np);
    if (e != CL_SUCCESS || np == 0) {
        clip_set_error(NULL, CLIP_ERR_NO_DEVICE,
                       "no OpenCL platform found (clGetPlatformIDs: %s); is an ICD such as "
                       "pocl-opencl-icd installed?",
                       clip_cl_error_name(e));
        return -1;
    }
    if (np > MAX_PLATFORMS) np = MAX_PLATFORMS;
    int n = 0;
    for (cl_uint p = 0; p < np && n < cap; p++) {
        cl_device_id devs[MAX_DEVICES];
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, MAX_DEVICES, devs, &nd) != CL_SUCCESS)
            continue;
        if (nd > MAX_DEVICES) nd = MAX_DEVICES;
        for (cl_uint d = 0; d < nd && n < cap; d++) {
            out[n].platform = plats[p];
            out[n].device = devs[d];
            out[n].extensions = describe(plats[p], devs[d], n + 1, &out[n].info);
            n++;
        }
    }
    return n;
}

static void free_found(found_device *f, int n) {
    for (int i = 0; i < n; i++) free(f[i].extensions);
}

clip_status clip_devices_list(clip_device_info *out, size_t cap, size_t *count) {
    if (!count) return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "devices_list: count is NULL");
    *count = 0;
    if (cap && !out) return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "devices_list: out is NULL");
    found_device *f = calloc(MAX_DEVICES, sizeof *f);
    if (!f) return clip_set_error(NULL, CLIP_ERR_OUT_OF_MEMORY, "devices_list: out of memory");
    int n = enumerate(f, MAX_DEVICES);
    if (n < 0) {
        free(f);
        return CLIP_ERR_NO_DEVICE;
    }
    for (int i = 0; i < n && (size_t)i < cap; i++) out[i] = f[i].info;
    *count = (size_t)n;
    free_found(f, n);
    free(f);
    return CLIP_OK;
}

/* "1,2,4": an app over exactly those devices. Returns CLIP_OK or a set error. */
static clip_status parse_index_list(const char *spec, clip_criteria *crit) {
    int n = 0;
    const char *p = spec;
    for (;;) {
        char *end = NULL;
        long v = strtol(p, &end, 10);
        if (end == p || (*end != ',' && *end != '\0'))
            return clip_set_error(NULL, CLIP_ERR_INVALID_ARG,
                                  "device spec '%s': a list takes 1-based indices separated by commas",
                                  spec);
        if (v < 1)
            return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "device spec '%s': indices start at 1",
                                  spec);
        if (n == CLIP_MAX_APP_DEVICES)
            return clip_set_error(NULL, CLIP_ERR_INVALID_ARG,
                                  "device spec '%s': more than %d devices", spec,
                                  CLIP_MAX_APP_DEVICES);
        int idx = v > INT_MAX ? INT_MAX : (int)v;
        for (int i = 0; i < n; i++)
            if (crit->indices[i] == idx)
                return clip_set_error(NULL, CLIP_ERR_INVALID_ARG,
                                      "device spec '%s': device %d is listed twice", spec, idx);
        crit->indices[n++] = idx;
        if (*end == '\0') break;
        p = end + 1;
    }
    crit->n_indices = n;
    return CLIP_OK;
}

/* "gpu", "cpu", "accelerator" (any case for the first two): the type, or -1. */
static int parse_type(const char *s, size_t len) {
    if ((len == 3 && !strncmp(s, "gpu", 3)) || (len == 3 && !strncmp(s, "GPU", 3)))
        return CLIP_DEVICE_GPU;
    if ((len == 3 && !strncmp(s, "cpu", 3)) || (len == 3 && !strncmp(s, "CPU", 3)))
        return CLIP_DEVICE_CPU;
    if (len == 11 && !strncmp(s, "accelerator", 11)) return CLIP_DEVICE_ACCELERATOR;
    return -1;
}

clip_status clip_criteria_from_spec(const char *spec, clip_criteria *crit) {
    if (!spec || !*spec || !crit)
        return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "device spec: empty or NULL");
    size_t len = strlen(spec);
    int type = parse_type(spec, len);
    if (type >= 0) {
        crit->type = (clip_device_kind)type;
        return CLIP_OK;
    }
    if (!strcmp(spec, "all")) {
        crit->all = 1;
        return CLIP_OK;
    }
    if (len > 4 && !strcmp(spec + len - 4, ":all") && (type = parse_type(spec, len - 4)) >= 0) {
        crit->type = (clip_device_kind)type;
        crit->all = 1;
        return CLIP_OK;
    }
    if (strchr(spec, ',')) return parse_index_list(spec, crit);
    char *end = NULL;
    long v = strtol(spec, &end, 10);
    if (end && *end == '\0' && end != spec) {
        if (v < 1)
            return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "device spec '%s': indices start at 1",
                                  spec);
        /* A larger index names no device; kept large rather than wrapped onto a real one. */
        if (v > INT_MAX) v = INT_MAX;
        crit->index = (int)v;
    } else {
        crit->name = spec;
    }
    return CLIP_OK;
}

static const char *type_name(clip_device_kind k) {
    switch (k) {
    case CLIP_DEVICE_GPU: return "gpu";
    case CLIP_DEVICE_CPU: return "cpu";
    case CLIP_DEVICE_ACCELERATOR: return "accelerator";
    default: return "any";
    }
}

static int passes(const found_device *f, const clip_criteria *c) {
    const clip_device_info *i = &f->info;
    if (c->index > 0 && i->index != c->index) return 0;
    if (c->type != CLIP_DEVICE_ANY && i->type != c->type) return 0;
    if (c->vendor && !contains_ci(i->vendor, c->vendor) && !contains_ci(i->platform, c->vendor))
        return 0;
    if (c->name && !contains_ci(i->name, c->name)) return 0;
    if (c->min_version_major > i->version_major ||
        (c->min_version_major == i->version_major && c->min_version_minor > i->version_minor))
        return 0;
    if (c->extensions) {
        const char *p = c->extensions;
        while (*p) {
            while (*p == ' ') p++;
            size_t w = strcspn(p, " ");
            if (w && (!f->extensions || !has_extension(f->extensions, p, w))) return 0;
            p += w;
        }
    }
    return 1;
}

/* Applies CLIP_DEVICE to a copy of the criteria. Returns non-zero on a bad spec. */
static int apply_env(clip_criteria *c) {
    if (c->ignore_env) return 0;
    const char *env = getenv("CLIP_DEVICE");
    if (!env || !*env) return 0;
    clip_criteria e = {0};
    if (clip_criteria_from_spec(env, &e) != CLIP_OK) return 1;
    c->type = e.type;
    c->name = e.name;
    c->index = e.index;
    c->all = e.all;
    c->n_indices = e.n_indices;
    memcpy(c->indices, e.indices, sizeof c->indices);
    return 0;
}

static clip_status no_match(const clip_criteria *c, int n) {
    char idx[32] = "";
    if (c->index > 0) snprintf(idx, sizeof idx, " index=%d", c->index);
    return clip_set_error(NULL, CLIP_ERR_NO_DEVICE,
                          "no OpenCL device matches type=%s%s%s%s%s%s min_version=%d.%d%s%s "
                          "(%d device%s present)",
                          type_name(c->type), c->vendor ? " vendor=" : "", c->vendor ? c->vendor : "",
                          c->name ? " name=" : "", c->name ? c->name : "", idx,
                          c->min_version_major, c->min_version_minor,
                          c->extensions ? " extensions=" : "", c->extensions ? c->extensions : "", n,
                          n == 1 ? "" : "s");
}

/* The listed devices, in the list's order; each must exist and pass the other filters. */
static clip_status select_listed(const clip_criteria *c, const found_device *all, int n,
                                 int *chosen, int *n_chosen) {
    for (int k = 0; k < c->n_indices; k++) {
        int i = c->indices[k] - 1;
        if (i < 0 || i >= n)
            return clip_set_error(NULL, CLIP_ERR_NO_DEVICE,
                                  "device %d is listed but only %d device%s present",
                                  c->indices[k], n, n == 1 ? "" : "s");
        clip_criteria one = *c;
        one.n_indices = 0;
        if (!passes(&all[i], &one))
            return clip_set_error(NULL, CLIP_ERR_NO_DEVICE,
                                  "device %d ('%s') is listed but does not meet the other criteria",
                                  c->indices[k], all[i].info.name);
        chosen[k] = i;
    }
    *n_chosen = c->n_indices;
    return CLIP_OK;
}

/* Picks the devices into chosen[] (indices into all[], the primary first): one, or with
 * c.all / c.n_indices several. The caller frees all[]'s extensions via free_found. */
static clip_status select_devices(const clip_criteria *crit, found_device *all, int *n_all,
                                  int *chosen, int *n_chosen) {
    clip_criteria c = {0};
    if (crit) c = *crit;
    *n_chosen = 0;
    if (apply_env(&c))
        return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "CLIP_DEVICE='%s' is not a device spec",
                              getenv("CLIP_DEVICE"));
    /* Criteria filled in by hand, unlike clip_criteria_from_spec's, may list more devices than
     * indices[] (and chosen[]) hold, or one device twice, which would be driven as two. */
    if (c.n_indices > CLIP_MAX_APP_DEVICES)
        return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "criteria list %d devices (at most %d)",
                              c.n_indices, CLIP_MAX_APP_DEVICES);
    for (int k = 0; k < c.n_indices; k++)
        for (int j = 0; j < k; j++)
            if (c.indices[j] == c.indices[k])
                return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "criteria list device %d twice",
                                      c.indices[k]);
    int n = enumerate(all, MAX_DEVICES);
    *n_all = n < 0 ? 0 : n;
    if (n < 0) return CLIP_ERR_NO_DEVICE;
    if (c.n_indices > 0) return select_listed(&c, all, n, chosen, n_chosen);
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (!passes(&all[i], &c)) continue;
        if (!c.all) {
            if (m == 0 || all[i].info.score > all[chosen[0]].info.score) chosen[0] = i;
            m = 1;
            continue;
        }
        if (m == CLIP_MAX_APP_DEVICES) break;
        /* insertion by score, stable so ties keep the lower index first */
        int at = m++;
        while (at > 0 && all[chosen[at - 1]].info.score < all[i].info.score) {
            chosen[at] = chosen[at - 1];
            at--;
        }
        chosen[at] = i;
    }
    if (m == 0) return no_match(&c, n);
    *n_chosen = m;
    return CLIP_OK;
}

clip_status clip_device_select(const clip_criteria *crit, int *index) {
    if (!index) return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "device_select: index is NULL");
    found_device *all = calloc(MAX_DEVICES, sizeof *all);
    if (!all) return clip_set_error(NULL, CLIP_ERR_OUT_OF_MEMORY, "device_select: out of memory");
    int n = 0, chosen[CLIP_MAX_APP_DEVICES], m = 0;
    clip_status s = select_devices(crit, all, &n, chosen, &m);
    if (s == CLIP_OK) *index = all[chosen[0]].info.index;
    free_found(all, n);
    free(all);
    return s;
}

/* Used by app.c: the chosen devices (the primary first), their platforms and info. */
clip_status clip_choose_devices(const clip_criteria *crit, clip_chosen_device *out, int *count) {
    found_device *all = calloc(MAX_DEVICES, sizeof *all);
    if (!all) return clip_set_error(NULL, CLIP_ERR_OUT_OF_MEMORY, "app_create: out of memory");
    int n = 0, chosen[CLIP_MAX_APP_DEVICES], m = 0;
    clip_status s = select_devices(crit, all, &n, chosen, &m);
    for (int k = 0; s == CLIP_OK && k < m; k++) {
        out[k].platform = all[chosen[k]].platform;
        out[k].device = all[chosen[k]].device;
        out[k].info = all[chosen[k]].info;
    }
    *count = s == CLIP_OK ? m : 0;
    free_found(all, n);
    free(all);
    return s;
}
