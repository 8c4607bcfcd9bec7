/* How `clip run` names a file and a part of it: FILE.mat:NAME (a MAT variable; on -o the name
 * the result is saved under), FILE.tif:N (TIFF page N, from 1) and FILE.png:1 (an animated PNG's
 * default image). A word is split at its last ':' only where the part before it ends in .mat,
 * .tif, .tiff or .png and the whole word does not, so "a:b.tif" is still a file's name. */
#ifndef CLIP_TOOLS_IO_SPEC_H
#define CLIP_TOOLS_IO_SPEC_H

#include <stddef.h>

#include "clip/clip.h"

typedef struct io_spec {
    char *path;      /* the file (malloc'd) */
    const char *var; /* MAT variable (points into the word), or NULL */
    size_t page;     /* page from 1, or 0 */
} io_spec;

/* Splits word into *sp (released by io_spec_release). output: the word follows -o, where only a
 * MAT variable may be named. Returns 0, 2 with err set (a usage error: a selector the format has
 * no use for, a page that is not a positive integer), or 1 when out of memory. */
int io_spec_parse(const char *word, int output, io_spec *sp, char *err, size_t cap);

void io_spec_release(io_spec *sp);

/* What a path's extension names, compared as io_spec_parse does (case-insensitive). */
enum { IO_SPEC_OTHER, IO_SPEC_MAT, IO_SPEC_IMAGE, IO_SPEC_CFL };
int io_spec_kind(const char *path);

/* clip run's load of an input word and save of an output word: 0, or the exit status after one
 * line on stderr (2 for a usage error: a selector or save option the file cannot take; 1 for
 * the rest). A save that changed values (opts->fit) says on stderr what it changed. */
int io_spec_load(clip_app *app, const char *word, clip_data **out);
int io_spec_save(clip_app *app, const char *word, const clip_save_opts *opts, clip_data *d);

#endif
