/* `clip tune` subcommand (tools/tune.c). */
#ifndef CLIP_TOOLS_TUNE_H
#define CLIP_TOOLS_TUNE_H
/* argv holds the options after "tune". Returns the exit status. */
int clip_tune_main(int argc, char **argv);
#endif
