/* Structural check of MAT v4 and v5 files before matio reads them.
 *
 * Why: matio trusts every length a file declares. A v5 array name claiming 4 GB makes it
 * allocate and zero 4 GB for a 400-byte file; dimensions or a cell count of billions make it
 * allocate and loop as long; a v4 name length likewise. This walk reads tags and headers only
 * and rejects (CLIP_ERR_FORMAT) every declared size that does not fit in what contains it:
 *  - v5: each top-level element ends inside the file and is miMATRIX or miCOMPRESSED;
 *  - in an array, recursively (cells, struct and object fields, nested arrays), every
 *    subelement fits in its parent, in the normal and in the small (<= 4 bytes) tag format;
 *  - array flags, dimensions and name come first, in the layout matio parses (an opaque array
 *    is read differently by matio and is checked the way matio reads it);
 *  - numeric data holds exactly numel values of a numeric type (real and imaginary parts), so
 *    matio's allocation (numel x class size) never exceeds a small multiple of real bytes;
 *  - a cell holds numel arrays, a struct numel x fields: counts are bounded before any loop;
 *  - miCOMPRESSED: the inflated size is unknown without inflating, so the stream is inflated
 *    here with zlib, but only up to the last tag that must be checked: data is skipped lazily
 *    and never inflated when no tag follows it. The inflated array may not claim more than
 *    deflate's maximum ratio (1032:1) allows for the compressed length.
 *  - v4: each header's sizes fit in the file and the name ends in a NUL.
 * v7.3 files are HDF5, which checks its own structure; they are left to matio and HDF5. */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "io_internal.h"

#ifdef CLIP_HAVE_MATIO

#include <zlib.h>

enum { MI_INT8 = 1, MI_INT32 = 5, MI_UINT32 = 6, MI_MATRIX = 14, MI_COMPRESSED = 15 };
enum {
    MX_CELL = 1,
    MX_STRUCT = 2,
    MX_OBJECT = 3,
    MX_DOUBLE = 6,
    MX_UINT64 = 15,
    MX_FUNCTION = 16,
    MX_OPAQUE = 17
};
enum { MAX_DEPTH = 64, DEFLATE_MAX_RATIO = 1032 };

typedef struct walk {
    clip_app *app;
    const char *path;
    FILE *f;
    int swap;          /* big-endian file */
    const char *what;  /* "element" (v5) or "v4 variable", for messages */
    uint64_t elem;     /* file offset of the top-level element under check, for messages */
    uint64_t off;      /* uncompressed: file offset of the next byte to read */
    uint64_t skip;     /* bytes to pass over before the next read */
    z_stream *z;       /* set inside a miCOMPRESSED element */
    uint64_t z_left;   /* compressed bytes not yet handed to zlib */
    unsigned char zin[16384];
} walk;

typedef struct tag {
    uint32_t type, n;  /* data type and declared data bytes */
    uint64_t size;     /* bytes the subelement takes in its parent: tag, data, padding */
    int small;         /* small format: type and size in 4 bytes, data in the other 4 */
    unsigned char data[4];
} tag;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static clip_status fail(walk *w, const char *fmt, ...) {
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return clip_set_error(w->app, CLIP_ERR_FORMAT, "load_mat: %s: corrupt %s at byte %llu: %s",
                          w->path, w->what, (unsigned long long)w->elem, msg);
}

static uint32_t u32(const unsigned char *p, int swap) {
    return swap ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
                : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static uint64_t pad8(uint64_t n) {
    return (n + 7) / 8 * 8;
}

static clip_status read_at(walk *w, uint64_t off, void *buf, size_t n) {
    if (fseeko(w->f, (off_t)off, SEEK_SET) != 0 || fread(buf, 1, n, w->f) != n)
        return fail(w, "cannot read %zu bytes at byte %llu", n, (unsigned long long)off);
    return CLIP_OK;
}

/* Inflates n bytes into buf (after passing over any pending skip). */
static clip_status inflate_take(walk *w, unsigned char *buf, size_t n) {
    unsigned char sink[4096];
    while (w->skip || n) {
        int skipping = w->skip != 0;
        size_t want = skipping ? (w->skip < sizeof sink ? (size_t)w->skip : sizeof sink) : n;
        w->z->next_out = skipping ? sink : buf;
        w->z->avail_out = (uInt)want;
        while (w->z->avail_out) {
            if (!w->z->avail_in && w->z_left) {
                size_t chunk = w->z_left < sizeof w->zin ? (size_t)w->z_left : sizeof w->zin;
                if (fread(w->zin, 1, chunk, w->f) != chunk)
                    return fail(w, "cannot read the compressed data");
                w->z_left -= chunk;
                w->z->next_in = w->zin;
                w->z->avail_in = (uInt)chunk;
            }
            int r = inflate(w->z, Z_NO_FLUSH);
            if (r == Z_STREAM_END && w->z->avail_out)
                return fail(w, "the compressed data ends before the array does");
            if (r == Z_BUF_ERROR && !w->z->avail_in && !w->z_left)
                return fail(w, "the compressed data is cut short");
            if (r != Z_OK && r != Z_STREAM_END)
                return fail(w, "corrupt compressed data (zlib: %s)",
                            w->z->msg ? w->z->msg : zError(r));
        }
        if (skipping) {
            w->skip -= want;
        } else {
            buf += want;
            n -= want;
        }
    }
    return CLIP_OK;
}

/* Reads the next n bytes of the element under check. */
static clip_status take(walk *w, void *buf, size_t n) {
    if (w->z) return inflate_take(w, buf, n);
    w->off += w->skip;
    w->skip = 0;
    clip_status s = read_at(w, w->off, buf, n);
    w->off += n;
    return s;
}

/* Reads the tag of a subelement that must fit in *avail bytes. Afterwards the cursor is at the
 * subelement's data (past it in the small format) and *avail excludes the whole subelement.
 * The last subelement may lack its padding. */
static clip_status get_tag(walk *w, uint64_t *avail, const char *what, tag *t) {
    unsigned char b[8];
    if (*avail < 8)
        return fail(w, "%s: %llu bytes left, too few for a tag", what,
                    (unsigned long long)*avail);
    clip_status s = take(w, b, 8);
    if (s != CLIP_OK) return s;
    uint32_t w0 = u32(b, w->swap);
    t->small = (w0 >> 16) != 0;
    if (t->small) {
        t->type = w0 & 0xffff;
        t->n = w0 >> 16;
        if (t->n > 4) return fail(w, "%s: a small element of %u bytes (4 at most)", what, t->n);
        memcpy(t->data, b + 4, 4);
        t->size = 8;
    } else {
        t->type = w0;
        t->n = u32(b + 4, w->swap);
        if (t->n > *avail - 8)
            return fail(w, "%s claims %u bytes, %llu remain", what, t->n,
                        (unsigned long long)(*avail - 8));
        t->size = 8 + pad8(t->n) < *avail ? 8 + pad8(t->n) : *avail;
    }
    *avail -= t->size;
    return CLIP_OK;
}

/* Passes over the data (and padding) of a subelement whose tag was just read. */
static void skip_data(walk *w, const tag *t, uint64_t already_read) {
    if (!t->small) w->skip += t->size - 8 - already_read;
}

static clip_status check_array(walk *w, uint64_t len, int depth);

/* Numeric data: exactly numel values of a numeric type. */
static clip_status check_data(walk *w, uint64_t *avail, uint64_t numel, const char *what) {
    /* bytes per value of each data type (0: not numeric) */
    static const unsigned char bytes[14] = {0, 1, 1, 2, 2, 4, 4, 4, 0, 8, 0, 0, 8, 8};
    tag t = {0};
    clip_status s = get_tag(w, avail, what, &t);
    if (s != CLIP_OK) return s;
    unsigned es = t.type < sizeof bytes ? bytes[t.type] : 0;
    if (!es) return fail(w, "%s has data type %u, not a numeric one", what, t.type);
    if (numel > UINT32_MAX || numel * es != t.n)
        return fail(w, "%s holds %u bytes, but %llu values of %u bytes are declared", what, t.n,
                    (unsigned long long)numel, es);
    skip_data(w, &t, 0);
    return CLIP_OK;
}

/* `count` arrays (cells or fields), each checked in turn. */
static clip_status check_children(walk *w, uint64_t *avail, uint64_t count, int depth) {
    if (count > *avail / 8)
        return fail(w, "%llu cells or fields declared, room for %llu at most",
                    (unsigned long long)count, (unsigned long long)(*avail / 8));
    for (uint64_t i = 0; i < count; i++) {
        tag t = {0};
        clip_status s = get_tag(w, avail, "cell or field", &t);
        if (s != CLIP_OK) return s;
        if (t.small || t.type != MI_MATRIX)
            return fail(w, "a cell or field of data type %u, not an array", t.type);
        if ((s = check_array(w, t.n, depth + 1)) != CLIP_OK) return s;
        skip_data(w, &t, t.n);
    }
    return CLIP_OK;
}

/* Whatever follows the parts matio interprets: any subelements that fit; arrays among them are
 * checked too. */
static clip_status check_rest(walk *w, uint64_t avail, int depth) {
    while (avail) {
        tag t = {0};
        clip_status s = get_tag(w, &avail, "subelement", &t);
        if (s != CLIP_OK) return s;
        if (!t.small && t.type == MI_COMPRESSED)
            return fail(w, "compressed data nested in an array");
        if (!t.small && t.type == MI_MATRIX) {
            if ((s = check_array(w, t.n, depth + 1)) != CLIP_OK) return s;
            skip_data(w, &t, t.n);
        } else {
            skip_data(w, &t, 0);
        }
    }
    return CLIP_OK;
}

/* matio reads an uncompressed opaque array's second subelement tag as dimensions (reading them
 * only when it says miINT32) and the 8 bytes after that as the name tag, while the real layout
 * has the name second: check the lengths matio will act on. start: the array's first byte. */
static clip_status check_opaque_as_matio_reads(walk *w, uint64_t start, uint64_t len) {
    unsigned char b[8];
    uint64_t at = 24; /* array flags tag and value, then the tag matio takes for dimensions */
    if (len < at + 8) return fail(w, "opaque array of %llu bytes", (unsigned long long)len);
    clip_status s = read_at(w, start + 16, b, 8);
    if (s != CLIP_OK) return s;
    if (u32(b, w->swap) == MI_INT32) {
        uint64_t rank = u32(b + 4, w->swap) / 4;
        at += 4 * (rank + rank % 2);
    }
    if (at + 8 > len) return fail(w, "opaque array: its header runs past its end");
    if ((s = read_at(w, start + at, b, 8)) != CLIP_OK) return s;
    if (u32(b, w->swap) == MI_INT8 && at + 8 + pad8(u32(b + 4, w->swap)) > len)
        return fail(w, "opaque array: its name runs past its end");
    return CLIP_OK;
}

/* An array (miMATRIX contents) of len bytes at the cursor; leaves the cursor at its end.
 * depth 0: a top-level variable. */
static clip_status check_array(walk *w, uint64_t len, int depth) {
    if (len == 0) return depth ? CLIP_OK : fail(w, "an empty variable"); /* empty cell/field */
    if (depth > MAX_DEPTH) return fail(w, "arrays nested more than %d deep", MAX_DEPTH);
    uint64_t avail = len, start = w->off + w->skip;
    unsigned char b[8];
    tag t = {0};
    clip_status s = get_tag(w, &avail, "array flags", &t);
    if (s != CLIP_OK) return s;
    if (t.small || (t.type != MI_UINT32 && t.type != MI_INT32) || t.n != 8)
        return fail(w, "array flags are not 8 bytes of miUINT32");
    if ((s = take(w, b, 8)) != CLIP_OK) return s;
    uint32_t flags = u32(b, w->swap), cls = flags & 0xff;
    int complex = (flags & 0x800) != 0;
    if (cls < MX_CELL || cls > MX_OPAQUE) return fail(w, "array class %u", cls);

    uint64_t numel = 1;
    if (cls == MX_OPAQUE) {
        /* compressed, matio skips the dimensions and reads the name where it is */
        if (!w->z && (s = check_opaque_as_matio_reads(w, start, len)) != CLIP_OK) return s;
    } else {
        if ((s = get_tag(w, &avail, "dimensions", &t)) != CLIP_OK) return s;
        if (t.small || t.type != MI_INT32 || t.n < 8 || t.n % 4)
            return fail(w, "dimensions are not two or more miINT32 values");
        for (uint32_t i = 0; i < t.n / 4; i++) {
            if ((s = take(w, b, 4)) != CLIP_OK) return s;
            uint64_t d = u32(b, w->swap);
            if (d && numel > UINT64_MAX / d) return fail(w, "dimensions overflow");
            numel *= d;
        }
        skip_data(w, &t, t.n);
        if ((s = get_tag(w, &avail, "array name", &t)) != CLIP_OK) return s;
        if (t.type != MI_INT8) return fail(w, "array name of data type %u", t.type);
        skip_data(w, &t, 0);
    }

    if (cls >= MX_DOUBLE && cls <= MX_UINT64) {
        if ((s = check_data(w, &avail, numel, "real part")) != CLIP_OK) return s;
        if (complex && (s = check_data(w, &avail, numel, "imaginary part")) != CLIP_OK) return s;
    } else if (cls == MX_CELL || cls == MX_FUNCTION) {
        if ((s = check_children(w, &avail, numel, depth)) != CLIP_OK) return s;
    } else if (cls == MX_STRUCT || cls == MX_OBJECT) {
        if (cls == MX_OBJECT) {
            if ((s = get_tag(w, &avail, "class name", &t)) != CLIP_OK) return s;
            if (t.type != MI_INT8) return fail(w, "class name of data type %u", t.type);
            skip_data(w, &t, 0);
        }
        if ((s = get_tag(w, &avail, "field name length", &t)) != CLIP_OK) return s;
        uint32_t flen = u32(t.data, w->swap);
        if (!t.small || t.type != MI_INT32 || t.n != 4 || flen == 0)
            return fail(w, "field name length is not a positive small miINT32");
        if ((s = get_tag(w, &avail, "field names", &t)) != CLIP_OK) return s;
        if (t.type != MI_INT8 || t.n % flen)
            return fail(w, "field names: %u bytes of type %u for names of %u bytes", t.n,
                        t.type, flen);
        skip_data(w, &t, 0);
        uint64_t fields = t.n / flen;
        if (fields && numel > UINT64_MAX / fields) return fail(w, "field count overflows");
        if ((s = check_children(w, &avail, numel * fields, depth)) != CLIP_OK) return s;
    }
    /* matio seeks past a compressed variable by its compressed length, and its writer declares
     * an estimate of the inflated length there: only nested arrays must add up exactly. */
    if (depth == 0 && w->z) return CLIP_OK;
    return check_rest(w, avail, depth);
}

static clip_status check_compressed(walk *w, uint64_t start, uint64_t len) {
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit(&z) != Z_OK)
        return clip_set_error(w->app, CLIP_ERR_OUT_OF_MEMORY, "load_mat: %s: out of memory",
                              w->path);
    w->z = &z;
    w->z_left = len;
    w->skip = 0;
    uint64_t avail = UINT64_MAX;
    tag t = {0};
    clip_status s = fseeko(w->f, (off_t)start, SEEK_SET) != 0
                        ? fail(w, "cannot seek to the compressed data")
                        : get_tag(w, &avail, "compressed variable", &t);
    if (s == CLIP_OK && (t.small || t.type != MI_MATRIX))
        s = fail(w, "compressed data of type %u, not an array", t.type);
    if (s == CLIP_OK && 8 + (uint64_t)t.n > DEFLATE_MAX_RATIO * len)
        s = fail(w, "%llu compressed bytes cannot inflate to the %u declared",
                 (unsigned long long)len, t.n);
    if (s == CLIP_OK) s = check_array(w, t.n, 0);
    inflateEnd(&z);
    w->z = NULL;
    return s;
}

static clip_status check_v5(walk *w, uint64_t size) {
    w->what = "element";
    for (uint64_t pos = 128; pos < size;) {
        unsigned char b[8];
        w->elem = pos;
        if (size - pos < 8)
            return clip_set_error(w->app, CLIP_ERR_FORMAT,
                                  "load_mat: %s: truncated (partial element at byte %llu)",
                                  w->path, (unsigned long long)pos);
        clip_status s = read_at(w, pos, b, 8);
        if (s != CLIP_OK) return s;
        uint32_t type = u32(b, w->swap);
        uint64_t len = u32(b + 4, w->swap);
        if (len > size - pos - 8)
            return clip_set_error(w->app, CLIP_ERR_FORMAT,
                                  "load_mat: %s: truncated (element at byte %llu needs %llu "
                                  "bytes, the file has %llu)",
                                  w->path, (unsigned long long)pos,
                                  (unsigned long long)(8 + len),
                                  (unsigned long long)(size - pos));
        if (type == MI_MATRIX) {
            w->off = pos + 8;
            w->skip = 0;
            s = check_array(w, len, 0);
        } else if (type == MI_COMPRESSED) {
            s = check_compressed(w, pos + 8, len);
        } else {
            s = fail(w, "data type %u at the top level (not an array)", type);
        }
        if (s != CLIP_OK) return s;
        pos += 8 + len;
    }
    return CLIP_OK;
}

/* v4: a 20-byte header (type MOPT, rows, columns, imaginary flag, name length), the name with
 * its NUL, then rows x columns values (twice when complex), variable after variable. */
static clip_status check_v4(walk *w, uint64_t size) {
    static const unsigned char bytes[6] = {8, 4, 4, 2, 2, 1}; /* by P: double ... uint8 */
    w->what = "v4 variable";
    for (uint64_t pos = 0; pos < size;) {
        unsigned char h[20];
        w->elem = pos;
        if (size - pos < sizeof h) return fail(w, "its header is cut short");
        clip_status s = read_at(w, pos, h, sizeof h);
        if (s != CLIP_OK) return s;
        /* matio takes the byte order that makes MOPT plausible, then trusts M */
        int32_t mopt = (int32_t)u32(h, 0);
        if (mopt < 0 || mopt > 4052) mopt = (int32_t)u32(h, 1);
        int m = mopt / 1000, o = mopt / 100 % 10, p = mopt / 10 % 10, t = mopt % 10;
        if (mopt < 0 || mopt > 4052 || m > 1 || o || p > 5 || t > 2)
            return fail(w, "not a MAT file (no v5 header, and %d is no v4 type)", (int)mopt);
        int32_t rows = (int32_t)u32(h + 4, m), cols = (int32_t)u32(h + 8, m),
                name = (int32_t)u32(h + 16, m);
        int complex = u32(h + 12, m) != 0;
        uint64_t left = size - pos - sizeof h;
        if (rows < 0 || cols < 0 || (complex && t == 1))
            return fail(w, "%d x %d%s", (int)rows, (int)cols, complex ? " complex" : "");
        if (name < 1 || (uint64_t)name > left)
            return fail(w, "name of %d bytes, %llu remain", (int)name, (unsigned long long)left);
        left -= (uint64_t)name;
        uint64_t values = (uint64_t)rows * (uint64_t)cols, each = bytes[p] * (complex ? 2u : 1u);
        if (values > left / each)
            return fail(w, "%d x %d values of %u bytes, %llu bytes remain", (int)rows, (int)cols,
                        (unsigned)each, (unsigned long long)left);
        uint64_t data = values * each;
        unsigned char nul;
        if ((s = read_at(w, pos + sizeof h + (uint64_t)name - 1, &nul, 1)) != CLIP_OK) return s;
        if (nul) return fail(w, "its name does not end in a NUL");
        pos += sizeof h + (uint64_t)name + data;
    }
    return CLIP_OK;
}

clip_status clip_io_mat_check(clip_app *app, const char *path, uint64_t size) {
    walk *w = calloc(1, sizeof *w);
    if (!w) return clip_set_error(app, CLIP_ERR_OUT_OF_MEMORY, "load_mat: %s: out of memory", path);
    w->app = app;
    w->path = path;
    w->f = fopen(path, "rb");
    clip_status s = CLIP_OK;
    if (w->f) { /* else matio's open reports it */
        /* matio's own test: a 128-byte header ending in version 0x0100 (v5) or 0x0200 (v7.3)
         * and the endian mark, else v4 */
        unsigned char h[128];
        int v5 = 0, v73 = 0;
        if (fread(h, 1, sizeof h, w->f) == sizeof h &&
            ((h[126] == 'I' && h[127] == 'M') || (h[126] == 'M' && h[127] == 'I'))) {
            w->swap = h[126] == 'M';
            unsigned version = w->swap ? (unsigned)h[124] << 8 | h[125]
                                       : (unsigned)h[125] << 8 | h[124];
            v5 = version == 0x0100;
            v73 = version == 0x0200;
        }
        if (!v73) s = v5 ? check_v5(w, size) : check_v4(w, size);
        fclose(w->f);
    }
    free(w);
    return s;
}

#endif /* CLIP_HAVE_MATIO */
