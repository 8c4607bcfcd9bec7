/* clip — plugins: processes in a shared object, loaded at run time.
 *
 * A plugin is a shared library linked against the shared libclip (libclip.so; never the static
 * one, which would give the plugin a registry of its own) that defines its entry points with
 * CLIP_PLUGIN:
 *
 *     #include <clip/plugin.h>
 *     static clip_status register_mine(void) { return clip_process_register(&my_desc); }
 *     CLIP_PLUGIN(register_mine)
 *
 * clip_plugin_load() opens it, checks that it was built for this clip (clip_plugin_abi()
 * returns CLIP_PLUGIN_ABI, which changes whenever a plugin built earlier could be read wrongly),
 * and calls clip_plugin_init(), which registers its processes. The `clip` tool loads the files of
 * CLIP_PLUGIN_PATH and of its --plugin options; the MEX gateway and the Python package load
 * CLIP_PLUGIN_PATH's. A plugin stays loaded until the process exits: descriptors, kernels'
 * sources and the gateway's cached processes point into it, so it is never unloaded.
 */
#ifndef CLIP_PLUGIN_H
#define CLIP_PLUGIN_H

#include "export.h"
#include "process_author.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The plugin interface this header declares: the process descriptor's layout (CLIP_PROCESS_ABI)
 * and the entry points below. */
#define CLIP_PLUGIN_ABI (100 + CLIP_PROCESS_ABI)

/* Defines a plugin's two entry points around `register_fn`, a clip_status (void) function that
 * registers the plugin's processes. */
#define CLIP_PLUGIN(register_fn)                                                                   \
    CLIP_API unsigned clip_plugin_abi(void);                                                       \
    CLIP_API unsigned clip_plugin_abi(void) {                                                      \
        return CLIP_PLUGIN_ABI;                                                                    \
    }                                                                                              \
    CLIP_API clip_status clip_plugin_init(void);                                                   \
    CLIP_API clip_status clip_plugin_init(void) {                                                  \
        return register_fn();                                                                      \
    }

/* Loads the shared object at `path` and calls its entry point, which registers its processes.
 * A file already loaded (the same path, or the same file reached by another) is skipped.
 * Errors name the plugin: CLIP_ERR_INVALID_ARG (NULL path; a process its entry point registers
 * is refused: a name already taken, a bad descriptor; the processes registered before it stay),
 * CLIP_ERR_IO (no such file, or dlopen fails: the loader's reason), CLIP_ERR_UNSUPPORTED (no
 * clip_plugin_abi or clip_plugin_init, or an ABI other than CLIP_PLUGIN_ABI: it was built for
 * another clip), CLIP_ERR_OUT_OF_MEMORY. The message is read with clip_app_last_error(NULL). */
CLIP_API clip_status clip_plugin_load(const char *path);

/* Loads every plugin named in the environment variable CLIP_PLUGIN_PATH: a ':'-separated list of
 * files, or folders whose *.so files are loaded in name order. Unset or empty: nothing. Every
 * entry is tried; the first error is returned (as clip_plugin_load's; a folder that cannot be
 * read: CLIP_ERR_IO). Idempotent: a plugin already loaded is skipped. */
CLIP_API clip_status clip_plugins_load_env(void);

#ifdef __cplusplus
}
#endif
#endif
