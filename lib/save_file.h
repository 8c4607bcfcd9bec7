/* Internal to lib/: the one discipline every writer follows, so that a save is whole or absent.
 *
 *   clip_save_file sf;
 *   clip_save_begin(app, op, path, &sf);     temporary beside the target, held open
 *   ... the format library writes it: through clip_save_write (libtiff and libpng via client
 *       callbacks, CFL, the tuning cache), or by the temporary's name (matio) ...
 *   clip_save_commit(app, op, &sf, path, &expect);   verify, fsync, rename, fsync the directory
 *   or clip_save_discard(&sf) on any failure before the commit.
 *
 * Temporary names are "<target>.tmp-<pid>-<n>": a process killed mid-save (kill -9, power cut)
 * leaves one beside the target; nothing else uses that pattern, so such files may be removed
 * once no process with that pid is saving.
 *
 * Messages follow "op: path: what: reason", the reason being strerror() of the errno the
 * operating system gave ("save_png: out.png: cannot write: No space left on device"). */
#ifndef CLIP_SAVE_FILE_H
#define CLIP_SAVE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

typedef struct clip_save_file {
    char *tmp;        /* the temporary's name (malloc'd), NULL once committed or discarded */
    int fd;           /* open read-write on the temporary until commit or discard, else -1 */
    int err;          /* errno of the first failed clip_save_write, 0 while none failed */
    uint64_t pos;     /* where the next clip_save_write / clip_save_read goes */
    uint64_t end;     /* the largest offset written through clip_save_write */
    int verified;     /* clip_save_verify passed */
} clip_save_file;

/* The discarded state, for a save file that clip_save_begin may never reach. */
#define CLIP_SAVE_FILE_INIT {NULL, -1, 0, 0, 0, 0}

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

/* Creates an empty temporary beside `path` (so the rename never crosses file systems) with the
 * permissions a plain fopen would give, and opens it. On failure sets *sf to the discarded
 * state (safe to discard again) and returns CLIP_ERR_IO with the system's reason, or
 * CLIP_ERR_OUT_OF_MEMORY. */
clip_status clip_save_begin(clip_app *app, const char *op, const char *path, clip_save_file *sf);

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

/* clip_save_verify (unless it already passed), then renames the temporary over `path` and
 * fsyncs the directory, so the new name survives a crash. Every failure is CLIP_ERR_IO; up to
 * the rename the target is untouched and the temporary removed. A failed directory fsync comes
 * after the rename: the target is then new but its name may not survive a crash, and the
 * message says so. Leaves *sf discarded either way. */
clip_status clip_save_commit(clip_app *app, const char *op, clip_save_file *sf, const char *path,
                             const clip_save_expect *expect);

/* Sets CLIP_ERR_IO "op: path: cannot write: reason", the reason being strerror(sf->err) when a
 * write through clip_save_write failed, else "op: path: fallback" (the format library's own
 * words). Returns CLIP_ERR_IO; the caller still discards the temporary. */
clip_status clip_save_error(clip_app *app, const char *op, const clip_save_file *sf,
                            const char *path, const char *fallback);

/* Closes and removes the temporary, if any; leaves *sf discarded. */
void clip_save_discard(clip_save_file *sf);

#endif
