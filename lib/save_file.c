/* The save discipline (lib/save_file.h): temporary beside the target, verify, fsync, rename,
 * fsync the directory. */
#define _POSIX_C_SOURCE 200809L

#include "save_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void set_discarded(clip_save_file *sf) {
    memset(sf, 0, sizeof *sf);
    sf->fd = -1;
}

clip_status clip_save_begin(clip_app *app, const char *op, const char *path, clip_save_file *sf) {
    /* The pid keeps processes apart, the counter keeps threads and repeated saves apart, and
     * O_EXCL settles any remaining race. */
    static atomic_uint counter;
    set_discarded(sf);
    size_t cap = strlen(path) + 64;
    char *name = malloc(cap);
    if (!name)
        return clip_set_error(app, CLIP_ERR_OUT_OF_MEMORY, "%s: %s: out of memory", op, path);
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned n = atomic_fetch_add(&counter, 1u);
        snprintf(name, cap, "%s.tmp-%ld-%u", path, (long)getpid(), n);
        /* 0666 so that, after umask, the result has the permissions a plain fopen would give. */
        int fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            sf->tmp = name;
            sf->fd = fd;
            return CLIP_OK;
        }
        if (errno != EEXIST) {
            int err = errno;
            free(name);
            return clip_set_error(app, CLIP_ERR_IO, "%s: %s: cannot create a file there: %s", op,
                                  path, strerror(err));
        }
    }
    free(name);
    return clip_set_error(app, CLIP_ERR_IO, "%s: %s: cannot find a free temporary name", op, path);
}

int clip_save_write(clip_save_file *sf, const void *buf, size_t n) {
    if (sf->err) return -1;
    if (sf->fd < 0) {
        sf->err = EBADF;
        return -1;
    }
    const char *p = buf;
    while (n > 0) {
        /* Linux moves at most about 2 GiB per call; a short count is not an error by itself,
         * the next call at the new offset says why (EFBIG, ENOSPC). */
        size_t chunk = n > ((size_t)1 << 30) ? (size_t)1 << 30 : n;
        ssize_t w = pwrite(sf->fd, p, chunk, (off_t)sf->pos);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            sf->err = w < 0 ? errno : EIO;
            return -1;
        }
        p += w;
        n -= (size_t)w;
        sf->pos += (uint64_t)w;
        if (sf->pos > sf->end) sf->end = sf->pos;
    }
    return 0;
}

long long clip_save_read(clip_save_file *sf, void *buf, size_t n) {
    ssize_t r;
    do
        r = pread(sf->fd, buf, n, (off_t)sf->pos);
    while (r < 0 && errno == EINTR);
    if (r > 0) sf->pos += (uint64_t)r;
    return (long long)r;
}

void clip_save_discard(clip_save_file *sf) {
    if (sf->fd >= 0) close(sf->fd);
    if (sf->tmp) {
        unlink(sf->tmp);
        free(sf->tmp);
    }
    set_discarded(sf);
}

static clip_status fail_errno(clip_app *app, const char *op, clip_save_file *sf, const char *path,
                              const char *what, int err) {
    clip_status s =
        clip_set_error(app, CLIP_ERR_IO, "%s: %s: %s: %s", op, path, what, strerror(err));
    clip_save_discard(sf);
    return s;
}

clip_status clip_save_error(clip_app *app, const char *op, const clip_save_file *sf,
                            const char *path,
                           const char *fallback) {
    if (sf->err)
        return clip_set_error(app, CLIP_ERR_IO, "%s: %s: cannot write: %s", op, path,
                              strerror(sf->err));
    return clip_set_error(app, CLIP_ERR_IO, "%s: %s: %s", op, path, fallback);
}

/* A file shorter than its writer meant, with no error from the writer: asking the file system
 * to hold the missing bytes gives the reason (ENOSPC, EFBIG, EDQUOT) the writer dropped. */
static clip_status short_file(clip_app *app, const char *op, clip_save_file *sf, const char *path,
                              uint64_t have, uint64_t want) {
    int err = posix_fallocate(sf->fd, (off_t)have, (off_t)(want - have));
    clip_status s =
        err ? clip_set_error(app, CLIP_ERR_IO, "%s: %s: cannot write: %s (the file holds %llu of "
                             "%llu bytes)", op, path, strerror(err), (unsigned long long)have,
                             (unsigned long long)want)
            : clip_set_error(app, CLIP_ERR_IO,
                             "%s: %s: cannot write: the file holds %llu of %llu bytes (the writer "
                             "reported no error)", op, path, (unsigned long long)have,
                             (unsigned long long)want);
    clip_save_discard(sf);
    return s;
}

clip_status clip_save_verify(clip_app *app, const char *op, clip_save_file *sf, const char *path,
                             const clip_save_expect *expect) {
    if (sf->err) return fail_errno(app, op, sf, path, "cannot write", sf->err);
    if (fsync(sf->fd) != 0) return fail_errno(app, op, sf, path, "cannot flush to disk", errno);
    struct stat st;
    if (fstat(sf->fd, &st) != 0) return fail_errno(app, op, sf, path, "cannot check", errno);
    uint64_t have = (uint64_t)st.st_size;
    uint64_t want = expect->size == CLIP_SAVE_SIZE_WRITTEN ? sf->end
                    : expect->size == CLIP_SAVE_SIZE_UNCHECKED ? have
                                                                : expect->size;
    if (have < want) return short_file(app, op, sf, path, have, want);
    if (have > want) {
        clip_status s = clip_set_error(app, CLIP_ERR_IO,
                                       "%s: %s: the written file holds %llu bytes, its format "
                                       "needs %llu", op, path, (unsigned long long)have,
                                       (unsigned long long)want);
        clip_save_discard(sf);
        return s;
    }
    if (expect->magic && expect->magic_len) {
        unsigned char head[64];
        size_t n = expect->magic_len < sizeof head ? expect->magic_len : sizeof head;
        ssize_t r = pread(sf->fd, head, n, 0);
        if (r < 0) return fail_errno(app, op, sf, path, "cannot reread", errno);
        if ((size_t)r != n || memcmp(head, expect->magic, n) != 0) {
            clip_status s = clip_set_error(app, CLIP_ERR_IO,
                                           "%s: %s: the written file does not start with its "
                                           "format's signature", op, path);
            clip_save_discard(sf);
            return s;
        }
    }
    sf->verified = 1;
    return CLIP_OK;
}

/* fsync of the directory holding `path`, so a rename in it survives a crash. Returns 0 or an
 * errno; file systems that cannot sync a directory (EINVAL) have nothing more to offer. */
static int sync_dir(const char *path) {
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    if (!dir) return ENOMEM;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int err = fd < 0 ? errno : 0;
    free(dir);
    if (fd >= 0) {
        if (fsync(fd) != 0 && errno != EINVAL) err = errno;
        close(fd);
    }
    return err;
}

clip_status clip_save_commit(clip_app *app, const char *op, clip_save_file *sf, const char *path,
                             const clip_save_expect *expect) {
    if (!sf->verified) {
        clip_status s = clip_save_verify(app, op, sf, path, expect);
        if (s != CLIP_OK) return s;
    }
    int fd = sf->fd;
    sf->fd = -1;
    /* Some file systems (NFS) report a failed write only at close. */
    if (close(fd) != 0) return fail_errno(app, op, sf, path, "cannot write", errno);
    if (rename(sf->tmp, path) != 0)
        return fail_errno(app, op, sf, path, "cannot rename the written file into place", errno);
    free(sf->tmp);
    set_discarded(sf);
    int err = sync_dir(path);
    if (err)
        return clip_set_error(app, CLIP_ERR_IO,
                              "%s: %s: saved, but its directory cannot be flushed to disk, so the "
                              "new file may not survive a crash: %s", op, path, strerror(err));
    return CLIP_OK;
}
