/* Saves into a file system that is really full (issue 12): a 2 MB tmpfs is mounted in the
 * scratch directory, then for EXT = mat, tif, png, cfl, `clip run scale X -o full/o.EXT` with a
 * 9 MB output must exit 1 with "No space left on device" and leave full/ empty; an output that
 * fits still saves and reads back; the failing save again leaves that file byte-identical.
 * Mounting needs root (CI runs as root): where mount is refused the test reports skipped, with
 * the reason. test_save covers every writer without root, through a file-size limit. */
#define _XOPEN_SOURCE 700 /* mkdtemp, nftw */

#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io_testutil.h"
#include "testutil.h"

static char g_full[128]; /* g_dir: io_testutil.h */

/* Random integers 0..255 as f32: they survive every format, and PNG cannot compress them. */
static void make_input(clip_app *app, const char *path, size_t n, size_t channels) {
    size_t dims[3] = {n, n, channels};
    clip_data *d = NULL;
    void *p = NULL;
    if (clip_data_create(app, CLIP_F32, channels > 1 ? 3 : 2, dims, &d) != CLIP_OK ||
        clip_data_host_write(d, &p) != CLIP_OK) {
        fprintf(stderr, "make_input: %s\n", clip_app_last_error(app));
        exit(2);
    }
    unsigned long long seed = n;
    for (size_t i = 0; i < clip_data_numel(d); i++)
        ((float *)p)[i] = (float)floor((tu_rand(&seed) + 1.0) * 127.99);
    if (clip_save(app, path, d) != CLIP_OK) {
        fprintf(stderr, "make_input: %s\n", clip_app_last_error(app));
        exit(2);
    }
    clip_data_destroy(d);
}

/* Runs `clip run scale in -o out`; returns its exit status (-1 when it did not exit) and its
 * stderr in msg. */
static int run_scale(const char *in, const char *out, char *msg, size_t cap) {
    char cmd[1024], err[256];
    snprintf(err, sizeof err, "%s/stderr.txt", g_dir);
    snprintf(cmd, sizeof cmd, "'%s' run scale '%s' -o '%s' 2>'%s'", CLIP_TOOL, in, out, err);
    int status = system(cmd);
    size_t n = 0;
    unsigned char *text = tu_read_file(err, &n);
    snprintf(msg, cap, "%.*s", text ? (int)n : 0, text ? (const char *)text : "");
    free(text);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Entries of full/, not counting . and .. */
static int entries(void) {
    DIR *d = opendir(g_full);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

/* Same real values: the CFL output loads as complex, the others as real. */
static int same_values(clip_app *app, const char *a_path, const char *b_path) {
    clip_data *a = NULL, *b = NULL;
    int ok = clip_load(app, a_path, &a) == CLIP_OK && clip_load(app, b_path, &b) == CLIP_OK &&
             clip_data_numel(a) == clip_data_numel(b);
    const void *pa = NULL, *pb = NULL;
    if (ok) ok = clip_data_host(a, &pa) == CLIP_OK && clip_data_host(b, &pb) == CLIP_OK;
    size_t step = clip_type_is_complex(clip_data_type(b)) ? 2 : 1;
    for (size_t i = 0; ok && i < clip_data_numel(a); i++)
        ok = ((const float *)pa)[i] == ((const float *)pb)[i * step];
    if (!ok) fprintf(stderr, "%s and %s differ (%s)\n", a_path, b_path, clip_app_last_error(app));
    clip_data_destroy(a);
    clip_data_destroy(b);
    return ok;
}

static void test_ext(clip_app *app, const char *ext, const char *big, const char *small) {
    char out[256], other[256], msg[2048];
    snprintf(out, sizeof out, "%s/o.%s", g_full, ext);
    snprintf(other, sizeof other, "%s/o.hdr", g_full);
    int cfl = strcmp(ext, "cfl") == 0;

    int rc = run_scale(big, out, msg, sizeof msg);
    if (rc != 1 || !strstr(msg, strerror(ENOSPC)) || entries() != 0) {
        fprintf(stderr, "%s: 9 MB into 2 MB: exit %d, %d entries left, stderr: %s\n", ext, rc,
                entries(), msg);
        CHECK(0);
    }
    printf("test_save_full: %s: %s", ext, msg);

    CHECK(run_scale(small, out, msg, sizeof msg) == 0);
    CHECK(same_values(app, small, out));
    size_t n = 0, m = 0, n2 = 0, m2 = 0;
    unsigned char *before = tu_read_file(out, &n), *before_hdr = cfl ? tu_read_file(other, &m) : 0;

    rc = run_scale(big, out, msg, sizeof msg);
    unsigned char *after = tu_read_file(out, &n2), *after_hdr = cfl ? tu_read_file(other, &m2) : 0;
    CHECK(rc == 1 && strstr(msg, strerror(ENOSPC)));
    CHECK(before && after && n == n2 && memcmp(before, after, n) == 0);
    CHECK(!cfl || (before_hdr && after_hdr && m == m2 && memcmp(before_hdr, after_hdr, m) == 0));
    CHECK(entries() == (cfl ? 2 : 1));
    free(before);
    free(after);
    free(before_hdr);
    free(after_hdr);
    remove(out);
    if (cfl) remove(other);
}

int main(void) {
    snprintf(g_dir, sizeof g_dir, "test_save_full_XXXXXX");
    tu_scratch_dir(g_dir);
    snprintf(g_full, sizeof g_full, "%s/full", g_dir);
    mkdir(g_full, 0777);
    char cmd[512], why[512] = "";
    snprintf(cmd, sizeof cmd, "mount -t tmpfs -o size=2m tmpfs '%s' 2>'%s/mount.txt'", g_full,
             g_dir);
    if (system(cmd) != 0) {
        snprintf(cmd, sizeof cmd, "%s/mount.txt", g_dir);
        size_t n = 0;
        unsigned char *text = tu_read_file(cmd, &n);
        snprintf(why, sizeof why, "cannot mount a 2 MB tmpfs (needs root): %.*s",
                 text ? (int)strcspn((const char *)text, "\n") : 0, text ? (char *)text : "");
        free(text);
        tu_remove_tree(g_dir);
        return tu_skip("test_save_full", why);
    }
    clip_app *app = tu_app();
    char big[256], big_rgba[256], small[256], small_rgba[256];
    snprintf(big, sizeof big, "%s/big.mat", g_dir);
    snprintf(big_rgba, sizeof big_rgba, "%s/big_rgba.mat", g_dir);
    snprintf(small, sizeof small, "%s/small.mat", g_dir);
    snprintf(small_rgba, sizeof small_rgba, "%s/small_rgba.mat", g_dir);
    int mat = clip_io_has("mat");
    if (!mat) {
        printf("test_save_full: skipped: built without MAT, which the inputs are\n");
    } else {
        make_input(app, big, 1500, 1);      /* 9 MB of single: .mat, .tif, and 18 MB as .cfl */
        make_input(app, big_rgba, 1500, 4); /* 9 MB as an 8-bit RGBA .png */
        make_input(app, small, 300, 1);
        make_input(app, small_rgba, 300, 4);
        test_ext(app, "mat", big, small);
        if (clip_io_has("tiff")) test_ext(app, "tif", big, small);
        else printf("test_save_full: tif: skipped: built without TIFF\n");
        if (clip_io_has("png")) test_ext(app, "png", big_rgba, small_rgba);
        else printf("test_save_full: png: skipped: built without PNG\n");
        test_ext(app, "cfl", big, small);
    }
    clip_app_destroy(app);
    snprintf(cmd, sizeof cmd, "umount '%s'", g_full);
    CHECK(system(cmd) == 0);
    int rc = tu_finish("test_save_full");
    if (rc == 0 && !getenv("KEEP")) tu_remove_tree(g_dir);
    return mat ? rc : TU_SKIPPED;
}
