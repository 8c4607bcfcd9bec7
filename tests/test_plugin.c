/* Plugin loading (clip/plugin.h): a good plugin's process is found and runs; a missing file,
 * a file without entry points, a plugin built for another ABI and one whose process takes a
 * built-in's name are refused with messages naming the plugin; loading twice is a no-op;
 * CLIP_PLUGIN_PATH loads files and folders. Linked to the shared libclip, as plugins are. */
#include <stdlib.h>

#include "testutil.h"

static void expect_refused(const char *path, clip_status want, const char *part) {
    clip_status s = clip_plugin_load(path);
    const char *msg = clip_app_last_error(NULL);
    if (s != want || !strstr(msg, path) || !strstr(msg, part))
        fprintf(stderr, "%s: %s '%s' (want %s, '%s')\n", path, clip_status_str(s), msg,
                clip_status_str(want), part);
    CHECK(s == want && strstr(msg, path) && strstr(msg, part));
}

int main(void) {
    const char *dir = FIXTURE_DIR;
    char path[1024];
    const size_t before = clip_process_count();
    snprintf(path, sizeof path, "%s/missing_plugin.so", dir);
    expect_refused(path, CLIP_ERR_IO, "no such file");
    snprintf(path, sizeof path, "%s/libfixture_no_entry.so", dir);
    expect_refused(path, CLIP_ERR_UNSUPPORTED, "no entry point clip_plugin_abi");
    snprintf(path, sizeof path, "%s/libfixture_bad_abi.so", dir);
    expect_refused(path, CLIP_ERR_UNSUPPORTED, "built for plugin ABI");
    snprintf(path, sizeof path, "%s/libfixture_taken.so", dir);
    expect_refused(path, CLIP_ERR_INVALID_ARG, "'scale' is already registered");
    CHECK(clip_process_count() == before);
    CHECK(clip_plugin_load(NULL) == CLIP_ERR_INVALID_ARG);

    /* CLIP_PLUGIN_PATH: a missing entry is reported, the good plugin is loaded all the same. */
    char env[2048];
    snprintf(env, sizeof env, "%s/nowhere.so:%s/libfixture_good.so", dir, dir);
    setenv("CLIP_PLUGIN_PATH", env, 1);
    CHECK(clip_plugins_load_env() == CLIP_ERR_IO);
    CHECK(strstr(clip_app_last_error(NULL), "nowhere.so"));
    const clip_process_desc *d = clip_process_find("plugtest");
    CHECK(d != NULL && clip_process_count() == before + 1);
    snprintf(path, sizeof path, "%s/libfixture_good.so", dir);
    CHECK_OK(NULL, clip_plugin_load(path)); /* already loaded: skipped */
    CHECK(clip_process_count() == before + 1);

    clip_app *app = tu_app();
    clip_process *p = NULL;
    clip_data *x = NULL;
    const size_t dims[1] = {3};
    CHECK_OK(app, clip_data_create_zeros(app, CLIP_F32, 1, dims, &x));
    CHECK_OK(app, clip_process_create(app, "plugtest", &p));
    CHECK_OK(app, clip_process_set_input(p, 0, x));
    CHECK_OK(app, clip_process_init(p));
    CHECK_OK(app, clip_process_launch(p));
    clip_process_destroy(p);
    clip_data_destroy(x);
    clip_app_destroy(app);

    /* The tool: --plugin (both spellings) and CLIP_PLUGIN_PATH reach list and help; a failed
     * --plugin is an error naming the file; a broken entry of CLIP_PLUGIN_PATH only a warning. */
    unsetenv("CLIP_PLUGIN_PATH");
    char args[2048];
    snprintf(args, sizeof args, "--plugin %s/libfixture_good.so list", dir);
    CHECK(tu_run_tool("plugin_list", args) == 0 && tu_file_has("plugin_list_out.txt", "plugtest"));
    snprintf(args, sizeof args, "--plugin=%s/libfixture_good.so help plugtest", dir);
    CHECK(tu_run_tool("plugin_help", args) == 0 &&
          tu_file_has("plugin_help_out.txt", "usage: clip run plugtest IN1"));
    snprintf(args, sizeof args, "--plugin %s/libfixture_bad_abi.so list", dir);
    CHECK(tu_run_tool("plugin_abi", args) == 1 &&
          tu_file_has("plugin_abi_err.txt", "libfixture_bad_abi.so': built for plugin ABI"));
    CHECK(tu_run_tool("plugin_none", "--plugin") == 2);
    setenv("CLIP_PLUGIN_PATH", env, 1);
    CHECK(tu_run_tool("plugin_env", "list") == 0 && tu_file_has("plugin_env_out.txt", "plugtest") &&
          tu_file_has("plugin_env_err.txt", "warning: CLIP_PLUGIN_PATH: plugin"));
    return tu_finish("test_plugin");
}
