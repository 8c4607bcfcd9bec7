/* The tool's plugins (tools/plugins.c). */
#ifndef CLIP_TOOLS_PLUGINS_H
#define CLIP_TOOLS_PLUGINS_H
/* Loads CLIP_PLUGIN_PATH's plugins (a failure is a warning on stderr: the other commands stay
 * usable), then the leading `--plugin FILE` / `--plugin=FILE` options of argv[1..], which it
 * removes from argv. Returns 0, or 1 after printing why a --plugin failed, or 2 for --plugin
 * without a file. */
int clip_tool_plugins(int *argc, char **argv);
#endif
