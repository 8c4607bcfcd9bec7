/* The clip tool's own documentation: usage, `clip help COMMAND`, `clip --version`
 * (tools/help.c). Process help comes from each process's descriptor (clip_process_help). */
#ifndef CLIP_TOOLS_HELP_H
#define CLIP_TOOLS_HELP_H

#include <stdio.h>

/* The full usage on stdout (returns 0), or one line on stderr (returns 2, a usage error). */
int help_usage(FILE *f);

/* `clip help run`, `clip help bench`, `clip help tune`: prints the command's help and returns 0;
 * returns -1 when name is none of these (devices and list answer their own --help). */
int help_command(const char *name);

/* `clip --version`: version, commit, what the build used and the default device. Returns 0. */
int help_version(void);

#endif
