/* `clip --plugin FILE COMMAND ...` and CLIP_PLUGIN_PATH: processes from shared objects
 * (clip/plugin.h) join the built-ins for every command (list, help, run, bench). They stay
 * loaded until the tool exits. */
#include <stdio.h>
#include <string.h>

#include "clip/clip.h"
#include "plugins.h"

int clip_tool_plugins(int *argc, char **argv) {
    if (clip_plugins_load_env() != CLIP_OK)
        fprintf(stderr, "clip: warning: CLIP_PLUGIN_PATH: %s\n", clip_app_last_error(NULL));
    int i = 1;
    while (i < *argc && !strncmp(argv[i], "--plugin", 8) &&
           (argv[i][8] == '\0' || argv[i][8] == '=')) {
        const char *path = argv[i][8] == '=' ? argv[i] + 9 : (i + 1 < *argc ? argv[i + 1] : NULL);
        const int used = argv[i][8] == '=' ? 1 : 2;
        if (!path || !*path) {
            fprintf(stderr, "clip: --plugin needs a file (clip --plugin FILE COMMAND ...)\n");
            return 2;
        }
        if (clip_plugin_load(path) != CLIP_OK) {
            fprintf(stderr, "clip: %s\n", clip_app_last_error(NULL));
            return 1;
        }
        memmove(argv + i, argv + i + used, (size_t)(*argc - i - used + 1) * sizeof *argv);
        *argc -= used;
    }
    return 0;
}
