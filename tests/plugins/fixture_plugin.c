/* Plugins for test_plugin, one source built four ways: FIXTURE_GOOD registers "plugtest",
 * FIXTURE_TAKEN registers "scale" (a built-in's name), FIXTURE_NO_ENTRY defines no entry point,
 * FIXTURE_BAD_ABI answers another ABI version. */
#include "clip/plugin.h"

static clip_status fixture_init(clip_process *p) {
    clip_data *y = NULL;
    const size_t dims[1] = {1};
    return clip_proc_output(p, 0, CLIP_F32, 1, dims, &y);
}
static clip_status fixture_launch(clip_process *p) {
    (void)p;
    return CLIP_OK;
}
static const char *const names[] = {"X"};
static const char *const docs[] = {"anything"};
static const clip_process_desc fixture = {
    .abi = CLIP_PROCESS_ABI,
#ifdef FIXTURE_TAKEN
    .name = "scale",
#else
    .name = "plugtest",
#endif
    .summary = "a process from a test plugin",
    .n_inputs = 1,
    .input_names = names,
    .input_docs = docs,
    .n_outputs = 1,
    .output_names = names,
    .output_docs = docs,
    .init = fixture_init,
    .launch = fixture_launch,
};

static clip_status register_fixture(void) {
    return clip_process_register(&fixture);
}

#if defined(FIXTURE_BAD_ABI)
CLIP_API unsigned clip_plugin_abi(void);
CLIP_API unsigned clip_plugin_abi(void) {
    return CLIP_PLUGIN_ABI + 1000;
}
CLIP_API clip_status clip_plugin_init(void);
CLIP_API clip_status clip_plugin_init(void) {
    return register_fixture();
}
#elif defined(FIXTURE_NO_ENTRY)
CLIP_API clip_status not_an_entry(void);
CLIP_API clip_status not_an_entry(void) {
    return register_fixture();
}
#else
CLIP_PLUGIN(register_fixture)
#endif
