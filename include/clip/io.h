/* clip — loading and saving data through real format libraries.
 *
 * Formats (each optional at build time; when its library was missing, its calls return
 * CLIP_ERR_UNSUPPORTED with "built without TIFF support" and so on):
 *   TIFF (libtiff)  .tif .tiff  8/16/32-bit unsigned and signed integer and 32/64-bit float
 *                   samples, any number of channels; pages stack along the last dimension:
 *                   rows x cols (1 channel, 1 page), rows x cols x channels, rows x cols x pages
 *                   (1 channel), rows x cols x channels x pages.
 *   PNG  (libpng)   .png  8/16-bit gray, gray+alpha, RGB, RGBA (palette expanded to RGB(A)),
 *                   up to 2^31-1 rows and columns (PNG's limit, not libpng's default 10^6).
 *   MAT  (matio)    .mat  v5, and v7.3 where matio has HDF5; numeric classes, real or complex,
 *                   N-D. Load takes the first numeric variable (a logical only where the file
 *                   has no other: MATLAB's isnumeric(true) is false), or the one named
 *                   (clip_load_opts.var); where there is none, CLIP_ERR_FORMAT lists the file's
 *                   variables and classes (struct, cell, char, sparse: not loaded), and a named
 *                   variable of such a class is CLIP_ERR_TYPE saying so. v7.3 variables whose
 *                   MATLAB_class matio misreads (hdf5storage's, without a NUL) are read through
 *                   HDF5 where clip was built with it. Save writes one variable.
 *                   MAT 5 holds dimensions and byte counts in 32 bits: a variable with a
 *                   dimension or an encoded size past 2^31-1 is CLIP_ERR_DIMS, before anything
 *                   is written (save it as v7.3).
 *   CFL  (BART)     .cfl with its .hdr: complex float arrays.
 *
 * Element types on load: 8 and 16-bit integer image samples load as f32 holding their raw values
 * (0..255, 0..65535, ...); 32-bit integer TIFF samples as f64, which holds every one exactly (f32
 * would round 16777217 and 4294967295); float TIFF samples keep f32/f64. MAT: single -> f32,
 * double -> f64, complex -> c32/c64, int8/uint8/int16/uint16/logical -> f32,
 * int32/uint32/int64/uint64 -> f64.
 * CFL always loads as c32.
 *
 * Nothing is read in part without a word. A TIFF whose pages differ in size or samples (a
 * thumbnail, a reduced-resolution page), or whose pages hold sub-images (SubIFDs: a pyramid), is
 * CLIP_ERR_FORMAT naming them, unless one page is chosen (clip_load_opts.page; on the command
 * line FILE.tif:N), which reads that page alone. An animated PNG (APNG) is
 * CLIP_ERR_FORMAT saying how many frames it holds, unless page 1 is chosen, which loads the
 * default image (what a reader without APNG support shows); clip does not compose later frames.
 * A palette PNG loads expanded to RGB(A) values, as imread does; a palette TIFF loads its raw
 * indices (as imread's first output does: the palette is not applied).
 *
 * Saves keep the values they were given, or refuse (images; MAT and CFL keep every value of
 * their type). The stored sample type (clip_save_opts.sample):
 *   AUTO  every value a whole number: the narrowest integer type that holds them all, of
 *         8-bit unsigned (0..255), 8-bit signed, 16-bit unsigned (0..65535), 16-bit signed,
 *         32-bit unsigned, 32-bit signed (PNG: the two unsigned ones only). Otherwise TIFF
 *         stores float (32-bit for f32, 64-bit for f64 data) and PNG refuses (CLIP_ERR_TYPE),
 *         unless fit asks to clamp or scale, which then stores 16-bit unsigned samples (a scale
 *         always does).
 *   U8, U16        8/16-bit unsigned integers (PNG and TIFF).
 *   I8, I16, U32, I32   8/16-bit signed, 32-bit unsigned and signed integers (TIFF only).
 *   F32, F64       float (TIFF only); F32 of f64 data rounds to single, as MATLAB's single().
 * Values an integer type cannot hold (outside its range, fractional, NaN, Inf) are
 * CLIP_ERR_TYPE with a message naming how many there are of each kind and the range ("save_png:
 * out.png: 2 of 6 values do not fit 16-bit unsigned samples (whole numbers 0..65535): 1 above
 * 65535 (largest 70000), 1 fractional (e.g. 0.5)"); nothing is written, and no file is left.
 * An explicit fit changes values, and the report says how (clip_save_report.text):
 *   CLIP_FIT_CLAMP  values below the range become its minimum, above it its maximum, fractions
 *                   round to nearest (half away from zero, as MATLAB's uint16()), NaN becomes 0.
 *   CLIP_FIT_SCALE  the data's finite [min, max] maps linearly onto the type's whole range, then
 *                   rounds; NaN becomes 0, +-Inf the ends (constant data stores the minimum).
 * A fit on a float TIFF sample changes nothing (float keeps every value; F32 rounds to single).
 *
 * Stacks: TIFF stores rows x cols x N as N pages, except N of 3 or 4, which is one RGB / RGBA
 * image (a 2-channel gray+alpha TIFF therefore saves back as 2 pages); rows x cols x C x P is P
 * pages of C channels. clip_save_opts.third says which a third dimension is where the rule
 * guesses wrong (a 3-page stack, a 5-channel image). PNG stores rows x cols x 1..4 channels, one
 * image. What clip saves loads back with the same dimensions.
 *
 * A save is whole or absent. It writes a temporary file in the target's directory, then checks
 * it before it commits: flushed to disk (fsync), of the size the format requires (MAT 5: known
 * exactly from the variable, since matio ignores short writes; TIFF, PNG, CFL: every byte the
 * writer handed over; MAT 7.3: the variable read back) and starting with the format's
 * signature; only then is it renamed over the target and the directory fsynced, so the new name
 * survives a crash. Any short write, fsync error (ENOSPC, EDQUOT, EFBIG, EIO) or mismatch is
 * CLIP_ERR_IO, removes the temporary and leaves the target as it was; the message names the
 * operation, the path and the system's reason, in every format ("save_png: out.png: cannot
 * write: No space left on device"). A CFL save verifies both files before either is renamed;
 * replacing a pair, it then removes the old header first, so that a kill or crash in between
 * leaves the old pair, the new pair, or samples without a header, which clip_load_cfl refuses
 * (CLIP_ERR_IO, saying the samples are there without it), never new samples read under the old
 * header's dimensions. A commit that fails after that removal says the pair is absent. Saves of
 * one pair running at once (threads, processes) commit one after another, under an exclusive
 * flock on the directory, so the pair left is one save's whole; where the file system has no
 * flock for directories (NFS), nothing keeps such saves apart.
 *
 * Permissions: a new file gets those a plain fopen would give (0666 less the umask); a file saved
 * over keeps its own (each file of a CFL pair its own).
 *
 * A process killed mid-save (kill -9, the OOM killer):
 *   TIFF, PNG, CFL, MAT 5 (and the tuning cache), where the file system offers O_TMPFILE
 *   (ext4, xfs, btrfs, tmpfs) and /proc is mounted: the temporary has no name until it is
 *   whole and on disk, so a kill leaves no file at all; it is linked to a temporary name and
 *   renamed over the target at the commit, a window of a few system calls.
 *   MAT 7.3 (HDF5 opens files only by a real name), and every format on file systems without
 *   O_TMPFILE (NFS, vfat): a kill may leave "<target>.tmp-<host>-<pid>-<start>-<n>". The next
 *   save into that directory removes it once its writer is gone (no process <pid> on this host,
 *   or one started at another time than <start>, so a reused pid does not protect it); a live
 *   writer's temporary, or one from another host, is never touched. (Looking costs each save
 *   one read of its directory.) A program that handles SIGTERM or SIGINT removes its own at
 *   once with clip_save_remove_temporaries (below); SIGKILL leaves them to that cleaning.
 *
 * A program that runs under a file-size limit (ulimit -f) should ignore SIGXFSZ, as the clip
 * tool does, so the limit becomes "File too large" rather than a kill; the library leaves
 * signal dispositions alone.
 *
 * Ownership: a loaded object is new; the caller destroys it with clip_data_destroy.
 * Errors (each load and save returns those that apply to it): CLIP_ERR_INVALID_ARG, CLIP_ERR_IO
 * (cannot open/read/write: message has the path and the system's reason), CLIP_ERR_FORMAT (corrupt
 * or unsupported content: message says what), CLIP_ERR_UNSUPPORTED (format not built in, unknown
 * extension, or ".cfl" not in lower case), CLIP_ERR_TYPE (complex data to an image, a named MAT
 * variable that is not numeric, image values the stored sample type cannot hold), CLIP_ERR_DIMS (a
 * shape the format cannot hold: an image's channels or extra dimensions, MAT 5's 32-bit sizes; on
 * load, more than 8 dimensions other than 1 in a MAT variable or CFL header), CLIP_ERR_OVERFLOW (a
 * size that does not fit size_t), CLIP_ERR_OUT_OF_MEMORY, and for saves CLIP_ERR_OPENCL (data whose
 * current copy is on the device, a process's output, comes to the host first: clip_data_host).
 */
#ifndef CLIP_IO_H
#define CLIP_IO_H

#include "export.h"

#include "app.h"
#include "data.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sample type for image saves (above: "Saves keep the values they were given"). */
typedef enum clip_sample {
    CLIP_SAMPLE_AUTO = 0,
    CLIP_SAMPLE_U8,
    CLIP_SAMPLE_U16,
    CLIP_SAMPLE_F32, /* TIFF only, as every type below */
    CLIP_SAMPLE_F64,
    CLIP_SAMPLE_I8,
    CLIP_SAMPLE_I16,
    CLIP_SAMPLE_U32,
    CLIP_SAMPLE_I32
} clip_sample;

/* What an image save does with values the integer sample type cannot hold. */
typedef enum clip_fit {
    CLIP_FIT_EXACT = 0, /* refuse them (CLIP_ERR_TYPE), writing nothing */
    CLIP_FIT_CLAMP,     /* clamp to the range, round to nearest, NaN -> 0 */
    CLIP_FIT_SCALE      /* map the data's [min, max] onto the whole range, then round */
} clip_fit;

/* What the third dimension of rows x cols x N is in a TIFF save. */
typedef enum clip_third {
    CLIP_THIRD_AUTO = 0, /* channels when N is 3 or 4 (RGB, RGBA), pages otherwise */
    CLIP_THIRD_CHANNELS,
    CLIP_THIRD_PAGES
} clip_third;

/* Options of clip_save_with; zero-initialised = clip_save's behaviour. */
typedef struct clip_save_opts {
    clip_sample sample; /* images */
    clip_fit fit;       /* images with integer samples */
    clip_third third;   /* TIFF */
    const char *var;    /* MAT: the variable's name; NULL = "result" */
    int v73;            /* MAT: non-zero writes v7.3 (HDF5) */
} clip_save_opts;

/* What an image save stored and what it changed (filled by clip_save_with when not NULL). */
typedef struct clip_save_report {
    clip_sample sample;     /* the sample type written (AUTO for MAT and CFL) */
    size_t pages, channels; /* images: how the data was laid out */
    size_t changed;         /* values stored other than given (clamp, scale, rounding) */
    char text[320];         /* one sentence saying what fit changed; "" when nothing was */
} clip_save_report;

/* Options of clip_load_with; zero-initialised = clip_load's behaviour. */
typedef struct clip_load_opts {
    const char *var; /* MAT: the variable's name; NULL = the first numeric one */
    size_t page;     /* TIFF: the page to load, from 1 (0 = every page, stacked); PNG: 1 takes an
                        APNG's default image (0 refuses an animation) */
} clip_load_opts;

/* Loads by extension (.tif .tiff .png .mat, case-insensitive; .cfl in lower case only, since the
 * pair's files are base.cfl and base.hdr: "x.CFL" is CLIP_ERR_UNSUPPORTED). */
CLIP_API clip_status clip_load(clip_app *app, const char *path, clip_data **out);
/* clip_load with options: a MAT variable by name, one TIFF page. An option the format has no use
 * for (a page of a MAT file, a variable of a TIFF) is CLIP_ERR_INVALID_ARG; a page past the last
 * is CLIP_ERR_FORMAT naming how many there are. opts may be NULL. */
CLIP_API clip_status clip_load_with(clip_app *app, const char *path, const clip_load_opts *opts,
                                    clip_data **out);
/* Saves by extension (as clip_load): images with sample AUTO and no fit (values kept exactly, or
 * CLIP_ERR_TYPE); .mat is MAT 5 with the variable "result". */
CLIP_API clip_status clip_save(clip_app *app, const char *path, clip_data *d);
/* clip_save with options (opts may be NULL) and a report of what was stored (may be NULL). An
 * option the format has no use for (a sample type for MAT, float samples for PNG, pages for PNG)
 * is CLIP_ERR_INVALID_ARG. */
CLIP_API clip_status clip_save_with(clip_app *app, const char *path, clip_data *d,
                                    const clip_save_opts *opts, clip_save_report *report);

CLIP_API clip_status clip_load_tiff(clip_app *app, const char *path, clip_data **out);
/* d: rows x cols [x channels [x pages]], real (third dimension: CLIP_THIRD_AUTO); no fit. */
CLIP_API clip_status clip_save_tiff(clip_app *app, const char *path, clip_data *d,
                                    clip_sample sample);

CLIP_API clip_status clip_load_png(clip_app *app, const char *path, clip_data **out);
/* d: rows x cols [x channels], channels 1..4, real; sample AUTO, U8 or U16; no fit. */
CLIP_API clip_status clip_save_png(clip_app *app, const char *path, clip_data *d,
                                   clip_sample sample);

/* Loads the first numeric variable (or the one named `var` when var is non-NULL). */
CLIP_API clip_status clip_load_mat(clip_app *app, const char *path, const char *var,
                                   clip_data **out);
/* Writes one variable named `var` (NULL = "result"). v73 non-zero asks for v7.3 (HDF5): it is
 * CLIP_ERR_UNSUPPORTED when matio lacks HDF5. v73 zero (MAT 5): CLIP_ERR_DIMS when a dimension or
 * the variable's encoded size passes 2^31-1 (above). */
CLIP_API clip_status clip_save_mat(clip_app *app, const char *path, const char *var, clip_data *d,
                                   int v73);

/* `base` is the path without extension: reads base.hdr and base.cfl. CLIP_ERR_IO when either is
 * missing or unreadable (samples with no header, which a save killed while it replaced the pair
 * leaves, are said to be so); CLIP_ERR_FORMAT when the header is malformed or the samples' size
 * is not the header's; CLIP_ERR_DIMS when the header has more than 8 sizes other than 1. A load
 * running beside a save of the same pair (another process's clip_save_cfl) returns the old pair or
 * the new one, whole: it reads again when the header it read was replaced before its samples were
 * read, and waits up to a second for a header while only samples are there (the moment in a commit
 * between the old header's removal and the new one's rename), so samples without a header fail
 * after that second. */
CLIP_API clip_status clip_load_cfl(clip_app *app, const char *base, clip_data **out);
/* Writes base.cfl, then base.hdr, as a pair (above: whole, or absent). */
CLIP_API clip_status clip_save_cfl(clip_app *app, const char *base, clip_data *d);

/* Non-zero if the format was built in: "tiff", "png", "mat", "mat73", "cfl". */
CLIP_API int clip_io_has(const char *format);

/* ---- CFL by boxes: a runner that reads only the parts it needs, and writers (MPI ranks) that
 * put their parts into one file ----------------------------------------------------------- */

/* The shape of base's pair, from base.hdr alone. app may be NULL (errors then go to the calling
 * thread's last error, clip_app_last_error(NULL)). Errors: CLIP_ERR_IO, CLIP_ERR_FORMAT,
 * CLIP_ERR_DIMS, CLIP_ERR_INVALID_ARG. */
CLIP_API clip_status clip_cfl_shape(clip_app *app, const char *base, int *ndims,
                                    size_t dims[CLIP_MAX_DIMS]);
/* Box `box` of base's array (the header's shape; the samples file must have exactly its size),
 * read by one pread per run of contiguous samples: a new c32 object of the box's counts.
 * Errors: as clip_load_cfl's, and CLIP_ERR_INVALID_ARG (a box outside the array). */
CLIP_API clip_status clip_load_cfl_box(clip_app *app, const char *base, const clip_box *box,
                                       clip_data **out);

/* As clip_load_cfl_box, into caller memory: dst receives the box's elements as complex float
 * (8 bytes each, the box's counts in column-major order). app may be NULL: errors then go to the
 * calling thread's last error (clip_app_last_error(NULL)), so a thread that is not the app's
 * (an I/O thread reading ahead) may call it. Errors: as clip_load_cfl_box's. */
CLIP_API clip_status clip_cfl_read_box(clip_app *app, const char *base, const clip_box *box,
                                       void *dst);

/* ---- MAT 7.3 by boxes: a MAT 7.3 file is HDF5, and a box of a variable is a hyperslab that
 * HDF5 reads alone (the chunks it touches, for a chunked variable). Built with HDF5 and matio
 * (clip_io_has("mat73") and CLIP_WITH_HDF5); else every call is CLIP_ERR_UNSUPPORTED saying so.
 * Numeric and logical variables as clip_load_mat reads them: the dataset's dimensions reversed
 * are MATLAB's, complex is a compound of "real" and "imag"; the clip type is the class's
 * (single, small integers and logical f32, double and large integers f64; complex c32/c64).
 * app may be NULL (errors to the calling thread's last error); HDF5 as Debian builds it is not
 * thread-safe, so one thread at a time may call these. */

/* Shape and clip type of variable var (NULL: the first numeric one) of the MAT 7.3 file at path,
 * from its metadata alone. Errors: CLIP_ERR_FORMAT (not HDF5, no such variable, not numeric),
 * CLIP_ERR_DIMS, CLIP_ERR_UNSUPPORTED, CLIP_ERR_INVALID_ARG. */
CLIP_API clip_status clip_mat73_shape(clip_app *app, const char *path, const char *var, int *ndims,
                                      size_t dims[CLIP_MAX_DIMS], clip_type *type);
/* Box `box` of that variable into dst: the box's counts of the variable's clip type, in
 * column-major order. Errors: as clip_mat73_shape's, CLIP_ERR_INVALID_ARG (a box outside the
 * variable), CLIP_ERR_FORMAT (HDF5 could not read it). */
CLIP_API clip_status clip_mat73_read_box(clip_app *app, const char *path, const char *var,
                                         const clip_box *box, void *dst);
/* As clip_mat73_read_box, into a new object of the box's counts (the caller's). */
CLIP_API clip_status clip_load_mat73_box(clip_app *app, const char *path, const char *var,
                                         const clip_box *box, clip_data **out);

/* Removes every named temporary file this process's saves made and have not yet committed or
 * removed ("<target>.tmp-HOST-PID-...": MAT 7.3 saves, the writers by boxes' temporaries this
 * process created, any save on a file system without O_TMPFILE, a commit's moment between naming
 * and renaming). Meant for a program's SIGTERM / SIGINT handler and its atexit hook: it is
 * async-signal-safe (unlink on names kept ready beforehand, lock-free atomics, no allocation) and
 * may run on any thread at any moment, also while saves are in progress on others; those saves
 * then fail their commit (CLIP_ERR_IO, "No such file or directory") and leave no file. A child
 * after fork() removes none of its parent's. Temporaries other processes made, joined through
 * clip_cfl_writer_join / clip_mat73_writer_join, are left to their creator unless this process
 * watches them (clip_save_watch_temporary). Unnamed temporaries
 * (O_TMPFILE) need nothing: they vanish with the process. The library installs no handler
 * itself. */
CLIP_API void clip_save_remove_temporaries(void);

/* A named temporary another process made and this one joined (clip_cfl_writer_join,
 * clip_mat73_writer_join), entered in this process's table so that clip_save_remove_temporaries
 * removes it too: for jobs where whichever process ends first must clean up, since the creator
 * may be killed before its handler runs (clip-mpi: mpirun SIGKILLs the other ranks once the first
 * exits). Owned by the caller; clip_save_unwatch takes it out again once the creator has
 * committed or removed the file. */
typedef struct clip_save_slot clip_save_watch;
/* Enters `temp` (a path, as clip_cfl_writer_temp gave it) in the table; *out is NULL on error.
 * Errors: CLIP_ERR_INVALID_ARG (NULL or empty temp, NULL out), CLIP_ERR_OUT_OF_MEMORY. */
CLIP_API clip_status clip_save_watch_temporary(clip_app *app, const char *temp,
                                               clip_save_watch **out);
/* Takes w out of the table (the file itself is left as it is). NULL: nothing. Not for signal
 * handlers: it frees memory. */
CLIP_API void clip_save_unwatch(clip_save_watch *w);

/* One CFL pair written by boxes, by one or several writers (processes, possibly on several
 * hosts over a shared file system). The creator makes the samples' temporary in base's
 * directory, with a name the others open (clip_cfl_writer_temp: "<base>.cfl.tmp-HOST-PID-..."),
 * each writer puts its boxes and finishes; after every writer finished with success (the
 * caller's agreement: an MPI reduction), the creator finishes with commit: the samples are
 * checked to be whole in size, the header is written and the pair committed as clip_save_cfl
 * commits (whole or absent; lib/save_file.h). Finishing without commit, the creator removes the
 * temporary. A creator killed before it finishes leaves the named temporary, which the next save
 * into that directory removes (its writer is gone). */
typedef struct clip_cfl_writer clip_cfl_writer;
/* Errors: CLIP_ERR_IO (with the path and the system's reason), CLIP_ERR_INVALID_ARG,
 * CLIP_ERR_OUT_OF_MEMORY. */
CLIP_API clip_status clip_cfl_writer_create(clip_app *app, const char *base, int ndims,
                                            const size_t *dims, clip_cfl_writer **out);
/* The samples temporary's name (borrowed from w), for the other writers. */
CLIP_API const char *clip_cfl_writer_temp(const clip_cfl_writer *w);
/* Opens the temporary `temp` another process made for base. Errors: CLIP_ERR_IO. */
CLIP_API clip_status clip_cfl_writer_join(clip_app *app, const char *base, const char *temp,
                                          int ndims, const size_t *dims, clip_cfl_writer **out);
/* Writes box `keep` of d (any type, converted to complex float) at `at` of the file's array.
 * Errors: CLIP_ERR_INVALID_ARG (a box outside d or the file), CLIP_ERR_IO, and clip_data_host's. */
CLIP_API clip_status clip_cfl_writer_put(clip_cfl_writer *w, clip_data *d, const clip_box *keep,
                                         const size_t *at);
/* As clip_cfl_writer_put, from host memory: `host` holds an array of `type` (f32, f64, c32 or
 * c64) and dims (CLIP_MAX_DIMS sizes). It uses no app: another thread than w's app's may call it
 * (an I/O thread writing behind), while no other thread uses w; errors go to the calling
 * thread's last error (clip_app_last_error(NULL)). Errors: as clip_cfl_writer_put's. */
CLIP_API clip_status clip_cfl_writer_put_host(clip_cfl_writer *w, clip_type type,
                                              const size_t *dims, const void *host,
                                              const clip_box *keep, const size_t *at);
/* Ends w (freed either way). A joined writer with `commit` flushes its writes to disk (fsync);
 * the creator with `commit` commits the pair, without it removes the temporary. Errors:
 * CLIP_ERR_IO (a write or flush that failed; the pair not whole in size). */
CLIP_API clip_status clip_cfl_writer_finish(clip_cfl_writer *w, int commit);

/* ---- MAT 7.3 written by boxes: one variable of a MAT 7.3 file written by one or several
 * writers (processes, possibly on several hosts over a shared file system), as
 * clip_cfl_writer does for a CFL pair. The creator makes the file in a named temporary in the
 * target's directory ("<path>.tmp-HOST-PID-...", clip_mat73_writer_temp): a MAT 7.3 file as
 * clip_save_mat writes it (the MAT header, then HDF5; the variable in MATLAB's form: dimensions
 * reversed, single or double, complex as a compound of "real" and "imag", its MATLAB_class),
 * with the variable stored contiguously, uncompressed, its storage allocated at once. The
 * others join it; every writer puts its boxes, which go straight to the variable's offsets in
 * the file (pwrite: writers in parallel, HDF5 not involved, as HDF5 is not safe for several
 * writing processes); each finishes; after every writer finished with success (the caller's
 * agreement), the creator finishes with commit: the file's size is checked against the layout,
 * the variable read back (HDF5 and matio) and the file committed as clip_save_mat commits
 * (whole or absent; lib/save_file.h). Without commit the creator removes the temporary. Built
 * with matio and HDF5 (clip_io_has("mat73") and CLIP_WITH_HDF5); else create and join are
 * CLIP_ERR_UNSUPPORTED saying so. The creator's and joiner's calls use HDF5 (one thread at a
 * time); put_host does not. */
typedef struct clip_mat73_writer clip_mat73_writer;
/* Variable `var` (NULL: "result"; MATLAB's name rule) of `type` (f32: single, f64: double, c32,
 * c64: complex) and dims (ndims sizes, none 0) in a new temporary for `path`. Errors:
 * CLIP_ERR_INVALID_ARG (a bad name, type or size), CLIP_ERR_IO (the file system's reason),
 * CLIP_ERR_FORMAT (HDF5 could not lay the variable out), CLIP_ERR_UNSUPPORTED,
 * CLIP_ERR_OUT_OF_MEMORY. */
CLIP_API clip_status clip_mat73_writer_create(clip_app *app, const char *path, const char *var,
                                              clip_type type, int ndims, const size_t *dims,
                                              clip_mat73_writer **out);
/* The temporary's name (borrowed from w), for the other writers. */
CLIP_API const char *clip_mat73_writer_temp(const clip_mat73_writer *w);
/* Opens the temporary `temp` another process made for path, whose variable var must be of type
 * and dims (CLIP_ERR_FORMAT otherwise). Errors: as create's. */
CLIP_API clip_status clip_mat73_writer_join(clip_app *app, const char *path, const char *temp,
                                            const char *var, clip_type type, int ndims,
                                            const size_t *dims, clip_mat73_writer **out);
/* Writes box `keep` of d at `at` of the variable, converted to the variable's type (real into
 * complex with imaginary part 0). Errors: CLIP_ERR_INVALID_ARG (a box outside d or the
 * variable, complex data for a real variable), CLIP_ERR_IO, and clip_data_host's. */
CLIP_API clip_status clip_mat73_writer_put(clip_mat73_writer *w, clip_data *d, const clip_box *keep,
                                           const size_t *at);
/* As clip_mat73_writer_put, from host memory (an array of `type`, f32, f64, c32 or c64, and dims,
 * CLIP_MAX_DIMS sizes). It uses no app nor HDF5: another thread than w's app's may call it (an
 * I/O thread writing behind), while no other thread uses w; errors go to the calling thread's
 * last error (clip_app_last_error(NULL)). Errors: as clip_mat73_writer_put's. */
CLIP_API clip_status clip_mat73_writer_put_host(clip_mat73_writer *w, clip_type type,
                                                const size_t *dims, const void *host,
                                                const clip_box *keep, const size_t *at);
/* Ends w (freed either way). A joined writer with `commit` flushes its writes to disk (fsync);
 * the creator with `commit` checks and commits the file, without it removes the temporary.
 * Errors: CLIP_ERR_IO (a write or flush that failed, a file not whole in size or not reading
 * back as the variable). */
CLIP_API clip_status clip_mat73_writer_finish(clip_mat73_writer *w, int commit);

#ifdef __cplusplus
}
#endif
#endif
