/* Internal to lib/: the one discipline every writer follows, so that a save is whole or absent,
 * and a run killed mid-save (kill -9, OOM killer) leaves nothing behind.
 *
 *   clip_save_file sf;
 *   clip_save_begin(app, op, path, &sf);     unnamed temporary in the target's directory
 *   ... the format library writes it: through clip_save_write (libtiff and libpng via client
 *       callbacks, CFL, the tuning cache), or by opening clip_save_path(&sf) itself (matio) ...
 *   clip_save_commit(app, op, &sf, path, &expect);   verify, fsync, name, rename, fsync the dir
 *   or clip_save_discard(&sf) on any failure before the commit.
 *
 * Where the file system has O_TMPFILE (ext4, xfs, btrfs, tmpfs) the temporary has no name while
 * it is written and verified: a killed process's unnamed file vanishes with its descriptors.
 * At the commit a single file whose target does not exist yet is linked to the target's own
 * name (one linkat: no kill can leave anything but nothing or the whole file). Otherwise (the
 * target exists, which linkat cannot replace; or CFL's pair) it is linked to a temporary name
 * and renamed over the target at once; the name exists from that linkat to the rename, a few
 * system calls with no data written in between (for a pair, also the removal below and two
 * directory fsyncs), the only moment a kill leaves a file (which the next save into the
 * directory removes, as below).
 *
 * CFL's pair (the samples, then the header that makes them loadable) is never half replaced:
 * renamed over one by one, a kill between the renames would leave the new samples under the old
 * header, read with the old dimensions (silently wrong when the element counts agree). So the
 * commit removes the old header and fsyncs the directory before the first rename, then renames
 * the samples, then the header. A kill or crash leaves one of three states, with or without
 * temporaries for the next save to remove: the old pair whole; the pair absent, with no header
 * (the samples old or new), which no reader loads ("load_cfl: x.hdr: No such file or directory;
 * x.cfl is there without it, ..."); or the new pair whole.
 *
 * A named temporary, "<target>.tmp-<host>-<pid>-<start>-<n>", is used for the whole save where
 * O_TMPFILE is refused (EOPNOTSUPP, EISDIR, EINVAL: NFS, vfat, older kernels), where /proc is not
 * mounted (the unnamed file could not be linked), and where the format library must reopen the
 * file by a real name (matio's MAT 7.3 writer: HDF5 resolves /proc/self/fd/N with realpath, which
 * fails for a file that has no name; see clip_save_name). <host> is the host name ('-' made '_'),
 * <start> the writer's start time (/proc/PID/stat, clock ticks after boot; 0 where unknown), <n>
 * a per-process counter. clip_save_begin removes from the target's directory every such
 * temporary whose writer is gone: same host, and no process PID, or one that started at another
 * time (the PID was reused). One written on another host (NFS) or by a live writer is never
 * touched, so cleaning can never delete a file some other save is still writing.
 *
 * Every named temporary a process makes (the named path, clip_save_name, the commit's naming) is
 * entered in a table of the process's named temporaries before the file is made, and leaves it
 * after the file is renamed or removed; clip_save_remove_temporaries (include/clip/io.h: a
 * signal handler's or atexit's call) removes the files the table names, so a process ended by
 * SIGTERM or SIGINT, or by an exit() in a library, need not wait for the next save's cleaning.
 * A joined temporary (clip_save_join) is not in the table, its creator owns it, unless the joiner
 * enters it with clip_save_watch_temporary.
 *
 * CLIP_TEST_SAVE_NAMED=1 in the environment makes every save take the named path, so tests
 * reach it on file systems that have O_TMPFILE.
 *
 * Messages follow "op: path: what: reason", the reason being strerror() of the errno the
 * operating system gave ("save_png: out.png: cannot write: No space left on device"). */
#ifndef CLIP_SAVE_FILE_H
#define CLIP_SAVE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

typedef struct clip_save_file {
    char *tmp;        /* the temporary's name (malloc'd) while it has one, else NULL */
    int fd;           /* open read-write on the temporary until commit or discard, else -1 */
    int err;          /* errno of the first failed clip_save_write, 0 while none failed */
    uint64_t pos;     /* where the next clip_save_write / clip_save_read goes */
    uint64_t end;     /* the largest offset written through clip_save_write */
    int verified;     /* clip_save_verify passed */
    char fd_path[32]; /* "/proc/self/fd/N" while the temporary is unnamed (O_TMPFILE), else "" */
    struct clip_save_slot *slot; /* tmp's entry in the table of this process's named
                                    temporaries (clip_save_remove_temporaries), else NULL */
} clip_save_file;

/* The discarded state, for a save file that clip_save_begin may never reach. */
#define CLIP_SAVE_FILE_INIT                                                                        \
    { NULL, -1, 0, 0, 0, 0, "", NULL }

/* What a written temporary must hold before it may replace the target. */
typedef struct clip_save_expect {
    uint64_t size;     /* exact size in bytes, CLIP_SAVE_SIZE_WRITTEN or CLIP_SAVE_SIZE_UNCHECKED */
    const void *magic; /* bytes the file must start with (its format's signature), or NULL */
    size_t magic_len;
} clip_save_expect;

/* The size is what went through clip_save_write (sf->end). */
#define CLIP_SAVE_SIZE_WRITTEN UINT64_MAX
/* No size is known in advance (MAT 7.3, laid out by HDF5): the writer rereads what it wrote. */
#define CLIP_SAVE_SIZE_UNCHECKED (UINT64_MAX - 1)

/* Removes the stale temporaries of dead writers from `path`'s directory, then creates an empty
 * temporary there (so the rename never crosses file systems) with the permissions a plain fopen
 * would give a new file (0666 less the umask; the commit gives it an existing target's own),
 * unnamed where it can, and opens it. On failure sets *sf to the discarded state
 * (safe to discard again) and returns CLIP_ERR_IO with the system's reason, or
 * CLIP_ERR_OUT_OF_MEMORY. */
clip_status clip_save_begin(clip_app *app, const char *op, const char *path, clip_save_file *sf);

/* A path by which a format library can open the temporary itself (matio's MAT 5 writer): its
 * name, or "/proc/self/fd/N" while it has none, which opens the same unnamed file. */
const char *clip_save_path(const clip_save_file *sf);

/* Gives an unnamed temporary its name now, for a library that needs a real one (HDF5 resolves
 * symbolic links such as /proc/self/fd/N with realpath). From here to the commit the save is on
 * the named path: a kill leaves the temporary, for the next save's cleaning. On failure the
 * temporary is discarded and CLIP_ERR_IO returned. */
clip_status clip_save_name(clip_app *app, const char *op, clip_save_file *sf, const char *path);

/* Writes n bytes at sf->pos, retrying short writes. Returns 0, or -1 with the errno kept in
 * sf->err (the first failure wins; later writes fail at once, so a writer cannot go on past a
 * hole). */
int clip_save_write(clip_save_file *sf, const void *buf, size_t n);

/* Reads up to n bytes at sf->pos into buf (libtiff rereads what it wrote). Returns the count,
 * or -1 with errno set. */
long long clip_save_read(clip_save_file *sf, void *buf, size_t n);

/* Flushes the temporary to the device (fsync) and checks it against *expect: size, then the
 * leading bytes reread from the file. A write error kept in sf->err, an fsync error (ENOSPC,
 * EDQUOT, EFBIG, EIO) or a mismatch is CLIP_ERR_IO, with the reason: for a file shorter than
 * expected whose writer reported nothing (matio's MAT 5 writer), the reason the file system
 * gives for growing it to its full size. On failure the temporary is discarded. */
clip_status clip_save_verify(clip_app *app, const char *op, clip_save_file *sf, const char *path,
                             const clip_save_expect *expect);

/* clip_save_verify (unless it already passed), then gives the temporary the permissions of the
 * target it replaces, if any (mode & 07777, as a file rewritten in place keeps them), links an
 * unnamed temporary to its name, renames the temporary over `path` and fsyncs the directory, so
 * the new name survives a crash.
 * Every failure is CLIP_ERR_IO; up to the rename the target is untouched and the temporary
 * removed. A failed directory fsync comes
 * after the rename: the target is then new but its name may not survive a crash, and the
 * message says so. Leaves *sf discarded either way. */
clip_status clip_save_commit(clip_app *app, const char *op, clip_save_file *sf, const char *path,
                             const clip_save_expect *expect);

/* clip_save_commit for n files that belong together, the last being the one that makes the set
 * loadable (CFL: samples, then header). All are verified, named and closed before any target
 * changes. For n > 1 the last one's previous target is then removed and the removal flushed
 * (directory fsync), and the files are renamed in the order given, the directory flushed before
 * the last rename and after it. A kill or crash thus leaves the old set whole, the set absent (no
 * last file, so nothing loads; the others old or new) or the new set whole, never new files
 * beside an old last one; named temporaries it leaves go with the next save into the directory.
 * For n > 1 the whole commit, from taking the targets' permissions (each file its own target's)
 * to the directory's last fsync, holds an exclusive flock on the directory, so that two commits
 * of one set never interleave (one's last file over the other's first ones); where the file
 * system offers no flock on a directory (NFS: EBADF, ENOLCK), it goes on without one, and a
 * directory that cannot be opened to lock fails the commit before any target changes.
 * A failure up to the removal, the removal's included, leaves the old set whole; one between it
 * and the last rename (a rename, a directory fsync) leaves the set absent, and its message says
 * that the previous last file was removed (or, for a set new to its place, that the last was not
 * written); every temporary is discarded either way. A failed fsync after the last rename leaves
 * the new set, as for clip_save_commit. A reader running during the commit may read the old last
 * file before the removal and new others after their renames, or find no last file: CFL's
 * reader (clip_load_cfl) keeps the header it read open, and reads again when its name no longer
 * leads there once the samples are read, or when it found none. For n == 1
 * this is clip_save_commit: one rename replaces the target in one step, and nothing is removed. */
clip_status clip_save_commit_all(clip_app *app, const char *op, size_t n, clip_save_file *sf,
                                 const char *const *path, const clip_save_expect *expect);

/* Sets CLIP_ERR_IO "op: path: cannot write: reason", the reason being strerror(sf->err) when a
 * write through clip_save_write failed, else "op: path: fallback" (the format library's own
 * words). Returns CLIP_ERR_IO; the caller still discards the temporary. */
clip_status clip_save_error(clip_app *app, const char *op, const clip_save_file *sf,
                            const char *path, const char *fallback);

/* Several writers of one file (the MPI layer: ranks writing their boxes). One writer makes the
 * temporary (clip_save_begin, then clip_save_name so that it has a name others can open) and
 * commits it; each other writer joins it by that name, writes through clip_save_write (sf->pos
 * set to each box's offset) and flushes. The discipline holds across them: the committer
 * commits only after every writer's flush succeeded (the caller's agreement, e.g. an MPI
 * reduction), and discards the temporary otherwise.
 * clip_save_join opens the named temporary `tmp` read-write, without creating it; *sf then never
 * removes it (discarding only closes). Errors: CLIP_ERR_IO with the system's reason. */
clip_status clip_save_join(clip_app *app, const char *op, const char *tmp, clip_save_file *sf);
/* A joined writer's end: a write error kept in sf->err, or the fsync's, is CLIP_ERR_IO naming
 * `path`; closes the file and leaves *sf discarded either way. */
clip_status clip_save_flush(clip_app *app, const char *op, clip_save_file *sf, const char *path);
/* The temporary's name (after clip_save_name), or NULL while it has none. */
const char *clip_save_temp_name(const clip_save_file *sf);

/* Closes and removes the temporary, if any; leaves *sf discarded. */
void clip_save_discard(clip_save_file *sf);

#endif
