/* The save discipline (lib/save_file.h): unnamed temporary in the target's directory (or a
 * named one, cleaned after a dead writer), verify, fsync, name, rename, fsync the directory. */
#define _GNU_SOURCE /* O_TMPFILE; linkat, gethostname and kill are POSIX */

#include "save_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The table of this process's named temporaries (save_file.h), read by
 * clip_save_remove_temporaries from signal handlers: slots in blocks that are never freed (a
 * handler may walk them at any moment), each slot's name owned through its atomic state. A slot
 * goes FREE -> FILLING (its maker writes pid and name) -> READY; a remover takes it READY -> BUSY
 * while it unlinks, then gives it back READY; leaving takes it READY -> FILLING (waiting out a
 * remover on another thread), frees the name, and sets FREE. A handler thus never reads a name
 * being written or freed. */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2 && ATOMIC_POINTER_LOCK_FREE == 2,
               "a signal handler may use only lock-free atomics");
enum { SLOT_FREE, SLOT_FILLING, SLOT_READY, SLOT_BUSY };
struct clip_save_slot {
    atomic_int state;
    pid_t pid;  /* its maker: a child after fork removes none of its parent's */
    char *name; /* malloc'd; set while READY or BUSY */
};
typedef struct slot_block {
    struct clip_save_slot slot[32];
    struct slot_block *_Atomic next;
} slot_block;
static slot_block first_block;

/* Enters `name` in the table; NULL when out of memory. */
static struct clip_save_slot *slot_enter(const char *name) {
    char *copy = strdup(name);
    if (!copy) return NULL;
    for (slot_block *b = &first_block;;) {
        for (size_t i = 0; i < sizeof b->slot / sizeof b->slot[0]; i++) {
            struct clip_save_slot *s = &b->slot[i];
            int expect = SLOT_FREE;
            if (atomic_compare_exchange_strong(&s->state, &expect, SLOT_FILLING)) {
                s->pid = getpid();
                s->name = copy;
                atomic_store(&s->state, SLOT_READY);
                return s;
            }
        }
        slot_block *next = atomic_load(&b->next);
        if (!next) {
            slot_block *fresh = calloc(1, sizeof *fresh);
            if (!fresh) {
                free(copy);
                return NULL;
            }
            if (atomic_compare_exchange_strong(&b->next, &next, fresh))
                next = fresh;
            else
                free(fresh); /* another thread appended one first: `next` is it */
        }
        b = next;
    }
}

/* Takes a slot out of the table, once its file is renamed or removed. NULL: nothing. */
static void slot_leave(struct clip_save_slot *s) {
    if (!s) return;
    int expect = SLOT_READY;
    while (!atomic_compare_exchange_weak(&s->state, &expect, SLOT_FILLING))
        expect = SLOT_READY; /* a remover on another thread holds it for one unlink */
    free(s->name);
    s->name = NULL;
    atomic_store(&s->state, SLOT_FREE);
}

void clip_save_remove_temporaries(void) {
    const pid_t me = getpid();
    for (slot_block *b = &first_block; b; b = atomic_load(&b->next))
        for (size_t i = 0; i < sizeof b->slot / sizeof b->slot[0]; i++) {
            struct clip_save_slot *s = &b->slot[i];
            int expect = SLOT_READY;
            if (!atomic_compare_exchange_strong(&s->state, &expect, SLOT_BUSY)) continue;
            if (s->pid == me) unlink(s->name); /* ENOENT: renamed or not made yet */
            atomic_store(&s->state, SLOT_READY);
        }
}

clip_status clip_save_watch_temporary(clip_app *app, const char *temp, clip_save_watch **out) {
    if (out) *out = NULL;
    if (!temp || !*temp || !out)
        return clip_set_error(app, CLIP_ERR_INVALID_ARG,
                              "save_watch_temporary: NULL or empty argument");
    *out = slot_enter(temp);
    return *out ? CLIP_OK
                : clip_set_error(app, CLIP_ERR_OUT_OF_MEMORY,
                                 "save_watch_temporary: out of memory for %s", temp);
}

void clip_save_unwatch(clip_save_watch *w) {
    slot_leave(w);
}

static void set_discarded(clip_save_file *sf) {
    memset(sf, 0, sizeof *sf);
    sf->fd = -1;
}

/* The directory holding `path` (malloc'd), or NULL when out of memory. */
static char *dir_of(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
}

/* This host's name as temporaries carry it: '-' separates the name's fields, so it becomes '_'
 * (as does anything but letters, digits, '.' and '_'). */
static void host_name(char out[72]) {
    if (gethostname(out, 64) != 0) snprintf(out, 64, "unknown");
    out[64] = '\0';
    for (char *c = out; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '.' || *c == '_'))
            *c = '_';
}

/* The start time (clock ticks after boot, field 22) from a /proc/PID/stat file. Returns 0, or
 * -1 when the file cannot be read (no such process, or no /proc). */
static int read_start(const char *stat_path, unsigned long long *start) {
    char buf[1024];
    int fd = open(stat_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return -1;
    buf[n] = '\0';
    /* Field 2 is the command in parentheses and may hold spaces or ')': count after the last. */
    char *p = strrchr(buf, ')');
    for (int field = 2; p && field < 22; field++)
        p = strchr(p + 1, ' ');
    if (!p) return -1;
    *start = strtoull(p + 1, NULL, 10);
    return 0;
}

/* 1 when no process PID that started at `start` runs on this host any more. In doubt (no /proc,
 * or a writer whose start time was unknown) a process that answers kill(pid, 0) counts as the
 * writer, so a live writer's file is never taken for stale. */
static int writer_gone(long pid, unsigned long long start) {
    char stat_path[64];
    snprintf(stat_path, sizeof stat_path, "/proc/%ld/stat", pid);
    unsigned long long now;
    if (read_start(stat_path, &now) == 0) return start != 0 && now != start;
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Reads a decimal number ending in `stop`; NULL unless one is there. */
static const char *number(const char *p, char stop, unsigned long long *v) {
    if (*p < '0' || *p > '9') return NULL;
    char *end;
    *v = strtoull(p, &end, 10);
    return *end == stop ? end + (stop != '\0') : NULL;
}

/* Whether `name` is "<target>.tmp-<host>-<pid>-<start>-<n>" for this host, written by a process
 * that is gone. */
static int stale_temporary(const char *name, const char *host) {
    const char *t = NULL;
    for (const char *p = strstr(name, ".tmp-"); p; p = strstr(p + 1, ".tmp-"))
        t = p + strlen(".tmp-");
    size_t host_len = strlen(host);
    if (!t || strncmp(t, host, host_len) != 0 || t[host_len] != '-') return 0;
    unsigned long long pid, start, n;
    const char *p = number(t + host_len + 1, '-', &pid);
    if (p) p = number(p, '-', &start);
    if (p) p = number(p, '\0', &n);
    return p && pid > 0 && pid <= (unsigned long long)0x7fffffff && writer_gone((long)pid, start);
}

/* Removes the temporaries that writers now gone left in `dir`. Best effort: a directory that
 * cannot be read fails the save's own create with a better message. Costs one read of the
 * directory per save. */
static void remove_stale(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return;
    char host[72];
    host_name(host);
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strstr(e->d_name, ".tmp-") && stale_temporary(e->d_name, host))
            unlinkat(dirfd(d), e->d_name, 0); /* ENOENT: another save cleaned it first */
    closedir(d);
}

/* Gives the temporary a fresh name beside `path` through make(sf, name) (create it, or link the
 * unnamed file to it), trying the next name while make answers EEXIST. Returns 0 with sf->tmp
 * set, or an errno (EEXIST: no free name). */
static int name_temporary(clip_save_file *sf, const char *path,
                          int (*make)(clip_save_file *sf, const char *name)) {
    /* The host and pid (with its start time, since pids are reused) keep writers apart and let
     * a later save tell a dead writer's file; the counter keeps threads and repeated saves
     * apart, and O_EXCL / linkat's EEXIST settle any remaining race. */
    static atomic_uint counter;
    char host[72];
    host_name(host);
    unsigned long long start = 0;
    if (read_start("/proc/self/stat", &start) != 0) start = 0;
    size_t cap = strlen(path) + sizeof host + 80;
    char *name = malloc(cap);
    if (!name) return ENOMEM;
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned n = atomic_fetch_add(&counter, 1u);
        snprintf(name, cap, "%s.tmp-%s-%ld-%llu-%u", path, host, (long)getpid(), start, n);
        /* in the table before the file exists, so that no signal finds a file it does not name
         * (the name carries this process's pid and counter: no other file can have it) */
        struct clip_save_slot *slot = slot_enter(name);
        if (!slot) {
            free(name);
            return ENOMEM;
        }
        int err = make(sf, name);
        if (!err) {
            sf->tmp = name;
            sf->slot = slot;
            return 0;
        }
        slot_leave(slot);
        if (err != EEXIST) {
            free(name);
            return err;
        }
    }
    free(name);
    return EEXIST;
}

static int create_named(clip_save_file *sf, const char *name) {
    /* 0666 so that, after umask, the result has the permissions a plain fopen would give. */
    sf->fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    return sf->fd < 0 ? errno : 0;
}

static int link_unnamed(clip_save_file *sf, const char *name) {
    /* Through /proc, which needs no privilege (linkat's AT_EMPTY_PATH needs
     * CAP_DAC_READ_SEARCH); clip_save_begin made sure the path is there. */
    return linkat(AT_FDCWD, sf->fd_path, AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0 ? 0 : errno;
}

/* An unnamed file in `dir`, or -1 where O_TMPFILE is refused (EOPNOTSUPP, EISDIR, EINVAL on
 * file systems and kernels without it) or could not be linked later (no /proc); the named path
 * then reports any error that is not about O_TMPFILE (EACCES, ENOENT, ENOSPC) in its words. */
static int open_unnamed(const char *dir, char fd_path[32]) {
    const char *named = getenv("CLIP_TEST_SAVE_NAMED");
    if (named && *named && strcmp(named, "0") != 0) return -1;
    /* Without O_EXCL, so that the commit may link it; 0666 as for create_named. */
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0666);
    if (fd < 0) return -1;
    snprintf(fd_path, 32, "/proc/self/fd/%d", fd);
    if (access(fd_path, F_OK) == 0) return fd;
    close(fd);
    fd_path[0] = '\0';
    return -1;
}

clip_status clip_save_begin(clip_app *app, const char *op, const char *path, clip_save_file *sf) {
    set_discarded(sf);
    char *dir = dir_of(path);
    if (!dir) return clip_set_error(app, CLIP_ERR_OUT_OF_MEMORY, "%s: %s: out of memory", op, path);
    remove_stale(dir);
    sf->fd = open_unnamed(dir, sf->fd_path);
    free(dir);
    if (sf->fd >= 0) return CLIP_OK;
    int err = name_temporary(sf, path, create_named);
    if (!err) return CLIP_OK;
    set_discarded(sf);
    if (err == ENOMEM)
        return clip_set_error(app, CLIP_ERR_OUT_OF_MEMORY, "%s: %s: out of memory", op, path);
    if (err == EEXIST)
        return clip_set_error(app, CLIP_ERR_IO, "%s: %s: cannot find a free temporary name", op,
                              path);
    return clip_set_error(app, CLIP_ERR_IO, "%s: %s: cannot create a file there: %s", op, path,
                          strerror(err));
}

const char *clip_save_path(const clip_save_file *sf) {
    return sf->tmp ? sf->tmp : sf->fd_path;
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
        slot_leave(sf->slot);
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
                            const char *path, const char *fallback) {
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
        err ? clip_set_error(app, CLIP_ERR_IO,
                             "%s: %s: cannot write: %s (the file holds %llu of "
                             "%llu bytes)",
                             op, path, strerror(err), (unsigned long long)have,
                             (unsigned long long)want)
            : clip_set_error(app, CLIP_ERR_IO,
                             "%s: %s: cannot write: the file holds %llu of %llu bytes (the writer "
                             "reported no error)",
                             op, path, (unsigned long long)have, (unsigned long long)want);
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
    uint64_t want = expect->size == CLIP_SAVE_SIZE_WRITTEN     ? sf->end
                    : expect->size == CLIP_SAVE_SIZE_UNCHECKED ? have
                                                               : expect->size;
    if (have < want) return short_file(app, op, sf, path, have, want);
    if (have > want) {
        clip_status s =
            clip_set_error(app, CLIP_ERR_IO,
                           "%s: %s: the written file holds %llu bytes, its format "
                           "needs %llu",
                           op, path, (unsigned long long)have, (unsigned long long)want);
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
                                           "format's signature",
                                           op, path);
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
    char *dir = dir_of(path);
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

/* The end of a commit: the directory of `path`, just renamed or linked, flushed to disk. A failure
 * leaves the new file in place, and the message says it may not survive a crash. */
static clip_status flush_saved(clip_app *app, const char *op, const char *path) {
    int err = sync_dir(path);
    if (err)
        return clip_set_error(app, CLIP_ERR_IO,
                              "%s: %s: saved, but its directory cannot be flushed to disk, so "
                              "the new file may not survive a crash: %s",
                              op, path, strerror(err));
    return CLIP_OK;
}

clip_status clip_save_name(clip_app *app, const char *op, clip_save_file *sf, const char *path) {
    if (sf->tmp) return CLIP_OK;
    if (sf->fd < 0) return fail_errno(app, op, sf, path, "cannot name the written file", EBADF);
    int err = name_temporary(sf, path, link_unnamed);
    if (err) return fail_errno(app, op, sf, path, "cannot name the written file", err);
    sf->fd_path[0] = '\0';
    return CLIP_OK;
}

/* An existing target keeps its permissions, as it would if rewritten in place: the temporary,
 * made 0666 less the umask, would otherwise widen a file its owner had made private. Returns 0
 * or an errno; a target that is not there (ENOENT) leaves the temporary's fopen-like mode. */
static int keep_mode(const clip_save_file *sf, const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) return errno == ENOENT ? 0 : errno;
    return fchmod(sf->fd, st.st_mode & 07777) == 0 ? 0 : errno;
}

/* Takes an exclusive flock on the directory holding `path`, so that the commits of a set into
 * it run one after another: two savers' removals and renames interleaved would leave one's last
 * file over the other's first ones (CFL: a header over another save's samples). Returns the
 * locked descriptor (closing it releases the lock), -1 where the file system offers no flock on
 * a directory (NFS emulates it with POSIX locks, which an exclusive lock on a read-only
 * descriptor cannot take: EBADF; or ENOLCK, EOPNOTSUPP, EINVAL), or -2 - errno when the
 * directory cannot be opened. */
static int lock_dir(const char *path) {
    char *dir = dir_of(path);
    if (!dir) return -2 - ENOMEM;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int err = errno;
    free(dir);
    if (fd < 0) return -2 - err;
    int r;
    while ((r = flock(fd, LOCK_EX)) != 0 && errno == EINTR)
        ;
    if (r != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Discards sf[from..n-1] and returns s. */
static clip_status discard_rest(clip_save_file *sf, size_t from, size_t n, clip_status s) {
    for (size_t i = from; i < n; i++)
        clip_save_discard(&sf[i]);
    return s;
}

/* A commit of a set that fails once the set is absent: the last file's previous target removed
 * (removed), or the first files of a new set renamed into place without the last. The message
 * says so, since "cannot rename" alone suggests the old set is still there. Discards every
 * temporary left. */
static clip_status set_absent(clip_app *app, const char *op, clip_save_file *sf, size_t n,
                              const char *path, const char *what, int err, const char *last,
                              int removed) {
    clip_status s = clip_set_error(app, CLIP_ERR_IO,
                                   "%s: %s: %s: %s; %s%s %s, so the set is absent (no reader "
                                   "loads it) until a save succeeds",
                                   op, path, what, strerror(err), removed ? "the previous " : "",
                                   last, removed ? "was removed first" : "was not written");
    return discard_rest(sf, 0, n, s);
}

static clip_status commit_locked(clip_app *app, const char *op, size_t n, clip_save_file *sf,
                                 const char *const *path);

clip_status clip_save_commit_all(clip_app *app, const char *op, size_t n, clip_save_file *sf,
                                 const char *const *path, const clip_save_expect *expect) {
    clip_status s = CLIP_OK;
    for (size_t i = 0; i < n; i++)
        if (!sf[i].verified && (s = clip_save_verify(app, op, &sf[i], path[i], &expect[i])))
            return discard_rest(sf, 0, n, s);
    /* From the targets' modes to the last rename, no other commit of a set into the directory
     * runs; a lone file's rename is one step and needs no lock. */
    int lock = -1;
    if (n > 1 && (lock = lock_dir(path[n - 1])) < -1) {
        s = fail_errno(app, op, &sf[n - 1], path[n - 1], "cannot open its directory to lock it",
                       -2 - lock);
        return discard_rest(sf, 0, n, s);
    }
    s = commit_locked(app, op, n, sf, path);
    if (lock >= 0) close(lock);
    return s;
}

/* clip_save_commit_all from the verified temporaries on, under its directory's lock for a set. */
static clip_status commit_locked(clip_app *app, const char *op, size_t n, clip_save_file *sf,
                                 const char *const *path) {
    clip_status s = CLIP_OK;
    for (size_t i = 0; i < n; i++) {
        int err = keep_mode(&sf[i], path[i]);
        if (err) {
            s = fail_errno(app, op, &sf[i], path[i],
                           "cannot give the written file the permissions of the one it replaces",
                           err);
            return discard_rest(sf, 0, n, s);
        }
    }
    /* A lone unnamed file with no target yet takes the target's name in one linkat, so that
     * no kill leaves a temporary; where the target exists (EEXIST) it goes the renaming way. */
    if (n == 1 && !sf->tmp && sf->fd >= 0 &&
        linkat(AT_FDCWD, sf->fd_path, AT_FDCWD, path[0], AT_SYMLINK_FOLLOW) == 0) {
        int fd = sf->fd;
        sf->fd = -1;
        if (close(fd) != 0) {
            int err = errno;
            unlink(path[0]);
            return fail_errno(app, op, sf, path[0], "cannot write", err);
        }
        set_discarded(sf);
        return flush_saved(app, op, path[0]);
    }
    /* Unnamed temporaries get their names only now, verified and on disk: from here to the
     * last rename is the one window in which a kill leaves (whole) temporaries behind, and the
     * renames follow one another so that a set (CFL) is absent for no longer than that. */
    for (size_t i = 0; i < n; i++)
        if ((s = clip_save_name(app, op, &sf[i], path[i]))) return discard_rest(sf, 0, n, s);
    for (size_t i = 0; i < n; i++) {
        int fd = sf[i].fd;
        sf[i].fd = -1;
        /* Some file systems (NFS) report a failed write only at close. */
        if (close(fd) != 0) {
            s = fail_errno(app, op, &sf[i], path[i], "cannot write", errno);
            return discard_rest(sf, 0, n, s);
        }
    }
    /* The last file is the one that makes a set loadable (CFL's header). Renamed over one by one,
     * a kill between the renames would leave new files beside the old last one: new samples read
     * under old dimensions, wrong without a word when the sizes agree. So its old target goes
     * first, and that removal is on disk before any rename can be: every state between is then
     * the old set, a set without its last file (which no reader loads) or the new set. A lone
     * file needs none of this: its rename replaces the target in one step. */
    const char *last = path[n - 1];
    int removed = 0;
    if (n > 1) {
        if (unlink(last) == 0)
            removed = 1;
        else if (errno != ENOENT) {
            s = fail_errno(app, op, &sf[n - 1], last, "cannot remove the previous file", errno);
            return discard_rest(sf, 0, n, s);
        }
        int err = removed ? sync_dir(last) : 0;
        if (err)
            return set_absent(app, op, sf, n, last, "cannot flush its removal to disk", err, last,
                              removed);
    }
    for (size_t i = 0; i < n; i++) {
        /* The others' new names go to disk before the last one's, so that no crash keeps the
         * last name without them. */
        for (size_t j = 0; i == n - 1 && j < i; j++) {
            int err = sync_dir(path[j]);
            if (err)
                return set_absent(app, op, sf, n, path[j], "cannot flush its directory to disk",
                                  err, last, removed);
        }
        if (rename(sf[i].tmp, path[i]) != 0) {
            int err = errno;
            if (removed || i > 0)
                return set_absent(app, op, sf, n, path[i],
                                  "cannot rename the written file into place", err, last, removed);
            s = fail_errno(app, op, &sf[i], path[i], "cannot rename the written file into place",
                           err);
            return discard_rest(sf, 0, n, s);
        }
        slot_leave(sf[i].slot);
        free(sf[i].tmp);
        set_discarded(&sf[i]);
    }
    return flush_saved(app, op, last);
}

clip_status clip_save_commit(clip_app *app, const char *op, clip_save_file *sf, const char *path,
                             const clip_save_expect *expect) {
    return clip_save_commit_all(app, op, 1, sf, &path, expect);
}

clip_status clip_save_join(clip_app *app, const char *op, const char *tmp, clip_save_file *sf) {
    set_discarded(sf);
    int fd = open(tmp, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return clip_set_error(app, CLIP_ERR_IO, "%s: %s: cannot open the shared temporary: %s", op,
                              tmp, strerror(errno));
    sf->fd = fd;
    return CLIP_OK;
}

clip_status clip_save_flush(clip_app *app, const char *op, clip_save_file *sf, const char *path) {
    int err = sf->err ? sf->err : sf->fd < 0 ? EBADF : fsync(sf->fd) != 0 ? errno : 0;
    const char *what = sf->err ? "cannot write" : "cannot flush to disk";
    clip_save_discard(sf); /* joined: closes only */
    if (err)
        return clip_set_error(app, CLIP_ERR_IO, "%s: %s: %s: %s", op, path, what, strerror(err));
    return CLIP_OK;
}

const char *clip_save_temp_name(const clip_save_file *sf) {
    return sf->tmp;
}
