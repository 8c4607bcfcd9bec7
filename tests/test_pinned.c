/* Page-locked host storage (lib/host_pinned.c), forced on PoCL with CLIP_PINNED=1: storage made
 * at first use and only then, zeros kept, values through uploads, processes and downloads, a
 * process output that never leaves the device never locks host memory, split launches whose
 * full inputs and outputs are page-locked against one device, and the policy's limits
 * (CLIP_PINNED=0, data larger than the device's largest allocation), and the storage of destroyed
 * data kept for the next data of its size. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>

#include "fault.h"
#include "host_pinned.h"
#include "testutil.h"

/* y = 2x + 1 through `scale` on app; y retained in *out. */
static void scale(clip_app *app, clip_data *x, clip_data **out) {
    clip_process *p = NULL;
    *out = NULL;
    CHECK_OK(app, clip_process_create(app, "scale", &p));
    CHECK_OK(app, clip_process_set_real(p, "a", 2.0));
    CHECK_OK(app, clip_process_set_real(p, "b", 1.0));
    CHECK_OK(app, clip_process_set_input(p, 0, x));
    CHECK_OK(app, clip_process_init(p));
    CHECK_OK(app, clip_process_launch(p));
    CHECK_OK(app, clip_process_output(p, 0, out));
    clip_data_retain(*out);
    clip_process_destroy(p);
}

static void test_lazy_storage(clip_app *app) {
    const size_t dims[2] = {300, 70};
    clip_data *z = NULL, *x = NULL, *y = NULL;
    CHECK_OK(app, clip_data_create_zeros(app, CLIP_F64, 2, dims, &z));
    CHECK(z->host == NULL && z->pinned == NULL); /* nothing made before first use */
    const void *h = NULL;
    CHECK_OK(app, clip_data_host(z, &h));
    CHECK(h && z->pinned != NULL && clip_data_page_locked(z));
    int zeros = 1;
    for (size_t i = 0; i < 300 * 70; i++)
        zeros &= ((const double *)h)[i] == 0.0;
    CHECK(zeros);

    float v[300 * 70];
    for (size_t i = 0; i < 300 * 70; i++)
        v[i] = (float)i - 5000.0f;
    CHECK_OK(app, clip_data_create_from(app, CLIP_F32, 2, dims, v, &x));
    CHECK(x->pinned != NULL);
    scale(app, x, &y);
    CHECK_OK(app, clip_app_finish(app));
    /* the output lives on the device: no host storage until it is read */
    CHECK(y && y->host == NULL && y->pinned == NULL);
    CHECK_OK(app, clip_data_host(y, &h));
    CHECK(y->pinned != NULL);
    int same = 1;
    for (size_t i = 0; i < 300 * 70; i++)
        same &= ((const float *)h)[i] == 2.0f * v[i] + 1.0f;
    CHECK(same);
    /* written on the host, uploaded again, and read back through clip_data_read */
    float *w = NULL;
    CHECK_OK(app, clip_data_host_write(x, (void **)&w));
    for (size_t i = 0; i < 300 * 70; i++)
        w[i] = 0.5f * (float)i;
    CHECK_OK(app, clip_data_upload(x));
    float back[300 * 70];
    CHECK_OK(app, clip_data_read(x, back));
    CHECK(!memcmp(back, w, sizeof back));
    clip_data *c = NULL;
    CHECK_OK(app, clip_data_convert(x, CLIP_F64, &c));
    CHECK(c && c->pinned != NULL && ((const double *)c->host)[7] == 3.5);
    clip_data_destroy(c);
    clip_data_destroy(y);
    clip_data_destroy(x);
    clip_data_destroy(z);
}

/* The policy: off with CLIP_PINNED=0, never past the device's largest allocation. */
static void test_policy(clip_app *app) {
    CHECK(clip_pinned_wanted(app, 1024));
    CHECK(!clip_pinned_wanted(app, (size_t)app->info.max_alloc + 1));
    setenv("CLIP_PINNED", "0", 1);
    CHECK(!clip_pinned_wanted(app, 1024));
    const size_t dims[2] = {64, 64};
    clip_data *d = NULL;
    CHECK_OK(app, clip_data_create(app, CLIP_F32, 2, dims, &d));
    CHECK(d->host != NULL && d->pinned == NULL && !clip_data_page_locked(d));
    clip_data_destroy(d);
    setenv("CLIP_PINNED", "1", 1);
}

/* A split over two devices reads page-locked inputs and writes page-locked outputs; the result
 * is the one device's, bit for bit (same kernels, same order). */
static void test_split(void) {
    clip_app *one = tu_app_devices(1), *two = tu_app_devices(2);
    if (!one || !two || clip_app_device_count(two) != 2) {
        printf("test_pinned: fewer than 2 devices; split not checked\n");
        clip_app_destroy(one);
        clip_app_destroy(two);
        return;
    }
    const size_t dims[3] = {97, 61, 5};
    clip_data *x1 = NULL, *x2 = NULL, *y1 = NULL, *y2 = NULL;
    CHECK_OK(one, clip_data_create(one, CLIP_F32, 3, dims, &x1));
    CHECK_OK(two, clip_data_create(two, CLIP_F32, 3, dims, &x2));
    float *a = NULL, *b = NULL;
    CHECK_OK(one, clip_data_host_write(x1, (void **)&a));
    CHECK_OK(two, clip_data_host_write(x2, (void **)&b));
    unsigned long long seed = 11;
    for (size_t i = 0; i < 97 * 61 * 5; i++)
        a[i] = b[i] = (float)tu_rand(&seed);
    scale(one, x1, &y1);
    scale(two, x2, &y2);
    const void *h1 = NULL, *h2 = NULL;
    CHECK_OK(one, clip_data_host(y1, &h1));
    CHECK_OK(two, clip_data_host(y2, &h2));
    CHECK(x2->pinned != NULL && y2->pinned != NULL);
    CHECK(h1 && h2 && !memcmp(h1, h2, 97 * 61 * 5 * sizeof(float)));
    clip_data_destroy(y1);
    clip_data_destroy(y2);
    clip_data_destroy(x1);
    clip_data_destroy(x2);
    clip_app_destroy(one);
    clip_app_destroy(two);
}

/* Failure injection builds: when the driver refuses page-locked memory (the buffer, or its
 * mapping after the buffer was made), the data gets ordinary memory and works as before; the
 * refused buffer is released (the sanitizer and valgrind runs of this test see a leak). */
static void test_fallback(clip_app *app) {
#ifdef CLIP_FAULT_INJECTION
    clip_fault_sites_reset();
    for (long nth = 1; nth <= 2; nth++) {
        const size_t dims[2] = {100, 3};
        float v[300];
        for (int i = 0; i < 300; i++)
            v[i] = (float)i;
        clip_data *x = NULL, *y = NULL;
        clip_fault_arm(CLIP_FAULT_FALLBACK, nth);
        CHECK_OK(app, clip_data_create_from(app, CLIP_F32, 2, dims, v, &x));
        clip_fault_arm(0, 0);
        CHECK(x && x->host && !clip_data_page_locked(x));
        scale(app, x, &y);
        const void *h = NULL;
        CHECK_OK(app, clip_data_host(y, &h));
        CHECK(h && ((const float *)h)[299] == 599.0f && clip_data_page_locked(y));
        clip_data_destroy(y);
        clip_data_destroy(x);
    }
    clip_fault_site *const *sites = NULL;
    size_t n = clip_fault_sites(&sites), fallback = 0;
    for (size_t i = 0; i < n; i++)
        if (sites[i]->kind == CLIP_FAULT_FALLBACK) {
            fallback++;
            CHECK(atomic_load(&sites[i]->calls) > 0);
        }
    CHECK(fallback == 2);
#else
    (void)app;
#endif
}

/* Storage of destroyed data of 4 MiB and more is kept for the app's next data of that size
 * (clip_pinned_free's pool): the same block comes back, holding the new data's values (a download
 * into it, zeros for zeroed data), and data of another size gets a block of its own. */
static void test_pool(clip_app *app) {
    const size_t dims[2] = {1024, 1024}, other[2] = {1024, 1025}, n = 1024 * 1024;
    float *v = malloc(n * sizeof *v);
    CHECK(v != NULL);
    if (!v) return;
    for (size_t i = 0; i < n; i++)
        v[i] = (float)(i % 1000) - 500.0f;
    clip_data *x = NULL, *y = NULL, *z = NULL, *w = NULL;
    const void *h = NULL, *first = NULL;
    CHECK_OK(app, clip_data_create_from(app, CLIP_F32, 2, dims, v, &x));
    scale(app, x, &y);
    CHECK_OK(app, clip_data_host(y, &first));
    CHECK(first && clip_data_page_locked(y));
    clip_data_destroy(y);
    const int kept = app->n_pinned;
    CHECK(kept >= 1);
    scale(app, x, &y); /* y = 2x + 1 again, downloaded into the kept block */
    CHECK_OK(app, clip_data_host(y, &h));
    CHECK(h == first && app->n_pinned == kept - 1);
    int right = h != NULL;
    for (size_t i = 0; right && i < n; i++)
        right = ((const float *)h)[i] == 2.0f * v[i] + 1.0f;
    CHECK(right);
    clip_data_destroy(y);
    CHECK_OK(app, clip_data_create_zeros(app, CLIP_F32, 2, dims, &z));
    CHECK_OK(app, clip_data_host(z, &h));
    int zeros = h == first;
    for (size_t i = 0; zeros && i < n; i++)
        zeros = ((const float *)h)[i] == 0.0f;
    CHECK(zeros); /* the kept block, holding 2x + 1 before: zeroed */
    CHECK_OK(app, clip_data_create(app, CLIP_F32, 2, other, &w));
    CHECK_OK(app, clip_data_host(w, &h));
    CHECK(h != NULL && h != first && clip_data_page_locked(w));
    clip_data_destroy(w);
    clip_data_destroy(z);
    clip_data_destroy(x);
    CHECK(app->n_pinned >= 2 && app->n_pinned <= CLIP_PINNED_POOL);
    free(v);
}

int main(void) {
    setenv("POCL_DEVICES", "pthread pthread", 0);
    setenv("CLIP_PINNED", "1", 1);
    clip_app *app = tu_app_devices(1);
    if (!app) return 2;
    test_lazy_storage(app);
    test_policy(app);
    test_fallback(app);
    test_pool(app);
    clip_app_destroy(app);
    test_split();
    return tu_finish("test_pinned");
}
