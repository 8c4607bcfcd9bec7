/* clip — which symbols the shared library exports.
 *
 * libclip.so is built with -fvisibility=hidden: only declarations marked CLIP_API (every function
 * of the public headers in include/clip/) are exported, so that a plugin or a program linked to
 * the shared library sees the API and nothing of lib/'s internals. The static libclip.a holds
 * the same objects; the mark changes nothing for it. */
#ifndef CLIP_EXPORT_H
#define CLIP_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define CLIP_API __attribute__((visibility("default")))
#else
#define CLIP_API
#endif

#endif
